/* test_sim.c - chart integration, assembly, continuation invariants and status codes (mcs_sim.c),
 * driven through generated models (spatial_pendulum: n = 3, m = 1; pendulum_3r: n = 3, m = 0;
 * planar_pendulum_redundant: n = m = 2, rank 1). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "test_needs.h"

#include "mcs/mcs_sim.h"
#include "sim/mcs_operations.h" /* mcs_chart_rhs: a fresh first stage to compare with */
#include "pendulum_3r.h"
#include "planar_pendulum_redundant.h"
#include "spatial_pendulum.h"

static mcs_real work[MCS_SIM_WORK_SIZE(3, 2)];
static int iwork[MCS_SIM_IWORK_SIZE(3, 2)];
#define WORK_ARGS work, sizeof work / sizeof *work, iwork, sizeof iwork / sizeof *iwork

/* runs to t_end from the file's state; x_out the end positions; returns the evaluations */
static long run_to(const mcs_model *md, const void *params, mcs_method method, mcs_continuation c,
                   double h, double rtol, double t_end, mcs_real *x_out)
{
    mcs_sim sim;
    mcs_options opt;
    int i;
    mcs_options_default(&opt, md);
    opt.method = method;
    opt.continuation = c;
    opt.h = h;
    opt.rtol = rtol;
    opt.atol = rtol * 1e-2;
    assert_int_equal(mcs_sim_init(&sim, md, params, &opt, WORK_ARGS), MCS_OK);
    assert_int_equal(mcs_sim_set_state(&sim, 0, md->x0, md->v0, NULL), MCS_OK);
    assert_int_equal(mcs_sim_advance(&sim, t_end), MCS_OK);
    assert_true(sim.cur.t == t_end);
    for (i = 0; i < md->nx; ++i)
        x_out[i] = sim.cur.x[i];
    return sim.stats.evaluations;
}

static double max_diff(int n, const mcs_real *a, const mcs_real *b)
{
    double d = 0;
    int i;
    for (i = 0; i < n; ++i)
        if (fabs(a[i] - b[i]) > d)
            d = fabs(a[i] - b[i]);
    return d;
}

/* (x, v)' = (v, M(x)^-1 f(x, v)) of a model without rows (n = 3), M solved by Gaussian
 * elimination: the plain ODE, none of the simulator's code. */
static void plain_rhs(const mcs_model *md, const void *params, const double *y, double *ydot)
{
    mcs_real x[3], v[3], M[9], f[3];
    double a[3][4];
    int i, j, k;
    for (i = 0; i < 3; ++i) {
        x[i] = (mcs_real)y[i];
        v[i] = (mcs_real)y[3 + i];
    }
    md->M(x, 0, params, M);
    md->f(x, v, 0, params, f);
    for (i = 0; i < 3; ++i) {
        for (j = 0; j < 3; ++j)
            a[i][j] = (double)M[i + 3 * j];
        a[i][3] = (double)f[i];
    }
    for (k = 0; k < 3; ++k) /* M is positive definite: no pivoting needed */
        for (i = k + 1; i < 3; ++i) {
            const double l = a[i][k] / a[k][k];
            for (j = k; j < 4; ++j)
                a[i][j] -= l * a[k][j];
        }
    for (i = 2; i >= 0; --i) {
        double s = a[i][3];
        for (j = i + 1; j < 3; ++j)
            s -= a[i][j] * ydot[3 + j];
        ydot[3 + i] = s / a[i][i];
    }
    for (i = 0; i < 3; ++i)
        ydot[i] = y[3 + i];
}

/* Without constraint rows (pendulum_3r: joint coordinates, m = 0) the tangent basis is the
 * identity and stays so, the chart is x = x_k + q, and a step is classical RK4 on
 * M(x) x'' = f(x, x') (issue 36's m = 0 path: no QR, no chart Newton, no alignment): 200 steps
 * of the simulator (continuation exp, as the file sets it) equal the plain ODE's to round-off. */
static void test_no_rows_is_rk4_on_the_plain_ode(void **state)
{
    const mcs_model *md = &pendulum_3r_model;
    const double h = 1e-3;
    double y[6], k[4][6], tmp[6];
    mcs_real T[9];
    mcs_sim sim;
    mcs_options opt;
    int i, j, step;
    (void)state;
    NEEDS(MCS_PART_DENSE | MCS_PART_EVENTS | MCS_PART_PREDICTORS);
    assert_int_equal(md->nc, 0);
    mcs_options_default(&opt, md);
    opt.method = MCS_METHOD_RK4;
    opt.h = h;
    assert_int_equal(opt.continuation, MCS_CONT_EXP);
    assert_int_equal(mcs_sim_init(&sim, md, md->default_params, &opt, WORK_ARGS), MCS_OK);
    assert_int_equal(mcs_sim_set_state(&sim, 0, md->x0, md->v0, NULL), MCS_OK);
    assert_int_equal(mcs_sim_advance(&sim, 200 * h), MCS_OK);
    assert_int_equal(sim.stats.steps, 200);
    assert_int_equal(sim.stats.newton_iterations, 0);
    assert_int_equal(mcs_sim_basis(&sim, T), MCS_OK);
    for (i = 0; i < 9; ++i) /* exactly the identity, after 200 continuations */
        assert_true(T[i] == ((i % 4 == 0) ? 1 : 0));
    for (i = 0; i < 3; ++i) {
        y[i] = (double)md->x0[i];
        y[3 + i] = (double)md->v0[i];
    }
    for (step = 0; step < 200; ++step) {
        for (j = 0; j < 4; ++j) {
            const double c = (j == 0) ? 0 : (j == 3) ? h : h / 2;
            for (i = 0; i < 6; ++i)
                tmp[i] = y[i] + ((j == 0) ? 0 : c * k[j - 1][i]);
            plain_rhs(md, md->default_params, tmp, k[j]);
        }
        for (i = 0; i < 6; ++i)
            y[i] += h / 6 * (k[0][i] + 2 * k[1][i] + 2 * k[2][i] + k[3][i]);
    }
    for (i = 0; i < 3; ++i) {
        assert_true(fabs((double)sim.cur.x[i] - y[i]) < (sizeof(mcs_real) < 8 ? 1e-4 : 1e-13));
        assert_true(fabs((double)sim.cur.v[i] - y[3 + i]) < (sizeof(mcs_real) < 8 ? 1e-3 : 1e-12));
    }
}

static void test_rk4_fourth_order_on_charts(void **state)
{
    /* spatial pendulum over 0.3 s: halving h divides the error by ~16 */
    /* (h omega = 0.01 .. 0.0025 with omega = v0 / l ~ 10 rad/s: the asymptotic range). The
     * reference is DOP853 at rtol 1e-13 (a few hundred steps): RK4 at h = 5e-5 took 6000, whose
     * round-off, about 3e-14, was a fifth of the error at h = 2.5e-4 (1.3e-13) and moved the
     * last ratio with the rounding of each step (16.4 or 13.6 for the same order) */
    mcs_real ref[3], x[3];
    double err[3], h = 1e-3;
    int k;
    (void)state;
    NEEDS(MCS_PART_DOP853 | MCS_PART_EVENTS | MCS_PART_PREDICTORS | MCS_PART_DENSE);
    run_to(&spatial_pendulum_model, &spatial_pendulum_default_params, MCS_METHOD_DOP853,
           MCS_CONT_EXP, 1e-3, 1e-13, 0.3, ref);
    for (k = 0; k < 3; ++k, h /= 2) {
        run_to(&spatial_pendulum_model, &spatial_pendulum_default_params, MCS_METHOD_RK4,
               MCS_CONT_EXP, h, 1, 0.3, x);
        err[k] = max_diff(3, x, ref);
    }
    for (k = 0; k < 2; ++k) {
        double ratio = err[k] / err[k + 1];
        print_message("RK4 error %.3e -> %.3e, ratio %.2f\n", err[k], err[k + 1], ratio);
        assert_true(ratio > 14 && ratio < 18);
    }
}

/* ROS34PW2 on a fixed grid is third order on the charts: halving h divides the error by ~8
 * (spatial pendulum over 0.3 s, h = 2 .. 0.5 ms; DOP853 at rtol 1e-13 the reference); the
 * adaptive one stays within 20 rtol of it. */
static void test_ros34pw2_third_order_on_charts(void **state)
{
    mcs_real ref[3], x[3];
    double err[3], h = 2e-3;
    int k;
    (void)state;
    NEEDS(MCS_PART_DOP853 | MCS_PART_EVENTS | MCS_PART_PREDICTORS | MCS_PART_DENSE |
          MCS_PART_IMPLICIT);
    run_to(&spatial_pendulum_model, &spatial_pendulum_default_params, MCS_METHOD_DOP853,
           MCS_CONT_EXP, 1e-3, 1e-13, 0.3, ref);
    for (k = 0; k < 3; ++k, h /= 2) {
        run_to(&spatial_pendulum_model, &spatial_pendulum_default_params, MCS_METHOD_ROS34PW2_FIXED,
               MCS_CONT_EXP, h, 1, 0.3, x);
        err[k] = max_diff(3, x, ref);
    }
    for (k = 0; k < 2; ++k) {
        double ratio = err[k] / err[k + 1];
        print_message("ROS34PW2 error %.3e -> %.3e, ratio %.2f\n", err[k], err[k + 1], ratio);
        assert_true(ratio > 7 && ratio < 9);
    }
    run_to(&spatial_pendulum_model, &spatial_pendulum_default_params, MCS_METHOD_ROS34PW2,
           MCS_CONT_EXP, 1e-3, 1e-8, 0.3, x);
    assert_true(max_diff(3, x, ref) < 20 * 1e-8 * 0.08);
}

/* the spatial pendulum (one constraint) over 0.5 s against a fine RK4 run: within 20 rtol of
 * its size (0.08 m) at rtol 1e-6 and 1e-8 */
static void spatial_meets_tolerance(mcs_method method)
{
    const double rtols[] = {1e-6, 1e-8};
    mcs_real ref[3], x[3];
    int k;
    run_to(&spatial_pendulum_model, &spatial_pendulum_default_params, MCS_METHOD_RK4, MCS_CONT_EXP,
           1e-4, 1, 0.5, ref);
    for (k = 0; k < 2; ++k) {
        run_to(&spatial_pendulum_model, &spatial_pendulum_default_params, method, MCS_CONT_EXP,
               1e-3, rtols[k], 0.5, x);
        print_message("spatial %s rtol %.0e: error %.3e\n",
                      method == MCS_METHOD_DOP853 ? "DOP853" : "DOPRI5", rtols[k],
                      max_diff(3, x, ref));
        assert_true(max_diff(3, x, ref) < 20 * rtols[k] * 0.08 + 1e-12);
    }
}

static void test_dopri5_meets_tolerance(void **state)
{
    /* 3R pendulum (no constraints) and spatial pendulum (one), against fine RK4 references */
    mcs_real ref[3], x[3];
    double rtols[] = {1e-6, 1e-8, 1e-10};
    int k;
    (void)state;
    NEEDS(MCS_PART_EVENTS | MCS_PART_PREDICTORS | MCS_PART_DENSE);
    run_to(&pendulum_3r_model, &pendulum_3r_default_params, MCS_METHOD_RK4, MCS_CONT_EXP, 2.5e-4, 1,
           1.0, ref);
    for (k = 0; k < 3; ++k) {
        run_to(&pendulum_3r_model, &pendulum_3r_default_params, MCS_METHOD_DOPRI5, MCS_CONT_EXP,
               1e-3, rtols[k], 1.0, x);
        print_message("3R DOPRI5 rtol %.0e: error %.3e\n", rtols[k], max_diff(3, x, ref));
        assert_true(max_diff(3, x, ref) < 20 * rtols[k] + 1e-11);
    }
    spatial_meets_tolerance(MCS_METHOD_DOPRI5);
}

/* DOP853 meets the same bounds as DOPRI5, its error falls with rtol, and at tight tolerances it
 * needs far fewer evaluations (3R pendulum at rtol 1e-10: a third) */
static void test_dop853_meets_tolerance_with_fewer_evaluations(void **state)
{
    mcs_real ref[3], x[3];
    double rtols[] = {1e-6, 1e-8, 1e-10}, err[3];
    long evals[3], evals5;
    int k;
    (void)state;
    NEEDS(MCS_PART_DOP853 | MCS_PART_EVENTS | MCS_PART_PREDICTORS | MCS_PART_DENSE);
    run_to(&pendulum_3r_model, &pendulum_3r_default_params, MCS_METHOD_RK4, MCS_CONT_EXP, 2.5e-4, 1,
           1.0, ref);
    for (k = 0; k < 3; ++k) {
        evals[k] = run_to(&pendulum_3r_model, &pendulum_3r_default_params, MCS_METHOD_DOP853,
                          MCS_CONT_EXP, 1e-3, rtols[k], 1.0, x);
        err[k] = max_diff(3, x, ref);
        print_message("3R DOP853 rtol %.0e: error %.3e, %ld evaluations\n", rtols[k], err[k],
                      evals[k]);
        assert_true(err[k] < 20 * rtols[k] + 1e-11);
    }
    assert_true(err[1] < err[0] / 10 && err[2] < err[1] / 10);
    evals5 = run_to(&pendulum_3r_model, &pendulum_3r_default_params, MCS_METHOD_DOPRI5,
                    MCS_CONT_EXP, 1e-3, 1e-10, 1.0, x);
    print_message("3R at rtol 1e-10: DOPRI5 %ld evaluations, DOP853 %ld\n", evals5, evals[2]);
    assert_true(2 * evals[2] < evals5);
    spatial_meets_tolerance(MCS_METHOD_DOP853);
}

/* T^T T = I and A_S T = 0 after every step; qdot continuous with continuation */
static void test_basis_invariants_along_motion(void **state)
{
    const mcs_model *md = &spatial_pendulum_model;
    mcs_sim sim;
    mcs_options opt;
    mcs_real A[3], q[3], qd[3], qd_prev[3];
    double worst_orth = 0, worst_null = 0, worst_jump = 0;
    int step, i, j, l;
    (void)state;
    NEEDS(MCS_PART_EVENTS | MCS_PART_PREDICTORS | MCS_PART_DENSE);
    mcs_options_default(&opt, md);
    opt.h = 1e-3;
    assert_int_equal(mcs_sim_init(&sim, md, &spatial_pendulum_default_params, &opt, WORK_ARGS),
                     MCS_OK);
    assert_int_equal(mcs_sim_set_state(&sim, 0, md->x0, md->v0, NULL), MCS_OK);
    mcs_sim_minimal(&sim, q, qd_prev);
    assert_true(fabs(fabs(qd_prev[0]) - 0.7895) < 1e-15 && fabs(qd_prev[1]) < 1e-15);
    for (step = 0; step < 2000; ++step) {
        const mcs_real *T;
        assert_int_equal(mcs_sim_step(&sim, 2.0), MCS_OK);
        T = sim.cur.Q + sim.cur.r * 3;
        for (i = 0; i < 2; ++i)
            for (j = 0; j < 2; ++j) {
                double s = -(i == j);
                for (l = 0; l < 3; ++l)
                    s += T[l + i * 3] * T[l + j * 3];
                worst_orth = fabs(s) > worst_orth ? fabs(s) : worst_orth;
            }
        md->A(sim.cur.x, sim.cur.t, &spatial_pendulum_default_params, A);
        for (j = 0; j < 2; ++j) {
            double s = 0;
            for (l = 0; l < 3; ++l)
                s += A[l] * T[l + j * 3];
            worst_null = fabs(s) > worst_null ? fabs(s) : worst_null;
        }
        mcs_sim_minimal(&sim, q, qd);
        for (i = 0; i < 2; ++i) {
            double jump = fabs(qd[i] - qd_prev[i]);
            worst_jump = jump > worst_jump ? jump : worst_jump;
            qd_prev[i] = qd[i];
        }
    }
    print_message("|T^T T - I| %.2e, |A T| %.2e, max qdot jump %.4f\n", worst_orth, worst_null,
                  worst_jump);
    assert_true(worst_orth < 1e-14);
    assert_true(worst_null < 1e-14);
    assert_true(worst_jump < 0.02);
    assert_true(sim.cur.t == 2.0);
}

static void test_assembly_corrects_and_reports(void **state)
{
    const mcs_model *md = &spatial_pendulum_model;
    const mcs_real x_bad[3] = {0.1, 0.0, 0.02}, v_bad[3] = {0.3, 0.7, 0.0};
    mcs_real c[1], A[3], ct[1];
    mcs_sim sim;
    mcs_options opt;
    mcs_assembly rep;
    double cdot;
    (void)state;
    NEEDS(MCS_PART_EVENTS | MCS_PART_PREDICTORS | MCS_PART_DENSE);
    mcs_options_default(&opt, md);
    assert_int_equal(mcs_sim_init(&sim, md, &spatial_pendulum_default_params, &opt, WORK_ARGS),
                     MCS_OK);
    assert_int_equal(mcs_sim_set_state(&sim, 0, x_bad, v_bad, &rep), MCS_OK);
    md->c(sim.cur.x, 0, &spatial_pendulum_default_params, c);
    md->A(sim.cur.x, 0, &spatial_pendulum_default_params, A);
    md->c_t(sim.cur.x, 0, &spatial_pendulum_default_params, ct);
    cdot = A[0] * sim.cur.v[0] + A[1] * sim.cur.v[1] + A[2] * sim.cur.v[2] + ct[0];
    assert_true(fabs(c[0]) < 1e-16);
    assert_true(fabs(cdot) < 1e-16);
    assert_true(rep.c_norm_before > 3e-3 && rep.c_norm_after < 1e-16);
    /* minimum-norm correction of a point off a sphere about the origin is radial: |dx| = r - l */
    assert_true(fabs(rep.dx_norm - (sqrt(0.1 * 0.1 + 0.02 * 0.02) - 0.08)) < 1e-14);
    assert_true(rep.dv_norm > 0 && rep.iterations > 0);
}

static void test_redundant_rank_and_motion(void **state)
{
    const mcs_model *md = &planar_pendulum_redundant_model;
    mcs_sim sim;
    mcs_options opt;
    (void)state;
    NEEDS(MCS_PART_EVENTS | MCS_PART_PREDICTORS | MCS_PART_DENSE);
    mcs_options_default(&opt, md);
    assert_int_equal(
        mcs_sim_init(&sim, md, &planar_pendulum_redundant_default_params, &opt, WORK_ARGS), MCS_OK);
    assert_int_equal(mcs_sim_set_state(&sim, 0, md->x0, md->v0, NULL), MCS_OK);
    assert_int_equal(sim.cur.r, 1);
    assert_int_equal(mcs_sim_advance(&sim, 1.0), MCS_OK);
    assert_int_equal(sim.cur.r, 1);
    {
        mcs_real cn = -1;
        assert_int_equal(mcs_sim_constraint_norm(&sim, &cn), MCS_OK);
        assert_true(cn >= 0 && cn < 1e-14);
    }
}

static void test_status_codes(void **state)
{
    const mcs_model *md = &spatial_pendulum_model;
    mcs_model wrong_abi = spatial_pendulum_model;
    mcs_sim sim;
    mcs_options opt;
    size_t need = 0, ineed = 0;
    int s;
    (void)state;
    NEEDS(MCS_PART_EVENTS | MCS_PART_PREDICTORS | MCS_PART_DENSE);
    assert_int_equal(md->nj, 0); /* a model given by coordinates has no joints */
    assert_true(md->joints == NULL);
    assert_int_equal(mcs_options_default(NULL, md), MCS_ERR_ARGUMENT);
    assert_int_equal(mcs_options_default(&opt, md), MCS_OK);
    assert_int_equal(mcs_sim_workspace_size(3, 1, &need, &ineed), MCS_OK);
    assert_int_equal(mcs_sim_workspace_size(0, 1, &need, &ineed), MCS_ERR_ARGUMENT);
    assert_int_equal(
        mcs_sim_init(&sim, md, &spatial_pendulum_default_params, &opt, work, need - 1, iwork, 1000),
        MCS_ERR_WORKSPACE);
    assert_int_equal(mcs_sim_init(&sim, md, &spatial_pendulum_default_params, &opt, work, need,
                                  iwork, ineed - 1),
                     MCS_ERR_WORKSPACE);
    assert_int_equal(
        mcs_sim_init(&sim, md, &spatial_pendulum_default_params, &opt, work, need, iwork, ineed),
        MCS_OK);
    wrong_abi.abi_version = MCS_MODEL_ABI_VERSION + 1;
    assert_int_equal(
        mcs_sim_init(&sim, &wrong_abi, &spatial_pendulum_default_params, &opt, WORK_ARGS),
        MCS_ERR_MODEL_VERSION);
    assert_int_equal(mcs_sim_init(NULL, md, &spatial_pendulum_default_params, &opt, WORK_ARGS),
                     MCS_ERR_ARGUMENT);
    opt.h = -1;
    assert_int_equal(mcs_sim_init(&sim, md, &spatial_pendulum_default_params, &opt, WORK_ARGS),
                     MCS_ERR_ARGUMENT);
    mcs_options_default(&opt, md);
    assert_int_equal(mcs_sim_init(&sim, md, &spatial_pendulum_default_params, &opt, WORK_ARGS),
                     MCS_OK);
    {
        const mcs_real x_nan[3] = {NAN, 0, 0};
        assert_int_equal(mcs_sim_set_state(&sim, 0, x_nan, md->v0, NULL), MCS_ERR_NONFINITE);
    }
    assert_int_equal(mcs_sim_set_state(&sim, 0, md->x0, md->v0, NULL), MCS_OK);
    assert_int_equal(mcs_sim_step(&sim, 0.0), MCS_ERR_ARGUMENT); /* target not ahead */
    {
        mcs_real x[3], v[3];
        assert_int_equal(mcs_sim_dense(&sim, 0.0, x, v, NULL, NULL), MCS_ERR_NO_DENSE);
    }
    for (s = 0; s < MCS_NSTATUS; ++s)
        assert_true(strlen(mcs_status_str((mcs_status)s)) > 1);
    assert_string_equal(mcs_status_str(MCS_NSTATUS), "unknown status");
}

/* The compile-time size macros equal what the carver counts from the layout itself. */
/* mcs_sim_start: at the defaults exactly mcs_sim_set_state(x0, v0); for another length l the
 * file's state assembled onto the new constraint (what a model regenerated with that l starts
 * from: x0 = (0.08, 0, 0) has no l in it, so x = (l, 0, 0) and v0 is already tangent). */
static void test_start_is_the_files_state_for_the_parameters(void **state)
{
    const mcs_model *md = &spatial_pendulum_model;
    spatial_pendulum_params p = spatial_pendulum_default_params;
    mcs_sim sim;
    mcs_options opt;
    mcs_assembly rep;
    mcs_real x[3], v[3], xv[6];
    int i;
    (void)state;
    NEEDS(MCS_PART_EVENTS | MCS_PART_PREDICTORS | MCS_PART_DENSE);
    assert_non_null(md->initial); /* the constraint depends on l */
    assert_int_equal(md->nheld, 0);
    mcs_options_default(&opt, md);
    assert_int_equal(mcs_sim_init(&sim, md, &p, &opt, WORK_ARGS), MCS_OK);
    assert_int_equal(mcs_sim_start(&sim, 0, NULL), MCS_OK);
    memcpy(x, sim.cur.x, sizeof x);
    memcpy(v, sim.cur.v, sizeof v);
    assert_int_equal(mcs_sim_set_state(&sim, 0, md->x0, md->v0, NULL), MCS_OK);
    assert_memory_equal(x, sim.cur.x, sizeof x);
    assert_memory_equal(v, sim.cur.v, sizeof v);

    p.mcs_p_l = 0.1;
    assert_int_equal(mcs_model_initial_state(md, &p, xv), MCS_OK);
    for (i = 0; i < 3; ++i) {
        assert_true(xv[i] == md->x0[i] && xv[3 + i] == md->v0[i]);
    }
    assert_int_equal(mcs_sim_start(&sim, 0, &rep), MCS_OK);
    assert_true(fabs(sim.cur.x[0] - 0.1) < 1e-15 && sim.cur.x[1] == 0 && sim.cur.x[2] == 0);
    assert_true(fabs(sim.cur.v[1] - 0.7895) < 1e-15 && fabs(sim.cur.v[0]) < 1e-15);
    assert_true(fabs(rep.dx_norm - 0.02) < 1e-15 && rep.c_norm_after < 1e-15);
    assert_int_equal(mcs_sim_advance(&sim, 0.01), MCS_OK);
    assert_true(fabs(sqrt(sim.cur.x[0] * sim.cur.x[0] + sim.cur.x[1] * sim.cur.x[1] +
                          sim.cur.x[2] * sim.cur.x[2]) -
                     0.1) < 1e-12);

    p.mcs_p_l = (mcs_real)NAN; /* bad parameters are a status, not a state */
    assert_int_equal(mcs_sim_start(&sim, 0, NULL), MCS_ERR_NONFINITE);
    assert_int_equal(mcs_sim_start(NULL, 0, NULL), MCS_ERR_ARGUMENT);
    assert_int_equal(mcs_model_initial_state(md, NULL, xv), MCS_ERR_ARGUMENT);
}

/* A firmware build (mcsgen generate --firmware) leaves kernel sets out: without A_dot the euler
 * and exp predictors are refused with MCS_ERR_UNSUPPORTED (at init, and at the step when the
 * options change afterwards), and continuation none runs as with every kernel, bit for bit. */
static void test_a_model_without_the_predictor_kernels(void **state)
{
    mcs_model subset = spatial_pendulum_model;
    mcs_options opt;
    mcs_sim sim;
    mcs_real full[3], lean[3];
    int i;
    (void)state;
    NEEDS(MCS_PART_EVENTS | MCS_PART_DENSE);
    subset.A_dot = NULL;
    mcs_options_default(&opt, &subset);
    opt.continuation = MCS_CONT_EXP;
    assert_int_equal(mcs_sim_init(&sim, &subset, subset.default_params, &opt, WORK_ARGS),
                     MCS_ERR_UNSUPPORTED);
    opt.continuation = MCS_CONT_EULER;
    assert_int_equal(mcs_sim_init(&sim, &subset, subset.default_params, &opt, WORK_ARGS),
                     MCS_ERR_UNSUPPORTED);
    opt.continuation = MCS_CONT_NONE;
    assert_int_equal(mcs_sim_init(&sim, &subset, subset.default_params, &opt, WORK_ARGS), MCS_OK);
    assert_int_equal(mcs_sim_start(&sim, 0, NULL), MCS_OK);
    sim.opt.continuation = MCS_CONT_EXP; /* changed behind init's back */
    assert_int_equal(mcs_sim_step(&sim, 1.0), MCS_ERR_UNSUPPORTED);
    run_to(&subset, subset.default_params, MCS_METHOD_RK4, MCS_CONT_NONE, 1e-3, 1e-8, 0.5, lean);
    run_to(&spatial_pendulum_model, spatial_pendulum_model.default_params, MCS_METHOD_RK4,
           MCS_CONT_NONE, 1e-3, 1e-8, 0.5, full);
    for (i = 0; i < 3; ++i)
        assert_true(lean[i] == full[i]);
    /* the kernels every run needs are not optional */
    subset.gamma = NULL;
    assert_int_equal(mcs_sim_init(&sim, &subset, subset.default_params, &opt, WORK_ARGS),
                     MCS_ERR_ARGUMENT);
}

static void test_workspace_macros_equal_the_layout(void **state)
{
    int n, m;
    (void)state;
    NEEDS(MCS_PART_DOP853 | MCS_PART_IMPLICIT); /* the macros count every part's buffers */
    for (n = 1; n <= 40; ++n)
        for (m = 0; m <= 45; ++m) {
            size_t reals = 0, ints = 0;
            assert_int_equal(mcs_sim_workspace_size(n, m, &reals, &ints), MCS_OK);
            assert_int_equal(reals, (size_t)MCS_SIM_WORK_SIZE(n, m));
            assert_int_equal(ints, (size_t)MCS_SIM_IWORK_SIZE(n, m));
        }
}

/* Queries check their arguments first and report through a status. */
static void test_queries_return_status(void **state)
{
    const mcs_model *md = &spatial_pendulum_model;
    mcs_sim sim;
    mcs_options opt;
    mcs_real q[3], qd[3], kin = -1, pot = -1, cn = -1, x[3], v[3];
    (void)state;
    NEEDS(MCS_PART_EVENTS | MCS_PART_PREDICTORS | MCS_PART_DENSE);
    assert_int_equal(mcs_options_default(&opt, md), MCS_OK);
    assert_int_equal(mcs_sim_init(&sim, md, &spatial_pendulum_default_params, &opt, WORK_ARGS),
                     MCS_OK);
    assert_int_equal(mcs_sim_set_state(&sim, 0, md->x0, md->v0, NULL), MCS_OK);
    assert_int_equal(mcs_sim_minimal(NULL, q, qd), MCS_ERR_ARGUMENT);
    assert_int_equal(mcs_sim_minimal(&sim, q, qd), MCS_OK);
    assert_int_equal(mcs_sim_energy(&sim, NULL, &pot), MCS_ERR_ARGUMENT);
    assert_int_equal(mcs_sim_energy(&sim, &kin, &pot), MCS_OK);
    assert_true(kin > 0);
    assert_int_equal(mcs_sim_constraint_norm(NULL, &cn), MCS_ERR_ARGUMENT);
    assert_int_equal(mcs_sim_constraint_norm(&sim, &cn), MCS_OK);
    assert_true(cn >= 0 && cn < 1e-14);
    assert_int_equal(mcs_sim_dense(NULL, 0, x, v, NULL, NULL), MCS_ERR_ARGUMENT);
    assert_int_equal(mcs_sim_dense(&sim, 0, NULL, v, NULL, NULL), MCS_ERR_ARGUMENT);
    assert_int_equal(mcs_sim_dense(&sim, 0, x, v, NULL, NULL), MCS_ERR_NO_DENSE);
}

/* DOPRI5 and DOP853 take each step's first stage from the last one of the step before (FSAL,
 * mcs_sim.h): q'' = T^T x'' on the new chart. It must equal a fresh evaluation of the chart's ODE
 * there, save one evaluation per step, and not survive a change of the parameters between steps
 * (a relative change of 1e-9 in g is far below what error control would notice). */
static void first_stage_is_the_last_one(mcs_method method, long per_step)
{
    const mcs_model *md = &spatial_pendulum_model;
    spatial_pendulum_params p = spatial_pendulum_default_params;
    mcs_sim sim;
    mcs_options opt;
    mcs_real y0[4], k0[4];
    double worst = 0;
    int step, counted = 0;
    mcs_options_default(&opt, md);
    opt.method = method;
    opt.rtol = 1e-10;
    opt.atol = 1e-12;
    assert_int_equal(mcs_sim_init(&sim, md, &p, &opt, WORK_ARGS), MCS_OK);
    assert_int_equal(mcs_sim_set_state(&sim, 0, md->x0, md->v0, NULL), MCS_OK);
    for (step = 0; step < 40; ++step) {
        const int f = sim.n - sim.cur.r;
        const long evaluations = sim.stats.evaluations;
        const long rejected = sim.stats.rejected;
        mcs_frame end;
        int i;
        if (step == 30) {
            p.mcs_p_g *= 1 + 1e-9; /* between steps, as a caller may */
        }
        assert_int_equal(mcs_sim_step(&sim, 1.0), MCS_OK);
        /* one evaluation fewer, but not after set_state (step 0) and the change of g (a step
         * with a rejected attempt evaluates its first stage anew: not counted) */
        if (sim.stats.rejected == rejected) {
            assert_int_equal(sim.stats.evaluations - evaluations,
                             (step == 0 || step == 30) ? per_step + 1 : per_step);
            ++counted;
        }
        /* the stage the step used against a fresh evaluation on its chart (now sim.prev) */
        end = sim.cur;
        sim.cur = sim.prev; /* mcs_chart_start works on cur */
        mcs_chart_start(&sim, y0);
        assert_int_equal(mcs_chart_rhs(&sim, &sim.cur, y0, sim.cur.t, k0), MCS_OK);
        sim.cur = end; /* the step's end again, the next step's first stage still kept */
        for (i = 0; i < 2 * f; ++i) {
            const double d = fabs(k0[i] - sim.w.k[0][i]) / (1 + fabs(k0[i]));
            worst = d > worst ? d : worst;
        }
    }
    print_message("%s FSAL first stage vs fresh evaluation: %.2e relative (%d of 40 steps "
                  "counted)\n",
                  method == MCS_METHOD_DOP853 ? "DOP853" : "DOPRI5", worst, counted);
    assert_true(worst < 1e-12);
    assert_true(counted >= 30);
}

static void test_first_stage_is_the_last_one(void **state)
{
    (void)state;
    NEEDS(MCS_PART_DOP853 | MCS_PART_EVENTS | MCS_PART_PREDICTORS | MCS_PART_DENSE);
    first_stage_is_the_last_one(MCS_METHOD_DOPRI5, 6);  /* of 7 */
    first_stage_is_the_last_one(MCS_METHOD_DOP853, 12); /* of 12 stages and the end */
}

static void dense_output_matches_steps(mcs_method method)
{
    /* dense output at t inside a step agrees with a run stopped exactly there */
    const mcs_model *md = &spatial_pendulum_model;
    mcs_sim sim;
    mcs_options opt;
    mcs_real x[3], v[3], q[3], qd[3], ref[3];
    double t_mid;
    mcs_options_default(&opt, md);
    opt.method = method;
    opt.rtol = 1e-10;
    opt.atol = 1e-12;
    assert_int_equal(mcs_sim_init(&sim, md, &spatial_pendulum_default_params, &opt, WORK_ARGS),
                     MCS_OK);
    assert_int_equal(mcs_sim_set_state(&sim, 0, md->x0, md->v0, NULL), MCS_OK);
    while (sim.cur.t < 0.25)
        assert_int_equal(mcs_sim_step(&sim, 1.0), MCS_OK);
    t_mid = sim.prev.t + 0.37 * (sim.cur.t - sim.prev.t);
    assert_int_equal(mcs_sim_dense(&sim, t_mid, x, v, q, qd), MCS_OK);
    {
        mcs_real c[1];
        md->c(x, t_mid, &spatial_pendulum_default_params, c);
        assert_true(fabs(c[0]) < 1e-16); /* dense output lies on the manifold */
    }
    run_to(md, &spatial_pendulum_default_params, MCS_METHOD_RK4, MCS_CONT_EXP, 1e-4, 1, t_mid, ref);
    print_message("%s dense output error %.3e (step %.2e s)\n",
                  method == MCS_METHOD_DOP853 ? "DOP853" : "DOPRI5", max_diff(3, x, ref),
                  (double)(sim.cur.t - sim.prev.t));
    assert_true(max_diff(3, x, ref) < 1e-9);
}

static void test_dense_output_matches_steps(void **state)
{
    (void)state;
    NEEDS(MCS_PART_DOP853 | MCS_PART_EVENTS | MCS_PART_PREDICTORS | MCS_PART_DENSE);
    dense_output_matches_steps(MCS_METHOD_DOPRI5);
    dense_output_matches_steps(MCS_METHOD_DOP853);
}

/* SPEC §4: q is the accumulated chart coordinate. For the spatial pendulum T^T x is identically 0
 * (x is radial), the accumulated q is not: it moves, it is continuous, and qd = T^T v is its time
 * derivative (central differences of the step-end values); dense output continues it. */
static void test_accumulated_q_is_the_integral_of_qd(void **state)
{
    enum { STEPS = 2000 };
    static double qs[STEPS + 1][2], qds[STEPS + 1][2];
    const mcs_model *md = &spatial_pendulum_model;
    const double h = 1e-3;
    mcs_sim sim;
    mcs_options opt;
    mcs_real x[3], v[3], q[3], qd[3], qm[3], qdm[3];
    double worst = 0, qd_max = 0, q_range = 0, jump = 0;
    int k, i;
    (void)state;
    NEEDS(MCS_PART_EVENTS | MCS_PART_PREDICTORS | MCS_PART_DENSE);
    mcs_options_default(&opt, md);
    opt.h = h;
    assert_int_equal(mcs_sim_init(&sim, md, &spatial_pendulum_default_params, &opt, WORK_ARGS),
                     MCS_OK);
    assert_int_equal(mcs_sim_set_state(&sim, 0, md->x0, md->v0, NULL), MCS_OK);
    assert_int_equal(mcs_sim_minimal(&sim, q, qd), MCS_OK);
    assert_true(q[0] == 0.0 && q[1] == 0.0); /* q(t_0) = 0 */
    for (k = 0; k <= STEPS; ++k) {
        if (k > 0)
            assert_int_equal(mcs_sim_step(&sim, 10.0), MCS_OK);
        assert_int_equal(mcs_sim_minimal(&sim, q, qd), MCS_OK);
        for (i = 0; i < 2; ++i) {
            qs[k][i] = q[i];
            qds[k][i] = qd[i];
            qd_max = fabs(qd[i]) > qd_max ? fabs(qd[i]) : qd_max;
            q_range = fabs(q[i] - qs[0][i]) > q_range ? fabs(q[i] - qs[0][i]) : q_range;
        }
        if (k == STEPS / 2) { /* dense output halfway through the last step */
            assert_int_equal(mcs_sim_dense(&sim, sim.cur.t - 0.5 * h, x, v, qm, qdm), MCS_OK);
            for (i = 0; i < 2; ++i) {
                const double mid = 0.5 * (qs[k - 1][i] + qs[k][i]);
                jump = fabs(qm[i] - mid) > jump ? fabs(qm[i] - mid) : jump;
            }
        }
    }
    for (k = 1; k < STEPS; ++k)
        for (i = 0; i < 2; ++i) {
            const double d = (qs[k + 1][i] - qs[k - 1][i]) / (2 * h) - qds[k][i];
            worst = fabs(d) > worst ? fabs(d) : worst;
        }
    print_message("accumulated q: range %.3f, |dq/dt - qd| %.2e (|qd| <= %.3f), dense mid %.1e\n",
                  q_range, worst, qd_max, jump);
    assert_true(q_range > 0.25); /* it moves (T^T x would stay 0) */
    /* qd is its derivative: each step's dq is measured in that step's basis T_k, which the
     * continuation moves by O(h) a step, hence first order in h */
    assert_true(worst < 0.2 * h * qd_max);
    assert_true(jump < 1e-2 * h * qd_max); /* dense q lies between the step ends */
}

/* What a firmware caller gets for the inputs a glitch produces (issue 16; the fuzz harness
 * tests/fuzz/fuzz_runtime.c throws every kind of them): a status, and a simulator that refuses
 * to go on from a state it could not set. */
static void test_hostile_inputs_get_statuses(void **state)
{
    const mcs_model *md = &spatial_pendulum_model;
    spatial_pendulum_params bad = spatial_pendulum_default_params;
    mcs_sim sim;
    mcs_options opt;
    mcs_real x[3], v[3], q[3], T, V;
    size_t need = 0, ineed = 0;
    (void)state;
    NEEDS(MCS_PART_EVENTS | MCS_PART_PREDICTORS | MCS_PART_DENSE);
    mcs_options_default(&opt, md);
    /* a too-small workspace */
    assert_int_equal(mcs_sim_workspace_size(3, 1, &need, &ineed), MCS_OK);
    assert_int_equal(mcs_sim_init(&sim, md, &spatial_pendulum_default_params, &opt, work, need - 1,
                                  iwork, ineed),
                     MCS_ERR_WORKSPACE);
    assert_int_equal(mcs_sim_workspace_size(MCS_MAX_DIM + 1, 1, &need, &ineed), MCS_ERR_ARGUMENT);
    /* corrupted options: NaN, infinite, out of range */
    opt.h = (mcs_real)NAN;
    assert_int_equal(mcs_sim_init(&sim, md, &spatial_pendulum_default_params, &opt, WORK_ARGS),
                     MCS_ERR_ARGUMENT);
    mcs_options_default(&opt, md);
    opt.rank_tol = (mcs_real)INFINITY;
    assert_int_equal(mcs_sim_init(&sim, md, &spatial_pendulum_default_params, &opt, WORK_ARGS),
                     MCS_ERR_ARGUMENT);
    mcs_options_default(&opt, md);
    opt.max_locks = 1 << 30; /* would overflow the workspace size */
    assert_int_equal(mcs_sim_init(&sim, md, &spatial_pendulum_default_params, &opt, WORK_ARGS),
                     MCS_ERR_ARGUMENT);
    mcs_options_default(&opt, md);
    assert_int_equal(mcs_sim_init(&sim, md, &spatial_pendulum_default_params, &opt, WORK_ARGS),
                     MCS_OK);
    /* nothing to step from before a state is set */
    assert_int_equal(mcs_sim_step(&sim, 1), MCS_ERR_ARGUMENT);
    /* a NaN (or infinite) state, or time: refused, and the simulator has no state after it */
    memcpy(x, md->x0, sizeof x);
    memcpy(v, md->v0, sizeof v);
    x[1] = (mcs_real)NAN;
    assert_int_equal(mcs_sim_set_state(&sim, 0, x, v, NULL), MCS_ERR_NONFINITE);
    assert_int_equal(mcs_sim_advance(&sim, 1), MCS_ERR_ARGUMENT);
    assert_int_equal(mcs_sim_energy(&sim, &T, &V), MCS_ERR_ARGUMENT);
    x[1] = (mcs_real)INFINITY;
    assert_int_equal(mcs_sim_set_state(&sim, 0, x, v, NULL), MCS_ERR_NONFINITE);
    assert_int_equal(mcs_sim_set_state(&sim, (mcs_real)INFINITY, md->x0, md->v0, NULL),
                     MCS_ERR_NONFINITE);
    assert_int_equal(mcs_sim_set_state(&sim, 0, md->x0, md->v0, NULL), MCS_OK);
    /* unreachable target times: NaN and infinity are refused, a far one hits max_steps */
    assert_int_equal(mcs_sim_advance(&sim, (mcs_real)NAN), MCS_ERR_ARGUMENT);
    assert_int_equal(mcs_sim_advance(&sim, (mcs_real)INFINITY), MCS_ERR_ARGUMENT);
    assert_int_equal(mcs_sim_step(&sim, (mcs_real)NAN), MCS_ERR_ARGUMENT);
    sim.opt.max_steps = 10;
    assert_int_equal(mcs_sim_advance(&sim, 1e12), MCS_ERR_LIMIT);
    assert_true(sim.cur.t > 0 && sim.cur.t < 1); /* the state of the last step taken */
    assert_int_equal(mcs_sim_energy(&sim, &T, &V), MCS_OK);
    /* dense output at NaN: no dense output there */
    assert_int_equal(mcs_sim_dense(&sim, (mcs_real)NAN, x, v, q, NULL), MCS_ERR_NO_DENSE);
    /* non-finite parameters: the first kernel evaluation says so, the state is kept */
    bad.mcs_p_g = (mcs_real)NAN;
    sim.params = &bad;
    assert_int_equal(mcs_sim_step(&sim, 2), MCS_ERR_NONFINITE);
    sim.params = &spatial_pendulum_default_params;
    assert_int_equal(mcs_sim_step(&sim, 2), MCS_OK);
    /* a step that cannot move time (h below the resolution of t) */
    mcs_options_default(&opt, md);
    opt.h = 1e-300;
    assert_int_equal(mcs_sim_init(&sim, md, &spatial_pendulum_default_params, &opt, WORK_ARGS),
                     MCS_OK);
    assert_int_equal(mcs_sim_set_state(&sim, 1, md->x0, md->v0, NULL), MCS_OK);
    assert_int_equal(mcs_sim_step(&sim, 2), MCS_ERR_STEP_TOO_SMALL);
    assert_string_equal(mcs_status_str(MCS_ERR_LIMIT),
                        "step or attempt limit reached (options max_steps, max_attempts)");
    /* a model without inputs: no inputs to set, no inverse dynamics; forward dynamics is the
     * plain one (u NULL: the sim's, none here) */
    {
        mcs_real u[1] = {1};
        mcs_real a[7], lam[8], idw[1];
        mcs_inverse_report rep;
        assert_int_equal(mcs_sim_set_state(&sim, 1, md->x0, md->v0, NULL), MCS_OK);
        assert_int_equal(mcs_sim_set_inputs(&sim, u), MCS_ERR_UNSUPPORTED);
        assert_int_equal(mcs_sim_set_inputs(&sim, NULL), MCS_ERR_ARGUMENT);
        assert_int_equal(mcs_sim_set_inputs(NULL, u), MCS_ERR_ARGUMENT);
        assert_int_equal(mcs_sim_inverse_dynamics(&sim, 1, md->x0, md->v0, a, u, &rep, idw, 1),
                         MCS_ERR_UNSUPPORTED);
        assert_int_equal(mcs_sim_inverse_dynamics(&sim, 1, md->x0, md->v0, a, u, NULL, idw, 1),
                         MCS_ERR_ARGUMENT);
        assert_int_equal(mcs_sim_forward_dynamics(&sim, 1, md->x0, md->v0, NULL, a, NULL),
                         md->nc > 0 ? MCS_ERR_ARGUMENT : MCS_OK);
        assert_int_equal(mcs_sim_forward_dynamics(&sim, 1, md->x0, md->v0, NULL, a, lam), MCS_OK);
        assert_string_equal(mcs_status_str(MCS_ERR_UNACTUATED),
                            "the inputs act on no motion at this state");
    }
}

/* The exact linearization (mcs_sim_linearize) against central differences of the chart's
 * right-hand side (mcs_sim_chart_rhs), and the step's Jacobian (mcs_sim_step_jacobian): their
 * statuses, and memory use under the sanitizers. */
static void test_linearization_and_step_jacobian(void **state)
{
    const mcs_model *md = &spatial_pendulum_model;
    static mcs_real
        lw[MCS_SIM_STEP_JACOBIAN_WORK_SIZE(SPATIAL_PENDULUM_NX, SPATIAL_PENDULUM_NC, 0)];
    const size_t lwn = sizeof lw / sizeof *lw;
    mcs_sim sim;
    mcs_options opt;
    mcs_real A[36], J[36], y[6], yp[6], ym[6], x[3], v[3];
    mcs_real scale = 0;
    mcs_real worst = 0;
    int f = -1;
    int g = -1;
    int i;
    int j;
    (void)state;
    NEEDS(MCS_PART_DENSE);
    mcs_options_default(&opt, md);
    opt.method = MCS_METHOD_RK4;
    opt.h = 1e-3;
    opt.continuation = MCS_CONT_NONE; /* the parts this test needs: the dense variant only */
    opt.sing_tol = 0;
    opt.max_locks = 0;
    assert_int_equal(mcs_sim_init(&sim, md, &spatial_pendulum_default_params, &opt, WORK_ARGS),
                     MCS_OK);
    assert_int_equal(mcs_sim_set_state(&sim, 0, md->x0, md->v0, NULL), MCS_OK);
    assert_int_equal(mcs_sim_advance(&sim, 0.05), MCS_OK);
    assert_int_equal(mcs_sim_linearize(&sim, A, NULL, &f, lw, lwn), MCS_OK);
    assert_int_equal(f, 2);
    assert_int_equal(mcs_sim_linearize(&sim, A, NULL, &f, lw, 10), MCS_ERR_WORKSPACE);
    assert_int_equal(mcs_sim_linearize(&sim, NULL, NULL, &f, lw, lwn), MCS_ERR_ARGUMENT);
    /* the chart's centre: y0 = (0, T^T v) is the state itself */
    for (i = 0; i < 2; ++i) {
        y[i] = 0;
    }
    assert_int_equal(mcs_sim_basis(&sim, lw), MCS_OK);
    for (i = 0; i < 2; ++i) {
        y[2 + i] = 0;
        for (j = 0; j < 3; ++j) {
            y[2 + i] += lw[j + (i * 3)] * sim.cur.v[j];
        }
    }
    assert_int_equal(mcs_sim_chart_state(&sim, y, x, v), MCS_OK);
    for (i = 0; i < 3; ++i) {
        assert_true(fabs(x[i] - sim.cur.x[i]) <= 1e-15 && fabs(v[i] - sim.cur.v[i]) <= 1e-15);
    }
    for (j = 0; j < 4; ++j) { /* A's columns against central differences */
        const mcs_real h = 1e-6;
        mcs_real dp[4], dm[4];
        for (i = 0; i < 4; ++i) {
            yp[i] = y[i] + ((i == j) ? h : 0);
            ym[i] = y[i] - ((i == j) ? h : 0);
        }
        assert_int_equal(mcs_sim_chart_rhs(&sim, yp, dp), MCS_OK);
        assert_int_equal(mcs_sim_chart_rhs(&sim, ym, dm), MCS_OK);
        for (i = 0; i < 4; ++i) {
            const mcs_real fd = (dp[i] - dm[i]) / (2 * h);
            worst = fmax(worst, fabs(fd - A[i + (j * 4)]));
            scale = fmax(scale, fabs(A[i + (j * 4)]));
        }
    }
    assert_true(worst <= 1e-6 * scale);
    assert_true(A[0 + (2 * 4)] == 1 && A[1 + (3 * 4)] == 1 && A[0] == 0);
    /* the step's Jacobian: RK4 only; near I for a 1 ms step */
    assert_int_equal(mcs_sim_step_jacobian(&sim, 1, J, NULL, &f, &g, lw, lwn), MCS_OK);
    assert_int_equal(f, 2);
    assert_int_equal(g, 2);
    for (i = 0; i < 4; ++i) {
        assert_true(fabs(J[i + (i * 4)] - 1) < 0.05);
    }
    assert_int_equal(mcs_sim_step_jacobian(&sim, 1, J, NULL, &f, &g, lw, 10), MCS_ERR_WORKSPACE);
    sim.opt.method = MCS_METHOD_DOPRI5;
    assert_int_equal(mcs_sim_step_jacobian(&sim, 1, J, NULL, &f, &g, lw, lwn), MCS_ERR_UNSUPPORTED);
    sim.opt.method = MCS_METHOD_RK4;
    /* the file's outputs (height z, speed squared) and their rows C, D: at the chart's centre
     * C = [dh/dx Phi + dh/dv dv/dq, dh/dv Phi] with Phi = T there */
    {
        mcs_real yw[SPATIAL_PENDULUM_NX + 1], y2[2], C[2 * 4];
        mcs_real Tb[9];
        assert_int_equal(md->ny, 2);
        assert_string_equal(md->output_names[1], "speed2");
        assert_int_equal(mcs_sim_outputs(&sim, sim.cur.t, sim.cur.x, sim.cur.v, yw, y2), MCS_OK);
        assert_true(y2[0] == sim.cur.x[2]);
        assert_true(fabs(y2[1] - ((sim.cur.v[0] * sim.cur.v[0]) + (sim.cur.v[1] * sim.cur.v[1]) +
                                  (sim.cur.v[2] * sim.cur.v[2]))) <= 1e-15);
        assert_int_equal(mcs_sim_outputs(&sim, sim.cur.t, sim.cur.x, sim.cur.v, NULL, y2),
                         MCS_ERR_ARGUMENT);
        assert_int_equal(mcs_sim_linearize_outputs(&sim, C, NULL, &f, lw, lwn), MCS_OK);
        assert_int_equal(f, 2);
        assert_int_equal(mcs_sim_linearize_outputs(&sim, C, NULL, &f, lw, 10), MCS_ERR_WORKSPACE);
        assert_int_equal(mcs_sim_linearize_outputs(&sim, NULL, NULL, &f, lw, lwn),
                         MCS_ERR_ARGUMENT);
        assert_int_equal(mcs_sim_basis(&sim, Tb), MCS_OK);
        for (j = 0; j < 2; ++j) { /* dz/dq_j moves z by T_zj; dz/dqd_j: the height not at all */
            assert_true(fabs(C[0 + (j * 2)] - Tb[2 + (j * 3)]) <= 1e-14);
            assert_true(C[0 + ((2 + j) * 2)] == 0);
        }
    }
    /* a model generated without the linearization set (a host build's default): no M_x */
    md = &pendulum_3r_model;
    assert_null(md->M_x);
    mcs_options_default(&opt, md);
    opt.method = MCS_METHOD_RK4;
    opt.continuation = MCS_CONT_NONE;
    opt.sing_tol = 0;
    opt.max_locks = 0;
    assert_int_equal(mcs_sim_init(&sim, md, md->default_params, &opt, WORK_ARGS), MCS_OK);
    assert_int_equal(mcs_sim_set_state(&sim, 0, md->x0, md->v0, NULL), MCS_OK);
    assert_int_equal(mcs_sim_linearize(&sim, A, NULL, &f, lw, lwn), MCS_ERR_UNSUPPORTED);
    assert_int_equal(mcs_sim_step_jacobian(&sim, 1, J, NULL, &f, &g, lw, lwn), MCS_ERR_UNSUPPORTED);
    assert_true(sim.cur.t == 0); /* refused before stepping */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rk4_fourth_order_on_charts),
        cmocka_unit_test(test_ros34pw2_third_order_on_charts),
        cmocka_unit_test(test_no_rows_is_rk4_on_the_plain_ode),
        cmocka_unit_test(test_dopri5_meets_tolerance),
        cmocka_unit_test(test_dop853_meets_tolerance_with_fewer_evaluations),
        cmocka_unit_test(test_basis_invariants_along_motion),
        cmocka_unit_test(test_assembly_corrects_and_reports),
        cmocka_unit_test(test_redundant_rank_and_motion),
        cmocka_unit_test(test_status_codes),
        cmocka_unit_test(test_linearization_and_step_jacobian),
        cmocka_unit_test(test_a_model_without_the_predictor_kernels),
        cmocka_unit_test(test_hostile_inputs_get_statuses),
        cmocka_unit_test(test_dense_output_matches_steps),
        cmocka_unit_test(test_first_stage_is_the_last_one),
        cmocka_unit_test(test_accumulated_q_is_the_integral_of_qd),
        cmocka_unit_test(test_start_is_the_files_state_for_the_parameters),
        cmocka_unit_test(test_workspace_macros_equal_the_layout),
        cmocka_unit_test(test_queries_return_status),
    };
    return cmocka_run_group_tests_name("sim", tests, NULL, NULL);
}
