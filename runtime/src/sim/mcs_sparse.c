/* mcs_sparse.c - products with the model's A and M by their nonzeros (the A_nz and M_nz kernels'
 * values, in w.A and w.M): what the compact and banded variants and the momenta of a lock use in
 * place of the dense matrices. */
#include "sim/mcs_core.h"

void mcs_sparse_A_times(const mcs_sim *s, const mcs_real *u, mcs_real *out)
{
    const mcs_model *md = s->model;
    int i;
    int k;
    for (i = 0; i < s->m; ++i) {
        out[i] = MCS_R(0.0);
    }
    for (k = 0; k < md->a_nnz; ++k) {
        out[md->a_rows[k]] += s->w.A[k] * u[md->a_cols[k]];
    }
}

void mcs_sparse_M_times(const mcs_sim *s, int ncol, mcs_real alpha, const mcs_real *B,
                        mcs_real beta, mcs_real *out)
{
    const mcs_model *md = s->model;
    const int n = s->n;
    int j;
    int k;
    for (j = 0; j < ncol; ++j) {
        mcs_real *oj = &out[j * n];
        const mcs_real *bj = &B[j * n];
        if (beta == MCS_R(0.0)) {
            int i;
            for (i = 0; i < n; ++i) {
                oj[i] = MCS_R(0.0);
            }
        }
        for (k = 0; k < md->m_nnz; ++k) {
            oj[md->m_rows[k]] += alpha * (s->w.M[k] * bj[md->m_cols[k]]);
        }
    }
}

mcs_status mcs_sparse_mass_times(mcs_sim *s, const mcs_real *x, mcs_real t, const mcs_real *v,
                                 mcs_real *out)
{
    s->model->M_nz(x, t, s->params, s->w.M);
    mcs_sparse_M_times(s, 1, MCS_R(1.0), v, MCS_R(0.0), out);
    return (mcs_vec_max_abs(s->n, out) < MCS_R(0.0)) ? MCS_ERR_NONFINITE : MCS_OK;
}
