/* mcs_step_jacobian.c - one step and the exact Jacobian of the step taken (mcs_sim_step_jacobian,
 * mcs_sim.h): the variational recursion of the method's stages on the chart from the step's start,
 * through the chart's Jacobian at each stage (mcs_chart_jacobian.c), then the change to the next
 * chart's coordinates. Above the step: it calls mcs_sim_step. */
#include "sim/mcs_stages.h"

/* w->sum = dy1/d(y0, u) (2f x (2f + nu)) of the RK4 step of length h from the centre of the
 * chart ch (its y0 in w->yc), and y1 in w->ydc: the variational recursion dY_i = [I 0] + h A_i
 * dK_(i-1), dK_i = J_i dY_i (+ J_i's input columns), with J_i the chart's Jacobian at stage i. */
static mcs_status rk4_variations(mcs_sim *s, const mcs_frame *ch, mcs_real h, const mcs_real *u,
                                 mcs_jacobian_work *w)
{
    const int n = s->n;
    const int f = n - ch->r;
    const int f2 = 2 * f;
    const int cols = f2 + s->model->nu;
    const int len = f2 * cols;
    const size_t stride = (size_t)n * 2U;
    mcs_real *ys = w->ydc;
    int stage;
    int i;
    int j;
    for (i = 0; i < len; ++i) {
        w->sum[i] = MCS_R(0.0);
        w->dK[i] = MCS_R(0.0);
    }
    for (stage = 0; stage < 4; ++stage) {
        const mcs_real a = h * mcs_rk4_a[stage];
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
        st = mcs_jacobian_at(s, ch, ys, ch->t + a, u, 1, w, k);
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
            w->sum[i] += mcs_rk4_b[stage] * w->dK[i];
        }
    }
    for (i = 0; i < len; ++i) {
        w->sum[i] *= h;
    }
    for (i = 0; i < f2; ++i) {
        w->sum[i + (i * f2)] += MCS_R(1.0);
        ys[i] = w->yc[i];
        for (stage = 0; stage < 4; ++stage) {
            ys[i] += h * mcs_rk4_b[stage] * w->kst[((size_t)stage * stride) + (size_t)i];
        }
    }
    return MCS_OK;
}

mcs_status mcs_sim_step_jacobian(mcs_sim *s, mcs_real t_target, mcs_real *J, mcs_real *G,
                                 int *dof_from, int *dof_to, mcs_real *work, size_t lwork)
{
    mcs_jacobian_work w;
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
    if ((mcs_linearizable(s) == 0) ||
        (mcs_method_has(s->opt.method, MCS_METHOD_FLAG_STEP_JACOBIAN) == 0)) {
        return MCS_ERR_UNSUPPORTED;
    }
    need = MCS_SIM_STEP_JACOBIAN_WORK_SIZE(n, s->m, nu);
    if (lwork < (size_t)need) {
        return MCS_ERR_WORKSPACE;
    }
    mcs_jacobian_carve(work, n, s->m, nu, 1, &w);
    mcs_held_inputs(s, u);
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
    mcs_chart_centre(s, ch, w.yc);
    st = rk4_variations(s, ch, s->cur.t - ch->t, u, &w);
    if (st != MCS_OK) {
        return st;
    }
    /* the step's end y1 (w.ydc) in the next chart's coordinates: dq' = T'^T Phi_e dq,
     * dqd' = T'^T (V_e dq + Phi_e dqd), V_e = -U G^-1 A_dot_S Phi_e there */
    st = mcs_jacobian_point(s, ch, w.ydc, s->cur.t, &w, w.yc);
    if (st != MCS_OK) {
        return st;
    }
    mcs_frame_basis(s, &s->cur, w.Tto);
    for (j = 0; j < f; ++j) { /* V_e's columns in w.S */
        mcs_real *col = &w.S[(size_t)j * (size_t)n];
        if (s->m > 0) {
            mcs_mat_gemm(0, 0, s->m, 1, n, 1, w.Ad, s->m, &w.Phi[(size_t)j * (size_t)n], n, 0,
                         w.gam, s->m);
            mcs_jacobian_apply_P(s, ch, &w, w.gam, col);
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
