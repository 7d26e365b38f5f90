/* mcs_sim.c - the simulator's state: options and their checks, binding a model to memory
 * (mcs_memory.c lays the memory out), and the small queries. The integration itself is in
 * mcs_frame.c, mcs_chart.c, mcs_integrate.c and mcs_step.c
 * (mcs_sim_internal.h lists who does what). */
#include "sim/mcs_sim_internal.h"

mcs_status mcs_options_default(mcs_options *opt, const mcs_model *model)
{
    if (!opt) {
        return MCS_ERR_ARGUMENT;
    }
    opt->method = (model != NULL) ? (mcs_method)model->method : MCS_METHOD_RK4;
    opt->continuation = (model != NULL) ? (mcs_continuation)model->continuation : MCS_CONT_EXP;
    opt->h = model ? model->h : MCS_R(1e-3);
    opt->rtol = model ? model->rtol : MCS_R(1e-8);
    opt->atol = model ? model->atol : MCS_R(1e-10);
    opt->h_min = MCS_R(1e-12);
    opt->rank_tol = MAX2(MCS_R(1e-9), 100 * MCS_REAL_EPS);
    opt->newton_tol = MCS_R(500.0) * MCS_REAL_EPS;
    opt->newton_max_iter = 25;
    opt->chart_pivot_min = MAX2(MCS_R(1e-8), 100 * MCS_REAL_EPS);
    opt->sing_watch = MCS_R(0.05);
    opt->sing_tol = MAX2(MCS_R(1e-6), MCS_R(1e4) * MCS_REAL_EPS);
    opt->chart_tol = MAX2(MCS_R(1e-4), 1000 * MCS_REAL_EPS);
    opt->sing_gap = MAX2(MCS_R(1e-3), MCS_R(1e5) * MCS_REAL_EPS);
    opt->max_locks = 0;
    opt->dense_output = 1;
    opt->max_dof = 0;
    opt->variant = MCS_VARIANT_DENSE;
    opt->max_steps = 10000000L;
    opt->max_attempts = 100;
    return MCS_OK;
}

/* lo < x <= hi (or lo <= x <= hi with closed_low): false for NaN. */
static int in_range(mcs_real x, mcs_real lo, mcs_real hi, int closed_low)
{
    return (closed_low ? (x >= lo) : (x > lo)) && (x <= hi);
}

/* Every option finite and in its range (a corrupted option block gets MCS_ERR_ARGUMENT, never
 * a loop that does not end or an overflowing size). */
static int options_valid(const mcs_options *o, const mcs_model *model)
{
    const mcs_real big = MCS_R(1e30);
    return in_range(o->h, 0, big, 0) && in_range(o->rtol, 0, 1, 0) &&
           in_range(o->atol, 0, big, 0) && in_range(o->h_min, 0, big, 1) &&
           in_range(o->rank_tol, 0, MCS_R(0.5), 0) && in_range(o->newton_tol, 0, 1, 0) &&
           in_range(o->chart_pivot_min, 0, 1, 1) && in_range(o->sing_watch, 0, 1, 1) &&
           in_range(o->sing_tol, 0, 1, 1) && in_range(o->chart_tol, 0, 1, 1) &&
           in_range(o->sing_gap, 0, 1, 1) &&
           /* unsigned: one test covers negative values too, whatever type the ABI gives enums */
           ((unsigned)o->method < (unsigned)MCS_METHOD_COUNT) &&
           ((unsigned)o->continuation <= (unsigned)MCS_CONT_OFF) && (o->newton_max_iter >= 1) &&
           (o->newton_max_iter <= 10000) && (o->max_locks >= 0) &&
           (o->max_locks <= (MCS_MAX_DIM - model->nc)) && (o->max_steps >= 1) &&
           (o->max_attempts >= 1) && (o->max_attempts <= 1000000) &&
           ((o->dense_output == 0) || (o->dense_output == 1)) && (o->max_dof >= 0) &&
           (o->max_dof <= model->nx) && (mcs_variant_valid(o) != 0);
}

mcs_status mcs_sim_check(const mcs_model *model, const mcs_options *opt)
{
    if (!model || !opt) {
        return MCS_ERR_ARGUMENT;
    }
    if (model->abi_version != MCS_MODEL_ABI_VERSION) {
        return MCS_ERR_MODEL_VERSION;
    }
    if ((model->nx < 1) || (model->nc < 0) || (model->nx > MCS_MAX_DIM) ||
        (model->nc > MCS_MAX_DIM) || (model->nu < 0) || (model->nu > MCS_MAX_INPUTS) ||
        ((model->nu > 0) && !model->f_u) || (model->ny < 0) ||
        ((model->ny > 0) && (!model->outputs || !model->output_names)) ||
        !options_valid(opt, model) || !model->c || !model->A || !model->c_t || !model->gamma ||
        !model->M || !model->f || !model->kinetic || !model->A_nz || !model->M_nz ||
        (model->a_nnz < 0) || (model->m_nnz < 1) || !model->m_rows || !model->m_cols ||
        ((model->a_nnz > 0) &&
         (!model->a_rows || !model->a_cols || !model->a_row_start || !model->a_row_nz))) {
        return MCS_ERR_ARGUMENT; /* the kernels and patterns every run uses */
    }
    /* the euler and exp predictors need A_dot, which a firmware build may leave out */
    if ((model->A_dot == NULL) && (model->nc > 0) &&
        ((opt->continuation == MCS_CONT_EULER) || (opt->continuation == MCS_CONT_EXP))) {
        return MCS_ERR_UNSUPPORTED;
    }
#if MCS_WITH_IMPLICIT
    /* the implicit methods factor the chart Jacobian: K_f and D at least (force_tangents) */
    if (((opt->method == MCS_METHOD_ROS34PW2) || (opt->method == MCS_METHOD_ROS34PW2_FIXED)) &&
        ((model->K_f == NULL) || (model->D == NULL))) {
        return MCS_ERR_UNSUPPORTED;
    }
#endif
    {
        /* what the variant takes (mcs_sim.h) */
        const mcs_status st = mcs_variant_check(model, opt);
        if (st != MCS_OK) {
            return st;
        }
    }
    return mcs_sim_compiled_in(opt);
}

mcs_status mcs_sim_compiled_in(const mcs_options *opt)
{
    int out = 0; /* an option needs a part the build left out (mcs_config.h) */
    out |= (mcs_method_compiled_in(opt->method) == 0) ? 1 : 0;
#if !MCS_WITH_EVENTS
    out |= (opt->sing_tol > MCS_R(0.0)) ? 1 : 0;
#endif
#if !MCS_WITH_LOCKS
    out |= (opt->max_locks > 0) ? 1 : 0;
#endif
#if !MCS_WITH_PREDICTORS
    out |= ((opt->continuation == MCS_CONT_EULER) || (opt->continuation == MCS_CONT_EXP)) ? 1 : 0;
#endif
    out |= (mcs_variant_compiled_in(opt->variant) == 0) ? 1 : 0;
    return (out != 0) ? MCS_ERR_UNSUPPORTED : MCS_OK;
}

unsigned mcs_runtime_parts(void)
{
    unsigned parts = 0U;
    parts |= (mcs_method_compiled_in(MCS_METHOD_DOP853) != 0) ? MCS_PART_DOP853 : 0U;
    parts |= (mcs_method_compiled_in(MCS_METHOD_ROS34PW2) != 0) ? MCS_PART_IMPLICIT : 0U;
#if MCS_WITH_EVENTS
    parts |= MCS_PART_EVENTS;
#endif
#if MCS_WITH_LOCKS
    parts |= MCS_PART_LOCKS;
#endif
#if MCS_WITH_PREDICTORS
    parts |= MCS_PART_PREDICTORS;
#endif
    return parts | mcs_variant_parts();
}

void mcs_sim_bind(mcs_sim *s, const mcs_model *model, const void *params, const mcs_options *opt,
                  unsigned features, int f_max)
{
    s->model = model;
    s->params = params;
    s->opt = *opt;
    s->n = model->nx;
    s->m = model->nc;
    s->features = features;
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
    s->h_last = MCS_R(0.0);
    s->h_next = opt->h;
    s->t_grid0 = MCS_R(0.0);
    s->grid_index = 0;
    s->w.dense_ready = 0;
    s->w.dense_method = opt->method;
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
    /* DOP853 evaluates three more stages of a step when its dense output is first asked for:
     * they are evaluated now, with the inputs the step was taken with */
    if ((s->w.dense_ready != 0) && (s->w.dense_method == MCS_METHOD_DOP853) &&
        (s->w.dense_extra == 0)) {
        const mcs_status st = mcs_method_dense(s, MCS_METHOD_DOP853, MCS_R(1.0), s->w.ys);
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
