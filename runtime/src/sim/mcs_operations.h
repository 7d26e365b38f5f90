/* mcs_operations.h - the simulator's operations tier (internal; mcs_core.h draws the tiers): the
 * operations whose code differs by variant, each one switch on it in mcs_variant.c (the same
 * contract whichever runs), and what is built on them alone: the probe frame and the basis
 * continued to it (mcs_frame.c), the chart's start (mcs_chart.c) and the chart's Jacobian
 * (mcs_chart_jacobian.c). The methods above call these and never name a variant.
 */
#ifndef MCS_OPERATIONS_H
#define MCS_OPERATIONS_H

#include "sim/mcs_core.h"

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
/* Whether the frames hold their Q explicitly (the dense variant in a layout with Q): what the
 * chart's Jacobian and the linearizations read. */
int mcs_variant_explicit_q(const mcs_sim *s);
int mcs_variant_takes_locks(const mcs_sim *s);
int mcs_variant_own_multipliers(const mcs_sim *s);
mcs_status mcs_variant_multipliers(mcs_sim *s, mcs_real t, const mcs_real *x, const mcs_real *v,
                                   mcs_real *xdd, mcs_real *lambda);

/* Options: whether options.variant is one (1/0: else MCS_ERR_ARGUMENT), why it refuses the model
 * and the other options (MCS_REFUSE_*, mcs_sim.h; 0: it takes them), and the MCS_PART_* bit it
 * needs compiled in (0 for a value that is no variant). */
int mcs_variant_valid(const mcs_options *opt);
unsigned mcs_variant_refusals(const mcs_model *model, const mcs_options *opt);
unsigned mcs_variant_part(mcs_variant variant);
/* Memory: the features bit of the variant's own layout (0 for the full one: mcs_sim_memory.h's
 * list of buffers says what each layout has) and whether the variant needs mcs_sim_assign's
 * layout (mcs_sim_init refuses it). */
unsigned mcs_variant_memory_features(const mcs_options *opt);
int mcs_variant_needs_assign(const mcs_options *opt);
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

/* ---- mcs_chart_jacobian.c: the chart's Jacobian (the implicit methods' W-matrix, and what the
 * linearizations above the step differentiate) ---- */

/* Where the chart Jacobian keeps its arrays in a caller's workspace (MCS_SIM_LINEARIZE_WORK_SIZE,
 * or MCS_SIM_STEP_JACOBIAN_WORK_SIZE with the step Jacobian's part). */
typedef struct mcs_jacobian_work {
    mcs_real *Phi;  /* (n x f) dx/dq at the point */
    mcs_real *P;    /* (n x r) U G^-1 */
    mcs_real *X;    /* (r x r) G^-1 */
    mcs_real *M;    /* (n x n) */
    mcs_real *K;    /* (n x n) K_f + K_c */
    mcs_real *S;    /* (n x n) K_c, then M Phi */
    mcs_real *Dm;   /* (n x n) D */
    mcs_real *Mr;   /* (f x f) Phi^T M Phi, then its Cholesky factor */
    mcs_real *Ad;   /* (m x n) A_dot */
    mcs_real *R;    /* (n x (2f + nu)) the right-hand sides r_f - M U G^-1 r_c */
    mcs_real *Y;    /* (f x (2f + nu)) Phi^T R, then dqdd/d(q, qd, u) */
    mcs_real *xs;   /* (n) x at the point */
    mcs_real *vs;   /* (n) v at the point */
    mcs_real *xdd;  /* (n) x'' there */
    mcs_real *g;    /* (n) f + B u, then f + B u - M x'' */
    mcs_real *wbuf; /* (3n + 2 nu) a kernel's w */
    int with_M_x;   /* M_x's w = [a; u; dx] fits wbuf (the implicit methods' holds 3n) */
    mcs_real *dv;   /* (n) */
    mcs_real *rf;   /* (n) */
    mcs_real *tmp;  /* (n) */
    mcs_real *rcs;  /* (n) r_c's rows S, then G^-1 of them */
    mcs_real *lam;  /* (max(m, 1)) the chart's multipliers, 0 off S */
    mcs_real *gam;  /* (max(m, 1)) gamma, then A_dot dv */
    mcs_real *rc;   /* (max(m, 1)) r_c */
    mcs_real *yc;   /* (2n) the chart's y */
    mcs_real *ydc;  /* (2n) its right-hand side */
    /* mcs_sim_step_jacobian's, after the above (stepping) */
    mcs_real *Jy;  /* (2f x (2f + nu)) a stage's d(yd)/d(y, u) */
    mcs_real *dY;  /* (2f x (2f + nu)) a stage's dY/d(y0, u) */
    mcs_real *dK;  /* (2f x (2f + nu)) its dK/d(y0, u) */
    mcs_real *sum; /* (2f x (2f + nu)) dy1/d(y0, u) */
    mcs_real *kst; /* (4 x 2n) the stages' yd */
    mcs_real *Tto; /* (n x n) the basis after the step */
} mcs_jacobian_work;

/* Lays w out in work for n coordinates, m rows and nu inputs; `stepping`: with the step
 * Jacobian's part. */
void mcs_jacobian_carve(mcs_real *work, int n, int m, int nu, int stepping, mcs_jacobian_work *w);
/* The chart ch at y = (q, qd) (2f), time t: the right-hand side ydot (2f), and in w the point's
 * x, v, Phi, P = U G^-1 and A_dot. Writes the chart scratch. */
mcs_status mcs_jacobian_point(mcs_sim *s, const mcs_frame *ch, const mcs_real *y, mcs_real t,
                              mcs_jacobian_work *w, mcs_real *ydot);
/* out (n) = U G^-1 b_S for b (m) by constraint row, with the point's P. Writes w->rcs. */
void mcs_jacobian_apply_P(const mcs_sim *s, const mcs_frame *ch, mcs_jacobian_work *w,
                          const mcs_real *b, mcs_real *out);
/* dv (n) = -U G^-1 A_dot_S dx: the velocity change that keeps A v + c_t = 0 and T^T v when the
 * coordinates move by dx along the chart (a move of q; 0 without rows). Writes w->gam. */
void mcs_jacobian_velocity_of_move(const mcs_sim *s, const mcs_frame *ch, mcs_jacobian_work *w,
                                   const mcs_real *dx, mcs_real *dv);
/* dqdd/d(q, qd, u) (f x (2f + nu), ld f; without the u columns unless `inputs`) in w->Y at y on
 * the chart ch, the inputs u (nu) held; ydot (2f) the right-hand side there: from K_f, D and K_c
 * (when present) through the chart, K_c at the chart's multipliers; exact with M_x, gamma_x and
 * A_dot and no lock in force, else without the terms of those missing (a Rosenbrock-W method
 * keeps its order with any matrix). Writes the chart scratch. */
mcs_status mcs_jacobian_at(mcs_sim *s, const mcs_frame *ch, const mcs_real *y, mcs_real t,
                           const mcs_real *u, int inputs, mcs_jacobian_work *w, mcs_real *ydot);
/* Whether the linearizations can be had: the kernels they read (M, K_f, D, M_x, f; with rows K_c,
 * gamma_x and A_dot; with inputs f_u), no row group in force (the locks' rows have no generated
 * tangents) and frames with their Q (mcs_variant_explicit_q). */
int mcs_linearizable(const mcs_sim *s);
/* The current chart copied into the probe (scratch), so that evaluating it leaves the state's
 * untouched, the Newton's start at its centre; and y0 = (0, T^T v) (2f) of a chart at its centre. */
void mcs_chart_in_probe(mcs_sim *s);
void mcs_chart_centre(mcs_sim *s, const mcs_frame *ch, mcs_real *y0);
/* u (model->nu) = the inputs the dynamics see now (0 while none were set). */
void mcs_held_inputs(const mcs_sim *s, mcs_real *u);
/* The implicit methods' W-matrix: dqdd/d(q, qd) (f x 2f, ld f) at y (2f) on the chart of s->cur,
 * the inputs held, into *Y (a pointer into work: MCS_SIM_IMPLICIT_REALS_'s share), and ydot (2f)
 * = the right-hand side there (mcs_jacobian_at without inputs, in the layout's rows nc +
 * max_locks). MCS_ERR_UNSUPPORTED without K_f or D, or in a layout without Q (the compact one:
 * mcs_rosenbrock.c then forms the stiff part). Writes the chart scratch. Dense builds only. */
mcs_status mcs_chart_jacobian(mcs_sim *s, const mcs_real *y, mcs_real t, mcs_real *work,
                              mcs_real **Y, mcs_real *ydot);

#endif /* MCS_OPERATIONS_H */
