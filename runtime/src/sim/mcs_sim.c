/* mcs_sim.c - the simulator's state: binding a model, its parameters and options to memory
 * (mcs_memory.c lays the memory out, mcs_options.c checks the options), the inputs, and the small
 * queries (minimal coordinates, constraint norm, energy). */
#include "sim/mcs_stages.h"

void mcs_bind(mcs_sim *s, const mcs_model *model, const void *params, const mcs_options *opt,
              unsigned features, int f_max)
{
    s->model = model;
    s->params = params;
    s->opt = *opt;
    s->n = model->nx;
    s->m = model->nc;
    s->features = features;
    s->w.checked = mcs_sim_memory_features(opt);
    s->f_max = f_max;
    s->nlocks = 0;
    s->transitions = 0;
    s->inputs_on = 0;
#if MCS_MAX_INPUTS > 0
    {
        int i;
        for (i = 0; i < MCS_MAX_INPUTS; ++i) {
            s->u[i] = MCS_R(0.0);
        }
    }
#endif
    s->friction_on = 0;
    {
        int i;
        for (i = 0; i < ((MCS_MAX_FRICTION > 0) ? MCS_MAX_FRICTION : 1); ++i) {
            s->friction_force[i] = MCS_R(0.0);
        }
    }
    s->h_last = MCS_R(0.0);
    s->h_next = opt->h;
    s->t_grid0 = MCS_R(0.0);
    s->grid_index = 0;
    s->w.interp_ready = 0;
    s->w.interp_method = opt->method;
    s->w.fsal = 0;
    s->w.retries = 0;
    s->w.pred_x = NULL;
    s->w.want_lo = 0;
    s->w.sigma_ref = MCS_R(1.0);
    s->event_ready = 0;
    s->ready = 0;
    {
        mcs_stats zero = {0, 0, 0, 0, 0, 0, 0, 0, {0, 0, 0, 0, 0}, 0, MCS_R(0.0)};
        s->stats = zero;
    }
}

mcs_status mcs_sim_set_inputs(mcs_sim *s, const mcs_real *u)
{
    int i;
    int changed = 0;
    int on = 0;
    if (!s || !u) {
        return MCS_ERR_ARGUMENT;
    }
    if (s->model->nu == 0) {
        return MCS_ERR_UNSUPPORTED;
    }
    if (mcs_vec_max_abs(s->model->nu, u) < MCS_R(0.0)) {
        return MCS_ERR_ARGUMENT; /* NaN or Inf */
    }
    for (i = 0; i < s->model->nu; ++i) {
        changed |= (u[i] != s->u[i]) ? 1 : 0;
        on |= (u[i] != MCS_R(0.0)) ? 1 : 0;
    }
    if (changed == 0) {
        return MCS_OK;
    }
    /* a method whose interpolant evaluates stages of its own when it is first asked for
     * (DOP853's three): they are evaluated now, with the inputs the step was taken with */
    if ((s->w.interp_ready != 0) &&
        (mcs_method_has(s->w.interp_method, MCS_METHOD_FLAG_LAZY_STAGES) != 0) &&
        (s->w.interp_extra == 0)) {
        const mcs_status st = mcs_method_interpolate(s, s->w.interp_method, MCS_R(1.0), s->w.ys);
        if (st != MCS_OK) {
            return st;
        }
    }
    for (i = 0; i < s->model->nu; ++i) {
        s->u[i] = u[i];
    }
    s->inputs_on = on;
    s->w.fsal = 0; /* the last step's end acceleration had the old inputs' forces */
    return MCS_OK;
}

mcs_status mcs_sim_set_friction(mcs_sim *s, const mcs_real *force)
{
    int i;
    int changed = 0;
    int on = 0;
    if (!s || !force) {
        return MCS_ERR_ARGUMENT;
    }
    if ((s->model->nfriction <= 0) || (s->model->friction == NULL) ||
        (s->model->nfriction > MCS_MAX_FRICTION)) {
        return MCS_ERR_UNSUPPORTED;
    }
    if (mcs_vec_max_abs(s->model->nfriction, force) < MCS_R(0.0)) {
        return MCS_ERR_ARGUMENT; /* NaN or Inf */
    }
    for (i = 0; i < s->model->nfriction; ++i) {
        const int j = s->model->friction[i].coordinate;
        if ((j < 0) || (j >= s->n)) {
            return MCS_ERR_ARGUMENT; /* a descriptor whose friction names no coordinate */
        }
        changed |= (force[i] != s->friction_force[i]) ? 1 : 0;
        on |= (force[i] != MCS_R(0.0)) ? 1 : 0;
    }
    if (changed == 0) {
        return MCS_OK;
    }
    if ((s->w.interp_ready != 0) &&
        (mcs_method_has(s->w.interp_method, MCS_METHOD_FLAG_LAZY_STAGES) != 0) &&
        (s->w.interp_extra == 0)) {
        const mcs_status st = mcs_method_interpolate(s, s->w.interp_method, MCS_R(1.0), s->w.ys);
        if (st != MCS_OK) {
            return st;
        }
    }
    for (i = 0; i < s->model->nfriction; ++i) {
        s->friction_force[i] = force[i];
    }
    s->friction_on = on;
    s->w.fsal = 0; /* the last step's end acceleration had the old friction forces */
    return MCS_OK;
}

/* ---------------------------------------------------------------- queries */

mcs_status mcs_sim_minimal(mcs_sim *s, mcs_real *q, mcs_real *qd)
{
    int n;
    int r;
    int f;
    if (!s || !s->ready || !q || !qd) {
        return MCS_ERR_ARGUMENT;
    }
    n = s->n;
    r = s->cur.r;
    f = n - r;
    mcs_q_carry(f, s->cur.q, NULL, f, q);
    mcs_frame_Tt(s, &s->cur, s->cur.v, qd);
    return MCS_OK;
}

mcs_status mcs_sim_constraint_norm_at(mcs_sim *s, mcs_real t, const mcs_real *x, mcs_real *norm)
{
    if (!s || !x || !norm) {
        return MCS_ERR_ARGUMENT;
    }
    *norm = mcs_constraint_norm_at(s, x, t);
    return ((*norm < MCS_R(0.0)) || !((t - t) == MCS_R(0.0))) ? MCS_ERR_NONFINITE : MCS_OK;
}

mcs_status mcs_sim_constraint_norm(mcs_sim *s, mcs_real *norm)
{
    if (!s || !s->ready) {
        return MCS_ERR_ARGUMENT;
    }
    return mcs_sim_constraint_norm_at(s, s->cur.t, s->cur.x, norm);
}

mcs_status mcs_sim_energy_at(const mcs_sim *s, mcs_real t, const mcs_real *x, const mcs_real *v,
                             mcs_real *kinetic, mcs_real *potential)
{
    if (!s || !x || !v || !kinetic || !potential) {
        return MCS_ERR_ARGUMENT;
    }
    *kinetic = s->model->kinetic(x, v, t, s->params);
    *potential = s->model->potential ? s->model->potential(x, t, s->params) : MCS_R(0.0);
    return (((*kinetic - *kinetic) == MCS_R(0.0)) && ((*potential - *potential) == MCS_R(0.0)))
               ? MCS_OK
               : MCS_ERR_NONFINITE;
}

mcs_status mcs_sim_energy(mcs_sim *s, mcs_real *kinetic, mcs_real *potential)
{
    if (!s || !s->ready) {
        return MCS_ERR_ARGUMENT;
    }
    return mcs_sim_energy_at(s, s->cur.t, s->cur.x, s->cur.v, kinetic, potential);
}
