/* mcs_statics_step.c - the Newton step of the static equilibrium at an iterate (mcs_statics.c
 * iterates): residuals and the factorization of A^T, the stiffness, the minimum-norm, tangent-space
 * and saddle-point steps. */
#include "linalg/mcs_linalg.h"
#include "analysis/mcs_statics_internal.h"

mcs_real mcs_statics_max_abs(int len, const mcs_real *a)
{
    return mcs_vec_max_abs(len, a);
}

mcs_real mcs_statics_sum_sq(int len, const mcs_real *a)
{
    mcs_real s = MCS_R(0.0);
    int i;
    for (i = 0; i < len; ++i) {
        s += a[i] * a[i];
    }
    return s;
}

/* c, A, f at x; the factorization of A^T; lambda (least squares unless keep_lambda) and
 * rf = f - A^T lambda. Returns the status; *merit = |c|^2 + (|rf| scale)^2. */
mcs_status mcs_statics_evaluate(const mcs_model *md, const void *p, const mcs_statics_options *opt,
                                statics_ws *w, const mcs_real *x, mcs_real *lambda, int keep_lambda,
                                mcs_real scale, mcs_real *merit)
{
    const int n = w->n;
    const int m = w->m;
    mcs_status st;
    int i;
    if (m > 0) {
        md->c(x, opt->t, p, w->c);
        md->A(x, opt->t, p, w->A);
    }
    md->f(x, w->zero, opt->t, p, w->f);
    w->rank = 0;
    if (m == 0) { /* no rows: the tangent basis is the identity (QR never writes it) */
        for (i = 0; i < (n * n); ++i) {
            w->Q[i] = ((i % (n + 1)) == 0) ? MCS_R(1.0) : MCS_R(0.0);
        }
    } else {
        st = mcs_qr_basis(n, m, w->A, m, opt->rank_tol, w->Q, w->R, w->piv, &w->rank, w->bwork);
        if (st != MCS_OK) {
            return st;
        }
        if (w->rank > w->rank_max) {
            w->rank = w->rank_max; /* the trailing pivots: the rows least independent here */
        }
        if (!keep_lambda) {
            st = mcs_min_norm_multipliers(n, m, w->rank, w->Q, w->R, w->piv, w->f, lambda, w->N,
                                          w->y);
            if (st != MCS_OK) {
                return st;
            }
        }
    }
    for (i = 0; i < n; ++i) {
        w->rf[i] = w->f[i];
    }
    if (m > 0) {
        mcs_mat_gemm(1, 0, n, 1, m, -1, w->A, m, lambda, m, 1, w->rf, n);
    }
    if ((mcs_statics_max_abs(m, w->c) < MCS_R(0.0)) ||
        (mcs_statics_max_abs(n, w->rf) < MCS_R(0.0)) ||
        (mcs_statics_max_abs(m, lambda) < MCS_R(0.0))) {
        return MCS_ERR_NONFINITE;
    }
    *merit = mcs_statics_sum_sq(m, w->c) + (mcs_statics_sum_sq(n, w->rf) * scale * scale);
    return MCS_OK;
}

/* LU of the (k x k) matrix J in place; 1 when it is singular relative to its largest entry. */
static int lu_singular(int k, mcs_real *J, int *ipiv)
{
    const mcs_real big = mcs_statics_max_abs(k * k, J);
    mcs_real small;
    int i;
    if (!(big > MCS_R(0.0))) {
        return 1;
    }
    if (mcs_la_lu(k, J, k, ipiv) != 0) {
        return 1;
    }
    small = mcs_fabs(J[0]);
    for (i = 1; i < k; ++i) {
        if (mcs_fabs(J[i + (i * k)]) < small) {
            small = mcs_fabs(J[i + (i * k)]);
        }
    }
    return small <= (100 * k * MCS_REAL_EPS * big);
}

/* K = K_f (+ K_c(lambda)) at x, v = 0. */
void mcs_statics_stiffness(const mcs_model *md, const void *p, const mcs_statics_options *opt,
                           statics_ws *w, const mcs_real *x, const mcs_real *lambda)
{
    const size_t nn = (size_t)w->n * (size_t)w->n;
    size_t i;
    md->K_f(x, w->zero, opt->t, p, w->K);
    if (opt->use_kc && (w->m > 0)) {
        md->K_c(x, lambda, opt->t, p, w->Kc);
        for (i = 0; i < nn; ++i) {
            w->K[i] += w->Kc[i];
        }
    }
}

/* Continue the caller's basis to the state last evaluated: the polar alignment of its QR basis
 * to the previous T (the simulator's continuation with a zero-velocity prediction). */
mcs_status mcs_statics_continue_basis(const mcs_statics_options *opt, statics_ws *w)
{
    const int n = w->n;
    const int f = n - w->rank;
    const mcs_real *That = &w->Q[(size_t)w->rank * (size_t)n];
    mcs_real *Tout = w->Kc; /* free until the next mcs_statics_stiffness() */
    size_t i;
    if (*opt->basis_cols <= 0) {
        for (i = 0; i < ((size_t)n * (size_t)f); ++i) {
            opt->basis[i] = That[i];
        }
    } else {
        if (*opt->basis_cols > n) {
            return MCS_ERR_ARGUMENT;
        }
        if ((f > 0) &&
            (mcs_align_basis(n, *opt->basis_cols, opt->basis, f, That, Tout, w->bwork) != MCS_OK)) {
            return MCS_ERR_LINALG;
        }
        for (i = 0; i < ((size_t)n * (size_t)f); ++i) {
            opt->basis[i] = Tout[i];
        }
    }
    *opt->basis_cols = f;
    return MCS_OK;
}

/* The minimum-norm step dx (n) with A_S dx = -c_S on the independent rows S at the state last
 * evaluated (the normal part of the tangent step): (R11^T a = -(P^T c)[:r], dx = U a). */
void mcs_statics_normal_step(statics_ws *w)
{
    const int n = w->n;
    const int r = w->rank;
    mcs_real *a = w->y;
    int i;
    for (i = 0; i < r; ++i) {
        a[i] = -w->c[w->piv[i]];
    }
    if (r > 0) {
        mcs_mat_solve_upper_transposed(r, w->R, n, a);
    }
    for (i = 0; i < n; ++i) {
        w->dx[i] = MCS_R(0.0);
    }
    if (r > 0) {
        mcs_mat_gemm(0, 0, n, 1, r, 1, w->Q, n, a, r, 0, w->dx, n);
    }
}

/* The tangent-space Newton step dx (n) at the state last evaluated, with the tangent basis T
 * (n x f): the caller's continued one, or the QR basis. */
mcs_status mcs_statics_tangent_step(statics_ws *w, const mcs_real *basis)
{
    const int n = w->n;
    const int r = w->rank;
    const int f = n - r;
    const mcs_real *T = (basis != NULL) ? basis : &w->Q[(size_t)r * (size_t)n];
    mcs_real *KT = w->Kc;
    mcs_real *g = w->xt;
    int i;
    mcs_statics_normal_step(w); /* A U a = -c on the r independent rows */
    if (f == 0) {
        return MCS_OK;
    }
    /* tangent part: (T^T K T) b = T^T (rf - K dx_n) */
    for (i = 0; i < n; ++i) {
        g[i] = w->rf[i];
    }
    mcs_mat_gemm(0, 0, n, 1, n, -1, w->K, n, w->dx, n, 1, g, n);
    mcs_mat_gemm(0, 0, n, f, n, 1, w->K, n, T, n, 0, KT, n);
    mcs_mat_gemm(1, 0, f, f, n, 1, T, n, KT, n, 0, w->J, f);
    if (lu_singular(f, w->J, w->ipiv) != 0) {
        return MCS_ERR_SINGULAR_JACOBIAN;
    }
    mcs_mat_gemm(1, 0, f, 1, n, 1, T, n, g, n, 0, w->N, f);
    (void)mcs_la_lu_solve(f, 1, w->J, f, w->ipiv, w->N, f);
    mcs_mat_gemm(0, 0, n, 1, f, 1, T, n, w->N, f, 1, w->dx, n);
    return MCS_OK;
}

/* The saddle-point Newton step (dx, dlambda) ((n + m)) at the state last evaluated. */
mcs_status mcs_statics_kkt_step(statics_ws *w)
{
    const int n = w->n;
    const int m = w->m;
    const int k = n + m;
    int i;
    int j;
    for (j = 0; j < k; ++j) {
        for (i = 0; i < k; ++i) {
            mcs_real v = MCS_R(0.0);
            if ((i < n) && (j < n)) {
                v = w->K[i + (j * n)];
            } else if ((i < n) && (j >= n)) {
                v = w->A[(j - n) + (i * m)]; /* A^T */
            } else if ((i >= n) && (j < n)) {
                v = w->A[(i - n) + (j * m)];
            } else {
                /* the lower-right block is zero */
            }
            w->J[i + (j * k)] = v;
        }
    }
    for (i = 0; i < n; ++i) {
        w->dx[i] = w->rf[i];
    }
    for (i = 0; i < m; ++i) {
        w->dx[n + i] = -w->c[i];
    }
    if (lu_singular(k, w->J, w->ipiv) != 0) {
        return MCS_ERR_SINGULAR_JACOBIAN;
    }
    (void)mcs_la_lu_solve(k, 1, w->J, k, w->ipiv, w->dx, k);
    return MCS_OK;
}
