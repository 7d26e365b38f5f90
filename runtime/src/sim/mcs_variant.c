/* mcs_variant.c - the one file that tells the simulator's variants apart (options.variant,
 * mcs_sim.h): each operation whose code differs by variant is a switch on it here, and calls the
 * variant's own function (sim/variant/, declared in mcs_variants.h); the stages above call the
 * operations and never name a variant. A variant left out of the build (mcs_config.h's
 * MCS_WITH_*) falls to the default case: the options' check refuses it first. Switches, not
 * function pointers: the call graph stays static for the worst-case stack (scripts/stack-usage).
 */
#include "sim/mcs_operations.h"
#include "sim/variant/mcs_variants.h"

/* ---------------------------------------------------------------- frames (SPEC §2-§3) */

mcs_status mcs_frame_factor(mcs_sim *s, mcs_frame *fr)
{
    switch (s->opt.variant) {
#if MCS_WITH_DENSE
    case MCS_VARIANT_DENSE: return mcs_dense_factor(s, fr);
#endif
#if MCS_WITH_COMPACT
    case MCS_VARIANT_COMPACT: return mcs_compact_factor(s, fr);
#endif
#if MCS_WITH_BANDED
    case MCS_VARIANT_BANDED: return mcs_banded_factor(s, fr);
#endif
    default: return MCS_ERR_UNSUPPORTED; /* left out of this build: the options' check refuses it */
    }
}

mcs_status mcs_frame_predict(mcs_sim *s, const mcs_frame *from, mcs_real h)
{
    switch (s->opt.variant) {
#if MCS_WITH_DENSE
    case MCS_VARIANT_DENSE: return mcs_dense_predict(s, from, h);
#endif
#if MCS_WITH_COMPACT
    case MCS_VARIANT_COMPACT: return mcs_compact_predict(s, from, h);
#endif
#if MCS_WITH_BANDED
    case MCS_VARIANT_BANDED: return mcs_banded_predict(s, from, h);
#endif
    default: return MCS_ERR_UNSUPPORTED;
    }
}

mcs_status mcs_frame_align(mcs_sim *s, int f_old, mcs_frame *to)
{
    switch (s->opt.variant) {
#if MCS_WITH_DENSE
    case MCS_VARIANT_DENSE: return mcs_dense_align(s, f_old, to);
#endif
#if MCS_WITH_COMPACT
    case MCS_VARIANT_COMPACT: return mcs_compact_align(s, f_old, to);
#endif
#if MCS_WITH_BANDED
    case MCS_VARIANT_BANDED: return mcs_banded_align(s, f_old, to);
#endif
    default: return MCS_ERR_UNSUPPORTED;
    }
}

mcs_real mcs_frame_ratio(const mcs_sim *s, const mcs_frame *fr, int r)
{
    switch (s->opt.variant) {
#if MCS_WITH_BANDED
    case MCS_VARIANT_BANDED: /* R is banded (m x w), r = m: its own estimate */
        return ((r <= 0) || (s->m == 0) || !(mcs_fabs(fr->R[0]) > MCS_R(0.0))) ? MCS_R(1.0)
                                                                               : fr->sigma;
#endif
    default: return mcs_qr_ratio(s, fr, r);
    }
}

int mcs_frame_implicit_T(const mcs_sim *s)
{
    switch (s->opt.variant) {
#if MCS_WITH_BANDED
    case MCS_VARIANT_BANDED: return mcs_banded_implicit_T(s);
#endif
    default: return 0; /* fr->T */
    }
}

void mcs_frame_Tt(mcs_sim *s, const mcs_frame *fr, const mcs_real *y, mcs_real *out)
{
    const int n = s->n;
    const int f = n - fr->r;
    switch (s->opt.variant) {
#if MCS_WITH_BANDED
    case MCS_VARIANT_BANDED: mcs_banded_Tt(s, fr, y, out); break;
#endif
    default: mcs_mat_gemm(1, 0, f, 1, n, 1, fr->T, n, y, n, 0, out, MAX2(f, 1)); break;
    }
}

void mcs_frame_T(mcs_sim *s, const mcs_frame *fr, const mcs_real *q, mcs_real *out)
{
    const int n = s->n;
    const int f = n - fr->r;
    switch (s->opt.variant) {
#if MCS_WITH_BANDED
    case MCS_VARIANT_BANDED: mcs_banded_T(s, fr, q, out); break;
#endif
    default: mcs_mat_gemm(0, 0, n, 1, f, 1, fr->T, n, q, MAX2(f, 1), 0, out, n); break;
    }
}

void mcs_frame_basis(mcs_sim *s, const mcs_frame *fr, mcs_real *T)
{
    if (mcs_frame_implicit_T(s) != 0) {
        switch (s->opt.variant) {
#if MCS_WITH_BANDED
        case MCS_VARIANT_BANDED: mcs_banded_form_T(s, fr, T); break; /* from its rotations */
#endif
        default: break;
        }
        return;
    }
    mcs_mat_copy(s->n, s->n - fr->r, fr->T, s->n, T, s->n);
}

mcs_status mcs_frame_rdiag(mcs_sim *s, const mcs_frame *fr, mcs_real *d)
{
    const int k = MIN2(s->n, s->m);
    int i;
    switch (s->opt.variant) {
#if MCS_WITH_BANDED
    case MCS_VARIANT_BANDED: /* R (m x w): row c's diagonal first */
        for (i = 0; i < k; ++i) {
            d[i] = mcs_fabs(fr->R[i * s->model->band->width]);
        }
        return MCS_OK;
#endif
#if MCS_WITH_COMPACT
    case MCS_VARIANT_COMPACT: { /* the frames share one factorization: this frame's */
        const mcs_status st = mcs_compact_ensure(s, fr);
        if (st != MCS_OK) {
            return st;
        }
        break;
    }
#endif
    default: break;
    }
    for (i = 0; i < k; ++i) {
        d[i] = mcs_fabs(fr->R[i + (i * s->n)]);
    }
    return MCS_OK;
}

void mcs_frame_min_norm(mcs_sim *s, const mcs_frame *fr, const mcs_real *b, mcs_real *out)
{
    switch (s->opt.variant) {
#if MCS_WITH_DENSE
    case MCS_VARIANT_DENSE: mcs_dense_min_norm(s, fr, b, out); break;
#endif
#if MCS_WITH_COMPACT
    case MCS_VARIANT_COMPACT: mcs_compact_min_norm(s, fr, b, out); break;
#endif
#if MCS_WITH_BANDED
    case MCS_VARIANT_BANDED: mcs_banded_min_norm(s, fr, b, out); break;
#endif
    default: break;
    }
}

void mcs_frame_A_times(const mcs_sim *s, const mcs_real *v, mcs_real *out)
{
    switch (s->opt.variant) {
    case MCS_VARIANT_DENSE: /* w.A is m x n */
        mcs_mat_gemm(0, 0, s->m, 1, s->n, 1, s->w.A, s->m, v, s->n, 0, out, s->m);
        break;
    default: mcs_sparse_A_times(s, v, out); break; /* A's nonzeros at x */
    }
}

void mcs_frame_start_basis(mcs_sim *s, mcs_frame *fr)
{
    (void)fr; /* (a build of the dense variant alone) */
    switch (s->opt.variant) {
#if MCS_WITH_COMPACT
    case MCS_VARIANT_COMPACT:
        mcs_compact_form_T(s, fr, fr->T);
        break; /* T^ (a full frame has it) */
#endif
#if MCS_WITH_BANDED
    case MCS_VARIANT_BANDED:
        if (mcs_banded_implicit_T(s) == 0) {
            mcs_banded_form_T(s, fr, fr->T); /* the basis to continue starts as T^ */
        }
        break;
#endif
    default: break; /* T^ is in place: Q[:, r:] */
    }
}

/* ---------------------------------------------------------------- the chart (SPEC §4) */

mcs_status mcs_chart_map(mcs_sim *s, const mcs_frame *ch, const mcs_real *q, const mcs_real *qd,
                         mcs_real t, mcs_real *x, mcs_real *v)
{
    switch (s->opt.variant) {
#if MCS_WITH_DENSE
    case MCS_VARIANT_DENSE: return mcs_dense_map(s, ch, q, qd, t, x, v);
#endif
#if MCS_WITH_COMPACT
    case MCS_VARIANT_COMPACT: return mcs_compact_map(s, ch, q, qd, t, x, v);
#endif
#if MCS_WITH_BANDED
    case MCS_VARIANT_BANDED: return mcs_banded_map(s, ch, q, qd, t, x, v);
#endif
    default: return MCS_ERR_UNSUPPORTED;
    }
}

mcs_status mcs_chart_rhs(mcs_sim *s, const mcs_frame *ch, const mcs_real *y, mcs_real t,
                         mcs_real *ydot)
{
    s->stats.evaluations++;
    switch (s->opt.variant) {
#if MCS_WITH_DENSE
    case MCS_VARIANT_DENSE: return mcs_dense_rhs(s, ch, y, t, ydot);
#endif
#if MCS_WITH_COMPACT
    case MCS_VARIANT_COMPACT: return mcs_compact_rhs(s, ch, y, t, ydot);
#endif
#if MCS_WITH_BANDED
    case MCS_VARIANT_BANDED: return mcs_banded_rhs(s, ch, y, t, ydot);
#endif
    default: return MCS_ERR_UNSUPPORTED;
    }
}

void mcs_chart_end_acceleration(mcs_sim *s, const mcs_real *k_last)
{
    switch (s->opt.variant) {
#if MCS_WITH_BANDED
    case MCS_VARIANT_BANDED: /* its rhs leaves x'' itself in w.Z */
        mcs_mat_copy(s->n, 1, s->w.Z, s->n, s->w.a_end, s->n);
        break;
#endif
    default: mcs_chart_acceleration(s, k_last); break;
    }
}

void mcs_chart_Ut_p(mcs_sim *s, const mcs_frame *ch, mcs_real *y)
{
    switch (s->opt.variant) {
#if MCS_WITH_DENSE
    case MCS_VARIANT_DENSE: mcs_dense_Ut_p(s, ch, y); break;
#endif
#if MCS_WITH_COMPACT
    case MCS_VARIANT_COMPACT: mcs_compact_Ut_p(s, ch, y); break;
#endif
#if MCS_WITH_BANDED
    case MCS_VARIANT_BANDED: mcs_banded_Ut(s, ch, y, s->w.p); break; /* the chart's rotations */
#endif
    default: break;
    }
}

/* ---------------------------------------------------------------- what a variant offers */

mcs_status mcs_variant_mass_times(mcs_sim *s, const mcs_real *x, mcs_real t, const mcs_real *v,
                                  mcs_real *out)
{
    switch (s->opt.variant) {
    case MCS_VARIANT_DENSE: /* w.M is n x n */
        s->model->M(x, t, s->params, s->w.M);
        mcs_mat_gemm(0, 0, s->n, 1, s->n, 1, s->w.M, s->n, v, s->n, 0, out, s->n);
        return MCS_OK;
    default: return mcs_sparse_mass_times(s, x, t, v, out); /* w.M holds M's nonzeros only */
    }
}

int mcs_variant_has_probe(const mcs_sim *s)
{
    return ((s->opt.variant == MCS_VARIANT_DENSE) && (s->probe.Q != NULL)) ? 1 : 0;
}

int mcs_variant_explicit_q(const mcs_sim *s)
{
    return ((s->opt.variant == MCS_VARIANT_DENSE) && (s->cur.Q != NULL)) ? 1 : 0;
}

int mcs_variant_takes_locks(const mcs_sim *s)
{
    return (s->opt.variant != MCS_VARIANT_COMPACT) ? 1 : 0;
}

int mcs_variant_own_multipliers(const mcs_sim *s)
{
    return (s->opt.variant == MCS_VARIANT_BANDED) ? 1 : 0;
}

mcs_status mcs_variant_multipliers(mcs_sim *s, mcs_real t, const mcs_real *x, const mcs_real *v,
                                   mcs_real *xdd, mcs_real *lambda)
{
    switch (s->opt.variant) {
#if MCS_WITH_BANDED
    case MCS_VARIANT_BANDED: return mcs_banded_multipliers(s, t, x, v, xdd, lambda); /* KKT */
#endif
    default:
        (void)t;
        (void)x;
        (void)v;
        (void)xdd;
        (void)lambda;
        return MCS_ERR_UNSUPPORTED;
    }
}

/* ---------------------------------------------------------------- options */

const char *mcs_variant_name(mcs_variant variant)
{
    switch (variant) {
    case MCS_VARIANT_DENSE: return "dense";
    case MCS_VARIANT_COMPACT: return "compact";
    case MCS_VARIANT_BANDED: return "banded";
    default: return NULL;
    }
}

int mcs_variant_valid(const mcs_options *opt)
{
    /* unsigned: one test covers negative values too, whatever type the ABI gives enums */
    return ((unsigned)opt->variant <= (unsigned)MCS_VARIANT_BANDED) ? 1 : 0;
}

unsigned mcs_variant_refusals(const mcs_model *model, const mcs_options *opt)
{
    (void)model; /* (a build of the dense variant alone) */
    switch (opt->variant) {
#if MCS_WITH_COMPACT
    case MCS_VARIANT_COMPACT: return mcs_compact_refusals(model, opt);
#endif
#if MCS_WITH_BANDED
    case MCS_VARIANT_BANDED: return mcs_banded_refusals(model, opt);
#endif
    default: return 0U; /* the dense variant takes every option; one left out: its part */
    }
}

unsigned mcs_variant_part(mcs_variant variant)
{
    switch (variant) {
    case MCS_VARIANT_DENSE: return MCS_PART_DENSE;
    case MCS_VARIANT_COMPACT: return MCS_PART_COMPACT;
    case MCS_VARIANT_BANDED: return MCS_PART_BANDED;
    default: return 0U;
    }
}

/* ---------------------------------------------------------------- memory */

unsigned mcs_variant_memory_features(const mcs_options *opt)
{
    switch (opt->variant) {
    case MCS_VARIANT_COMPACT: return MCS_MEM_COMPACT;
    case MCS_VARIANT_BANDED: return MCS_MEM_BANDED;
    default: return 0U; /* the full layout */
    }
}

int mcs_variant_needs_assign(const mcs_options *opt)
{
    return (opt->variant == MCS_VARIANT_BANDED) ? 1 : 0;
}

mcs_status mcs_variant_fits(const mcs_sim *s, unsigned need)
{
    int banded_layout = 0;
    int banded_run = 0;
    if ((s->features & MCS_MEM_BANDED) != 0U) {
        banded_layout = 1;
    }
#if MCS_WITH_BANDED
    if (s->opt.variant == MCS_VARIANT_BANDED) {
        banded_run = 1;
    }
#endif
    /* a compact run fits in any layout; a compact layout holds only a compact run */
    if (((need & ~s->features & ~MCS_MEM_COMPACT) != 0U) ||
        (((s->features & MCS_MEM_COMPACT) != 0U) && ((need & MCS_MEM_COMPACT) == 0U))) {
        return MCS_ERR_ARGUMENT;
    }
    /* a banded layout holds only a banded run, and a banded run needs its layout */
    if (banded_layout != banded_run) {
        return MCS_ERR_ARGUMENT;
    }
    if ((s->opt.variant == MCS_VARIANT_COMPACT) && (s->opt.sing_tol > MCS_R(0.0))) {
        return MCS_ERR_UNSUPPORTED; /* options changed after the check */
    }
    return MCS_OK;
}
