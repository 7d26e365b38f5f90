/* mcs_simulate.c - command-line driver: simulate one generated model, write CSV, print a JSON
 * summary on stdout. Built by `./mcsgen simulate` with
 *   -DMCS_APP_MODEL=<name> -DMCS_APP_NX=<NAME>_NX -DMCS_APP_NC=<NAME>_NC -include <name>.h
 * This is an application, not library code: it may print and exit. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mcs/mcs_sim.h"

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

typedef struct run_info {
    FILE *csv;
    FILE *events;
    int nevents;
    const mcs_model *model;
    mcs_real e0, kin_max, e_dev_max, c_max;
    int has_energy, rank_min, rank_max, rows, progress, reactions, basis;
    mcs_status reaction_status;
    mcs_real t0, t_end;
    clock_t started;
    int bar_shown;
} run_info;

static void usage(FILE *out)
{
    fprintf(out,
            "usage: simulate [--t-end T] [--h H] [--method rk4|dopri5] [--rtol R] [--atol A]\n"
            "                [--continuation exp|euler|none|off] [--dt-out D] [--out FILE.csv]\n"
            "                [--param NAME=VALUE]... [--reactions] [--basis] [--events FILE.json]\n"
            "                [--sing-tol S] [--sing-watch W] [--chart-tol C] [--progress]\n");
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

static void progress(run_info *ri, mcs_real t)
{
    const double elapsed = (double)(clock() - ri->started) / CLOCKS_PER_SEC;
    const double frac = ri->t_end > ri->t0 ? (double)((t - ri->t0) / (ri->t_end - ri->t0)) : 1.0;
    static int last = -1;
    int pct = (int)(frac * 100.0);
    if (!ri->progress || elapsed < 1.0 || pct == last)
        return;
    last = pct;
    {
        int i, filled = pct * 30 / 100;
        fprintf(stderr, "\r  simulating [");
        for (i = 0; i < 30; ++i)
            fputc(i < filled ? '#' : '.', stderr);
        fprintf(stderr, "] %3d%%  t = %.3f", pct, (double)t);
        fflush(stderr);
        ri->bar_shown = 1;
    }
}

static void record(run_info *ri, mcs_sim *sim, mcs_real t, const mcs_real *x, const mcs_real *v,
                   const mcs_real *q, const mcs_real *qd, int rank, const mcs_real *R,
                   const mcs_real *Q)
{
    const mcs_model *md = ri->model;
    const int n = md->nx, f = n - rank;
    mcs_real kin = 0, pot = 0, cn = 0;
    int i;
    {
        /* energy and residual of (x, v), evaluated through the model's kernels */
        kin = md->kinetic(x, v, t, sim->params);
        pot = md->potential ? md->potential(x, t, sim->params) : 0;
#if MCS_APP_NC > 0
        {
            mcs_real c[MCS_APP_NC];
            md->c(x, t, sim->params, c);
            for (i = 0; i < md->nc; ++i)
                if (MCS_FN(fabs)(c[i]) > cn)
                    cn = MCS_FN(fabs)(c[i]);
        }
#endif
    }
    if (ri->rows == 0)
        ri->e0 = kin + pot;
    if (kin > ri->kin_max)
        ri->kin_max = kin;
    if (MCS_FN(fabs)(kin + pot - ri->e0) > ri->e_dev_max)
        ri->e_dev_max = MCS_FN(fabs)(kin + pot - ri->e0);
    if (cn > ri->c_max)
        ri->c_max = cn;
    if (rank < ri->rank_min)
        ri->rank_min = rank;
    if (rank > ri->rank_max)
        ri->rank_max = rank;
    ri->rows++;
    if (ri->csv) {
        fprintf(ri->csv, "%.17g", (double)t);
        for (i = 0; i < n; ++i)
            fprintf(ri->csv, ",%.17g", (double)x[i]);
        for (i = 0; i < n; ++i)
            fprintf(ri->csv, ",%.17g", (double)v[i]);
        for (i = 0; i < n; ++i)
            fprintf(ri->csv, i < f ? ",%.17g" : ",", i < f ? (double)q[i] : 0.0);
        for (i = 0; i < n; ++i)
            fprintf(ri->csv, i < f ? ",%.17g" : ",", i < f ? (double)qd[i] : 0.0);
        fprintf(ri->csv, ",%.17g,%d", (double)cn, rank);
        for (i = 0; i < (n < md->nc ? n : md->nc); ++i)
            fprintf(ri->csv, ",%.17g", (double)MCS_FN(fabs)(R[i + i * n]));
        if (ri->has_energy)
            fprintf(ri->csv, ",%.17g", (double)(kin + pot));
        if (ri->basis) { /* T = Q[:, rank:], column by column; empty cells past f */
            int j;
            for (j = 0; j < n; ++j)
                for (i = 0; i < n; ++i) {
                    if (j < f)
                        fprintf(ri->csv, ",%.17g", (double)Q[i + (rank + j) * n]);
                    else
                        fputc(',', ri->csv);
                }
        }
        if (ri->reactions && md->nc > 0) {
            mcs_status st = mcs_sim_multipliers(sim, t, x, v, lambuf);
            if (st != MCS_OK && ri->reaction_status == MCS_OK)
                ri->reaction_status = st;
            for (i = 0; i < md->nc; ++i)
                fprintf(ri->csv, ",%.17g", st == MCS_OK ? (double)lambuf[i] : (double)NAN);
        }
        fputc('\n', ri->csv);
    }
    progress(ri, t);
}

static void record_current(run_info *ri, mcs_sim *sim)
{
    (void)mcs_sim_minimal(sim, qbuf, qdbuf); /* cannot fail: valid arguments */
    record(ri, sim, sim->cur.t, sim->cur.x, sim->cur.v, qbuf, qdbuf, sim->cur.r, sim->cur.R,
           sim->cur.Q);
}

/* One event as a JSON object (a list item of the --events file). */
static void write_event(run_info *ri, const mcs_sim *sim)
{
    const mcs_event *ev = &sim->event;
    const mcs_model *md = ri->model;
    const int n = md->nx;
    int i, j;
    FILE *o = ri->events;
    if (!o)
        return;
    fprintf(o, "%s\n  {\"t\": %.17g, \"sigma\": %.17g, \"rank_before\": %d, \"rank_after\": %d,",
            ri->nevents ? "," : "", (double)ev->t, (double)ev->sigma, ev->rank_before,
            ev->rank_after);
    fprintf(o, "\n   \"rdiag\": [");
    for (i = 0; i < ev->nrdiag; ++i)
        fprintf(o, "%s%.17g", i ? ", " : "", (double)ev->rdiag[i]);
    fprintf(o, "],\n   \"x\": {");
    for (i = 0; i < n; ++i)
        fprintf(o, "%s\"%s\": %.17g", i ? ", " : "", md->coord_names[i], (double)ev->x[i]);
    fprintf(o, "},\n   \"continued\": [");
    for (j = 0; j < n - ev->rank_before; ++j) {
        fprintf(o, "%s{", j ? ", " : "");
        for (i = 0; i < n; ++i)
            fprintf(o, "%s\"%s\": %.17g", i ? ", " : "", md->coord_names[i],
                    (double)ev->continued[i + j * n]);
        fprintf(o, "}");
    }
    fprintf(o, "],\n   \"motions\": [");
    for (j = 0; j < ev->nmotions; ++j) {
        fprintf(o, "%s{", j ? ", " : "");
        for (i = 0; i < n; ++i)
            fprintf(o, "%s\"%s\": %.17g", i ? ", " : "", md->coord_names[i],
                    (double)ev->motions[i + j * n]);
        fprintf(o, "}");
    }
    fprintf(o, "]}");
    ri->nevents++;
}

static void take_event(run_info *ri, mcs_sim *sim)
{
    if (sim->event_ready) {
        write_event(ri, sim);
        sim->event_ready = 0;
    }
}

static void json_string(const char *s)
{
    putchar('"');
    for (; *s; ++s) {
        if (*s == '"' || *s == '\\')
            putchar('\\');
        putchar(*s);
    }
    putchar('"');
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
    const char *out_path = NULL, *events_path = NULL, *method_names[] = {"rk4", "dopri5"},
               *cont_names[] = {"exp", "euler", "none", "off"};
    mcs_real t_end, dt_out;
    int i, rank0;
    double wall;

    params = DEFAULTS;
    mcs_options_default(&opt, md);
    t_end = md->t_end;
    dt_out = md->dt_out;
    memset(&ri, 0, sizeof ri);
    for (i = 1; i < argc; ++i) {
        const char *a = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--help")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(a, "--progress")) {
            ri.progress = 1;
            continue;
        } else if (!strcmp(a, "--reactions")) {
            ri.reactions = 1;
            continue;
        } else if (!strcmp(a, "--basis")) {
            ri.basis = 1;
            continue;
        }
        if (!val)
            die("missing value after", a);
        ++i;
        if (!strcmp(a, "--t-end"))
            t_end = (mcs_real)number(val, a);
        else if (!strcmp(a, "--h"))
            opt.h = (mcs_real)number(val, a);
        else if (!strcmp(a, "--rtol"))
            opt.rtol = (mcs_real)number(val, a);
        else if (!strcmp(a, "--atol"))
            opt.atol = (mcs_real)number(val, a);
        else if (!strcmp(a, "--dt-out"))
            dt_out = (mcs_real)number(val, a);
        else if (!strcmp(a, "--rank-tol"))
            opt.rank_tol = (mcs_real)number(val, a);
        else if (!strcmp(a, "--out"))
            out_path = val;
        else if (!strcmp(a, "--events"))
            events_path = val;
        else if (!strcmp(a, "--sing-tol"))
            opt.sing_tol = (mcs_real)number(val, a);
        else if (!strcmp(a, "--sing-watch"))
            opt.sing_watch = (mcs_real)number(val, a);
        else if (!strcmp(a, "--chart-tol"))
            opt.chart_tol = (mcs_real)number(val, a);
        else if (!strcmp(a, "--method")) {
            if (!strcmp(val, "rk4"))
                opt.method = MCS_METHOD_RK4;
            else if (!strcmp(val, "dopri5"))
                opt.method = MCS_METHOD_DOPRI5;
            else
                die("unknown method", val);
        } else if (!strcmp(a, "--continuation")) {
            int k, found = 0;
            for (k = 0; k < 4; ++k)
                if (!strcmp(val, cont_names[k])) {
                    opt.continuation = (mcs_continuation)k;
                    found = 1;
                }
            if (!found)
                die("unknown continuation", val);
        } else if (!strcmp(a, "--param")) {
            const char *eq = strchr(val, '=');
            int k, found = 0;
            if (!eq)
                die("--param needs NAME=VALUE, got", val);
            for (k = 0; k < md->np; ++k)
                if (strlen(md->param_names[k]) == (size_t)(eq - val) &&
                    !strncmp(md->param_names[k], val, (size_t)(eq - val))) {
                    *(mcs_real *)((char *)&params + md->param_offsets[k]) =
                        (mcs_real)number(eq + 1, val);
                    found = 1;
                }
            if (!found)
                die("unknown parameter", val);
        } else {
            usage(stderr);
            die("unknown option", a);
        }
    }
    if (!(t_end > 0) || !(opt.h > 0) || !(opt.rtol > 0) || !(opt.atol > 0) || dt_out < 0)
        die("t-end, h, rtol and atol must be positive, dt-out non-negative", NULL);

    if ((st = mcs_sim_init(&sim, md, &params, &opt, work, sizeof work / sizeof *work, iwork,
                           sizeof iwork / sizeof *iwork)) != MCS_OK)
        die("init failed", mcs_status_str(st));
    if ((st = mcs_sim_set_state(&sim, 0, md->x0, md->v0, &asm_rep)) != MCS_OK)
        die("initial conditions", mcs_status_str(st));
    rank0 = sim.cur.r;
    for (i = 0; i < md->nc; ++i)
        dep_piv[i] = sim.cur.piv[i];

    if (out_path) {
        ri.csv = fopen(out_path, "w");
        if (!ri.csv)
            die("cannot write", out_path);
        fprintf(ri.csv, "t");
        for (i = 0; i < md->nx; ++i)
            fprintf(ri.csv, ",x.%s", md->coord_names[i]);
        for (i = 0; i < md->nx; ++i)
            fprintf(ri.csv, ",v.%s", md->coord_names[i]);
        for (i = 0; i < md->nx; ++i)
            fprintf(ri.csv, ",q%d", i + 1);
        for (i = 0; i < md->nx; ++i)
            fprintf(ri.csv, ",qd%d", i + 1);
        fprintf(ri.csv, ",c_norm,rank");
        for (i = 0; i < (md->nx < md->nc ? md->nx : md->nc); ++i)
            fprintf(ri.csv, ",rdiag%d", i + 1);
        fprintf(ri.csv, "%s", md->potential ? ",energy" : "");
        if (ri.basis) {
            int j;
            for (j = 0; j < md->nx; ++j)
                for (i = 0; i < md->nx; ++i)
                    fprintf(ri.csv, ",T%d.%s", j + 1, md->coord_names[i]);
        }
        if (ri.reactions)
            for (i = 0; i < md->nc; ++i)
                fprintf(ri.csv, ",lam.%s", md->constraint_names[i]);
        fputc('\n', ri.csv);
    }
    ri.model = md;
    if (events_path) {
        ri.events = fopen(events_path, "w");
        if (!ri.events)
            die("cannot write", events_path);
        fprintf(ri.events, "[");
    }
    ri.has_energy = md->potential != NULL;
    ri.rank_min = md->nx + md->nc;
    ri.rank_max = -1;
    ri.t0 = 0;
    ri.t_end = t_end;
    ri.started = clock();

    record_current(&ri, &sim);
    st = MCS_OK;
    if (dt_out > 0) {
        /* rows at exactly t = k dt_out: RK4 steps onto them, DOPRI5 interpolates (dense output) */
        long k = 1;
        mcs_real t_out = dt_out;
        int more = t_out <= t_end * (1 + MCS_R(1e-12));
        if (more && t_out > t_end)
            t_out = t_end;
        while (st == MCS_OK && more) {
            if (opt.method == MCS_METHOD_RK4) {
                while (st == MCS_OK && sim.cur.t < t_out) {
                    st = mcs_sim_step(&sim, t_out);
                    take_event(&ri, &sim);
                }
                if (st == MCS_OK)
                    record_current(&ri, &sim);
            } else {
                if (sim.cur.t < t_out) {
                    st = mcs_sim_step(&sim, t_end);
                    take_event(&ri, &sim);
                }
                if (st != MCS_OK || t_out > sim.cur.t)
                    continue;
                if (t_out == sim.cur.t) {
                    record_current(&ri, &sim);
                } else {
                    st = mcs_sim_dense(&sim, t_out, xbuf, vbuf, qbuf, qdbuf);
                    if (st == MCS_OK)
                        record(&ri, &sim, t_out, xbuf, vbuf, qbuf, qdbuf, sim.probe.r,
                               sim.probe.R, sim.probe.Q);
                }
            }
            ++k;
            t_out = (mcs_real)k * dt_out;
            more = t_out <= t_end * (1 + MCS_R(1e-12));
            if (more && t_out > t_end)
                t_out = t_end;
        }
    } else {
        while (st == MCS_OK && sim.cur.t < t_end) {
            st = mcs_sim_step(&sim, t_end);
            take_event(&ri, &sim);
            if (st == MCS_OK)
                record_current(&ri, &sim);
        }
    }
    wall = (double)(clock() - ri.started) / CLOCKS_PER_SEC;
    if (ri.bar_shown)
        fprintf(stderr, "\n");
    if (ri.csv)
        fclose(ri.csv);
    if (ri.events) {
        fprintf(ri.events, "%s]\n", ri.nevents ? "\n" : "");
        fclose(ri.events);
    }

    printf("{\"model\": ");
    json_string(md->name);
    printf(", \"status\": ");
    json_string(mcs_status_str(st));
    printf(", \"ok\": %s, \"t_reached\": %.17g, \"t_end\": %.17g", st == MCS_OK ? "true" : "false",
           (double)sim.cur.t, (double)t_end);
    printf(", \"method\": \"%s\", \"continuation\": \"%s\", \"h\": %.17g, \"rtol\": %.17g, "
           "\"atol\": %.17g",
           method_names[opt.method], cont_names[opt.continuation], (double)opt.h,
           (double)opt.rtol, (double)opt.atol);
    printf(", \"n\": %d, \"m\": %d, \"rank\": %d, \"dof\": %d, \"rank_min\": %d, \"rank_max\": %d",
           md->nx, md->nc, rank0, md->nx - rank0, ri.rank_min, ri.rank_max);
    printf(", \"steps\": %ld, \"rejected\": %ld, \"evaluations\": %ld, \"newton_iterations\": %ld, "
           "\"factorizations\": %ld, \"rank_changes\": %ld, \"rows\": %d, \"events\": %ld, "
           "\"detours\": %ld",
           sim.stats.steps, sim.stats.rejected, sim.stats.evaluations,
           sim.stats.newton_iterations, sim.stats.factorizations, sim.stats.rank_changes, ri.rows,
           sim.stats.events, sim.stats.detours);
    printf(", \"sing_tol\": %.17g, \"rank_tol\": %.17g", (double)opt.sing_tol,
           (double)opt.rank_tol);
    printf(", \"dependent_rows\": [");
    for (i = rank0; i < md->nc; ++i)
        printf("%s\"%s\"", i > rank0 ? ", " : "", md->constraint_names[dep_piv[i]]);
    printf("]");
    printf(", \"max_c_norm\": %.17g, \"wall_s\": %.6f", (double)ri.c_max, wall);
    if (ri.reactions) {
        printf(", \"reactions_status\": ");
        json_string(mcs_status_str(ri.reaction_status));
    }
    if (ri.has_energy) {
        mcs_real scale = MCS_FN(fabs)(ri.e0) > ri.kin_max ? MCS_FN(fabs)(ri.e0) : ri.kin_max;
        printf(", \"energy0\": %.17g, \"energy_drift\": %.17g, \"energy_drift_rel\": %.17g",
               (double)ri.e0, (double)ri.e_dev_max,
               (double)(scale > 0 ? ri.e_dev_max / scale : 0));
    }
    printf(", \"assembly\": {\"c_norm_before\": %.17g, \"c_norm_after\": %.17g, \"dx_norm\": %.17g, "
           "\"cdot_norm_before\": %.17g, \"dv_norm\": %.17g, \"iterations\": %d}",
           (double)asm_rep.c_norm_before, (double)asm_rep.c_norm_after, (double)asm_rep.dx_norm,
           (double)asm_rep.cdot_norm_before, (double)asm_rep.dv_norm, asm_rep.iterations);
    printf("}\n");
    return st == MCS_OK ? 0 : 1;
}
