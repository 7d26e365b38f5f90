/* mcs_assembly.c - a consistent initial state: positions onto c = 0 by minimum-norm Newton,
 * velocities projected onto A v + c_t = 0 (SPEC §4). */

#include "sim/mcs_stages.h"

mcs_real mcs_constraint_norm_at(mcs_sim *s, const mcs_real *x, mcs_real t)
{
    if (s->m == 0) {
        return 0;
    }
    mcs_rows_c(s, x, t, s->w.c);
    return mcs_vec_max_abs(s->m, s->w.c);
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
    s->w.pred_x = NULL;
    fr = &s->cur;
    fr->t = t;
    for (i = 0; i < n; ++i) {
        fr->x[i] = x[i];
        fr->x_lo[i] = MCS_R(0.0);
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
        mcs_frame_min_norm(s, fr, s->w.c, s->w.rhs);
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
        mcs_frame_A_times(s, fr->v, s->w.gamma); /* w.A: A at x, as the factorization left it */
        for (i = 0; i < s->m; ++i) {
            s->w.gamma[i] += s->w.c_t[i];
        }
        rep.cdot_norm_before = mcs_vec_max_abs(s->m, s->w.gamma);
        mcs_frame_min_norm(s, fr, s->w.gamma, s->w.rhs);
        for (i = 0; i < n; ++i) {
            fr->v[i] += s->w.rhs[i];
        }
    }
    /* a state near the range of mcs_real can overflow in the corrections */
    if ((mcs_vec_max_abs(n, fr->x) < MCS_R(0.0)) || (mcs_vec_max_abs(n, fr->v) < MCS_R(0.0))) {
        return MCS_ERR_NONFINITE;
    }
    mcs_frame_start_basis(s, fr); /* the basis starts as T^ */
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
    s->w.pred_x = NULL;
    s->h_next = s->opt.h;
    s->t_grid0 = t;
    s->grid_index = 0;
    s->w.interp_ready = 0;
    s->w.fsal = 0;
    {
        mcs_stats zero = {0, 0, 0, 0, 0, 0, 0, 0, {0, 0, 0, 0, 0}, 0, MCS_R(0.0)};
        zero.factorizations = s->stats.factorizations;
        s->stats = zero;
    }
    s->w.sigma_ref = fr->sigma;
    s->ready = 1;
    return MCS_OK;
}

/* Whether params hold the model's default values (then x0, v0 are the generator's). Each
 * parameter is an mcs_real member at param_offsets[k]. */
static int default_params(const mcs_model *md, const void *params)
{
    const mcs_real *given = (const mcs_real *)params;
    const mcs_real *defaults = (const mcs_real *)md->default_params;
    int k;
    for (k = 0; k < md->np; ++k) {
        const size_t at = md->param_offsets[k] / sizeof(mcs_real);
        if (!(given[at] == defaults[at])) {
            return 0;
        }
    }
    return 1;
}

mcs_status mcs_model_initial_state(const mcs_model *md, const void *params, mcs_real *xv)
{
    int i;
    int n;
    if ((md == NULL) || (params == NULL) || (xv == NULL)) {
        return MCS_ERR_ARGUMENT;
    }
    n = md->nx;
    if ((md->initial == NULL) || default_params(md, params)) {
        for (i = 0; i < n; ++i) {
            xv[i] = md->x0[i];
            xv[n + i] = md->v0[i];
        }
        return MCS_OK;
    }
    md->initial(md->x0, MCS_R(0.0), params, xv); /* reads neither x nor t */
    return (mcs_vec_max_abs(2 * n, xv) < MCS_R(0.0)) ? MCS_ERR_NONFINITE : MCS_OK;
}

/* res (nh) = h - H v for [H | h] (nh x (n + 1), ld nh). */
static void held_residual(int nh, int n, const mcs_real *H, const mcs_real *v, mcs_real *res)
{
    int i;
    for (i = 0; i < nh; ++i) {
        res[i] = H[((size_t)n * (size_t)nh) + (size_t)i];
    }
    mcs_mat_gemm(0, 0, nh, 1, n, MCS_R(-1.0), H, nh, v, n, MCS_R(1.0), res, nh);
}

/* The held conditions H v = h at the current state (s->cur, just assembled): v <- v + T z with z
 * the minimum-norm solution of (H T) z = h - H v, so that v stays on A v + c_t = 0 and, v having
 * been the minimum-norm velocity there, becomes the minimum-norm velocity that also holds H v = h
 * (T orthonormal, orthogonal to the rows of A). Writes lock_G (H, h), w.Z (H T), w.Phi, w.MPhi
 * (its factorization), w.ipiv, w.tmp, w.tmp2, w.basis_work and out (n). */
static mcs_status hold_velocities(mcs_sim *s, mcs_real t, mcs_real *out)
{
    const mcs_model *md = s->model;
    const int n = s->n;
    const int nh = md->nheld;
    const mcs_frame *fr = &s->cur;
    const int f = n - fr->r;
    const mcs_real *T = fr->T;
    /* a basis kept implicit (the banded variant's traditional one): products with it by rows */
    const int implicit = mcs_frame_implicit_T(s);
    mcs_real *H = s->lock_G; /* (nh x (n + 1)) [H | h], ld nh: (K + 3) K reals hold it */
    mcs_real *res = s->w.tmp;
    mcs_real *y = s->w.tmp2;
    mcs_real scale;
    mcs_real tol;
    int rank = 0;
    int i;
    for (i = 0; i < n; ++i) {
        out[i] = fr->v[i];
    }
    md->held(fr->x, t, s->params, H);
    if (mcs_vec_max_abs(nh * (n + 1), H) < MCS_R(0.0)) {
        return MCS_ERR_NONFINITE;
    }
    held_residual(nh, n, H, out, res);
    if ((f > 0) && (implicit != 0)) { /* H T row by row: T^T (row i of H) */
        int j;
        int l;
        for (i = 0; i < nh; ++i) {
            for (l = 0; l < n; ++l) {
                s->w.bx[l] = H[i + (l * nh)];
            }
            mcs_frame_Tt(s, fr, s->w.bx, s->w.bq);
            for (j = 0; j < f; ++j) {
                s->w.Z[i + (j * nh)] = s->w.bq[j];
            }
        }
    } else if (f > 0) {
        mcs_mat_gemm(0, 0, nh, f, n, MCS_R(1.0), H, nh, T, n, MCS_R(0.0), s->w.Z, nh);
    } else {
        /* no free direction: nothing to hold by */
    }
    if (f > 0) {
        if (mcs_qr_basis(f, nh, s->w.Z, nh, s->opt.rank_tol, s->w.Phi, s->w.MPhi, s->w.ipiv, &rank,
                         s->w.basis_work) != MCS_OK) {
            return MCS_ERR_LINALG;
        }
    }
    if (rank > 0) { /* z = Q1 R11^-T (P^T res)[0:rank], then v += T z */
        for (i = 0; i < rank; ++i) {
            y[i] = res[s->w.ipiv[i]];
        }
        mcs_mat_solve_upper_transposed(rank, s->w.MPhi, f, y);
        mcs_mat_gemm(0, 0, f, 1, rank, MCS_R(1.0), s->w.Phi, f, y, rank, MCS_R(0.0), s->w.Z, f);
        if (implicit != 0) {
            mcs_frame_T(s, fr, s->w.Z, s->w.bx);
            for (i = 0; i < n; ++i) {
                out[i] += s->w.bx[i];
            }
        } else {
            mcs_mat_gemm(0, 0, n, 1, f, MCS_R(1.0), T, n, s->w.Z, f, MCS_R(1.0), out, n);
        }
    }
    /* what is left of h - H v: a held condition the constraints contradict */
    scale = MAX2(MCS_R(1.0),
                 mcs_vec_max_abs(nh * (n + 1), H) * MAX2(MCS_R(1.0), mcs_vec_max_abs(n, out)));
    held_residual(nh, n, H, out, res);
    tol = MAX2(MCS_R(1e-8), MCS_R(1000.0) * MCS_REAL_EPS) * scale;
    if (!(mcs_vec_max_abs(nh, res) <= tol)) {
        return (mcs_vec_max_abs(nh, res) < MCS_R(0.0)) ? MCS_ERR_NONFINITE : MCS_ERR_ASSEMBLY;
    }
    return MCS_OK;
}

mcs_status mcs_sim_start(mcs_sim *s, mcs_real t, mcs_assembly *report)
{
    const mcs_model *md;
    mcs_real *xv;
    mcs_real *held_v;
    mcs_assembly rep;
    mcs_real dv2 = MCS_R(0.0);
    mcs_status st;
    int n;
    int i;
    if (s == NULL) {
        return MCS_ERR_ARGUMENT;
    }
    md = s->model;
    n = s->n;
    if ((md->initial == NULL) || default_params(md, s->params)) {
        return mcs_sim_set_state(s, t, md->x0, md->v0, report);
    }
    if ((md->nheld < 0) || (md->nheld > n) || ((md->nheld > 0) && (md->held == NULL))) {
        return MCS_ERR_ARGUMENT;
    }
    xv = s->w.start;  /* (2 n) [x0; v0] of the parameters: set_state does not touch it */
    held_v = s->w.xs; /* (n) nor this, nor hold_velocities but as its output */
    st = mcs_model_initial_state(md, s->params, xv);
    if (st == MCS_OK) {
        st = mcs_sim_set_state(s, t, xv, &xv[n], &rep);
    }
    if ((st != MCS_OK) || (md->nheld == 0)) {
        if ((st == MCS_OK) && (report != NULL)) {
            *report = rep;
        }
        return st;
    }
    st = hold_velocities(s, t, held_v);
    for (i = 0; (st == MCS_OK) && (i < n); ++i) { /* [x0; v0] <- the state with v held */
        dv2 += (held_v[i] - xv[n + i]) * (held_v[i] - xv[n + i]);
        xv[i] = s->cur.x[i];
        xv[n + i] = held_v[i];
    }
    if (st == MCS_OK) {
        st = mcs_sim_set_state(s, t, xv, &xv[n], NULL); /* factors the state as it stands */
    }
    if ((st == MCS_OK) && (report != NULL)) {
        rep.dv_norm = mcs_sqrt(dv2);
        *report = rep;
    }
    return st;
}

mcs_status mcs_sim_restart(mcs_sim *s, mcs_real t, const mcs_real *x, const mcs_real *v)
{
    mcs_stats keep;
    mcs_real sigma_ref;
    mcs_status st;
    if (!s || !s->ready) {
        return MCS_ERR_ARGUMENT;
    }
    keep = s->stats;
    sigma_ref = s->w.sigma_ref;
    st = mcs_sim_set_state(s, t, x, v, NULL);
    keep.factorizations = s->stats.factorizations;
    s->stats = keep;
    if (sigma_ref > s->w.sigma_ref) {
        s->w.sigma_ref = sigma_ref;
    }
    return st;
}
