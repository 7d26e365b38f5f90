/* test_memory.c - the caller-sized memory (mcs_memory.c): mcs_sim_memory_size equals the
 * compile-time macro, exactly that many bytes run (under ASan, the block malloc'ed to the byte)
 * and one byte fewer is refused, options that use less get less, and a run in assigned memory
 * equals the same run in mcs_sim_init's workspace (a buffer carved too small would overwrite its
 * neighbour and change the numbers; test_same.h: bit for bit with the portable backend), and
 * mcs_sim_init's workspace macros (MCS_SIM_WORK_SIZE, MCS_SIM_IWORK_SIZE) equal the layout's
 * count (mcs_sim_workspace_size). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "test_needs.h"
#include "test_same.h"

#include "mcs/mcs_sim.h"
#include "planar_pendulum_redundant.h"
#include "slider_crank.h"
#include "spatial_pendulum.h"

static mcs_real work[MCS_SIM_WORK_SIZE(SLIDER_CRANK_NX, SLIDER_CRANK_NC + 2)];
static int iwork[MCS_SIM_IWORK_SIZE(SLIDER_CRANK_NX, SLIDER_CRANK_NC + 2)];
#define WORK_ARGS work, sizeof work / sizeof *work, iwork, sizeof iwork / sizeof *iwork

/* Options with exactly the features `feat` (EULER and EXP not both). */
static void options_for(const mcs_model *md, unsigned feat, int max_dof, mcs_options *opt)
{
    mcs_options_default(opt, md);
    opt->method = (feat & MCS_MEM_DOP853)     ? MCS_METHOD_DOP853
                  : (feat & MCS_MEM_DOPRI5)   ? MCS_METHOD_DOPRI5
                  : (feat & MCS_MEM_IMPLICIT) ? MCS_METHOD_ROS34PW2
                                              : MCS_METHOD_RK4;
    opt->continuation = (feat & MCS_MEM_EXP)     ? MCS_CONT_EXP
                        : (feat & MCS_MEM_EULER) ? MCS_CONT_EULER
                                                 : MCS_CONT_NONE;
    opt->dense_output = (feat & MCS_MEM_DENSE_OUTPUT) ? 1 : 0;
    opt->sing_tol = (feat & MCS_MEM_EVENTS) ? opt->sing_tol : 0;
    opt->max_locks = (feat & MCS_MEM_LOCKS) ? 2 : 0;
    opt->max_dof = max_dof;
    opt->variant = (feat & MCS_MEM_COMPACT)  ? MCS_VARIANT_COMPACT
                   : (feat & MCS_MEM_BANDED) ? MCS_VARIANT_BANDED
                                             : MCS_VARIANT_DENSE;
    opt->h = 1e-3;
    opt->rtol = 1e-9;
    opt->atol = 1e-11;
}

/* The parts of the runtime (MCS_PART_*) that options with the features `feat` use. */
static unsigned parts_used(unsigned feat)
{
    unsigned parts = (feat & MCS_MEM_COMPACT)  ? MCS_PART_COMPACT
                     : (feat & MCS_MEM_BANDED) ? MCS_PART_BANDED
                                               : MCS_PART_DENSE;
    parts |= (feat & MCS_MEM_DOP853) ? MCS_PART_DOP853 : 0u;
    parts |= (feat & MCS_MEM_IMPLICIT) ? MCS_PART_IMPLICIT : 0u;
    parts |= (feat & (MCS_MEM_EULER | MCS_MEM_EXP)) ? MCS_PART_PREDICTORS : 0u;
    parts |= (feat & MCS_MEM_EVENTS) ? MCS_PART_EVENTS : 0u;
    parts |= (feat & MCS_MEM_LOCKS) ? MCS_PART_LOCKS : 0u;
    return parts;
}

/* Whether options with the features `feat` run on a model with nc rows: the compact layout has
 * no probe frame, events or locks; the banded layout none of those, no exp and needs rows; and
 * the build must have the parts they use (mcs_config.h's MCS_WITH_*). */
static int supported(unsigned feat, int nc)
{
    const unsigned probe = MCS_MEM_DENSE_OUTPUT | MCS_MEM_EVENTS | MCS_MEM_LOCKS;
    if ((mcs_runtime_parts() & parts_used(feat)) != parts_used(feat))
        return 0;
    if ((feat & MCS_MEM_COMPACT) && (feat & probe))
        return 0;
    if ((feat & MCS_MEM_BANDED) && ((feat & (probe | MCS_MEM_EXP | MCS_MEM_IMPLICIT)) || nc < 1))
        return 0;
    return 1;
}

static void test_size_equals_the_macro_for_every_feature_set(void **state)
{
    mcs_model md = spatial_pendulum_model;
    const mcs_band_structure *band = md.band;
    unsigned feat;
    (void)state;
    assert_non_null(band);
    for (md.nx = 1; md.nx <= 24; ++md.nx)
        for (md.nc = 0; md.nc <= 26; md.nc += 1 + (md.nc > 6))
            for (feat = 0; feat <= (MCS_MEM_ALL | MCS_MEM_COMPACT | MCS_MEM_BANDED); ++feat) {
                const int nx = md.nx, nc = md.nc;
                int f;
                if (((feat & MCS_MEM_DOPRI5) && (feat & MCS_MEM_DOP853)) ||
                    ((feat & (MCS_MEM_DOPRI5 | MCS_MEM_DOP853)) && (feat & MCS_MEM_IMPLICIT)))
                    continue; /* one method at a time */
                if ((feat & MCS_MEM_EULER) && (feat & MCS_MEM_EXP))
                    continue;
                if ((feat & MCS_MEM_COMPACT) && (feat & MCS_MEM_BANDED))
                    continue; /* one variant at a time */
                if (!supported(feat, nc)) {
                    mcs_options opt;
                    options_for(&md, feat, 0, &opt);
                    assert_int_equal(mcs_sim_memory_size(&md, &opt), 0); /* unsupported */
                    continue;
                }
                for (f = 0; f <= nx; f += 1 + (f > 3)) {
                    mcs_options opt;
                    const int m = nc + ((feat & MCS_MEM_LOCKS) ? 2 : 0);
                    options_for(&md, feat, f, &opt);
                    assert_int_equal(mcs_sim_memory_features(&opt), feat);
                    assert_int_equal(mcs_sim_memory_size(&md, &opt),
                                     MCS_SIM_MEMORY_REALS(nx, m, md.a_nnz, md.m_nnz, band->width,
                                                          band->nrot, band->kkt_band, f, md.nheld,
                                                          feat) *
                                         sizeof(mcs_real));
                }
            }
}

/* The end state of a run of t_end in memory assigned from an exact malloc'ed block; returns the
 * status of the run. */
static mcs_status run_assigned(const mcs_model *md, const mcs_options *opt, double t_end,
                               mcs_real *x_end)
{
    const size_t size = mcs_sim_memory_size(md, opt);
    void *raw;
    mcs_sim sim;
    mcs_status st;
    int i;
    assert_true(size > 0);
    raw = malloc(size); /* ASan: a byte written past it is an error */
    assert_non_null(raw);
    assert_int_equal(mcs_sim_assign(&sim, md, md->default_params, opt, raw, size - 1),
                     MCS_ERR_WORKSPACE);
    assert_int_equal(mcs_sim_assign(&sim, md, md->default_params, opt, raw, size), MCS_OK);
    st = mcs_sim_start(&sim, 0, NULL);
    if (st == MCS_OK)
        st = mcs_sim_advance(&sim, t_end);
    for (i = 0; i < md->nx; ++i)
        x_end[i] = sim.cur.x[i];
    free(raw);
    return st;
}

static void run_initialized(const mcs_model *md, const mcs_options *opt, double t_end,
                            mcs_real *x_end)
{
    mcs_sim sim;
    int i;
    assert_int_equal(mcs_sim_init(&sim, md, md->default_params, opt, WORK_ARGS), MCS_OK);
    assert_int_equal(mcs_sim_start(&sim, 0, NULL), MCS_OK);
    assert_int_equal(mcs_sim_advance(&sim, t_end), MCS_OK);
    for (i = 0; i < md->nx; ++i)
        x_end[i] = sim.cur.x[i];
}

static void same_run(const mcs_model *md, unsigned feat, int max_dof, double t_end)
{
    mcs_options opt;
    mcs_real lean[SLIDER_CRANK_NX], full[SLIDER_CRANK_NX];
    options_for(md, feat, max_dof, &opt);
    assert_int_equal(run_assigned(md, &opt, t_end, lean), MCS_OK);
    run_initialized(md, &opt, t_end, full);
    assert_same(lean, full, md->nx, 1e-12);
}

static void test_assigned_runs_equal_initialized_runs(void **state)
{
    (void)state;
    NEEDS(MCS_PART_DOP853 | MCS_PART_EVENTS | MCS_PART_LOCKS | MCS_PART_PREDICTORS |
          MCS_PART_DENSE);
    /* the firmware configuration: RK4, continuation none, one free direction */
    same_run(&slider_crank_model, 0U, 1, 0.2);
    same_run(&slider_crank_model, MCS_MEM_EXP, 1, 0.1);
    same_run(&slider_crank_model,
             MCS_MEM_DOPRI5 | MCS_MEM_EXP | MCS_MEM_DENSE_OUTPUT | MCS_MEM_EVENTS, 0, 0.1);
    same_run(&spatial_pendulum_model, 0U, 2, 1.0);
    same_run(&spatial_pendulum_model, MCS_MEM_EULER | MCS_MEM_EVENTS, 0, 1.0);
    same_run(&spatial_pendulum_model, MCS_MEM_DOPRI5 | MCS_MEM_LOCKS, 0, 1.0);
    same_run(&spatial_pendulum_model, MCS_MEM_DOP853 | MCS_MEM_DENSE_OUTPUT | MCS_MEM_EVENTS, 0,
             1.0);
    /* dependent rows: rank 1 of 2 */
    same_run(&planar_pendulum_redundant_model, MCS_MEM_DENSE_OUTPUT, 1, 1.0);
}

/* The file's state as a run-time function of the parameters (what a model with free geometry
 * has): the slider-crank's own x0, and v0 = 0 where its held crank rate decides it (all) */
static void initial_of_the_file(const mcs_real *x, mcs_real t, const void *p, mcs_real *out)
{
    int i;
    (void)x, (void)t, (void)p;
    for (i = 0; i < SLIDER_CRANK_NX; ++i) {
        out[i] = slider_crank_model.x0[i];
        out[SLIDER_CRANK_NX + i] = 0;
    }
}

/* mcs_sim_start with parameters other than the defaults builds [x0; v0] (2 n) and the held
 * velocities in scratch of its own: in a layout for one free direction it used y0 and y1
 * (2 f each), overran them, and the held velocities overwrote the initial ones before the
 * report's dv was measured against them. */
static void test_start_with_parameters_in_a_small_layout(void **state)
{
    mcs_model md = slider_crank_model;
    slider_crank_params p = slider_crank_default_params;
    mcs_options opt;
    mcs_sim a, b;
    mcs_assembly ra, rb;
    size_t size;
    void *raw;
    int i;
    (void)state;
    NEEDS(MCS_PART_DENSE | MCS_PART_COMPACT);
    md.initial = initial_of_the_file;
    p.mcs_p_g = 9.80; /* not the default: the run-time construction */
    for (i = 0; i < 2; ++i) {
        options_for(&md, i ? MCS_MEM_COMPACT : 0U, 1, &opt);
        size = mcs_sim_memory_size(&md, &opt);
        raw = malloc(size);
        assert_non_null(raw);
        assert_int_equal(mcs_sim_assign(&a, &md, &p, &opt, raw, size), MCS_OK);
        assert_int_equal(mcs_sim_init(&b, &md, &p, &opt, WORK_ARGS), MCS_OK);
        assert_int_equal(mcs_sim_start(&a, 0, &ra), MCS_OK);
        assert_int_equal(mcs_sim_start(&b, 0, &rb), MCS_OK);
        assert_same(&ra.dv_norm, &rb.dv_norm, 1, 1e-13);
        assert_same(&ra.dx_norm, &rb.dx_norm, 1, 1e-13);
        assert_true(rb.dv_norm > 0.1); /* the held crank rate changes the file's velocities */
        assert_same(a.cur.x, b.cur.x, md.nx, 1e-12);
        assert_same(a.cur.v, b.cur.v, md.nx, 1e-12);
        assert_int_equal(mcs_sim_advance(&a, 0.05), MCS_OK);
        assert_int_equal(mcs_sim_advance(&b, 0.05), MCS_OK);
        assert_same(a.cur.x, b.cur.x, md.nx, 1e-12);
        free(raw);
    }
}

static void test_options_that_use_less_get_less(void **state)
{
    const mcs_model *md = &slider_crank_model;
    mcs_options lean, opt;
    size_t reals = 0, ints = 0;
    (void)state;
    NEEDS(MCS_PART_DOP853 | MCS_PART_EVENTS | MCS_PART_PREDICTORS | MCS_PART_DENSE);
    options_for(md, 0U, 1, &lean);
    options_for(md, 0U, 0, &opt); /* bases of any size */
    assert_true(mcs_sim_memory_size(md, &lean) < mcs_sim_memory_size(md, &opt));
    options_for(md, MCS_MEM_EULER, 1, &opt); /* A_dot */
    assert_true(mcs_sim_memory_size(md, &lean) < mcs_sim_memory_size(md, &opt));
    options_for(md, MCS_MEM_DOPRI5, 1, &opt); /* three more stages, the error */
    assert_true(mcs_sim_memory_size(md, &lean) < mcs_sim_memory_size(md, &opt));
    {
        const size_t dopri5 = mcs_sim_memory_size(md, &opt);
        options_for(md, MCS_MEM_DOP853, 1, &opt); /* nine more */
        assert_true(dopri5 < mcs_sim_memory_size(md, &opt));
    }
    options_for(md, MCS_MEM_DENSE_OUTPUT, 1, &opt); /* the probe frame */
    assert_true(mcs_sim_memory_size(md, &lean) < mcs_sim_memory_size(md, &opt));
    {
        const size_t dense = mcs_sim_memory_size(md, &opt);
        options_for(md, MCS_MEM_DENSE_OUTPUT | MCS_MEM_EVENTS, 1, &opt); /* and the event record */
        assert_true(dense < mcs_sim_memory_size(md, &opt));
    }
    /* mcs_sim_init's workspace holds the largest of them */
    options_for(md, MCS_MEM_ALL & ~MCS_MEM_EULER, 0, &opt);
    assert_int_equal(mcs_sim_workspace_size(md->nx, md->nc + 2, &reals, &ints), MCS_OK);
    assert_true(mcs_sim_memory_size(md, &opt) <= (reals * sizeof(mcs_real)) + (ints * sizeof(int)));
    printf("slider-crank memory: RK4 none max_dof 1 %zu B, any dof %zu B, init %zu B\n",
           mcs_sim_memory_size(md, &lean),
           (options_for(md, 0U, 0, &opt), mcs_sim_memory_size(md, &opt)),
           (reals * sizeof(mcs_real)) + (ints * sizeof(int)));
}

/* What the memory was not given is a status, not an overrun. */
static void test_what_the_memory_lacks_is_a_status(void **state)
{
    const mcs_model *md = &spatial_pendulum_model;
    static mcs_real block[SPATIAL_PENDULUM_SIM_MEMORY(1, 0U)];
    mcs_options opt;
    mcs_sim sim;
    mcs_real x[3], v[3], q[3], qd[3], lambda[1];
    (void)state;
    NEEDS(MCS_PART_DENSE);
    options_for(md, 0U, 1, &opt); /* one free direction: the spherical pendulum has two */
    assert_int_equal(mcs_sim_assign(&sim, md, md->default_params, &opt, block, sizeof block),
                     MCS_OK);
    assert_int_equal(mcs_sim_start(&sim, 0, NULL), MCS_ERR_WORKSPACE);
    options_for(md, 0U, 2, &opt);
    assert_int_equal(mcs_sim_assign(&sim, md, md->default_params, &opt, block, sizeof block),
                     MCS_ERR_WORKSPACE);
    {
        static mcs_real two[SPATIAL_PENDULUM_SIM_MEMORY(2, 0U)];
        assert_int_equal(mcs_sim_assign(&sim, md, md->default_params, &opt, two, sizeof two),
                         MCS_OK);
        assert_int_equal(mcs_sim_start(&sim, 0, NULL), MCS_OK);
        assert_int_equal(mcs_sim_advance(&sim, 0.01), MCS_OK);
        /* x and v of dense output need only the chart; q, qd and the multipliers the probe */
        assert_int_equal(mcs_sim_dense(&sim, 0.0095, x, v, NULL, NULL), MCS_OK);
        assert_int_equal(mcs_sim_dense(&sim, 0.0095, x, v, q, qd), MCS_ERR_UNSUPPORTED);
        assert_int_equal(mcs_sim_multipliers(&sim, sim.cur.t, sim.cur.x, sim.cur.v, lambda),
                         MCS_ERR_UNSUPPORTED);
        sim.opt.method = MCS_METHOD_DOPRI5; /* needs stages it was not given */
        assert_int_equal(mcs_sim_step(&sim, 1.0), MCS_ERR_ARGUMENT);
        sim.opt.method = MCS_METHOD_RK4;
        sim.opt.sing_tol = 1e-6; /* needs the probe and the event record */
        assert_int_equal(mcs_sim_step(&sim, 1.0), MCS_ERR_ARGUMENT);
        sim.opt.sing_tol = 0;
        assert_int_equal(mcs_sim_step(&sim, 1.0), MCS_OK);
        assert_int_equal(mcs_sim_assign(NULL, md, md->default_params, &opt, two, sizeof two),
                         MCS_ERR_ARGUMENT);
        assert_int_equal(mcs_sim_assign(&sim, md, md->default_params, &opt, NULL, sizeof two),
                         MCS_ERR_ARGUMENT);
        opt.max_dof = 4; /* more than n */
        assert_int_equal(mcs_sim_memory_size(md, &opt), 0);
    }
}

/* The compile-time size macros equal what the carver counts from the layout itself. */
static void test_workspace_macros_equal_the_layout(void **state)
{
    int n, m;
    (void)state;
    NEEDS(MCS_PART_DOP853 | MCS_PART_IMPLICIT); /* the macros count every part's buffers */
    for (n = 1; n <= 40; ++n)
        for (m = 0; m <= 45; ++m) {
            size_t reals = 0, ints = 0;
            assert_int_equal(mcs_sim_workspace_size(n, m, &reals, &ints), MCS_OK);
            assert_int_equal(reals, (size_t)MCS_SIM_WORK_SIZE(n, m));
            assert_int_equal(ints, (size_t)MCS_SIM_IWORK_SIZE(n, m));
        }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_size_equals_the_macro_for_every_feature_set),
        cmocka_unit_test(test_assigned_runs_equal_initialized_runs),
        cmocka_unit_test(test_options_that_use_less_get_less),
        cmocka_unit_test(test_start_with_parameters_in_a_small_layout),
        cmocka_unit_test(test_what_the_memory_lacks_is_a_status),
        cmocka_unit_test(test_workspace_macros_equal_the_layout),
    };
    return cmocka_run_group_tests_name("memory", tests, NULL, NULL);
}
