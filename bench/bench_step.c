/* bench_step.c - timing of the integration loop of one generated model (host only).
 * Built by bench/run.py like the simulator (-DMCS_APP_MODEL=... -include <model>.h).
 * usage: bench_step MODE ARGS
 *   per-step T_END H REPEATS        ns per RK4 step for continuation off, euler, none, exp
 *   banded T_END H REPEATS          ns per RK4 step of the default simulator (continuation off)
 *                                   and of the banded one (off, none, euler), both without
 *                                   events and dense output; max |x - x_default| at T_END
 *   run METHOD H RTOL T_END REPEATS best wall time of one run, and the final positions and
 *                                   velocities (and joint coordinates and rates, if any)
 *   locks METHOD H RTOL T_END REPEATS JUMP NAME@T...   the same with coordinate or joint NAME
 *                                   locked at time T (JUMP: minimal|naive); also the cost of one
 *                                   lock
 * Prints one JSON object. Needs -D_POSIX_C_SOURCE=199309L (clock_gettime). */
#include <math.h>
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
/* with room for locks (locks mode only, so the other modes keep the plain layout) */
#define LROWS (MCS_APP_NC + MCS_APP_NX)
static mcs_real lwork[MCS_SIM_WORK_SIZE(MCS_APP_NX, LROWS)];
static int liwork[MCS_SIM_IWORK_SIZE(MCS_APP_NX, LROWS)];
static mcs_real jwork[MCS_JUMP_WORK_SIZE(MCS_APP_NX, LROWS, 6)];
static int jiwork[MCS_JUMP_IWORK_SIZE(MCS_APP_NX, LROWS, 6)];

/* the method of that name (mcs_method_name), RK4 when none is */
static mcs_method method_named(const char *name)
{
    int m;
    for (m = 0; m < MCS_METHOD_COUNT; ++m)
        if (!strcmp(name, mcs_method_name((mcs_method)m)))
            return (mcs_method)m;
    return MCS_METHOD_RK4;
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* init and initial state of a run (exits on failure); max_locks > 0 uses the workspace sized for
 * locks */
static void setup(mcs_method method, mcs_continuation cont, double h, double rtol, int max_locks,
                  mcs_sim *sim)
{
    mcs_options opt;
    mcs_status st;
    mcs_options_default(&opt, &MODEL);
    opt.method = method;
    opt.continuation = cont;
    opt.h = h;
    opt.rtol = rtol;
    opt.atol = rtol * 1e-2;
    opt.max_locks = max_locks;
    st = max_locks > 0
             ? mcs_sim_init(sim, &MODEL, &DEFAULTS, &opt, lwork, sizeof lwork / sizeof *lwork,
                            liwork, sizeof liwork / sizeof *liwork)
             : mcs_sim_init(sim, &MODEL, &DEFAULTS, &opt, work, sizeof work / sizeof *work, iwork,
                            sizeof iwork / sizeof *iwork);
    if (st != MCS_OK || mcs_sim_set_state(sim, 0, MODEL.x0, MODEL.v0, NULL) != MCS_OK) {
        fprintf(stderr, "bench: init failed\n");
        exit(1);
    }
}

/* A banded simulator (options.banded) in memory of its own size (malloc'ed once per
 * continuation: this is a host benchmark), at the initial state; 0 if the model has none. */
static int setup_banded(mcs_continuation cont, double h, mcs_sim *sim)
{
    static void *blocks[4];
    static size_t sizes[4];
    mcs_options opt;
    const int slot = (int)cont;
    mcs_options_default(&opt, &MODEL);
    opt.method = MCS_METHOD_RK4;
    opt.continuation = cont;
    opt.h = h;
    opt.dense_output = 0;
    opt.sing_tol = 0;
    opt.variant = MCS_VARIANT_BANDED;
    if (!blocks[slot]) {
        sizes[slot] = mcs_sim_memory_size(&MODEL, &opt);
        if (sizes[slot] == 0)
            return 0;
        blocks[slot] = malloc(sizes[slot]);
    }
    if (!blocks[slot] ||
        mcs_sim_assign(sim, &MODEL, &DEFAULTS, &opt, blocks[slot], sizes[slot]) != MCS_OK ||
        mcs_sim_set_state(sim, 0, MODEL.x0, MODEL.v0, NULL) != MCS_OK) {
        fprintf(stderr, "bench: banded init failed\n");
        exit(1);
    }
    return 1;
}

/* one run; returns wall seconds of the integration loop (init and assembly excluded) */
static double run(mcs_method method, mcs_continuation cont, double h, double rtol, double t_end,
                  mcs_sim *sim)
{
    double start;
    setup(method, cont, h, rtol, 0, sim);
    start = now();
    if (mcs_sim_advance(sim, t_end) != MCS_OK) {
        fprintf(stderr, "bench: integration failed\n");
        exit(1);
    }
    return now() - start;
}

/* The lock key of a coordinate's or a row group's name (a joint's lock): j, or nx + group. */
static int lock_key(const char *name, size_t len)
{
    int k;
    for (k = 0; k < MODEL.nx; ++k)
        if (strlen(MODEL.coord_names[k]) == len && !strncmp(MODEL.coord_names[k], name, len))
            return k;
    for (k = 0; k < MODEL.ngroups; ++k)
        if (strlen(MODEL.groups[k].name) == len && !strncmp(MODEL.groups[k].name, name, len))
            return MODEL.nx + k;
    fprintf(stderr, "bench: unknown coordinate or joint %s\n", name);
    exit(2);
}

/* one run with locks (key lock_j[k] at lock_t[k], in time order); wall seconds of the loop, and
 * in *lock_s the seconds spent in the locks */
static double run_locks(mcs_method method, double h, double rtol, double t_end, mcs_jump_method jm,
                        int nlocks, const int *lock_j, const double *lock_t, mcs_sim *sim,
                        double *lock_s)
{
    mcs_real dv[MCS_APP_NX];
    double start, t0;
    int k;
    setup(method, MCS_CONT_EXP, h, rtol, MCS_APP_NX, sim);
    *lock_s = 0;
    start = now();
    for (k = 0; k <= nlocks; ++k) {
        const double t_stop = k < nlocks && lock_t[k] < t_end ? lock_t[k] : t_end;
        if (mcs_sim_advance(sim, t_stop) != MCS_OK) {
            fprintf(stderr, "bench: integration failed\n");
            exit(1);
        }
        if (k == nlocks || t_stop == t_end)
            break;
        t0 = now();
        if ((lock_j[k] < MODEL.nx
                 ? mcs_sim_lock(sim, lock_j[k], jm, dv, jwork, sizeof jwork / sizeof *jwork, jiwork,
                                sizeof jiwork / sizeof *jiwork, NULL)
                 : mcs_sim_lock_group(sim, lock_j[k], lock_j[k] - MODEL.nx, jm, dv, jwork,
                                      sizeof jwork / sizeof *jwork, jiwork,
                                      sizeof jiwork / sizeof *jiwork, NULL)) != MCS_OK) {
            fprintf(stderr, "bench: lock failed\n");
            exit(1);
        }
        *lock_s += now() - t0;
    }
    return now() - start;
}

int main(int argc, char **argv)
{
    static mcs_sim sim;
    const char *names[] = {"off", "euler", "none", "exp"};
    const mcs_continuation modes[] = {MCS_CONT_OFF, MCS_CONT_EULER, MCS_CONT_NONE, MCS_CONT_EXP};
    int i, j, k;
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
    if (argc == 5 && !strcmp(argv[1], "banded")) {
        const double t_end = atof(argv[2]), h = atof(argv[3]);
        const int repeats = atoi(argv[4]);
        const char *bnames[] = {"default_off", "banded_off", "banded_none", "banded_euler"};
        const mcs_continuation bmodes[] = {MCS_CONT_OFF, MCS_CONT_OFF, MCS_CONT_NONE,
                                           MCS_CONT_EULER};
        static mcs_real x_ref[MCS_APP_NX];
        double best[4] = {1e30, 1e30, 1e30, 1e30}, dx = 0;
        long steps = 0;
        for (k = 0; k < repeats; ++k)
            for (i = 0; i < 4; ++i) {
                double start;
                if (i == 0) {
                    mcs_options opt;
                    mcs_options_default(&opt, &MODEL);
                    opt.method = MCS_METHOD_RK4;
                    opt.continuation = MCS_CONT_OFF;
                    opt.h = h;
                    opt.dense_output = 0;
                    opt.sing_tol = 0;
                    if (mcs_sim_init(&sim, &MODEL, &DEFAULTS, &opt, work,
                                     sizeof work / sizeof *work, iwork,
                                     sizeof iwork / sizeof *iwork) != MCS_OK ||
                        mcs_sim_set_state(&sim, 0, MODEL.x0, MODEL.v0, NULL) != MCS_OK)
                        return 1;
                } else if (!setup_banded(bmodes[i], h, &sim)) {
                    fprintf(stderr, "bench: %s has no band structure\n", MODEL.name);
                    return 1;
                }
                start = now();
                if (mcs_sim_advance(&sim, t_end) != MCS_OK) {
                    fprintf(stderr, "bench: integration failed (%s)\n", bnames[i]);
                    return 1;
                }
                start = now() - start;
                best[i] = (start < best[i]) ? start : best[i];
                steps = sim.stats.steps;
                for (j = 0; j < MODEL.nx; ++j) {
                    if (i == 0)
                        x_ref[j] = sim.cur.x[j];
                    else if (fabs((double)(sim.cur.x[j] - x_ref[j])) > dx)
                        dx = fabs((double)(sim.cur.x[j] - x_ref[j]));
                }
            }
        printf("{\"model\": \"%s\", \"n\": %d, \"m\": %d, \"steps\": %ld, \"max_dx\": %.3g",
               MODEL.name, MODEL.nx, MODEL.nc, steps, dx);
        if (MODEL.band)
            printf(", \"band_width\": %d, \"rotations\": %d, \"kkt_band\": %d", MODEL.band->width,
                   MODEL.band->nrot, MODEL.band->kkt_band);
        for (i = 0; i < 4; ++i)
            printf(", \"ns_per_step_%s\": %.1f", bnames[i], 1e9 * best[i] / (double)steps);
        printf("}\n");
        return 0;
    }
    if (argc == 7 && !strcmp(argv[1], "run")) {
        const mcs_method method = method_named(argv[2]);
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
        printf("], \"v\": [");
        for (i = 0; i < MODEL.nx; ++i)
            printf("%s%.17g", i ? ", " : "", (double)sim.cur.v[i]);
        printf("]");
        if (MODEL.njc > 0) {
            /* the joints' free coordinates and rates (from the initial pose) at the end */
            static mcs_real q[2 * MCS_APP_NJC + 1];
            MODEL.joint_coords(sim.cur.x, sim.cur.v, sim.cur.t, &DEFAULTS, q);
            printf(", \"joint_coords\": [");
            for (i = 0; i < 2 * MODEL.njc; ++i)
                printf("%s%.17g", i ? ", " : "", (double)q[i]);
            printf("]");
        }
        printf("}\n");
        return 0;
    }
    if (argc >= 9 && !strcmp(argv[1], "locks")) {
        const mcs_method method = method_named(argv[2]);
        const double h = atof(argv[3]), rtol = atof(argv[4]), t_end = atof(argv[5]);
        const int repeats = atoi(argv[6]), nlocks = argc - 8;
        const mcs_jump_method jm = strcmp(argv[7], "naive") ? MCS_JUMP_MINIMAL : MCS_JUMP_NAIVE;
        int lock_j[16];
        double lock_t[16], best = 1e30, best_lock = 1e30, lock_s;
        if (nlocks > 16)
            return 2;
        for (k = 0; k < nlocks; ++k) {
            const char *at = strchr(argv[8 + k], '@');
            if (!at)
                return 2;
            lock_j[k] = lock_key(argv[8 + k], (size_t)(at - argv[8 + k]));
            lock_t[k] = atof(at + 1);
        }
        for (k = 0; k < repeats; ++k) {
            double w = run_locks(method, h, rtol, t_end, jm, nlocks, lock_j, lock_t, &sim, &lock_s);
            if (w < best)
                best = w;
            if (lock_s < best_lock)
                best_lock = lock_s;
        }
        printf("{\"model\": \"%s\", \"wall_s\": %.9f, \"steps\": %ld, \"lock_s\": %.9f, "
               "\"locks\": %d, \"x\": [",
               MODEL.name, best, sim.stats.steps, best_lock, nlocks);
        for (i = 0; i < MODEL.nx; ++i)
            printf("%s%.17g", i ? ", " : "", (double)sim.cur.x[i]);
        printf("]}\n");
        return 0;
    }
    fprintf(
        stderr,
        "usage: bench_step per-step T_END H REPEATS | banded T_END H REPEATS"
        " | run METHOD H RTOL T_END REPEATS | locks METHOD H RTOL T_END REPEATS JUMP NAME@T...\n");
    return 2;
}
