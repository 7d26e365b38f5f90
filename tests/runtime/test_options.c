/* test_options.c - the one options unit (mcs_options.c: defaults, ranges, refusals): the
 * status codes of bad arguments and options, a model without the predictor kernels, the inputs
 * a glitch produces; the refusals (mcs_sim_refusals: MCS_REFUSE_* bits for what a variant, the
 * model or this build does not take, MCS_REFUSE_INVALID for no run at all) and mcs_sim_init's
 * and mcs_sim_assign's answers agreeing with them, in every build of the parts (a part left out:
 * MCS_REFUSE_NOT_COMPILED); the methods' names and flags (mcs_method_table.c) and the variants'
 * names (mcs_variant.c). Models: spatial_pendulum (n = 3, m = 1), slider_crank (n = 21, m = 20,
 * with a band structure), pendulum_3r (no rows), modified_triple_four_bar (rows without a band
 * structure). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "test_needs.h"

#include "mcs/mcs_sim.h"
#include "test_runs.h"
#include "modified_triple_four_bar.h"
#include "pendulum_3r.h"
#include "slider_crank.h"
#include "spatial_pendulum.h"

/* the largest model here, with a lock row */
#define NMAX SLIDER_CRANK_NX
#define MMAX (SLIDER_CRANK_NC + 1)
static mcs_real work[MCS_SIM_WORK_SIZE(NMAX, MMAX)];
static int iwork[MCS_SIM_IWORK_SIZE(NMAX, MMAX)];
#define WORK_ARGS work, sizeof work / sizeof *work, iwork, sizeof iwork / sizeof *iwork

static void test_status_codes(void **state)
{
    const mcs_model *md = &spatial_pendulum_model;
    mcs_model wrong_abi = spatial_pendulum_model;
    mcs_sim sim;
    mcs_options opt;
    size_t need = 0, ineed = 0;
    int s;
    (void)state;
    NEEDS(MCS_PART_EVENTS | MCS_PART_PREDICTORS | MCS_PART_DENSE);
    assert_int_equal(md->nj, 0); /* a model given by coordinates has no joints */
    assert_true(md->joints == NULL);
    assert_int_equal(mcs_options_default(NULL, md), MCS_ERR_ARGUMENT);
    assert_int_equal(mcs_options_default(&opt, md), MCS_OK);
    assert_int_equal(mcs_sim_workspace_size(3, 1, &need, &ineed), MCS_OK);
    assert_int_equal(mcs_sim_workspace_size(0, 1, &need, &ineed), MCS_ERR_ARGUMENT);
    assert_int_equal(
        mcs_sim_init(&sim, md, &spatial_pendulum_default_params, &opt, work, need - 1, iwork, 1000),
        MCS_ERR_WORKSPACE);
    assert_int_equal(mcs_sim_init(&sim, md, &spatial_pendulum_default_params, &opt, work, need,
                                  iwork, ineed - 1),
                     MCS_ERR_WORKSPACE);
    assert_int_equal(
        mcs_sim_init(&sim, md, &spatial_pendulum_default_params, &opt, work, need, iwork, ineed),
        MCS_OK);
    wrong_abi.abi_version = MCS_MODEL_ABI_VERSION + 1;
    assert_int_equal(
        mcs_sim_init(&sim, &wrong_abi, &spatial_pendulum_default_params, &opt, WORK_ARGS),
        MCS_ERR_MODEL_VERSION);
    assert_int_equal(mcs_sim_init(NULL, md, &spatial_pendulum_default_params, &opt, WORK_ARGS),
                     MCS_ERR_ARGUMENT);
    opt.h = -1;
    assert_int_equal(mcs_sim_init(&sim, md, &spatial_pendulum_default_params, &opt, WORK_ARGS),
                     MCS_ERR_ARGUMENT);
    mcs_options_default(&opt, md);
    assert_int_equal(mcs_sim_init(&sim, md, &spatial_pendulum_default_params, &opt, WORK_ARGS),
                     MCS_OK);
    {
        const mcs_real x_nan[3] = {NAN, 0, 0};
        assert_int_equal(mcs_sim_set_state(&sim, 0, x_nan, md->v0, NULL), MCS_ERR_NONFINITE);
    }
    assert_int_equal(mcs_sim_set_state(&sim, 0, md->x0, md->v0, NULL), MCS_OK);
    assert_int_equal(mcs_sim_step(&sim, 0.0), MCS_ERR_ARGUMENT); /* target not ahead */
    {
        mcs_real x[3], v[3];
        assert_int_equal(mcs_sim_dense(&sim, 0.0, x, v, NULL, NULL), MCS_ERR_NO_DENSE);
    }
    for (s = 0; s < MCS_NSTATUS; ++s)
        assert_true(strlen(mcs_status_str((mcs_status)s)) > 1);
    assert_string_equal(mcs_status_str(MCS_NSTATUS), "unknown status");
}

/* A firmware build (mcsgen generate --firmware) leaves kernel sets out: without A_dot the euler
 * and exp predictors are refused with MCS_ERR_UNSUPPORTED (at init, and at the step when the
 * options change afterwards), and continuation none runs as with every kernel, bit for bit. */
static void test_a_model_without_the_predictor_kernels(void **state)
{
    mcs_model subset = spatial_pendulum_model;
    mcs_options opt;
    mcs_sim sim;
    mcs_real full[3], lean[3];
    int i;
    (void)state;
    NEEDS(MCS_PART_EVENTS | MCS_PART_DENSE);
    subset.A_dot = NULL;
    mcs_options_default(&opt, &subset);
    opt.continuation = MCS_CONT_EXP;
    assert_int_equal(mcs_sim_init(&sim, &subset, subset.default_params, &opt, WORK_ARGS),
                     MCS_ERR_UNSUPPORTED);
    opt.continuation = MCS_CONT_EULER;
    assert_int_equal(mcs_sim_init(&sim, &subset, subset.default_params, &opt, WORK_ARGS),
                     MCS_ERR_UNSUPPORTED);
    opt.continuation = MCS_CONT_NONE;
    assert_int_equal(mcs_sim_init(&sim, &subset, subset.default_params, &opt, WORK_ARGS), MCS_OK);
    assert_int_equal(mcs_sim_start(&sim, 0, NULL), MCS_OK);
    sim.opt.continuation = MCS_CONT_EXP; /* changed behind init's back */
    assert_int_equal(mcs_sim_step(&sim, 1.0), MCS_ERR_UNSUPPORTED);
    run_to(&subset, subset.default_params, MCS_METHOD_RK4, MCS_CONT_NONE, 1e-3, 1e-8, 0.5, lean);
    run_to(&spatial_pendulum_model, spatial_pendulum_model.default_params, MCS_METHOD_RK4,
           MCS_CONT_NONE, 1e-3, 1e-8, 0.5, full);
    for (i = 0; i < 3; ++i)
        assert_true(lean[i] == full[i]);
    /* the kernels every run needs are not optional */
    subset.gamma = NULL;
    assert_int_equal(mcs_sim_init(&sim, &subset, subset.default_params, &opt, WORK_ARGS),
                     MCS_ERR_ARGUMENT);
}

/* What a firmware caller gets for the inputs a glitch produces (issue 16; the fuzz harness
 * tests/fuzz/fuzz_runtime.c throws every kind of them): a status, and a simulator that refuses
 * to go on from a state it could not set. */
static void test_hostile_inputs_get_statuses(void **state)
{
    const mcs_model *md = &spatial_pendulum_model;
    spatial_pendulum_params bad = spatial_pendulum_default_params;
    mcs_sim sim;
    mcs_options opt;
    mcs_real x[3], v[3], q[3], T, V;
    size_t need = 0, ineed = 0;
    (void)state;
    NEEDS(MCS_PART_EVENTS | MCS_PART_PREDICTORS | MCS_PART_DENSE);
    mcs_options_default(&opt, md);
    /* a too-small workspace */
    assert_int_equal(mcs_sim_workspace_size(3, 1, &need, &ineed), MCS_OK);
    assert_int_equal(mcs_sim_init(&sim, md, &spatial_pendulum_default_params, &opt, work, need - 1,
                                  iwork, ineed),
                     MCS_ERR_WORKSPACE);
    assert_int_equal(mcs_sim_workspace_size(MCS_MAX_DIM + 1, 1, &need, &ineed), MCS_ERR_ARGUMENT);
    /* corrupted options: NaN, infinite, out of range */
    opt.h = (mcs_real)NAN;
    assert_int_equal(mcs_sim_init(&sim, md, &spatial_pendulum_default_params, &opt, WORK_ARGS),
                     MCS_ERR_ARGUMENT);
    mcs_options_default(&opt, md);
    opt.rank_tol = (mcs_real)INFINITY;
    assert_int_equal(mcs_sim_init(&sim, md, &spatial_pendulum_default_params, &opt, WORK_ARGS),
                     MCS_ERR_ARGUMENT);
    mcs_options_default(&opt, md);
    opt.max_locks = 1 << 30; /* would overflow the workspace size */
    assert_int_equal(mcs_sim_init(&sim, md, &spatial_pendulum_default_params, &opt, WORK_ARGS),
                     MCS_ERR_ARGUMENT);
    mcs_options_default(&opt, md);
    assert_int_equal(mcs_sim_init(&sim, md, &spatial_pendulum_default_params, &opt, WORK_ARGS),
                     MCS_OK);
    /* nothing to step from before a state is set */
    assert_int_equal(mcs_sim_step(&sim, 1), MCS_ERR_ARGUMENT);
    /* a NaN (or infinite) state, or time: refused, and the simulator has no state after it */
    memcpy(x, md->x0, sizeof x);
    memcpy(v, md->v0, sizeof v);
    x[1] = (mcs_real)NAN;
    assert_int_equal(mcs_sim_set_state(&sim, 0, x, v, NULL), MCS_ERR_NONFINITE);
    assert_int_equal(mcs_sim_advance(&sim, 1), MCS_ERR_ARGUMENT);
    assert_int_equal(mcs_sim_energy(&sim, &T, &V), MCS_ERR_ARGUMENT);
    x[1] = (mcs_real)INFINITY;
    assert_int_equal(mcs_sim_set_state(&sim, 0, x, v, NULL), MCS_ERR_NONFINITE);
    assert_int_equal(mcs_sim_set_state(&sim, (mcs_real)INFINITY, md->x0, md->v0, NULL),
                     MCS_ERR_NONFINITE);
    assert_int_equal(mcs_sim_set_state(&sim, 0, md->x0, md->v0, NULL), MCS_OK);
    /* unreachable target times: NaN and infinity are refused, a far one hits max_steps */
    assert_int_equal(mcs_sim_advance(&sim, (mcs_real)NAN), MCS_ERR_ARGUMENT);
    assert_int_equal(mcs_sim_advance(&sim, (mcs_real)INFINITY), MCS_ERR_ARGUMENT);
    assert_int_equal(mcs_sim_step(&sim, (mcs_real)NAN), MCS_ERR_ARGUMENT);
    sim.opt.max_steps = 10;
    assert_int_equal(mcs_sim_advance(&sim, 1e12), MCS_ERR_LIMIT);
    assert_true(sim.cur.t > 0 && sim.cur.t < 1); /* the state of the last step taken */
    assert_int_equal(mcs_sim_energy(&sim, &T, &V), MCS_OK);
    /* dense output at NaN: no dense output there */
    assert_int_equal(mcs_sim_dense(&sim, (mcs_real)NAN, x, v, q, NULL), MCS_ERR_NO_DENSE);
    /* non-finite parameters: the first kernel evaluation says so, the state is kept */
    bad.mcs_p_g = (mcs_real)NAN;
    sim.params = &bad;
    assert_int_equal(mcs_sim_step(&sim, 2), MCS_ERR_NONFINITE);
    sim.params = &spatial_pendulum_default_params;
    assert_int_equal(mcs_sim_step(&sim, 2), MCS_OK);
    /* a step that cannot move time (h below the resolution of t) */
    mcs_options_default(&opt, md);
    opt.h = 1e-300;
    assert_int_equal(mcs_sim_init(&sim, md, &spatial_pendulum_default_params, &opt, WORK_ARGS),
                     MCS_OK);
    assert_int_equal(mcs_sim_set_state(&sim, 1, md->x0, md->v0, NULL), MCS_OK);
    assert_int_equal(mcs_sim_step(&sim, 2), MCS_ERR_STEP_TOO_SMALL);
    assert_string_equal(mcs_status_str(MCS_ERR_LIMIT),
                        "step or attempt limit reached (options max_steps, max_attempts)");
    /* a model without inputs: no inputs to set, no inverse dynamics; forward dynamics is the
     * plain one (u NULL: the sim's, none here) */
    {
        mcs_real u[1] = {1};
        mcs_real a[7], lam[8], idw[1];
        mcs_inverse_report rep;
        assert_int_equal(mcs_sim_set_state(&sim, 1, md->x0, md->v0, NULL), MCS_OK);
        assert_int_equal(mcs_sim_set_inputs(&sim, u), MCS_ERR_UNSUPPORTED);
        assert_int_equal(mcs_sim_set_inputs(&sim, NULL), MCS_ERR_ARGUMENT);
        assert_int_equal(mcs_sim_set_inputs(NULL, u), MCS_ERR_ARGUMENT);
        assert_int_equal(mcs_sim_inverse_dynamics(&sim, 1, md->x0, md->v0, a, u, &rep, idw, 1),
                         MCS_ERR_UNSUPPORTED);
        assert_int_equal(mcs_sim_inverse_dynamics(&sim, 1, md->x0, md->v0, a, u, NULL, idw, 1),
                         MCS_ERR_ARGUMENT);
        assert_int_equal(mcs_sim_forward_dynamics(&sim, 1, md->x0, md->v0, NULL, a, NULL),
                         md->nc > 0 ? MCS_ERR_ARGUMENT : MCS_OK);
        assert_int_equal(mcs_sim_forward_dynamics(&sim, 1, md->x0, md->v0, NULL, a, lam), MCS_OK);
        assert_string_equal(mcs_status_str(MCS_ERR_UNACTUATED),
                            "the inputs act on no motion at this state");
    }
}

/* MCS_REFUSE_NOT_COMPILED when this build left out one of the parts (MCS_PART_*): what a build
 * without them adds to the refusals of options that need them (mcs_config.h's MCS_WITH_*) */
static unsigned unless_built(unsigned parts)
{
    return ((mcs_runtime_parts() & parts) != parts) ? MCS_REFUSE_NOT_COMPILED : 0U;
}

/* The part a method needs (mcs_sim.h: DOP853 and the ROS34PW2 pair are optional). */
static unsigned method_part(mcs_method method)
{
    if (method == MCS_METHOD_DOP853)
        return MCS_PART_DOP853;
    if (method == MCS_METHOD_ROS34PW2 || method == MCS_METHOD_ROS34PW2_FIXED)
        return MCS_PART_IMPLICIT;
    return 0U;
}

/* mcs_sim_refusals says `why` of the model and options, and the bindings agree with it:
 * mcs_sim_init and mcs_sim_assign answer MCS_ERR_UNSUPPORTED exactly when it is nonzero and not
 * MCS_REFUSE_INVALID (then both the same argument error), and bind the options otherwise
 * (mcs_sim_memory_size then nonzero, 0 when refused). A banded run is mcs_sim_assign's alone:
 * mcs_sim_init answers MCS_ERR_UNSUPPORTED to it whatever the refusals (its workspace has no
 * room for the band structure's sizes). */
static void refuses(const mcs_model *md, const mcs_options *opt, unsigned why)
{
    static mcs_real block[MCS_SIM_WORK_SIZE(NMAX, MMAX) + MCS_SIM_IWORK_SIZE(NMAX, MMAX)];
    const void *params = (md != NULL) ? md->default_params : spatial_pendulum_model.default_params;
    const int banded = (opt != NULL) && (opt->variant == MCS_VARIANT_BANDED);
    const size_t size = mcs_sim_memory_size(md, opt);
    mcs_sim sim;
    mcs_status st;
    assert_int_equal(mcs_sim_refusals(md, opt), why);
    st = mcs_sim_init(&sim, md, params, opt, WORK_ARGS);
    if ((why & MCS_REFUSE_INVALID) != 0U) {
        assert_true(st == MCS_ERR_ARGUMENT || st == MCS_ERR_MODEL_VERSION);
        assert_int_equal(mcs_sim_assign(&sim, md, params, opt, block, sizeof block), st);
        assert_int_equal(size, 0);
        return;
    }
    assert_int_equal(st, (why != 0U || banded) ? MCS_ERR_UNSUPPORTED : MCS_OK);
    assert_int_equal(size == 0, why != 0U);
    assert_true(size <= sizeof block);
    assert_int_equal(
        mcs_sim_assign(&sim, md, params, opt, block, (why != 0U) ? sizeof block : size),
        (why != 0U) ? MCS_ERR_UNSUPPORTED : MCS_OK);
}

/* Options every variant takes: RK4, continuation none, no dense output, no events, no locks. */
static void plain_options(const mcs_model *md, mcs_variant variant, mcs_options *opt)
{
    mcs_options_default(opt, md);
    opt->variant = variant;
    opt->method = MCS_METHOD_RK4;
    opt->continuation = MCS_CONT_NONE;
    opt->dense_output = 0;
    opt->sing_tol = 0;
    opt->max_locks = 0;
}

/* What the banded variant does not take, one refusal bit each (the slider-crank has a band
 * structure), and a model without one: no rows, or rows without a band (modified triple
 * four-bar: 16 rows on 15 coordinates). */
static void test_banded_refusals(void **state)
{
    const mcs_model *md = &slider_crank_model;
    mcs_model no_a_dot_nz = slider_crank_model;
    mcs_options opt;
    (void)state;
    NEEDS(MCS_PART_BANDED);
    assert_non_null(md->band);
    plain_options(md, MCS_VARIANT_BANDED, &opt);
    refuses(md, &opt, 0U);
    opt.dense_output = 1;
    refuses(md, &opt, MCS_REFUSE_DENSE_OUTPUT);
    plain_options(md, MCS_VARIANT_BANDED, &opt);
    opt.method = MCS_METHOD_ROS34PW2;
    refuses(md, &opt, MCS_REFUSE_IMPLICIT | unless_built(MCS_PART_IMPLICIT));
    opt.method = MCS_METHOD_ROS34PW2_FIXED;
    refuses(md, &opt, MCS_REFUSE_IMPLICIT | unless_built(MCS_PART_IMPLICIT));
    opt.method = MCS_METHOD_DOPRI5;
    refuses(md, &opt, 0U);
    opt.method = MCS_METHOD_DOP853;
    refuses(md, &opt, unless_built(MCS_PART_DOP853));
    plain_options(md, MCS_VARIANT_BANDED, &opt);
    opt.continuation = MCS_CONT_EXP;
    refuses(md, &opt, MCS_REFUSE_CONTINUATION | unless_built(MCS_PART_PREDICTORS));
    opt.continuation = MCS_CONT_EULER;
    refuses(md, &opt, unless_built(MCS_PART_PREDICTORS));
    opt.continuation = MCS_CONT_OFF;
    refuses(md, &opt, 0U);
    plain_options(md, MCS_VARIANT_BANDED, &opt);
    opt.max_locks = 1;
    refuses(md, &opt, MCS_REFUSE_LOCKS | unless_built(MCS_PART_LOCKS));
    plain_options(md, MCS_VARIANT_BANDED, &opt);
    opt.sing_tol = 1e-6;
    refuses(md, &opt, MCS_REFUSE_EVENTS | unless_built(MCS_PART_EVENTS));
    /* all of them at once: every bit */
    opt.dense_output = 1;
    opt.method = MCS_METHOD_ROS34PW2;
    opt.continuation = MCS_CONT_EXP;
    opt.max_locks = 1;
    refuses(md, &opt,
            MCS_REFUSE_DENSE_OUTPUT | MCS_REFUSE_IMPLICIT | MCS_REFUSE_CONTINUATION |
                MCS_REFUSE_LOCKS | MCS_REFUSE_EVENTS |
                unless_built(MCS_PART_IMPLICIT | MCS_PART_PREDICTORS | MCS_PART_LOCKS |
                             MCS_PART_EVENTS));
    /* euler's predictor reads A_dot by its nonzeros */
    no_a_dot_nz.A_dot_nz = NULL;
    plain_options(&no_a_dot_nz, MCS_VARIANT_BANDED, &opt);
    refuses(&no_a_dot_nz, &opt, 0U);
    opt.continuation = MCS_CONT_EULER;
    refuses(&no_a_dot_nz, &opt, MCS_REFUSE_NEEDS_A_DOT | unless_built(MCS_PART_PREDICTORS));
    /* nothing to band */
    md = &pendulum_3r_model;
    assert_int_equal(md->nc, 0);
    plain_options(md, MCS_VARIANT_BANDED, &opt);
    refuses(md, &opt, MCS_REFUSE_NO_BAND);
    md = &modified_triple_four_bar_model;
    assert_null(md->band);
    plain_options(md, MCS_VARIANT_BANDED, &opt);
    refuses(md, &opt, MCS_REFUSE_NO_BAND);
    opt.dense_output = 1;
    refuses(md, &opt, MCS_REFUSE_NO_BAND | MCS_REFUSE_DENSE_OUTPUT);
}

/* What the compact variant does not take: dense output, events, locks (and the predictors
 * without A_dot's nonzeros); every method and continuation it does. */
static void test_compact_refusals(void **state)
{
    const mcs_model *md = &slider_crank_model;
    mcs_model no_a_dot_nz = slider_crank_model;
    mcs_options opt;
    (void)state;
    NEEDS(MCS_PART_COMPACT);
    plain_options(md, MCS_VARIANT_COMPACT, &opt);
    refuses(md, &opt, 0U);
    opt.dense_output = 1;
    refuses(md, &opt, MCS_REFUSE_DENSE_OUTPUT);
    plain_options(md, MCS_VARIANT_COMPACT, &opt);
    opt.sing_tol = 1e-6;
    refuses(md, &opt, MCS_REFUSE_EVENTS | unless_built(MCS_PART_EVENTS));
    plain_options(md, MCS_VARIANT_COMPACT, &opt);
    opt.max_locks = 1;
    refuses(md, &opt, MCS_REFUSE_LOCKS | unless_built(MCS_PART_LOCKS));
    plain_options(md, MCS_VARIANT_COMPACT, &opt);
    opt.continuation = MCS_CONT_EXP;
    refuses(md, &opt, unless_built(MCS_PART_PREDICTORS));
    opt.continuation = MCS_CONT_EULER;
    refuses(md, &opt, unless_built(MCS_PART_PREDICTORS));
    opt.continuation = MCS_CONT_OFF;
    refuses(md, &opt, 0U);
    plain_options(md, MCS_VARIANT_COMPACT, &opt);
    opt.method = MCS_METHOD_DOPRI5;
    refuses(md, &opt, 0U);
    opt.method = MCS_METHOD_DOP853;
    refuses(md, &opt, unless_built(MCS_PART_DOP853));
    opt.method = MCS_METHOD_ROS34PW2;
    refuses(md, &opt, unless_built(MCS_PART_IMPLICIT));
    /* the predictors read A_dot by its nonzeros */
    no_a_dot_nz.A_dot_nz = NULL;
    plain_options(&no_a_dot_nz, MCS_VARIANT_COMPACT, &opt);
    refuses(&no_a_dot_nz, &opt, 0U);
    opt.continuation = MCS_CONT_EXP;
    refuses(&no_a_dot_nz, &opt, MCS_REFUSE_NEEDS_A_DOT | unless_built(MCS_PART_PREDICTORS));
    opt.continuation = MCS_CONT_EULER;
    refuses(&no_a_dot_nz, &opt, MCS_REFUSE_NEEDS_A_DOT | unless_built(MCS_PART_PREDICTORS));
}

/* The dense variant takes every valid option: each method, continuation, dense output or not,
 * events or not, locks or not, refused only for the parts this build left out. */
static void test_dense_variant_refuses_nothing_valid(void **state)
{
    const mcs_model *models[] = {&spatial_pendulum_model, &slider_crank_model};
    int k, method, c, dense, events, locks;
    (void)state;
    for (k = 0; k < 2; ++k)
        for (method = 0; method < MCS_METHOD_COUNT; ++method)
            for (c = MCS_CONT_EXP; c <= MCS_CONT_OFF; ++c)
                for (dense = 0; dense <= 1; ++dense)
                    for (events = 0; events <= 1; ++events)
                        for (locks = 0; locks <= 1; ++locks) {
                            mcs_options opt;
                            unsigned parts = MCS_PART_DENSE | method_part((mcs_method)method);
                            mcs_options_default(&opt, models[k]);
                            opt.method = (mcs_method)method;
                            opt.continuation = (mcs_continuation)c;
                            opt.dense_output = dense;
                            opt.sing_tol = events ? opt.sing_tol : 0;
                            opt.max_locks = locks;
                            parts |= (c == MCS_CONT_EXP || c == MCS_CONT_EULER)
                                         ? MCS_PART_PREDICTORS
                                         : 0U;
                            parts |= events ? MCS_PART_EVENTS : 0U;
                            parts |= locks ? MCS_PART_LOCKS : 0U;
                            refuses(models[k], &opt, unless_built(parts));
                        }
}

/* Each variant takes the plain options; a build without the variant refuses it as not
 * compiled (and nothing else). */
static void test_each_variant_takes_the_plain_options(void **state)
{
    const mcs_model *md = &slider_crank_model;
    const unsigned part[] = {MCS_PART_DENSE, MCS_PART_COMPACT, MCS_PART_BANDED};
    mcs_options opt;
    int v;
    (void)state;
    for (v = MCS_VARIANT_DENSE; v <= MCS_VARIANT_BANDED; ++v) {
        plain_options(md, (mcs_variant)v, &opt);
        refuses(md, &opt, unless_built(part[v]));
    }
}

/* What the model lacks: the predictors' A_dot (a model with rows), the implicit methods' force
 * tangents (K_f and D). */
static void test_what_the_model_lacks_is_refused(void **state)
{
    mcs_model subset = spatial_pendulum_model;
    mcs_options opt;
    (void)state;
    subset.A_dot = NULL;
    plain_options(&subset, MCS_VARIANT_DENSE, &opt);
    refuses(&subset, &opt, unless_built(MCS_PART_DENSE));
    opt.continuation = MCS_CONT_OFF;
    refuses(&subset, &opt, unless_built(MCS_PART_DENSE));
    opt.continuation = MCS_CONT_EXP;
    refuses(&subset, &opt,
            MCS_REFUSE_NEEDS_A_DOT | unless_built(MCS_PART_DENSE | MCS_PART_PREDICTORS));
    opt.continuation = MCS_CONT_EULER;
    refuses(&subset, &opt,
            MCS_REFUSE_NEEDS_A_DOT | unless_built(MCS_PART_DENSE | MCS_PART_PREDICTORS));
    /* no rows: nothing for A_dot to move */
    subset = pendulum_3r_model;
    subset.A_dot = NULL;
    plain_options(&subset, MCS_VARIANT_DENSE, &opt);
    opt.continuation = MCS_CONT_EXP;
    refuses(&subset, &opt, unless_built(MCS_PART_DENSE | MCS_PART_PREDICTORS));
    /* the implicit methods factor the chart Jacobian */
    subset = spatial_pendulum_model;
    subset.K_f = NULL;
    plain_options(&subset, MCS_VARIANT_DENSE, &opt);
    opt.method = MCS_METHOD_ROS34PW2;
    refuses(&subset, &opt,
            MCS_REFUSE_NEEDS_FORCE_TANGENTS | unless_built(MCS_PART_DENSE | MCS_PART_IMPLICIT));
    opt.method = MCS_METHOD_DOPRI5;
    refuses(&subset, &opt, unless_built(MCS_PART_DENSE));
    subset = spatial_pendulum_model;
    subset.D = NULL;
    plain_options(&subset, MCS_VARIANT_DENSE, &opt);
    opt.method = MCS_METHOD_ROS34PW2_FIXED;
    refuses(&subset, &opt,
            MCS_REFUSE_NEEDS_FORCE_TANGENTS | unless_built(MCS_PART_DENSE | MCS_PART_IMPLICIT));
}

/* No run at all: NULL, a model of another ABI, corrupted options (MCS_REFUSE_INVALID alone,
 * whatever else they would be refused for; the bindings' argument errors). */
static void test_invalid_options_are_refused_as_invalid(void **state)
{
    const mcs_model *md = &spatial_pendulum_model;
    mcs_model wrong_abi = spatial_pendulum_model;
    mcs_options opt;
    (void)state;
    mcs_options_default(&opt, md);
    refuses(NULL, &opt, MCS_REFUSE_INVALID);
    refuses(md, NULL, MCS_REFUSE_INVALID);
    wrong_abi.abi_version = MCS_MODEL_ABI_VERSION + 1;
    refuses(&wrong_abi, &opt, MCS_REFUSE_INVALID);
    opt.h = (mcs_real)NAN;
    refuses(md, &opt, MCS_REFUSE_INVALID);
    mcs_options_default(&opt, md);
    opt.rtol = 0;
    refuses(md, &opt, MCS_REFUSE_INVALID);
    mcs_options_default(&opt, md);
    opt.sing_tol = (mcs_real)INFINITY;
    refuses(md, &opt, MCS_REFUSE_INVALID);
    mcs_options_default(&opt, md);
    opt.method = (mcs_method)MCS_METHOD_COUNT;
    refuses(md, &opt, MCS_REFUSE_INVALID);
    opt.method = (mcs_method)-1;
    refuses(md, &opt, MCS_REFUSE_INVALID);
    mcs_options_default(&opt, md);
    opt.continuation = (mcs_continuation)(MCS_CONT_OFF + 1);
    refuses(md, &opt, MCS_REFUSE_INVALID);
    mcs_options_default(&opt, md);
    opt.variant = (mcs_variant)(MCS_VARIANT_BANDED + 1);
    refuses(md, &opt, MCS_REFUSE_INVALID);
    opt.variant = (mcs_variant)-1;
    refuses(md, &opt, MCS_REFUSE_INVALID);
    mcs_options_default(&opt, md);
    opt.dense_output = 2;
    refuses(md, &opt, MCS_REFUSE_INVALID);
    mcs_options_default(&opt, md);
    opt.max_dof = md->nx + 1;
    refuses(md, &opt, MCS_REFUSE_INVALID);
    mcs_options_default(&opt, md);
    opt.max_locks = -1;
    refuses(md, &opt, MCS_REFUSE_INVALID);
    mcs_options_default(&opt, md);
    opt.max_steps = 0;
    refuses(md, &opt, MCS_REFUSE_INVALID);
    /* invalid, and refused besides (the banded variant with the defaults: dense output, events,
     * continuation exp): invalid is all it says */
    mcs_options_default(&opt, md);
    opt.variant = MCS_VARIANT_BANDED;
    opt.newton_max_iter = 0;
    refuses(md, &opt, MCS_REFUSE_INVALID);
}

/* Each method's name and flags (mcs_sim.h: what each method is), each variant's name; a value
 * that is none: no flags, no name. */
static void test_names_and_flags(void **state)
{
    static const struct {
        mcs_method method;
        const char *name;
        unsigned flags;
    } methods[] = {
        {MCS_METHOD_RK4, "rk4", MCS_METHOD_FLAG_STEP_JACOBIAN},
        {MCS_METHOD_DOPRI5, "dopri5",
         MCS_METHOD_FLAG_ADAPTIVE | MCS_METHOD_FLAG_FSAL | MCS_METHOD_FLAG_STIFFNESS_TEST},
        {MCS_METHOD_DOP853, "dop853",
         MCS_METHOD_FLAG_ADAPTIVE | MCS_METHOD_FLAG_FSAL | MCS_METHOD_FLAG_LAZY_STAGES},
        {MCS_METHOD_ROS34PW2, "ros34pw2", MCS_METHOD_FLAG_ADAPTIVE | MCS_METHOD_FLAG_IMPLICIT},
        {MCS_METHOD_ROS34PW2_FIXED, "ros34pw2_fixed", MCS_METHOD_FLAG_IMPLICIT},
    };
    static const struct {
        mcs_variant variant;
        const char *name;
    } variants[] = {
        {MCS_VARIANT_DENSE, "dense"},
        {MCS_VARIANT_COMPACT, "compact"},
        {MCS_VARIANT_BANDED, "banded"},
    };
    size_t k;
    (void)state;
    assert_int_equal(sizeof methods / sizeof *methods, MCS_METHOD_COUNT);
    for (k = 0; k < sizeof methods / sizeof *methods; ++k) {
        assert_string_equal(mcs_method_name(methods[k].method), methods[k].name);
        assert_int_equal(mcs_method_flags(methods[k].method), methods[k].flags);
    }
    assert_null(mcs_method_name((mcs_method)MCS_METHOD_COUNT));
    assert_int_equal(mcs_method_flags((mcs_method)MCS_METHOD_COUNT), 0);
    assert_null(mcs_method_name((mcs_method)-1));
    assert_int_equal(mcs_method_flags((mcs_method)-1), 0);
    for (k = 0; k < sizeof variants / sizeof *variants; ++k)
        assert_string_equal(mcs_variant_name(variants[k].variant), variants[k].name);
    assert_null(mcs_variant_name((mcs_variant)(MCS_VARIANT_BANDED + 1)));
    assert_null(mcs_variant_name((mcs_variant)-1));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_status_codes),
        cmocka_unit_test(test_a_model_without_the_predictor_kernels),
        cmocka_unit_test(test_hostile_inputs_get_statuses),
        cmocka_unit_test(test_banded_refusals),
        cmocka_unit_test(test_compact_refusals),
        cmocka_unit_test(test_dense_variant_refuses_nothing_valid),
        cmocka_unit_test(test_each_variant_takes_the_plain_options),
        cmocka_unit_test(test_what_the_model_lacks_is_refused),
        cmocka_unit_test(test_invalid_options_are_refused_as_invalid),
        cmocka_unit_test(test_names_and_flags),
    };
    return cmocka_run_group_tests_name("options", tests, NULL, NULL);
}
