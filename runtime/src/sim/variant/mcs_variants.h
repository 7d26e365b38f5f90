/* mcs_variants.h - the entry points of the simulator's variants (internal): only mcs_variant.c,
 * which switches on options.variant, and the variants' own files include it. Each function has
 * the contract of the operation of mcs_operations.h it implements (mcs_frame_factor,
 * mcs_chart_map, ...), unless said. A variant calls only the simulator's core (rows, sparse
 * products, the charts' shared parts, the carver) and the layers below, never another variant or
 * a stage: sharing goes downward. */
#ifndef MCS_VARIANTS_H
#define MCS_VARIANTS_H

#include "sim/mcs_core.h"

/* ---- mcs_dense.c: explicit n x n Q, the chart Newton with an LU of A_S U (MCS_WITH_DENSE) ---- */

mcs_status mcs_dense_factor(mcs_sim *s, mcs_frame *fr);
mcs_status mcs_dense_predict(mcs_sim *s, const mcs_frame *from, mcs_real h);
mcs_status mcs_dense_align(mcs_sim *s, int f_old, mcs_frame *to);
mcs_status mcs_dense_map(mcs_sim *s, const mcs_frame *ch, const mcs_real *q, const mcs_real *qd,
                         mcs_real t, mcs_real *x, mcs_real *v);
mcs_status mcs_dense_rhs(mcs_sim *s, const mcs_frame *ch, const mcs_real *y, mcs_real t,
                         mcs_real *ydot);
void mcs_dense_min_norm(mcs_sim *s, const mcs_frame *fr, const mcs_real *b, mcs_real *out);
void mcs_dense_Ut_p(mcs_sim *s, const mcs_frame *ch, const mcs_real *y);

/* ---- mcs_compact.c, mcs_compact_chart.c: reflectors in place of Q, a chord Newton and
 * refinement on the chart's own factor, A and M as their nonzeros (MCS_WITH_COMPACT) ---- */

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
mcs_status mcs_compact_predict(mcs_sim *s, const mcs_frame *from, mcs_real h);
mcs_status mcs_compact_align(mcs_sim *s, int f_old, mcs_frame *to);
mcs_status mcs_compact_map(mcs_sim *s, const mcs_frame *ch, const mcs_real *q, const mcs_real *qd,
                           mcs_real t, mcs_real *x, mcs_real *v);
mcs_status mcs_compact_rhs(mcs_sim *s, const mcs_frame *ch, const mcs_real *y, mcs_real t,
                           mcs_real *ydot);
void mcs_compact_min_norm(mcs_sim *s, const mcs_frame *fr, const mcs_real *b, mcs_real *out);
void mcs_compact_Ut_p(mcs_sim *s, const mcs_frame *ch, mcs_real *y);
/* Why it refuses the model and options (MCS_REFUSE_*, mcs_sim.h; 0: it takes them). */
unsigned mcs_compact_refusals(const mcs_model *model, const mcs_options *opt);

/* ---- mcs_banded.c, mcs_banded_chart.c: rows and Givens rotations along the generator's band
 * structure, the chart by a chord Newton on the banded R, accelerations from the banded KKT
 * system (MCS_WITH_BANDED) ---- */

mcs_status mcs_banded_factor(mcs_sim *s, mcs_frame *fr);
mcs_status mcs_banded_predict(mcs_sim *s, const mcs_frame *from, mcs_real h);
mcs_status mcs_banded_align(mcs_sim *s, int f_old, mcs_frame *to);
mcs_status mcs_banded_map(mcs_sim *s, const mcs_frame *ch, const mcs_real *q, const mcs_real *qd,
                          mcs_real t, mcs_real *x, mcs_real *v);
/* its rhs leaves xdd, the acceleration at y, in w.Z (n) */
mcs_status mcs_banded_rhs(mcs_sim *s, const mcs_frame *ch, const mcs_real *y, mcs_real t,
                          mcs_real *ydot);
/* lambda (m) and, unless xdd is NULL, x'' (n) at (t, x, v) from the KKT system
 * (mcs_sim_multipliers and mcs_sim_joint_wrenches of a banded simulator). */
mcs_status mcs_banded_multipliers(mcs_sim *s, mcs_real t, const mcs_real *x, const mcs_real *v,
                                  mcs_real *xdd, mcs_real *lambda);
/* Whether its T is implicit (continuation off: Q's tangent columns) rather than fr->T. */
int mcs_banded_implicit_T(const mcs_sim *s);
/* out (n) = Q z for z (by slot) = [p at R's rows (r), q at the tangent slots (f)]: U p + T^ q;
 * p or q may be NULL (0). Writes w.bz. (mcs_banded.c's, for its chart too.) */
void mcs_banded_apply_q(mcs_sim *s, const mcs_frame *fr, const mcs_real *p, const mcs_real *q,
                        mcs_real *out);
/* out (f) = T^T y; out (n) = T q; T (n x f) = the traditional basis T^ of fr, explicit */
void mcs_banded_Tt(mcs_sim *s, const mcs_frame *fr, const mcs_real *y, mcs_real *out);
void mcs_banded_T(mcs_sim *s, const mcs_frame *fr, const mcs_real *q, mcs_real *out);
void mcs_banded_form_T(mcs_sim *s, const mcs_frame *fr, mcs_real *T);
/* p (m, R's columns) = U^T y */
void mcs_banded_Ut(mcs_sim *s, const mcs_frame *fr, const mcs_real *y, mcs_real *p);
/* out (n) = -U R^-T b_S: the minimum-norm dx with A dx = -b (b: m, by constraint) */
void mcs_banded_min_norm(mcs_sim *s, const mcs_frame *fr, const mcs_real *b, mcs_real *out);
unsigned mcs_banded_refusals(const mcs_model *model, const mcs_options *opt);

#endif /* MCS_VARIANTS_H */
