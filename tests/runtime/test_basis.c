/* test_basis.c - QR tangent basis, Padé exponential and polar alignment (mcs_basis.c, mcs_linalg.c).
 * Hand-made matrices with known rank and null space, including the three QR cases of paper 002:
 * m < n full rank; m <= n rank-deficient; m > n. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <stdio.h>
#include <cmocka.h>

#include "test_needs.h"

#include "mcs/mcs_basis.h"
#include "linalg/mcs_linalg.h"

#define NMAX 8
static mcs_real work[MCS_BASIS_WORK_SIZE(NMAX, NMAX)];
static int iwork[MCS_BASIS_IWORK_SIZE(NMAX, NMAX) + NMAX];

/* max |T^T T - I| for T (n x f) */
static double orthonormality_error(int n, int f, const mcs_real *T)
{
    double worst = 0;
    int i, j, k;
    for (i = 0; i < f; ++i)
        for (j = 0; j < f; ++j) {
            double s = 0;
            for (k = 0; k < n; ++k)
                s += T[k + i * n] * T[k + j * n];
            s -= (i == j);
            if (fabs(s) > worst)
                worst = fabs(s);
        }
    return worst;
}

/* max |A T| for A (m x n, ld m), T (n x f) */
static double null_error(int m, int n, const mcs_real *A, int f, const mcs_real *T)
{
    double worst = 0;
    int i, j, k;
    for (i = 0; i < m; ++i)
        for (j = 0; j < f; ++j) {
            double s = 0;
            for (k = 0; k < n; ++k)
                s += A[i + k * m] * T[k + j * n];
            if (fabs(s) > worst)
                worst = fabs(s);
        }
    return worst;
}

static void check_basis(int n, int m, const mcs_real *A, int rank_expected)
{
    mcs_real Q[NMAX * NMAX], R[NMAX * NMAX];
    int piv[NMAX], r = -1;
    assert_int_equal(mcs_qr_basis(n, m, A, m, 1e-9, Q, R, piv, &r, work), 0);
    assert_int_equal(r, rank_expected);
    assert_true(orthonormality_error(n, n, Q) < 1e-14);
    /* T spans the null space of every row (the dependent ones too) */
    assert_true(null_error(m, n, A, n - r, Q + r * n) < 1e-14);
    /* U spans the row space: A^T = U (U^T A^T) */
    {
        int i, j, k;
        for (i = 0; i < m; ++i)
            for (j = 0; j < n; ++j) {
                double proj = 0;
                for (k = 0; k < r; ++k) {
                    double uk = 0;
                    int l;
                    for (l = 0; l < n; ++l)
                        uk += Q[l + k * n] * A[i + l * m];
                    proj += Q[j + k * n] * uk;
                }
                assert_true(fabs(proj - A[i + j * m]) < 1e-13);
            }
    }
}

static void test_qr_full_rank_m_lt_n(void **state)
{
    /* 2 x 4, independent rows */
    const mcs_real A[8] = {1, 0, 2, 1, 0, 3, -1, 1}; /* column-major: rows (1,2,0,-1), (0,1,3,1) */
    (void)state;
    check_basis(4, 2, A, 2);
}

static void test_qr_rank_deficient_m_le_n(void **state)
{
    /* 3 x 4 with row 3 = row 1 + 2 row 2: rank 2 */
    const mcs_real A[12] = {1, 0, 1, 2, 1, 4, 0, 3, 6, -1, 1, 1};
    (void)state;
    check_basis(4, 3, A, 2);
}

static void test_qr_m_gt_n(void **state)
{
    /* 4 x 3: rows (1,0,0), (0,1,0), (1,1,0), (2,-1,0): rank 2, null space e3 */
    const mcs_real A[12] = {1, 0, 1, 2, 0, 1, 1, -1, 0, 0, 0, 0};
    mcs_real Q[9], R[12];
    int piv[4], r;
    (void)state;
    check_basis(3, 4, A, 2);
    assert_int_equal(mcs_qr_basis(3, 4, A, 4, 1e-9, Q, R, piv, &r, work), 0);
    assert_true(fabs(fabs(Q[2 + 2 * 3]) - 1) < 1e-15); /* T = +-e3 */
}

static void test_qr_redundant_pendulum(void **state)
{
    /* the same constraint row twice (002 §3.1): m = n = 2, rank 1 */
    const mcs_real A[4] = {0.6, 0.6, -1.6, -1.6};
    (void)state;
    check_basis(2, 2, A, 1);
}

static void test_qr_no_constraints(void **state)
{
    mcs_real Q[9], R[1];
    int piv[1], r = -1;
    (void)state;
    assert_int_equal(mcs_qr_basis(3, 0, NULL, 1, 1e-9, Q, R, piv, &r, work), 0);
    assert_int_equal(r, 0);
    assert_true(orthonormality_error(3, 3, Q) == 0);
}

static void random_skew(int n, mcs_real *S, unsigned *seed, double scale)
{
    int i, j;
    for (j = 0; j < n; ++j)
        for (i = 0; i <= j; ++i) {
            double v;
            *seed = *seed * 1103515245u + 12345u;
            v = ((double)((*seed >> 8) & 0xffff) / 65535.0 - 0.5) * scale;
            S[i + j * n] = (i == j) ? 0 : v;
            S[j + i * n] = (i == j) ? 0 : -v;
        }
}

static void test_expm_skew_is_orthogonal(void **state)
{
    mcs_real S[36], E[36], ew[4 * 36];
    int ipiv[6];
    unsigned seed = 7;
    double scales[] = {1e-3, 0.3, 2.0, 40.0};
    int k;
    (void)state;
    for (k = 0; k < 4; ++k) {
        random_skew(6, S, &seed, scales[k]);
        assert_int_equal(mcs_mat_expm(6, S, E, ew, ipiv), 0);
        assert_true(orthonormality_error(6, 6, E) < 1e-14 * (1 + scales[k]));
    }
}

static void test_expm_plane_rotation(void **state)
{
    const double th = 0.7;
    mcs_real S[4] = {0, th, -th, 0}, E[4], ew[16];
    int ipiv[2];
    (void)state;
    assert_int_equal(mcs_mat_expm(2, S, E, ew, ipiv), 0);
    assert_true(fabs(E[0] - cos(th)) < 1e-15 && fabs(E[1] - sin(th)) < 1e-15);
    assert_true(fabs(E[2] + sin(th)) < 1e-15 && fabs(E[3] - cos(th)) < 1e-15);
}

/* trace(Tout^T Tpred): the polar alignment maximizes it over all recombinations That X, X orthogonal */
static double alignment(int n, int f, const mcs_real *T, const mcs_real *P)
{
    double s = 0;
    int i;
    for (i = 0; i < n * f; ++i)
        s += T[i] * P[i];
    return s;
}

static void test_align_is_optimal(void **state)
{
    /* That = an orthonormal basis of a 3-dim subspace of R^5; Tpred = a rotated, perturbed copy */
    enum { n = 5, f = 3 };
    mcs_real A[2 * n] = {1, 0, 2, -1, 0, 1, 1, 0, 1, 3}, Q[n * n], R[n * 2];
    mcs_real Tpred[n * f], Tout[n * f], S[f * f], X[f * f], ew[4 * f * f], cand[n * f];
    int piv[2], r, ipiv[f], trial;
    unsigned seed = 3;
    double best;
    (void)state;
    /* A is 2 x 5 (ld 2) */
    assert_int_equal(mcs_qr_basis(n, 2, A, 2, 1e-9, Q, R, piv, &r, work), 0);
    assert_int_equal(r, 2);
    random_skew(f, S, &seed, 1.5);
    mcs_mat_expm(f, S, X, ew, ipiv);
    mcs_mat_gemm(0, 0, n, f, f, 1, Q + r * n, n, X, f, 0, Tpred, n);
    Tpred[0] += 0.05; /* leave the subspace a little, as a predictor does */
    assert_int_equal(mcs_align_basis(n, f, Tpred, f, Q + r * n, Tout, work), 0);
    assert_true(orthonormality_error(n, f, Tout) < 1e-14);
    assert_true(null_error(2, n, A, f, Tout) < 1e-14);
    best = alignment(n, f, Tout, Tpred);
    for (trial = 0; trial < 200; ++trial) { /* no other recombination does better */
        random_skew(f, S, &seed, 0.2);
        mcs_mat_expm(f, S, X, ew, ipiv);
        mcs_mat_gemm(0, 0, n, f, f, 1, Tout, n, X, f, 0, cand, n);
        assert_true(alignment(n, f, cand, Tpred) <= best + 1e-14);
    }
}

/* one free direction: the aligned basis is +-That (to round-off), the sign of Tpred . That (a
 * near reversal included), by the series or, for a Tpred nearly orthogonal to That, the SVD */
static void test_align_one_direction_is_the_sign(void **state)
{
    enum { n = 4 };
    const mcs_real That[n] = {0.5, -0.5, 0.5, 0.5};
    mcs_real Tpred[n], Tout[n];
    static const double tilt[] = {0.0, 0.3, -0.2, 2.9, -3.0, 1.4};
    size_t t;
    int i;
    (void)state;
    for (t = 0; t < sizeof tilt / sizeof tilt[0]; ++t) {
        /* Tpred = That rotated by tilt[t] towards (0.5, 0.5, -0.5, 0.5) */
        const double c = cos(tilt[t]), sn = sin(tilt[t]);
        const mcs_real other[n] = {0.5, 0.5, -0.5, 0.5};
        for (i = 0; i < n; ++i)
            Tpred[i] = (mcs_real)(c * That[i] + sn * other[i]);
        assert_int_equal(mcs_align_basis(n, 1, Tpred, 1, That, Tout, work), 0);
        for (i = 0; i < n; ++i)
            assert_true(fabs(Tout[i] - (c < 0 ? -That[i] : That[i])) < 4 * MCS_REAL_EPS);
    }
    Tpred[0] = (mcs_real)NAN;
    assert_int_equal(mcs_align_basis(n, 1, Tpred, 1, That, Tout, work), MCS_ERR_NONFINITE);
}

/* The general alignment of two free directions as plain loops, operation by operation: C as
 * mcs_mat_multiply_tn's even and odd sums, the series of (C^T C)^-1/2 as
 * mcs_polar_near_orthogonal's loops, That Up^T as mcs_mat_multiply's sums from 0. */
static void general_align_two(int n, const mcs_real *P, const mcs_real *H, mcs_real *out)
{
    static const double coef[9] = {1.0,          0.5,           0.375,
                                   0.3125,       0.2734375,     0.24609375,
                                   0.2255859375, 0.20947265625, 0.196380615234375};
    const mcs_real tol = 2 * MCS_REAL_EPS;
    mcs_real c[4], e[4], sm[4], nx[4], y[4];
    int i, j, l, it, d;
    for (j = 0; j < 2; ++j)
        for (i = 0; i < 2; ++i) {
            mcs_real even = 0, odd = 0;
            for (l = 0; l + 1 < n; l += 2) {
                even += P[l + i * n] * H[l + j * n];
                odd += P[l + 1 + i * n] * H[l + 1 + j * n];
            }
            if (l < n)
                even += P[l + i * n] * H[l + j * n];
            c[i + 2 * j] = even + odd;
        }
    for (it = 0; it < 8; ++it) {
        mcs_real delta = 0, omitted;
        for (j = 0; j < 2; ++j) /* E = I - C^T C, entry by entry as small_product's sums */
            for (i = 0; i < 2; ++i)
                e[i + 2 * j] = -((c[2 * i] * c[2 * j]) + (c[1 + 2 * i] * c[1 + 2 * j]));
        e[0] += 1;
        e[3] += 1;
        for (i = 0; i < 4; ++i)
            delta = fabs(e[i]) > delta ? (mcs_real)fabs(e[i]) : delta;
        assert_true(delta < 0.3);
        if (delta <= 4 * tol)
            break;
        d = 1;
        omitted = delta * delta;
        for (j = 1; j < 8; ++j)
            if (omitted > tol) {
                ++d;
                omitted *= delta;
            }
        for (i = 0; i < 4; ++i)
            sm[i] = (mcs_real)coef[d] * e[i];
        sm[0] += (mcs_real)coef[d - 1];
        sm[3] += (mcs_real)coef[d - 1];
        for (j = d - 2; j >= 0; --j) {
            for (l = 0; l < 2; ++l) /* column l of E S (E symmetric: E^T's rows) */
                for (i = 0; i < 2; ++i)
                    nx[i + 2 * l] = (e[2 * i] * sm[2 * l]) + (e[1 + 2 * i] * sm[1 + 2 * l]);
            nx[0] += (mcs_real)coef[j];
            nx[3] += (mcs_real)coef[j];
            memcpy(sm, nx, sizeof sm);
        }
        for (l = 0; l < 2; ++l) /* C S */
            for (i = 0; i < 2; ++i)
                y[i + 2 * l] = (c[i] * sm[2 * l]) + (c[i + 2] * sm[1 + 2 * l]);
        memcpy(c, y, sizeof c);
        if (omitted <= tol)
            break;
    }
    for (l = 0; l < n; ++l) {
        out[l] = ((mcs_real)0 + (H[l] * c[0])) + (H[l + n] * c[2]);
        out[l + n] = ((mcs_real)0 + (H[l] * c[1])) + (H[l + n] * c[3]);
    }
}

/* Two free directions (the spatial pendulum's), C from orthogonal to |I - C^T C| about 0.1
 * (series of degree 1 to 8): the alignment is the general one bit for bit, with or without MCS_SMALL_KERNELS (whose builds
 * leave the two-direction shortcut out) */
static void test_align_two_directions_is_the_general_one(void **state)
{
    enum { n = 5 };
    static const double angles[] = {1e-9, 1e-4, 3e-3, 0.05, -0.2, 0.3};
    mcs_real A[3 * n] = {1, 0, 2, -1, 0, 1, 1, 0, 1, 3, 0, 2, 1, 1, -1}, Q[n * n], R[n * 3];
    mcs_real Tpred[n * 2], Tout[n * 2], ref[n * 2];
    int piv[3], r, i;
    size_t t;
    (void)state;
    assert_int_equal(mcs_qr_basis(n, 3, A, 3, 1e-9, Q, R, piv, &r, work), 0);
    assert_int_equal(r, 3);
    for (t = 0; t < sizeof angles / sizeof angles[0]; ++t) {
        const double a = angles[t], c = cos(a), sn = sin(a);
        for (i = 0; i < n; ++i) { /* T~ = T^ rotated, stretched and sheared in its plane by
                                     about a^2 (C that far from orthogonal), and off it */
            const double t0 = c * Q[i + 3 * n] - sn * Q[i + 4 * n];
            const double t1 = sn * Q[i + 3 * n] + c * Q[i + 4 * n];
            Tpred[i] = (mcs_real)((1 + a * a / 2) * t0 + 1e-3 * Q[i]);
            Tpred[i + n] = (mcs_real)(t1 + a * a / 3 * t0);
        }
        assert_int_equal(mcs_align_basis(n, 2, Tpred, 2, Q + 3 * n, Tout, work), 0);
        general_align_two(n, Tpred, Q + 3 * n, ref);
        assert_memory_equal(Tout, ref, sizeof Tout);
        assert_true(orthonormality_error(n, 2, Tout) < 1e-15);
    }
}

static void test_align_reports_nonfinite_inputs(void **state)
{
    /* a NaN or an Inf at any place of T~ or T^ is reported, whatever the path: one direction
     * (the sign), two (in registers), three and five (the series), and a rank change (the SVD) */
    enum { n = 6 };
    static const int f_old[5] = {1, 2, 3, 5, 2};
    static const int f_new[5] = {1, 2, 3, 5, 3};
    const mcs_real bad[2] = {NAN, -INFINITY};
    mcs_real Tpred[n * n], That[n * n], Tout[n * n];
    int c, b, side, at, i;
    (void)state;
    for (c = 0; c < 5; ++c) {
        for (b = 0; b < 2; ++b) {
            for (side = 0; side < 2; ++side) {
                const int size = n * ((side == 0) ? f_old[c] : f_new[c]);
                for (at = 0; at < size; ++at) {
                    for (i = 0; i < n * n; ++i) { /* the identity's columns, T~ slightly turned */
                        That[i] = (i % (n + 1) == 0) ? 1.0 : 0.0;
                        Tpred[i] = That[i] + ((i % (n + 1) == 1) ? 1e-3 : 0.0);
                    }
                    assert_int_equal(
                        mcs_align_basis(n, f_old[c], Tpred, f_new[c], That, Tout, work), MCS_OK);
                    ((side == 0) ? Tpred : That)[at] = bad[b];
                    assert_int_equal(
                        mcs_align_basis(n, f_old[c], Tpred, f_new[c], That, Tout, work),
                        MCS_ERR_NONFINITE);
                }
            }
        }
    }
}

static void test_align_rank_change_keeps_continued_column(void **state)
{
    /* f_old = 1 -> f_new = 3 (a singular configuration): the continued motion stays first */
    enum { n = 3 };
    mcs_real Tpred[n] = {0.6, 0.8, 0}, That[n * n], Tout[n * n];
    int i;
    (void)state;
    for (i = 0; i < n * n; ++i)
        That[i] = (i % (n + 1) == 0);
    assert_int_equal(mcs_align_basis(n, 1, Tpred, n, That, Tout, work), 0);
    assert_true(orthonormality_error(n, n, Tout) < 1e-14);
    for (i = 0; i < n; ++i)
        assert_true(fabs(Tout[i] - Tpred[i]) < 1e-14);
    /* and back: f_old = 3 -> f_new = 1 aligns with the leading column */
    {
        mcs_real Tone[n] = {0, -0.8, 0.6}, out1[n];
        assert_int_equal(mcs_align_basis(n, 3, Tout, 1, Tone, out1, work), 0);
        /* sign chosen to agree with the leading column of the previous basis */
        assert_true(out1[0] * Tout[0] + out1[1] * Tout[1] + out1[2] * Tout[2] >= 0);
        assert_true(fabs(fabs(out1[1]) - 0.8) < 1e-15);
    }
}

static void test_predictors_agree_to_first_order(void **state)
{
    /* unit circle constraint x^2 + y^2 - 1 at (1, 0), velocity (0, 1): the tangent rotates at
     * unit rate; exp and euler predictions of T after h differ by O(h^2) and exp is exact */
    enum { n = 2, m = 1 };
    mcs_real A[2] = {2, 0}, Adot[2] = {0, 2}, Q[4], R[2], Te[2], Tu[2];
    int piv[1], r;
    const double h = 1e-3;
    (void)state;
    NEEDS(MCS_PART_PREDICTORS);
    assert_int_equal(mcs_qr_basis(n, m, A, m, 1e-9, Q, R, piv, &r, work), 0);
    assert_int_equal(
        mcs_predict_tangent(n, m, r, Q, R, piv, Adot, h, MCS_CONT_EXP, Te, work, iwork), 0);
    assert_int_equal(
        mcs_predict_tangent(n, m, r, Q, R, piv, Adot, h, MCS_CONT_EULER, Tu, work, iwork), 0);
    /* exact tangent at angle h, with the orientation of T at t = 0 */
    {
        double sgn = Q[1 * n + 1] > 0 ? 1 : -1; /* T(0) = sgn (0, 1) */
        assert_true(fabs(Te[0] - sgn * -sin(h)) < 1e-15 && fabs(Te[1] - sgn * cos(h)) < 1e-15);
        assert_true(fabs(Tu[0] - Te[0]) < h * h && fabs(Tu[1] - Te[1]) < h * h);
    }
}

static void test_predictors_report_a_nonfinite_A_dot(void **state)
{
    /* |x|^2 = 1 twice (rank 1) at (1, 0, 0) moving along (0, 1, 0): a NaN or Inf anywhere in
     * the row the factorization kept, even where it multiplies only zeros of Q, is reported by
     * both predictors; in the redundant row, which euler does not read, only by exp (which
     * checks all of A_dot) while euler predicts as from the clean A_dot */
    enum { n = 3, m = 2 };
    const mcs_real bad[2] = {NAN, INFINITY};
    mcs_real A[m * n] = {2, 2, 0, 0, 0, 0}, Adot[m * n], Q[n * n], R[n * m], T0[n * 2], T1[n * 2];
    int piv[m], r, b, col, i;
    (void)state;
    NEEDS(MCS_PART_PREDICTORS);
    assert_int_equal(mcs_qr_basis(n, m, A, m, 1e-9, Q, R, piv, &r, work), 0);
    assert_int_equal(r, 1);
    for (b = 0; b < 2; ++b) {
        for (col = 0; col < n; ++col) {
            const mcs_real clean[m * n] = {0, 0, 2, 2, 0, 0};
            for (i = 0; i < m * n; ++i)
                Adot[i] = clean[i];
            assert_int_equal(mcs_predict_tangent(n, m, r, Q, R, piv, Adot, 1e-3, MCS_CONT_EULER, T0,
                                                 work, iwork),
                             MCS_OK);
            Adot[piv[0] + col * m] = bad[b]; /* the kept row */
            assert_int_equal(mcs_predict_tangent(n, m, r, Q, R, piv, Adot, 1e-3, MCS_CONT_EULER, T1,
                                                 work, iwork),
                             MCS_ERR_NONFINITE);
            assert_int_equal(
                mcs_predict_tangent(n, m, r, Q, R, piv, Adot, 1e-3, MCS_CONT_EXP, T1, work, iwork),
                MCS_ERR_NONFINITE);
            Adot[piv[0] + col * m] = clean[piv[0] + col * m];
            Adot[piv[1] + col * m] = bad[b]; /* the redundant row */
            assert_int_equal(mcs_predict_tangent(n, m, r, Q, R, piv, Adot, 1e-3, MCS_CONT_EULER, T1,
                                                 work, iwork),
                             MCS_OK);
            assert_memory_equal(T0, T1, sizeof T0);
            assert_int_equal(
                mcs_predict_tangent(n, m, r, Q, R, piv, Adot, 1e-3, MCS_CONT_EXP, T1, work, iwork),
                MCS_ERR_NONFINITE);
        }
    }
}

static void test_predictors_by_rows_are_the_dense_ones(void **state)
{
    /* a chain of four points in the plane (n = 8, m = 4): A_dot given by its nonzeros in A's
     * pattern, one of them 0 at this state, predicts what the dense A_dot does, equal entry for
     * entry, with euler and exp; a NaN among the values is reported as the dense one is */
    enum { n = 8, m = 4, nnz = 14 };
    /* row i couples points i - 1 and i (row 0: point 0 and the ground) */
    static const int start[m + 1] = {0, 2, 6, 10, 14};
    static const int col[nnz] = {0, 1, 0, 1, 2, 3, 2, 3, 4, 5, 4, 5, 6, 7};
    static const int at[nnz] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13};
    static const int row_of[nnz] = {0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3};
    static const mcs_continuation kinds[2] = {MCS_CONT_EULER, MCS_CONT_EXP};
    mcs_real A[m * n] = {0}, Adot[m * n] = {0}, val[nnz], Q[n * n], R[n * m];
    mcs_real Tdense[n * n], Trows[n * n];
    mcs_sparse_rows rows;
    int piv[m], r, k, c, i;
    (void)state;
    NEEDS(MCS_PART_PREDICTORS);
    for (k = 0; k < nnz; ++k) {
        A[row_of[k] + col[k] * m] = sin(1.0 + k) + ((k % 2) ? 0.5 : -0.5);
        val[k] = (k == 5) ? 0.0 : cos(2.0 + 3 * k);
        Adot[row_of[k] + col[k] * m] = val[k];
    }
    rows.start = start;
    rows.at = at;
    rows.col = col;
    rows.val = val;
    rows.nnz = nnz;
    assert_int_equal(mcs_qr_basis(n, m, A, m, 1e-9, Q, R, piv, &r, work), 0);
    assert_int_equal(r, m);
    for (c = 0; c < 2; ++c) {
        assert_int_equal(
            mcs_predict_tangent(n, m, r, Q, R, piv, Adot, 1e-2, kinds[c], Tdense, work, iwork),
            MCS_OK);
        assert_int_equal(
            mcs_predict_tangent_rows(n, m, r, Q, R, piv, &rows, 1e-2, kinds[c], Trows, work, iwork),
            MCS_OK);
        for (i = 0; i < n * (n - r); ++i)
            assert_true(Trows[i] == Tdense[i]);
        val[7] = NAN;
        assert_int_equal(
            mcs_predict_tangent_rows(n, m, r, Q, R, piv, &rows, 1e-2, kinds[c], Trows, work, iwork),
            MCS_ERR_NONFINITE);
        val[7] = cos(2.0 + 3 * 7);
    }
    rows.start = NULL;
    assert_int_equal(mcs_predict_tangent_rows(n, m, r, Q, R, piv, &rows, 1e-2, MCS_CONT_EULER,
                                              Trows, work, iwork),
                     MCS_ERR_ARGUMENT);
}

static void test_exp_predictor_is_the_rotation_on_a_sphere(void **state)
{
    /* |x|^2 = 1 at (1, 0, 0) moving along (0, 1, 0): the tangent plane turns about z at unit
     * rate, so the exp prediction after h is T rotated by Rz(h), exactly, whatever h: the
     * exponential's action by Taylor terms (h = 1e-3), with scaling (h = 2: 2^2 applications),
     * and Padé's whole exponential past 2^6 of them (h = 200) */
    enum { n = 3, m = 1 };
    static const double hs[3] = {1e-3, 2.0, 200.0};
    mcs_real A[3] = {2, 0, 0}, Adot[3] = {0, 2, 0}, Q[9], R[3], Te[6];
    int piv[1], r, k, i, j;
    (void)state;
    NEEDS(MCS_PART_PREDICTORS);
    assert_int_equal(mcs_qr_basis(n, m, A, m, 1e-9, Q, R, piv, &r, work), 0);
    assert_int_equal(r, 1);
    for (k = 0; k < 3; ++k) {
        const double h = hs[k], c = cos(h), sn = sin(h);
        assert_int_equal(
            mcs_predict_tangent(n, m, r, Q, R, piv, Adot, h, MCS_CONT_EXP, Te, work, iwork), 0);
        for (j = 0; j < 2; ++j) {
            const mcs_real *t = &Q[(r + j) * n];
            const double want[3] = {c * t[0] - sn * t[1], sn * t[0] + c * t[1], t[2]};
            for (i = 0; i < 3; ++i)
                assert_true(fabs(Te[i + j * n] - want[i]) < 1e-14 * (1 + h));
        }
        /* to rounding, which the 2^s squarings of a long rotation accumulate */
        assert_true(orthonormality_error(n, 2, Te) < 1e-15 * (4 + h));
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_qr_full_rank_m_lt_n),
        cmocka_unit_test(test_qr_rank_deficient_m_le_n),
        cmocka_unit_test(test_qr_m_gt_n),
        cmocka_unit_test(test_qr_redundant_pendulum),
        cmocka_unit_test(test_qr_no_constraints),
        cmocka_unit_test(test_expm_skew_is_orthogonal),
        cmocka_unit_test(test_expm_plane_rotation),
        cmocka_unit_test(test_align_is_optimal),
        cmocka_unit_test(test_align_one_direction_is_the_sign),
        cmocka_unit_test(test_align_two_directions_is_the_general_one),
        cmocka_unit_test(test_align_reports_nonfinite_inputs),
        cmocka_unit_test(test_align_rank_change_keeps_continued_column),
        cmocka_unit_test(test_predictors_agree_to_first_order),
        cmocka_unit_test(test_predictors_report_a_nonfinite_A_dot),
        cmocka_unit_test(test_predictors_by_rows_are_the_dense_ones),
        cmocka_unit_test(test_exp_predictor_is_the_rotation_on_a_sphere),
    };
    return cmocka_run_group_tests_name("basis", tests, NULL, NULL);
}
