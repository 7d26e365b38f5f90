/* mcs_config.h - compile-time options of the mcsgen runtime and of generated models.
 *
 * Options (define on the compiler command line, e.g. -DMCS_REAL_FLOAT):
 *   MCS_REAL_FLOAT        use float instead of double for every real number (Cortex-M4F class).
 *                         Math functions are then the float variants (sinf, sqrtf, ...): code
 *                         calls them as mcs_sin(x), mcs_sqrt(x), ... (plain names defined
 *                         below), so no double arithmetic slips in.
 *   MCS_LINALG_PORTABLE   use the self-contained linear algebra (no LAPACK), for firmware.
 *                         Default: LAPACKE _work routines backed by LAPACK/OpenBLAS.
 */
#ifndef MCS_CONFIG_H
#define MCS_CONFIG_H

#include <stddef.h>

#include <math.h>

#ifdef MCS_REAL_FLOAT
typedef float mcs_real;
/* a real literal: MCS_R(0.5) is 0.5f. Pasting the suffix (MISRA 20.10, a documented deviation)
 * rounds the decimal once, to float; a cast of the double literal would round it twice. */
#define MCS_R(lit) lit##f
#define mcs_sin sinf
#define mcs_cos cosf
#define mcs_tan tanf
#define mcs_asin asinf
#define mcs_acos acosf
#define mcs_atan atanf
#define mcs_atan2 atan2f
#define mcs_sinh sinhf
#define mcs_cosh coshf
#define mcs_tanh tanhf
#define mcs_exp expf
#define mcs_log logf
#define mcs_sqrt sqrtf
#define mcs_pow powf
#define mcs_fabs fabsf
#define mcs_floor floorf
#define mcs_ldexp ldexpf
#define MCS_REAL_EPS 1.1920929e-07f
#define MCS_REAL_MIN 1.17549435e-38f /* smallest normal: 1/x does not overflow from it on */
#else
typedef double mcs_real;
#define MCS_R(lit) lit
#define mcs_sin sin
#define mcs_cos cos
#define mcs_tan tan
#define mcs_asin asin
#define mcs_acos acos
#define mcs_atan atan
#define mcs_atan2 atan2
#define mcs_sinh sinh
#define mcs_cosh cosh
#define mcs_tanh tanh
#define mcs_exp exp
#define mcs_log log
#define mcs_sqrt sqrt
#define mcs_pow pow
#define mcs_fabs fabs
#define mcs_floor floor
#define mcs_ldexp ldexp
#define MCS_REAL_EPS 2.220446049250313e-16
#define MCS_REAL_MIN 2.2250738585072014e-308 /* smallest normal: 1/x does not overflow */
#endif

#define MCS_VERSION_STRING "0.1.0"

/* Parts of the runtime a firmware build may leave out: 1 (the default) compiles a part in, 0
 * leaves it out (not linked; options that need it get MCS_ERR_UNSUPPORTED from mcs_sim_init,
 * mcs_sim_assign and mcs_sim_step, and its entry points return it). scripts/firmware sets each
 * from the mechanism file's firmware: settings (docs/reference/firmware.md).
 *   MCS_WITH_DOP853         the DOP853 integrator (options.method), about 3 KiB of flash
 *   MCS_WITH_EVENTS         the singular-configuration search (options.sing_tol > 0)
 *   MCS_WITH_LOCKS          locks and unlocks (options.max_locks > 0, mcs_sim_lock, ...)
 *   MCS_WITH_PREDICTORS     the euler and exp continuation predictors (options.continuation)
 *   MCS_WITH_DENSE          the dense variant (options.variant MCS_VARIANT_DENSE, mcs_sim.h)
 *   MCS_WITH_COMPACT        the compact variant (MCS_VARIANT_COMPACT); one of the two at least
 *   MCS_WITH_BANDED         the banded variant (MCS_VARIANT_BANDED)
 *   MCS_WITH_IMPLICIT       the ROS34PW2 integrators (MCS_METHOD_ROS34PW2, _FIXED) and the
 *                           chart Jacobian they factor */
#ifndef MCS_WITH_DOP853
#define MCS_WITH_DOP853 1
#endif
#ifndef MCS_WITH_EVENTS
#define MCS_WITH_EVENTS 1
#endif
#ifndef MCS_WITH_LOCKS
#define MCS_WITH_LOCKS 1
#endif
#ifndef MCS_WITH_PREDICTORS
#define MCS_WITH_PREDICTORS 1
#endif
#ifndef MCS_WITH_DENSE
#define MCS_WITH_DENSE 1
#endif
#ifndef MCS_WITH_COMPACT
#define MCS_WITH_COMPACT 1
#endif
#ifndef MCS_WITH_BANDED
#define MCS_WITH_BANDED 1
#endif
#ifndef MCS_WITH_IMPLICIT
#define MCS_WITH_IMPLICIT 1
#endif
/* Smaller code for a little speed: MCS_SMALL_KERNELS 1 leaves out the dense products' wider
 * register blocks (4 rows at a time, column pairs, 2 x 2 dot products), the copies and the
 * predictor's sparse products four at a time and the two-direction alignment in registers: the
 * same sums in the same order, so the same results; on by default under -Os (GCC and Clang
 * define __OPTIMIZE_SIZE__): the firmware builds, 2.9 KiB of the slider-crank's flash. */
#ifndef MCS_SMALL_KERNELS
#ifdef __OPTIMIZE_SIZE__
#define MCS_SMALL_KERNELS 1
#else
#define MCS_SMALL_KERNELS 0
#endif
#endif
#if (MCS_WITH_DENSE == 0) && (MCS_WITH_COMPACT == 0)
#error "mcs_config.h: MCS_WITH_DENSE and MCS_WITH_COMPACT are both 0: no simulator left"
#endif

/* The largest number of coordinates, and of constraint rows plus lock rows, the runtime takes:
 * the workspace sizes of this order still fit an int (calls beyond it get MCS_ERR_ARGUMENT). */
#define MCS_MAX_DIM 4096

/* The most inputs u a model may have (mcs_sim_set_inputs; a simulator holds them in its struct,
 * MCS_MAX_INPUTS reals): a generated header whose model has more does not compile. 0 compiles
 * the inputs out (the firmware of a model without inputs: scripts/firmware defines it as the
 * model's <MODEL>_NU). */
#ifndef MCS_MAX_INPUTS
#define MCS_MAX_INPUTS 16
#endif

/* The most friction elements a model may have (mcs_sim_set_friction: a simulator holds their
 * forces in its struct): a generated header whose model has more does not compile. 0 compiles
 * friction out (scripts/firmware defines it as the model's <MODEL>_NFRICTION). */
#ifndef MCS_MAX_FRICTION
#define MCS_MAX_FRICTION 16
#endif

/* Real workspace that every linear-algebra call of either backend accepts for matrices of
 * order <= k (LAPACK's blocked routines with block size 64; the portable Jacobi SVD's 3 k^2).
 * Public because the workspace macros of mcs_basis.h and mcs_sim.h are built on it. */
#define MCS_LINALG_LWORK(k) ((3 * (k) * (k)) + MCS_LINALG_LWORK_QR(k))
/* The part the QR factorization and the forming of Q need (no SVD): LAPACK's dgeqp3 and dorgqr
 * with block size 64, or the portable backend's k. (Memory sized with one backend and used
 * with the other is at worst refused with MCS_ERR_WORKSPACE: mcs_sim_assign checks.) */
#ifdef MCS_LINALG_PORTABLE
#define MCS_LINALG_LWORK_QR(k) (k)
#else
#define MCS_LINALG_LWORK_QR(k) ((66 * ((k) + 1)) + (8 * (k)) + 16)
#endif

#endif /* MCS_CONFIG_H */
