/* test_banded.c - the banded simulator (mcs_banded.c, mcs_band.c, options.banded): the same
 * motion as the default simulator to round-off on every model with a band structure and every
 * option it takes, the basis invariants along a run (constraints, T orthonormal on the tangent
 * space, energy), a status where the rows lose rank, its memory (the generated macro, to the
 * byte) and a status for what it does not do. */
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

#include "mcs/mcs_sim.h"
#include "double_four_bar.h"
#include "pendulum_3r.h"
#include "pendulum_3r_bodies.h"
#include "pendulum_kc.h"
#include "pendulum_torsion.h"
#include "planar_pendulum_redundant.h"
#include "slider_crank.h"
#include "spatial_pendulum.h"
#include "spin_top.h"

#define NMAX 40
static mcs_real work[MCS_SIM_WORK_SIZE(NMAX, NMAX)];
static int iwork[MCS_SIM_IWORK_SIZE(NMAX, NMAX)];
#define WORK_ARGS work, sizeof work / sizeof *work, iwork, sizeof iwork / sizeof *iwork

static void options(const mcs_model *md, mcs_method method, mcs_continuation c, int banded,
                    mcs_options *opt)
{
    mcs_options_default(opt, md);
    opt->method = method;
    opt->continuation = c;
    opt->h = 1e-3;
    opt->rtol = 1e-10;
    opt->atol = 1e-12;
    opt->dense_output = 0; /* what the banded simulator needs (the default one the same) */
    opt->sing_tol = 0;
    opt->variant = banded ? MCS_VARIANT_BANDED : MCS_VARIANT_DENSE;
}

/* A simulator in memory malloc'ed to the byte (ASan: a byte past it is an error); *raw to free. */
static mcs_status assign(mcs_sim *sim, const mcs_model *md, const mcs_options *opt, void **raw)
{
    const size_t size = mcs_sim_memory_size(md, opt);
    assert_true(size > 0);
    *raw = malloc(size);
    assert_non_null(*raw);
    assert_int_equal(mcs_sim_assign(sim, md, md->default_params, opt, *raw, size - 1),
                     MCS_ERR_WORKSPACE);
    return mcs_sim_assign(sim, md, md->default_params, opt, *raw, size);
}

/* The end state of a run to t_end, banded or not; returns max(1, |x_end|_inf). */
static double run(const mcs_model *md, const mcs_options *opt, double t_end, mcs_real *x_end,
                  mcs_stats *stats)
{
    mcs_sim sim;
    void *raw = NULL;
    double scale = 1;
    int i;
    if (opt->variant == MCS_VARIANT_BANDED)
        assert_int_equal(assign(&sim, md, opt, &raw), MCS_OK);
    else
        assert_int_equal(mcs_sim_init(&sim, md, md->default_params, opt, WORK_ARGS), MCS_OK);
    assert_int_equal(mcs_sim_start(&sim, 0, NULL), MCS_OK);
    assert_int_equal(mcs_sim_advance(&sim, t_end), MCS_OK);
    for (i = 0; i < md->nx; ++i) {
        x_end[i] = sim.cur.x[i];
        scale = fmax(scale, fabs(x_end[i]));
    }
    if (stats)
        *stats = sim.stats;
    free(raw);
    return scale;
}

static void same_motion(const mcs_model *md, mcs_method method, mcs_continuation c, double t_end,
                        double tol)
{
    mcs_options opt;
    mcs_real ref[NMAX], x[NMAX];
    mcs_stats full, banded;
    double scale, d = 0;
    int i;
    assert_true(md->nx <= NMAX);
    options(md, method, c, 0, &opt);
    scale = run(md, &opt, t_end, ref, &full);
    options(md, method, c, 1, &opt);
    run(md, &opt, t_end, x, &banded);
    for (i = 0; i < md->nx; ++i)
        d = fmax(d, fabs(x[i] - ref[i]));
    printf("%-22s method %d cont %d: banded - default %.2e (newton %ld vs %ld, steps %ld vs %ld)\n",
           md->name, (int)method, (int)c, d / scale, banded.newton_iterations,
           full.newton_iterations, banded.steps, full.steps);
    assert_true(d <= tol * scale);
    if (method == MCS_METHOD_RK4)
        assert_int_equal(banded.steps, full.steps);
}

static void test_banded_runs_the_default_motion(void **state)
{
    (void)state;
    NEEDS(MCS_PART_DOP853 | MCS_PART_PREDICTORS | MCS_PART_DENSE | MCS_PART_BANDED);
    /* every continuation it takes, RK4 and the adaptive methods */
    same_motion(&slider_crank_model, MCS_METHOD_RK4, MCS_CONT_OFF, 0.5, 1e-11);
    same_motion(&slider_crank_model, MCS_METHOD_RK4, MCS_CONT_NONE, 0.5, 1e-11);
    same_motion(&slider_crank_model, MCS_METHOD_RK4, MCS_CONT_EULER, 0.5, 1e-11);
    same_motion(&slider_crank_model, MCS_METHOD_DOPRI5, MCS_CONT_NONE, 0.5, 1e-9);
    /* two free directions and a basis that turns; a spinning rigid body (quaternion rows) */
    same_motion(&spatial_pendulum_model, MCS_METHOD_RK4, MCS_CONT_OFF, 1.0, 1e-11);
    same_motion(&spatial_pendulum_model, MCS_METHOD_DOP853, MCS_CONT_EULER, 1.0, 1e-9);
    same_motion(&spin_top_model, MCS_METHOD_RK4, MCS_CONT_NONE, 0.5, 1e-11);
    /* bodies and joints: a planar chain, a torsion spring, a kinematic constraint on a chain, two
     * coupled loops (the PUMA 560 brakes: locks, not for it) */
    same_motion(&pendulum_3r_bodies_model, MCS_METHOD_RK4, MCS_CONT_OFF, 1.0, 1e-11);
    same_motion(&pendulum_torsion_model, MCS_METHOD_DOPRI5, MCS_CONT_NONE, 1.0, 1e-9);
    same_motion(&pendulum_kc_model, MCS_METHOD_RK4, MCS_CONT_EULER, 1.0, 1e-11);
    /* the double four-bar up to its singular configuration (t = 0.714 s) */
    same_motion(&double_four_bar_model, MCS_METHOD_RK4, MCS_CONT_NONE, 0.7, 1e-11);
    same_motion(&double_four_bar_model, MCS_METHOD_RK4, MCS_CONT_OFF, 0.7, 1e-11);
}

/* With continuation none or euler the tangent basis is the default simulator's (aligned with the
 * prediction the same way), so the minimal coordinates agree as well as the positions. */
static void test_banded_minimal_coordinates(void **state)
{
    const mcs_model *md = &spatial_pendulum_model;
    mcs_options opt;
    mcs_sim sim, ref;
    void *raw;
    mcs_real q[3], qd[3], q_ref[3], qd_ref[3];
    int i;
    (void)state;
    NEEDS(MCS_PART_DENSE | MCS_PART_BANDED);
    options(md, MCS_METHOD_RK4, MCS_CONT_NONE, 0, &opt);
    assert_int_equal(mcs_sim_init(&ref, md, md->default_params, &opt, WORK_ARGS), MCS_OK);
    assert_int_equal(mcs_sim_start(&ref, 0, NULL), MCS_OK);
    assert_int_equal(mcs_sim_advance(&ref, 1.0), MCS_OK);
    assert_int_equal(mcs_sim_minimal(&ref, q_ref, qd_ref), MCS_OK);
    options(md, MCS_METHOD_RK4, MCS_CONT_NONE, 1, &opt);
    assert_int_equal(assign(&sim, md, &opt, &raw), MCS_OK);
    assert_int_equal(mcs_sim_start(&sim, 0, NULL), MCS_OK);
    assert_int_equal(mcs_sim_advance(&sim, 1.0), MCS_OK);
    assert_int_equal(mcs_sim_minimal(&sim, q, qd), MCS_OK);
    for (i = 0; i < 2; ++i) {
        assert_true(fabs(q[i] - q_ref[i]) < 1e-11);
        assert_true(fabs(qd[i] - qd_ref[i]) < 1e-11);
    }
    free(raw);
}

/* Invariants along runs of every continuation: the constraints at the tolerance, |T^T v| = |v|
 * (T orthonormal and spanning the tangent space v lies in), energy conserved (no friction). */
static void test_banded_invariants(void **state)
{
    const mcs_model *md = &slider_crank_model;
    mcs_continuation c;
    (void)state;
    NEEDS(MCS_PART_BANDED);
    for (c = MCS_CONT_NONE; c <= MCS_CONT_OFF; ++c) {
        mcs_options opt;
        mcs_sim sim;
        void *raw;
        mcs_real qd[SLIDER_CRANK_NX], q[SLIDER_CRANK_NX];
        mcs_real ke0, pe0, ke, pe, norm;
        double worst_c = 0, worst_t = 0, worst_e = 0;
        int k;
        if (c == MCS_CONT_EXP)
            continue;
        options(md, MCS_METHOD_RK4, c, 1, &opt);
        assert_int_equal(assign(&sim, md, &opt, &raw), MCS_OK);
        assert_int_equal(mcs_sim_start(&sim, 0, NULL), MCS_OK);
        assert_int_equal(mcs_sim_energy(&sim, &ke0, &pe0), MCS_OK);
        for (k = 1; k <= 50; ++k) {
            double vv = 0, tt = 0;
            int i;
            assert_int_equal(mcs_sim_advance(&sim, 0.01 * k), MCS_OK);
            assert_int_equal(mcs_sim_constraint_norm(&sim, &norm), MCS_OK);
            worst_c = fmax(worst_c, norm);
            assert_int_equal(mcs_sim_minimal(&sim, q, qd), MCS_OK);
            for (i = 0; i < md->nx; ++i)
                vv += sim.cur.v[i] * sim.cur.v[i];
            for (i = 0; i < md->nx - sim.cur.r; ++i)
                tt += qd[i] * qd[i];
            worst_t = fmax(worst_t, fabs(sqrt(tt) - sqrt(vv)) / fmax(1, sqrt(vv)));
            assert_int_equal(mcs_sim_energy(&sim, &ke, &pe), MCS_OK);
            worst_e = fmax(worst_e, fabs((ke + pe) - (ke0 + pe0)) / fmax(1, fabs(ke0 + pe0)));
        }
        printf("cont %d: |c| %.1e, | |T^T v| - |v| | %.1e, energy %.1e\n", (int)c, worst_c, worst_t,
               worst_e);
        assert_true(worst_c < 1e-10);
        assert_true(worst_t < 1e-12);
        assert_true(worst_e < 1e-6);
        free(raw);
    }
}

/* The queries of a state agree with the default simulator's along a run: the multipliers (the
 * KKT system's against the probe's minimum-norm solution), the basis (orthonormal, A T = 0, for
 * the implicit basis of continuation off and an explicit one), and R's diagonal (in its own row
 * order: the product of |R_ii| is sqrt(det(A A^T)) in both). */
static void test_banded_queries(void **state)
{
    const mcs_model *md = &pendulum_3r_bodies_model;
    enum { N = PENDULUM_3R_BODIES_NX, M = PENDULUM_3R_BODIES_NC };
    const mcs_continuation conts[2] = {MCS_CONT_NONE, MCS_CONT_OFF};
    int which;
    (void)state;
    NEEDS(MCS_PART_DENSE | MCS_PART_BANDED);
    for (which = 0; which < 2; ++which) {
        const mcs_continuation c = conts[which];
        mcs_options opt;
        mcs_sim ref, sim;
        void *raw;
        int k;
        options(md, MCS_METHOD_RK4, c, 0, &opt);
        opt.dense_output = 1; /* the default simulator's multipliers use its probe frame */
        assert_int_equal(mcs_sim_init(&ref, md, md->default_params, &opt, WORK_ARGS), MCS_OK);
        assert_int_equal(mcs_sim_start(&ref, 0, NULL), MCS_OK);
        options(md, MCS_METHOD_RK4, c, 1, &opt);
        assert_int_equal(assign(&sim, md, &opt, &raw), MCS_OK);
        assert_int_equal(mcs_sim_start(&sim, 0, NULL), MCS_OK);
        for (k = 0; k <= 5; ++k) {
            mcs_real lam[M], lam_ref[M], T[N * N], A[M * N], d[N], d_ref[N];
            double dl = 0, scale = 1, tt = 0, at = 0, p = 1, p_ref = 1;
            const int f = N - sim.cur.r;
            int i, j, l;
            if (k > 0) {
                assert_int_equal(mcs_sim_advance(&ref, 0.1 * k), MCS_OK);
                assert_int_equal(mcs_sim_advance(&sim, 0.1 * k), MCS_OK);
            }
            assert_int_equal(f, N - M);
            assert_int_equal(mcs_sim_multipliers(&sim, sim.cur.t, sim.cur.x, sim.cur.v, lam),
                             MCS_OK);
            assert_int_equal(mcs_sim_multipliers(&ref, ref.cur.t, ref.cur.x, ref.cur.v, lam_ref),
                             MCS_OK);
            for (i = 0; i < M; ++i) {
                dl = fmax(dl, fabs(lam[i] - lam_ref[i]));
                scale = fmax(scale, fabs(lam_ref[i]));
            }
            assert_true(dl < 1e-9 * scale);
            assert_int_equal(mcs_sim_basis(&sim, T), MCS_OK);
            md->A(sim.cur.x, sim.cur.t, md->default_params, A);
            for (j = 0; j < f; ++j)
                for (l = 0; l < f; ++l) {
                    double dot = 0;
                    for (i = 0; i < N; ++i)
                        dot += T[i + j * N] * T[i + l * N];
                    tt = fmax(tt, fabs(dot - (j == l)));
                }
            for (j = 0; j < f; ++j)
                for (l = 0; l < M; ++l) {
                    double row = 0;
                    for (i = 0; i < N; ++i)
                        row += A[l + i * M] * T[i + j * N];
                    at = fmax(at, fabs(row));
                }
            assert_true(tt < 1e-14);
            assert_true(at < 1e-13);
            assert_int_equal(mcs_sim_rdiag(&sim, d), MCS_OK);
            assert_int_equal(mcs_sim_rdiag(&ref, d_ref), MCS_OK);
            for (i = 0; i < M; ++i) {
                p *= d[i];
                p_ref *= d_ref[i];
            }
            assert_true(fabs(p - p_ref) < 1e-12 * p_ref);
        }
        free(raw);
    }
}

/* Rows that lose rank are where it stops, with a status: the double four-bar's singular
 * configuration (t = 0.714 s) and a model whose two rows are one constraint. */
static void test_banded_stops_where_the_rows_lose_rank(void **state)
{
    mcs_options opt;
    mcs_sim sim;
    void *raw;
    (void)state;
    NEEDS(MCS_PART_BANDED);
    options(&double_four_bar_model, MCS_METHOD_RK4, MCS_CONT_NONE, 1, &opt);
    assert_int_equal(assign(&sim, &double_four_bar_model, &opt, &raw), MCS_OK);
    assert_int_equal(mcs_sim_start(&sim, 0, NULL), MCS_OK);
    assert_int_equal(mcs_sim_advance(&sim, 1.0), MCS_ERR_SINGULAR_CHART);
    assert_true(fabs(sim.cur.t - 0.714) < 2e-3);
    free(raw);
    options(&planar_pendulum_redundant_model, MCS_METHOD_RK4, MCS_CONT_NONE, 1, &opt);
    assert_int_equal(assign(&sim, &planar_pendulum_redundant_model, &opt, &raw), MCS_OK);
    assert_int_equal(mcs_sim_start(&sim, 0, NULL), MCS_ERR_SINGULAR_CHART);
    free(raw);
}

/* The generated macro is the size, to the byte, for each continuation and max_dof. */
static void test_banded_memory_is_the_macro(void **state)
{
    const mcs_model *md = &slider_crank_model;
    mcs_continuation c;
    (void)state;
    NEEDS(MCS_PART_BANDED);
    for (c = MCS_CONT_NONE; c <= MCS_CONT_OFF; ++c) {
        mcs_options opt;
        int f;
        if (c == MCS_CONT_EXP)
            continue;
        for (f = 0; f <= 2; ++f) {
            options(md, MCS_METHOD_RK4, c, 1, &opt);
            opt.max_dof = f;
            assert_int_equal(mcs_sim_memory_size(md, &opt),
                             SLIDER_CRANK_SIM_MEMORY(f, mcs_sim_memory_features(&opt)) *
                                 sizeof(mcs_real));
        }
    }
}

/* What mcs_sim_assign says to the options (its checks come before the size's). */
static mcs_status check(const mcs_model *md, const mcs_options *opt)
{
    static mcs_real block[1];
    mcs_sim sim;
    const mcs_status st = mcs_sim_assign(&sim, md, md->default_params, opt, block, sizeof block);
    return (st == MCS_ERR_WORKSPACE) ? MCS_OK : st;
}

/* What it does not do is a status, not a wrong answer. */
static void test_banded_refuses_what_it_does_not_do(void **state)
{
    const mcs_model *md = &slider_crank_model;
    mcs_options opt;
    mcs_sim sim;
    (void)state;
    NEEDS(MCS_PART_BANDED);
    options(md, MCS_METHOD_RK4, MCS_CONT_NONE, 1, &opt);
    assert_int_equal(check(md, &opt), MCS_OK);
    /* mcs_sim_init's layout has no room for the band structure's sizes */
    assert_int_equal(mcs_sim_init(&sim, md, md->default_params, &opt, WORK_ARGS),
                     MCS_ERR_UNSUPPORTED);
    opt.continuation = MCS_CONT_EXP;
    assert_int_equal(check(md, &opt), MCS_ERR_UNSUPPORTED);
    options(md, MCS_METHOD_RK4, MCS_CONT_NONE, 1, &opt);
    opt.dense_output = 1;
    assert_int_equal(check(md, &opt), MCS_ERR_UNSUPPORTED);
    options(md, MCS_METHOD_RK4, MCS_CONT_NONE, 1, &opt);
    opt.sing_tol = 1e-3;
    assert_int_equal(check(md, &opt), MCS_ERR_UNSUPPORTED);
    options(md, MCS_METHOD_RK4, MCS_CONT_NONE, 1, &opt);
    opt.max_locks = 1;
    assert_int_equal(check(md, &opt), MCS_ERR_UNSUPPORTED);
    options(md, MCS_METHOD_RK4, MCS_CONT_NONE, 1, &opt);
    opt.variant = (mcs_variant)3; /* no variant */
    assert_int_equal(check(md, &opt), MCS_ERR_ARGUMENT);
    opt.variant = (mcs_variant)-1;
    assert_int_equal(check(md, &opt), MCS_ERR_ARGUMENT);
    /* no rows (nothing to band), and rows without a band structure (16 rows on 14 coordinates) */
    options(&pendulum_3r_model, MCS_METHOD_RK4, MCS_CONT_NONE, 1, &opt);
    assert_int_equal(check(&pendulum_3r_model, &opt), MCS_ERR_UNSUPPORTED);
    assert_int_equal(mcs_sim_memory_size(&pendulum_3r_model, &opt), 0);
}

/* Options changed after mcs_sim_assign: a banded layout runs only the banded simulator (its
 * frames have no Q), and the banded simulator only in its layout. */
static void test_banded_layout_and_options_must_agree(void **state)
{
    const mcs_model *md = &slider_crank_model;
    mcs_options opt;
    mcs_sim sim;
    void *raw;
    (void)state;
    NEEDS(MCS_PART_DENSE | MCS_PART_BANDED);
    options(md, MCS_METHOD_RK4, MCS_CONT_NONE, 1, &opt);
    assert_int_equal(assign(&sim, md, &opt, &raw), MCS_OK);
    assert_int_equal(mcs_sim_start(&sim, 0, NULL), MCS_OK);
    sim.opt.variant = MCS_VARIANT_DENSE;
    assert_int_equal(mcs_sim_step(&sim, 0.1), MCS_ERR_ARGUMENT);
    sim.opt.variant = MCS_VARIANT_COMPACT;
    assert_int_equal(mcs_sim_step(&sim, 0.1), MCS_ERR_ARGUMENT);
    sim.opt.variant = MCS_VARIANT_BANDED;
    assert_int_equal(mcs_sim_step(&sim, 0.1), MCS_OK);
    free(raw);
    options(md, MCS_METHOD_RK4, MCS_CONT_NONE, 0, &opt);
    assert_int_equal(mcs_sim_init(&sim, md, md->default_params, &opt, WORK_ARGS), MCS_OK);
    assert_int_equal(mcs_sim_start(&sim, 0, NULL), MCS_OK);
    sim.opt.variant = MCS_VARIANT_BANDED;
    assert_int_equal(mcs_sim_step(&sim, 0.1), MCS_ERR_ARGUMENT);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_banded_runs_the_default_motion),
        cmocka_unit_test(test_banded_minimal_coordinates),
        cmocka_unit_test(test_banded_invariants),
        cmocka_unit_test(test_banded_queries),
        cmocka_unit_test(test_banded_stops_where_the_rows_lose_rank),
        cmocka_unit_test(test_banded_memory_is_the_macro),
        cmocka_unit_test(test_banded_refuses_what_it_does_not_do),
        cmocka_unit_test(test_banded_layout_and_options_must_agree),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
