/* mcs_gemm.c - the general product both backends share: mcs_mat_gemm (op(a) op(b), any
 * transposes, alpha and beta; a zero multiplier skipped in its axpy form, for the sparse
 * matrices the chart multiplies); the LAPACK backend hands the large ones to the BLAS
 * (MCS_LA_GEMM_MIN). The dense products are in mcs_matmul.c. */
#include "linalg/mcs_linalg.h"

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
