/* mcs_rows.c - the constraint rows the simulator works with: the model's nc rows followed by the
 * coordinate locks active now (x_j - x_j(t_lock) = 0, 004 §6), s->m = nc + nlocks in all. Every
 * kernel of the rows goes through these functions; the locks' rows are so simple (a unit row of
 * A, no time dependence, no curvature) that they need no generated code. */
#include "mcs_sim_internal.h"

/* The model's kernel wrote a (nc x cols) matrix with leading dimension nc into out: spread it to
 * leading dimension m (in place, last entry first) and fill the lock rows with lock(k, j). */
static void spread(const mcs_sim *s, int cols, mcs_real *out, int unit)
{
    const int nc = s->model->nc, m = s->m;
    int i, j, k;
    if (m != nc)
        for (j = cols - 1; j >= 0; --j)
            for (i = nc - 1; i >= 0; --i)
                out[i + j * m] = out[i + j * nc];
    for (k = 0; k < s->nlocks; ++k)
        for (j = 0; j < cols; ++j)
            out[nc + k + j * m] = (unit && j == s->lock_coord[k]) ? 1 : 0;
}

void mcs_rows_c(const mcs_sim *s, const mcs_real *x, mcs_real t, mcs_real *out)
{
    int k;
    if (s->model->nc > 0)
        s->model->c(x, t, s->params, out);
    for (k = 0; k < s->nlocks; ++k)
        out[s->model->nc + k] = x[s->lock_coord[k]] - s->lock_ref[k];
}

void mcs_rows_A(const mcs_sim *s, const mcs_real *x, mcs_real t, mcs_real *out)
{
    if (s->model->nc > 0)
        s->model->A(x, t, s->params, out);
    spread(s, s->n, out, 1);
}

void mcs_rows_c_t(const mcs_sim *s, const mcs_real *x, mcs_real t, mcs_real *out)
{
    if (s->model->nc > 0)
        s->model->c_t(x, t, s->params, out);
    spread(s, 1, out, 0);
}

void mcs_rows_gamma(const mcs_sim *s, const mcs_real *x, const mcs_real *v, mcs_real t,
                    mcs_real *out)
{
    if (s->model->nc > 0)
        s->model->gamma(x, v, t, s->params, out);
    spread(s, 1, out, 0);
}

void mcs_rows_A_dot(const mcs_sim *s, const mcs_real *x, const mcs_real *v, mcs_real t,
                    mcs_real *out)
{
    if (s->model->nc > 0)
        s->model->A_dot(x, v, t, s->params, out);
    spread(s, s->n, out, 0);
}
