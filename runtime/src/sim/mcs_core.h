/* mcs_core.h - the simulator's core tier (internal): what every other tier of runtime/src/sim/
 * builds on, knowing no variant and taking no step. The tiers, bottom to top, each seeing only its
 * own header and the ones below (DEVELOPING.md's diagram; tests/test_layout.py holds the compiler's
 * call graph to it):
 *
 *   core        mcs_core.h        rows, sparse products, what every chart shares, the carver,
 *                                 the method table (data)
 *   variants    variant/mcs_variants.h   the three simulators' leaves
 *   operations  mcs_operations.h  the one switch per operation on the variant, frames, the chart's
 *                                 start and its Jacobian
 *   methods     mcs_methods.h     the integrators' attempts and interpolants, their one switch
 *   stages      mcs_stages.h      options, memory, assembly, interpolation, events, the step,
 *                                 reactions, locks
 *   top         (no header)       the linearizations and the step's Jacobian: above the step
 *
 * Scratch: the buffers in s->w are shared, and each function below says which ones it writes and
 * which results it leaves valid for its caller. A function may overwrite any buffer it lists;
 * nothing else is touched. "chart scratch" means: A, c, c_t, G and ipiv (the LU of A_S U), Z,
 * Phi, rhs, tmp and the Newton warm start p.
 */
#ifndef MCS_CORE_H
#define MCS_CORE_H

#include "mcs/mcs_sim.h"

#include "linalg/mcs_linalg.h"

#define MAX2(a, b) (((a) > (b)) ? (a) : (b))
#define MIN2(a, b) (((a) < (b)) ? (a) : (b))

/* ---- mcs_rows.c: the m rows in use (every kernel of the rows goes through these;
 * outputs as the model's kernels, with m rows) ---- */

void mcs_rows_c(const mcs_sim *s, const mcs_real *x, mcs_real t, mcs_real *out);
void mcs_rows_A(const mcs_sim *s, const mcs_real *x, mcs_real t, mcs_real *out);
void mcs_rows_c_t(const mcs_sim *s, const mcs_real *x, mcs_real t, mcs_real *out);
void mcs_rows_gamma(const mcs_sim *s, const mcs_real *x, const mcs_real *v, mcs_real t,
                    mcs_real *out);
void mcs_rows_A_dot(const mcs_sim *s, const mcs_real *x, const mcs_real *v, mcs_real t,
                    mcs_real *out);
/* A at (x, t) for sparse products: the model's nonzeros into nz (a_nnz, A_nz's order), the
 * locks' rows into rows nc.. of out (m x n; its first nc rows are not written). */
void mcs_rows_A_sparse(const mcs_sim *s, const mcs_real *x, mcs_real t, mcs_real *nz,
                       mcs_real *out);
/* The rows of a row group (mcs_group_rows(g) of them), and the A rows of lock k (also one not yet
 * counted in s->nlocks) into out with leading dimension ld. Writes s->lock_g, s->lock_G. */
int mcs_group_rows(const mcs_row_group *g);
void mcs_lock_rows_A(const mcs_sim *s, int k, const mcs_real *x, mcs_real t, mcs_real *out, int ld);
/* g (ng) of row group g at (x, t): its kernel's, or the coordinates it holds (g->coords). */
void mcs_group_g(const mcs_sim *s, const mcs_row_group *g, const mcs_real *x, mcs_real t,
                 mcs_real *out);
/* nu (model->nmu): the multipliers of every row group's quantities g (groups in model order, 0
 * for a group not locked) from mu, the multipliers of the locks' rows (m - nc, lock order): a
 * lock's rows are weighted sums of its group's g, so its reaction -A_lock^T mu is -G^T nu
 * (the joints' wrenches, mcs_sim_joint_wrenches). */
void mcs_lock_group_multipliers(const mcs_sim *s, const mcs_real *mu, mcs_real *nu);

/* ---- mcs_sparse.c: products with the model's A and M by their nonzeros ---- */

/* out (m) = A u from A's nonzeros in w.A; out (n x ncol, ld n) = alpha M B + beta out (beta 0
 * or 1) from M's nonzeros in w.M. */
void mcs_sparse_A_times(const mcs_sim *s, const mcs_real *u, mcs_real *out);
void mcs_sparse_M_times(const mcs_sim *s, int ncol, mcs_real alpha, const mcs_real *B,
                        mcs_real beta, mcs_real *out);
/* out (n) = M(x, t) v from M's nonzeros (writes w.M). */
mcs_status mcs_sparse_mass_times(mcs_sim *s, const mcs_real *x, mcs_real t, const mcs_real *v,
                                 mcs_real *out);

/* ---- mcs_chart_common.c: what every variant's chart shares ---- */

/* |R_{r-1, r-1}| / |R_00| of a frame factored by the pivoted QR (1 when r = 0): the dense and
 * compact variants' mcs_frame_ratio. */
mcs_real mcs_qr_ratio(const mcs_sim *s, const mcs_frame *fr, int r);

/* The accumulated chart coordinate carried to a frame with f_to free directions (SPEC §4):
 * q_to[i] = q_from[i] + dq[i] (dq may be NULL: 0) for i < min(f_from, f_to); entries a rank
 * change adds (f_from <= i < f_to) start at 0. q_to may be q_from. */
void mcs_q_carry(int f_from, const mcs_real *q_from, const mcs_real *dq, int f_to, mcs_real *q_to);

/* sigma below this is near a singular configuration: options.sing_watch times the largest sigma
 * of the run so far (mcs_sim.h) */
mcs_real mcs_watch_level(const mcs_sim *s);

/* The first-order warm start of the chart Newton (w.p = p_last + dpdq (q - q_last), when the
 * last solution was on this chart); and keeping this solution for the next one (dpdq = -Z, Z
 * (r x f) = G^-1 A_S T, and q, w.p). */
void mcs_chart_warm_start(mcs_sim *s, const mcs_frame *ch, const mcs_real *q);
void mcs_chart_keep_warm_start(mcs_sim *s, const mcs_frame *ch, const mcs_real *q,
                               const mcs_real *Z);
/* Whether fr is an identity chart: no rows in force and its tangent basis exactly the identity
 * (the QR of no rows, mcs_frame.identity, kept so by the alignment while nothing turns it): a
 * model in joint coordinates without cut joints, when no lock is in force. Its chart is then
 * x = x_k + q, v = qd and M qdd = f: the stages and the step's end skip the products with T, U
 * and Phi, whose results they equal to the bit (an identity's products add only exact zeros);
 * the dense map leaves w.Phi (= I) unwritten. */
int mcs_chart_identity(const mcs_sim *s, const mcs_frame *fr);
/* w.a_end (n) = Phi q'' + beta at the stage just evaluated on the chart of s->cur (k_last: its
 * ydot, beta in w.Z): the dense and compact variants' end acceleration. */
void mcs_chart_acceleration(mcs_sim *s, const mcs_real *k_last);

/* ---- mcs_dynamics.c: the forward dynamics on a chart (the Maggi-Kane equations of SPEC §4),
 * what each variant's right-hand side ends with, and the paths of a chart without rows ---- */

/* w.M (M's nonzeros) and w.f at (x, v, t): the model's M_f when it has one (computed together),
 * else M_nz and f; with the inputs' share B u when inputs are on. */
void mcs_mass_and_forces(mcs_sim *s, const mcs_real *x, const mcs_real *v, mcs_real t);
/* ydot = (qd, (Phi^T M Phi)^-1 Phi^T rhs) from w.Phi, w.MPhi = M Phi and w.rhs: forms w.Mred
 * (f x f) and solves (mcs_reduced_solve). */
mcs_status mcs_reduced_accelerations(mcs_sim *s, int f, const mcs_real *y, mcs_real *ydot);
/* The solve alone: w.Mred (f x f) and ydot[f..2f) (the reduced right-hand side) in place,
 * Cholesky-factored and solved: ydot[f..2f) = qdd. MCS_ERR_MASS_NOT_PD, MCS_ERR_NONFINITE. */
mcs_status mcs_reduced_solve(mcs_sim *s, int f, mcs_real *ydot);
/* The paths to the accelerations of a chart without rows in force, as data (mcs_dynamics_paths:
 * their names, by mcs_dynamics_path; the first the model can take is taken). */
typedef enum mcs_dynamics_path {
    MCS_DYNAMICS_MASS_MATRIX = 0 /* M qdd = f with M formed and factored */
} mcs_dynamics_path;
#define MCS_DYNAMICS_PATH_COUNT 1
extern const char *const mcs_dynamics_paths[MCS_DYNAMICS_PATH_COUNT];
/* ydot = (qd, qdd) at y = (q, qd) (2n) of a chart without rows in force and T = I (an identity
 * chart, mcs_chart_identity), at the state (x, v, t) it maps to: qdd from M qdd = f by the
 * model's path. Writes w.M, w.f, w.f_u, w.rhs (= f), w.Mred. */
mcs_status mcs_free_accelerations(mcs_sim *s, const mcs_real *x, const mcs_real *v, mcs_real t,
                                  const mcs_real *y, mcs_real *ydot);

/* ---- mcs_carve.c: the carver mcs_memory.c lays the memory out with (its list of buffers:
 * mcs_sim_memory.h's MCS_SIM_BUFFERS) ---- */

typedef struct mcs_carver {
    mcs_real *w; /* NULL: count only */
    size_t used;
    int *iw;
    size_t iused;
} mcs_carver;

/* The dimensions of a layout: n coordinates, m rows (the model's and the lock rows), K =
 * max(n, m, 1), the largest number of free directions f, the held velocities, the model's
 * nonzeros of A and M, the band structure's R band, rotations and KKT half band, and the
 * features it is laid out for (MCS_MEM_*: the compact and banded bits choose the layout). */
typedef struct mcs_layout {
    size_t n;
    size_t m;
    size_t k;
    size_t f;
    size_t held;
    size_t a_nnz;
    size_t m_nnz;
    size_t bw;
    size_t nrot;
    size_t kb;
    unsigned features;
} mcs_layout;

/* k reals (ints) from the carver, or NULL while it only counts */
mcs_real *mcs_carve_take(mcs_carver *c, size_t k);
int *mcs_carve_itake(mcs_carver *c, size_t k);
/* A frame's time, rank, sigma and flags as a fresh layout leaves them (its buffers apart). */
void mcs_frame_reset(mcs_frame *fr);

/* ---- mcs_method_table.c: the integrators as data (SPEC §4: any explicit Runge-Kutta method;
 * the methods tier's mcs_method.c switches to their code) ---- */

typedef struct mcs_method_info {
    const char *name;  /* its name in model files and on the command line (enums.py's list) */
    unsigned flags;    /* MCS_METHOD_FLAG_* (mcs_sim.h): adaptive, fsal, implicit, ... */
    int stages;        /* stage buffers (w.k) its steps and its interpolant use */
    mcs_real exponent; /* the step factor 0.9 err^exponent: -1/q, q the error estimate's order */
    mcs_real place;    /* where a predicted singular crossing falls in a step placed across it */
    mcs_method near_singular; /* the method that takes the steps near a singular configuration */
    mcs_real handover;        /* the first of those: this fraction of its own last step */
    unsigned memory;          /* its MCS_MEM_* feature (0: in every layout) */
    unsigned part;            /* the MCS_PART_* bit it needs compiled in (0: always there) */
} mcs_method_info;

/* indexed by mcs_method */
extern const mcs_method_info mcs_methods[MCS_METHOD_COUNT];
/* The parts this build compiled in (mcs_config.h's MCS_WITH_*), as MCS_PART_* bits. */
#define MCS_COMPILED_PARTS \
    ((MCS_WITH_DOP853 ? MCS_PART_DOP853 : 0U) | (MCS_WITH_EVENTS ? MCS_PART_EVENTS : 0U) | \
     (MCS_WITH_LOCKS ? MCS_PART_LOCKS : 0U) | (MCS_WITH_PREDICTORS ? MCS_PART_PREDICTORS : 0U) | \
     (MCS_WITH_DENSE ? MCS_PART_DENSE : 0U) | (MCS_WITH_COMPACT ? MCS_PART_COMPACT : 0U) | \
     (MCS_WITH_BANDED ? MCS_PART_BANDED : 0U) | (MCS_WITH_IMPLICIT ? MCS_PART_IMPLICIT : 0U))
/* Whether the method's flags include flag (0 for a value that is no method). */
int mcs_method_has(mcs_method method, unsigned flag);

#endif /* MCS_CORE_H */
