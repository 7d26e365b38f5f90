/* test_events.c - the events located inside an accepted step (mcs_events.c, and the singular
 * configuration's search, mcs_event_singular.c), against the geometry: the double four-bar
 * (paper 002 §3.2; models/double_four_bar.yaml: five bars of 1 m and 1 kg, n = 15, m = 14,
 * rank 14) turns round and round on its parallelogram branch, and its configuration is singular
 * (rank 12) exactly where its vertical bars lie horizontal. Each event is located there (sin of
 * the angles of bars 1, 3 and 5 below 1e-6), at the times the parallelogram's own ODE gives,
 * with the ranks and R's diagonal of a loss of two, and none elsewhere; with sing_tol 0 none at
 * all. tests/e2e/test_singular.py checks the same run through Python. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "test_needs.h"

#include "mcs/mcs_sim.h"
#include "double_four_bar.h"

static mcs_real work[MCS_SIM_WORK_SIZE(DOUBLE_FOUR_BAR_NX, DOUBLE_FOUR_BAR_NC)];
static int iwork[MCS_SIM_IWORK_SIZE(DOUBLE_FOUR_BAR_NX, DOUBLE_FOUR_BAR_NC)];
#define WORK_ARGS work, sizeof work / sizeof *work, iwork, sizeof iwork / sizeof *iwork

#define T_END 10.0
#define MAX_CROSSINGS 32

/* The parallelogram motion, none of the simulator's code: with phi the vertical bars' angle from
 * the vertical (phi = pi/2 - theta), T = 1.5 phi'^2 (three bars of m L^2 / 3 about their ends, two
 * translating at L phi') and V = 3.5 g cos(phi) (three centres at L/2, two at L), so
 * 3 phi'' = 3.5 g sin(phi), from phi = 0 and phi' = 1 (the top of bar 1 at +1 m/s along x). */
static void parallelogram_rk4(double *y, double h, double g)
{
    double k[4][2], z[2];
    int j;
    for (j = 0; j < 4; ++j) {
        const double c = (j == 0) ? 0 : (j == 3) ? h : h / 2;
        z[0] = y[0] + ((j == 0) ? 0 : c * k[j - 1][0]);
        z[1] = y[1] + ((j == 0) ? 0 : c * k[j - 1][1]);
        k[j][0] = z[1];
        k[j][1] = 3.5 * g * sin(z[0]) / 3;
    }
    y[0] += h / 6 * (k[0][0] + 2 * k[1][0] + 2 * k[2][0] + k[3][0]);
    y[1] += h / 6 * (k[0][1] + 2 * k[1][1] + 2 * k[2][1] + k[3][1]);
}

/* The times in (0, t_end) where cos(phi) = 0 (every bar horizontal): RK4 steps of 0.1 ms, each
 * crossing bisected by one RK4 step from the step's start. Returns their number. */
static int horizontal_crossings(double g, double t_end, double *t_out)
{
    const double h = 1e-4;
    const long steps = (long)(t_end / h + 0.5);
    double y[2] = {0, 1};
    long k;
    int n = 0, i;
    for (k = 0; k < steps; ++k) {
        double z[2];
        z[0] = y[0];
        z[1] = y[1];
        parallelogram_rk4(z, h, g);
        if ((cos(y[0]) > 0) != (cos(z[0]) > 0)) {
            double lo = 0, hi = h;
            for (i = 0; i < 60; ++i) {
                double w[2];
                const double mid = 0.5 * (lo + hi);
                w[0] = y[0];
                w[1] = y[1];
                parallelogram_rk4(w, mid, g);
                if ((cos(w[0]) > 0) == (cos(y[0]) > 0))
                    lo = mid;
                else
                    hi = mid;
            }
            assert_true(n < MAX_CROSSINGS);
            t_out[n++] = (double)k * h + 0.5 * (lo + hi);
        }
        y[0] = z[0];
        y[1] = z[1];
    }
    return n;
}

/* The index of a coordinate by its name (the vertical bars' angles: "bar1.theta", ...). */
static int coordinate(const mcs_model *md, const char *name)
{
    int i;
    for (i = 0; i < md->nx; ++i)
        if (strcmp(md->coord_names[i], name) == 0)
            return i;
    fail_msg("no coordinate %s", name);
    return -1;
}

/* The file's run with DOPRI5 (rtol 1e-10, atol 1e-12, continuation exp) in mcs_sim_init's
 * workspace, sing_tol as given. */
static void start(mcs_sim *sim, mcs_real sing_tol)
{
    const mcs_model *md = &double_four_bar_model;
    mcs_options opt;
    mcs_options_default(&opt, md);
    opt.method = MCS_METHOD_DOPRI5;
    opt.rtol = 1e-10;
    opt.atol = 1e-12;
    opt.continuation = MCS_CONT_EXP;
    opt.sing_tol = sing_tol;
    assert_int_equal(mcs_sim_init(sim, md, md->default_params, &opt, WORK_ARGS), MCS_OK);
    assert_int_equal(mcs_sim_start(sim, 0, NULL), MCS_OK);
}

static void test_double_four_bar_events_where_the_bars_are_horizontal(void **state)
{
    static const char *const bars[] = {"bar1.theta", "bar3.theta", "bar5.theta"};
    const mcs_model *md = &double_four_bar_model;
    double expected[MAX_CROSSINGS], worst_t = 0, worst_sin = 0;
    mcs_options defaults;
    mcs_sim sim;
    int nexpected, events = 0, bar[3], k;
    (void)state;
    NEEDS(MCS_PART_EVENTS | MCS_PART_DENSE | MCS_PART_PREDICTORS);
    assert_int_equal(md->nx, 15);
    assert_int_equal(md->nc, 14);
    for (k = 0; k < 3; ++k)
        bar[k] = coordinate(md, bars[k]);
    nexpected = horizontal_crossings(double_four_bar_default_params.mcs_p_g, T_END, expected);
    assert_int_equal(nexpected, 10); /* five turns in 10 s, two crossings a turn */
    mcs_options_default(&defaults, md);
    assert_true(defaults.sing_tol > 0); /* the default: events on */
    start(&sim, defaults.sing_tol);
    while (sim.cur.t < T_END) {
        const mcs_event *e = &sim.event;
        assert_int_equal(mcs_sim_step(&sim, T_END), MCS_OK);
        assert_int_equal(sim.cur.r, 14); /* no chart is centred on a singular point */
        if (!sim.event_ready)
            continue;
        sim.event_ready = 0;
        assert_true(events < nexpected);
        worst_t = fmax(worst_t, fabs(e->t - expected[events]));
        assert_true(fabs(e->t - expected[events]) < 1e-6);
        assert_int_equal(e->rank_before, 14);
        assert_int_equal(e->rank_after, 12);
        assert_int_equal(e->nmotions, 2);
        assert_int_equal(e->nrdiag, 14);
        for (k = 0; k < 3; ++k) { /* the vertical bars horizontal */
            worst_sin = fmax(worst_sin, fabs(sin(e->x[bar[k]])));
            assert_true(fabs(sin(e->x[bar[k]])) < 1e-6);
        }
        assert_true(e->rdiag[12] < 1e-6 * e->rdiag[0]);
        assert_true(e->rdiag[11] > 1e-3 * e->rdiag[0]);
        ++events;
    }
    print_message("%d events in %.0f s: times within %.1e s of the parallelogram's, |sin theta| "
                  "<= %.1e\n",
                  events, T_END, worst_t, worst_sin);
    assert_true(sim.cur.t == T_END);
    assert_int_equal(events, 10);
    assert_int_equal(sim.stats.events, 10);
}

/* sing_tol 0 turns the search off: the same run crosses the same configurations (the bars'
 * angle passes horizontal ten times between step ends) and locates nothing. */
static void test_no_events_with_sing_tol_zero(void **state)
{
    const mcs_model *md = &double_four_bar_model;
    const int bar1 = coordinate(md, "bar1.theta");
    mcs_sim sim;
    int crossings = 0;
    (void)state;
    NEEDS(MCS_PART_DENSE | MCS_PART_PREDICTORS);
    start(&sim, 0);
    while (sim.cur.t < T_END) {
        const int above = sin(sim.cur.x[bar1]) > 0;
        assert_int_equal(mcs_sim_step(&sim, T_END), MCS_OK);
        assert_false(sim.event_ready);
        crossings += (sin(sim.cur.x[bar1]) > 0) != above;
    }
    assert_int_equal(crossings, 10);
    assert_int_equal(sim.stats.events, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_double_four_bar_events_where_the_bars_are_horizontal),
        cmocka_unit_test(test_no_events_with_sing_tol_zero),
    };
    return cmocka_run_group_tests_name("events", tests, NULL, NULL);
}
