/* mcs_options.c - the one options unit (options, mcs_sim.h): their defaults, their ranges, what
 * they need of the model, of the build (the parts mcs_config.h compiles in) and of the memory (the
 * MCS_MEM_* features), and why a variant refuses them (MCS_REFUSE_*: the data the command line
 * maps to its messages). Checked once when a run is bound to its memory (mcs_sim_assign,
 * mcs_sim_init); a step checks only that the options are still those (mcs_options_in_force). */
#include "sim/mcs_stages.h"

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

/* MCS_ERR_ARGUMENT or MCS_ERR_MODEL_VERSION for a model or options no run can take (NULL, the
 * kernels and patterns every run uses missing, a value out of its range), else MCS_OK. */
static mcs_status model_and_values(const mcs_model *model, const mcs_options *opt)
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
        return MCS_ERR_ARGUMENT;
    }
    return MCS_OK;
}

/* The MCS_MEM_* features (which_part 0) or the MCS_PART_* bits (1) of the event kinds the options
 * ask for. */
static unsigned events_asked(const mcs_options *opt, int which_part)
{
    unsigned bits = 0U;
    int k;
    for (k = 0; k < MCS_EVENT_KIND_COUNT; ++k) {
        if (mcs_event_asked(opt, (mcs_event_kind)k) != 0) {
            bits |= (which_part != 0) ? mcs_event_kinds[k].part : mcs_event_kinds[k].memory;
        }
    }
    return bits;
}

/* The MCS_PART_* bits the options need compiled in. */
static unsigned parts_needed(const mcs_options *opt)
{
    unsigned parts = mcs_methods[opt->method].part | mcs_variant_part(opt->variant);
    parts |= events_asked(opt, 1);
    parts |= (opt->max_locks > 0) ? MCS_PART_LOCKS : 0U;
    parts |= ((opt->continuation == MCS_CONT_EULER) || (opt->continuation == MCS_CONT_EXP))
                 ? MCS_PART_PREDICTORS
                 : 0U;
    return parts;
}

/* Why valid options cannot run the model (MCS_REFUSE_*; 0: they can). */
static unsigned refusals(const mcs_model *model, const mcs_options *opt)
{
    unsigned why = 0U;
    /* the euler and exp predictors need A_dot, which a firmware build may leave out */
    if ((model->A_dot == NULL) && (model->nc > 0) &&
        ((opt->continuation == MCS_CONT_EULER) || (opt->continuation == MCS_CONT_EXP))) {
        why |= MCS_REFUSE_NEEDS_A_DOT;
    }
    /* the implicit methods factor the chart Jacobian: K_f and D at least (force_tangents) */
    if ((mcs_method_has(opt->method, MCS_METHOD_FLAG_IMPLICIT) != 0) &&
        ((model->K_f == NULL) || (model->D == NULL))) {
        why |= MCS_REFUSE_NEEDS_FORCE_TANGENTS;
    }
    why |= mcs_variant_refusals(model, opt); /* what the variant takes (mcs_sim.h) */
    if ((parts_needed(opt) & ~MCS_COMPILED_PARTS) != 0U) {
        why |= MCS_REFUSE_NOT_COMPILED;
    }
    return why;
}

mcs_status mcs_options_check(const mcs_model *model, const mcs_options *opt)
{
    const mcs_status st = model_and_values(model, opt);
    if (st != MCS_OK) {
        return st;
    }
    return (refusals(model, opt) != 0U) ? MCS_ERR_UNSUPPORTED : MCS_OK;
}

unsigned mcs_sim_refusals(const mcs_model *model, const mcs_options *opt)
{
    return (model_and_values(model, opt) != MCS_OK) ? MCS_REFUSE_INVALID : refusals(model, opt);
}

unsigned mcs_runtime_parts(void)
{
    return MCS_COMPILED_PARTS;
}

unsigned mcs_sim_memory_features(const mcs_options *opt)
{
    unsigned f = 0U;
    if (opt == NULL) {
        return MCS_MEM_ALL;
    }
    if ((unsigned)opt->method < (unsigned)MCS_METHOD_COUNT) {
        f |= mcs_methods[opt->method].memory; /* its stages */
    }
    f |= (opt->continuation == MCS_CONT_EULER) ? MCS_MEM_EULER : 0U;
    f |= (opt->continuation == MCS_CONT_EXP) ? MCS_MEM_EXP : 0U;
    f |= (opt->dense_output != 0) ? MCS_MEM_DENSE_OUTPUT : 0U;
    f |= events_asked(opt, 0);
    f |= (opt->max_locks > 0) ? MCS_MEM_LOCKS : 0U;
    f |= mcs_variant_memory_features(opt); /* its own layout, if the variant has one */
    return f;
}

mcs_status mcs_options_in_force(mcs_sim *s)
{
    unsigned need;
    mcs_status st;
    if (((unsigned)s->opt.method >= (unsigned)MCS_METHOD_COUNT) ||
        (mcs_variant_valid(&s->opt) == 0)) {
        return MCS_ERR_ARGUMENT;
    }
    need = mcs_sim_memory_features(&s->opt);
    if (need == s->w.checked) {
        return MCS_OK; /* as far as the memory and the build go, the options checked at binding */
    }
    /* changed since: memory the layout may not have, or a part or variant this build lacks */
    st = mcs_variant_fits(s, need);
    if ((st == MCS_OK) && ((parts_needed(&s->opt) & ~MCS_COMPILED_PARTS) != 0U)) {
        st = MCS_ERR_UNSUPPORTED;
    }
    if (st == MCS_OK) {
        s->w.checked = need;
    }
    return st;
}
