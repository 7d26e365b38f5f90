/* mcs_chart_jacobian.c - the chart's Jacobian from the generated derivative kernels (no finite
 * differences): dqdd/d(q, qd, u) at any point of a chart, what the implicit methods factor
 * (mcs_chart_jacobian) and what the linearizations above the step differentiate (mcs_linearize.c,
 * mcs_step_jacobian.c).
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
#include "sim/mcs_operations.h"

/* The kernels the linearizations read, and no row group in force (the locks' rows have no
 * generated tangents); the dense simulator's charts. */
int mcs_linearizable(const mcs_sim *s)
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
    return ((s->m == md->nc) && (mcs_variant_explicit_q(s) != 0)) ? 1 : 0;
}

/* The current chart copied into the probe (scratch), so that evaluating it leaves the state's
 * untouched; the Newton's start at the chart's centre. */
void mcs_chart_in_probe(mcs_sim *s)
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
void mcs_chart_centre(mcs_sim *s, const mcs_frame *ch, mcs_real *y0)
{
    const int f = s->n - ch->r;
    int i;
    for (i = 0; i < f; ++i) {
        y0[i] = MCS_R(0.0);
    }
    mcs_mat_gemm(1, 0, f, 1, s->n, 1, ch->T, s->n, ch->v, s->n, 0, &y0[f], MAX2(f, 1));
}

/* mcs_sim_memory.h's list of the arrays as the carver: each taken in order from the caller's work
 * (absent: NULL). (The workspace macros' meaning of the name is not used here.) */
#undef MCS_SIM_JBUF
#define MCS_SIM_JBUF(sel, member, on, count) \
    ((*w).member) = ((on) != 0) ? mcs_work_next(work, &at, (count)) : NULL;

void mcs_jacobian_carve(mcs_real *work, int n, int m, int nu, int stepping, mcs_jacobian_work *w)
{
    const size_t nz = (size_t)n;
    const size_t mr = (size_t)MAX2(m, 1);
    const size_t nuz = (size_t)nu;
    size_t at = 0;
    w->with_M_x = 1;
    MCS_SIM_JACOBIAN_BUFFERS(0, nz, mr, nuz, stepping)
}

mcs_status mcs_jacobian_point(mcs_sim *s, const mcs_frame *ch, const mcs_real *y, mcs_real t,
                              mcs_jacobian_work *w, mcs_real *ydot)
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

void mcs_jacobian_apply_P(const mcs_sim *s, const mcs_frame *ch, mcs_jacobian_work *w,
                          const mcs_real *b, mcs_real *out)
{
    int i;
    for (i = 0; i < ch->r; ++i) {
        w->rcs[i] = b[ch->piv[i]];
    }
    mcs_mat_gemm(0, 0, s->n, 1, ch->r, 1, w->P, s->n, w->rcs, MAX2(ch->r, 1), 0, out, s->n);
}

void mcs_jacobian_velocity_of_move(const mcs_sim *s, const mcs_frame *ch, mcs_jacobian_work *w,
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
    mcs_jacobian_apply_P(s, ch, w, w->gam, dv);
    for (i = 0; i < s->n; ++i) {
        dv[i] = -dv[i];
    }
}

/* Column c of R: r_f - M U G^-1 r_c for the direction c (c < f: dq_c; c < 2f: dqd_(c-f); else
 * the input c - 2f). */
static void right_hand_side(mcs_sim *s, const mcs_frame *ch, mcs_jacobian_work *w, int c,
                            mcs_real t, const mcs_real *u)
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
        mcs_jacobian_velocity_of_move(s, ch, w, dx, w->dv);
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
        mcs_jacobian_apply_P(s, ch, w, w->rc, w->tmp);
        mcs_mat_gemm(0, 0, n, 1, n, -1, w->M, n, w->tmp, n, 1, col, n);
    }
}

mcs_status mcs_jacobian_at(mcs_sim *s, const mcs_frame *ch, const mcs_real *y, mcs_real t,
                           const mcs_real *u, int inputs, mcs_jacobian_work *w, mcs_real *ydot)
{
    const mcs_model *md = s->model;
    const int n = s->n;
    const int m = s->m;
    const int nu = md->nu;
    const int f = n - ch->r;
    const int cols = (2 * f) + ((inputs != 0) ? nu : 0);
    int i;
    int j;
    mcs_status st = mcs_jacobian_point(s, ch, y, t, w, ydot);
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
        mcs_jacobian_apply_P(s, ch, w, w->gam, w->tmp);
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

void mcs_held_inputs(const mcs_sim *s, mcs_real *u)
{
    int i;
    for (i = 0; i < s->model->nu; ++i) {
        u[i] = (s->inputs_on != 0) ? s->u[i] : MCS_R(0.0);
    }
}

#if MCS_WITH_DENSE
mcs_status mcs_chart_jacobian(mcs_sim *s, const mcs_real *y, mcs_real t, mcs_real *work,
                              mcs_real **Y, mcs_real *ydot)
{
    mcs_status st = MCS_ERR_UNSUPPORTED; /* no Q: the compact layout */
    if ((s->model->K_f != NULL) && (s->model->D != NULL) && (s->cur.Q != NULL)) {
        mcs_jacobian_work w;
        mcs_real u[(MCS_MAX_INPUTS > 0) ? MCS_MAX_INPUTS : 1];
        /* the layout's rows (nc + max_locks) and no inputs: what MCS_SIM_IMPLICIT_REALS_ sized,
         * so M_x's w = [a; u; dx] fits its 3n only while nu <= n (else the W-matrix goes
         * without M_x's term) */
        mcs_jacobian_carve(work, s->n, s->model->nc + s->opt.max_locks, 0, 0, &w);
        if (s->model->nu > s->n) {
            w.with_M_x = 0;
        }
        mcs_held_inputs(s, u);
        st = mcs_jacobian_at(s, &s->cur, y, t, u, 0, &w, ydot);
        *Y = w.Y;
    }
    return st;
}
#endif
