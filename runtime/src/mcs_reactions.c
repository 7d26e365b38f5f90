/* mcs_reactions.c - constraint multipliers (joint reactions), minimum-norm over dependent rows. */

#include "mcs_sim_internal.h"

mcs_status mcs_sim_multipliers(mcs_sim *s, mcs_real t, const mcs_real *x, const mcs_real *v,
                               mcs_real *lambda)
{
    const int n = s ? s->n : 0, m = s ? s->m : 0;
    mcs_frame *pr;
    mcs_real *y, *ydot, *g = s ? s->w.vs : NULL, *mu, *N;
    mcs_status st;
    int i, j, l, r, f;
    if (!s || !x || !v || !lambda)
        return MCS_ERR_ARGUMENT;
    if (m == 0)
        return MCS_OK;
    pr = &s->probe;
    if ((st = mcs_probe_factor(s, t, x, v)) != MCS_OK)
        return st;
    r = pr->r;
    f = n - r;
    /* accelerations from the chart centred here: y = (0, T^T v) */
    y = s->w.ys;
    ydot = s->w.yerr;
    for (i = 0; i < f; ++i)
        y[i] = 0;
    mcs_mat_gemm(1, 0, f, 1, n, 1, pr->Q + r * n, n, v, n, 0, y + f, MAX2(f, 1));
    for (i = 0; i < r; ++i)
        s->w.p[i] = 0;
    if ((st = mcs_chart_rhs(s, pr, y, t, ydot)) != MCS_OK)
        return st;
    /* g = f - M xdd = (f - M beta) - (M Phi) qdd; mcs_chart_rhs left f - M beta in w.rhs */
    for (i = 0; i < n; ++i)
        g[i] = s->w.rhs[i];
    mcs_mat_gemm(0, 0, n, 1, f, -1, s->w.MPhi, n, ydot + f, MAX2(f, 1), 1, g, n);
    for (i = 0; i < m; ++i)
        lambda[i] = 0;
    if (r == 0)
        return MCS_OK;
    /* A^T P = Q R: with mu = P^T lambda and R1 = R[:r, :] (r x m), R1 mu = U^T g; the
     * minimum-norm mu = R1^T (R1 R1^T)^-1 U^T g */
    mu = s->w.c;
    N = s->w.G;
    mcs_mat_gemm(1, 0, r, 1, n, 1, pr->Q, n, g, n, 0, s->w.tmp, r);
    for (j = 0; j < r; ++j)
        for (i = 0; i < r; ++i) {
            mcs_real sum = 0;
            for (l = 0; l < m; ++l)
                if (l >= i && l >= j) /* R is upper triangular */
                    sum += pr->R[i + l * n] * pr->R[j + l * n];
            N[i + j * r] = sum;
        }
    if (mcs_la_cholesky(r, N, r) != 0)
        return MCS_ERR_SINGULAR_CHART;
    mcs_la_cholesky_solve(r, 1, N, r, s->w.tmp, r);
    for (l = 0; l < m; ++l) {
        mcs_real sum = 0;
        for (i = 0; i < r && i <= l; ++i)
            sum += pr->R[i + l * n] * s->w.tmp[i];
        mu[l] = sum;
    }
    for (l = 0; l < m; ++l)
        lambda[pr->piv[l]] = mu[l];
    return mcs_vec_max_abs(m, lambda) < 0 ? MCS_ERR_NONFINITE : MCS_OK;
}
