/* mcs_linearize.c - the exact linearization of the minimal-coordinate dynamics about the current
 * state (mcs_sim_linearize, mcs_sim_linearize_outputs; mcs_sim.h), from the chart's Jacobian at
 * its centre (mcs_chart_jacobian.c: the derivation), and the chart's right-hand side and state
 * there for a caller's own integrator (mcs_sim_chart_rhs, mcs_sim_chart_state). No finite
 * differences. Above the step (with mcs_step_jacobian.c): nothing below calls these. */
#include "sim/mcs_stages.h"

static int probe_ready(const mcs_sim *s)
{
    return ((mcs_variant_has_probe(s) != 0) && (s->cur.Q != NULL)) ? 1 : 0;
}

mcs_status mcs_sim_linearize(mcs_sim *s, mcs_real *A, mcs_real *B, int *dof, mcs_real *work,
                             size_t lwork)
{
    mcs_jacobian_work w;
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
    if ((mcs_linearizable(s) == 0) || (probe_ready(s) == 0)) {
        return MCS_ERR_UNSUPPORTED;
    }
    need = MCS_SIM_LINEARIZE_WORK_SIZE(n, s->m, nu);
    if (lwork < (size_t)need) {
        return MCS_ERR_WORKSPACE;
    }
    mcs_jacobian_carve(work, n, s->m, nu, 0, &w);
    mcs_held_inputs(s, u);
    f = n - s->cur.r;
    f2 = 2 * f;
    *dof = f;
    mcs_chart_in_probe(s);
    mcs_chart_centre(s, &s->probe, w.yc);
    st = mcs_jacobian_at(s, &s->probe, w.yc, s->probe.t, u, 1, &w, w.ydc);
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

mcs_status mcs_sim_chart_rhs(mcs_sim *s, const mcs_real *y, mcs_real *ydot)
{
    if (!s || !s->ready || !y || !ydot) {
        return MCS_ERR_ARGUMENT;
    }
    if (probe_ready(s) == 0) {
        return MCS_ERR_UNSUPPORTED;
    }
    mcs_chart_in_probe(s);
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
    mcs_chart_in_probe(s);
    return mcs_chart_map(s, &s->probe, y, &y[f], s->probe.t, x, v);
}

/* The outputs' kernels, the dense simulator's charts, no lock in force (as supported()). */
static int outputs_supported(const mcs_sim *s)
{
    const mcs_model *md = s->model;
    if ((md->outputs_x == NULL) || ((s->m > 0) && (md->A_dot == NULL))) {
        return 0;
    }
    return ((s->m == md->nc) && (mcs_variant_explicit_q(s) != 0)) ? 1 : 0;
}

mcs_status mcs_sim_linearize_outputs(mcs_sim *s, mcs_real *C, mcs_real *D, int *dof, mcs_real *work,
                                     size_t lwork)
{
    mcs_jacobian_work w;
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
    mcs_jacobian_carve(work, n, s->m, nu, 0, &w);
    mcs_chart_in_probe(s);
    mcs_chart_centre(s, &s->probe, w.yc);
    st = mcs_jacobian_point(s, &s->probe, w.yc, s->probe.t, &w, w.ydc);
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
            mcs_jacobian_velocity_of_move(s, &s->probe, &w, dx, dv);
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
