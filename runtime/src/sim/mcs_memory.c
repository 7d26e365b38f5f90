/* mcs_memory.c - the simulator's memory: one layout of every buffer, sized by what the options
 * use (mcs_sim_memory_features), carved from the caller's block (mcs_sim_assign) or from the
 * two work arrays of mcs_sim_init (every feature, every shape at its largest). The same code
 * counts and carves, so the sizes can never disagree with the layout; the MCS_SIM_*_SIZE and
 * MCS_SIM_MEMORY_REALS macros are checked equal to it by tests/runtime/test_sim.c. */
#include "sim/mcs_sim_internal.h"

typedef struct carver {
    mcs_real *w; /* NULL: count only */
    size_t used;
    int *iw;
    size_t iused;
} carver;

/* The dimensions of a layout: n coordinates, m rows (the model's and the lock rows), the
 * largest number of free directions f_max, the rows of the held-velocity scratch, features. */
typedef struct layout {
    size_t n;
    size_t m;
    size_t k; /* max(n, m, 1) */
    size_t f; /* 1 <= f_max <= n */
    size_t held;
    size_t a_nnz; /* the compact and banded layouts' A and M as their nonzeros */
    size_t m_nnz;
    size_t bw; /* the banded layout's: R's band, the rotations, the KKT matrix's half band */
    size_t nrot;
    size_t kb;
    unsigned features;
} layout;

static mcs_real *take(carver *c, size_t k)
{
    mcs_real *p = (c->w != NULL) ? (&c->w[c->used]) : NULL;
    c->used += k;
    return p;
}

static int *itake(carver *c, size_t k)
{
    int *p = (c->iw != NULL) ? (&c->iw[c->iused]) : NULL;
    c->iused += k;
    return p;
}

/* take(c, k) when `on`, else NULL (the buffer is not part of this layout) */
static mcs_real *take_if(carver *c, unsigned on, size_t k)
{
    return (on != 0U) ? take(c, k) : NULL;
}

/* min(n, m), at least 1: the reflectors of a factorization, the largest rank */
static size_t kmin_of(const layout *l)
{
    return MAX2(MIN2(l->n, l->m), 1U);
}

static void carve_frame(carver *c, mcs_frame *fr, const layout *l)
{
    fr->x = take(c, l->n);
    fr->x_lo = take(c, l->n);
    fr->v = take(c, l->n);
    fr->q = take(c, l->f);
    fr->Q = take(c, l->n * l->n);
    fr->T = fr->Q; /* &Q[r n] once factored (a compact simulator: its own, here) */
    fr->R = take(c, l->n * MAX2(l->m, 1U));
    fr->tau = take(c, kmin_of(l));
    fr->piv = itake(c, MAX2(l->m, 1U));
    fr->t = MCS_R(0.0);
    fr->r = 0;
    fr->sigma = MCS_R(1.0);
}

/* A compact or banded layout's frame without its factorization: x, x_lo, v, q and its own T
 * (n x f_max), no n x n Q */
static void carve_frame_state(carver *c, mcs_frame *fr, const layout *l)
{
    fr->x = take(c, l->n);
    fr->x_lo = take(c, l->n);
    fr->v = take(c, l->n);
    fr->q = take(c, l->f);
    fr->Q = NULL;
    fr->T = take(c, l->n * l->f);
    fr->t = MCS_R(0.0);
    fr->r = 0;
    fr->sigma = MCS_R(1.0);
}

/* The compact layout's frames: each its x, x_lo, v, q and T (n x f_max), one factorization
 * (R with the reflectors, tau, pivots) for both. */
static void carve_compact_frames(carver *c, mcs_sim *s, const layout *l)
{
    mcs_frame *frames[2];
    mcs_real *R;
    mcs_real *tau;
    int *piv;
    int i;
    frames[0] = &s->cur;
    frames[1] = &s->prev;
    for (i = 0; i < 2; ++i) {
        carve_frame_state(c, frames[i], l);
    }
    R = take(c, l->n * MAX2(l->m, 1U));
    tau = take(c, kmin_of(l));
    piv = itake(c, MAX2(l->m, 1U));
    for (i = 0; i < 2; ++i) {
        frames[i]->R = R;
        frames[i]->tau = tau;
        frames[i]->piv = piv;
    }
}

static void no_frame(mcs_frame *fr)
{
    fr->x = NULL;
    fr->x_lo = NULL;
    fr->v = NULL;
    fr->q = NULL;
    fr->Q = NULL;
    fr->T = NULL;
    fr->R = NULL;
    fr->tau = NULL;
    fr->piv = NULL;
    fr->t = MCS_R(0.0);
    fr->r = 0;
    fr->sigma = MCS_R(1.0);
}

/* The basis routines' work: the QR always, the alignment of up to f columns, the predictor's
 * n^2 (euler) or 7 n^2 (exp); one after the other, so the largest. */
static size_t basis_work_size(const layout *l)
{
    size_t need = MCS_BASIS_QR_WORK_SIZE((size_t)l->n, (size_t)l->m);
    const size_t align = MCS_BASIS_ALIGN_WORK_SIZE((size_t)l->f);
    const size_t predict = ((l->features & MCS_MEM_EXP) != 0U)     ? (7U * l->n * l->n)
                           : ((l->features & MCS_MEM_EULER) != 0U) ? (l->n * l->n)
                                                                   : 0U;
    need = MAX2(need, align);
    return MAX2(need, predict);
}

/* The banded layout's frames: each its x, x_lo, v, q, T (n x f_max), R (m x bw) and rotations
 * (their cosines then sines, in tau); no n x n Q and no pivots (the structure's order). */
static void carve_banded_frames(carver *c, mcs_sim *s, const layout *l)
{
    mcs_frame *frames[2];
    int i;
    frames[0] = &s->cur;
    frames[1] = &s->prev;
    for (i = 0; i < 2; ++i) {
        mcs_frame *fr = frames[i];
        carve_frame_state(c, fr, l);
        fr->R = take(c, l->m * l->bw);
        fr->tau = take(c, 2U * l->nrot);
        fr->piv = NULL;
    }
}

/* Lays out everything the features use; with null arrays it only counts. */
static void carve_all(carver *c, mcs_sim *s, const layout *l)
{
    const unsigned feat = l->features;
    const unsigned probe = feat & (MCS_MEM_DENSE | MCS_MEM_EVENTS);
    const unsigned locks = feat & MCS_MEM_LOCKS;
    const unsigned predictor = feat & (MCS_MEM_EULER | MCS_MEM_EXP);
    const size_t n = l->n;
    const size_t k = l->k;
    const size_t f = l->f;
    const size_t mr = MAX2(l->m, 1U);
    const size_t r_max = kmin_of(l);
    int i;
    s->w.bz = NULL; /* the banded layout's (set below when it is this one) */
    s->w.bx = NULL;
    s->w.bq = NULL;
    s->w.bwin = NULL;
    s->w.kkt = NULL;
    s->w.kkt_rhs = NULL;
    if ((feat & MCS_MEM_COMPACT) != 0U) {
        /* no probe (no dense q, qd, events or locks), A and M as nonzeros, no G */
        carve_compact_frames(c, s, l);
        no_frame(&s->probe);
        s->w.A = take(c, MAX2(l->a_nnz, 1U));
        s->w.A_nz = NULL; /* the nonzeros are in w.A */
        s->w.A_dot = take_if(c, predictor, MAX2(l->a_nnz, 1U));
        s->w.M = take(c, MAX2(l->m_nnz, 1U));
        s->w.G = NULL;
    } else if ((feat & MCS_MEM_BANDED) != 0U) {
        /* banded frames, A and M as nonzeros, the banded chart's vectors and KKT band */
        carve_banded_frames(c, s, l);
        no_frame(&s->probe);
        s->w.A = take(c, MAX2(l->a_nnz, 1U));
        s->w.A_nz = NULL;
        s->w.A_dot = take_if(c, predictor, MAX2(l->a_nnz, 1U));
        s->w.M = take(c, MAX2(l->m_nnz, 1U));
        s->w.G = NULL;
        s->w.bz = take(c, n);
        s->w.bx = take(c, n);
        s->w.bq = take(c, f);
        s->w.bwin = take(c, l->bw);
        s->w.kkt = take(c, (n + l->m) * ((3U * l->kb) + 1U));
        s->w.kkt_rhs = take(c, n + l->m);
    } else {
        carve_frame(c, &s->cur, l);
        carve_frame(c, &s->prev, l);
        if (probe != 0U) {
            carve_frame(c, &s->probe, l);
        } else {
            no_frame(&s->probe);
        }
        s->w.A = take(c, mr * n);
        s->w.A_nz = take(c, MAX2(l->a_nnz, 1U)); /* the chart's A (the locks' rows in w.A) */
        /* A_dot: the predictors' input, and a lock's scratch (mcs_locks.c) */
        s->w.A_dot = take_if(c, predictor | locks, mr * n);
        s->w.M = take(c, n * n);
        s->w.G = take(c, r_max * r_max); /* the LU of A_S U; the multipliers' r x r matrix */
    }
    s->w.Z = take(c, n * f); /* G^-1 A_S T (r x f); n scratch; H T of the assembly */
    s->w.Phi = take(c, n * f);
    s->w.MPhi = take(c, n * f);
    s->w.Mred = take(c, f * f);
    s->w.That = take(c, n * f);
    s->w.Tpred = take(c, n * f);
    s->w.c = take(c, mr);
    s->w.c_t = take(c, mr);
    s->w.gamma = take(c, mr);
    s->w.f = take(c, n);
    s->w.p = take(c, k);
    s->w.xs = take(c, n);
    s->w.vs = take(c, n);
    s->w.tmp2 = take(c, k);
    s->w.rhs = take(c, k);
    s->w.tmp = take(c, k);
    s->w.y0 = take(c, 2U * f);
    s->w.y1 = take(c, 2U * f);
    s->w.ys = take(c, 2U * f);
    s->w.yerr = take_if(c, feat & (MCS_MEM_DOPRI5 | MCS_MEM_DOP853 | MCS_MEM_DENSE), 2U * f);
    for (i = 0; i < MCS_SIM_STAGES; ++i) { /* RK4's 4 stages, DOPRI5's 7, DOP853's 16 */
        const unsigned adaptive = feat & (MCS_MEM_DOPRI5 | MCS_MEM_DOP853);
        s->w.k[i] =
            take_if(c, (i < 4) ? 1U : ((i < 7) ? adaptive : (feat & MCS_MEM_DOP853)), 2U * f);
    }
    s->w.a_end = take_if(c, feat & (MCS_MEM_DOPRI5 | MCS_MEM_DOP853), n);
    s->event.x = take_if(c, feat & MCS_MEM_EVENTS, n);
    s->event.rdiag = take_if(c, feat & MCS_MEM_EVENTS, k);
    s->event.continued = take_if(c, feat & MCS_MEM_EVENTS, n * n);
    s->event.motions = take_if(c, feat & MCS_MEM_EVENTS, n * n);
    s->w.basis_work = take(c, basis_work_size(l));
    s->w.x_lo = take(c, n);
    s->w.xq = take(c, n);
    s->w.start = take(c, 2U * n);
    s->w.dpdq = take(c, r_max * f);
    s->w.q_last = take(c, f);
    s->w.p_last = take(c, r_max);
    /* G's LU pivots, and the held velocities' QR pivots (nheld) */
    s->w.ipiv = itake(c, ((feat & MCS_MEM_COMPACT) != 0U) ? MAX2(l->held, 1U) : k);
    s->w.kkt_ipiv = ((feat & MCS_MEM_BANDED) != 0U) ? itake(c, n + l->m) : NULL;
    s->lock_key = (locks != 0U) ? itake(c, k) : NULL;
    s->lock_group = (locks != 0U) ? itake(c, k) : NULL;
    s->lock_rows = (locks != 0U) ? itake(c, k) : NULL;
    s->lock_ref_at = (locks != 0U) ? itake(c, k) : NULL;
    s->lock_ref = take_if(c, locks, 4U * k);
    s->lock_a = take_if(c, locks, k * n);
    s->lock_g = take_if(c, locks, k + 3U);
    /* a group lock's G, or the held initial velocities [H | h] (nheld x (n + 1)) */
    s->lock_G = take(c, (locks != 0U) ? ((k + 3U) * k) : (MAX2(l->held, 1U) * (n + 1U)));
    s->w.basis_iwork = itake(c, k);
}

static size_t max_dof(const mcs_model *model, const mcs_options *opt, unsigned features);

static layout layout_of(const mcs_model *model, const mcs_options *opt, unsigned features)
{
    layout l;
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
    l.features = features;
    return l;
}

/* mcs_sim_init's layout for n, m: every feature, every shape at its largest */
static layout full_layout(int n, int m)
{
    layout l;
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
    l.features = MCS_MEM_ALL;
    return l;
}

mcs_status mcs_sim_workspace_size(int n, int m, size_t *reals, size_t *ints)
{
    carver c = {0, 0, 0, 0};
    mcs_sim scratch;
    layout l;
    if ((n < 1) || (m < 0) || (n > MCS_MAX_DIM) || (m > MCS_MAX_DIM) || !reals || !ints) {
        return MCS_ERR_ARGUMENT;
    }
    l = full_layout(n, m);
    carve_all(&c, &scratch, &l);
    *reals = c.used;
    *ints = c.iused;
    return MCS_OK;
}

unsigned mcs_sim_memory_features(const mcs_options *opt)
{
    unsigned f = 0U;
    if (opt == NULL) {
        return MCS_MEM_ALL;
    }
    f |= (opt->method == MCS_METHOD_DOPRI5) ? MCS_MEM_DOPRI5 : 0U;
    f |= (opt->method == MCS_METHOD_DOP853) ? MCS_MEM_DOP853 : 0U;
    f |= (opt->continuation == MCS_CONT_EULER) ? MCS_MEM_EULER : 0U;
    f |= (opt->continuation == MCS_CONT_EXP) ? MCS_MEM_EXP : 0U;
    f |= (opt->dense_output != 0) ? MCS_MEM_DENSE : 0U;
    f |= (opt->sing_tol > MCS_R(0.0)) ? MCS_MEM_EVENTS : 0U;
    f |= (opt->max_locks > 0) ? MCS_MEM_LOCKS : 0U;
    f |= (opt->compact != 0) ? MCS_MEM_COMPACT : 0U;
    f |= (opt->banded != 0) ? MCS_MEM_BANDED : 0U;
    return f;
}

/* The largest number of free directions the buffers are shaped for. */
static size_t max_dof(const mcs_model *model, const mcs_options *opt, unsigned features)
{
    /* dense output, events and locks meet bases of any size (a probe's rank, a singular
     * configuration, a lock released): the whole n */
    const unsigned any = MCS_MEM_DENSE | MCS_MEM_EVENTS | MCS_MEM_LOCKS;
    if (((features & any) != 0U) || (opt->max_dof > model->nx)) {
        return (size_t)model->nx;
    }
    if (opt->max_dof >= 1) {
        return (size_t)opt->max_dof;
    }
    /* a banded run keeps the rows' full rank (else it stops): f = n - nc exactly */
    return ((features & MCS_MEM_BANDED) != 0U) ? (size_t)MAX2(model->nx - model->nc, 1)
                                               : (size_t)model->nx;
}

/* reals, then the ints after them (rounded up to whole reals) */
static size_t block_reals(const carver *c)
{
    return c->used + (((c->iused * sizeof(int)) + sizeof(mcs_real) - 1U) / sizeof(mcs_real));
}

size_t mcs_sim_memory_size(const mcs_model *model, const mcs_options *opt)
{
    carver c = {0, 0, 0, 0};
    mcs_sim scratch;
    layout l;
    if (mcs_sim_check(model, opt) != MCS_OK) {
        return 0U;
    }
    l = layout_of(model, opt, mcs_sim_memory_features(opt));
    carve_all(&c, &scratch, &l);
    return block_reals(&c) * sizeof(mcs_real);
}

mcs_status mcs_sim_assign(mcs_sim *s, const mcs_model *model, const void *params,
                          const mcs_options *opt, void *raw, size_t size)
{
    carver c = {0, 0, 0, 0};
    layout l;
    size_t need;
    mcs_status st;
    if (!s || !params || !raw) {
        return MCS_ERR_ARGUMENT;
    }
    st = mcs_sim_check(model, opt);
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
    mcs_sim_bind(s, model, params, opt, l.features, (int)l.f);
    return MCS_OK;
}

mcs_status mcs_sim_init(mcs_sim *s, const mcs_model *model, const void *params,
                        const mcs_options *opt, mcs_real *work, size_t work_len, int *iwork,
                        size_t iwork_len)
{
    carver c = {0, 0, 0, 0};
    size_t need;
    size_t ineed;
    layout l;
    mcs_status st;
    if (!s || !params || !work || !iwork) {
        return MCS_ERR_ARGUMENT;
    }
    st = mcs_sim_check(model, opt);
    if (st != MCS_OK) {
        return st;
    }
    if (opt->banded != 0) {
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
    mcs_sim_bind(s, model, params, opt, MCS_MEM_ALL, model->nx);
    return MCS_OK;
}
