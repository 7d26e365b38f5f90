/* mcs_statics.h - static equilibrium with the tangent stiffness of constraints (SPEC §8, 003 §4).
 *
 * Solves  A(x)^T lambda - f(x, 0, t) = 0,  c(x, t) = 0  for (x, lambda) by Newton's method with a
 * backtracking line search on the residual norm. Two formulations (mcs_statics_method):
 *
 *   MCS_STATICS_TANGENT (default): at each iterate, A^T P = Q R (pivoted QR, rank r) splits the
 *     step into a normal part U a that corrects c and a tangent part T b from the reduced stiffness
 *         (T^T K T) b = T^T (f - A^T lambda) - T^T K U a,   K = K_f + K_c(lambda),
 *     with lambda the minimum-norm least-squares multipliers at the iterate. Dependent rows need no
 *     special case (the rank decides, lambda is minimum-norm), the matrix is the (f x f) reduced
 *     stiffness that modal analysis uses too, and its singularity means exactly "no stiffness
 *     along a free motion" - 003's failure without K_c.
 *   MCS_STATICS_KKT: the full saddle-point Newton matrix [[K, A^T], [A, 0]] ((n+m) x (n+m)) with
 *     lambda a Newton variable. Singular whenever rows are dependent; kept as the cross-check
 *     (the two must agree where both apply).
 *
 * Both start from x assembled onto c = 0 (minimum-norm Gauss-Newton with a line search; the
 * report's assembly_steps) and keep the rank found there: off the constraint manifold rows that
 * are dependent on it are not (a parallelogram's extra bar), and Newton with that rank diverges.
 * A start no step brings closer to c = 0 gives MCS_ERR_ASSEMBLY.
 *
 * Nothing is allocated: the caller passes work arrays of MCS_STATICS_WORK_SIZE(n, m) reals and
 * MCS_STATICS_IWORK_SIZE(n, m) ints (compile-time sizes; mcs_statics_work_size() at run time).
 */
#ifndef MCS_STATICS_H
#define MCS_STATICS_H

#include "mcs_basis.h"
#include "mcs_config.h"
#include "mcs_model.h"
#include "mcs_status.h"

typedef enum mcs_statics_method {
    MCS_STATICS_TANGENT = 0, /* reduced Newton in the tangent space (default) */
    MCS_STATICS_KKT = 1      /* full saddle-point Newton on (x, lambda) */
} mcs_statics_method;

typedef struct mcs_statics_options {
    int use_kc;   /* 1: the Newton matrix includes K_c (default); 0 leaves it out (003 §4.1) */
    int method;   /* an mcs_statics_method */
    int max_iter; /* Newton iterations (default 50, at most MCS_STATICS_HISTORY - 1) */
    mcs_real tol; /* converged when |c|_inf <= tol L and |f - A^T lambda|_inf <= tol F, with
                          L = max(1, |x0|_inf), F = max(1, |f(x0)|_inf); default 1e-13 (float:
                          1e-5) */
    mcs_real rank_tol; /* rank of A: |R_ii| > rank_tol |R_11| (default 1e-9, as the simulator) */
    mcs_real t;        /* the time at which c and f are evaluated (velocities are zero) */
    /* Optional continued tangent basis (the simulator's rule at zero velocity, SPEC §3.6-7):
     * basis (n x n storage, ld n) and basis_cols. NULL (default): the tangent step uses the
     * pivoted-QR basis of each iterate ("traditional"). Otherwise, on entry *basis_cols = 0 starts
     * from the QR basis at x, or f > 0 gives T (n x f) at x; at every accepted iterate the QR
     * basis is aligned to the previous T by mcs_align_basis, the tangent step uses it, and on
     * return basis holds T at the final x (e.g. for mcs_modes_options.basis). The equilibrium
     * does not depend on the choice: the step T b with (T^T K T) b = T^T r is invariant to
     * T -> T W. */
    mcs_real *basis;
    int *basis_cols;
} mcs_statics_options;

#define MCS_STATICS_HISTORY 64

typedef struct mcs_statics_report {
    int assembly_steps;                  /* Gauss-Newton steps that brought the start onto c = 0 */
    int iterations;                      /* Newton steps taken */
    int evaluations;                     /* residual evaluations, line-search trials included */
    int rank;                            /* rank of A at the last iterate */
    mcs_real residual_c;                 /* |c|_inf at the last iterate */
    mcs_real residual_f;                 /* |f - A^T lambda|_inf at the last iterate */
    int history_len;                     /* entries of the two arrays below */
    mcs_real merit[MCS_STATICS_HISTORY]; /* sqrt(|c|^2 + (|f - A^T lambda| L / F)^2) per iterate */
    mcs_real step[MCS_STATICS_HISTORY];  /* line-search factor of the step from each iterate */
} mcs_statics_report;

#define MCS_STATICS_N2(n, m) (((n) + (m)) * ((n) + (m)))
#define MCS_STATICS_WORK_SIZE(n, m) \
    (MCS_STATICS_N2(n, m) + (5 * (n) * (n)) + (2 * (n) * (m)) + (8 * ((n) + (m))) + 8 + \
     MCS_BASIS_WORK_SIZE(n, m))
#define MCS_STATICS_IWORK_SIZE(n, m) ((2 * ((n) + (m))) + 2 + MCS_BASIS_IWORK_SIZE(n, m))

/* Defaults as documented above. */
void mcs_statics_defaults(mcs_statics_options *opt);
/* Work sizes for a model (the macros above with its nx and nc). */
size_t mcs_statics_work_size(const mcs_model *model);
size_t mcs_statics_iwork_size(const mcs_model *model);

/* Newton from x (nx) to an equilibrium; on return x is the last iterate and lambda (nc) its
 * multipliers (least-squares, minimum-norm; Newton's own with MCS_STATICS_KKT). report may be
 * NULL. Returns MCS_OK when converged; MCS_ERR_SINGULAR_JACOBIAN when the Newton matrix is
 * singular (e.g. without K_c where stiffness comes only from the constraints);
 * MCS_ERR_NO_CONVERGENCE when the line search stalls or max_iter is reached; MCS_ERR_NONFINITE,
 * MCS_ERR_ARGUMENT, MCS_ERR_MODEL_VERSION, MCS_ERR_LINALG otherwise. */
mcs_status mcs_statics_solve(const mcs_model *model, const void *params,
                             const mcs_statics_options *opt, mcs_real *x, mcs_real *lambda,
                             mcs_statics_report *report, mcs_real *work, size_t work_len,
                             int *iwork, size_t iwork_len);

#endif /* MCS_STATICS_H */
