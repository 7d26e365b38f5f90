/* mcs_firmware_example.c - the smallest complete use of a generated solver on a microcontroller:
 * all memory static (sized by the generated macros), no heap, no I/O of its own. It runs the
 * model from the file's initial state to the descriptor's t_end in steps of h with the
 * descriptor's settings (for a firmware build, mcsgen generate --firmware: the file's
 * `firmware:` section, by default RK4 with continuation none) and hands the end to the board
 * (mcs_board.h: under QEMU, firmware/, it prints the state and exits). Built by `make firmware`
 * for a Cortex-M4F (float, -Os, portable linear algebra) and run under QEMU's mps2-an386; checked
 * by `make misra` with the runtime. Compile with -include <name>.h and
 *   -DMCS_APP_NX=<NAME>_NX -DMCS_APP_NC=<NAME>_NC
 *   -DMCS_APP_MODEL=<name>_model -DMCS_APP_PARAMS=<name>_default_params */
#include "mcs/mcs_sim.h"
#include "mcs_board.h"

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
    long steps = 0;
    long k;
    int i;
    status = mcs_options_default(&opt, &MCS_APP_MODEL);
    if (status == MCS_OK) {
        status = mcs_sim_init(&sim, &MCS_APP_MODEL, &MCS_APP_PARAMS, &opt, work, work_len, iwork,
                              iwork_len);
    }
    if (status == MCS_OK) {
        status = mcs_sim_start(&sim, MCS_R(0.0), NULL);
        /* the number of steps of h to t_end, rounded to the nearest */
        const mcs_real rounded = (MCS_APP_MODEL.t_end / opt.h) + MCS_R(0.5);
        steps = (long)rounded;
    }
    for (k = 1; (k <= steps) && (status == MCS_OK); ++k) {
        /* the last target is t_end itself, not k h rounded */
        const mcs_real t_target = (k == steps) ? MCS_APP_MODEL.t_end : ((mcs_real)k * opt.h);
        status = mcs_sim_advance(&sim, t_target);
        for (i = 0; i < MCS_APP_NX; ++i) {
            firmware_x[i] = sim.cur.x[i];
        }
    }
    firmware_status = (int)status;
    mcs_board_report(status, &sim);
    for (;;) {
        /* a controller's main loop would run here */
    }
}
