/* mcs_compact.c - the compact variant (MCS_VARIANT_COMPACT, mcs_sim.h; docs/reference/firmware.md): the
 * same motion as the dense one in a fraction of its memory, for microcontrollers. This file: its
 * options, layout, frames and basis (mcs_compact_chart.c: the chart). A leaf: mcs_variant.c
 * alone calls it (mcs_variants.h). MCS_WITH_COMPACT = 0 leaves it out.
 *
 *  - A factorization A^T P = Q R stays as mcs_la_qr_pivoted leaves it: R above the diagonal,
 *    Q's reflectors below it (n x m), never the n x n Q. U p and U^T y apply the reflectors; the
 *    tangent basis T (n x f) is each frame's own. In mcs_sim_assign's compact layout both frames
 *    share one factorization: the chart's is computed again (the same bits) when the other
 *    frame's has taken its place (a step ended, or dense output read the last step).
 *  - A and M are used as their nonzeros (the model's A_nz and M_nz) in sparse products.
 *
 * What it leaves out (the options' check answers MCS_ERR_UNSUPPORTED, mcs_sim_refusals says why): the probe frame (dense output
 * of q and qd, multipliers), singular-configuration events and locks.
 */
#include "sim/variant/mcs_variants.h"

#if MCS_WITH_COMPACT

/* ---------------------------------------------------------------- options and layout */

unsigned mcs_compact_refusals(const mcs_model *model, const mcs_options *opt)
{
    unsigned why = 0U; /* no probe frame, events or locks (mcs_sim.h) */
    why |= (opt->dense_output != 0) ? MCS_REFUSE_DENSE_OUTPUT : 0U;
    why |= (opt->sing_tol > MCS_R(0.0)) ? MCS_REFUSE_EVENTS : 0U;
    why |= (opt->max_locks > 0) ? MCS_REFUSE_LOCKS : 0U;
    if ((model->nc > 0) && (model->A_dot_nz == NULL) &&
        ((opt->continuation == MCS_CONT_EULER) || (opt->continuation == MCS_CONT_EXP))) {
        why |= MCS_REFUSE_NEEDS_A_DOT; /* its predictors read A_dot by its nonzeros */
    }
    return why;
}

/* ---------------------------------------------------------------- factorization */

static int compact_kmin(const mcs_sim *s)
{
    return MIN2(s->n, s->m);
}

/* A(x, t)^T P = Q R into R (n x m, ld n) and tau, pivots piv, rank and sigma. Writes w.A (the
 * nonzeros of A at x, left valid) and w.basis_work. */
static mcs_status factor_at(mcs_sim *s, const mcs_real *x, mcs_real t, mcs_real *R, mcs_real *tau,
                            int *piv, int *rank, mcs_real *sigma)
{
    const mcs_model *md = s->model;
    const int n = s->n;
    const int m = s->m;
    const int kmin = compact_kmin(s);
    const int lwork = (int)MCS_LINALG_LWORK_QR((size_t)MCS_SIM_K(n, m));
    int i;
    int k;
    *rank = 0;
    *sigma = MCS_R(1.0);
    s->stats.factorizations++;
    if (m == 0) {
        return MCS_OK;
    }
    md->A_nz(x, t, s->params, s->w.A);
    for (i = 0; i < (n * m); ++i) {
        R[i] = MCS_R(0.0);
    }
    for (k = 0; k < md->a_nnz; ++k) { /* A^T: row i of A is column i */
        R[md->a_cols[k] + (md->a_rows[k] * n)] = s->w.A[k];
    }
    if (mcs_vec_max_abs(n * m, R) < MCS_R(0.0)) {
        return MCS_ERR_NONFINITE;
    }
    if (mcs_la_qr_pivoted(n, m, R, n, piv, tau, s->w.basis_work, lwork) != 0) {
        return MCS_ERR_LINALG;
    }
    if ((mcs_vec_max_abs(n * m, R) < MCS_R(0.0)) || (mcs_vec_max_abs(kmin, tau) < MCS_R(0.0))) {
        return MCS_ERR_NONFINITE;
    }
    *rank = mcs_qr_rank(n, kmin, R, n, s->opt.rank_tol);
    if (*rank > 0) {
        *sigma = mcs_fabs(R[(*rank - 1) + ((*rank - 1) * n)]) / mcs_fabs(R[0]);
    }
    return MCS_OK;
}

mcs_status mcs_compact_factor(mcs_sim *s, mcs_frame *fr)
{
    const mcs_status st = factor_at(s, fr->x, fr->t, fr->R, fr->tau, fr->piv, &fr->r, &fr->sigma);
    s->w.qr_x = NULL;
    if (st != MCS_OK) {
        return st;
    }
    s->w.qr_x = fr->x;
    return ((s->n - fr->r) > s->f_max) ? MCS_ERR_WORKSPACE : MCS_OK;
}

mcs_status mcs_compact_ensure(mcs_sim *s, const mcs_frame *fr)
{
    int r = 0;
    mcs_real sigma = MCS_R(1.0);
    mcs_status st;
    if ((s->cur.R != s->prev.R) || (s->w.qr_x == fr->x)) {
        return MCS_OK; /* its own storage, or the shared one holds it */
    }
    /* the storage both frames share (the chart is const to its users) */
    st = factor_at(s, fr->x, fr->t, s->cur.R, s->cur.tau, s->cur.piv, &r, &sigma);
    s->w.qr_x = NULL;
    if (st == MCS_OK) {
        s->w.qr_x = fr->x;
    }
    if ((st == MCS_OK) && (r != fr->r)) {
        return MCS_ERR_LINALG; /* not the same factorization: cannot happen (deterministic) */
    }
    return st;
}

void mcs_compact_U(const mcs_sim *s, const mcs_frame *fr, const mcs_real *p, mcs_real *out)
{
    const int n = s->n;
    int i;
    for (i = 0; i < n; ++i) {
        out[i] = (i < fr->r) ? p[i] : MCS_R(0.0);
    }
    mcs_qr_apply(n, compact_kmin(s), fr->R, n, fr->tau, 0, out);
}

void mcs_compact_Ut(const mcs_sim *s, const mcs_frame *fr, mcs_real *y)
{
    mcs_qr_apply(s->n, compact_kmin(s), fr->R, s->n, fr->tau, 1, y);
}

void mcs_compact_form_T(const mcs_sim *s, const mcs_frame *fr, mcs_real *T)
{
    const int n = s->n;
    const int f = n - fr->r;
    int i;
    int j;
    for (j = 0; j < f; ++j) {
        mcs_real *col = &T[j * n];
        for (i = 0; i < n; ++i) {
            col[i] = (i == (fr->r + j)) ? MCS_R(1.0) : MCS_R(0.0);
        }
        mcs_qr_apply(n, compact_kmin(s), fr->R, n, fr->tau, 0, col);
    }
}

/* ---------------------------------------------------------------- the basis (SPEC §3) */

#if MCS_WITH_PREDICTORS
/* T~ (w.Tpred) by the euler or exp predictor from the chart `from` over h (r > 0, f > 0). */
static mcs_status compact_predict_rotated(mcs_sim *s, const mcs_frame *from, mcs_real h)
{
    const mcs_model *md = s->model;
    const int n = s->n;
    const int r = from->r;
    const int f = n - r;
    mcs_real *J = s->w.basis_work; /* (n x r): [U^T; T^T] A_dot_S^T */
    mcs_real *col = s->w.tmp;
    mcs_real *E;
    mcs_status st;
    int i;
    int j;
    int k;
    if (md->A_dot_nz == NULL) {
        return MCS_ERR_UNSUPPORTED;
    }
    st = mcs_compact_ensure(s, from);
    if (st != MCS_OK) {
        return st;
    }
    md->A_dot_nz(from->x, from->v, from->t, s->params, s->w.A_dot);
    if (!((h - h) == MCS_R(0.0)) || (mcs_vec_max_abs(md->a_nnz, s->w.A_dot) < MCS_R(0.0))) {
        return MCS_ERR_NONFINITE;
    }
    /* column j of J: Q^T (row piv[j] of A_dot) with Q = [U T] (T the continued basis) */
    for (j = 0; j < r; ++j) {
        mcs_real *Jj = &J[j * n];
        for (i = 0; i < n; ++i) {
            col[i] = MCS_R(0.0);
        }
        for (k = 0; k < md->a_nnz; ++k) {
            if (md->a_rows[k] == from->piv[j]) {
                col[md->a_cols[k]] = s->w.A_dot[k];
            }
        }
        mcs_mat_gemm(1, 0, f, 1, n, 1, from->T, n, col, n, 0, &Jj[r], n);
        mcs_compact_Ut(s, from, col);
        for (i = 0; i < r; ++i) {
            Jj[i] = col[i];
        }
    }
    /* J <- J R_ns^-1: rows r.. give Omega_s, rows ..r Omega_L (mcs_predict_tangent) */
    mcs_mat_solve_right_upper(n, r, from->R, n, J, n);
    if (s->opt.continuation == MCS_CONT_EULER) {
        E = &J[n * r]; /* [-h Omega_s^T; I_f] */
        for (j = 0; j < f; ++j) {
            for (i = 0; i < n; ++i) {
                E[i + (j * n)] = (i < r) ? (-h * J[(r + j) + (i * n)])
                                         : ((i == (r + j)) ? MCS_R(1.0) : MCS_R(0.0));
            }
        }
    } else {
        E = &J[2 * n * n]; /* exp(h Omega)[:, r:] (omega n x n before it, 4 n x n after) */
        if (mcs_predict_exp_action(n, r, J, h, &J[n * n], E, &J[3 * n * n], s->w.basis_iwork) !=
            0) {
            return MCS_ERR_LINALG;
        }
    }
    /* T~ = [U T] E (E: n x f) */
    for (j = 0; j < f; ++j) {
        mcs_compact_U(s, from, &E[j * n], col);
        mcs_mat_gemm(0, 0, n, 1, f, 1, from->T, n, &E[r + (j * n)], n, 1, col, n);
        mcs_mat_copy(n, 1, col, n, &s->w.Tpred[j * n], n);
    }
    return (mcs_vec_max_abs(n * f, s->w.Tpred) < MCS_R(0.0)) ? MCS_ERR_NONFINITE : MCS_OK;
}
#endif

mcs_status mcs_compact_predict(mcs_sim *s, const mcs_frame *from, mcs_real h)
{
    const int f = s->n - from->r;
    mcs_mat_copy(s->n, f, from->T, s->n, s->w.Tpred, s->n);
    if ((s->opt.continuation == MCS_CONT_OFF) || (s->opt.continuation == MCS_CONT_NONE) ||
        (from->r == 0) || (f == 0)) {
        return MCS_OK;
    }
#if MCS_WITH_PREDICTORS
    return compact_predict_rotated(s, from, h);
#else
    (void)h;
    return MCS_ERR_UNSUPPORTED; /* left out of this build (mcs_config.h) */
#endif
}

mcs_status mcs_compact_align(mcs_sim *s, int f_old, mcs_frame *to)
{
    const int n = s->n;
    const int f_new = n - to->r;
    if (s->opt.continuation == MCS_CONT_OFF) {
        mcs_compact_form_T(s, to, to->T); /* the traditional basis: T^ itself */
        return MCS_OK;
    }
    mcs_compact_form_T(s, to, s->w.That);
    if (mcs_align_basis(n, f_old, s->w.Tpred, f_new, s->w.That, to->T, s->w.basis_work) != MCS_OK) {
        return MCS_ERR_LINALG;
    }
    return MCS_OK;
}

/* ---------------------------------------------------------------- what the stages need */

void mcs_compact_min_norm(mcs_sim *s, const mcs_frame *fr, const mcs_real *b, mcs_real *out)
{
    const int r = fr->r;
    int i;
    for (i = 0; i < r; ++i) {
        s->w.tmp[i] = -b[fr->piv[i]];
    }
    mcs_mat_solve_upper_transposed(r, fr->R, s->n, s->w.tmp);
    mcs_compact_U(s, fr, s->w.tmp, out);
}

void mcs_compact_Ut_p(mcs_sim *s, const mcs_frame *ch, mcs_real *y)
{
    /* U^T applies the reflectors of the chart's factorization */
    const mcs_status ok = mcs_compact_ensure(s, ch);
    int i;
    if (ok == MCS_OK) {
        mcs_compact_Ut(s, ch, y);
    }
    for (i = 0; i < ch->r; ++i) {
        s->w.p[i] = (ok == MCS_OK) ? y[i] : MCS_R(0.0);
    }
}

#endif /* MCS_WITH_COMPACT */
