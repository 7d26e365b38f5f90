/* mcs_linearize.c - exact linearizations from the generated derivative kernels (mcs_sim.h): of
 * the minimal-coordinate dynamics about the current state (mcs_sim_linearize), and of one RK4
 * step (mcs_sim_step_jacobian). No finite differences.
 *
 * On a chart (x_k, U, T, S; SPEC §4) the state is y = (q, qd): x(q) = x_k + T q + U p(q) on
 * c_S = 0, v = Phi qd - U G^-1 c_S,t with Phi = dx/dq = (I - U G^-1 A_S) T and G = A_S U, and
 * qdd = T^T x'' with x'' the constrained accelerations of  M x'' + A^T lam = f + B u,
 * A x'' = gamma. Along a direction (dx, dv) of the coordinates and velocities, and du of the
 * inputs, x'' moves by dxdd with
 *
 *   M dxdd + A_S^T dlam = -(K_f + K_c + M_x) dx - D dv + B du        =: r_f
 *   A_S dxdd            = -gamma_x dx - 2 A_dot dv                    =: r_c
 *
 * (M_x, gamma_x: the generated tangents of M a - B u and A a - gamma along dx; d gamma/dv =
 * -2 A_dot; K_c at the chart's multipliers lam_S = (U G^-1)^T (f + B u - M x'')). A move dq_j
 * is dx = Phi_j and dv = -U G^-1 A_dot_S Phi_j (the velocity that keeps A v + c_t = 0 and
 * T^T v = qd); a move dqd_j is dv = Phi_j. With dxdd = Phi dqdd + U G^-1 r_c (and T^T Phi = I,
 * T^T U = 0),
 *
 *   (Phi^T M Phi) dqdd = Phi^T (r_f - M U G^-1 r_c).
 *
 * At the chart's centre Phi = T and U G^-1 = U R_ns^-T, the minimum-norm inverse.
 */
#include "sim/mcs_sim_internal.h"

/* The kernels the linearizations read, and no row group in force (the locks' rows have no
 * generated tangents); the dense simulator's charts. */
static int supported(const mcs_sim *s)
{
    const mcs_model *md = s->model;
    if ((md->M == NULL) || (md->K_f == NULL) || (md->D == NULL) || (md->M_x == NULL) ||
        (md->f == NULL)) {
        return 0;
    }
    if ((s->m > 0) && ((md->K_c == NULL) || (md->gamma_x == NULL) || (md->A_dot == NULL))) {
        return 0;
    }
    if ((md->nu > 0) && (md->f_u == NULL)) {
        return 0;
    }
    return ((s->m == md->nc) && (s->opt.variant == MCS_VARIANT_DENSE) && (s->cur.Q != NULL)) ? 1
                                                                                             : 0;
}

/* Where the linearizations keep their arrays in the caller's workspace. */
typedef struct linearize_work {
    mcs_real *Phi;  /* (n x f) dx/dq at the point */
    mcs_real *P;    /* (n x r) U G^-1 */
    mcs_real *X;    /* (r x r) G^-1 */
    mcs_real *M;    /* (n x n) */
    mcs_real *K;    /* (n x n) K_f + K_c */
    mcs_real *S;    /* (n x n) K_c, then M Phi */
    mcs_real *Dm;   /* (n x n) D */
    mcs_real *Mr;   /* (f x f) Phi^T M Phi, then its Cholesky factor */
    mcs_real *Ad;   /* (m x n) A_dot */
    mcs_real *R;    /* (n x (2f + nu)) the right-hand sides r_f - M U G^-1 r_c */
    mcs_real *Y;    /* (f x (2f + nu)) Phi^T R, then dqdd/d(q, qd, u) */
    mcs_real *xs;   /* (n) x at the point */
    mcs_real *vs;   /* (n) v at the point */
    mcs_real *xdd;  /* (n) x'' there */
    mcs_real *g;    /* (n) f + B u, then f + B u - M x'' */
    mcs_real *wbuf; /* (3n + 2 nu) a kernel's w */
    int with_M_x;   /* M_x's w = [a; u; dx] fits wbuf (the implicit methods' holds 3n) */
    mcs_real *dv;   /* (n) */
    mcs_real *rf;   /* (n) */
    mcs_real *tmp;  /* (n) */
    mcs_real *rcs;  /* (n) r_c's rows S, then G^-1 of them */
    mcs_real *lam;  /* (max(m, 1)) the chart's multipliers, 0 off S */
    mcs_real *gam;  /* (max(m, 1)) gamma, then A_dot dv */
    mcs_real *rc;   /* (max(m, 1)) r_c */
    mcs_real *yc;   /* (2n) the chart's y */
    mcs_real *ydc;  /* (2n) its right-hand side */
    /* mcs_sim_step_jacobian's, after the above */
    mcs_real *Jy;  /* (2f x (2f + nu)) a stage's d(yd)/d(y, u) */
    mcs_real *dY;  /* (2f x (2f + nu)) a stage's dY/d(y0, u) */
    mcs_real *dK;  /* (2f x (2f + nu)) its dK/d(y0, u) */
    mcs_real *sum; /* (2f x (2f + nu)) dy1/d(y0, u) */
    mcs_real *kst; /* (4 x 2n) the stages' yd */
    mcs_real *Tto; /* (n x n) the basis after the step */
} linearize_work;

static void carve(mcs_real *work, int n, int m, int nu, int stepping, linearize_work *w)
{
    const int rows_i = MAX2(m, 1);
    const int cols_i = (2 * n) + nu;
    const int wlen_i = (3 * n) + (2 * nu);
    const size_t nn = (size_t)n * (size_t)n;
    const size_t rows = (size_t)rows_i;
    const size_t cols = (size_t)cols_i;
    const size_t n2 = (size_t)n * 2U;
    size_t at = 0;
    w->with_M_x = 1;
    w->Phi = mcs_work_next(work, &at, nn);
    w->P = mcs_work_next(work, &at, nn);
    w->X = mcs_work_next(work, &at, nn);
    w->M = mcs_work_next(work, &at, nn);
    w->K = mcs_work_next(work, &at, nn);
    w->S = mcs_work_next(work, &at, nn);
    w->Dm = mcs_work_next(work, &at, nn);
    w->Mr = mcs_work_next(work, &at, nn);
    w->Ad = mcs_work_next(work, &at, (size_t)n * rows);
    w->R = mcs_work_next(work, &at, (size_t)n * cols);
    w->Y = mcs_work_next(work, &at, (size_t)n * cols);
    w->xs = mcs_work_next(work, &at, (size_t)n);
    w->vs = mcs_work_next(work, &at, (size_t)n);
    w->xdd = mcs_work_next(work, &at, (size_t)n);
    w->g = mcs_work_next(work, &at, (size_t)n);
    w->wbuf = mcs_work_next(work, &at, (size_t)wlen_i);
    w->dv = mcs_work_next(work, &at, (size_t)n);
    w->rf = mcs_work_next(work, &at, (size_t)n);
    w->tmp = mcs_work_next(work, &at, (size_t)n);
    w->rcs = mcs_work_next(work, &at, (size_t)n);
    w->lam = mcs_work_next(work, &at, rows);
    w->gam = mcs_work_next(work, &at, rows);
    w->rc = mcs_work_next(work, &at, rows);
    w->yc = mcs_work_next(work, &at, n2);
    w->ydc = mcs_work_next(work, &at, n2);
    if (stepping != 0) {
        w->Jy = mcs_work_next(work, &at, n2 * cols);
        w->dY = mcs_work_next(work, &at, n2 * cols);
        w->dK = mcs_work_next(work, &at, n2 * cols);
        w->sum = mcs_work_next(work, &at, n2 * cols);
        w->kst = mcs_work_next(work, &at, n2 * 4U);
        w->Tto = mcs_work_next(work, &at, nn);
    }
}

/* The chart ch at y = (q, qd) (2f), time t: the right-hand side ydot (2f), and in w the point's
 * x, v, Phi, P = U G^-1 and A_dot. */
static mcs_status point_of_chart(mcs_sim *s, const mcs_frame *ch, const mcs_real *y, mcs_real t,
                                 linearize_work *w, mcs_real *ydot)
{
    const mcs_model *md = s->model;
    const int n = s->n;
    const int r = ch->r;
    const int f = n - r;
    int i;
    mcs_status st = mcs_chart_rhs(s, ch, y, t, ydot);
    if (st != MCS_OK) {
        return st;
    }
    for (i = 0; i < n; ++i) {
        w->xs[i] = s->w.xs[i];
        w->vs[i] = s->w.vs[i];
    }
    if (mcs_chart_identity(s, ch) != 0) { /* no rows, T = I: Phi = I */
        for (i = 0; i < (n * n); ++i) {
            w->Phi[i] = MCS_R(0.0);
        }
        for (i = 0; i < n; ++i) {
            w->Phi[i + (i * n)] = MCS_R(1.0);
        }
    } else {
        mcs_mat_copy(n, f, s->w.Phi, n, w->Phi, n);
    }
    if (r > 0) { /* G^-1 from the LU of G = A_S U the chart's map left (w.G, w.ipiv) */
        for (i = 0; i < (r * r); ++i) {
            w->X[i] = MCS_R(0.0);
        }
        for (i = 0; i < r; ++i) {
            w->X[i + (i * r)] = MCS_R(1.0);
        }
        if (mcs_la_lu_solve(r, r, s->w.G, r, s->w.ipiv, w->X, r) != 0) {
            return MCS_ERR_LINALG;
        }
        mcs_mat_gemm(0, 0, n, r, r, 1, ch->Q, n, w->X, r, 0, w->P, n);
    }
    if ((s->m > 0) && ((md->A_dot != NULL) || (md->nc == 0))) {
        mcs_rows_A_dot(s, w->xs, w->vs, t, w->Ad); /* the locks' rows too */
    } else {
        for (i = 0; i < (s->m * n); ++i) { /* left out of the build: the implicit methods' */
            w->Ad[i] = MCS_R(0.0);
        }
    }
    return MCS_OK;
}

/* out (n) = U G^-1 b_S for b (m) by constraint row. */
static void apply_P(const mcs_sim *s, const mcs_frame *ch, linearize_work *w, const mcs_real *b,
                    mcs_real *out)
{
    int i;
    for (i = 0; i < ch->r; ++i) {
        w->rcs[i] = b[ch->piv[i]];
    }
    mcs_mat_gemm(0, 0, s->n, 1, ch->r, 1, w->P, s->n, w->rcs, MAX2(ch->r, 1), 0, out, s->n);
}

/* dv (n) = -U G^-1 A_dot_S dx: the velocity change that keeps A v + c_t = 0 and T^T v when the
 * coordinates move by dx along the chart (a move of q; 0 without rows). Scratch: w->gam. */
static void velocity_of_move(const mcs_sim *s, const mcs_frame *ch, linearize_work *w,
                             const mcs_real *dx, mcs_real *dv)
{
    int i;
    if (s->m == 0) {
        for (i = 0; i < s->n; ++i) {
            dv[i] = MCS_R(0.0);
        }
        return;
    }
    mcs_mat_gemm(0, 0, s->m, 1, s->n, 1, w->Ad, s->m, dx, s->n, 0, w->gam, s->m);
    apply_P(s, ch, w, w->gam, dv);
    for (i = 0; i < s->n; ++i) {
        dv[i] = -dv[i];
    }
}

/* Column c of R: r_f - M U G^-1 r_c for the direction c (c < f: dq_c; c < 2f: dqd_(c-f); else
 * the input c - 2f). */
static void right_hand_side(mcs_sim *s, const mcs_frame *ch, linearize_work *w, int c, mcs_real t,
                            const mcs_real *u)
{
    const mcs_model *md = s->model;
    const int n = s->n;
    const int m = s->m;
    const int nu = md->nu;
    const int f = n - ch->r;
    mcs_real *col = &w->R[(size_t)c * (size_t)n];
    int i;
    for (i = 0; i < m; ++i) {
        w->rc[i] = MCS_R(0.0);
    }
    if (c >= (2 * f)) { /* an input: r_f = B e_k, r_c = 0 */
        for (i = 0; i < nu; ++i) {
            w->wbuf[i] = (i == (c - (2 * f))) ? MCS_R(1.0) : MCS_R(0.0);
        }
        md->f_u(w->xs, w->wbuf, t, s->params, col);
        return;
    }
    if (c >= f) { /* qd_j: dv = Phi_j */
        const int j = c - f;
        for (i = 0; i < n; ++i) {
            w->dv[i] = w->Phi[i + (j * n)];
            w->rf[i] = MCS_R(0.0);
        }
    } else { /* q_j: dx = Phi_j, dv = -U G^-1 A_dot_S Phi_j */
        const mcs_real *dx = &w->Phi[(size_t)c * (size_t)n];
        velocity_of_move(s, ch, w, dx, w->dv);
        if ((m > 0) && (md->gamma_x != NULL)) { /* the model's rows (not a lock's) */
            for (i = 0; i < n; ++i) {           /* w = [v; a; dx]: r_c = -gamma_x dx */
                w->wbuf[i] = w->vs[i];
                w->wbuf[n + i] = w->xdd[i];
                w->wbuf[(2 * n) + i] = dx[i];
            }
            md->gamma_x(w->xs, w->wbuf, t, s->params, w->rc);
            for (i = 0; i < md->nc; ++i) {
                w->rc[i] = -w->rc[i];
            }
        }
        for (i = 0; i < n; ++i) { /* w = [a; u; dx]: r_f = -(M_x + K_f + K_c) dx */
            w->wbuf[i] = w->xdd[i];
            w->wbuf[n + nu + i] = dx[i];
        }
        for (i = 0; i < nu; ++i) {
            w->wbuf[n + i] = u[i];
        }
        if ((md->M_x != NULL) && (w->with_M_x != 0)) {
            md->M_x(w->xs, w->wbuf, t, s->params, w->rf);
            mcs_mat_gemm(0, 0, n, 1, n, 1, w->K, n, dx, n, 1, w->rf, n);
        } else { /* the implicit methods' Jacobian without the linearization kernels */
            mcs_mat_gemm(0, 0, n, 1, n, 1, w->K, n, dx, n, 0, w->rf, n);
        }
        for (i = 0; i < n; ++i) {
            w->rf[i] = -w->rf[i];
        }
    }
    mcs_mat_gemm(0, 0, n, 1, n, -1, w->Dm, n, w->dv, n, 1, w->rf, n); /* - D dv */
    for (i = 0; i < n; ++i) {
        col[i] = w->rf[i];
    }
    if (m > 0) { /* - 2 A_dot dv; col -= M U G^-1 r_c */
        mcs_mat_gemm(0, 0, m, 1, n, -2, w->Ad, m, w->dv, n, 1, w->rc, m);
        apply_P(s, ch, w, w->rc, w->tmp);
        mcs_mat_gemm(0, 0, n, 1, n, -1, w->M, n, w->tmp, n, 1, col, n);
    }
}

/* dqdd/d(q, qd, u) (f x (2f + nu), ld f; without the u columns unless `inputs`) in w->Y at y on
 * the chart ch, the inputs u held; ydot (2f) the right-hand side there. */
static mcs_status chart_jacobian(mcs_sim *s, const mcs_frame *ch, const mcs_real *y, mcs_real t,
                                 const mcs_real *u, int inputs, linearize_work *w, mcs_real *ydot)
{
    const mcs_model *md = s->model;
    const int n = s->n;
    const int m = s->m;
    const int nu = md->nu;
    const int f = n - ch->r;
    const int cols = (2 * f) + ((inputs != 0) ? nu : 0);
    int i;
    int j;
    mcs_status st = point_of_chart(s, ch, y, t, w, ydot);
    if (st != MCS_OK) {
        return st;
    }
    md->M(w->xs, t, s->params, w->M);
    /* x'' = Phi qdd + U G^-1 gamma_S */
    for (i = 0; i < n; ++i) {
        w->xdd[i] = MCS_R(0.0);
    }
    if (f > 0) {
        mcs_mat_gemm(0, 0, n, 1, f, 1, w->Phi, n, &ydot[f], f, 0, w->xdd, n);
    }
    md->K_f(w->xs, w->vs, t, s->params, w->K);
    md->D(w->xs, w->vs, t, s->params, w->Dm);
    if (m > 0) {
        mcs_rows_gamma(s, w->xs, w->vs, t, w->gam);
        apply_P(s, ch, w, w->gam, w->tmp);
        for (i = 0; i < n; ++i) {
            w->xdd[i] += w->tmp[i];
        }
        /* lam_S = (U G^-1)^T (f + B u - M x''), 0 off S; K += K_c(lam) */
        md->f(w->xs, w->vs, t, s->params, w->g);
        if ((nu > 0) && (mcs_vec_max_abs(nu, u) > MCS_R(0.0))) {
            md->f_u(w->xs, u, t, s->params, w->tmp);
            for (i = 0; i < n; ++i) {
                w->g[i] += w->tmp[i];
            }
        }
        mcs_mat_gemm(0, 0, n, 1, n, -1, w->M, n, w->xdd, n, 1, w->g, n);
        mcs_mat_gemm(1, 0, ch->r, 1, n, 1, w->P, n, w->g, n, 0, w->rcs, MAX2(ch->r, 1));
        for (i = 0; i < m; ++i) {
            w->lam[i] = MCS_R(0.0);
        }
        for (i = 0; i < ch->r; ++i) {
            w->lam[ch->piv[i]] = w->rcs[i];
        }
        if (md->K_c != NULL) { /* (the implicit methods' W-matrix may do without) */
            md->K_c(w->xs, w->lam, t, s->params, w->S);
            for (i = 0; i < (n * n); ++i) {
                w->K[i] += w->S[i];
            }
        }
    }
    for (j = 0; j < cols; ++j) {
        right_hand_side(s, ch, w, j, t, u);
    }
    if (f == 0) {
        return MCS_OK;
    }
    /* (Phi^T M Phi) Y = Phi^T R */
    mcs_mat_gemm(0, 0, n, f, n, 1, w->M, n, w->Phi, n, 0, w->S, n);
    mcs_mat_gemm(1, 0, f, f, n, 1, w->Phi, n, w->S, n, 0, w->Mr, f);
    if (mcs_la_cholesky(f, w->Mr, f) != 0) {
        return MCS_ERR_MASS_NOT_PD;
    }
    mcs_mat_gemm(1, 0, f, cols, n, 1, w->Phi, n, w->R, n, 0, w->Y, f);
    if (mcs_la_cholesky_solve(f, cols, w->Mr, f, w->Y, f) != 0) {
        return MCS_ERR_LINALG;
    }
    if (mcs_vec_max_abs(f * cols, w->Y) < MCS_R(0.0)) {
        return MCS_ERR_NONFINITE;
    }
    return MCS_OK;
}

/* The inputs the dynamics see now (0 while none were set). */
static void held_inputs(const mcs_sim *s, mcs_real *u)
{
    int i;
    for (i = 0; i < s->model->nu; ++i) {
        u[i] = (s->inputs_on != 0) ? s->u[i] : MCS_R(0.0);
    }
}

/* The current chart copied into the probe (scratch), so that evaluating it leaves the state's
 * untouched; the Newton's start at the chart's centre. */
static void current_chart_in_probe(mcs_sim *s)
{
    mcs_frame *pr = &s->probe;
    const mcs_frame *cur = &s->cur;
    size_t i;
    const size_t nn = (size_t)s->n * (size_t)s->n;
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
        s->w.p[i] = MCS_R(0.0);
    }
}

/* y0 = (0, T^T v) (2f) of the chart ch at its centre. */
static void chart_centre(mcs_sim *s, const mcs_frame *ch, mcs_real *y0)
{
    const int f = s->n - ch->r;
    int i;
    for (i = 0; i < f; ++i) {
        y0[i] = MCS_R(0.0);
    }
    mcs_mat_gemm(1, 0, f, 1, s->n, 1, ch->T, s->n, ch->v, s->n, 0, &y0[f], MAX2(f, 1));
}

static int probe_ready(const mcs_sim *s)
{
    return ((mcs_variant_has_probe(s) != 0) && (s->cur.Q != NULL)) ? 1 : 0;
}

mcs_status mcs_sim_linearize(mcs_sim *s, mcs_real *A, mcs_real *B, int *dof, mcs_real *work,
                             size_t lwork)
{
    linearize_work w;
    mcs_real u[(MCS_MAX_INPUTS > 0) ? MCS_MAX_INPUTS : 1];
    mcs_status st;
    int n;
    int nu;
    int need;
    int f;
    int f2;
    int i;
    int j;
    if (!s || !s->ready || !A || !dof || !work) {
        return MCS_ERR_ARGUMENT;
    }
    n = s->n;
    nu = s->model->nu;
    if ((nu > 0) && (B == NULL)) {
        return MCS_ERR_ARGUMENT;
    }
    if ((supported(s) == 0) || (probe_ready(s) == 0)) {
        return MCS_ERR_UNSUPPORTED;
    }
    need = MCS_SIM_LINEARIZE_WORK_SIZE(n, s->m, nu);
    if (lwork < (size_t)need) {
        return MCS_ERR_WORKSPACE;
    }
    carve(work, n, s->m, nu, 0, &w);
    held_inputs(s, u);
    f = n - s->cur.r;
    f2 = 2 * f;
    *dof = f;
    current_chart_in_probe(s);
    chart_centre(s, &s->probe, w.yc);
    st = chart_jacobian(s, &s->probe, w.yc, s->probe.t, u, 1, &w, w.ydc);
    if (st != MCS_OK) {
        return st;
    }
    for (i = 0; i < (f2 * f2); ++i) {
        A[i] = MCS_R(0.0);
    }
    for (i = 0; i < (f2 * nu); ++i) {
        B[i] = MCS_R(0.0);
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
    return MCS_OK;
}

#if MCS_WITH_DENSE
mcs_status mcs_chart_jacobian(mcs_sim *s, const mcs_real *y, mcs_real t, mcs_real *work,
                              mcs_real **Y, mcs_real *ydot)
{
    mcs_status st = MCS_ERR_UNSUPPORTED; /* no Q: the compact layout */
    if ((s->model->K_f != NULL) && (s->model->D != NULL) && (s->cur.Q != NULL)) {
        linearize_work w;
        mcs_real u[(MCS_MAX_INPUTS > 0) ? MCS_MAX_INPUTS : 1];
        /* the layout's rows (nc + max_locks) and no inputs: what MCS_SIM_IMPLICIT_REALS_ sized,
         * so M_x's w = [a; u; dx] fits its 3n only while nu <= n (else the W-matrix goes
         * without M_x's term) */
        carve(work, s->n, s->model->nc + s->opt.max_locks, 0, 0, &w);
        if (s->model->nu > s->n) {
            w.with_M_x = 0;
        }
        held_inputs(s, u);
        st = chart_jacobian(s, &s->cur, y, t, u, 0, &w, ydot);
        *Y = w.Y;
    }
    return st;
}
#endif

mcs_status mcs_sim_chart_rhs(mcs_sim *s, const mcs_real *y, mcs_real *ydot)
{
    if (!s || !s->ready || !y || !ydot) {
        return MCS_ERR_ARGUMENT;
    }
    if (probe_ready(s) == 0) {
        return MCS_ERR_UNSUPPORTED;
    }
    current_chart_in_probe(s);
    return mcs_chart_rhs(s, &s->probe, y, s->probe.t, ydot);
}

mcs_status mcs_sim_chart_state(mcs_sim *s, const mcs_real *y, mcs_real *x, mcs_real *v)
{
    const int f = (s != NULL) ? (s->n - s->cur.r) : 0;
    if (!s || !s->ready || !y || !x || !v) {
        return MCS_ERR_ARGUMENT;
    }
    if (probe_ready(s) == 0) {
        return MCS_ERR_UNSUPPORTED;
    }
    current_chart_in_probe(s);
    return mcs_chart_map(s, &s->probe, y, &y[f], s->probe.t, x, v);
}

/* w->sum = dy1/d(y0, u) (2f x (2f + nu)) of the RK4 step of length h from the centre of the
 * chart ch (its y0 in w->yc), and y1 in w->ydc: the variational recursion dY_i = [I 0] + h A_i
 * dK_(i-1), dK_i = J_i dY_i (+ J_i's input columns), with J_i the chart's Jacobian at stage i. */
static mcs_status rk4_variations(mcs_sim *s, const mcs_frame *ch, mcs_real h, const mcs_real *u,
                                 linearize_work *w)
{
    const int n = s->n;
    const int f = n - ch->r;
    const int f2 = 2 * f;
    const int cols = f2 + s->model->nu;
    const int len = f2 * cols;
    const size_t stride = (size_t)n * 2U;
    /* the classic RK4 of mcs_rk4.c: stage i at y0 + h A_i k_(i-1), time t0 + A_i h; weights B_i */
    static const mcs_real RK4_A[4] = {MCS_R(0.0), MCS_R(0.5), MCS_R(0.5), MCS_R(1.0)};
    static const mcs_real RK4_B[4] = {MCS_R(1.0) / MCS_R(6.0), MCS_R(1.0) / MCS_R(3.0),
                                      MCS_R(1.0) / MCS_R(3.0), MCS_R(1.0) / MCS_R(6.0)};
    mcs_real *ys = w->ydc;
    int stage;
    int i;
    int j;
    for (i = 0; i < len; ++i) {
        w->sum[i] = MCS_R(0.0);
        w->dK[i] = MCS_R(0.0);
    }
    for (stage = 0; stage < 4; ++stage) {
        const mcs_real a = h * RK4_A[stage];
        mcs_real *k = &w->kst[(size_t)stage * stride];
        const mcs_real *k_before = w->kst;
        mcs_status st;
        if (stage > 0) {
            const int before = stage - 1;
            k_before = &w->kst[(size_t)before * stride];
        }
        for (i = 0; i < f2; ++i) { /* the stage's y and dY = [I 0] + a dK */
            ys[i] = (stage > 0) ? (w->yc[i] + (a * k_before[i])) : w->yc[i];
        }
        for (i = 0; i < len; ++i) {
            w->dY[i] = a * w->dK[i];
        }
        for (i = 0; i < f2; ++i) {
            w->dY[i + (i * f2)] += MCS_R(1.0);
        }
        st = chart_jacobian(s, ch, ys, ch->t + a, u, 1, w, k);
        if (st != MCS_OK) {
            return st;
        }
        /* J = [0 I 0; Y]: dK = J [dY; 0 I] */
        for (j = 0; j < cols; ++j) {
            for (i = 0; i < f; ++i) {
                w->dK[i + (j * f2)] = w->dY[(f + i) + (j * f2)];
            }
        }
        if (f > 0) {
            mcs_mat_gemm(0, 0, f, cols, f2, 1, w->Y, f, w->dY, f2, 0, w->Jy, f);
        }
        for (j = 0; j < cols; ++j) {
            for (i = 0; i < f; ++i) {
                w->dK[(f + i) + (j * f2)] =
                    w->Jy[i + (j * f)] + ((j >= f2) ? w->Y[i + (j * f)] : MCS_R(0.0));
            }
        }
        for (i = 0; i < len; ++i) {
            w->sum[i] += RK4_B[stage] * w->dK[i];
        }
    }
    for (i = 0; i < len; ++i) {
        w->sum[i] *= h;
    }
    for (i = 0; i < f2; ++i) {
        w->sum[i + (i * f2)] += MCS_R(1.0);
        ys[i] = w->yc[i];
        for (stage = 0; stage < 4; ++stage) {
            ys[i] += h * RK4_B[stage] * w->kst[((size_t)stage * stride) + (size_t)i];
        }
    }
    return MCS_OK;
}

mcs_status mcs_sim_step_jacobian(mcs_sim *s, mcs_real t_target, mcs_real *J, mcs_real *G,
                                 int *dof_from, int *dof_to, mcs_real *work, size_t lwork)
{
    linearize_work w;
    mcs_real u[(MCS_MAX_INPUTS > 0) ? MCS_MAX_INPUTS : 1];
    const mcs_frame *ch;
    long transitions;
    mcs_status st;
    int n;
    int nu;
    int need;
    int f;
    int f2;
    int g;
    int g2;
    int i;
    int j;
    if (!s || !s->ready || !J || !dof_from || !dof_to || !work) {
        return MCS_ERR_ARGUMENT;
    }
    n = s->n;
    nu = s->model->nu;
    if ((nu > 0) && (G == NULL)) {
        return MCS_ERR_ARGUMENT;
    }
    if ((supported(s) == 0) || (s->opt.method != MCS_METHOD_RK4)) {
        return MCS_ERR_UNSUPPORTED;
    }
    need = MCS_SIM_STEP_JACOBIAN_WORK_SIZE(n, s->m, nu);
    if (lwork < (size_t)need) {
        return MCS_ERR_WORKSPACE;
    }
    carve(work, n, s->m, nu, 1, &w);
    held_inputs(s, u);
    transitions = s->transitions;
    st = mcs_sim_step(s, t_target);
    if (st != MCS_OK) {
        return st;
    }
    if ((s->transitions != transitions) || (s->m != s->model->nc)) {
        return MCS_ERR_UNSUPPORTED; /* a lock in the step: its jump has no Jacobian here */
    }
    ch = &s->prev; /* the step's chart, kept by its acceptance */
    f = n - ch->r;
    f2 = 2 * f;
    g = n - s->cur.r;
    g2 = 2 * g;
    *dof_from = f;
    *dof_to = g;
    for (i = 0; i < ch->r; ++i) {
        s->w.p[i] = MCS_R(0.0);
    }
    chart_centre(s, ch, w.yc);
    st = rk4_variations(s, ch, s->cur.t - ch->t, u, &w);
    if (st != MCS_OK) {
        return st;
    }
    /* the step's end y1 (w.ydc) in the next chart's coordinates: dq' = T'^T Phi_e dq,
     * dqd' = T'^T (V_e dq + Phi_e dqd), V_e = -U G^-1 A_dot_S Phi_e there */
    st = point_of_chart(s, ch, w.ydc, s->cur.t, &w, w.yc);
    if (st != MCS_OK) {
        return st;
    }
    mcs_frame_basis(s, &s->cur, w.Tto);
    for (j = 0; j < f; ++j) { /* V_e's columns in w.S */
        mcs_real *col = &w.S[(size_t)j * (size_t)n];
        if (s->m > 0) {
            mcs_mat_gemm(0, 0, s->m, 1, n, 1, w.Ad, s->m, &w.Phi[(size_t)j * (size_t)n], n, 0,
                         w.gam, s->m);
            apply_P(s, ch, &w, w.gam, col);
        }
        for (i = 0; i < n; ++i) {
            col[i] = (s->m > 0) ? -col[i] : MCS_R(0.0);
        }
    }
    /* C (2g x 2f) = [T'^T Phi_e 0; T'^T V_e T'^T Phi_e] in w.dY, then J = C sum */
    for (i = 0; i < (g2 * f2); ++i) {
        w.dY[i] = MCS_R(0.0);
    }
    if ((g > 0) && (f > 0)) {
        mcs_mat_gemm(1, 0, g, f, n, 1, w.Tto, n, w.Phi, n, 0, w.Jy, g);
        mcs_mat_gemm(1, 0, g, f, n, 1, w.Tto, n, w.S, n, 0, w.dK, g);
        for (j = 0; j < f; ++j) {
            for (i = 0; i < g; ++i) {
                w.dY[i + (j * g2)] = w.Jy[i + (j * g)];
                w.dY[(g + i) + ((f + j) * g2)] = w.Jy[i + (j * g)];
                w.dY[(g + i) + (j * g2)] = w.dK[i + (j * g)];
            }
        }
    }
    if ((g2 == 0) || (f2 == 0)) {
        return MCS_OK;
    }
    mcs_mat_gemm(0, 0, g2, f2, f2, 1, w.dY, g2, w.sum, f2, 0, J, g2);
    if (nu > 0) {
        mcs_mat_gemm(0, 0, g2, nu, f2, 1, w.dY, g2, &w.sum[(size_t)f2 * (size_t)f2], f2, 0, G, g2);
    }
    return MCS_OK;
}

/* The outputs' kernels, the dense simulator's charts, no lock in force (as supported()). */
static int outputs_supported(const mcs_sim *s)
{
    const mcs_model *md = s->model;
    if ((md->outputs_x == NULL) || ((s->m > 0) && (md->A_dot == NULL))) {
        return 0;
    }
    return ((s->m == md->nc) && (s->opt.variant == MCS_VARIANT_DENSE) && (s->cur.Q != NULL)) ? 1
                                                                                             : 0;
}

mcs_status mcs_sim_linearize_outputs(mcs_sim *s, mcs_real *C, mcs_real *D, int *dof, mcs_real *work,
                                     size_t lwork)
{
    linearize_work w;
    mcs_status st;
    mcs_real *dx;
    mcs_real *dv;
    mcs_real *du;
    int n;
    int nu;
    int ny;
    int need;
    int f;
    int c;
    int i;
    if (!s || !s->ready || !dof || !work) {
        return MCS_ERR_ARGUMENT;
    }
    n = s->n;
    nu = s->model->nu;
    ny = s->model->ny;
    if ((ny > 0) && ((C == NULL) || ((nu > 0) && (D == NULL)))) {
        return MCS_ERR_ARGUMENT;
    }
    if ((ny > 0) && ((outputs_supported(s) == 0) || (probe_ready(s) == 0))) {
        return MCS_ERR_UNSUPPORTED;
    }
    need = MCS_SIM_LINEARIZE_WORK_SIZE(n, s->m, nu);
    if (lwork < (size_t)need) {
        return MCS_ERR_WORKSPACE;
    }
    f = n - s->cur.r;
    *dof = f;
    if (ny == 0) {
        return MCS_OK;
    }
    carve(work, n, s->m, nu, 0, &w);
    current_chart_in_probe(s);
    chart_centre(s, &s->probe, w.yc);
    st = point_of_chart(s, &s->probe, w.yc, s->probe.t, &w, w.ydc);
    if (st != MCS_OK) {
        return st;
    }
    /* w = [v; u; dx; dv; du] */
    dx = &w.wbuf[n + nu];
    dv = &w.wbuf[(2 * n) + nu];
    du = &w.wbuf[(3 * n) + nu];
    for (i = 0; i < n; ++i) {
        w.wbuf[i] = w.vs[i];
    }
#if MCS_MAX_INPUTS > 0
    for (i = 0; i < nu; ++i) {
        w.wbuf[n + i] = (s->inputs_on != 0) ? s->u[i] : MCS_R(0.0);
    }
#endif
    for (c = 0; c < ((2 * f) + nu); ++c) {
        const int k = (c < (2 * f)) ? c : (c - (2 * f));
        mcs_real *col = (c < (2 * f)) ? &C[(size_t)k * (size_t)ny] : &D[(size_t)k * (size_t)ny];
        for (i = 0; i < n; ++i) {
            dx[i] = MCS_R(0.0);
            dv[i] = MCS_R(0.0);
        }
        for (i = 0; i < nu; ++i) {
            du[i] = (i == (c - (2 * f))) ? MCS_R(1.0) : MCS_R(0.0);
        }
        if (c < f) { /* q_c: dx = Phi_c and the velocity that keeps the rows (as right_hand_side) */
            for (i = 0; i < n; ++i) {
                dx[i] = w.Phi[i + (c * n)];
            }
            velocity_of_move(s, &s->probe, &w, dx, dv);
        } else if (c < (2 * f)) { /* qd_(c-f): dv = Phi_(c-f) */
            for (i = 0; i < n; ++i) {
                dv[i] = w.Phi[i + ((c - f) * n)];
            }
        } else {
            /* the input c - 2f: du = e, set above */
        }
        s->model->outputs_x(w.xs, w.wbuf, s->probe.t, s->params, col);
        if (mcs_vec_max_abs(ny, col) < MCS_R(0.0)) {
            return MCS_ERR_NONFINITE;
        }
    }
    return MCS_OK;
}
