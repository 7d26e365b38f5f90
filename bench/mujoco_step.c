/* mujoco_step.c - the peer in our benchmark (issue 36): MuJoCo's integration loop on a model
 * file (MJCF or URDF), timed the way bench_step.c times mcsgen's. Host only, built by
 * bench/mujoco_peer.py against Debian's libmujoco-dev (the bench's set-up installs it; make test
 * never needs it).
 * usage: mujoco_step MODEL STEPS H REPEATS INTEGRATOR QPOS... -- QVEL...
 *   MODEL        an MJCF or URDF file (URDF: MuJoCo's own import)
 *   STEPS, H     STEPS steps of H seconds (the run: STEPS * H seconds)
 *   REPEATS      the loop is run this many times from the same start; the best time is kept
 *   INTEGRATOR   rk4 | euler | implicit (mjtIntegrator)
 *   QPOS, QVEL   the start (nq and nv numbers: joint angles, ball joints as quaternions w x y z)
 * Contacts, joint limits and every other constraint are off (mjDSBL_CONSTRAINT): the rigid-body
 * dynamics only, as mcsgen's models have them. Prints one JSON object: the best time of the
 * loop, qpos and qvel at the end, and how often MuJoCo found its accelerations not finite and
 * reset the state ("unstable": the end state is then meaningless). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <mujoco/mujoco.h>

/* MuJoCo's warnings (an unstable step: it resets the state and goes on) are counted in d->warning
 * and reported in the JSON ("unstable"), not printed into it */
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

int main(int argc, char **argv)
{
    char error[1000] = "";
    mjModel *m;
    mjData *d;
    long steps, s;
    int repeats, r, i, sep = -1;
    double h, best = 1e300;
    if (argc < 6) {
        fprintf(stderr, "usage: %s MODEL STEPS H REPEATS INTEGRATOR QPOS... -- QVEL...\n", argv[0]);
        return 2;
    }
    for (i = 6; i < argc; ++i)
        if (!strcmp(argv[i], "--"))
            sep = i;
    m = mj_loadXML(argv[1], NULL, error, (int)sizeof error);
    if (!m) {
        fprintf(stderr, "mujoco_step: %s: %s\n", argv[1], error);
        return 1;
    }
    steps = strtol(argv[2], NULL, 10);
    h = strtod(argv[3], NULL);
    repeats = (int)strtol(argv[4], NULL, 10);
    if (sep < 0 || sep - 6 != m->nq || argc - sep - 1 != m->nv || steps < 1 || repeats < 1) {
        fprintf(stderr, "mujoco_step: %s has nq = %d, nv = %d: give that many numbers\n", argv[1],
                m->nq, m->nv);
        mj_deleteModel(m);
        return 2;
    }
    mju_user_warning = quiet;
    m->opt.timestep = h;
    m->opt.disableflags |= mjDSBL_CONSTRAINT;
    if (!strcmp(argv[5], "rk4"))
        m->opt.integrator = mjINT_RK4;
    else if (!strcmp(argv[5], "euler"))
        m->opt.integrator = mjINT_EULER;
    else if (!strcmp(argv[5], "implicit"))
        m->opt.integrator = mjINT_IMPLICIT;
    else {
        fprintf(stderr, "mujoco_step: integrator %s: expected rk4, euler or implicit\n", argv[5]);
        mj_deleteModel(m);
        return 2;
    }
    d = mj_makeData(m);
    for (r = 0; r < repeats; ++r) {
        double t0;
        mj_resetData(m, d);
        for (i = 0; i < m->nq; ++i)
            d->qpos[i] = strtod(argv[6 + i], NULL);
        for (i = 0; i < m->nv; ++i)
            d->qvel[i] = strtod(argv[sep + 1 + i], NULL);
        mj_forward(m, d);
        t0 = now();
        for (s = 0; s < steps; ++s)
            mj_step(m, d);
        t0 = now() - t0;
        best = t0 < best ? t0 : best;
    }
    printf("{\"seconds\": %.9g, \"steps\": %ld, \"time\": %.17g, \"nq\": %d, \"nv\": %d, ", best,
           steps, (double)d->time, m->nq, m->nv);
    print_array("qpos", d->qpos, m->nq);
    printf(", ");
    print_array("qvel", d->qvel, m->nv);
    printf(", \"unstable\": %d, \"version\": %d}\n", d->warning[mjWARN_BADQACC].number,
           mj_version());
    mj_deleteData(d);
    mj_deleteModel(m);
    return 0;
}
