/* mcs_compact_chart.c - the compact variant's chart (MCS_VARIANT_COMPACT; mcs_compact.c has its
 * frames): the chart Newton is a chord Newton on the chart's own factor A_S(x_k) U = R_ns^T, and
 * the systems with G = A_S(x) U at a stage (Phi, v, beta; SPEC §4) are solved by refinement on
 * the same factor: no r x r G is formed or stored. Both converge like |x - x_k| / sigma, so steps
 * far from singular configurations cost a few iterations more than the default LU of G, and a
 * stage that stops converging near one fails and is retaken (SPEC §6 rule 2). */
#include "sim/variant/mcs_variants.h"

#if MCS_WITH_COMPACT

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
        mcs_sparse_A_times(s, u, w);
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
            mcs_sparse_A_times(s, &T[j * n], s->w.gamma);
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
    mcs_mass_and_forces(s, x, v, t);
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
        mcs_sparse_M_times(s, 1, -MCS_R(1.0), s->w.Z, MCS_R(1.0), rhs);
    }
    mcs_sparse_M_times(s, f, MCS_R(1.0), s->w.Phi, MCS_R(0.0), s->w.MPhi);
    return mcs_reduced_accelerations(s, f, y, ydot);
}

#endif /* MCS_WITH_COMPACT */
