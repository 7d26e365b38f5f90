/* mcs_firmware_example.c - the smallest complete use of a generated solver on a microcontroller:
 * all memory static (sized by the generated macros), no heap, no I/O of its own. It runs the
 * model from the file's initial state to the descriptor's t_end in steps of h with the
 * descriptor's settings (for a firmware build, mcsgen generate --firmware: the file's
 * `firmware:` section, by default RK4 with continuation none) and hands the end to the board
 * (mcs_board.h: under QEMU, firmware/, it prints the state and exits). Built by `make firmware`
 * for a Cortex-M4F (float, -Os, portable linear algebra) and run under QEMU's mps2-an386; checked
 * by `make misra` with the runtime. Compile with -include <name>.h and
 *   -DMCS_APP_NX=<NAME>_NX -DMCS_APP_SIM_MEMORY=<NAME>_SIM_MEMORY
 *   -DMCS_APP_MAX_DOF=<NAME>_FIRMWARE_MAX_DOF -DMCS_APP_FEATURES=<NAME>_FIRMWARE_FEATURES
 *   -DMCS_APP_MODEL=<name>_model -DMCS_APP_PARAMS=<name>_default_params */
#include "mcs/mcs_sim.h"
#include "mcs_board.h"

/* What a controller would read: the state after each call, and the last status (volatile, so
 * the writes stay in the image). */
static volatile mcs_real firmware_x[MCS_APP_NX];
static volatile int firmware_status;

int main(void)
{
    /* exactly what these options use (mcs_sim_assign), sized at compile time */
    static mcs_real memory[MCS_APP_SIM_MEMORY(MCS_APP_MAX_DOF, MCS_APP_FEATURES)];
    static mcs_sim sim;
    static mcs_real tick_x[MCS_APP_NX];
    static mcs_real tick_v[MCS_APP_NX];
    mcs_options opt;
    mcs_status status;
    long steps = 0;
    long k;
    int i;
    status = mcs_options_default(&opt, &MCS_APP_MODEL);
    opt.dense_output = 0;
    opt.max_dof = MCS_APP_MAX_DOF;
    if ((MCS_APP_FEATURES & MCS_MEM_EVENTS) == 0U) {
        opt.sing_tol = MCS_R(0.0); /* no singular-configuration search */
    }
    if ((MCS_APP_FEATURES & MCS_MEM_COMPACT) != 0U) {
        opt.variant = MCS_VARIANT_COMPACT; /* the compact variant (mcs_sim.h) */
    }
    if (status == MCS_OK) {
        status = mcs_sim_assign(&sim, &MCS_APP_MODEL, &MCS_APP_PARAMS, &opt, memory, sizeof memory);
    }
    if (status == MCS_OK) {
        status = mcs_sim_start(&sim, MCS_R(0.0), NULL);
        /* the number of steps of h to t_end, rounded to the nearest */
        const mcs_real rounded = (MCS_APP_MODEL.t_end / opt.h) + MCS_R(0.5);
        steps = (long)rounded;
    }
    /* A controller's tick every h: the solver steps on towards t_end (its steps, placed across
     * a singular configuration, need not end on a tick) and the tick's state is the step's end
     * when one ends on it, else the dense output of the step that covers it. */
    for (k = 1; (k <= steps) && (status == MCS_OK); ++k) {
        /* the last tick is t_end itself, not k h rounded */
        const mcs_real t_tick = (k == steps) ? MCS_APP_MODEL.t_end : ((mcs_real)k * opt.h);
        while ((status == MCS_OK) && (sim.cur.t < t_tick)) {
            status = mcs_sim_step(&sim, MCS_APP_MODEL.t_end);
        }
        /* At a singular configuration itself the chart cannot be evaluated (in float, within
         * a few microseconds of it): that tick keeps the last reading, the run goes on. */
        if ((status == MCS_OK) && (sim.cur.t == t_tick)) {
            for (i = 0; i < MCS_APP_NX; ++i) {
                firmware_x[i] = sim.cur.x[i];
            }
        } else if ((status == MCS_OK) &&
                   (mcs_sim_dense(&sim, t_tick, tick_x, tick_v, NULL, NULL) == MCS_OK)) {
            for (i = 0; i < MCS_APP_NX; ++i) {
                firmware_x[i] = tick_x[i];
            }
        } else {
            /* no reading at this tick */
        }
    }
    firmware_status = (int)status;
    mcs_board_report(status, &sim);
    for (;;) {
        /* a controller's main loop would run here */
    }
}
