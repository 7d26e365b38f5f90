/* bench_stops.c - mcsgen on a joint limit (make bench, section "stops"; bench/stops_peer.py): the
 * model's stops and friction applied as it runs (mcs_stops_locate, mcs_stops_apply: what
 * mcs_stops_advance does, with how far each stop's coordinate went past its limits checked at
 * every step's end and every event), timed as bench_step.c times a run. Built by
 * bench/stops_peer.py like bench_step.c (-DMCS_APP_MODEL=... -include <model>.h).
 * usage: bench_stops T_END METHOD H RTOL REPEATS
 *   METHOD rk4 (steps of H) or dopri5 (RTOL, atol RTOL / 100), from the file's initial state
 * Prints one JSON object: the best time of the run, the largest distance past a limit, the
 * stops' coordinates at the end, and the counts of steps and of each kind of event. Needs
 * -D_POSIX_C_SOURCE=199309L (clock_gettime). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mcs/mcs_sim.h"
#include "mcs/mcs_stops.h"

#define CAT2(a, b) a##b
#define CAT(a, b) CAT2(a, b)
#define MODEL CAT(MCS_APP_MODEL, _model)
#define DEFAULTS CAT(MCS_APP_MODEL, _default_params)
#define NX MCS_APP_NX
#define ROWS (MCS_APP_NC + MCS_APP_NX)
#define NSTOPS (MCS_APP_NSTOPS > 0 ? MCS_APP_NSTOPS : 1)
#define NEW_ROWS (MCS_APP_GROUP_ROWS > 1 ? MCS_APP_GROUP_ROWS : 1)

static mcs_real work[MCS_SIM_WORK_SIZE(NX, ROWS)];
static int iwork[MCS_SIM_IWORK_SIZE(NX, ROWS)];
static mcs_real swork[MCS_STOPS_WORK_SIZE(NX, NSTOPS, MCS_APP_NFRICTION, MCS_APP_NJC, ROWS)];
static int siwork[MCS_STOPS_IWORK_SIZE(NSTOPS, MCS_APP_NFRICTION)];
static mcs_real jwork[MCS_JUMP_WORK_SIZE(NX, ROWS, NEW_ROWS)];
static int jiwork[MCS_JUMP_IWORK_SIZE(NX, ROWS, NEW_ROWS)];
static mcs_real dv[NX];
static mcs_sim sim;
static mcs_stops stops;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void check(mcs_status st, const char *what)
{
    if (st != MCS_OK) {
        fprintf(stderr, "bench_stops: %s: %s\n", what, mcs_status_str(st));
        exit(1);
    }
}

/* How far the stops' coordinates are past their limits now (>= 0). */
static double beyond(void)
{
    double worst = 0;
    int k;
    for (k = 0; k < stops.nstops; ++k) {
        const mcs_stop *s = &MODEL.stops[k];
        mcs_real q = 0, r = 0;
        check(mcs_stops_coordinate(&stops, &sim, k, sim.cur.t, sim.cur.x, sim.cur.v, &q, &r),
              "coordinate");
        if ((s->sides & MCS_STOP_LOWER) && s->lower - q > worst)
            worst = s->lower - q;
        if ((s->sides & MCS_STOP_UPPER) && q - s->upper > worst)
            worst = q - s->upper;
    }
    return worst;
}

int main(int argc, char **argv)
{
    mcs_options opt;
    long counts[5] = {0, 0, 0, 0, 0};
    double t_end, best = 1e300, worst = 0;
    int repeats, r, k;
    if (argc != 6) {
        fprintf(stderr, "usage: %s T_END METHOD H RTOL REPEATS\n", argv[0]);
        return 2;
    }
    t_end = strtod(argv[1], NULL);
    repeats = (int)strtol(argv[5], NULL, 10);
    check(mcs_options_default(&opt, &MODEL), "options");
    opt.method = strcmp(argv[2], "rk4") ? MCS_METHOD_DOPRI5 : MCS_METHOD_RK4;
    opt.h = strtod(argv[3], NULL);
    opt.rtol = strtod(argv[4], NULL);
    opt.atol = opt.rtol / 100;
    opt.max_locks = NX;
    opt.max_steps = 100000000L;
    for (r = 0; r < repeats; ++r) {
        double t0, t1;
        mcs_stop_event ev;
        check(mcs_sim_init(&sim, &MODEL, &DEFAULTS, &opt, work, sizeof work / sizeof *work, iwork,
                           sizeof iwork / sizeof *iwork),
              "init");
        check(mcs_sim_start(&sim, 0, NULL), "start");
        check(mcs_stops_init(&stops, &sim, swork, sizeof swork / sizeof *swork, siwork,
                             sizeof siwork / sizeof *siwork),
              "stops");
        check(mcs_stops_begin(&stops, &sim, MCS_JUMP_MINIMAL, dv, jwork,
                              sizeof jwork / sizeof *jwork, jiwork, sizeof jiwork / sizeof *jiwork),
              "friction");
        memset(counts, 0, sizeof counts);
        worst = 0;
        t0 = now();
        while (sim.cur.t < t_end) {
            double b;
            check(mcs_sim_step(&sim, t_end), "step");
            check(mcs_stops_locate(&stops, &sim, &ev), "locate");
            if (ev.kind != MCS_STOP_EVENT_NONE) {
                check(mcs_stops_apply(&stops, &sim, &ev, MCS_JUMP_MINIMAL, dv, jwork,
                                      sizeof jwork / sizeof *jwork, jiwork,
                                      sizeof jiwork / sizeof *jiwork),
                      "event");
                counts[ev.kind]++;
            }
            b = beyond();
            if (b > worst)
                worst = b;
        }
        t1 = now();
        if (t1 - t0 < best)
            best = t1 - t0;
    }
    printf("{\"time_s\": %.9g, \"beyond\": %.17g, \"steps\": %ld, \"impacts\": %ld, "
           "\"releases\": %ld, \"sticks\": %ld, \"slips\": %ld, \"q\": [",
           best, worst, sim.stats.steps, counts[1], counts[2], counts[3], counts[4]);
    for (k = 0; k < stops.nstops; ++k) {
        mcs_real q = 0, rate = 0;
        check(mcs_stops_coordinate(&stops, &sim, k, sim.cur.t, sim.cur.x, sim.cur.v, &q, &rate),
              "coordinate");
        printf("%s%.17g", k ? ", " : "", (double)q);
    }
    printf("]}\n");
    return 0;
}
