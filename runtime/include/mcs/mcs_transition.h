/* mcs_transition.h - momentum-consistent velocity jumps when constraints are activated
 * (paper 004 §5, SPEC §7). A pure function on caller-owned arrays (column-major), usable
 * without a model: the simulator calls it at a transition event, tests call it directly.
 *
 * At the event the persistent rows J1 (m1 x n) stay and the rows J2 (m2 x n) are added. The jump
 * dv and the impulse Lambda2 of the new rows follow from momentum balance and the new velocity
 * constraints (U: an impulsive applied force, or NULL for none):
 *   MCS_JUMP_MINIMAL    004 eq. (37) with F1 = T, an orthonormal basis of null(J1) (the
 *                       continued tangent basis):  [[T'MT, T'J2'], [J2 T, 0]] (ds, L2) =
 *                       (T'U, -J2 T s-),  dv = T ds.  Solved by the null-space method with the
 *                       pivoted QR of (J2 T)': dependent rows (redundant locks, locks at a
 *                       singular configuration) get the minimum-norm impulse, which 004 leaves
 *                       to future work. The default.
 *   MCS_JUMP_FULL       004 eq. (24): [[M, J1', J2'], [J1, 0, 0], [J2, 0, 0]] (dv, L1, L2) =
 *                       (U, -J1 v-, -J2 v-) by LU; a cross-check, non-redundant rows only
 *                       (MCS_ERR_SINGULAR_CHART otherwise).
 *   MCS_JUMP_PROJECTED  004 eq. (32) with the mass-weighted null-space projector N of J1:
 *                       [[M, N'J2'], [J2 N, 0]] (dv, L2) = (U, -J2 v-); a cross-check,
 *                       non-redundant rows only.
 *   MCS_JUMP_NAIVE      no momentum balance ("zero the locked rates"): v+ is the orthogonal
 *                       projection of v- onto null([J1; J2]); for comparisons (004 Fig. 2).
 */
#ifndef MCS_TRANSITION_H
#define MCS_TRANSITION_H

#include "mcs_basis.h"
#include "mcs_config.h"
#include "mcs_status.h"

typedef enum mcs_jump_method {
    MCS_JUMP_MINIMAL = 0,
    MCS_JUMP_FULL = 1,
    MCS_JUMP_PROJECTED = 2,
    MCS_JUMP_NAIVE = 3
} mcs_jump_method;

/* What the jump did. */
typedef struct mcs_jump_report {
    int rank_new;  /* rank of J2 restricted to null(J1) (= m2 when nothing is redundant) */
    int dependent; /* rows of J2 that are dependent there: m2 - rank_new */
    int dof_after; /* f - rank_new: degrees of freedom left */
    mcs_real kinetic_before;
    mcs_real kinetic_after; /* 1/2 v' M v before and after */
    mcs_real impulse_norm;  /* |Lambda2|_2 (0 for MCS_JUMP_NAIVE) */
} mcs_jump_report;

/* Workspace (reals, ints) of mcs_jump for n coordinates, m1 persistent and m2 new rows. */
#define MCS_JUMP_K(n, m1, m2) ((n) + (m1) + (m2) + 1)
#define MCS_JUMP_WORK_SIZE(n, m1, m2) \
    ((5 * MCS_JUMP_K(n, m1, m2) * MCS_JUMP_K(n, m1, m2)) + (8 * MCS_JUMP_K(n, m1, m2)) + \
     MCS_BASIS_WORK_SIZE(MCS_JUMP_K(n, m1, m2), MCS_JUMP_K(n, m1, m2)))
#define MCS_JUMP_IWORK_SIZE(n, m1, m2) (2 * MCS_JUMP_K(n, m1, m2))

/* The velocity jump at an activation.
 * In:  M (n x n, ld n) symmetric positive definite; J1 (m1 x n, ld m1) or NULL when m1 = 0;
 *      T (n x f, ld n) orthonormal basis of null(J1) (used by MINIMAL and NAIVE; with m1 = 0 it
 *      may be any orthonormal basis of R^n, e.g. the identity); J2 (m2 x n, ld m2); v (n) the
 *      velocity before (J1 v = 0); U (n) or NULL; rank_tol as in mcs_qr_basis.
 * Out: dv (n) = v+ - v-; lambda2 (m2) the impulse of the new rows (minimum norm when they are
 *      dependent; 0 for NAIVE); report (may be NULL).
 * Returns MCS_OK, MCS_ERR_ARGUMENT, MCS_ERR_MASS_NOT_PD, MCS_ERR_SINGULAR_CHART (FULL or
 * PROJECTED with dependent rows) or MCS_ERR_LINALG. */
mcs_status mcs_jump(mcs_jump_method method, int n, const mcs_real *M, int m1, const mcs_real *J1,
                    int f, const mcs_real *T, int m2, const mcs_real *J2, const mcs_real *v,
                    const mcs_real *U, mcs_real rank_tol, mcs_real *dv, mcs_real *lambda2,
                    mcs_jump_report *report, mcs_real *work, size_t work_len, int *iwork,
                    size_t iwork_len);

#endif /* MCS_TRANSITION_H */
