/* mcs_app_util.h - what the command-line programs (mcs_simulate.c, mcs_analyze.c) share: fatal
 * errors, numbers and --param NAME=VALUE. Application code: it may print and exit. */
#ifndef MCS_APP_UTIL_H
#define MCS_APP_UTIL_H

#include "mcs/mcs_model.h"

/* The program's name in its messages ("simulate", "analyze"): defined by each program. */
extern const char *const app_name;

#include <setjmp.h>
#include <stddef.h>

/* Prints "<app_name>: what: detail" on stderr and exits with status 2; or, in-process (after
 * die_catch), keeps the message for die_message and jumps back to the caller's setjmp. */
void die(const char *what, const char *detail);
/* In-process programs (mcs_simulate_run): die jumps to `target` (NULL: exits again). */
void die_catch(jmp_buf *target);
/* The message of the last die caught. */
const char *die_message(void);
/* The finite number `text` (the value of option `flag`), or die. */
double number(const char *text, const char *flag);
/* --param NAME=VALUE: writes VALUE into the model's parameter struct `params` through
 * md->param_offsets, or dies naming the problem. */
void set_param(const mcs_model *md, void *params, const char *val);
/* Pins OpenBLAS, when it is the BLAS linked, to one thread whatever the environment says (an
 * unpinned OpenBLAS made a P1 step 5.6x slower on these small matrices): returns the threads it
 * now uses, or 0 for another BLAS or the portable linear algebra. */
int app_pin_blas_threads(void);

#endif /* MCS_APP_UTIL_H */
