/* mcs_basis.h - tangent basis from the column-pivoted QR and its continuation (SPEC §2, §3).
 *
 * Pure functions on caller-owned arrays (column-major), usable without a model:
 *   mcs_qr_basis         A^T P = Q R, rank r, U = Q[:, :r], T = Q[:, r:]          (SPEC §2)
 *   mcs_predict_tangent  T~ from the previous Q, R, P and A_dot over a step h       (SPEC §3.1-4)
 *   mcs_align_basis      polar re-orthogonalization of the new T^ to T~ (any rank change, §3.6-7)
 *   mcs_min_norm_multipliers  least-squares lambda of A^T lambda = g, minimum norm over
 *                        dependent rows (joint reactions, statics)
 */
#ifndef MCS_BASIS_H
#define MCS_BASIS_H

#include "mcs_config.h"
#include "mcs_status.h"

typedef enum mcs_continuation {
    MCS_CONT_EXP = 0,   /* predictor Q exp(h Omega), diagonal Padé */
    MCS_CONT_EULER = 1, /* first-order predictor T - h U Omega_s^T (000 eq. 27) */
    MCS_CONT_NONE = 2,  /* no predictor: T~ = T (polar alignment only) */
    MCS_CONT_OFF = 3    /* traditional QR: T = T^ of each new factorization */
} mcs_continuation;

/* Real workspace of mcs_qr_basis / mcs_predict_tangent / mcs_align_basis for n coordinates and
 * m constraints (each needs less: MCS_BASIS_QR_WORK_SIZE, MCS_BASIS_ALIGN_WORK_SIZE, and 7 n^2
 * for the exp predictor, n^2 for euler). */
#define MCS_BASIS_MAX(a, b) (((a) > (b)) ? (a) : (b))
#define MCS_BASIS_K(n, m) MCS_BASIS_MAX(MCS_BASIS_MAX((n), (m)), 1)
#define MCS_BASIS_WORK_SIZE(n, m) \
    ((9 * MCS_BASIS_K(n, m) * MCS_BASIS_K(n, m)) + (2 * MCS_BASIS_K(n, m)) + \
     MCS_LINALG_LWORK(MCS_BASIS_K(n, m)))
#define MCS_BASIS_IWORK_SIZE(n, m) (MCS_BASIS_K(n, m))
/* What mcs_qr_basis alone needs, and mcs_align_basis for bases of up to f columns. */
#define MCS_BASIS_QR_WORK_SIZE(n, m) (MCS_BASIS_K(n, m) + MCS_LINALG_LWORK_QR(MCS_BASIS_K(n, m)))
#define MCS_BASIS_ALIGN_WORK_SIZE(f) \
    ((4 * MCS_BASIS_K(f, 0) * MCS_BASIS_K(f, 0)) + MCS_BASIS_K(f, 0) + \
     MCS_LINALG_LWORK(MCS_BASIS_K(f, 0)))

/* Factor A^T P = Q R for A (m x n, lda >= m).
 * Out: Q (n x n, ld n) orthogonal; R (n x m, ld n) with R in its upper triangle; piv (m) the
 * 0-based pivot order (piv[0..r-1] = S, the independent rows); *rank = number of leading
 * |R_ii| > rank_tol |R_11|. work: MCS_BASIS_WORK_SIZE(n, m) reals. Returns MCS_OK, or
 * MCS_ERR_LINALG when LAPACK reports an error. */
mcs_status mcs_qr_basis(int n, int m, const mcs_real *A, int lda, mcs_real rank_tol, mcs_real *Q,
                        mcs_real *R, int *piv, int *rank, mcs_real *work);

/* Predict the tangent basis after a step h (SPEC §3 steps 1-4).
 * In: Q (n x n) = [U T] at the start (T continued), R (n x m, ld n) and piv (m) from the start
 * factorization, rank r, A_dot (m x n, ld m) at the start state.
 * Out: Tpred (n x f, ld n), f = n - r. work: MCS_BASIS_WORK_SIZE, iwork: MCS_BASIS_IWORK_SIZE.
 * kind MCS_CONT_OFF or MCS_CONT_NONE copies T. Returns MCS_OK; MCS_ERR_NONFINITE when h or
 * the prediction is not finite, or (exp) any entry of A_dot (euler reads only the rows
 * piv[0..r-1], and a NaN or Inf there reaches every entry of Tpred); MCS_ERR_LINALG when the
 * exponential fails. */
mcs_status mcs_predict_tangent(int n, int m, int r, const mcs_real *Q, const mcs_real *R,
                               const int *piv, const mcs_real *A_dot, mcs_real h,
                               mcs_continuation kind, mcs_real *Tpred, mcs_real *work, int *iwork);

/* A_dot (m x n) by its nonzeros, row by row, for mcs_predict_tangent_rows: row i's entries are
 * val[k] in column col[k] for k = at[p], start[i] <= p < start[i + 1], columns ascending (a
 * model's pattern of A, mcs_model's a_row_start, a_row_nz and a_cols, with the values of its
 * A_dot_nz kernel); val has nnz entries. */
typedef struct {
    const int *start;    /* (m + 1) */
    const int *at;       /* (start[m]) */
    const int *col;      /* (nnz) */
    const mcs_real *val; /* (nnz) */
    int nnz;
} mcs_sparse_rows;

/* mcs_predict_tangent with A_dot by its nonzeros (the same sums, term for term, without
 * scanning dense rows for them): the same results, and MCS_ERR_NONFINITE for exp when any of
 * val is not finite. */
mcs_status mcs_predict_tangent_rows(int n, int m, int r, const mcs_real *Q, const mcs_real *R,
                                    const int *piv, const mcs_sparse_rows *A_dot, mcs_real h,
                                    mcs_continuation kind, mcs_real *Tpred, mcs_real *work,
                                    int *iwork);

/* Polar alignment (002 App. A, SPEC §3.6-7). In: Tpred (n x f_old), That (n x f_new), both with
 * orthonormal columns. With g = min(f_old, f_new) and SVD  Tpred[:, :g]^T That = W S V^T:
 *   Tout[:, :g] = That V[:, :g] W^T   (the recombination of That closest to the prediction)
 *   Tout[:, g:] = That V[:, g:]       (new motions when f_new > f_old)
 * Tout (n x f_new) must not alias the inputs. work: MCS_BASIS_WORK_SIZE(n, 0) reals. Returns
 * MCS_OK, or MCS_ERR_LINALG when the SVD fails. */
mcs_status mcs_align_basis(int n, int f_old, const mcs_real *Tpred, int f_new, const mcs_real *That,
                           mcs_real *Tout, mcs_real *work);

/* The multipliers lambda (m) that best satisfy A^T lambda = g (n) in the least-squares sense,
 * minimum-norm when rows are dependent, from the factorization A^T P = Q R of mcs_qr_basis with
 * rank r: with mu = P^T lambda and R1 = R[:r, :] (r x m), R1 mu = U^T g and
 * mu = R1^T (R1 R1^T)^-1 U^T g. Scratch: N (r x r), y (r). Returns MCS_OK, or
 * MCS_ERR_SINGULAR_CHART when R1 R1^T is not positive definite. */
mcs_status mcs_min_norm_multipliers(int n, int m, int r, const mcs_real *Q, const mcs_real *R,
                                    const int *piv, const mcs_real *g, mcs_real *lambda,
                                    mcs_real *N, mcs_real *y);

#endif /* MCS_BASIS_H */
