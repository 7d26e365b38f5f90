/* mcs_frame.c - frames: the factorization of A^T at a state (rank, sigma, the traditional basis)
 * and the continuation of the tangent basis from one frame to the next (SPEC §2-§3). The default
 * simulator's here, the compact one's in mcs_compact.c; MCS_WITH_DEFAULT_CHART = 0 leaves the
 * default's out. */

#include "sim/mcs_sim_internal.h"

void mcs_q_carry(int f_from, const mcs_real *q_from, const mcs_real *dq, int f_to, mcs_real *q_to)
{
    int i;
    for (i = 0; i < f_to; ++i) {
        if (i >= f_from) {
            q_to[i] = MCS_R(0.0);
        } else if (dq != NULL) {
            q_to[i] = q_from[i] + dq[i];
        } else {
            q_to[i] = q_from[i];
        }
    }
}

/* |R_{r-1, r-1}| / |R_00| of a factored frame (1 when r = 0): how far from losing rank r. */
mcs_real mcs_frame_ratio(const mcs_sim *s, const mcs_frame *fr, int r)
{
    const mcs_real r00 = mcs_fabs(fr->R[0]);
    if ((r <= 0) || (s->m == 0) || !(r00 > MCS_R(0.0))) {
        return 1;
    }
    if (MCS_BANDED(s)) {
        return fr->sigma; /* its R is banded (m x w), r = m: mcs_banded_factor's estimate */
    }
    return mcs_fabs(fr->R[(r - 1) + ((r - 1) * s->n)]) / r00;
}

#if MCS_WITH_DEFAULT_CHART
/* mcs_frame_factor of the default simulator: the explicit Q. */
static mcs_status default_factor(mcs_sim *s, mcs_frame *fr)
{
    int info;
    if (s->m > 0) {
        mcs_rows_A(s, fr->x, fr->t, s->w.A);
    }
    info = mcs_qr_basis(s->n, s->m, s->w.A, MAX2(s->m, 1), s->opt.rank_tol, fr->Q, fr->R, fr->piv,
                        &fr->r, s->w.basis_work);
    s->stats.factorizations++;
    fr->T = &fr->Q[fr->r * s->n];
    fr->sigma = mcs_frame_ratio(s, fr, fr->r);
    if (info != 0) {
        return MCS_ERR_LINALG;
    }
    /* more free directions than the memory was shaped for (options.max_dof) */
    return ((s->n - fr->r) > s->f_max) ? MCS_ERR_WORKSPACE : MCS_OK;
}

/* mcs_frame_predict of the default simulator. */
static mcs_status default_predict(mcs_sim *s, const mcs_frame *from, mcs_real h)
{
    const int n = s->n;
    const mcs_model *md = s->model;
    mcs_sparse_rows rows;
    const mcs_sparse_rows *by_rows = NULL; /* &rows when A_dot is given by its nonzeros */
    mcs_status st;
    if (s->opt.continuation == MCS_CONT_OFF) {
        return MCS_OK;
    }
    if ((s->m > 0) && (s->opt.continuation != MCS_CONT_NONE)) {
        if ((md->nc > 0) && (md->A_dot == NULL)) {
            return MCS_ERR_UNSUPPORTED; /* options changed after mcs_sim_init checked them */
        }
        if ((s->m == md->nc) && (md->A_dot_nz != NULL) && (md->a_nnz > 0)) {
            /* the model's rows alone (no lock): A_dot by its nonzeros in A's pattern, without
             * writing and scanning the dense rows for them */
            md->A_dot_nz(from->x, from->v, from->t, s->params, s->w.A_dot);
            rows.start = md->a_row_start;
            rows.at = md->a_row_nz;
            rows.col = md->a_cols;
            rows.val = s->w.A_dot;
            rows.nnz = md->a_nnz;
            by_rows = &rows;
        } else {
            mcs_rows_A_dot(s, from->x, from->v, from->t, s->w.A_dot);
        }
    }
    if (by_rows != NULL) {
        st = mcs_predict_tangent_rows(n, s->m, from->r, from->Q, from->R, from->piv, by_rows, h,
                                      s->opt.continuation, s->w.Tpred, s->w.basis_work,
                                      s->w.basis_iwork);
    } else {
        st =
            mcs_predict_tangent(n, s->m, from->r, from->Q, from->R, from->piv, s->w.A_dot, h,
                                s->opt.continuation, s->w.Tpred, s->w.basis_work, s->w.basis_iwork);
    }
    return (st != MCS_OK) ? MCS_ERR_LINALG : MCS_OK;
}

/* mcs_frame_align of the default simulator (T^ is in place: Q[:, r:]). */
static mcs_status default_align(mcs_sim *s, int f_old, mcs_frame *to)
{
    const int n = s->n;
    const int f_new = n - to->r;
    if (s->opt.continuation == MCS_CONT_OFF) {
        return MCS_OK;
    }
    mcs_mat_copy(n, f_new, to->T, n, s->w.That, n);
    if (mcs_align_basis(n, f_old, s->w.Tpred, f_new, s->w.That, to->T, s->w.basis_work) != MCS_OK) {
        return MCS_ERR_LINALG;
    }
    return MCS_OK;
}
#endif /* MCS_WITH_DEFAULT_CHART */

/* A(x, t)^T P = Q R into fr (Q = the fresh Q^). */
mcs_status mcs_frame_factor(mcs_sim *s, mcs_frame *fr)
{
    if (MCS_BANDED(s)) {
        return mcs_banded_factor(s, fr);
    }
#if MCS_WITH_DEFAULT_CHART
    if (s->opt.compact == 0) {
        return default_factor(s, fr);
    }
#endif
#if MCS_WITH_COMPACT
    return mcs_compact_factor(s, fr);
#else
    return MCS_ERR_UNSUPPORTED; /* compact left out: mcs_sim_check refuses it */
#endif
}

/* Load the state (t, x, v) into the probe frame and factor it there. */
mcs_status mcs_probe_factor(mcs_sim *s, mcs_real t, const mcs_real *x, const mcs_real *v)
{
    int i;
    s->probe.t = t;
    for (i = 0; i < s->n; ++i) {
        s->probe.x[i] = x[i];
        s->probe.v[i] = v[i];
    }
    return mcs_frame_factor(s, &s->probe);
}

/* The tangent basis predicted from the chart `from` over h into w.Tpred (n x f, f = n - from->r;
 * SPEC §3.1-4). */
mcs_status mcs_frame_predict(mcs_sim *s, const mcs_frame *from, mcs_real h)
{
    if (MCS_BANDED(s)) {
        return mcs_banded_predict(s, from, h);
    }
#if MCS_WITH_DEFAULT_CHART
    if (s->opt.compact == 0) {
        return default_predict(s, from, h);
    }
#endif
#if MCS_WITH_COMPACT
    return mcs_compact_predict(s, from, h);
#else
    return MCS_ERR_UNSUPPORTED; /* compact left out: mcs_sim_check refuses it */
#endif
}

/* `to` has been factored (Q = [U^ T^]): its T becomes T^ aligned with the prediction w.Tpred of
 * f_old columns (SPEC §3.6-7). */
mcs_status mcs_frame_align(mcs_sim *s, int f_old, mcs_frame *to)
{
    if (MCS_BANDED(s)) {
        return mcs_banded_align(s, f_old, to);
    }
#if MCS_WITH_DEFAULT_CHART
    if (s->opt.compact == 0) {
        return default_align(s, f_old, to);
    }
#endif
#if MCS_WITH_COMPACT
    return mcs_compact_align(s, f_old, to);
#else
    return MCS_ERR_UNSUPPORTED; /* compact left out: mcs_sim_check refuses it */
#endif
}

/* fr has been factored (Q = [U^ T^]); replace its T by the basis continued from the chart `from`
 * over h (SPEC §3). */
mcs_status mcs_frame_continue_basis(mcs_sim *s, const mcs_frame *from, mcs_real h, mcs_frame *to)
{
    const mcs_status st = mcs_frame_predict(s, from, h);
    return (st != MCS_OK) ? st : mcs_frame_align(s, s->n - from->r, to);
}

void mcs_frame_Tt(mcs_sim *s, const mcs_frame *fr, const mcs_real *y, mcs_real *out)
{
    const int n = s->n;
    const int f = n - fr->r;
    if (MCS_BANDED(s)) {
        mcs_banded_Tt(s, fr, y, out);
        return;
    }
    mcs_mat_gemm(1, 0, f, 1, n, 1, fr->T, n, y, n, 0, out, MAX2(f, 1));
}

/* ---------------------------------------------------------------- queries (mcs_sim.h) */

mcs_status mcs_sim_basis(mcs_sim *s, mcs_real *T)
{
    int f;
    if (!s || !s->ready || !T) {
        return MCS_ERR_ARGUMENT;
    }
    f = s->n - s->cur.r;
    if (MCS_BANDED(s) && (s->opt.continuation == MCS_CONT_OFF)) {
        mcs_banded_form_T(s, &s->cur, T); /* implicit in the rotations */
        return MCS_OK;
    }
    mcs_mat_copy(s->n, f, s->cur.T, s->n, T, s->n);
    return MCS_OK;
}

mcs_status mcs_sim_rdiag(mcs_sim *s, mcs_real *d)
{
    const int k = (s != NULL) ? MIN2(s->n, s->m) : 0;
    int i;
    if (!s || !s->ready || !d) {
        return MCS_ERR_ARGUMENT;
    }
    if (MCS_BANDED(s)) { /* R (m x w): row c's diagonal first */
        for (i = 0; i < k; ++i) {
            d[i] = mcs_fabs(s->cur.R[i * s->model->band->width]);
        }
        return MCS_OK;
    }
#if MCS_WITH_COMPACT
    if (s->opt.compact != 0) { /* the frames share one factorization: the current one's */
        const mcs_status st = mcs_compact_ensure(s, &s->cur);
        if (st != MCS_OK) {
            return st;
        }
    }
#endif
    for (i = 0; i < k; ++i) {
        d[i] = mcs_fabs(s->cur.R[i + (i * s->n)]);
    }
    return MCS_OK;
}
