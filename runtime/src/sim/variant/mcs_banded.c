/* mcs_banded.c - the banded simulator (options.banded; README "Large models"): the motion of SPEC
 * §2-§4 at a cost that grows like n, for large mechanisms whose constraints are banded after the
 * generator's ordering (chains, ladders). mcs_band.c has its linear algebra.
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
#include "sim/mcs_sim_internal.h"

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

/* Whether T is implicit (continuation off: Q's tangent columns) rather than fr->T. */
static int implicit_T(const mcs_sim *s)
{
    return (s->opt.continuation == MCS_CONT_OFF) ? 1 : 0;
}

/* out (n) = Q z for z (by slot) = [p at R's rows (r), q at the tangent slots (f)]: U p + T^ q;
 * p or q may be NULL (0). Writes w.bz. */
static void apply_q(mcs_sim *s, const mcs_frame *fr, const mcs_real *p, const mcs_real *q,
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
    if (implicit_T(s) != 0) {
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
    if (implicit_T(s) != 0) {
        apply_q(s, fr, NULL, q, out);
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
        apply_q(s, fr, NULL, s->w.bq, col);
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
    apply_q(s, fr, s->w.tmp, NULL, out);
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
    if (implicit_T(s) != 0) {
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
        apply_q(s, from, &Os[i * m], NULL, s->w.bx);
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
    if (implicit_T(s) != 0) {
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
        apply_q(s, to, NULL, s->w.bq, &to->T[j * n]);
    }
    return MCS_OK;
}

/* ---------------------------------------------------------------- the chart (SPEC §4) */

/* x = x_k + T q + U p at (q, p = w.p) on the chart ch, into x; Tq (n) holds T q (explicit T) */
static void chart_point(mcs_sim *s, const mcs_frame *ch, const mcs_real *q, const mcs_real *Tq,
                        mcs_real *x)
{
    int i;
    if (implicit_T(s) != 0) {
        apply_q(s, ch, s->w.p, q, s->w.bx);
        for (i = 0; i < s->n; ++i) {
            x[i] = ch->x[i] + s->w.bx[i];
        }
        return;
    }
    apply_q(s, ch, s->w.p, NULL, s->w.bx);
    for (i = 0; i < s->n; ++i) {
        x[i] = ch->x[i] + (Tq[i] + s->w.bx[i]);
    }
}

mcs_status mcs_banded_map(mcs_sim *s, const mcs_frame *ch, const mcs_real *q, const mcs_real *qd,
                          mcs_real t, mcs_real *x, mcs_real *v)
{
    const mcs_model *md = s->model;
    const mcs_band_structure *bs = md->band;
    const int n = s->n;
    const int m = s->m;
    const int f = n - ch->r;
    const int w = bs->width;
    const mcs_real tol = s->opt.newton_tol * MAX2(MCS_R(1.0), mcs_vec_max_abs(n, ch->x));
    mcs_real *Tq = s->w.xq;
    mcs_real *dp = s->w.rhs;
    mcs_real last = MCS_R(0.0);
    int i;
    int it;
    if (implicit_T(s) == 0) {
        mcs_mat_gemm(0, 0, n, 1, f, 1, ch->T, n, q, MAX2(f, 1), 0, Tq, n);
    }
    it = 0;
    for (;;) { /* the chord Newton: dp = -R^-T c_S */
        mcs_real dp_norm;
        chart_point(s, ch, q, Tq, x);
        mcs_rows_c(s, x, t, s->w.c);
        for (i = 0; i < m; ++i) {
            dp[i] = -s->w.c[bs->c_order[i]];
        }
        mcs_band_solve_rt(m, w, ch->R, dp);
        dp_norm = mcs_vec_max_abs(m, dp);
        if (dp_norm < MCS_R(0.0)) {
            return MCS_ERR_NONFINITE;
        }
        for (i = 0; i < m; ++i) {
            s->w.p[i] += dp[i];
        }
        s->stats.newton_iterations++;
        if (dp_norm <= tol) {
            chart_point(s, ch, q, Tq, x);
            break;
        }
        if (((it > 0) && (dp_norm > (MCS_R(0.9) * last))) || ((it + 1) >= s->opt.newton_max_iter)) {
            /* the chord does not contract: too far from its chart, or (a chart near losing rank)
             * at a singular configuration, where the banded simulator stops (both retaken) */
            return (ch->sigma < mcs_sim_watch_level(s)) ? MCS_ERR_SINGULAR_CHART : MCS_ERR_NEWTON;
        }
        last = dp_norm;
        ++it;
    }
    if (s->w.want_lo != 0) { /* the step's end: x = x_k + (x_k's low part + d), split exactly */
        for (i = 0; i < n; ++i) {
            const mcs_real a = ch->x[i];
            const mcs_real d = ((ch->x_lo != NULL) ? ch->x_lo[i] : MCS_R(0.0)) + (x[i] - a);
            const mcs_real sum = a + d;
            const mcs_real dd = sum - a;
            s->w.x_lo[i] = (a - (sum - dd)) + (d - dd);
            x[i] = sum;
        }
    }
    /* v = T qd + U sigma with A(x) v + c_t = 0: sigma by refinement on R^T */
    mcs_banded_T(s, ch, qd, v);
    md->A_nz(x, t, s->params, s->w.A);
    mcs_rows_c_t(s, x, t, s->w.c_t);
    last = MCS_R(0.0);
    it = 0;
    for (;;) {
        mcs_real ds;
        mcs_compact_A_times(s, v, s->w.c); /* residual -(A v + c_t) in constraint order */
        for (i = 0; i < m; ++i) {
            dp[i] = -(s->w.c[bs->c_order[i]] + s->w.c_t[bs->c_order[i]]);
        }
        mcs_band_solve_rt(m, w, ch->R, dp);
        apply_q(s, ch, dp, NULL, s->w.bx);
        for (i = 0; i < n; ++i) {
            v[i] += s->w.bx[i];
        }
        ds = mcs_vec_max_abs(m, dp);
        if (ds < MCS_R(0.0)) {
            return MCS_ERR_NONFINITE;
        }
        if ((ds <= (MCS_R(4.0) * MCS_REAL_EPS * MAX2(MCS_R(1.0), mcs_vec_max_abs(n, v)))) ||
            ((it > 0) && (ds > (MCS_R(0.5) * last)))) {
            break; /* converged, or at the rounding floor */
        }
        if ((it + 1) >= s->opt.newton_max_iter) {
            return MCS_ERR_SINGULAR_CHART;
        }
        last = ds;
        ++it;
    }
    return MCS_OK;
}

/* [[M, A^T], [A, 0]] (xdd, lambda) = (f, gamma) at (x, v, t), A's nonzeros at x in w.A: the
 * solution in w.kkt_rhs, variables in the structure's order (kkt_pos). */
static mcs_status kkt_solve(mcs_sim *s, const mcs_real *x, const mcs_real *v, mcs_real t)
{
    const mcs_model *md = s->model;
    const mcs_band_structure *bs = md->band;
    const int n = s->n;
    const int m = s->m;
    const int N = n + m;
    const int kb = bs->kkt_band;
    const int ld = (3 * kb) + 1;
    mcs_real *ab = s->w.kkt;
    mcs_real *b = s->w.kkt_rhs;
    int i;
    int k;
    md->M_nz(x, t, s->params, s->w.M);
    md->f(x, v, t, s->params, s->w.f);
    mcs_rows_gamma(s, x, v, t, s->w.gamma);
    for (i = 0; i < (N * ld); ++i) {
        ab[i] = MCS_R(0.0);
    }
    for (k = 0; k < md->m_nnz; ++k) {
        const int pi = bs->kkt_pos[md->m_rows[k]];
        const int pj = bs->kkt_pos[md->m_cols[k]];
        ab[((2 * kb) + (pi - pj)) + (pj * ld)] = s->w.M[k];
    }
    for (k = 0; k < md->a_nnz; ++k) {
        const int pr = bs->kkt_pos[n + md->a_rows[k]];
        const int pc = bs->kkt_pos[md->a_cols[k]];
        ab[((2 * kb) + (pr - pc)) + (pc * ld)] = s->w.A[k];
        ab[((2 * kb) + (pc - pr)) + (pr * ld)] = s->w.A[k];
    }
    for (i = 0; i < n; ++i) {
        b[bs->kkt_pos[i]] = s->w.f[i];
    }
    for (i = 0; i < m; ++i) {
        b[bs->kkt_pos[n + i]] = s->w.gamma[i];
    }
    if (mcs_band_lu(N, kb, ab, s->w.kkt_ipiv) != 0) {
        return MCS_ERR_MASS_NOT_PD; /* M not definite on the tangent space */
    }
    mcs_band_lu_solve(N, kb, ab, s->w.kkt_ipiv, b);
    return (mcs_vec_max_abs(N, b) < MCS_R(0.0)) ? MCS_ERR_NONFINITE : MCS_OK;
}

mcs_status mcs_banded_rhs(mcs_sim *s, const mcs_frame *ch, const mcs_real *y, mcs_real t,
                          mcs_real *ydot)
{
    const mcs_band_structure *bs = s->model->band;
    const int n = s->n;
    const int f = n - ch->r;
    mcs_real *xdd = s->w.Z; /* left for DOPRI5's next first stage (mcs_integrate.c) */
    mcs_status st;
    int i;
    st = mcs_banded_map(s, ch, y, &y[f], t, s->w.xs, s->w.vs);
    if (st == MCS_OK) {
        st = kkt_solve(s, s->w.xs, s->w.vs, t); /* A at x: left in w.A by the map */
    }
    if (st != MCS_OK) {
        return st;
    }
    for (i = 0; i < n; ++i) {
        xdd[i] = s->w.kkt_rhs[bs->kkt_pos[i]];
    }
    for (i = 0; i < f; ++i) {
        ydot[i] = y[f + i];
    }
    mcs_banded_Tt(s, ch, xdd, &ydot[f]); /* q'' = T^T x'' */
    return (mcs_vec_max_abs(2 * f, ydot) < MCS_R(0.0)) ? MCS_ERR_NONFINITE : MCS_OK;
}

mcs_status mcs_banded_multipliers(mcs_sim *s, mcs_real t, const mcs_real *x, const mcs_real *v,
                                  mcs_real *lambda)
{
    const mcs_band_structure *bs = s->model->band;
    mcs_status st;
    int i;
    s->model->A_nz(x, t, s->params, s->w.A);
    st = kkt_solve(s, x, v, t);
    if (st != MCS_OK) {
        return st;
    }
    for (i = 0; i < s->m; ++i) { /* M xdd + A^T lambda = f */
        lambda[i] = s->w.kkt_rhs[bs->kkt_pos[s->n + i]];
    }
    return MCS_OK;
}
