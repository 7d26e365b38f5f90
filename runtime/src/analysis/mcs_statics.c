/* mcs_statics.c - static equilibrium by Newton with K_c and a line search (mcs_statics.h): the
 * iteration (assembly of the start, steps, line search, convergence, the report); the steps are
 * mcs_statics_step.c's. */
#include "linalg/mcs_linalg.h"
#include "analysis/mcs_statics_internal.h"

static int statics_carve(statics_ws *w, int n, int m, mcs_real *work, size_t work_len, int *iwork,
                         size_t iwork_len)
{
    const size_t k = (size_t)n + (size_t)m;
    mcs_real *p = work;
    size_t at = 0;
    if ((work_len < MCS_STATICS_WORK_SIZE((size_t)n, (size_t)m)) ||
        (iwork_len < MCS_STATICS_IWORK_SIZE((size_t)n, (size_t)m))) {
        return 0;
    }
    w->n = n;
    w->m = m;
    w->A = mcs_work_next(p, &at, (size_t)m * (size_t)n);
    w->c = mcs_work_next(p, &at, (size_t)m + 1U);
    w->f = mcs_work_next(p, &at, (size_t)n);
    w->rf = mcs_work_next(p, &at, (size_t)n);
    w->Q = mcs_work_next(p, &at, (size_t)n * (size_t)n);
    w->R = mcs_work_next(p, &at, (size_t)n * (size_t)m);
    w->K = mcs_work_next(p, &at, (size_t)n * (size_t)n);
    w->Kc = mcs_work_next(p, &at, (size_t)n * (size_t)n);
    w->J = mcs_work_next(p, &at, k * k);
    w->dx = mcs_work_next(p, &at, k + 1U);
    w->xt = mcs_work_next(p, &at, (size_t)n);
    w->lt = mcs_work_next(p, &at, (size_t)m + 1U);
    w->zero = mcs_work_next(p, &at, (size_t)n);
    w->N = mcs_work_next(p, &at, (size_t)n * (size_t)n);
    w->y = mcs_work_next(p, &at, (size_t)n + 1U);
    w->bwork = &p[at];
    w->piv = iwork;
    w->ipiv = &iwork[m + 1];
    return 1;
}

void mcs_statics_defaults(mcs_statics_options *opt)
{
    opt->use_kc = 1;
    opt->method = MCS_STATICS_TANGENT;
    opt->max_iter = 50;
#ifdef MCS_REAL_FLOAT
    opt->tol = MCS_R(1e-5);
#else
    opt->tol = MCS_R(1e-13);
#endif
    opt->rank_tol = MCS_R(1e-9);
    opt->t = MCS_R(0.0);
    opt->basis = NULL;
    opt->basis_cols = NULL;
}

size_t mcs_statics_work_size(const mcs_model *md)
{
    return (md != NULL) ? MCS_STATICS_WORK_SIZE((size_t)md->nx, (size_t)md->nc) : 0U;
}

size_t mcs_statics_iwork_size(const mcs_model *md)
{
    return (md != NULL) ? MCS_STATICS_IWORK_SIZE((size_t)md->nx, (size_t)md->nc) : 0U;
}

/* An equilibrium reported as found must be finite (overflow near the range of mcs_real). */
static mcs_status checked(int n, const mcs_real *x, int m, const mcs_real *lambda, mcs_status st)
{
    if ((st == MCS_OK) &&
        ((mcs_vec_max_abs(n, x) < MCS_R(0.0)) || (mcs_vec_max_abs(m, lambda) < MCS_R(0.0)))) {
        return MCS_ERR_NONFINITE;
    }
    return st;
}

/* An empty report: what a refused call leaves, so that a caller that reads it without looking at
 * the status reads zeros, not what the memory held. */
static void clear_report(mcs_statics_report *rep)
{
    int i;
    rep->assembly_steps = 0;
    rep->iterations = 0;
    rep->evaluations = 0;
    rep->rank = 0;
    rep->residual_c = MCS_R(0.0);
    rep->residual_f = MCS_R(0.0);
    rep->history_len = 0;
    for (i = 0; i < MCS_STATICS_HISTORY; ++i) {
        rep->merit[i] = MCS_R(0.0);
        rep->step[i] = MCS_R(0.0);
    }
}

/* 1 when the options ask for the KKT method */
static int is_kkt(const mcs_statics_options *opt)
{
    int kkt = 0;
    if ((opt != NULL) && (opt->method == (int)MCS_STATICS_KKT)) {
        kkt = 1;
    }
    return kkt;
}

/* Gauss-Newton steps of the assembly (mcs_statics_solve) before the position counts as on c = 0. */
#define STATICS_ASSEMBLY_STEPS 50

/* The start onto c = 0 (to tol L) by minimum-norm Gauss-Newton steps with a backtracking line
 * search on |c|^2; *steps their number. Off the constraint manifold rows that are dependent on it
 * are not (a parallelogram's extra bar), and the rank there is not the mechanism's: Newton on the
 * equilibrium with it diverges (issue 34). The rank found at the assembled state is kept
 * (w->rank_max) for the rest. */
static mcs_status assemble(const mcs_model *md, const void *p, const mcs_statics_options *opt,
                           statics_ws *w, mcs_real *x, mcs_real *lambda, mcs_real L, int *steps)
{
    const int n = w->n;
    const int m = w->m;
    mcs_real merit;
    mcs_real trial;
    mcs_real cn;
    mcs_real alpha;
    mcs_status st;
    int i;
    int halvings;
    *steps = 0;
    for (;;) {
        st = mcs_statics_evaluate(md, p, opt, w, x, lambda, 0, MCS_R(0.0), &merit);
        if (st != MCS_OK) {
            return st;
        }
        cn = mcs_statics_max_abs(m, w->c);
        if (cn <= (opt->tol * L)) {
            break;
        }
        if (*steps == STATICS_ASSEMBLY_STEPS) {
            return MCS_ERR_ASSEMBLY;
        }
        mcs_statics_normal_step(w);
        alpha = MCS_R(1.0);
        for (halvings = 0; halvings < 30; ++halvings) {
            for (i = 0; i < n; ++i) {
                w->xt[i] = x[i] + (alpha * w->dx[i]);
            }
            md->c(w->xt, opt->t, p, w->c);
            trial = mcs_statics_sum_sq(m, w->c);
            if (trial <= ((MCS_R(1.0) - (MCS_R(1e-4) * alpha)) * merit)) {
                break;
            }
            alpha /= MCS_R(2.0);
        }
        if (!(trial <= merit)) {
            return MCS_ERR_ASSEMBLY; /* no step lowers |c|: no configuration near satisfies c */
        }
        for (i = 0; i < n; ++i) {
            x[i] = w->xt[i];
        }
        ++*steps;
    }
    w->rank_max = w->rank;
    return MCS_OK;
}

mcs_status mcs_statics_solve(const mcs_model *md, const void *p, const mcs_statics_options *opt,
                             mcs_real *x, mcs_real *lambda, mcs_statics_report *report,
                             mcs_real *work, size_t work_len, int *iwork, size_t iwork_len)
{
    mcs_statics_report local;
    mcs_statics_report *rep = (report != NULL) ? report : &local;
    statics_ws w;
    const int kkt = is_kkt(opt);
    mcs_real L;
    mcs_real F;
    mcs_real scale;
    mcs_real merit;
    mcs_real trial;
    mcs_real alpha = MCS_R(1.0);
    mcs_status st;
    int n;
    int m;
    int i;
    int iter;
    int halvings;
    clear_report(rep);
    if (!md || !opt || !x || (!lambda && (md->nc > 0)) || !work || !iwork) {
        return MCS_ERR_ARGUMENT;
    }
    if (md->abi_version != MCS_MODEL_ABI_VERSION) {
        return MCS_ERR_MODEL_VERSION;
    }
    if ((opt->max_iter < 1) || (opt->max_iter >= MCS_STATICS_HISTORY) || !(opt->tol > MCS_R(0.0)) ||
        !((opt->rank_tol >= MCS_R(0.0)) && (opt->rank_tol < MCS_R(1.0))) ||
        ((opt->method != (int)MCS_STATICS_TANGENT) && (kkt == 0)) ||
        ((opt->basis == NULL) != (opt->basis_cols == NULL))) {
        return MCS_ERR_ARGUMENT;
    }
    if ((md->K_f == NULL) || (opt->use_kc && (md->nc > 0) && (md->K_c == NULL))) {
        return MCS_ERR_UNSUPPORTED; /* generated without the stiffness kernels */
    }
    n = md->nx;
    m = md->nc;
    if ((mcs_vec_max_abs(n, x) < MCS_R(0.0)) || !((opt->t - opt->t) == MCS_R(0.0))) {
        return MCS_ERR_NONFINITE;
    }
    if (!statics_carve(&w, n, m, work, work_len, iwork, iwork_len)) {
        return MCS_ERR_WORKSPACE;
    }
    w.rank_max = m;
    for (i = 0; i < n; ++i) {
        w.zero[i] = MCS_R(0.0);
    }
    /* scales: lengths from the start, forces from the start's load */
    md->f(x, w.zero, opt->t, p, w.f);
    L = mcs_statics_max_abs(n, x);
    F = mcs_statics_max_abs(n, w.f);
    if ((L < MCS_R(0.0)) || (F < MCS_R(0.0))) {
        return MCS_ERR_NONFINITE;
    }
    L = (L > MCS_R(1.0)) ? L : MCS_R(1.0);
    F = (F > MCS_R(1.0)) ? F : MCS_R(1.0);
    scale = L / F;
    if (m > 0) {
        st = assemble(md, p, opt, &w, x, lambda, L, &rep->assembly_steps);
        if (st != MCS_OK) {
            return st;
        }
    }
    st = mcs_statics_evaluate(md, p, opt, &w, x, lambda, 0, scale, &merit);
    ++rep->evaluations;
    iter = 0;
    for (;;) {
        if ((st == MCS_OK) && opt->basis && (m > 0)) {
            st = mcs_statics_continue_basis(opt, &w);
        }
        if (st != MCS_OK) {
            break;
        }
        rep->merit[rep->history_len] = mcs_sqrt(merit);
        rep->step[rep->history_len] = MCS_R(0.0);
        rep->history_len++;
        rep->iterations = iter;
        rep->rank = w.rank;
        rep->residual_c = mcs_statics_max_abs(m, w.c);
        rep->residual_f = mcs_statics_max_abs(n, w.rf);
        if ((rep->residual_c <= (opt->tol * L)) && (rep->residual_f <= (opt->tol * F))) {
            return checked(n, x, m, lambda, MCS_OK);
        }
        if (iter == opt->max_iter) {
            return MCS_ERR_NO_CONVERGENCE;
        }
        mcs_statics_stiffness(md, p, opt, &w, x, lambda);
        st = kkt ? mcs_statics_kkt_step(&w)
                 : mcs_statics_tangent_step(&w,
                                            ((opt->basis != NULL) && (m > 0)) ? opt->basis : NULL);
        if (st != MCS_OK) {
            return st;
        }
        /* backtracking on the merit |c|^2 + (|rf| L / F)^2 (Newton makes it fall like 1 - 2a) */
        alpha = MCS_R(1.0);
        for (halvings = 0; halvings < 20; ++halvings) { /* down to alpha = 2^-20 < 1e-6 */
            for (i = 0; i < n; ++i) {
                w.xt[i] = x[i] + (alpha * w.dx[i]);
            }
            for (i = 0; i < m; ++i) {
                w.lt[i] = lambda[i] + (kkt ? (alpha * w.dx[n + i]) : MCS_R(0.0));
            }
            st = mcs_statics_evaluate(md, p, opt, &w, w.xt, w.lt, kkt, scale, &trial);
            ++rep->evaluations;
            if ((st == MCS_OK) && (trial <= ((MCS_R(1.0) - (MCS_R(1e-4) * alpha)) * merit))) {
                break;
            }
            alpha /= MCS_R(2.0);
        }
        rep->step[rep->history_len - 1] = alpha;
        if (alpha <= MCS_R(1e-6)) {
            /* stalled: at rounding level it has converged as far as the arithmetic allows */
            if ((rep->residual_c <= (MCS_R(1000.0) * opt->tol * L)) &&
                (rep->residual_f <= (MCS_R(1000.0) * opt->tol * F))) {
                st = MCS_OK;
            } else {
                st = MCS_ERR_NO_CONVERGENCE;
            }
            /* leave the last accepted iterate's lambda and residuals in place */
            (void)mcs_statics_evaluate(md, p, opt, &w, x, lambda, kkt, scale, &merit);
            return checked(n, x, m, lambda, st);
        }
        for (i = 0; i < n; ++i) {
            x[i] = w.xt[i];
        }
        for (i = 0; i < m; ++i) {
            lambda[i] = w.lt[i];
        }
        merit = trial;
        ++iter;
    }
    return st;
}
