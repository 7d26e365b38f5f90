/* inputs_zoh.c - the test harness of tests/e2e/test_inputs.py: the same piecewise-constant
 * torques applied to one model three ways, and its state printed at every tick.
 *
 *   inputs: mcs_sim_set_inputs(u_k) at each tick (the model's inputs tau1..tau3);
 *   params: the same torques written into the model's parameters T1..T3 (the caller's struct,
 *           changed between ticks: the integrator's parameter fingerprint drops its cache);
 *   stale:  as inputs, but the first-same-as-last stage kept across the change (what a runtime
 *           that forgot to drop it would do): the test shows it differs.
 *
 *   dense_before, dense_after: as inputs, and after each tick the dense output in the middle of
 *           the tick's last step, asked for before or after the next tick's inputs are set (it
 *           must not change: DOP853 evaluates its dense stages late).
 *
 * Arguments: mode, method (dopri5, rk4, dop853), rtol (atol = rtol / 100). Prints t, x, v and
 * the right-hand-side evaluations so far at each tick (the dense modes: t and x in the middle of
 * the last step).
 *
 * Built by program_command with the model header -included: MCS_APP_MODEL, MCS_APP_NX. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mcs/mcs_sim.h"

#define CAT2(a, b) a##b
#define CAT(a, b) CAT2(a, b)
#define MODEL CAT(MCS_APP_MODEL, _model)
#define PARAMS_T CAT(MCS_APP_MODEL, _params)
#define DEFAULTS CAT(MCS_APP_MODEL, _default_params)
#define NX MCS_APP_NX

static mcs_real work[MCS_SIM_WORK_SIZE(NX, NX)];
static int iwork[MCS_SIM_IWORK_SIZE(NX, NX)];

/* the schedule: tick k's torques (N m), a deterministic sequence far from smooth */
static void torques(int k, mcs_real *u)
{
    u[0] = (mcs_real)(400.0 * sin(1.3 * k));
    u[1] = (mcs_real)(250.0 * cos(0.7 * k + 0.4));
    u[2] = (mcs_real)(120.0 * sin(2.1 * k + 1.0));
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "inputs";
    const int ticks = 40;
    const mcs_real dt = (mcs_real)0.05;
    PARAMS_T p = DEFAULTS;
    mcs_options opt;
    mcs_sim sim;
    mcs_real u[3];
    int k, i;
    mcs_options_default(&opt, &MODEL);
    opt.method = (argc > 2 && !strcmp(argv[2], "rk4"))      ? MCS_METHOD_RK4
                 : (argc > 2 && !strcmp(argv[2], "dop853")) ? MCS_METHOD_DOP853
                                                            : MCS_METHOD_DOPRI5;
    opt.h = (mcs_real)1e-3;
    opt.rtol = (mcs_real)(argc > 3 ? atof(argv[3]) : 1e-10);
    opt.atol = opt.rtol * (mcs_real)1e-2;
    if (mcs_sim_init(&sim, &MODEL, &p, &opt, work, sizeof work / sizeof *work, iwork,
                     sizeof iwork / sizeof *iwork) != MCS_OK ||
        mcs_sim_start(&sim, 0, NULL) != MCS_OK)
        return 3;
    for (k = 0; k < ticks; ++k) {
        torques(k, u);
        if (!strcmp(mode, "params")) {
            p.mcs_p_T1 = u[0];
            p.mcs_p_T2 = u[1];
            p.mcs_p_T3 = u[2];
        } else {
            const int fsal = sim.w.fsal;
            if (mcs_sim_set_inputs(&sim, u) != MCS_OK)
                return 4;
            if (!strcmp(mode, "stale"))
                sim.w.fsal = fsal;
        }
        if (mcs_sim_advance(&sim, (mcs_real)(k + 1) * dt) != MCS_OK)
            return 5;
        if (!strncmp(mode, "dense", 5)) {
            const mcs_real tm = (sim.prev.t + sim.cur.t) / 2;
            mcs_real xm[NX], vm[NX];
            mcs_real next[3];
            torques(k + 1, next);
            if (!strcmp(mode, "dense_after") && mcs_sim_set_inputs(&sim, next) != MCS_OK)
                return 6;
            if (mcs_sim_dense(&sim, tm, xm, vm, NULL, NULL) != MCS_OK)
                return 7;
            printf("%.17g", (double)tm);
            for (i = 0; i < NX; ++i)
                printf(",%.17g", (double)xm[i]);
            printf("\n");
            continue;
        }
        printf("%.17g", (double)sim.cur.t);
        for (i = 0; i < NX; ++i)
            printf(",%.17g", (double)sim.cur.x[i]);
        for (i = 0; i < NX; ++i)
            printf(",%.17g", (double)sim.cur.v[i]);
        printf(",%ld\n", sim.stats.evaluations);
    }
    return 0;
}
