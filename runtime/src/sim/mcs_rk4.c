/* mcs_rk4.c - classic fixed-step Runge-Kutta 4 on the frozen chart of s->cur (the firmware
 * default), and its dense output: the cubic Hermite interpolant of the chart coordinates. */

#include "sim/mcs_methods.h"

const mcs_real mcs_rk4_a[4] = {MCS_R(0.0), MCS_R(0.5), MCS_R(0.5), MCS_R(1.0)};
const mcs_real mcs_rk4_b[4] = {MCS_R(1.0) / MCS_R(6.0), MCS_R(1.0) / MCS_R(3.0),
                               MCS_R(1.0) / MCS_R(3.0), MCS_R(1.0) / MCS_R(6.0)};

/* One RK4 step of length h on the chart of s->cur: the end state in s->prev (x, v, t); y0, y1 are
 * kept for the Hermite dense output. */
mcs_status mcs_rk4_attempt(mcs_sim *s, mcs_real h)
{
    const int f = s->n - s->cur.r;
    const int len = 2 * f;
    const mcs_real t = s->cur.t;
    static const mcs_real c1[1] = {MCS_R(0.5)};
    static const mcs_real c2[2] = {0, MCS_R(0.5)};
    static const mcs_real c3[3] = {0, 0, 1};
    mcs_real **k = s->w.k;
    mcs_status st;
    mcs_chart_start(s, s->w.y0);
    st = mcs_chart_rhs(s, &s->cur, s->w.y0, t, k[0]);
    if (st != MCS_OK) {
        return st;
    }
    mcs_rk_combine(len, s->w.y0, h, 1, c1, k, s->w.ys);
    st = mcs_chart_rhs(s, &s->cur, s->w.ys, t + (h / MCS_R(2.0)), k[1]);
    if (st != MCS_OK) {
        return st;
    }
    mcs_rk_combine(len, s->w.y0, h, 2, c2, k, s->w.ys);
    st = mcs_chart_rhs(s, &s->cur, s->w.ys, t + (h / MCS_R(2.0)), k[2]);
    if (st != MCS_OK) {
        return st;
    }
    mcs_rk_combine(len, s->w.y0, h, 3, c3, k, s->w.ys);
    st = mcs_chart_rhs(s, &s->cur, s->w.ys, t + h, k[3]);
    if (st != MCS_OK) {
        return st;
    }
    mcs_rk_combine(len, s->w.y0, h, 4, mcs_rk4_b, k, s->w.y1);
    return mcs_one_step_end(s, t + h, f, MCS_METHOD_RK4);
}

/* y (2f) = the cubic Hermite interpolant of q through (q, qd) at both ends of the last step, and
 * qd from its derivative, at the fraction th of it (third order). */
mcs_status mcs_rk4_interpolate(mcs_sim *s, mcs_real th, mcs_real *y)
{
    const int f = s->n - s->prev.r;
    const mcs_real h = s->h_last;
    const mcs_real h00 = (((MCS_R(2.0) * th) - MCS_R(3.0)) * th * th) + MCS_R(1.0);
    const mcs_real h10 = (((th - MCS_R(2.0)) * th) + MCS_R(1.0)) * th;
    const mcs_real h01 = (MCS_R(3.0) - (MCS_R(2.0) * th)) * th * th;
    const mcs_real h11 = (th - MCS_R(1.0)) * th * th;
    const mcs_real d00 = MCS_R(6.0) * th * (th - MCS_R(1.0));
    const mcs_real d10 = (((MCS_R(3.0) * th) - MCS_R(4.0)) * th) + MCS_R(1.0);
    const mcs_real d01 = -d00;
    const mcs_real d11 = ((MCS_R(3.0) * th) - MCS_R(2.0)) * th;
    int i;
    for (i = 0; i < f; ++i) {
        const mcs_real q0 = s->w.y0[i];
        const mcs_real q1 = s->w.y1[i];
        const mcs_real v0 = s->w.y0[f + i];
        const mcs_real v1 = s->w.y1[f + i];
        y[i] = (h00 * q0) + (h10 * h * v0) + (h01 * q1) + (h11 * h * v1);
        y[f + i] = (((d00 * q0) + (d01 * q1)) / h) + (d10 * v0) + (d11 * v1);
    }
    return MCS_OK;
}
