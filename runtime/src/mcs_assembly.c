/* mcs_assembly.c - a consistent initial state: positions onto c = 0 by minimum-norm Newton,
 * velocities projected onto A v + c_t = 0 (SPEC §4). */

#include "mcs_sim_internal.h"

mcs_real mcs_constraint_norm_at(mcs_sim *s, const mcs_real *x, mcs_real t)
{
    if (s->m == 0) {
        return 0;
    }
    mcs_rows_c(s, x, t, s->w.c);
    return mcs_vec_max_abs(s->m, s->w.c);
}

/* out (n) = -U R_ns^-T b_S: the minimum-norm dx with A_S dx = -b_S (A_S = R_ns^T U^T). */
static void min_norm_correction(mcs_sim *s, const mcs_frame *fr, const mcs_real *b, mcs_real *out)
{
    const int n = s->n;
    const int r = fr->r;
    int i;
    for (i = 0; i < r; ++i) {
        s->w.tmp[i] = -b[fr->piv[i]];
    }
    mcs_mat_solve_upper_transposed(r, fr->R, n, s->w.tmp);
    mcs_mat_gemm(0, 0, n, 1, r, 1, fr->Q, n, s->w.tmp, MAX2(r, 1), 0, out, n);
}

mcs_status mcs_sim_set_state(mcs_sim *s, mcs_real t, const mcs_real *x, const mcs_real *v,
                             mcs_assembly *report)
{
    const int n = (s != NULL) ? s->n : 0;
    mcs_frame *fr;
    mcs_assembly rep = {0, 0, 0, 0, 0, 0};
    mcs_real tol;
    mcs_real dx2 = MCS_R(0.0);
    mcs_real dv2 = MCS_R(0.0);
    mcs_status st;
    int i;
    int it;
    if (!s || !x || !v) {
        return MCS_ERR_ARGUMENT;
    }
    s->ready = 0; /* until the state is consistent (this call may fail half-way) */
    fr = &s->cur;
    fr->t = t;
    for (i = 0; i < n; ++i) {
        fr->x[i] = x[i];
        fr->v[i] = v[i];
        fr->q[i] = MCS_R(0.0); /* q(t_0) = 0 (SPEC §4) */
    }
    if ((mcs_vec_max_abs(n, x) < MCS_R(0.0)) || (mcs_vec_max_abs(n, v) < MCS_R(0.0)) ||
        !((t - t) == MCS_R(0.0))) {
        return MCS_ERR_NONFINITE;
    }
    tol = s->opt.newton_tol * MAX2(MCS_R(1.0), mcs_vec_max_abs(n, x));
    rep.c_norm_before = mcs_constraint_norm_at(s, fr->x, t);
    if (rep.c_norm_before < MCS_R(0.0)) {
        return MCS_ERR_NONFINITE;
    }
    it = 0;
    for (;;) {
        mcs_real step;
        st = mcs_frame_factor(s, fr);
        if (st != MCS_OK) {
            return st;
        }
        if ((s->m == 0) || (fr->r == 0)) {
            break;
        }
        mcs_rows_c(s, fr->x, t, s->w.c);
        min_norm_correction(s, fr, s->w.c, s->w.rhs);
        step = mcs_vec_max_abs(n, s->w.rhs);
        if (step < MCS_R(0.0)) {
            return MCS_ERR_ASSEMBLY;
        }
        if (step <= tol) {
            break;
        }
        if (it >= 50) {
            return MCS_ERR_ASSEMBLY;
        }
        for (i = 0; i < n; ++i) {
            fr->x[i] += s->w.rhs[i];
        }
        rep.iterations++;
        ++it;
    }
    if ((s->m > 0) && (fr->r > 0)) {
        /* velocities: v <- v - U R_ns^-T (A_S v + c_S,t) */
        mcs_rows_c_t(s, fr->x, t, s->w.c_t);
        mcs_mat_gemm(0, 0, s->m, 1, n, 1, s->w.A, s->m, fr->v, n, 0, s->w.gamma, s->m);
        for (i = 0; i < s->m; ++i) {
            s->w.gamma[i] += s->w.c_t[i];
        }
        rep.cdot_norm_before = mcs_vec_max_abs(s->m, s->w.gamma);
        min_norm_correction(s, fr, s->w.gamma, s->w.rhs);
        for (i = 0; i < n; ++i) {
            fr->v[i] += s->w.rhs[i];
        }
    }
    /* a state near the range of mcs_real can overflow in the corrections */
    if ((mcs_vec_max_abs(n, fr->x) < MCS_R(0.0)) || (mcs_vec_max_abs(n, fr->v) < MCS_R(0.0))) {
        return MCS_ERR_NONFINITE;
    }
    for (i = 0; i < n; ++i) {
        dx2 += (fr->x[i] - x[i]) * (fr->x[i] - x[i]);
        dv2 += (fr->v[i] - v[i]) * (fr->v[i] - v[i]);
    }
    rep.dx_norm = mcs_sqrt(dx2);
    rep.dv_norm = mcs_sqrt(dv2);
    rep.c_norm_after = mcs_constraint_norm_at(s, fr->x, t);
    if (report != NULL) {
        *report = rep;
    }
    s->h_last = MCS_R(0.0);
    s->h_next = s->opt.h;
    s->t_grid0 = t;
    s->grid_index = 0;
    s->w.dense_ready = 0;
    {
        mcs_stats zero = {0, 0, 0, 0, 0, 0, 0, 0};
        zero.factorizations = s->stats.factorizations;
        s->stats = zero;
    }
    s->ready = 1;
    return MCS_OK;
}
