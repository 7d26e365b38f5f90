/* mcs_linalg.c - small dense loops shared by the linear-algebra backends. */
#include "mcs_linalg.h"

/* c_j..c_j+3 (rows each, ld ldc) += a (rows x inner, ld lda) times the four columns b0..b3 of
 * op(B) (entry k of column t at b[t stride_c + k stride_k]), scaled by alpha: two rows at a time,
 * eight sums in registers, each entry's sum over k in order (the axpy's). A k whose four
 * multipliers are all 0 is skipped (a sparse B), as the axpy skips a zero multiplier. */
static void axpy4(int rows, int inner, mcs_real alpha, const mcs_real *a, int lda,
                  const mcs_real *b, int stride_k, int stride_c, mcs_real *c, int ldc)
{
    mcs_real *c0 = c;
    mcs_real *c1 = &c[ldc];
    mcs_real *c2 = &c[2 * ldc];
    mcs_real *c3 = &c[3 * ldc];
    int i;
    int k;
    for (i = 0; (i + 1) < rows; i += 2) {
        mcs_real s00 = c0[i];
        mcs_real s01 = c1[i];
        mcs_real s02 = c2[i];
        mcs_real s03 = c3[i];
        mcs_real s10 = c0[i + 1];
        mcs_real s11 = c1[i + 1];
        mcs_real s12 = c2[i + 1];
        mcs_real s13 = c3[i + 1];
        for (k = 0; k < inner; ++k) {
            const mcs_real *bk = &b[k * stride_k];
            const mcs_real b0 = alpha * bk[0];
            const mcs_real b1 = alpha * bk[stride_c];
            const mcs_real b2 = alpha * bk[2 * stride_c];
            const mcs_real b3 = alpha * bk[3 * stride_c];
            const mcs_real a0 = a[i + (k * lda)];
            const mcs_real a1 = a[(i + 1) + (k * lda)];
            if ((b0 == MCS_R(0.0)) && (b1 == MCS_R(0.0)) && (b2 == MCS_R(0.0)) &&
                (b3 == MCS_R(0.0))) {
                continue;
            }
            s00 += a0 * b0;
            s01 += a0 * b1;
            s02 += a0 * b2;
            s03 += a0 * b3;
            s10 += a1 * b0;
            s11 += a1 * b1;
            s12 += a1 * b2;
            s13 += a1 * b3;
        }
        c0[i] = s00;
        c1[i] = s01;
        c2[i] = s02;
        c3[i] = s03;
        c0[i + 1] = s10;
        c1[i + 1] = s11;
        c2[i + 1] = s12;
        c3[i + 1] = s13;
    }
    for (; i < rows; ++i) {
        mcs_real s0 = c0[i];
        mcs_real s1 = c1[i];
        mcs_real s2 = c2[i];
        mcs_real s3 = c3[i];
        for (k = 0; k < inner; ++k) {
            const mcs_real *bk = &b[k * stride_k];
            const mcs_real b0 = alpha * bk[0];
            const mcs_real b1 = alpha * bk[stride_c];
            const mcs_real b2 = alpha * bk[2 * stride_c];
            const mcs_real b3 = alpha * bk[3 * stride_c];
            const mcs_real a0 = a[i + (k * lda)];
            if ((b0 == MCS_R(0.0)) && (b1 == MCS_R(0.0)) && (b2 == MCS_R(0.0)) &&
                (b3 == MCS_R(0.0))) {
                continue;
            }
            s0 += a0 * b0;
            s1 += a0 * b1;
            s2 += a0 * b2;
            s3 += a0 * b3;
        }
        c0[i] = s0;
        c1[i] = s1;
        c2[i] = s2;
        c3[i] = s3;
    }
}

/* mcs_mat_gemm of a tiny product (rows cols inner <= 64: the small models' and the bases' of a
 * few free directions): each entry in one pass, its sum over k in the order of the general
 * loops below and alpha where they apply it (so the same bits), without their set-up. */
static void gemm_tiny(int ta, int tb, int rows, int cols, int inner, mcs_real alpha,
                      const mcs_real *a, int lda, const mcs_real *b, int ldb, mcs_real beta,
                      mcs_real *c, int ldc)
{
    /* op(b)_kj = b[k bk + j bj] */
    const int bk = tb ? ldb : 1;
    const int bj = tb ? 1 : ldb;
    /* a_ik (ta 0) or a_ki (ta 1) = a[i ai + k ak] */
    const int ai = ta ? lda : 1;
    const int ak = ta ? 1 : lda;
    int i;
    int j;
    int k;
    for (j = 0; j < cols; ++j) {
        const mcs_real *b_j = &b[j * bj];
        mcs_real *c_j = &c[j * ldc];
        for (i = 0; i < rows; ++i) {
            const mcs_real *a_i = &a[i * ai];
            mcs_real acc = MCS_R(0.0);
            if (beta == MCS_R(1.0)) {
                acc = c_j[i];
            } else if (beta != MCS_R(0.0)) {
                acc = c_j[i] * beta;
            } else {
                /* beta = 0: the old contents ignored */
            }
            if (!ta) { /* the axpy form: alpha with each multiplier, zero ones skipped */
                for (k = 0; k < inner; ++k) {
                    const mcs_real bkj = alpha * b_j[k * bk];
                    if (bkj != MCS_R(0.0)) {
                        acc += a_i[k * ak] * bkj;
                    }
                }
            } else { /* the dot form: alpha with the sum */
                mcs_real sum = MCS_R(0.0);
                for (k = 0; k < inner; ++k) {
                    sum += a_i[k * ak] * b_j[k * bk];
                }
                acc += alpha * sum;
            }
            c_j[i] = acc;
        }
    }
}

void mcs_mat_gemm(int ta, int tb, int rows, int cols, int inner, mcs_real alpha, const mcs_real *a,
                  int lda, const mcs_real *b, int ldb, mcs_real beta, mcs_real *c, int ldc)
{
    /* One loop order per transpose case, each with a contiguous innermost loop. */
    int i;
    int j;
    int k;
    if ((rows <= 0) || (cols <= 0)) {
        return; /* nothing to write (and a, b may be NULL: no pointer arithmetic on them) */
    }
    if ((rows * cols * inner) <= 64) {
        gemm_tiny(ta, tb, rows, cols, inner, alpha, a, lda, b, ldb, beta, c, ldc);
        return;
    }
#ifndef MCS_LINALG_PORTABLE
    /* large products to the BLAS (small ones stay here: a call costs more than they do, and
     * the models below n = 28 run on the portable backend anyway) */
    if ((inner > 0) && (((double)rows * (double)cols * (double)inner) >= MCS_LA_GEMM_MIN)) {
        mcs_la_gemm(ta, tb, rows, cols, inner, alpha, a, lda, b, ldb, beta, c, ldc);
        return;
    }
#endif
    for (j = 0; j < cols; ++j) {
        mcs_real *cj = &c[j * ldc];
        if (beta == MCS_R(0.0)) {
            for (i = 0; i < rows; ++i) {
                cj[i] = MCS_R(0.0);
            }
        } else if (beta != MCS_R(1.0)) {
            for (i = 0; i < rows; ++i) {
                cj[i] *= beta;
            }
        } else {
            /* beta = 1: c_j stays */
        }
    }
    j = 0;
    if (!ta && (rows <= 32)) {
        /* c_j += alpha sum_k a_k op(b)_kj, four columns at a time (axpy4): the small products,
         * whose columns of a stay in the cache while its rows are walked */
        const int stride_k = tb ? ldb : 1; /* op(b)_kj = b[j stride_c + k stride_k] */
        const int stride_c = tb ? 1 : ldb;
        for (; (j + 3) < cols; j += 4) {
            axpy4(rows, inner, alpha, a, lda, &b[j * stride_c], stride_k, stride_c, &c[j * ldc],
                  ldc);
        }
    }
    for (; j < cols; ++j) {
        mcs_real *cj = &c[j * ldc];
        if (!ta) { /* c_j += alpha sum_k a_k op(b)_kj: axpy of columns of a */
            for (k = 0; k < inner; ++k) {
                const mcs_real bkj = alpha * (tb ? b[j + (k * ldb)] : b[k + (j * ldb)]);
                const mcs_real *ak = &a[k * lda];
                if (bkj == MCS_R(0.0)) {
                    continue;
                }
                for (i = 0; i < rows; ++i) {
                    cj[i] += ak[i] * bkj;
                }
            }
        } else if (!tb) { /* c_ij += alpha a_i . b_j: dot products of columns */
            const mcs_real *bj = &b[j * ldb];
            /* four dot products at a time: four independent chains of additions instead of one
             * (each sum still runs over k in order, so the results are the same bits) */
            for (i = 0; (i + 3) < rows; i += 4) {
                const mcs_real *a0 = &a[i * lda];
                const mcs_real *a1 = &a[(i + 1) * lda];
                const mcs_real *a2 = &a[(i + 2) * lda];
                const mcs_real *a3 = &a[(i + 3) * lda];
                mcs_real s0 = MCS_R(0.0);
                mcs_real s1 = MCS_R(0.0);
                mcs_real s2 = MCS_R(0.0);
                mcs_real s3 = MCS_R(0.0);
                for (k = 0; k < inner; ++k) {
                    const mcs_real bk = bj[k];
                    s0 += a0[k] * bk;
                    s1 += a1[k] * bk;
                    s2 += a2[k] * bk;
                    s3 += a3[k] * bk;
                }
                cj[i] += alpha * s0;
                cj[i + 1] += alpha * s1;
                cj[i + 2] += alpha * s2;
                cj[i + 3] += alpha * s3;
            }
            for (; i < rows; ++i) {
                const mcs_real *ai = &a[i * lda];
                mcs_real sum = MCS_R(0.0);
                for (k = 0; k < inner; ++k) {
                    sum += ai[k] * bj[k];
                }
                cj[i] += alpha * sum;
            }
        } else { /* both transposed: rare, plain loops */
            for (i = 0; i < rows; ++i) {
                mcs_real sum = MCS_R(0.0);
                for (k = 0; k < inner; ++k) {
                    sum += a[k + (i * lda)] * b[j + (k * ldb)];
                }
                cj[i] += alpha * sum;
            }
        }
    }
}

void mcs_mat_multiply(int rows, int cols, int inner, const mcs_real *a, int lda, const mcs_real *b,
                      int ldb, int accumulate, mcs_real *c, int ldc)
{
    int i;
    int j;
    int k;
#ifndef MCS_LINALG_PORTABLE
    if (((double)rows * (double)cols * (double)inner) >= MCS_LA_GEMM_MIN) {
        mcs_la_gemm(0, 0, rows, cols, inner, 1, a, lda, b, ldb, (accumulate != 0) ? 1 : 0, c, ldc);
        return;
    }
#endif
    for (j = 0; (j + 3) < cols; j += 4) {
        const mcs_real *b0 = &b[j * ldb];
        const mcs_real *b1 = &b[(j + 1) * ldb];
        const mcs_real *b2 = &b[(j + 2) * ldb];
        const mcs_real *b3 = &b[(j + 3) * ldb];
        mcs_real *c0 = &c[j * ldc];
        mcs_real *c1 = &c[(j + 1) * ldc];
        mcs_real *c2 = &c[(j + 2) * ldc];
        mcs_real *c3 = &c[(j + 3) * ldc];
        for (i = 0; (i + 1) < rows; i += 2) { /* a 2 x 4 block of c in registers */
            mcs_real s00 = (accumulate != 0) ? c0[i] : MCS_R(0.0);
            mcs_real s01 = (accumulate != 0) ? c1[i] : MCS_R(0.0);
            mcs_real s02 = (accumulate != 0) ? c2[i] : MCS_R(0.0);
            mcs_real s03 = (accumulate != 0) ? c3[i] : MCS_R(0.0);
            mcs_real s10 = (accumulate != 0) ? c0[i + 1] : MCS_R(0.0);
            mcs_real s11 = (accumulate != 0) ? c1[i + 1] : MCS_R(0.0);
            mcs_real s12 = (accumulate != 0) ? c2[i + 1] : MCS_R(0.0);
            mcs_real s13 = (accumulate != 0) ? c3[i + 1] : MCS_R(0.0);
            for (k = 0; k < inner; ++k) {
                const mcs_real a0 = a[i + (k * lda)];
                const mcs_real a1 = a[(i + 1) + (k * lda)];
                s00 += a0 * b0[k];
                s01 += a0 * b1[k];
                s02 += a0 * b2[k];
                s03 += a0 * b3[k];
                s10 += a1 * b0[k];
                s11 += a1 * b1[k];
                s12 += a1 * b2[k];
                s13 += a1 * b3[k];
            }
            c0[i] = s00;
            c1[i] = s01;
            c2[i] = s02;
            c3[i] = s03;
            c0[i + 1] = s10;
            c1[i + 1] = s11;
            c2[i + 1] = s12;
            c3[i + 1] = s13;
        }
        for (; i < rows; ++i) {
            mcs_real s0 = (accumulate != 0) ? c0[i] : MCS_R(0.0);
            mcs_real s1 = (accumulate != 0) ? c1[i] : MCS_R(0.0);
            mcs_real s2 = (accumulate != 0) ? c2[i] : MCS_R(0.0);
            mcs_real s3 = (accumulate != 0) ? c3[i] : MCS_R(0.0);
            for (k = 0; k < inner; ++k) {
                const mcs_real ai = a[i + (k * lda)];
                s0 += ai * b0[k];
                s1 += ai * b1[k];
                s2 += ai * b2[k];
                s3 += ai * b3[k];
            }
            c0[i] = s0;
            c1[i] = s1;
            c2[i] = s2;
            c3[i] = s3;
        }
    }
    for (; (j + 1) < cols; j += 2) { /* then two columns: 2 x 2 blocks */
        const mcs_real *b0 = &b[j * ldb];
        const mcs_real *b1 = &b[(j + 1) * ldb];
        mcs_real *c0 = &c[j * ldc];
        mcs_real *c1 = &c[(j + 1) * ldc];
        for (i = 0; (i + 1) < rows; i += 2) {
            mcs_real s00 = (accumulate != 0) ? c0[i] : MCS_R(0.0);
            mcs_real s01 = (accumulate != 0) ? c1[i] : MCS_R(0.0);
            mcs_real s10 = (accumulate != 0) ? c0[i + 1] : MCS_R(0.0);
            mcs_real s11 = (accumulate != 0) ? c1[i + 1] : MCS_R(0.0);
            for (k = 0; k < inner; ++k) {
                const mcs_real a0 = a[i + (k * lda)];
                const mcs_real a1 = a[(i + 1) + (k * lda)];
                s00 += a0 * b0[k];
                s01 += a0 * b1[k];
                s10 += a1 * b0[k];
                s11 += a1 * b1[k];
            }
            c0[i] = s00;
            c1[i] = s01;
            c0[i + 1] = s10;
            c1[i + 1] = s11;
        }
        for (; i < rows; ++i) {
            mcs_real s0 = (accumulate != 0) ? c0[i] : MCS_R(0.0);
            mcs_real s1 = (accumulate != 0) ? c1[i] : MCS_R(0.0);
            for (k = 0; k < inner; ++k) {
                s0 += a[i + (k * lda)] * b0[k];
                s1 += a[i + (k * lda)] * b1[k];
            }
            c0[i] = s0;
            c1[i] = s1;
        }
    }
    for (; j < cols; ++j) { /* the last column, an entry at a time */
        const mcs_real *bj = &b[j * ldb];
        mcs_real *cj = &c[j * ldc];
        for (i = 0; i < rows; ++i) {
            mcs_real sum = (accumulate != 0) ? cj[i] : MCS_R(0.0);
            for (k = 0; k < inner; ++k) {
                sum += a[i + (k * lda)] * bj[k];
            }
            cj[i] = sum;
        }
    }
}

void mcs_mat_symmetric_product(int rows, int k, const mcs_real *a, int lda, const mcs_real *b,
                               int ldb, mcs_real *c, int ldc)
{
    int i;
    int j;
    int l;
#ifndef MCS_LINALG_PORTABLE
    if (((double)rows * (double)k * (double)k) >= MCS_LA_GEMM_MIN) {
        mcs_la_gemm(1, 0, k, k, rows, 1, a, lda, b, ldb, 0, c, ldc);
        return;
    }
#endif
    for (j = 0; j < k; ++j) {
        const mcs_real *bj = &b[j * ldb];
        /* two entries of column j at a time: two independent sums, each over l in order */
        for (i = 0; (i + 1) <= j; i += 2) {
            const mcs_real *a0 = &a[i * lda];
            const mcs_real *a1 = &a[(i + 1) * lda];
            mcs_real s0 = MCS_R(0.0);
            mcs_real s1 = MCS_R(0.0);
            for (l = 0; l < rows; ++l) {
                s0 += a0[l] * bj[l];
                s1 += a1[l] * bj[l];
            }
            c[i + (j * ldc)] = s0;
            c[j + (i * ldc)] = s0;
            c[(i + 1) + (j * ldc)] = s1;
            c[j + ((i + 1) * ldc)] = s1;
        }
        for (; i <= j; ++i) {
            const mcs_real *ai = &a[i * lda];
            mcs_real sum = MCS_R(0.0);
            for (l = 0; l < rows; ++l) {
                sum += ai[l] * bj[l];
            }
            c[i + (j * ldc)] = sum;
            c[j + (i * ldc)] = sum;
        }
    }
}

void mcs_mat_solve_right_upper(int rows, int k, const mcs_real *r, int ldr, mcs_real *b, int ldb)
{
    int i;
    int j;
    int l;
#ifndef MCS_LINALG_PORTABLE
    if (((double)rows * (double)k * (double)k) >= (2.0 * MCS_LA_GEMM_MIN)) {
        mcs_la_trsm_right_upper(rows, k, r, ldr, b, ldb); /* the predictor's J R^-1, large */
        return;
    }
#endif
    /* column by column, each entry's differences in the order of l and then its quotient (the
     * same operations, entry by entry, as a row at a time; contiguous inner loops) */
    for (j = 0; j < k; ++j) {
        mcs_real *bj = &b[j * ldb];
        const mcs_real rjj = r[j + (j * ldr)];
        for (l = 0; l < j; ++l) {
            const mcs_real rlj = r[l + (j * ldr)];
            const mcs_real *bl = &b[l * ldb];
            for (i = 0; i < rows; ++i) {
                bj[i] -= bl[i] * rlj;
            }
        }
        for (i = 0; i < rows; ++i) {
            bj[i] /= rjj;
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
        for (i = 0; i < rows; ++i) {
            b[i + (j * ldb)] = a[i + (j * lda)];
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

mcs_real mcs_vec_max_abs(int n, const mcs_real *a)
{
    mcs_real m = MCS_R(0.0);
    mcs_real nonfinite = MCS_R(0.0); /* sum of x - x: 0, or NaN once an entry is NaN or Inf */
    int i;
    /* no early exit: one test per entry instead of two (the checks run on every step's bases) */
    for (i = 0; i < n; ++i) {
        const mcs_real x = mcs_fabs(a[i]);
        nonfinite += x - x;
        m = (x > m) ? x : m;
    }
    return (nonfinite == MCS_R(0.0)) ? m : -MCS_R(1.0);
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
