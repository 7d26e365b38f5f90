/* mcs_simulate.c - command-line driver: simulate one generated model, write CSV, print a JSON
 * summary on stdout. Built by `./mcsgen simulate` with
 *   -DMCS_APP_MODEL=<name> -DMCS_APP_NX=<NAME>_NX -DMCS_APP_NC=<NAME>_NC -include <name>.h
 * and mcs_simulate_output.c. Its options come from mcs_options_table.h, generated from the one
 * table of generator/mcsgen/options.py. This is an application, not library code: it may print
 * and exit. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mcs/mcs_sim.h"
#include "mcs_options_table.h"
#include "mcs_simulate_output.h"

#define CAT2(a, b) a##b
#define CAT(a, b) CAT2(a, b)
#define MODEL CAT(MCS_APP_MODEL, _model)
#define PARAMS_T CAT(MCS_APP_MODEL, _params)
#define DEFAULTS CAT(MCS_APP_MODEL, _default_params)

static mcs_real work[MCS_SIM_WORK_SIZE(MCS_APP_NX, MCS_APP_NC)];
static int iwork[MCS_SIM_IWORK_SIZE(MCS_APP_NX, MCS_APP_NC)];
static mcs_real xbuf[MCS_APP_NX], vbuf[MCS_APP_NX], qbuf[MCS_APP_NX], qdbuf[MCS_APP_NX];
static mcs_real lambuf[MCS_APP_NC > 0 ? MCS_APP_NC : 1];
static int dep_piv[MCS_APP_NC > 0 ? MCS_APP_NC : 1];

/* What the command line asks for beyond mcs_options. */
typedef struct app_args {
    mcs_real t_end, dt_out;
    const char *out_path, *events_path;
} app_args;

static void usage(FILE *out)
{
    size_t k;
    fprintf(out, "usage: simulate [OPTION]...\n");
    for (k = 0; k < SIM_NOPTIONS; ++k) {
        const sim_option *o = &SIM_OPTIONS[k];
        char arg[64];
        if (o->choices)
            snprintf(arg, sizeof arg, " %s", o->choices);
        else if (o->metavar)
            snprintf(arg, sizeof arg, " %s", o->metavar);
        else
            arg[0] = '\0';
        fprintf(out, "  --%s%s\n      %s\n", o->name, arg, o->help);
    }
}

static void die(const char *what, const char *detail)
{
    fprintf(stderr, "simulate: %s%s%s\n", what, detail ? ": " : "", detail ? detail : "");
    exit(2);
}

static double number(const char *text, const char *flag)
{
    char *end;
    double value = strtod(text, &end);
    if (end == text || *end != '\0' || value != value || value - value != 0)
        die("not a finite number for", flag);
    return value;
}

/* Index of `text` in a '|'-separated list of names, or -1. */
static int choice_index(const char *choices, const char *text)
{
    const size_t len = strlen(text);
    int k = 0;
    const char *p = choices;
    for (;;) {
        const char *bar = strchr(p, '|');
        const size_t l = bar ? (size_t)(bar - p) : strlen(p);
        if (l == len && !strncmp(p, text, len))
            return k;
        if (!bar)
            return -1;
        p = bar + 1;
        ++k;
    }
}

static void set_param(const mcs_model *md, PARAMS_T *params, const char *val)
{
    const char *eq = strchr(val, '=');
    int k;
    if (!eq)
        die("--param needs NAME=VALUE, got", val);
    for (k = 0; k < md->np; ++k)
        if (strlen(md->param_names[k]) == (size_t)(eq - val) &&
            !strncmp(md->param_names[k], val, (size_t)(eq - val))) {
            *(mcs_real *)((char *)params + md->param_offsets[k]) = (mcs_real)number(eq + 1, val);
            return;
        }
    die("unknown parameter", val);
}

/* One option of the simulator itself (not an mcs_options field). */
static void set_app_option(const sim_option *o, const char *val, app_args *app, run_info *ri,
                           const mcs_model *md, PARAMS_T *params)
{
    if (!strcmp(o->name, "t-end"))
        app->t_end = (mcs_real)number(val, o->name);
    else if (!strcmp(o->name, "dt-out"))
        app->dt_out = (mcs_real)number(val, o->name);
    else if (!strcmp(o->name, "out"))
        app->out_path = val;
    else if (!strcmp(o->name, "events"))
        app->events_path = val;
    else if (!strcmp(o->name, "param"))
        set_param(md, params, val);
    else if (!strcmp(o->name, "reactions"))
        ri->reactions = 1;
    else if (!strcmp(o->name, "basis"))
        ri->basis = 1;
    else if (!strcmp(o->name, "progress"))
        ri->progress = 1;
    else
        die("internal: option without a target", o->name);
}

static void parse_args(int argc, char **argv, mcs_options *opt, app_args *app, run_info *ri,
                       const mcs_model *md, PARAMS_T *params)
{
    int i;
    for (i = 1; i < argc; ++i) {
        const char *a = argv[i], *val = NULL;
        const sim_option *o = NULL;
        size_t k;
        if (!strcmp(a, "--help")) {
            usage(stdout);
            exit(0);
        }
        for (k = 0; k < SIM_NOPTIONS && !o; ++k)
            if (a[0] == '-' && a[1] == '-' && !strcmp(a + 2, SIM_OPTIONS[k].name))
                o = &SIM_OPTIONS[k];
        if (!o) {
            usage(stderr);
            die("unknown option", a);
        }
        if (o->kind != OPT_FLAG) {
            if (i + 1 >= argc)
                die("missing value after", a);
            val = argv[++i];
        }
        if (o->field < 0) {
            set_app_option(o, val, app, ri, md, params);
        } else if (o->kind == OPT_REAL) {
            *(mcs_real *)((char *)opt + o->field) = (mcs_real)number(val, a);
        } else if (o->kind == OPT_INT) {
            const double x = number(val, a);
            if (x != (double)(int)x)
                die("not an integer for", a);
            *(int *)((char *)opt + o->field) = (int)x;
        } else if (o->kind == OPT_CHOICE) {
            const int c = choice_index(o->choices, val);
            if (c < 0)
                die(!strcmp(o->name, "method") ? "unknown method" : "unknown continuation", val);
            if (!strcmp(o->name, "method"))
                opt->method = (mcs_method)c;
            else
                opt->continuation = (mcs_continuation)c;
        }
    }
}

/* Steps to t_end, recording a row at each step or at exactly t = k dt_out. */
static mcs_status run(mcs_sim *sim, run_info *ri, const mcs_options *opt, mcs_real t_end,
                      mcs_real dt_out)
{
    mcs_status st = MCS_OK;
    if (dt_out > 0) {
        /* rows at exactly t = k dt_out: RK4 steps onto them, DOPRI5 interpolates (dense output) */
        long k = 1;
        mcs_real t_out = dt_out;
        int more = t_out <= t_end * (1 + MCS_R(1e-12));
        if (more && t_out > t_end)
            t_out = t_end;
        while (st == MCS_OK && more) {
            if (opt->method == MCS_METHOD_RK4) {
                while (st == MCS_OK && sim->cur.t < t_out) {
                    st = mcs_sim_step(sim, t_out);
                    output_take_event(ri, sim);
                }
                if (st == MCS_OK)
                    output_record_current(ri, sim);
            } else {
                if (sim->cur.t < t_out) {
                    st = mcs_sim_step(sim, t_end);
                    output_take_event(ri, sim);
                }
                if (st != MCS_OK || t_out > sim->cur.t)
                    continue;
                if (t_out == sim->cur.t) {
                    output_record_current(ri, sim);
                } else {
                    st = mcs_sim_dense(sim, t_out, xbuf, vbuf, qbuf, qdbuf);
                    if (st == MCS_OK) {
                        run_row row;
                        row.t = t_out;
                        row.x = xbuf;
                        row.v = vbuf;
                        row.q = qbuf;
                        row.qd = qdbuf;
                        row.R = sim->probe.R;
                        row.Q = sim->probe.Q;
                        row.rank = sim->probe.r;
                        output_record(ri, sim, &row);
                    }
                }
            }
            ++k;
            t_out = (mcs_real)k * dt_out;
            more = t_out <= t_end * (1 + MCS_R(1e-12));
            if (more && t_out > t_end)
                t_out = t_end;
        }
    } else {
        while (st == MCS_OK && sim->cur.t < t_end) {
            st = mcs_sim_step(sim, t_end);
            output_take_event(ri, sim);
            if (st == MCS_OK)
                output_record_current(ri, sim);
        }
    }
    return st;
}

int main(int argc, char **argv)
{
    const mcs_model *md = &MODEL;
    static PARAMS_T params;
    mcs_options opt;
    mcs_sim sim;
    mcs_assembly asm_rep;
    mcs_status st;
    run_info ri;
    run_summary rs;
    app_args app;
    int i;

    params = DEFAULTS;
    if (mcs_options_default(&opt, md) != MCS_OK)
        die("internal: options", NULL);
    memset(&ri, 0, sizeof ri);
    memset(&app, 0, sizeof app);
    app.t_end = md->t_end;
    app.dt_out = md->dt_out;
    parse_args(argc, argv, &opt, &app, &ri, md, &params);
    if (!(app.t_end > 0) || !(opt.h > 0) || !(opt.rtol > 0) || !(opt.atol > 0) || app.dt_out < 0)
        die("t-end, h, rtol and atol must be positive, dt-out non-negative", NULL);

    if ((st = mcs_sim_init(&sim, md, &params, &opt, work, sizeof work / sizeof *work, iwork,
                           sizeof iwork / sizeof *iwork)) != MCS_OK)
        die("init failed", mcs_status_str(st));
    if ((st = mcs_sim_set_state(&sim, 0, md->x0, md->v0, &asm_rep)) != MCS_OK)
        die("initial conditions", mcs_status_str(st));
    rs.rank0 = sim.cur.r;
    for (i = 0; i < md->nc; ++i)
        dep_piv[i] = sim.cur.piv[i];

    ri.model = md;
    ri.lambda = lambuf;
    ri.q = qbuf;
    ri.qd = qdbuf;
    ri.t0 = 0;
    ri.t_end = app.t_end;
    if (output_open(&ri, app.out_path, app.events_path) != 0)
        die("cannot write", ri.csv || !app.events_path ? app.out_path : app.events_path);
    output_record_current(&ri, &sim);
    st = run(&sim, &ri, &opt, app.t_end, app.dt_out);
    rs.wall_s = (double)(clock() - ri.started) / CLOCKS_PER_SEC;
    output_close(&ri);

    rs.status = st;
    rs.t_end = app.t_end;
    rs.piv0 = dep_piv;
    rs.opt = &opt;
    rs.assembly = &asm_rep;
    output_summary(&ri, &sim, &rs);
    return st == MCS_OK ? 0 : 1;
}
