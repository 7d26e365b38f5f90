/* test_locks.c - locks in the simulator (mcs_locks.c, mcs_rows.c): joint locks through the
 * model's row groups (planar: pendulum_3r_bodies; spatial: slider_crank), their captured values
 * surviving unlocks in any order, coordinate locks beside them, and the status codes. Runs on
 * both linear-algebra backends and under ASan/UBSan (Makefile). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include <string.h>
#include <cmocka.h>

#include "test_needs.h"

#include "mcs/mcs_sim.h"
#include "pendulum_3r_bodies.h"
#include "slider_crank.h"

#define NX SLIDER_CRANK_NX
#define ROWS (SLIDER_CRANK_NC + 8)
static mcs_real work[MCS_SIM_WORK_SIZE(NX, ROWS)];
static int iwork[MCS_SIM_IWORK_SIZE(NX, ROWS)];
static mcs_real jwork[MCS_JUMP_WORK_SIZE(NX, ROWS, 6)];
static int jiwork[MCS_JUMP_IWORK_SIZE(NX, ROWS, 6)];
static mcs_real dv[NX];
#define WORK_ARGS work, sizeof work / sizeof *work, iwork, sizeof iwork / sizeof *iwork
#define JWORK dv, jwork, sizeof jwork / sizeof *jwork, jiwork, sizeof jiwork / sizeof *jiwork

static void start(mcs_sim *sim, const mcs_model *md, const void *params, int max_locks)
{
    mcs_options opt;
    mcs_options_default(&opt, md);
    opt.method = MCS_METHOD_DOPRI5;
    opt.rtol = 1e-10;
    opt.atol = 1e-12;
    opt.max_locks = max_locks;
    assert_int_equal(mcs_sim_init(sim, md, params, &opt, WORK_ARGS), MCS_OK);
    assert_int_equal(mcs_sim_set_state(sim, 0, md->x0, md->v0, NULL), MCS_OK);
}

static int joint_group(const mcs_model *md, const char *name)
{
    int k;
    for (k = 0; k < md->nj; ++k)
        if (md->joints[k].name[0] == name[0] && md->joints[k].name[1] == name[1])
            return md->joints[k].lock_group;
    return -1;
}

static double max_abs(int n, const mcs_real *a)
{
    double m = 0;
    int i;
    for (i = 0; i < n; ++i)
        m = fabs((double)a[i]) > m ? fabs((double)a[i]) : m;
    return m;
}

/* relative angle of link k+1 to link k of the planar 3R (theta at x[3 k + 2]) */
static double rel(const mcs_sim *sim, int k)
{
    return (double)sim->cur.x[3 * (k + 1) + 2] - (double)sim->cur.x[3 * k + 2];
}

static void test_planar_joint_locks_unlock_in_any_order(void **state)
{
    const mcs_model *md = &pendulum_3r_bodies_model;
    const int g2 = joint_group(md, "J2"), g3 = joint_group(md, "J3");
    mcs_sim sim;
    mcs_transition tr;
    double held2, held3;
    (void)state;
    NEEDS(MCS_PART_EVENTS | MCS_PART_LOCKS | MCS_PART_PREDICTORS | MCS_PART_DENSE);
    assert_true(g2 >= 0 && g3 >= 0 && md->groups[g2].nrows == 1);
    start(&sim, md, &pendulum_3r_bodies_default_params, 4);
    assert_int_equal(mcs_sim_advance(&sim, 0.2), MCS_OK);
    assert_int_equal(mcs_sim_lock_group(&sim, 100, g2, MCS_JUMP_MINIMAL, JWORK, &tr), MCS_OK);
    assert_int_equal(tr.key, 100);
    assert_int_equal(tr.jump.dof_after, 2);
    held2 = rel(&sim, 0);
    assert_int_equal(mcs_sim_advance(&sim, 0.3), MCS_OK);
    assert_int_equal(mcs_sim_lock_group(&sim, 101, g3, MCS_JUMP_MINIMAL, JWORK, &tr), MCS_OK);
    held3 = rel(&sim, 1);
    assert_int_equal(sim.m, md->nc + 2);
    assert_int_equal(mcs_sim_advance(&sim, 0.4), MCS_OK);
    assert_true(fabs(rel(&sim, 0) - held2) < 1e-10 && fabs(rel(&sim, 1) - held3) < 1e-10);
    /* release the first: the second keeps its captured value (moved in the table) */
    assert_int_equal(mcs_sim_unlock(&sim, 100, &tr), MCS_OK);
    assert_int_equal(tr.jump.dof_after, 2);
    assert_int_equal(mcs_sim_advance(&sim, 0.6), MCS_OK);
    assert_true(fabs(rel(&sim, 1) - held3) < 1e-10);
    assert_true(fabs(rel(&sim, 0) - held2) > 1e-3);
    assert_int_equal(mcs_sim_unlock(&sim, 100, &tr), MCS_ERR_ARGUMENT); /* not locked now */
    assert_int_equal(mcs_sim_unlock(&sim, 101, &tr), MCS_OK);
    assert_int_equal(sim.m, md->nc);
}

static void test_a_coordinate_group_locks_as_the_coordinate_lock_does(void **state)
{
    /* J1 of the planar 3R holds link 1's angle, a coordinate: its group has no kernels
     * (mcs_row_group.coords) and the runtime forms the unit row; locking it through the group
     * or as the coordinate must give the same jump and the same motion after */
    const mcs_model *md = &pendulum_3r_bodies_model;
    const int g1 = joint_group(md, "J1");
    const mcs_row_group *g;
    mcs_sim a, b;
    mcs_transition ta, tb;
    static mcs_real work_b[MCS_SIM_WORK_SIZE(NX, ROWS)];
    static int iwork_b[MCS_SIM_IWORK_SIZE(NX, ROWS)];
    mcs_options opt;
    int i;
    (void)state;
    NEEDS(MCS_PART_EVENTS | MCS_PART_LOCKS | MCS_PART_PREDICTORS | MCS_PART_DENSE);
    assert_true(g1 >= 0);
    g = &md->groups[g1];
    assert_true(g->coords != NULL && g->g == NULL && g->G == NULL && g->gamma == NULL &&
                g->G_dot == NULL && g->ng == 1 && g->nrows == 1);
    start(&a, md, &pendulum_3r_bodies_default_params, 2);
    mcs_options_default(&opt, md);
    opt.method = MCS_METHOD_DOPRI5;
    opt.rtol = 1e-10;
    opt.atol = 1e-12;
    opt.max_locks = 2;
    assert_int_equal(mcs_sim_init(&b, md, &pendulum_3r_bodies_default_params, &opt, work_b,
                                  sizeof work_b / sizeof *work_b, iwork_b,
                                  sizeof iwork_b / sizeof *iwork_b),
                     MCS_OK);
    assert_int_equal(mcs_sim_set_state(&b, 0, md->x0, md->v0, NULL), MCS_OK);
    assert_int_equal(mcs_sim_advance(&a, 0.25), MCS_OK);
    assert_int_equal(mcs_sim_advance(&b, 0.25), MCS_OK);
    assert_int_equal(mcs_sim_lock_group(&a, 50, g1, MCS_JUMP_MINIMAL, JWORK, &ta), MCS_OK);
    assert_int_equal(mcs_sim_lock(&b, g->coords[0], MCS_JUMP_MINIMAL, JWORK, &tb), MCS_OK);
    assert_int_equal(ta.jump.dof_after, 2);
    assert_true(fabs((double)ta.impulse) > 1e-3 &&
                fabs((double)(ta.impulse - tb.impulse)) <= 1e-12);
    assert_true(fabs((double)a.cur.v[g->coords[0]]) <= 1e-12);
    assert_int_equal(mcs_sim_advance(&a, 0.6), MCS_OK);
    assert_int_equal(mcs_sim_advance(&b, 0.6), MCS_OK);
    for (i = 0; i < md->nx; ++i) {
        assert_true(fabs((double)(a.cur.x[i] - b.cur.x[i])) <= 1e-9);
    }
    assert_true(fabs((double)(a.cur.x[g->coords[0]] - a.lock_ref[0])) <= 1e-10);
}

static void test_spatial_ball_joint_lock_stops_the_slider_crank(void **state)
{
    const mcs_model *md = &slider_crank_model;
    const int gB = joint_group(md, "B");
    mcs_sim sim;
    mcs_transition tr;
    mcs_real norm;
    mcs_real kin, pot;
    (void)state;
    NEEDS(MCS_PART_EVENTS | MCS_PART_LOCKS | MCS_PART_PREDICTORS | MCS_PART_DENSE);
    assert_true(gB >= 0 && md->groups[gB].nrows == 3 && md->groups[gB].rotation == 7);
    start(&sim, md, &slider_crank_default_params, 6);
    assert_int_equal(mcs_sim_advance(&sim, 0.1), MCS_OK);
    assert_int_equal(mcs_sim_lock_group(&sim, 7, gB, MCS_JUMP_MINIMAL, JWORK, &tr), MCS_OK);
    /* three rotation rows where one freedom is left: two are dependent, the loop stops */
    assert_int_equal(tr.jump.dependent, 2);
    assert_int_equal(tr.jump.dof_after, 0);
    assert_true(tr.impulse > 0 && tr.impulse == tr.jump.impulse_norm);
    assert_true(max_abs(md->nx, sim.cur.v) <= 1e-12);
    assert_int_equal(mcs_sim_advance(&sim, 0.2), MCS_OK);
    assert_true(max_abs(md->nx, sim.cur.v) <= 1e-12);
    assert_int_equal(mcs_sim_constraint_norm(&sim, &norm), MCS_OK);
    assert_true(norm <= 1e-10);
    assert_int_equal(mcs_sim_energy(&sim, &kin, &pot), MCS_OK);
    assert_true(kin <= 1e-20);
}

static void test_prismatic_lock_beside_a_coordinate_lock(void **state)
{
    /* the slider's prismatic joint D (one translation row) and the crank's coordinate x: the
     * coordinate lock is redundant once D holds, so it is dependent and costs no impulse */
    const mcs_model *md = &slider_crank_model;
    const int gD = joint_group(md, "D");
    mcs_sim sim;
    mcs_transition tr;
    (void)state;
    NEEDS(MCS_PART_EVENTS | MCS_PART_LOCKS | MCS_PART_PREDICTORS | MCS_PART_DENSE);
    assert_true(gD >= 0 && md->groups[gD].rotation == 0 && md->groups[gD].nrows == 1);
    start(&sim, md, &slider_crank_default_params, 2);
    assert_int_equal(mcs_sim_advance(&sim, 0.05), MCS_OK);
    assert_int_equal(mcs_sim_lock_group(&sim, 3, gD, MCS_JUMP_MINIMAL, JWORK, &tr), MCS_OK);
    assert_int_equal(tr.jump.dof_after, 0);
    assert_true(max_abs(md->nx, sim.cur.v) <= 1e-12);
    assert_int_equal(mcs_sim_lock(&sim, 14, MCS_JUMP_MINIMAL, JWORK, &tr), MCS_OK); /* slider.x */
    assert_int_equal(tr.jump.dependent, 1);
    assert_true(tr.impulse == 0 && max_abs(md->nx, dv) == 0);
    /* the workspace was sized for 2 lock rows: a third does not fit */
    assert_int_equal(mcs_sim_lock(&sim, 0, MCS_JUMP_MINIMAL, JWORK, &tr), MCS_ERR_WORKSPACE);
}

static void test_group_arguments_are_checked(void **state)
{
    const mcs_model *md = &slider_crank_model;
    mcs_sim sim;
    (void)state;
    NEEDS(MCS_PART_EVENTS | MCS_PART_LOCKS | MCS_PART_PREDICTORS | MCS_PART_DENSE);
    start(&sim, md, &slider_crank_default_params, 2);
    assert_int_equal(mcs_sim_lock_group(&sim, 1, md->ngroups, MCS_JUMP_MINIMAL, JWORK, NULL),
                     MCS_ERR_ARGUMENT);
    assert_int_equal(mcs_sim_lock_group(&sim, -1, 0, MCS_JUMP_MINIMAL, JWORK, NULL),
                     MCS_ERR_ARGUMENT);
    assert_int_equal(mcs_sim_lock_group(NULL, 1, 0, MCS_JUMP_MINIMAL, JWORK, NULL),
                     MCS_ERR_ARGUMENT);
    /* a spherical joint's lock takes 3 rows: more than the 2 the workspace has room for */
    assert_int_equal(
        mcs_sim_lock_group(&sim, 1, joint_group(md, "B"), MCS_JUMP_MINIMAL, JWORK, NULL),
        MCS_ERR_WORKSPACE);
    assert_int_equal(sim.nlocks, 0);
    assert_int_equal(sim.m, md->nc);
}

static void test_a_group_that_cannot_form_its_rows_is_refused(void **state)
{
    /* a descriptor whose group holds a coordinate outside x, or has both coordinates and
     * kernels, or neither: refused at the lock, before any row is read or a kernel called */
    const mcs_model *base = &pendulum_3r_bodies_model;
    const int g1 = joint_group(base, "J1");
    static mcs_row_group groups[16];
    static const int outside[1] = {PENDULUM_3R_BODIES_NX};
    static const int below[1] = {-1};
    const mcs_row_group *kernels = NULL;
    mcs_model md = *base;
    mcs_sim sim;
    int i;
    (void)state;
    NEEDS(MCS_PART_EVENTS | MCS_PART_LOCKS | MCS_PART_PREDICTORS | MCS_PART_DENSE);
    assert_true(g1 >= 0 && base->ngroups <= 16 && base->groups[g1].coords != NULL);
    for (i = 0; i < base->ngroups; ++i) {
        if (base->groups[i].g != NULL && base->groups[i].rotation == 0) {
            kernels = &base->groups[i];
        }
    }
    assert_non_null(kernels);
    md.groups = groups;
    for (i = 0; i < 4; ++i) {
        (void)memcpy(groups, base->groups, (size_t)base->ngroups * sizeof *groups);
        if (i == 0) {
            groups[g1].coords = outside;
        } else if (i == 1) {
            groups[g1].coords = below;
        } else if (i == 2) {
            groups[g1].g = kernels->g; /* coordinates and a kernel */
        } else {
            groups[g1].coords = NULL; /* neither */
        }
        start(&sim, &md, &pendulum_3r_bodies_default_params, 2);
        assert_int_equal(mcs_sim_lock_group(&sim, 1, g1, MCS_JUMP_MINIMAL, JWORK, NULL),
                         MCS_ERR_ARGUMENT);
        assert_int_equal(sim.nlocks, 0);
    }
    (void)memcpy(groups, base->groups, (size_t)base->ngroups * sizeof *groups);
    start(&sim, &md, &pendulum_3r_bodies_default_params, 2);
    assert_int_equal(mcs_sim_lock_group(&sim, 1, g1, MCS_JUMP_MINIMAL, JWORK, NULL), MCS_OK);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_planar_joint_locks_unlock_in_any_order),
        cmocka_unit_test(test_a_coordinate_group_locks_as_the_coordinate_lock_does),
        cmocka_unit_test(test_spatial_ball_joint_lock_stops_the_slider_crank),
        cmocka_unit_test(test_prismatic_lock_beside_a_coordinate_lock),
        cmocka_unit_test(test_group_arguments_are_checked),
        cmocka_unit_test(test_a_group_that_cannot_form_its_rows_is_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
