/* mcs_matmul.c - the dense products both backends share: mcs_mat_multiply (a b, a 4 x 4 block
 * of the result in registers; 1 x 4 with MCS_SMALL_KERNELS) and mcs_mat_multiply_tn (a^T b by
 * dot products, and its symmetric form); the LAPACK backend hands the large ones to the BLAS
 * (MCS_LA_GEMM_MIN). The general mcs_mat_gemm is in mcs_gemm.c. */
#include "linalg/mcs_linalg.h"

/* c_j..j+3 (rows x 4) = (c_j.. when accumulate) + a (rows x inner) b_j..j+3: four rows at a
 * time, the sums of a 4 x 4 block of c in acc with rows i..i+3 side by side (a compiler may pair
 * them in vector registers: the same operations either way), then one at a time. Each
 * entry's sum runs over k in order from c's or 0: the same bits however the rows are grouped. */
static void multiply_4(int rows, int inner, const mcs_real *a, int lda, const mcs_real *b, int ldb,
                       int accumulate, mcs_real *c, int ldc)
{
    const mcs_real *b1 = &b[ldb];
    const mcs_real *b2 = &b[2 * ldb];
    const mcs_real *b3 = &b[3 * ldb];
    mcs_real *c1 = &c[ldc];
    mcs_real *c2 = &c[2 * ldc];
    mcs_real *c3 = &c[3 * ldc];
    int i = 0;
    int k;
#if MCS_SMALL_KERNELS == 0
    for (; (i + 3) < rows; i += 4) {
        mcs_real acc[16];
        int t;
        for (t = 0; t < 4; ++t) {
            acc[t] = (accumulate != 0) ? c[i + t] : MCS_R(0.0);
            acc[4 + t] = (accumulate != 0) ? c1[i + t] : MCS_R(0.0);
            acc[8 + t] = (accumulate != 0) ? c2[i + t] : MCS_R(0.0);
            acc[12 + t] = (accumulate != 0) ? c3[i + t] : MCS_R(0.0);
        }
        for (k = 0; k < inner; ++k) {
            const mcs_real *ak = &a[i + (k * lda)];
            const mcs_real x0 = b[k];
            const mcs_real x1 = b1[k];
            const mcs_real x2 = b2[k];
            const mcs_real x3 = b3[k];
            acc[0] += ak[0] * x0;
            acc[1] += ak[1] * x0;
            acc[2] += ak[2] * x0;
            acc[3] += ak[3] * x0;
            acc[4] += ak[0] * x1;
            acc[5] += ak[1] * x1;
            acc[6] += ak[2] * x1;
            acc[7] += ak[3] * x1;
            acc[8] += ak[0] * x2;
            acc[9] += ak[1] * x2;
            acc[10] += ak[2] * x2;
            acc[11] += ak[3] * x2;
            acc[12] += ak[0] * x3;
            acc[13] += ak[1] * x3;
            acc[14] += ak[2] * x3;
            acc[15] += ak[3] * x3;
        }
        for (t = 0; t < 4; ++t) {
            c[i + t] = acc[t];
            c1[i + t] = acc[4 + t];
            c2[i + t] = acc[8 + t];
            c3[i + t] = acc[12 + t];
        }
    }
#endif
    for (; i < rows; ++i) { /* the last rows (all of them with MCS_SMALL_KERNELS) */
        mcs_real acc[4] = {MCS_R(0.0), MCS_R(0.0), MCS_R(0.0), MCS_R(0.0)};
        if (accumulate != 0) {
            acc[0] = c[i];
            acc[1] = c1[i];
            acc[2] = c2[i];
            acc[3] = c3[i];
        }
        for (k = 0; k < inner; ++k) {
            const mcs_real aik = a[i + (k * lda)];
            acc[0] += aik * b[k];
            acc[1] += aik * b1[k];
            acc[2] += aik * b2[k];
            acc[3] += aik * b3[k];
        }
        c[i] = acc[0];
        c1[i] = acc[1];
        c2[i] = acc[2];
        c3[i] = acc[3];
    }
}

#if MCS_SMALL_KERNELS == 0
/* c_j, c_j+1 (rows x 2) = (c_j.. when accumulate) + a b_j, b_j+1: four rows at a time side by
 * side, then one (multiply_4's sums). */
static void multiply_2(int rows, int inner, const mcs_real *a, int lda, const mcs_real *b, int ldb,
                       int accumulate, mcs_real *c, int ldc)
{
    const mcs_real *b1 = &b[ldb];
    mcs_real *c1 = &c[ldc];
    int i;
    int k;
    for (i = 0; (i + 3) < rows; i += 4) {
        mcs_real acc[8];
        int t;
        for (t = 0; t < 4; ++t) {
            acc[t] = (accumulate != 0) ? c[i + t] : MCS_R(0.0);
            acc[4 + t] = (accumulate != 0) ? c1[i + t] : MCS_R(0.0);
        }
        for (k = 0; k < inner; ++k) {
            const mcs_real *ak = &a[i + (k * lda)];
            const mcs_real x0 = b[k];
            const mcs_real x1 = b1[k];
            acc[0] += ak[0] * x0;
            acc[1] += ak[1] * x0;
            acc[2] += ak[2] * x0;
            acc[3] += ak[3] * x0;
            acc[4] += ak[0] * x1;
            acc[5] += ak[1] * x1;
            acc[6] += ak[2] * x1;
            acc[7] += ak[3] * x1;
        }
        for (t = 0; t < 4; ++t) {
            c[i + t] = acc[t];
            c1[i + t] = acc[4 + t];
        }
    }
    for (; i < rows; ++i) {
        mcs_real acc[2] = {MCS_R(0.0), MCS_R(0.0)};
        if (accumulate != 0) {
            acc[0] = c[i];
            acc[1] = c1[i];
        }
        for (k = 0; k < inner; ++k) {
            const mcs_real aik = a[i + (k * lda)];
            acc[0] += aik * b[k];
            acc[1] += aik * b1[k];
        }
        c[i] = acc[0];
        c1[i] = acc[1];
    }
}
#endif

/* c_j (rows x 1) = (c_j when accumulate) + a b_j, two rows at a time side by side. */
static void multiply_1(int rows, int inner, const mcs_real *a, int lda, const mcs_real *b,
                       int accumulate, mcs_real *c)
{
    int i;
    int k;
    for (i = 0; (i + 1) < rows; i += 2) {
        mcs_real acc[2] = {MCS_R(0.0), MCS_R(0.0)};
        if (accumulate != 0) {
            acc[0] = c[i];
            acc[1] = c[i + 1];
        }
        for (k = 0; k < inner; ++k) {
            const mcs_real *ak = &a[i + (k * lda)];
            acc[0] += ak[0] * b[k];
            acc[1] += ak[1] * b[k];
        }
        c[i] = acc[0];
        c[i + 1] = acc[1];
    }
    if (i < rows) {
        mcs_real sum = (accumulate != 0) ? c[i] : MCS_R(0.0);
        for (k = 0; k < inner; ++k) {
            sum += a[i + (k * lda)] * b[k];
        }
        c[i] = sum;
    }
}

void mcs_mat_multiply(int rows, int cols, int inner, const mcs_real *a, int lda, const mcs_real *b,
                      int ldb, int accumulate, mcs_real *c, int ldc)
{
    int j;
#ifndef MCS_LINALG_PORTABLE
    if (((double)rows * (double)cols * (double)inner) >= MCS_LA_GEMM_MIN) {
        mcs_la_gemm(0, 0, rows, cols, inner, 1, a, lda, b, ldb, (accumulate != 0) ? 1 : 0, c, ldc);
        return;
    }
#endif
    for (j = 0; (j + 3) < cols; j += 4) {
        multiply_4(rows, inner, a, lda, &b[j * ldb], ldb, accumulate, &c[j * ldc], ldc);
    }
#if MCS_SMALL_KERNELS == 0
    if ((j + 1) < cols) {
        multiply_2(rows, inner, a, lda, &b[j * ldb], ldb, accumulate, &c[j * ldc], ldc);
        j += 2;
    }
#endif
    for (; j < cols; ++j) {
        multiply_1(rows, inner, a, lda, &b[j * ldb], accumulate, &c[j * ldc]);
    }
}

/* a . b over rows entries as two interleaved sums (even and odd terms, added at the end): two
 * independent chains, side by side for a compiler's vector registers. */
static mcs_real dot_pairs(int rows, const mcs_real *a, const mcs_real *b)
{
    mcs_real acc[2] = {MCS_R(0.0), MCS_R(0.0)};
    int l;
    for (l = 0; (l + 1) < rows; l += 2) {
        acc[0] += a[l] * b[l];
        acc[1] += a[l + 1] * b[l + 1];
    }
    if (l < rows) {
        acc[0] += a[l] * b[l];
    }
    return acc[0] + acc[1];
}

#if MCS_SMALL_KERNELS == 0
/* c_i,j, c_i+1,j, c_i,j+1, c_i+1,j+1 (ld ldc) = a_i . b_j, ... over rows entries: four dot_pairs
 * at once (the same sums, so the same bits), each pair of columns loaded once for two. The eight
 * sums (s: even and odd terms of each entry side by side) are read back through a volatile
 * pointer: otherwise GCC's vectorizer, starting from the adjacent stores c_i,j and c_i+1,j,
 * pairs the entries instead of their even and odd terms, which takes a shuffle for every load
 * (a^T b of 20 x 10 by 20 x 10: 380 ns against 275). */
static void dots_2x2(int rows, const mcs_real *a0, const mcs_real *a1, const mcs_real *b0,
                     const mcs_real *b1, mcs_real *c, int ldc)
{
    mcs_real s[8] = {MCS_R(0.0), MCS_R(0.0), MCS_R(0.0), MCS_R(0.0),
                     MCS_R(0.0), MCS_R(0.0), MCS_R(0.0), MCS_R(0.0)};
    const volatile mcs_real *sums = s;
    mcs_real even;
    mcs_real odd;
    int l;
    for (l = 0; (l + 1) < rows; l += 2) {
        s[0] += a0[l] * b0[l];
        s[1] += a0[l + 1] * b0[l + 1];
        s[2] += a1[l] * b0[l];
        s[3] += a1[l + 1] * b0[l + 1];
        s[4] += a0[l] * b1[l];
        s[5] += a0[l + 1] * b1[l + 1];
        s[6] += a1[l] * b1[l];
        s[7] += a1[l + 1] * b1[l + 1];
    }
    if (l < rows) {
        s[0] += a0[l] * b0[l];
        s[2] += a1[l] * b0[l];
        s[4] += a0[l] * b1[l];
        s[6] += a1[l] * b1[l];
    }
    /* one volatile read a statement (MISRA 13.2) */
    even = sums[0];
    odd = sums[1];
    c[0] = even + odd;
    even = sums[2];
    odd = sums[3];
    c[1] = even + odd;
    even = sums[4];
    odd = sums[5];
    c[ldc] = even + odd;
    even = sums[6];
    odd = sums[7];
    c[ldc + 1] = even + odd;
}
#endif

void mcs_mat_multiply_tn(int rows, int cols_a, int cols_b, const mcs_real *a, int lda,
                         const mcs_real *b, int ldb, int symmetric, mcs_real *c, int ldc)
{
    int i;
    int j;
#ifndef MCS_LINALG_PORTABLE
    if (((double)rows * (double)cols_a * (double)cols_b) >= MCS_LA_GEMM_MIN) {
        mcs_la_gemm(1, 0, cols_a, cols_b, rows, 1, a, lda, b, ldb, 0, c, ldc);
        return;
    }
#endif
    /* 2 x 2 blocks of c (symmetric: down to the block on the diagonal, whose entry below it the
     * mirror then overwrites), the odd row or column by dot_pairs; with MCS_SMALL_KERNELS every
     * entry by dot_pairs (the same sums) */
    for (j = 0; (j + 1) < cols_b; j += 2) {
        const mcs_real *b0 = &b[j * ldb];
        const mcs_real *b1 = &b[(j + 1) * ldb];
        int last = cols_a;
        if (symmetric != 0) {
            last = j + 2;
        }
        i = 0;
#if MCS_SMALL_KERNELS == 0
        for (; (i + 1) < last; i += 2) {
            dots_2x2(rows, &a[i * lda], &a[(i + 1) * lda], b0, b1, &c[i + (j * ldc)], ldc);
        }
#endif
        for (; i < last; ++i) {
            c[i + (j * ldc)] = dot_pairs(rows, &a[i * lda], b0);
            c[i + ((j + 1) * ldc)] = dot_pairs(rows, &a[i * lda], b1);
        }
    }
    if (j < cols_b) {
        int last = cols_a;
        if (symmetric != 0) {
            last = j + 1;
        }
        for (i = 0; i < last; ++i) {
            c[i + (j * ldc)] = dot_pairs(rows, &a[i * lda], &b[j * ldb]);
        }
    }
    if (symmetric != 0) { /* the lower triangle from the upper: c exactly symmetric */
        for (j = 0; j < cols_b; ++j) {
            for (i = 0; i < j; ++i) {
                c[j + (i * ldc)] = c[i + (j * ldc)];
            }
        }
    }
}
