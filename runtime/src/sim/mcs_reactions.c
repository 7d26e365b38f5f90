/* mcs_reactions.c - constraint multipliers (joint reactions), minimum-norm over dependent rows. */

#include "sim/mcs_stages.h"

/* x'' (n, may be NULL) and the multipliers (m, may be NULL) at (t, x, v), from the chart centred
 * there: qdd from the reduced dynamics, x'' = Phi qdd + beta, lambda the minimum-norm solution of
 * A^T lambda = f - M x''. */
static mcs_status solve_at(mcs_sim *s, mcs_real t, const mcs_real *x, const mcs_real *v,
                           mcs_real *xdd, mcs_real *lambda)
{
    const int n = s->n;
    const int m = s->m;
    mcs_frame *pr = &s->probe;
    mcs_real *y = s->w.ys;
    mcs_real *ydot = s->w.yerr;
    mcs_real *g = s->w.vs;
    mcs_status st;
    int i;
    int r;
    int f;
    if ((mcs_variant_has_probe(s) == 0) || (s->w.yerr == NULL)) {
        return MCS_ERR_UNSUPPORTED; /* assigned without dense_output, or a variant without it */
    }
    st = mcs_probe_factor(s, t, x, v);
    if (st != MCS_OK) {
        return st;
    }
    r = pr->r;
    f = n - r;
    /* accelerations from the chart centred here: y = (0, T^T v) */
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
    if (xdd != NULL) { /* Phi qdd + beta (beta in w.Z, 0 without rows; Phi = I unwritten) */
        if (mcs_chart_identity(s, pr) != 0) {
            for (i = 0; i < n; ++i) {
                xdd[i] = ydot[f + i];
            }
        } else {
            for (i = 0; i < n; ++i) {
                xdd[i] = (r > 0) ? s->w.Z[i] : MCS_R(0.0);
            }
            mcs_mat_gemm(0, 0, n, 1, f, 1, s->w.Phi, n, &ydot[f], MAX2(f, 1), 1, xdd, n);
        }
    }
    if ((lambda == NULL) || (m == 0)) {
        return MCS_OK;
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

mcs_status mcs_dynamics_at(mcs_sim *s, mcs_real t, const mcs_real *x, const mcs_real *v,
                           mcs_real *xdd, mcs_real *lambda)
{
    if (mcs_variant_own_multipliers(s) != 0) { /* e.g. both from its KKT system */
        return mcs_variant_multipliers(s, t, x, v, xdd, lambda);
    }
    return solve_at(s, t, x, v, xdd, lambda);
}

mcs_status mcs_sim_multipliers(mcs_sim *s, mcs_real t, const mcs_real *x, const mcs_real *v,
                               mcs_real *lambda)
{
    if (!s || !s->ready || !x || !v || !lambda) {
        return MCS_ERR_ARGUMENT;
    }
    if (s->m == 0) {
        return MCS_OK;
    }
    if (mcs_variant_own_multipliers(s) != 0) {
        return mcs_variant_multipliers(s, t, x, v, NULL, lambda); /* e.g. its KKT system's */
    }
    return solve_at(s, t, x, v, NULL, lambda);
}

mcs_status mcs_sim_joint_wrenches(mcs_sim *s, mcs_real t, const mcs_real *x, const mcs_real *v,
                                  mcs_real *w, mcs_real *wrench)
{
    int i;
    mcs_real *nu;
    mcs_status st;
    if (!s || !s->ready || !x || !v || !w || !wrench) {
        return MCS_ERR_ARGUMENT;
    }
    if (s->model->joint_wrenches == NULL) {
        return MCS_ERR_UNSUPPORTED;
    }
    st = mcs_dynamics_at(s, t, x, v, &w[s->n], &w[2 * s->n]);
    if (st != MCS_OK) {
        return st;
    }
    for (i = 0; i < s->n; ++i) {
        w[i] = v[i];
    }
    /* the locks' multipliers (after the model's nc) as the row groups' nu, put in their place */
    nu = &w[(2 * s->n) + s->m];
    mcs_lock_group_multipliers(s, &w[(2 * s->n) + s->model->nc], nu);
    for (i = 0; i < s->model->nmu; ++i) {
        w[(2 * s->n) + s->model->nc + i] = nu[i];
    }
#if MCS_MAX_INPUTS > 0
    for (i = 0; i < s->model->nu; ++i) { /* the inputs: their forces are not the joints' */
        w[(2 * s->n) + s->model->nc + s->model->nmu + i] = s->u[i];
    }
#endif
    s->model->joint_wrenches(x, w, t, s->params, wrench);
    if (mcs_vec_max_abs(s->model->nw, wrench) < MCS_R(0.0)) {
        return MCS_ERR_NONFINITE;
    }
    return MCS_OK;
}

mcs_status mcs_sim_outputs(mcs_sim *s, mcs_real t, const mcs_real *x, const mcs_real *v,
                           mcs_real *w, mcs_real *y)
{
    int i;
    if (!s || !s->ready || !x || !v || !w || ((s->model->ny > 0) && !y)) {
        return MCS_ERR_ARGUMENT;
    }
    if (s->model->ny == 0) {
        return MCS_OK;
    }
    if (s->model->outputs == NULL) {
        return MCS_ERR_UNSUPPORTED;
    }
    for (i = 0; i < s->n; ++i) {
        w[i] = v[i];
    }
#if MCS_MAX_INPUTS > 0
    for (i = 0; i < s->model->nu; ++i) { /* the inputs held now */
        w[s->n + i] = (s->inputs_on != 0) ? s->u[i] : MCS_R(0.0);
    }
#endif
    s->model->outputs(x, w, t, s->params, y);
    if (mcs_vec_max_abs(s->model->ny, y) < MCS_R(0.0)) {
        return MCS_ERR_NONFINITE;
    }
    return MCS_OK;
}
