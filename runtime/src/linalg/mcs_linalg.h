/* mcs_linalg.h - the one internal interface to dense linear algebra.
 *
 * Two backends implement the mcs_la_* routines: mcs_linalg_lapack.c (LAPACKE _work routines, no
 * allocation) and, with MCS_LINALG_PORTABLE, mcs_linalg_portable.c (self-contained C99 for
 * firmware). The mcs_mat_* helpers (mcs_linalg.c) are small loops shared by both.
 * All matrices are column-major with an explicit leading dimension; every routine returns 0 on
 * success and a nonzero value on failure (a singular factor, an illegal argument).
 */
#ifndef MCS_LINALG_H
#define MCS_LINALG_H

#include "mcs/mcs_config.h"

/* Real workspace (entries) that every mcs_la_* call below accepts for matrices of order <= k. */
#define MCS_LA_LWORK(k) MCS_LINALG_LWORK(k)

/* Column-pivoted Householder QR of a (rows x cols): a P = Q R. On return R is in the upper
 * triangle of a, the reflectors below it, tau (min(rows, cols)); jpvt (cols) holds the 0-based
 * column permutation (jpvt[j] = original column in position j). */
int mcs_la_qr_pivoted(int rows, int cols, mcs_real *a, int lda, int *jpvt, mcs_real *tau,
                      mcs_real *work, int lwork);
/* The full orthogonal Q (rows x rows) from the k reflectors of mcs_la_qr_pivoted. q must hold
 * the reflectors in its first k columns on entry (copied from a). */
int mcs_la_qr_form_q(int rows, int k, mcs_real *q, int ldq, const mcs_real *tau, mcs_real *work,
                     int lwork);
/* LU with partial pivoting of a square a (n x n), and solve with it for nrhs right-hand sides. */
int mcs_la_lu(int n, mcs_real *a, int lda, int *ipiv);
int mcs_la_lu_solve(int n, int nrhs, const mcs_real *lu, int lda, const int *ipiv, mcs_real *b,
                    int ldb);
/* Cholesky a = L L^T (lower triangle used), and solve with it. Fails when a is not PD. */
int mcs_la_cholesky(int n, mcs_real *a, int lda);
int mcs_la_cholesky_solve(int n, int nrhs, const mcs_real *l, int lda, mcs_real *b, int ldb);
/* Full SVD a = U diag(s) V^T of a (rows x cols); u (rows x rows), vt (cols x cols).
 * a is destroyed. */
int mcs_la_svd(int rows, int cols, mcs_real *a, int lda, mcs_real *s, mcs_real *u, int ldu,
               mcs_real *vt, int ldvt, mcs_real *work, int lwork);
/* Eigenvalues (mcs_linalg_eig.c). Symmetric a (n x n, lower triangle used): on return w (n)
 * ascending and a holds the orthonormal eigenvectors in its columns. Real workspace:
 * MCS_LA_LWORK(n). */
int mcs_la_sym_eig(int n, mcs_real *a, int lda, mcs_real *w, mcs_real *work, int lwork);
/* The general pencil a v = lambda b v (both n x n, destroyed): lambda_j = (alphar_j + i alphai_j) /
 * beta_j; right eigenvectors in vr (n x n) in LAPACK's dggev packing (a complex pair j, j+1 is
 * vr[:, j] +- i vr[:, j+1]). Real workspace: MCS_LA_LWORK(n). Returns MCS_LA_UNSUPPORTED with
 * the portable backend. */
#define MCS_LA_UNSUPPORTED (-1000)
int mcs_la_gen_eig(int n, mcs_real *a, int lda, mcs_real *b, int ldb, mcs_real *alphar,
                   mcs_real *alphai, mcs_real *beta, mcs_real *vr, int ldvr, mcs_real *work,
                   int lwork);

/* LAPACK backend only: c = alpha op(a) op(b) + beta c by the BLAS (cblas_?gemm), which
 * mcs_mat_gemm hands the products of at least MCS_LA_GEMM_MIN multiply-adds (the large models':
 * the 43-body anchor chain's U Z is 301 x 80 x 221). */
#define MCS_LA_GEMM_MIN 32768.0
void mcs_la_gemm(int ta, int tb, int rows, int cols, int inner, mcs_real alpha, const mcs_real *a,
                 int lda, const mcs_real *b, int ldb, mcs_real beta, mcs_real *c, int ldc);

/* LAPACK backend only: b (rows x k) <- b R^-1, R upper triangular (cblas_?trsm). */
void mcs_la_trsm_right_upper(int rows, int k, const mcs_real *r, int ldr, mcs_real *b, int ldb);

/* --- tangent-basis pieces the default and the compact simulator share (mcs_basis.c) --- */
/* The rank of a pivoted QR's R (ld ldr): the leading |R_ii| > rank_tol |R_00|, i < kmin. */
int mcs_qr_rank(int rows, int kmin, const mcs_real *R, int ldr, mcs_real rank_tol);
/* E (n x f, f = n - r) = exp(h Omega)[:, r:] for the skew Omega that J (n x r, ld n: Q^T A_dot_S^T
 * R_ns^-1) defines (SPEC §3.2-4). omega: n x n, E: n x n (the result in its first f columns),
 * scratch: 4 n x n, iwork: n. Nonzero when the exponential fails. */
int mcs_predict_exp_action(int n, int r, const mcs_real *J, mcs_real h, mcs_real *omega,
                           mcs_real *E, mcs_real *scratch, int *iwork);

/* Orthogonal polar factor of x (k x k) in place by the series of (X^T X)^-1/2 (y, z, w: k x k
 * scratch); nonzero when x is too far from orthogonal for it. */
int mcs_polar_near_orthogonal(int k, mcs_real *x, mcs_real *y, mcs_real *z, mcs_real *w);

/* --- helpers shared by both backends (mcs_linalg.c) --- */
/* c (rows x cols) = alpha op(a) op(b) + beta c, op = transpose when ta/tb is nonzero;
 * inner is the shared dimension. beta = 0 ignores the old contents of c. */
void mcs_mat_gemm(int ta, int tb, int rows, int cols, int inner, mcs_real alpha, const mcs_real *a,
                  int lda, const mcs_real *b, int ldb, mcs_real beta, mcs_real *c, int ldc);
/* c (rows x cols) = a b (accumulate 0) or c + a b (accumulate 1), neither transposed. Every
 * product is added, zeros too (mcs_mat_gemm's axpy form tests each multiplier): for dense
 * operands, 4 x 4 entries of c in registers (1 x 4 with MCS_SMALL_KERNELS); a large one by the
 * BLAS on the LAPACK backend. */
void mcs_mat_multiply(int rows, int cols, int inner, const mcs_real *a, int lda, const mcs_real *b,
                      int ldb, int accumulate, mcs_real *c, int ldc);
/* c (cols_a x cols_b) = a^T b for a (rows x cols_a) and b (rows x cols_b), each entry a dot
 * product as two interleaved sums; symmetric (cols_a = cols_b, a^T b known to be symmetric: a
 * Gram matrix, two commuting symmetric matrices): the upper triangle, mirrored, so c is exactly
 * symmetric. A large one by the BLAS on the LAPACK backend. */
void mcs_mat_multiply_tn(int rows, int cols_a, int cols_b, const mcs_real *a, int lda,
                         const mcs_real *b, int ldb, int symmetric, mcs_real *c, int ldc);
/* Solve X R = B in place (B is rows x k, R is k x k upper triangular): B <- B R^-1. */
void mcs_mat_solve_right_upper(int rows, int k, const mcs_real *r, int ldr, mcs_real *b, int ldb);
/* Solve R^T y = b in place for one vector (R k x k upper triangular). */
void mcs_mat_solve_upper_transposed(int k, const mcs_real *r, int ldr, mcs_real *b);
/* y (rows) <- Q y (trans 0) or Q^T y (trans 1), Q = H_0 H_1 ... H_{k-1} the orthogonal factor of
 * mcs_la_qr_pivoted kept as its reflectors: H_j = I - tau_j v_j v_j^T with v_j = (0 .. 0, 1,
 * a[j+1 .., j]) (a: rows x k, the reflectors below the diagonal, lda). 2 rows k - k^2 flops: the
 * compact simulator's U p and U^T y without an n x n Q. */
void mcs_qr_apply(int rows, int k, const mcs_real *a, int lda, const mcs_real *tau, int trans,
                  mcs_real *y);
/* Copy a (rows x cols) into b. */
void mcs_mat_copy(int rows, int cols, const mcs_real *a, int lda, mcs_real *b, int ldb);
/* The next `count` reals of the workspace `base` from offset *at, which moves past them: how
 * the statics and modes solvers carve the caller's block. */
mcs_real *mcs_work_next(mcs_real *base, size_t *at, size_t count);
/* Matrix exponential of a square a (n x n) by the diagonal [6/6] Padé approximant with scaling
 * and squaring; result in e. work: 4 n*n reals, ipiv: n ints. Skew a gives orthogonal e. */
int mcs_mat_expm(int n, const mcs_real *a, mcs_real *e, mcs_real *work, int *ipiv);
/* Largest absolute entry of a vector (0 for n = 0); -1 when an entry is NaN or Inf. */
mcs_real mcs_vec_max_abs(int n, const mcs_real *a);
/* 1-norm (largest column sum of |a_ij|) of a square a (n x n, ld n), the exponentials' scaling;
 * -1 when a column sum is NaN or Inf. */
mcs_real mcs_mat_norm1(int n, const mcs_real *a);

#endif /* MCS_LINALG_H */
