/* mcs_modes.c - reduced linearization and its eigenvalues (mcs_modes.h). */
#include "mcs/mcs_modes.h"

#include "linalg/mcs_linalg.h"

#define TWO_PI MCS_R(6.283185307179586476925)

typedef struct modes_ws {
    mcs_real *A;
    mcs_real *Q;
    mcs_real *R; /* (m x n), (n x n), (n x m) */
    mcs_real *K;
    mcs_real *S;
    mcs_real *M;
    mcs_real *D; /* (n x n) each; S: scratch */
    mcs_real *Kr;
    mcs_real *Mr;
    mcs_real *Dr; /* (f x f) reduced */
    mcs_real *P;
    mcs_real *B;
    mcs_real *V; /* (2f x 2f) pencil, its right side, eigenvectors */
    mcs_real *ar;
    mcs_real *ai;
    mcs_real *be;   /* (2f) eigenvalue parts */
    mcs_real *zero; /* (n) */
    mcs_real *la;
    mcs_real *bwork; /* LAPACK work MCS_LINALG_LWORK(2n); basis work */
    int *piv;
    int *order; /* (m), (2n) */
} modes_ws;

static void modes_carve(modes_ws *w, int n, int m, mcs_real *p, int *ip)
{
    const size_t nn = (size_t)n * (size_t)n;
    size_t at = 0;
    w->A = mcs_work_next(p, &at, (size_t)m * (size_t)n);
    w->Q = mcs_work_next(p, &at, nn);
    w->R = mcs_work_next(p, &at, (size_t)n * (size_t)m);
    w->K = mcs_work_next(p, &at, nn);
    w->S = mcs_work_next(p, &at, nn);
    w->M = mcs_work_next(p, &at, nn);
    w->D = mcs_work_next(p, &at, nn);
    w->Kr = mcs_work_next(p, &at, nn);
    w->Mr = mcs_work_next(p, &at, nn);
    w->Dr = mcs_work_next(p, &at, nn);
    w->P = mcs_work_next(p, &at, 4U * nn);
    w->B = mcs_work_next(p, &at, 4U * nn);
    w->V = mcs_work_next(p, &at, 4U * nn);
    w->ar = mcs_work_next(p, &at, (2U * (size_t)n) + 1U);
    w->ai = mcs_work_next(p, &at, (2U * (size_t)n) + 1U);
    w->be = mcs_work_next(p, &at, (2U * (size_t)n) + 1U);
    w->zero = mcs_work_next(p, &at, (size_t)n + 1U);
    w->la = mcs_work_next(p, &at, MCS_LINALG_LWORK((size_t)2 * (size_t)n));
    w->bwork = &p[at];
    w->piv = ip;
    w->order = &ip[m + 1];
}

/* Xr = T^T X T (f x f) for X (n x n); S is scratch (n x f). */
static void reduce(int n, int f, const mcs_real *T, const mcs_real *X, mcs_real *S, mcs_real *Xr)
{
    mcs_mat_gemm(0, 0, n, f, n, 1, X, n, T, n, 0, S, n);
    mcs_mat_gemm(1, 0, f, f, n, 1, T, n, S, n, 0, Xr, f);
}

/* B <- L^-1 B for the lower-triangular L (f x f) and B (f x cols). */
static void forward(int f, const mcs_real *L, mcs_real *B, int cols)
{
    int i;
    int j;
    int l;
    for (j = 0; j < cols; ++j) {
        for (i = 0; i < f; ++i) {
            mcs_real s = B[i + (j * f)];
            for (l = 0; l < i; ++l) {
                s -= L[i + (l * f)] * B[l + (j * f)];
            }
            B[i + (j * f)] = s / L[i + (i * f)];
        }
    }
}

/* B <- L^-T B. */
static void backward_t(int f, const mcs_real *L, mcs_real *B, int cols)
{
    int i;
    int j;
    int l;
    for (j = 0; j < cols; ++j) {
        for (i = f - 1; i >= 0; --i) {
            mcs_real s = B[i + (j * f)];
            for (l = i + 1; l < f; ++l) {
                s -= L[l + (i * f)] * B[l + (j * f)];
            }
            B[i + (j * f)] = s / L[i + (i * f)];
        }
    }
}

/* Undamped symmetric-definite route: eigenvalues mu = omega^2 into ar, eta into V (f x f). */
static mcs_status symmetric_modes(int f, modes_ws *w)
{
    int i;
    int j;
    mcs_real *C = w->P;
    if (mcs_la_cholesky(f, w->Mr, f) != 0) {
        return MCS_ERR_MASS_NOT_PD;
    }
    for (j = 0; j < f; ++j) { /* C = L^-1 K_r L^-T, symmetrized */
        for (i = 0; i < f; ++i) {
            C[i + (j * f)] = w->Kr[i + (j * f)];
        }
    }
    forward(f, w->Mr, C, f);
    for (j = 0; j < f; ++j) {
        for (i = 0; i < f; ++i) {
            w->V[i + (j * f)] = C[j + (i * f)];
        }
    }
    forward(f, w->Mr, w->V, f);
    for (j = 0; j < f; ++j) {
        for (i = 0; i < f; ++i) {
            C[i + (j * f)] = (w->V[i + (j * f)] + w->V[j + (i * f)]) / MCS_R(2.0);
        }
    }
    const size_t la_size = MCS_LINALG_LWORK((size_t)2 * (size_t)f);
    if (mcs_la_sym_eig(f, C, f, w->ar, w->la, (int)la_size) != 0) {
        return MCS_ERR_LINALG;
    }
    backward_t(f, w->Mr, C, f);
    mcs_mat_copy(f, f, C, f, w->V, f);
    return MCS_OK;
}

/* First-order pencil (2f): eigenvalues (ar + i ai) / be, eigenvectors in V (dggev packing). */
static mcs_status pencil_modes(int f, modes_ws *w, int damped)
{
    size_t la_size;
    const int k = 2 * f;
    int i;
    int j;
    int info;
    for (j = 0; j < k; ++j) {
        for (i = 0; i < k; ++i) {
            mcs_real a = MCS_R(0.0);
            mcs_real b = ((i == j) && (i < f)) ? MCS_R(1.0) : MCS_R(0.0);
            if ((i < f) && (j == (i + f))) {
                a = MCS_R(1.0);
            } else if ((i >= f) && (j < f)) {
                a = -w->Kr[(i - f) + (j * f)];
            } else if ((i >= f) && (j >= f)) {
                a = (damped != 0) ? -w->Dr[(i - f) + ((j - f) * f)] : MCS_R(0.0);
                b = w->Mr[(i - f) + ((j - f) * f)];
            } else {
                /* the upper-left block: a = 0, b = I */
            }
            w->P[i + (j * k)] = a;
            w->B[i + (j * k)] = b;
        }
    }
    la_size = MCS_LINALG_LWORK((size_t)2 * (size_t)f);
    info = mcs_la_gen_eig(k, w->P, k, w->B, k, w->ar, w->ai, w->be, w->V, k, w->la, (int)la_size);
    if (info == MCS_LA_UNSUPPORTED) {
        return MCS_ERR_UNSUPPORTED;
    }
    return (info == 0) ? MCS_OK : MCS_ERR_LINALG;
}

/* Shape j: (re + i im) = T (vre + i vim) (n), scaled so its largest entry is exactly 1. */
static void store_shape(int n, int f, const mcs_real *T, const mcs_real *vre, const mcs_real *vim,
                        mcs_real *sre, mcs_real *sim)
{
    mcs_real best = -MCS_R(1.0);
    mcs_real pr = MCS_R(1.0);
    mcs_real pi = MCS_R(0.0);
    mcs_real d;
    int i;
    mcs_mat_gemm(0, 0, n, 1, f, 1, T, n, vre, f, 0, sre, n);
    if (vim != NULL) {
        mcs_mat_gemm(0, 0, n, 1, f, 1, T, n, vim, f, 0, sim, n);
    } else {
        for (i = 0; i < n; ++i) {
            sim[i] = MCS_R(0.0);
        }
    }
    for (i = 0; i < n; ++i) {
        const mcs_real a = (sre[i] * sre[i]) + (sim[i] * sim[i]);
        if (a > best) {
            best = a, pr = sre[i], pi = sim[i];
        }
    }
    d = (pr * pr) + (pi * pi);
    if (!(d > MCS_R(0.0))) {
        return;
    }
    for (i = 0; i < n; ++i) { /* divide by (pr + i pi) */
        const mcs_real a = sre[i];
        const mcs_real b = sim[i];
        sre[i] = ((a * pr) + (b * pi)) / d;
        sim[i] = ((b * pr) - (a * pi)) / d;
    }
}

void mcs_modes_defaults(mcs_modes_options *opt)
{
    opt->use_kc = 1;
    opt->damped = 0;
    opt->rank_tol = MCS_R(1e-9);
    opt->sym_tol = MCS_R(1e-8);
    opt->t = MCS_R(0.0);
    opt->basis = NULL;
    opt->basis_cols = 0;
}

size_t mcs_modes_work_size(const mcs_model *md)
{
    return (md != NULL) ? MCS_MODES_WORK_SIZE((size_t)md->nx, (size_t)md->nc) : 0U;
}

size_t mcs_modes_iwork_size(const mcs_model *md)
{
    return (md != NULL) ? MCS_MODES_IWORK_SIZE((size_t)md->nx, (size_t)md->nc) : 0U;
}

/* The modes from the eigen solution: fill modes[], shapes, report; sort by |s|. */
static int collect(int n, int f, const mcs_real *T, modes_ws *w, int symmetric, mcs_mode *modes,
                   mcs_real *shapes, mcs_real *shapes_im, mcs_real *scratch)
{
    const int k = symmetric ? f : (2 * f);
    mcs_real big = MCS_R(0.0);
    mcs_real rigid_tol;
    int j;
    int i;
    int count = 0;
    for (j = 0; j < k; ++j) {
        mcs_mode md;
        if (symmetric != 0) {
            const mcs_real mu = w->ar[j];
            md.omega = mcs_sqrt(mcs_fabs(mu));
            md.re = (mu < MCS_R(0.0)) ? md.omega : MCS_R(0.0);
            md.im = (mu < MCS_R(0.0)) ? MCS_R(0.0) : md.omega;
        } else {
            if (!(mcs_fabs(w->be[j]) > MCS_R(0.0)) || (w->ai[j] < MCS_R(0.0))) {
                continue; /* infinite, or the conjugate of a pair already taken */
            }
            md.re = w->ar[j] / w->be[j];
            md.im = w->ai[j] / w->be[j];
            md.omega = mcs_sqrt((md.re * md.re) + (md.im * md.im));
        }
        if (md.omega > big) {
            big = md.omega;
        }
        md.freq = md.im / TWO_PI;
        md.zeta = (md.omega > MCS_R(0.0)) ? (-md.re / md.omega) : MCS_R(0.0);
        if (md.im > MCS_R(0.0)) {
            md.kind = (int)MCS_MODE_OSCILLATING;
        } else if (md.re > MCS_R(0.0)) {
            md.kind = (int)MCS_MODE_UNSTABLE;
        } else {
            md.kind = (int)MCS_MODE_DECAYING;
        }
        modes[count] = md;
        w->order[count] = j;
        ++count;
    }
    /* rigid: |s| at rounding level of the largest (or exactly zero stiffness) */
    rigid_tol = MCS_R(10.0) * mcs_sqrt(MCS_REAL_EPS) * big;
    for (j = 0; j < count; ++j) {
        if (modes[j].omega <= rigid_tol) {
            modes[j].kind = MCS_MODE_RIGID;
            modes[j].re = MCS_R(0.0);
            modes[j].im = MCS_R(0.0);
            modes[j].omega = MCS_R(0.0);
            modes[j].freq = MCS_R(0.0);
            modes[j].zeta = MCS_R(0.0);
        }
    }
    /* insertion sort by omega, then re */
    for (j = 1; j < count; ++j) {
        for (i = j; i > 0; --i) {
            mcs_mode a = modes[i - 1];
            mcs_mode b = modes[i];
            int t;
            if ((a.omega < b.omega) || ((a.omega == b.omega) && (a.re <= b.re))) {
                break;
            }
            modes[i - 1] = b;
            modes[i] = a;
            t = w->order[i - 1];
            w->order[i - 1] = w->order[i];
            w->order[i] = t;
        }
    }
    for (j = 0; j < count; ++j) {
        const int src = w->order[j];
        mcs_real *sre = &shapes[(size_t)j * (size_t)n];
        mcs_real *sim = (shapes_im != NULL) ? &shapes_im[(size_t)j * (size_t)n] : scratch;
        const int kk = 2 * f;
        if (symmetric != 0) {
            store_shape(n, f, T, &w->V[(size_t)src * (size_t)f], 0, sre, sim);
        } else if (w->ai[src] > MCS_R(0.0)) { /* pair: columns src, src+1; eta = first f rows */
            for (i = 0; i < f; ++i) {
                w->S[i] = w->V[(size_t)i + ((size_t)src * (size_t)kk)];
                w->S[f + i] = w->V[(size_t)i + ((size_t)src * (size_t)kk) + (size_t)kk];
            }
            store_shape(n, f, T, w->S, &w->S[f], sre, sim);
        } else {
            for (i = 0; i < f; ++i) {
                w->S[i] = w->V[(size_t)i + ((size_t)src * (size_t)kk)];
            }
            store_shape(n, f, T, w->S, 0, sre, sim);
        }
    }
    return count;
}

mcs_status mcs_modes_solve(const mcs_model *md, const void *p, const mcs_modes_options *opt,
                           const mcs_real *x, const mcs_real *lambda, mcs_modes_report *report,
                           mcs_mode *modes, mcs_real *shapes, mcs_real *shapes_im, mcs_real *work,
                           size_t work_len, int *iwork, size_t iwork_len)
{
    mcs_modes_report local;
    mcs_modes_report *rep = (report != NULL) ? report : &local;
    modes_ws w;
    const mcs_real *T;
    mcs_real kmax = MCS_R(0.0);
    mcs_real asym = MCS_R(0.0);
    mcs_real *scratch;
    mcs_status st;
    int n;
    int m;
    int r = 0;
    int f;
    int i;
    int j;
    int symmetric;
    /* what a refused call leaves (a caller reading the report without the status reads zeros) */
    rep->rank = 0;
    rep->dof = 0;
    rep->nmodes = 0;
    rep->symmetric = 0;
    rep->rigid = 0;
    rep->stiffness = MCS_R(0.0);
    rep->asymmetry = MCS_R(0.0);
    if (!md || !opt || !x || (!lambda && (md->nc > 0)) || !modes || !shapes || !work || !iwork) {
        return MCS_ERR_ARGUMENT;
    }
    if (md->abi_version != MCS_MODEL_ABI_VERSION) {
        return MCS_ERR_MODEL_VERSION;
    }
    if ((md->K_f == NULL) || (opt->use_kc && (md->nc > 0) && (md->K_c == NULL)) ||
        (opt->damped && (md->D == NULL))) {
        return MCS_ERR_UNSUPPORTED; /* generated without the stiffness kernels */
    }
    n = md->nx;
    m = md->nc;
    if ((work_len < mcs_modes_work_size(md)) || (iwork_len < mcs_modes_iwork_size(md))) {
        return MCS_ERR_WORKSPACE;
    }
    if (!((opt->rank_tol >= MCS_R(0.0)) && (opt->rank_tol < MCS_R(1.0))) ||
        !(opt->sym_tol >= MCS_R(0.0)) ||
        (opt->basis && ((opt->basis_cols < 0) || (opt->basis_cols > n)))) {
        return MCS_ERR_ARGUMENT;
    }
    if ((mcs_vec_max_abs(n, x) < MCS_R(0.0)) || (mcs_vec_max_abs(m, lambda) < MCS_R(0.0)) ||
        !((opt->t - opt->t) == MCS_R(0.0))) {
        return MCS_ERR_NONFINITE;
    }
    modes_carve(&w, n, m, work, iwork);
    for (i = 0; i < n; ++i) {
        w.zero[i] = MCS_R(0.0);
    }
    if (m > 0) {
        md->A(x, opt->t, p, w.A);
        st = mcs_qr_basis(n, m, w.A, m, opt->rank_tol, w.Q, w.R, w.piv, &r, w.bwork);
        if (st != MCS_OK) {
            return st;
        }
    } else {
        for (j = 0; j < n; ++j) {
            for (i = 0; i < n; ++i) {
                w.Q[i + (j * n)] = (i == j);
            }
        }
    }
    f = n - r;
    T = &w.Q[(size_t)r * (size_t)n];
    if (opt->basis != NULL) {
        if (opt->basis_cols != f) {
            return MCS_ERR_ARGUMENT;
        }
        T = opt->basis;
    }
    rep->rank = r;
    rep->dof = f;
    /* K = K_f (+ K_c), M, D at v = 0, reduced */
    md->K_f(x, w.zero, opt->t, p, w.K);
    if (opt->use_kc && (m > 0)) {
        md->K_c(x, lambda, opt->t, p, w.S);
        for (i = 0; i < (n * n); ++i) {
            w.K[i] += w.S[i];
        }
    }
    md->M(x, opt->t, p, w.M);
    reduce(n, f, T, w.K, w.S, w.Kr);
    reduce(n, f, T, w.M, w.S, w.Mr);
    if (opt->damped != 0) {
        md->D(x, w.zero, opt->t, p, w.D);
        reduce(n, f, T, w.D, w.S, w.Dr);
    }
    kmax = mcs_vec_max_abs(f * f, w.Kr);
    if ((kmax < MCS_R(0.0)) || (mcs_vec_max_abs(f * f, w.Mr) < MCS_R(0.0))) {
        return MCS_ERR_NONFINITE;
    }
    for (j = 0; j < f; ++j) {
        for (i = 0; i < j; ++i) {
            const mcs_real d = mcs_fabs(w.Kr[i + (j * f)] - w.Kr[j + (i * f)]);
            if (d > asym) {
                asym = d;
            }
        }
    }
    rep->stiffness = kmax;
    rep->asymmetry = MCS_R(0.0);
    if (kmax > MCS_R(0.0)) {
        rep->asymmetry = asym / kmax;
    }
    symmetric = 0;
    if ((opt->damped == 0) && (rep->asymmetry <= opt->sym_tol)) {
        symmetric = 1;
    }
    rep->symmetric = symmetric;
    st = symmetric ? symmetric_modes(f, &w) : pencil_modes(f, &w, opt->damped);
    if (st != MCS_OK) {
        return st;
    }
    scratch = w.D; /* free now: the imaginary parts when the caller wants none */
    rep->nmodes = collect(n, f, T, &w, symmetric, modes, shapes, shapes_im, scratch);
    rep->rigid = 0;
    for (j = 0; j < rep->nmodes; ++j) {
        if (modes[j].kind == (int)MCS_MODE_RIGID) {
            rep->rigid++;
        }
        if (!(((modes[j].re - modes[j].re) == MCS_R(0.0)) &&
              ((modes[j].im - modes[j].im) == MCS_R(0.0)))) {
            return MCS_ERR_NONFINITE; /* overflow in the eigenproblem */
        }
    }
    if ((mcs_vec_max_abs(n * rep->nmodes, shapes) < MCS_R(0.0)) ||
        (shapes_im && (mcs_vec_max_abs(n * rep->nmodes, shapes_im) < MCS_R(0.0)))) {
        return MCS_ERR_NONFINITE;
    }
    return MCS_OK;
}
