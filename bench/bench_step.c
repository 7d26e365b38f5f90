/* bench_step.c - timing of the integration loop of one generated model (host only).
 * Built by bench/run.py like the simulator (-DMCS_APP_MODEL=... -include <model>.h).
 * usage: bench_step MODE ARGS
 *   per-step T_END H REPEATS        ns per RK4 step for continuation off, euler, none, exp
 *   run METHOD H RTOL T_END REPEATS best wall time of one run, and the final positions
 * Prints one JSON object. Needs -D_POSIX_C_SOURCE=199309L (clock_gettime). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mcs/mcs_sim.h"

#define CAT2(a, b) a##b
#define CAT(a, b) CAT2(a, b)
#define MODEL CAT(MCS_APP_MODEL, _model)
#define DEFAULTS CAT(MCS_APP_MODEL, _default_params)

static mcs_real work[MCS_SIM_WORK_SIZE(MCS_APP_NX, MCS_APP_NC)];
static int iwork[MCS_SIM_IWORK_SIZE(MCS_APP_NX, MCS_APP_NC)];

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* one run; returns wall seconds of the integration loop (init and assembly excluded) */
static double run(mcs_method method, mcs_continuation cont, double h, double rtol, double t_end,
                  mcs_sim *sim)
{
    mcs_options opt;
    double start;
    mcs_options_default(&opt, &MODEL);
    opt.method = method;
    opt.continuation = cont;
    opt.h = h;
    opt.rtol = rtol;
    opt.atol = rtol * 1e-2;
    if (mcs_sim_init(sim, &MODEL, &DEFAULTS, &opt, work, sizeof work / sizeof *work, iwork,
                     sizeof iwork / sizeof *iwork) != MCS_OK ||
        mcs_sim_set_state(sim, 0, MODEL.x0, MODEL.v0, NULL) != MCS_OK) {
        fprintf(stderr, "bench: init failed\n");
        exit(1);
    }
    start = now();
    if (mcs_sim_advance(sim, t_end) != MCS_OK) {
        fprintf(stderr, "bench: integration failed\n");
        exit(1);
    }
    return now() - start;
}

int main(int argc, char **argv)
{
    static mcs_sim sim;
    const char *names[] = {"off", "euler", "none", "exp"};
    const mcs_continuation modes[] = {MCS_CONT_OFF, MCS_CONT_EULER, MCS_CONT_NONE, MCS_CONT_EXP};
    int i, k;
    if (argc == 5 && !strcmp(argv[1], "per-step")) {
        const double t_end = atof(argv[2]), h = atof(argv[3]);
        const int repeats = atoi(argv[4]);
        double best[4] = {1e30, 1e30, 1e30, 1e30};
        long steps = 0;
        for (k = 0; k < repeats; ++k) /* interleaved, so load changes hit every mode alike */
            for (i = 0; i < 4; ++i) {
                double w = run(MCS_METHOD_RK4, modes[i], h, 1e-8, t_end, &sim);
                if (w < best[i])
                    best[i] = w;
                steps = sim.stats.steps;
            }
        printf("{\"model\": \"%s\", \"n\": %d, \"m\": %d, \"steps\": %ld", MODEL.name, MODEL.nx,
               MODEL.nc, steps);
        for (i = 0; i < 4; ++i)
            printf(", \"ns_per_step_%s\": %.1f", names[i], 1e9 * best[i] / (double)steps);
        printf("}\n");
        return 0;
    }
    if (argc == 7 && !strcmp(argv[1], "run")) {
        const mcs_method method = strcmp(argv[2], "dopri5") ? MCS_METHOD_RK4 : MCS_METHOD_DOPRI5;
        const double h = atof(argv[3]), rtol = atof(argv[4]), t_end = atof(argv[5]);
        const int repeats = atoi(argv[6]);
        double best = 1e30;
        for (k = 0; k < repeats; ++k) {
            double w = run(method, MCS_CONT_EXP, h, rtol, t_end, &sim);
            if (w < best)
                best = w;
        }
        printf("{\"model\": \"%s\", \"wall_s\": %.9f, \"steps\": %ld, \"evaluations\": %ld, "
               "\"x\": [",
               MODEL.name, best, sim.stats.steps, sim.stats.evaluations);
        for (i = 0; i < MODEL.nx; ++i)
            printf("%s%.17g", i ? ", " : "", (double)sim.cur.x[i]);
        printf("]}\n");
        return 0;
    }
    fprintf(stderr,
            "usage: bench_step per-step T_END H REPEATS | run METHOD H RTOL T_END REPEATS\n");
    return 2;
}
