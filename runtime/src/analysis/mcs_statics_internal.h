/* mcs_statics_internal.h - what the static equilibrium's iteration (mcs_statics.c) and its
 * Newton steps (mcs_statics_step.c) share; internal. */
#ifndef MCS_STATICS_INTERNAL_H
#define MCS_STATICS_INTERNAL_H

#include "mcs/mcs_statics.h"

/* The caller's work arrays, carved once (sizes in the comments; k = n + m). */
typedef struct statics_ws {
    int n;
    int m;
    mcs_real *A;  /* (m x n) constraint Jacobian */
    mcs_real *c;  /* (m) */
    mcs_real *f;  /* (n) forces at v = 0 */
    mcs_real *rf; /* (n) f - A^T lambda */
    mcs_real *Q;
    mcs_real *R;     /* (n x n), (n x m) pivoted QR of A^T */
    mcs_real *K;     /* (n x n) K_f + K_c */
    mcs_real *Kc;    /* (n x n) K_c, then K T (n x f) */
    mcs_real *J;     /* (k x k) Newton matrix: reduced (f x f) or KKT */
    mcs_real *dx;    /* (k) step (x part, then lambda part for KKT) */
    mcs_real *xt;    /* (n) trial x */
    mcs_real *lt;    /* (m) trial lambda */
    mcs_real *zero;  /* (n) zero velocities */
    mcs_real *N;     /* (n x n) scratch of the multipliers */
    mcs_real *y;     /* (n) scratch */
    mcs_real *bwork; /* MCS_BASIS_WORK_SIZE(n, m) */
    int *piv;        /* (m) pivot order of the QR */
    int *ipiv;       /* (k) LU pivots */
    int rank;
    int rank_max; /* the rank at the assembled start: rows dependent there stay dependent */
} statics_ws;

/* max |a_i| and sum a_i^2 over len entries */
mcs_real mcs_statics_max_abs(int len, const mcs_real *a);
mcs_real mcs_statics_sum_sq(int len, const mcs_real *a);
/* c, A, f at x; the factorization of A^T (rank at most w->rank_max); lambda (least squares
 * unless keep_lambda) and rf = f - A^T lambda. Returns the status; *merit = |c|^2 +
 * (|rf| scale)^2. */
mcs_status mcs_statics_evaluate(const mcs_model *md, const void *p, const mcs_statics_options *opt,
                                statics_ws *w, const mcs_real *x, mcs_real *lambda, int keep_lambda,
                                mcs_real scale, mcs_real *merit);
/* K = K_f (+ K_c(lambda)) at x, v = 0. */
void mcs_statics_stiffness(const mcs_model *md, const void *p, const mcs_statics_options *opt,
                           statics_ws *w, const mcs_real *x, const mcs_real *lambda);
/* The caller's continued basis carried to the state last evaluated (mcs_statics_options.basis). */
mcs_status mcs_statics_continue_basis(const mcs_statics_options *opt, statics_ws *w);
/* dx (n): the minimum-norm step with A_S dx = -c_S at the state last evaluated. */
void mcs_statics_normal_step(statics_ws *w);
/* dx (n): the tangent-space Newton step (basis: the caller's continued T, or NULL: the QR's). */
mcs_status mcs_statics_tangent_step(statics_ws *w, const mcs_real *basis);
/* (dx, dlambda) ((n + m)): the saddle-point Newton step. */
mcs_status mcs_statics_kkt_step(statics_ws *w);

#endif /* MCS_STATICS_INTERNAL_H */
