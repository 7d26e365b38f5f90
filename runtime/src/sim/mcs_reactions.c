/* mcs_reactions.c - constraint multipliers (joint reactions), minimum-norm over dependent rows. */

#include "sim/mcs_sim_internal.h"

mcs_status mcs_sim_multipliers(mcs_sim *s, mcs_real t, const mcs_real *x, const mcs_real *v,
                               mcs_real *lambda)
{
    const int n = (s != NULL) ? s->n : 0;
    const int m = (s != NULL) ? s->m : 0;
    mcs_frame *pr;
    mcs_real *y;
    mcs_real *ydot;
    mcs_real *g = s ? s->w.vs : NULL;
    mcs_status st;
    int i;
    int r;
    int f;
    if (!s || !s->ready || !x || !v || !lambda) {
        return MCS_ERR_ARGUMENT;
    }
    if (m == 0) {
        return MCS_OK;
    }
    if (mcs_variant_own_multipliers(s) != 0) {
        return mcs_variant_multipliers(s, t, x, v, lambda); /* e.g. its KKT system's lambda */
    }
    if ((mcs_variant_has_probe(s) == 0) || (s->w.yerr == NULL)) {
        return MCS_ERR_UNSUPPORTED; /* assigned without dense_output, or a variant without it */
    }
    pr = &s->probe;
    st = mcs_probe_factor(s, t, x, v);
    if (st != MCS_OK) {
        return st;
    }
    r = pr->r;
    f = n - r;
    /* accelerations from the chart centred here: y = (0, T^T v) */
    y = s->w.ys;
    ydot = s->w.yerr;
    for (i = 0; i < f; ++i) {
        y[i] = MCS_R(0.0);
    }
    mcs_mat_gemm(1, 0, f, 1, n, 1, pr->T, n, v, n, 0, &y[f], MAX2(f, 1));
    for (i = 0; i < r; ++i) {
        s->w.p[i] = MCS_R(0.0);
    }
    st = mcs_chart_rhs(s, pr, y, t, ydot);
    if (st != MCS_OK) {
        return st;
    }
    /* g = f - M xdd = (f - M beta) - (M Phi) qdd; mcs_chart_rhs left f - M beta in w.rhs */
    for (i = 0; i < n; ++i) {
        g[i] = s->w.rhs[i];
    }
    mcs_mat_gemm(0, 0, n, 1, f, -1, s->w.MPhi, n, &ydot[f], MAX2(f, 1), 1, g, n);
    st = mcs_min_norm_multipliers(n, m, r, pr->Q, pr->R, pr->piv, g, lambda, s->w.G, s->w.tmp);
    if ((st == MCS_OK) && (mcs_vec_max_abs(m, lambda) < MCS_R(0.0))) {
        return MCS_ERR_NONFINITE; /* overflow in the solve */
    }
    return st;
}
