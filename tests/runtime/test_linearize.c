/* test_linearize.c - the linearizations (mcs_linearize.c, mcs_step_jacobian.c,
 * mcs_chart_jacobian.c): the exact linearization of the chart's ODE against central differences,
 * the step's Jacobian, the outputs' rows, and their refusals (spatial_pendulum, generated with
 * the linearization kernels; pendulum_3r, without them). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "test_needs.h"

#include "mcs/mcs_sim.h"
#include "pendulum_3r.h"
#include "spatial_pendulum.h"

static mcs_real work[MCS_SIM_WORK_SIZE(SPATIAL_PENDULUM_NX, SPATIAL_PENDULUM_NC)];
static int iwork[MCS_SIM_IWORK_SIZE(SPATIAL_PENDULUM_NX, SPATIAL_PENDULUM_NC)];
#define WORK_ARGS work, sizeof work / sizeof *work, iwork, sizeof iwork / sizeof *iwork

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
        cmocka_unit_test(test_linearization_and_step_jacobian),
    };
    return cmocka_run_group_tests_name("linearize", tests, NULL, NULL);
}
