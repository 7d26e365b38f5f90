/* mcs_inverse.c - forward and inverse dynamics at any state (mcs_sim.h): a controller's
 * feed-forward. The accelerations are affine in the inputs, x''(u) = x''(0) + D u with
 * D = T (T^T M T)^-1 T^T B (T the tangent basis at x, B the input map), so D is exact from one
 * forward solve, its factorization and nu evaluations of the input map, and the inverse is a
 * least-squares problem of minimum norm. */
#include "sim/mcs_stages.h"

/* x'' at (t, x, v) under the inputs u (nu), the sim's own restored after. */
static mcs_status accelerations(mcs_sim *s, mcs_real t, const mcs_real *x, const mcs_real *v,
                                const mcs_real *u, mcs_real *xdd, mcs_real *lambda)
{
    mcs_real keep[(MCS_MAX_INPUTS > 0) ? MCS_MAX_INPUTS : 1];
    const int keep_on = s->inputs_on;
    const int nu = s->model->nu;
    mcs_status st;
    int i;
    int on = 0;
    for (i = 0; i < nu; ++i) {
        keep[i] = s->u[i];
        s->u[i] = u[i];
        on |= (u[i] != MCS_R(0.0)) ? 1 : 0;
    }
    s->inputs_on = on;
    st = mcs_dynamics_at(s, t, x, v, xdd, lambda);
    for (i = 0; i < nu; ++i) {
        s->u[i] = keep[i];
    }
    s->inputs_on = keep_on;
    return st;
}

mcs_status mcs_sim_forward_dynamics(mcs_sim *s, mcs_real t, const mcs_real *x, const mcs_real *v,
                                    const mcs_real *u, mcs_real *xdd, mcs_real *lambda)
{
    if (!s || !s->ready || !x || !v || !xdd || ((s->m > 0) && !lambda)) {
        return MCS_ERR_ARGUMENT;
    }
    if ((u != NULL) && (s->model->nu > 0) && (mcs_vec_max_abs(s->model->nu, u) < MCS_R(0.0))) {
        return MCS_ERR_ARGUMENT;
    }
    return accelerations(s, t, x, v, (u != NULL) ? u : s->u, xdd, lambda);
}

/* D (n x nu) = dx''/du = T (T^T M T)^-1 T^T B at (t, x), T the probe frame's basis (factored at x
 * by the forward solve before): one Cholesky factorization of the reduced mass matrix instead of
 * a forward solve per input. M, Mr (n x n), y, z (n) and unit (nu) are scratch. */
static mcs_status input_map(mcs_sim *s, mcs_real t, const mcs_real *x, mcs_real *D, mcs_real *M,
                            mcs_real *Mr, mcs_real *y, mcs_real *z, mcs_real *unit)
{
    const mcs_model *md = s->model;
    const int n = s->n;
    const int nu = md->nu;
    const int f = n - s->probe.r;
    int i;
    int j;
    int k;
    for (i = 0; i < (n * nu); ++i) {
        D[i] = MCS_R(0.0);
    }
    if (f == 0) {
        return MCS_OK; /* no motion: no input moves anything */
    }
    md->M(x, t, s->params, M);
    for (j = 0; j < f; ++j) { /* Mr = T^T M T, column by column */
        for (i = 0; i < f; ++i) {
            z[i] = (i == j) ? MCS_R(1.0) : MCS_R(0.0);
        }
        mcs_frame_T(s, &s->probe, z, y);
        mcs_mat_gemm(0, 0, n, 1, n, 1, M, n, y, n, 0, z, n);
        mcs_frame_Tt(s, &s->probe, z, &Mr[(size_t)j * (size_t)f]);
    }
    if (mcs_la_cholesky(f, Mr, f) != 0) {
        return MCS_ERR_MASS_NOT_PD;
    }
    for (k = 0; k < nu; ++k) { /* column k: T Mr^-1 T^T B e_k */
        for (i = 0; i < nu; ++i) {
            unit[i] = (i == k) ? MCS_R(1.0) : MCS_R(0.0);
        }
        md->f_u(x, unit, t, s->params, y);
        mcs_frame_Tt(s, &s->probe, y, z);
        if (mcs_la_cholesky_solve(f, 1, Mr, f, z, f) != 0) {
            return MCS_ERR_LINALG;
        }
        mcs_frame_T(s, &s->probe, z, &D[(size_t)k * (size_t)n]);
    }
    return (mcs_vec_max_abs(n * nu, D) < MCS_R(0.0)) ? MCS_ERR_NONFINITE : MCS_OK;
}

mcs_status mcs_sim_inverse_dynamics(mcs_sim *s, mcs_real t, const mcs_real *x, const mcs_real *v,
                                    const mcs_real *xdd, mcs_real *u, mcs_inverse_report *report,
                                    mcs_real *work, size_t lwork)
{
    size_t at = 0;
    int n;
    int nu;
    int k;
    int i;
    int kmin;
    int rank = 0;
    int need;
    int rows;
    int la_size;
    mcs_real *D;
    mcs_real *Dsvd;
    mcs_real *U;
    mcs_real *Mr;
    mcs_real *VT;
    mcs_real *sv;
    mcs_real *a0;
    mcs_real *b;
    mcs_real *c;
    mcs_real *e;
    mcs_real *lambda;
    mcs_real *la_work;
    mcs_real normal2 = MCS_R(0.0);
    mcs_real resid2 = MCS_R(0.0);
    mcs_status st;
    if (!s || !s->ready || !x || !v || !xdd || !u || !report || !work) {
        return MCS_ERR_ARGUMENT;
    }
    n = s->n;
    nu = s->model->nu;
    if ((nu == 0) || (mcs_variant_own_multipliers(s) != 0)) {
        return MCS_ERR_UNSUPPORTED; /* no inputs, or a variant without the probe's basis */
    }
    need = MCS_SIM_INVERSE_WORK_SIZE(n, s->m, nu);
    if (lwork < (size_t)need) {
        return MCS_ERR_WORKSPACE;
    }
    if (mcs_vec_max_abs(n, xdd) < MCS_R(0.0)) {
        return MCS_ERR_ARGUMENT;
    }
    kmin = MIN2(n, nu);
    rows = MAX2(s->m, 1);
    la_size = MCS_LINALG_LWORK(MAX2(n, nu));
    D = mcs_work_next(work, &at, (size_t)n * (size_t)nu);    /* (n x nu) dx''/du */
    Dsvd = mcs_work_next(work, &at, (size_t)n * (size_t)nu); /* its SVD's copy */
    U = mcs_work_next(work, &at, (size_t)n * (size_t)n);     /* M first (input_map) */
    Mr = mcs_work_next(work, &at, (size_t)n * (size_t)n);    /* (f x f) T^T M T */
    VT = mcs_work_next(work, &at, (size_t)nu * (size_t)nu);
    a0 = mcs_work_next(work, &at, (size_t)n);      /* x''(0) */
    b = mcs_work_next(work, &at, (size_t)n);       /* xdd - x''(0) */
    c = mcs_work_next(work, &at, (size_t)n);       /* a column's x'' */
    sv = mcs_work_next(work, &at, (size_t)n);      /* (min(n, nu)) singular values */
    e = mcs_work_next(work, &at, (size_t)nu * 2U); /* a unit input, then Sigma^+ U^T b */
    lambda = mcs_work_next(work, &at, (size_t)rows);
    la_work = mcs_work_next(work, &at, (size_t)la_size);
    for (k = 0; k < nu; ++k) {
        e[k] = MCS_R(0.0);
    }
    st = accelerations(s, t, x, v, e, a0, lambda); /* x''(0), and the probe factored at x */
    if (st == MCS_OK) {
        st = input_map(s, t, x, D, U, Mr, b, c, e);
    }
    if (st != MCS_OK) {
        return st;
    }
    report->dof = n - s->probe.r;
    for (i = 0; i < n; ++i) {
        b[i] = xdd[i] - a0[i];
    }
    mcs_mat_copy(n, nu, D, n, Dsvd, n);
    if (mcs_la_svd(n, nu, Dsvd, n, sv, U, n, VT, nu, la_work, la_size) != 0) {
        return MCS_ERR_LINALG;
    }
    for (k = 0; k < kmin; ++k) { /* rank relative to the largest singular value */
        rank += (sv[k] > (s->opt.rank_tol * sv[0])) ? 1 : 0;
    }
    report->rank = rank;
    if ((rank == 0) || !(sv[0] > MCS_R(0.0))) {
        return MCS_ERR_UNACTUATED;
    }
    mcs_mat_gemm(1, 0, n, 1, n, 1, U, n, b, n, 0, c, n); /* c = U^T b */
    for (k = 0; k < rank; ++k) {
        e[nu + k] = c[k] / sv[k];
    }
    for (i = 0; i < nu; ++i) { /* u = V Sigma^+ U^T b = VT^T (first rank) */
        mcs_real sum = MCS_R(0.0);
        for (k = 0; k < rank; ++k) {
            sum += VT[k + (i * nu)] * e[nu + k];
        }
        u[i] = sum;
    }
    for (k = rank; k < n; ++k) { /* what U's first rank columns leave of b */
        resid2 += c[k] * c[k];
    }
    /* of that, the part normal to the tangent space: |b - T T^T b| (T of the probe frame,
     * factored at x by the solves above; a0 and c are free now) */
    mcs_frame_Tt(s, &s->probe, b, a0);
    mcs_frame_T(s, &s->probe, a0, c);
    for (i = 0; i < n; ++i) {
        normal2 += (b[i] - c[i]) * (b[i] - c[i]);
    }
    report->residual = mcs_sqrt(resid2);
    report->normal = mcs_sqrt(normal2);
    return MCS_OK;
}
