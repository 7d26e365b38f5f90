/* test_dynamics.c - the forward dynamics on a chart without rows in force (mcs_dynamics.c: the
 * mass matrix's path): a model without rows (pendulum_3r: joint angles, n = 3, m = 0) steps as
 * classical RK4 on the plain ODE M(x) x'' = f(x, x'), to round-off. */
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

static mcs_real work[MCS_SIM_WORK_SIZE(PENDULUM_3R_NX, PENDULUM_3R_NC)];
static int iwork[MCS_SIM_IWORK_SIZE(PENDULUM_3R_NX, PENDULUM_3R_NC)];
#define WORK_ARGS work, sizeof work / sizeof *work, iwork, sizeof iwork / sizeof *iwork

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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_no_rows_is_rk4_on_the_plain_ode),
    };
    return cmocka_run_group_tests_name("dynamics", tests, NULL, NULL);
}
