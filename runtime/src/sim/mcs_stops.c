/* mcs_stops.c - end stops (mcs_stops.h, docs/explanation/stops.md): where a limit is reached or a
 * held limit's reaction turns to pull, located on the last step's dense output, and the impact
 * (restitution along the stop, 004's jump in every other direction) or release made there with
 * the locks of mcs_locks.c. Above the step: nothing below calls these. */
#include "sim/mcs_stops_internal.h"

/* Root finding: iterations, and the interval it stops at (relative to t). */
#define ROOT_ITERATIONS 200
#define ROOT_TOL MCS_R(1e-12)
/* A flight that starts at a limit (a rebound, a release) is looked for at these fractions of the
 * step, 2^-1 .. 2^-PROBES, when the step ends beyond the limit again. */
#define PROBES 12

static mcs_real side_sign(int side)
{
    return (side == MCS_STOP_LOWER) ? MCS_R(1.0) : MCS_R(-1.0);
}

static mcs_real limit_of(const mcs_stop *stop, int side)
{
    return (side == MCS_STOP_LOWER) ? stop->lower : stop->upper;
}

/* The key of the lock that holds stop k: its coordinate, or nx + the joint's row group. */
static int lock_key(const mcs_sim *sim, const mcs_stop *stop)
{
    return (stop->coordinate >= 0) ? stop->coordinate
                                   : (sim->n + sim->model->joints[stop->joint].lock_group);
}

mcs_status mcs_stops_init(mcs_stops *st, const mcs_sim *sim, mcs_real *work, size_t lwork,
                          int *iwork, size_t liwork)
{
    const mcs_model *md;
    int n;
    int njc;
    int m;
    int k;
    size_t need;
    if (!st || !sim || !sim->ready || (!work && (lwork > 0U)) || (!iwork && (liwork > 0U))) {
        return MCS_ERR_ARGUMENT;
    }
    md = sim->model;
    n = sim->n;
    njc = md->njc;
    m = md->nc + sim->opt.max_locks;
    st->model = md;
    st->nstops = (md->stops != NULL) ? md->nstops : 0;
    st->nfriction = (md->friction != NULL) ? md->nfriction : 0;
    st->sticks = 0;
    st->slips = 0;
    st->friction_work = MCS_R(0.0);
    st->same_instant = 0;
    st->last_t = MCS_R(0.0);
    st->zeno_time = MCS_STOPS_ZENO_TIME;
    st->impacts = 0;
    st->holds = 0;
    st->releases = 0;
    st->impact_loss = MCS_R(0.0);
    if (st->nstops < 0) {
        st->nstops = 0;
    }
    if ((st->nfriction < 0) || (st->nfriction > MCS_MAX_FRICTION)) {
        return MCS_ERR_ARGUMENT;
    }
    if ((st->nstops == 0) && (st->nfriction == 0)) {
        return MCS_OK;
    }
    if ((MCS_WITH_LOCKS == 0) || (sim->opt.max_locks < 1)) {
        return MCS_ERR_UNSUPPORTED; /* a held limit is a lock */
    }
    for (k = 0; k < st->nstops; ++k) {
        const mcs_stop *s = &md->stops[k];
        int ok = 1;
        if ((s->sides != MCS_STOP_LOWER) && (s->sides != MCS_STOP_UPPER) &&
            (s->sides != (MCS_STOP_LOWER + MCS_STOP_UPPER))) {
            ok = 0;
        }
        if (s->coordinate >= 0) {
            ok = (s->coordinate < n) ? ok : 0;
        } else if ((s->joint < 0) || (s->joint >= md->nj) || (md->joints == NULL) ||
                   (md->joint_coords == NULL) || (md->groups == NULL)) {
            ok = 0;
        } else {
            const mcs_joint *j = &md->joints[s->joint];
            if ((j->coord_index < 0) || (j->coord_index >= njc) || (j->lock_group < 0) ||
                (j->lock_group >= md->ngroups) || (md->groups[j->lock_group].nrows != 1)) {
                ok = 0;
            }
        }
        if (ok == 0) {
            return MCS_ERR_ARGUMENT;
        }
    }
    for (k = 0; k < st->nfriction; ++k) {
        const mcs_friction *f = &md->friction[k];
        if ((f->coordinate < 0) || (f->coordinate >= n) || !(f->kinetic >= MCS_R(0.0)) ||
            !(f->static_level >= f->kinetic)) {
            return MCS_ERR_ARGUMENT;
        }
    }
    need = (size_t)MCS_STOPS_WORK_SIZE((size_t)n, (size_t)st->nstops, (size_t)st->nfriction,
                                       (size_t)njc, (size_t)m);
    if ((lwork < need) ||
        (liwork < (size_t)MCS_STOPS_IWORK_SIZE((size_t)st->nstops, (size_t)st->nfriction))) {
        return MCS_ERR_WORKSPACE;
    }
    st->x = work;
    st->v = &work[n];
    st->vminus = &work[2 * n];
    st->jc = &work[3 * n];
    st->lambda = &work[(3 * n) + (2 * njc)];
    st->nlambda = (m > 1) ? m : 1;
    st->sign = &st->lambda[st->nlambda];
    st->slide = &st->sign[st->nstops];
    st->force = &st->slide[st->nfriction];
    st->q_phase = &st->force[st->nfriction];
    st->held = iwork;
    st->stuck = &iwork[st->nstops];
    for (k = 0; k < st->nstops; ++k) {
        st->held[k] = 0;
        st->sign[k] = MCS_R(1.0);
    }
    for (k = 0; k < st->nfriction; ++k) {
        st->stuck[k] = 0;
        st->slide[k] = MCS_R(0.0);
        st->force[k] = MCS_R(0.0);
        st->q_phase[k] = MCS_R(0.0);
    }
    return MCS_OK;
}

mcs_status mcs_stops_coordinate(mcs_stops *st, const mcs_sim *sim, int stop, mcs_real t,
                                const mcs_real *x, const mcs_real *v, mcs_real *q, mcs_real *r)
{
    const mcs_stop *s;
    if (!st || !sim || (stop < 0) || (stop >= st->nstops) || !x || !v || !q || !r) {
        return MCS_ERR_ARGUMENT;
    }
    s = &st->model->stops[stop];
    if (s->coordinate >= 0) {
        *q = x[s->coordinate];
        *r = v[s->coordinate];
    } else {
        const int c = st->model->joints[s->joint].coord_index;
        st->model->joint_coords(x, v, t, sim->params, st->jc);
        *q = st->jc[c];
        *r = st->jc[st->model->njc + c];
    }
    return MCS_OK;
}

int mcs_stops_violated(mcs_stops *st, const mcs_sim *sim)
{
    int k;
    for (k = 0; st && sim && (k < st->nstops); ++k) {
        const mcs_stop *s = &st->model->stops[k];
        mcs_real q = MCS_R(0.0);
        mcs_real r = MCS_R(0.0);
        if (mcs_stops_coordinate(st, sim, k, sim->cur.t, sim->cur.x, sim->cur.v, &q, &r) !=
            MCS_OK) {
            return k;
        }
        if ((((s->sides & MCS_STOP_LOWER) != 0) && (q < s->lower)) ||
            (((s->sides & MCS_STOP_UPPER) != 0) && (q > s->upper)) || !((q - q) == MCS_R(0.0))) {
            return k;
        }
    }
    return -1;
}

/* What a located function is (> 0 while nothing happens): a free limit's distance inside
 * (q - lower, upper - q), a held limit's push (the force its lock exerts on q, towards the
 * inside), a sliding coordinate's rate along its sliding direction, or a stuck one's margin
 * (the static level less the force that holds it). */
typedef enum function_kind { FN_GAP, FN_PUSH, FN_SLIDE, FN_MARGIN } function_kind;

typedef struct stop_function {
    function_kind kind;
    int index; /* the stop's, or the friction element's */
    int side;  /* a stop's */
} stop_function;

/* Its value at time t: the step's start (at < 0), its end (at > 0), or the dense output (0). */
static mcs_status evaluate(mcs_stops *st, mcs_sim *sim, const stop_function *fn, mcs_real t, int at,
                           mcs_real *value)
{
    const mcs_real *x = st->x;
    const mcs_real *v = st->v;
    mcs_real q = MCS_R(0.0);
    mcs_real r = MCS_R(0.0);
    mcs_status status = MCS_OK;
    if (at < 0) {
        x = sim->prev.x;
        v = sim->prev.v;
    } else if (at > 0) {
        x = sim->cur.x;
        v = sim->cur.v;
    } else {
        status = mcs_sim_dense(sim, t, st->x, st->v, NULL, NULL);
    }
    if (status != MCS_OK) {
        return status;
    }
    switch (fn->kind) {
    case FN_GAP: {
        const mcs_stop *s = &st->model->stops[fn->index];
        status = mcs_stops_coordinate(st, sim, fn->index, t, x, v, &q, &r);
        *value = side_sign(fn->side) * (q - limit_of(s, fn->side));
        break;
    }
    case FN_PUSH: {
        const int row = mcs_stops_lock_row(sim, lock_key(sim, &st->model->stops[fn->index]));
        if (row < 0) {
            return MCS_ERR_ARGUMENT;
        }
        status = mcs_sim_multipliers(sim, t, x, v, st->lambda);
        /* M x'' = f - A^T lambda: the row's force on q is -sign lambda */
        *value = -side_sign(fn->side) * st->sign[fn->index] * st->lambda[row];
        break;
    }
    case FN_SLIDE:
        *value = st->slide[fn->index] * v[st->model->friction[fn->index].coordinate];
        break;
    default: /* FN_MARGIN */
        status = mcs_friction_holding(st, sim, fn->index, t, x, v, &q);
        *value = st->model->friction[fn->index].static_level - mcs_fabs(q);
        break;
    }
    return status;
}

/* The first zero of fn in (a0, b0) where fa0 > 0 > fb0 (Illinois on the dense output). */
static mcs_status find_root(mcs_stops *st, mcs_sim *sim, const stop_function *fn, mcs_real a0,
                            mcs_real fa0, mcs_real b0, mcs_real fb0, mcs_real *t_root)
{
    mcs_real a = a0;
    mcs_real fa = fa0;
    mcs_real b = b0;
    mcs_real fb = fb0;
    int it = 0;
    int more = 1;
    while (more != 0) {
        mcs_real c;
        mcs_real fc = MCS_R(0.0);
        mcs_status status;
        if ((it >= ROOT_ITERATIONS) || (fb == MCS_R(0.0)) || (fa == MCS_R(0.0)) ||
            ((b - a) <= (ROOT_TOL * (MCS_R(1.0) + mcs_fabs(b))))) {
            more = 0;
            continue;
        }
        ++it;
        c = b - ((fb * (b - a)) / (fb - fa));
        if (!((c > a) && (c < b))) {
            c = MCS_R(0.5) * (a + b);
        }
        status = evaluate(st, sim, fn, c, 0, &fc);
        if (status != MCS_OK) {
            return status;
        }
        /* keep a with f > 0 and b with f <= 0; halve the stale end's value (Illinois) */
        if (fc > MCS_R(0.0)) {
            a = c;
            fa = fc;
            fb *= MCS_R(0.5);
        } else {
            b = c;
            fb = fc;
            fa *= MCS_R(0.5);
        }
    }
    /* the end inside the admissible set for a limit (not beyond it), the last time with the
     * reaction pushing for a held one */
    *t_root = (fb == MCS_R(0.0)) ? b : a;
    return MCS_OK;
}

/* Where fn (> 0 inside) turns <= 0 in the last step, if it does: 1 and *t_event, else 0. A
 * function at or just beyond 0 at the start (a flight that starts at the limit) is looked for
 * positive early in the step; a step beyond the limit from its start to the probes is an impact
 * at once. */
static mcs_status first_crossing(mcs_stops *st, mcs_sim *sim, const stop_function *fn, int *found,
                                 mcs_real *t_event)
{
    const mcs_real t0 = sim->prev.t;
    const mcs_real t1 = sim->cur.t;
    mcs_real f0 = MCS_R(0.0);
    mcs_real f1 = MCS_R(0.0);
    mcs_real f_start;
    mcs_status status = evaluate(st, sim, fn, t1, 1, &f1);
    *found = 0;
    if ((status != MCS_OK) || (f1 > MCS_R(0.0))) {
        return status;
    }
    status = evaluate(st, sim, fn, t0, -1, &f0);
    if (status != MCS_OK) {
        return status;
    }
    f_start = f0;
    if (!(f0 > MCS_R(0.0))) {
        int k;
        mcs_real frac = MCS_R(1.0);
        for (k = 0; (k < PROBES) && !(f0 > MCS_R(0.0)); ++k) {
            frac *= MCS_R(0.5);
            status = evaluate(st, sim, fn, t0 + (frac * (t1 - t0)), 0, &f0);
            if (status != MCS_OK) {
                return status;
            }
        }
        if (!(f0 > MCS_R(0.0))) {
            /* no flight the step can see: at once if it went further beyond (a rebound too
             * short to see, a coordinate moving into its limit) or if it is a force beyond its
             * level from the start (an input or another event changed it at once), else
             * nothing happens (a coordinate resting at its limit, held there by friction) */
            *found = 0;
            if ((f1 < f_start) || (fn->kind == FN_PUSH) || (fn->kind == FN_MARGIN)) {
                *found = 1;
            }
            *t_event = t0;
            return MCS_OK;
        }
        *found = 1;
        return find_root(st, sim, fn, t0 + (frac * (t1 - t0)), f0, t1, f1, t_event);
    }
    *found = 1;
    return find_root(st, sim, fn, t0, f0, t1, f1, t_event);
}

/* Keeps the earlier of the event so far and this one. */
static void keep_first(mcs_stop_event *ev, int found, mcs_real t_event, int kind, int index,
                       int side)
{
    if ((found != 0) && ((ev->kind == (int)MCS_STOP_EVENT_NONE) || (t_event < ev->t))) {
        ev->kind = kind;
        ev->stop = index;
        ev->side = side;
        ev->t = t_event;
    }
}

/* The acceleration of the impact's stop coordinate just before it, for the rebound's flight. */
static mcs_status impact_acceleration(mcs_stops *st, mcs_sim *sim, mcs_stop_event *ev)
{
    const mcs_real dt = MCS_R(1e-3) * (ev->t - sim->prev.t);
    mcs_real q = MCS_R(0.0);
    mcs_real r1 = MCS_R(0.0);
    mcs_real r0 = MCS_R(0.0);
    mcs_status status = MCS_OK;
    ev->accel = MCS_R(0.0);
    if (dt > MCS_R(0.0)) {
        status = mcs_sim_dense(sim, ev->t, st->x, st->v, NULL, NULL);
        if (status == MCS_OK) {
            status = mcs_stops_coordinate(st, sim, ev->stop, ev->t, st->x, st->v, &q, &r1);
        }
        if (status == MCS_OK) {
            status = mcs_sim_dense(sim, ev->t - dt, st->x, st->v, NULL, NULL);
        }
        if (status == MCS_OK) {
            status = mcs_stops_coordinate(st, sim, ev->stop, ev->t - dt, st->x, st->v, &q, &r0);
        }
        if (status == MCS_OK) {
            ev->accel = (r1 - r0) / dt;
        }
    }
    return status;
}

mcs_status mcs_stops_locate(mcs_stops *st, mcs_sim *sim, mcs_stop_event *ev)
{
    stop_function fn;
    int found = 0;
    mcs_real t_event = MCS_R(0.0);
    mcs_status status = MCS_OK;
    int k;
    if (!st || !sim || !ev || !sim->ready) {
        return MCS_ERR_ARGUMENT;
    }
    ev->kind = MCS_STOP_EVENT_NONE;
    ev->t = MCS_R(0.0);
    if (((st->nstops == 0) && (st->nfriction == 0)) || !(sim->h_last > MCS_R(0.0))) {
        return MCS_OK;
    }
    for (k = 0; (status == MCS_OK) && (k < st->nstops); ++k) {
        const mcs_stop *s = &st->model->stops[k];
        int side;
        for (side = MCS_STOP_LOWER; (status == MCS_OK) && (side <= MCS_STOP_UPPER); ++side) {
            if (((s->sides & side) == 0) || ((st->held[k] != 0) && (st->held[k] != side))) {
                continue;
            }
            fn.kind = (st->held[k] == side) ? FN_PUSH : FN_GAP;
            fn.index = k;
            fn.side = side;
            status = first_crossing(st, sim, &fn, &found, &t_event);
            keep_first(ev, found, t_event,
                       (fn.kind == FN_PUSH) ? MCS_STOP_EVENT_RELEASE : MCS_STOP_EVENT_IMPACT, k,
                       side);
        }
    }
    for (k = 0; (status == MCS_OK) && (k < st->nfriction); ++k) {
        if ((mcs_friction_rests(st, sim, k) != 0) ||
            ((st->stuck[k] == 0) && (st->slide[k] == MCS_R(0.0)))) {
            continue;
        }
        fn.kind = (st->stuck[k] != 0) ? FN_MARGIN : FN_SLIDE;
        fn.index = k;
        fn.side = 0;
        status = first_crossing(st, sim, &fn, &found, &t_event);
        keep_first(ev, found, t_event,
                   (fn.kind == FN_MARGIN) ? MCS_STOP_EVENT_SLIP : MCS_STOP_EVENT_STICK, k, 0);
    }
    if ((status == MCS_OK) && (ev->kind == (int)MCS_STOP_EVENT_IMPACT)) {
        status = impact_acceleration(st, sim, ev);
    }
    return status;
}

/* The lock that holds stop k now, with the jump `method` (plastic: the stop's rate to 0). */
static mcs_status hold(mcs_stops *st, mcs_sim *sim, int k, mcs_jump_method method, mcs_real *dv,
                       mcs_real *jwork, size_t jwork_len, int *jiwork, size_t jiwork_len,
                       mcs_transition *tr)
{
    const mcs_stop *s = &st->model->stops[k];
    if (s->coordinate >= 0) {
        return mcs_sim_lock(sim, s->coordinate, method, dv, jwork, jwork_len, jiwork, jiwork_len,
                            tr);
    }
    return mcs_sim_lock_group(sim, lock_key(sim, s), st->model->joints[s->joint].lock_group, method,
                              dv, jwork, jwork_len, jiwork, jiwork_len, tr);
}

/* The held stop k's push at the current state (> 0: it holds). */
static mcs_status push_now(mcs_stops *st, mcs_sim *sim, int k, int side, mcs_real *push)
{
    stop_function fn;
    fn.kind = FN_PUSH;
    fn.index = k;
    fn.side = side;
    return evaluate(st, sim, &fn, sim->cur.t, 1, push);
}

/* An impact at the current state (ev->rate_before, ev->kinetic_before set). */
static mcs_status impact(mcs_stops *st, mcs_sim *sim, mcs_stop_event *ev, mcs_jump_method method,
                         mcs_real *dv, mcs_real *jwork, size_t jwork_len, int *jiwork,
                         size_t jiwork_len)
{
    const mcs_stop *s = &st->model->stops[ev->stop];
    const int n = sim->n;
    const mcs_real e = s->restitution;
    mcs_transition tr;
    mcs_real flight = MCS_R(-1.0);
    mcs_status status;
    int i;
    /* an impact without an approach (a rebound's flight too short for the step to see, a
     * grazing contact) is held: there is nothing to rebound */
    ev->zeno = 1;
    if ((side_sign(ev->side) * ev->rate_before) < MCS_R(0.0)) {
        ev->zeno = 0;
    }
    for (i = 0; i < n; ++i) {
        st->vminus[i] = sim->cur.v[i];
    }
    /* the plastic jump: the lock with 004's momentum-consistent projection */
    status = hold(st, sim, ev->stop, method, dv, jwork, jwork_len, jiwork, jiwork_len, &tr);
    if (status != MCS_OK) {
        return status;
    }
    st->impacts++;
    /* the lock row's rate per unit rate of q (its sign: a joint's row in body coordinates may
     * run against q), from the impulse that stopped it: M dv = -G^T Lambda, so q's rate changed
     * by -(dg/dq) Lambda / m_q = -rate_before. A coordinate's row is x_j - x_j(now); an impact
     * without an approach (no impulse) keeps what the stop's earlier impacts found. */
    if (s->coordinate >= 0) {
        st->sign[ev->stop] = MCS_R(1.0);
    } else if ((tr.impulse * ev->rate_before) > MCS_R(0.0)) {
        st->sign[ev->stop] = MCS_R(1.0);
    } else if ((tr.impulse * ev->rate_before) < MCS_R(0.0)) {
        st->sign[ev->stop] = MCS_R(-1.0);
    } else {
        /* no impulse: the sign found before stands */
    }
    if (ev->accel != MCS_R(0.0)) {
        flight = (MCS_R(2.0) * e * mcs_fabs(ev->rate_before)) / mcs_fabs(ev->accel);
    }
    if ((e > MCS_R(0.0)) && (flight >= MCS_R(0.0)) && (flight < st->zeno_time)) {
        ev->zeno = 1;
    }
    if ((e > MCS_R(0.0)) && (ev->zeno == 0)) {
        /* the rebound: (1 + e) times the plastic jump, and the limit free again */
        status = mcs_sim_unlock(sim, lock_key(sim, s), &tr);
        for (i = 0; i < n; ++i) {
            st->v[i] = st->vminus[i] + ((MCS_R(1.0) + e) * dv[i]);
            dv[i] = st->v[i] - st->vminus[i];
        }
        if (status == MCS_OK) {
            status = mcs_sim_restart(sim, sim->cur.t, sim->cur.x, st->v);
        }
        st->held[ev->stop] = 0;
        ev->held = 0;
    } else {
        mcs_real push = MCS_R(0.0);
        st->held[ev->stop] = ev->side;
        ev->held = 1;
        st->holds++;
        status = push_now(st, sim, ev->stop, ev->side, &push);
        if ((status == MCS_OK) && (push < MCS_R(0.0))) {
            /* held at rest, but the forces pull it away: released at once */
            status = mcs_sim_unlock(sim, lock_key(sim, s), &tr);
            st->held[ev->stop] = 0;
            ev->held = 0;
            st->releases++;
        }
    }
    if (status == MCS_OK) {
        status = mcs_friction_refresh(st, sim, method, dv, jwork, jwork_len, jiwork, jiwork_len);
    }
    return status;
}

/* The coordinate of the event's stop or friction element, and its rate, now. */
static mcs_status event_coordinate(mcs_stops *st, mcs_sim *sim, const mcs_stop_event *ev,
                                   mcs_real *q, mcs_real *r)
{
    if ((ev->kind == (int)MCS_STOP_EVENT_STICK) || (ev->kind == (int)MCS_STOP_EVENT_SLIP)) {
        const int j = st->model->friction[ev->stop].coordinate;
        *q = sim->cur.x[j];
        *r = sim->cur.v[j];
        return MCS_OK;
    }
    return mcs_stops_coordinate(st, sim, ev->stop, sim->cur.t, sim->cur.x, sim->cur.v, q, r);
}

mcs_status mcs_stops_apply(mcs_stops *st, mcs_sim *sim, mcs_stop_event *ev, mcs_jump_method method,
                           mcs_real *dv, mcs_real *jwork, size_t jwork_len, int *jiwork,
                           size_t jiwork_len)
{
    int friction = 0;
    mcs_transition tr;
    mcs_real pot = MCS_R(0.0);
    mcs_real q = MCS_R(0.0);
    mcs_status status = MCS_OK;
    int i;
    if ((ev != NULL) &&
        ((ev->kind == (int)MCS_STOP_EVENT_STICK) || (ev->kind == (int)MCS_STOP_EVENT_SLIP))) {
        friction = 1;
    }
    if ((st != NULL) && (ev != NULL)) {
        /* events at one instant must settle: each stop and friction element changes at most a
         * few times there, or the set of active constraints cycles */
        st->same_instant = (ev->t == st->last_t) ? (st->same_instant + 1) : 0;
        st->last_t = ev->t;
        if (st->same_instant > (MCS_STOPS_SAME_INSTANT * (st->nstops + st->nfriction + 1))) {
            return MCS_ERR_LIMIT;
        }
    }
    if (!st || !sim || !ev || !dv || !sim->ready || (ev->stop < 0) ||
        (ev->stop >= (friction ? st->nfriction : st->nstops)) ||
        (ev->kind < (int)MCS_STOP_EVENT_IMPACT) || (ev->kind > (int)MCS_STOP_EVENT_SLIP) ||
        (ev->t > sim->cur.t)) {
        return MCS_ERR_ARGUMENT;
    }
    if (ev->t < sim->cur.t) { /* back to the event: the step's end is not kept */
        status = mcs_sim_dense(sim, ev->t, st->x, st->v, NULL, NULL);
        if (status == MCS_OK) {
            status = mcs_sim_restart(sim, ev->t, st->x, st->v);
        }
    }
    if (status == MCS_OK) {
        status = event_coordinate(st, sim, ev, &ev->q, &ev->rate_before);
    }
    if (status == MCS_OK) {
        status = mcs_sim_energy(sim, &ev->kinetic_before, &pot);
    }
    if (status != MCS_OK) {
        return status;
    }
    for (i = 0; i < sim->n; ++i) {
        dv[i] = MCS_R(0.0);
    }
    ev->zeno = 0;
    ev->holding = MCS_R(0.0);
    switch (ev->kind) {
    case MCS_STOP_EVENT_IMPACT:
        status = impact(st, sim, ev, method, dv, jwork, jwork_len, jiwork, jiwork_len);
        break;
    case MCS_STOP_EVENT_RELEASE:
        status = mcs_sim_unlock(sim, lock_key(sim, &st->model->stops[ev->stop]), &tr);
        st->held[ev->stop] = 0;
        st->releases++;
        ev->held = 0;
        if (status == MCS_OK) { /* its coordinate's friction, at rest, sticks or slides */
            status =
                mcs_friction_refresh(st, sim, method, dv, jwork, jwork_len, jiwork, jiwork_len);
        }
        break;
    case MCS_STOP_EVENT_STICK:
        status = mcs_friction_stick(st, sim, ev->stop, method, dv, jwork, jwork_len, jiwork,
                                    jiwork_len, &ev->held, &ev->holding);
        break;
    default: /* MCS_STOP_EVENT_SLIP */
        status = mcs_friction_slip(st, sim, ev->stop, &ev->holding);
        ev->held = 0;
        break;
    }
    if (status == MCS_OK) {
        status = event_coordinate(st, sim, ev, &q, &ev->rate_after);
    }
    if (status == MCS_OK) {
        status = mcs_sim_energy(sim, &ev->kinetic_after, &pot);
    }
    if ((status == MCS_OK) && (ev->kind == (int)MCS_STOP_EVENT_IMPACT)) {
        st->impact_loss += ev->kinetic_before - ev->kinetic_after;
    }
    return status;
}

mcs_status mcs_stops_advance(mcs_stops *st, mcs_sim *sim, mcs_real t_target, mcs_jump_method method,
                             mcs_real *dv, mcs_real *jwork, size_t jwork_len, int *jiwork,
                             size_t jiwork_len, long *events)
{
    long steps = 0;
    mcs_status status = MCS_OK;
    if (!st || !sim || !dv || !((t_target - t_target) == MCS_R(0.0))) {
        return MCS_ERR_ARGUMENT;
    }
    while ((status == MCS_OK) && (sim->cur.t < t_target)) {
        mcs_stop_event ev;
        ++steps;
        if (steps > sim->opt.max_steps) {
            status = MCS_ERR_LIMIT;
        } else {
            status = mcs_sim_step(sim, t_target);
        }
        if (status == MCS_OK) {
            status = mcs_stops_locate(st, sim, &ev);
        }
        if ((status == MCS_OK) && (ev.kind != (int)MCS_STOP_EVENT_NONE)) {
            status =
                mcs_stops_apply(st, sim, &ev, method, dv, jwork, jwork_len, jiwork, jiwork_len);
            if ((status == MCS_OK) && (events != NULL)) {
                *events += 1;
            }
        }
    }
    return status;
}
