/* test_stops.c - end stops (mcs_stops.c): the first impact of pendulum_stop located and made
 * against the quadrature of its energy integral (scipy.integrate.quad, computed apart: the
 * pendulum from rest at q = 1 rad reaches its stop at q = 0.3 rad at t = 0.43319340156312003 s
 * with the rate -sqrt(2 g (cos 0.3 - cos 1)) rad/s), the rebound's restitution, a start beyond
 * the limit, and the status codes. Runs on both linear-algebra backends and under ASan/UBSan. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include <string.h>
#include <cmocka.h>

#include "test_needs.h"

#include "mcs/mcs_stops.h"
#include "pendulum_stop.h"
#include "pendulum_3r.h"

#define NX PENDULUM_STOP_NX
#define ROWS (PENDULUM_STOP_NC + 1)
static mcs_real work[MCS_SIM_WORK_SIZE(PENDULUM_3R_NX, PENDULUM_3R_NX)];
static int iwork[MCS_SIM_IWORK_SIZE(PENDULUM_3R_NX, PENDULUM_3R_NX)];
static mcs_real swork[MCS_STOPS_WORK_SIZE(NX, PENDULUM_STOP_NSTOPS, 0, 0, ROWS)];
static int siwork[MCS_STOPS_IWORK_SIZE(PENDULUM_STOP_NSTOPS, 0)];
static mcs_real jwork[MCS_JUMP_WORK_SIZE(NX, ROWS, 1)];
static int jiwork[MCS_JUMP_IWORK_SIZE(NX, ROWS, 1)];
static mcs_real dv[NX];
#define WORK_ARGS work, sizeof work / sizeof *work, iwork, sizeof iwork / sizeof *iwork
#define SWORK swork, sizeof swork / sizeof *swork, siwork, sizeof siwork / sizeof *siwork
#define JWORK dv, jwork, sizeof jwork / sizeof *jwork, jiwork, sizeof jiwork / sizeof *jiwork

#define T_IMPACT 0.43319340156312003
#define Q_STOP 0.3

static void start(mcs_sim *sim, const mcs_model *md, int max_locks)
{
    mcs_options opt;
    assert_int_equal(mcs_options_default(&opt, md), MCS_OK);
    opt.method = MCS_METHOD_DOPRI5;
    opt.rtol = 1e-12;
    opt.atol = 1e-12;
    opt.max_locks = max_locks;
    assert_int_equal(mcs_sim_init(sim, md, md->default_params, &opt, WORK_ARGS), MCS_OK);
    assert_int_equal(mcs_sim_set_state(sim, 0, md->x0, md->v0, NULL), MCS_OK);
}

/* Steps until a stop event is located (or t = 2): its kind. */
static int step_to_event(mcs_sim *sim, mcs_stops *st, mcs_stop_event *ev)
{
    ev->kind = MCS_STOP_EVENT_NONE;
    while (sim->cur.t < 2.0 && ev->kind == MCS_STOP_EVENT_NONE) {
        assert_int_equal(mcs_sim_step(sim, 2.0), MCS_OK);
        assert_int_equal(mcs_stops_locate(st, sim, ev), MCS_OK);
    }
    return ev->kind;
}

static void test_the_first_impact_is_located_and_rebounds(void **state)
{
    mcs_sim sim;
    mcs_stops st;
    mcs_stop_event ev;
    const double rate = -sqrt(2 * 9.81 * (cos(Q_STOP) - cos(1.0)));
    (void)state;
    NEEDS(MCS_PART_LOCKS);
    start(&sim, &pendulum_stop_model, 1);
    assert_int_equal(mcs_stops_init(&st, &sim, SWORK), MCS_OK);
    assert_int_equal(st.nstops, 1);
    assert_int_equal(mcs_stops_violated(&st, &sim), -1);
    assert_int_equal(step_to_event(&sim, &st, &ev), MCS_STOP_EVENT_IMPACT);
    assert_int_equal(ev.stop, 0);
    assert_int_equal(ev.side, MCS_STOP_LOWER);
    assert_true(fabs((double)ev.t - T_IMPACT) < 1e-9);
    assert_true(ev.t < sim.cur.t); /* inside the step */
    assert_int_equal(mcs_stops_apply(&st, &sim, &ev, MCS_JUMP_MINIMAL, JWORK), MCS_OK);
    assert_true(sim.cur.t == ev.t); /* moved back to it */
    assert_true(fabs((double)ev.q - Q_STOP) < 1e-10 && ev.q >= Q_STOP);
    assert_true(fabs((double)ev.rate_before - rate) < 1e-9);
    assert_true(fabs((double)(ev.rate_after + 0.5 * ev.rate_before)) < 1e-13);
    assert_true(fabs((double)(sim.cur.v[0] - ev.rate_after)) < 1e-15);
    assert_int_equal(ev.held, 0);
    assert_int_equal(sim.nlocks, 0); /* a rebound leaves the limit free */
    assert_int_equal(st.impacts, 1);
    assert_true(fabs((double)(st.impact_loss - 0.75 * ev.kinetic_before)) <
                1e-12 * ev.kinetic_before);
    /* the flight after it: the next event is the next impact, 0.65 s later (quadrature) */
    assert_int_equal(step_to_event(&sim, &st, &ev), MCS_STOP_EVENT_IMPACT);
    assert_true(fabs((double)ev.t - 1.0834230812741321) < 1e-9);
}

static void test_a_plastic_impact_holds_the_limit(void **state)
{
    mcs_sim sim;
    mcs_stops st;
    mcs_stop_event ev;
    mcs_real q = 0, r = 0;
    (void)state;
    NEEDS(MCS_PART_LOCKS);
    start(&sim, &pendulum_stop_model, 1);
    assert_int_equal(mcs_stops_init(&st, &sim, SWORK), MCS_OK);
    assert_int_equal(step_to_event(&sim, &st, &ev), MCS_STOP_EVENT_IMPACT);
    st.zeno_time = 10; /* every rebound "too short": held at once, as e = 0 would be */
    assert_int_equal(mcs_stops_apply(&st, &sim, &ev, MCS_JUMP_MINIMAL, JWORK), MCS_OK);
    assert_int_equal(ev.held, 1);
    assert_int_equal(ev.zeno, 1);
    assert_int_equal(st.held[0], MCS_STOP_LOWER);
    assert_int_equal(sim.nlocks, 1);
    assert_true(ev.rate_after == 0);
    assert_true(ev.kinetic_after == 0);
    /* gravity pushes it into the stop: it stays */
    assert_int_equal(mcs_sim_advance(&sim, 0.9), MCS_OK);
    assert_int_equal(mcs_stops_locate(&st, &sim, &ev), MCS_OK);
    assert_int_equal(ev.kind, MCS_STOP_EVENT_NONE);
    assert_int_equal(mcs_stops_coordinate(&st, &sim, 0, sim.cur.t, sim.cur.x, sim.cur.v, &q, &r),
                     MCS_OK);
    assert_true(fabs((double)q - Q_STOP) < 1e-10 && r == 0);
}

static void test_a_start_beyond_the_limit_is_found(void **state)
{
    mcs_sim sim;
    mcs_stops st;
    const mcs_real x[1] = {0.2}, v[1] = {0};
    (void)state;
    NEEDS(MCS_PART_LOCKS);
    start(&sim, &pendulum_stop_model, 1);
    assert_int_equal(mcs_sim_set_state(&sim, 0, x, v, NULL), MCS_OK);
    assert_int_equal(mcs_stops_init(&st, &sim, SWORK), MCS_OK);
    assert_int_equal(mcs_stops_violated(&st, &sim), 0);
}

static void test_the_statuses(void **state)
{
    mcs_sim sim;
    mcs_stops st;
    mcs_stop_event ev;
    mcs_model md = pendulum_stop_model;
    mcs_stop bad = pendulum_stop_model.stops[0];
    (void)state;
    /* no room for a held limit */
    start(&sim, &pendulum_stop_model, 0);
    assert_int_equal(mcs_stops_init(&st, &sim, SWORK), MCS_ERR_UNSUPPORTED);
    NEEDS(MCS_PART_LOCKS);
    start(&sim, &pendulum_stop_model, 1);
    assert_int_equal(mcs_stops_init(&st, &sim, swork, 2, siwork, 2), MCS_ERR_WORKSPACE);
    assert_int_equal(mcs_stops_init(NULL, &sim, SWORK), MCS_ERR_ARGUMENT);
    assert_int_equal(mcs_stops_init(&st, &sim, SWORK), MCS_OK);
    ev.kind = MCS_STOP_EVENT_NONE;
    ev.stop = 0;
    ev.t = 0;
    assert_int_equal(mcs_stops_apply(&st, &sim, &ev, MCS_JUMP_MINIMAL, JWORK), MCS_ERR_ARGUMENT);
    ev.kind = MCS_STOP_EVENT_IMPACT;
    ev.t = 1; /* after the current time */
    assert_int_equal(mcs_stops_apply(&st, &sim, &ev, MCS_JUMP_MINIMAL, JWORK), MCS_ERR_ARGUMENT);
    ev.t = 0;
    ev.stop = 1; /* no such stop */
    assert_int_equal(mcs_stops_apply(&st, &sim, &ev, MCS_JUMP_MINIMAL, JWORK), MCS_ERR_ARGUMENT);
    /* a descriptor whose stop names no coordinate */
    bad.coordinate = 3;
    md.stops = &bad;
    start(&sim, &md, 1);
    assert_int_equal(mcs_stops_init(&st, &sim, SWORK), MCS_ERR_ARGUMENT);
    bad.coordinate = 0;
    bad.sides = 0; /* no limit */
    assert_int_equal(mcs_stops_init(&st, &sim, SWORK), MCS_ERR_ARGUMENT);
    /* a model without stops: nothing to locate */
    start(&sim, &pendulum_3r_model, 1);
    assert_int_equal(mcs_stops_init(&st, &sim, SWORK), MCS_OK);
    assert_int_equal(st.nstops, 0);
    assert_int_equal(mcs_sim_step(&sim, 0.1), MCS_OK);
    assert_int_equal(mcs_stops_locate(&st, &sim, &ev), MCS_OK);
    assert_int_equal(ev.kind, MCS_STOP_EVENT_NONE);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_the_first_impact_is_located_and_rebounds),
        cmocka_unit_test(test_a_plastic_impact_holds_the_limit),
        cmocka_unit_test(test_a_start_beyond_the_limit_is_found),
        cmocka_unit_test(test_the_statuses),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
