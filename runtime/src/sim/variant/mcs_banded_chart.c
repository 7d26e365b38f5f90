/* mcs_banded_chart.c - the banded variant's chart (MCS_VARIANT_BANDED; mcs_banded.c has its
 * frames): the chart Newton is a chord Newton on the chart's banded R (A_S(x_k) U = R^T), v comes
 * from a refinement on the same factor, and the acceleration from the KKT system
 * [[M, A^T], [A, 0]] (xdd, lambda) = (f, gamma) by a banded LU: q'' = T^T xdd. */
#include "linalg/mcs_band.h"
#include "sim/variant/mcs_variants.h"

#if MCS_WITH_BANDED

/* ---------------------------------------------------------------- the chart (SPEC §4) */

/* x = x_k + T q + U p at (q, p = w.p) on the chart ch, into x; Tq (n) holds T q (explicit T) */
static void chart_point(mcs_sim *s, const mcs_frame *ch, const mcs_real *q, const mcs_real *Tq,
                        mcs_real *x)
{
    int i;
    if (mcs_banded_implicit_T(s) != 0) {
        mcs_banded_apply_q(s, ch, s->w.p, q, s->w.bx);
        for (i = 0; i < s->n; ++i) {
            x[i] = ch->x[i] + s->w.bx[i];
        }
        return;
    }
    mcs_banded_apply_q(s, ch, s->w.p, NULL, s->w.bx);
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
    if (mcs_banded_implicit_T(s) == 0) {
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
            return (ch->sigma < mcs_watch_level(s)) ? MCS_ERR_SINGULAR_CHART : MCS_ERR_NEWTON;
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
        mcs_sparse_A_times(s, v, s->w.c); /* residual -(A v + c_t) in constraint order */
        for (i = 0; i < m; ++i) {
            dp[i] = -(s->w.c[bs->c_order[i]] + s->w.c_t[bs->c_order[i]]);
        }
        mcs_band_solve_rt(m, w, ch->R, dp);
        mcs_banded_apply_q(s, ch, dp, NULL, s->w.bx);
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
    mcs_mass_and_forces(s, x, v, t);
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
    mcs_real *xdd = s->w.Z; /* left for DOPRI5's next first stage (mcs_rk.c) */
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
                                  mcs_real *xdd, mcs_real *lambda)
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
    if (xdd != NULL) {
        for (i = 0; i < s->n; ++i) {
            xdd[i] = s->w.kkt_rhs[bs->kkt_pos[i]];
        }
    }
    return MCS_OK;
}

#endif /* MCS_WITH_BANDED */
