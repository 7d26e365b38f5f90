/* mcs_memory.c - the simulator's memory: one layout of every buffer, sized by what the options
 * use (mcs_sim_memory_features), carved from the caller's block (mcs_sim_assign) or from the
 * two work arrays of mcs_sim_init (every feature, every shape at its largest). The layout is
 * mcs_sim_memory.h's one list of buffers, which the MCS_SIM_*_SIZE and MCS_SIM_MEMORY_REALS
 * macros sum and this file carves (counting first): the sizes cannot disagree with the layout. */
#include "sim/mcs_stages.h"

/* The one list of buffers (mcs_sim_memory.h's MCS_SIM_BUFFERS) as the carver: its entries' names
 * mean here what they carve, in two passes, each a function of its own: every pointer NULL first
 * (clear_all: a buffer the layout leaves out), then each buffer the layout has (carve_used), the
 * shared ones pointed at theirs. A frame's buffers (MCS_SIM_FRAME_BUFFERS, MCS_SIM_STATE_BUFFERS)
 * are a function's of their own, once for each frame. Each pass gives the entry names only the
 * meaning it needs (a pass that tested which pass it is, in every entry of one function, took
 * Cppcheck's value flow minutes: MISRA's check of the runtime waited on it). (The size macros'
 * meanings are not used here.) */
#define CLEAR 2
#define CARVE 3
#undef MCS_SIM_FBUF
#undef MCS_SIM_FIBUF
#define MCS_SIM_FBUF(sel, fr, member, count) \
    ((*(fr)).member) = ((sel) == CARVE) ? mcs_carve_take(c, (count)) : NULL;
#define MCS_SIM_FIBUF(sel, fr, member, count) \
    ((*(fr)).member) = ((sel) == CARVE) ? mcs_carve_itake(c, (count)) : NULL;

static void carve_frame(mcs_carver *c, mcs_frame *fr, size_t n, size_t mr, size_t kmin, size_t F)
{
    MCS_SIM_FRAME_BUFFERS(CARVE, fr, n, mr, kmin, F)
    fr->T = fr->Q; /* &Q[r n] once factored */
}

static void carve_state(mcs_carver *c, mcs_frame *fr, size_t n, size_t F)
{
    MCS_SIM_STATE_BUFFERS(CARVE, fr, n, F)
}

/* Every buffer of fr NULL (those of a full layout's frame and of a state), its scalars as a fresh
 * layout leaves them. */
static void clear_frame(mcs_carver *c, mcs_frame *fr)
{
    const size_t none = 0U; /* the sizes a clearing pass does not read */
    MCS_SIM_FRAME_BUFFERS(CLEAR, fr, none, none, none, none)
    MCS_SIM_STATE_BUFFERS(CLEAR, fr, none, none)
    mcs_frame_reset(fr);
}

/* The first pass: every pointer of the list NULL, whatever the layout (an entry's condition and
 * size are not read). */
#undef MCS_SIM_BUF
#undef MCS_SIM_IBUF
#undef MCS_SIM_SHARE
#undef MCS_SIM_FRAME
#undef MCS_SIM_STATE
#define MCS_SIM_BUF(sel, member, on, count) ((*s).member) = NULL;
#define MCS_SIM_IBUF(sel, member, on, count) ((*s).member) = NULL;
#define MCS_SIM_SHARE(sel, member, source, on) ((*s).member) = NULL;
#define MCS_SIM_FRAME(sel, fr, on, n, mr, kmin, F) clear_frame(c, &((*s).fr));
#define MCS_SIM_STATE(sel, fr, on, n, F) /* its buffers are its frame's: cleared with them */

static void clear_all(mcs_carver *c, mcs_sim *s)
{
    /* the sizes and features a clearing pass does not read */
    MCS_SIM_BUFFERS(CLEAR, 0U, 0U, 0U, 0U, 0U, 0U, 0U, 0U, 0U, 0U, 0U, 0U, 0U)
}

/* The second pass: each buffer the layout has, from the carver (or counted, with null arrays). */
#undef MCS_SIM_BUF
#undef MCS_SIM_IBUF
#undef MCS_SIM_SHARE
#undef MCS_SIM_FRAME
#undef MCS_SIM_STATE
#define MCS_SIM_BUF(sel, member, on, count) \
    if ((on) != 0) { \
        ((*s).member) = mcs_carve_take(c, (size_t)(count)); \
    }
#define MCS_SIM_IBUF(sel, member, on, count) \
    if ((on) != 0) { \
        ((*s).member) = mcs_carve_itake(c, (size_t)(count)); \
    }
#define MCS_SIM_SHARE(sel, member, source, on) \
    if ((on) != 0) { \
        ((*s).member) = ((*s).source); \
    }
#define MCS_SIM_FRAME(sel, fr, on, n, mr, kmin, F) \
    if ((on) != 0) { \
        carve_frame(c, &((*s).fr), (n), (mr), (kmin), (F)); \
    }
#define MCS_SIM_STATE(sel, fr, on, n, F) \
    if ((on) != 0) { \
        carve_state(c, &((*s).fr), (n), (F)); \
    }

static void carve_used(mcs_carver *c, mcs_sim *s, const mcs_layout *l)
{
    const size_t n = l->n;
    const size_t m = l->m;
    const size_t mr = MAX2(m, 1U);
    const size_t K = l->k;
    const size_t kmin = MAX2(MIN2(n, m), 1U);
    const size_t F = l->f;
    const size_t an = l->a_nnz;
    const size_t mn = l->m_nnz;
    const size_t bw = l->bw;
    const size_t nr = l->nrot;
    const size_t kb = l->kb;
    const size_t held = l->held;
    const unsigned feat = l->features;
    MCS_SIM_BUFFERS(CARVE, n, m, mr, K, kmin, F, an, mn, bw, nr, kb, held, feat)
}

/* Lays out everything the layout's features use; with null arrays it only counts. */
static void carve_all(mcs_carver *c, mcs_sim *s, const mcs_layout *l)
{
    clear_all(c, s);
    carve_used(c, s, l);
}

static mcs_layout layout_of(const mcs_model *model, const mcs_options *opt, unsigned features)
{
    mcs_layout l;
    l.n = (size_t)model->nx;
    l.m = (size_t)model->nc + (size_t)opt->max_locks;
    l.k = MCS_SIM_K((size_t)l.n, (size_t)l.m);
    l.f = (size_t)MCS_SIM_F(model->nx, model->nc + opt->max_locks, opt->max_dof, features);
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
    l.features = MCS_MEM_ALL; /* the full layout: any run but a banded one */
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
