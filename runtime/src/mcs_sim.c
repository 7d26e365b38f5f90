/* mcs_sim.c - the simulator's state: options, the layout of the caller's workspace, init, and
 * the small queries. The integration itself is in mcs_chart.c, mcs_integrate.c and mcs_step.c
 * (mcs_sim_internal.h lists who does what). */
#include "mcs_sim_internal.h"

/* ---------------------------------------------------------------- workspace carving */

typedef struct carver {
    mcs_real *w;
    size_t used;
    size_t len;
    int *iw;
    size_t iused;
    size_t ilen;
} carver;

static mcs_real *take(carver *c, size_t k)
{
    mcs_real *p = c->w ? (&c->w[c->used]) : NULL;
    c->used += k;
    return p;
}

static int *itake(carver *c, size_t k)
{
    int *p = c->iw ? (&c->iw[c->iused]) : NULL;
    c->iused += k;
    return p;
}

static void carve_frame(carver *c, mcs_frame *fr, size_t k)
{
    fr->x = take(c, k);
    fr->v = take(c, k);
    fr->q = take(c, k);
    fr->Q = take(c, k * k);
    fr->R = take(c, k * k);
    fr->piv = itake(c, k);
    fr->t = MCS_R(0.0);
    fr->r = 0;
    fr->sigma = MCS_R(1.0);
}

/* Lays out everything; with null arrays it only counts. */
static void carve_all(carver *c, mcs_sim *s, int n, int m)
{
    const size_t k = MCS_SIM_K((size_t)n, (size_t)m);
    int i;
    carve_frame(c, &s->cur, k);
    carve_frame(c, &s->prev, k);
    carve_frame(c, &s->probe, k);
    s->w.A = take(c, k * k);
    s->w.A_dot = take(c, k * k);
    s->w.M = take(c, k * k);
    s->w.G = take(c, k * k);
    s->w.Z = take(c, k * k);
    s->w.Phi = take(c, k * k);
    s->w.MPhi = take(c, k * k);
    s->w.Mred = take(c, k * k);
    s->w.That = take(c, k * k);
    s->w.Tpred = take(c, k * k);
    s->w.c = take(c, k);
    s->w.c_t = take(c, k);
    s->w.gamma = take(c, k);
    s->w.f = take(c, k);
    s->w.p = take(c, k);
    s->w.xs = take(c, k);
    s->w.vs = take(c, k);
    s->w.tmp2 = take(c, k);
    s->w.rhs = take(c, k);
    s->w.tmp = take(c, k);
    s->w.y0 = take(c, 2U * k);
    s->w.y1 = take(c, 2U * k);
    s->w.ys = take(c, 2U * k);
    s->w.yerr = take(c, 2U * k);
    for (i = 0; i < 7; ++i) {
        s->w.k[i] = take(c, 2U * k);
    }
    s->event.x = take(c, k);
    s->event.rdiag = take(c, k);
    s->event.continued = take(c, k * k);
    s->event.motions = take(c, k * k);
    s->w.basis_work = take(c, MCS_BASIS_WORK_SIZE((size_t)n, (size_t)m));
    s->w.ipiv = itake(c, k);
    s->lock_key = itake(c, k);
    s->lock_group = itake(c, k);
    s->lock_rows = itake(c, k);
    s->lock_ref_at = itake(c, k);
    s->lock_ref = take(c, 4U * k);
    s->lock_a = take(c, k * k);
    s->lock_g = take(c, k + 3U);
    s->lock_G = take(c, (k + 3U) * k);
    s->w.basis_iwork = itake(c, MCS_BASIS_IWORK_SIZE((size_t)n, (size_t)m));
}

/* The workspace the layout above takes: carve_all in counting mode, so the sizes can never
 * disagree with the layout. The MCS_SIM_*_SIZE macros (for static allocation) are checked equal
 * to these by tests/runtime/test_sim.c. */
mcs_status mcs_sim_workspace_size(int n, int m, size_t *reals, size_t *ints)
{
    carver c = {0, 0, 0, 0, 0, 0};
    mcs_sim scratch;
    if ((n < 1) || (m < 0) || (n > MCS_MAX_DIM) || (m > MCS_MAX_DIM) || !reals || !ints) {
        return MCS_ERR_ARGUMENT;
    }
    carve_all(&c, &scratch, n, m);
    *reals = c.used;
    *ints = c.iused;
    return MCS_OK;
}

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
    opt->sing_tol = MAX2(MCS_R(1e-6), 1000 * MCS_REAL_EPS);
    opt->chart_tol = MAX2(MCS_R(1e-4), 1000 * MCS_REAL_EPS);
    opt->max_locks = 0;
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
           /* unsigned: one test covers negative values too, whatever type the ABI gives enums */
           ((unsigned)o->method <= (unsigned)MCS_METHOD_DOPRI5) &&
           ((unsigned)o->continuation <= (unsigned)MCS_CONT_OFF) && (o->newton_max_iter >= 1) &&
           (o->newton_max_iter <= 10000) && (o->max_locks >= 0) &&
           (o->max_locks <= (MCS_MAX_DIM - model->nc)) && (o->max_steps >= 1) &&
           (o->max_attempts >= 1) && (o->max_attempts <= 1000000);
}

mcs_status mcs_sim_init(mcs_sim *s, const mcs_model *model, const void *params,
                        const mcs_options *opt, mcs_real *work, size_t work_len, int *iwork,
                        size_t iwork_len)
{
    carver c = {0, 0, 0, 0, 0, 0};
    size_t need;
    size_t ineed;
    if (!s || !model || !params || !opt || !work || !iwork) {
        return MCS_ERR_ARGUMENT;
    }
    if (model->abi_version != MCS_MODEL_ABI_VERSION) {
        return MCS_ERR_MODEL_VERSION;
    }
    if ((model->nx < 1) || (model->nc < 0) || (model->nx > MCS_MAX_DIM) ||
        (model->nc > MCS_MAX_DIM) || !options_valid(opt, model) || !model->c || !model->A ||
        !model->c_t || !model->gamma || !model->M || !model->f || !model->kinetic) {
        return MCS_ERR_ARGUMENT;
    }
    /* the euler and exp predictors need A_dot, which a firmware build may leave out */
    if ((model->A_dot == NULL) && (model->nc > 0) &&
        ((opt->continuation == MCS_CONT_EULER) || (opt->continuation == MCS_CONT_EXP))) {
        return MCS_ERR_UNSUPPORTED;
    }
    /* room for the model's rows and the locks it may take */
    if (mcs_sim_workspace_size(model->nx, model->nc + opt->max_locks, &need, &ineed) != MCS_OK) {
        return MCS_ERR_ARGUMENT;
    }
    if ((work_len < need) || (iwork_len < ineed)) {
        return MCS_ERR_WORKSPACE;
    }
    s->model = model;
    s->params = params;
    s->opt = *opt;
    s->n = model->nx;
    s->m = model->nc;
    c.w = work;
    c.len = work_len;
    c.iw = iwork;
    c.ilen = iwork_len;
    carve_all(&c, s, s->n, s->m + opt->max_locks);
    s->nlocks = 0;
    s->transitions = 0;
    s->h_last = MCS_R(0.0);
    s->h_next = opt->h;
    s->t_grid0 = MCS_R(0.0);
    s->grid_index = 0;
    s->w.dense_ready = 0;
    s->w.retries = 0;
    s->event_ready = 0;
    s->ready = 0;
    {
        mcs_stats zero = {0, 0, 0, 0, 0, 0, 0, 0};
        s->stats = zero;
    }
    return MCS_OK;
}

/* ---------------------------------------------------------------- queries */

mcs_status mcs_sim_minimal(const mcs_sim *s, mcs_real *q, mcs_real *qd)
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
    mcs_mat_gemm(1, 0, f, 1, n, 1, &s->cur.Q[r * n], n, s->cur.v, n, 0, qd, MAX2(f, 1));
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
