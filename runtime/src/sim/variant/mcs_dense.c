/* mcs_dense.c - the dense variant (MCS_VARIANT_DENSE, mcs_sim.h): frames with the explicit n x n
 * Q = [U T] of A^T's pivoted QR, the chart Newton with an LU of G = A_S U at every iteration, the
 * mass matrix as its nonzeros in products. Every option runs on it. A leaf: mcs_variant.c alone
 * calls these (mcs_variants.h); they call only the simulator's core (rows, the chart's shared
 * parts) and the layers below. MCS_WITH_DENSE = 0 leaves it out. */
#include "sim/variant/mcs_variants.h"

#if MCS_WITH_DENSE

/* Whether B (n x n) is exactly the identity. */
static int is_identity(int n, const mcs_real *B)
{
    int i;
    int j;
    for (j = 0; j < n; ++j) {
        for (i = 0; i < n; ++i) {
            if (B[i + (j * n)] != ((i == j) ? MCS_R(1.0) : MCS_R(0.0))) {
                return 0;
            }
        }
    }
    return 1;
}

/* ---------------------------------------------------------------- frames (SPEC §2-§3) */

/* mcs_frame_factor: A^T's pivoted QR with the explicit Q. */
mcs_status mcs_dense_factor(mcs_sim *s, mcs_frame *fr)
{
    int info = 0;
    if (s->m > 0) {
        mcs_rows_A(s, fr->x, fr->t, s->w.A);
        info = mcs_qr_basis(s->n, s->m, s->w.A, s->m, s->opt.rank_tol, fr->Q, fr->R, fr->piv,
                            &fr->r, s->w.basis_work);
        fr->identity = 0;
    } else {
        /* no rows: Q = I, what the QR of none gives, without the calls */
        const int n = s->n;
        int i;
        for (i = 0; i < (n * n); ++i) {
            fr->Q[i] = MCS_R(0.0);
        }
        for (i = 0; i < n; ++i) {
            fr->Q[i + (i * n)] = MCS_R(1.0);
        }
        fr->r = 0;
        fr->identity = 1; /* what mcs_chart_identity reads: cleared where Q is turned
                             (mcs_dense_align, locks, events) */
    }
    s->stats.factorizations++;
    fr->T = &fr->Q[fr->r * s->n];
    fr->sigma = mcs_qr_ratio(s, fr, fr->r);
    if (info != 0) {
        return MCS_ERR_LINALG;
    }
    /* more free directions than the memory was shaped for (options.max_dof) */
    return ((s->n - fr->r) > s->f_max) ? MCS_ERR_WORKSPACE : MCS_OK;
}

/* mcs_frame_predict: the predictors on the explicit Q (nothing for continuation off). */
mcs_status mcs_dense_predict(mcs_sim *s, const mcs_frame *from, mcs_real h)
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

/* mcs_frame_align (T^ is in place: Q[:, r:]). */
mcs_status mcs_dense_align(mcs_sim *s, int f_old, mcs_frame *to)
{
    const int n = s->n;
    const int f_new = n - to->r;
    if (s->opt.continuation == MCS_CONT_OFF) {
        return MCS_OK;
    }
    if ((f_old == n) && mcs_chart_identity(s, to) && is_identity(n, s->w.Tpred)) {
        return MCS_OK; /* T^ = I continued from the prediction I: I */
    }
    to->identity = 0;
    mcs_mat_copy(n, f_new, to->T, n, s->w.That, n);
    if (mcs_align_basis(n, f_old, s->w.Tpred, f_new, s->w.That, to->T, s->w.basis_work) != MCS_OK) {
        return MCS_ERR_LINALG;
    }
    return MCS_OK;
}

/* ---------------------------------------------------------------- the chart (SPEC §4) */

/* out (k x ncol, leading dimension k) = A_S B: rows piv[0..k) of the rows' Jacobian (the model's
 * from its nonzeros in w.A_nz, a lock's from w.A's rows nc..; mcs_rows_A_sparse) times B (n x
 * ncol, leading dimension ldb). Each row's nonzeros in turn, columns ascending: the sums of the
 * dense product, term for term in the same order, less its zero terms. */
static void rows_times(const mcs_sim *s, const int *piv, int k, const mcs_real *B, int ldb,
                       int ncol, mcs_real *out)
{
    const mcs_model *md = s->model;
    const int n = s->n;
    const int m = s->m;
    int i;
    int j;
    int l;
    for (j = 0; j < ncol; ++j) {
        for (i = 0; i < k; ++i) {
            out[i + (j * k)] = MCS_R(0.0);
        }
    }
    for (i = 0; i < k; ++i) {
        const int row = piv[i];
        if ((row < md->nc) && (md->a_row_start != NULL)) {
            int p;
            for (p = md->a_row_start[row]; p < md->a_row_start[row + 1]; ++p) {
                const int at = md->a_row_nz[p];
                const mcs_real a = s->w.A_nz[at];
                const mcs_real *bl = &B[md->a_cols[at]];
                for (j = 0; j < ncol; ++j) {
                    out[i + (j * k)] += a * bl[j * ldb];
                }
            }
        } else if (row >= md->nc) { /* a lock's row */
            for (l = 0; l < n; ++l) {
                const mcs_real a = s->w.A[row + (l * m)];
                if (a != MCS_R(0.0)) {
                    for (j = 0; j < ncol; ++j) {
                        out[i + (j * k)] += a * B[l + (j * ldb)];
                    }
                }
            }
        } else {
            /* a model row without nonzeros: 0 */
        }
    }
}

/* G = A_S U (r x r) from s->w.A, LU-factored in place; fails on a (nearly) singular factor. */
static mcs_status factor_G(mcs_sim *s, const mcs_frame *ch)
{
    const int r = ch->r;
    mcs_real *G = s->w.G;
    mcs_real pmax = MCS_R(0.0);
    mcs_real pmin;
    int i;
    rows_times(s, ch->piv, r, ch->Q, s->n, r, G);
    if (mcs_la_lu(r, G, r, s->w.ipiv) < 0) {
        return MCS_ERR_LINALG;
    }
    for (i = 0; i < r; ++i) {
        pmax = MAX2(pmax, mcs_fabs(G[i + (i * r)]));
    }
    pmin = pmax;
    for (i = 0; i < r; ++i) {
        pmin = MIN2(pmin, mcs_fabs(G[i + (i * r)]));
    }
    if (!(pmin > (s->opt.chart_pivot_min * pmax))) {
        return MCS_ERR_SINGULAR_CHART;
    }
    s->w.g_cond = pmax / pmin;
    if (s->w.g_cond > s->w.g_cond_max) {
        s->w.g_cond_max = s->w.g_cond;
    }
    return MCS_OK;
}

/* out (n) = U G^-1 b_S, where b (m) is a constraint-row vector; uses s->w.tmp. */
static void apply_U_Ginv(mcs_sim *s, const mcs_frame *ch, const mcs_real *b, mcs_real *out)
{
    const int n = s->n;
    const int r = ch->r;
    int i;
    for (i = 0; i < r; ++i) {
        s->w.tmp[i] = b[ch->piv[i]];
    }
    (void)mcs_la_lu_solve(r, 1, s->w.G, r, s->w.ipiv, s->w.tmp, MAX2(r, 1));
    mcs_mat_gemm(0, 0, n, 1, r, 1, ch->Q, n, s->w.tmp, MAX2(r, 1), 0, out, n);
}

/* Position and velocity of the chart at (q, qd, t): x = x_k + T q + U p with c_S(x, t) = 0 by
 * Newton on p (warm-started from s->w.p), Phi = (I - U G^-1 A_S) T, v = Phi qd - U G^-1 c_S,t.
 * Leaves A, the LU of G and Phi at x in the scratch for the dynamics. */
mcs_status mcs_dense_map(mcs_sim *s, const mcs_frame *ch, const mcs_real *q, const mcs_real *qd,
                         mcs_real t, mcs_real *x, mcs_real *v)
{
    const int n = s->n;
    const int m = s->m;
    const int r = ch->r;
    const int f = n - r;
    const mcs_real *U = ch->Q;
    const mcs_real *T = ch->T;
    mcs_real *p = s->w.p;
    mcs_real *Phi = s->w.Phi;
    mcs_real tol = MCS_R(0.0);
    mcs_real tol_it;
    int i;
    int it;
    mcs_status st;
    const int identity = mcs_chart_identity(s, ch);
    if ((identity == 0) && (r > 0)) { /* the chart Newton's tolerance */
        tol = s->opt.newton_tol * MAX2(MCS_R(1.0), mcs_vec_max_abs(n, ch->x));
    }
    tol_it = tol;
    mcs_chart_warm_start(s, ch, q);
    it = 0;
    for (;;) {
        mcs_real dp_norm;
        if (identity != 0) { /* x = x_k + T q with T = I */
            for (i = 0; i < n; ++i) {
                x[i] = ch->x[i] + q[i];
            }
            break;
        }
        for (i = 0; i < n; ++i) {
            x[i] = ch->x[i];
        }
        mcs_mat_gemm(0, 0, n, 1, f, 1, T, n, q, MAX2(f, 1), 1, x, n);
        mcs_mat_gemm(0, 0, n, 1, r, 1, U, n, p, MAX2(r, 1), 1, x, n);
        if (m == 0) {
            break;
        }
        mcs_rows_A_sparse(s, x, t, s->w.A_nz, s->w.A);
        if (r == 0) {
            break;
        }
        mcs_rows_c(s, x, t, s->w.c);
        st = factor_G(s, ch);
        if (st != MCS_OK) {
            return st;
        }
        for (i = 0; i < r; ++i) {
            s->w.tmp[i] = -s->w.c[ch->piv[i]];
        }
        (void)mcs_la_lu_solve(r, 1, s->w.G, r, s->w.ipiv, s->w.tmp, r);
        dp_norm = mcs_vec_max_abs(r, s->w.tmp);
        if (dp_norm < MCS_R(0.0)) {
            return MCS_ERR_NONFINITE;
        }
        /* Near a singular configuration G is ill-conditioned and |dp| cannot fall below about
         * about 20 eps cond(G) (the tolerance is 500 eps): it follows the pivot-ratio condition
         * estimate. Stages whose factor is worse than 1 / chart_pivot_min fail (SPEC rule 2). */
        tol_it = tol * MIN2(MCS_R(1e6), MAX2(MCS_R(1.0), s->w.g_cond * MCS_R(0.04)));
        for (i = 0; i < r; ++i) {
            p[i] += s->w.tmp[i];
        }
        s->stats.newton_iterations++;
        if (dp_norm <= tol_it) {
            /* the last correction is below tolerance: apply it to x. A and G (for Phi and v) stay
             * at the previous iterate, |dp| <= tol away; stopping earlier on an error estimate
             * would leave them O(|dp|) off and cost accuracy (measured: RK4 order test) */
            mcs_mat_gemm(0, 0, n, 1, r, 1, U, n, s->w.tmp, r, 1, x, n);
            break;
        }
        if ((it + 1) >= s->opt.newton_max_iter) {
            return MCS_ERR_NEWTON;
        }
        ++it;
    }
    if (s->w.want_lo != 0) {
        /* the step's end: x = x_k + d with d = T q + U p + (x_k's own low part), split exactly
         * into x and w.x_lo (TwoSum), so that the steps' sum keeps the bits x cannot hold */
        mcs_real *lo = s->w.x_lo;
        int j;
        for (i = 0; i < n; ++i) {
            lo[i] = (ch->x_lo != NULL) ? ch->x_lo[i] : MCS_R(0.0);
        }
        for (j = 0; j < n; ++j) { /* d = x_k's low part + [U T] (p, q), Q's columns in turn */
            const mcs_real c = (j < r) ? p[j] : q[j - r];
            for (i = 0; i < n; ++i) {
                lo[i] += ch->Q[i + (j * n)] * c;
            }
        }
        for (i = 0; i < n; ++i) {
            const mcs_real a = ch->x[i];
            const mcs_real d = lo[i];
            const mcs_real sum = a + d;
            const mcs_real dd = sum - a;
            lo[i] = (a - (sum - dd)) + (d - dd);
            x[i] = sum;
        }
    }
    /* Phi = T - U G^-1 (A_S T); on an identity chart Phi = I is not written: nothing reads it
     * there (mcs_chart_acceleration, the reactions) */
    if (identity == 0) {
        mcs_mat_copy(n, f, T, n, Phi, n);
    }
    if ((r > 0) && (f > 0)) {
        mcs_real *Z = s->w.Z;
        rows_times(s, ch->piv, r, T, n, f, Z);
        (void)mcs_la_lu_solve(r, f, s->w.G, r, s->w.ipiv, Z, r);
        mcs_mat_gemm(0, 0, n, f, r, -1, U, n, Z, r, 1, Phi, n);
        mcs_chart_keep_warm_start(s, ch, q, Z);
    }
    /* v = Phi qd - U G^-1 c_S,t */
    if (identity != 0) {
        for (i = 0; i < n; ++i) {
            v[i] = qd[i];
        }
        return MCS_OK;
    }
    mcs_mat_gemm(0, 0, n, 1, f, 1, Phi, n, qd, MAX2(f, 1), 0, v, n);
    if (r > 0) {
        mcs_rows_c_t(s, x, t, s->w.c_t);
        if (mcs_vec_max_abs(m, s->w.c_t) != MCS_R(0.0)) { /* scleronomic rows: nothing to do */
            apply_U_Ginv(s, ch, s->w.c_t, s->w.rhs);
            for (i = 0; i < n; ++i) {
                v[i] -= s->w.rhs[i];
            }
        }
    }
    return MCS_OK;
}

/* out (n x ncol, ld n) = alpha M B + beta out (beta 0 or 1), M's nonzeros in w.M (M_nz, column
 * by column): each output entry sums over M's columns in order, as the dense product does, less
 * its zero terms. */
static void mass_times(const mcs_sim *s, int ncol, mcs_real alpha, const mcs_real *B, mcs_real beta,
                       mcs_real *out)
{
    const mcs_model *md = s->model;
    const int n = s->n;
    int i;
    int j;
    int k;
    if (beta == MCS_R(0.0)) {
        for (i = 0; i < (n * ncol); ++i) {
            out[i] = MCS_R(0.0);
        }
    }
    for (j = 0; j < ncol; ++j) {
        mcs_real *oj = &out[j * n];
        const mcs_real *bj = &B[j * n];
        for (k = 0; k < md->m_nnz; ++k) {
            oj[md->m_rows[k]] += s->w.M[k] * (alpha * bj[md->m_cols[k]]);
        }
    }
}

/* mcs_chart_rhs: (Phi^T M Phi) qdd = Phi^T (f - M beta), beta = U G^-1 gamma_S. */
mcs_status mcs_dense_rhs(mcs_sim *s, const mcs_frame *ch, const mcs_real *y, mcs_real t,
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
    st = mcs_dense_map(s, ch, y, &y[f], t, x, v);
    if (st != MCS_OK) {
        return st;
    }
    if (mcs_chart_identity(s, ch) != 0) { /* no rows in force, Phi = I: M qdd = f */
        return mcs_free_accelerations(s, x, v, t, y, ydot);
    }
    mcs_mass_and_forces(s, x, v, t);
    for (i = 0; i < n; ++i) {
        rhs[i] = s->w.f[i];
    }
    if (r > 0) {
        /* rhs = f - M beta */
        mcs_rows_gamma(s, x, v, t, s->w.gamma);
        apply_U_Ginv(s, ch, s->w.gamma, s->w.Z /* n scratch, Z is free after mcs_chart_map */);
        mass_times(s, 1, -MCS_R(1.0), s->w.Z, MCS_R(1.0), rhs);
    }
    mass_times(s, f, MCS_R(1.0), s->w.Phi, MCS_R(0.0), s->w.MPhi);
    return mcs_reduced_accelerations(s, f, y, ydot);
}

/* out (n) = -U R_ns^-T b_S: the minimum-norm dx with A_S dx = -b_S (A_S = R_ns^T U^T). */
void mcs_dense_min_norm(mcs_sim *s, const mcs_frame *fr, const mcs_real *b, mcs_real *out)
{
    const int n = s->n;
    const int r = fr->r;
    int i;
    for (i = 0; i < r; ++i) {
        s->w.tmp[i] = -b[fr->piv[i]];
    }
    mcs_mat_solve_upper_transposed(r, fr->R, n, s->w.tmp);
    mcs_mat_gemm(0, 0, n, 1, r, 1, fr->Q, n, s->w.tmp, MAX2(r, 1), 0, out, n);
}

/* w.p (r) = U^T y on the chart ch: a loop, not a call (firmware stack). */
void mcs_dense_Ut_p(mcs_sim *s, const mcs_frame *ch, const mcs_real *y)
{
    const int n = s->n;
    int i;
    int l;
    for (i = 0; i < ch->r; ++i) {
        mcs_real sum = MCS_R(0.0);
        for (l = 0; l < n; ++l) {
            sum += ch->Q[l + (i * n)] * y[l];
        }
        s->w.p[i] = sum;
    }
}

#endif /* MCS_WITH_DENSE */
