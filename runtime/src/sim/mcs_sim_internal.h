/* mcs_sim_internal.h - what the simulator's modules share (internal: not a public header).
 *
 * The simulator (mcs/mcs_sim.h) is split by job:
 *   mcs_sim.c        options and their checks, binding a model to memory, queries
 *   mcs_memory.c     the memory layout (one carver, which also counts): mcs_sim_init,
 *                    mcs_sim_memory_size, mcs_sim_assign
 *   mcs_frame.c      factorization of frames, basis continuation (SPEC §2-§3)
 *   mcs_chart.c      the chart map and its ODE (SPEC §4)
 *   mcs_compact.c    the same for a compact simulator (options.compact): Householder frames,
 *                    one factorization for both, sparse A and M
 *   mcs_compact_chart.c  its chart: chord Newton and refinement instead of G's LU
 *   mcs_assembly.c   consistent initial state (mcs_sim_set_state)
 *   mcs_integrate.c  RK4 and DOPRI5 stages on the frozen chart of s->cur, and dense output
 *   mcs_step.c       the step policy: RK4 grid, DOPRI5 control, retakes near singular points,
 *                    acceptance (mcs_sim_step, mcs_sim_advance)
 *   mcs_events.c     singular configurations inside an accepted step (SPEC §6)
 *   mcs_reactions.c  constraint multipliers (mcs_sim_multipliers)
 *   mcs_rows.c       the constraint rows in use: the model's and the active locks' (coordinates,
 *                    linear rows, the model's row groups)
 *   mcs_locks.c      transitions: locks and unlocks with their velocity jump
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

/* s runs the banded simulator (options.banded); a constant 0 in builds without it
 * (MCS_WITH_BANDED = 0), so the compiler drops its branches and the linker mcs_banded.c */
#if MCS_WITH_BANDED
#define MCS_BANDED(s) ((s)->opt.banded != 0)
#else
#define MCS_BANDED(s) 0
#endif

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

/* ---- mcs_frame.c and mcs_chart.c ---- */

/* |R_{r-1, r-1}| / |R_00| of a factored frame (1 when r = 0): how far from losing rank r. */
mcs_real mcs_frame_ratio(const mcs_sim *s, const mcs_frame *fr, int r);
/* sigma below this is near a singular configuration: options.sing_watch times the largest sigma
 * of the run so far (mcs_sim.h; mcs_sim.c) */
mcs_real mcs_sim_watch_level(const mcs_sim *s);

/* A(fr->x, fr->t)^T P = Q R into fr (Q = the fresh Q^), rank and sigma. Writes w.A (left valid:
 * A at the frame) and w.basis_work. */
mcs_status mcs_frame_factor(mcs_sim *s, mcs_frame *fr);

/* Loads (t, x, v) into s->probe and factors it there (as mcs_frame_factor). */
mcs_status mcs_probe_factor(mcs_sim *s, mcs_real t, const mcs_real *x, const mcs_real *v);

/* `to` has been factored (Q = [U^ T^]); replaces its T by the basis continued from the chart
 * `from` over h (SPEC §3): mcs_frame_predict, then mcs_frame_align. Writes w.A_dot, w.Tpred,
 * w.That, w.basis_work, w.basis_iwork. */
mcs_status mcs_frame_continue_basis(mcs_sim *s, const mcs_frame *from, mcs_real h, mcs_frame *to);
/* The tangent basis predicted from the chart `from` over h, into w.Tpred (n x (n - from->r)):
 * SPEC §3.1-4 (nothing for continuation off). Writes w.A_dot, w.basis_work, w.basis_iwork. */
mcs_status mcs_frame_predict(mcs_sim *s, const mcs_frame *from, mcs_real h);
/* `to`, just factored: its T becomes T^ aligned with the prediction in w.Tpred (f_old columns;
 * SPEC §3.6-7; T^ itself for continuation off). Writes w.That, w.basis_work. */
mcs_status mcs_frame_align(mcs_sim *s, int f_old, mcs_frame *to);

/* The accumulated chart coordinate carried to a frame with f_to free directions (SPEC §4):
 * q_to[i] = q_from[i] + dq[i] (dq may be NULL: 0) for i < min(f_from, f_to); entries a rank
 * change adds (f_from <= i < f_to) start at 0. q_to may be q_from. */
void mcs_q_carry(int f_from, const mcs_real *q_from, const mcs_real *dq, int f_to, mcs_real *q_to);

/* y0 (2 f) = (0, T^T v) on the chart of s->cur; resets the Newton warm start w.p. */
void mcs_chart_start(mcs_sim *s, mcs_real *y0);

/* Position and velocity of the chart `ch` at (q, qd, t) (SPEC §4): x = x_k + T q + U p with
 * c_S(x, t) = 0 by Newton on p (warm-started from w.p), v = Phi qd - U G^-1 c_S,t. Writes the
 * chart scratch; leaves valid A at x, the LU of G = A_S U (w.G, w.ipiv), w.g_cond and
 * Phi = (I - U G^-1 A_S) T (w.Phi). x, v must not be chart scratch. */
mcs_status mcs_chart_map(mcs_sim *s, const mcs_frame *ch, const mcs_real *q, const mcs_real *qd,
                         mcs_real t, mcs_real *x, mcs_real *v);

/* ydot = (qd, qdd) at y = (q, qd) on the chart `ch` (Maggi-Kane). Writes the chart scratch and
 * w.xs, w.vs (the state at y, left valid), w.M, w.f, w.gamma, w.MPhi, w.Mred; leaves valid
 * w.rhs = f - M U G^-1 gamma_S and w.MPhi = M Phi. */
mcs_status mcs_chart_rhs(mcs_sim *s, const mcs_frame *ch, const mcs_real *y, mcs_real t,
                         mcs_real *ydot);

/* What mcs_chart_map and mcs_compact_map share. The first-order warm start of the chart Newton
 * (w.p = p_last + dpdq (q - q_last), when the last solution was on this chart); keeping this
 * solution for the next one (dpdq = -Z, Z (r x f) = G^-1 A_S T, and q, w.p); and the reduced
 * solve ydot = (qd, (Phi^T M Phi)^-1 Phi^T rhs) from w.Phi, w.MPhi = M Phi and w.rhs, which
 * writes w.Mred. */
void mcs_chart_warm_start(mcs_sim *s, const mcs_frame *ch, const mcs_real *q);
void mcs_chart_keep_warm_start(mcs_sim *s, const mcs_frame *ch, const mcs_real *q,
                               const mcs_real *Z);
mcs_status mcs_chart_reduced_solve(mcs_sim *s, int f, const mcs_real *y, mcs_real *ydot);

/* ---- mcs_compact.c, mcs_compact_chart.c: a compact simulator's frames and chart (the mcs_frame.c and mcs_chart.c functions call
 * these when options.compact is set; the same contracts unless said) ---- */

/* A^T P = Q R at the frame, kept as reflectors in fr->R, fr->tau (not T, which stays the
 * frame's own); the shared storage now holds fr (w.qr_x). Writes w.A = A's nonzeros at fr->x. */
mcs_status mcs_compact_factor(mcs_sim *s, mcs_frame *fr);
/* The factorization of fr in its storage: computed again when the frames share one and the
 * other frame's holds it (w.A and w.basis_work are written then). */
mcs_status mcs_compact_ensure(mcs_sim *s, const mcs_frame *fr);
/* out (n) = U p (p: r = fr->r entries); y (n) <- Q^T y, whose first r entries are U^T y;
 * T (n x f) = the traditional basis Q[:, r:] of fr. */
void mcs_compact_U(const mcs_sim *s, const mcs_frame *fr, const mcs_real *p, mcs_real *out);
void mcs_compact_Ut(const mcs_sim *s, const mcs_frame *fr, mcs_real *y);
void mcs_compact_form_T(const mcs_sim *s, const mcs_frame *fr, mcs_real *T);
mcs_status mcs_compact_map(mcs_sim *s, const mcs_frame *ch, const mcs_real *q, const mcs_real *qd,
                           mcs_real t, mcs_real *x, mcs_real *v);
mcs_status mcs_compact_rhs(mcs_sim *s, const mcs_frame *ch, const mcs_real *y, mcs_real t,
                           mcs_real *ydot);
mcs_status mcs_compact_predict(mcs_sim *s, const mcs_frame *from, mcs_real h);
mcs_status mcs_compact_align(mcs_sim *s, int f_old, mcs_frame *to);
/* out (m) = A u from A's nonzeros in w.A; out (n x ncol, ld n) = alpha M B + beta out (beta 0
 * or 1) from M's nonzeros in w.M; min(n, m): the reflectors of a factorization. */
void mcs_compact_A_times(const mcs_sim *s, const mcs_real *u, mcs_real *out);
void mcs_compact_M_times(const mcs_sim *s, int ncol, mcs_real alpha, const mcs_real *B,
                         mcs_real beta, mcs_real *out);
int mcs_compact_kmin(const mcs_sim *s);
/* out (n) = M(x, t) v from M's nonzeros (writes w.M). */
mcs_status mcs_compact_mass_times(mcs_sim *s, const mcs_real *x, mcs_real t, const mcs_real *v,
                                  mcs_real *out);

/* out (f) = T^T y for the frame's tangent basis (explicit, or the banded simulator's implicit
 * one: writes w.bz then). */
void mcs_frame_Tt(mcs_sim *s, const mcs_frame *fr, const mcs_real *y, mcs_real *out);

/* ---- mcs_banded.c: the banded simulator's frames and chart (the mcs_frame.c and mcs_chart.c
 * functions call these when options.banded is set; the same contracts unless said). Scratch:
 * w.bz, w.bx, w.bq, w.bwin, w.kkt, w.kkt_rhs, w.kkt_ipiv besides the chart's. ---- */
mcs_status mcs_banded_factor(mcs_sim *s, mcs_frame *fr);
mcs_status mcs_banded_predict(mcs_sim *s, const mcs_frame *from, mcs_real h);
mcs_status mcs_banded_align(mcs_sim *s, int f_old, mcs_frame *to);
mcs_status mcs_banded_map(mcs_sim *s, const mcs_frame *ch, const mcs_real *q, const mcs_real *qd,
                          mcs_real t, mcs_real *x, mcs_real *v);
/* its rhs leaves xdd, the acceleration at y, in w.Z (n) */
mcs_status mcs_banded_rhs(mcs_sim *s, const mcs_frame *ch, const mcs_real *y, mcs_real t,
                          mcs_real *ydot);
/* lambda (m) at (t, x, v) from the KKT system (mcs_sim_multipliers of a banded simulator). */
mcs_status mcs_banded_multipliers(mcs_sim *s, mcs_real t, const mcs_real *x, const mcs_real *v,
                                  mcs_real *lambda);
/* out (f) = T^T y; out (n) = T q; T (n x f) = the traditional basis T^ of fr, explicit */
void mcs_banded_Tt(mcs_sim *s, const mcs_frame *fr, const mcs_real *y, mcs_real *out);
/* p (m, R's columns) = U^T y */
void mcs_banded_Ut(mcs_sim *s, const mcs_frame *fr, const mcs_real *y, mcs_real *p);
void mcs_banded_T(mcs_sim *s, const mcs_frame *fr, const mcs_real *q, mcs_real *out);
void mcs_banded_form_T(mcs_sim *s, const mcs_frame *fr, mcs_real *T);
/* out (n) = -U R^-T b_S: the minimum-norm dx with A dx = -b (b: m, by constraint) */
void mcs_banded_min_norm(mcs_sim *s, const mcs_frame *fr, const mcs_real *b, mcs_real *out);

/* ---- mcs_assembly.c ---- */

/* |c(x, t)|_inf (0 when m = 0; negative when not finite). Writes w.c. */
mcs_real mcs_constraint_norm_at(mcs_sim *s, const mcs_real *x, mcs_real t);

/* ---- mcs_integrate.c ---- */

/* One RK4 step of length h on the chart of s->cur: the end state in s->prev (x, v, t), w.y0 and
 * w.y1 kept for dense output (dense_ready = 2). Writes w.k, w.ys and what mcs_chart_rhs writes. */
mcs_status mcs_rk4_attempt(mcs_sim *s, mcs_real h);

/* One DOPRI5 attempt of length h on the chart of s->cur: the end state in s->prev (x, v; the
 * caller sets t), *err the scaled error norm; w.y0, w.y1, w.k kept for dense output. */
mcs_status mcs_dopri5_attempt(mcs_sim *s, mcs_real h, mcs_real *err);
/* The same for DOP853 (mcs_dop853.c): when *err <= 1 also the end state in s->prev (x, x_lo, v)
 * and its FSAL stage k[12]; the step is then accepted by the caller (dense_ready = 3). */
mcs_status mcs_dop853_attempt(mcs_sim *s, mcs_real h, mcs_real *err);
/* y (2f) = DOP853's dense output at the fraction th of the last accepted step, on its chart
 * (s->prev): evaluates the three dense stages first if this step has not yet. Writes w.k[13..15]
 * and what mcs_chart_rhs writes. */
mcs_status mcs_dop853_dense(mcs_sim *s, mcs_real th, mcs_real *y);
/* What DOPRI5's and DOP853's attempts share. The first stage: w.y0 = (0, T^T v) on the chart of
 * s->cur and w.k[0] from the last step's end acceleration when it may be used (FSAL, mcs_sim.h;
 * it uses the state, sigma and a fingerprint of the parameters), else evaluated; resets
 * w.g_cond_max. The end, once its stage k_last (2f) has been evaluated at the step's end (its Phi
 * and beta still in w.Phi and w.Z): w.a_end for the next step's first stage, and the end state
 * (w.xs, w.x_lo, w.vs) into s->prev. */
mcs_status mcs_adaptive_first_stage(mcs_sim *s);
void mcs_adaptive_end(mcs_sim *s, const mcs_real *k_last);

/* The state at t inside the last accepted step (prev.t <= t <= cur.t) from the dense output on
 * the chart of s->prev. Writes w.ys and the chart scratch; x, v must not be chart scratch. */
mcs_status mcs_dense_state(mcs_sim *s, mcs_real t, mcs_real *x, mcs_real *v);

/* ---- mcs_events.c ---- */

/* After a step has been accepted: locate a singular configuration inside it (SPEC §6) and, if
 * one is found, fill s->event and set s->event_ready. Writes s->probe, s->event, w.tmp2, w.Tpred,
 * w.That, w.Phi, w.A, w.A_dot and what mcs_dense_state writes. */
void mcs_events_detect(mcs_sim *s);

#endif /* MCS_SIM_INTERNAL_H */
