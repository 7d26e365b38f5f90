/* mcs_sim.h - integration of a generated model in its minimal coordinate set (SPEC §2-§4).
 *
 * Usage (no allocation anywhere; the caller owns every byte):
 *
 *   static mcs_real work[MCS_SIM_WORK_SIZE(PEND_NX, PEND_NC)];
 *   static int iwork[MCS_SIM_IWORK_SIZE(PEND_NX, PEND_NC)];
 *   mcs_sim sim; mcs_options opt; mcs_assembly asm_report;
 *   mcs_options_default(&opt, &pend_model);
 *   mcs_sim_init(&sim, &pend_model, &pend_default_params, &opt, work, sizeof work / sizeof *work,
 *                iwork, sizeof iwork / sizeof *iwork);
 *   mcs_sim_start(&sim, 0, &asm_report);        (the file's initial state for the parameters;
 *                                                or mcs_sim_set_state(&sim, t, x, v, ...))
 *   while (sim.cur.t < t_end) mcs_sim_advance(&sim, t_end);   (or mcs_sim_step for each step)
 *
 * Within a step the chart (x_k, U_k, T_k, S_k) of the step's start is frozen and the motion is the
 * ODE of y = (q, qdot) of SPEC §4; after it the Jacobian is re-factored and the tangent basis
 * continued (SPEC §3). Every function returns an mcs_status.
 */
#ifndef MCS_SIM_H
#define MCS_SIM_H

#include <stdint.h>

#include "mcs_basis.h"
#include "mcs_config.h"
#include "mcs_model.h"
#include "mcs_sim_memory.h"
#include "mcs_status.h"
#include "mcs_transition.h"

typedef enum mcs_method {
    MCS_METHOD_RK4 = 0,    /* classic fixed-step Runge-Kutta 4 (firmware default) */
    MCS_METHOD_DOPRI5 = 1, /* Dormand-Prince 5(4) with error control and dense output */
    MCS_METHOD_DOP853 = 2, /* Dormand-Prince 8(5,3) (Hairer's DOP853), dense output of order 7:
                              the fewest evaluations at tight tolerances; its steps near a
                              singular configuration are DOPRI5's (docs/explanation/integrators.md) */
    /* Rang and Angermann's ROS34PW2, a linearly implicit Rosenbrock-W method of order 3 (error
     * estimate of order 2), L-stable and stiffly accurate, on the chart's Jacobian from the
     * generated K_f, D and K_c (and M_x, gamma_x when the model carries them): one LU of an
     * (f x f) matrix and four evaluations a step, for stiff models (joint damping on light
     * links). Error control; the fixed-step variant on the grid of options.h is for control
     * loops (bounded work a step). In the dense and compact simulators (the compact one factors
     * the stiff part alone: K_f, D and M through T; docs/explanation/integrators.md). */
    MCS_METHOD_ROS34PW2 = 3,
    MCS_METHOD_ROS34PW2_FIXED = 4
} mcs_method;
#define MCS_METHOD_COUNT 5 /* the methods above (runtime/src/sim/mcs_method_table.c: their table) */
/* A method's name in model files and on the command line ("rk4", "dopri5", "dop853",
 * "ros34pw2", "ros34pw2_fixed"); NULL for a value that is no method. */
const char *mcs_method_name(mcs_method method);
/* What a method is (mcs_method_flags; generator/mcsgen/enums.py's METHOD_FLAGS holds the same) */
#define MCS_METHOD_FLAG_ADAPTIVE 0x01U /* error control; else fixed steps on the grid t0 + k h */
#define MCS_METHOD_FLAG_FSAL 0x02U     /* its last stage is the next step's first */
/* it factors the chart's Jacobian: needs K_f and D (the model's force_tangents kernel set) */
#define MCS_METHOD_FLAG_IMPLICIT 0x04U
#define MCS_METHOD_FLAG_STEP_JACOBIAN 0x08U /* mcs_sim_step_jacobian differentiates its step */
/* its interpolant evaluates stages of its own when first asked for (mcs_sim_dense), which
 * mcs_sim_set_inputs evaluates before the inputs change */
#define MCS_METHOD_FLAG_LAZY_STAGES 0x10U
/* its accepted steps carry Hairer's stiffness test (mcs_stats' stability_limited, lambda_max) */
#define MCS_METHOD_FLAG_STIFFNESS_TEST 0x20U
/* The method's MCS_METHOD_FLAG_* bits (0 for a value that is no method). */
unsigned mcs_method_flags(mcs_method method);

/* The simulator's variant (options.variant): three ways to compute the same motion, to round-off,
 * for different targets. runtime/src/sim/mcs_variant.c is the one place that tells them apart. */
typedef enum mcs_variant {
    /* every option (dense output, events, locks, every continuation): frames with the explicit
     * n x n Q, the chart Newton with an LU of A_S U at every iteration (the default) */
    MCS_VARIANT_DENSE = 0,
    /* for memory-bound targets (docs/reference/firmware.md): factorizations kept as Householder
     * reflectors (no n x n Q; both frames share one in mcs_sim_assign's layout), a chord Newton
     * and refinement on the chart's own factor instead of an LU of A_S U at every iteration (no
     * r x r G), A and M as their nonzeros. Slower near singular configurations (a stage whose
     * refinement stops converging is retaken). Needs dense_output 0, sing_tol 0 and max_locks
     * 0 (else MCS_ERR_UNSUPPORTED). */
    MCS_VARIANT_COMPACT = 1,
    /* for large mechanisms with banded constraints (docs/explanation/large-models.md; the model's band
     * structure, model->band): every step O(n) with continuation off, O(n f^2) with none or
     * euler. Needs rows of full rank along the motion (no redundancy, no singular
     * configuration: MCS_ERR_SINGULAR_CHART there), continuation off, none or euler,
     * dense_output 0, sing_tol 0, max_locks 0 and memory from mcs_sim_assign (else
     * MCS_ERR_UNSUPPORTED). */
    MCS_VARIANT_BANDED = 2
} mcs_variant;

/* A variant's name ("dense", "compact", "banded": the command line's --simulator and the
 * summary's); NULL for a value that is no variant. */
const char *mcs_variant_name(mcs_variant variant);

/* Memory sizes: mcs/mcs_sim_memory.h (MCS_MEM_* features, MCS_SIM_MEMORY_REALS, MCS_SIM_WORK_SIZE). */

/* Why a model and options cannot run (mcs_sim_refusals; mcs_sim_init, mcs_sim_assign and
 * mcs_sim_step answer MCS_ERR_UNSUPPORTED for them): the data the command line maps to its
 * messages (generator/mcsgen/enums.py's REFUSAL holds the same) */
#define MCS_REFUSE_INVALID 0x001U /* no run at all: MCS_ERR_ARGUMENT or MCS_ERR_MODEL_VERSION */
#define MCS_REFUSE_NOT_COMPILED 0x002U /* a part this build left out (mcs_runtime_parts) */
/* continuation euler or exp without the model's A_dot (the compact and banded variants: its
 * nonzeros, A_dot_nz) */
#define MCS_REFUSE_NEEDS_A_DOT 0x004U
#define MCS_REFUSE_NEEDS_FORCE_TANGENTS 0x008U /* an implicit method without K_f and D */
#define MCS_REFUSE_NO_BAND 0x010U      /* the banded variant: the model has no band structure */
#define MCS_REFUSE_DENSE_OUTPUT 0x020U /* dense_output 1 in a variant without the probe frame */
#define MCS_REFUSE_EVENTS 0x040U       /* sing_tol > 0 in a variant without the event search */
#define MCS_REFUSE_LOCKS 0x080U        /* max_locks > 0 in a variant without transitions */
#define MCS_REFUSE_IMPLICIT 0x100U     /* an implicit method in the banded variant */
#define MCS_REFUSE_CONTINUATION 0x200U /* continuation exp in the banded variant */

typedef struct mcs_options {
    mcs_method method;
    mcs_continuation continuation;
    mcs_real h; /* RK4 step; DOPRI5 and DOP853 first step */
    mcs_real rtol;
    mcs_real atol;            /* DOPRI5 error tolerances */
    mcs_real h_min;           /* DOPRI5, DOP853: smallest step before MCS_ERR_STEP_TOO_SMALL */
    mcs_real rank_tol;        /* tau_rank: |R_ii| > rank_tol |R_11| counts towards the rank */
    mcs_real newton_tol;      /* chart Newton: stop when |dp|_inf <= newton_tol max(1, |x|_inf) */
    int newton_max_iter;      /* chart Newton iterations before MCS_ERR_NEWTON */
    mcs_real chart_pivot_min; /* a stage whose LU of A_S U has a pivot ratio below this fails */
    /* Singular configurations (SPEC §6). sigma = smallest retained |R_ii| / |R_11| (rank from
     * rank_tol). sigma depends on the mechanism's size (A's columns of angles are lengths, of
     * positions numbers: a centimetre mechanism's sigma is about 0.01 everywhere), so "near a
     * singular configuration" is sigma below sing_watch times the largest sigma of the run so
     * far (w.sigma_ref): the same decisions at any scale. Near one, DOP853 leaves the step to
     * DOPRI5, the methods place their steps across it (also from above the watch level when
     * sigma, extrapolated over the last step, reaches 0 within two steps), and a step is
     * searched for a minimum of sigma (when sigma at one of its ends is near, or the step before
     * predicts a crossing in it); a minimum below sing_tol inside the step is an event. A step
     * that would end
     * with sigma below chart_tol is retaken shorter (no chart is centred at a singular point).
     * sing_tol = 0 turns event detection off. */
    mcs_real sing_watch; /* default 0.05 (of the run's largest sigma) */
    mcs_real sing_tol;   /* default 1e-6 (float 1e4 eps): the rank tolerance at the event too */
    mcs_real chart_tol;  /* default 1e-4 */
    /* RK4 places its steps so that no stage comes closer to a predicted crossing than where
     * sigma = sing_gap (a stage there loses about eps / sigma^2; SPEC §6); 0 places them only by
     * the step and chart_tol. Default 1e-3 (float: 1e5 eps = 1.2e-2). DOPRI5 places them by its
     * controller's step. */
    mcs_real sing_gap;
    /* Lock rows the workspace has room for (a coordinate or linear lock takes 1, a row group its
     * nrows: up to 6 for a joint): size it for m + max_locks rows (MCS_SIM_WORK_SIZE(n, m +
     * max_locks)). Default 0. */
    int max_locks;
    /* Bounds on the time a call may take (MCS_ERR_LIMIT when hit): accepted steps of one
     * mcs_sim_advance (default 10^7, at least 1) and attempts of one step, rejected or retaken
     * ones included (default 100, 1 .. 10^6). */
    long max_steps;
    int max_attempts;
    /* Memory (mcs_sim_assign sizes by them; mcs_sim_init has room for everything). dense_output:
     * 1 (default) keeps what mcs_sim_dense's q and qd and mcs_sim_multipliers need; 0 does not
     * (they return MCS_ERR_UNSUPPORTED; mcs_sim_dense's x and v still work). max_dof: the most
     * free directions (n - rank) a run without dense output, events or locks meets; 0 (default)
     * is n (n - nc for the banded variant, whose rows keep their rank). A factorization with
     * more returns MCS_ERR_WORKSPACE. */
    int dense_output;
    int max_dof;
    /* the simulator's variant (mcs_variant above). Default MCS_VARIANT_DENSE. */
    mcs_variant variant;
} mcs_options;

/* The state at one time and the factorization of A(x, t)^T there. */
typedef struct mcs_frame {
    mcs_real t;
    mcs_real *x;    /* (n) positions */
    mcs_real *x_lo; /* (n) what the positions hold below x's last bit: x + x_lo is the state, the
                       steps' sum compensated (in float, 1000 steps lost 1e-4 of |x| without) */
    mcs_real *v;    /* (n) velocities */
    mcs_real *q;    /* (n) accumulated chart coordinate (SPEC §4), the first f = n - r in use */
    mcs_real *Q;    /* (n x n) [U | T]: U = Q[:, :r] constrained, T = Q[:, r:] tangent basis;
                       NULL in the compact variant (MCS_VARIANT_COMPACT), which keeps Q as the
                       reflectors below R */
    mcs_real *T;    /* (n x f) the tangent basis: &Q[r n], or the other variants' own */
    mcs_real *R;    /* (n x m, ld n) R of A^T P = Q R in the upper triangle (compact: the
                       reflectors below it, mcs_la_qr_pivoted's layout) */
    mcs_real *tau;  /* (min(n, m)) the reflectors' scalars (compact simulators only) */
    int *piv;       /* (m) pivot order; piv[0..r-1] is the independent row set S */
    int r;          /* rank of A */
    int identity;   /* 1: no rows and Q exactly the identity, as the dense variant's factor of no
                       rows leaves it (its stages then skip the products with Q); 0: not known */
    mcs_real sigma; /* smallest retained |R_ii| / |R_11| (1 when r = 0) */
} mcs_frame;

typedef struct mcs_stats {
    long steps;             /* accepted steps */
    long rejected;          /* rejected steps (error control or a failed stage) */
    long evaluations;       /* right-hand-side evaluations */
    long newton_iterations; /* chart Newton iterations */
    long factorizations;    /* QR factorizations of A^T */
    long rank_changes;      /* accepted steps after which the rank differs */
    long events;            /* singular configurations located */
    long detours;           /* steps retaken shorter near a singular configuration (rules 1-2) */
    /* accepted steps each method took, by mcs_method (DOP853 leaves the steps near a singular
     * configuration to DOPRI5) */
    long steps_by_method[MCS_METHOD_COUNT];
    /* Stiffness seen by DOPRI5 (Hairer's test): its accepted steps (those whose error passed)
     * with h |lambda| above 2.5,
     * near its stability bound of 3.3 on the negative axis, |lambda| estimated from its last
     * two stages, both at the step's end: |k7 - k6| / |y7 - y6|. Such steps are limited by
     * stability, not accuracy: an implicit method takes longer ones. lambda_max: the largest
     * estimate over the accepted steps [1/s] (0 without DOPRI5 steps). */
    long stability_limited;
    mcs_real lambda_max;
} mcs_stats;

/* A singular configuration located inside the last accepted step (SPEC §6). */
typedef struct mcs_event {
    mcs_real t;          /* time of the minimum of sigma */
    mcs_real sigma;      /* sigma there (rank_tol rank) */
    int rank_before;     /* rank of A on the regular motion (the step's chart) */
    int rank_after;      /* rank at the located configuration, counted with sing_tol */
    int nrdiag;          /* min(n, m) */
    int nmotions;        /* new admissible motions: rank_before - rank_after */
    mcs_real *x;         /* (n) configuration at the event */
    mcs_real *rdiag;     /* (nrdiag) |R_ii| of the factorization there */
    mcs_real *continued; /* (n x f) the continued basis there, f = n - rank_before */
    mcs_real *motions;   /* (n x nmotions) new motions, orthonormal, orthogonal to `continued` */
} mcs_event;

/* What mcs_sim_set_state changed to make the initial state consistent (SPEC §4). */
typedef struct mcs_assembly {
    mcs_real c_norm_before;    /* |c(x0, t0)|_inf as given */
    mcs_real c_norm_after;     /* after the minimum-norm Newton correction */
    mcs_real dx_norm;          /* |x_assembled - x0|_2 */
    mcs_real cdot_norm_before; /* |A v0 + c_t|_inf as given */
    mcs_real dv_norm;          /* |v_projected - v0|_2 */
    int iterations;
} mcs_assembly;

typedef struct mcs_sim {
    const mcs_model *model;
    const void *params;
    mcs_options opt;
    int n;
    int m;
    mcs_frame cur;    /* the state now, with the continued basis */
    mcs_frame prev;   /* the state at the start of the last accepted step (its chart) */
    mcs_frame probe;  /* scratch frame for dense output */
    mcs_real h_last;  /* length of the last accepted step (0 before the first) */
    mcs_real h_next;  /* DOPRI5: the step the controller proposes next */
    mcs_real t_grid0; /* RK4: origin of the fixed grid */
    long grid_index;  /* RK4: index of the last grid point reached */
    mcs_stats stats;
    unsigned features; /* the memory it was given: MCS_MEM_* (mcs_sim_init: all) */
    int f_max;         /* the free directions its buffers hold */
    mcs_event event;   /* the last event located */
    /* Locks now active (mcs_sim_lock, _lock_row, _lock_group), their rows after the model's nc
     * rows in this order: m = nc + the sum of lock_rows. Sizes with K = MCS_SIM_K(n, nc +
     * max_locks). */
    int nlocks;
    int *lock_key;      /* (K) each lock's key: the coordinate j, or the caller's key */
    int *lock_group;    /* (K) its row group in the model, or -1 for a linear row a */
    int *lock_rows;     /* (K) rows it adds */
    int *lock_ref_at;   /* (K) where its captured values start in lock_ref */
    mcs_real *lock_ref; /* (4K) captured values: a'x, or g(x) of the group at the activation */
    mcs_real *lock_a;   /* (K x n, row k at k n) each linear lock's row a */
    mcs_real *lock_g;   /* (K + 3) scratch: a group's g or gamma */
    mcs_real *lock_G;   /* ((K + 3) x n) scratch: a group's G or G_dot */
    long transitions;   /* locks and unlocks made */
    /* The inputs now (model->nu of them; mcs_sim_set_inputs): held constant from the time they
     * were set until the next call (zero-order hold); 0 after init. */
    mcs_real u[(MCS_MAX_INPUTS > 0) ? MCS_MAX_INPUTS : 1];
    int inputs_on; /* some entry of u is not 0 (else f_u is not evaluated) */
    /* The friction forces now (model->nfriction of them; mcs_sim_set_friction): each acts along
     * its coordinate, held until the next call; 0 after init. */
    mcs_real friction_force[(MCS_MAX_FRICTION > 0) ? MCS_MAX_FRICTION : 1];
    int friction_on; /* some friction force is not 0 */
    int ready;       /* 1 once mcs_sim_set_state succeeded: a consistent state to work on. 0
                           after init and after a failed set_state (whose partial work is not a
                           state); the calls that need the state return MCS_ERR_ARGUMENT then */
    int event_ready; /* set by a step that located an event; the caller clears it */
    /* Internal scratch, laid out in the caller's memory by mcs_sim_assign or mcs_sim_init
     * (runtime/src/sim/mcs_memory.c; a buffer the layout leaves out is NULL). Shapes: n
     * coordinates, m = nc + max_locks rows (mr = max(m, 1)), k = max(n, m, 1), f the largest
     * number of degrees of freedom (options.max_dof), r <= min(n, m) the rank, a_nnz and m_nnz
     * the model's nonzeros of A and M; matrices column-major. */
    struct mcs_sim_scratch {
        /* --- the model's terms at a stage: their shape is the variant's (options.variant) */
        mcs_real *A;     /* dense (mr x n) with the locks' rows; compact, banded (a_nnz) */
        mcs_real *A_nz;  /* dense (a_nnz): the chart's A by its nonzeros; compact, banded NULL */
        mcs_real *A_dot; /* A's shape: the predictors' input; dense: also a lock's scratch */
        mcs_real *M;     /* dense (n x n); compact, banded (m_nnz) */
        mcs_real *G;     /* dense (r x r, ld r_max): the LU of A_S U, the multipliers' matrix;
                            compact, banded NULL (their chart keeps its own factor) */
        mcs_real *c;     /* (mr) constraint residuals */
        mcs_real *c_t;   /* (mr) their explicit time derivative */
        mcs_real *gamma; /* (mr) the acceleration constraints' right side: A x'' = gamma */
        mcs_real *f;     /* (n) the generalized forces f(x, v, t) + B(x, t) u */
        mcs_real *f_u;   /* (n) the inputs' share B(x, t) u (model->f_u) */
        /* --- the chart and the Maggi-Kane ODE (every variant) */
        mcs_real *Z;     /* (n x f) G^-1 A_S T (r x f) on the chart; n scratch; H T (assembly) */
        mcs_real *Phi;   /* (n x f) dx/dq = (I - U G^-1 A_S) T */
        mcs_real *MPhi;  /* (n x f) M Phi */
        mcs_real *Mred;  /* (f x f) the reduced mass matrix Phi^T M Phi */
        mcs_real *p;     /* (k) the chart's constrained coordinates (Newton's unknowns) */
        mcs_real *xs;    /* (n) the stage's positions */
        mcs_real *vs;    /* (n) the stage's velocities */
        mcs_real *rhs;   /* (k) right sides: f - M beta, Newton residuals */
        mcs_real *tmp;   /* (k) scratch */
        mcs_real *tmp2;  /* (k) scratch */
        mcs_real *x_lo;  /* (n) the chart map's split of its x when want_lo is set */
        mcs_real *xq;    /* (n) the compact chart's x_k + T q */
        mcs_real *start; /* (2 n) mcs_sim_start's [x0; v0] of the parameters */
        int want_lo;
        /* The chart's last solution, for the next evaluation's first-order warm start p =
         * p_last + dpdq (q - q_last), valid while pred_x and pred_t name the same chart and
         * pred_r its rank (mcs_chart_start clears it). */
        mcs_real *dpdq;   /* (r_max x f) dp/dq = -G^-1 A_S T */
        mcs_real *q_last; /* (f) */
        mcs_real *p_last; /* (r_max) */
        const mcs_real *pred_x;
        mcs_real pred_t;
        int pred_r;
        /* --- the basis: alignment and continuation (basis/) */
        mcs_real *That;       /* (n x f) the new frame's basis before alignment */
        mcs_real *Tpred;      /* (n x f) the predicted basis it is aligned to */
        mcs_real *basis_work; /* (basis_work_size: the QR's and the alignment's workspace) */
        int *ipiv;            /* (k) pivots; compact (max(nheld, 1)) */
        int *basis_iwork;     /* (k) */
        /* --- the integrators (sim/mcs_method_table.c's table says which buffers a method needs) */
        mcs_real *y0;                /* (2 f) [q; q'] at the step's start */
        mcs_real *y1;                /* (2 f) at its end */
        mcs_real *ys;                /* (2 f) at a stage */
        mcs_real *yerr;              /* (2 f) the error estimate (adaptive methods, dense output) */
        mcs_real *k[MCS_SIM_STAGES]; /* (2 f) each: the stages, RK4 4, DOPRI5 7, DOP853 16 */
        /* DOPRI5's and DOP853's first stage is the last one's (FSAL): a_end (n) is the
         * acceleration at the end of the last accepted step, from its last stage, and the next
         * step's first stage is q'' = T^T a_end (SPEC §4: on any chart at x, q'' = T^T x'')
         * instead of a chart evaluation. Used while fsal is set, the state is still that step's
         * end (interp_ready = 1: set_state and locks clear it), the parameters' fingerprint
         * fsal_params is the same (a change of any one 8-byte word of the struct always changes
         * it) and sigma is above sing_watch (near a singular configuration every stage is
         * evaluated). */
        mcs_real *a_end; /* (n) */
        /* ROS34PW2's (MCS_MEM_IMPLICIT; NULL without): the chart Jacobian's workspace
         * (MCS_SIM_LINEARIZE_WORK_SIZE(n, m, 0)), the stage matrix's LU (f x f) and pivots (n),
         * a stage's right-hand side and the sum of gamma_ij k_j (2 f each) */
        mcs_real *jac;
        mcs_real *jac_E;
        int *jac_ipiv;
        mcs_real *jac_F;
        mcs_real *jac_g;
        int fsal;
        uint64_t fsal_params;
        int interp_ready; /* the last step's data are valid for its interpolant (dense output: 1),
                             by the method that took it (interp_method; DOP853's three stages of
                             its own evaluated once interp_extra) */
        mcs_method interp_method;
        int interp_extra;
        unsigned checked;    /* the memory features of the options the run was checked with */
        int retries;         /* consecutive retakes of the current step near a singular point */
        mcs_real g_cond;     /* pivot-ratio condition estimate of the last LU of A_S U */
        mcs_real g_cond_max; /* the largest over the stages of the current DOPRI5 attempt */
        /* --- the compact variant's: the x of the frame whose factorization the storage the
         * frames share holds (NULL: none) */
        const mcs_real *qr_x;
        /* --- the banded variant's (NULL in the others) */
        mcs_real *bz;      /* (n) a vector by slot (the structure's column order) */
        mcs_real *bx;      /* (n) a vector by coordinate */
        mcs_real *bq;      /* (f) tangent entries */
        mcs_real *bwin;    /* (bw) a window of R's band */
        mcs_real *kkt;     /* ((n + m) x (3 kb + 1)) the banded LU of the KKT matrix */
        mcs_real *kkt_rhs; /* (n + m) its right side */
        int *kkt_ipiv;     /* (n + m) its pivots */
        /* --- the singular-configuration watch (sim/mcs_events.c) */
        /* sigma at the start of the last accepted step (valid while h_last > 0): with cur.sigma
         * it predicts where a singular configuration is crossed (stage placement, SPEC §6) */
        mcs_real sigma_start_t;
        mcs_real sigma_start;
        int sigma_start_r;
        /* the same at the start of the step before it, and whether that step was searched for
         * a singular configuration (mcs_events_detect skips steps sigma passes monotonically) */
        mcs_real sigma_before_t;
        mcs_real sigma_before;
        int sigma_before_r;
        int searched;
        /* the largest sigma of the run's frames: the watch compares sigma with sing_watch times
         * it (mcs_watch_level), so that it does not depend on the mechanism's size */
        mcs_real sigma_ref;
    } w;
} mcs_sim;

/* Defaults: the model's simulation settings (method, continuation, h, rtol, atol; model may be
 * NULL), h_min 1e-12, rank_tol 1e-9, newton_tol 500 eps, 25 iterations, chart_pivot_min 1e-8,
 * sing_watch 0.05, sing_tol 1e-6, chart_tol 1e-4, sing_gap 1e-3 (the tolerances never below a
 * few hundred eps of mcs_real; in float sing_tol is 1e4 eps = 1.2e-3, where sigma near a singular
 * configuration cannot be measured much below 1e-3, and sing_gap 1e5 eps). */
mcs_status mcs_options_default(mcs_options *opt, const mcs_model *model);

/* The parts of the runtime this build compiled in (mcs_config.h's MCS_WITH_*), as MCS_PART_*
 * bits: for a program or test that adapts to a firmware build. Options that need a part left
 * out get MCS_ERR_UNSUPPORTED from mcs_sim_init, mcs_sim_assign and mcs_sim_step. */
#define MCS_PART_DOP853 0x01U     /* MCS_WITH_DOP853: the DOP853 integrator */
#define MCS_PART_EVENTS 0x02U     /* MCS_WITH_EVENTS: the singular-configuration search */
#define MCS_PART_LOCKS 0x04U      /* MCS_WITH_LOCKS: locks and unlocks */
#define MCS_PART_PREDICTORS 0x08U /* MCS_WITH_PREDICTORS: the euler and exp predictors */
#define MCS_PART_DENSE 0x10U      /* MCS_WITH_DENSE: the dense variant */
#define MCS_PART_COMPACT 0x20U    /* MCS_WITH_COMPACT: the compact variant */
#define MCS_PART_BANDED 0x40U     /* MCS_WITH_BANDED: the banded variant */
#define MCS_PART_IMPLICIT 0x80U   /* MCS_WITH_IMPLICIT: the ROS34PW2 integrators */
unsigned mcs_runtime_parts(void);

/* Size of the workspace that mcs_sim_init needs: *reals mcs_real and *ints int entries (equal to
 * the MCS_SIM_*_SIZE macros). */
mcs_status mcs_sim_workspace_size(int n, int m, size_t *reals, size_t *ints);

/* What the options need of the memory beyond the core (MCS_MEM_* bits; all for NULL). */
unsigned mcs_sim_memory_features(const mcs_options *opt);

/* Why the model and options cannot run: MCS_REFUSE_* bits (0: they can; MCS_REFUSE_INVALID for
 * NULL, a model of another ABI or values out of their ranges). What the options take is decided
 * once, in runtime/src/sim/mcs_options.c and each variant's leaf. */
unsigned mcs_sim_refusals(const mcs_model *model, const mcs_options *opt);

/* Bytes of the one block mcs_sim_assign carves for this model and these options: only what they
 * use (R as n x m, no probe frame without dense output or events, 4 RK4 stages, bases of
 * max_dof columns, ...). 0 when mcs_sim_assign would refuse them. */
size_t mcs_sim_memory_size(const mcs_model *model, const mcs_options *opt);

/* Bind a model, its parameters (kept by pointer) and options to the caller's block raw of size
 * bytes, aligned for mcs_real (an mcs_real array: see MCS_SIM_MEMORY_REALS): MCS_ERR_WORKSPACE
 * when size < mcs_sim_memory_size, nothing written beyond it. The firmware path; options that
 * need more memory later (another method, events turned on) make mcs_sim_step return
 * MCS_ERR_ARGUMENT. */
mcs_status mcs_sim_assign(mcs_sim *sim, const mcs_model *model, const void *params,
                          const mcs_options *opt, void *raw, size_t size);

/* Bind a model, its parameters (kept by pointer) and options to caller-owned workspace (room for
 * every option: the convenience path on hosts). */
mcs_status mcs_sim_init(mcs_sim *sim, const mcs_model *model, const void *params,
                        const mcs_options *opt, mcs_real *work, size_t work_len, int *iwork,
                        size_t iwork_len);

/* Set the state at time t: positions are brought onto c = 0 by minimum-norm Newton corrections,
 * velocities projected onto A v + c_t = 0; `report` (may be NULL) says by how much. The tangent
 * basis starts as the T of the QR factorization there. */
mcs_status mcs_sim_set_state(mcs_sim *sim, mcs_real t, const mcs_real *x, const mcs_real *v,
                             mcs_assembly *report);

/* Start at the mechanism file's initial state at time t, for the sim's parameters. At the
 * default values (byte for byte), or when nothing of the initial state depends on a parameter,
 * this is mcs_sim_set_state(sim, t, model->x0, model->v0, report) with the state the generator
 * solved in multiprecision. Otherwise the same construction at run time: the file's positions
 * and velocities as functions of the parameters (model->initial), positions assembled onto
 * c = 0 and velocities projected (mcs_sim_set_state), then the held conditions (the file's body
 * velocities and joint rates, model->held) imposed with the rest of v of minimum norm. So a
 * parameter of the geometry (a joint point, an axis, a length, an initial pose) changes the
 * simulated mechanism as a regenerated model would. MCS_ERR_ASSEMBLY when the positions cannot
 * be assembled or the held velocities contradict the constraints; MCS_ERR_NONFINITE when the
 * parameters make the initial state NaN or Inf. */
mcs_status mcs_sim_start(mcs_sim *sim, mcs_real t, mcs_assembly *report);

/* The mechanism file's initial state (not yet assembled) for the parameters params:
 * xv (2 nx) = [x0; v0] (v0 is 0 where held conditions decide it: see mcs_sim_start). */
mcs_status mcs_model_initial_state(const mcs_model *model, const void *params, mcs_real *xv);

/* Restarts the run from (t, x, v) as mcs_sim_set_state does (onto the rows in force, locks
 * included), but as the same run: the statistics and sigma's scale are kept. For a caller that
 * moves the state to an event inside the last step (a dense output there) and goes on from it. */
mcs_status mcs_sim_restart(mcs_sim *sim, mcs_real t, const mcs_real *x, const mcs_real *v);

/* Sets the inputs u (model->nu entries, finite) from the current time on: they hold until the
 * next call (zero-order hold). What the integrator carried over from the last step (the
 * first-same-as-last stage of DOPRI5 and DOP853) is dropped when u changes, so the next step
 * starts from the new forces; dense output inside the last step keeps the inputs it was taken
 * with. Limits (model->input_limits) are the caller's to apply. MCS_ERR_UNSUPPORTED when the
 * model has no inputs, MCS_ERR_ARGUMENT for a NULL or non-finite u. */
mcs_status mcs_sim_set_inputs(mcs_sim *sim, const mcs_real *u);

/* Sets the friction forces (model->nfriction entries, finite): force[k] acts on the coordinate
 * model->friction[k].coordinate from now on, held until the next call (as inputs are: what the
 * integrator carried over is dropped when they change). mcs_stops.h sets them: -kinetic
 * sign(rate) while a coordinate slides, 0 while it sticks. MCS_ERR_UNSUPPORTED when the model has
 * no friction, MCS_ERR_ARGUMENT for a NULL or non-finite force. */
mcs_status mcs_sim_set_friction(mcs_sim *sim, const mcs_real *force);

/* One accepted step towards t_target (never past it). RK4 uses h (shortened to hit t_target or
 * to return to its grid); DOPRI5 retries rejected steps on the same chart. */
mcs_status mcs_sim_step(mcs_sim *sim, mcs_real t_target);

/* Steps until cur.t == t_target (finite): at most options.max_steps steps, else MCS_ERR_LIMIT
 * with the state at the last step taken. */
mcs_status mcs_sim_advance(mcs_sim *sim, mcs_real t_target);

/* Dense output inside the last accepted step (prev.t <= t <= cur.t): DOPRI5's continuous
 * extension, or for RK4 a cubic Hermite interpolant of the chart coordinates (third order), mapped
 * onto the constraint manifold: x, v (n each) and, if q / qd are not NULL, the minimal
 * coordinates there (f each, f = n - probe.r): q the accumulated chart coordinate (as
 * mcs_sim_minimal) and qd = T^T v with the basis continued to t (s->probe holds the
 * factorization there). */
mcs_status mcs_sim_dense(mcs_sim *sim, mcs_real t, mcs_real *x, mcs_real *v, mcs_real *q,
                         mcs_real *qd);

/* Constraint multipliers lambda at the state (t, x, v) (x, v on the manifold, e.g. the current
 * state or a dense output), one per row in force: the model's nc, then the rows of the locks in
 * force in the order they were applied (size it for nc + max_locks; the lock rows' lambda holds
 * the lock). The minimum-norm solution of A^T lambda = f - M xdd, so
 * dependent (redundant) rows share the load with minimum norm. For joints generated by mcsgen the
 * translational rows are expressed in the basis of the joint's frame 2 (paper 003), and the
 * reaction on body 1 is -A_1^T lambda. Uses the probe frame (invalidates dense-output probes). */
mcs_status mcs_sim_multipliers(mcs_sim *sim, mcs_real t, const mcs_real *x, const mcs_real *v,
                               mcs_real *lambda);

/* The outputs y (model->ny) of the mechanism file (`outputs:`, docs/reference/inputs-outputs.md) at (t, x, v)
 * and the inputs held now: y = h(x, v, u, t). w (nx + nu) is the caller's scratch (it returns
 * [v; u] there). With ny = 0 it writes nothing and returns MCS_OK; MCS_ERR_UNSUPPORTED when the
 * descriptor has no outputs kernel. Touches no frame. */
mcs_status mcs_sim_outputs(mcs_sim *sim, mcs_real t, const mcs_real *x, const mcs_real *v,
                           mcs_real *w, mcs_real *y);

/* The joints' reactions as forces and moments at the state (t, x, v) (as mcs_sim_multipliers):
 * wrench (model->nw) per joint in joint order, (F_x, F_y, N_z) planar or (F_x, F_y, F_z, N_x,
 * N_y, N_z) spatial, the force and moment the joint exerts on its body 2 in the world frame, the
 * moment about the joint's point on body 2. The same numbers in body and in joint coordinates
 * (a tree joint's from the Newton-Euler balance of the bodies it carries). w (2 nx + m + nmu + nu,
 * m the rows in force: nc, plus the rows of active locks; nmu = model->nmu) is the caller's
 * scratch and returns [v; x''; lambda (nc); nu (nmu); u (nu)] there (2 n + m + nmu + nu
 * entries), nu the multipliers of the row groups (mcs_model.h), u the inputs. A joint's spring-damper is an applied force, not part of its reaction;
 * a locked joint's wrench includes what holds it (a brake's torque). In body coordinates a lock
 * of a coordinate (mcs_sim_lock) belongs to no joint: its force is in no joint's wrench.
 * MCS_ERR_UNSUPPORTED when the model was generated without the reactions kernel set (or has no
 * joints). Uses the probe frame (the banded simulator: its
 * KKT system). */
mcs_status mcs_sim_joint_wrenches(mcs_sim *sim, mcs_real t, const mcs_real *x, const mcs_real *v,
                                  mcs_real *w, mcs_real *wrench);

/* Forward dynamics at any state: x'' (n) and the multipliers lambda (m: nc plus the active locks'
 * rows) at (t, x, v) (x, v on the manifold) under the inputs u (model->nu; NULL: the sim's
 * own, mcs_sim_set_inputs). The sim's inputs are left as they were. Uses the probe frame, as
 * mcs_sim_multipliers does. */
mcs_status mcs_sim_forward_dynamics(mcs_sim *sim, mcs_real t, const mcs_real *x, const mcs_real *v,
                                    const mcs_real *u, mcs_real *xdd, mcs_real *lambda);

/* What mcs_sim_inverse_dynamics found. */
typedef struct mcs_inverse_report {
    mcs_real residual; /* |x''(u) - xdd|_2: what the inputs cannot give (0 when they reach it) */
    mcs_real normal;   /* of it, the part the constraints forbid any force to give */
    int rank;          /* independent motions the inputs act on (numerical rank of dx''/du) */
    int dof;           /* degrees of freedom there (f = n - r) */
} mcs_inverse_report;

/* Real workspace of mcs_sim_inverse_dynamics: n coordinates, m rows (nc + locks), nu inputs. */
#define MCS_SIM_INVERSE_WORK_SIZE(n, m, nu) \
    ((2 * (n) * (nu)) + (2 * (n) * (n)) + ((nu) * (nu)) + (4 * (n)) + (2 * (nu)) + \
     MCS_SIM_MAX((m), 1) + MCS_LINALG_LWORK(MCS_SIM_MAX((n), (nu))))

/* Inverse dynamics at any state (a controller's feed-forward): the inputs u (model->nu) that give
 * the accelerations xdd (n) at (t, x, v) (x, v on the manifold), through the constraint forces
 * of a closed loop. The accelerations the inputs give are x''(u) = x''(0) + D u, D (n x nu)
 * exact: D = T (T^T M T)^-1 T^T B with T the tangent basis at x and B the input map (one forward
 * solve and one factorization of T^T M T, the dynamics being linear in u); u is the least-squares solution
 * of D u = xdd - x''(0) of minimum norm (rank decided with options.rank_tol), so an
 * under-actuated mechanism gets the nearest motion it can make and report->residual says how
 * far it is (its part normal to the constraints, report->normal, no force can give: xdd then
 * violates A xdd = gamma), and a redundantly actuated one the least effort. MCS_ERR_UNACTUATED
 * when the inputs act on no motion there (D = 0); MCS_ERR_UNSUPPORTED without inputs, in the
 * banded simulator, or without the probe frame (a compact simulator or memory without dense
 * output);
 * MCS_ERR_WORKSPACE when lwork < MCS_SIM_INVERSE_WORK_SIZE. Limits are not applied. The sim's
 * inputs are left as they were; uses the probe frame. */
mcs_status mcs_sim_inverse_dynamics(mcs_sim *sim, mcs_real t, const mcs_real *x, const mcs_real *v,
                                    const mcs_real *xdd, mcs_real *u, mcs_inverse_report *report,
                                    mcs_real *work, size_t lwork);

/* Real workspace of mcs_sim_linearize and mcs_sim_step_jacobian: MCS_SIM_LINEARIZE_WORK_SIZE(n, m,
 * nu) and MCS_SIM_STEP_JACOBIAN_WORK_SIZE(n, m, nu) for n coordinates, m rows, nu inputs
 * (mcs_sim_memory.h, from the chart Jacobian's one list of arrays). */

/* The exact linearization of the dynamics about the current state, in its minimal coordinates:
 * the state z = (q, qd) of the chart centred there with the continued basis T (mcs_sim_basis;
 * qd = T^T v, q the chart coordinate, x = x + T q on the constraints to first order) and the
 * inputs u held (mcs_sim_set_inputs),
 *
 *     dz/dt = A dz + B du,   A = [0 I; dqdd/dq dqdd/dqd] (2f x 2f),  B = [0; dqdd/du] (2f x nu)
 *
 * f = *dof = n - r. A, B column-major with leading dimension 2f (at most 2n x 2n and 2n x nu;
 * B may be NULL when nu = 0). Exact: from the generated K_f, K_c, D, A_dot, f_u and the
 * tangents M_x, gamma_x (mcs_model.h), through the constraint forces of closed loops, at any
 * state (not only an equilibrium, where it reduces to the modes' (T^T M T, T^T D T, T^T (K_f +
 * K_c) T)). MCS_ERR_UNSUPPORTED without the stiffness and linearization kernel sets, with a lock in force, in the
 * banded simulator or without the probe frame (a compact simulator, or memory without dense
 * output); MCS_ERR_WORKSPACE when lwork < MCS_SIM_LINEARIZE_WORK_SIZE. Uses the probe frame and
 * the scratch, not the state. */
mcs_status mcs_sim_linearize(mcs_sim *sim, mcs_real *A, mcs_real *B, int *dof, mcs_real *work,
                             size_t lwork);

/* The outputs' rows of the linearization about the current state (mcs_sim_linearize's state z =
 * (q, qd) of the chart centred there, the inputs held): dy = C dz + D du, C (ny x 2f) and D (ny
 * x nu), column-major, ld ny, from the generated tangent of the outputs (model->outputs_x) along
 * the directions mcs_sim_linearize moves the state (a move of q keeps the constraints and T^T v).
 * *dof = f. With ny = 0 it only sets *dof. MCS_ERR_UNSUPPORTED without outputs_x (the linearization
 * kernel set), with a lock in force, the banded or compact simulator, or without dense output;
 * MCS_ERR_WORKSPACE when lwork < MCS_SIM_LINEARIZE_WORK_SIZE. Uses the probe frame and the
 * scratch, not the state. */
mcs_status mcs_sim_linearize_outputs(mcs_sim *sim, mcs_real *C, mcs_real *D, int *dof,
                                     mcs_real *work, size_t lwork);

/* The right-hand side the integrators step, on the chart centred at the current state with its
 * continued basis (SPEC §4): ydot = (qd, qdd) at y = (q, qd) (2f each, f = n - r), the inputs
 * held. What mcs_sim_linearize differentiates, for a caller's own integrator or estimator and
 * for checking it. Dense simulator with the probe frame only (else MCS_ERR_UNSUPPORTED); uses
 * the probe frame and the scratch, not the state. */
mcs_status mcs_sim_chart_rhs(mcs_sim *sim, const mcs_real *y, mcs_real *ydot);

/* One step (mcs_sim_step towards t_target) and the exact Jacobian of the step taken: the map of
 * its RK4 stages on the chart from the step's start, differentiated through the chart's
 * Jacobians at the stages (the variational recursion of the method, the step length fixed),
 * followed by the change to the next chart's coordinates. With z = (q, qd) the minimal
 * coordinates of the chart centred at a state with its continued basis (mcs_sim_linearize),
 *
 *     dz_(k+1) = J dz_k + G du     J (2g x 2f), G (2g x nu), column-major, ld 2g,
 *
 * f = *dof_from = n - r before the step, g = *dof_to after it (they differ across a singular
 * configuration); at most 2n x 2n and 2n x nu (G may be NULL when nu = 0). The discrete-time
 * model of a controller or estimator running at the step's rate. RK4 only (else
 * MCS_ERR_UNSUPPORTED before stepping); MCS_ERR_UNSUPPORTED after the step when a lock made a
 * transition in it; otherwise what mcs_sim_linearize needs. MCS_ERR_WORKSPACE when lwork <
 * MCS_SIM_STEP_JACOBIAN_WORK_SIZE. */
mcs_status mcs_sim_step_jacobian(mcs_sim *sim, mcs_real t_target, mcs_real *J, mcs_real *G,
                                 int *dof_from, int *dof_to, mcs_real *work, size_t lwork);

/* The position x (n) and velocity v (n) of the chart centred at the current state at y = (q,
 * qd) (2f): x on the constraints (the chart's Newton), v on their velocity rows with T^T v =
 * qd. The state mcs_sim_linearize's coordinates stand for. Dense simulator with the probe frame
 * only; uses the probe frame and the scratch, not the state. */
mcs_status mcs_sim_chart_state(mcs_sim *sim, const mcs_real *y, mcs_real *x, mcs_real *v);

/* Minimal coordinates of the current state (f = n - r entries each; SPEC §4): q the accumulated
 * chart coordinate, q(t_k+1) = q(t_k) + dq_k with dq_k the chart coordinate at the end of step k
 * (0 at mcs_sim_set_state; continuous through transitions; an entry that a rank change adds
 * starts at 0), and qd = T^T v, the velocity in the tangent basis. With basis continuation q is
 * smooth and qd is its time derivative. (T^T x is no coordinate: for a spherical pendulum it is
 * identically 0, x being radial.) */
mcs_status mcs_sim_minimal(mcs_sim *sim, mcs_real *q, mcs_real *qd);

/* The current tangent basis T (n x f, f = n - cur.r, leading dimension n) of any simulator: the
 * default one's Q[:, r:], the banded one's formed from its rotations when it is implicit
 * (continuation off). Uses the scratch, not the state. */
mcs_status mcs_sim_basis(mcs_sim *sim, mcs_real *T);
/* |R_ii| of the current factorization, min(n, m) entries (m: the rows in force, locks
 * included): the default and compact simulators' pivoted QR (the first r the rank's), the banded
 * one's R in its structure's row order. */
mcs_status mcs_sim_rdiag(mcs_sim *sim, mcs_real *d);

/* *norm = |c(x, t)|_inf of the current state, or of the state (t, x) (e.g. a dense output).
 * Uses the scratch (not the state). */
mcs_status mcs_sim_constraint_norm(mcs_sim *sim, mcs_real *norm);
mcs_status mcs_sim_constraint_norm_at(mcs_sim *sim, mcs_real t, const mcs_real *x, mcs_real *norm);

/* Kinetic energy T (the model's kinetic kernel) and potential V (0 when the model has none) of
 * the current state, or of the state (t, x, v). */
mcs_status mcs_sim_energy(mcs_sim *sim, mcs_real *kinetic, mcs_real *potential);
mcs_status mcs_sim_energy_at(const mcs_sim *sim, mcs_real t, const mcs_real *x, const mcs_real *v,
                             mcs_real *kinetic, mcs_real *potential);

/* ---- transitions: locks of coordinates, rows and joints (004 §5-6) ---- */

/* What a lock or an unlock did. */
typedef struct mcs_transition {
    mcs_real t;
    int key;  /* the lock's key (the coordinate j for mcs_sim_lock) */
    int lock; /* 1: locked, 0: unlocked */
    int rank_before;
    int rank_after;
    mcs_real impulse;     /* Lambda of the lock row (0 for an unlock or a naive lock) */
    mcs_jump_report jump; /* energies, dependent rows, DOF after (an unlock: no jump) */
} mcs_transition;

/* Locks coordinate j at the current state (the end of a step): the velocity jumps by dv (n,
 * caller's array) as `method` says (MCS_JUMP_MINIMAL: momentum-consistent, with the continued
 * basis), the row x_j - x_j(now) = 0 joins the constraints, the Jacobian is re-factored and the
 * basis aligned with the one before (SPEC §3.7, f' <= f). A lock of something already held (a
 * dependent row) is allowed: the impulse is the minimum-norm one and nothing jumps. jwork/jiwork:
 * MCS_JUMP_WORK_SIZE(n, m + max_locks, 1) reals and MCS_JUMP_IWORK_SIZE(...) ints. Dense output
 * of the last step is no longer available afterwards. */
mcs_status mcs_sim_lock(mcs_sim *sim, int j, mcs_jump_method method, mcs_real *dv, mcs_real *jwork,
                        size_t jwork_len, int *jiwork, size_t jiwork_len, mcs_transition *report);

/* The same for a linear row: locks a'x (a: n entries) at its current value. key names the lock
 * for mcs_sim_unlock (use keys >= n, so they cannot be taken for coordinates); report->coordinate
 * is the key. */
mcs_status mcs_sim_lock_row(mcs_sim *sim, int key, const mcs_real *a, mcs_jump_method method,
                            mcs_real *dv, mcs_real *jwork, size_t jwork_len, int *jiwork,
                            size_t jiwork_len, mcs_transition *report);

/* The same for row group `group` of the model (mcs_model.h): a joint's lock (the joint's
 * model->joints[i].lock_group; it holds the relative pose it has now) or a switch's explicit rows
 * (which should hold already: the jump makes their rates zero, not their values). The rows may
 * depend on the rows in use (a hinge of a closed loop): the impulse is then the minimum-norm one
 * and report->jump.dependent counts them. report->impulse is Lambda for a one-row group, |Lambda|
 * for more. jwork/jiwork: MCS_JUMP_*_SIZE(n, m + max_locks, the group's nrows). */
mcs_status mcs_sim_lock_group(mcs_sim *sim, int key, int group, mcs_jump_method method,
                              mcs_real *dv, mcs_real *jwork, size_t jwork_len, int *jiwork,
                              size_t jiwork_len, mcs_transition *report);

/* Releases the last lock with key `key` (the coordinate j for mcs_sim_lock): no velocity changes
 * (004), its rows leave, the basis gains the freed directions. */
mcs_status mcs_sim_unlock(mcs_sim *sim, int key, mcs_transition *report);

/* Generalized momenta of the current basis: P = T^T M(x) v (f entries) for a velocity v (n),
 * e.g. the current one or the one before a jump (004 Fig. 4a). */
mcs_status mcs_sim_momenta(mcs_sim *sim, const mcs_real *v, mcs_real *P);

/* The same at a state (t, x, v) with the basis Q (n x n, T = Q[:, r:]) of its factorization, e.g.
 * a dense output and the probe frame. Uses the scratch (not the state). */
mcs_status mcs_sim_momenta_at(mcs_sim *sim, mcs_real t, const mcs_real *x, const mcs_real *v,
                              const mcs_real *Q, int r, mcs_real *P);

#endif /* MCS_SIM_H */
