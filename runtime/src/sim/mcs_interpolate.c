/* mcs_interpolate.c - the state inside the last accepted step (dense output, mcs_sim_dense): the
 * method's interpolant of the chart coordinates (mcs_method_interpolate), mapped onto the
 * manifold from a warm start on the chart's branch, and the minimal coordinates there. */

#include "sim/mcs_stages.h"

/* The chart Newton's start for dense output at the fraction th of the last step: p = U^T (x~ -
 * x_k), x~ the cubic Hermite of x through the step's ends (x_k, v_k, x_k+1, v_k+1). Near a
 * singular configuration the chart has two solutions close together, one on each branch, and
 * Newton from p = 0 could take the other one: P3's rows 1-2 ms from a crossing were off by up
 * to 1e-2. xs (n) is scratch. */
static void dense_warm_start(mcs_sim *s, mcs_real th, mcs_real *xs)
{
    const int n = s->n;
    const mcs_real h = s->h_last;
    const mcs_real h10 = (((th - MCS_R(2.0)) * th) + MCS_R(1.0)) * th;
    const mcs_real h01 = (MCS_R(3.0) - (MCS_R(2.0) * th)) * th * th;
    const mcs_real h11 = (th - MCS_R(1.0)) * th * th;
    int i;
    for (i = 0; i < n; ++i) { /* x~ - x_k (h00 + h01 = 1) */
        xs[i] = (h01 * (s->cur.x[i] - s->prev.x[i])) + (h10 * h * s->prev.v[i]) +
                (h11 * h * s->cur.v[i]);
    }
    mcs_chart_Ut_p(s, &s->prev, xs); /* p = U^T (x~ - x_k) */
    s->w.pred_x = NULL; /* not the chart map's own first-order start from its last solution: the
                           event search leaves it at the singular point, where it is useless */
}

mcs_status mcs_interpolated_state(mcs_sim *s, mcs_real t, mcs_real *x, mcs_real *v)
{
    const int f = s->n - s->prev.r;
    const mcs_real h = s->h_last;
    mcs_real th;
    mcs_real *y = s->w.ys;
    mcs_status st;
    if (!s->w.interp_ready || !(h > MCS_R(0.0)) ||
        !((t >= s->prev.t) && (t <= s->cur.t))) { /* NaN too */
        return MCS_ERR_NO_DENSE;
    }
    th = (t - s->prev.t) / h;
    st = mcs_method_interpolate(s, s->w.interp_method, th, y);
    if (st != MCS_OK) {
        return st;
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
    if ((q || qd) && (mcs_variant_has_probe(s) == 0)) {
        return MCS_ERR_UNSUPPORTED; /* assigned without dense_output, or a variant without it */
    }
    st = mcs_interpolated_state(s, t, x, v);
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
