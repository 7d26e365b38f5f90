/* test_step.c - the step policy and the continuation along the motion (mcs_step.c): the
 * continued basis orthonormal and tangent after every step with qdot continuous, the rank of
 * redundant rows kept along the motion, and the accumulated chart coordinate q whose derivative
 * is qd (spatial_pendulum: n = 3, m = 1; planar_pendulum_redundant: n = m = 2, rank 1). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "test_needs.h"

#include "mcs/mcs_sim.h"
#include "planar_pendulum_redundant.h"
#include "spatial_pendulum.h"

static mcs_real work[MCS_SIM_WORK_SIZE(SPATIAL_PENDULUM_NX, PLANAR_PENDULUM_REDUNDANT_NC)];
static int iwork[MCS_SIM_IWORK_SIZE(SPATIAL_PENDULUM_NX, PLANAR_PENDULUM_REDUNDANT_NC)];
#define WORK_ARGS work, sizeof work / sizeof *work, iwork, sizeof iwork / sizeof *iwork

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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_basis_invariants_along_motion),
        cmocka_unit_test(test_redundant_rank_and_motion),
        cmocka_unit_test(test_accumulated_q_is_the_integral_of_qd),
    };
    return cmocka_run_group_tests_name("step", tests, NULL, NULL);
}
