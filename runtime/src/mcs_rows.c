/* mcs_rows.c - the constraint rows the simulator works with: the model's nc rows followed by the
 * locks active now, each a linear row a'x - a'x(t_lock) = 0 (a coordinate lock: a = e_j, 004 §6;
 * a planar revolute joint: a picks theta1 - theta2), s->m = nc + nlocks in all. Every kernel of
 * the rows goes through these functions; the locks' rows are so simple (a constant row of A, no
 * time dependence, no curvature) that they need no generated code. */
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
            out[nc + k + j * m] = unit ? s->lock_a[k * s->n + j] : 0;
}

void mcs_rows_c(const mcs_sim *s, const mcs_real *x, mcs_real t, mcs_real *out)
{
    int k, j;
    if (s->model->nc > 0)
        s->model->c(x, t, s->params, out);
    for (k = 0; k < s->nlocks; ++k) {
        mcs_real sum = -s->lock_ref[k];
        for (j = 0; j < s->n; ++j)
            sum += s->lock_a[k * s->n + j] * x[j];
        out[s->model->nc + k] = sum;
    }
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
