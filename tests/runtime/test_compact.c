/* test_compact.c - the compact simulator (mcs_compact.c, options.compact): the same motion as the
 * default simulator to round-off on every kind of model and option it takes, the same numbers in
 * its own small layout (frames sharing one factorization, computed again on demand) as in
 * mcs_sim_init's (test_same.h: the same bits with the portable backend), the basis invariants, its memory, and a status for what it does not do. */
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
#include "double_four_bar.h"
#include "modified_triple_four_bar.h"
#include "pendulum_3r.h"
#include "planar_pendulum_redundant.h"
#include "slider_crank.h"
#include "spatial_pendulum.h"

#define NMAX 21
static mcs_real work[MCS_SIM_WORK_SIZE(NMAX, NMAX)];
static int iwork[MCS_SIM_IWORK_SIZE(NMAX, NMAX)];
#define WORK_ARGS work, sizeof work / sizeof *work, iwork, sizeof iwork / sizeof *iwork

static void options(const mcs_model *md, mcs_method method, mcs_continuation c, int compact,
                    mcs_options *opt)
{
    mcs_options_default(opt, md);
    opt->method = method;
    opt->continuation = c;
    opt->h = 1e-3;
    opt->rtol = 1e-10;
    opt->atol = 1e-12;
    opt->variant = compact ? MCS_VARIANT_COMPACT : MCS_VARIANT_DENSE;
    if (compact) { /* what it needs */
        opt->dense_output = 0;
        opt->sing_tol = 0;
    }
}

/* |x_end - ref|_inf / max(1, |ref|_inf) of a run to t_end in mcs_sim_init's workspace */
static double run(const mcs_model *md, const mcs_options *opt, double t_end, mcs_real *x_end,
                  mcs_stats *stats)
{
    mcs_sim sim;
    double scale = 1;
    int i;
    assert_int_equal(mcs_sim_init(&sim, md, md->default_params, opt, WORK_ARGS), MCS_OK);
    assert_int_equal(mcs_sim_start(&sim, 0, NULL), MCS_OK);
    assert_int_equal(mcs_sim_advance(&sim, t_end), MCS_OK);
    for (i = 0; i < md->nx; ++i) {
        x_end[i] = sim.cur.x[i];
        scale = fmax(scale, fabs(x_end[i]));
    }
    if (stats)
        *stats = sim.stats;
    return scale;
}

static void same_motion(const mcs_model *md, mcs_method method, mcs_continuation c, double t_end,
                        double tol)
{
    mcs_options opt;
    mcs_real ref[NMAX], x[NMAX];
    mcs_stats full, compact;
    double scale, d = 0;
    int i;
    options(md, method, c, 0, &opt);
    scale = run(md, &opt, t_end, ref, &full);
    options(md, method, c, 1, &opt);
    run(md, &opt, t_end, x, &compact);
    for (i = 0; i < md->nx; ++i)
        d = fmax(d, fabs(x[i] - ref[i]));
    printf(
        "%-26s method %d cont %d: compact - default %.2e (newton %ld vs %ld, steps %ld vs %ld)\n",
        md->name, (int)method, (int)c, d / scale, compact.newton_iterations, full.newton_iterations,
        compact.steps, full.steps);
    assert_true(d <= tol * scale);
}

static void test_compact_runs_the_default_motion(void **state)
{
    (void)state;
    NEEDS(MCS_PART_DOP853 | MCS_PART_EVENTS | MCS_PART_PREDICTORS | MCS_PART_DENSE |
          MCS_PART_COMPACT);
    /* the firmware configuration and every predictor, RK4 and the adaptive methods */
    same_motion(&slider_crank_model, MCS_METHOD_RK4, MCS_CONT_NONE, 0.5, 1e-11);
    same_motion(&slider_crank_model, MCS_METHOD_RK4, MCS_CONT_OFF, 0.5, 1e-11);
    same_motion(&slider_crank_model, MCS_METHOD_RK4, MCS_CONT_EULER, 0.5, 1e-11);
    same_motion(&slider_crank_model, MCS_METHOD_RK4, MCS_CONT_EXP, 0.5, 1e-11);
    same_motion(&slider_crank_model, MCS_METHOD_DOPRI5, MCS_CONT_EXP, 0.5, 1e-9);
    /* two free directions, and a basis that turns (the spherical pendulum) */
    same_motion(&spatial_pendulum_model, MCS_METHOD_RK4, MCS_CONT_EXP, 1.0, 1e-11);
    same_motion(&spatial_pendulum_model, MCS_METHOD_DOP853, MCS_CONT_EULER, 1.0, 1e-9);
    /* dependent rows (rank 1 of 2; rank 14 of 16 rows, more rows than coordinates), and no
     * rows at all */
    same_motion(&planar_pendulum_redundant_model, MCS_METHOD_RK4, MCS_CONT_NONE, 1.0, 1e-11);
    same_motion(&modified_triple_four_bar_model, MCS_METHOD_RK4, MCS_CONT_EXP, 0.3, 1e-11);
    same_motion(&pendulum_3r_model, MCS_METHOD_RK4, MCS_CONT_EXP, 1.0, 1e-11);
    /* the double four-bar up to its singular configuration (t = 0.714 s) */
    same_motion(&double_four_bar_model, MCS_METHOD_RK4, MCS_CONT_NONE, 0.7, 1e-11);
    same_motion(&double_four_bar_model, MCS_METHOD_DOPRI5, MCS_CONT_EXP, 0.7, 1e-9);
}

/* The implicit methods in the compact simulator factor the stiff part of the chart Jacobian
 * (K_f, D through T) where the default one factors the whole of it: different W-method
 * matrices, so the two runs agree to the method's error, not to the bit (slider-crank at
 * rtol 1e-10; the 3R pendulum on a 1 ms grid, where both are third order). */
static void test_compact_takes_the_implicit_methods(void **state)
{
    (void)state;
    NEEDS(MCS_PART_DOP853 | MCS_PART_EVENTS | MCS_PART_PREDICTORS | MCS_PART_DENSE |
          MCS_PART_COMPACT | MCS_PART_IMPLICIT);
    same_motion(&slider_crank_model, MCS_METHOD_ROS34PW2, MCS_CONT_EXP, 0.5, 1e-8);
    same_motion(&spatial_pendulum_model, MCS_METHOD_ROS34PW2, MCS_CONT_NONE, 1.0, 1e-8);
    same_motion(&pendulum_3r_model, MCS_METHOD_ROS34PW2_FIXED, MCS_CONT_EXP, 1.0, 1e-5);
}

/* A singular configuration is where a compact simulator stops: its chord factor R_ns^T at the
 * chart is a factor sigma from singular, and the stages across the crossing are farther from
 * it than that (for any step: the distance and sigma shrink together), so neither the chord
 * Newton nor the refinement contracts. The run ends there with a status. */
static void test_compact_stops_at_a_singular_configuration(void **state)
{
    const mcs_model *md = &double_four_bar_model;
    mcs_method method;
    (void)state;
    NEEDS(MCS_PART_COMPACT);
    for (method = MCS_METHOD_RK4; method <= MCS_METHOD_DOPRI5; ++method) {
        mcs_options opt;
        mcs_sim sim;
        mcs_status st;
        options(md, method, MCS_CONT_NONE, 1, &opt);
        assert_int_equal(mcs_sim_init(&sim, md, md->default_params, &opt, WORK_ARGS), MCS_OK);
        assert_int_equal(mcs_sim_start(&sim, 0, NULL), MCS_OK);
        st = mcs_sim_advance(&sim, 1.0);
        assert_true(st ==
                    ((method == MCS_METHOD_RK4) ? MCS_ERR_SINGULAR_CHART : MCS_ERR_STEP_TOO_SMALL));
        assert_true(fabs(sim.cur.t - 0.714) < 1e-3 && sim.cur.sigma < 1e-3);
    }
}

/* Invariants along a compact run: the constraints, T^T T = I, A_S T = 0 (A from the model). */
static void test_compact_basis_invariants(void **state)
{
    const mcs_model *md = &slider_crank_model;
    mcs_options opt;
    mcs_sim sim;
    static mcs_real A[SLIDER_CRANK_NC * SLIDER_CRANK_NX];
    int k;
    (void)state;
    NEEDS(MCS_PART_PREDICTORS | MCS_PART_COMPACT);
    options(md, MCS_METHOD_RK4, MCS_CONT_EXP, 1, &opt);
    assert_int_equal(mcs_sim_init(&sim, md, md->default_params, &opt, WORK_ARGS), MCS_OK);
    assert_int_equal(mcs_sim_start(&sim, 0, NULL), MCS_OK);
    for (k = 0; k < 50; ++k) {
        const int n = md->nx, m = md->nc, f = n - sim.cur.r;
        mcs_real c_norm;
        double tt = 0, at = 0;
        int i, j;
        assert_int_equal(mcs_sim_step(&sim, 1.0), MCS_OK);
        assert_int_equal(mcs_sim_constraint_norm(&sim, &c_norm), MCS_OK);
        assert_true(c_norm < 1e-13);
        assert_int_equal(f, 1);
        for (i = 0; i < n; ++i)
            tt += sim.cur.T[i] * sim.cur.T[i];
        md->A(sim.cur.x, sim.cur.t, md->default_params, A);
        for (j = 0; j < m; ++j) {
            double row = 0;
            for (i = 0; i < n; ++i)
                row += A[j + i * m] * sim.cur.T[i];
            at = fmax(at, fabs(row));
        }
        assert_true(fabs(tt - 1) < 1e-14);
        assert_true(at < 1e-13);
        { /* the queries give the same basis and the factorization's |R_ii| */
            mcs_real T[SLIDER_CRANK_NX], d[SLIDER_CRANK_NC];
            assert_int_equal(mcs_sim_basis(&sim, T), MCS_OK);
            for (i = 0; i < n; ++i)
                assert_true(T[i] == sim.cur.T[i]);
            assert_int_equal(mcs_sim_rdiag(&sim, d), MCS_OK);
            for (i = 0; i < m; ++i)
                assert_true(d[i] == fabs(sim.cur.R[i + i * n]));
        }
    }
}

/* A compact run in its own layout (mcs_sim_assign, both frames on one factorization) gives the
 * same numbers (test_same.h) as in mcs_sim_init's room (a factorization each): the chart's factorization computed
 * again after dense output on the last step, or after a retake, is the same. */
static void test_compact_layout_gives_the_same_bits(void **state)
{
    const mcs_model *mds[2] = {&slider_crank_model, &double_four_bar_model};
    int which;
    (void)state;
    NEEDS(MCS_PART_COMPACT);
    for (which = 0; which < 2; ++which) {
        const mcs_model *md = mds[which];
        mcs_options opt;
        mcs_sim a, b;
        size_t size;
        void *raw;
        int k;
        options(md, MCS_METHOD_RK4, MCS_CONT_NONE, 1, &opt);
        size = mcs_sim_memory_size(md, &opt);
        raw = malloc(size); /* to the byte: ASan sees an overrun */
        assert_non_null(raw);
        assert_int_equal(mcs_sim_assign(&a, md, md->default_params, &opt, raw, size - 1),
                         MCS_ERR_WORKSPACE);
        assert_int_equal(mcs_sim_assign(&a, md, md->default_params, &opt, raw, size), MCS_OK);
        assert_int_equal(mcs_sim_init(&b, md, md->default_params, &opt, WORK_ARGS), MCS_OK);
        assert_true(a.cur.R == a.prev.R && b.cur.R != b.prev.R);
        assert_int_equal(mcs_sim_start(&a, 0, NULL), MCS_OK);
        assert_int_equal(mcs_sim_start(&b, 0, NULL), MCS_OK);
        for (k = 0; k < ((md == &slider_crank_model) ? 900 : 650); ++k) {
            mcs_real xa[NMAX], va[NMAX], xb[NMAX], vb[NMAX];
            assert_int_equal(mcs_sim_step(&a, 1.0), MCS_OK);
            assert_int_equal(mcs_sim_step(&b, 1.0), MCS_OK);
            assert_true(a.cur.t == b.cur.t);
            if (k % 7 == 3) { /* the last step's chart: computed again in the shared storage */
                const double t = 0.5 * (a.prev.t + a.cur.t);
                assert_int_equal(mcs_sim_dense(&a, t, xa, va, NULL, NULL), MCS_OK);
                assert_int_equal(mcs_sim_dense(&b, t, xb, vb, NULL, NULL), MCS_OK);
                assert_same(xa, xb, md->nx, 1e-10);
                assert_same(va, vb, md->nx, 1e-10);
            }
            assert_same(a.cur.x, b.cur.x, md->nx, 1e-10); /* 2e-12 seen with LAPACK */
            assert_same(a.cur.v, b.cur.v, md->nx, 1e-10);
        }
        /* the shared storage was computed again for the steps after dense output */
        assert_true(a.stats.factorizations > b.stats.factorizations);
        printf("%s compact: %zu B; %ld factorizations (%ld with a factorization per frame), "
               "%ld detours\n",
               md->name, size, a.stats.factorizations, b.stats.factorizations, a.stats.detours);
        free(raw);
    }
}

static void test_compact_needs_less_memory(void **state)
{
    const mcs_model *md = &slider_crank_model;
    mcs_options opt;
    size_t lean, compact;
    (void)state;
    NEEDS(MCS_PART_DENSE | MCS_PART_COMPACT);
    options(md, MCS_METHOD_RK4, MCS_CONT_NONE, 0, &opt);
    opt.dense_output = 0;
    opt.sing_tol = 0;
    opt.max_dof = 1;
    lean = mcs_sim_memory_size(md, &opt);
    opt.variant = MCS_VARIANT_COMPACT;
    compact = mcs_sim_memory_size(md, &opt);
    assert_int_equal(compact, MCS_SIM_MEMORY_REALS(SLIDER_CRANK_NX, SLIDER_CRANK_NC,
                                                   SLIDER_CRANK_A_NNZ, SLIDER_CRANK_M_NNZ, 0, 0, 0,
                                                   1, SLIDER_CRANK_NHELD, MCS_MEM_COMPACT) *
                                  sizeof(mcs_real));
    printf("slider-crank RK4 none max_dof 1: %zu B default, %zu B compact\n", lean, compact);
    /* no n x n Q, no r x r G, A and M as nonzeros, one factorization for both frames (LAPACK's
     * QR work, 1.7k reals, is the same in both) */
    assert_true(compact < lean);
#ifdef MCS_LINALG_PORTABLE
    assert_true(compact < (lean * 45) / 100);
#endif
}

/* What a compact simulator does not do is a status. */
static void test_compact_refuses_what_it_does_not_do(void **state)
{
    const mcs_model *md = &spatial_pendulum_model;
    mcs_options opt;
    mcs_sim sim;
    mcs_real x[3], v[3], q[3], qd[3], lambda[1], dv[3], jw[256];
    int jiw[64];
    mcs_transition tr;
    static mcs_real block[SPATIAL_PENDULUM_SIM_MEMORY(2, MCS_MEM_COMPACT)];
    (void)state;
    NEEDS(MCS_PART_COMPACT);
    options(md, MCS_METHOD_RK4, MCS_CONT_NONE, 1, &opt);
    opt.dense_output = 1;
    assert_int_equal(mcs_sim_init(&sim, md, md->default_params, &opt, WORK_ARGS),
                     MCS_ERR_UNSUPPORTED);
    opt.dense_output = 0;
    opt.sing_tol = 1e-6;
    assert_int_equal(mcs_sim_memory_size(md, &opt), 0);
    opt.sing_tol = 0;
    opt.max_locks = 1;
    assert_int_equal(mcs_sim_init(&sim, md, md->default_params, &opt, WORK_ARGS),
                     MCS_ERR_UNSUPPORTED);
    opt.max_locks = 0;
    opt.max_dof = 2;
    assert_int_equal(mcs_sim_assign(&sim, md, md->default_params, &opt, block, sizeof block),
                     MCS_OK);
    assert_int_equal(mcs_sim_start(&sim, 0, NULL), MCS_OK);
    assert_int_equal(mcs_sim_advance(&sim, 0.01), MCS_OK);
    assert_int_equal(mcs_sim_dense(&sim, 0.0095, x, v, NULL, NULL), MCS_OK);
    assert_int_equal(mcs_sim_dense(&sim, 0.0095, x, v, q, qd), MCS_ERR_UNSUPPORTED);
    assert_int_equal(mcs_sim_multipliers(&sim, sim.cur.t, sim.cur.x, sim.cur.v, lambda),
                     MCS_ERR_UNSUPPORTED);
    assert_int_equal(mcs_sim_lock(&sim, 0, MCS_JUMP_MINIMAL, dv, jw, 256, jiw, 64, &tr),
                     MCS_ERR_UNSUPPORTED);
    assert_int_equal(mcs_sim_momenta(&sim, sim.cur.v, q), MCS_OK); /* M as its nonzeros */
    sim.opt.variant = MCS_VARIANT_DENSE; /* the dense variant needs what this block lacks */
    assert_int_equal(mcs_sim_step(&sim, 1.0), MCS_ERR_ARGUMENT);
    sim.opt.variant = MCS_VARIANT_COMPACT;
    sim.opt.sing_tol = 1e-6; /* events after the check: this block has no room for them */
    assert_int_equal(mcs_sim_step(&sim, 1.0), MCS_ERR_ARGUMENT);
    sim.opt.sing_tol = 0;
    assert_int_equal(mcs_sim_step(&sim, 1.0), MCS_OK);
    /* in mcs_sim_init's room there is memory for events, but no compact search */
    assert_int_equal(mcs_sim_init(&sim, md, md->default_params, &opt, WORK_ARGS), MCS_OK);
    assert_int_equal(mcs_sim_start(&sim, 0, NULL), MCS_OK);
    sim.opt.sing_tol = 1e-6;
    assert_int_equal(mcs_sim_step(&sim, 1.0), MCS_ERR_UNSUPPORTED);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_compact_runs_the_default_motion),
        cmocka_unit_test(test_compact_takes_the_implicit_methods),
        cmocka_unit_test(test_compact_stops_at_a_singular_configuration),
        cmocka_unit_test(test_compact_basis_invariants),
        cmocka_unit_test(test_compact_layout_gives_the_same_bits),
        cmocka_unit_test(test_compact_needs_less_memory),
        cmocka_unit_test(test_compact_refuses_what_it_does_not_do),
    };
    return cmocka_run_group_tests_name("compact", tests, NULL, NULL);
}
