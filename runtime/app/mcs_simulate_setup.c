/* mcs_simulate_setup.c - the run set up before it starts (see mcs_simulate_setup.h). */
#include "mcs_simulate_setup.h"

#include <stdio.h>
#include <stdlib.h>

/* Dies with "--<option> must be <rule>, got <value>" unless ok. */
void require(int ok, const char *option, const char *rule, double value)
{
    char what[96], got[32];
    if (ok)
        return;
    snprintf(what, sizeof what, "--%s must be %s, got", option, rule);
    snprintf(got, sizeof got, "%g", value);
    die(what, got);
}

const char *method_like(unsigned flags)
{
    const unsigned kind = MCS_METHOD_FLAG_ADAPTIVE | MCS_METHOD_FLAG_IMPLICIT;
    int m;
    for (m = 0; m < MCS_METHOD_COUNT; ++m)
        if ((mcs_method_flags((mcs_method)m) & kind) == flags)
            return mcs_method_name((mcs_method)m);
    return "?";
}

/* Refuses, before the run, what would not end in reasonable time: more fixed steps (the methods
 * without error control) or more output rows than --max-steps. */
void check_run_size(const app_args *app, const mcs_options *opt)
{
    char what[160], got[96];
    const double t_end = (double)app->t_end;
    if (!(mcs_method_flags(opt->method) & MCS_METHOD_FLAG_ADAPTIVE) &&
        t_end / (double)opt->h > (double)app->max_steps) {
        snprintf(what, sizeof what,
                 "--h %g with --t-end %g takes %.3g %s steps, more than --max-steps",
                 (double)opt->h, t_end, t_end / (double)opt->h, mcs_method_name(opt->method));
        snprintf(got, sizeof got, "%ld (a larger --h or a shorter --t-end?)", app->max_steps);
        die(what, got);
    }
    if (app->dt_out > 0 && t_end / (double)app->dt_out > (double)app->max_steps) {
        snprintf(what, sizeof what,
                 "--dt-out %g with --t-end %g writes %.3g rows, more than --max-steps",
                 (double)app->dt_out, t_end, t_end / (double)app->dt_out);
        snprintf(got, sizeof got, "%ld", app->max_steps);
        die(what, got);
    }
}

/* The options the banded simulator would run with (assign_banded): no event search, dense output
 * only for rows at dt-out between an adaptive method's steps, room for locks only when the run
 * has them (--lock, --unlock, the model file's events). */
static mcs_options banded_options(const mcs_options *opt, const app_args *app)
{
    mcs_options b = *opt;
    b.sing_tol = 0; /* it stops at a singular configuration instead of crossing it */
    b.dense_output =
        ((mcs_method_flags(opt->method) & MCS_METHOD_FLAG_ADAPTIVE) && app->dt_out > 0) ? 1 : 0;
    b.max_locks = (app->nevents > 0 || app->nconds > 0) ? 1 : 0;
    b.variant = MCS_VARIANT_BANDED;
    return b;
}

const char *banded_refusal(const mcs_model *md, const mcs_options *opt, const app_args *app)
{
    static char text[256];
    const mcs_options b = banded_options(opt, app);
    const unsigned why = mcs_sim_refusals(md, &b);
    if (why & MCS_REFUSE_NO_BAND)
        return "the model has no band structure (no rows, or rows that are redundant or "
               "structurally rank deficient): use --simulator dense";
    if (why & MCS_REFUSE_LOCKS)
        return "locks (--lock, --unlock, the model file's events) need --simulator dense";
    if (why & MCS_REFUSE_IMPLICIT) {
        snprintf(text, sizeof text, "the implicit methods (--method %s, %s) need --simulator dense",
                 method_like(MCS_METHOD_FLAG_ADAPTIVE | MCS_METHOD_FLAG_IMPLICIT),
                 method_like(MCS_METHOD_FLAG_IMPLICIT));
        return text;
    }
    if (why & MCS_REFUSE_CONTINUATION)
        return "continuation exp (the model file's or --continuation) is not available: it takes "
               "off, none or euler (--continuation none)";
    if (why & MCS_REFUSE_DENSE_OUTPUT)
        return "rows at dt-out (the model file's or --dt-out) between dopri5 or dop853 steps need "
               "dense output: use --dt-out 0 or --method rk4";
    if (why & MCS_REFUSE_NEEDS_A_DOT)
        return "continuation euler needs the model's A_dot by its nonzeros (the predictor kernel "
               "set): use --continuation none";
    if (why & MCS_REFUSE_NOT_COMPILED)
        return "this build of the runtime left it out (mcs_config.h's MCS_WITH_BANDED)";
    return NULL;
}

/* The simulator in memory of its own size (a block malloc'ed once: this is the application):
 * the banded one without events, dense output or locks. Dies on failure. */
static void assign_banded(mcs_sim *sim, const mcs_model *md, const void *params, mcs_options *opt,
                          const app_args *app)
{
    static void *block;
    size_t size;
    mcs_status st;
    *opt = banded_options(opt, app); /* none of the refusals: dense output and locks are off */
    size = mcs_sim_memory_size(md, opt);
    if (size == 0)
        die("--simulator banded: these options are not for it", NULL);
    free(block);
    block = malloc(size);
    if (!block)
        die("--simulator banded: out of memory for its block", NULL);
    if ((st = mcs_sim_assign(sim, md, params, opt, block, size)) != MCS_OK)
        die("init failed", mcs_status_str(st));
}

void setup_simulator(mcs_sim *sim, const mcs_model *md, const void *params, mcs_options *opt,
                     const app_args *app, mcs_real *work, size_t work_len, int *iwork,
                     size_t iwork_len)
{
    const char *refusal = banded_refusal(md, opt, app);
    mcs_status st;
    if (app->simulator == APP_SIM_BANDED && refusal)
        die("--simulator banded", refusal);
    if (app->simulator == APP_SIM_BANDED ||
        (app->simulator == APP_SIM_AUTO && !refusal && md->nx >= app_banded_from)) {
        assign_banded(sim, md, params, opt, app);
        return;
    }
    if ((st = mcs_sim_init(sim, md, params, opt, work, work_len, iwork, iwork_len)) != MCS_OK)
        die("init failed", mcs_status_str(st));
}
