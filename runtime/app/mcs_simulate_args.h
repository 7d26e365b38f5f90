/* mcs_simulate_args.h - the command-line simulator's options: parsed with the table generated
 * from generator/mcsgen/options.py (mcs_options_table.h). Application code: it may print and
 * exit. Model-independent. */
#ifndef MCS_SIMULATE_ARGS_H
#define MCS_SIMULATE_ARGS_H

#include "mcs/mcs_sim.h"
#include "mcs_app_util.h"
#include "mcs_simulate_output.h"

/* A lock or unlock at a given time (--lock, --unlock, the model file's timed events). */
typedef struct app_event {
    mcs_real t;
    int key; /* what: a coordinate j, or nx + a row group of the model (a joint, a switch) */
    int lock;
} app_event;

#define MAX_EVENTS 64

/* A coordinate of the initial state given on the command line (--x0 NAME=VALUE, --v0): the
 * file's initial state for the parameters, with these values, made consistent by
 * mcs_sim_set_state (start_state). */
typedef struct app_state_set {
    int j;    /* the coordinate */
    int rate; /* 1: its velocity (--v0), 0: its position (--x0) */
    mcs_real value;
} app_state_set;

#define MAX_STATE_SETS 256

/* --simulator's choices, in options.py's order */
enum { APP_SIM_AUTO = 0, APP_SIM_DENSE = 1, APP_SIM_BANDED = 2 };
/* --simulator auto takes the banded simulator from this many coordinates (options.py's
 * BANDED_FROM, through the generated table) */
extern const int app_banded_from;

/* What the command line asks for beyond mcs_options. */
typedef struct app_args {
    mcs_real t_end, dt_out;
    long max_steps; /* --max-steps: the run's accepted steps and its rows (set from options) */
    const char *out_path, *events_path;
    const char *inputs_path; /* --inputs FILE.csv, or NULL */
    mcs_jump_method transition;
    int simulator; /* --simulator: APP_SIM_AUTO, _DENSE or _BANDED */
    int nevents;
    app_event events[MAX_EVENTS];
    int nconds; /* condition events of the model (indices into its events) */
    int conds[MAX_EVENTS];
    int fired[MAX_EVENTS]; /* a condition event fires once */
    int nsets;             /* --x0 and --v0 given */
    app_state_set sets[MAX_STATE_SETS];
} app_args;

/* Adds a lock (lock = 1) or unlock of `key` (app_event) at time t, keeping the events in time
 * order (stable for equal times). */
void add_event_at(app_args *app, mcs_real t, int key, int lock);
/* The run's initial state at t = 0: the file's for the parameters (mcs_sim_start), with the
 * coordinates --x0 and --v0 set (x, v: (n) scratch) and then made consistent by
 * mcs_sim_set_state (positions assembled onto the constraints, velocities onto their rows;
 * report says how far). */
mcs_status start_state(mcs_sim *sim, const app_args *app, mcs_real *x, mcs_real *v,
                       mcs_assembly *report);
/* Parses argv into the options, the simulator's own arguments, the output flags (ri) and the
 * parameters (params: the model's parameter struct, written through md->param_offsets). */
void parse_args(int argc, char **argv, mcs_options *opt, app_args *app, run_info *ri,
                const mcs_model *md, void *params);

#endif /* MCS_SIMULATE_ARGS_H */
