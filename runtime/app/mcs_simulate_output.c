/* mcs_simulate_output.c - the command-line simulator's outputs (see mcs_simulate_output.h). */
#include "mcs_simulate_output.h"

#include <math.h>
#include <stdarg.h>
#include <string.h>

void stream_flush(app_stream *s)
{
    if (s->fn && s->len > 0) {
        s->buf[s->len] = '\0';
        s->fn(s->ctx, s->channel, s->buf);
    }
    s->len = 0;
}

void stream_printf(app_stream *s, const char *fmt, ...)
{
    va_list ap;
    int k;
    va_start(ap, fmt);
    if (s->file) {
        vfprintf(s->file, fmt, ap);
    } else if (s->fn) {
        /* a piece is far shorter than the buffer: flush first when it might not fit */
        if (s->cap - s->len < 1024)
            stream_flush(s);
        k = vsnprintf(s->buf + s->len, s->cap - s->len, fmt, ap);
        if (k < 0 || (size_t)k >= s->cap - s->len) {
            s->failed = 1;
            s->len = s->cap - 1;
        } else {
            s->len += (size_t)k;
        }
    }
    va_end(ap);
}

static void value(app_stream *o, mcs_real x)
{
    stream_printf(o, ",%.17g", (double)x);
}

static void empty(app_stream *o)
{
    stream_printf(o, ",");
}

static void name(app_stream *o, const char *prefix, const char *text)
{
    stream_printf(o, ",%s%s", prefix, text);
}

static void numbered(app_stream *o, const char *prefix, int k)
{
    stream_printf(o, ",%s%d", prefix, k);
}

/* The joints' free coordinates and rates at (t, x, v) into ri->jc. The kernel gives each angle
 * on its atan2 branch; it is taken instead at the multiple of 2 pi nearest the last angle seen
 * (ri->jlast), so j.<joint> is continuous and counts whole turns. Every accepted step is seen
 * (output_follow_step), not only the rows written: a joint turns far less than half a turn in
 * one step, however far apart --dt-out puts the rows. */
static void joint_coordinates(run_info *ri, const mcs_sim *sim, mcs_real t, const mcs_real *x,
                              const mcs_real *v)
{
    const mcs_model *md = ri->model;
    const mcs_real two_pi = (mcs_real)6.283185307179586476925286766559;
    mcs_real *last = ri->jlast;
    int i;
    md->joint_coords(x, v, t, sim->params, ri->jc);
    for (i = 0; i < md->nj; ++i) {
        const int k = md->joints[i].coord_index;
        if (k < 0 || md->joints[i].coordinate != MCS_JOINT_COORD_ANGLE)
            continue;
        if (ri->jc_started)
            ri->jc[k] -= two_pi * mcs_floor((ri->jc[k] - last[k]) / two_pi + (mcs_real)0.5);
        last[k] = ri->jc[k];
    }
    ri->jc_started = 1;
}

/* The first failure of a call the output makes (its status, for the summary). */
static void check(run_info *ri, mcs_status st)
{
    if (st != MCS_OK && ri->output_status == MCS_OK)
        ri->output_status = st;
}

/* The energy statistics of a state seen (a row, or an accepted step): its deviation from the
 * level of the last transition, its rise above the lowest energy seen before it since then, the
 * largest
 * kinetic energy and the range of the potential (the scale of the energy in motion). */
static mcs_real friction_work_at(const run_info *ri, const mcs_real *x)
{
    return (ri->stops != NULL) ? mcs_stops_friction_work(ri->stops, x) : 0;
}

/* work: what friction took up to the state (E + W is what only transitions change) */
static void follow_energy(run_info *ri, mcs_real kin, mcs_real pot, mcs_real work)
{
    const mcs_real e = kin + pot + work;
    if (!ri->energy_seen) {
        ri->e0 = ri->e_initial = ri->e_low = e;
        ri->pot_min = ri->pot_max = pot;
        ri->energy_seen = 1;
    }
    if (kin > ri->kin_max)
        ri->kin_max = kin;
    if (pot < ri->pot_min)
        ri->pot_min = pot;
    if (pot > ri->pot_max)
        ri->pot_max = pot;
    if (mcs_fabs(e - ri->e0) > ri->e_dev_max)
        ri->e_dev_max = mcs_fabs(e - ri->e0);
    if (e - ri->e_low > ri->e_rise_max)
        ri->e_rise_max = e - ri->e_low;
    if (e < ri->e_low)
        ri->e_low = e;
}

void output_follow_pending(run_info *ri)
{
    if (ri->end_pending) {
        ri->end_pending = 0;
        follow_energy(ri, ri->end_kin, ri->end_pot, ri->end_work);
    }
}

void output_follow_step(run_info *ri, mcs_sim *sim)
{
    mcs_real kin = 0, pot = 0;
    if (ri->model->njc > 0 && ri->jc_started)
        joint_coordinates(ri, sim, sim->cur.t, sim->cur.x, sim->cur.v);
    if (ri->model->potential && ri->energy_seen) {
        check(ri, mcs_sim_energy(sim, &kin, &pot));
        output_follow_pending(ri); /* the last step's end: no row came after it */
        ri->end_pending = 1;
        ri->end_t = sim->cur.t;
        ri->end_kin = kin;
        ri->end_pot = pot;
        ri->end_work = friction_work_at(ri, sim->cur.x);
    }
}

/* The CSV columns, in order: the header when row is NULL, else the row's values. One list, so the
 * header and the rows cannot disagree. cn and energy are the row's |c| and T + V. */
static void csv_columns(run_info *ri, mcs_sim *sim, const run_row *row, mcs_real cn,
                        mcs_real energy)
{
    const mcs_model *md = ri->model;
    const int n = md->nx, kmin = n < md->nc ? n : md->nc, f = row ? n - row->rank : 0;
    app_stream *o = &ri->csv;
    int i, j;
    if (row)
        stream_printf(o, "%.17g", (double)row->t);
    else
        stream_printf(o, "t");
    for (i = 0; i < n; ++i)
        row ? value(o, row->x[i]) : name(o, "x.", md->coord_names[i]);
    for (i = 0; i < n; ++i)
        row ? value(o, row->v[i]) : name(o, "v.", md->coord_names[i]);
    for (i = 0; i < n; ++i) /* minimal coordinates: f of them, empty cells after */
        row ? (i < f ? value(o, row->q[i]) : empty(o)) : numbered(o, "q", i + 1);
    for (i = 0; i < n; ++i)
        row ? (i < f ? value(o, row->qd[i]) : empty(o)) : numbered(o, "qd", i + 1);
    if (row)
        stream_printf(o, ",%.17g,%d", (double)cn, row->rank);
    else
        stream_printf(o, ",c_norm,rank");
    for (i = 0; i < kmin; ++i)
        row ? value(o, row->rdiag[i]) : numbered(o, "rdiag", i + 1);
    if (md->potential)
        row ? value(o, energy) : name(o, "energy", "");
    if (md->njc > 0) {
        if (row)
            joint_coordinates(ri, sim, row->t, row->x, row->v);
        for (i = 0; i < md->nj; ++i)
            if (md->joints[i].coord_index >= 0)
                row ? value(o, ri->jc[md->joints[i].coord_index])
                    : name(o, "j.", md->joints[i].name);
        for (i = 0; i < md->nj; ++i)
            if (md->joints[i].coord_index >= 0)
                row ? value(o, ri->jc[md->njc + md->joints[i].coord_index])
                    : name(o, "jd.", md->joints[i].name);
    }
    if (md->ny > 0) { /* the file's outputs, the inputs held now: y.<name> */
        mcs_status st =
            row ? mcs_sim_outputs(sim, row->t, row->x, row->v, ri->ywork, ri->y) : MCS_OK;
        check(ri, st);
        for (i = 0; i < md->ny; ++i)
            row ? value(o, st == MCS_OK ? ri->y[i] : (mcs_real)NAN)
                : name(o, "y.", md->output_names[i]);
    }
    if (ri->stops != NULL) { /* the active set: each stop held (-1 lower, 1 upper) or free (0),
                              * each friction element stuck (1) or not (0) */
        for (i = 0; i < ri->stops->nstops; ++i)
            row ? value(o, (mcs_real)(ri->stops->held[i] == MCS_STOP_LOWER   ? -1
                                      : ri->stops->held[i] == MCS_STOP_UPPER ? 1
                                                                             : 0))
                : name(o, "stop.", md->stops[i].name);
        for (i = 0; i < ri->stops->nfriction; ++i)
            row ? value(o, (mcs_real)ri->stops->stuck[i]) : name(o, "stuck.", md->friction[i].name);
    }
    if (ri->basis) /* T, column by column; empty cells past f */
        for (j = 0; j < n; ++j)
            for (i = 0; i < n; ++i) {
                if (!row)
                    stream_printf(o, ",T%d.%s", j + 1, md->coord_names[i]);
                else if (j < f)
                    value(o, row->T[i + j * n]);
                else
                    empty(o);
            }
    if (ri->momenta) { /* P = T' M v with this row's basis: f entries, empty cells after */
        if (row && row->Q)
            check(ri, mcs_sim_momenta_at(sim, row->t, row->x, row->v, row->Q, row->rank, ri->Pbuf));
        else if (row)
            check(ri, mcs_sim_momenta(sim, row->v, ri->Pbuf));
        for (j = 0; j < n; ++j) {
            if (!row)
                numbered(o, "p", j + 1);
            else if (j < f)
                value(o, ri->Pbuf[j]);
            else
                empty(o);
        }
    }
    if (ri->reactions && md->nc > 0) {
        /* last: the multipliers use the probe frame, which may hold row->R and row->Q */
        mcs_status st = row ? mcs_sim_multipliers(sim, row->t, row->x, row->v, ri->lambda) : MCS_OK;
        if (st != MCS_OK && ri->reaction_status == MCS_OK)
            ri->reaction_status = st;
        for (i = 0; i < md->nc; ++i) {
            if (!row)
                name(o, "lam.", md->constraint_names[i]);
            else
                value(o, st == MCS_OK ? ri->lambda[i] : (mcs_real)NAN);
        }
    }
    if (ri->reactions && md->joint_wrenches && md->nj > 0) {
        /* each joint's force and moment on its body 2 (world frame): Fx.<joint>, ... */
        static const char *const planar[] = {"Fx.", "Fy.", "Nz."};
        static const char *const spatial[] = {"Fx.", "Fy.", "Fz.", "Nx.", "Ny.", "Nz."};
        const int k = md->nw / md->nj;
        const char *const *label = (k == 3) ? planar : spatial;
        mcs_status st =
            row ? mcs_sim_joint_wrenches(sim, row->t, row->x, row->v, ri->wstack, ri->wrench)
                : MCS_OK;
        if (st != MCS_OK && ri->reaction_status == MCS_OK)
            ri->reaction_status = st;
        for (i = 0; i < md->nj; ++i)
            for (j = 0; j < k; ++j) {
                if (!row)
                    name(o, label[j], md->joints[i].name);
                else
                    value(o, st == MCS_OK ? ri->wrench[i * k + j] : (mcs_real)NAN);
            }
    }
    stream_printf(o, "\n");
}

static int stream_is_on(const app_stream *s)
{
    return s->file != NULL || s->fn != NULL;
}

int output_open(run_info *ri, const char *csv_path, const char *events_path, app_text_fn fn,
                void *ctx, char *const buffers[3], size_t cap)
{
    app_stream *streams[3];
    int k;
    ri->rank_min = ri->model->nx + ri->model->nc;
    ri->rank_max = -1;
    ri->started = clock();
    streams[0] = &ri->csv;
    streams[1] = &ri->events;
    streams[2] = &ri->summary;
    for (k = 0; k < 3; ++k) {
        memset(streams[k], 0, sizeof *streams[k]);
        streams[k]->channel = k;
        if (fn) {
            streams[k]->fn = fn;
            streams[k]->ctx = ctx;
            streams[k]->buf = buffers[k];
            streams[k]->cap = cap;
        }
    }
    if (!fn)
        ri->summary.file = stdout;
    if (csv_path) {
        if (!(ri->csv.file = fopen(csv_path, "w")))
            return -1;
        ri->csv_path = csv_path;
    }
    if (events_path) { /* opened now, so that an unwritable path fails before the run */
        if (!(ri->events.file = fopen(events_path, "w"))) {
            if (ri->csv.file) { /* nothing is left behind by a run that cannot start */
                (void)fclose(ri->csv.file);
                ri->csv.file = NULL;
                (void)remove(csv_path);
            }
            return -2;
        }
        ri->events_path = events_path;
    }
    if (stream_is_on(&ri->csv))
        csv_columns(ri, NULL, NULL, 0, 0);
    stream_printf(&ri->events, "[");
    return 0;
}

static void progress(run_info *ri, mcs_real t)
{
    const double elapsed = (double)(clock() - ri->started) / CLOCKS_PER_SEC;
    const double frac = ri->t_end > ri->t0 ? (double)((t - ri->t0) / (ri->t_end - ri->t0)) : 1.0;
    static int last = -1;
    int pct = (int)(frac * 100.0), i, filled;
    if (!ri->progress || elapsed < 1.0 || pct == last)
        return;
    last = pct;
    filled = pct * 30 / 100;
    fprintf(stderr, "\r  simulating [");
    for (i = 0; i < 30; ++i)
        fputc(i < filled ? '#' : '.', stderr);
    fprintf(stderr, "] %3d%%  t = %.3f", pct, (double)t);
    fflush(stderr);
    ri->bar_shown = 1;
}

void output_record(run_info *ri, mcs_sim *sim, const run_row *row)
{
    mcs_real kin = 0, pot = 0, cn = 0;
    /* energy and residual of (x, v), evaluated through the model's kernels */
    check(ri, mcs_sim_energy_at(sim, row->t, row->x, row->v, &kin, &pot));
    check(ri, mcs_sim_constraint_norm_at(sim, row->t, row->x, &cn));
    if (ri->end_pending && row->t >= ri->end_t)
        output_follow_pending(ri);
    follow_energy(ri, kin, pot, friction_work_at(ri, row->x));
    if (cn > ri->c_max)
        ri->c_max = cn;
    if (row->rank < ri->rank_min)
        ri->rank_min = row->rank;
    if (row->rank > ri->rank_max)
        ri->rank_max = row->rank;
    ri->rows++;
    ri->last_t = row->t;
    if (stream_is_on(&ri->csv))
        csv_columns(ri, sim, row, cn, kin + pot);
    progress(ri, row->t);
}

void output_record_current(run_info *ri, mcs_sim *sim)
{
    run_row row;
    check(ri, mcs_sim_minimal(sim, ri->q, ri->qd));
    check(ri, mcs_sim_rdiag(sim, ri->rdiag));
    if (ri->basis)
        check(ri, mcs_sim_basis(sim, ri->T));
    row.t = sim->cur.t;
    row.x = sim->cur.x;
    row.v = sim->cur.v;
    row.q = ri->q;
    row.qd = ri->qd;
    row.rdiag = ri->rdiag;
    row.T = ri->T;
    row.Q = NULL;
    row.rank = sim->cur.r;
    output_record(ri, sim, &row);
}

const char *lock_name(const mcs_model *md, int key)
{
    return key < md->nx ? md->coord_names[key] : md->groups[key - md->nx].name;
}

static void json_vector(app_stream *o, const mcs_model *md, const mcs_real *a)
{
    int i;
    stream_printf(o, "{");
    for (i = 0; i < md->nx; ++i)
        stream_printf(o, "%s\"%s\": %.17g", i ? ", " : "", md->coord_names[i], (double)a[i]);
    stream_printf(o, "}");
}

/* One event as a JSON object (a list item of the --events file). */
void output_take_event(run_info *ri, mcs_sim *sim)
{
    const mcs_event *ev = &sim->event;
    const mcs_model *md = ri->model;
    const int n = md->nx;
    app_stream *o = &ri->events;
    int i, j;
    if (!sim->event_ready)
        return;
    sim->event_ready = 0;
    if (!stream_is_on(o))
        return;
    stream_printf(
        o,
        "%s\n  {\"kind\": \"singular\", \"t\": %.17g, \"sigma\": %.17g, \"rank_before\": %d, "
        "\"rank_after\": %d,",
        ri->nevents ? "," : "", (double)ev->t, (double)ev->sigma, ev->rank_before, ev->rank_after);
    stream_printf(o, "\n   \"rdiag\": [");
    for (i = 0; i < ev->nrdiag; ++i)
        stream_printf(o, "%s%.17g", i ? ", " : "", (double)ev->rdiag[i]);
    stream_printf(o, "],\n   \"x\": ");
    json_vector(o, md, ev->x);
    stream_printf(o, ",\n   \"continued\": [");
    for (j = 0; j < n - ev->rank_before; ++j) {
        stream_printf(o, "%s", j ? ", " : "");
        json_vector(o, md, ev->continued + j * n);
    }
    stream_printf(o, "],\n   \"motions\": [");
    for (j = 0; j < ev->nmotions; ++j) {
        stream_printf(o, "%s", j ? ", " : "");
        json_vector(o, md, ev->motions + j * n);
    }
    stream_printf(o, "]}");
    ri->nevents++;
}

static void json_list(app_stream *o, const char *key, int k, const mcs_real *a)
{
    int i;
    stream_printf(o, ", \"%s\": [", key);
    for (i = 0; i < k; ++i)
        stream_printf(o, "%s%.17g", i ? ", " : "", (double)a[i]);
    stream_printf(o, "]");
}

void output_transition(run_info *ri, mcs_sim *sim, const mcs_transition *tr, const mcs_real *dv,
                       const mcs_real *P_before, const mcs_real *P_after)
{
    const mcs_model *md = ri->model;
    const int f = md->nx - tr->rank_after;
    app_stream *o = &ri->events;
    mcs_real kin = 0, pot = 0;
    if (ri->ntransitions < RUN_MAX_TRANSITIONS)
        ri->transitions[ri->ntransitions++] = *tr;
    /* the jump at the transition is counted apart (the summary's energy_transitions); the
     * drift is measured from the new level */
    output_follow_pending(ri); /* the energy before the jump, in its order */
    check(ri, mcs_sim_energy(sim, &kin, &pot));
    ri->e_transitions += tr->jump.kinetic_after - tr->jump.kinetic_before;
    /* a rise is the integration's, measured from here */
    ri->e0 = ri->e_low = kin + pot + friction_work_at(ri, sim->cur.x);
    if (!stream_is_on(o))
        return;
    stream_printf(o,
                  "%s\n  {\"kind\": \"%s\", \"t\": %.17g, \"target\": \"%s\", \"rank_before\": %d, "
                  "\"rank_after\": %d, \"dependent\": %d, \"dof_after\": %d, \"impulse\": %.17g, "
                  "\"kinetic_before\": %.17g, \"kinetic_after\": %.17g",
                  ri->nevents ? "," : "", tr->lock ? "lock" : "unlock", (double)tr->t,
                  lock_name(md, tr->key), tr->rank_before, tr->rank_after, tr->jump.dependent,
                  tr->jump.dof_after, (double)tr->impulse, (double)tr->jump.kinetic_before,
                  (double)tr->jump.kinetic_after);
    stream_printf(o, ",\n   \"dv\": ");
    json_vector(o, md, dv);
    json_list(o, "momenta_before", f, P_before);
    json_list(o, "momenta_after", f, P_after);
    stream_printf(o, "}");
    ri->nevents++;
}

void output_stop(run_info *ri, mcs_sim *sim, const mcs_stop_event *ev)
{
    /* a stick that does not hold (the force beyond the static level) is a reversal */
    static const char *const kinds[] = {"none", "impact", "release", "stick", "slip", "reverse"};
    const mcs_model *md = ri->model;
    const int friction = ev->kind == MCS_STOP_EVENT_STICK || ev->kind == MCS_STOP_EVENT_SLIP;
    const int kind = (ev->kind == MCS_STOP_EVENT_STICK && !ev->held) ? 5
                     : (ev->kind >= 1 && ev->kind <= 4)              ? ev->kind
                                                                     : 0;
    app_stream *o = &ri->events;
    mcs_real kin = 0, pot = 0;
    switch (ev->kind) {
    case MCS_STOP_EVENT_IMPACT:
        ri->stop_impacts++;
        ri->stop_holds += ev->held;
        break;
    case MCS_STOP_EVENT_RELEASE: ri->stop_releases++; break;
    case MCS_STOP_EVENT_STICK: ri->friction_sticks += ev->held; break;
    default: ri->friction_slips++; break;
    }
    output_follow_pending(ri);
    check(ri, mcs_sim_energy(sim, &kin, &pot));
    if (ev->kind == MCS_STOP_EVENT_IMPACT)
        ri->stop_loss += ev->kinetic_before - ev->kinetic_after;
    ri->e_transitions += ev->kinetic_after - ev->kinetic_before;
    ri->e0 = ri->e_low = kin + pot + friction_work_at(ri, sim->cur.x);
    if (!stream_is_on(o))
        return;
    stream_printf(o, "%s\n  {\"kind\": \"%s\", \"t\": %.17g, \"%s\": \"%s\"",
                  ri->nevents ? "," : "", kinds[kind], (double)ev->t,
                  friction ? "friction" : "stop",
                  friction ? md->friction[ev->stop].name : md->stops[ev->stop].name);
    if (!friction)
        stream_printf(o, ", \"side\": \"%s\", \"zeno\": %s",
                      ev->side == MCS_STOP_LOWER ? "lower" : "upper", ev->zeno ? "true" : "false");
    else
        stream_printf(o, ", \"holding\": %.17g", (double)ev->holding);
    stream_printf(o,
                  ", \"q\": %.17g, \"rate_before\": %.17g, \"rate_after\": %.17g, \"held\": %s, "
                  "\"kinetic_before\": %.17g, \"kinetic_after\": %.17g}",
                  (double)ev->q, (double)ev->rate_before, (double)ev->rate_after,
                  ev->held ? "true" : "false", (double)ev->kinetic_before,
                  (double)ev->kinetic_after);
    ri->nevents++;
}

int output_close(run_info *ri)
{
    int result = 0;
    if (ri->bar_shown)
        fprintf(stderr, "\n");
    stream_printf(&ri->events, "%s]\n", ri->nevents ? "\n" : "");
    stream_flush(&ri->csv);
    stream_flush(&ri->events);
    if (ri->csv.file) {
        const int failed = ferror(ri->csv.file); /* a write that failed earlier (disk full) */
        if (fclose(ri->csv.file) != 0 || failed)
            result = -1;
    }
    if (ri->events.file) {
        const int failed = ferror(ri->events.file);
        if ((fclose(ri->events.file) != 0 || failed) && result == 0)
            result = -2;
        if (ri->nevents == 0 && result == 0) /* no events, no log (nor a stale one) */
            (void)remove(ri->events_path);
    }
    ri->csv.file = ri->events.file = NULL;
    if (result == 0 && (ri->csv.failed || ri->events.failed))
        result = ri->csv.failed ? -1 : -2;
    return result;
}
