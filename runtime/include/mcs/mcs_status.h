/* mcs_status.h - the one status enum of the runtime. Every failure is one of these; the runtime
 * never prints, exits or aborts. */
#ifndef MCS_STATUS_H
#define MCS_STATUS_H

typedef enum mcs_status {
    MCS_OK = 0,
    MCS_ERR_ARGUMENT,  /* a null pointer, a size or an option out of range */
    MCS_ERR_WORKSPACE, /* the caller's memory is smaller than the size it must have (its macro) */
    MCS_ERR_MODEL_VERSION,     /* the model was generated for another runtime ABI: regenerate it */
    MCS_ERR_NEWTON,            /* the position Newton iteration of a chart did not converge */
    MCS_ERR_SINGULAR_CHART,    /* A_S U is (nearly) singular at a stage point */
    MCS_ERR_MASS_NOT_PD,       /* the reduced mass matrix T^T M T is not positive definite */
    MCS_ERR_NONFINITE,         /* a NaN or Inf appeared in the state or in a model kernel */
    MCS_ERR_LINALG,            /* a LAPACK routine reported an illegal argument */
    MCS_ERR_STEP_TOO_SMALL,    /* error control drove the step below the minimum */
    MCS_ERR_ASSEMBLY,          /* initial positions could not be brought onto c = 0, or held
                                  initial velocities contradict the constraints */
    MCS_ERR_NO_DENSE,          /* dense output requested outside the last accepted step */
    MCS_ERR_SINGULAR_JACOBIAN, /* the static Newton matrix (reduced stiffness) is singular */
    MCS_ERR_NO_CONVERGENCE,    /* the static Newton iteration did not converge */
    MCS_ERR_UNSUPPORTED,       /* not available with this backend (damped modes: LAPACK only),
                                  or the model was generated without the kernels the call
                                  needs (a firmware build: A_dot for the euler and exp
                                  predictors, K_c K_f D for statics and modes) */
    MCS_ERR_LIMIT,             /* a bounded loop hit its bound: steps of one mcs_sim_advance
                                  (options.max_steps), attempts of one step (max_attempts) */
    MCS_ERR_UNACTUATED,        /* the inputs act on no motion there (inverse dynamics) */
    MCS_NSTATUS                /* number of status codes (keep last) */
} mcs_status;

/* A short, static, human-readable description of a status code. */
const char *mcs_status_str(mcs_status status);

#endif /* MCS_STATUS_H */
