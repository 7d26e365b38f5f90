/* test_statics.c - static equilibrium (mcs_statics.c, mcs_statics_step.c): the pendulum of
 * 003 §4.1 (equilibrium, failure without K_c), the tangent and KKT formulations agreeing, a model
 * without rows, dependent rows (tangent works, KKT reports a singular matrix), the torsion
 * pendulum's hand-derived equilibrium, the same equilibrium in a continued tangent basis, the
 * status codes and the empty report of a refused call. The modes at these equilibria:
 * test_modes.c. Runs on both linear-algebra backends and under ASan/UBSan (Makefile). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <math.h>
#include <cmocka.h>

#include "mcs/mcs_statics.h"
#include "pendulum_3r.h"
#include "pendulum_3r_bodies.h"
#include "pendulum_kc.h"
#include "pendulum_torsion.h"
#include "planar_pendulum_redundant.h"

#define NX PENDULUM_3R_BODIES_NX /* the largest of the models used here */
#define NC PENDULUM_3R_BODIES_NC
static mcs_real work[MCS_STATICS_WORK_SIZE(NX, NC)];
static int iwork[MCS_STATICS_IWORK_SIZE(NX, NC)];
static mcs_real x[NX], lam[NC];
#define WORK_ARGS work, sizeof work / sizeof *work, iwork, sizeof iwork / sizeof *iwork

/* The torsion pendulum by hand (models/pendulum_torsion.yaml:
 * m g L sin(phi) + k (phi - 0.5) = 0; its frequency and damping: test_modes.c). */
#define PHI_TORSION 0.12706198115555595

static mcs_status statics_from(const mcs_model *md, const mcs_real *x0, int method, int use_kc,
                               mcs_statics_report *rep)
{
    mcs_statics_options opt;
    int i;
    mcs_statics_defaults(&opt);
    opt.method = method;
    opt.use_kc = use_kc;
    for (i = 0; i < md->nx; ++i)
        x[i] = x0[i];
    return mcs_statics_solve(md, md->default_params, &opt, x, lam, rep, WORK_ARGS);
}

static mcs_status statics(const mcs_model *md, int method, int use_kc, mcs_statics_report *rep)
{
    return statics_from(md, md->x0, method, use_kc, rep);
}

/* The 003 pendulum hangs at the bottom (its frequency there: test_modes.c). */
static void pendulum_equilibrium(void **state)
{
    const mcs_model *md = &pendulum_kc_model;
    mcs_statics_report rep;
    mcs_real xt[3], lt[2];
    (void)state;
    assert_int_equal(statics(md, MCS_STATICS_TANGENT, 1, &rep), MCS_OK);
    assert_true(fabs(x[0]) < 1e-12 && fabs(x[1] + 4) < 1e-12);
    assert_true(fabs(x[2] + 1.5707963267948966) < 1e-12);
    assert_true(rep.iterations >= 2 && rep.iterations < 10 && rep.rank == 2);
    xt[0] = x[0], xt[1] = x[1], xt[2] = x[2], lt[0] = lam[0], lt[1] = lam[1];
    /* the KKT formulation converges to the same (x, lambda) */
    assert_int_equal(statics(md, MCS_STATICS_KKT, 1, &rep), MCS_OK);
    assert_true(fabs(x[0] - xt[0]) < 1e-12 && fabs(x[1] - xt[1]) < 1e-12);
    assert_true(fabs(lam[1] - lt[1]) < 1e-9 && fabs(lam[0] - lt[0]) < 1e-9);
}

/* A model without rows (m = 0: pendulum_3r's joint angles): the tangent basis is the identity,
 * which no QR writes; the 3R pendulum hangs straight down, and the KKT form agrees. Before the
 * basis was set, the step saw T = 0 and called every m = 0 model singular. */
static void no_rows_hang_straight_down(void **state)
{
    static const mcs_real start[3] = {0.3, 0.2, 0.1};
    mcs_statics_report rep;
    int i;
    (void)state;
    assert_int_equal(statics_from(&pendulum_3r_model, start, MCS_STATICS_TANGENT, 1, &rep), MCS_OK);
    assert_true(rep.iterations >= 2 && rep.rank == 0);
    for (i = 0; i < 3; ++i)
        assert_true(fabs(x[i]) < 1e-12);
    assert_int_equal(statics_from(&pendulum_3r_model, start, MCS_STATICS_KKT, 1, &rep), MCS_OK);
    for (i = 0; i < 3; ++i)
        assert_true(fabs(x[i]) < 1e-12);
}

static void pendulum_without_kc_has_no_stiffness(void **state)
{
    mcs_statics_report rep;
    (void)state;
    assert_int_equal(statics(&pendulum_kc_model, MCS_STATICS_TANGENT, 0, &rep),
                     MCS_ERR_SINGULAR_JACOBIAN);
    assert_int_equal(statics(&pendulum_kc_model, MCS_STATICS_KKT, 0, &rep),
                     MCS_ERR_SINGULAR_JACOBIAN);
    assert_true(rep.residual_f > 1); /* it stopped where it started, and says so */
}

static void dependent_rows_need_the_tangent_form(void **state)
{
    const mcs_model *md = &planar_pendulum_redundant_model;
    const mcs_real x30[2] = {0.5, -0.86602540378443865}; /* 30 degrees from the bottom */
    mcs_statics_report rep;
    (void)state;
    /* from the file's horizontal start the rod carries no load: K_c = 0, nothing to go on */
    assert_int_equal(statics(md, MCS_STATICS_TANGENT, 1, &rep), MCS_ERR_SINGULAR_JACOBIAN);
    assert_int_equal(statics_from(md, x30, MCS_STATICS_TANGENT, 1, &rep), MCS_OK);
    assert_int_equal(rep.rank, 1);
    assert_true(fabs(x[0]) < 1e-12 && fabs(x[1] + 1) < 1e-12);
    /* minimum norm: the two copies share the load, 2 (lam0 + lam1) z = -M g at z = -1 */
    assert_true(fabs(lam[0] - lam[1]) < 1e-12 && fabs(lam[0] - 9.81 / 4) < 1e-12);
    assert_int_equal(statics_from(md, x30, MCS_STATICS_KKT, 1, &rep), MCS_ERR_SINGULAR_JACOBIAN);
}

/* The torsion pendulum's equilibrium by hand (its frequency and damping: test_modes.c). */
static void torsion_pendulum_by_hand(void **state)
{
    const mcs_model *md = &pendulum_torsion_model;
    (void)state;
    assert_int_equal(statics(md, MCS_STATICS_TANGENT, 1, NULL), MCS_OK);
    assert_true(fabs(2 * atan2(x[5], x[3]) - PHI_TORSION) < 1e-12);
}

/* The continued basis (mcs_statics_options.basis) gives the same equilibrium as the QR basis of
 * each iterate, and is an orthonormal basis of the null space of A at the end (the same modes in
 * it: test_modes.c). */
static void continued_basis_changes_nothing(void **state)
{
    const mcs_model *md = &pendulum_3r_bodies_model;
    const int n = md->nx, m = md->nc;
    static mcs_real T[NX * NX], A[NC * NX], xq[NX], lq[NC];
    mcs_statics_options opt;
    mcs_statics_report rep;
    int i, j, k, f = 0, f_qr;
    (void)state;
    /* traditional: QR basis at every iterate */
    assert_int_equal(statics(md, MCS_STATICS_TANGENT, 1, &rep), MCS_OK);
    for (i = 0; i < n; ++i)
        xq[i] = x[i];
    for (i = 0; i < m; ++i)
        lq[i] = lam[i];
    f_qr = n - rep.rank;
    assert_int_equal(f_qr, 3);
    /* continued from the start's QR basis along the Newton path */
    mcs_statics_defaults(&opt);
    opt.basis = T;
    opt.basis_cols = &f;
    for (i = 0; i < n; ++i)
        x[i] = md->x0[i];
    assert_int_equal(mcs_statics_solve(md, md->default_params, &opt, x, lam, &rep, WORK_ARGS),
                     MCS_OK);
    assert_int_equal(f, f_qr);
    for (i = 0; i < n; ++i)
        assert_true(fabs(x[i] - xq[i]) < 1e-12);
    for (i = 0; i < m; ++i)
        assert_true(fabs(lam[i] - lq[i]) < 1e-9 * (1 + fabs(lq[i])));
    /* T^T T = I and A T = 0 at the equilibrium */
    md->A(x, 0, md->default_params, A);
    for (j = 0; j < f; ++j) {
        for (k = 0; k < f; ++k) {
            mcs_real d = 0;
            for (i = 0; i < n; ++i)
                d += T[i + j * n] * T[i + k * n];
            assert_true(fabs(d - (j == k)) < 1e-13);
        }
        for (i = 0; i < m; ++i) {
            mcs_real d = 0;
            for (k = 0; k < n; ++k)
                d += A[i + k * m] * T[k + j * n];
            assert_true(fabs(d) < 1e-13);
        }
    }
    /* and it is not the QR basis there (the path turned it): the test compares two bases */
    {
        static mcs_real Q[NX * NX], R[NX * NC], bw[MCS_BASIS_WORK_SIZE(NX, NC)];
        static int piv[NC];
        mcs_real diff = 0;
        int r;
        assert_int_equal(mcs_qr_basis(n, m, A, m, 1e-9, Q, R, piv, &r, bw), MCS_OK);
        for (i = 0; i < n * f; ++i)
            diff = fabs(T[i] - Q[r * n + i]) > diff ? fabs(T[i] - Q[r * n + i]) : diff;
        print_message("continued vs QR basis at the equilibrium: max |T - T_qr| = %.3g\n", diff);
        assert_true(diff > 1e-2);
    }
    /* basis without basis_cols (or the reverse) is an argument error */
    opt.basis_cols = NULL;
    assert_int_equal(mcs_statics_solve(md, md->default_params, &opt, x, lam, NULL, WORK_ARGS),
                     MCS_ERR_ARGUMENT);
}

static void status_codes(void **state)
{
    const mcs_model *md = &pendulum_kc_model;
    mcs_statics_options opt;
    int i;
    (void)state;
    mcs_statics_defaults(&opt);
    assert_int_equal(mcs_statics_solve(NULL, NULL, &opt, x, lam, NULL, WORK_ARGS),
                     MCS_ERR_ARGUMENT);
    assert_int_equal(mcs_statics_solve(md, md->default_params, &opt, x, lam, NULL, work, 10, iwork,
                                       sizeof iwork / sizeof *iwork),
                     MCS_ERR_WORKSPACE);
    opt.max_iter = MCS_STATICS_HISTORY;
    assert_int_equal(mcs_statics_solve(md, md->default_params, &opt, x, lam, NULL, WORK_ARGS),
                     MCS_ERR_ARGUMENT);
    mcs_statics_defaults(&opt);
    opt.max_iter = 1; /* one step is not enough from 30 degrees */
    for (i = 0; i < md->nx; ++i)
        x[i] = md->x0[i];
    assert_int_equal(mcs_statics_solve(md, md->default_params, &opt, x, lam, NULL, WORK_ARGS),
                     MCS_ERR_NO_CONVERGENCE);
    assert_true(mcs_statics_work_size(md) > 0);
}

/* A refused call leaves an empty report (issue 34: the command line read the report of a refused
 * --max-iter 64 and printed what the memory held, or crashed). */
static void refused_calls_leave_an_empty_report(void **state)
{
    const mcs_model *md = &pendulum_kc_model;
    mcs_statics_options opt;
    mcs_statics_report rep;
    int i;
    (void)state;
    mcs_statics_defaults(&opt);
    for (i = 0; i < md->nx; ++i)
        x[i] = md->x0[i];
    opt.max_iter = MCS_STATICS_HISTORY;
    memset(&rep, 0x5a, sizeof rep);
    assert_int_equal(mcs_statics_solve(md, md->default_params, &opt, x, lam, &rep, WORK_ARGS),
                     MCS_ERR_ARGUMENT);
    assert_int_equal(rep.iterations, 0);
    assert_int_equal(rep.evaluations, 0);
    assert_int_equal(rep.rank, 0);
    assert_int_equal(rep.history_len, 0);
    assert_true(rep.residual_c == 0 && rep.residual_f == 0);
    for (i = 0; i < MCS_STATICS_HISTORY; ++i)
        assert_true(rep.merit[i] == 0 && rep.step[i] == 0);
    mcs_statics_defaults(&opt);
    memset(&rep, 0x5a, sizeof rep);
    assert_int_equal(mcs_statics_solve(md, md->default_params, &opt, x, lam, &rep, work, 10, iwork,
                                       sizeof iwork / sizeof *iwork),
                     MCS_ERR_WORKSPACE);
    assert_int_equal(rep.iterations, 0);
    assert_int_equal(rep.history_len, 0);
}

/* A firmware build without the stiffness kernels (mcsgen generate --kernels motion) gets
 * MCS_ERR_UNSUPPORTED from statics, not a call through NULL (and from modes: test_modes.c). */
static void without_stiffness_kernels_unsupported(void **state)
{
    mcs_model subset = pendulum_kc_model;
    mcs_statics_options opt;
    int i;
    (void)state;
    mcs_statics_defaults(&opt);
    for (i = 0; i < subset.nx; ++i)
        x[i] = subset.x0[i];
    lam[0] = lam[1] = 0;
    subset.K_c = NULL;
    assert_int_equal(
        mcs_statics_solve(&subset, subset.default_params, &opt, x, lam, NULL, WORK_ARGS),
        MCS_ERR_UNSUPPORTED);
    subset = pendulum_kc_model;
    subset.K_f = NULL;
    assert_int_equal(
        mcs_statics_solve(&subset, subset.default_params, &opt, x, lam, NULL, WORK_ARGS),
        MCS_ERR_UNSUPPORTED);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(pendulum_equilibrium),
        cmocka_unit_test(pendulum_without_kc_has_no_stiffness),
        cmocka_unit_test(no_rows_hang_straight_down),
        cmocka_unit_test(dependent_rows_need_the_tangent_form),
        cmocka_unit_test(torsion_pendulum_by_hand),
        cmocka_unit_test(continued_basis_changes_nothing),
        cmocka_unit_test(status_codes),
        cmocka_unit_test(refused_calls_leave_an_empty_report),
        cmocka_unit_test(without_stiffness_kernels_unsupported),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
