/* mcs_statics.c - static equilibrium by Newton with K_c and a line search (mcs_statics.h). */
#include "mcs/mcs_statics.h"

#include "mcs_linalg.h"

/* The caller's work arrays, carved once (sizes in the comments; k = n + m). */
typedef struct statics_ws {
    int n;
    int m;
    mcs_real *A;  /* (m x n) constraint Jacobian */
    mcs_real *c;  /* (m) */
    mcs_real *f;  /* (n) forces at v = 0 */
    mcs_real *rf; /* (n) f - A^T lambda */
    mcs_real *Q;
    mcs_real *R;     /* (n x n), (n x m) pivoted QR of A^T */
    mcs_real *K;     /* (n x n) K_f + K_c */
    mcs_real *Kc;    /* (n x n) K_c, then K T (n x f) */
    mcs_real *J;     /* (k x k) Newton matrix: reduced (f x f) or KKT */
    mcs_real *dx;    /* (k) step (x part, then lambda part for KKT) */
    mcs_real *xt;    /* (n) trial x */
    mcs_real *lt;    /* (m) trial lambda */
    mcs_real *zero;  /* (n) zero velocities */
    mcs_real *N;     /* (n x n) scratch of the multipliers */
    mcs_real *y;     /* (n) scratch */
    mcs_real *bwork; /* MCS_BASIS_WORK_SIZE(n, m) */
    int *piv;        /* (m) pivot order of the QR */
    int *ipiv;       /* (k) LU pivots */
    int rank;
    int rank_max; /* the rank at the assembled start: rows dependent there stay dependent */
} statics_ws;

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

static mcs_real max_abs(int len, const mcs_real *a)
{
    return mcs_vec_max_abs(len, a);
}

static mcs_real sum_sq(int len, const mcs_real *a)
{
    mcs_real s = MCS_R(0.0);
    int i;
    for (i = 0; i < len; ++i) {
        s += a[i] * a[i];
    }
    return s;
}

/* c, A, f at x; the factorization of A^T; lambda (least squares unless keep_lambda) and
 * rf = f - A^T lambda. Returns the status; *merit = |c|^2 + (|rf| scale)^2. */
static mcs_status evaluate(const mcs_model *md, const void *p, const mcs_statics_options *opt,
                           statics_ws *w, const mcs_real *x, mcs_real *lambda, int keep_lambda,
                           mcs_real scale, mcs_real *merit)
{
    const int n = w->n;
    const int m = w->m;
    mcs_status st;
    int i;
    if (m > 0) {
        md->c(x, opt->t, p, w->c);
        md->A(x, opt->t, p, w->A);
    }
    md->f(x, w->zero, opt->t, p, w->f);
    w->rank = 0;
    if (m > 0) {
        st = mcs_qr_basis(n, m, w->A, m, opt->rank_tol, w->Q, w->R, w->piv, &w->rank, w->bwork);
        if (st != MCS_OK) {
            return st;
        }
        if (w->rank > w->rank_max) {
            w->rank = w->rank_max; /* the trailing pivots: the rows least independent here */
        }
        if (!keep_lambda) {
            st = mcs_min_norm_multipliers(n, m, w->rank, w->Q, w->R, w->piv, w->f, lambda, w->N,
                                          w->y);
            if (st != MCS_OK) {
                return st;
            }
        }
    }
    for (i = 0; i < n; ++i) {
        w->rf[i] = w->f[i];
    }
    if (m > 0) {
        mcs_mat_gemm(1, 0, n, 1, m, -1, w->A, m, lambda, m, 1, w->rf, n);
    }
    if ((max_abs(m, w->c) < MCS_R(0.0)) || (max_abs(n, w->rf) < MCS_R(0.0)) ||
        (max_abs(m, lambda) < MCS_R(0.0))) {
        return MCS_ERR_NONFINITE;
    }
    *merit = sum_sq(m, w->c) + (sum_sq(n, w->rf) * scale * scale);
    return MCS_OK;
}

/* LU of the (k x k) matrix J in place; 1 when it is singular relative to its largest entry. */
static int lu_singular(int k, mcs_real *J, int *ipiv)
{
    const mcs_real big = max_abs(k * k, J);
    mcs_real small;
    int i;
    if (!(big > MCS_R(0.0))) {
        return 1;
    }
    if (mcs_la_lu(k, J, k, ipiv) != 0) {
        return 1;
    }
    small = mcs_fabs(J[0]);
    for (i = 1; i < k; ++i) {
        if (mcs_fabs(J[i + (i * k)]) < small) {
            small = mcs_fabs(J[i + (i * k)]);
        }
    }
    return small <= (100 * k * MCS_REAL_EPS * big);
}

/* K = K_f (+ K_c(lambda)) at x, v = 0. */
static void stiffness(const mcs_model *md, const void *p, const mcs_statics_options *opt,
                      statics_ws *w, const mcs_real *x, const mcs_real *lambda)
{
    const size_t nn = (size_t)w->n * (size_t)w->n;
    size_t i;
    md->K_f(x, w->zero, opt->t, p, w->K);
    if (opt->use_kc && (w->m > 0)) {
        md->K_c(x, lambda, opt->t, p, w->Kc);
        for (i = 0; i < nn; ++i) {
            w->K[i] += w->Kc[i];
        }
    }
}

/* Continue the caller's basis to the state last evaluated: the polar alignment of its QR basis
 * to the previous T (the simulator's continuation with a zero-velocity prediction). */
static mcs_status continue_basis(const mcs_statics_options *opt, statics_ws *w)
{
    const int n = w->n;
    const int f = n - w->rank;
    const mcs_real *That = &w->Q[(size_t)w->rank * (size_t)n];
    mcs_real *Tout = w->Kc; /* free until the next stiffness() */
    size_t i;
    if (*opt->basis_cols <= 0) {
        for (i = 0; i < ((size_t)n * (size_t)f); ++i) {
            opt->basis[i] = That[i];
        }
    } else {
        if (*opt->basis_cols > n) {
            return MCS_ERR_ARGUMENT;
        }
        if ((f > 0) &&
            (mcs_align_basis(n, *opt->basis_cols, opt->basis, f, That, Tout, w->bwork) != MCS_OK)) {
            return MCS_ERR_LINALG;
        }
        for (i = 0; i < ((size_t)n * (size_t)f); ++i) {
            opt->basis[i] = Tout[i];
        }
    }
    *opt->basis_cols = f;
    return MCS_OK;
}

/* The minimum-norm step dx (n) with A_S dx = -c_S on the independent rows S at the state last
 * evaluated (the normal part of the tangent step): (R11^T a = -(P^T c)[:r], dx = U a). */
static void normal_step(statics_ws *w)
{
    const int n = w->n;
    const int r = w->rank;
    mcs_real *a = w->y;
    int i;
    for (i = 0; i < r; ++i) {
        a[i] = -w->c[w->piv[i]];
    }
    if (r > 0) {
        mcs_mat_solve_upper_transposed(r, w->R, n, a);
    }
    for (i = 0; i < n; ++i) {
        w->dx[i] = MCS_R(0.0);
    }
    if (r > 0) {
        mcs_mat_gemm(0, 0, n, 1, r, 1, w->Q, n, a, r, 0, w->dx, n);
    }
}

/* The tangent-space Newton step dx (n) at the state last evaluated, with the tangent basis T
 * (n x f): the caller's continued one, or the QR basis. */
static mcs_status tangent_step(statics_ws *w, const mcs_real *basis)
{
    const int n = w->n;
    const int r = w->rank;
    const int f = n - r;
    const mcs_real *T = (basis != NULL) ? basis : &w->Q[(size_t)r * (size_t)n];
    mcs_real *KT = w->Kc;
    mcs_real *g = w->xt;
    int i;
    normal_step(w); /* A U a = -c on the r independent rows */
    if (f == 0) {
        return MCS_OK;
    }
    /* tangent part: (T^T K T) b = T^T (rf - K dx_n) */
    for (i = 0; i < n; ++i) {
        g[i] = w->rf[i];
    }
    mcs_mat_gemm(0, 0, n, 1, n, -1, w->K, n, w->dx, n, 1, g, n);
    mcs_mat_gemm(0, 0, n, f, n, 1, w->K, n, T, n, 0, KT, n);
    mcs_mat_gemm(1, 0, f, f, n, 1, T, n, KT, n, 0, w->J, f);
    if (lu_singular(f, w->J, w->ipiv) != 0) {
        return MCS_ERR_SINGULAR_JACOBIAN;
    }
    mcs_mat_gemm(1, 0, f, 1, n, 1, T, n, g, n, 0, w->N, f);
    (void)mcs_la_lu_solve(f, 1, w->J, f, w->ipiv, w->N, f);
    mcs_mat_gemm(0, 0, n, 1, f, 1, T, n, w->N, f, 1, w->dx, n);
    return MCS_OK;
}

/* The saddle-point Newton step (dx, dlambda) ((n + m)) at the state last evaluated. */
static mcs_status kkt_step(statics_ws *w)
{
    const int n = w->n;
    const int m = w->m;
    const int k = n + m;
    int i;
    int j;
    for (j = 0; j < k; ++j) {
        for (i = 0; i < k; ++i) {
            mcs_real v = MCS_R(0.0);
            if ((i < n) && (j < n)) {
                v = w->K[i + (j * n)];
            } else if ((i < n) && (j >= n)) {
                v = w->A[(j - n) + (i * m)]; /* A^T */
            } else if ((i >= n) && (j < n)) {
                v = w->A[(i - n) + (j * m)];
            } else {
                /* the lower-right block is zero */
            }
            w->J[i + (j * k)] = v;
        }
    }
    for (i = 0; i < n; ++i) {
        w->dx[i] = w->rf[i];
    }
    for (i = 0; i < m; ++i) {
        w->dx[n + i] = -w->c[i];
    }
    if (lu_singular(k, w->J, w->ipiv) != 0) {
        return MCS_ERR_SINGULAR_JACOBIAN;
    }
    (void)mcs_la_lu_solve(k, 1, w->J, k, w->ipiv, w->dx, k);
    return MCS_OK;
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
        st = evaluate(md, p, opt, w, x, lambda, 0, MCS_R(0.0), &merit);
        if (st != MCS_OK) {
            return st;
        }
        cn = max_abs(m, w->c);
        if (cn <= (opt->tol * L)) {
            break;
        }
        if (*steps == STATICS_ASSEMBLY_STEPS) {
            return MCS_ERR_ASSEMBLY;
        }
        normal_step(w);
        alpha = MCS_R(1.0);
        for (halvings = 0; halvings < 30; ++halvings) {
            for (i = 0; i < n; ++i) {
                w->xt[i] = x[i] + (alpha * w->dx[i]);
            }
            md->c(w->xt, opt->t, p, w->c);
            trial = sum_sq(m, w->c);
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
    L = max_abs(n, x);
    F = max_abs(n, w.f);
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
    st = evaluate(md, p, opt, &w, x, lambda, 0, scale, &merit);
    ++rep->evaluations;
    iter = 0;
    for (;;) {
        if ((st == MCS_OK) && opt->basis && (m > 0)) {
            st = continue_basis(opt, &w);
        }
        if (st != MCS_OK) {
            break;
        }
        rep->merit[rep->history_len] = mcs_sqrt(merit);
        rep->step[rep->history_len] = MCS_R(0.0);
        rep->history_len++;
        rep->iterations = iter;
        rep->rank = w.rank;
        rep->residual_c = max_abs(m, w.c);
        rep->residual_f = max_abs(n, w.rf);
        if ((rep->residual_c <= (opt->tol * L)) && (rep->residual_f <= (opt->tol * F))) {
            return checked(n, x, m, lambda, MCS_OK);
        }
        if (iter == opt->max_iter) {
            return MCS_ERR_NO_CONVERGENCE;
        }
        stiffness(md, p, opt, &w, x, lambda);
        st = kkt ? kkt_step(&w)
                 : tangent_step(&w, ((opt->basis != NULL) && (m > 0)) ? opt->basis : NULL);
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
            st = evaluate(md, p, opt, &w, w.xt, w.lt, kkt, scale, &trial);
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
            (void)evaluate(md, p, opt, &w, x, lambda, kkt, scale, &merit);
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
