/* mcs_banded.c - the banded variant (MCS_VARIANT_BANDED, mcs_sim.h; docs/explanation/large-models.md): the
 * motion of SPEC §2-§4 at a cost that grows like n, for large mechanisms whose constraints are
 * banded after the generator's ordering (chains, ladders). This file: its options, layout, frames
 * and basis (mcs_banded_chart.c: the chart); linalg/mcs_band.c has its linear algebra. A leaf:
 * mcs_variant.c alone calls it (mcs_variants.h). MCS_WITH_BANDED = 0 leaves it out.
 *
 *  - A frame factors A^T = Q [R; 0] by rows and Givens rotations along the model's structure:
 *    R (m x w) banded, Q kept as its rotations. U p and T^T y apply them, O(n w).
 *  - The traditional basis (continuation off) stays implicit: T q and T^T y are applications of
 *    Q. With continuation none or euler T is the frame's own n x f matrix, aligned with the
 *    prediction through Q (O(f n w + f^3) a step).
 *  - The chart Newton is a chord Newton on the chart's R (A_S(x_k) U = R^T), v comes from a
 *    refinement on the same factor, and the acceleration from the KKT system
 *    [[M, A^T], [A, 0]] (xdd, lambda) = (f, gamma) by a banded LU: q'' = T^T xdd, the same ODE
 *    as Maggi-Kane's (Phi^T M Phi) q'' = Phi^T (f - M beta) (SPEC §4), without the f x f matrix.
 *
 * It takes: a model with rows and a banded structure (model->band), A of full row rank along the motion (no redundant rows, no singular configuration:
 * a factorization with sigma below rank_tol is MCS_ERR_SINGULAR_CHART), continuation off, none
 * or euler, no dense output of q and qd, no events, no locks (else MCS_ERR_UNSUPPORTED). */
#include "linalg/mcs_band.h"
#include "sim/variant/mcs_variants.h"

#if MCS_WITH_BANDED

/* ---------------------------------------------------------------- options and layout */

unsigned mcs_banded_refusals(const mcs_model *model, const mcs_options *opt)
{
    unsigned why = 0U; /* what the banded variant takes: mcs_sim.h */
    why |= ((model->band == NULL) || (model->nc < 1)) ? MCS_REFUSE_NO_BAND : 0U;
    why |= (opt->dense_output != 0) ? MCS_REFUSE_DENSE_OUTPUT : 0U;
    why |= (mcs_method_has(opt->method, MCS_METHOD_FLAG_IMPLICIT) != 0) ? MCS_REFUSE_IMPLICIT : 0U;
    why |= (opt->sing_tol > MCS_R(0.0)) ? MCS_REFUSE_EVENTS : 0U;
    why |= (opt->max_locks > 0) ? MCS_REFUSE_LOCKS : 0U;
    why |= (opt->continuation == MCS_CONT_EXP) ? MCS_REFUSE_CONTINUATION : 0U;
    if ((opt->continuation == MCS_CONT_EULER) && (model->A_dot_nz == NULL)) {
        why |= MCS_REFUSE_NEEDS_A_DOT; /* its predictor reads A_dot by its nonzeros */
    }
    return why;
}

/* ---------------------------------------------------------------- frames */

mcs_status mcs_banded_factor(mcs_sim *s, mcs_frame *fr)
{
    const mcs_band_structure *bs = s->model->band;
    const int m = s->m;
    const int w = bs->width;
    mcs_real rmax = MCS_R(0.0);
    mcs_real rmin;
    int c;
    s->stats.factorizations++;
    fr->r = m;
    fr->sigma = MCS_R(1.0);
    s->model->A_nz(fr->x, fr->t, s->params, s->w.A);
    if (mcs_band_qr(s->model, s->w.A, fr->R, fr->tau, &fr->tau[bs->nrot], s->w.bwin) != 0) {
        return MCS_ERR_NONFINITE;
    }
    for (c = 0; c < m; ++c) {
        const mcs_real d = mcs_fabs(fr->R[c * w]);
        rmax = MAX2(rmax, d);
    }
    rmin = rmax;
    for (c = 0; c < m; ++c) {
        const mcs_real d = mcs_fabs(fr->R[c * w]);
        rmin = MIN2(rmin, d);
    }
    fr->sigma = MCS_R(0.0);
    if (rmax > MCS_R(0.0)) {
        fr->sigma = rmin / rmax;
    }
    if (!(fr->sigma > s->opt.rank_tol)) {
        /* dependent rows, or a singular configuration: not for the banded simulator */
        return (fr->sigma < MCS_R(0.0)) ? MCS_ERR_NONFINITE : MCS_ERR_SINGULAR_CHART;
    }
    return ((s->n - fr->r) > s->f_max) ? MCS_ERR_WORKSPACE : MCS_OK;
}

/* the rotations' cosines and sines of a banded frame (both in fr->tau) */
static const mcs_real *cos_of(const mcs_frame *fr)
{
    return fr->tau;
}

static const mcs_real *sin_of(const mcs_sim *s, const mcs_frame *fr)
{
    return &fr->tau[s->model->band->nrot];
}

int mcs_banded_implicit_T(const mcs_sim *s)
{
    return (s->opt.continuation == MCS_CONT_OFF) ? 1 : 0;
}

void mcs_banded_apply_q(mcs_sim *s, const mcs_frame *fr, const mcs_real *p, const mcs_real *q,
                        mcs_real *out)
{
    const mcs_band_structure *bs = s->model->band;
    mcs_real *z = s->w.bz;
    int k;
    int j = 0;
    for (k = 0; k < s->n; ++k) {
        const int c = bs->place[k];
        if (c >= 0) {
            z[k] = (p != NULL) ? p[c] : MCS_R(0.0);
        } else {
            z[k] = (q != NULL) ? q[j] : MCS_R(0.0);
            ++j;
        }
    }
    mcs_band_q(s->model, cos_of(fr), sin_of(s, fr), z, out);
}

/* Q^T y into w.bz (by slot): U^T y at R's rows, T^^T y at the tangent slots. */
static void apply_qt(mcs_sim *s, const mcs_frame *fr, const mcs_real *y)
{
    mcs_band_qt(s->model, cos_of(fr), sin_of(s, fr), y, s->w.bz);
}

/* the tangent slots' entries of w.bz (T^^T y after apply_qt) into out (f) */
static void tangent_part(mcs_sim *s, mcs_real *out)
{
    const mcs_band_structure *bs = s->model->band;
    int k;
    int j = 0;
    for (k = 0; k < s->n; ++k) {
        if (bs->place[k] < 0) {
            out[j] = s->w.bz[k];
            ++j;
        }
    }
}

void mcs_banded_Tt(mcs_sim *s, const mcs_frame *fr, const mcs_real *y, mcs_real *out)
{
    const int n = s->n;
    const int f = n - fr->r;
    if (mcs_banded_implicit_T(s) != 0) {
        apply_qt(s, fr, y);
        tangent_part(s, out);
        return;
    }
    mcs_mat_gemm(1, 0, f, 1, n, 1, fr->T, n, y, n, 0, out, MAX2(f, 1));
}

void mcs_banded_Ut(mcs_sim *s, const mcs_frame *fr, const mcs_real *y, mcs_real *p)
{
    const mcs_band_structure *bs = s->model->band;
    int c;
    apply_qt(s, fr, y);
    for (c = 0; c < s->m; ++c) {
        p[c] = s->w.bz[bs->owner[c]];
    }
}

void mcs_banded_T(mcs_sim *s, const mcs_frame *fr, const mcs_real *q, mcs_real *out)
{
    const int n = s->n;
    const int f = n - fr->r;
    if (mcs_banded_implicit_T(s) != 0) {
        mcs_banded_apply_q(s, fr, NULL, q, out);
        return;
    }
    mcs_mat_gemm(0, 0, n, 1, f, 1, fr->T, n, q, MAX2(f, 1), 0, out, n);
}

void mcs_banded_form_T(mcs_sim *s, const mcs_frame *fr, mcs_real *T)
{
    const int n = s->n;
    const int f = n - fr->r;
    int j;
    int i;
    for (j = 0; j < f; ++j) { /* T^ e_j: Q at tangent slot j */
        mcs_real *col = &T[j * n];
        for (i = 0; i < f; ++i) {
            s->w.bq[i] = (i == j) ? MCS_R(1.0) : MCS_R(0.0);
        }
        mcs_banded_apply_q(s, fr, NULL, s->w.bq, col);
    }
}

void mcs_banded_min_norm(mcs_sim *s, const mcs_frame *fr, const mcs_real *b, mcs_real *out)
{
    const mcs_band_structure *bs = s->model->band;
    const int m = s->m;
    int c;
    for (c = 0; c < m; ++c) {
        s->w.tmp[c] = -b[bs->c_order[c]];
    }
    mcs_band_solve_rt(m, bs->width, fr->R, s->w.tmp);
    mcs_banded_apply_q(s, fr, s->w.tmp, NULL, out);
}

/* ---------------------------------------------------------------- the basis (SPEC §3) */

mcs_status mcs_banded_predict(mcs_sim *s, const mcs_frame *from, mcs_real h)
{
    const mcs_model *md = s->model;
    const mcs_band_structure *bs = md->band;
    const int n = s->n;
    const int m = s->m;
    const int f = n - from->r;
    mcs_real *Os = s->w.Z; /* (f x m) Omega_s = T^T A_dot_S^T R^-1, row i at i m */
    int i;
    int c;
    int k;
    if (mcs_banded_implicit_T(s) != 0) {
        return MCS_OK;
    }
    mcs_mat_copy(n, f, from->T, n, s->w.Tpred, n);
    if ((s->opt.continuation == MCS_CONT_NONE) || (m == 0) || (f == 0)) {
        return MCS_OK;
    }
    if ((s->opt.continuation != MCS_CONT_EULER) || (md->A_dot_nz == NULL)) {
        return MCS_ERR_UNSUPPORTED;
    }
    md->A_dot_nz(from->x, from->v, from->t, s->params, s->w.A_dot);
    if (!((h - h) == MCS_R(0.0)) || (mcs_vec_max_abs(md->a_nnz, s->w.A_dot) < MCS_R(0.0))) {
        return MCS_ERR_NONFINITE;
    }
    /* J (f x m) = T^T A_dot_S^T, column c from row c_order[c]'s nonzeros; then each row of J
     * times R^-1 (R^-T on it as a column) */
    for (i = 0; i < (f * m); ++i) {
        Os[i] = MCS_R(0.0);
    }
    for (k = 0; k < md->a_nnz; ++k) {
        const int c_of = bs->c_pos[md->a_rows[k]];
        const mcs_real a = s->w.A_dot[k];
        const mcs_real *Tj = &from->T[md->a_cols[k]];
        if (a != MCS_R(0.0)) {
            for (i = 0; i < f; ++i) {
                Os[(i * m) + c_of] += Tj[i * n] * a;
            }
        }
    }
    for (i = 0; i < f; ++i) {
        mcs_band_solve_rt(m, bs->width, from->R, &Os[i * m]);
    }
    /* T~ = T - h U Omega_s^T: column i of U Omega_s^T is U (row i of Omega_s) */
    for (i = 0; i < f; ++i) {
        mcs_real *col = &s->w.Tpred[i * n];
        mcs_banded_apply_q(s, from, &Os[i * m], NULL, s->w.bx);
        for (c = 0; c < n; ++c) {
            col[c] -= h * s->w.bx[c];
        }
    }
    return (mcs_vec_max_abs(n * f, s->w.Tpred) < MCS_R(0.0)) ? MCS_ERR_NONFINITE : MCS_OK;
}

mcs_status mcs_banded_align(mcs_sim *s, int f_old, mcs_frame *to)
{
    const int n = s->n;
    const int f = n - to->r;
    mcs_real *C = s->w.basis_work;         /* (f x f) T~^T T^ */
    mcs_real *Y = &s->w.basis_work[f * f]; /* (f x f) */
    mcs_real *W = &Y[f * f];               /* (f x f) */
    mcs_real *Z = &W[f * f];               /* (f x f) */
    int i;
    int j;
    if (mcs_banded_implicit_T(s) != 0) {
        return MCS_OK;
    }
    if (f_old != f) {
        return MCS_ERR_SINGULAR_CHART; /* a rank change: not for the banded simulator */
    }
    for (i = 0; i < f; ++i) { /* row i of C = (T^^T T~_i)^T */
        apply_qt(s, to, &s->w.Tpred[i * n]);
        tangent_part(s, s->w.bq);
        for (j = 0; j < f; ++j) {
            C[i + (j * f)] = s->w.bq[j];
        }
    }
    if (mcs_polar_near_orthogonal(f, C, Y, W, Z) != 0) {
        return MCS_ERR_LINALG; /* far from orthogonal: a step far too long for the basis */
    }
    for (j = 0; j < f; ++j) { /* T = T^ Up^T: column j is T^ (row j of Up) */
        for (i = 0; i < f; ++i) {
            s->w.bq[i] = C[j + (i * f)];
        }
        mcs_banded_apply_q(s, to, NULL, s->w.bq, &to->T[j * n]);
    }
    return MCS_OK;
}

#endif /* MCS_WITH_BANDED */
