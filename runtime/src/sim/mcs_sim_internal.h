/* mcs_sim_internal.h - what the simulator's modules share (internal: not a public header).
 *
 * The simulator (mcs/mcs_sim.h) in three tiers, each calling only the tiers below it (the layout
 * test holds it: tests/test_layout.py):
 *
 *   the core, which knows no variant:
 *     mcs_rows.c          the constraint rows in use: the model's and the active locks'
 *     mcs_sparse.c        products with A and M by their nonzeros
 *     mcs_chart_common.c  what every chart shares: q carried over, the Newton warm start, the
 *                         reduced solve, the end acceleration, the singular watch's level
 *     mcs_carve.c         the memory's building blocks (one carver, which also counts)
 *   the variants, leaves that only mcs_variant.c calls (sim/variant/mcs_variants.h):
 *     mcs_dense.c, mcs_compact.c (+ _chart.c), mcs_banded.c (+ _chart.c)
 *   mcs_variant.c       the one file that tells the variants apart: each operation whose code
 *                       differs by variant is a switch on it (options.variant, or a layout's)
 *   the stages, which use the operations and never name a variant:
 *     mcs_sim.c           options and their checks, binding a model to memory, queries
 *     mcs_memory.c        the memory layout: mcs_sim_init, mcs_sim_memory_size, mcs_sim_assign
 *     mcs_frame.c         frames: the probe, basis continuation (SPEC §2-§3), rdiag and basis
 *     mcs_chart.c         the chart's start on the current frame (SPEC §4)
 *     mcs_assembly.c      consistent initial state (mcs_sim_set_state, mcs_sim_start)
 *     mcs_integrate.c     RK4 and DOPRI5 stages on the frozen chart of s->cur, dense output
 *     mcs_dop853.c        DOP853's stages and dense output
 *     mcs_rosenbrock.c    ROS34PW2's stages on the chart Jacobian (mcs_linearize.c's)
 *     mcs_step.c          the step policy: RK4 grid, error control, retakes near singular
 *                         points, acceptance (mcs_sim_step, mcs_sim_advance)
 *     mcs_events.c        singular configurations inside an accepted step (SPEC §6)
 *     mcs_reactions.c     constraint multipliers (mcs_sim_multipliers)
 *     mcs_locks.c         transitions: locks and unlocks with their velocity jump
 *
 * Scratch: the buffers in s->w are shared, and each function below says which ones it writes and
 * which results it leaves valid for its caller. A function may overwrite any buffer it lists;
 * nothing else is touched. "chart scratch" means: A, c, c_t, G and ipiv (the LU of A_S U), Z,
 * Phi, rhs, tmp and the Newton warm start p.
 */
#ifndef MCS_SIM_INTERNAL_H
#define MCS_SIM_INTERNAL_H

#include "mcs/mcs_sim.h"

#include "linalg/mcs_linalg.h"

#define MAX2(a, b) (((a) > (b)) ? (a) : (b))
#define MIN2(a, b) (((a) < (b)) ? (a) : (b))

/* ---- mcs_sim.c: what mcs_sim_init and mcs_sim_assign (mcs_memory.c) share ---- */

/* The model and options can be run: MCS_OK, MCS_ERR_ARGUMENT, MCS_ERR_MODEL_VERSION, or
 * MCS_ERR_UNSUPPORTED (options that need a kernel the model was generated without). */
mcs_status mcs_sim_check(const mcs_model *model, const mcs_options *opt);
/* MCS_ERR_UNSUPPORTED when the options need a part this build left out (mcs_config.h's
 * MCS_WITH_*), else MCS_OK. */
mcs_status mcs_sim_compiled_in(const mcs_options *opt);

/* Binds s (its buffers carved) to the model, parameters and options; features: the memory it
 * has (MCS_MEM_*), f_max: the free directions its buffers hold. No state yet (ready = 0). */
void mcs_sim_bind(mcs_sim *s, const mcs_model *model, const void *params, const mcs_options *opt,
                  unsigned features, int f_max);

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
mcs_real mcs_sim_watch_level(const mcs_sim *s);

/* w.M (M's nonzeros) and w.f at (x, v, t): the model's M_f when it has one (computed together),
 * else M_nz and f. */
void mcs_chart_mass_and_forces(mcs_sim *s, const mcs_real *x, const mcs_real *v, mcs_real t);

/* The first-order warm start of the chart Newton (w.p = p_last + dpdq (q - q_last), when the
 * last solution was on this chart); keeping this solution for the next one (dpdq = -Z, Z (r x f)
 * = G^-1 A_S T, and q, w.p); and the reduced solve ydot = (qd, (Phi^T M Phi)^-1 Phi^T rhs) from
 * w.Phi, w.MPhi = M Phi and w.rhs, which writes w.Mred. */
void mcs_chart_warm_start(mcs_sim *s, const mcs_frame *ch, const mcs_real *q);
void mcs_chart_keep_warm_start(mcs_sim *s, const mcs_frame *ch, const mcs_real *q,
                               const mcs_real *Z);
mcs_status mcs_chart_reduced_solve(mcs_sim *s, int f, const mcs_real *y, mcs_real *ydot);
/* Its second half: w.Mred (f x f) and ydot[f..2f) (the reduced right-hand side) in place,
 * Cholesky-factored and solved: ydot[f..2f) = qdd. */
mcs_status mcs_chart_solve_reduced(mcs_sim *s, int f, mcs_real *ydot);
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

/* ---- mcs_carve.c: the memory's building blocks (mcs_memory.c lays the memory out) ---- */

typedef struct mcs_carver {
    mcs_real *w; /* NULL: count only */
    size_t used;
    int *iw;
    size_t iused;
} mcs_carver;

/* The dimensions of a layout: n coordinates, m rows (the model's and the lock rows), the
 * largest number of free directions f_max, the rows of the held-velocity scratch, the variant it
 * is laid out for and its features. */
typedef struct mcs_layout {
    size_t n;
    size_t m;
    size_t k; /* max(n, m, 1) */
    size_t f; /* 1 <= f_max <= n */
    size_t held;
    size_t a_nnz; /* the compact and banded layouts' A and M as their nonzeros */
    size_t m_nnz;
    size_t bw; /* the banded layout's: R's band, the rotations, the KKT matrix's half band */
    size_t nrot;
    size_t kb;
    mcs_variant variant;
    unsigned features;
} mcs_layout;

/* k reals (ints) from the carver, or NULL while it only counts; take_if: NULL unless `on` */
mcs_real *mcs_carve_take(mcs_carver *c, size_t k);
int *mcs_carve_itake(mcs_carver *c, size_t k);
mcs_real *mcs_carve_take_if(mcs_carver *c, unsigned on, size_t k);
/* max(min(n, m), 1): the reflectors of a factorization, the largest rank */
size_t mcs_carve_kmin(const mcs_layout *l);
/* A frame's state without its factorization: x, x_lo, v, q and its own T (n x f_max), no Q */
void mcs_carve_frame_state(mcs_carver *c, mcs_frame *fr, const mcs_layout *l);
/* A frame that is not part of the layout (all NULL). */
void mcs_carve_no_frame(mcs_frame *fr);
/* The full layout's frames and matrices (mcs_sim_init's for every variant, the dense variant's in
 * mcs_sim_assign): cur, prev and, with dense output or events, the probe, each with its n x n Q;
 * A (m x n), A_nz, A_dot (predictors or locks), M (n x n) and G (the LU of A_S U). */
void mcs_carve_full(mcs_carver *c, mcs_sim *s, const mcs_layout *l);

/* ---- mcs_variant.c: the operations whose code differs by variant (the one switch of each on
 * options.variant; the same contracts whichever runs) ---- */

/* A(fr->x, fr->t)^T P = Q R into fr (Q = the fresh Q^), rank and sigma. Writes w.A (left valid:
 * A at the frame, dense or as nonzeros) and w.basis_work. */
mcs_status mcs_frame_factor(mcs_sim *s, mcs_frame *fr);
/* The tangent basis predicted from the chart `from` over h, into w.Tpred (n x (n - from->r)):
 * SPEC §3.1-4 (nothing for continuation off). Writes w.A_dot, w.basis_work, w.basis_iwork. */
mcs_status mcs_frame_predict(mcs_sim *s, const mcs_frame *from, mcs_real h);
/* `to`, just factored: its T becomes T^ aligned with the prediction in w.Tpred (f_old columns;
 * SPEC §3.6-7; T^ itself for continuation off). Writes w.That, w.basis_work. */
mcs_status mcs_frame_align(mcs_sim *s, int f_old, mcs_frame *to);
/* |R_{r-1, r-1}| / |R_00| of a factored frame (1 when r = 0): how far from losing rank r. */
mcs_real mcs_frame_ratio(const mcs_sim *s, const mcs_frame *fr, int r);
/* out (f) = T^T y; out (n) = T q for the frame's tangent basis, explicit or implicit (the banded
 * variant's with continuation off: w.bz is written then); whether it is implicit. */
void mcs_frame_Tt(mcs_sim *s, const mcs_frame *fr, const mcs_real *y, mcs_real *out);
void mcs_frame_T(mcs_sim *s, const mcs_frame *fr, const mcs_real *q, mcs_real *out);
int mcs_frame_implicit_T(const mcs_sim *s);
/* T (n x f) = the frame's tangent basis, explicit (mcs_sim_basis). */
void mcs_frame_basis(mcs_sim *s, const mcs_frame *fr, mcs_real *T);
/* d (min(n, m)) = |R_ii| of the frame's factorization (mcs_sim_rdiag). */
mcs_status mcs_frame_rdiag(mcs_sim *s, const mcs_frame *fr, mcs_real *d);
/* out (n) = -U R_ns^-T b_S: the minimum-norm dx with A_S dx = -b_S (b: m, by constraint). Writes
 * w.tmp. */
void mcs_frame_min_norm(mcs_sim *s, const mcs_frame *fr, const mcs_real *b, mcs_real *out);
/* out (m) = A v, A as the last factorization left it in w.A. */
void mcs_frame_A_times(const mcs_sim *s, const mcs_real *v, mcs_real *out);
/* The basis a state starts with (mcs_sim_set_state, after fr's factorization): T^, formed where
 * the variant keeps it implicit. */
void mcs_frame_start_basis(mcs_sim *s, mcs_frame *fr);

/* Position and velocity of the chart `ch` at (q, qd, t) (SPEC §4): x = x_k + T q + U p with
 * c_S(x, t) = 0 by Newton on p (warm-started from w.p), v = Phi qd - U G^-1 c_S,t. Writes the
 * chart scratch; leaves valid A at x, the LU of G = A_S U (w.G, w.ipiv), w.g_cond and
 * Phi = (I - U G^-1 A_S) T (w.Phi). x, v must not be chart scratch. */
mcs_status mcs_chart_map(mcs_sim *s, const mcs_frame *ch, const mcs_real *q, const mcs_real *qd,
                         mcs_real t, mcs_real *x, mcs_real *v);
/* ydot = (qd, qdd) at y = (q, qd) on the chart `ch` (Maggi-Kane). Writes the chart scratch and
 * w.xs, w.vs (the state at y, left valid), w.M, w.f, w.gamma, w.MPhi, w.Mred; leaves valid
 * w.rhs = f - M U G^-1 gamma_S and w.MPhi = M Phi (the dense and compact variants; the dense
 * one leaves w.MPhi as it was on an identity chart, where no row is in force), and in w.Z
 * what mcs_chart_end_acceleration reads. */
mcs_status mcs_chart_rhs(mcs_sim *s, const mcs_frame *ch, const mcs_real *y, mcs_real t,
                         mcs_real *ydot);
/* w.a_end (n) = x'' at the last stage mcs_chart_rhs evaluated on the chart of s->cur (k_last:
 * its ydot). */
void mcs_chart_end_acceleration(mcs_sim *s, const mcs_real *k_last);
/* w.p (r) = U^T y on the chart ch (the Newton's start for dense output; 0 when ch's
 * factorization cannot be had). y (n) may be overwritten. */
void mcs_chart_Ut_p(mcs_sim *s, const mcs_frame *ch, mcs_real *y);

/* out (n) = M(x, t) v (writes w.M). */
mcs_status mcs_variant_mass_times(mcs_sim *s, const mcs_real *x, mcs_real t, const mcs_real *v,
                                  mcs_real *out);
/* What the variant offers: the probe frame (dense output of q and qd, the chart-based
 * multipliers), locks, and multipliers of its own (then mcs_variant_multipliers computes them:
 * lambda (m) at (t, x, v), and x'' (n) there unless xdd is NULL). */
int mcs_variant_has_probe(const mcs_sim *s);
/* x'' (n, may be NULL) and the multipliers lambda (m) at (t, x, v) with the inputs s->u, by the
 * variant's own means or the chart centred there (mcs_reactions.c; uses the probe frame). */
mcs_status mcs_dynamics_at(mcs_sim *s, mcs_real t, const mcs_real *x, const mcs_real *v,
                           mcs_real *xdd, mcs_real *lambda);
int mcs_variant_takes_locks(const mcs_sim *s);
int mcs_variant_own_multipliers(const mcs_sim *s);
mcs_status mcs_variant_multipliers(mcs_sim *s, mcs_real t, const mcs_real *x, const mcs_real *v,
                                   mcs_real *xdd, mcs_real *lambda);

/* Options: whether options.variant is one (1/0: else MCS_ERR_ARGUMENT), what it needs of the
 * model and the other options (MCS_ERR_UNSUPPORTED), whether this build has it (1/0). */
int mcs_variant_valid(const mcs_options *opt);
mcs_status mcs_variant_check(const mcs_model *model, const mcs_options *opt);
int mcs_variant_compiled_in(mcs_variant variant);
unsigned mcs_variant_parts(void); /* the variants' MCS_PART_* bits (mcs_runtime_parts) */
/* Memory: the features bit of the variant's own layout (0 for the full one), the variant of a
 * layout's features, whether the variant needs mcs_sim_assign's layout (mcs_sim_init refuses
 * it), the free directions a run of it meets without dense output, events or locks, and the
 * layout's frames and matrices and its int buffers (mcs_memory.c's carve_all). */
unsigned mcs_variant_memory_features(const mcs_options *opt);
mcs_variant mcs_variant_of_layout(unsigned features);
int mcs_variant_needs_assign(const mcs_options *opt);
size_t mcs_variant_default_dof(const mcs_model *model, mcs_variant variant);
void mcs_variant_carve(mcs_carver *c, mcs_sim *s, const mcs_layout *l);
void mcs_variant_carve_ints(mcs_carver *c, mcs_sim *s, const mcs_layout *l);
/* mcs_sim_step's check that the layout holds this run (options may have changed since it was
 * assigned): MCS_ERR_ARGUMENT for a layout of another variant (a compact run fits the full one),
 * MCS_ERR_UNSUPPORTED for options the variant does not take. need: the options' features. */
mcs_status mcs_variant_fits(const mcs_sim *s, unsigned need);

/* ---- mcs_frame.c ---- */

/* Loads (t, x, v) into s->probe and factors it there (as mcs_frame_factor). */
mcs_status mcs_probe_factor(mcs_sim *s, mcs_real t, const mcs_real *x, const mcs_real *v);

/* `to` has been factored (Q = [U^ T^]); replaces its T by the basis continued from the chart
 * `from` over h (SPEC §3): mcs_frame_predict, then mcs_frame_align. Writes w.A_dot, w.Tpred,
 * w.That, w.basis_work, w.basis_iwork. */
mcs_status mcs_frame_continue_basis(mcs_sim *s, const mcs_frame *from, mcs_real h, mcs_frame *to);

/* ---- mcs_chart.c ---- */

/* y0 (2 f) = (0, T^T v) on the chart of s->cur; resets the Newton warm start w.p. */
void mcs_chart_start(mcs_sim *s, mcs_real *y0);

/* ---- mcs_assembly.c ---- */

/* |c(x, t)|_inf (0 when m = 0; negative when not finite). Writes w.c. */
mcs_real mcs_constraint_norm_at(mcs_sim *s, const mcs_real *x, mcs_real t);

/* ---- mcs_method.c: the integrators as data (SPEC §4: any explicit Runge-Kutta method) ---- */

typedef struct mcs_method_info {
    const char *name;  /* its name in model files and on the command line (enums.py's list) */
    int adaptive;      /* error control (else fixed steps on the grid t0 + k h) */
    int stages;        /* stage buffers (w.k) its steps and its dense output use */
    mcs_real exponent; /* the step factor 0.9 err^exponent: -1/q, q the error estimate's order */
    int fsal;          /* its last stage is the next step's first */
    mcs_real place;    /* where a predicted singular crossing falls in a step placed across it */
    mcs_method near_singular; /* the method that takes the steps near a singular configuration */
    mcs_real handover;        /* the first of those: this fraction of its own last step */
    unsigned memory;          /* its MCS_MEM_* feature (0: in every layout) */
} mcs_method_info;

/* indexed by mcs_method */
extern const mcs_method_info mcs_methods[MCS_METHOD_COUNT];
/* Whether this build has the method (mcs_config.h's MCS_WITH_DOP853). */
int mcs_method_compiled_in(mcs_method method);
/* One attempt of length h with the method on the chart of s->cur (*err: its scaled error norm,
 * 0 for a fixed-step method), and its dense output y (2f) at the fraction th of the last
 * accepted step (on s->prev's chart): the switches to the methods' own functions below. */
mcs_status mcs_method_attempt(mcs_sim *s, mcs_method method, mcs_real h, mcs_real *err);
mcs_status mcs_method_dense(mcs_sim *s, mcs_method method, mcs_real th, mcs_real *y);

/* ---- mcs_rk4.c, mcs_dopri5.c, mcs_dop853.c: the methods' own ---- */

/* One RK4 step of length h on the chart of s->cur: the end state in s->prev (x, v, t), w.y0 and
 * w.y1 kept for dense output (dense_ready). Writes w.k, w.ys and what mcs_chart_rhs writes. */
mcs_status mcs_rk4_attempt(mcs_sim *s, mcs_real h);
/* One DOPRI5 attempt of length h on the chart of s->cur: the end state in s->prev (x, v; the
 * caller sets t), *err the scaled error norm; w.y0, w.y1, w.k kept for dense output. */
mcs_status mcs_dopri5_attempt(mcs_sim *s, mcs_real h, mcs_real *err);
/* The same for DOP853: when *err <= 1 also the end state in s->prev (x, x_lo, v) and its FSAL
 * stage k[12]; the step is then accepted by the caller. */
mcs_status mcs_dop853_attempt(mcs_sim *s, mcs_real h, mcs_real *err);
/* One ROS34PW2 step of length h on the chart of s->cur (mcs_rosenbrock.c): *err its scaled
 * error norm when `adaptive` (0 otherwise); the end state in s->prev (x, x_lo, v, t) when the step
 * is to be kept (*err <= 1, or fixed steps), w.y0 and w.y1 kept for dense output (RK4's Hermite).
 * Writes w.k[0..3], w.ys, w.jac*, and what mcs_chart_rhs and mcs_chart_jacobian write. */
mcs_status mcs_ros34pw2_attempt(mcs_sim *s, mcs_real h, int adaptive, mcs_real *err);
/* Dense output (mcs_method_dense): RK4's cubic Hermite, DOPRI5's continuous extension, DOP853's
 * of order 7 (its three dense stages evaluated first if this step has not yet: writes
 * w.k[13..15] and what mcs_chart_rhs writes). */
mcs_status mcs_rk4_dense(mcs_sim *s, mcs_real th, mcs_real *y);
mcs_status mcs_dopri5_dense(mcs_sim *s, mcs_real th, mcs_real *y);
mcs_status mcs_dop853_dense(mcs_sim *s, mcs_real th, mcs_real *y);

/* ---- mcs_linearize.c: the chart Jacobian the implicit methods factor ---- */

/* dqdd/d(q, qd) (f x 2f, ld f) at y (2f) on the chart of s->cur, the inputs held, into *Y (a
 * pointer into work: MCS_SIM_IMPLICIT_REALS_'s share), and ydot (2f) = the right-hand side there:
 * from K_f, D and K_c (when present) through the chart, K_c at the chart's multipliers; exact
 * with M_x, gamma_x and A_dot and no lock in force (mcs_sim_linearize's), else without the terms
 * of those missing (a Rosenbrock-W method keeps its order with any matrix).
 * MCS_ERR_UNSUPPORTED without K_f or D, or in a layout without Q (the compact one:
 * mcs_rosenbrock.c then forms the stiff part). Writes the chart scratch. Dense builds only. */
mcs_status mcs_chart_jacobian(mcs_sim *s, const mcs_real *y, mcs_real t, mcs_real *work,
                              mcs_real **Y, mcs_real *ydot);

/* ---- mcs_rk.c: what the methods share ---- */

/* out (len) = y0 + h sum_j coef[j] k[j] over the first nst stages: a stage's point. */
void mcs_rk_combine(int len, const mcs_real *y0, mcs_real h, int nst, const mcs_real *coef,
                    mcs_real *const *k, mcs_real *out);
/* What DOPRI5's and DOP853's attempts share. The first stage: w.y0 = (0, T^T v) on the chart of
 * s->cur and w.k[0] from the last step's end acceleration when it may be used (FSAL, mcs_sim.h;
 * it uses the state, sigma and a fingerprint of the parameters), else evaluated; resets
 * w.g_cond_max. The end, once its stage k_last (2f) has been evaluated at the step's end (what
 * mcs_chart_end_acceleration reads still in the scratch): w.a_end for the next step's first
 * stage, and the end state (w.xs, w.x_lo, w.vs) into s->prev. */
mcs_status mcs_adaptive_first_stage(mcs_sim *s);
void mcs_adaptive_end(mcs_sim *s, const mcs_real *k_last);
/* The end of a one-step method's step (RK4's, ROS34PW2's) at t1, once w.y1 (2f, f = n - cur.r)
 * holds its chart state: mapped into s->prev (x, x_lo, v, t), w.y0 and w.y1 kept for the
 * Hermite dense output of the given method. Inline: a call costs the RK4 slider-crank firmware
 * 36 B of its 28 B of flash headroom. */
static inline mcs_status mcs_one_step_end(mcs_sim *s, mcs_real t1, int f, int method)
{
    mcs_status st;
    s->w.want_lo = 1;
    st = mcs_chart_map(s, &s->cur, s->w.y1, &s->w.y1[f], t1, s->prev.x, s->prev.v);
    s->w.want_lo = 0;
    if (st == MCS_OK) {
        mcs_mat_copy(s->n, 1, s->w.x_lo, s->n, s->prev.x_lo, s->n);
        s->prev.t = t1;
        s->w.dense_ready = 1; /* y0, y1 kept for the Hermite dense output */
        s->w.dense_method = method;
    }
    return st;
}

/* ---- mcs_integrate.c ---- */

/* The state at t inside the last accepted step (prev.t <= t <= cur.t) from the dense output on
 * the chart of s->prev. Writes w.ys and the chart scratch; x, v must not be chart scratch. */
mcs_status mcs_dense_state(mcs_sim *s, mcs_real t, mcs_real *x, mcs_real *v);

/* ---- mcs_events.c ---- */

/* After a step has been accepted: locate a singular configuration inside it (SPEC §6) and, if
 * one is found, fill s->event and set s->event_ready. Writes s->probe, s->event, w.tmp2, w.Tpred,
 * w.That, w.Phi, w.A, w.A_dot and what mcs_dense_state writes. */
void mcs_events_detect(mcs_sim *s);

#endif /* MCS_SIM_INTERNAL_H */
