/* mcs_methods.h - the simulator's methods tier (internal; mcs_core.h draws the tiers): the
 * integrators' attempts on the frozen chart of s->cur and their interpolants in the last accepted
 * step, each method in its file, and the one switch of each operation on the method
 * (mcs_method.c; the table of what each method is: mcs_core.h's mcs_methods). They call the
 * operations below and never name a variant.
 */
#ifndef MCS_METHODS_H
#define MCS_METHODS_H

#include "sim/mcs_operations.h"

/* ---- mcs_method.c: the one switch of each method operation ---- */

/* One attempt of length h with the method on the chart of s->cur (*err: its scaled error norm,
 * 0 for a fixed-step method), and its interpolant y (2f) at the fraction th of the last accepted
 * step (on s->prev's chart): the switches to the methods' own functions below. */
mcs_status mcs_method_attempt(mcs_sim *s, mcs_method method, mcs_real h, mcs_real *err);
mcs_status mcs_method_interpolate(mcs_sim *s, mcs_method method, mcs_real th, mcs_real *y);

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
/* Dense output (mcs_method_interpolate): RK4's cubic Hermite, DOPRI5's continuous extension, DOP853's
 * of order 7 (its three dense stages evaluated first if this step has not yet: writes
 * w.k[13..15] and what mcs_chart_rhs writes). */
mcs_status mcs_rk4_interpolate(mcs_sim *s, mcs_real th, mcs_real *y);
mcs_status mcs_dopri5_interpolate(mcs_sim *s, mcs_real th, mcs_real *y);
mcs_status mcs_dop853_interpolate(mcs_sim *s, mcs_real th, mcs_real *y);

/* The classic RK4 (mcs_rk4.c): stage i at y0 + h A_i k_(i-1), time t0 + A_i h; weights B_i (the
 * step Jacobian differentiates these stages). */
extern const mcs_real mcs_rk4_a[4];
extern const mcs_real mcs_rk4_b[4];

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
        s->w.interp_ready = 1; /* y0, y1 kept for the Hermite dense output */
        s->w.interp_method = method;
    }
    return st;
}

#endif /* MCS_METHODS_H */
