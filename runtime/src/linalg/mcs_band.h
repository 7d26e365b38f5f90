/* mcs_band.h - the banded simulator's linear algebra (mcs_band.c; internal). The model's
 * mcs_band_structure (mcs_model.h) gives the slots (A^T's rows in factorization order), R's band w
 * and every rotation's partner; n = nx, m = nc. */
#ifndef MCS_BAND_H
#define MCS_BAND_H

#include "mcs/mcs_model.h"

/* A^T = Q [R; 0] (slots permuted) from A's nonzeros a_nz (a_nnz, A_nz's order): R (m x w, row c
 * holds R(c, c .. c + w - 1)), the rotations' cosines and sines cs, sn (nrot each). win: w
 * reals of scratch. Nonzero when an entry is NaN or Inf. */
int mcs_band_qr(const mcs_model *md, const mcs_real *a_nz, mcs_real *R, mcs_real *cs, mcs_real *sn,
                mcs_real *win);
/* z (n, by slot) = Q^T y (y: n, by coordinate); z[owner[c]] is (U^T y)_c, the tangent slots'
 * entries (place < 0, in slot order) are T^T y. */
void mcs_band_qt(const mcs_model *md, const mcs_real *cs, const mcs_real *sn, const mcs_real *y,
                 mcs_real *z);
/* y (n, by coordinate) = Q z (z: n by slot, destroyed). */
void mcs_band_q(const mcs_model *md, const mcs_real *cs, const mcs_real *sn, mcs_real *z,
                mcs_real *y);
/* b (m) <- R^-T b. */
void mcs_band_solve_rt(int m, int w, const mcs_real *R, mcs_real *b);
/* LU with partial pivoting of an (N x N) matrix of half band kb in ab (LAPACK gbtrf's layout with
 * kl = ku = kb: entry (i, j) at ab[(2 kb + i - j) + j (3 kb + 1)], the kb rows above the band
 * zero on entry); nonzero when singular. Solve with it in place. */
int mcs_band_lu(int N, int kb, mcs_real *ab, int *ipiv);
void mcs_band_lu_solve(int N, int kb, const mcs_real *ab, const int *ipiv, mcs_real *b);

#endif /* MCS_BAND_H */
