/* mcs_simulate_stepper.c - the simulator stepped by its caller (the Python API's Solver.start):
 * a controller written in Python sets the inputs and advances the plant tick by tick, against
 * the same C a firmware runs, and asks for forward and inverse dynamics at any state. Options
 * and parameters are the command line's (parsed by parse_args: the same names, checks and
 * one-line errors). One stepped run at a time per library (its workspace is static); the dense
 * simulator (inverse dynamics needs its tangent basis). Application code, in the in-process
 * library only (MCS_APP_LIBRARY): the command-line program does not carry its workspace. */
#ifdef MCS_APP_LIBRARY
#include <setjmp.h>
#include <stdio.h>
#include <string.h>

#include "mcs/mcs_sim.h"
#include "mcs/mcs_stops.h"
#include "mcs_simulate_args.h"
#include "mcs_simulate_output.h"
#include "mcs_simulate_setup.h"

#define SCAT2(a, b) a##b
#define SCAT(a, b) SCAT2(a, b)
#define SMODEL SCAT(MCS_APP_MODEL, _model)
#define SPARAMS_T SCAT(MCS_APP_MODEL, _params)
#define SDEFAULTS SCAT(MCS_APP_MODEL, _default_params)
#define SROWS (MCS_APP_NC + MCS_APP_NX) /* the model's rows and room for NX lock rows */
#define SNU (MCS_APP_NU > 0 ? MCS_APP_NU : 1)

static mcs_real step_work[MCS_SIM_WORK_SIZE(MCS_APP_NX, SROWS)];
static int step_iwork[MCS_SIM_IWORK_SIZE(MCS_APP_NX, SROWS)];
static mcs_real inverse_work[MCS_SIM_INVERSE_WORK_SIZE(MCS_APP_NX, SROWS, SNU)];
static mcs_real linearize_work[MCS_SIM_STEP_JACOBIAN_WORK_SIZE(MCS_APP_NX, SROWS, SNU)];
static mcs_sim step_sim;
/* the model's stops and friction, applied as the run advances (mcs_stops_advance) */
#define SSTOPS (MCS_APP_NSTOPS > 0 ? MCS_APP_NSTOPS : 1)
#define SNEW (MCS_APP_GROUP_ROWS > 1 ? MCS_APP_GROUP_ROWS : 1)
static mcs_stops step_stops;
static mcs_real
    stops_work[MCS_STOPS_WORK_SIZE(MCS_APP_NX, SSTOPS, MCS_APP_NFRICTION, MCS_APP_NJC, SROWS)];
static int stops_iwork[MCS_STOPS_IWORK_SIZE(SSTOPS, MCS_APP_NFRICTION)];
static mcs_real stops_jwork[MCS_JUMP_WORK_SIZE(MCS_APP_NX, SROWS, SNEW)];
static int stops_jiwork[MCS_JUMP_IWORK_SIZE(MCS_APP_NX, SROWS, SNEW)];
static mcs_real stops_dv[MCS_APP_NX];
#define STOPS_JWORK \
    stops_dv, stops_jwork, sizeof stops_jwork / sizeof *stops_jwork, stops_jiwork, \
        sizeof stops_jiwork / sizeof *stops_jiwork

/* The stops and friction bound to the state just set: a start beyond a limit is refused. */
static mcs_status stops_bind(char *error, size_t error_len)
{
    mcs_status st =
        mcs_stops_init(&step_stops, &step_sim, stops_work, sizeof stops_work / sizeof *stops_work,
                       stops_iwork, sizeof stops_iwork / sizeof *stops_iwork);
    const int beyond = (st == MCS_OK) ? mcs_stops_violated(&step_stops, &step_sim) : -1;
    if (beyond >= 0) {
        if (error && error_len > 0)
            snprintf(error, error_len, "stops: the state is beyond the limits of %s",
                     SMODEL.stops[beyond].name);
        return MCS_ERR_ARGUMENT;
    }
    if (st == MCS_OK)
        st = mcs_stops_begin(&step_stops, &step_sim, MCS_JUMP_MINIMAL, STOPS_JWORK);
    return st;
}
static mcs_real start_x[MCS_APP_NX], start_v[MCS_APP_NX]; /* --x0, --v0 applied (start_state) */
static SPARAMS_T step_params;
static int step_started = 0;

/* [t; x (nx); v (nx)] of the current state. */
static void state_out(mcs_real *txv)
{
    int i;
    txv[0] = step_sim.cur.t;
    for (i = 0; i < step_sim.n; ++i) {
        txv[1 + i] = step_sim.cur.x[i];
        txv[1 + step_sim.n + i] = step_sim.cur.v[i];
    }
}

/* Starts a run with the command line's options argv (argv[0] unused; --t-end is accepted
 * and means nothing here; --lock, --unlock, --inputs, --out and --events are refused) at the file's initial state for the parameters:
 * txv (1 + 2 nx) its state. 0 started; 1 the start failed (error: why); 2 an argument was
 * refused (error: the command line's message). */
int mcs_stepper_start(int argc, char **argv, mcs_real *txv, char *error, size_t error_len);
int mcs_stepper_start(int argc, char **argv, mcs_real *txv, char *error, size_t error_len)
{
    static jmp_buf jump;
    mcs_options opt;
    app_args app;
    run_info ri;
    mcs_status st;
    step_started = 0;
    if (!argv || argc < 1 || !txv)
        return 2;
    if (setjmp(jump) != 0) {
        die_catch(NULL);
        if (error && error_len > 0)
            snprintf(error, error_len, "%s", die_message());
        return 2;
    }
    die_catch(&jump);
    step_params = SDEFAULTS;
    if (mcs_options_default(&opt, &SMODEL) != MCS_OK)
        die("internal: options", NULL);
    /* the stops and friction hold with locks (room for nx lock rows: SROWS) */
    opt.max_locks = (SMODEL.nstops > 0 || SMODEL.nfriction > 0) ? MCS_APP_NX : 0;
    memset(&ri, 0, sizeof ri);
    memset(&app, 0, sizeof app);
    app.t_end = SMODEL.t_end;
    app.max_steps = 1000000L;
    parse_args(argc, argv, &opt, &app, &ri, &SMODEL, &step_params);
    if (SMODEL.nevents > 0)
        die("a stepped run does not apply the mechanism file's events: the model has some", NULL);
    if (app.nevents > 0 || app.inputs_path || app.out_path || app.events_path)
        die("a stepped run takes no --lock, --unlock, --inputs, --out or --events: its caller "
            "does that",
            NULL);
    if (app.simulator == APP_SIM_BANDED)
        die("--simulator banded", "a stepped run takes the dense simulator");
    require(opt.h > 0, "h", "a number > 0", (double)opt.h);
    require(opt.rtol > 0 && opt.rtol < 1, "rtol", "a number in (0, 1)", (double)opt.rtol);
    require(opt.atol > 0, "atol", "a number > 0", (double)opt.atol);
    app.simulator = APP_SIM_DENSE;
    opt.max_steps = app.max_steps;
    setup_simulator(&step_sim, &SMODEL, &step_params, &opt, &app, step_work,
                    sizeof step_work / sizeof *step_work, step_iwork,
                    sizeof step_iwork / sizeof *step_iwork);
    die_catch(NULL);
    st = start_state(&step_sim, &app, start_x, start_v, NULL);
    if (st != MCS_OK) {
        if (error && error_len > 0)
            snprintf(error, error_len, "initial conditions: %s", mcs_status_str(st));
        return 1;
    }
    st = stops_bind(error, error_len);
    if (st != MCS_OK) {
        if (error && error_len > 0 && st != MCS_ERR_ARGUMENT)
            snprintf(error, error_len, "stops and friction: %s", mcs_status_str(st));
        return 1;
    }
    step_started = 1;
    state_out(txv);
    return 0;
}

/* mcs_sim_set_inputs on the stepped run. */
int mcs_stepper_set_inputs(const mcs_real *u);
int mcs_stepper_set_inputs(const mcs_real *u)
{
    return step_started ? (int)mcs_sim_set_inputs(&step_sim, u) : (int)MCS_ERR_ARGUMENT;
}

/* mcs_sim_advance to t; txv: the state reached (the last step's on a failure). */
int mcs_stepper_advance(mcs_real t, mcs_real *txv);
int mcs_stepper_advance(mcs_real t, mcs_real *txv)
{
    mcs_status st;
    if (!step_started || !txv)
        return (int)MCS_ERR_ARGUMENT;
    st = mcs_stops_advance(&step_stops, &step_sim, t, MCS_JUMP_MINIMAL, STOPS_JWORK, NULL);
    state_out(txv);
    return (int)st;
}

/* The active set now: out (nstops + nfriction) each stop's hold (0 free, MCS_STOP_LOWER or
 * MCS_STOP_UPPER: held there), then each friction element's (1 stuck, 0 not). */
int mcs_stepper_active(int *out);
int mcs_stepper_active(int *out)
{
    int k;
    if (!step_started || !out)
        return (int)MCS_ERR_ARGUMENT;
    for (k = 0; k < step_stops.nstops; ++k)
        out[k] = step_stops.held[k];
    for (k = 0; k < step_stops.nfriction; ++k)
        out[step_stops.nstops + k] = step_stops.stuck[k];
    return (int)MCS_OK;
}

/* mcs_sim_forward_dynamics (u NULL: the run's inputs); lambda (nc + room for locks). */
int mcs_stepper_forward(mcs_real t, const mcs_real *x, const mcs_real *v, const mcs_real *u,
                        mcs_real *xdd, mcs_real *lambda);
int mcs_stepper_forward(mcs_real t, const mcs_real *x, const mcs_real *v, const mcs_real *u,
                        mcs_real *xdd, mcs_real *lambda)
{
    if (!step_started)
        return (int)MCS_ERR_ARGUMENT;
    return (int)mcs_sim_forward_dynamics(&step_sim, t, x, v, u, xdd, lambda);
}

/* mcs_sim_inverse_dynamics; report (4): residual, normal, rank, dof. */
int mcs_stepper_inverse(mcs_real t, const mcs_real *x, const mcs_real *v, const mcs_real *xdd,
                        mcs_real *u, mcs_real *report);
int mcs_stepper_inverse(mcs_real t, const mcs_real *x, const mcs_real *v, const mcs_real *xdd,
                        mcs_real *u, mcs_real *report)
{
    mcs_inverse_report rep;
    mcs_status st;
    if (!step_started || !report)
        return (int)MCS_ERR_ARGUMENT;
    st = mcs_sim_inverse_dynamics(&step_sim, t, x, v, xdd, u, &rep, inverse_work,
                                  sizeof inverse_work / sizeof *inverse_work);
    if (st == MCS_OK) {
        report[0] = rep.residual;
        report[1] = rep.normal;
        report[2] = (mcs_real)rep.rank;
        report[3] = (mcs_real)rep.dof;
    }
    return (int)st;
}

/* Releases the last lock in force (the stops' and friction's: a new state starts free). */
static mcs_status st_unlock_all(void)
{
    return (step_sim.nlocks > 0)
               ? mcs_sim_unlock(&step_sim, step_sim.lock_key[step_sim.nlocks - 1], NULL)
               : MCS_ERR_ARGUMENT;
}

/* mcs_sim_set_state on the stepped run (assembled onto the constraints); txv: the state set. The
 * inputs are kept. */
int mcs_stepper_set_state(mcs_real t, const mcs_real *x, const mcs_real *v, mcs_real *txv);
int mcs_stepper_set_state(mcs_real t, const mcs_real *x, const mcs_real *v, mcs_real *txv)
{
    mcs_status st;
    if (!step_started || !txv)
        return (int)MCS_ERR_ARGUMENT;
    while (step_sim.nlocks > 0 && st_unlock_all() == MCS_OK)
        ; /* a new state starts with every limit free and no coordinate stuck */
    st = mcs_sim_set_state(&step_sim, t, x, v, NULL);
    if (st == MCS_OK)
        st = stops_bind(NULL, 0);
    state_out(txv);
    return (int)st;
}

/* mcs_sim_linearize at the current state: A (2f x 2f), B (2f x nu), ld 2f, into arrays of
 * (2 nx)^2 and 2 nx nu; T (nx x f) the basis of its chart; *dof = f. */
int mcs_stepper_linearize(mcs_real *A, mcs_real *B, mcs_real *T, int *dof);
int mcs_stepper_linearize(mcs_real *A, mcs_real *B, mcs_real *T, int *dof)
{
    mcs_status st;
    if (!step_started || !T)
        return (int)MCS_ERR_ARGUMENT;
    st = mcs_sim_linearize(&step_sim, A, B, dof, linearize_work,
                           sizeof linearize_work / sizeof *linearize_work);
    return (int)((st != MCS_OK) ? st : mcs_sim_basis(&step_sim, T));
}

/* mcs_sim_linearize_outputs at the current state: C (ny x 2f), D (ny x nu), ld ny, into arrays
 * of ny 2 nx and ny nu; *dof = f. */
int mcs_stepper_linearize_outputs(mcs_real *C, mcs_real *D, int *dof);
int mcs_stepper_linearize_outputs(mcs_real *C, mcs_real *D, int *dof)
{
    if (!step_started)
        return (int)MCS_ERR_ARGUMENT;
    return (int)mcs_sim_linearize_outputs(&step_sim, C, D, dof, linearize_work,
                                          sizeof linearize_work / sizeof *linearize_work);
}

/* mcs_sim_outputs at the current state, the inputs held: y (ny). */
int mcs_stepper_outputs(mcs_real *y);
int mcs_stepper_outputs(mcs_real *y)
{
    static mcs_real w[MCS_APP_NX + SNU];
    if (!step_started)
        return (int)MCS_ERR_ARGUMENT;
    return (int)mcs_sim_outputs(&step_sim, step_sim.cur.t, step_sim.cur.x, step_sim.cur.v, w, y);
}

/* mcs_sim_step_jacobian towards t_target: J (2g x 2f), G (2g x nu), ld 2g, into arrays of
 * (2 nx)^2 and 2 nx nu; dofs = (f, g); txv the state reached (the last one on a failure). */
int mcs_stepper_step_jacobian(mcs_real t_target, mcs_real *J, mcs_real *G, int *dofs,
                              mcs_real *txv);
int mcs_stepper_step_jacobian(mcs_real t_target, mcs_real *J, mcs_real *G, int *dofs, mcs_real *txv)
{
    mcs_status st;
    if (!step_started || !dofs || !txv)
        return (int)MCS_ERR_ARGUMENT;
    st = mcs_sim_step_jacobian(&step_sim, t_target, J, G, &dofs[0], &dofs[1], linearize_work,
                               sizeof linearize_work / sizeof *linearize_work);
    state_out(txv);
    return (int)st;
}

/* mcs_sim_chart_state: x, v (nx each) at y (2f) on the current chart. */
int mcs_stepper_chart_state(const mcs_real *y, mcs_real *x, mcs_real *v);
int mcs_stepper_chart_state(const mcs_real *y, mcs_real *x, mcs_real *v)
{
    return step_started ? (int)mcs_sim_chart_state(&step_sim, y, x, v) : (int)MCS_ERR_ARGUMENT;
}

/* mcs_sim_basis: T (nx x f) of the current state; *dof = f. */
int mcs_stepper_basis(mcs_real *T, int *dof);
int mcs_stepper_basis(mcs_real *T, int *dof)
{
    if (!step_started || !dof)
        return (int)MCS_ERR_ARGUMENT;
    *dof = step_sim.n - step_sim.cur.r;
    return (int)mcs_sim_basis(&step_sim, T);
}

/* mcs_sim_chart_rhs: ydot (2f) at y (2f) on the current chart. */
int mcs_stepper_chart_rhs(const mcs_real *y, mcs_real *ydot);
int mcs_stepper_chart_rhs(const mcs_real *y, mcs_real *ydot)
{
    return step_started ? (int)mcs_sim_chart_rhs(&step_sim, y, ydot) : (int)MCS_ERR_ARGUMENT;
}
#else
typedef int mcs_simulate_stepper_unused; /* ISO C: a translation unit declares something */
#endif /* MCS_APP_LIBRARY */
