/* mcs_locks.c - transitions: coordinate locks and unlocks (004 §5-6, SPEC §7). A lock adds the
 * row x_j - x_j(t) = 0 with the momentum-consistent velocity jump of mcs_jump; an unlock removes
 * it without a jump. Either way the Jacobian is re-factored at the current state and the tangent
 * basis aligned with the one before (SPEC §3.7), so the projected coordinates stay continuous. */
#include "mcs_sim_internal.h"

/* cur has a new row set: keep the old frame in prev (free between steps), factor cur again and
 * align its basis with the old one (no predictor: nothing moves at a transition). */
static mcs_status refactor_current(mcs_sim *s)
{
    const int n = s->n;
    mcs_frame *old = &s->prev, *cur = &s->cur;
    mcs_status st;
    int i, f_old, f_new;
    old->t = cur->t;
    for (i = 0; i < n; ++i) {
        old->x[i] = cur->x[i];
        old->v[i] = cur->v[i];
    }
    mcs_mat_copy(n, n, cur->Q, n, old->Q, n);
    old->r = cur->r;
    old->sigma = cur->sigma;
    if ((st = mcs_frame_factor(s, cur)) != MCS_OK)
        return st;
    f_old = n - old->r;
    f_new = n - cur->r;
    if (s->opt.continuation != MCS_CONT_OFF) {
        mcs_mat_copy(n, f_old, old->Q + old->r * n, n, s->w.Tpred, n);
        mcs_mat_copy(n, f_new, cur->Q + cur->r * n, n, s->w.That, n);
        if (mcs_align_basis(n, f_old, s->w.Tpred, f_new, s->w.That, cur->Q + cur->r * n,
                            s->w.basis_work) != MCS_OK)
            return MCS_ERR_LINALG;
    }
    /* the last step's dense output and any pending event belong to the old constraints */
    s->h_last = 0;
    s->w.dense_ready = 0;
    s->w.retries = 0;
    s->event_ready = 0;
    s->transitions++;
    return MCS_OK;
}

mcs_status mcs_sim_lock_row(mcs_sim *s, int key, const mcs_real *a, mcs_jump_method method,
                            mcs_real *dv, mcs_real *jwork, size_t jwork_len, int *jiwork,
                            size_t jiwork_len, mcs_transition *report)
{
    mcs_transition rep;
    mcs_real lambda = 0, ref = 0;
    mcs_status st;
    int n, m, f, i;
    if (!s || !a || !dv || !jwork || !jiwork || key < 0)
        return MCS_ERR_ARGUMENT;
    if (s->nlocks >= s->opt.max_locks)
        return MCS_ERR_WORKSPACE; /* the workspace was sized for fewer locks (opt.max_locks) */
    if (mcs_vec_max_abs(s->n, a) <= 0)
        return MCS_ERR_ARGUMENT; /* a zero or non-finite row locks nothing */
    n = s->n;
    m = s->m;
    f = n - s->cur.r;
    rep.t = s->cur.t;
    rep.coordinate = key;
    rep.lock = 1;
    rep.rank_before = s->cur.r;
    /* M and the rows in use at the current state; the new row is a */
    s->model->M(s->cur.x, s->cur.t, s->params, s->w.M);
    if (m > 0)
        mcs_rows_A(s, s->cur.x, s->cur.t, s->w.A);
    st = mcs_jump(method, n, s->w.M, m, m > 0 ? s->w.A : NULL, f, s->cur.Q + s->cur.r * n, 1, a,
                  s->cur.v, NULL, s->opt.rank_tol, dv, &lambda, &rep.jump, jwork, jwork_len, jiwork,
                  jiwork_len);
    if (st != MCS_OK)
        return st;
    for (i = 0; i < n; ++i) {
        s->cur.v[i] += dv[i];
        s->lock_a[s->nlocks * n + i] = a[i];
        ref += a[i] * s->cur.x[i];
    }
    s->lock_coord[s->nlocks] = key;
    s->lock_ref[s->nlocks] = ref;
    s->nlocks++;
    s->m++;
    if ((st = refactor_current(s)) != MCS_OK)
        return st;
    rep.rank_after = s->cur.r;
    rep.impulse = lambda;
    if (report)
        *report = rep;
    return MCS_OK;
}

mcs_status mcs_sim_lock(mcs_sim *s, int j, mcs_jump_method method, mcs_real *dv, mcs_real *jwork,
                        size_t jwork_len, int *jiwork, size_t jiwork_len, mcs_transition *report)
{
    mcs_real *e;
    int i;
    if (!s || j < 0 || j >= s->n)
        return MCS_ERR_ARGUMENT;
    e = s->w.tmp2; /* the unit row e_j (w.tmp2 is free between steps; mcs_jump does not use it) */
    for (i = 0; i < s->n; ++i)
        e[i] = i == j ? 1 : 0;
    return mcs_sim_lock_row(s, j, e, method, dv, jwork, jwork_len, jiwork, jiwork_len, report);
}

mcs_status mcs_sim_unlock(mcs_sim *s, int j, mcs_transition *report)
{
    mcs_transition rep;
    mcs_real kin = 0, pot = 0;
    int k, found = -1;
    if (!s || j < 0)
        return MCS_ERR_ARGUMENT;
    for (k = 0; k < s->nlocks; ++k)
        if (s->lock_coord[k] == j)
            found = k;
    if (found < 0)
        return MCS_ERR_ARGUMENT; /* not locked */
    rep.t = s->cur.t;
    rep.coordinate = j;
    rep.lock = 0;
    rep.rank_before = s->cur.r;
    rep.impulse = 0;
    for (k = found; k + 1 < s->nlocks; ++k) {
        int i;
        s->lock_coord[k] = s->lock_coord[k + 1];
        s->lock_ref[k] = s->lock_ref[k + 1];
        for (i = 0; i < s->n; ++i)
            s->lock_a[k * s->n + i] = s->lock_a[(k + 1) * s->n + i];
    }
    s->nlocks--;
    s->m--;
    {
        mcs_status st = refactor_current(s);
        if (st != MCS_OK)
            return st;
    }
    (void)mcs_sim_energy(s, &kin, &pot);
    rep.rank_after = s->cur.r;
    rep.jump.rank_new = 0;
    rep.jump.dependent = 0;
    rep.jump.dof_after = s->n - s->cur.r;
    rep.jump.kinetic_before = rep.jump.kinetic_after = kin;
    rep.jump.impulse_norm = 0;
    if (report)
        *report = rep;
    return MCS_OK;
}

mcs_status mcs_sim_momenta_at(mcs_sim *s, mcs_real t, const mcs_real *x, const mcs_real *v,
                              const mcs_real *Q, int r, mcs_real *P)
{
    int n, f;
    if (!s || !x || !v || !Q || !P || r < 0 || r > s->n)
        return MCS_ERR_ARGUMENT;
    n = s->n;
    f = n - r;
    s->model->M(x, t, s->params, s->w.M);
    mcs_mat_gemm(0, 0, n, 1, n, 1, s->w.M, n, v, n, 0, s->w.rhs, n);
    mcs_mat_gemm(1, 0, f, 1, n, 1, Q + r * n, n, s->w.rhs, n, 0, P, MAX2(f, 1));
    return MCS_OK;
}

mcs_status mcs_sim_momenta(mcs_sim *s, const mcs_real *v, mcs_real *P)
{
    if (!s)
        return MCS_ERR_ARGUMENT;
    return mcs_sim_momenta_at(s, s->cur.t, s->cur.x, v, s->cur.Q, s->cur.r, P);
}
