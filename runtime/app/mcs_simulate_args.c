/* mcs_simulate_args.c - the command-line simulator's options (see mcs_simulate_args.h). */
#include "mcs_simulate_args.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mcs_options_table.h"

const int app_banded_from = SIM_BANDED_FROM;

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

/* The key of NAME (its first `len` characters): a coordinate, or a row group (a joint's lock,
 * a switch's explicit rows); -1 when unknown, -2 for a joint with nothing to lock. */
static int lock_key(const mcs_model *md, const char *name, size_t len)
{
    int k;
    for (k = 0; k < md->nx; ++k)
        if (strlen(md->coord_names[k]) == len && !strncmp(md->coord_names[k], name, len))
            return k;
    for (k = 0; k < md->ngroups; ++k)
        if (strlen(md->groups[k].name) == len && !strncmp(md->groups[k].name, name, len))
            return md->nx + k;
    for (k = 0; k < md->nj; ++k)
        if (strlen(md->joints[k].name) == len && !strncmp(md->joints[k].name, name, len))
            return -2;
    return -1;
}

/* --lock NAME@T / --unlock NAME@T: kept in time order (stable for equal times). */
static void add_event(const mcs_model *md, app_args *app, const char *val, int lock)
{
    const char *at = strchr(val, '@');
    const char *flag = lock ? "--lock" : "--unlock";
    char what[80];
    char *end;
    double t;
    int key;
    if (!at) {
        snprintf(what, sizeof what, "%s needs NAME@T, got", flag);
        die(what, val);
    }
    key = lock_key(md, val, (size_t)(at - val));
    if (key == -2) {
        snprintf(what, sizeof what, "%s: that joint has nothing to lock (fixed or driven)", flag);
        die(what, val);
    }
    if (key < 0) {
        snprintf(what, sizeof what, "%s: unknown coordinate or joint", flag);
        die(what, val);
    }
    t = strtod(at + 1, &end);
    if (end == at + 1 || *end != '\0' || !(t > 0) || t - t != 0) {
        snprintf(what, sizeof what, "%s NAME@T needs a time T > 0 (seconds), got", flag);
        die(what, val);
    }
    add_event_at(app, (mcs_real)t, key, lock);
}

/* --x0 NAME=VALUE / --v0 NAME=VALUE: a coordinate of the initial state, by its name. */
static void add_state_set(const mcs_model *md, app_args *app, const char *val, int rate)
{
    const char *eq = strchr(val, '=');
    const char *flag = rate ? "--v0" : "--x0";
    char what[80];
    char *end;
    double value;
    int j;
    int k;
    if (!eq) {
        snprintf(what, sizeof what, "%s needs COORDINATE=VALUE, got", flag);
        die(what, val);
    }
    for (j = 0; j < md->nx; ++j)
        if (strlen(md->coord_names[j]) == (size_t)(eq - val) &&
            !strncmp(md->coord_names[j], val, (size_t)(eq - val)))
            break;
    if (j == md->nx) {
        snprintf(what, sizeof what, "%s: unknown coordinate (the CSV's x.<name> columns)", flag);
        die(what, val);
    }
    value = strtod(eq + 1, &end);
    if (end == eq + 1 || *end != '\0' || value - value != 0) {
        snprintf(what, sizeof what, "%s COORDINATE=VALUE needs a finite number, got", flag);
        die(what, val);
    }
    for (k = 0; k < app->nsets; ++k)
        if (app->sets[k].j == j && app->sets[k].rate == rate) {
            snprintf(what, sizeof what, "%s: that coordinate is given twice", flag);
            die(what, val);
        }
    if (app->nsets >= MAX_STATE_SETS)
        die("too many --x0 and --v0", val);
    app->sets[app->nsets].j = j;
    app->sets[app->nsets].rate = rate;
    app->sets[app->nsets].value = (mcs_real)value;
    app->nsets++;
}

mcs_status start_state(mcs_sim *sim, const app_args *app, mcs_real *x, mcs_real *v,
                       mcs_assembly *report)
{
    mcs_status st = mcs_sim_start(sim, 0, report);
    int k;
    if (st != MCS_OK || app->nsets == 0)
        return st;
    for (k = 0; k < sim->n; ++k) {
        x[k] = sim->cur.x[k];
        v[k] = sim->cur.v[k];
    }
    for (k = 0; k < app->nsets; ++k)
        (app->sets[k].rate ? v : x)[app->sets[k].j] = app->sets[k].value;
    return mcs_sim_set_state(sim, 0, x, v, report);
}

void add_event_at(app_args *app, mcs_real t, int key, int lock)
{
    app_event ev;
    int k;
    ev.t = t;
    ev.key = key;
    ev.lock = lock;
    if (app->nevents >= MAX_EVENTS)
        die("too many lock and unlock events", NULL);
    for (k = app->nevents; k > 0 && app->events[k - 1].t > ev.t; --k)
        app->events[k] = app->events[k - 1];
    app->events[k] = ev;
    app->nevents++;
}

/* One option of the simulator itself (not an mcs_options field). */
static void set_app_option(const sim_option *o, const char *val, app_args *app, run_info *ri,
                           const mcs_model *md, void *params)
{
    if (!strcmp(o->name, "t-end"))
        app->t_end = (mcs_real)number(val, o->name);
    else if (!strcmp(o->name, "dt-out"))
        app->dt_out = (mcs_real)number(val, o->name);
    else if (!strcmp(o->name, "max-steps")) {
        const double x = number(val, o->name);
        if (!(x >= 1 && x <= 1e15) || x != (double)(long long)x)
            die("--max-steps takes a whole number from 1 to 1e15, got", val);
        app->max_steps = (long)x;
    } else if (!strcmp(o->name, "out"))
        app->out_path = val;
    else if (!strcmp(o->name, "events"))
        app->events_path = val;
    else if (!strcmp(o->name, "inputs"))
        app->inputs_path = val;
    else if (!strcmp(o->name, "param"))
        set_param(md, params, val);
    else if (!strcmp(o->name, "lock"))
        add_event(md, app, val, 1);
    else if (!strcmp(o->name, "unlock"))
        add_event(md, app, val, 0);
    else if (!strcmp(o->name, "x0"))
        add_state_set(md, app, val, 0);
    else if (!strcmp(o->name, "v0"))
        add_state_set(md, app, val, 1);
    else if (!strcmp(o->name, "transition")) {
        const int c = choice_index(o->choices, val);
        if (c < 0)
            die("unknown transition", val);
        app->transition = (mcs_jump_method)c;
    } else if (!strcmp(o->name, "simulator")) {
        const int c = choice_index(o->choices, val);
        if (c < 0)
            die("unknown simulator (auto, dense or banded)", val);
        app->simulator = c;
    } else if (!strcmp(o->name, "reactions"))
        ri->reactions = 1;
    else if (!strcmp(o->name, "basis"))
        ri->basis = 1;
    else if (!strcmp(o->name, "momenta"))
        ri->momenta = 1;
    else if (!strcmp(o->name, "progress"))
        ri->progress = 1;
    else
        die("internal: option without a target", o->name);
}

void parse_args(int argc, char **argv, mcs_options *opt, app_args *app, run_info *ri,
                const mcs_model *md, void *params)
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
