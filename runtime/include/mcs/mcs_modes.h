/* mcs_modes.h - linearization about an equilibrium and its vibration modes (SPEC §8, 003 §4).
 *
 * With the tangent basis T (n x f) of A at the equilibrium x (f = n - rank), the motion
 * x = x_eq + T eta obeys
 *     (T^T M T) eta'' + (T^T D T) eta' + T^T (K_f + K_c(lambda)) T eta = 0.
 * Undamped with a symmetric reduced stiffness (conservative forces: K_c is a Hessian in our
 * coordinates, so it is symmetric): the symmetric-definite problem K_r phi = mu M_r phi through
 * the Cholesky factor of M_r and a symmetric eigensolver (both backends). Damped, or a stiffness
 * that is not symmetric (follower loads): the first-order pencil
 *     s [[I, 0], [0, M_r]] z = [[0, I], [-K_r, -D_r]] z,   z = (eta, s eta),
 * by the general generalized eigensolver - LAPACK backend only (MCS_ERR_UNSUPPORTED otherwise).
 * Mode shapes are mapped back to x (T eta), scaled so the entry of largest magnitude is exactly
 * 1, and sorted by |s|. Nothing is allocated (MCS_MODES_WORK_SIZE, MCS_MODES_IWORK_SIZE).
 */
#ifndef MCS_MODES_H
#define MCS_MODES_H

#include "mcs_basis.h"
#include "mcs_config.h"
#include "mcs_model.h"
#include "mcs_status.h"

typedef struct mcs_modes_options {
    int use_kc;            /* 1: the stiffness includes K_c (default); 0 leaves it out */
    int damped;            /* 1: include D (first-order form); 0: undamped (default) */
    mcs_real rank_tol;     /* rank of A (default 1e-9) */
    mcs_real sym_tol;      /* max |K_r - K_r^T| / max |K_r| treated as symmetric (1e-8) */
    mcs_real t;            /* time of the kernels (velocities are zero) */
    const mcs_real *basis; /* optional T (n x f, orthonormal columns spanning the null space
                                of A); NULL: the pivoted-QR basis at x */
    int basis_cols;        /* f of that basis */
} mcs_modes_options;

typedef enum mcs_mode_kind {
    MCS_MODE_OSCILLATING = 0, /* a complex pair (or, undamped, +-i omega) */
    MCS_MODE_UNSTABLE = 1,    /* a real positive eigenvalue (e.g. the upright pendulum) */
    MCS_MODE_DECAYING = 2,    /* a real negative eigenvalue (overdamped) */
    MCS_MODE_RIGID = 3        /* s = 0 within rounding: no stiffness along this motion */
} mcs_mode_kind;

typedef struct mcs_mode {
    mcs_real re; /* the eigenvalue s = re + i im (of a pair: the one with im >= 0; undamped
                    real pair: the positive one) */
    mcs_real im;
    mcs_real omega; /* |s| (rad/s): the natural frequency of an oscillating mode */
    mcs_real freq;  /* im / (2 pi) (Hz): the damped frequency (undamped: omega / 2 pi) */
    mcs_real zeta;  /* damping ratio -re / |s| (0 undamped) */
    int kind;       /* an mcs_mode_kind */
} mcs_mode;

typedef struct mcs_modes_report {
    int rank;           /* rank of A at x */
    int dof;            /* f = n - rank */
    int nmodes;         /* modes written */
    int symmetric;      /* 1: symmetric-definite route; 0: first-order pencil */
    int rigid;          /* modes with s = 0 (all of them when the stiffness is zero) */
    mcs_real stiffness; /* max |K_r| (0: the reduced stiffness vanishes, 003 §4.1 without K_c) */
    mcs_real asymmetry; /* max |K_r - K_r^T| / max |K_r| */
} mcs_modes_report;

#define MCS_MODES_WORK_SIZE(n, m) \
    ((19 * (n) * (n)) + (2 * (n) * (m)) + (12 * (n)) + (m) + 8 + MCS_LINALG_LWORK(2 * (n)) + \
     MCS_BASIS_WORK_SIZE(n, m))
#define MCS_MODES_IWORK_SIZE(n, m) ((m) + (2 * (n)) + 2 + MCS_BASIS_IWORK_SIZE(n, m))

void mcs_modes_defaults(mcs_modes_options *opt);
size_t mcs_modes_work_size(const mcs_model *model);
size_t mcs_modes_iwork_size(const mcs_model *model);

/* The modes at x (nx) with multipliers lambda (nc), e.g. from mcs_statics_solve.
 * Out: modes (capacity 2 nx), shapes (nx x 2nx, column j = mode j in x, real part), shapes_im
 * (same, imaginary part; may be NULL; zero for undamped modes), report (may be NULL).
 * Returns MCS_OK; MCS_ERR_MASS_NOT_PD when T^T M T is not positive definite (symmetric route);
 * MCS_ERR_UNSUPPORTED for the pencil on the portable backend; MCS_ERR_LINALG, MCS_ERR_NONFINITE,
 * MCS_ERR_ARGUMENT, MCS_ERR_WORKSPACE, MCS_ERR_MODEL_VERSION. */
mcs_status mcs_modes_solve(const mcs_model *model, const void *params, const mcs_modes_options *opt,
                           const mcs_real *x, const mcs_real *lambda, mcs_modes_report *report,
                           mcs_mode *modes, mcs_real *shapes, mcs_real *shapes_im, mcs_real *work,
                           size_t work_len, int *iwork, size_t iwork_len);

#endif /* MCS_MODES_H */
