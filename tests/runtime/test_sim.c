/* test_sim.c - the simulator's own calls (mcs_sim.c): the queries of a state (minimal
 * coordinates, energy, constraint norm; and mcs_interpolate.c's dense output without a step)
 * check their arguments and answer by a status (spatial_pendulum: n = 3, m = 1). The rest of
 * runtime/src/sim/ has its test programs by module: test_methods.c, test_dynamics.c,
 * test_step.c, test_assembly.c, test_options.c, test_linearize.c, test_memory.c, test_events.c,
 * test_locks.c, and the variants' test_compact.c and test_banded.c. */
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_queries_return_status),
    };
    return cmocka_run_group_tests_name("sim", tests, NULL, NULL);
}
