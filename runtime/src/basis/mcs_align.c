/* mcs_align.c - the polar re-orthogonalization of a new tangent basis to the predicted one
 * (SPEC §3.6-7): the orthogonal polar factor of a near-orthogonal C by the series of
 * (C^T C)^-1/2, the SVD for a rank change or a C far from orthogonal (mcs_align_basis). */
#include "mcs/mcs_basis.h"

#include "linalg/mcs_linalg.h"

/* c = op(a) b for square a, b, c (k x k, k <= 4: one or a few degrees of freedom) by plain
 * loops, op(a) = a^T when transpose_a: the calls and set-up of the blocked products cost more
 * than their arithmetic there (a model of two degrees of freedom: a quarter of the polar
 * factor's instructions). */
static void small_product(int k, int transpose_a, const mcs_real *a, const mcs_real *b, mcs_real *c)
{
    int i;
    int j;
    int l;
    if (k == 2) { /* unrolled: the same sums as the loops */
        const mcs_real a01 = (transpose_a != 0) ? a[1] : a[2];
        const mcs_real a10 = (transpose_a != 0) ? a[2] : a[1];
        c[0] = (a[0] * b[0]) + (a01 * b[1]);
        c[1] = (a10 * b[0]) + (a[3] * b[1]);
        c[2] = (a[0] * b[2]) + (a01 * b[3]);
        c[3] = (a10 * b[2]) + (a[3] * b[3]);
        return;
    }
    for (j = 0; j < k; ++j) {
        for (i = 0; i < k; ++i) {
            mcs_real sum = MCS_R(0.0);
            for (l = 0; l < k; ++l) {
                sum += ((transpose_a != 0) ? a[l + (i * k)] : a[i + (l * k)]) * b[l + (j * k)];
            }
            c[i + (j * k)] = sum;
        }
    }
}

/* c = a^T b (known symmetric) or a b (transpose_a 0) for the polar factor: small_product below
 * order 5, the blocked products above. */
static void polar_product(int k, int transpose_a, const mcs_real *a, const mcs_real *b, mcs_real *c)
{
    if (k <= 4) {
        small_product(k, transpose_a, a, b, c);
    } else if (transpose_a != 0) {
        mcs_mat_multiply_tn(k, k, k, a, k, b, k, 1, c, k);
    } else {
        mcs_mat_multiply(k, k, k, a, k, b, k, 0, c, k);
    }
}

#if MCS_SMALL_KERNELS == 0
/* mcs_polar_near_orthogonal for k = 2 (a model of two degrees of freedom, as the spatial
 * pendulum): the same operations in the same order (small_product's unrolled sums, the same
 * degree and stops), so the same bits, in registers instead of loops and calls over 2 x 2
 * arrays (three quarters of its instructions). Left out with MCS_SMALL_KERNELS, as
 * align_two. */
static int polar_two(mcs_real *x, const mcs_real *coef, mcs_real tol)
{
    int it;
    int j;
    for (it = 0; it < 8; ++it) {
        /* E = I - X^T X (symmetric: X^T X's off-diagonal products commute) */
        const mcs_real e0 = -((x[0] * x[0]) + (x[1] * x[1])) + MCS_R(1.0);
        const mcs_real e1 = -((x[2] * x[0]) + (x[3] * x[1]));
        const mcs_real e2 = -((x[0] * x[2]) + (x[1] * x[3]));
        const mcs_real e3 = -((x[2] * x[2]) + (x[3] * x[3])) + MCS_R(1.0);
        const mcs_real a0 = mcs_fabs(e0);
        const mcs_real a1 = mcs_fabs(e1);
        const mcs_real a2 = mcs_fabs(e2);
        const mcs_real a3 = mcs_fabs(e3);
        const mcs_real m01 = (a1 > a0) ? a1 : a0;
        const mcs_real m23 = (a3 > a2) ? a3 : a2;
        const mcs_real delta = (m23 > m01) ? m23 : m01;
        mcs_real omitted;
        mcs_real s0;
        mcs_real s1;
        mcs_real s2;
        mcs_real s3;
        mcs_real y0;
        mcs_real y1;
        mcs_real y2;
        mcs_real y3;
        int d = 1;
        if ((((a0 - a0) + (a1 - a1)) + ((a2 - a2) + (a3 - a3))) != MCS_R(0.0)) {
            return -1; /* NaN or Inf */
        }
        if (!(delta < MCS_R(0.3))) {
            return -1; /* far from orthogonal */
        }
        if (delta <= (MCS_R(4.0) * tol)) {
            return 0;
        }
        omitted = delta * delta;
        for (j = 1; j < 8; ++j) {
            if (omitted > tol) {
                ++d;
                omitted *= delta;
            }
        }
        s0 = (coef[d] * e0) + coef[d - 1];
        s1 = coef[d] * e1;
        s2 = coef[d] * e2;
        s3 = (coef[d] * e3) + coef[d - 1];
        for (j = d - 2; j >= 0; --j) { /* S <- E S + c_j I */
            const mcs_real n0 = ((e0 * s0) + (e1 * s1)) + coef[j];
            const mcs_real n1 = (e2 * s0) + (e3 * s1);
            const mcs_real n2 = (e0 * s2) + (e1 * s3);
            const mcs_real n3 = ((e2 * s2) + (e3 * s3)) + coef[j];
            s0 = n0;
            s1 = n1;
            s2 = n2;
            s3 = n3;
        }
        y0 = (x[0] * s0) + (x[2] * s1); /* X S */
        y1 = (x[1] * s0) + (x[3] * s1);
        y2 = (x[0] * s2) + (x[2] * s3);
        y3 = (x[1] * s2) + (x[3] * s3);
        x[0] = y0;
        x[1] = y1;
        x[2] = y2;
        x[3] = y3;
        if (omitted <= tol) {
            return 0;
        }
    }
    return -1;
}
#endif

/* Orthogonal polar factor of a square x (k x k) in place, for an x near orthogonal, as C is
 * between consecutive steps. With E = I - X^T X (symmetric, |E| = delta), the factor is
 * X (I - E)^-1/2 = X (I + E/2 + 3/8 E^2 + 5/16 E^3 + ...): an iteration multiplies X by the
 * series to the degree d whose first omitted term is below round-off (delta^(d+1) <= eps k,
 * d <= 8), which leaves |E| at about delta^(d+1). One iteration is typical: delta is about 1e-4
 * after an RK4 step of 1 ms of a 20-coordinate chain without a predictor or with the first-order
 * one (d = 3), 1e-8 with exp's (d = 1). The powers of E commute with E: their products are
 * symmetric, half the multiply-adds of general ones. y, z, w: k x k scratch. Returns nonzero when
 * x is too far from orthogonal for it (the caller uses the SVD). */
int mcs_polar_near_orthogonal(int k, mcs_real *x, mcs_real *y, mcs_real *z, mcs_real *w)
{
    /* binomial(2j, j) / 4^j, the series of (1 - e)^-1/2 */
    static const mcs_real coef[9] = {
        MCS_R(1.0),          MCS_R(0.5),           MCS_R(0.375),
        MCS_R(0.3125),       MCS_R(0.2734375),     MCS_R(0.24609375),
        MCS_R(0.2255859375), MCS_R(0.20947265625), MCS_R(0.196380615234375)};
    const mcs_real tol = MCS_REAL_EPS * (mcs_real)k;
    int it;
    int i;
    int j;
    int d;
#if MCS_SMALL_KERNELS == 0
    if (k == 2) {
        return polar_two(x, coef, tol);
    }
#endif
    for (it = 0; it < 8; ++it) {
        mcs_real delta;
        mcs_real omitted;
        mcs_real *s_cur;
        mcs_real *s_next;
        polar_product(k, 1, x, x, y);   /* y = X^T X */
        for (i = 0; i < (k * k); ++i) { /* y = E = I - X^T X */
            y[i] = -y[i];
        }
        for (i = 0; i < k; ++i) {
            y[i * (k + 1)] += MCS_R(1.0);
        }
        delta = mcs_vec_max_abs(k * k, y);
        if (!((delta >= MCS_R(0.0)) && (delta < MCS_R(0.3)))) {
            return -1; /* far from orthogonal, or NaN */
        }
        if (delta <= (MCS_R(4.0) * tol)) {
            return 0;
        }
        d = 1; /* the degree: delta^(d+1) <= tol, at most 8 */
        omitted = delta * delta;
        for (j = 1; j < 8; ++j) {
            if (omitted > tol) {
                ++d;
                omitted *= delta;
            }
        }
        /* S = c0 I + c1 E + ... + cd E^d by Horner into s_cur (z or w, which swap) */
        s_cur = z;
        s_next = w;
        for (i = 0; i < (k * k); ++i) {
            s_cur[i] = coef[d] * y[i];
        }
        for (i = 0; i < k; ++i) {
            s_cur[i * (k + 1)] += coef[d - 1];
        }
        for (j = d - 2; j >= 0; --j) {
            mcs_real *t = s_next;
            polar_product(k, 1, y, s_cur, s_next); /* E S (E symmetric) */
            for (i = 0; i < k; ++i) {
                s_next[i * (k + 1)] += coef[j];
            }
            s_next = s_cur;
            s_cur = t;
        }
        polar_product(k, 0, x, s_cur, y); /* X S */
        mcs_mat_copy(k, k, y, k, x, k);
        if (omitted <= tol) {
            return 0; /* |E| now about delta^(d+1): the check that would stop here not made */
        }
    }
    return -1;
}

#if MCS_SMALL_KERNELS == 0
/* mcs_align_basis for two free directions before and after (f_old = f_new = 2): C = T~^T T^ by
 * the general path's product, its polar factor Up, and Tout = T^ Up^T (each entry as
 * mcs_mat_multiply's sum from 0): the same bits as the general path without most of its calls
 * and set-up.
 * Returns 1 when C is too far from orthogonal or not finite: the caller takes the general path
 * (the SVD, or MCS_ERR_NONFINITE). */
static int align_two(int n, const mcs_real *Tpred, const mcs_real *That, mcs_real *Tout)
{
    static const mcs_real coef[9] = {
        MCS_R(1.0),          MCS_R(0.5),           MCS_R(0.375),
        MCS_R(0.3125),       MCS_R(0.2734375),     MCS_R(0.24609375),
        MCS_R(0.2255859375), MCS_R(0.20947265625), MCS_R(0.196380615234375)};
    const mcs_real *h0 = That;
    const mcs_real *h1 = &That[n];
    mcs_real c[4];
    int l;
    mcs_mat_multiply_tn(n, 2, 2, Tpred, n, That, n, 0, c, 2); /* C = T~^T T^, as the general path */
    if (polar_two(c, coef, MCS_R(2.0) * MCS_REAL_EPS) != 0) {
        return 1; /* also a NaN or Inf in C: the general path reports it */
    }
    for (l = 0; l < n; ++l) { /* Tout = That Up^T: Up^T's column j is row j of Up */
        Tout[l] = (MCS_R(0.0) + (h0[l] * c[0])) + (h1[l] * c[2]);
        Tout[l + n] = (MCS_R(0.0) + (h0[l] * c[1])) + (h1[l] * c[3]);
    }
    return 0;
}
#endif

mcs_status mcs_align_basis(int n, int f_old, const mcs_real *Tpred, int f_new, const mcs_real *That,
                           mcs_real *Tout, mcs_real *work)
{
    const int g = (f_old < f_new) ? f_old : f_new;
    /* the blocks are of order f_old, f_new <= n: a simulator sized for few free directions
     * (options.max_dof) carves only this much */
    const int k = MCS_BASIS_K((f_old > f_new) ? f_old : f_new, 0);
    const size_t lwork_size = MCS_LA_LWORK((size_t)k);
    if ((n < 1) || (f_old < 0) || (f_new < 0) || (f_old > n) || (f_new > n) || !Tpred || !That ||
        !Tout || !work) {
        return MCS_ERR_ARGUMENT;
    }
    mcs_real *C = work;                /* (g x f_new) */
    mcs_real *W = &work[k * k];        /* (g x g) */
    mcs_real *Vt = &work[2 * k * k];   /* (f_new x f_new) */
    mcs_real *V_Wt = &work[3 * k * k]; /* (f_new x g) */
    mcs_real *sv = &work[4 * k * k];   /* (k) */
    mcs_real *lawork = &work[(4 * k * k) + k];
    int info;
    int i;
    int j;
    if (g == 0) {
        if (mcs_vec_max_abs(n * f_new, That) < MCS_R(0.0)) {
            return MCS_ERR_NONFINITE;
        }
        mcs_mat_copy(n, f_new, That, n, Tout, n);
        return MCS_OK;
    }
#if MCS_SMALL_KERNELS == 0
    if ((f_old == 2) && (f_new == 2) && (align_two(n, Tpred, That, Tout) == 0)) {
        return MCS_OK;
    }
#endif
    /* C's entries are dot products of whole columns of T~ and T^ (no zero skipped): a NaN or
     * Inf in either shows in C, which is checked instead of the n x f inputs: by the polar
     * factor (a NaN or Inf in C gives one in E, which it refuses) or before the SVD */
    mcs_mat_multiply_tn(n, g, f_new, Tpred, n, That, n, 0, C, g);
    if ((f_old == f_new) && (mcs_polar_near_orthogonal(g, C, W, Vt, V_Wt) == 0)) {
        /* Tout = That Up^T with Up = W V^T the orthogonal polar factor of C (now in C) */
        for (j = 0; j < g; ++j) {
            for (i = 0; i < g; ++i) {
                W[i + (j * g)] = C[j + (i * g)];
            }
        }
        mcs_mat_multiply(n, g, g, That, n, W, g, 0, Tout, n);
        return MCS_OK;
    }
    mcs_mat_gemm(1, 0, g, f_new, n, 1, Tpred, n, That, n, 0, C, g);
    if (mcs_vec_max_abs(g * f_new, C) < MCS_R(0.0)) {
        return MCS_ERR_NONFINITE;
    }
    info = mcs_la_svd(g, f_new, C, g, sv, W, g, Vt, f_new, lawork, (int)lwork_size);
    if (info != 0) {
        return MCS_ERR_LINALG;
    }
    /* V_Wt = V[:, :g] W^T  (f_new x g);  Tout[:, :g] = That V_Wt */
    mcs_mat_gemm(1, 1, f_new, g, g, 1, Vt, f_new, W, g, 0, V_Wt, f_new);
    mcs_mat_gemm(0, 0, n, g, f_new, 1, That, n, V_Wt, f_new, 0, Tout, n);
    if (f_new > g) { /* Tout[:, g:] = That V[:, g:] = That (Vt[g:, :])^T */
        mcs_mat_gemm(0, 1, n, f_new - g, f_new, 1, That, n, &Vt[g], f_new, 0, &Tout[g * n], n);
    }
    return MCS_OK;
}
