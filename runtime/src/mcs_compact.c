/* mcs_compact.c - the compact simulator (options.compact; README "Firmware"): the same motion
 * as the default one in a fraction of its memory, for microcontrollers.
 *
 *  - A factorization A^T P = Q R stays as mcs_la_qr_pivoted leaves it: R above the diagonal,
 *    Q's reflectors below it (n x m), never the n x n Q. U p and U^T y apply the reflectors; the
 *    tangent basis T (n x f) is each frame's own. In mcs_sim_assign's compact layout both frames
 *    share one factorization: the chart's is computed again (the same bits) when the other
 *    frame's has taken its place (a step ended, or dense output read the last step).
 *  - The chart Newton is a chord Newton on the chart's own factor A_S(x_k) U = R_ns^T, and the
 *    systems with G = A_S(x) U at a stage (Phi, v, beta; SPEC §4) are solved by refinement on
 *    the same factor: no r x r G is formed or stored. Both converge like |x - x_k| / sigma, so
 *    steps far from singular configurations cost a few iterations more than with the default
 *    LU of G, and a stage that stops converging near one fails and is retaken (SPEC §6 rule 2).
 *  - A and M are used as their nonzeros (the model's A_nz and M_nz) in sparse products.
 *
 * What it leaves out (mcs_sim_check answers MCS_ERR_UNSUPPORTED): the probe frame (dense output
 * of q and qd, multipliers), singular-configuration events and locks.
 */
#include "mcs_sim_internal.h"

/* ---------------------------------------------------------------- sparse products */

void mcs_compact_A_times(const mcs_sim *s, const mcs_real *u, mcs_real *out)
{
    const mcs_model *md = s->model;
    int i;
    int k;
    for (i = 0; i < s->m; ++i) {
        out[i] = MCS_R(0.0);
    }
    for (k = 0; k < md->a_nnz; ++k) {
        out[md->a_rows[k]] += s->w.A[k] * u[md->a_cols[k]];
    }
}

/* out (n x ncol, ld n) = alpha M B + beta out (beta 0 or 1), M's nonzeros in w.M. */
static void m_times(const mcs_sim *s, int ncol, mcs_real alpha, const mcs_real *B, mcs_real beta,
                    mcs_real *out)
{
    const mcs_model *md = s->model;
    const int n = s->n;
    int j;
    int k;
    for (j = 0; j < ncol; ++j) {
        mcs_real *oj = &out[j * n];
        const mcs_real *bj = &B[j * n];
        if (beta == MCS_R(0.0)) {
            int i;
            for (i = 0; i < n; ++i) {
                oj[i] = MCS_R(0.0);
            }
        }
        for (k = 0; k < md->m_nnz; ++k) {
            oj[md->m_rows[k]] += alpha * (s->w.M[k] * bj[md->m_cols[k]]);
        }
    }
}

mcs_status mcs_compact_mass_times(mcs_sim *s, const mcs_real *x, mcs_real t, const mcs_real *v,
                                  mcs_real *out)
{
    s->model->M_nz(x, t, s->params, s->w.M);
    m_times(s, 1, MCS_R(1.0), v, MCS_R(0.0), out);
    return (mcs_vec_max_abs(s->n, out) < MCS_R(0.0)) ? MCS_ERR_NONFINITE : MCS_OK;
}

/* ---------------------------------------------------------------- factorization */

static int min_nm(const mcs_sim *s)
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
    const int kmin = min_nm(s);
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
    mcs_qr_apply(n, min_nm(s), fr->R, n, fr->tau, 0, out);
}

void mcs_compact_Ut(const mcs_sim *s, const mcs_frame *fr, mcs_real *y)
{
    mcs_qr_apply(s->n, min_nm(s), fr->R, s->n, fr->tau, 1, y);
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
        mcs_qr_apply(n, min_nm(s), fr->R, n, fr->tau, 0, col);
    }
}

/* ---------------------------------------------------------------- solves with G = A_S U */

/* z (r) = G^-1 b for G = A_S(x) U on the chart ch (A's nonzeros at x in w.A), b (r) in pivot
 * order, by refinement on the chart's factor G(x_k) = R_ns^T: z <- z + R_ns^-T (b - G z). b and
 * z must not be w.tmp or w.tmp2 (its scratch). MCS_ERR_SINGULAR_CHART when the refinement stops
 * contracting above the Newton tolerance (near a singular configuration: SPEC §6 rule 2). */
static mcs_status solve_G(mcs_sim *s, const mcs_frame *ch, const mcs_real *b, mcs_real *z)
{
    const int n = s->n;
    const int r = ch->r;
    mcs_real *u = s->w.tmp;
    mcs_real *w = s->w.tmp2;
    mcs_real last = MCS_R(0.0);
    int it;
    int i;
    for (i = 0; i < r; ++i) {
        z[i] = b[i];
    }
    mcs_mat_solve_upper_transposed(r, ch->R, n, z);
    for (it = 0; it < s->opt.newton_max_iter; ++it) {
        mcs_real dz;
        mcs_real zn;
        mcs_compact_U(s, ch, z, u);
        mcs_compact_A_times(s, u, w);
        for (i = 0; i < r; ++i) {
            u[i] = b[i] - w[ch->piv[i]];
        }
        mcs_mat_solve_upper_transposed(r, ch->R, n, u);
        for (i = 0; i < r; ++i) {
            z[i] += u[i];
        }
        dz = mcs_vec_max_abs(r, u);
        zn = mcs_vec_max_abs(r, z);
        if ((dz < MCS_R(0.0)) || (zn < MCS_R(0.0))) {
            return MCS_ERR_NONFINITE;
        }
        if (dz <= (MCS_R(4.0) * MCS_REAL_EPS * zn)) {
            return MCS_OK;
        }
        if ((it > 0) && (dz > (MCS_R(0.5) * last))) {
            /* no longer contracting: at the rounding floor (done), or too far from the chart's
             * factor for it (a stage near a singular configuration) */
            return (dz <= (s->opt.newton_tol * zn)) ? MCS_OK : MCS_ERR_SINGULAR_CHART;
        }
        last = dz;
    }
    return MCS_ERR_SINGULAR_CHART;
}

/* out (n) = U G^-1 b_S for a constraint-row vector b (m); uses w.c (r) and w.gamma (r) besides
 * solve_G's scratch, so b must be neither. */
static mcs_status compact_U_Ginv(mcs_sim *s, const mcs_frame *ch, const mcs_real *b, mcs_real *out)
{
    mcs_real *bs = s->w.c;
    mcs_real *z = s->w.gamma;
    mcs_status st;
    int i;
    for (i = 0; i < ch->r; ++i) {
        bs[i] = b[ch->piv[i]];
    }
    st = solve_G(s, ch, bs, z);
    if (st == MCS_OK) {
        mcs_compact_U(s, ch, z, out);
    }
    return st;
}

/* |R_ii| max / min over the chart's rank: its factor's condition estimate (the default
 * simulator's pivot ratio of G's LU, for the Newton tolerance and DOPRI5's rtol floor). */
static mcs_real chart_cond(const mcs_sim *s, const mcs_frame *ch)
{
    const int ld = s->n + 1; /* the diagonal's stride */
    mcs_real pmax = MCS_R(0.0);
    mcs_real pmin;
    int i;
    for (i = 0; i < ch->r; ++i) {
        const mcs_real d = mcs_fabs(ch->R[i * ld]);
        pmax = MAX2(pmax, d);
    }
    pmin = pmax;
    for (i = 0; i < ch->r; ++i) {
        const mcs_real d = mcs_fabs(ch->R[i * ld]);
        pmin = MIN2(pmin, d);
    }
    if (!(pmin > MCS_R(0.0))) {
        return MCS_R(1.0); /* no rows (or a zero diagonal, which the rank excludes) */
    }
    return pmax / pmin;
}

/* ---------------------------------------------------------------- the chart (SPEC §4) */

/* The chart Newton by chords: w.p such that c_S(x, t) = 0 at x = x_k + T q + U p (Tq = T q,
 * n), the iteration matrix the chart's own A_S(x_k) U = R_ns^T: dp = -R_ns^-T c_S. It contracts
 * like |x - x_k| / sigma; one that does not is too far from its chart (or near a singular
 * configuration) and the step is retaken (MCS_ERR_NEWTON). x (n) at the solution; writes w.c,
 * w.rhs, w.tmp. */
static mcs_status chord_newton(mcs_sim *s, const mcs_frame *ch, mcs_real t, const mcs_real *Tq,
                               mcs_real *x)
{
    const int n = s->n;
    const int r = ch->r;
    mcs_real *p = s->w.p;
    mcs_real *dp = s->w.rhs;
    mcs_real *Up = s->w.tmp;
    const mcs_real tol = s->opt.newton_tol * MAX2(MCS_R(1.0), mcs_vec_max_abs(n, ch->x)) *
                         MIN2(MCS_R(1e6), MAX2(MCS_R(1.0), s->w.g_cond * MCS_R(0.04)));
    mcs_real last = MCS_R(0.0);
    int it;
    int i;
    for (it = 0; it < s->opt.newton_max_iter; ++it) {
        mcs_real dp_norm;
        mcs_compact_U(s, ch, p, Up);
        for (i = 0; i < n; ++i) {
            x[i] = ch->x[i] + (Tq[i] + Up[i]);
        }
        if ((s->m == 0) || (r == 0)) {
            return MCS_OK;
        }
        mcs_rows_c(s, x, t, s->w.c);
        for (i = 0; i < r; ++i) {
            dp[i] = -s->w.c[ch->piv[i]];
        }
        mcs_mat_solve_upper_transposed(r, ch->R, n, dp);
        dp_norm = mcs_vec_max_abs(r, dp);
        if (dp_norm < MCS_R(0.0)) {
            return MCS_ERR_NONFINITE;
        }
        for (i = 0; i < r; ++i) {
            p[i] += dp[i];
        }
        s->stats.newton_iterations++;
        if (dp_norm <= tol) { /* the last correction applied to x */
            mcs_compact_U(s, ch, dp, Up);
            for (i = 0; i < n; ++i) {
                x[i] += Up[i];
            }
            return MCS_OK;
        }
        if ((it > 0) && (dp_norm > (MCS_R(0.9) * last))) {
            return MCS_ERR_NEWTON;
        }
        last = dp_norm;
    }
    return MCS_ERR_NEWTON;
}

mcs_status mcs_compact_map(mcs_sim *s, const mcs_frame *ch, const mcs_real *q, const mcs_real *qd,
                           mcs_real t, mcs_real *x, mcs_real *v)
{
    const int n = s->n;
    const int m = s->m;
    const int r = ch->r;
    const int f = n - r;
    const mcs_real *T = ch->T;
    mcs_real *p = s->w.p;
    mcs_real *Phi = s->w.Phi;
    mcs_real *Tq = s->w.xq;
    mcs_real *Up = s->w.tmp;
    mcs_real *dp = s->w.rhs;
    mcs_status st;
    int i;
    int j;
    st = mcs_compact_ensure(s, ch);
    if (st != MCS_OK) {
        return st;
    }
    s->w.g_cond = chart_cond(s, ch);
    if (s->w.g_cond > s->w.g_cond_max) {
        s->w.g_cond_max = s->w.g_cond;
    }
    mcs_chart_warm_start(s, ch, q);
    mcs_mat_gemm(0, 0, n, 1, f, 1, T, n, q, MAX2(f, 1), 0, Tq, n);
    st = chord_newton(s, ch, t, Tq, x);
    if (st != MCS_OK) {
        return st;
    }
    if (s->w.want_lo != 0) {
        /* the step's end, x = x_k + (x_k's low part + T q + U p) split exactly (TwoSum) */
        mcs_compact_U(s, ch, p, Up);
        for (i = 0; i < n; ++i) {
            const mcs_real a = ch->x[i];
            const mcs_real d = (((ch->x_lo != NULL) ? ch->x_lo[i] : MCS_R(0.0)) + Tq[i]) + Up[i];
            const mcs_real sum = a + d;
            const mcs_real dd = sum - a;
            s->w.x_lo[i] = (a - (sum - dd)) + (d - dd);
            x[i] = sum;
        }
    }
    if ((m > 0) && (r > 0)) {
        s->model->A_nz(x, t, s->params, s->w.A);
    }
    /* Phi = T - U G^-1 (A_S T), column by column (Z (r x f) = G^-1 A_S T) */
    mcs_mat_copy(n, f, T, n, Phi, n);
    if ((r > 0) && (f > 0)) {
        mcs_real *Z = s->w.Z;
        for (j = 0; j < f; ++j) {
            mcs_compact_A_times(s, &T[j * n], s->w.gamma);
            for (i = 0; i < r; ++i) {
                dp[i] = s->w.gamma[ch->piv[i]];
            }
            st = solve_G(s, ch, dp, &Z[j * r]);
            if (st != MCS_OK) {
                return st;
            }
            mcs_compact_U(s, ch, &Z[j * r], Up);
            for (i = 0; i < n; ++i) {
                Phi[i + (j * n)] -= Up[i];
            }
        }
        mcs_chart_keep_warm_start(s, ch, q, Z);
    }
    /* v = Phi qd - U G^-1 c_S,t */
    mcs_mat_gemm(0, 0, n, 1, f, 1, Phi, n, qd, MAX2(f, 1), 0, v, n);
    if (r > 0) {
        mcs_rows_c_t(s, x, t, s->w.c_t);
        if (mcs_vec_max_abs(m, s->w.c_t) != MCS_R(0.0)) { /* scleronomic rows: nothing to do */
            st = compact_U_Ginv(s, ch, s->w.c_t, Up);
            if (st != MCS_OK) {
                return st;
            }
            for (i = 0; i < n; ++i) {
                v[i] -= Up[i];
            }
        }
    }
    return MCS_OK;
}

mcs_status mcs_compact_rhs(mcs_sim *s, const mcs_frame *ch, const mcs_real *y, mcs_real t,
                           mcs_real *ydot)
{
    const int n = s->n;
    const int r = ch->r;
    const int f = n - r;
    mcs_real *x = s->w.xs;
    mcs_real *v = s->w.vs;
    mcs_real *rhs = s->w.rhs;
    mcs_status st;
    int i;
    st = mcs_compact_map(s, ch, y, &y[f], t, x, v);
    if (st != MCS_OK) {
        return st;
    }
    s->model->M_nz(x, t, s->params, s->w.M);
    s->model->f(x, v, t, s->params, s->w.f);
    for (i = 0; i < n; ++i) {
        rhs[i] = s->w.f[i];
    }
    if (r > 0) {
        /* rhs = f - M beta, beta = U G^-1 gamma_S (left in w.Z for DOPRI5's next first stage) */
        mcs_rows_gamma(s, x, v, t, s->w.c_t); /* (m), free after the map */
        st = compact_U_Ginv(s, ch, s->w.c_t, s->w.Z);
        if (st != MCS_OK) {
            return st;
        }
        m_times(s, 1, -MCS_R(1.0), s->w.Z, MCS_R(1.0), rhs);
    }
    m_times(s, f, MCS_R(1.0), s->w.Phi, MCS_R(0.0), s->w.MPhi);
    return mcs_chart_reduced_solve(s, f, y, ydot);
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
