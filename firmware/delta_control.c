/* delta_control.c - computed-torque control of the Delta robot (models/delta_robot.yaml) on a
 * microcontroller, the plant simulated by the same generated solver: at 1 kHz the controller
 * reads the arm angles and the plate's position from the solver's outputs (mcs_sim_outputs, the
 * file's sensors), computes the feed-forward torques of a pick-and-place path by inverse dynamics
 * (mcs_sim_inverse_dynamics, through the three loops' constraint forces), adds PD on the arm
 * angles, and holds the torques over the tick (mcs_sim_set_inputs, mcs_sim_advance). The path is
 * the 25-305-25 mm cycle of tests/e2e/test_delta_robot.py in 0.6 s, then a hold until t_end.
 * It reports, besides the end state (board_report.c): the largest distance of the plate from the
 * path, the path's end, and the processor's SysTick counts of the controller's part of a tick
 * and of the whole tick (controller and plant), the slowest and all (under QEMU with -icount
 * shift=0, 40 instructions a count: mps2-an386's 25 MHz clock, 1 ns an instruction, checked with
 * a run of 100 000 NOPs: 2 500 counts; 0 on a host). All memory static, no heap. Built by scripts/firmware --app
 * firmware/delta_control.c models/delta_robot.yaml (`make firmware`). */
#include "board_io.h"
#include "mcs/mcs_sim.h"
#include "mcs_board.h"

#define NX DELTA_ROBOT_NX
#define NC DELTA_ROBOT_NC
#define NU DELTA_ROBOT_NU
#define NY DELTA_ROBOT_NY
#define TICK MCS_R(1.0e-3)
#define TICKS 1000L
#define PATH_TIME MCS_R(0.6)
#define KP MCS_R(4.0e4) /* N m/rad on the arm */
#define KD MCS_R(400.0) /* N m s/rad */

static const mcs_real azimuth_cos[3] = {MCS_R(1.0), MCS_R(-0.5), MCS_R(-0.5)};
static const mcs_real azimuth_sin[3] = {MCS_R(0.0), MCS_R(0.86602540378443864676),
                                        MCS_R(-0.86602540378443864676)};

/* The plate's position, velocity and acceleration on the path at t, from `start`: three
 * quintic blends (up 25 mm, across 305 mm, down 25 mm) of PATH_TIME / 3 each, then rest. */
static void path(mcs_real t, const mcs_real *start, mcs_real *p, mcs_real *pd, mcs_real *pdd)
{
    static const mcs_real legs[3][3] = {{MCS_R(0.0), MCS_R(0.0), MCS_R(0.025)},
                                        {MCS_R(0.305), MCS_R(0.0), MCS_R(0.0)},
                                        {MCS_R(0.0), MCS_R(0.0), MCS_R(-0.025)}};
    const mcs_real seg = PATH_TIME / MCS_R(3.0);
    mcs_real at[3];
    mcs_real s;
    mcs_real b;
    mcs_real db;
    mcs_real ddb;
    int k;
    int leg;
    int i;
    if (t >= PATH_TIME) {
        leg = 2;
        s = MCS_R(1.0);
    } else {
        leg = (int)(t / seg);
        leg = (leg > 2) ? 2 : leg;
        s = (t - ((mcs_real)leg * seg)) / seg;
    }
    b = s * s * s * (MCS_R(10.0) + (s * (MCS_R(-15.0) + (MCS_R(6.0) * s))));
    db = s * s * (MCS_R(30.0) + (s * (MCS_R(-60.0) + (MCS_R(30.0) * s)))) / seg;
    ddb = s * (MCS_R(60.0) + (s * (MCS_R(-180.0) + (MCS_R(120.0) * s)))) / (seg * seg);
    if (t >= PATH_TIME) {
        db = MCS_R(0.0);
        ddb = MCS_R(0.0);
    }
    for (i = 0; i < 3; ++i) {
        at[i] = start[i];
        for (k = 0; k < leg; ++k) {
            at[i] += legs[k][i];
        }
        p[i] = at[i] + (b * legs[leg][i]);
        pd[i] = db * legs[leg][i];
        pdd[i] = ddb * legs[leg][i];
    }
}

/* The arm angles that put the plate at p (the working branch, elbows out): per arm, in its
 * vertical plane, (a - La cos th)^2 + (b + La sin th)^2 = Lb^2 - side^2. */
static void arm_angles(const delta_robot_params *g, const mcs_real *p, mcs_real *th)
{
    int i;
    for (i = 0; i < 3; ++i) {
        const mcs_real a =
            (p[0] * azimuth_cos[i]) + (p[1] * azimuth_sin[i]) - (g->mcs_p_R - g->mcs_p_r);
        const mcs_real side = (p[1] * azimuth_cos[i]) - (p[0] * azimuth_sin[i]);
        const mcs_real b = p[2];
        const mcs_real La = g->mcs_p_La;
        const mcs_real rhs =
            ((g->mcs_p_Lb * g->mcs_p_Lb) - (side * side) - (a * a) - (b * b) - (La * La)) /
            (MCS_R(2.0) * La);
        const mcs_real rho = mcs_sqrt((a * a) + (b * b));
        th[i] = mcs_acos(rhs / rho) - mcs_atan2(-b, -a);
    }
}

/* The desired state (x, v, x'') at t: the plate's from the path, the arms' angles from the
 * inverse kinematics and their rates and accelerations from the constraints' rows, which hold
 * each arm's angle alone (A's arm block is diagonal): A v = 0 and A x'' = gamma. */
static mcs_status desired(const mcs_sim *sim, mcs_real t, const mcs_real *start, mcs_real *x,
                          mcs_real *v, mcs_real *a)
{
    static mcs_real A[NC * NX];
    static mcs_real gam[NC];
    const mcs_model *md = sim->model;
    int i;
    int j;
    path(t, start, &x[3], &v[3], &a[3]);
    arm_angles((const delta_robot_params *)sim->params, &x[3], x);
    md->A(x, t, sim->params, A);
    for (i = 0; i < 3; ++i) {
        mcs_real s = MCS_R(0.0);
        if (mcs_fabs(A[i + (i * NC)]) <= MCS_R(0.0)) {
            return MCS_ERR_SINGULAR_JACOBIAN; /* an arm stretched along its forearm */
        }
        for (j = 3; j < NX; ++j) {
            s += A[i + (j * NC)] * v[j];
        }
        v[i] = -s / A[i + (i * NC)];
    }
    md->gamma(x, v, t, sim->params, gam);
    for (i = 0; i < 3; ++i) {
        mcs_real s = gam[i];
        for (j = 3; j < NX; ++j) {
            s -= A[i + (j * NC)] * a[j];
        }
        a[i] = s / A[i + (i * NC)];
    }
    return MCS_OK;
}

int main(void)
{
    /* with dense output: inverse dynamics evaluates the dynamics at a state of its own (the
     * probe frame) */
    static mcs_real memory[DELTA_ROBOT_SIM_MEMORY(DELTA_ROBOT_FIRMWARE_MAX_DOF,
                                                  DELTA_ROBOT_FIRMWARE_FEATURES | MCS_MEM_DENSE_OUTPUT)];
    static mcs_real inverse_work[MCS_SIM_INVERSE_WORK_SIZE(NX, NC, NU)];
    static mcs_real xd[NX];
    static mcs_real vd[NX];
    static mcs_real ad[NX];
    static mcs_real y[NY];
    static mcs_real yw[NX + NU];
    static mcs_real start[3];
    static mcs_real u[NU];
    static mcs_sim sim;
    mcs_inverse_report report;
    mcs_options opt;
    mcs_real worst = MCS_R(0.0);
    unsigned long slowest = 0UL;
    unsigned long total = 0UL;
    unsigned long control_max = 0UL;
    unsigned long control_total = 0UL;
    mcs_status status;
    long k;
    int i;
    status = mcs_options_default(&opt, &delta_robot_model);
    opt.dense_output = 1;
    opt.max_dof = DELTA_ROBOT_FIRMWARE_MAX_DOF;
    opt.sing_tol = MCS_R(0.0);
    opt.h = TICK;
    if (status == MCS_OK) {
        status = mcs_sim_assign(&sim, &delta_robot_model, &delta_robot_default_params, &opt, memory,
                                sizeof memory);
    }
    if (status == MCS_OK) {
        status = mcs_sim_start(&sim, MCS_R(0.0), NULL);
    }
    if (status == MCS_OK) {
        status = mcs_sim_outputs(&sim, sim.cur.t, sim.cur.x, sim.cur.v, yw, y);
        for (i = 0; i < 3; ++i) {
            start[i] = y[i]; /* the outputs x, y, z: the plate */
        }
    }
    board_cycles_start();
    for (k = 0; (k < TICKS) && (status == MCS_OK); ++k) {
        const mcs_real t = (mcs_real)k * TICK;
        const unsigned long before = board_cycles();
        unsigned long spent;
        /* the controller: the sensors (the outputs arm1..arm3; the arms' rates are read
         * from the plant's state, as an encoder's differentiated angle would give them), the
         * path's state, the inverse dynamics' torques and PD on the arm angles */
        status = mcs_sim_outputs(&sim, sim.cur.t, sim.cur.x, sim.cur.v, yw, y);
        if (status == MCS_OK) {
            status = desired(&sim, t, start, xd, vd, ad);
        }
        if (status == MCS_OK) {
            status = mcs_sim_inverse_dynamics(&sim, t, xd, vd, ad, u, &report, inverse_work,
                                              sizeof inverse_work / sizeof *inverse_work);
        }
        for (i = 0; (i < 3) && (status == MCS_OK); ++i) {
            u[i] += (KP * (xd[i] - y[3 + i])) + (KD * (vd[i] - sim.cur.v[i]));
        }
        spent = board_cycles() - before;
        control_total += spent;
        control_max = (spent > control_max) ? spent : control_max;
        /* the plant, one tick */
        if (status == MCS_OK) {
            status = mcs_sim_set_inputs(&sim, u);
        }
        if (status == MCS_OK) {
            status = mcs_sim_advance(&sim, (mcs_real)(k + 1) * TICK);
        }
        spent = board_cycles() - before;
        total += spent;
        slowest = (spent > slowest) ? spent : slowest;
        if (status == MCS_OK) { /* how far the plate is from the path now */
            mcs_real p[3];
            mcs_real pd[3];
            mcs_real pdd[3];
            mcs_real d2 = MCS_R(0.0);
            status = mcs_sim_outputs(&sim, sim.cur.t, sim.cur.x, sim.cur.v, yw, y);
            path(sim.cur.t, start, p, pd, pdd);
            for (i = 0; i < 3; ++i) {
                d2 += (y[i] - p[i]) * (y[i] - p[i]);
            }
            worst = (mcs_sqrt(d2) > worst) ? mcs_sqrt(d2) : worst;
        }
    }
    mcs_board_value("tracking_error", worst);
    mcs_board_value("plate_x", y[0]);
    mcs_board_count("ticks", (unsigned long)k);
    mcs_board_count("control_cycles_max", control_max);
    mcs_board_count("control_cycles_total", control_total);
    mcs_board_count("tick_cycles_max", slowest);
    mcs_board_count("tick_cycles_total", total);
    mcs_board_report(status, &sim);
    for (;;) {
        /* a controller's main loop would run here */
    }
}
