/* mcs_linearize.c - the exact linearization of the minimal-coordinate dynamics about the
 * current state (mcs_sim.h), from the generated derivative kernels: no finite differences.
 *
 * The state is the chart's (q, qd) centred at x with the continued basis T (SPEC §4): x(q) =
 * x + T q + U p(q) on the constraints, qd = T^T v, and qdd = T^T x'' with x'' the constrained
 * accelerations of  M x'' + A^T lam = f + B u,  A x'' = gamma. Along a direction of the state,
 * (dx, dv) in the coordinates, the accelerations move by dxdd with
 *
 *   M dxdd + A^T dlam = -(K_f + K_c + M_x) dx - D dv + B du          =: r_f
 *   A dxdd            = -gamma_x dx - 2 A_dot dv                      =: r_c
 *
 * (M_x, gamma_x: the generated tangents of M a - B u and A a - gamma along dx; d gamma/dv =
 * -2 A_dot). A move dq_j of the chart coordinate is dx = T_j and dv = -A^+ A_dot T_j (the
 * velocity that keeps A v + c_t = 0 and T^T v = qd); a move of qd_j is dv = T_j. With
 * dxdd = T dqdd + A^+ r_c (A^+ the minimum-norm inverse of the independent rows),
 *
 *   (T^T M T) dqdd = T^T (r_f - M A^+ r_c).
 */
#include "sim/mcs_sim_internal.h"

/* The kernels the linearization reads, and no row group in force (the locks' rows have no
 * generated tangents). */
static int supported(const mcs_sim *s)
{
    const mcs_model *md = s->model;
    if ((md->M == NULL) || (md->K_f == NULL) || (md->D == NULL) || (md->M_x == NULL)) {
        return 0;
    }
    if ((s->m > 0) && ((md->K_c == NULL) || (md->gamma_x == NULL) || (md->A_dot == NULL))) {
        return 0;
    }
    return ((s->m == md->nc) && (mcs_variant_own_multipliers(s) == 0)) ? 1 : 0;
}

/* Where the linearization keeps its arrays in the caller's workspace. */
typedef struct linearize_work {
    mcs_real *T;    /* (n x f) the continued basis */
    mcs_real *M;    /* (n x n) */
    mcs_real *K;    /* (n x n) K_f + K_c */
    mcs_real *S;    /* (n x n) K_c, then M T */
    mcs_real *Dm;   /* (n x n) D */
    mcs_real *Ad;   /* (m x n) A_dot */
    mcs_real *Mr;   /* (f x f) T^T M T, then its Cholesky factor */
    mcs_real *R;    /* (n x (2f + nu)) the right-hand sides r_f - M A^+ r_c */
    mcs_real *Y;    /* (f x (2f + nu)) T^T R, then dqdd */
    mcs_real *xdd;  /* (n) */
    mcs_real *lam;  /* (max(m, 1)) */
    mcs_real *wbuf; /* (3n + nu) a kernel's w */
    mcs_real *dv;   /* (n) */
    mcs_real *rf;   /* (n) */
    mcs_real *rc;   /* (max(m, 1)) */
    mcs_real *tmp;  /* (n) */
} linearize_work;

static void carve(mcs_real *work, int n, int m, int nu, linearize_work *w)
{
    const int rows_i = MAX2(m, 1);
    const int cols_i = (2 * n) + nu;
    const int wlen_i = (3 * n) + nu;
    const size_t nn = (size_t)n * (size_t)n;
    const size_t rows = (size_t)rows_i;
    const size_t cols = (size_t)cols_i;
    size_t at = 0;
    w->T = mcs_work_next(work, &at, nn);
    w->M = mcs_work_next(work, &at, nn);
    w->K = mcs_work_next(work, &at, nn);
    w->S = mcs_work_next(work, &at, nn);
    w->Dm = mcs_work_next(work, &at, nn);
    w->Ad = mcs_work_next(work, &at, (size_t)n * rows);
    w->Mr = mcs_work_next(work, &at, nn);
    w->R = mcs_work_next(work, &at, (size_t)n * cols);
    w->Y = mcs_work_next(work, &at, (size_t)n * cols);
    w->xdd = mcs_work_next(work, &at, (size_t)n);
    w->lam = mcs_work_next(work, &at, rows);
    w->wbuf = mcs_work_next(work, &at, (size_t)wlen_i);
    w->dv = mcs_work_next(work, &at, (size_t)n);
    w->rf = mcs_work_next(work, &at, (size_t)n);
    w->rc = mcs_work_next(work, &at, rows);
    w->tmp = mcs_work_next(work, &at, (size_t)n);
}

/* out (n) = M A^+ b for b (m): the mass times the minimum-norm solution of A_S y = b_S. */
static void mass_min_norm(mcs_sim *s, linearize_work *w, mcs_real *b, mcs_real *out)
{
    int i;
    for (i = 0; i < s->m; ++i) {
        b[i] = -b[i]; /* mcs_frame_min_norm solves A_S y = -b_S */
    }
    mcs_frame_min_norm(s, &s->probe, b, w->tmp);
    mcs_mat_gemm(0, 0, s->n, 1, s->n, 1, w->M, s->n, w->tmp, s->n, 0, out, s->n);
}

/* Column c of R: r_f - M A^+ r_c for the state direction c (c < f: dq_c; c < 2f: dqd_(c-f))
 * or the input c - 2f. */
static void right_hand_side(mcs_sim *s, linearize_work *w, int f, int c, mcs_real t,
                            const mcs_real *x, const mcs_real *v, const mcs_real *u)
{
    const mcs_model *md = s->model;
    const int n = s->n;
    const int m = s->m;
    const int nu = md->nu;
    mcs_real *col = &w->R[(size_t)c * (size_t)n];
    int i;
    for (i = 0; i < m; ++i) {
        w->rc[i] = MCS_R(0.0);
    }
    if (c >= (2 * f)) { /* an input: r_f = B e_k, r_c = 0 */
        for (i = 0; i < nu; ++i) {
            w->wbuf[i] = (i == (c - (2 * f))) ? MCS_R(1.0) : MCS_R(0.0);
        }
        md->f_u(x, w->wbuf, t, s->params, col);
        return;
    }
    if (c >= f) { /* qd_j: dv = T_j */
        const int j = c - f;
        for (i = 0; i < n; ++i) {
            w->dv[i] = w->T[i + (j * n)];
            w->rf[i] = MCS_R(0.0);
        }
    } else { /* q_j: dx = T_j, dv = -A^+ A_dot T_j */
        const mcs_real *dx = &w->T[(size_t)c * (size_t)n];
        if (m > 0) {
            mcs_mat_gemm(0, 0, m, 1, n, 1, w->Ad, m, dx, n, 0, w->rc, m);
            mcs_frame_min_norm(s, &s->probe, w->rc, w->dv); /* A_S dv = -A_dot dx */
            for (i = 0; i < n; ++i) {                       /* w = [v; a; dx]: -gamma_x dx */
                w->wbuf[i] = v[i];
                w->wbuf[n + i] = w->xdd[i];
                w->wbuf[(2 * n) + i] = dx[i];
            }
            md->gamma_x(x, w->wbuf, t, s->params, w->rc);
            for (i = 0; i < m; ++i) {
                w->rc[i] = -w->rc[i];
            }
        } else {
            for (i = 0; i < n; ++i) {
                w->dv[i] = MCS_R(0.0);
            }
        }
        for (i = 0; i < n; ++i) { /* w = [a; u; dx]: -M_x dx */
            w->wbuf[i] = w->xdd[i];
            w->wbuf[n + nu + i] = dx[i];
        }
        for (i = 0; i < nu; ++i) {
            w->wbuf[n + i] = u[i];
        }
        md->M_x(x, w->wbuf, t, s->params, w->rf);
        mcs_mat_gemm(0, 0, n, 1, n, 1, w->K, n, dx, n, 1, w->rf, n); /* + (K_f + K_c) dx */
        for (i = 0; i < n; ++i) {
            w->rf[i] = -w->rf[i];
        }
    }
    mcs_mat_gemm(0, 0, n, 1, n, -1, w->Dm, n, w->dv, n, 1, w->rf, n); /* - D dv */
    if (m > 0) {
        mcs_mat_gemm(0, 0, m, 1, n, -2, w->Ad, m, w->dv, n, 1, w->rc, m); /* - 2 A_dot dv */
        mass_min_norm(s, w, w->rc, col);
    } else {
        for (i = 0; i < n; ++i) {
            col[i] = MCS_R(0.0);
        }
    }
    for (i = 0; i < n; ++i) {
        col[i] = w->rf[i] - col[i];
    }
}

mcs_status mcs_sim_linearize(mcs_sim *s, mcs_real *A, mcs_real *B, int *dof, mcs_real *work,
                             size_t lwork)
{
    const mcs_model *md;
    linearize_work w;
    mcs_real u[(MCS_MAX_INPUTS > 0) ? MCS_MAX_INPUTS : 1];
    mcs_real t;
    const mcs_real *x;
    const mcs_real *v;
    mcs_status st;
    int n;
    int nu;
    int need;
    int f;
    int f2;
    int cols;
    int i;
    int j;
    if (!s || !s->ready || !A || !dof || !work) {
        return MCS_ERR_ARGUMENT;
    }
    md = s->model;
    n = s->n;
    nu = md->nu;
    if ((nu > 0) && (B == NULL)) {
        return MCS_ERR_ARGUMENT;
    }
    if (supported(s) == 0) {
        return MCS_ERR_UNSUPPORTED;
    }
    need = MCS_SIM_LINEARIZE_WORK_SIZE(n, s->m, nu);
    if (lwork < (size_t)need) {
        return MCS_ERR_WORKSPACE;
    }
    carve(work, n, s->m, nu, &w);
    for (i = 0; i < nu; ++i) {
        u[i] = (s->inputs_on != 0) ? s->u[i] : MCS_R(0.0);
    }
    f = n - s->cur.r;
    f2 = 2 * f;
    cols = f2 + nu;
    *dof = f;
    t = s->cur.t;
    x = s->cur.x;
    v = s->cur.v;
    mcs_frame_basis(s, &s->cur, w.T); /* before the probe's factorization: the continued T */
    st = mcs_dynamics_at(s, t, x, v, w.xdd, w.lam);
    if (st != MCS_OK) {
        return st;
    }
    md->M(x, t, s->params, w.M);
    md->K_f(x, v, t, s->params, w.K);
    md->D(x, v, t, s->params, w.Dm);
    if (s->m > 0) {
        md->K_c(x, w.lam, t, s->params, w.S);
        for (i = 0; i < (n * n); ++i) {
            w.K[i] += w.S[i];
        }
        md->A_dot(x, v, t, s->params, w.Ad);
    }
    for (j = 0; j < cols; ++j) {
        right_hand_side(s, &w, f, j, t, x, v, u);
    }
    for (i = 0; i < (f2 * f2); ++i) {
        A[i] = MCS_R(0.0);
    }
    for (i = 0; i < (f2 * nu); ++i) {
        B[i] = MCS_R(0.0);
    }
    if (f == 0) {
        return MCS_OK;
    }
    /* T^T M T and its Cholesky factor; dqdd = (T^T M T)^-1 T^T R */
    mcs_mat_gemm(0, 0, n, f, n, 1, w.M, n, w.T, n, 0, w.S, n);
    mcs_mat_gemm(1, 0, f, f, n, 1, w.T, n, w.S, n, 0, w.Mr, f);
    if (mcs_la_cholesky(f, w.Mr, f) != 0) {
        return MCS_ERR_MASS_NOT_PD;
    }
    mcs_mat_gemm(1, 0, f, cols, n, 1, w.T, n, w.R, n, 0, w.Y, f);
    if (mcs_la_cholesky_solve(f, cols, w.Mr, f, w.Y, f) != 0) {
        return MCS_ERR_LINALG;
    }
    for (j = 0; j < f; ++j) {
        A[j + ((f + j) * f2)] = MCS_R(1.0); /* dq/dt = qd */
    }
    for (j = 0; j < f2; ++j) {
        for (i = 0; i < f; ++i) {
            A[(f + i) + (j * f2)] = w.Y[i + (j * f)];
        }
    }
    for (j = 0; j < nu; ++j) {
        for (i = 0; i < f; ++i) {
            B[(f + i) + (j * f2)] = w.Y[i + ((f2 + j) * f)];
        }
    }
    if ((mcs_vec_max_abs(f2 * f2, A) < MCS_R(0.0)) ||
        ((nu > 0) && (mcs_vec_max_abs(f2 * nu, B) < MCS_R(0.0)))) {
        return MCS_ERR_NONFINITE;
    }
    return MCS_OK;
}

mcs_status mcs_sim_chart_rhs(mcs_sim *s, const mcs_real *y, mcs_real *ydot)
{
    mcs_frame *pr;
    const mcs_frame *cur;
    size_t i;
    size_t nn;
    if (!s || !s->ready || !y || !ydot) {
        return MCS_ERR_ARGUMENT;
    }
    if ((mcs_variant_has_probe(s) == 0) || (s->cur.Q == NULL)) {
        return MCS_ERR_UNSUPPORTED;
    }
    pr = &s->probe;
    cur = &s->cur;
    nn = (size_t)s->n * (size_t)s->n;
    /* the current chart, copied into the probe (scratch) so the state's is left untouched */
    pr->t = cur->t;
    for (i = 0; i < (size_t)s->n; ++i) {
        pr->x[i] = cur->x[i];
        pr->x_lo[i] = cur->x_lo[i];
        pr->v[i] = cur->v[i];
    }
    for (i = 0; i < nn; ++i) {
        pr->Q[i] = cur->Q[i];
    }
    for (i = 0; i < ((size_t)s->n * (size_t)s->m); ++i) {
        pr->R[i] = cur->R[i];
    }
    for (i = 0; i < (size_t)s->m; ++i) {
        pr->piv[i] = cur->piv[i];
    }
    pr->r = cur->r;
    pr->T = &pr->Q[(size_t)cur->r * (size_t)s->n];
    pr->identity = cur->identity;
    pr->sigma = cur->sigma;
    for (i = 0; i < (size_t)cur->r; ++i) {
        s->w.p[i] = MCS_R(0.0); /* the Newton's start: the chart's centre */
    }
    return mcs_chart_rhs(s, pr, y, pr->t, ydot);
}
