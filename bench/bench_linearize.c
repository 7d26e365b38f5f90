/* bench_linearize.c - the cost and accuracy of the exact linearizations of one generated model
 * against central finite differences of the same simulator (host only; make bench, section
 * "linearize"). Built by bench/linearize_peer.py like bench_step.c (-DMCS_APP_MODEL=...
 * -include <model>.h).
 * usage: bench_linearize T0 H REPEATS CALLS
 *   from the file's state, RK4 steps of H to T0; there, the best over REPEATS of CALLS calls of:
 *   - mcs_sim_linearize (exact A) against central differences of mcs_sim_chart_rhs (eps 1e-6,
 *     4f evaluations), both against a Richardson extrapolation of central differences (eps
 *     2e-4 and 1e-4: error O(eps^4)) as the reference;
 *   - mcs_sim_step_jacobian (one RK4 step of H and its exact J) against one plain step and
 *     against central differences of the step (4f runs of one step from the perturbed states,
 *     as mjd_transitionFD does), and J against their Richardson extrapolation.
 * Prints one JSON object (J column-major). Needs -D_POSIX_C_SOURCE=199309L (clock_gettime). */
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
#define NX MCS_APP_NX
#define NY (2 * NX)

static mcs_real work[MCS_SIM_WORK_SIZE(MCS_APP_NX, MCS_APP_NC)];
static int iwork[MCS_SIM_IWORK_SIZE(MCS_APP_NX, MCS_APP_NC)];
static mcs_real lw[MCS_SIM_STEP_JACOBIAN_WORK_SIZE(MCS_APP_NX, MCS_APP_NC, 1)];
static mcs_real A[NY * NY], Afd[NY * NY], Aref[NY * NY], J[NY * NY], Jfd[NY * NY], Jref[NY * NY];
static mcs_real T0[NX * NX], T1[NX * NX], x0[NX], v0[NX], y0[NY];
static mcs_sim sim;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void check(mcs_status st, const char *what)
{
    if (st != MCS_OK) {
        fprintf(stderr, "bench_linearize: %s: %s\n", what, mcs_status_str(st));
        exit(1);
    }
}

/* central differences of the chart's right-hand side about y0 (dim 2f) with steps eps_j */
static void rhs_differences(int f, double eps, mcs_real *out)
{
    mcs_real yp[NY], ym[NY], dp[NY], dm[NY];
    int i, j;
    for (j = 0; j < 2 * f; ++j) {
        const double e = eps * fmax(1.0, fabs(y0[j]));
        memcpy(yp, y0, sizeof yp);
        memcpy(ym, y0, sizeof ym);
        yp[j] += e;
        ym[j] -= e;
        check(mcs_sim_chart_rhs(&sim, yp, dp), "chart_rhs");
        check(mcs_sim_chart_rhs(&sim, ym, dm), "chart_rhs");
        for (i = 0; i < 2 * f; ++i)
            out[i + j * 2 * f] = (dp[i] - dm[i]) / (2 * e);
    }
}

/* the state one step of h after (t0, x0, v0) moved to the chart coordinate y, read in the
 * coordinates of the basis T1 (g columns): out (2g) = (T1^T x, T1^T v) */
static void step_from(double t0, double h, const mcs_real *y, int g, mcs_real *out)
{
    mcs_real x[NX], v[NX];
    int i, k;
    check(mcs_sim_set_state(&sim, t0, x0, v0, NULL), "set_state");
    check(mcs_sim_chart_state(&sim, y, x, v), "chart_state");
    check(mcs_sim_set_state(&sim, t0, x, v, NULL), "set_state");
    check(mcs_sim_step(&sim, t0 + h), "step");
    for (k = 0; k < g; ++k) {
        out[k] = 0;
        out[g + k] = 0;
        for (i = 0; i < NX; ++i) {
            out[k] += T1[i + k * NX] * sim.cur.x[i];
            out[g + k] += T1[i + k * NX] * sim.cur.v[i];
        }
    }
}

static void step_differences(double t0, double h, int f, int g, double eps, mcs_real *out)
{
    mcs_real yp[NY], ym[NY], ep[NY], em[NY];
    int i, j;
    for (j = 0; j < 2 * f; ++j) {
        const double e = eps * fmax(1.0, fabs(y0[j]));
        memcpy(yp, y0, sizeof yp);
        memcpy(ym, y0, sizeof ym);
        yp[j] += e;
        ym[j] -= e;
        step_from(t0, h, yp, g, ep);
        step_from(t0, h, ym, g, em);
        for (i = 0; i < 2 * g; ++i)
            out[i + j * 2 * g] = (ep[i] - em[i]) / (2 * e);
    }
}

static double rel_error(int k, const mcs_real *a, const mcs_real *ref)
{
    double worst = 0, scale = 1e-300;
    int i;
    for (i = 0; i < k; ++i) {
        worst = fmax(worst, fabs(a[i] - ref[i]));
        scale = fmax(scale, fabs(ref[i]));
    }
    return worst / scale;
}

/* Richardson: (4 D(eps/2) - D(eps)) / 3 of two difference matrices, into a */
static void richardson(int k, const mcs_real *coarse, mcs_real *fine_then_out)
{
    int i;
    for (i = 0; i < k; ++i)
        fine_then_out[i] = (4 * fine_then_out[i] - coarse[i]) / 3;
}

int main(int argc, char **argv)
{
    mcs_options opt;
    mcs_real scratch[NY * NY];
    double t_at, h, best_lin = 1e30, best_fd = 1e30, best_sj = 1e30, best_step = 1e30,
                    best_sfd = 1e30;
    int repeats, calls, r, c, f, g, f2, i;
    if (argc != 5) {
        fprintf(stderr, "usage: %s T0 H REPEATS CALLS\n", argv[0]);
        return 2;
    }
    t_at = atof(argv[1]);
    h = atof(argv[2]);
    repeats = atoi(argv[3]);
    calls = atoi(argv[4]);
    mcs_options_default(&opt, &MODEL);
    opt.method = MCS_METHOD_RK4;
    opt.h = h;
    check(mcs_sim_init(&sim, &MODEL, &DEFAULTS, &opt, work, sizeof work / sizeof *work, iwork,
                       sizeof iwork / sizeof *iwork),
          "init");
    check(mcs_sim_start(&sim, 0, NULL), "start");
    check(mcs_sim_advance(&sim, t_at), "advance");
    t_at = sim.cur.t;
    memcpy(x0, sim.cur.x, sizeof x0);
    memcpy(v0, sim.cur.v, sizeof v0);
    check(mcs_sim_set_state(&sim, t_at, x0, v0, NULL), "set_state");
    check(mcs_sim_linearize(&sim, A, NULL, &f, lw, sizeof lw / sizeof *lw), "linearize");
    f2 = 2 * f;
    check(mcs_sim_basis(&sim, T0), "basis");
    for (i = 0; i < f; ++i) {
        int k;
        y0[i] = 0;
        y0[f + i] = 0;
        for (k = 0; k < NX; ++k)
            y0[f + i] += T0[k + i * NX] * v0[k];
    }
    /* the continuous A: exact, and central differences (the bottom block rows) */
    for (r = 0; r < repeats; ++r) {
        double t = now();
        for (c = 0; c < calls; ++c)
            check(mcs_sim_linearize(&sim, A, NULL, &f, lw, sizeof lw / sizeof *lw), "linearize");
        best_lin = fmin(best_lin, (now() - t) / calls);
        t = now();
        for (c = 0; c < calls; ++c)
            rhs_differences(f, 1e-6, Afd);
        best_fd = fmin(best_fd, (now() - t) / calls);
    }
    rhs_differences(f, 2e-4, scratch);
    rhs_differences(f, 1e-4, Aref);
    richardson(f2 * f2, scratch, Aref);
    /* the step: exact J (a step and its Jacobian), a plain step, and differences of the step */
    for (r = 0; r < repeats; ++r) {
        double t = now();
        for (c = 0; c < calls; ++c) {
            check(mcs_sim_set_state(&sim, t_at, x0, v0, NULL), "set_state");
            check(
                mcs_sim_step_jacobian(&sim, t_at + h, J, NULL, &f, &g, lw, sizeof lw / sizeof *lw),
                "step_jacobian");
        }
        best_sj = fmin(best_sj, (now() - t) / calls);
        t = now();
        for (c = 0; c < calls; ++c) {
            check(mcs_sim_set_state(&sim, t_at, x0, v0, NULL), "set_state");
            check(mcs_sim_step(&sim, t_at + h), "step");
        }
        best_step = fmin(best_step, (now() - t) / calls);
    }
    check(mcs_sim_basis(&sim, T1), "basis"); /* the basis after the step (the last run's) */
    for (r = 0; r < repeats; ++r) {
        const double t = now();
        for (c = 0; c < calls; ++c)
            step_differences(t_at, h, f, g, 1e-6, Jfd);
        best_sfd = fmin(best_sfd, (now() - t) / calls);
    }
    step_differences(t_at, h, f, g, 2e-4, scratch);
    step_differences(t_at, h, f, g, 1e-4, Jref);
    richardson(2 * g * f2, scratch, Jref);
    printf("{\"model\": \"%s\", \"n\": %d, \"m\": %d, \"dof\": %d, \"t\": %.17g, \"h\": %.17g, "
           "\"linearize_s\": %.6e, \"rhs_differences_s\": %.6e, \"rhs_evaluations\": %d, "
           "\"linearize_error\": %.3e, \"rhs_differences_error\": %.3e, "
           "\"step_jacobian_s\": %.6e, \"step_s\": %.6e, \"step_differences_s\": %.6e, "
           "\"step_jacobian_error\": %.3e, \"step_differences_error\": %.3e, \"J\": [",
           MODEL.name, MODEL.nx, MODEL.nc, f, t_at, h, best_lin, best_fd, 2 * f2,
           rel_error(f2 * f2, A, Aref), rel_error(f2 * f2, Afd, Aref), best_sj, best_step, best_sfd,
           rel_error(2 * g * f2, J, Jref), rel_error(2 * g * f2, Jfd, Jref));
    for (i = 0; i < 2 * g * f2; ++i)
        printf("%s%.17g", i ? ", " : "", (double)J[i]);
    printf("]}\n");
    return 0;
}
