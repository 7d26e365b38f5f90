/* mcs_simulate_inputs.h - the command-line simulator's input schedule (--inputs FILE.csv): the
 * model's inputs u over time, each row held until the next (zero-order hold). Application code:
 * it may print and exit (die). Model-independent. */
#ifndef MCS_SIMULATE_INPUTS_H
#define MCS_SIMULATE_INPUTS_H

#include <stdio.h>

#include "mcs/mcs_sim.h"

/* The longest line of a schedule. */
#define APP_INPUT_LINE 4096

/* A schedule being read: the header's columns, and the next row not applied yet. */
typedef struct app_inputs {
    const char *path; /* NULL: no --inputs (u stays 0) */
    FILE *file;
    int nu;                                     /* the model's inputs */
    int column[MCS_SIM_MAX(MCS_MAX_INPUTS, 1)]; /* the CSV column of each input */
    int ncolumns;                               /* columns of the file (t and the inputs) */
    long line;                                  /* the line last read (messages) */
    long rows;                                  /* rows read */
    int has_next;                               /* a row is waiting */
    mcs_real next_t;                            /* its time */
    mcs_real next_u[MCS_SIM_MAX(MCS_MAX_INPUTS, 1)];
    mcs_real last_t; /* the time of the row before it (times increase) */
} app_inputs;

/* Opens path (or does nothing when it is NULL) and checks the whole schedule against the model:
 * a header naming t and every input once, rows of finite numbers at increasing times; dies with
 * the file, the line and the problem. Then positions the schedule at its first row. */
void inputs_open(app_inputs *in, const char *path, const mcs_model *md);
/* The time of the next row not applied (+huge when none is left). */
mcs_real inputs_next_time(const app_inputs *in);
/* Applies every row at a time <= t (the last one's values) to sim: mcs_sim_set_inputs. */
mcs_status inputs_apply(app_inputs *in, mcs_sim *sim, mcs_real t);
/* Closes the file (idempotent). */
void inputs_close(app_inputs *in);

#endif /* MCS_SIMULATE_INPUTS_H */
