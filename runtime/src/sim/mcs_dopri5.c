/* mcs_dopri5.c - Dormand-Prince 5(4) on the frozen chart of s->cur: the seven stages (the last
 * the next step's first), the error estimate, and the continuous extension of order 4. */

#include "sim/mcs_methods.h"

/* Dormand-Prince 5(4) tableau. */
static const mcs_real DP_A[6][6] = {
    {MCS_R(1.0) / MCS_R(5.0), 0, 0, 0, 0, 0},
    {MCS_R(3.0) / MCS_R(40.0), MCS_R(9.0) / MCS_R(40.0), 0, 0, 0, 0},
    {MCS_R(44.0) / MCS_R(45.0), MCS_R(-56.0) / MCS_R(15.0), MCS_R(32.0) / MCS_R(9.0), 0, 0, 0},
    {MCS_R(19372.0) / MCS_R(6561.0), MCS_R(-25360.0) / MCS_R(2187.0),
     MCS_R(64448.0) / MCS_R(6561.0), MCS_R(-212.0) / MCS_R(729.0), 0, 0},
    {MCS_R(9017.0) / MCS_R(3168.0), MCS_R(-355.0) / MCS_R(33.0), MCS_R(46732.0) / MCS_R(5247.0),
     MCS_R(49.0) / MCS_R(176.0), MCS_R(-5103.0) / MCS_R(18656.0), 0},
    {MCS_R(35.0) / MCS_R(384.0), 0, MCS_R(500.0) / MCS_R(1113.0), MCS_R(125.0) / MCS_R(192.0),
     MCS_R(-2187.0) / MCS_R(6784.0), MCS_R(11.0) / MCS_R(84.0)}};
static const mcs_real DP_C[7] = {0, MCS_R(0.2), MCS_R(0.3), MCS_R(0.8), MCS_R(8.0) / MCS_R(9.0),
                                 1, 1};
/* b - b^ (5th minus 4th order weights) */
static const mcs_real DP_E[7] = {MCS_R(71.0) / MCS_R(57600.0),      0,
                                 MCS_R(-71.0) / MCS_R(16695.0),     MCS_R(71.0) / MCS_R(1920.0),
                                 MCS_R(-17253.0) / MCS_R(339200.0), MCS_R(22.0) / MCS_R(525.0),
                                 MCS_R(-1.0) / MCS_R(40.0)};
/* dense output (Hairer's contd5) */
static const mcs_real DP_D[7] = {
    MCS_R(-12715105075.0) / MCS_R(11282082432.0),  0,
    MCS_R(87487479700.0) / MCS_R(32700410799.0),   MCS_R(-10690763975.0) / MCS_R(1880347072.0),
    MCS_R(701980252875.0) / MCS_R(199316789632.0), MCS_R(-1453857185.0) / MCS_R(822651844.0),
    MCS_R(69997945.0) / MCS_R(29380423.0)};

/* Hairer's stiffness test for a step to be accepted (mcs_stats): the last two stages are both at
 * the step's end (c = 1), so |k7 - k6| / |y7 - y6| estimates the largest |lambda| the step met;
 * h |lambda| above 2.5, near the bound 3.3 of DOPRI5's stability region on the negative real
 * axis, is a step that stability cut short (Hairer and Wanner, Solving ODEs II, §IV.2, whose
 * test takes 3.25). */
static void count_stiffness(mcs_sim *s, mcs_real h, int len)
{
    mcs_real dk = MCS_R(0.0);
    mcs_real dy = MCS_R(0.0);
    mcs_real rate;
    int i;
    for (i = 0; i < len; ++i) {
        const mcs_real a = s->w.k[6][i] - s->w.k[5][i];
        const mcs_real b = s->w.y1[i] - s->w.ys[i];
        dk += a * a;
        dy += b * b;
    }
    if (!(dy > MCS_R(0.0))) {
        return;
    }
    rate = mcs_sqrt(dk / dy);
    if ((h * rate) > MCS_R(2.5)) {
        s->stats.stability_limited++;
    }
    if (rate > s->stats.lambda_max) {
        s->stats.lambda_max = rate;
    }
}

/* One DOPRI5 attempt of length h on the chart of s->cur; *err is the scaled error norm. */
mcs_status mcs_dopri5_attempt(mcs_sim *s, mcs_real h, mcs_real *err)
{
    const int n = s->n;
    const int f = n - s->cur.r;
    const int len = 2 * f;
    const mcs_real t = s->cur.t;
    const mcs_real xscale = mcs_vec_max_abs(n, s->cur.x);
    mcs_real **k = s->w.k;
    mcs_real sum = MCS_R(0.0);
    mcs_real rtol;
    mcs_status st;
    int i;
    int j;
    st = mcs_adaptive_first_stage(s);
    if (st != MCS_OK) {
        return st;
    }
    for (j = 1; j < 7; ++j) {
        mcs_real *y = (j == 6) ? s->w.y1 : s->w.ys;
        mcs_rk_combine(len, s->w.y0, h, j, DP_A[j - 1], k, y);
        s->w.want_lo = 0;
        if (j == 6) {
            s->w.want_lo = 1; /* the last stage's x is the step's end */
        }
        st = mcs_chart_rhs(s, &s->cur, y, t + (DP_C[j] * h), k[j]);
        s->w.want_lo = 0;
        if (st != MCS_OK) {
            return st;
        }
    }
    /* the last stage evaluated the chart at y1: its x, v are the step's end state, and its
     * acceleration the next step's first stage */
    mcs_adaptive_end(s, k[6]);
    /* Near a singular configuration the stages cannot be evaluated to better than about
     * eps cond(A_S U): the relative tolerance is not allowed below that, or error control would
     * creep towards the singular point with ever shorter steps. */
    rtol = MAX2(s->opt.rtol, 10 * MCS_REAL_EPS * s->w.g_cond_max);
    for (i = 0; i < len; ++i) {
        mcs_real e = MCS_R(0.0);
        mcs_real sc;
        for (j = 0; j < 7; ++j) {
            e += DP_E[j] * k[j][i];
        }
        e *= h;
        sc = MAX2(mcs_fabs(s->w.y0[i]), mcs_fabs(s->w.y1[i]));
        if (i < f) { /* positions on the chart start at 0: scale them by the size of x */
            sc = MAX2(sc, xscale);
        }
        sc = s->opt.atol + (rtol * sc);
        sum += (e / sc) * (e / sc);
    }
    *err = (len > 0) ? mcs_sqrt(sum / (mcs_real)len) : MCS_R(0.0);
    if (!((*err - *err) == MCS_R(0.0))) {
        return MCS_ERR_NONFINITE;
    }
    if (*err <= MCS_R(1.0)) {
        count_stiffness(s, h, len);
    }
    return MCS_OK;
}

/* y (2f) = DOPRI5's continuous extension (Hairer's contd5) at the fraction th of the last step,
 * from its stages (w.k) and ends (w.y0, w.y1). */
mcs_status mcs_dopri5_interpolate(mcs_sim *s, mcs_real th, mcs_real *y)
{
    const int f = s->n - s->prev.r;
    const int len = 2 * f;
    const mcs_real h = s->h_last;
    const mcs_real th1 = MCS_R(1.0) - th;
    int i;
    int j;
    for (i = 0; i < len; ++i) {
        const mcs_real y0 = s->w.y0[i];
        const mcs_real dy = s->w.y1[i] - y0;
        const mcs_real bspl = (h * s->w.k[0][i]) - dy;
        const mcs_real r4 = dy - (h * s->w.k[6][i]) - bspl;
        mcs_real r5 = MCS_R(0.0);
        for (j = 0; j < 7; ++j) {
            r5 += DP_D[j] * s->w.k[j][i];
        }
        r5 *= h;
        y[i] = y0 + (th * (dy + (th1 * (bspl + (th * (r4 + (th1 * r5)))))));
    }
    return MCS_OK;
}
