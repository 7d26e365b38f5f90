/* mcs_method_table.c - the integrators as data (options.method, mcs_sim.h): one constant
 * descriptor per method that the options, the step policy, the interpolation and the memory read
 * (its flags, stages, error exponent, step placement near a singular configuration, memory and
 * part). The methods' code is in their files, reached through mcs_method.c's switches. A method is
 * added by an entry here, its file, its cases there, and the options' list (generator/mcsgen/enums.py)
 * with its flags, which tests/generator/test_enums.py holds to this table. */

#include "sim/mcs_core.h"

const mcs_method_info mcs_methods[MCS_METHOD_COUNT] = {
    /* RK4: fixed step on its grid; its nodes are 0, 1/2, 1: a crossing placed at 1/4 is h/4
     * from each neighbour; the one method whose step mcs_sim_step_jacobian differentiates */
    {"rk4", MCS_METHOD_FLAG_STEP_JACOBIAN, 4, MCS_R(0.0), MCS_R(0.25), MCS_METHOD_RK4, MCS_R(1.0),
     0U, 0U},
    /* DOPRI5: error control with q = 5 (the step factor 0.9 err^(-1/5)), first same as last;
     * its nodes 0, 1/5, 3/10, 4/5, 8/9, 1: 0.55 is the middle of the widest gap; its last two
     * stages, both at the step's end, give Hairer's stiffness test (mcs_dopri5.c) */
    {"dopri5", MCS_METHOD_FLAG_ADAPTIVE | MCS_METHOD_FLAG_FSAL | MCS_METHOD_FLAG_STIFFNESS_TEST, 7,
     MCS_R(-0.2), MCS_R(0.55), MCS_METHOD_DOPRI5, MCS_R(1.0), MCS_MEM_DOPRI5, 0U},
    /* DOP853: q = 8; twelve stages, the end and three for its interpolant, evaluated when it is
     * first asked for; near a singular configuration its steps are DOPRI5's, from a quarter of its
     * own step (docs/explanation/integrators.md) */
    {"dop853", MCS_METHOD_FLAG_ADAPTIVE | MCS_METHOD_FLAG_FSAL | MCS_METHOD_FLAG_LAZY_STAGES, 16,
     MCS_R(-0.125), MCS_R(0.55), MCS_METHOD_DOPRI5, MCS_R(0.25), MCS_MEM_DOP853, MCS_PART_DOP853},
    /* ROS34PW2: q = 3 (its embedded solution is of order 2: err ~ h^3); four stages; its nodes
     * 0, 0.73, 0.87, 1: 0.37 is the middle of the widest gap. Stiff in q across a singular
     * configuration is what an L-stable method takes in its stride: it keeps its own steps. */
    {"ros34pw2", MCS_METHOD_FLAG_ADAPTIVE | MCS_METHOD_FLAG_IMPLICIT, 4, MCS_R(-1.0) / MCS_R(3.0),
     MCS_R(0.37), MCS_METHOD_ROS34PW2, MCS_R(1.0), MCS_MEM_IMPLICIT, MCS_PART_IMPLICIT},
    /* the same on the grid of options.h: one Jacobian, one LU and four evaluations a step */
    {"ros34pw2_fixed", MCS_METHOD_FLAG_IMPLICIT, 4, MCS_R(0.0), MCS_R(0.37),
     MCS_METHOD_ROS34PW2_FIXED, MCS_R(1.0), MCS_MEM_IMPLICIT, MCS_PART_IMPLICIT},
};

const char *mcs_method_name(mcs_method method)
{
    return ((unsigned)method < (unsigned)MCS_METHOD_COUNT) ? mcs_methods[method].name : NULL;
}

unsigned mcs_method_flags(mcs_method method)
{
    return ((unsigned)method < (unsigned)MCS_METHOD_COUNT) ? mcs_methods[method].flags : 0U;
}

int mcs_method_has(mcs_method method, unsigned flag)
{
    return ((mcs_method_flags(method) & flag) != 0U) ? 1 : 0;
}
