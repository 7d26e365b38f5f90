/* mcs_method.c - the integrators as data (options.method, mcs_sim.h): one constant descriptor per
 * method that the step policy, the dense output and the memory read, and the one switch each of
 * the two operations whose code is the method's own (its attempt and its interpolant, in its
 * file: mcs_rk4.c, mcs_dopri5.c, mcs_dop853.c, mcs_rosenbrock.c). A method is added by an entry here, its file,
 * and the options' list (generator/mcsgen/enums.py). */

#include "sim/mcs_sim_internal.h"

const mcs_method_info mcs_methods[MCS_METHOD_COUNT] = {
    /* RK4: fixed step on its grid; its nodes are 0, 1/2, 1: a crossing placed at 1/4 is h/4
     * from each neighbour */
    {"rk4", 0, 4, MCS_R(0.0), 0, MCS_R(0.25), MCS_METHOD_RK4, MCS_R(1.0), 0U},
    /* DOPRI5: error control with q = 5 (the step factor 0.9 err^(-1/5)), first same as last;
     * its nodes 0, 1/5, 3/10, 4/5, 8/9, 1: 0.55 is the middle of the widest gap */
    {"dopri5", 1, 7, MCS_R(-0.2), 1, MCS_R(0.55), MCS_METHOD_DOPRI5, MCS_R(1.0), MCS_MEM_DOPRI5},
    /* DOP853: q = 8; twelve stages, the end and three dense ones; near a singular configuration
     * its steps are DOPRI5's, from a quarter of its own step (docs/explanation/integrators.md) */
    {"dop853", 1, 16, MCS_R(-0.125), 1, MCS_R(0.55), MCS_METHOD_DOPRI5, MCS_R(0.25),
     MCS_MEM_DOP853},
    /* ROS34PW2: q = 3 (its embedded solution is of order 2: err ~ h^3); four stages; its nodes
     * 0, 0.73, 0.87, 1: 0.37 is the middle of the widest gap. Stiff in q across a singular
     * configuration is what an L-stable method takes in its stride: it keeps its own steps. */
    {"ros34pw2", 1, 4, MCS_R(-1.0) / MCS_R(3.0), 0, MCS_R(0.37), MCS_METHOD_ROS34PW2, MCS_R(1.0),
     MCS_MEM_IMPLICIT},
    /* the same on the grid of options.h: one Jacobian, one LU and four evaluations a step */
    {"ros34pw2_fixed", 0, 4, MCS_R(0.0), 0, MCS_R(0.37), MCS_METHOD_ROS34PW2_FIXED, MCS_R(1.0),
     MCS_MEM_IMPLICIT},
};

const char *mcs_method_name(mcs_method method)
{
    return ((unsigned)method < (unsigned)MCS_METHOD_COUNT) ? mcs_methods[method].name : NULL;
}

int mcs_method_compiled_in(mcs_method method)
{
    switch (method) {
    case MCS_METHOD_RK4: return 1;
    case MCS_METHOD_DOPRI5: return 1;
    case MCS_METHOD_DOP853: return MCS_WITH_DOP853;
    case MCS_METHOD_ROS34PW2: return MCS_WITH_IMPLICIT;
    case MCS_METHOD_ROS34PW2_FIXED: return MCS_WITH_IMPLICIT;
    default: return 0; /* no method */
    }
}

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
    default: return MCS_ERR_UNSUPPORTED; /* left out of this build: mcs_sim_check refuses it */
    }
}

mcs_status mcs_method_dense(mcs_sim *s, mcs_method method, mcs_real th, mcs_real *y)
{
    switch (method) {
    case MCS_METHOD_RK4: return mcs_rk4_dense(s, th, y);
    case MCS_METHOD_DOPRI5: return mcs_dopri5_dense(s, th, y);
#if MCS_WITH_DOP853
    case MCS_METHOD_DOP853: return mcs_dop853_dense(s, th, y);
#endif
#if MCS_WITH_IMPLICIT
    /* ROS34PW2's stages are not an interpolant's: the cubic Hermite of its ends, as RK4's
     * (positions of order 3, its own order) */
    case MCS_METHOD_ROS34PW2: return mcs_rk4_dense(s, th, y);
    case MCS_METHOD_ROS34PW2_FIXED: return mcs_rk4_dense(s, th, y);
#endif
    default: return MCS_ERR_NO_DENSE;
    }
}
