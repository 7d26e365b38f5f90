/* mcs_method.c - the one switch of each operation whose code is the method's own (options.method;
 * what each method is, as data, is mcs_method_table.c's): its attempt and its interpolant, in its
 * file (mcs_rk4.c, mcs_dopri5.c, mcs_dop853.c, mcs_rosenbrock.c). A method left out of the build
 * (mcs_config.h's MCS_WITH_*) falls to the default case: the options' check refuses it first. */

#include "sim/mcs_methods.h"

mcs_status mcs_method_attempt(mcs_sim *s, mcs_method method, mcs_real h, mcs_real *err)
{
    switch (method) {
    case MCS_METHOD_RK4: *err = MCS_R(0.0); return mcs_rk4_attempt(s, h);
    case MCS_METHOD_DOPRI5: return mcs_dopri5_attempt(s, h, err);
#if MCS_WITH_DOP853
    case MCS_METHOD_DOP853: return mcs_dop853_attempt(s, h, err);
#endif
#if MCS_WITH_IMPLICIT
    case MCS_METHOD_ROS34PW2: return mcs_ros34pw2_attempt(s, h, 1, err);
    case MCS_METHOD_ROS34PW2_FIXED: return mcs_ros34pw2_attempt(s, h, 0, err);
#endif
    default: return MCS_ERR_UNSUPPORTED; /* left out of this build: the options' check refuses it */
    }
}

mcs_status mcs_method_interpolate(mcs_sim *s, mcs_method method, mcs_real th, mcs_real *y)
{
    switch (method) {
    case MCS_METHOD_RK4: return mcs_rk4_interpolate(s, th, y);
    case MCS_METHOD_DOPRI5: return mcs_dopri5_interpolate(s, th, y);
#if MCS_WITH_DOP853
    case MCS_METHOD_DOP853: return mcs_dop853_interpolate(s, th, y);
#endif
#if MCS_WITH_IMPLICIT
    /* ROS34PW2's stages are not an interpolant's: the cubic Hermite of its ends, as RK4's
     * (positions of order 3, its own order) */
    case MCS_METHOD_ROS34PW2: return mcs_rk4_interpolate(s, th, y);
    case MCS_METHOD_ROS34PW2_FIXED: return mcs_rk4_interpolate(s, th, y);
#endif
    default: return MCS_ERR_NO_DENSE;
    }
}
