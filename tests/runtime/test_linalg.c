/* test_linalg.c - the two linear-algebra backends behind mcs_linalg.h (LAPACK and portable): each
 * routine against its defining identity on fixed, pseudo-random matrices (built once for each
 * backend from the same sources: Makefile's test-c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <math.h>
#include <cmocka.h>

#include "linalg/mcs_linalg.h"

#define N 7
static mcs_real work[MCS_LA_LWORK(N) + 4 * N * N];

/* a reproducible matrix (rows x cols, column-major) with entries in [-1, 1] */
static void fill(int rows, int cols, unsigned seed, mcs_real *a)
{
    int i;
    unsigned s = seed * 2654435761u + 12345u;
    for (i = 0; i < rows * cols; ++i) {
        s = s * 1103515245u + 12345u;
        a[i] = (mcs_real)((double)((s >> 8) & 0xffff) / 32767.5 - 1.0);
    }
}

/* max |a - b| over rows x cols */
static double max_diff(int rows, int cols, const mcs_real *a, int lda, const mcs_real *b, int ldb)
{
    double worst = 0;
    int i, j;
    for (j = 0; j < cols; ++j)
        for (i = 0; i < rows; ++i) {
            const double d = fabs((double)a[i + j * lda] - (double)b[i + j * ldb]);
            worst = d > worst ? d : worst;
        }
    return worst;
}

/* c = a b by plain loops (the reference for gemm) */
static void naive_mul(int ta, int tb, int rows, int cols, int inner, const mcs_real *a, int lda,
                      const mcs_real *b, int ldb, mcs_real *c, int ldc)
{
    int i, j, k;
    for (j = 0; j < cols; ++j)
        for (i = 0; i < rows; ++i) {
            double s = 0;
            for (k = 0; k < inner; ++k)
                s += (double)(ta ? a[k + i * lda] : a[i + k * lda]) *
                     (double)(tb ? b[j + k * ldb] : b[k + j * ldb]);
            c[i + j * ldc] = (mcs_real)s;
        }
}

static void test_gemm_all_transposes(void **state)
{
    mcs_real a[N * N], b[N * N], c[N * N], ref[N * N];
    int ta, tb;
    (void)state;
    fill(N, N, 1, a);
    fill(N, N, 2, b);
    for (ta = 0; ta < 2; ++ta)
        for (tb = 0; tb < 2; ++tb) {
            naive_mul(ta, tb, 5, 3, 4, a, N, b, N, ref, N);
            fill(N, N, 3, c); /* beta = 0 must ignore what is there */
            mcs_mat_gemm(ta, tb, 5, 3, 4, 1, a, N, b, N, 0, c, N);
            assert_true(max_diff(5, 3, c, N, ref, N) < 1e-14);
            /* alpha and beta: c = 2 op(a) op(b) - c_old */
            mcs_mat_gemm(ta, tb, 5, 3, 4, 2, a, N, b, N, -1, c, N);
            assert_true(max_diff(5, 3, c, N, ref, N) < 1e-14);
        }
}

/* Products large enough for the LAPACK backend to hand them to the BLAS (MCS_LA_GEMM_MIN
 * multiply-adds; the portable backend keeps its loops): the same results, every transpose, with
 * alpha and beta; and the large triangular solve (cblas_?trsm there). */
#define L 48
static void test_large_products_and_solves(void **state)
{
    static mcs_real a[L * L], b[L * L], c[L * L], ref[L * L], r[L * L], x[L * L];
    const double tol = sizeof(mcs_real) == sizeof(float) ? 2e-4 : 1e-12;
    int ta, tb, i, j;
    (void)state;
    assert_true((double)L * L * L >= MCS_LA_GEMM_MIN);
    fill(L, L, 11, a);
    fill(L, L, 12, b);
    for (ta = 0; ta < 2; ++ta)
        for (tb = 0; tb < 2; ++tb) {
            naive_mul(ta, tb, L, L, L, a, L, b, L, ref, L);
            fill(L, L, 13, c);
            mcs_mat_gemm(ta, tb, L, L, L, 1, a, L, b, L, 0, c, L);
            assert_true(max_diff(L, L, c, L, ref, L) < tol);
            mcs_mat_gemm(ta, tb, L, L, L, 2, a, L, b, L, -1, c, L);
            assert_true(max_diff(L, L, c, L, ref, L) < tol);
        }
    fill(L, L, 14, r);
    for (j = 0; j < L; ++j)
        for (i = 0; i < L; ++i)
            r[i + j * L] = i > j ? 0 : (i == j ? 4 + r[i + j * L] : r[i + j * L] / 4);
    assert_true((double)L * L * L >= MCS_LA_GEMM_MIN);
    mcs_mat_copy(L, L, b, L, x, L);
    mcs_mat_solve_right_upper(L, L, r, L, x, L); /* x R = b */
    naive_mul(0, 0, L, L, L, x, L, r, L, ref, L);
    assert_true(max_diff(L, L, ref, L, b, L) < tol);
}

static void test_pivoted_qr_reconstructs(void **state)
{
    mcs_real a[N * 5], r[N * 5], q[N * N], tau[N], qr[N * N];
    int jpvt[5], i, j;
    (void)state;
    fill(N, 5, 4, a);
    for (i = 0; i < N; ++i) /* column 3 = column 0 + column 1: rank 4 */
        a[i + 3 * N] = a[i] + a[i + N];
    mcs_mat_copy(N, 5, a, N, r, N);
    assert_int_equal(mcs_la_qr_pivoted(N, 5, r, N, jpvt, tau, work, MCS_LA_LWORK(N)), 0);
    for (j = 0; j < N; ++j)
        for (i = 0; i < N; ++i)
            q[i + j * N] = (j < 5 && i > j) ? r[i + j * N] : 0;
    assert_int_equal(mcs_la_qr_form_q(N, 5, q, N, tau, work, MCS_LA_LWORK(N)), 0);
    /* |R_ii| non-increasing (pivoting), the last one ~0 (rank 4) */
    for (i = 1; i < 5; ++i)
        assert_true(fabs((double)r[i + i * N]) <= fabs((double)r[(i - 1) + (i - 1) * N]) * 1.0001);
    assert_true(fabs((double)r[4 + 4 * N]) < 1e-13);
    /* Q R = A P */
    for (j = 0; j < 5; ++j)
        for (i = 0; i < N; ++i)
            if (i > j)
                r[i + j * N] = 0;
    naive_mul(0, 0, N, 5, N, q, N, r, N, qr, N);
    for (j = 0; j < 5; ++j)
        assert_true(max_diff(N, 1, qr + j * N, N, a + jpvt[j] * N, N) < 1e-13);
    /* Q orthogonal */
    naive_mul(1, 0, N, N, N, q, N, q, N, qr, N);
    for (i = 0; i < N; ++i)
        qr[i + i * N] -= 1;
    for (i = 0; i < N * N; ++i)
        assert_true(fabs((double)qr[i]) < 1e-14);
}

static void test_lu_and_cholesky_solve(void **state)
{
    mcs_real a[N * N], lu[N * N], b[N * 2], x[N * 2], ax[N * 2], spd[N * N];
    int ipiv[N], i;
    (void)state;
    fill(N, N, 5, a);
    fill(N, 2, 6, b);
    mcs_mat_copy(N, N, a, N, lu, N);
    mcs_mat_copy(N, 2, b, N, x, N);
    assert_int_equal(mcs_la_lu(N, lu, N, ipiv), 0);
    assert_int_equal(mcs_la_lu_solve(N, 2, lu, N, ipiv, x, N), 0);
    naive_mul(0, 0, N, 2, N, a, N, x, N, ax, N);
    assert_true(max_diff(N, 2, ax, N, b, N) < 1e-12);
    /* SPD: a^T a + I */
    naive_mul(1, 0, N, N, N, a, N, a, N, spd, N);
    for (i = 0; i < N; ++i)
        spd[i + i * N] += 1;
    mcs_mat_copy(N, N, spd, N, lu, N);
    mcs_mat_copy(N, 2, b, N, x, N);
    assert_int_equal(mcs_la_cholesky(N, lu, N), 0);
    assert_int_equal(mcs_la_cholesky_solve(N, 2, lu, N, x, N), 0);
    naive_mul(0, 0, N, 2, N, spd, N, x, N, ax, N);
    assert_true(max_diff(N, 2, ax, N, b, N) < 1e-12);
    /* not positive definite: reported, not silently factored */
    spd[0] = -1;
    assert_true(mcs_la_cholesky(N, spd, N) != 0);
}

static void test_svd_reconstructs(void **state)
{
    enum { R = 4, C = 6 };
    mcs_real a[R * C], a0[R * C], s[N], u[R * R], vt[C * C], us[R * C], usv[R * C];
    int i, j;
    (void)state;
    fill(R, C, 7, a0);
    mcs_mat_copy(R, C, a0, R, a, R);
    assert_int_equal(mcs_la_svd(R, C, a, R, s, u, R, vt, C, work, MCS_LA_LWORK(N)), 0);
    for (i = 1; i < R; ++i)
        assert_true(s[i] <= s[i - 1] && s[i] >= 0);
    /* U diag(s) V^T[:R, :] = A */
    for (j = 0; j < R; ++j)
        for (i = 0; i < R; ++i)
            us[i + j * R] = u[i + j * R] * s[j];
    for (j = 0; j < C; ++j)
        for (i = 0; i < R; ++i) {
            double acc = 0;
            int k;
            for (k = 0; k < R; ++k)
                acc += (double)us[i + k * R] * (double)vt[k + j * C];
            usv[i + j * R] = (mcs_real)acc;
        }
    assert_true(max_diff(R, C, usv, R, a0, R) < 1e-13);
}

static void test_triangular_solves(void **state)
{
    mcs_real r[N * N], b[3 * N], x[3 * N], xr[3 * N], y[N], ry[N];
    int i, j;
    (void)state;
    fill(N, N, 8, r);
    for (j = 0; j < N; ++j)
        for (i = 0; i < N; ++i)
            r[i + j * N] = i > j ? 0 : (i == j ? 2 + r[i + j * N] : r[i + j * N]);
    fill(3, N, 9, b);
    mcs_mat_copy(3, N, b, 3, x, 3);
    mcs_mat_solve_right_upper(3, N, r, N, x, 3); /* x R = b */
    naive_mul(0, 0, 3, N, N, x, 3, r, N, xr, 3);
    assert_true(max_diff(3, N, xr, 3, b, 3) < 1e-13);
    fill(N, 1, 10, y);
    mcs_mat_copy(N, 1, y, N, ry, N);
    mcs_mat_solve_upper_transposed(N, r, N, ry); /* R^T z = y */
    naive_mul(1, 0, N, 1, N, r, N, ry, N, x, N);
    assert_true(max_diff(N, 1, x, N, y, N) < 1e-13);
}

static void test_expm_of_skew_is_orthogonal_and_exact(void **state)
{
    mcs_real a[3 * 3] = {0}, e[3 * 3], ete[3 * 3];
    int ipiv[3], i;
    const double th = 0.7;
    (void)state;
    /* rotation about z by th: exp([[0, -th, 0], [th, 0, 0], [0, 0, 0]]) */
    a[1] = (mcs_real)th;
    a[3] = (mcs_real)-th;
    assert_int_equal(mcs_mat_expm(3, a, e, work, ipiv), 0);
    assert_true(fabs((double)e[0] - cos(th)) < 1e-15 && fabs((double)e[1] - sin(th)) < 1e-15);
    assert_true(fabs((double)e[3] + sin(th)) < 1e-15 && fabs((double)e[8] - 1) < 1e-15);
    naive_mul(1, 0, 3, 3, 3, e, 3, e, 3, ete, 3);
    for (i = 0; i < 3; ++i)
        ete[i + i * 3] -= 1;
    for (i = 0; i < 9; ++i)
        assert_true(fabs((double)ete[i]) < 1e-15);
}

static void test_max_abs_flags_non_finite(void **state)
{
    mcs_real v[3] = {1, -4, 2};
    (void)state;
    assert_true(mcs_vec_max_abs(3, v) == 4);
    assert_true(mcs_vec_max_abs(0, v) == 0);
    v[1] = (mcs_real)NAN;
    assert_true(mcs_vec_max_abs(3, v) < 0);
    v[1] = (mcs_real)INFINITY;
    assert_true(mcs_vec_max_abs(3, v) < 0);
}

/* every length to 13 (pairs below 8 entries, four lanes and a tail from 8): the largest |entry|
 * wherever it sits, and a NaN or an Inf wherever it sits */
static void test_max_abs_every_length_and_place(void **state)
{
    mcs_real v[13];
    int n, at, i;
    (void)state;
    for (n = 1; n <= 13; ++n)
        for (at = 0; at < n; ++at) {
            for (i = 0; i < n; ++i)
                v[i] = (mcs_real)(i % 2 ? -0.5 : 0.25);
            v[at] = -3;
            assert_true(mcs_vec_max_abs(n, v) == 3);
            v[at] = (mcs_real)NAN;
            assert_true(mcs_vec_max_abs(n, v) < 0);
            v[at] = (mcs_real)-INFINITY;
            assert_true(mcs_vec_max_abs(n, v) < 0);
        }
}

/* c (rows x cols) = c0 + a b, each entry's sum over k in order in mcs_real: what
 * mcs_mat_multiply's kernels promise bit for bit, whatever their blocks */
static void in_order_mul(int rows, int cols, int inner, const mcs_real *a, const mcs_real *b,
                         const mcs_real *c0, mcs_real *c)
{
    int i, j, k;
    for (j = 0; j < cols; ++j)
        for (i = 0; i < rows; ++i) {
            mcs_real s = c0 ? c0[i + j * L] : 0;
            for (k = 0; k < inner; ++k)
                s += a[i + k * L] * b[k + j * L];
            c[i + j * L] = s;
        }
}

/* mcs_mat_multiply (dense: 4 x 4 blocks with 2- and 1-column and 1-row tails, or 1 x 4 blocks
 * with MCS_SMALL_KERNELS; the BLAS above MCS_LA_GEMM_MIN on the LAPACK backend) and
 * mcs_mat_multiply_tn (a^T b, and its symmetric form) against the plain loops; below the BLAS's
 * sizes the product equals the in-order sums exactly */
static void test_multiply_is_the_in_order_sum(void **state)
{
    static mcs_real a[L * L], b[L * L], c[L * L], c0[L * L], ref[L * L];
    int rows, cols, inner;
    (void)state;
    fill(L, L, 31, a);
    fill(L, L, 32, b);
    fill(L, L, 33, c0);
    for (rows = 1; rows <= 9; ++rows)
        for (cols = 1; cols <= 7; ++cols)
            for (inner = 0; inner <= 5; inner += 1) {
                in_order_mul(rows, cols, inner, a, b, NULL, ref);
                mcs_mat_multiply(rows, cols, inner, a, L, b, L, 0, c, L);
                assert_true(max_diff(rows, cols, c, L, ref, L) == 0);
                in_order_mul(rows, cols, inner, a, b, c0, ref);
                memcpy(c, c0, sizeof c);
                mcs_mat_multiply(rows, cols, inner, a, L, b, L, 1, c, L);
                assert_true(max_diff(rows, cols, c, L, ref, L) == 0);
            }
}

/* mcs_mat_multiply and mcs_mat_multiply_tn against the plain loops (to round-off: the BLAS
 * takes the large ones on the LAPACK backend) */
static void test_multiply_and_symmetric_product(void **state)
{
    static mcs_real a[L * L], b[L * L], c[L * L], ref[L * L], e[L * L], e2[L * L];
    static const int shapes[][3] = {{1, 1, 1}, {5, 7, 3},   {6, 4, 2}, {3, 10, 9},
                                    {8, 6, 5}, {13, 10, 7}, {4, 2, 3}, {L, L, L}};
    const double tol = sizeof(mcs_real) == sizeof(float) ? 2e-4 : 1e-12;
    size_t t;
    int i, j;
    (void)state;
    fill(L, L, 21, a);
    fill(L, L, 22, b);
    for (t = 0; t < sizeof shapes / sizeof shapes[0]; ++t) {
        const int rows = shapes[t][0], cols = shapes[t][1], inner = shapes[t][2];
        naive_mul(0, 0, rows, cols, inner, a, L, b, L, ref, L);
        fill(L, L, 23, c); /* accumulate 0 ignores what is there */
        mcs_mat_multiply(rows, cols, inner, a, L, b, L, 0, c, L);
        assert_true(max_diff(rows, cols, c, L, ref, L) < tol);
        mcs_mat_multiply(rows, cols, inner, a, L, b, L, 1, c, L); /* c = 2 a b */
        for (j = 0; j < cols; ++j)
            for (i = 0; i < rows; ++i)
                ref[i + j * L] *= 2;
        assert_true(max_diff(rows, cols, c, L, ref, L) < 2 * tol);
        /* a^T b (cols x inner over rows) */
        naive_mul(1, 0, cols, inner, rows, a, L, b, L, ref, L);
        mcs_mat_multiply_tn(rows, cols, inner, a, L, b, L, 0, c, L);
        assert_true(max_diff(cols, inner, c, L, ref, L) < tol);
        /* a^T a (rows x cols), exactly symmetric */
        naive_mul(1, 0, cols, cols, rows, a, L, a, L, ref, L);
        mcs_mat_multiply_tn(rows, cols, cols, a, L, a, L, 1, c, L);
        assert_true(max_diff(cols, cols, c, L, ref, L) < tol);
        for (j = 0; j < cols; ++j)
            for (i = 0; i < j; ++i)
                assert_true(c[i + j * L] == c[j + i * L] || rows * cols * cols >= MCS_LA_GEMM_MIN);
    }
    /* two commuting symmetric matrices: E and E^2 */
    for (j = 0; j < 9; ++j)
        for (i = 0; i <= j; ++i)
            e[i + j * 9] = e[j + i * 9] = a[i + j * L];
    naive_mul(0, 0, 9, 9, 9, e, 9, e, 9, e2, 9);
    naive_mul(0, 0, 9, 9, 9, e, 9, e2, 9, ref, 9);
    mcs_mat_multiply_tn(9, 9, 9, e, 9, e2, 9, 1, c, 9);
    assert_true(max_diff(9, 9, c, 9, ref, 9) < tol);
}

/* q (k x k) = a product of plane rotations (orthogonal to round-off), with the first column
 * negated when reflect (det -1) */
static void rotations(int k, int reflect, mcs_real *q)
{
    int i, j, p;
    for (j = 0; j < k; ++j)
        for (i = 0; i < k; ++i)
            q[i + j * k] = i == j ? (reflect && j == 0 ? -1 : 1) : 0;
    for (p = 0; p + 1 < k; ++p) {
        const double th = 0.3 + 0.7 * p, cs = cos(th), sn = sin(th);
        for (j = 0; j < k; ++j) { /* rows p, p+1 of q rotated */
            const double u = q[p + j * k], v = q[p + 1 + j * k];
            q[p + j * k] = (mcs_real)(cs * u - sn * v);
            q[p + 1 + j * k] = (mcs_real)(sn * u + cs * v);
        }
    }
    if (k == 1)
        q[0] = reflect ? -1 : 1;
}

/* X = Q (I + eps S) with S symmetric: its orthogonal polar factor is Q, which the series returns
 * to round-off (rotations and reflections, k = 1..7) */
static void test_polar_factor_of_near_orthogonal(void **state)
{
    static const double eps_list[] = {1e-9, 1e-4, 5e-2};
    mcs_real q[N * N], s[N * N], x[N * N], y[N * N], z[N * N], w[N * N];
    const double tol = sizeof(mcs_real) == sizeof(float) ? 1e-5 : 2e-14;
    int k, reflect, i, j;
    size_t t;
    (void)state;
    for (k = 1; k <= N; ++k)
        for (reflect = 0; reflect < 2; ++reflect)
            for (t = 0; t < sizeof eps_list / sizeof eps_list[0]; ++t) {
                rotations(k, reflect, q);
                fill(k, k, 30 + k, s);
                for (j = 0; j < k; ++j)
                    for (i = 0; i < k; ++i)
                        y[i + j * k] = (i == j ? 1 : 0) + (mcs_real)(eps_list[t] * 0.5 *
                                                                     (s[i + j * k] + s[j + i * k]));
                naive_mul(0, 0, k, k, k, q, k, y, k, x, k);
                assert_int_equal(mcs_polar_near_orthogonal(k, x, y, z, w), 0);
                assert_true(max_diff(k, k, x, k, q, k) < tol);
            }
    /* far from orthogonal: refused (the caller's SVD takes over), whatever the order */
    for (k = 1; k <= 5; k += 4) {
        rotations(k, 0, q);
        for (i = 0; i < k * k; ++i)
            x[i] = 2 * q[i];
        assert_true(mcs_polar_near_orthogonal(k, x, y, z, w) != 0);
    }
    x[0] = x[1] = x[2] = x[3] = 0; /* singular */
    assert_true(mcs_polar_near_orthogonal(2, x, y, z, w) != 0);
}

/* The exp predictor's action E[:, :f] = exp(h Omega)[:, r:] (Taylor terms: the top blocks
 * only when r < 2 f, all blocks otherwise, Padé for n < 6 or a long rotation) against the whole
 * Padé exponential of the same Omega, for n = 10 and r = 1..9, h |Omega| small and large */
static void test_exp_action_equals_the_exponential(void **state)
{
#if MCS_WITH_PREDICTORS
    enum { NE = 10 };
    static mcs_real J[NE * NE], omega[NE * NE], E[NE * NE], ref[NE * NE], scratch[4 * NE * NE];
    static const double hs[] = {1e-3, 0.05, 2.0};
    const double tol = sizeof(mcs_real) == sizeof(float) ? 1e-5 : 2e-14;
    int ipiv[NE], r, i;
    size_t t;
    (void)state;
    fill(NE, NE, 41, J);
    for (r = 1; r < NE; ++r)
        for (t = 0; t < sizeof hs / sizeof hs[0]; ++t) {
            const int f = NE - r;
            assert_int_equal(
                mcs_predict_exp_action(NE, r, J, (mcs_real)hs[t], omega, E, scratch, ipiv), 0);
            /* omega is Omega h as the action built it: the reference exponentiates the same */
            assert_int_equal(mcs_mat_expm(NE, omega, ref, scratch, ipiv), 0);
            assert_true(max_diff(NE, f, E, NE, &ref[r * NE], NE) < tol * (1 + hs[t]));
            for (i = 0; i < NE * NE; ++i) /* Omega skew, its (f x f) block 0 */
                assert_true(omega[i] == -omega[(i / NE) + (i % NE) * NE]);
        }
#else
    (void)state;
    skip(); /* the exp predictor's, left out of this build (mcs_config.h) */
#endif
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gemm_all_transposes),
        cmocka_unit_test(test_large_products_and_solves),
        cmocka_unit_test(test_pivoted_qr_reconstructs),
        cmocka_unit_test(test_lu_and_cholesky_solve),
        cmocka_unit_test(test_svd_reconstructs),
        cmocka_unit_test(test_triangular_solves),
        cmocka_unit_test(test_expm_of_skew_is_orthogonal_and_exact),
        cmocka_unit_test(test_max_abs_flags_non_finite),
        cmocka_unit_test(test_max_abs_every_length_and_place),
        cmocka_unit_test(test_multiply_is_the_in_order_sum),
        cmocka_unit_test(test_multiply_and_symmetric_product),
        cmocka_unit_test(test_polar_factor_of_near_orthogonal),
        cmocka_unit_test(test_exp_action_equals_the_exponential),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
