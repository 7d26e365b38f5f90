/* mcs_linalg.c - small dense loops shared by the linear-algebra backends. */
#include "linalg/mcs_linalg.h"

void mcs_mat_solve_right_upper(int rows, int k, const mcs_real *r, int ldr, mcs_real *b, int ldb)
{
    int i;
    int j;
    int l;
#ifndef MCS_LINALG_PORTABLE
    if (((double)rows * (double)k * (double)k) >= MCS_LA_GEMM_MIN) {
        mcs_la_trsm_right_upper(rows, k, r, ldr, b, ldb); /* the predictor's J R^-1, large */
        return;
    }
#endif
    /* column by column, each entry's differences in the order of l and then its product with
     * 1 / r_jj (one division a column, as the BLAS's): four rows at a time with their running
     * values in registers (a compiler's vector registers), instead of a pass over the column for
     * each l, which would store and reload every entry j times */
    for (j = 0; j < k; ++j) {
        mcs_real *bj = &b[j * ldb];
        const mcs_real *rj = &r[j * ldr];
        const mcs_real inv = MCS_R(1.0) / rj[j];
        for (i = 0; (i + 3) < rows; i += 4) {
            mcs_real x0 = bj[i];
            mcs_real x1 = bj[i + 1];
            mcs_real x2 = bj[i + 2];
            mcs_real x3 = bj[i + 3];
            for (l = 0; l < j; ++l) {
                const mcs_real *bl = &b[i + (l * ldb)];
                x0 -= bl[0] * rj[l];
                x1 -= bl[1] * rj[l];
                x2 -= bl[2] * rj[l];
                x3 -= bl[3] * rj[l];
            }
            bj[i] = x0 * inv;
            bj[i + 1] = x1 * inv;
            bj[i + 2] = x2 * inv;
            bj[i + 3] = x3 * inv;
        }
        for (; i < rows; ++i) {
            mcs_real x = bj[i];
            for (l = 0; l < j; ++l) {
                x -= b[i + (l * ldb)] * rj[l];
            }
            bj[i] = x * inv;
        }
    }
}

void mcs_mat_solve_upper_transposed(int k, const mcs_real *r, int ldr, mcs_real *b)
{
    int i;
    int l;
    for (i = 0; i < k; ++i) {
        mcs_real s = b[i];
        for (l = 0; l < i; ++l) {
            s -= r[l + (i * ldr)] * b[l];
        }
        b[i] = s / r[i + (i * ldr)];
    }
}

void mcs_qr_apply(int rows, int k, const mcs_real *a, int lda, const mcs_real *tau, int trans,
                  mcs_real *y)
{
    int step;
    for (step = 0; step < k; ++step) {
        /* Q^T y = H_{k-1} ... H_0 y: H_0 first; Q y = H_0 ... H_{k-1} y: H_{k-1} first */
        const int j = (trans != 0) ? step : ((k - 1) - step);
        const mcs_real *vj = &a[j * lda];
        mcs_real dot = y[j];
        int i;
        for (i = j + 1; i < rows; ++i) {
            dot += vj[i] * y[i];
        }
        dot *= tau[j];
        y[j] -= dot;
        for (i = j + 1; i < rows; ++i) {
            y[i] -= vj[i] * dot;
        }
    }
}

mcs_real *mcs_work_next(mcs_real *base, size_t *at, size_t count)
{
    mcs_real *block = &base[*at];
    *at += count;
    return block;
}

void mcs_mat_copy(int rows, int cols, const mcs_real *a, int lda, mcs_real *b, int ldb)
{
    int i;
    int j;
    for (j = 0; j < cols; ++j) {
        const mcs_real *from = &a[j * lda];
        mcs_real *to = &b[j * ldb];
        i = 0;
#if MCS_SMALL_KERNELS == 0
        /* four at a time, loaded before they are stored: a compiler may move them as two
         * vectors without knowing that a and b do not overlap (a column of the basis: a third
         * of the instructions) */
        for (; (i + 3) < rows; i += 4) {
            const mcs_real x0 = from[i];
            const mcs_real x1 = from[i + 1];
            const mcs_real x2 = from[i + 2];
            const mcs_real x3 = from[i + 3];
            to[i] = x0;
            to[i + 1] = x1;
            to[i + 2] = x2;
            to[i + 3] = x3;
        }
#endif
        for (; i < rows; ++i) {
            to[i] = from[i];
        }
    }
}

mcs_real mcs_mat_norm1(int n, const mcs_real *a)
{
    mcs_real norm = MCS_R(0.0);
    int i;
    int j;
    for (j = 0; j < n; ++j) {
        mcs_real col = MCS_R(0.0);
        for (i = 0; i < n; ++i) {
            col += mcs_fabs(a[i + (j * n)]);
        }
        if (!((col - col) == MCS_R(0.0))) {
            return -MCS_R(1.0); /* NaN or +-Inf */
        }
        if (col > norm) {
            norm = col;
        }
    }
    return norm;
}

#if MCS_SMALL_KERNELS == 0
/* mcs_vec_max_abs of a vector of 8 or more: four entries at a time, each of the four with its
 * own maximum and its own sum of x - x, four independent chains, so a long vector costs its loads
 * and not the latency of a max or an add per entry. */
static mcs_real max_abs_long(int n, const mcs_real *a)
{
    mcs_real m[4] = {MCS_R(0.0), MCS_R(0.0), MCS_R(0.0), MCS_R(0.0)};
    mcs_real nonfinite[4] = {MCS_R(0.0), MCS_R(0.0), MCS_R(0.0), MCS_R(0.0)};
    int i;
    for (i = 0; (i + 3) < n; i += 4) { /* unrolled: the four in registers */
        const mcs_real x0 = mcs_fabs(a[i]);
        const mcs_real x1 = mcs_fabs(a[i + 1]);
        const mcs_real x2 = mcs_fabs(a[i + 2]);
        const mcs_real x3 = mcs_fabs(a[i + 3]);
        nonfinite[0] += x0 - x0;
        nonfinite[1] += x1 - x1;
        nonfinite[2] += x2 - x2;
        nonfinite[3] += x3 - x3;
        m[0] = (x0 > m[0]) ? x0 : m[0];
        m[1] = (x1 > m[1]) ? x1 : m[1];
        m[2] = (x2 > m[2]) ? x2 : m[2];
        m[3] = (x3 > m[3]) ? x3 : m[3];
    }
    for (; i < n; ++i) {
        const mcs_real x0 = mcs_fabs(a[i]);
        nonfinite[0] += x0 - x0;
        m[0] = (x0 > m[0]) ? x0 : m[0];
    }
    if (((nonfinite[0] + nonfinite[1]) + (nonfinite[2] + nonfinite[3])) != MCS_R(0.0)) {
        return -MCS_R(1.0);
    }
    m[0] = (m[1] > m[0]) ? m[1] : m[0];
    m[2] = (m[3] > m[2]) ? m[3] : m[2];
    return (m[2] > m[0]) ? m[2] : m[0];
}
#endif

mcs_real mcs_vec_max_abs(int n, const mcs_real *a)
{
    /* two entries at a time, each of the pair with its own maximum and its own sum of x - x (0,
     * or NaN once an entry is NaN or Inf); no early exit: one test per entry instead of two (the
     * checks run on every step's bases); four at a time from 8 entries (max_abs_long), unless
     * MCS_SMALL_KERNELS */
    mcs_real m[2] = {MCS_R(0.0), MCS_R(0.0)};
    mcs_real nonfinite[2] = {MCS_R(0.0), MCS_R(0.0)};
    int i;
#if MCS_SMALL_KERNELS == 0
    if (n >= 8) { /* the same maximum and the same 0 or NaN, in fewer cycles */
        return max_abs_long(n, a);
    }
#endif
    for (i = 0; (i + 1) < n; i += 2) {
        const mcs_real x0 = mcs_fabs(a[i]);
        const mcs_real x1 = mcs_fabs(a[i + 1]);
        nonfinite[0] += x0 - x0;
        nonfinite[1] += x1 - x1;
        m[0] = (x0 > m[0]) ? x0 : m[0];
        m[1] = (x1 > m[1]) ? x1 : m[1];
    }
    if (i < n) {
        const mcs_real x0 = mcs_fabs(a[i]);
        nonfinite[0] += x0 - x0;
        m[0] = (x0 > m[0]) ? x0 : m[0];
    }
    if ((nonfinite[0] + nonfinite[1]) != MCS_R(0.0)) {
        return -MCS_R(1.0);
    }
    return (m[1] > m[0]) ? m[1] : m[0];
}

int mcs_mat_expm(int n, const mcs_real *a, mcs_real *e, mcs_real *work, int *ipiv)
{
    /* Diagonal [q/q] Padé: N = sum c_k X^k, D = sum (-1)^k c_k X^k, exp(X) ~ D^-1 N, with
     * X = a / 2^s scaled to ||X||_1 <= 1/2, then s squarings. The degree q (2, 3, 4 or 6) is the
     * smallest whose truncation bound (q!)^2 / ((2q)! (2q+1)!) ||X||^(2q+1) is below eps / 4: the
     * continuation's h Omega is small, so q = 3 is typical. A diagonal Padé approximant of a skew
     * matrix is orthogonal whatever q. */
    static const mcs_real c6[7] = {MCS_R(1.0),
                                   MCS_R(0.5),
                                   MCS_R(0.11363636363636363636),
                                   MCS_R(0.015151515151515151515),
                                   MCS_R(0.0012626262626262626263),
                                   MCS_R(6.3131313131313131313e-05),
                                   MCS_R(1.5031265031265031265e-06)};
    static const mcs_real c4[5] = {MCS_R(1.0), MCS_R(0.5), MCS_R(0.10714285714285714286),
                                   MCS_R(0.011904761904761904762),
                                   MCS_R(0.00059523809523809523810)};
    static const mcs_real c3[4] = {MCS_R(1.0), MCS_R(0.5), MCS_R(0.1),
                                   MCS_R(0.0083333333333333333333)};
    static const mcs_real c2[3] = {MCS_R(1.0), MCS_R(0.5), MCS_R(0.083333333333333333333)};
    /* truncation constants (q!)^2 / ((2q)! (2q+1)!) */
    static const mcs_real bound[4] = {MCS_R(1.3888888888888889e-03), MCS_R(9.9206349206349206e-06),
                                      MCS_R(3.936759889140842e-08), MCS_R(1.7379917572317766e-13)};
    static const int degrees[4] = {2, 3, 4, 6};
    static const mcs_real *const coefs[4] = {c2, c3, c4, c6};
    mcs_real *x = work;
    mcs_real *xp = &work[n * n];
    mcs_real *num = &work[2 * n * n];
    mcs_real *den = &work[3 * n * n];
    const mcs_real norm = mcs_mat_norm1(n, a);
    mcs_real scale = MCS_R(1.0);
    const mcs_real *c = c6;
    int i;
    int k;
    int s = 0;
    int q = 6;
    if (norm < MCS_R(0.0)) {
        return -1;
    }
    /* the smallest s with norm / 2^s <= 1/2 (an integer loop counter: MISRA 14.1); exact */
    while ((s < 4096) && (mcs_ldexp(norm, -s) > MCS_R(0.5))) {
        ++s;
    }
    scale = mcs_ldexp(MCS_R(1.0), -s);
    for (k = 0; k < 4; ++k) {
        mcs_real xn = norm * scale;
        mcs_real p = MCS_R(1.0);
        for (i = 0; i < ((2 * degrees[k]) + 1); ++i) {
            p *= xn;
        }
        if ((bound[k] * p) <= (MCS_REAL_EPS / MCS_R(4.0))) {
            q = degrees[k];
            c = coefs[k];
            break;
        }
    }
    for (i = 0; i < (n * n); ++i) {
        x[i] = a[i] * scale;
        xp[i] = x[i];
        num[i] = MCS_R(0.0);
        den[i] = MCS_R(0.0);
    }
    for (i = 0; i < n; ++i) {
        num[i + (i * n)] = c[0];
        den[i + (i * n)] = c[0];
    }
    for (k = 1; k <= q; ++k) {
        mcs_real sign = ((k % 2) != 0) ? MCS_R(-1.0) : MCS_R(1.0);
        if (k > 1) { /* xp <- xp * x, using e as scratch */
            mcs_mat_gemm(0, 0, n, n, n, 1, xp, n, x, n, 0, e, n);
            mcs_mat_copy(n, n, e, n, xp, n);
        }
        for (i = 0; i < (n * n); ++i) {
            num[i] += c[k] * xp[i];
            den[i] += sign * c[k] * xp[i];
        }
    }
    if (mcs_la_lu(n, den, n, ipiv) != 0) {
        return -1;
    }
    if (mcs_la_lu_solve(n, n, den, n, ipiv, num, n) != 0) {
        return -1;
    }
    for (k = 0; k < s; ++k) {
        mcs_mat_gemm(0, 0, n, n, n, 1, num, n, num, n, 0, e, n);
        mcs_mat_copy(n, n, e, n, num, n);
    }
    mcs_mat_copy(n, n, num, n, e, n);
    return 0;
}
