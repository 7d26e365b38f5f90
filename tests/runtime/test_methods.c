/* test_methods.c - the integrators (mcs_method.c, mcs_rk.c, mcs_rk4.c, mcs_dopri5.c,
 * mcs_dop853.c, mcs_rosenbrock.c): each method's order on the charts and its tolerance met against
 * fine references, DOP853's fewer evaluations, the first stage taken from the last one (FSAL),
 * and dense output inside a step, driven through generated models (spatial_pendulum: n = 3,
 * m = 1; pendulum_3r: n = 3, m = 0). */
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
#include "test_runs.h"
#include "pendulum_3r.h"
#include "spatial_pendulum.h"

static mcs_real work[MCS_SIM_WORK_SIZE(SPATIAL_PENDULUM_NX, SPATIAL_PENDULUM_NC)];
static int iwork[MCS_SIM_IWORK_SIZE(SPATIAL_PENDULUM_NX, SPATIAL_PENDULUM_NC)];
#define WORK_ARGS work, sizeof work / sizeof *work, iwork, sizeof iwork / sizeof *iwork

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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rk4_fourth_order_on_charts),
        cmocka_unit_test(test_ros34pw2_third_order_on_charts),
        cmocka_unit_test(test_dopri5_meets_tolerance),
        cmocka_unit_test(test_dop853_meets_tolerance_with_fewer_evaluations),
        cmocka_unit_test(test_dense_output_matches_steps),
        cmocka_unit_test(test_first_stage_is_the_last_one),
    };
    return cmocka_run_group_tests_name("methods", tests, NULL, NULL);
}
