/* mcs_firmware_example.c - the smallest complete use of a generated solver on a microcontroller:
 * all memory static (sized by the generated macros), no heap, no I/O. Built by `make firmware`
 * for a Cortex-M4F (float, -Os, portable linear algebra) to measure flash and RAM.
 * Compile with -DMCS_APP_MODEL=<name> -DMCS_APP_NX=<NAME>_NX -DMCS_APP_NC=<NAME>_NC
 * -include <name>.h, like the simulator. */
#include "mcs/mcs_sim.h"

#define CAT2(a, b) a##b
#define CAT(a, b) CAT2(a, b)
#define MODEL CAT(MCS_APP_MODEL, _model)
#define DEFAULTS CAT(MCS_APP_MODEL, _default_params)

static mcs_real work[MCS_SIM_WORK_SIZE(MCS_APP_NX, MCS_APP_NC)];
static int iwork[MCS_SIM_IWORK_SIZE(MCS_APP_NX, MCS_APP_NC)];
static mcs_sim sim;

/* What a controller would read: the state after each call, and the last status. */
volatile mcs_real firmware_x[MCS_APP_NX];
volatile int firmware_status;

int main(void)
{
    mcs_options opt;
    int i, k;
    mcs_options_default(&opt, &MODEL);
    opt.method = MCS_METHOD_RK4;
    firmware_status =
        (int)mcs_sim_init(&sim, &MODEL, &DEFAULTS, &opt, work, sizeof work / sizeof *work, iwork,
                          sizeof iwork / sizeof *iwork);
    if (firmware_status == MCS_OK)
        firmware_status = (int)mcs_sim_set_state(&sim, 0, MODEL.x0, MODEL.v0, 0);
    for (k = 1; k <= 1000 && firmware_status == MCS_OK; ++k) {
        firmware_status = (int)mcs_sim_advance(&sim, (mcs_real)k * opt.h);
        for (i = 0; i < MCS_APP_NX; ++i)
            firmware_x[i] = sim.cur.x[i];
    }
    for (;;) {
    }
}
