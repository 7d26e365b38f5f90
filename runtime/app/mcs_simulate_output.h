/* mcs_simulate_output.h - what the command-line simulator writes: the CSV of a run (one column
 * list for its header and its rows), the JSON event log, the JSON summary on stdout, and the
 * progress bar. Application code (it prints); model-independent. */
#ifndef MCS_SIMULATE_OUTPUT_H
#define MCS_SIMULATE_OUTPUT_H

#include <stdio.h>
#include <time.h>

#include "mcs/mcs_sim.h"
#include "mcs/mcs_stops.h"

#define RUN_MAX_TRANSITIONS 64

/* The in-process receiver of the simulator's text (mcs_simulate_run): pieces of the CSV
 * (channel 0), of the event log (1) and of the JSON summary (2), in order (a piece may end inside a line). */
typedef void (*app_text_fn)(void *ctx, int channel, const char *text);

/* Where one stream of text goes: a FILE (the command line) or, in-process, app_text_fn through
 * a buffer the caller owns (passed on when it fills, and by stream_flush). Off when both are
 * NULL. */
typedef struct app_stream {
    FILE *file;
    app_text_fn fn;
    void *ctx;
    int channel;
    char *buf; /* (cap) */
    size_t len, cap;
    int failed; /* in-process: a piece longer than the buffer was cut */
} app_stream;

/* printf into the stream (nothing when it is off). */
void stream_printf(app_stream *s, const char *fmt, ...);
/* In-process: passes what the buffer holds to the callback. */
void stream_flush(app_stream *s);

typedef struct run_info {
    const mcs_model *model;
    app_stream csv;          /* the CSV of the run */
    app_stream events;       /* the JSON event log */
    app_stream summary;      /* the JSON summary (stdout on the command line) */
    const char *csv_path;    /* the command line's files (NULL in-process) */
    const char *events_path; /* removed at the close when no event was logged */
    int nevents;
    int interrupted; /* the run was stopped by SIGINT (Ctrl-C): the rows so far are written */
    int driven;      /* the run applies inputs (--inputs): its energy is exchanged whatever the
                   model's balance at u = 0 (mcs_model.energy_balance) */
    int reactions, basis, progress, momenta; /* --reactions, --basis, --progress, --momenta */
    mcs_real *Pbuf;                          /* (nx) scratch for --momenta */
    mcs_real *lambda;                        /* (rows) scratch for the multipliers (--reactions) */
    mcs_real *wstack;      /* (2 nx + rows + nmu + nu) scratch for the joints' wrenches */
    mcs_real *wrench;      /* (nw) the joints' wrenches (--reactions) */
    mcs_real *q, *qd;      /* (nx) scratch for the minimal coordinates */
    mcs_real *rdiag;       /* (nx) scratch for |R_ii| */
    mcs_real *T;           /* (nx x nx) scratch for the basis (--basis) */
    const char *simulator; /* "dense" or "banded" (the summary's) */
    mcs_real *jc;          /* (2 njc) scratch for the joints' coordinates and rates */
    mcs_real *y;           /* (ny) scratch for the outputs */
    mcs_real *ywork;       /* (nx + nu) their kernel's w */
    mcs_real *jlast;       /* (njc) the last value of each j.<joint> seen (its turns counted) */
    int jc_started;        /* 0 until the first row's joint coordinates are recorded */
    /* statistics over the recorded rows */
    int rows, rank_min, rank_max, bar_shown;
    mcs_real last_t;                        /* time of the last row recorded */
    mcs_real e0, kin_max, e_dev_max, c_max; /* e0: energy since the last transition */
    mcs_real e_initial;
    int energy_seen; /* 0 until the first state's energy is recorded */
    /* A step's end is followed before the dense rows inside the step are recorded: its energy
     * waits here until they are, so that the energy is followed in the order of time (a rise
     * is one over time, not the energy a step lost seen out of order) */
    int end_pending;
    mcs_real end_t, end_kin, end_pot;
    mcs_real e_low;            /* the lowest energy seen so far */
    mcs_real e_rise_max;       /* the largest rise of the energy above the lowest before it */
    mcs_real pot_min, pot_max; /* the potential's range over the states seen */
    mcs_real e_transitions;    /* the sum of the energy jumps at transitions (locks lose some) */
    mcs_status output_status;  /* the first failure of a call the output made, or MCS_OK */
    mcs_status reaction_status;
    mcs_real t0, t_end;
    clock_t started;
    /* transitions (locks, unlocks) made, for the summary */
    int ntransitions;
    mcs_transition transitions[RUN_MAX_TRANSITIONS];
    /* end stops (mcs_stops.h): impacts made, those that ended held, releases, the kinetic
     * energy the impacts took */
    long stop_impacts, stop_holds, stop_releases;
    mcs_real stop_loss;
    /* friction (mcs_stops.h): coordinates that stuck and slipped, the work it took (at the end) */
    long friction_sticks, friction_slips;
    mcs_real friction_work;
    const mcs_stops *stops; /* the run's stops and friction (their work joins the energy check) */
    mcs_real end_work;      /* the friction work at the pending step's end */
} run_info;

/* A state to record: (t, x, v), its minimal coordinates q, qd (f = n - rank entries) and the
 * factorization there: |R_ii| (min(n, nc) entries), the basis T (n x f; may be NULL without
 * --basis) and, for a dense-output row, the probe's Q (NULL: the row is the current state, whose
 * momenta mcs_sim_momenta gives). */
typedef struct run_row {
    mcs_real t;
    const mcs_real *x, *v, *q, *qd, *rdiag, *T, *Q;
    int rank;
} run_row;

/* Opens the CSV (and writes its header) and the event log of the command line (files at the
 * paths; a NULL path: none), the summary going to stdout: 0, or -1 when the CSV cannot be
 * written, -2 when the event log cannot (the CSV is then removed again). In-process (fn not
 * NULL; the paths NULL) the three streams go to fn instead, through the caller's buffers
 * (cap characters each). */
int output_open(run_info *ri, const char *csv_path, const char *events_path, app_text_fn fn,
                void *ctx, char *const buffers[3], size_t cap);
/* One CSV row (and the statistics) of a state; the current state of sim with record_current. */
void output_record(run_info *ri, mcs_sim *sim, const run_row *row);
void output_record_current(run_info *ri, mcs_sim *sim);
/* After each accepted step: the joints' angles followed through the step (whole turns counted
 * at every step, not only at the rows written) and the energy statistics (a rise between two
 * rows is seen however far apart they are). */
void output_follow_step(run_info *ri, mcs_sim *sim);
/* Writes the event the last step located, if any, and clears it. */
void output_take_event(run_info *ri, mcs_sim *sim);
/* A transition just made: logged to the event file with the velocity jump dv (n) and the
 * generalized momenta of the new basis before and after (f entries each, f = n - rank after),
 * kept for the summary; the energy statistics restart from the new level. */
void output_transition(run_info *ri, mcs_sim *sim, const mcs_transition *tr, const mcs_real *dv,
                       const mcs_real *P_before, const mcs_real *P_after);

/* A stop event (mcs_stops_apply made it): the event log's entry, the energy it took counted as a
 * transition's (the drift is measured from the level after it). */
void output_stop(run_info *ri, mcs_sim *sim, const mcs_stop_event *ev);

/* The name of a lock's key: the coordinate, or the row group (keys >= nx: a joint, a switch). */
const char *lock_name(const mcs_model *md, int key);

/* Close the files (in-process: pass on what the buffers hold): 0, or -1 when a write of the CSV
 * failed (disk full, ...), -2 of the log. The summary is written after. */
int output_close(run_info *ri);

/* The run's JSON summary (stdout on the command line; channel 2 in-process). */
typedef struct run_summary {
    mcs_status status;
    mcs_real t_end;
    int rank0;
    const int *piv0; /* (nc) pivot order at the start: rows past rank0 are dependent */
    const mcs_options *opt;
    const mcs_assembly *assembly;
    double wall_s;
    int blas_threads; /* app_pin_blas_threads: 1 with OpenBLAS, 0 without it */
} run_summary;
/* Returns whether the run is ok: it reached its end (rs->status MCS_OK) and shows no problem (an
 * energy that rose in a model that cannot gain it, retakes on most steps; the summary's
 * "problems" say which and what to do). */
int output_summary(run_info *ri, const mcs_sim *sim, const run_summary *rs);
/* Follows the energy of the last step's end if no row at or after it has (output_follow_step
 * keeps it pending until the dense rows inside the step are recorded). */
void output_follow_pending(run_info *ri);

#endif /* MCS_SIMULATE_OUTPUT_H */
