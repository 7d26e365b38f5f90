/* main.c - the consumer project's program: the spatial pendulum of models/ for 1 s in memory
 * sized at compile time (mcs_sim_assign), the end state and |c| printed, exit 0 when the run
 * is OK. */
#include <stdio.h>

#include "mcs/mcs_sim.h"
#include "spatial_pendulum.h"

int main(void)
{
    static mcs_real memory[SPATIAL_PENDULUM_SIM_MEMORY(0, MCS_MEM_ALL & ~MCS_MEM_EULER)];
    static mcs_sim sim;
    mcs_options opt;
    mcs_real c_norm = -1;
    mcs_status st = mcs_options_default(&opt, &spatial_pendulum_model);
    if (st == MCS_OK)
        st = mcs_sim_assign(&sim, &spatial_pendulum_model, &spatial_pendulum_default_params, &opt,
                            memory, sizeof memory);
    if (st == MCS_OK)
        st = mcs_sim_start(&sim, 0, NULL);
    if (st == MCS_OK)
        st = mcs_sim_advance(&sim, 1);
    if (st == MCS_OK)
        st = mcs_sim_constraint_norm(&sim, &c_norm);
    printf("%s %s %.9g %.9g %.9g %.3g\n", mcs_status_str(st), SPATIAL_PENDULUM_KERNELS,
           (double)sim.cur.x[0], (double)sim.cur.x[1], (double)sim.cur.x[2], (double)c_norm);
    return st == MCS_OK ? 0 : 1;
}
