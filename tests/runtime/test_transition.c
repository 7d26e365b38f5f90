/* test_transition.c - velocity jumps at constraint activation (mcs_transition.c, 004 §5): the
 * three formulations agree, the jump satisfies the new constraints and conserves the momentum of
 * the directions still free, energy drops by exactly 1/2 dv'M dv, redundant rows get the
 * minimum-norm impulse, a full lock stops exactly, and the 3R pendulum of 004 §6 locks joint 2. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include <cmocka.h>

#include "mcs/mcs_transition.h"
#include "pendulum_3r.h"

#define N 5
static mcs_real work[MCS_JUMP_WORK_SIZE(N, 3, 5)];
static int iwork[MCS_JUMP_IWORK_SIZE(N, 3, 5)];
static mcs_real bwork[MCS_BASIS_WORK_SIZE(N, N)];
#define WORK work, sizeof work / sizeof *work, iwork, sizeof iwork / sizeof *iwork

static void fill(int count, unsigned seed, mcs_real *a)
{
    int i;
    unsigned s = seed * 2654435761u + 7u;
    for (i = 0; i < count; ++i) {
        s = s * 1103515245u + 12345u;
        a[i] = (mcs_real)((double)((s >> 8) & 0xffff) / 32767.5 - 1.0);
    }
}

/* an SPD mass matrix (n x n): G'G + n I */
static void spd(int n, unsigned seed, mcs_real *M)
{
    mcs_real G[N * N];
    int i, j, k;
    fill(n * n, seed, G);
    for (j = 0; j < n; ++j)
        for (i = 0; i < n; ++i) {
            double s = i == j ? n : 0;
            for (k = 0; k < n; ++k)
                s += (double)G[k + i * n] * (double)G[k + j * n];
            M[i + j * n] = (mcs_real)s;
        }
}

/* T (n x f): orthonormal basis of null(J) for J (m x n); returns f */
static int null_basis(int n, int m, const mcs_real *J, mcs_real *T)
{
    mcs_real Q[N * N], R[N * N];
    int piv[N], r = 0, i;
    assert_int_equal(mcs_qr_basis(n, m, J, m, 1e-9, Q, R, piv, &r, bwork), MCS_OK);
    for (i = 0; i < n * (n - r); ++i)
        T[i] = Q[r * n + i];
    return n - r;
}

/* max |J x| for J (m x n, ld m) */
static double residual(int m, int n, const mcs_real *J, const mcs_real *x)
{
    double worst = 0;
    int i, j;
    for (i = 0; i < m; ++i) {
        double s = 0;
        for (j = 0; j < n; ++j)
            s += (double)J[i + j * m] * (double)x[j];
        worst = fabs(s) > worst ? fabs(s) : worst;
    }
    return worst;
}

static double quad(int n, const mcs_real *M, const mcs_real *a, const mcs_real *b)
{
    double s = 0;
    int i, j;
    for (j = 0; j < n; ++j)
        for (i = 0; i < n; ++i)
            s += (double)a[i] * (double)M[i + j * n] * (double)b[j];
    return s;
}

static void test_three_formulations_agree(void **state)
{
    mcs_real M[N * N], J1[N], J2[2 * N], T[N * N], a[N], v[N], dv[3][N], lam[3][2];
    mcs_real J12[3 * N], Tn[N * N], vplus[N], Mdv[N];
    const mcs_jump_method methods[3] = {MCS_JUMP_MINIMAL, MCS_JUMP_FULL, MCS_JUMP_PROJECTED};
    mcs_jump_report rep;
    int f, fn, i, j, k;
    (void)state;
    spd(N, 1, M);
    fill(N, 2, J1);
    fill(2 * N, 3, J2);
    f = null_basis(N, 1, J1, T);
    assert_int_equal(f, N - 1);
    fill(f, 4, a); /* v- in null(J1) */
    for (i = 0; i < N; ++i) {
        v[i] = 0;
        for (j = 0; j < f; ++j)
            v[i] += T[i + j * N] * a[j];
    }
    for (k = 0; k < 3; ++k)
        assert_int_equal(mcs_jump(methods[k], N, M, 1, J1, f, T, 2, J2, v, NULL, 1e-9, dv[k],
                                  lam[k], &rep, WORK),
                         MCS_OK);
    for (k = 1; k < 3; ++k)
        for (i = 0; i < N; ++i) {
            assert_true(fabs((double)(dv[k][i] - dv[0][i])) < 1e-12);
            if (i < 2)
                assert_true(fabs((double)(lam[k][i] - lam[0][i])) < 1e-10);
        }
    assert_int_equal(rep.rank_new, 2);
    assert_int_equal(rep.dof_after, N - 3);
    for (i = 0; i < N; ++i)
        vplus[i] = v[i] + dv[0][i];
    /* the old and the new constraints hold after the jump */
    assert_true(residual(1, N, J1, vplus) < 1e-13 && residual(2, N, J2, vplus) < 1e-13);
    /* momentum of the directions still free is unchanged: Tn' M dv = 0 */
    for (j = 0; j < N; ++j) {
        J12[3 * j] = J1[j];
        J12[3 * j + 1] = J2[2 * j];
        J12[3 * j + 2] = J2[2 * j + 1];
    }
    fn = null_basis(N, 3, J12, Tn);
    assert_int_equal(fn, N - 3);
    for (i = 0; i < N; ++i) {
        Mdv[i] = 0;
        for (j = 0; j < N; ++j)
            Mdv[i] += M[i + j * N] * dv[0][j];
    }
    for (j = 0; j < fn; ++j) {
        double s = 0;
        for (i = 0; i < N; ++i)
            s += (double)Tn[i + j * N] * (double)Mdv[i];
        assert_true(fabs(s) < 1e-12 * sqrt(quad(N, M, v, v)));
    }
    /* energy drops by exactly 1/2 dv' M dv */
    assert_true(fabs((double)(rep.kinetic_before - rep.kinetic_after) -
                     0.5 * quad(N, M, dv[0], dv[0])) < 1e-12 * (double)rep.kinetic_before);
    assert_true(rep.kinetic_after < rep.kinetic_before);
}

static void test_redundant_rows_get_the_minimum_norm_impulse(void **state)
{
    mcs_real M[N * N], J1[N], row[N], J2[3 * N], T[N * N], v[N], dv1[N], dv3[N], l1[1], l3[3];
    mcs_jump_report rep;
    int f, i, j;
    (void)state;
    spd(N, 5, M);
    fill(N, 6, J1);
    fill(N, 7, row);
    f = null_basis(N, 1, J1, T);
    for (i = 0; i < N; ++i) {
        v[i] = 0;
        for (j = 0; j < f; ++j)
            v[i] += T[i + j * N] * (mcs_real)(j + 1);
    }
    /* J2 = [row; row; J1]: a duplicated lock and a lock of what is already locked */
    for (j = 0; j < N; ++j) {
        J2[3 * j] = row[j];
        J2[3 * j + 1] = row[j];
        J2[3 * j + 2] = J1[j];
    }
    assert_int_equal(
        mcs_jump(MCS_JUMP_MINIMAL, N, M, 1, J1, f, T, 1, row, v, NULL, 1e-9, dv1, l1, NULL, WORK),
        MCS_OK);
    assert_int_equal(
        mcs_jump(MCS_JUMP_MINIMAL, N, M, 1, J1, f, T, 3, J2, v, NULL, 1e-9, dv3, l3, &rep, WORK),
        MCS_OK);
    assert_int_equal(rep.rank_new, 1);
    assert_int_equal(rep.dependent, 2);
    for (i = 0; i < N; ++i)
        assert_true(fabs((double)(dv3[i] - dv1[i])) < 1e-12);
    /* minimum norm: the duplicated rows share the impulse, the already-held row takes none */
    assert_true(fabs((double)(l3[0] - l1[0] / 2)) < 1e-10 * fabs((double)l1[0]));
    assert_true(fabs((double)(l3[1] - l1[0] / 2)) < 1e-10 * fabs((double)l1[0]));
    assert_true(fabs((double)l3[2]) < 1e-10 * fabs((double)l1[0]));
    /* the saddle-point forms refuse dependent rows rather than return a wrong answer */
    assert_int_equal(
        mcs_jump(MCS_JUMP_FULL, N, M, 1, J1, f, T, 3, J2, v, NULL, 1e-9, dv3, l3, NULL, WORK),
        MCS_ERR_SINGULAR_CHART);
}

static void test_a_lock_of_every_freedom_stops_exactly(void **state)
{
    mcs_real M[N * N], J1[N], T[N * N], J2[(N - 1) * N], v[N], dv[N], lam[N];
    mcs_jump_report rep;
    int f, i, j;
    (void)state;
    spd(N, 8, M);
    fill(N, 9, J1);
    f = null_basis(N, 1, J1, T);
    for (j = 0; j < N; ++j) /* J2 = T': every remaining direction */
        for (i = 0; i < f; ++i)
            J2[i + j * f] = T[j + i * N];
    for (i = 0; i < N; ++i)
        v[i] = T[i] - 2 * T[i + N];
    assert_int_equal(
        mcs_jump(MCS_JUMP_MINIMAL, N, M, 1, J1, f, T, f, J2, v, NULL, 1e-9, dv, lam, &rep, WORK),
        MCS_OK);
    assert_int_equal(rep.dof_after, 0);
    for (i = 0; i < N; ++i)
        assert_true(v[i] + dv[i] == 0);
    assert_true(rep.kinetic_after == 0);
}

/* 004 §6: the 3R pendulum from q = (pi/6, pi/6, pi/6), locking joint 2 at a moving state */
static void test_3r_lock_conserves_free_joint_momenta(void **state)
{
    const mcs_model *md = &pendulum_3r_model;
    mcs_real x[3], v[3] = {1.3, -0.7, 2.1}, M[9], I3[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
    mcs_real J2[3] = {0, 1, 0}, dv[3], lam[1], dvn[3], lamn[1];
    double P[2][2];
    int i, k;
    (void)state;
    for (i = 0; i < 3; ++i)
        x[i] = (mcs_real)(3.14159265358979323846 / 6);
    md->M(x, 0, &pendulum_3r_default_params, M);
    assert_int_equal(
        mcs_jump(MCS_JUMP_MINIMAL, 3, M, 0, NULL, 3, I3, 1, J2, v, NULL, 1e-9, dv, lam, NULL, WORK),
        MCS_OK);
    assert_true(v[1] + dv[1] == 0); /* the locked rate is exactly zero */
    /* generalized momenta of the free joints P = F' M v, F = (e1, e3): continuous */
    for (k = 0; k < 2; ++k) {
        const int row = k == 0 ? 0 : 2;
        P[k][0] = P[k][1] = 0;
        for (i = 0; i < 3; ++i) {
            P[k][0] += (double)M[row + i * 3] * (double)v[i];
            P[k][1] += (double)M[row + i * 3] * (double)(v[i] + dv[i]);
        }
        assert_true(fabs(P[k][1] - P[k][0]) < 1e-12 * fabs(P[k][0]));
    }
    /* naive locking zeroes the rate too, but the free joints' momenta jump */
    assert_int_equal(
        mcs_jump(MCS_JUMP_NAIVE, 3, M, 0, NULL, 3, I3, 1, J2, v, NULL, 1e-9, dvn, lamn, NULL, WORK),
        MCS_OK);
    assert_true(v[1] + dvn[1] == 0 && dvn[0] == 0 && dvn[2] == 0);
    {
        double p0 = 0, p1 = 0;
        for (i = 0; i < 3; ++i) {
            p0 += (double)M[i * 3] * (double)v[i];
            p1 += (double)M[i * 3] * (double)(v[i] + dvn[i]);
        }
        assert_true(fabs(p1 - p0) > 1e-3 * fabs(p0));
    }
}

static void test_arguments_are_checked(void **state)
{
    mcs_real M[1] = {1}, v[1] = {0}, dv[1], J2[1] = {1}, lam[1], T[1] = {1};
    (void)state;
    assert_int_equal(mcs_jump(MCS_JUMP_MINIMAL, 1, NULL, 0, NULL, 1, T, 1, J2, v, NULL, 1e-9, dv,
                              lam, NULL, WORK),
                     MCS_ERR_ARGUMENT);
    assert_int_equal(mcs_jump(MCS_JUMP_MINIMAL, 1, M, 0, NULL, 1, T, 1, J2, v, NULL, 1e-9, dv, lam,
                              NULL, work, 1, iwork, 1),
                     MCS_ERR_WORKSPACE);
    assert_int_equal(
        mcs_jump(MCS_JUMP_MINIMAL, 1, M, 0, NULL, 1, T, 1, J2, v, NULL, 1e-9, dv, lam, NULL, WORK),
        MCS_OK);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_three_formulations_agree),
        cmocka_unit_test(test_redundant_rows_get_the_minimum_norm_impulse),
        cmocka_unit_test(test_a_lock_of_every_freedom_stops_exactly),
        cmocka_unit_test(test_3r_lock_conserves_free_joint_momenta),
        cmocka_unit_test(test_arguments_are_checked),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
