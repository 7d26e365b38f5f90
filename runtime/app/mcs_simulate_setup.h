/* mcs_simulate_setup.h - the command-line simulator's run set up before it starts: the checks
 * of the options and of the run's size, and the simulator it takes (--simulator: the default
 * one in the program's static workspace, or the banded one in a block of its own size).
 * Application code: it may print, allocate and exit. Model-independent. */
#ifndef MCS_SIMULATE_SETUP_H
#define MCS_SIMULATE_SETUP_H

#include "mcs/mcs_sim.h"
#include "mcs_simulate_args.h"

/* The name of the first method (mcs_method's order) whose error control and implicitness are
 * those of `flags` (MCS_METHOD_FLAG_ADAPTIVE, MCS_METHOD_FLAG_IMPLICIT; the others ignored): what
 * a message suggests instead of a method. */
const char *method_like(unsigned flags);
/* Dies with "--<option> must be <rule>, got <value>" unless ok. */
void require(int ok, const char *option, const char *rule, double value);
/* Refuses, before the run, what would not end in reasonable time: more fixed steps or more output
 * rows than --max-steps. */
void check_run_size(const app_args *app, const mcs_options *opt);
/* Why this run cannot take the banded simulator (the message of --simulator banded, from the
 * runtime's refusals of the options it would run with: mcs_sim_refusals), or NULL. */
const char *banded_refusal(const mcs_model *md, const mcs_options *opt, const app_args *app);
/* The simulator --simulator asks for, bound to the model (dies when it cannot be): the dense
 * variant in work/iwork (room for every option), or the banded one (MCS_VARIANT_BANDED, and its
 * events, dense output and locks off) in a block of its own size. */
void setup_simulator(mcs_sim *sim, const mcs_model *md, const void *params, mcs_options *opt,
                     const app_args *app, mcs_real *work, size_t work_len, int *iwork,
                     size_t iwork_len);

#endif /* MCS_SIMULATE_SETUP_H */
