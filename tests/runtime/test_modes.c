/* test_modes.c - the modes at a static equilibrium (mcs_modes.c): the pendulum of 003 §4.1
 * (sqrt(g/L), a rigid mode without K_c), the torsion pendulum's hand-derived frequency and
 * damping, the same modes in a continued tangent basis, the status codes and the empty report of
 * a refused call, and the stiffness kernels a firmware build may leave out. Each reaches its
 * equilibrium with the statics call test_statics.c checks. Runs on both linear-algebra backends
 * (the damped pencil is LAPACK-only) and under ASan/UBSan (Makefile). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <math.h>
#include <cmocka.h>

#include "mcs/mcs_modes.h"
#include "mcs/mcs_statics.h"
#include "pendulum_3r_bodies.h"
#include "pendulum_kc.h"
#include "pendulum_torsion.h"

#define NX PENDULUM_3R_BODIES_NX /* the largest of the models used here */
#define NC PENDULUM_3R_BODIES_NC
static mcs_real work[MCS_MODES_WORK_SIZE(NX, NC) + MCS_STATICS_WORK_SIZE(NX, NC)];
static int iwork[MCS_MODES_IWORK_SIZE(NX, NC) + MCS_STATICS_IWORK_SIZE(NX, NC)];
static mcs_real x[NX], lam[NC], shapes[2 * NX * NX], shapes_im[2 * NX * NX];
static mcs_mode modes[2 * NX];
#define WORK_ARGS work, sizeof work / sizeof *work, iwork, sizeof iwork / sizeof *iwork

/* sqrt(g / L) of the 003 pendulum, and the torsion pendulum by hand (models/pendulum_torsion.yaml:
 * m g L sin(phi) + k (phi - 0.5) = 0, omega^2 = (m g L cos(phi) + k) / (m L^2 + J)). */
#define OMEGA_KC 1.5660459763365826
#define OMEGA_TORSION 1.8049702668549032
#define SIGMA_TORSION (30.0 / (2 * 240.6))

static mcs_status statics_from(const mcs_model *md, const mcs_real *x0, int method, int use_kc,
                               mcs_statics_report *rep)
{
    mcs_statics_options opt;
    int i;
    mcs_statics_defaults(&opt);
    opt.method = method;
    opt.use_kc = use_kc;
    for (i = 0; i < md->nx; ++i)
        x[i] = x0[i];
    return mcs_statics_solve(md, md->default_params, &opt, x, lam, rep, WORK_ARGS);
}

static mcs_status statics(const mcs_model *md, int method, int use_kc, mcs_statics_report *rep)
{
    return statics_from(md, md->x0, method, use_kc, rep);
}

/* The 003 pendulum at its equilibrium (the tangent form's, then the KKT form's from its
 * multipliers, as test_statics.c's pendulum_equilibrium): one mode at sqrt(g/L). */
static void pendulum_frequency(void **state)
{
    const mcs_model *md = &pendulum_kc_model;
    mcs_statics_report rep;
    mcs_modes_options mopt;
    mcs_modes_report mrep;
    (void)state;
    assert_int_equal(statics(md, MCS_STATICS_TANGENT, 1, &rep), MCS_OK);
    assert_int_equal(statics(md, MCS_STATICS_KKT, 1, &rep), MCS_OK);
    mcs_modes_defaults(&mopt);
    assert_int_equal(mcs_modes_solve(md, md->default_params, &mopt, x, lam, &mrep, modes, shapes,
                                     shapes_im, WORK_ARGS),
                     MCS_OK);
    assert_int_equal(mrep.nmodes, 1);
    assert_int_equal(mrep.symmetric, 1);
    assert_int_equal(modes[0].kind, MCS_MODE_OSCILLATING);
    assert_true(fabs(modes[0].im - OMEGA_KC) < 1e-10);
    /* the shape is the tangent of the circle at the bottom: x moves, y does not */
    assert_true(fabs(shapes[0] - 1) < 1e-15 && fabs(shapes[1]) < 1e-12);
    /* without K_c: zero stiffness, a rigid mode */
    mopt.use_kc = 0;
    assert_int_equal(mcs_modes_solve(md, md->default_params, &mopt, x, lam, &mrep, modes, shapes,
                                     NULL, WORK_ARGS),
                     MCS_OK);
    assert_true(mrep.stiffness == 0 && mrep.rigid == 1 && modes[0].kind == MCS_MODE_RIGID);
}

static void torsion_pendulum_by_hand(void **state)
{
    const mcs_model *md = &pendulum_torsion_model;
    mcs_modes_options mopt;
    mcs_modes_report mrep;
    mcs_status st;
    (void)state;
    assert_int_equal(statics(md, MCS_STATICS_TANGENT, 1, NULL), MCS_OK);
    mcs_modes_defaults(&mopt);
    assert_int_equal(mcs_modes_solve(md, md->default_params, &mopt, x, lam, &mrep, modes, shapes,
                                     shapes_im, WORK_ARGS),
                     MCS_OK);
    assert_true(fabs(modes[0].omega - OMEGA_TORSION) < 1e-10);
    assert_true(fabs(modes[0].freq - OMEGA_TORSION / 6.283185307179586) < 1e-10);
    mopt.damped = 1;
    st = mcs_modes_solve(md, md->default_params, &mopt, x, lam, &mrep, modes, shapes, shapes_im,
                         WORK_ARGS);
#ifdef MCS_LINALG_PORTABLE
    assert_int_equal(st, MCS_ERR_UNSUPPORTED);
#else
    assert_int_equal(st, MCS_OK);
    assert_int_equal(mrep.symmetric, 0);
    assert_int_equal(mrep.nmodes, 1);
    assert_true(fabs(modes[0].re + SIGMA_TORSION) < 1e-10);
    assert_true(fabs(modes[0].omega - OMEGA_TORSION) < 1e-10);
    assert_true(fabs(modes[0].zeta - SIGMA_TORSION / OMEGA_TORSION) < 1e-10);
#endif
}

/* The continued basis (mcs_statics_options.basis, from the statics' continued solve that
 * test_statics.c checks) gives the same modes as the QR basis. */
static void continued_basis_changes_nothing(void **state)
{
    const mcs_model *md = &pendulum_3r_bodies_model;
    const int n = md->nx;
    static mcs_real T[NX * NX], omega[NX];
    mcs_statics_options opt;
    mcs_modes_options mopt;
    mcs_statics_report rep;
    int i, k, f = 0, f_qr;
    (void)state;
    /* traditional: QR basis at every iterate and for the modes */
    assert_int_equal(statics(md, MCS_STATICS_TANGENT, 1, &rep), MCS_OK);
    mcs_modes_defaults(&mopt);
    assert_int_equal(mcs_modes_solve(md, md->default_params, &mopt, x, lam, NULL, modes, shapes,
                                     NULL, WORK_ARGS),
                     MCS_OK);
    f_qr = n - rep.rank;
    for (k = 0; k < f_qr; ++k)
        omega[k] = modes[k].omega;
    /* continued from the start's QR basis along the Newton path */
    mcs_statics_defaults(&opt);
    opt.basis = T;
    opt.basis_cols = &f;
    for (i = 0; i < n; ++i)
        x[i] = md->x0[i];
    assert_int_equal(mcs_statics_solve(md, md->default_params, &opt, x, lam, &rep, WORK_ARGS),
                     MCS_OK);
    mopt.basis = T;
    mopt.basis_cols = f;
    assert_int_equal(mcs_modes_solve(md, md->default_params, &mopt, x, lam, NULL, modes, shapes,
                                     NULL, WORK_ARGS),
                     MCS_OK);
    for (k = 0; k < f; ++k)
        assert_true(fabs(modes[k].omega - omega[k]) < 1e-10 * omega[k]);
}

static void status_codes(void **state)
{
    const mcs_model *md = &pendulum_kc_model;
    mcs_modes_options mopt;
    int i;
    (void)state;
    mcs_modes_defaults(&mopt);
    for (i = 0; i < md->nx; ++i)
        x[i] = md->x0[i];
    assert_int_equal(mcs_modes_solve(md, md->default_params, &mopt, x, lam, NULL, modes, shapes,
                                     NULL, work, 10, iwork, sizeof iwork / sizeof *iwork),
                     MCS_ERR_WORKSPACE);
    mopt.basis = shapes;
    mopt.basis_cols = 2; /* the pendulum has one free motion */
    assert_int_equal(mcs_modes_solve(md, md->default_params, &mopt, md->x0, lam, NULL, modes,
                                     shapes_im, NULL, WORK_ARGS),
                     MCS_ERR_ARGUMENT);
    assert_true(mcs_modes_iwork_size(md) > 0);
}

/* A refused call leaves an empty report (issue 34: the command line read the report of a refused
 * --max-iter 64 and printed what the memory held, or crashed). */
static void refused_calls_leave_an_empty_report(void **state)
{
    const mcs_model *md = &pendulum_kc_model;
    mcs_modes_options mopt;
    mcs_modes_report mrep;
    int i;
    (void)state;
    mcs_modes_defaults(&mopt);
    for (i = 0; i < md->nx; ++i)
        x[i] = md->x0[i];
    memset(&mrep, 0x5a, sizeof mrep);
    assert_int_equal(mcs_modes_solve(md, md->default_params, &mopt, x, lam, &mrep, modes, shapes,
                                     NULL, work, 10, iwork, sizeof iwork / sizeof *iwork),
                     MCS_ERR_WORKSPACE);
    assert_int_equal(mrep.rank, 0);
    assert_int_equal(mrep.dof, 0);
    assert_int_equal(mrep.nmodes, 0);
    assert_int_equal(mrep.rigid, 0);
    assert_true(mrep.stiffness == 0 && mrep.asymmetry == 0);
}

/* A firmware build without the stiffness kernels (mcsgen generate --kernels motion) gets
 * MCS_ERR_UNSUPPORTED from modes, not a call through NULL (and from statics: test_statics.c). */
static void without_stiffness_kernels_unsupported(void **state)
{
    mcs_model subset = pendulum_kc_model;
    mcs_modes_options mopt;
    mcs_modes_report mrep;
    int i;
    (void)state;
    mcs_modes_defaults(&mopt);
    for (i = 0; i < subset.nx; ++i)
        x[i] = subset.x0[i];
    lam[0] = lam[1] = 0;
    subset.K_c = NULL;
    assert_int_equal(mcs_modes_solve(&subset, subset.default_params, &mopt, x, lam, &mrep, modes,
                                     shapes, shapes_im, WORK_ARGS),
                     MCS_ERR_UNSUPPORTED);
    subset = pendulum_kc_model;
    subset.D = NULL;
    mopt.damped = 1;
    assert_int_equal(mcs_modes_solve(&subset, subset.default_params, &mopt, x, lam, &mrep, modes,
                                     shapes, shapes_im, WORK_ARGS),
                     MCS_ERR_UNSUPPORTED);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(pendulum_frequency),
        cmocka_unit_test(torsion_pendulum_by_hand),
        cmocka_unit_test(continued_basis_changes_nothing),
        cmocka_unit_test(status_codes),
        cmocka_unit_test(refused_calls_leave_an_empty_report),
        cmocka_unit_test(without_stiffness_kernels_unsupported),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
