/* mcs_options_table.h - the simulator's command-line options. Generated from
 * generator/mcsgen/options.py by `make options-table`: do not edit. */
#ifndef MCS_OPTIONS_TABLE_H
#define MCS_OPTIONS_TABLE_H

#include <stddef.h>

#include "mcs/mcs_sim.h"

typedef enum opt_kind { OPT_REAL, OPT_INT, OPT_CHOICE, OPT_FLAG, OPT_PATH, OPT_PARAM } opt_kind;

/* field: offset in mcs_options, or -1 for an option of the simulator itself (matched by
 * name). choices: '|'-separated names, whose index is the enum value. */
typedef struct sim_option {
    const char *name;
    opt_kind kind;
    long field;
    const char *choices;
    const char *metavar;
    const char *help;
} sim_option;

static const sim_option SIM_OPTIONS[] = {
    {"t-end", OPT_REAL, -1, NULL, "T",
     "end time of the run [s] (default: model)"},
    {"h", OPT_REAL, (long)offsetof(mcs_options, h), NULL, "H",
     "RK4 and ros34pw2_fixed step; the adaptive methods' first step [s] (default: model)"},
    {"method", OPT_CHOICE, (long)offsetof(mcs_options, method), "rk4|dopri5|dop853|ros34pw2|ros34pw2_fixed", NULL,
     "integrator (default: model)"},
    {"rtol", OPT_REAL, (long)offsetof(mcs_options, rtol), NULL, "R",
     "the adaptive methods' relative tolerance (default: model)"},
    {"atol", OPT_REAL, (long)offsetof(mcs_options, atol), NULL, "A",
     "the adaptive methods' absolute tolerance (in the units of the coordinates and their rates) (default: model)"},
    {"continuation", OPT_CHOICE, (long)offsetof(mcs_options, continuation), "exp|euler|none|off", NULL,
     "tangent basis: exp (exponential predictor), euler (first order), none (polar alignment only), off (traditional QR) (default: model)"},
    {"simulator", OPT_CHOICE, -1, "auto|dense|banded", NULL,
     "dense (every option), banded (large models: a step's cost linear in n; stops at a singular configuration; no locks, exp or interpolated rows), or auto: banded from 40 coordinates when the model has a band structure and the run needs nothing it lacks (default: auto)"},
    {"dt-out", OPT_REAL, -1, NULL, "D",
     "rows at exactly t = k D [s] (0: one row per step) (default: model)"},
    {"out", OPT_PATH, -1, NULL, "FILE.csv",
     "CSV file of the run (default: out/<model>.csv)"},
    {"events", OPT_PATH, -1, NULL, "FILE.json",
     "JSON log of singular configurations (default: next to the CSV)"},
    {"inputs", OPT_PATH, -1, NULL, "FILE.csv",
     "CSV of the model's inputs over time: a header t,<input>,... (every input, any order) and rows of increasing t, each held until the next (zero-order hold) (default: all 0)"},
    {"param", OPT_PARAM, -1, NULL, "NAME=VALUE",
     "override a parameter, geometry too (repeatable); one in the file's freeze: is refused, and so is a value the file's own would be (a body's mass or inertia)"},
    {"x0", OPT_PARAM, -1, NULL, "NAME=VALUE",
     "start with coordinate NAME at VALUE (repeatable; a CSV's x.<NAME>): the file's initial state with these values, then assembled onto the constraints (which may move them)"},
    {"v0", OPT_PARAM, -1, NULL, "NAME=VALUE",
     "start with velocity NAME at VALUE (repeatable; a CSV's v.<NAME>): the file's initial velocities with these, then projected onto the velocity constraints"},
    {"lock", OPT_PARAM, -1, NULL, "NAME@T",
     "lock coordinate or joint NAME at time T (004 sec. 6): NAME - NAME(T) = 0, or the joint held at its pose then, with the velocity jump --transition says (repeatable)"},
    {"unlock", OPT_PARAM, -1, NULL, "NAME@T",
     "release the lock of NAME at time T (no jump; repeatable)"},
    {"transition", OPT_CHOICE, -1, "minimal|full|projected|naive", NULL,
     "velocity jump at a lock: minimal (004 eq. 37, continued basis), full (eq. 24), projected (eq. 32), naive (zero the locked rate, no momentum balance) (default: minimal)"},
    {"reactions", OPT_FLAG, -1, NULL, NULL,
     "add the constraint multipliers lam.<row> and each joint's force and moment on its body 2 (Fx.<joint> ... Nz.<joint>, world frame) to the CSV"},
    {"basis", OPT_FLAG, -1, NULL, NULL,
     "add the tangent basis T (columns T<j>.<coordinate>) to the CSV"},
    {"momenta", OPT_FLAG, -1, NULL, NULL,
     "add the generalized momenta P = T'M v (columns p<i>) to the CSV"},
    {"rank-tol", OPT_REAL, (long)offsetof(mcs_options, rank_tol), NULL, "TAU",
     "rank tolerance: |R_ii| > TAU |R_11| counts towards the rank (default: 1e-9)"},
    {"sing-tol", OPT_REAL, (long)offsetof(mcs_options, sing_tol), NULL, "S",
     "an event is a minimum of the smallest retained |R_ii|/|R_11| below S (0 turns detection off) (default: 1e-6)"},
    {"sing-watch", OPT_REAL, (long)offsetof(mcs_options, sing_watch), NULL, "W",
     "near a singular configuration: the ratio below W times the run's largest (whatever the mechanism's size); such steps are searched for a minimum, placed across it (RK4) or left to DOPRI5 (DOP853) (default: 0.05)"},
    {"chart-tol", OPT_REAL, (long)offsetof(mcs_options, chart_tol), NULL, "C",
     "retake a step shorter if it would end with the ratio below C (default: 1e-4)"},
    {"sing-gap", OPT_REAL, (long)offsetof(mcs_options, sing_gap), NULL, "G",
     "RK4: no stage closer to a predicted crossing than where the ratio is G (0: by h only) (default: 1e-3)"},
    {"chart-pivot-min", OPT_REAL, (long)offsetof(mcs_options, chart_pivot_min), NULL, "P",
     "a stage whose LU of A_S U has a pivot ratio below P fails (and is retaken) (default: 1e-8)"},
    {"newton-tol", OPT_REAL, (long)offsetof(mcs_options, newton_tol), NULL, "N",
     "chart Newton: stop when |dp| <= N max(1, |x|) (default: 500 eps)"},
    {"newton-max-iter", OPT_INT, (long)offsetof(mcs_options, newton_max_iter), NULL, "K",
     "chart Newton iterations before a stage fails (default: 25)"},
    {"h-min", OPT_REAL, (long)offsetof(mcs_options, h_min), NULL, "HMIN",
     "DOPRI5 and DOP853: smallest step before the run stops [s] (default: 1e-12)"},
    {"max-steps", OPT_INT, -1, NULL, "K",
     "the run stops after K accepted steps (a DOPRI5 run, with status 'limit'); a run that would take more RK4 steps (--t-end / --h) or write more rows (--t-end / --dt-out) is refused before it starts (default: 1000000)"},
    {"progress", OPT_FLAG, -1, NULL, NULL,
     "a progress bar on stderr"},
};

#define SIM_NOPTIONS (sizeof SIM_OPTIONS / sizeof *SIM_OPTIONS)

/* --simulator auto takes the banded simulator from this many coordinates */
#define SIM_BANDED_FROM 40

#endif /* MCS_OPTIONS_TABLE_H */
