/* mujoco_transition.c - the peer's linearization (make bench, section "linearize"): MuJoCo's
 * mjd_transitionFD, the discrete-time transition matrix of one step by finite differences,
 * timed and checked against its own Richardson extrapolation. Host only, built by
 * bench/linearize_peer.py against Debian's libmujoco-dev (the bench's set-up installs it).
 * usage: mujoco_transition MODEL H REPEATS CALLS QPOS... -- QVEL...
 *   MODEL        an MJCF or URDF file; RK4 steps of H, contacts and limits off
 *                (mjDSBL_CONSTRAINT), as bench/mujoco_step.c
 *   REPEATS, CALLS  the best over REPEATS of CALLS calls of mjd_transitionFD (eps 1e-6,
 *                centered)
 * Prints one JSON object: the time per call, A (2 nv x 2 nv, row-major, d(qpos, qvel)' /
 * d(qpos, qvel)) at eps 1e-6, its error against the Richardson extrapolation of eps 1e-3 and
 * 5e-4 (error O(eps^4)), and A_step, central differences (eps 1e-6) of mj_step itself, with how
 * far A is from them. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <mujoco/mujoco.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void set_state(const mjModel *m, mjData *d, char **argv, int sep)
{
    int i;
    mj_resetData(m, d);
    for (i = 0; i < m->nq; ++i)
        d->qpos[i] = strtod(argv[5 + i], NULL);
    for (i = 0; i < m->nv; ++i)
        d->qvel[i] = strtod(argv[sep + 1 + i], NULL);
    mj_forward(m, d);
}

int main(int argc, char **argv)
{
    char error[1000] = "";
    mjModel *m;
    mjData *d;
    mjtNum *A, *A1, *A2;
    double best = 1e300, worst = 0, scale = 1e-300, step_apart = 0;
    int repeats, calls, r, c, i, k, sep = -1;
    for (i = 5; i < argc; ++i)
        if (!strcmp(argv[i], "--"))
            sep = i;
    if (argc < 6) {
        fprintf(stderr, "usage: %s MODEL H REPEATS CALLS QPOS... -- QVEL...\n", argv[0]);
        return 2;
    }
    m = mj_loadXML(argv[1], NULL, error, (int)sizeof error);
    if (!m) {
        fprintf(stderr, "mujoco_transition: %s: %s\n", argv[1], error);
        return 1;
    }
    repeats = (int)strtol(argv[3], NULL, 10);
    calls = (int)strtol(argv[4], NULL, 10);
    if (sep < 0 || sep - 5 != m->nq || argc - sep - 1 != m->nv || m->nq != m->nv) {
        fprintf(stderr,
                "mujoco_transition: %s has nq = %d, nv = %d: give that many numbers "
                "(hinge joints only)\n",
                argv[1], m->nq, m->nv);
        mj_deleteModel(m);
        return 2;
    }
    m->opt.timestep = strtod(argv[2], NULL);
    m->opt.disableflags |= mjDSBL_CONSTRAINT;
    m->opt.integrator = mjINT_RK4;
    d = mj_makeData(m);
    k = 2 * m->nv;
    A = malloc(sizeof *A * (size_t)(k * k));
    A1 = malloc(sizeof *A1 * (size_t)(k * k));
    A2 = malloc(sizeof *A2 * (size_t)(k * k));
    if (!A || !A1 || !A2)
        return 1;
    set_state(m, d, argv, sep);
    for (r = 0; r < repeats; ++r) {
        const double t0 = now();
        for (c = 0; c < calls; ++c)
            mjd_transitionFD(m, d, 1e-6, 1, A, NULL, NULL, NULL);
        best = fmin(best, (now() - t0) / calls);
    }
    mjd_transitionFD(m, d, 1e-3, 1, A1, NULL, NULL, NULL);
    mjd_transitionFD(m, d, 5e-4, 1, A2, NULL, NULL, NULL);
    for (i = 0; i < k * k; ++i) {
        const double ref = (4 * A2[i] - A1[i]) / 3;
        worst = fmax(worst, fabs(A[i] - ref));
        scale = fmax(scale, fabs(ref));
    }
    /* and central differences of mj_step itself (eps 1e-6), into A1: is mjd_transitionFD the
     * derivative of the step the simulation takes? */
    for (c = 0; c < k; ++c) {
        int sgn;
        for (sgn = 1; sgn >= -1; sgn -= 2) {
            set_state(m, d, argv, sep);
            if (c < m->nv)
                d->qpos[c] += sgn * 1e-6;
            else
                d->qvel[c - m->nv] += sgn * 1e-6;
            mj_forward(m, d);
            mj_step(m, d);
            for (i = 0; i < m->nv; ++i) {
                A2[i * k + c] = (sgn > 0 ? 0 : A2[i * k + c]) + sgn * d->qpos[i] / 2e-6;
                A2[(m->nv + i) * k + c] =
                    (sgn > 0 ? 0 : A2[(m->nv + i) * k + c]) + sgn * d->qvel[i] / 2e-6;
            }
        }
    }
    for (i = 0; i < k * k; ++i)
        step_apart = fmax(step_apart, fabs(A[i] - A2[i]) / scale);
    printf("{\"seconds\": %.6e, \"nv\": %d, \"error\": %.3e, \"apart_from_step_differences\": "
           "%.3e, \"version\": %d, \"A\": [",
           best, m->nv, worst / scale, step_apart, mj_version());
    for (i = 0; i < k * k; ++i)
        printf("%s%.17g", i ? ", " : "", (double)A[i]);
    printf("], \"A_step\": [");
    for (i = 0; i < k * k; ++i)
        printf("%s%.17g", i ? ", " : "", (double)A2[i]);
    printf("]}\n");
    free(A);
    free(A1);
    free(A2);
    mj_deleteData(d);
    mj_deleteModel(m);
    return 0;
}
