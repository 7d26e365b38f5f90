/* mcs_dynamics.c - the forward dynamics on a chart (SPEC §4, the Maggi-Kane equations): the mass
 * matrix and the forces at a stage, the reduced system (Phi^T M Phi) qdd = Phi^T rhs solved by
 * Cholesky (what the dense and compact variants' right-hand sides end with; the banded one
 * solves its KKT band instead), and the accelerations of a chart without rows in force (a tree
 * in joint coordinates: M qdd = f) by the paths of a table, the mass matrix's the one now; a
 * second one (a recursive one) is a file beside this one and an entry in the table (DEVELOPING.md:
 * a new forward-dynamics path). */
#include "sim/mcs_core.h"

void mcs_mass_and_forces(mcs_sim *s, const mcs_real *x, const mcs_real *v, mcs_real t)
{
    const mcs_model *md = s->model;
    if (md->M_f != NULL) {
        md->M_f(x, v, t, s->params, s->w.M, s->w.f);
    } else {
        md->M_nz(x, t, s->params, s->w.M);
        md->f(x, v, t, s->params, s->w.f);
    }
#if MCS_MAX_INPUTS > 0
    if (s->inputs_on != 0) { /* the inputs' generalized forces B(x, t) u */
        int i;
        md->f_u(x, s->u, t, s->params, s->w.f_u);
        for (i = 0; i < s->n; ++i) {
            s->w.f[i] += s->w.f_u[i];
        }
    }
#endif
#if MCS_MAX_FRICTION > 0
    if ((s->friction_on != 0) &&
        (md->friction != NULL)) { /* Coulomb friction, each along its coordinate */
        int k;
        for (k = 0; k < md->nfriction; ++k) {
            s->w.f[md->friction[k].coordinate] += s->friction_force[k];
        }
    }
#endif
}

mcs_status mcs_reduced_accelerations(mcs_sim *s, int f, const mcs_real *y, mcs_real *ydot)
{
    const int n = s->n;
    int i;
    mcs_mat_gemm(1, 0, f, f, n, 1, s->w.Phi, n, s->w.MPhi, n, 0, s->w.Mred, MAX2(f, 1));
    for (i = 0; i < f; ++i) {
        ydot[i] = y[f + i];
    }
    mcs_mat_gemm(1, 0, f, 1, n, 1, s->w.Phi, n, s->w.rhs, n, 0, &ydot[f], MAX2(f, 1));
    return mcs_reduced_solve(s, f, ydot);
}

mcs_status mcs_reduced_solve(mcs_sim *s, int f, mcs_real *ydot)
{
    if (mcs_la_cholesky(f, s->w.Mred, MAX2(f, 1)) != 0) {
        return MCS_ERR_MASS_NOT_PD;
    }
    (void)mcs_la_cholesky_solve(f, 1, s->w.Mred, MAX2(f, 1), &ydot[f], MAX2(f, 1));
    if (mcs_vec_max_abs(2 * f, ydot) < MCS_R(0.0)) {
        return MCS_ERR_NONFINITE;
    }
    return MCS_OK;
}

const char *const mcs_dynamics_paths[MCS_DYNAMICS_PATH_COUNT] = {
    "mass_matrix", /* M from its nonzeros and f, factored (every model has them) */
};

/* Whether the model has what the path reads. */
static int path_available(const mcs_sim *s, mcs_dynamics_path path)
{
    switch (path) {
    case MCS_DYNAMICS_MASS_MATRIX: return (s->model->M_nz != NULL) ? 1 : 0;
    default: return 0;
    }
}

/* The mass matrix's path: Phi^T M Phi = M, of which the Cholesky factorization reads the lower
 * triangle (M's nonzeros there scattered), and Phi^T f = f (w.rhs = f, as on every chart). M Phi
 * is not written: no row is in force, so nothing reads it (the multipliers are empty). */
static mcs_status mass_matrix_free(mcs_sim *s, const mcs_real *x, const mcs_real *v, mcs_real t,
                                   const mcs_real *y, mcs_real *ydot)
{
    const mcs_model *md = s->model;
    const int n = s->n;
    mcs_real *Mred = s->w.Mred;
    mcs_real not_finite = MCS_R(0.0); /* NaN once an entry is an Inf or NaN (Inf - Inf) */
    int i;
    int k;
    mcs_mass_and_forces(s, x, v, t);
    for (i = 0; i < n; ++i) {
        s->w.rhs[i] = s->w.f[i];
    }
    for (i = 0; i < (n * n); ++i) {
        Mred[i] = MCS_R(0.0);
    }
    for (k = 0; k < md->m_nnz; ++k) {
        const mcs_real mk = s->w.M[k];
        const int row = md->m_rows[k];
        const int col = md->m_cols[k];
        not_finite += mk - mk;
        if (row >= col) {
            Mred[row + (col * n)] += mk;
        }
    }
    if (not_finite != MCS_R(0.0)) {
        /* the general path's products spread it (Inf 0 is NaN) and the Cholesky factorization
         * refuses it; so does this one */
        return MCS_ERR_MASS_NOT_PD;
    }
    for (i = 0; i < n; ++i) {
        ydot[i] = y[n + i];
        ydot[n + i] = s->w.rhs[i];
    }
    return mcs_reduced_solve(s, n, ydot);
}

mcs_status mcs_free_accelerations(mcs_sim *s, const mcs_real *x, const mcs_real *v, mcs_real t,
                                  const mcs_real *y, mcs_real *ydot)
{
    int p;
    for (p = 0; p < MCS_DYNAMICS_PATH_COUNT; ++p) {
        if (path_available(s, (mcs_dynamics_path)p) != 0) {
            break;
        }
    }
    switch ((mcs_dynamics_path)p) {
    case MCS_DYNAMICS_MASS_MATRIX: return mass_matrix_free(s, x, v, t, y, ydot);
    default: return MCS_ERR_UNSUPPORTED; /* no path the model can take */
    }
}
