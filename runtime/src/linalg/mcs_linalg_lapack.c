/* mcs_linalg_lapack.c - the mcs_la_* interface on LAPACKE's _work routines (no allocation:
 * the _work variants with LAPACK_COL_MAJOR pass straight through to LAPACK). */
#ifndef MCS_LINALG_PORTABLE
#include <cblas.h>
#include <lapacke.h>

#include "linalg/mcs_linalg.h"

#ifdef MCS_REAL_FLOAT
#define mcs_lapacke_geqp3 LAPACKE_sgeqp3_work
#define mcs_lapacke_gesvd LAPACKE_sgesvd_work
#define mcs_lapacke_getrf LAPACKE_sgetrf_work
#define mcs_lapacke_getrs LAPACKE_sgetrs_work
#define mcs_lapacke_orgqr LAPACKE_sorgqr_work
#define mcs_lapacke_potrf LAPACKE_spotrf_work
#define mcs_lapacke_potrs LAPACKE_spotrs_work
#define mcs_cblas_gemm cblas_sgemm
#define mcs_cblas_trsm cblas_strsm
#else
#define mcs_lapacke_geqp3 LAPACKE_dgeqp3_work
#define mcs_lapacke_gesvd LAPACKE_dgesvd_work
#define mcs_lapacke_getrf LAPACKE_dgetrf_work
#define mcs_lapacke_getrs LAPACKE_dgetrs_work
#define mcs_lapacke_orgqr LAPACKE_dorgqr_work
#define mcs_lapacke_potrf LAPACKE_dpotrf_work
#define mcs_lapacke_potrs LAPACKE_dpotrs_work
#define mcs_cblas_gemm cblas_dgemm
#define mcs_cblas_trsm cblas_dtrsm
#endif

void mcs_la_gemm(int ta, int tb, int rows, int cols, int inner, mcs_real alpha, const mcs_real *a,
                 int lda, const mcs_real *b, int ldb, mcs_real beta, mcs_real *c, int ldc)
{
    mcs_cblas_gemm(CblasColMajor, (ta != 0) ? CblasTrans : CblasNoTrans,
                   (tb != 0) ? CblasTrans : CblasNoTrans, rows, cols, inner, alpha, a, lda, b, ldb,
                   beta, c, ldc);
}

void mcs_la_trsm_right_upper(int rows, int k, const mcs_real *r, int ldr, mcs_real *b, int ldb)
{
    mcs_cblas_trsm(CblasColMajor, CblasRight, CblasUpper, CblasNoTrans, CblasNonUnit, rows, k,
                   MCS_R(1.0), r, ldr, b, ldb);
}

/* Sizes here are tiny (model dimensions); lapack_int is int in the LP64 build. */
int mcs_la_qr_pivoted(int rows, int cols, mcs_real *a, int lda, int *jpvt, mcs_real *tau,
                      mcs_real *work, int lwork)
{
    int j;
    int info;
    if (cols == 0) {
        return 0;
    }
    for (j = 0; j < cols; ++j) {
        jpvt[j] = 0; /* all columns free */
    }
    info = (int)mcs_lapacke_geqp3(LAPACK_COL_MAJOR, rows, cols, a, lda, jpvt, tau, work, lwork);
    for (j = 0; j < cols; ++j) {
        jpvt[j] -= 1; /* LAPACK is 1-based */
    }
    return info;
}

int mcs_la_qr_form_q(int rows, int k, mcs_real *q, int ldq, const mcs_real *tau, mcs_real *work,
                     int lwork)
{
    int i;
    int j;
    if (k == 0) {
        for (j = 0; j < rows; ++j) {
            for (i = 0; i < rows; ++i) {
                q[i + (j * ldq)] = (i == j);
            }
        }
        return 0;
    }
    return (int)mcs_lapacke_orgqr(LAPACK_COL_MAJOR, rows, rows, k, q, ldq, tau, work, lwork);
}

int mcs_la_lu(int n, mcs_real *a, int lda, int *ipiv)
{
    if (n == 0) {
        return 0;
    }
    return (int)mcs_lapacke_getrf(LAPACK_COL_MAJOR, n, n, a, lda, ipiv);
}

int mcs_la_lu_solve(int n, int nrhs, const mcs_real *lu, int lda, const int *ipiv, mcs_real *b,
                    int ldb)
{
    if ((n == 0) || (nrhs == 0)) {
        return 0;
    }
    return (int)mcs_lapacke_getrs(LAPACK_COL_MAJOR, 'N', n, nrhs, lu, lda, ipiv, b, ldb);
}

int mcs_la_cholesky(int n, mcs_real *a, int lda)
{
    if (n == 0) {
        return 0;
    }
    return (int)mcs_lapacke_potrf(LAPACK_COL_MAJOR, 'L', n, a, lda);
}

int mcs_la_cholesky_solve(int n, int nrhs, const mcs_real *l, int lda, mcs_real *b, int ldb)
{
    if ((n == 0) || (nrhs == 0)) {
        return 0;
    }
    return (int)mcs_lapacke_potrs(LAPACK_COL_MAJOR, 'L', n, nrhs, l, lda, b, ldb);
}

int mcs_la_svd(int rows, int cols, mcs_real *a, int lda, mcs_real *s, mcs_real *u, int ldu,
               mcs_real *vt, int ldvt, mcs_real *work, int lwork)
{
    if ((rows == 0) || (cols == 0)) {
        return 0;
    }
    return (int)mcs_lapacke_gesvd(LAPACK_COL_MAJOR, 'A', 'A', rows, cols, a, lda, s, u, ldu, vt,
                                  ldvt, work, lwork);
}
#endif /* !MCS_LINALG_PORTABLE */
