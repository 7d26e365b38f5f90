/* mcs_simulate.c - command-line driver: simulate one generated model, write CSV, print a JSON
 * summary on stdout. Built by `./mcsgen simulate` with
 *   -DMCS_APP_MODEL=<name> -DMCS_APP_NX=<NAME>_NX -DMCS_APP_NC=<NAME>_NC
 *   -DMCS_APP_NGROUPS=<NAME>_NGROUPS -DMCS_APP_GROUP_ROWS=<NAME>_MAX_GROUP_ROWS
 *   -DMCS_APP_NJC=<NAME>_NJC -DMCS_APP_NY=<NAME>_NY -include <name>.h
 * and mcs_simulate_output.c. Its options come from mcs_options_table.h, generated from the one
 * table of generator/mcsgen/options.py. This is an application, not library code: it may print
 * and exit.
 *
 * With -DMCS_APP_LIBRARY (and -shared -fPIC) it is instead a shared library for in-process runs
 * (the Python API, mcsgen.api): mcs_simulate_run takes the same arguments and passes the CSV,
 * the event log and the summary to a callback; errors come back as status 2 and a message. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mcs/mcs_sim.h"
#include "mcs/mcs_stops.h"
#include "mcs_simulate_args.h"
#include "mcs_simulate_inputs.h"
#include "mcs_simulate_output.h"
#include "mcs_simulate_setup.h"

const char *const app_name = "simulate";

#define CAT2(a, b) a##b
#define CAT(a, b) CAT2(a, b)
#define MODEL CAT(MCS_APP_MODEL, _model)
#define PARAMS_T CAT(MCS_APP_MODEL, _params)
#define DEFAULTS CAT(MCS_APP_MODEL, _default_params)

/* room for up to NX lock rows at a time (--lock: a coordinate takes 1, a joint up to 6) */
#define MAX_ROWS (MCS_APP_NC + MCS_APP_NX)
#define MAX_NEW_ROWS (MCS_APP_GROUP_ROWS > 1 ? MCS_APP_GROUP_ROWS : 1)
static mcs_real work[MCS_SIM_WORK_SIZE(MCS_APP_NX, MAX_ROWS)];
static int iwork[MCS_SIM_IWORK_SIZE(MCS_APP_NX, MAX_ROWS)];
static mcs_real jwork[MCS_JUMP_WORK_SIZE(MCS_APP_NX, MAX_ROWS, MAX_NEW_ROWS)];
static int jiwork[MCS_JUMP_IWORK_SIZE(MCS_APP_NX, MAX_ROWS, MAX_NEW_ROWS)];
static mcs_real xbuf[MCS_APP_NX], vbuf[MCS_APP_NX], qbuf[MCS_APP_NX], qdbuf[MCS_APP_NX];
static mcs_real vminus[MCS_APP_NX], dvbuf[MCS_APP_NX], pbefore[MCS_APP_NX], pafter[MCS_APP_NX];
static mcs_real lambuf[MAX_ROWS];
/* the model's end stops and friction (mcs_stops.h); NSTOPS is at least 1 for the arrays' sake */
#define NSTOPS (MCS_APP_NSTOPS > 0 ? MCS_APP_NSTOPS : 1)
static mcs_stops stops;
static mcs_real
    stop_work[MCS_STOPS_WORK_SIZE(MCS_APP_NX, NSTOPS, MCS_APP_NFRICTION, MCS_APP_NJC, MAX_ROWS)];
static int stop_iwork[MCS_STOPS_IWORK_SIZE(NSTOPS, MCS_APP_NFRICTION)];
static app_inputs schedule; /* --inputs (static: an in-process failure closes it) */
static mcs_real wstack[2 * MCS_APP_NX + MAX_ROWS + MCS_APP_NMU + MCS_APP_NU],
    wrench_buf[MCS_APP_NW + 1];
#define KMIN (MCS_APP_NX < MCS_APP_NC ? MCS_APP_NX : MCS_APP_NC)
static mcs_real rdiag_buf[MCS_APP_NX], rdiag_probe[MCS_APP_NX];
static mcs_real *basis_buf; /* (nx x nx) for --basis, malloc'ed by the run that asks */

/* Set by SIGINT (Ctrl-C): the run stops after the step under way, with the rows so far written
 * and the files closed (a valid, partial CSV). */
static volatile sig_atomic_t stop_requested = 0;

static void on_sigint(int sig)
{
    (void)sig;
    stop_requested = 1;
}

/* mcs_sim_step, unless Ctrl-C asked to stop or the run has taken --max-steps steps. */
static mcs_status step_to(mcs_sim *sim, run_info *ri, const mcs_options *opt, mcs_real t_target)
{
    mcs_status st;
    if (stop_requested) {
        ri->interrupted = 1;
        return MCS_ERR_LIMIT;
    }
    if (sim->stats.steps >= opt->max_steps)
        return MCS_ERR_LIMIT;
    st = mcs_sim_step(sim, t_target);
    if (st == MCS_OK)
        output_follow_step(ri, sim);
    return st;
}

static mcs_real pbuf[MCS_APP_NX];
/* the outputs (ny) and their kernel's w = [v; u] (nx + nu) */
static mcs_real ybuf[MCS_APP_NY + 1], ywork[MCS_APP_NX + MCS_APP_NU];
/* the joints' coordinates and rates (2 njc), and the last angles seen (njc) */
static mcs_real jcbuf[2 * MCS_APP_NJC + 1], jlast[MCS_APP_NJC + 1];
static int dep_piv[MCS_APP_NC > 0 ? MCS_APP_NC : 1];

/* The lock key of a switch of the model file: its coordinate, or nx + its row group. */
static int switch_key(const mcs_model *md, int sw)
{
    return md->switches[sw].coordinate >= 0 ? md->switches[sw].coordinate
                                            : md->nx + md->switches[sw].group;
}

/* Rows a lock of this key adds. */
static int key_rows(const mcs_model *md, int key)
{
    return key < md->nx ? 1 : md->groups[key - md->nx].nrows;
}

/* A dense-output row at t inside the last step (the dense variant's: the banded one has no
 * probe frame, and takes no --dt-out with the adaptive methods). */
static mcs_status record_dense(mcs_sim *sim, run_info *ri, mcs_real t)
{
    mcs_status st = mcs_sim_dense(sim, t, xbuf, vbuf, qbuf, qdbuf);
    if (st == MCS_OK) {
        run_row row;
        int i;
        row.t = t;
        row.x = xbuf;
        row.v = vbuf;
        row.q = qbuf;
        row.qd = qdbuf;
        for (i = 0; i < KMIN; ++i) /* the probe's pivoted QR */
            rdiag_probe[i] = mcs_fabs(sim->probe.R[i + i * MCS_APP_NX]);
        row.rdiag = rdiag_probe;
        row.T = &sim->probe.Q[sim->probe.r * MCS_APP_NX];
        row.Q = sim->probe.Q;
        row.rank = sim->probe.r;
        output_record(ri, sim, &row);
    }
    return st;
}

/* A lock or unlock at the current time: the state before and after are both recorded. */
static mcs_status transition(mcs_sim *sim, run_info *ri, const app_args *app, const app_event *ev,
                             int before_recorded)
{
    mcs_transition tr;
    mcs_status st;
    int i;
    if (!before_recorded)
        output_record_current(ri, sim);
    for (i = 0; i < sim->n; ++i) {
        vminus[i] = sim->cur.v[i];
        dvbuf[i] = 0;
    }
    if (ev->lock && ev->key >= sim->n) /* a row group: a joint's lock, a switch's rows */
        st = mcs_sim_lock_group(sim, ev->key, ev->key - sim->n, app->transition, dvbuf, jwork,
                                sizeof jwork / sizeof *jwork, jiwork,
                                sizeof jiwork / sizeof *jiwork, &tr);
    else if (ev->lock)
        st = mcs_sim_lock(sim, ev->key, app->transition, dvbuf, jwork, sizeof jwork / sizeof *jwork,
                          jiwork, sizeof jiwork / sizeof *jiwork, &tr);
    else
        st = mcs_sim_unlock(sim, ev->key, &tr);
    if (st != MCS_OK)
        return st;
    /* generalized momenta of the directions free after the event, before and after it */
    if ((st = mcs_sim_momenta(sim, vminus, pbefore)) != MCS_OK ||
        (st = mcs_sim_momenta(sim, sim->cur.v, pafter)) != MCS_OK)
        return st;
    output_transition(ri, sim, &tr, dvbuf, pbefore, pafter);
    output_record_current(ri, sim);
    return MCS_OK;
}

/* The condition event that fires first inside the step just taken (prev.t .. cur.t), located
 * on the dense output (Illinois method, to 1e-12 s relative), or -1; *t_event its time. */
static int first_condition(mcs_sim *sim, const run_info *ri, const app_args *app, mcs_real *t_event)
{
    const mcs_model *md = ri->model;
    const mcs_real t0 = sim->prev.t, t1 = sim->cur.t;
    int k, best = -1;
    *t_event = t1;
    if (!(sim->h_last > 0))
        return -1;
    for (k = 0; k < app->nconds; ++k) {
        const mcs_switch_event *e = &md->events[app->conds[k]];
        mcs_real a = t0, b = t1, fa, fb;
        int it;
        if (app->fired[k])
            continue;
        fa = e->condition(sim->prev.x, sim->prev.v, t0, sim->params);
        fb = e->condition(sim->cur.x, sim->cur.v, t1, sim->params);
        if (!((e->direction >= 0 && fa < 0 && fb >= 0) || (e->direction <= 0 && fa > 0 && fb <= 0)))
            continue;
        for (it = 0; it < 200 && fb != 0 && b - a > MCS_R(1e-12) * (1 + mcs_fabs(b)); ++it) {
            mcs_real c = b - fb * (b - a) / (fb - fa), fc;
            if (!(c > a && c < b))
                c = (a + b) / 2;
            if (mcs_sim_dense(sim, c, xbuf, vbuf, NULL, NULL) != MCS_OK)
                break;
            fc = e->condition(xbuf, vbuf, c, sim->params);
            if ((fc < 0) == (fb < 0) && fc != 0) {
                fa /= 2; /* Illinois: keep the bracket, halve the stale end */
            } else {
                a = b;
                fa = fb;
            }
            b = c;
            fb = fc;
            if (a > b) { /* keep a < b */
                mcs_real tt = a, ft = fa;
                a = b;
                fa = fb;
                b = tt;
                fb = ft;
            }
        }
        if (best < 0 || b < *t_event) {
            best = k;
            *t_event = fabs((double)fa) < fabs((double)fb) ? a : b;
        }
    }
    return best;
}

/* Whether rows at dt-out are steps of their own: an explicit method on a fixed grid (RK4) steps
 * onto them; an adaptive method, and an implicit one (whose step onto an off-grid row would
 * cost a Jacobian and an LU of its own), interpolates them. */
static int steps_onto_rows(const mcs_options *opt)
{
    return !(mcs_method_flags(opt->method) & (MCS_METHOD_FLAG_ADAPTIVE | MCS_METHOD_FLAG_IMPLICIT));
}

/* After a step: if a condition event fired inside it, the rows due before it (DOPRI5 with dt_out)
 * are written, the state is set back to the event and the switch applied there. 1 when one
 * fired (its status in *st). */
static int fire_conditions(mcs_sim *sim, run_info *ri, app_args *app, const mcs_options *opt,
                           mcs_real dt_out, long *k_out, mcs_status *st)
{
    const mcs_model *md = ri->model;
    mcs_real t_e;
    int i;
    const int k = first_condition(sim, ri, app, &t_e);
    app_event ev;
    mcs_stop_event sev;
    sev.kind = MCS_STOP_EVENT_NONE;
    if (stops.nstops > 0 || stops.nfriction > 0) {
        *st = mcs_stops_locate(&stops, sim, &sev);
        if (*st != MCS_OK)
            return 1;
        if (sev.kind != MCS_STOP_EVENT_NONE && (k < 0 || sev.t <= t_e))
            t_e = sev.t; /* the stop first */
        else
            sev.kind = MCS_STOP_EVENT_NONE;
    }
    if (k < 0 && sev.kind == MCS_STOP_EVENT_NONE)
        return 0;
    if (dt_out > 0 && !steps_onto_rows(opt))
        while (*st == MCS_OK && (mcs_real)*k_out * dt_out < t_e)
            *st = record_dense(sim, ri, (mcs_real)(*k_out)++ * dt_out);
    if (*st == MCS_OK && t_e < sim->cur.t)
        *st = mcs_sim_dense(sim, t_e, xbuf, vbuf, NULL, NULL);
    if (*st != MCS_OK)
        return 1;
    if (t_e < sim->cur.t) {
        ri->end_pending = 0; /* the step's end is not kept: the run goes on from t_e */
        *st = mcs_sim_restart(sim, t_e, xbuf, vbuf);
        if (*st != MCS_OK)
            return 1;
    }
    if (sev.kind != MCS_STOP_EVENT_NONE) {
        output_record_current(ri, sim);
        for (i = 0; i < sim->n; ++i)
            dvbuf[i] = 0;
        *st = mcs_stops_apply(&stops, sim, &sev, app->transition, dvbuf, jwork,
                              sizeof jwork / sizeof *jwork, jiwork, sizeof jiwork / sizeof *jiwork);
        if (*st != MCS_OK)
            return 1;
        output_stop(ri, sim, &sev);
        output_record_current(ri, sim);
        return 1;
    }
    app->fired[k] = 1;
    ev.t = t_e;
    ev.key = switch_key(md, md->events[app->conds[k]].sw);
    ev.lock = md->events[app->conds[k]].activate;
    *st = transition(sim, ri, app, &ev, 0);
    return 1;
}

/* Steps from the current time to t_stop, recording a row at each step or at exactly t = k dt_out
 * (*k_out: the next output index), with the condition events on the way. */
static mcs_status run_to(mcs_sim *sim, run_info *ri, app_args *app, const mcs_options *opt,
                         mcs_real t_stop, mcs_real dt_out, long *k_out)
{
    mcs_status st = MCS_OK;
    if (dt_out > 0) {
        /* rows at exactly t = k dt_out: an explicit fixed-step method (RK4) steps onto them, the
         * others interpolate (dense output) */
        for (;;) {
            mcs_real t_out = (mcs_real)*k_out * dt_out;
            if (st != MCS_OK || !(t_out <= t_stop * (1 + MCS_R(1e-12))))
                break;
            if (t_out > t_stop)
                t_out = t_stop;
            if (steps_onto_rows(opt)) {
                while (st == MCS_OK && sim->cur.t < t_out) {
                    st = step_to(sim, ri, opt, t_out);
                    output_take_event(ri, sim);
                    if (st == MCS_OK)
                        fire_conditions(sim, ri, app, opt, dt_out, k_out, &st);
                }
                if (st == MCS_OK)
                    output_record_current(ri, sim);
            } else {
                if (sim->cur.t < t_out) {
                    st = step_to(sim, ri, opt, t_stop);
                    output_take_event(ri, sim);
                    if (st == MCS_OK && fire_conditions(sim, ri, app, opt, dt_out, k_out, &st))
                        continue;
                }
                if (st != MCS_OK || t_out > sim->cur.t)
                    continue;
                if (t_out == sim->cur.t)
                    output_record_current(ri, sim);
                else
                    st = record_dense(sim, ri, t_out);
            }
            ++*k_out;
        }
        /* the rest of the segment, past the last output time */
        while (st == MCS_OK && sim->cur.t < t_stop) {
            st = step_to(sim, ri, opt, t_stop);
            output_take_event(ri, sim);
            if (st == MCS_OK)
                fire_conditions(sim, ri, app, opt, dt_out, k_out, &st);
        }
    } else {
        while (st == MCS_OK && sim->cur.t < t_stop) {
            st = step_to(sim, ri, opt, t_stop);
            output_take_event(ri, sim);
            if (st == MCS_OK && !fire_conditions(sim, ri, app, opt, dt_out, k_out, &st))
                output_record_current(ri, sim);
        }
    }
    return st;
}

/* The run: segments between the transitions and the input changes (--inputs), each at its exact
 * time (a step never crosses one). */
static mcs_status run(mcs_sim *sim, run_info *ri, const mcs_options *opt, app_args *app)
{
    mcs_status st = MCS_OK;
    long k_out = 1;
    int e = 0;
    while (st == MCS_OK) {
        const app_event *ev = (e < app->nevents) ? &app->events[e] : NULL;
        const mcs_real t_in = inputs_next_time(&schedule);
        int rows_before;
        if (t_in <= app->t_end && (!ev || t_in < ev->t)) { /* the inputs change first */
            st = run_to(sim, ri, app, opt, t_in, app->dt_out, &k_out);
            if (st == MCS_OK)
                st = inputs_apply(&schedule, sim, sim->cur.t);
            continue;
        }
        if (!ev || ev->t > app->t_end)
            break;
        ++e;
        rows_before = ri->rows;
        st = run_to(sim, ri, app, opt, ev->t, app->dt_out, &k_out);
        if (st == MCS_OK) /* a row at the event time was recorded if the last step wrote one */
            st = transition(sim, ri, app, ev, ri->rows > rows_before && ri->last_t == sim->cur.t);
    }
    if (st == MCS_OK)
        st = run_to(sim, ri, app, opt, app->t_end, app->dt_out, &k_out);
    return st;
}

/* Text buffers of the in-process streams (CSV, event log, summary). */
#define STREAM_CAP 65536
static char stream_buffers[3][STREAM_CAP];

/* The program: the run argv asks for. fn NULL: the command line (files, stdout); else every
 * output goes to fn (in-process: no file is written, --out and --events are refused). Returns
 * the exit status: 0 done, 1 stopped by a failure (the summary says which), 130 interrupted. */
static int simulate_main(int argc, char **argv, app_text_fn fn, void *ctx)
{
    char *const buffers[3] = {stream_buffers[0], stream_buffers[1], stream_buffers[2]};
    void (*previous_sigint)(int);
    const mcs_model *md = &MODEL;
    static PARAMS_T params;
    mcs_options opt;
    mcs_sim sim;
    mcs_assembly asm_rep;
    mcs_status st;
    run_info ri;
    run_summary rs;
    app_args app;
    int i, ok;

    params = DEFAULTS;
    rs.blas_threads = app_pin_blas_threads();
    if (mcs_options_default(&opt, md) != MCS_OK)
        die("internal: options", NULL);
    opt.max_locks = md->nx; /* the static workspace has room for nx lock rows (MAX_ROWS) */
    memset(&ri, 0, sizeof ri);
    memset(&app, 0, sizeof app);
    app.transition = MCS_JUMP_MINIMAL;
    for (i = 0; i < md->nevents; ++i) { /* the mechanism file's; --lock/--unlock add more */
        if (md->events[i].condition)
            app.conds[app.nconds++] = i;
        else
            add_event_at(&app, md->events[i].t, switch_key(md, md->events[i].sw),
                         md->events[i].activate);
    }
    app.t_end = md->t_end;
    app.dt_out = md->dt_out;
    app.max_steps = 1000000L; /* options.py "max-steps": bounds the CSV too (about 100 MB) */
    parse_args(argc, argv, &opt, &app, &ri, md, &params);
    inputs_open(&schedule, app.inputs_path, md); /* checked whole before any output */
    if (fn && (app.out_path || app.events_path))
        die("an in-process run writes no file: --out and --events are for the command line",
            app.out_path ? app.out_path : app.events_path);
    require(app.t_end > 0 && app.t_end <= MCS_R(1e30), "t-end", "a number > 0", (double)app.t_end);
    require(opt.h > 0, "h", "a number > 0", (double)opt.h);
    require(opt.rtol > 0 && opt.rtol < 1, "rtol", "a number in (0, 1)", (double)opt.rtol);
    require(opt.atol > 0, "atol", "a number > 0", (double)opt.atol);
    require(app.dt_out >= 0, "dt-out", "a number >= 0", (double)app.dt_out);
    if (opt.h > app.t_end) /* a step longer than the run is the run */
        opt.h = app.t_end;
    opt.max_steps = app.max_steps;
    check_run_size(&app, &opt);
    {
        /* every unlock releases a lock made before it; at most nx lock rows at a time (this
         * check sees the timed events; a condition event beyond the room fails at its time) */
        int locked[MCS_APP_NX + MCS_APP_NGROUPS] = {0}, k, rows = 0;
        for (k = 0; k < app.nevents; ++k) {
            const app_event *ev = &app.events[k];
            if (!ev->lock && locked[ev->key] == 0)
                die("--unlock of something not locked at that time", lock_name(md, ev->key));
            locked[ev->key] += ev->lock ? 1 : -1;
            rows += ev->lock ? key_rows(md, ev->key) : -key_rows(md, ev->key);
            if (rows > md->nx)
                die("--lock: more lock rows at a time than coordinates", lock_name(md, ev->key));
        }
    }

    setup_simulator(&sim, md, &params, &opt, &app, work, sizeof work / sizeof *work, iwork,
                    sizeof iwork / sizeof *iwork);
    ri.simulator = mcs_variant_name(opt.variant);
    if ((st = start_state(&sim, &app, xbuf, vbuf, &asm_rep)) != MCS_OK)
        die("initial conditions", mcs_status_str(st));
    if ((st = inputs_apply(&schedule, &sim, sim.cur.t)) != MCS_OK) /* the rows at t <= 0 */
        die("--inputs", mcs_status_str(st));
    if ((st = mcs_stops_init(&stops, &sim, stop_work, sizeof stop_work / sizeof *stop_work,
                             stop_iwork, sizeof stop_iwork / sizeof *stop_iwork)) != MCS_OK)
        die("stops", mcs_status_str(st));
    if ((i = mcs_stops_violated(&stops, &sim)) >= 0) {
        mcs_real q = 0, r = 0;
        static char why[160];
        (void)mcs_stops_coordinate(&stops, &sim, i, sim.cur.t, sim.cur.x, sim.cur.v, &q, &r);
        snprintf(why, sizeof why, "the initial %s = %.9g is beyond its limits", md->stops[i].name,
                 (double)q);
        die("stops", why);
    }
    if ((st = mcs_stops_begin(&stops, &sim, app.transition, dvbuf, jwork,
                              sizeof jwork / sizeof *jwork, jiwork,
                              sizeof jiwork / sizeof *jiwork)) != MCS_OK)
        die("friction at the start", mcs_status_str(st));
    ri.stops = &stops;
    rs.rank0 = sim.cur.r;
    for (i = 0; i < md->nc; ++i) /* a banded run's rows all count (it keeps their full rank) */
        dep_piv[i] = sim.cur.piv ? sim.cur.piv[i] : i;

    ri.model = md;
    ri.driven = (app.inputs_path != NULL && md->nu > 0);
    ri.lambda = lambuf;
    ri.wstack = wstack;
    ri.wrench = wrench_buf;
    ri.Pbuf = pbuf;
    ri.jc = jcbuf;
    ri.y = ybuf;
    ri.ywork = ywork;
    ri.jlast = jlast;
    ri.q = qbuf;
    ri.qd = qdbuf;
    ri.rdiag = rdiag_buf;
    free(basis_buf); /* an earlier in-process run's */
    basis_buf = ri.basis ? malloc(sizeof(mcs_real) * MCS_APP_NX * MCS_APP_NX) : NULL;
    if (ri.basis && !basis_buf)
        die("--basis: out of memory", NULL);
    ri.T = basis_buf;
    ri.t0 = 0;
    ri.t_end = app.t_end;
    switch (output_open(&ri, app.out_path, app.events_path, fn, ctx, buffers, STREAM_CAP)) {
    case -1: die("cannot write", app.out_path); break;
    case -2: die("cannot write", app.events_path); break;
    default: break;
    }
    output_record_current(&ri, &sim);
    stop_requested = 0;
    previous_sigint = signal(SIGINT, on_sigint); /* in-process: the caller's handler returns */
    st = run(&sim, &ri, &opt, &app);
    inputs_close(&schedule);
    (void)signal(SIGINT, previous_sigint == SIG_ERR ? SIG_DFL : previous_sigint);
    rs.wall_s = (double)(clock() - ri.started) / CLOCKS_PER_SEC;
    switch (output_close(&ri)) {
    case -1: die("cannot write (the data is incomplete)", app.out_path); break;
    case -2: die("cannot write (the data is incomplete)", app.events_path); break;
    default: break;
    }

    ri.friction_work = mcs_stops_friction_work(&stops, sim.cur.x);
    if (st == MCS_OK) /* a call of the output failed: the run's data is not what it says */
        st = ri.output_status;
    rs.status = st;
    rs.t_end = app.t_end;
    rs.piv0 = dep_piv;
    rs.opt = &opt;
    rs.assembly = &asm_rep;
    ok = output_summary(&ri, &sim, &rs);
    return ri.interrupted ? 130 : (ok ? 0 : 1);
}

#ifndef MCS_APP_LIBRARY
int main(int argc, char **argv)
{
    return simulate_main(argc, argv, NULL, NULL);
}
#else
/* The in-process run of the command line argv (argv[0] is the program's name, unused): the
 * CSV, the event log and the JSON summary go to fn, piece by piece, on channels 0, 1 and 2.
 * Returns the exit status the program would have: 0, 1 or 130 (see simulate_main), or 2 with
 * the message of a refused argument in error (error_len characters at most). One run at a time
 * (the workspace is static). */
int mcs_simulate_run(int argc, char **argv, app_text_fn fn, void *ctx, char *error,
                     size_t error_len);
int mcs_simulate_run(int argc, char **argv, app_text_fn fn, void *ctx, char *error,
                     size_t error_len)
{
    static jmp_buf jump;
    int status;
    if (!fn || !argv || argc < 1)
        return 2;
    if (setjmp(jump) != 0) {
        die_catch(NULL);
        inputs_close(&schedule);
        if (error && error_len > 0)
            snprintf(error, error_len, "%s", die_message());
        return 2;
    }
    die_catch(&jump);
    status = simulate_main(argc, argv, fn, ctx);
    die_catch(NULL);
    return status;
}

/* Stop the run under way after its current step, as Ctrl-C does (its status is then 130): for
 * a caller's own time limit on a run (mcsgen.sweep's per-run timeout), from another thread. A
 * call before a run starts is forgotten when it starts. */
void mcs_simulate_stop(void);
void mcs_simulate_stop(void)
{
    stop_requested = 1;
}
#endif
