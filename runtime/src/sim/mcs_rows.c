/* mcs_rows.c - the constraint rows the simulator works with: the model's nc rows followed by the
 * rows of the locks active now, s->m in all. A lock is either a linear row a'x - a'x(t_lock) = 0
 * (a coordinate: a = e_j, 004 §6; or any constant row a caller gives) or a row group of the
 * model (mcs_model.h: a joint's lock, a switch's explicit rows), whose rows are formed here from
 * the group's quantities g(x) and the values captured at the activation: its generated kernels'
 * or, for a group of coordinates (mcs_row_group.coords: a tree joint's lock in joint
 * coordinates), the coordinates themselves with unit rows. Every kernel of the rows goes through
 * these functions. Locks have no time dependence (their c_t is 0). */
#include "sim/mcs_core.h"

/* What a group kernel evaluates. */
typedef enum { ROWS_C, ROWS_A, ROWS_GAMMA, ROWS_A_DOT } rows_kind;

int mcs_group_rows(const mcs_row_group *g)
{
    /* the group's own rows, with the 4 quaternion rows replaced by one per locked axis */
    int rows = g->ng;
    unsigned axis;
    if (g->rotation != 0) {
        rows -= 4;
    }
    for (axis = 0U; axis < 3U; ++axis) {
        if (((unsigned)g->rotation & (1U << axis)) != 0U) {
            rows++;
        }
    }
    return rows;
}

#if MCS_WITH_LOCKS

void mcs_group_g(const mcs_sim *s, const mcs_row_group *g, const mcs_real *x, mcs_real t,
                 mcs_real *out)
{
    int e;
    if (g->coords != NULL) {
        for (e = 0; e < g->ng; ++e) {
            out[e] = x[g->coords[e]];
        }
    } else {
        g->g(x, t, s->params, out);
    }
}

/* `kind` of a group that holds coordinates (g->coords): g = x[coords], G their unit rows, gamma
 * and G_dot zero (the rows are linear in x). val: (ng) or (ng x cols). */
static void coordinate_group(const mcs_row_group *g, rows_kind kind, const mcs_real *x, int cols,
                             mcs_real *val)
{
    const int ng = g->ng;
    int e;
    int j;
    if (kind == ROWS_C) {
        for (e = 0; e < ng; ++e) {
            val[e] = x[g->coords[e]];
        }
    } else {
        for (j = 0; j < (ng * cols); ++j) {
            val[j] = MCS_R(0.0);
        }
        if (kind == ROWS_A) {
            for (e = 0; e < ng; ++e) {
                val[e + (g->coords[e] * ng)] = MCS_R(1.0);
            }
        }
    }
}

/* The weights w (4) of the rotation row `axis` (0 x, 1 y, 2 z) over g[0..3] = rho(x), with
 * rho_ref = r: Im(rho conj(r))_axis = w . rho, and 0 at rho = r. */
static void rotation_weights(int axis, const mcs_real *r, mcs_real *w)
{
    if (axis == 0) {
        w[0] = -r[1], w[1] = r[0], w[2] = r[3], w[3] = -r[2];
    } else if (axis == 1) {
        w[0] = -r[2], w[1] = -r[3], w[2] = r[0], w[3] = r[1];
    } else {
        w[0] = -r[3], w[1] = r[2], w[2] = -r[1], w[3] = r[0];
    }
}

/* 1 for the kinds that are matrices (A, A_dot), 0 for vectors */
static int is_matrix_kind(rows_kind kind)
{
    int matrix = 0;
    if ((kind == ROWS_A) || (kind == ROWS_A_DOT)) {
        matrix = 1;
    }
    return matrix;
}

/* Rows of lock k (a group) into out (rows first.., leading dimension ld, cols columns): `kind`
 * of them at (x, v, t). Writes s->lock_g and s->lock_G. */
static void group_rows(const mcs_sim *s, int k, rows_kind kind, const mcs_real *x,
                       const mcs_real *v, mcs_real t, mcs_real *out, int first, int ld)
{
    const mcs_row_group *g = &s->model->groups[s->lock_group[k]];
    const mcs_real *ref = &s->lock_ref[s->lock_ref_at[k]];
    const int n = s->n;
    const int ng = g->ng;
    const int matrix = is_matrix_kind(kind);
    const int cols = (matrix != 0) ? n : 1;
    mcs_real *val = (matrix != 0) ? s->lock_G : s->lock_g; /* (ng x cols) */
    int axis;
    int e;
    int j;
    int row = first;
    if (g->coords != NULL) {
        coordinate_group(g, kind, x, cols, val);
    } else if (kind == ROWS_C) {
        g->g(x, t, s->params, val);
    } else if (kind == ROWS_A) {
        g->G(x, t, s->params, val);
    } else if (kind == ROWS_GAMMA) {
        g->gamma(x, v, t, s->params, val);
    } else {
        g->G_dot(x, v, t, s->params, val);
    }
    for (axis = 0; axis < 3; ++axis) {
        mcs_real w[4];
        if (((unsigned)g->rotation & (1U << (unsigned)axis)) == 0U) {
            continue;
        }
        rotation_weights(axis, ref, w);
        for (j = 0; j < cols; ++j) {
            out[row + (j * ld)] = (w[0] * val[j * ng]) + (w[1] * val[1 + (j * ng)]) +
                                  (w[2] * val[2 + (j * ng)]) + (w[3] * val[3 + (j * ng)]);
        }
        row++;
    }
    e = 0;
    if (g->rotation != 0) {
        e = 4; /* the quaternion rows were replaced above */
    }
    for (; e < ng; ++e) {
        for (j = 0; j < cols; ++j) {
            out[row + (j * ld)] =
                val[e + (j * ng)] - (((kind == ROWS_C) && g->capture) ? ref[e] : MCS_R(0.0));
        }
        row++;
    }
}

/* Rows of lock k (linear or group) into out, as group_rows. */
static void lock_rows(const mcs_sim *s, int k, rows_kind kind, const mcs_real *x, const mcs_real *v,
                      mcs_real t, mcs_real *out, int first, int ld)
{
    const int n = s->n;
    int j;
    if (s->lock_group[k] >= 0) {
        group_rows(s, k, kind, x, v, t, out, first, ld);
    } else if (kind == ROWS_C) {
        mcs_real sum = -s->lock_ref[s->lock_ref_at[k]];
        for (j = 0; j < n; ++j) {
            sum += s->lock_a[(k * n) + j] * x[j];
        }
        out[first] = sum;
    } else if (kind == ROWS_A) {
        for (j = 0; j < n; ++j) {
            out[first + (j * ld)] = s->lock_a[(k * n) + j];
        }
    } else {
        for (j = 0; j < ((kind == ROWS_GAMMA) ? 1 : n); ++j) {
            out[first + (j * ld)] = MCS_R(0.0); /* a constant row: no curvature */
        }
    }
}

void mcs_lock_rows_A(const mcs_sim *s, int k, const mcs_real *x, mcs_real t, mcs_real *out, int ld)
{
    lock_rows(s, k, ROWS_A, x, NULL, t, out, 0, ld);
}

#endif

void mcs_lock_group_multipliers(const mcs_sim *s, const mcs_real *mu, mcs_real *nu)
{
    const mcs_model *md = s->model;
    int i;
    for (i = 0; i < md->nmu; ++i) {
        nu[i] = MCS_R(0.0);
    }
#if MCS_WITH_LOCKS
    {
        int k;
        int row = 0; /* this lock's first multiplier in mu */
        for (k = 0; k < s->nlocks; ++k) {
            const int gi = s->lock_group[k];
            if (gi >= 0) { /* rows made as group_rows makes them: rotation axes, then entries */
                const mcs_row_group *g = &md->groups[gi];
                const mcs_real *ref = &s->lock_ref[s->lock_ref_at[k]];
                int start = 0;
                int r = row;
                int axis;
                int e = 0;
                if (g->rotation != 0) {
                    e = 4; /* the quaternion's 4 entries are the rotation rows' */
                }
                for (i = 0; i < gi; ++i) {
                    start += md->groups[i].ng;
                }
                for (axis = 0; axis < 3; ++axis) {
                    mcs_real w[4];
                    if (((unsigned)g->rotation & (1U << (unsigned)axis)) != 0U) {
                        rotation_weights(axis, ref, w);
                        for (i = 0; i < 4; ++i) {
                            nu[start + i] += mu[r] * w[i];
                        }
                        r++;
                    }
                }
                for (; e < g->ng; ++e) {
                    nu[start + e] += mu[r];
                    r++;
                }
            }
            row += s->lock_rows[k];
        }
    }
#else
    (void)mu; /* no locks in this build (mcs_config.h) */
#endif
}

/* The model's kernel wrote a (nc x cols) matrix with leading dimension nc into out: spread it to
 * leading dimension m (in place, last entry first) and fill the lock rows. */
static void with_locks(const mcs_sim *s, rows_kind kind, const mcs_real *x, const mcs_real *v,
                       mcs_real t, int cols, mcs_real *out)
{
#if MCS_WITH_LOCKS
    const int nc = s->model->nc;
    const int m = s->m;
    int i;
    int j;
    int k;
    int row = nc;
    if (m != nc) {
        for (j = cols - 1; j >= 0; --j) {
            for (i = nc - 1; i >= 0; --i) {
                out[i + (j * m)] = out[i + (j * nc)];
            }
        }
    }
    for (k = 0; k < s->nlocks; ++k) {
        lock_rows(s, k, kind, x, v, t, out, row, m);
        row += s->lock_rows[k];
    }
#else
    (void)s;  /* no locks in this build (mcs_config.h): the model's rows are all of them */
    (void)kind;
    (void)x;
    (void)v;
    (void)t;
    (void)cols;
    (void)out;
#endif
}

void mcs_rows_c(const mcs_sim *s, const mcs_real *x, mcs_real t, mcs_real *out)
{
    if (s->model->nc > 0) {
        s->model->c(x, t, s->params, out);
    }
    with_locks(s, ROWS_C, x, NULL, t, 1, out);
}

void mcs_rows_A(const mcs_sim *s, const mcs_real *x, mcs_real t, mcs_real *out)
{
    if (s->model->nc > 0) {
        s->model->A(x, t, s->params, out);
    }
    with_locks(s, ROWS_A, x, NULL, t, s->n, out);
}

void mcs_rows_A_sparse(const mcs_sim *s, const mcs_real *x, mcs_real t, mcs_real *nz, mcs_real *out)
{
#if MCS_WITH_LOCKS
    int k;
    int row = s->model->nc;
#endif
    if (s->model->nc > 0) {
        s->model->A_nz(x, t, s->params, nz);
    }
#if MCS_WITH_LOCKS
    for (k = 0; k < s->nlocks; ++k) {
        lock_rows(s, k, ROWS_A, x, NULL, t, out, row, s->m);
        row += s->lock_rows[k];
    }
#else
    (void)out;
#endif
}

void mcs_rows_c_t(const mcs_sim *s, const mcs_real *x, mcs_real t, mcs_real *out)
{
    int i;
    if (s->model->nc > 0) {
        s->model->c_t(x, t, s->params, out);
    }
    for (i = s->model->nc; i < s->m; ++i) {
        out[i] = MCS_R(0.0);
    }
}

void mcs_rows_gamma(const mcs_sim *s, const mcs_real *x, const mcs_real *v, mcs_real t,
                    mcs_real *out)
{
    if (s->model->nc > 0) {
        s->model->gamma(x, v, t, s->params, out);
    }
    with_locks(s, ROWS_GAMMA, x, v, t, 1, out);
}

void mcs_rows_A_dot(const mcs_sim *s, const mcs_real *x, const mcs_real *v, mcs_real t,
                    mcs_real *out)
{
    if (s->model->nc > 0) {
        s->model->A_dot(x, v, t, s->params, out);
    }
    with_locks(s, ROWS_A_DOT, x, v, t, s->n, out);
}
