/* mcs_firmware_example.c - the smallest complete use of a generated solver on a microcontroller:
 * all memory static (sized by the generated macros), no heap, no I/O. Built by `make firmware`
 * for a Cortex-M4F (float, -Os, portable linear algebra) to measure flash and RAM, and checked
 * by `make misra` with the runtime. Compile with -include <name>.h and
 *   -DMCS_APP_NX=<NAME>_NX -DMCS_APP_NC=<NAME>_NC
 *   -DMCS_APP_MODEL=<name>_model -DMCS_APP_PARAMS=<name>_default_params */
#include "mcs/mcs_sim.h"

/* What a controller would read: the state after each call, and the last status (volatile, so
 * the writes stay in the image). */
static volatile mcs_real firmware_x[MCS_APP_NX];
static volatile int firmware_status;

int main(void)
{
    static mcs_real work[MCS_SIM_WORK_SIZE(MCS_APP_NX, MCS_APP_NC)];
    static int iwork[MCS_SIM_IWORK_SIZE(MCS_APP_NX, MCS_APP_NC)];
    static mcs_sim sim;
    const size_t work_len = sizeof(work) / sizeof(work[0]);
    const size_t iwork_len = sizeof(iwork) / sizeof(iwork[0]);
    mcs_options opt;
    mcs_status status;
    int i;
    int k;
    status = mcs_options_default(&opt, &MCS_APP_MODEL);
    opt.method = MCS_METHOD_RK4;
    if (status == MCS_OK) {
        status = mcs_sim_init(&sim, &MCS_APP_MODEL, &MCS_APP_PARAMS, &opt, work, work_len, iwork,
                              iwork_len);
    }
    if (status == MCS_OK) {
        status = mcs_sim_start(&sim, MCS_R(0.0), NULL);
    }
    for (k = 1; (k <= 1000) && (status == MCS_OK); ++k) {
        const mcs_real t_target = (mcs_real)k * opt.h;
        status = mcs_sim_advance(&sim, t_target);
        for (i = 0; i < MCS_APP_NX; ++i) {
            firmware_x[i] = sim.cur.x[i];
        }
    }
    firmware_status = (int)status;
    for (;;) {
        /* a controller's main loop would run here */
    }
}
