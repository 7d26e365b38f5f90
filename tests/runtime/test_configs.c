/* test_configs.c - the runtime in whatever parts a build keeps (mcs_config.h's MCS_WITH_*): every
 * part compiled in works, and agrees with the others where they must (the variants give the same
 * motion and the same momenta); every part left out is refused with MCS_ERR_UNSUPPORTED, never
 * reached. scripts/config-matrix builds this program, and the other C tests, under ASan/UBSan for
 * every combination mcs_config.h allows and runs it (make test-configs, part of make test); the
 * Makefile's C tests run it in the full build too. The simulators live in memory malloc'ed to the byte, so a buffer
 * a layout sized for less is an ASan error (the banded simulator's M is its nonzeros). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <cmocka.h>

#include "mcs/mcs_sim.h"
#include "pendulum_3r_bodies.h"
#include "slider_crank.h"

#define NX SLIDER_CRANK_NX

static const mcs_variant VARIANTS[3] = {MCS_VARIANT_DENSE, MCS_VARIANT_COMPACT, MCS_VARIANT_BANDED};
static const int VARIANT_IN[3] = {MCS_WITH_DENSE, MCS_WITH_COMPACT, MCS_WITH_BANDED};

/* Options for a short slider-crank run in one variant (what each takes: no dense output, events
 * or locks), RK4 at 1 ms, continuation none. */
static void options(mcs_variant variant, mcs_options *opt)
{
    mcs_options_default(opt, &slider_crank_model);
    opt->method = MCS_METHOD_RK4;
    opt->continuation = MCS_CONT_NONE;
    opt->h = 1e-3;
    opt->dense_output = 0;
    opt->sing_tol = 0;
    opt->variant = variant;
}

/* A simulator in a block of exactly its size (*raw to free), or the status that refused it. */
static mcs_status assign(mcs_sim *sim, const mcs_model *md, const void *params,
                         const mcs_options *opt, void **raw)
{
    const size_t size = mcs_sim_memory_size(md, opt);
    *raw = NULL;
    if (size == 0) /* refused: mcs_sim_assign checks the options first and says why */
        return mcs_sim_assign(sim, md, params, opt, sim, 0);
    *raw = malloc(size);
    assert_non_null(*raw);
    return mcs_sim_assign(sim, md, params, opt, *raw, size);
}

static double max_diff(int n, const mcs_real *a, const mcs_real *b)
{
    double m = 0;
    int i;
    for (i = 0; i < n; ++i)
        m = fabs((double)a[i] - (double)b[i]) > m ? fabs((double)a[i] - (double)b[i]) : m;
    return m;
}

/* Whether a call changed nothing of the simulator's block `raw` (size bytes, a copy in `before`)
 * but the n2 reals at a and the n3 at b: the buffers it documents as written. */
static int only_writes(const void *raw, const void *before, size_t size, const mcs_real *a,
                       size_t na, const mcs_real *b, size_t nb)
{
    const unsigned char *now = (const unsigned char *)raw;
    const unsigned char *was = (const unsigned char *)before;
    size_t i;
    for (i = 0; i < size; ++i) {
        const unsigned char *at = &now[i];
        const int in_a = (at >= (const unsigned char *)a) && (at < (const unsigned char *)(a + na));
        const int in_b = (at >= (const unsigned char *)b) && (at < (const unsigned char *)(b + nb));
        if ((now[i] != was[i]) && !in_a && !in_b)
            return 0;
    }
    return 1;
}

/* Each variant compiled in runs the slider-crank 0.1 s to the same state (round-off, 1e-11) and
 * gives the same momenta, at the current state (mcs_sim_momenta) and at a state with a given
 * basis (mcs_sim_momenta_at: M v through the variant's own M, n x n or its nonzeros); each one
 * left out is refused. */
static void test_the_variants_compiled_in_agree(void **state)
{
    mcs_real x_first[NX], pat_first[NX], Q[NX * NX];
    double p_first = 0;
    int have_first = 0;
    int k;
    int i;
    (void)state;
    for (i = 0; i < NX * NX; ++i)
        Q[i] = (i % (NX + 1) == 0) ? 1 : 0; /* the identity: T = Q[:, r:] with r = 0 is I */
    for (k = 0; k < 3; ++k) {
        mcs_options opt;
        mcs_sim sim;
        mcs_real P[NX], Pat[NX];
        void *raw;
        mcs_status st;
        options(VARIANTS[k], &opt);
        st = assign(&sim, &slider_crank_model, &slider_crank_default_params, &opt, &raw);
        if (!VARIANT_IN[k]) {
            assert_int_equal(st, MCS_ERR_UNSUPPORTED);
            free(raw);
            continue;
        }
        assert_int_equal(st, MCS_OK);
        assert_int_equal(mcs_sim_start(&sim, 0, NULL), MCS_OK);
        assert_int_equal(mcs_sim_advance(&sim, 0.1), MCS_OK);
        assert_int_equal(sim.stats.steps_by_method[MCS_METHOD_RK4], 100);
        assert_int_equal(mcs_sim_momenta(&sim, sim.cur.v, P), MCS_OK);
        {
            /* momenta at a state write M (as the variant keeps it: n x n, or its m_nnz
             * nonzeros) and w.rhs, nothing else of the block (a banded build without the
             * compact variant once wrote the whole n x n M into its m_nnz) */
            const size_t size = mcs_sim_memory_size(&slider_crank_model, &opt);
            const size_t m_len = (VARIANTS[k] == MCS_VARIANT_DENSE)
                                     ? (size_t)(NX * NX)
                                     : (size_t)slider_crank_model.m_nnz;
            void *before = malloc(size);
            assert_non_null(before);
            memcpy(before, raw, size);
            assert_int_equal(mcs_sim_momenta_at(&sim, sim.cur.t, sim.cur.x, sim.cur.v, Q, 0, Pat),
                             MCS_OK);
            assert_true(only_writes(raw, before, size, sim.w.M, m_len, sim.w.rhs, NX));
            free(before);
        }
        if (!have_first) {
            for (i = 0; i < NX; ++i) {
                x_first[i] = sim.cur.x[i];
                pat_first[i] = Pat[i];
            }
            p_first = (double)P[0]; /* one free direction: P has one entry */
            have_first = 1;
        } else {
            assert_true(max_diff(NX, sim.cur.x, x_first) < 1e-11);
            assert_true(fabs((double)P[0] - p_first) < 1e-10);
            assert_true(max_diff(NX, Pat, pat_first) < 1e-12);
        }
        free(raw);
    }
    assert_true(have_first); /* mcs_config.h: the dense or the compact variant at least */
}

/* The methods and continuations compiled in run (the dense or compact variant, whichever this
 * build has); those left out are refused. */
static void test_the_methods_and_predictors_compiled_in_run(void **state)
{
    static const mcs_method METHODS[5] = {MCS_METHOD_RK4, MCS_METHOD_DOPRI5, MCS_METHOD_DOP853,
                                          MCS_METHOD_ROS34PW2, MCS_METHOD_ROS34PW2_FIXED};
    static const mcs_continuation CONT[2] = {MCS_CONT_EULER, MCS_CONT_EXP};
    const mcs_variant variant = MCS_WITH_DENSE ? MCS_VARIANT_DENSE : MCS_VARIANT_COMPACT;
    int k;
    (void)state;
    for (k = 0; k < 7; ++k) {
        const int is_method = k < 5;
        const int implicit = is_method && (k >= 3);
        const int in = !is_method ? MCS_WITH_PREDICTORS
                       : implicit ? MCS_WITH_IMPLICIT
                                  : ((METHODS[k] != MCS_METHOD_DOP853) || MCS_WITH_DOP853);
        mcs_options opt;
        mcs_sim sim;
        void *raw;
        mcs_status st;
        options(variant, &opt);
        if (is_method) {
            opt.method = METHODS[k];
            opt.rtol = 1e-9;
            opt.atol = 1e-11;
        } else {
            opt.continuation = CONT[k - 5];
        }
        st = assign(&sim, &slider_crank_model, &slider_crank_default_params, &opt, &raw);
        if (!in) {
            assert_int_equal(st, MCS_ERR_UNSUPPORTED);
            free(raw);
            continue;
        }
        assert_int_equal(st, MCS_OK);
        assert_int_equal(mcs_sim_start(&sim, 0, NULL), MCS_OK);
        assert_int_equal(mcs_sim_advance(&sim, 0.05), MCS_OK);
        assert_true(sim.stats.steps_by_method[opt.method] == sim.stats.steps);
        free(raw);
    }
}

/* Events and locks (the dense variant's): run when compiled in, refused when not. */
static void test_events_and_locks_compiled_in_run(void **state)
{
    static mcs_real jwork[MCS_JUMP_WORK_SIZE(PENDULUM_3R_BODIES_NX, PENDULUM_3R_BODIES_NC + 2, 1)];
    static int jiwork[MCS_JUMP_IWORK_SIZE(PENDULUM_3R_BODIES_NX, PENDULUM_3R_BODIES_NC + 2, 1)];
    static mcs_real dv[PENDULUM_3R_BODIES_NX];
    const mcs_model *md = &pendulum_3r_bodies_model;
    mcs_options opt;
    mcs_sim sim;
    void *raw;
    mcs_status st;
    mcs_transition tr;
    (void)state;
    if (!MCS_WITH_DENSE)
        return; /* events and locks are the dense variant's (the compact one refuses them) */
    mcs_options_default(&opt, md);
    opt.method = MCS_METHOD_RK4;
    opt.continuation = MCS_CONT_NONE;
    opt.dense_output = 0;
    opt.max_locks = 2;
    opt.sing_tol = 0;
    st = assign(&sim, md, &pendulum_3r_bodies_default_params, &opt, &raw);
    if (!MCS_WITH_LOCKS) {
        assert_int_equal(st, MCS_ERR_UNSUPPORTED);
        free(raw);
    } else {
        assert_int_equal(st, MCS_OK);
        assert_int_equal(mcs_sim_start(&sim, 0, NULL), MCS_OK);
        assert_int_equal(mcs_sim_advance(&sim, 0.1), MCS_OK);
        assert_int_equal(mcs_sim_lock_group(&sim, 1, md->joints[1].lock_group, MCS_JUMP_MINIMAL, dv,
                                            jwork, sizeof jwork / sizeof *jwork, jiwork,
                                            sizeof jiwork / sizeof *jiwork, &tr),
                         MCS_OK);
        assert_int_equal(tr.jump.dof_after, 2);
        assert_int_equal(mcs_sim_advance(&sim, 0.2), MCS_OK);
        assert_int_equal(mcs_sim_unlock(&sim, 1, &tr), MCS_OK);
        assert_int_equal(mcs_sim_advance(&sim, 0.3), MCS_OK);
        free(raw);
    }
    mcs_options_default(&opt, md);
    opt.method = MCS_METHOD_RK4;
    opt.dense_output = 0;
    opt.sing_tol = 1e-6;
    if (!MCS_WITH_PREDICTORS)
        opt.continuation = MCS_CONT_NONE; /* the model's exp predictor is left out */
    st = assign(&sim, md, &pendulum_3r_bodies_default_params, &opt, &raw);
    assert_int_equal(st, MCS_WITH_EVENTS ? MCS_OK : MCS_ERR_UNSUPPORTED);
    if (st == MCS_OK) {
        assert_int_equal(mcs_sim_start(&sim, 0, NULL), MCS_OK);
        assert_int_equal(mcs_sim_advance(&sim, 0.1), MCS_OK);
    }
    free(raw);
}

/* mcs_runtime_parts names what the build compiled in: what the other C tests read to skip the
 * cases that need a part left out (test_needs.h). */
static void test_the_parts_compiled_in_are_reported(void **state)
{
    unsigned expected = 0;
    (void)state;
    expected |= MCS_WITH_DOP853 ? MCS_PART_DOP853 : 0u;
    expected |= MCS_WITH_EVENTS ? MCS_PART_EVENTS : 0u;
    expected |= MCS_WITH_LOCKS ? MCS_PART_LOCKS : 0u;
    expected |= MCS_WITH_PREDICTORS ? MCS_PART_PREDICTORS : 0u;
    expected |= MCS_WITH_DENSE ? MCS_PART_DENSE : 0u;
    expected |= MCS_WITH_COMPACT ? MCS_PART_COMPACT : 0u;
    expected |= MCS_WITH_BANDED ? MCS_PART_BANDED : 0u;
    expected |= MCS_WITH_IMPLICIT ? MCS_PART_IMPLICIT : 0u;
    assert_int_equal(mcs_runtime_parts(), expected);
}

/* scripts/config-matrix names the combination it built in MCS_CONFIG_PARTS (a 0 or 1 per switch:
 * DOP853, EVENTS, LOCKS, PREDICTORS, DENSE, COMPACT, BANDED, IMPLICIT): the runtime linked is
 * that combination's, not an object of another one reused for it (the test and the runtime would
 * then agree with each other and test one combination under another's name). */
static void test_the_parts_are_the_combination_built(void **state)
{
    static const unsigned parts[8] = {MCS_PART_DOP853,     MCS_PART_EVENTS,  MCS_PART_LOCKS,
                                      MCS_PART_PREDICTORS, MCS_PART_DENSE,   MCS_PART_COMPACT,
                                      MCS_PART_BANDED,     MCS_PART_IMPLICIT};
    const char *meant = getenv("MCS_CONFIG_PARTS");
    unsigned expected = 0;
    int k;
    (void)state;
    if (meant == NULL) {
        skip(); /* a build of its own (make test-c): its combination is the one compiled */
    }
    assert_int_equal((int)strlen(meant), 8);
    for (k = 0; k < 8; ++k) {
        expected |= (meant[k] == '1') ? parts[k] : 0u;
    }
    assert_int_equal(mcs_runtime_parts(), expected);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_the_parts_compiled_in_are_reported),
        cmocka_unit_test(test_the_parts_are_the_combination_built),
        cmocka_unit_test(test_the_variants_compiled_in_agree),
        cmocka_unit_test(test_the_methods_and_predictors_compiled_in_run),
        cmocka_unit_test(test_events_and_locks_compiled_in_run),
    };
    return cmocka_run_group_tests_name("configs", tests, NULL, NULL);
}
