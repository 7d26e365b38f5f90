/* mcs_config.h - compile-time options of the mcsgen runtime and of generated models.
 *
 * Options (define on the compiler command line, e.g. -DMCS_REAL_FLOAT):
 *   MCS_REAL_FLOAT        use float instead of double for every real number (Cortex-M4F class).
 *                         Math functions are then the float variants (sinf, sqrtf, ...): code
 *                         calls them as MCS_FN(sin)(x), so no double arithmetic slips in.
 *   MCS_LINALG_PORTABLE   use the self-contained linear algebra (no LAPACK), for firmware.
 *                         Default: LAPACKE _work routines backed by LAPACK/OpenBLAS.
 */
#ifndef MCS_CONFIG_H
#define MCS_CONFIG_H

#include <stddef.h>

#include <math.h>

#ifdef MCS_REAL_FLOAT
typedef float mcs_real;
#define MCS_R(lit) lit##f    /* a real literal: MCS_R(0.5) is 0.5f */
#define MCS_FN(name) name##f /* a <math.h> function of mcs_real: MCS_FN(sqrt) is sqrtf */
#define MCS_REAL_EPS 1.1920929e-07f
#else
typedef double mcs_real;
#define MCS_R(lit) lit
#define MCS_FN(name) name
#define MCS_REAL_EPS 2.220446049250313e-16
#endif

#define MCS_VERSION_STRING "0.1.0"

/* The largest number of coordinates, and of constraint rows plus lock rows, the runtime takes:
 * the workspace sizes of this order still fit an int (calls beyond it get MCS_ERR_ARGUMENT). */
#define MCS_MAX_DIM 4096

/* Real workspace that every linear-algebra call of either backend accepts for matrices of
 * order <= k (LAPACK's blocked routines with block size 64; the portable Jacobi SVD's 3 k^2).
 * Public because the workspace macros of mcs_basis.h and mcs_sim.h are built on it. */
#define MCS_LINALG_LWORK(k) (3 * (k) * (k) + 66 * ((k) + 1) + 8 * (k) + 16)

#endif /* MCS_CONFIG_H */
