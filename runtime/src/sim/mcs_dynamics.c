/* mcs_dynamics.c - the forward dynamics on a chart (SPEC §4, the Maggi-Kane equations): the mass
 * matrix and the forces at a stage, and the reduced system (Phi^T M Phi) qdd = Phi^T rhs solved by
 * Cholesky. What the dense and compact variants' right-hand sides end with (the banded one solves
 * its KKT band instead); a second way to the accelerations (a recursive one) is a file beside it
 * (DEVELOPING.md: a new forward-dynamics path). */
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
