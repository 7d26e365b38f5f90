/* dynamics_at.c - the test harness of tests/e2e/test_inverse_dynamics.py: forward and inverse
 * dynamics of a generated model at states read from stdin, one request a line:
 *
 *   F t x(n) v(n) u(nu)      -> x''(n)                        (mcs_sim_forward_dynamics)
 *   I t x(n) v(n) xdd(n)     -> u(nu) residual normal rank dof (mcs_sim_inverse_dynamics)
 *
 * numbers separated by blanks; each answer one line (%.17g), or "error <what the status says>".
 * Built by program_command with the model header -included: MCS_APP_MODEL, MCS_APP_NX,
 * MCS_APP_NC, MCS_APP_NU. */
#include <stdio.h>
#include <string.h>

#include "mcs/mcs_sim.h"

#define CAT2(a, b) a##b
#define CAT(a, b) CAT2(a, b)
#define MODEL CAT(MCS_APP_MODEL, _model)
#define NX MCS_APP_NX
#define NC MCS_APP_NC
#define NU (MCS_APP_NU > 0 ? MCS_APP_NU : 1)

static mcs_real work[MCS_SIM_WORK_SIZE(NX, NC + NX)];
static int iwork[MCS_SIM_IWORK_SIZE(NX, NC + NX)];
static mcs_real idwork[MCS_SIM_INVERSE_WORK_SIZE(NX, NC + NX, NU)];

static int read_reals(mcs_real *a, int k)
{
    int i;
    for (i = 0; i < k; ++i) {
        double d;
        if (scanf("%lf", &d) != 1)
            return 0;
        a[i] = (mcs_real)d;
    }
    return 1;
}

int main(void)
{
    mcs_options opt;
    mcs_sim sim;
    char op[8];
    mcs_options_default(&opt, &MODEL);
    if (mcs_sim_init(&sim, &MODEL, MODEL.default_params, &opt, work, sizeof work / sizeof *work,
                     iwork, sizeof iwork / sizeof *iwork) != MCS_OK ||
        mcs_sim_start(&sim, 0, NULL) != MCS_OK)
        return 3;
    while (scanf("%7s", op) == 1) {
        mcs_real t, x[NX], v[NX], a[NX], u[NU], lambda[NC + NX + 1];
        mcs_inverse_report rep;
        mcs_status st;
        int i;
        if (!read_reals(&t, 1) || !read_reals(x, NX) || !read_reals(v, NX))
            return 4;
        if (!strcmp(op, "F")) {
            if (!read_reals(u, MODEL.nu))
                return 4;
            st = mcs_sim_forward_dynamics(&sim, t, x, v, u, a, lambda);
            if (st != MCS_OK) {
                printf("error %s\n", mcs_status_str(st));
                continue;
            }
            for (i = 0; i < NX; ++i)
                printf("%s%.17g", i ? " " : "", (double)a[i]);
            printf("\n");
        } else {
            if (!read_reals(a, NX))
                return 4;
            st = mcs_sim_inverse_dynamics(&sim, t, x, v, a, u, &rep, idwork,
                                          sizeof idwork / sizeof *idwork);
            if (st != MCS_OK) {
                printf("error %s\n", mcs_status_str(st));
                continue;
            }
            for (i = 0; i < MODEL.nu; ++i)
                printf("%.17g ", (double)u[i]);
            printf("%.17g %.17g %d %d\n", (double)rep.residual, (double)rep.normal, rep.rank,
                   rep.dof);
        }
        fflush(stdout);
    }
    return 0;
}
