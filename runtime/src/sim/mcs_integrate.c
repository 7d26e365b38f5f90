/* mcs_integrate.c - the integrators on a frozen chart: RK4 and Dormand-Prince 5(4) stages, and
 * dense output inside the last accepted step (DOPRI5's continuous extension, RK4 Hermite). */

#include "sim/mcs_sim_internal.h"

static void axpy_stage(int len, const mcs_real *y0, mcs_real h, int nst, const mcs_real *coef,
                       mcs_real *const *k, mcs_real *out)
{
    int i;
    int j;
    for (i = 0; i < len; ++i) {
        mcs_real sum = MCS_R(0.0);
        for (j = 0; j < nst; ++j) {
            sum += coef[j] * k[j][i];
        }
        out[i] = y0[i] + (h * sum);
    }
}

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
    static const mcs_real b[4] = {MCS_R(1.0) / MCS_R(6.0), MCS_R(1.0) / MCS_R(3.0),
                                  MCS_R(1.0) / MCS_R(3.0), MCS_R(1.0) / MCS_R(6.0)};
    mcs_real **k = s->w.k;
    mcs_status st;
    mcs_chart_start(s, s->w.y0);
    st = mcs_chart_rhs(s, &s->cur, s->w.y0, t, k[0]);
    if (st != MCS_OK) {
        return st;
    }
    axpy_stage(len, s->w.y0, h, 1, c1, k, s->w.ys);
    st = mcs_chart_rhs(s, &s->cur, s->w.ys, t + (h / MCS_R(2.0)), k[1]);
    if (st != MCS_OK) {
        return st;
    }
    axpy_stage(len, s->w.y0, h, 2, c2, k, s->w.ys);
    st = mcs_chart_rhs(s, &s->cur, s->w.ys, t + (h / MCS_R(2.0)), k[2]);
    if (st != MCS_OK) {
        return st;
    }
    axpy_stage(len, s->w.y0, h, 3, c3, k, s->w.ys);
    st = mcs_chart_rhs(s, &s->cur, s->w.ys, t + h, k[3]);
    if (st != MCS_OK) {
        return st;
    }
    axpy_stage(len, s->w.y0, h, 4, b, k, s->w.y1);
    s->w.want_lo = 1;
    st = mcs_chart_map(s, &s->cur, s->w.y1, &s->w.y1[f], t + h, s->prev.x, s->prev.v);
    s->w.want_lo = 0;
    if (st != MCS_OK) {
        return st;
    }
    mcs_mat_copy(s->n, 1, s->w.x_lo, s->n, s->prev.x_lo, s->n);
    s->prev.t = t + h;
    s->w.dense_ready = 2; /* y0, y1 kept for the Hermite dense output */
    return MCS_OK;
}

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

static uint64_t params_fingerprint(const mcs_sim *s)
{
    /* FNV-1a over the struct's 8-byte words (little-endian), then its last bytes: a change of
     * one word always changes it, since each step is a bijection of the running value */
    const unsigned char *b = (const unsigned char *)s->params;
    const size_t len = s->model->params_size;
    const uint64_t prime = 1099511628211ULL;
    uint64_t fp = 14695981039346656037ULL;
    size_t i = 0U;
    while ((i + 8U) <= len) {
        uint64_t word = 0U;
        size_t j;
        for (j = 8U; j > 0U; --j) {
            word = (word << 8U) | (uint64_t)b[(i + j) - 1U];
        }
        fp = (fp ^ word) * prime;
        i += 8U;
    }
    while (i < len) {
        fp = (fp ^ (uint64_t)b[i]) * prime;
        ++i;
    }
    return fp;
}

/* k0 (2f) = the first stage on the chart of s->cur from the last step's end acceleration, when
 * it may be used (FSAL, mcs_sim.h: returns 1), else 0. */
static int first_stage_from_last(mcs_sim *s, const mcs_real *y0, mcs_real *k0)
{
    const int f = s->n - s->cur.r;
    int i;
    if (!s->w.fsal || ((s->w.dense_ready != 1) && (s->w.dense_ready != 3)) ||
        (s->w.a_end == NULL) || !(s->cur.sigma > mcs_sim_watch_level(s)) ||
        (params_fingerprint(s) != s->w.fsal_params)) {
        return 0;
    }
    for (i = 0; i < f; ++i) {
        k0[i] = y0[f + i];
    }
    mcs_frame_Tt(s, &s->cur, s->w.a_end, &k0[f]);
    return 1;
}

/* a_end = x'' at the last stage just evaluated: Phi q'' + beta (beta = U G^-1 gamma_S, left in
 * w.Z by mcs_chart_rhs; 0 without rows). */
static void keep_last_acceleration(mcs_sim *s, const mcs_real *k_last)
{
    const int n = s->n;
    const int r = s->cur.r;
    const int f = n - r;
    int i;
    if (MCS_BANDED(s)) { /* its rhs leaves x'' itself in w.Z */
        mcs_mat_copy(n, 1, s->w.Z, n, s->w.a_end, n);
        return;
    }
    for (i = 0; i < n; ++i) {
        s->w.a_end[i] = (r > 0) ? s->w.Z[i] : MCS_R(0.0);
    }
    mcs_mat_gemm(0, 0, n, 1, f, 1, s->w.Phi, n, &k_last[f], MAX2(f, 1), 1, s->w.a_end, n);
}

mcs_status mcs_adaptive_first_stage(mcs_sim *s)
{
    mcs_status st = MCS_OK;
    s->w.g_cond_max = MCS_R(1.0);
    mcs_chart_start(s, s->w.y0);
    if (!first_stage_from_last(s, s->w.y0, s->w.k[0])) {
        st = mcs_chart_rhs(s, &s->cur, s->w.y0, s->cur.t, s->w.k[0]);
    }
    s->w.fsal = 0; /* used, or stale: the caller sets it again when this step is accepted */
    return st;
}

void mcs_adaptive_end(mcs_sim *s, const mcs_real *k_last)
{
    int i;
    if (s->w.a_end != NULL) {
        keep_last_acceleration(s, k_last);
        s->w.fsal_params = params_fingerprint(s);
    }
    for (i = 0; i < s->n; ++i) {
        s->prev.x[i] = s->w.xs[i];
        s->prev.x_lo[i] = s->w.x_lo[i];
        s->prev.v[i] = s->w.vs[i];
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
        axpy_stage(len, s->w.y0, h, j, DP_A[j - 1], k, y);
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
    return MCS_OK;
}

/* The chart Newton's start for dense output at the fraction th of the last step: p = U^T (x~ -
 * x_k), x~ the cubic Hermite of x through the step's ends (x_k, v_k, x_k+1, v_k+1). Near a
 * singular configuration the chart has two solutions close together, one on each branch, and
 * Newton from p = 0 could take the other one: P3's rows 1-2 ms from a crossing were off by up
 * to 1e-2. xs (n) is scratch. */
static void dense_warm_start(mcs_sim *s, mcs_real th, mcs_real *xs)
{
    const int n = s->n;
    const int r = s->prev.r;
    const mcs_real h = s->h_last;
    const mcs_real h10 = (((th - MCS_R(2.0)) * th) + MCS_R(1.0)) * th;
    const mcs_real h01 = (MCS_R(3.0) - (MCS_R(2.0) * th)) * th * th;
    const mcs_real h11 = (th - MCS_R(1.0)) * th * th;
    int i;
    int l;
    for (i = 0; i < n; ++i) { /* x~ - x_k (h00 + h01 = 1) */
        xs[i] = (h01 * (s->cur.x[i] - s->prev.x[i])) + (h10 * h * s->prev.v[i]) +
                (h11 * h * s->cur.v[i]);
    }
    if (MCS_BANDED(s)) { /* U^T applies the chart's rotations */
        mcs_banded_Ut(s, &s->prev, xs, s->w.p);
    }
#if MCS_WITH_COMPACT
    if (s->opt.compact != 0) { /* U^T applies the reflectors of the chart's factorization */
        const mcs_status ok = mcs_compact_ensure(s, &s->prev);
        if (ok == MCS_OK) {
            mcs_compact_Ut(s, &s->prev, xs);
        }
        for (i = 0; i < r; ++i) {
            s->w.p[i] = (ok == MCS_OK) ? xs[i] : MCS_R(0.0);
        }
    }
#endif
    /* p = U^T (x~ - x_k) of the default simulator: a loop, not a call (firmware stack) */
    for (i = 0; (i < r) && (s->opt.compact == 0) && !MCS_BANDED(s); ++i) {
        mcs_real sum = MCS_R(0.0);
        for (l = 0; l < n; ++l) {
            sum += s->prev.Q[l + (i * n)] * xs[l];
        }
        s->w.p[i] = sum;
    }
    s->w.pred_x = NULL; /* not the chart map's own first-order start from its last solution: the
                           event search leaves it at the singular point, where it is useless */
}

mcs_status mcs_dense_state(mcs_sim *s, mcs_real t, mcs_real *x, mcs_real *v)
{
    const int n = s->n;
    const int f = n - s->prev.r;
    const int len = 2 * f;
    const mcs_real h = s->h_last;
    mcs_real th;
    mcs_real th1;
    mcs_real *y = s->w.ys;
    int i;
    int j;
    if (!s->w.dense_ready || !(h > MCS_R(0.0)) ||
        !((t >= s->prev.t) && (t <= s->cur.t))) { /* NaN too */
        return MCS_ERR_NO_DENSE;
    }
    th = (t - s->prev.t) / h;
    th1 = MCS_R(1.0) - th;
    if (s->w.dense_ready == 2) {
        /* RK4: cubic Hermite of q from (q, qd) at both ends; qd from its derivative */
        const mcs_real h00 = (((MCS_R(2.0) * th) - MCS_R(3.0)) * th * th) + MCS_R(1.0);
        const mcs_real h10 = (((th - MCS_R(2.0)) * th) + MCS_R(1.0)) * th;
        const mcs_real h01 = (MCS_R(3.0) - (MCS_R(2.0) * th)) * th * th;
        const mcs_real h11 = (th - MCS_R(1.0)) * th * th;
        const mcs_real d00 = MCS_R(6.0) * th * (th - MCS_R(1.0));
        const mcs_real d10 = (((MCS_R(3.0) * th) - MCS_R(4.0)) * th) + MCS_R(1.0);
        const mcs_real d01 = -d00;
        const mcs_real d11 = ((MCS_R(3.0) * th) - MCS_R(2.0)) * th;
        for (i = 0; i < f; ++i) {
            const mcs_real q0 = s->w.y0[i];
            const mcs_real q1 = s->w.y1[i];
            const mcs_real v0 = s->w.y0[f + i];
            const mcs_real v1 = s->w.y1[f + i];
            y[i] = (h00 * q0) + (h10 * h * v0) + (h01 * q1) + (h11 * h * v1);
            y[f + i] = (((d00 * q0) + (d01 * q1)) / h) + (d10 * v0) + (d11 * v1);
        }
    }
#if MCS_WITH_DOP853
    if (s->w.dense_ready == 3) {
        const mcs_status st = mcs_dop853_dense(s, th, y);
        if (st != MCS_OK) {
            return st;
        }
    }
#endif
    for (i = 0; (i < len) && (s->w.dense_ready == 1); ++i) {
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
    dense_warm_start(s, th, x);
    return mcs_chart_map(s, &s->prev, y, &y[f], t, x, v);
}

mcs_status mcs_sim_dense(mcs_sim *s, mcs_real t, mcs_real *x, mcs_real *v, mcs_real *q,
                         mcs_real *qd)
{
    mcs_status st;
    if (!s || !s->ready || !x || !v) {
        return MCS_ERR_ARGUMENT;
    }
    if ((q || qd) && ((s->probe.Q == NULL) || (s->opt.compact != 0))) {
        return MCS_ERR_UNSUPPORTED; /* assigned without dense_output, or compact */
    }
    st = mcs_dense_state(s, t, x, v);
    if (st != MCS_OK) {
        return st;
    }
    if ((mcs_vec_max_abs(s->n, x) < MCS_R(0.0)) || (mcs_vec_max_abs(s->n, v) < MCS_R(0.0))) {
        return MCS_ERR_NONFINITE;
    }
    if (q != NULL) { /* the chart coordinate there (w.ys, before the probe's scratch use) */
        mcs_q_carry(s->n - s->prev.r, s->prev.q, s->w.ys, s->n - s->prev.r, q);
    }
    if (q || qd) {
        const int n = s->n;
        mcs_frame *pr = &s->probe;
        st = mcs_probe_factor(s, t, x, v);
        if (st != MCS_OK) {
            return st;
        }
        st = mcs_frame_continue_basis(s, &s->prev, t - s->prev.t, pr);
        if (st != MCS_OK) {
            return st;
        }
        if (q != NULL) { /* the probe may count more free directions than the chart */
            mcs_q_carry(n - s->prev.r, q, NULL, n - pr->r, q);
        }
        if (qd != NULL) {
            mcs_mat_gemm(1, 0, n - pr->r, 1, n, 1, pr->T, n, v, n, 0, qd, n);
        }
    }
    return MCS_OK;
}
