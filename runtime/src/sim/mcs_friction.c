/* mcs_friction.c - Coulomb friction with stiction (mcs_stops.h, docs/explanation/stops.md): the
 * sliding phases' forces (mcs_sim_set_friction) and work, the stick (a lock at zero rate, kept
 * while the holding force is within the static level), the slip, and what friction does after
 * another event's velocity jump. mcs_stops.c locates the events and calls these. */
#include "sim/mcs_stops_internal.h"

int mcs_stops_lock_row(const mcs_sim *sim, int key)
{
    int row = -1;
    int at = sim->model->nc;
    int k;
    for (k = 0; k < sim->nlocks; ++k) {
        if (sim->lock_key[k] == key) {
            row = at;
        }
        at += sim->lock_rows[k];
    }
    return row;
}

/* The key of the lock that holds friction element k stuck: past the coordinates and groups. */
int mcs_friction_key(const mcs_sim *sim, int k)
{
    return sim->n + sim->model->ngroups + k;
}

/* The force that holds stuck friction element k at (t, x, v): -lambda of its row x_j - x_j(now). */
mcs_status mcs_friction_holding(mcs_stops *st, mcs_sim *sim, int k, mcs_real t, const mcs_real *x,
                                const mcs_real *v, mcs_real *force)
{
    const int row = mcs_stops_lock_row(sim, mcs_friction_key(sim, k));
    mcs_status status;
    if (row < 0) {
        return MCS_ERR_ARGUMENT;
    }
    status = mcs_sim_multipliers(sim, t, x, v, st->lambda);
    *force = -st->lambda[row];
    return status;
}

/* Whether a stop holds the coordinate of friction element k now (its friction then rests: the
 * stop holds it). */
int mcs_friction_rests(const mcs_stops *st, const mcs_sim *sim, int k)
{
    const int j = st->model->friction[k].coordinate;
    int i;
    for (i = 0; i < st->nstops; ++i) {
        const mcs_stop *s = &st->model->stops[i];
        int c = s->coordinate;
        if (c < 0) { /* a joint's: its coordinate in joint coordinates, where friction is */
            const mcs_row_group *g = &sim->model->groups[sim->model->joints[s->joint].lock_group];
            c = (g->coords != NULL) ? g->coords[0] : -1;
        }
        if ((st->held[i] != 0) && (c == j)) {
            return 1;
        }
    }
    return 0;
}

mcs_real mcs_stops_friction_work(const mcs_stops *st, const mcs_real *x)
{
    mcs_real work = MCS_R(0.0);
    int k;
    if (!st || !x) {
        return MCS_R(0.0);
    }
    work = st->friction_work;
    for (k = 0; k < st->nfriction; ++k) {
        if (st->slide[k] != MCS_R(0.0)) {
            const mcs_friction *f = &st->model->friction[k];
            work += f->kinetic * mcs_fabs(x[f->coordinate] - st->q_phase[k]);
        }
    }
    return work;
}

/* Ends friction element k's sliding phase at the current state: its work is counted. */
static void end_slide(mcs_stops *st, const mcs_sim *sim, int k)
{
    const mcs_friction *f = &st->model->friction[k];
    if (st->slide[k] != MCS_R(0.0)) {
        st->friction_work += f->kinetic * mcs_fabs(sim->cur.x[f->coordinate] - st->q_phase[k]);
    }
    st->slide[k] = MCS_R(0.0);
    st->force[k] = MCS_R(0.0);
}

/* Starts a sliding phase of friction element k in direction `dir` (+-1) at the current state. */
static void start_slide(mcs_stops *st, const mcs_sim *sim, int k, mcs_real dir)
{
    const mcs_friction *f = &st->model->friction[k];
    st->slide[k] = dir;
    st->force[k] = -dir * f->kinetic;
    st->q_phase[k] = sim->cur.x[f->coordinate];
}

mcs_status mcs_friction_push(mcs_stops *st, mcs_sim *sim)
{
    return (st->nfriction > 0) ? mcs_sim_set_friction(sim, st->force) : MCS_OK;
}

/* Friction element k at rest now: it sticks (its lock, no jump) when the force that holds it is
 * within the static level, else slides towards the force that moves it. *stuck, *holding: what
 * happened and that force. */
mcs_status mcs_friction_stick(mcs_stops *st, mcs_sim *sim, int k, mcs_jump_method method,
                              mcs_real *dv, mcs_real *jwork, size_t jwork_len, int *jiwork,
                              size_t jiwork_len, int *stuck, mcs_real *holding)
{
    const mcs_friction *f = &st->model->friction[k];
    mcs_transition tr;
    mcs_status status;
    int i;
    end_slide(st, sim, k);
    status = mcs_friction_push(st, sim);
    for (i = 0; i < sim->n; ++i) {
        st->vminus[i] = (i == f->coordinate) ? MCS_R(1.0) : MCS_R(0.0);
    }
    if (status == MCS_OK) {
        status = mcs_sim_lock_row(sim, mcs_friction_key(sim, k), st->vminus, method, dv, jwork,
                                  jwork_len, jiwork, jiwork_len, &tr);
    }
    if (status == MCS_OK) {
        status = mcs_friction_holding(st, sim, k, sim->cur.t, sim->cur.x, sim->cur.v, holding);
    }
    if (status != MCS_OK) {
        return status;
    }
    *stuck = 0;
    if (mcs_fabs(*holding) <= f->static_level) {
        *stuck = 1;
    }
    st->stuck[k] = *stuck;
    if (*stuck != 0) {
        st->sticks++;
        return MCS_OK;
    }
    /* beyond the static level: it moves at once, the way the holding force resisted */
    status = mcs_sim_unlock(sim, mcs_friction_key(sim, k), &tr);
    start_slide(st, sim, k, (*holding > MCS_R(0.0)) ? MCS_R(-1.0) : MCS_R(1.0));
    return (status == MCS_OK) ? mcs_friction_push(st, sim) : status;
}

/* After a velocity jump (an impact): each sliding element slides the way it now moves, one a
 * stop holds rests, one left at rest sticks or slides. */
mcs_status mcs_friction_refresh(mcs_stops *st, mcs_sim *sim, mcs_jump_method method, mcs_real *dv,
                                mcs_real *jwork, size_t jwork_len, int *jiwork, size_t jiwork_len)
{
    mcs_status status = MCS_OK;
    int k;
    for (k = 0; (status == MCS_OK) && (k < st->nfriction); ++k) {
        const mcs_real r = sim->cur.v[st->model->friction[k].coordinate];
        mcs_real holding = MCS_R(0.0);
        int stuck = 0;
        if (st->stuck[k] != 0) {
            continue;
        }
        if (mcs_friction_rests(st, sim, k) != 0) {
            end_slide(st, sim, k);
        } else if (r != MCS_R(0.0)) {
            const mcs_real dir = (r > MCS_R(0.0)) ? MCS_R(1.0) : MCS_R(-1.0);
            if (dir != st->slide[k]) {
                end_slide(st, sim, k);
                start_slide(st, sim, k, dir);
            }
        } else {
            status = mcs_friction_stick(st, sim, k, method, dv, jwork, jwork_len, jiwork,
                                        jiwork_len, &stuck, &holding);
        }
    }
    return (status == MCS_OK) ? mcs_friction_push(st, sim) : status;
}

mcs_status mcs_stops_begin(mcs_stops *st, mcs_sim *sim, mcs_jump_method method, mcs_real *dv,
                           mcs_real *jwork, size_t jwork_len, int *jiwork, size_t jiwork_len)
{
    if (!st || !sim || !sim->ready || !dv) {
        return MCS_ERR_ARGUMENT;
    }
    return mcs_friction_refresh(st, sim, method, dv, jwork, jwork_len, jiwork, jiwork_len);
}

mcs_status mcs_friction_slip(mcs_stops *st, mcs_sim *sim, int k, mcs_real *holding)
{
    mcs_transition tr;
    mcs_status status =
        mcs_friction_holding(st, sim, k, sim->cur.t, sim->cur.x, sim->cur.v, holding);
    if (status == MCS_OK) {
        status = mcs_sim_unlock(sim, mcs_friction_key(sim, k), &tr);
    }
    st->stuck[k] = 0;
    st->slips++;
    /* it moves the way the holding force resisted */
    start_slide(st, sim, k, (*holding > MCS_R(0.0)) ? MCS_R(-1.0) : MCS_R(1.0));
    if (status == MCS_OK) {
        status = mcs_friction_push(st, sim);
    }
    return status;
}
