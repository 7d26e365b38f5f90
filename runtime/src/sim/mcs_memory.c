/* mcs_memory.c - the simulator's memory: one layout of every buffer, sized by what the options
 * use (mcs_sim_memory_features), carved from the caller's block (mcs_sim_assign) or from the
 * two work arrays of mcs_sim_init (every feature, every shape at its largest). The same code
 * counts and carves, so the sizes can never disagree with the layout; the MCS_SIM_*_SIZE and
 * MCS_SIM_MEMORY_REALS macros are checked equal to it by tests/runtime/test_sim.c. */
#include "sim/mcs_stages.h"

/* The basis routines' work: the QR always, the alignment of up to f columns, the predictor's
 * n^2 (euler) or 7 n^2 (exp); one after the other, so the largest. */
static size_t basis_work_size(const mcs_layout *l)
{
    size_t need = MCS_BASIS_QR_WORK_SIZE((size_t)l->n, (size_t)l->m);
    const size_t align = MCS_BASIS_ALIGN_WORK_SIZE((size_t)l->f);
    const size_t predict = ((l->features & MCS_MEM_EXP) != 0U)     ? (7U * l->n * l->n)
                           : ((l->features & MCS_MEM_EULER) != 0U) ? (l->n * l->n)
                                                                   : 0U;
    need = MAX2(need, align);
    return MAX2(need, predict);
}

/* The memory bits of the features' methods (mcs_methods) that are adaptive (which_adaptive 1) or
 * first-same-as-last (0): nonzero when the layout has such a method. */
static unsigned methods_with(unsigned feat, int which_adaptive)
{
    unsigned bits = 0U;
    int m;
    for (m = 0; m < MCS_METHOD_COUNT; ++m) {
        const mcs_method_info *mi = &mcs_methods[m];
        if ((mi->flags &
             ((which_adaptive != 0) ? MCS_METHOD_FLAG_ADAPTIVE : MCS_METHOD_FLAG_FSAL)) != 0U) {
            bits |= mi->memory;
        }
    }
    return feat & bits;
}

/* Whether stage buffer k is needed: a method every layout has (memory 0) or one of the features
 * has that many stages. */
static unsigned stage_needed(unsigned feat, int k)
{
    int m;
    for (m = 0; m < MCS_METHOD_COUNT; ++m) {
        const mcs_method_info *mi = &mcs_methods[m];
        if ((k < mi->stages) && ((mi->memory == 0U) || ((feat & mi->memory) != 0U))) {
            return 1U;
        }
    }
    return 0U;
}

/* Lays out everything the features use; with null arrays it only counts. */
static void carve_all(mcs_carver *c, mcs_sim *s, const mcs_layout *l)
{
    const unsigned feat = l->features;
    const unsigned locks = feat & MCS_MEM_LOCKS;
    const unsigned adaptive = methods_with(feat, 1);
    const unsigned fsal = methods_with(feat, 0);
#if MCS_WITH_IMPLICIT
    const unsigned implicit = feat & MCS_MEM_IMPLICIT;
#endif
    const size_t n = l->n;
    const size_t k = l->k;
    const size_t f = l->f;
    const size_t mr = MAX2(l->m, 1U);
    const size_t r_max = mcs_carve_kmin(l);
    int i;
    s->w.bz = NULL; /* the banded layout's (set by mcs_variant_carve when it is this one) */
    s->w.bx = NULL;
    s->w.bq = NULL;
    s->w.bwin = NULL;
    s->w.kkt = NULL;
    s->w.kkt_rhs = NULL;
    mcs_variant_carve(c, s, l); /* the frames, A, A_nz, A_dot, M and G of the layout's variant */
    s->w.Z = mcs_carve_take(c, n * f); /* G^-1 A_S T (r x f); n scratch; H T of the assembly */
    s->w.Phi = mcs_carve_take(c, n * f);
    s->w.MPhi = mcs_carve_take(c, n * f);
    s->w.Mred = mcs_carve_take(c, f * f);
    s->w.That = mcs_carve_take(c, n * f);
    s->w.Tpred = mcs_carve_take(c, n * f);
    s->w.c = mcs_carve_take(c, mr);
    s->w.c_t = mcs_carve_take(c, mr);
    s->w.gamma = mcs_carve_take(c, mr);
    s->w.f = mcs_carve_take(c, n);
    s->w.f_u = mcs_carve_take(c, n);
    s->w.p = mcs_carve_take(c, k);
    s->w.xs = mcs_carve_take(c, n);
    s->w.vs = mcs_carve_take(c, n);
    s->w.tmp2 = mcs_carve_take(c, k);
    s->w.rhs = mcs_carve_take(c, k);
    s->w.tmp = mcs_carve_take(c, k);
    s->w.y0 = mcs_carve_take(c, 2U * f);
    s->w.y1 = mcs_carve_take(c, 2U * f);
    s->w.ys = mcs_carve_take(c, 2U * f);
    s->w.yerr = mcs_carve_take_if(c, adaptive | (feat & MCS_MEM_DENSE_OUTPUT), 2U * f);
    for (i = 0; i < MCS_SIM_STAGES; ++i) { /* as many as the layout's methods have */
        s->w.k[i] = mcs_carve_take_if(c, stage_needed(feat, i), 2U * f);
    }
    s->w.a_end = mcs_carve_take_if(c, fsal, n);
#if MCS_WITH_IMPLICIT
    /* the chart Jacobian's work: the compact layout's forms its stiff part (mcs_linearize.c) */
    s->w.jac = mcs_carve_take_if(c, implicit,
                                 ((feat & MCS_MEM_COMPACT) != 0U)
                                     ? ((n * n) + (2U * n) + (3U * f * f))
                                     : MCS_SIM_LINEARIZE_WORK_SIZE((size_t)n, l->m, (size_t)0U));
    s->w.jac_E = mcs_carve_take_if(c, implicit, f * f);
    s->w.jac_F = mcs_carve_take_if(c, implicit, 2U * f);
    s->w.jac_g = mcs_carve_take_if(c, implicit, 2U * f);
#endif
    s->event.x = mcs_carve_take_if(c, feat & MCS_MEM_EVENTS, n);
    s->event.rdiag = mcs_carve_take_if(c, feat & MCS_MEM_EVENTS, k);
    s->event.continued = mcs_carve_take_if(c, feat & MCS_MEM_EVENTS, n * n);
    s->event.motions = mcs_carve_take_if(c, feat & MCS_MEM_EVENTS, n * n);
    s->w.basis_work = mcs_carve_take(c, basis_work_size(l));
    s->w.x_lo = mcs_carve_take(c, n);
    s->w.xq = mcs_carve_take(c, n);
    s->w.start = mcs_carve_take(c, 2U * n);
    s->w.dpdq = mcs_carve_take(c, r_max * f);
    s->w.q_last = mcs_carve_take(c, f);
    s->w.p_last = mcs_carve_take(c, r_max);
    mcs_variant_carve_ints(c, s, l); /* w.ipiv and w.kkt_ipiv */
    s->lock_key = (locks != 0U) ? mcs_carve_itake(c, k) : NULL;
    s->lock_group = (locks != 0U) ? mcs_carve_itake(c, k) : NULL;
    s->lock_rows = (locks != 0U) ? mcs_carve_itake(c, k) : NULL;
    s->lock_ref_at = (locks != 0U) ? mcs_carve_itake(c, k) : NULL;
    s->lock_ref = mcs_carve_take_if(c, locks, 4U * k);
    s->lock_a = mcs_carve_take_if(c, locks, k * n);
    s->lock_g = mcs_carve_take_if(c, locks, k + 3U);
    /* a group lock's G, or the held initial velocities [H | h] (nheld x (n + 1)) */
    s->lock_G = mcs_carve_take(c, (locks != 0U) ? ((k + 3U) * k) : (MAX2(l->held, 1U) * (n + 1U)));
    s->w.basis_iwork = mcs_carve_itake(c, k);
#if MCS_WITH_IMPLICIT
    s->w.jac_ipiv = (implicit != 0U) ? mcs_carve_itake(c, n) : NULL;
#endif
}

static size_t max_dof(const mcs_model *model, const mcs_options *opt, unsigned features);

static mcs_layout layout_of(const mcs_model *model, const mcs_options *opt, unsigned features)
{
    mcs_layout l;
    l.n = (size_t)model->nx;
    l.m = (size_t)model->nc + (size_t)opt->max_locks;
    l.k = MCS_SIM_K((size_t)l.n, (size_t)l.m);
    l.f = max_dof(model, opt, features);
    l.held = (size_t)MAX2(model->nheld, 0);
    l.a_nnz = (size_t)MAX2(model->a_nnz, 0);
    l.m_nnz = (size_t)MAX2(model->m_nnz, 0);
    l.bw = (model->band != NULL) ? (size_t)MAX2(model->band->width, 1) : 0U;
    l.nrot = (model->band != NULL) ? (size_t)MAX2(model->band->nrot, 0) : 0U;
    l.kb = (model->band != NULL) ? (size_t)MAX2(model->band->kkt_band, 0) : 0U;
    l.variant = mcs_variant_of_layout(features);
    l.features = features;
    return l;
}

/* mcs_sim_init's layout for n, m: every feature, every shape at its largest */
static mcs_layout full_layout(int n, int m)
{
    mcs_layout l;
    l.n = (size_t)n;
    l.m = (size_t)m;
    l.k = MCS_SIM_K((size_t)l.n, (size_t)l.m);
    l.f = l.n;
    l.held = l.k + 2U;   /* (k + 3) k >= (held) (n + 1) for any held <= n */
    l.a_nnz = l.n * l.m; /* any model's nonzeros (room for a compact run too) */
    l.m_nnz = 0U;
    l.bw = 0U; /* no banded run: mcs_sim_assign's layout only */
    l.nrot = 0U;
    l.kb = 0U;
    l.variant = mcs_variant_of_layout(MCS_MEM_ALL); /* the full layout: any run but banded */
    l.features = MCS_MEM_ALL;
    return l;
}

mcs_status mcs_sim_workspace_size(int n, int m, size_t *reals, size_t *ints)
{
    mcs_carver c = {0, 0, 0, 0};
    mcs_sim scratch;
    mcs_layout l;
    if ((n < 1) || (m < 0) || (n > MCS_MAX_DIM) || (m > MCS_MAX_DIM) || !reals || !ints) {
        return MCS_ERR_ARGUMENT;
    }
    l = full_layout(n, m);
    carve_all(&c, &scratch, &l);
    *reals = c.used;
    *ints = c.iused;
    return MCS_OK;
}

/* The largest number of free directions the buffers are shaped for. */
static size_t max_dof(const mcs_model *model, const mcs_options *opt, unsigned features)
{
    /* dense output, events and locks meet bases of any size (a probe's rank, a singular
     * configuration, a lock released): the whole n */
    const unsigned any = MCS_MEM_DENSE_OUTPUT | MCS_MEM_EVENTS | MCS_MEM_LOCKS;
    if (((features & any) != 0U) || (opt->max_dof > model->nx)) {
        return (size_t)model->nx;
    }
    if (opt->max_dof >= 1) {
        return (size_t)opt->max_dof;
    }
    return mcs_variant_default_dof(model, mcs_variant_of_layout(features));
}

/* reals, then the ints after them (rounded up to whole reals) */
static size_t block_reals(const mcs_carver *c)
{
    return c->used + (((c->iused * sizeof(int)) + sizeof(mcs_real) - 1U) / sizeof(mcs_real));
}

size_t mcs_sim_memory_size(const mcs_model *model, const mcs_options *opt)
{
    mcs_carver c = {0, 0, 0, 0};
    mcs_sim scratch;
    mcs_layout l;
    if (mcs_options_check(model, opt) != MCS_OK) {
        return 0U;
    }
    l = layout_of(model, opt, mcs_sim_memory_features(opt));
    carve_all(&c, &scratch, &l);
    return block_reals(&c) * sizeof(mcs_real);
}

mcs_status mcs_sim_assign(mcs_sim *s, const mcs_model *model, const void *params,
                          const mcs_options *opt, void *raw, size_t size)
{
    mcs_carver c = {0, 0, 0, 0};
    mcs_layout l;
    size_t need;
    mcs_status st;
    if (!s || !params || !raw) {
        return MCS_ERR_ARGUMENT;
    }
    st = mcs_options_check(model, opt);
    if (st != MCS_OK) {
        return st;
    }
    l = layout_of(model, opt, mcs_sim_memory_features(opt));
    carve_all(&c, s, &l);
    need = block_reals(&c) * sizeof(mcs_real);
    if (size < need) {
        return MCS_ERR_WORKSPACE;
    }
    c.w = raw; /* aligned for mcs_real by the caller (mcs_sim.h) */
    c.iw = (void *)&c.w[c.used];
    c.used = 0U;
    c.iused = 0U;
    carve_all(&c, s, &l);
    mcs_bind(s, model, params, opt, l.features, (int)l.f);
    return MCS_OK;
}

mcs_status mcs_sim_init(mcs_sim *s, const mcs_model *model, const void *params,
                        const mcs_options *opt, mcs_real *work, size_t work_len, int *iwork,
                        size_t iwork_len)
{
    mcs_carver c = {0, 0, 0, 0};
    size_t need;
    size_t ineed;
    mcs_layout l;
    mcs_status st;
    if (!s || !params || !work || !iwork) {
        return MCS_ERR_ARGUMENT;
    }
    st = mcs_options_check(model, opt);
    if (st != MCS_OK) {
        return st;
    }
    if (mcs_variant_needs_assign(opt) != 0) {
        return MCS_ERR_UNSUPPORTED; /* its layout is mcs_sim_assign's (the structure's sizes) */
    }
    /* room for the model's rows and the locks it may take */
    if (mcs_sim_workspace_size(model->nx, model->nc + opt->max_locks, &need, &ineed) != MCS_OK) {
        return MCS_ERR_ARGUMENT;
    }
    if ((work_len < need) || (iwork_len < ineed)) {
        return MCS_ERR_WORKSPACE;
    }
    l = full_layout(model->nx, model->nc + opt->max_locks);
    c.w = work;
    c.iw = iwork;
    carve_all(&c, s, &l);
    mcs_bind(s, model, params, opt, MCS_MEM_ALL, model->nx);
    return MCS_OK;
}
