/* mcs_linalg_eig.c - eigenvalue routines of the mcs_la_* interface (modal analysis).
 *
 * LAPACK backend: dsyev (symmetric) and dggev (general pencil), _work variants.
 * Portable backend: the symmetric problem by cyclic Jacobi rotations (robust, accurate to the
 * last digits for the model-sized matrices of modal analysis); the general pencil is not
 * available there (firmware computes undamped modes only) and returns MCS_LA_UNSUPPORTED.
 */
#include "linalg/mcs_linalg.h"

#ifndef MCS_LINALG_PORTABLE
#include <lapacke.h>

#ifdef MCS_REAL_FLOAT
#define mcs_lapacke_syev LAPACKE_ssyev_work
#define mcs_lapacke_ggev LAPACKE_sggev_work
#else
#define mcs_lapacke_syev LAPACKE_dsyev_work
#define mcs_lapacke_ggev LAPACKE_dggev_work
#endif

int mcs_la_sym_eig(int n, mcs_real *a, int lda, mcs_real *w, mcs_real *work, int lwork)
{
    if (n == 0) {
        return 0;
    }
    return (int)mcs_lapacke_syev(LAPACK_COL_MAJOR, 'V', 'L', n, a, lda, w, work, lwork);
}

int mcs_la_gen_eig(int n, mcs_real *a, int lda, mcs_real *b, int ldb, mcs_real *alphar,
                   mcs_real *alphai, mcs_real *beta, mcs_real *vr, int ldvr, mcs_real *work,
                   int lwork)
{
    mcs_real vl_dummy = MCS_R(0.0);
    if (n == 0) {
        return 0;
    }
    return (int)mcs_lapacke_ggev(LAPACK_COL_MAJOR, 'N', 'V', n, a, lda, b, ldb, alphar, alphai,
                                 beta, &vl_dummy, 1, vr, ldvr, work, lwork);
}

#else /* MCS_LINALG_PORTABLE */

/* One Jacobi rotation zeroing a[p, q] of the symmetric a (both triangles kept), accumulated into
 * the eigenvector matrix v. */
static void jacobi_rotate(int n, mcs_real *a, int lda, mcs_real *v, int p, int q)
{
    const mcs_real apq = a[p + (q * lda)];
    const mcs_real theta = (a[q + (q * lda)] - a[p + (p * lda)]) / (MCS_R(2.0) * apq);
    const mcs_real t = ((theta >= MCS_R(0.0)) ? 1 : -1) /
                       (mcs_fabs(theta) + mcs_sqrt((theta * theta) + MCS_R(1.0)));
    const mcs_real c = MCS_R(1.0) / mcs_sqrt((t * t) + MCS_R(1.0));
    const mcs_real s = t * c;
    int k;
    for (k = 0; k < n; ++k) { /* columns p, q */
        const mcs_real akp = a[k + (p * lda)];
        const mcs_real akq = a[k + (q * lda)];
        a[k + (p * lda)] = (c * akp) - (s * akq);
        a[k + (q * lda)] = (s * akp) + (c * akq);
    }
    for (k = 0; k < n; ++k) { /* rows p, q */
        const mcs_real apk = a[p + (k * lda)];
        const mcs_real aqk = a[q + (k * lda)];
        a[p + (k * lda)] = (c * apk) - (s * aqk);
        a[q + (k * lda)] = (s * apk) + (c * aqk);
    }
    a[p + (q * lda)] = MCS_R(0.0);
    a[q + (p * lda)] = MCS_R(0.0);
    for (k = 0; k < n; ++k) {
        const mcs_real vkp = v[k + (p * n)];
        const mcs_real vkq = v[k + (q * n)];
        v[k + (p * n)] = (c * vkp) - (s * vkq);
        v[k + (q * n)] = (s * vkp) + (c * vkq);
    }
}

int mcs_la_sym_eig(int n, mcs_real *a, int lda, mcs_real *w, mcs_real *work, int lwork)
{
    mcs_real *v = work; /* (n x n) eigenvectors */
    int i;
    int j;
    int sweep;
    if (n == 0) {
        return 0;
    }
    if (lwork < (n * n)) {
        return -1;
    }
    for (j = 0; j < n; ++j) { /* fill the upper triangle from the lower one (LAPACK's 'L') */
        for (i = 0; i < j; ++i) {
            a[i + (j * lda)] = a[j + (i * lda)];
        }
    }
    for (j = 0; j < n; ++j) {
        for (i = 0; i < n; ++i) {
            v[i + (j * n)] = (i == j);
        }
    }
    for (sweep = 0; sweep < 60; ++sweep) {
        mcs_real off = MCS_R(0.0);
        mcs_real diag = MCS_R(0.0);
        for (j = 0; j < n; ++j) {
            diag += a[j + (j * lda)] * a[j + (j * lda)];
            for (i = 0; i < j; ++i) {
                off += a[i + (j * lda)] * a[i + (j * lda)];
            }
        }
        if ((off <= (MCS_REAL_EPS * MCS_REAL_EPS * diag)) || (off == MCS_R(0.0))) {
            break;
        }
        for (j = 1; j < n; ++j) {
            for (i = 0; i < j; ++i) {
                if (a[i + (j * lda)] != MCS_R(0.0)) {
                    jacobi_rotate(n, a, lda, v, i, j);
                }
            }
        }
    }
    if (sweep == 60) {
        return 1;
    }
    /* eigenvalues ascending (insertion sort), vectors alongside, copied into a */
    for (j = 0; j < n; ++j) {
        w[j] = a[j + (j * lda)];
    }
    for (j = 1; j < n; ++j) {
        for (i = j; (i > 0) && (w[i - 1] > w[i]); --i) {
            const mcs_real tw = w[i - 1];
            int k;
            w[i - 1] = w[i];
            w[i] = tw;
            for (k = 0; k < n; ++k) {
                const mcs_real tv = v[k + ((i - 1) * n)];
                v[k + ((i - 1) * n)] = v[k + (i * n)];
                v[k + (i * n)] = tv;
            }
        }
    }
    for (j = 0; j < n; ++j) {
        for (i = 0; i < n; ++i) {
            a[i + (j * lda)] = v[i + (j * n)];
        }
    }
    return 0;
}

int mcs_la_gen_eig(int n, mcs_real *a, int lda, mcs_real *b, int ldb, mcs_real *alphar,
                   mcs_real *alphai, mcs_real *beta, mcs_real *vr, int ldvr, mcs_real *work,
                   int lwork)
{
    (void)n, (void)a, (void)lda, (void)b, (void)ldb, (void)alphar, (void)alphai, (void)beta;
    (void)vr;
    (void)ldvr;
    (void)work;
    (void)lwork;
    return MCS_LA_UNSUPPORTED;
}

#endif /* MCS_LINALG_PORTABLE */
