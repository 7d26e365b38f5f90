/* mcs_transition.c - momentum-consistent velocity jumps at constraint activation (004 §5,
 * SPEC §7): the minimal-coordinate form with the continued basis (default), the full and the
 * projected forms as cross-checks, and the naive projection for comparisons. */
#include "mcs/mcs_transition.h"

#include "linalg/mcs_linalg.h"

#define MAX2(a, b) (((a) > (b)) ? (a) : (b))

/* 1/2 v' M v */
static mcs_real kinetic(int n, const mcs_real *M, const mcs_real *v)
{
    mcs_real s = MCS_R(0.0);
    int i;
    int j;
    for (j = 0; j < n; ++j) {
        for (i = 0; i < n; ++i) {
            s += v[i] * M[i + (j * n)] * v[j];
        }
    }
    return s / MCS_R(2.0);
}

/* Pivot-ratio test of an LU factor (k x k): nearly singular systems are refused, not solved. */
static int lu_is_singular(int k, const mcs_real *lu)
{
    mcs_real pmax = MCS_R(0.0);
    mcs_real pmin;
    int i;
    for (i = 0; i < k; ++i) {
        pmax = MAX2(pmax, mcs_fabs(lu[i + (i * k)]));
    }
    pmin = pmax;
    for (i = 0; i < k; ++i) {
        if (mcs_fabs(lu[i + (i * k)]) < pmin) {
            pmin = mcs_fabs(lu[i + (i * k)]);
        }
    }
    return !(pmin > (MCS_R(1000.0) * MCS_REAL_EPS * pmax));
}

/* The shared workspace layout (k = n + m1 + m2 + 1). */
typedef struct jump_work {
    mcs_real *big;   /* (k x k) B, the saddle-point systems */
    mcs_real *sq1;   /* (k x k) Tbar = T'MT, projector */
    mcs_real *sq2;   /* (k x k) Q of (J2 T)', M T, Cholesky of M */
    mcs_real *sq3;   /* (k x k) R of (J2 T)', the projector's factors */
    mcs_real *sq4;   /* (k x k) Tbar N */
    mcs_real *vec;   /* (8 k) vectors */
    mcs_real *basis; /* mcs_qr_basis work */
    int *piv;
    int *ipiv; /* (k) each */
} jump_work;

/* Null-space method in the coordinates s of T (n x f): with (J2 T)' P = Q R of rank r and
 * N = Q[:, r:], s+ = N (N' Tbar N)^-1 N' (Tbar s- + T'U); the impulse is the minimum-norm
 * solution of (J2 T)' L2 = T'U - Tbar ds. naive: s+ = N N' s- and no impulse. */
static mcs_status jump_minimal(int naive, int n, const mcs_real *M, int f, const mcs_real *T,
                               int m2, const mcs_real *J2, const mcs_real *v, const mcs_real *U,
                               mcs_real rank_tol, mcs_real *dv, mcs_real *lambda2,
                               mcs_jump_report *rep, jump_work *w)
{
    mcs_real *B = w->big;
    mcs_real *Tbar = w->sq1;
    mcs_real *Q = w->sq2;
    mcs_real *R = w->sq3;
    mcs_real *NMN = w->big;
    mcs_real *MN = w->sq4;
    mcs_real *s = w->vec;
    mcs_real *u = &s[n + 1];
    mcs_real *z = &u[n + 1];
    mcs_real *g = &z[n + 1];
    mcs_real *ds = &g[n + 1];
    mcs_real scale = MCS_R(0.0);
    mcs_real r11;
    int i;
    int l;
    int r = 0;
    int gdim;
    /* s- = T'v, u = T'U, Tbar = T'MT (Q holds M T for a moment), B = J2 T */
    mcs_mat_gemm(1, 0, f, 1, n, 1, T, n, v, n, 0, s, f);
    for (i = 0; i < f; ++i) {
        u[i] = MCS_R(0.0);
    }
    if (U != NULL) {
        mcs_mat_gemm(1, 0, f, 1, n, 1, T, n, U, n, 0, u, f);
    }
    mcs_mat_gemm(0, 0, n, f, n, 1, M, n, T, n, 0, Q, n);
    mcs_mat_gemm(1, 0, f, f, n, 1, T, n, Q, n, 0, Tbar, f);
    mcs_mat_gemm(0, 0, m2, f, n, 1, J2, m2, T, n, 0, B, m2);
    /* rank of B among the new rows, relative to the size of J2 itself (a row whose part in
     * null(J1) is round-off is dependent, however the rows compare among themselves) */
    for (i = 0; i < (m2 * n); ++i) {
        scale = MAX2(scale, mcs_fabs(J2[i]));
    }
    if (mcs_qr_basis(f, m2, B, m2, rank_tol, Q, R, w->piv, &r, w->basis) != MCS_OK) {
        return MCS_ERR_LINALG;
    }
    r11 = (m2 > 0) ? mcs_fabs(R[0]) : MCS_R(0.0);
    if (!(r11 > (rank_tol * scale))) {
        r = 0;
    }
    gdim = f - r;
    /* s+ = N z (N = Q[:, r:]) */
    for (i = 0; i < f; ++i) {
        z[i] = MCS_R(0.0);
    }
    if (gdim > 0) {
        mcs_real *N = &Q[r * f];
        mcs_real *rhs = g; /* B is no longer needed: NMN takes its place */
        if (naive != 0) {
            mcs_mat_gemm(1, 0, gdim, 1, f, 1, N, f, s, f, 0, rhs, gdim);
        } else {
            for (i = 0; i < f; ++i) { /* rhs = N' (Tbar s + u) */
                ds[i] = u[i];
            }
            mcs_mat_gemm(0, 0, f, 1, f, 1, Tbar, f, s, f, 1, ds, f);
            mcs_mat_gemm(1, 0, gdim, 1, f, 1, N, f, ds, f, 0, rhs, gdim);
            mcs_mat_gemm(0, 0, f, gdim, f, 1, Tbar, f, N, f, 0, MN, f);
            mcs_mat_gemm(1, 0, gdim, gdim, f, 1, N, f, MN, f, 0, NMN, gdim);
            if (mcs_la_cholesky(gdim, NMN, gdim) != 0) {
                return MCS_ERR_MASS_NOT_PD;
            }
            (void)mcs_la_cholesky_solve(gdim, 1, NMN, gdim, rhs, gdim);
        }
        mcs_mat_gemm(0, 0, f, 1, gdim, 1, N, f, rhs, gdim, 0, z, f);
    }
    for (i = 0; i < f; ++i) {
        ds[i] = z[i] - s[i];
    }
    mcs_mat_gemm(0, 0, n, 1, f, 1, T, n, ds, f, 0, dv, n);
    if (gdim == 0) { /* nothing can move any more: stop exactly, not to round-off */
        for (i = 0; i < n; ++i) {
            dv[i] = -v[i];
        }
    }
    for (l = 0; l < m2; ++l) {
        lambda2[l] = MCS_R(0.0);
    }
    if (!naive && (r > 0)) {
        /* g = u - Tbar ds, lambda2 the minimum-norm multipliers of A2-bar^T lambda2 = g from the
         * factorization Q R of this frame (f x f, f x m2) */
        mcs_status st;
        for (i = 0; i < f; ++i) {
            g[i] = u[i];
        }
        mcs_mat_gemm(0, 0, f, 1, f, -1, Tbar, f, ds, f, 1, g, f);
        /* Tbar and z are no longer needed: scratch (r x r) and (r) */
        st = mcs_min_norm_multipliers(f, m2, r, Q, R, w->piv, g, lambda2, Tbar, z);
        if (st != MCS_OK) {
            return st;
        }
    }
    if (rep != NULL) {
        rep->rank_new = r;
        rep->dependent = m2 - r;
        rep->dof_after = gdim;
    }
    return MCS_OK;
}

/* 004 eq. (24) (full) or (32) (projected) by LU of the saddle-point system. */
static mcs_status jump_saddle(int projected, int n, const mcs_real *M, int m1, const mcs_real *J1,
                              int m2, const mcs_real *J2, const mcs_real *v, const mcs_real *U,
                              mcs_real *dv, mcs_real *lambda2, mcs_jump_report *rep, jump_work *w)
{
    const int mm = projected ? 0 : m1;
    const int k = n + mm + m2;
    mcs_real *A = w->big;
    mcs_real *Np = w->sq1;
    mcs_real *rhs = w->vec;
    int i;
    int j;
    /* Np: the mass-weighted null-space projector of J1, N = I - X (J1 X)^-1 J1 with X = M^-1 J1'
     * (projected form only; the identity without persistent rows) */
    for (j = 0; j < n; ++j) {
        for (i = 0; i < n; ++i) {
            Np[i + (j * n)] = (i == j);
        }
    }
    if (projected && (m1 > 0)) {
        mcs_real *L = w->sq2;
        mcs_real *X = w->sq3;
        mcs_real *S = w->big;
        mcs_real *Y = &w->sq3[n * m1];
        mcs_mat_copy(n, n, M, n, L, n);
        if (mcs_la_cholesky(n, L, n) != 0) {
            return MCS_ERR_MASS_NOT_PD;
        }
        for (j = 0; j < m1; ++j) {
            for (i = 0; i < n; ++i) {
                X[i + (j * n)] = J1[j + (i * m1)];
            }
        }
        (void)mcs_la_cholesky_solve(n, m1, L, n, X, n);
        mcs_mat_gemm(0, 0, m1, m1, n, 1, J1, m1, X, n, 0, S, m1);
        if ((mcs_la_lu(m1, S, m1, w->ipiv) != 0) || lu_is_singular(m1, S)) {
            return MCS_ERR_SINGULAR_CHART;
        }
        mcs_mat_copy(m1, n, J1, m1, Y, m1);
        (void)mcs_la_lu_solve(m1, n, S, m1, w->ipiv, Y, m1);
        mcs_mat_gemm(0, 0, n, n, m1, -1, X, n, Y, m1, 1, Np, n);
    }
    for (j = 0; j < k; ++j) {
        for (i = 0; i < k; ++i) {
            A[i + (j * k)] = MCS_R(0.0);
        }
    }
    for (j = 0; j < n; ++j) {
        for (i = 0; i < n; ++i) {
            A[i + (j * k)] = M[i + (j * n)];
        }
    }
    for (i = 0; i < mm; ++i) { /* persistent rows J1 and J1' (full form) */
        for (j = 0; j < n; ++j) {
            A[(n + i) + (j * k)] = J1[i + (j * m1)];
            A[j + ((n + i) * k)] = J1[i + (j * m1)];
        }
    }
    for (i = 0; i < m2; ++i) { /* J2 Np below, (J2 Np)' right */
        for (j = 0; j < n; ++j) {
            mcs_real sum = MCS_R(0.0);
            int l;
            for (l = 0; l < n; ++l) {
                sum += J2[i + (l * m2)] * Np[l + (j * n)];
            }
            A[(n + mm + i) + (j * k)] = sum;
            A[j + ((n + mm + i) * k)] = sum;
        }
    }
    for (i = 0; i < n; ++i) {
        rhs[i] = U ? U[i] : MCS_R(0.0);
    }
    mcs_mat_gemm(0, 0, mm, 1, n, -1, J1, MAX2(m1, 1), v, n, 0, &rhs[n], MAX2(mm, 1));
    mcs_mat_gemm(0, 0, m2, 1, n, -1, J2, m2, v, n, 0, &rhs[n + mm], MAX2(m2, 1));
    if ((mcs_la_lu(k, A, k, w->ipiv) != 0) || lu_is_singular(k, A)) {
        return MCS_ERR_SINGULAR_CHART; /* dependent rows: use MCS_JUMP_MINIMAL */
    }
    (void)mcs_la_lu_solve(k, 1, A, k, w->ipiv, rhs, k);
    for (i = 0; i < n; ++i) {
        dv[i] = rhs[i];
    }
    for (i = 0; i < m2; ++i) {
        lambda2[i] = rhs[n + mm + i];
    }
    if (rep != NULL) {
        rep->rank_new = m2;
        rep->dependent = 0;
        rep->dof_after = n - m1 - m2;
    }
    return MCS_OK;
}

mcs_status mcs_jump(mcs_jump_method method, int n, const mcs_real *M, int m1, const mcs_real *J1,
                    int f, const mcs_real *T, int m2, const mcs_real *J2, const mcs_real *v,
                    const mcs_real *U, mcs_real rank_tol, mcs_real *dv, mcs_real *lambda2,
                    mcs_jump_report *report, mcs_real *work, size_t work_len, int *iwork,
                    size_t iwork_len)
{
    const size_t k = ((size_t)n + (size_t)m1 + (size_t)m2) + 1U; /* MCS_JUMP_K */
    jump_work w;
    mcs_jump_report rep = {0, 0, 0, 0, 0, 0};
    mcs_status st;
    int i;
    if (!M || !v || !dv || ((m2 > 0) && (!J2 || !lambda2)) || ((m1 > 0) && !J1) || !work ||
        !iwork || (n < 1) || (m1 < 0) || (m2 < 0) || (f < 0) || (f > n) ||
        ((unsigned)method > (unsigned)MCS_JUMP_NAIVE) ||
        (((method == MCS_JUMP_MINIMAL) || (method == MCS_JUMP_NAIVE)) && (f > 0) && !T)) {
        return MCS_ERR_ARGUMENT;
    }
    if ((n > MCS_MAX_DIM) || (m1 > MCS_MAX_DIM) || (m2 > MCS_MAX_DIM) ||
        !((rank_tol >= MCS_R(0.0)) && (rank_tol < MCS_R(1.0)))) {
        return MCS_ERR_ARGUMENT;
    }
    if ((work_len < MCS_JUMP_WORK_SIZE((size_t)n, (size_t)m1, (size_t)m2)) ||
        (iwork_len < MCS_JUMP_IWORK_SIZE((size_t)n, (size_t)m1, (size_t)m2))) {
        return MCS_ERR_WORKSPACE;
    }
    if ((mcs_vec_max_abs(n * n, M) < MCS_R(0.0)) || (mcs_vec_max_abs(n, v) < MCS_R(0.0)) ||
        (mcs_vec_max_abs(m1 * n, J1) < MCS_R(0.0)) || (mcs_vec_max_abs(m2 * n, J2) < MCS_R(0.0)) ||
        (U && (mcs_vec_max_abs(n, U) < MCS_R(0.0))) ||
        ((f > 0) && T && (mcs_vec_max_abs(n * f, T) < MCS_R(0.0)))) {
        return MCS_ERR_NONFINITE;
    }
    w.big = work;
    w.sq1 = &w.big[k * k];
    w.sq2 = &w.sq1[k * k];
    w.sq3 = &w.sq2[k * k];
    w.sq4 = &w.sq3[k * k];
    w.vec = &w.sq4[k * k];
    w.basis = &w.vec[8U * k];
    w.piv = iwork;
    w.ipiv = &iwork[k];
    for (i = 0; i < n; ++i) {
        dv[i] = MCS_R(0.0);
    }
    if (m2 == 0) {
        st = MCS_OK;
    } else if ((method == MCS_JUMP_MINIMAL) || (method == MCS_JUMP_NAIVE)) {
        st = (f == 0) ? MCS_OK
                      : jump_minimal(method == MCS_JUMP_NAIVE, n, M, f, T, m2, J2, v, U, rank_tol,
                                     dv, lambda2, &rep, &w);
    } else {
        st = jump_saddle(method == MCS_JUMP_PROJECTED, n, M, m1, J1, m2, J2, v, U, dv, lambda2,
                         &rep, &w);
    }
    if (st != MCS_OK) {
        return st;
    }
    if ((m2 > 0) && (f == 0) && ((method == MCS_JUMP_MINIMAL) || (method == MCS_JUMP_NAIVE))) {
        for (i = 0; i < m2; ++i) {
            lambda2[i] = MCS_R(0.0);
        }
        rep.dependent = m2;
    }
    rep.kinetic_before = kinetic(n, M, v);
    for (i = 0; i < n; ++i) { /* v+ = v + dv, into the first vector slot for the energy */
        w.vec[i] = v[i] + dv[i];
    }
    rep.kinetic_after = kinetic(n, M, w.vec);
    rep.impulse_norm = MCS_R(0.0);
    for (i = 0; i < m2; ++i) {
        rep.impulse_norm += lambda2[i] * lambda2[i];
    }
    rep.impulse_norm = mcs_sqrt(rep.impulse_norm);
    if (report != NULL) {
        *report = rep;
    }
    return (mcs_vec_max_abs(n, dv) < MCS_R(0.0)) ? MCS_ERR_NONFINITE : MCS_OK;
}
