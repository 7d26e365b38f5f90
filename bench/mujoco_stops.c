/* mujoco_stops.c - the peer on a joint limit (make bench, section "stops"; bench/stops_peer.py):
 * MuJoCo's integration loop on a URDF with its joint limits and friction loss on, timed as
 * mujoco_step.c times it, and how far each joint goes past its limits. Host only, built against
 * Debian's libmujoco-dev (the bench's set-up installs it).
 * usage: mujoco_stops MODEL STEPS H REPEATS INTEGRATOR QPOS... -- QVEL...
 *   as mujoco_step.c, but with MuJoCo's constraints on (its soft limits and friction loss)
 * Prints one JSON object: the best time of the loop, qpos and qvel at the end, the largest
 * distance any limited joint went past its range over the run ("beyond", >= 0), the joints'
 * ranges and friction losses as MuJoCo read them, and MuJoCo's count of unstable steps. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <mujoco/mujoco.h>

static void quiet(const char *msg)
{
    (void)msg;
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void print_array(const char *name, const mjtNum *a, int k)
{
    int i;
    printf("\"%s\": [", name);
    for (i = 0; i < k; ++i)
        printf("%s%.17g", i ? ", " : "", (double)a[i]);
    printf("]");
}

/* How far the limited joints are past their ranges now (hinge and slide joints). */
static double beyond(const mjModel *m, const mjData *d)
{
    double worst = 0;
    int j;
    for (j = 0; j < m->njnt; ++j) {
        const double q = d->qpos[m->jnt_qposadr[j]];
        if (!m->jnt_limited[j] || (m->jnt_type[j] != mjJNT_HINGE && m->jnt_type[j] != mjJNT_SLIDE))
            continue;
        if (m->jnt_range[2 * j] - q > worst)
            worst = m->jnt_range[2 * j] - q;
        if (q - m->jnt_range[2 * j + 1] > worst)
            worst = q - m->jnt_range[2 * j + 1];
    }
    return worst;
}

int main(int argc, char **argv)
{
    char error[1000] = "";
    mjModel *m;
    mjData *d;
    long steps, s;
    int repeats, r, i, sep = -1, unstable = 0;
    double h, best = 1e300, worst = 0;
    if (argc < 6) {
        fprintf(stderr, "usage: %s MODEL STEPS H REPEATS INTEGRATOR QPOS... -- QVEL...\n", argv[0]);
        return 2;
    }
    for (i = 6; i < argc; ++i)
        if (!strcmp(argv[i], "--"))
            sep = i;
    m = mj_loadXML(argv[1], NULL, error, (int)sizeof error);
    if (!m) {
        fprintf(stderr, "mujoco_stops: %s: %s\n", argv[1], error);
        return 1;
    }
    steps = strtol(argv[2], NULL, 10);
    h = strtod(argv[3], NULL);
    repeats = (int)strtol(argv[4], NULL, 10);
    if (sep < 0 || sep - 6 != m->nq || argc - sep - 1 != m->nv || steps < 1 || repeats < 1) {
        fprintf(stderr, "mujoco_stops: %s has nq = %d, nv = %d: give that many numbers\n", argv[1],
                m->nq, m->nv);
        mj_deleteModel(m);
        return 2;
    }
    mju_user_warning = quiet;
    m->opt.timestep = h;
    m->opt.disableflags |= mjDSBL_CONTACT; /* the limits and friction loss only */
    if (!strcmp(argv[5], "rk4"))
        m->opt.integrator = mjINT_RK4;
    else if (!strcmp(argv[5], "euler"))
        m->opt.integrator = mjINT_EULER;
    else if (!strcmp(argv[5], "implicit"))
        m->opt.integrator = mjINT_IMPLICIT;
    else {
        fprintf(stderr, "mujoco_stops: integrator %s: rk4, euler or implicit\n", argv[5]);
        mj_deleteModel(m);
        return 2;
    }
    d = mj_makeData(m);
    for (r = 0; r < repeats; ++r) {
        double t0, t1;
        mj_resetData(m, d);
        for (i = 0; i < m->nq; ++i)
            d->qpos[i] = strtod(argv[6 + i], NULL);
        for (i = 0; i < m->nv; ++i)
            d->qvel[i] = strtod(argv[sep + 1 + i], NULL);
        mj_forward(m, d);
        worst = 0;
        t0 = now();
        for (s = 0; s < steps; ++s) {
            double b;
            mj_step(m, d);
            b = beyond(m, d);
            if (b > worst)
                worst = b;
        }
        t1 = now();
        if (t1 - t0 < best)
            best = t1 - t0;
        unstable = d->warning[mjWARN_BADQACC].number;
    }
    printf("{\"time_s\": %.9g, \"beyond\": %.17g, \"unstable\": %d, ", best, worst, unstable);
    print_array("qpos", d->qpos, m->nq);
    printf(", ");
    print_array("qvel", d->qvel, m->nv);
    printf(", ");
    print_array("range", m->jnt_range, 2 * m->njnt);
    printf(", ");
    print_array("frictionloss", m->dof_frictionloss, m->nv);
    printf("}\n");
    mj_deleteData(d);
    mj_deleteModel(m);
    return 0;
}
