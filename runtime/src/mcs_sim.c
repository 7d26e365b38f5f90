/* mcs_sim.c - state, assembly, chart-based Maggi-Kane integration (RK4, DOPRI5) and the step's
 * re-factorization with tangent-basis continuation (SPEC §2-§4). */
#include "mcs/mcs_sim.h"

#include "mcs_linalg.h"

#define MAX2(a, b) ((a) > (b) ? (a) : (b))
#define MIN2(a, b) ((a) < (b) ? (a) : (b))

/* ---------------------------------------------------------------- workspace carving */

typedef struct carver {
    mcs_real *w;
    size_t used, len;
    int *iw;
    size_t iused, ilen;
} carver;

static mcs_real *take(carver *c, size_t k)
{
    mcs_real *p = c->w ? c->w + c->used : NULL;
    c->used += k;
    return p;
}

static int *itake(carver *c, size_t k)
{
    int *p = c->iw ? c->iw + c->iused : NULL;
    c->iused += k;
    return p;
}

static void carve_frame(carver *c, mcs_frame *fr, size_t k)
{
    fr->x = take(c, k);
    fr->v = take(c, k);
    fr->Q = take(c, k * k);
    fr->R = take(c, k * k);
    fr->piv = itake(c, k);
    fr->t = 0;
    fr->r = 0;
    fr->sigma = 1;
}

/* Lays out everything; with null arrays it only counts. */
static void carve_all(carver *c, mcs_sim *s, int n, int m)
{
    const size_t k = (size_t)MCS_SIM_K(n, m);
    int i;
    carve_frame(c, &s->cur, k);
    carve_frame(c, &s->prev, k);
    carve_frame(c, &s->probe, k);
    s->w.A = take(c, k * k);
    s->w.A_dot = take(c, k * k);
    s->w.M = take(c, k * k);
    s->w.G = take(c, k * k);
    s->w.Z = take(c, k * k);
    s->w.Phi = take(c, k * k);
    s->w.MPhi = take(c, k * k);
    s->w.Mred = take(c, k * k);
    s->w.That = take(c, k * k);
    s->w.Tpred = take(c, k * k);
    s->w.c = take(c, k);
    s->w.c_t = take(c, k);
    s->w.gamma = take(c, k);
    s->w.f = take(c, k);
    s->w.p = take(c, k);
    s->w.xs = take(c, k);
    s->w.vs = take(c, k);
    s->w.tmp2 = take(c, k);
    s->w.rhs = take(c, k);
    s->w.tmp = take(c, k);
    s->w.y0 = take(c, 2 * k);
    s->w.y1 = take(c, 2 * k);
    s->w.ys = take(c, 2 * k);
    s->w.yerr = take(c, 2 * k);
    for (i = 0; i < 7; ++i)
        s->w.k[i] = take(c, 2 * k);
    s->event.x = take(c, k);
    s->event.rdiag = take(c, k);
    s->event.continued = take(c, k * k);
    s->event.motions = take(c, k * k);
    s->w.basis_work = take(c, (size_t)MCS_BASIS_WORK_SIZE(n, m));
    s->w.ipiv = itake(c, k);
    s->w.basis_iwork = itake(c, (size_t)MCS_BASIS_IWORK_SIZE(n, m));
}

size_t mcs_sim_work_size(int n, int m)
{
    return (size_t)MCS_SIM_WORK_SIZE(n, m);
}

size_t mcs_sim_iwork_size(int n, int m)
{
    return (size_t)MCS_SIM_IWORK_SIZE(n, m);
}

void mcs_options_default(mcs_options *opt, const mcs_model *model)
{
    opt->method = model ? (mcs_method)model->method : MCS_METHOD_RK4;
    opt->continuation = model ? (mcs_continuation)model->continuation : MCS_CONT_EXP;
    opt->h = model ? model->h : MCS_R(1e-3);
    opt->rtol = model ? model->rtol : MCS_R(1e-8);
    opt->atol = model ? model->atol : MCS_R(1e-10);
    opt->h_min = MCS_R(1e-12);
    opt->rank_tol = MAX2(MCS_R(1e-9), 100 * MCS_REAL_EPS);
    opt->newton_tol = 500 * MCS_REAL_EPS;
    opt->newton_max_iter = 25;
    opt->chart_pivot_min = MAX2(MCS_R(1e-8), 100 * MCS_REAL_EPS);
    opt->sing_watch = MCS_R(0.05);
    opt->sing_tol = MAX2(MCS_R(1e-6), 1000 * MCS_REAL_EPS);
    opt->chart_tol = MAX2(MCS_R(1e-4), 1000 * MCS_REAL_EPS);
}

mcs_status mcs_sim_init(mcs_sim *s, const mcs_model *model, const void *params,
                        const mcs_options *opt, mcs_real *work, size_t work_len,
                        int *iwork, size_t iwork_len)
{
    carver c = {0, 0, 0, 0, 0, 0};
    if (!s || !model || !params || !opt || !work || !iwork)
        return MCS_ERR_ARGUMENT;
    if (model->abi_version != MCS_MODEL_ABI_VERSION)
        return MCS_ERR_MODEL_VERSION;
    if (model->nx < 1 || model->nc < 0 || !(opt->h > 0) || !(opt->rtol > 0) || !(opt->atol > 0) ||
        /* unsigned: one test covers negative values too, whatever type the ABI gives enums */
        (unsigned)opt->method > (unsigned)MCS_METHOD_DOPRI5 ||
        (unsigned)opt->continuation > (unsigned)MCS_CONT_OFF ||
        opt->newton_max_iter < 1)
        return MCS_ERR_ARGUMENT;
    if (work_len < mcs_sim_work_size(model->nx, model->nc) ||
        iwork_len < mcs_sim_iwork_size(model->nx, model->nc))
        return MCS_ERR_WORKSPACE;
    s->model = model;
    s->params = params;
    s->opt = *opt;
    s->n = model->nx;
    s->m = model->nc;
    c.w = work;
    c.len = work_len;
    c.iw = iwork;
    c.ilen = iwork_len;
    carve_all(&c, s, s->n, s->m);
    if (c.used > c.len || c.iused > c.ilen) /* the size macros and the layout disagree */
        return MCS_ERR_WORKSPACE;
    s->h_last = 0;
    s->h_next = opt->h;
    s->t_grid0 = 0;
    s->grid_index = 0;
    s->w.dense_ready = 0;
    s->w.retries = 0;
    s->event_ready = 0;
    {
        mcs_stats zero = {0, 0, 0, 0, 0, 0, 0, 0};
        s->stats = zero;
    }
    return MCS_OK;
}

/* ---------------------------------------------------------------- factorization */

/* |R_{r-1, r-1}| / |R_00| of a factored frame (1 when r = 0): how far from losing rank r. */
static mcs_real ratio_at_rank(const mcs_sim *s, const mcs_frame *fr, int r)
{
    const mcs_real r00 = MCS_FN(fabs)(fr->R[0]);
    if (r <= 0 || s->m == 0 || !(r00 > 0))
        return 1;
    return MCS_FN(fabs)(fr->R[(r - 1) + (r - 1) * s->n]) / r00;
}

/* A(x, t)^T P = Q R into fr (Q = the fresh Q^). */
static mcs_status factor_frame(mcs_sim *s, mcs_frame *fr)
{
    int info;
    if (s->m > 0)
        s->model->A(fr->x, fr->t, s->params, s->w.A);
    info = mcs_qr_basis(s->n, s->m, s->w.A, MAX2(s->m, 1), s->opt.rank_tol, fr->Q, fr->R, fr->piv,
                        &fr->r, s->w.basis_work);
    s->stats.factorizations++;
    fr->sigma = ratio_at_rank(s, fr, fr->r);
    return info == 0 ? MCS_OK : MCS_ERR_LINALG;
}

/* Load the state (t, x, v) into the probe frame and factor it there. */
static mcs_status factor_probe(mcs_sim *s, mcs_real t, const mcs_real *x, const mcs_real *v)
{
    int i;
    s->probe.t = t;
    for (i = 0; i < s->n; ++i) {
        s->probe.x[i] = x[i];
        s->probe.v[i] = v[i];
    }
    return factor_frame(s, &s->probe);
}

/* fr has been factored (Q = [U^ T^]); replace its T by the basis continued from the chart `from`
 * over h (SPEC §3). */
static mcs_status continue_basis(mcs_sim *s, const mcs_frame *from, mcs_real h, mcs_frame *to)
{
    const int n = s->n, f_old = n - from->r, f_new = n - to->r;
    if (s->opt.continuation == MCS_CONT_OFF)
        return MCS_OK;
    if (s->m > 0 && s->opt.continuation != MCS_CONT_NONE)
        s->model->A_dot(from->x, from->v, from->t, s->params, s->w.A_dot);
    if (mcs_predict_tangent(n, s->m, from->r, from->Q, from->R, from->piv, s->w.A_dot, h,
                            s->opt.continuation, s->w.Tpred, s->w.basis_work,
                            s->w.basis_iwork) != 0)
        return MCS_ERR_LINALG;
    mcs_mat_copy(n, f_new, to->Q + to->r * n, n, s->w.That, n);
    if (mcs_align_basis(n, f_old, s->w.Tpred, f_new, s->w.That, to->Q + to->r * n,
                        s->w.basis_work) != 0)
        return MCS_ERR_LINALG;
    return MCS_OK;
}

/* ---------------------------------------------------------------- the chart (SPEC §4) */

/* G = A_S U (r x r) from s->w.A, LU-factored in place; fails on a (nearly) singular factor. */
static mcs_status factor_G(mcs_sim *s, const mcs_frame *ch)
{
    const int n = s->n, m = s->m, r = ch->r;
    mcs_real *G = s->w.G, pmax = 0, pmin;
    int i, j, l;
    for (j = 0; j < r; ++j)
        for (i = 0; i < r; ++i) {
            mcs_real sum = 0;
            for (l = 0; l < n; ++l)
                sum += s->w.A[ch->piv[i] + l * m] * ch->Q[l + j * n];
            G[i + j * r] = sum;
        }
    if (mcs_la_lu(r, G, r, s->w.ipiv) < 0)
        return MCS_ERR_LINALG;
    for (i = 0; i < r; ++i)
        pmax = MAX2(pmax, MCS_FN(fabs)(G[i + i * r]));
    pmin = pmax;
    for (i = 0; i < r; ++i)
        pmin = MIN2(pmin, MCS_FN(fabs)(G[i + i * r]));
    if (!(pmin > s->opt.chart_pivot_min * pmax))
        return MCS_ERR_SINGULAR_CHART;
    s->w.g_cond = pmax / pmin;
    if (s->w.g_cond > s->w.g_cond_max)
        s->w.g_cond_max = s->w.g_cond;
    return MCS_OK;
}

/* out (n) = U G^-1 b_S, where b (m) is a constraint-row vector; uses s->w.tmp. */
static void apply_U_Ginv(mcs_sim *s, const mcs_frame *ch, const mcs_real *b, mcs_real *out)
{
    const int n = s->n, r = ch->r;
    int i;
    for (i = 0; i < r; ++i)
        s->w.tmp[i] = b[ch->piv[i]];
    mcs_la_lu_solve(r, 1, s->w.G, r, s->w.ipiv, s->w.tmp, MAX2(r, 1));
    mcs_mat_gemm(0, 0, n, 1, r, 1, ch->Q, n, s->w.tmp, MAX2(r, 1), 0, out, n);
}

/* Position and velocity of the chart at (q, qd, t): x = x_k + T q + U p with c_S(x, t) = 0 by
 * Newton on p (warm-started from s->w.p), Phi = (I - U G^-1 A_S) T, v = Phi qd - U G^-1 c_S,t.
 * Leaves A, the LU of G and Phi at x in the scratch for the dynamics. */
static mcs_status chart_map(mcs_sim *s, const mcs_frame *ch, const mcs_real *q, const mcs_real *qd,
                            mcs_real t, mcs_real *x, mcs_real *v)
{
    const int n = s->n, m = s->m, r = ch->r, f = n - r;
    const mcs_real *U = ch->Q, *T = ch->Q + r * n;
    mcs_real *p = s->w.p, *Phi = s->w.Phi;
    const mcs_real tol = s->opt.newton_tol * MAX2(MCS_R(1.0), mcs_vec_max_abs(n, ch->x));
    mcs_real tol_it = tol;
    int i, it;
    mcs_status st;
    for (it = 0;; ++it) {
        mcs_real dp_norm;
        for (i = 0; i < n; ++i)
            x[i] = ch->x[i];
        mcs_mat_gemm(0, 0, n, 1, f, 1, T, n, q, MAX2(f, 1), 1, x, n);
        mcs_mat_gemm(0, 0, n, 1, r, 1, U, n, p, MAX2(r, 1), 1, x, n);
        if (m == 0)
            break;
        s->model->A(x, t, s->params, s->w.A);
        if (r == 0)
            break;
        s->model->c(x, t, s->params, s->w.c);
        if ((st = factor_G(s, ch)) != MCS_OK)
            return st;
        for (i = 0; i < r; ++i)
            s->w.tmp[i] = -s->w.c[ch->piv[i]];
        mcs_la_lu_solve(r, 1, s->w.G, r, s->w.ipiv, s->w.tmp, r);
        dp_norm = mcs_vec_max_abs(r, s->w.tmp);
        if (dp_norm < 0)
            return MCS_ERR_NONFINITE;
        /* Near a singular configuration G is ill-conditioned and |dp| cannot fall below about
         * about 20 eps cond(G) (the tolerance is 500 eps): it follows the pivot-ratio condition
         * estimate. Stages whose factor is worse than 1 / chart_pivot_min fail (SPEC rule 2). */
        tol_it = tol * MIN2(MCS_R(1e6), MAX2(MCS_R(1.0), s->w.g_cond * MCS_R(0.04)));
        for (i = 0; i < r; ++i)
            p[i] += s->w.tmp[i];
        s->stats.newton_iterations++;
        if (dp_norm <= tol_it) {
            /* the last correction is below tolerance: apply it to x. A and G (for Phi and v) stay
             * at the previous iterate, |dp| <= tol away; stopping earlier on an error estimate
             * would leave them O(|dp|) off and cost accuracy (measured: RK4 order test) */
            mcs_mat_gemm(0, 0, n, 1, r, 1, U, n, s->w.tmp, r, 1, x, n);
            break;
        }        if (it + 1 >= s->opt.newton_max_iter)
            return MCS_ERR_NEWTON;
    }
    /* Phi = T - U G^-1 (A_S T) */
    mcs_mat_copy(n, f, T, n, Phi, n);
    if (r > 0 && f > 0) {
        mcs_real *Z = s->w.Z;
        int j, l;
        for (j = 0; j < f; ++j)
            for (i = 0; i < r; ++i) {
                mcs_real sum = 0;
                for (l = 0; l < n; ++l)
                    sum += s->w.A[ch->piv[i] + l * m] * T[l + j * n];
                Z[i + j * r] = sum;
            }
        mcs_la_lu_solve(r, f, s->w.G, r, s->w.ipiv, Z, r);
        mcs_mat_gemm(0, 0, n, f, r, -1, U, n, Z, r, 1, Phi, n);
    }
    /* v = Phi qd - U G^-1 c_S,t */
    mcs_mat_gemm(0, 0, n, 1, f, 1, Phi, n, qd, MAX2(f, 1), 0, v, n);
    if (r > 0) {
        s->model->c_t(x, t, s->params, s->w.c_t);
        apply_U_Ginv(s, ch, s->w.c_t, s->w.rhs);
        for (i = 0; i < n; ++i)
            v[i] -= s->w.rhs[i];
    }
    return MCS_OK;
}

/* ydot = (qd, qdd) at y = (q, qd): (Phi^T M Phi) qdd = Phi^T (f - M beta), beta = U G^-1 gamma_S. */
static mcs_status chart_rhs(mcs_sim *s, const mcs_frame *ch, const mcs_real *y, mcs_real t,
                            mcs_real *ydot)
{
    const int n = s->n, r = ch->r, f = n - r;
    mcs_real *x = s->w.xs, *v = s->w.vs, *rhs = s->w.rhs;
    mcs_status st;
    int i;
    s->stats.evaluations++;
    if ((st = chart_map(s, ch, y, y + f, t, x, v)) != MCS_OK)
        return st;
    s->model->M(x, t, s->params, s->w.M);
    s->model->f(x, v, t, s->params, s->w.f);
    for (i = 0; i < n; ++i)
        rhs[i] = s->w.f[i];
    if (r > 0) {
        /* rhs = f - M beta */
        s->model->gamma(x, v, t, s->params, s->w.gamma);
        apply_U_Ginv(s, ch, s->w.gamma, s->w.Z /* n scratch, Z is free after chart_map */);
        mcs_mat_gemm(0, 0, n, 1, n, -1, s->w.M, n, s->w.Z, n, 1, rhs, n);
    }
    mcs_mat_gemm(0, 0, n, f, n, 1, s->w.M, n, s->w.Phi, n, 0, s->w.MPhi, n);
    mcs_mat_gemm(1, 0, f, f, n, 1, s->w.Phi, n, s->w.MPhi, n, 0, s->w.Mred, MAX2(f, 1));
    for (i = 0; i < f; ++i)
        ydot[i] = y[f + i];
    mcs_mat_gemm(1, 0, f, 1, n, 1, s->w.Phi, n, rhs, n, 0, ydot + f, MAX2(f, 1));
    if (mcs_la_cholesky(f, s->w.Mred, MAX2(f, 1)) != 0)
        return MCS_ERR_MASS_NOT_PD;
    mcs_la_cholesky_solve(f, 1, s->w.Mred, MAX2(f, 1), ydot + f, MAX2(f, 1));
    if (mcs_vec_max_abs(2 * f, ydot) < 0)
        return MCS_ERR_NONFINITE;
    return MCS_OK;
}

/* ---------------------------------------------------------------- assembly */

static mcs_real constraint_norm_at(mcs_sim *s, const mcs_real *x, mcs_real t)
{
    if (s->m == 0)
        return 0;
    s->model->c(x, t, s->params, s->w.c);
    return mcs_vec_max_abs(s->m, s->w.c);
}

/* out (n) = -U R_ns^-T b_S: the minimum-norm dx with A_S dx = -b_S (A_S = R_ns^T U^T). */
static void min_norm_correction(mcs_sim *s, const mcs_frame *fr, const mcs_real *b, mcs_real *out)
{
    const int n = s->n, r = fr->r;
    int i;
    for (i = 0; i < r; ++i)
        s->w.tmp[i] = -b[fr->piv[i]];
    mcs_mat_solve_upper_transposed(r, fr->R, n, s->w.tmp);
    mcs_mat_gemm(0, 0, n, 1, r, 1, fr->Q, n, s->w.tmp, MAX2(r, 1), 0, out, n);
}

mcs_status mcs_sim_set_state(mcs_sim *s, mcs_real t, const mcs_real *x, const mcs_real *v,
                             mcs_assembly *report)
{
    const int n = s ? s->n : 0;
    mcs_frame *fr;
    mcs_assembly rep = {0, 0, 0, 0, 0, 0};
    mcs_real tol, dx2 = 0, dv2 = 0;
    mcs_status st;
    int i, it;
    if (!s || !x || !v)
        return MCS_ERR_ARGUMENT;
    fr = &s->cur;
    fr->t = t;
    for (i = 0; i < n; ++i) {
        fr->x[i] = x[i];
        fr->v[i] = v[i];
    }
    if (mcs_vec_max_abs(n, x) < 0 || mcs_vec_max_abs(n, v) < 0)
        return MCS_ERR_NONFINITE;
    tol = s->opt.newton_tol * MAX2(MCS_R(1.0), mcs_vec_max_abs(n, x));
    rep.c_norm_before = constraint_norm_at(s, fr->x, t);
    if (rep.c_norm_before < 0)
        return MCS_ERR_NONFINITE;
    for (it = 0;; ++it) {
        mcs_real step;
        if ((st = factor_frame(s, fr)) != MCS_OK)
            return st;
        if (s->m == 0 || fr->r == 0)
            break;
        s->model->c(fr->x, t, s->params, s->w.c);
        min_norm_correction(s, fr, s->w.c, s->w.rhs);
        step = mcs_vec_max_abs(n, s->w.rhs);
        if (step < 0)
            return MCS_ERR_ASSEMBLY;
        if (step <= tol)
            break;
        if (it >= 50)
            return MCS_ERR_ASSEMBLY;
        for (i = 0; i < n; ++i)
            fr->x[i] += s->w.rhs[i];
        rep.iterations++;
    }
    if (s->m > 0 && fr->r > 0) {
        /* velocities: v <- v - U R_ns^-T (A_S v + c_S,t) */
        s->model->c_t(fr->x, t, s->params, s->w.c_t);
        mcs_mat_gemm(0, 0, s->m, 1, n, 1, s->w.A, s->m, fr->v, n, 0, s->w.gamma, s->m);
        for (i = 0; i < s->m; ++i)
            s->w.gamma[i] += s->w.c_t[i];
        rep.cdot_norm_before = mcs_vec_max_abs(s->m, s->w.gamma);
        min_norm_correction(s, fr, s->w.gamma, s->w.rhs);
        for (i = 0; i < n; ++i)
            fr->v[i] += s->w.rhs[i];
    }
    for (i = 0; i < n; ++i) {
        dx2 += (fr->x[i] - x[i]) * (fr->x[i] - x[i]);
        dv2 += (fr->v[i] - v[i]) * (fr->v[i] - v[i]);
    }
    rep.dx_norm = MCS_FN(sqrt)(dx2);
    rep.dv_norm = MCS_FN(sqrt)(dv2);
    rep.c_norm_after = constraint_norm_at(s, fr->x, t);
    if (report)
        *report = rep;
    s->h_last = 0;
    s->h_next = s->opt.h;
    s->t_grid0 = t;
    s->grid_index = 0;
    s->w.dense_ready = 0;
    {
        mcs_stats zero = {0, 0, 0, 0, 0, 0, 0, 0};
        zero.factorizations = s->stats.factorizations;
        s->stats = zero;
    }
    return MCS_OK;
}

/* ---------------------------------------------------------------- steps */

/* Retakes of one step near a singular point before the step is accepted as it is. */
#define MAX_RETRIES 6

static void detect_event(mcs_sim *s);

/* After the stages: x1, v1 are in s->prev's buffers (the new frame). Factor there, continue the
 * basis from the chart (s->cur), and make the new frame current. Rule 1 of SPEC §6: a step that
 * would end at (or within chart_tol of) a singular configuration returns MCS_ERR_SINGULAR_CHART
 * so that the caller retakes it shorter; after MAX_RETRIES it is accepted as it is. */
static mcs_status finish_step(mcs_sim *s, mcs_real h)
{
    mcs_frame *nf = &s->prev, tmp;
    const int r_old = s->cur.r;
    mcs_status st;
    if (mcs_vec_max_abs(s->n, nf->x) < 0 || mcs_vec_max_abs(s->n, nf->v) < 0)
        return MCS_ERR_NONFINITE;
    if ((st = factor_frame(s, nf)) != MCS_OK)
        return st;
    if (s->opt.chart_tol > 0 && s->w.retries < MAX_RETRIES && r_old > 0 &&
        (nf->r < r_old || ratio_at_rank(s, nf, r_old) < s->opt.chart_tol))
        return MCS_ERR_SINGULAR_CHART;
    if ((st = continue_basis(s, &s->cur, h, nf)) != MCS_OK)
        return st;
    tmp = s->cur;
    s->cur = *nf;
    s->prev = tmp;
    s->h_last = h;
    s->stats.steps++;
    s->w.retries = 0;
    if (s->cur.r != r_old)
        s->stats.rank_changes++;
    detect_event(s);
    return MCS_OK;
}

/* How to retake a step that ended on, or whose stages met, a singular configuration: shorter
 * (0.45) when its start is well away from it, so that it now ends before the singular point; but
 * longer (3x) when the start itself is close to it, so that it ends past it (shortening would
 * only creep towards it). */
static mcs_real retake_factor(const mcs_sim *s)
{
    return s->cur.sigma > 3 * s->opt.chart_tol ? MCS_R(0.45) : MCS_R(3.0);
}

/* Whether a failed step should be retaken shorter (the failures a singular point causes). */
static int retryable(mcs_status st)
{
    return st == MCS_ERR_NEWTON || st == MCS_ERR_SINGULAR_CHART || st == MCS_ERR_MASS_NOT_PD ||
           st == MCS_ERR_NONFINITE;
}

/* y0 = (0, T^T v_k) on the chart of s->cur; resets the Newton warm start. */
static void chart_start(mcs_sim *s, mcs_real *y0)
{
    const int n = s->n, r = s->cur.r, f = n - r;
    int i;
    for (i = 0; i < f; ++i)
        y0[i] = 0;
    mcs_mat_gemm(1, 0, f, 1, n, 1, s->cur.Q + r * n, n, s->cur.v, n, 0, y0 + f, MAX2(f, 1));
    for (i = 0; i < r; ++i)
        s->w.p[i] = 0;
}

static void axpy_stage(int len, const mcs_real *y0, mcs_real h, int nst, const mcs_real *coef,
                       mcs_real *const *k, mcs_real *out)
{
    int i, j;
    for (i = 0; i < len; ++i) {
        mcs_real sum = 0;
        for (j = 0; j < nst; ++j)
            sum += coef[j] * k[j][i];
        out[i] = y0[i] + h * sum;
    }
}

static mcs_status step_rk4(mcs_sim *s, mcs_real h)
{
    const int f = s->n - s->cur.r, len = 2 * f;
    const mcs_real t = s->cur.t;
    static const mcs_real c1[1] = {MCS_R(0.5)};
    static const mcs_real c2[2] = {0, MCS_R(0.5)};
    static const mcs_real c3[3] = {0, 0, 1};
    static const mcs_real b[4] = {MCS_R(1.0) / 6, MCS_R(1.0) / 3, MCS_R(1.0) / 3, MCS_R(1.0) / 6};
    mcs_real **k = s->w.k;
    mcs_status st;
    chart_start(s, s->w.y0);
    if ((st = chart_rhs(s, &s->cur, s->w.y0, t, k[0])) != MCS_OK)
        return st;
    axpy_stage(len, s->w.y0, h, 1, c1, k, s->w.ys);
    if ((st = chart_rhs(s, &s->cur, s->w.ys, t + h / 2, k[1])) != MCS_OK)
        return st;
    axpy_stage(len, s->w.y0, h, 2, c2, k, s->w.ys);
    if ((st = chart_rhs(s, &s->cur, s->w.ys, t + h / 2, k[2])) != MCS_OK)
        return st;
    axpy_stage(len, s->w.y0, h, 3, c3, k, s->w.ys);
    if ((st = chart_rhs(s, &s->cur, s->w.ys, t + h, k[3])) != MCS_OK)
        return st;
    axpy_stage(len, s->w.y0, h, 4, b, k, s->w.y1);
    if ((st = chart_map(s, &s->cur, s->w.y1, s->w.y1 + f, t + h, s->prev.x, s->prev.v)) != MCS_OK)
        return st;
    s->prev.t = t + h;
    s->w.dense_ready = 2; /* y0, y1 kept for the Hermite dense output */
    return finish_step(s, h);
}

/* Dormand-Prince 5(4) tableau. */
static const mcs_real DP_A[6][6] = {
    {MCS_R(1.0) / 5, 0, 0, 0, 0, 0},
    {MCS_R(3.0) / 40, MCS_R(9.0) / 40, 0, 0, 0, 0},
    {MCS_R(44.0) / 45, MCS_R(-56.0) / 15, MCS_R(32.0) / 9, 0, 0, 0},
    {MCS_R(19372.0) / 6561, MCS_R(-25360.0) / 2187, MCS_R(64448.0) / 6561, MCS_R(-212.0) / 729, 0, 0},
    {MCS_R(9017.0) / 3168, MCS_R(-355.0) / 33, MCS_R(46732.0) / 5247, MCS_R(49.0) / 176,
     MCS_R(-5103.0) / 18656, 0},
    {MCS_R(35.0) / 384, 0, MCS_R(500.0) / 1113, MCS_R(125.0) / 192, MCS_R(-2187.0) / 6784,
     MCS_R(11.0) / 84}};
static const mcs_real DP_C[7] = {0, MCS_R(0.2), MCS_R(0.3), MCS_R(0.8), MCS_R(8.0) / 9, 1, 1};
/* b - b^ (5th minus 4th order weights) */
static const mcs_real DP_E[7] = {MCS_R(71.0) / 57600, 0, MCS_R(-71.0) / 16695, MCS_R(71.0) / 1920,
                                 MCS_R(-17253.0) / 339200, MCS_R(22.0) / 525, MCS_R(-1.0) / 40};
/* dense output (Hairer's contd5) */
static const mcs_real DP_D[7] = {MCS_R(-12715105075.0) / 11282082432, 0,
                                 MCS_R(87487479700.0) / 32700410799,
                                 MCS_R(-10690763975.0) / 1880347072,
                                 MCS_R(701980252875.0) / 199316789632,
                                 MCS_R(-1453857185.0) / 822651844, MCS_R(69997945.0) / 29380423};

/* One DOPRI5 attempt of length h on the chart of s->cur; *err is the scaled error norm. */
static mcs_status dopri_attempt(mcs_sim *s, mcs_real h, mcs_real *err)
{
    const int n = s->n, f = n - s->cur.r, len = 2 * f;
    const mcs_real t = s->cur.t, xscale = mcs_vec_max_abs(n, s->cur.x);
    mcs_real **k = s->w.k, sum = 0, rtol;
    mcs_status st;
    int i, j;
    s->w.g_cond_max = 1;
    chart_start(s, s->w.y0);
    if ((st = chart_rhs(s, &s->cur, s->w.y0, t, k[0])) != MCS_OK)
        return st;
    for (j = 1; j < 7; ++j) {
        mcs_real *y = (j == 6) ? s->w.y1 : s->w.ys;
        axpy_stage(len, s->w.y0, h, j, DP_A[j - 1], k, y);
        if ((st = chart_rhs(s, &s->cur, y, t + DP_C[j] * h, k[j])) != MCS_OK)
            return st;
    }
    /* the last stage evaluated the chart at y1: its x, v are the step's end state */
    for (i = 0; i < n; ++i) {
        s->prev.x[i] = s->w.xs[i];
        s->prev.v[i] = s->w.vs[i];
    }
    /* Near a singular configuration the stages cannot be evaluated to better than about
     * eps cond(A_S U): the relative tolerance is not allowed below that, or error control would
     * creep towards the singular point with ever shorter steps. */
    rtol = MAX2(s->opt.rtol, 10 * MCS_REAL_EPS * s->w.g_cond_max);
    for (i = 0; i < len; ++i) {
        mcs_real e = 0, sc;
        for (j = 0; j < 7; ++j)
            e += DP_E[j] * k[j][i];
        e *= h;
        sc = MAX2(MCS_FN(fabs)(s->w.y0[i]), MCS_FN(fabs)(s->w.y1[i]));
        if (i < f) /* positions on the chart start at 0: scale them by the size of x */
            sc = MAX2(sc, xscale);
        sc = s->opt.atol + rtol * sc;
        sum += (e / sc) * (e / sc);
    }
    *err = len > 0 ? MCS_FN(sqrt)(sum / len) : 0;
    if (!(*err - *err == 0))
        return MCS_ERR_NONFINITE;
    return MCS_OK;
}

static mcs_status step_dopri5(mcs_sim *s, mcs_real t_target)
{
    const mcs_real t = s->cur.t;
    int last_rejected = 0;
    for (;;) {
        mcs_real h = s->h_next, err = 0, fac;
        mcs_status st;
        int final = 0;
        if (h >= t_target - t - MCS_R(1e-12) * MAX2(MCS_R(1.0), MCS_FN(fabs)(t))) {
            h = t_target - t;
            final = 1;
        }
        if (h < s->opt.h_min)
            return MCS_ERR_STEP_TOO_SMALL;
        st = dopri_attempt(s, h, &err);
        if (retryable(st)) {
            /* a failed stage rejects the step; it is retaken on the same chart, shorter, or
             * longer when the chart itself is close to the singular point */
            s->stats.rejected++;
            s->h_next = h * (retake_factor(s) < 1 ? MCS_R(0.25) : retake_factor(s));
            last_rejected = 1;
            continue;
        }
        if (st != MCS_OK)
            return st;
        fac = err > 0 ? MCS_R(0.9) * MCS_FN(pow)(err, MCS_R(-0.2)) : MCS_R(5.0);
        if (err <= 1) {
            fac = MIN2(fac, last_rejected ? MCS_R(1.0) : MCS_R(5.0));
            s->prev.t = final ? t_target : t + h;
            s->w.dense_ready = 1;
            st = finish_step(s, s->prev.t - t);
            if (st == MCS_ERR_SINGULAR_CHART) { /* rule 1: never end a step at a singular point */
                s->stats.detours++;
                s->w.retries++;
                s->h_next = h * retake_factor(s);
                last_rejected = 1;
                continue;
            }
            if (st != MCS_OK)
                return st;
            /* keep the controller's step when this one was cut short to hit the target */
            if (!final || h * MAX2(fac, MCS_R(0.2)) > s->h_next)
                s->h_next = h * MAX2(fac, MCS_R(0.2));
            return MCS_OK;
        }
        s->stats.rejected++;
        s->h_next = h * MAX2(fac, MCS_R(0.2));
        last_rejected = 1;
    }
}

mcs_status mcs_sim_step(mcs_sim *s, mcs_real t_target)
{
    mcs_status st;
    if (!s || !(t_target > s->cur.t))
        return MCS_ERR_ARGUMENT;
    if (s->opt.method == MCS_METHOD_DOPRI5)
        return step_dopri5(s, t_target);
    {
        /* RK4 on the grid t_grid0 + k h; a step towards an off-grid target is shortened and the
         * next one returns to the grid. Rules 2-3 of SPEC §6: a step whose stages fail near a
         * singular point, or that would end on one, is retaken shorter and asymmetric (0.45 of
         * it), and the next step returns to the grid; each retake is counted as a detour. */
        const mcs_real h = s->opt.h, snap = MCS_R(1e-9) * h;
        mcs_real next = s->t_grid0 + (mcs_real)(s->grid_index + 1) * h, end;
        if (s->cur.t >= next - snap) {
            s->grid_index++;
            next = s->t_grid0 + (mcs_real)(s->grid_index + 1) * h;
        }
        end = next;
        if (t_target < next - snap)
            end = t_target;
        for (;;) {
            st = step_rk4(s, end - s->cur.t);
            if (st == MCS_OK)
                break;
            if (!retryable(st) || s->w.retries >= MAX_RETRIES)
                return st;
            s->stats.detours++;
            s->w.retries++;
            end = s->cur.t + MCS_R(0.45) * (end - s->cur.t);
        }
        if (end == next)
            s->grid_index++;
        s->cur.t = (end == next && t_target >= next - snap && t_target <= next + snap) ? t_target
                                                                                        : end;
        return MCS_OK;
    }
}

mcs_status mcs_sim_advance(mcs_sim *s, mcs_real t_target)
{
    if (!s)
        return MCS_ERR_ARGUMENT;
    while (s->cur.t < t_target) {
        mcs_status st = mcs_sim_step(s, t_target);
        if (st != MCS_OK)
            return st;
    }
    return MCS_OK;
}

/* ---------------------------------------------------------------- outputs */

mcs_status mcs_sim_dense(mcs_sim *s, mcs_real t, mcs_real *x, mcs_real *v, mcs_real *q,
                         mcs_real *qd)
{
    const int n = s->n, f = n - s->prev.r, len = 2 * f;
    const mcs_real h = s->h_last;
    mcs_real th, th1, *y = s->w.ys;
    mcs_status st;
    int i, j;
    if (!s->w.dense_ready || h <= 0 || t < s->prev.t || t > s->cur.t)
        return MCS_ERR_NO_DENSE;
    th = (t - s->prev.t) / h;
    th1 = 1 - th;
    if (s->w.dense_ready == 2) {
        /* RK4: cubic Hermite of q from (q, qd) at both ends; qd from its derivative */
        const mcs_real h00 = (2 * th - 3) * th * th + 1, h10 = ((th - 2) * th + 1) * th;
        const mcs_real h01 = (3 - 2 * th) * th * th, h11 = (th - 1) * th * th;
        const mcs_real d00 = 6 * th * (th - 1), d10 = (3 * th - 4) * th + 1;
        const mcs_real d01 = -d00, d11 = (3 * th - 2) * th;
        for (i = 0; i < f; ++i) {
            const mcs_real q0 = s->w.y0[i], q1 = s->w.y1[i];
            const mcs_real v0 = s->w.y0[f + i], v1 = s->w.y1[f + i];
            y[i] = h00 * q0 + h10 * h * v0 + h01 * q1 + h11 * h * v1;
            y[f + i] = (d00 * q0 + d01 * q1) / h + d10 * v0 + d11 * v1;
        }
    }
    for (i = 0; i < len && s->w.dense_ready == 1; ++i) {
        const mcs_real y0 = s->w.y0[i], dy = s->w.y1[i] - y0;
        const mcs_real bspl = h * s->w.k[0][i] - dy;
        const mcs_real r4 = dy - h * s->w.k[6][i] - bspl;
        mcs_real r5 = 0;
        for (j = 0; j < 7; ++j)
            r5 += DP_D[j] * s->w.k[j][i];
        r5 *= h;
        y[i] = y0 + th * (dy + th1 * (bspl + th * (r4 + th1 * r5)));
    }
    for (i = 0; i < s->prev.r; ++i)
        s->w.p[i] = 0;
    if ((st = chart_map(s, &s->prev, y, y + f, t, x, v)) != MCS_OK)
        return st;
    if (q || qd) {
        mcs_frame *pr = &s->probe;
        if ((st = factor_probe(s, t, x, v)) != MCS_OK)
            return st;
        if ((st = continue_basis(s, &s->prev, t - s->prev.t, pr)) != MCS_OK)
            return st;
        if (q)
            mcs_mat_gemm(1, 0, n - pr->r, 1, n, 1, pr->Q + pr->r * n, n, x, n, 0, q, n);
        if (qd)
            mcs_mat_gemm(1, 0, n - pr->r, 1, n, 1, pr->Q + pr->r * n, n, v, n, 0, qd, n);
    }
    return MCS_OK;
}

/* sigma at time t inside the last step, measured at the chart's rank: the dense state's
 * |R_{rp-1}| / |R_0| with rp = prev.r (0 when the chart cannot be evaluated there, which happens
 * only at a singular point). Leaves x in s->event.x and the factorization in s->probe. */
static mcs_real sigma_at(mcs_sim *s, mcs_real t)
{
    mcs_real *x = s->event.x, *v = s->w.tmp2;
    if (mcs_sim_dense(s, t, x, v, NULL, NULL) != MCS_OK)
        return 0;
    if (factor_probe(s, t, x, v) != MCS_OK)
        return 0;
    return ratio_at_rank(s, &s->probe, s->prev.r);
}

/* SPEC §6: look for a singular configuration inside the step just accepted (prev.t .. cur.t).
 * When sigma is small at one of its ends, minimize sigma(t) over the step by golden-section
 * search on the dense output; a minimum inside the step and below sing_tol is an event. The new
 * motions come from the factorization there with sing_tol, aligned with the continued basis
 * (SPEC §3.7: continued motions first, the new ones after). */
static void detect_event(mcs_sim *s)
{
    const mcs_real g = MCS_R(0.6180339887498949);
    const int n = s->n, rp = s->prev.r, f_old = n - rp;
    mcs_real a = s->prev.t, b = s->cur.t, c, d, fc, fd, t_min, s_min, ends;
    mcs_event *ev = &s->event;
    int it, i, r_s, f_s, kmin;
    if (!(s->opt.sing_tol > 0) || !s->w.dense_ready || rp == 0 || s->cur.r != rp)
        return;
    ends = MIN2(s->prev.sigma, s->cur.sigma);
    if (!(ends < s->opt.sing_watch))
        return;
    c = b - g * (b - a);
    d = a + g * (b - a);
    fc = sigma_at(s, c);
    fd = sigma_at(s, d);
    for (it = 0; it < 80 && (b - a) > MCS_R(1e-13) * MAX2(MCS_R(1.0), MCS_FN(fabs)(b)); ++it) {
        if (fc < fd) {
            b = d;
            d = c;
            fd = fc;
            c = b - g * (b - a);
            fc = sigma_at(s, c);
        } else {
            a = c;
            c = d;
            fc = fd;
            d = a + g * (b - a);
            fd = sigma_at(s, d);
        }
    }
    t_min = fc < fd ? c : d;
    s_min = MIN2(fc, fd);
    if (!(s_min < s->opt.sing_tol) || !(s_min < MCS_R(0.5) * ends))
        return;
    /* the configuration there: step off the exact point if the chart cannot be evaluated on it */
    {
        mcs_real dt = MCS_R(1e-12) * MAX2(MCS_R(1.0), MCS_FN(fabs)(t_min));
        for (i = 0; i < 40 && mcs_sim_dense(s, t_min, ev->x, s->w.tmp2, NULL, NULL) != MCS_OK;
             ++i, dt *= 2)
            t_min += (i % 2 ? -dt * (i + 1) : dt * (i + 1));
        if (i == 40)
            return;
    }
    if (s->m > 0)
        s->model->A(ev->x, t_min, s->params, s->w.A);
    if (mcs_qr_basis(n, s->m, s->w.A, MAX2(s->m, 1), s->opt.sing_tol, s->probe.Q, s->probe.R,
                     s->probe.piv, &r_s, s->w.basis_work) != 0)
        return;
    f_s = n - r_s;
    if (r_s >= rp)
        return;
    /* continued basis at t_min, then align the singular null space with it */
    if (s->opt.continuation != MCS_CONT_OFF && s->m > 0 && s->opt.continuation != MCS_CONT_NONE)
        s->model->A_dot(s->prev.x, s->prev.v, s->prev.t, s->params, s->w.A_dot);
    if (s->opt.continuation == MCS_CONT_OFF) {
        mcs_mat_copy(n, f_old, s->prev.Q + rp * n, n, s->w.Tpred, n);
    } else if (mcs_predict_tangent(n, s->m, rp, s->prev.Q, s->prev.R, s->prev.piv, s->w.A_dot,
                                   t_min - s->prev.t, s->opt.continuation, s->w.Tpred,
                                   s->w.basis_work, s->w.basis_iwork) != 0) {
        return;
    }
    mcs_mat_copy(n, f_s, s->probe.Q + r_s * n, n, s->w.That, n);
    if (mcs_align_basis(n, f_old, s->w.Tpred, f_s, s->w.That, s->w.Phi, s->w.basis_work) != 0)
        return;
    ev->t = t_min;
    /* sigma measured at the located configuration (the search may end where the chart could
     * not be evaluated, counted there as 0) */
    ev->sigma = MCS_FN(fabs)(s->probe.R[0]) > 0
                    ? MCS_FN(fabs)(s->probe.R[(rp - 1) + (rp - 1) * n]) / MCS_FN(fabs)(s->probe.R[0]) : s_min;
    ev->rank_before = rp;
    ev->rank_after = r_s;
    kmin = n < s->m ? n : s->m;
    ev->nrdiag = kmin;
    for (i = 0; i < kmin; ++i)
        ev->rdiag[i] = MCS_FN(fabs)(s->probe.R[i + i * n]);
    ev->nmotions = f_s - f_old;
    mcs_mat_copy(n, f_old, s->w.Phi, n, ev->continued, n);
    mcs_mat_copy(n, f_s - f_old, s->w.Phi + f_old * n, n, ev->motions, n);
    s->event_ready = 1;
    s->stats.events++;
    s->probe.r = r_s; /* the probe now holds the singular factorization */
}

mcs_status mcs_sim_multipliers(mcs_sim *s, mcs_real t, const mcs_real *x, const mcs_real *v,
                               mcs_real *lambda)
{
    const int n = s ? s->n : 0, m = s ? s->m : 0;
    mcs_frame *pr;
    mcs_real *y, *ydot, *g = s ? s->w.vs : NULL, *mu, *N;
    mcs_status st;
    int i, j, l, r, f;
    if (!s || !x || !v || !lambda)
        return MCS_ERR_ARGUMENT;
    if (m == 0)
        return MCS_OK;
    pr = &s->probe;
    if ((st = factor_probe(s, t, x, v)) != MCS_OK)
        return st;
    r = pr->r;
    f = n - r;
    /* accelerations from the chart centred here: y = (0, T^T v) */
    y = s->w.ys;
    ydot = s->w.yerr;
    for (i = 0; i < f; ++i)
        y[i] = 0;
    mcs_mat_gemm(1, 0, f, 1, n, 1, pr->Q + r * n, n, v, n, 0, y + f, MAX2(f, 1));
    for (i = 0; i < r; ++i)
        s->w.p[i] = 0;
    if ((st = chart_rhs(s, pr, y, t, ydot)) != MCS_OK)
        return st;
    /* g = f - M xdd = (f - M beta) - (M Phi) qdd; chart_rhs left f - M beta in w.rhs */
    for (i = 0; i < n; ++i)
        g[i] = s->w.rhs[i];
    mcs_mat_gemm(0, 0, n, 1, f, -1, s->w.MPhi, n, ydot + f, MAX2(f, 1), 1, g, n);
    for (i = 0; i < m; ++i)
        lambda[i] = 0;
    if (r == 0)
        return MCS_OK;
    /* A^T P = Q R: with mu = P^T lambda and R1 = R[:r, :] (r x m), R1 mu = U^T g; the
     * minimum-norm mu = R1^T (R1 R1^T)^-1 U^T g */
    mu = s->w.c;
    N = s->w.G;
    mcs_mat_gemm(1, 0, r, 1, n, 1, pr->Q, n, g, n, 0, s->w.tmp, r);
    for (j = 0; j < r; ++j)
        for (i = 0; i < r; ++i) {
            mcs_real sum = 0;
            for (l = 0; l < m; ++l)
                if (l >= i && l >= j) /* R is upper triangular */
                    sum += pr->R[i + l * n] * pr->R[j + l * n];
            N[i + j * r] = sum;
        }
    if (mcs_la_cholesky(r, N, r) != 0)
        return MCS_ERR_SINGULAR_CHART;
    mcs_la_cholesky_solve(r, 1, N, r, s->w.tmp, r);
    for (l = 0; l < m; ++l) {
        mcs_real sum = 0;
        for (i = 0; i < r && i <= l; ++i)
            sum += pr->R[i + l * n] * s->w.tmp[i];
        mu[l] = sum;
    }
    for (l = 0; l < m; ++l)
        lambda[pr->piv[l]] = mu[l];
    return mcs_vec_max_abs(m, lambda) < 0 ? MCS_ERR_NONFINITE : MCS_OK;
}

void mcs_sim_minimal(const mcs_sim *s, mcs_real *q, mcs_real *qd)
{
    const int n = s->n, r = s->cur.r, f = n - r;
    mcs_mat_gemm(1, 0, f, 1, n, 1, s->cur.Q + r * n, n, s->cur.x, n, 0, q, MAX2(f, 1));
    mcs_mat_gemm(1, 0, f, 1, n, 1, s->cur.Q + r * n, n, s->cur.v, n, 0, qd, MAX2(f, 1));
}

mcs_real mcs_sim_constraint_norm(mcs_sim *s)
{
    return constraint_norm_at(s, s->cur.x, s->cur.t);
}

void mcs_sim_energy(mcs_sim *s, mcs_real *kinetic, mcs_real *potential)
{
    *kinetic = s->model->kinetic(s->cur.x, s->cur.v, s->cur.t, s->params);
    *potential = s->model->potential ? s->model->potential(s->cur.x, s->cur.t, s->params) : 0;
}
