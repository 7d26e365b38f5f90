/* mcs_locks.c - transitions: locks and unlocks (004 §5-6, SPEC §7). A lock adds its rows (a
 * coordinate's x_j - x_j(t) = 0, a linear row, or a row group of the model: a joint's lock or a
 * switch's explicit rows; mcs_rows.c) with the momentum-consistent velocity jump of mcs_jump; an
 * unlock removes them without a jump. Either way the Jacobian is re-factored at the current state and the tangent
 * basis aligned with the one before (SPEC §3.7), so the projected coordinates stay continuous. */
#include "sim/mcs_stages.h"

#if MCS_WITH_LOCKS
/* cur has a new row set: keep the old frame in prev (free between steps), factor cur again and
 * align its basis with the old one (no predictor: nothing moves at a transition). */
static mcs_status refactor_current(mcs_sim *s)
{
    const int n = s->n;
    mcs_frame *old = &s->prev;
    mcs_frame *cur = &s->cur;
    mcs_status st;
    int i;
    int f_old;
    int f_new;
    old->t = cur->t;
    for (i = 0; i < n; ++i) {
        old->x[i] = cur->x[i];
        old->x_lo[i] = cur->x_lo[i];
        old->v[i] = cur->v[i];
    }
    mcs_mat_copy(n, n, cur->Q, n, old->Q, n);
    old->r = cur->r;
    old->identity = cur->identity;
    old->T = &old->Q[old->r * n];
    old->sigma = cur->sigma;
    st = mcs_frame_factor(s, cur);
    if (st != MCS_OK) {
        return st;
    }
    f_old = n - old->r;
    f_new = n - cur->r;
    mcs_q_carry(f_old, cur->q, NULL, f_new, cur->q); /* nothing moves: q carries on */
    if (s->opt.continuation != MCS_CONT_OFF) {
        mcs_mat_copy(n, f_old, old->T, n, s->w.Tpred, n);
        mcs_mat_copy(n, f_new, cur->T, n, s->w.That, n);
        cur->identity = 0; /* turned to continue the old basis */
        if (mcs_align_basis(n, f_old, s->w.Tpred, f_new, s->w.That, cur->T, s->w.basis_work) !=
            MCS_OK) {
            return MCS_ERR_LINALG;
        }
    }
    /* the last step's dense output and any pending event belong to the old constraints, and
     * sigma's scale to their rows */
    s->w.sigma_ref = cur->sigma;
    s->h_last = MCS_R(0.0);
    s->w.interp_ready = 0;
    s->w.fsal = 0;
    s->w.retries = 0;
    s->w.pred_x = NULL;
    s->event_ready = 0;
    s->transitions++;
    return MCS_OK;
}

/* Values captured for lock k (s->lock_ref from s->lock_ref_at[k]): g of its group, or a'x. */
static int ref_count(const mcs_sim *s, int k)
{
    return (s->lock_group[k] >= 0) ? s->model->groups[s->lock_group[k]].ng : 1;
}

/* Whether row group g can form its rows (mcs_model.h): from its four kernels, or from the
 * coordinates it holds (coords, then no kernels and no rotation), every one an index of x (n). A
 * descriptor edited by hand or built for another model must not make the runtime read past x or
 * call a NULL kernel. */
static int group_is_formed(const mcs_row_group *g, int n)
{
    int ok = 1;
    int e;
    if (g->coords == NULL) {
        if ((g->g == NULL) || (g->G == NULL) || (g->gamma == NULL) || (g->G_dot == NULL)) {
            ok = 0;
        }
    } else if ((g->g != NULL) || (g->G != NULL) || (g->gamma != NULL) || (g->G_dot != NULL) ||
               (g->rotation != 0)) {
        ok = 0;
    } else {
        for (e = 0; e < g->ng; ++e) {
            if ((g->coords[e] < 0) || (g->coords[e] >= n)) {
                ok = 0;
            }
        }
    }
    return ok;
}

/* Adds lock number s->nlocks: a linear row a (group < 0) or the row group `group` of the model,
 * with the velocity jump of `method` (mcs_jump) at the current state. */
static mcs_status add_lock(mcs_sim *s, int key, int group, const mcs_real *a,
                           mcs_jump_method method, mcs_real *dv, mcs_real *jwork, size_t jwork_len,
                           int *jiwork, size_t jiwork_len, mcs_transition *report)
{
    const mcs_row_group *g = (group >= 0) ? &s->model->groups[group] : NULL;
    const int n = s->n;
    const int m = s->m;
    const int f = n - s->cur.r;
    const int k = s->nlocks;
    const int rows = g ? mcs_group_rows(g) : 1;
    const int nref = g ? g->ng : 1;
    const int at = (k > 0) ? (s->lock_ref_at[k - 1] + ref_count(s, k - 1)) : 0;
    mcs_real *J2 = s->w.A_dot;
    mcs_real *lambda = s->w.tmp; /* free between steps */
    mcs_transition rep;
    mcs_status st;
    int i;
    if (mcs_variant_takes_locks(s) == 0) {
        return MCS_ERR_UNSUPPORTED; /* the compact variant takes no locks (mcs_sim.h) */
    }
    if ((rows < 1) || (g && ((g->ng < 1) || (rows != g->nrows) || (g->rotation && (g->ng < 4))))) {
        return MCS_ERR_ARGUMENT; /* a group inconsistent with its own counts */
    }
    if (g && (group_is_formed(g, n) == 0)) {
        return MCS_ERR_ARGUMENT; /* neither kernels nor coordinates of x to form its rows */
    }
    if ((s->lock_a == NULL) || ((m + rows) > (s->model->nc + s->opt.max_locks)) ||
        (k >= s->opt.max_locks) ||
        (((size_t)at + (size_t)nref) >
         (4U * MCS_SIM_K((size_t)n, (size_t)s->model->nc + (size_t)s->opt.max_locks)))) {
        return MCS_ERR_WORKSPACE; /* the workspace was sized for fewer lock rows (max_locks) */
    }
    rep.t = s->cur.t;
    rep.key = key;
    rep.lock = 1;
    rep.rank_before = s->cur.r;
    /* the new lock's entry (not counted in nlocks until the jump is made) and its reference */
    s->lock_key[k] = key;
    s->lock_group[k] = group;
    s->lock_rows[k] = rows;
    s->lock_ref_at[k] = at;
    if (g != NULL) {
        mcs_group_g(s, g, s->cur.x, s->cur.t, &s->lock_ref[at]);
        if (!g->capture) {
            for (i = 0; i < g->ng; ++i) {
                s->lock_ref[at + i] = MCS_R(0.0);
            }
        }
    } else {
        mcs_real ref = MCS_R(0.0);
        for (i = 0; i < n; ++i) {
            s->lock_a[(k * n) + i] = a[i];
            ref += a[i] * s->cur.x[i];
        }
        s->lock_ref[at] = ref;
    }
    for (i = 0; i < nref; ++i) {
        if ((s->lock_ref[at + i] - s->lock_ref[at + i]) != MCS_R(0.0)) {
            return MCS_ERR_NONFINITE;
        }
    }
    mcs_lock_rows_A(s, k, s->cur.x, s->cur.t, J2, rows);
    /* M and the rows in use at the current state */
    s->model->M(s->cur.x, s->cur.t, s->params, s->w.M);
    if (m > 0) {
        mcs_rows_A(s, s->cur.x, s->cur.t, s->w.A);
    }
    st = mcs_jump(method, n, s->w.M, m, (m > 0) ? s->w.A : NULL, f, s->cur.T, rows, J2, s->cur.v,
                  NULL, s->opt.rank_tol, dv, lambda, &rep.jump, jwork, jwork_len, jiwork,
                  jiwork_len);
    if (st != MCS_OK) {
        return st;
    }
    rep.impulse = (rows == 1) ? lambda[0] : rep.jump.impulse_norm;
    for (i = 0; i < n; ++i) {
        s->cur.v[i] += dv[i];
    }
    s->nlocks++;
    s->m += rows;
    st = refactor_current(s);
    if (st != MCS_OK) {
        return st;
    }
    rep.rank_after = s->cur.r;
    if (report != NULL) {
        *report = rep;
    }
    return MCS_OK;
}

mcs_status mcs_sim_lock_row(mcs_sim *s, int key, const mcs_real *a, mcs_jump_method method,
                            mcs_real *dv, mcs_real *jwork, size_t jwork_len, int *jiwork,
                            size_t jiwork_len, mcs_transition *report)
{
    if (!s || !s->ready || !a || !dv || !jwork || !jiwork || (key < 0)) {
        return MCS_ERR_ARGUMENT;
    }
    if (!(mcs_vec_max_abs(s->n, a) > MCS_R(0.0))) {
        return MCS_ERR_ARGUMENT; /* a zero or non-finite row locks nothing */
    }
    return add_lock(s, key, -1, a, method, dv, jwork, jwork_len, jiwork, jiwork_len, report);
}

mcs_status mcs_sim_lock_group(mcs_sim *s, int key, int group, mcs_jump_method method, mcs_real *dv,
                              mcs_real *jwork, size_t jwork_len, int *jiwork, size_t jiwork_len,
                              mcs_transition *report)
{
    if (!s || !s->ready || !dv || !jwork || !jiwork || (key < 0) || (group < 0) ||
        (group >= s->model->ngroups) || !s->model->groups) {
        return MCS_ERR_ARGUMENT;
    }
    return add_lock(s, key, group, NULL, method, dv, jwork, jwork_len, jiwork, jiwork_len, report);
}

mcs_status mcs_sim_lock(mcs_sim *s, int j, mcs_jump_method method, mcs_real *dv, mcs_real *jwork,
                        size_t jwork_len, int *jiwork, size_t jiwork_len, mcs_transition *report)
{
    mcs_real *e;
    int i;
    if (!s || !s->ready || (j < 0) || (j >= s->n)) {
        return MCS_ERR_ARGUMENT;
    }
    e = s->w.tmp2; /* the unit row e_j (w.tmp2 is free between steps; mcs_jump does not use it) */
    for (i = 0; i < s->n; ++i) {
        e[i] = (i == j) ? 1 : 0;
    }
    return mcs_sim_lock_row(s, j, e, method, dv, jwork, jwork_len, jiwork, jiwork_len, report);
}

mcs_status mcs_sim_unlock(mcs_sim *s, int key, mcs_transition *report)
{
    mcs_transition rep;
    mcs_real kin = MCS_R(0.0);
    mcs_real pot = MCS_R(0.0);
    int k;
    int i;
    int found = -1;
    int rows;
    int nref;
    if (!s || !s->ready || (key < 0)) {
        return MCS_ERR_ARGUMENT;
    }
    for (k = 0; k < s->nlocks; ++k) {
        if (s->lock_key[k] == key) {
            found = k;
        }
    }
    if (found < 0) {
        return MCS_ERR_ARGUMENT; /* not locked */
    }
    rep.t = s->cur.t;
    rep.key = key;
    rep.lock = 0;
    rep.rank_before = s->cur.r;
    rep.impulse = MCS_R(0.0);
    rows = s->lock_rows[found];
    nref = ref_count(s, found);
    { /* the captured values after it move down by nref */
        const int end = s->lock_ref_at[s->nlocks - 1] + ref_count(s, s->nlocks - 1);
        for (i = s->lock_ref_at[found] + nref; i < end; ++i) {
            s->lock_ref[i - nref] = s->lock_ref[i];
        }
    }
    for (k = found; (k + 1) < s->nlocks; ++k) { /* close the gap in the table */
        s->lock_key[k] = s->lock_key[k + 1];
        s->lock_group[k] = s->lock_group[k + 1];
        s->lock_rows[k] = s->lock_rows[k + 1];
        s->lock_ref_at[k] = s->lock_ref_at[k + 1] - nref;
        for (i = 0; i < s->n; ++i) {
            s->lock_a[(k * s->n) + i] = s->lock_a[((k + 1) * s->n) + i];
        }
    }
    s->nlocks--;
    s->m -= rows;
    {
        mcs_status st = refactor_current(s);
        if (st != MCS_OK) {
            return st;
        }
    }
    (void)mcs_sim_energy(s, &kin, &pot);
    rep.rank_after = s->cur.r;
    rep.jump.rank_new = 0;
    rep.jump.dependent = 0;
    rep.jump.dof_after = s->n - s->cur.r;
    rep.jump.kinetic_before = kin;
    rep.jump.kinetic_after = kin;
    rep.jump.impulse_norm = MCS_R(0.0);
    if (report != NULL) {
        *report = rep;
    }
    return MCS_OK;
}

#else
/* left out of this build (mcs_config.h): every lock and unlock is refused */
mcs_status mcs_sim_lock_row(mcs_sim *s, int key, const mcs_real *a, mcs_jump_method method,
                            mcs_real *dv, mcs_real *jwork, size_t jwork_len, int *jiwork,
                            size_t jiwork_len, mcs_transition *report)
{
    (void)s;
    (void)key;
    (void)a;
    (void)method;
    (void)dv;
    (void)jwork;
    (void)jwork_len;
    (void)jiwork;
    (void)jiwork_len;
    (void)report;
    return MCS_ERR_UNSUPPORTED;
}

mcs_status mcs_sim_lock_group(mcs_sim *s, int key, int group, mcs_jump_method method, mcs_real *dv,
                              mcs_real *jwork, size_t jwork_len, int *jiwork, size_t jiwork_len,
                              mcs_transition *report)
{
    (void)s;
    (void)key;
    (void)group;
    (void)method;
    (void)dv;
    (void)jwork;
    (void)jwork_len;
    (void)jiwork;
    (void)jiwork_len;
    (void)report;
    return MCS_ERR_UNSUPPORTED;
}

mcs_status mcs_sim_lock(mcs_sim *s, int j, mcs_jump_method method, mcs_real *dv, mcs_real *jwork,
                        size_t jwork_len, int *jiwork, size_t jiwork_len, mcs_transition *report)
{
    (void)s;
    (void)j;
    (void)method;
    (void)dv;
    (void)jwork;
    (void)jwork_len;
    (void)jiwork;
    (void)jiwork_len;
    (void)report;
    return MCS_ERR_UNSUPPORTED;
}

mcs_status mcs_sim_unlock(mcs_sim *s, int key, mcs_transition *report)
{
    (void)s;
    (void)key;
    (void)report;
    return MCS_ERR_UNSUPPORTED;
}
#endif

mcs_status mcs_sim_momenta_at(mcs_sim *s, mcs_real t, const mcs_real *x, const mcs_real *v,
                              const mcs_real *Q, int r, mcs_real *P)
{
    const int n = (s != NULL) ? s->n : 0;
    const int f = n - r;
    mcs_status st;
    if (!s || !x || !v || !Q || !P || (r < 0) || (r > s->n)) {
        return MCS_ERR_ARGUMENT;
    }
    /* P (f) = T^T M(x, t) v with T = Q[:, r:] (M as the variant keeps it: w.M, and w.rhs) */
    st = mcs_variant_mass_times(s, x, t, v, s->w.rhs);
    if (st != MCS_OK) {
        return st;
    }
    mcs_mat_gemm(1, 0, f, 1, n, 1, &Q[r * n], n, s->w.rhs, n, 0, P, MAX2(f, 1));
    return (mcs_vec_max_abs(f, P) < MCS_R(0.0)) ? MCS_ERR_NONFINITE : MCS_OK;
}

mcs_status mcs_sim_momenta(mcs_sim *s, const mcs_real *v, mcs_real *P)
{
    mcs_status st;
    if (!s || !s->ready || !v || !P) {
        return MCS_ERR_ARGUMENT;
    }
    /* P = T^T M v with the current basis, through the frame (which may keep it implicit) */
    st = mcs_variant_mass_times(s, s->cur.x, s->cur.t, v, s->w.rhs);
    if (st != MCS_OK) {
        return st;
    }
    mcs_frame_Tt(s, &s->cur, s->w.rhs, P);
    return (mcs_vec_max_abs(s->n - s->cur.r, P) < MCS_R(0.0)) ? MCS_ERR_NONFINITE : MCS_OK;
}
