/* test_assembly.c - the initial state brought onto the constraints (mcs_assembly.c):
 * mcs_sim_set_state's minimum-norm correction and its report, and mcs_sim_start's state of the
 * file for other parameters (spatial_pendulum: n = 3, m = 1). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "test_needs.h"

#include "mcs/mcs_sim.h"
#include "spatial_pendulum.h"

static mcs_real work[MCS_SIM_WORK_SIZE(SPATIAL_PENDULUM_NX, SPATIAL_PENDULUM_NC)];
static int iwork[MCS_SIM_IWORK_SIZE(SPATIAL_PENDULUM_NX, SPATIAL_PENDULUM_NC)];
#define WORK_ARGS work, sizeof work / sizeof *work, iwork, sizeof iwork / sizeof *iwork

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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_assembly_corrects_and_reports),
        cmocka_unit_test(test_start_is_the_files_state_for_the_parameters),
    };
    return cmocka_run_group_tests_name("assembly", tests, NULL, NULL);
}
