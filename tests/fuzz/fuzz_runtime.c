/* fuzz_runtime.c - one libFuzzer harness for every public entry point of the runtime (issue 16).
 *
 * The fuzzer's bytes are decoded into what a firmware caller could pass: which model (the spatial
 * pendulum, the slider-crank, the double four-bar), any options, a workspace of any length, any
 * parameters, state and time (NaN, +-Inf, subnormals, 1e300, states far off the constraint
 * manifold), then a short sequence of calls: steps and advances to any target, dense output at
 * any time, multipliers, energies, locks and unlocks of coordinates and joints, momenta, a new
 * state, statics and modes. Every call must return an mcs_status in range and, when it returns
 * MCS_OK, leave a finite state: anything else is a crash the fuzzer reports (abort), as are the
 * sanitizers' findings and timeouts.
 *
 * Built with clang -fsanitize=fuzzer,address,undefined by `make fuzz`, for each linear-algebra
 * backend and precision; `make test` replays the committed corpus and regression inputs through
 * tests/fuzz/replay.c compiled with gcc's sanitizers. This is test code: it may abort. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "double_four_bar.h"
#include "mcs/mcs_modes.h"
#include "mcs/mcs_sim.h"
#include "mcs/mcs_statics.h"
#include "slider_crank.h"
#include "spatial_pendulum.h"

#define NMODELS 3
#define MAX_NX 21 /* the largest model's nx and nc */
#define MAX_NC 20
#define MAX_LOCKS 8
#define MAX_ROWS (MAX_NC + MAX_LOCKS + 1) /* options() decodes max_locks up to MAX_LOCKS + 1 */
#define MAX_OPS 8
/* the caller's bound on one advance: a harness input must end well within 5 s */
#define MAX_STEPS 50

static const mcs_model *const models[NMODELS] = {&spatial_pendulum_model, &slider_crank_model,
                                                 &double_four_bar_model};

static mcs_real work[MCS_SIM_WORK_SIZE(MAX_NX, MAX_ROWS)];
/* mcs_sim_assign's block: room for mcs_sim_init's reals and ints (which it never exceeds) */
static mcs_real block[MCS_SIM_WORK_SIZE(MAX_NX, MAX_ROWS) + MCS_SIM_IWORK_SIZE(MAX_NX, MAX_ROWS)];
static int iwork[MCS_SIM_IWORK_SIZE(MAX_NX, MAX_ROWS)];
static mcs_real jwork[MCS_JUMP_WORK_SIZE(MAX_NX, MAX_ROWS, 6)];
static int jiwork[MCS_JUMP_IWORK_SIZE(MAX_NX, MAX_ROWS, 6)];
static mcs_real swork[MCS_STATICS_WORK_SIZE(MAX_NX, MAX_NC)];
static int siwork[MCS_STATICS_IWORK_SIZE(MAX_NX, MAX_NC)];
static mcs_real mwork[MCS_MODES_WORK_SIZE(MAX_NX, MAX_NC)];
static int miwork[MCS_MODES_IWORK_SIZE(MAX_NX, MAX_NC)];
static mcs_real shapes[MAX_NX * 2 * MAX_NX], shapes_im[MAX_NX * 2 * MAX_NX];
static mcs_mode modes[2 * MAX_NX];

/* The parameters of any of the models, as an array of reals (every member is an mcs_real). */
static union {
    spatial_pendulum_params a;
    slider_crank_params b;
    double_four_bar_params c;
    mcs_real r[64];
} params;

typedef struct input {
    const uint8_t *d;
    size_t n;
} input;

static unsigned byte(input *in)
{
    unsigned b = 0;
    if (in->n) {
        b = in->d[0];
        in->d++;
        in->n--;
    }
    return b;
}

/* Any bit pattern of an mcs_real (NaNs with payloads, subnormals, infinities included). */
static mcs_real raw_real(input *in)
{
    unsigned char bytes[sizeof(mcs_real)];
    mcs_real x;
    size_t i;
    for (i = 0; i < sizeof bytes; ++i)
        bytes[i] = (unsigned char)byte(in);
    memcpy(&x, bytes, sizeof x);
    return x;
}

#ifdef MCS_REAL_FLOAT
#define HUGE_R 1e38f
#define TINY_R 1e-38f
#define SUBNORMAL_R 1e-42f
#else
#define HUGE_R 1e300
#define TINY_R 1e-300
#define SUBNORMAL_R 4.9e-324
#endif

/* A real as a hostile caller might pass it: special values, extremes, or ordinary ones. */
static mcs_real real(input *in, mcs_real ordinary)
{
    const unsigned k = byte(in);
    switch (k % 16) {
    case 0: return (mcs_real)NAN;
    case 1: return (mcs_real)INFINITY;
    case 2: return -(mcs_real)INFINITY;
    case 3: return 0;
    case 4: return -(mcs_real)0.0;
    case 5: return SUBNORMAL_R;
    case 6: return HUGE_R;
    case 7: return -HUGE_R;
    case 8: return TINY_R;
    case 9: return raw_real(in);
    case 10: return -ordinary;
    case 11: return ordinary * (mcs_real)(1 + byte(in)) / 16;
    default: return ordinary * (1 + ((mcs_real)byte(in) - 128) / 1024);
    }
}

static void check_status(mcs_status st)
{
    if ((unsigned)st >= (unsigned)MCS_NSTATUS)
        abort();
}

static void check_finite(int n, const mcs_real *a)
{
    int i;
    for (i = 0; i < n; ++i)
        if (!(a[i] - a[i] == 0))
            abort(); /* an OK status with a non-finite result: a silent failure */
}

static void options(input *in, mcs_options *opt, const mcs_model *md)
{
    const unsigned low = byte(in), high = byte(in); /* one byte per declarator: sequenced */
    const unsigned mask = low | (high << 8);
    mcs_options_default(opt, md);
    if (mask & 1)
        opt->method = (mcs_method)((int)byte(in) % 5 - 1); /* -1 and 3: not a method */
    if (mask & 2)
        opt->continuation = (mcs_continuation)((int)byte(in) % 6 - 1);
    if (mask & 4)
        opt->h = real(in, opt->h);
    if (mask & 8)
        opt->rtol = real(in, opt->rtol);
    if (mask & 16)
        opt->atol = real(in, opt->atol);
    if (mask & 32)
        opt->h_min = real(in, opt->h_min);
    if (mask & 64)
        opt->rank_tol = real(in, opt->rank_tol);
    if (mask & 128)
        opt->newton_tol = real(in, opt->newton_tol);
    if (mask & 256)
        opt->newton_max_iter = (int)byte(in) - 8;
    if (mask & 512)
        opt->chart_pivot_min = real(in, opt->chart_pivot_min);
    if (mask & 1024)
        opt->sing_watch = real(in, opt->sing_watch);
    if (mask & 2048)
        opt->sing_tol = real(in, opt->sing_tol);
    if (mask & 4096)
        opt->chart_tol = real(in, opt->chart_tol);
    if (mask & 8192)
        opt->max_locks = (int)byte(in) % (MAX_LOCKS + 3) - 1;
    if (mask & 16384)
        opt->max_attempts = (int)byte(in) - 8;
    /* the caller bounds its own waiting: a fuzz input must end within libFuzzer's timeout */
    opt->max_steps = (mask & 32768) ? (long)byte(in) - 8 : MAX_STEPS;
    if (opt->max_steps > MAX_STEPS)
        opt->max_steps = MAX_STEPS;
    if (opt->max_attempts > 50)
        opt->max_attempts = 50;
    if (opt->newton_max_iter > 50)
        opt->newton_max_iter = 50;
}

/* A quarter of the runs are compact simulators (bit 6 of the memory byte): most with the options
 * it needs, some (bit 7) with the options as they came, which it refuses or runs. */
static void compact_options(unsigned memory, mcs_options *opt)
{
    if (((memory >> 6) & 1U) == 0U)
        return;
    opt->variant = MCS_VARIANT_COMPACT;
    if (((memory >> 7) & 1U) == 0U) {
        opt->dense_output = 0;
        opt->sing_tol = 0;
        opt->max_locks = 0;
    }
}

static void vector(input *in, int n, const mcs_real *base, mcs_real *out)
{
    const unsigned how = byte(in) % 4;
    int i;
    for (i = 0; i < n; ++i)
        out[i] = base[i];
    if (how == 0)
        return;
    for (i = 0; i < n; ++i)
        if (how == 3 || byte(in) % 4 == 0)
            out[i] = real(in, base[i] != 0 ? base[i] : 1);
}

static void statics_and_modes(input *in, const mcs_model *md, const mcs_real *x_in)
{
    mcs_statics_options so;
    mcs_modes_options mo;
    mcs_statics_report srep;
    mcs_modes_report mrep;
    mcs_real x[MAX_NX], lambda[MAX_NC + 1], *im;
    size_t wl = mcs_statics_work_size(md), iwl = mcs_statics_iwork_size(md);
    mcs_status st;
    memcpy(x, x_in, sizeof(mcs_real) * (size_t)md->nx);
    memset(lambda, 0, sizeof lambda); /* modes get the statics' lambda, or zeros if it failed */
    mcs_statics_defaults(&so);
    so.use_kc = (int)byte(in) % 3 - 1;
    so.method = (int)byte(in) % 3;
    so.max_iter = (int)byte(in) % 80 - 2;
    if (byte(in) & 1)
        so.tol = real(in, so.tol);
    if (byte(in) & 1)
        so.rank_tol = real(in, so.rank_tol);
    so.t = real(in, 0);
    if (byte(in) & 1)
        wl -= byte(in) % (wl + 1);
    st = mcs_statics_solve(md, &params, &so, x, lambda, &srep, swork, wl, siwork, iwl);
    check_status(st);
    if (st == MCS_OK) {
        check_finite(md->nx, x);
        check_finite(md->nc, lambda);
    }
    mcs_modes_defaults(&mo);
    mo.use_kc = (int)byte(in) % 3 - 1;
    mo.damped = (int)byte(in) % 3 - 1;
    if (byte(in) & 1)
        mo.rank_tol = real(in, mo.rank_tol);
    if (byte(in) & 1)
        mo.sym_tol = real(in, mo.sym_tol);
    wl = mcs_modes_work_size(md);
    if (byte(in) & 1)
        wl -= byte(in) % (wl + 1);
    im = (byte(in) & 1) ? shapes_im : NULL;
    st = mcs_modes_solve(md, &params, &mo, x, lambda, &mrep, modes, shapes, im, mwork, wl, miwork,
                         mcs_modes_iwork_size(md));
    check_status(st);
    if (st == MCS_OK)
        check_finite(mrep.nmodes * md->nx, shapes);
}

/* The model-free entry points (mcs_basis.h, mcs_transition.h) on a small fuzzed matrix. */
#define LA_N 6
static mcs_real la_work[MCS_BASIS_WORK_SIZE(LA_N, LA_N + 1)];
static mcs_real la_jwork[MCS_JUMP_WORK_SIZE(LA_N, LA_N, LA_N)];
static int la_iwork[MCS_BASIS_IWORK_SIZE(LA_N, LA_N + 1) + MCS_JUMP_IWORK_SIZE(LA_N, LA_N, LA_N)];

static void basis_and_jump(input *in, unsigned a0, unsigned a1, unsigned a2)
{
    const int n = 1 + (int)(a0 % LA_N), m = (int)(a1 % (LA_N + 1)), m2 = 1 + (int)(a2 % 3);
    mcs_real A[LA_N * (LA_N + 1)], Ad[LA_N * (LA_N + 1)], Q[LA_N * LA_N], R[LA_N * (LA_N + 1)];
    mcs_real Tp[LA_N * LA_N], To[LA_N * LA_N], M[LA_N * LA_N], J2[3 * LA_N], v[LA_N], dv[LA_N];
    mcs_real g[LA_N], lambda[LA_N + 1], N[LA_N * LA_N], y[LA_N], lam2[3];
    int piv[LA_N + 1], rank = 0, i, j;
    mcs_jump_report rep;
    mcs_status st;
    const mcs_real rank_tol = real(in, MCS_R(1e-9)), h = real(in, MCS_R(0.01));
    const mcs_continuation kind = (mcs_continuation)((int)byte(in) % 5 - 1);
    const mcs_jump_method method = (mcs_jump_method)((int)byte(in) % 5 - 1);
    for (i = 0; i < m * n; ++i) {
        A[i] = real(in, (mcs_real)((i * 7) % 5) - 2);
        Ad[i] = real(in, MCS_R(0.5));
    }
    st = mcs_qr_basis(n, m, m > 0 ? A : NULL, m > 0 ? m : 1, rank_tol, Q, R, piv, &rank, la_work);
    check_status(st);
    if (st != MCS_OK)
        return;
    check_finite(n * n, Q);
    if (rank < 0 || rank > (m < n ? m : n))
        abort();
    st = mcs_predict_tangent(n, m, rank, Q, R, piv, Ad, h, kind, Tp, la_work, la_iwork);
    check_status(st);
    if (st == MCS_OK) {
        check_finite(n * (n - rank), Tp);
        check_status(mcs_align_basis(n, n - rank, Tp, n - rank, Q + rank * n, To, la_work));
    }
    {
        /* the same A_dot by its nonzeros: the same status and, when OK, the same prediction */
        int start[LA_N + 2], at[LA_N * (LA_N + 1)], col[LA_N * (LA_N + 1)], nnz = 0;
        mcs_real val[LA_N * (LA_N + 1)];
        mcs_sparse_rows rows;
        mcs_status st_rows;
        for (i = 0; i < m; ++i) {
            start[i] = nnz;
            for (j = 0; j < n; ++j)
                if (Ad[i + j * m] != 0) {
                    at[nnz] = nnz;
                    col[nnz] = j;
                    val[nnz++] = Ad[i + j * m];
                }
        }
        start[m] = nnz;
        rows.start = start;
        rows.at = at;
        rows.col = col;
        rows.val = val;
        rows.nnz = nnz;
        st_rows =
            mcs_predict_tangent_rows(n, m, rank, Q, R, piv, &rows, h, kind, To, la_work, la_iwork);
        check_status(st_rows);
        if (st_rows != st)
            abort();
        if (st == MCS_OK)
            for (i = 0; i < n * (n - rank); ++i)
                if (!(To[i] == Tp[i]))
                    abort();
    }
    for (i = 0; i < n; ++i)
        g[i] = real(in, 1);
    check_status(mcs_min_norm_multipliers(n, m, rank, Q, R, piv, g, lambda, N, y));
    for (i = 0; i < n; ++i) /* M: diagonally dominant, or whatever the bytes say */
        for (j = 0; j < n; ++j)
            M[i + j * n] = i == j ? real(in, 2) : MCS_R(0.1);
    for (i = 0; i < m2 * n; ++i)
        J2[i] = real(in, 1);
    for (i = 0; i < n; ++i)
        v[i] = 0; /* J1 v = 0 */
    st = mcs_jump(method, n, M, m, m > 0 ? A : NULL, n - rank, Q + rank * n, m2, J2, v, NULL,
                  rank_tol, dv, lam2, &rep, la_jwork, sizeof la_jwork / sizeof *la_jwork, la_iwork,
                  sizeof la_iwork / sizeof *la_iwork);
    check_status(st);
    if (st == MCS_OK)
        check_finite(n, dv);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    input in = {data, size};
    const mcs_model *md = models[byte(&in) % NMODELS];
    const int n = md->nx;
    mcs_options opt;
    mcs_sim sim;
    mcs_assembly rep;
    mcs_transition tr;
    mcs_real x[MAX_NX], v[MAX_NX], dv[MAX_NX], out[MAX_NX + MAX_ROWS], out2[MAX_NX];
    size_t need, ineed, wl, iwl;
    unsigned memory;
    mcs_real t0 = 0;
    mcs_status st;
    int op, i, np = md->np;
    options(&in, &opt, md);
    if (md->params_size > sizeof params)
        abort(); /* the harness's union is too small for a model: fix the harness */
    memcpy(&params, md->default_params, md->params_size);
    if (byte(&in) & 1)
        for (i = 0; i < np; ++i)
            if (byte(&in) % 3 == 0)
                params.r[i] = real(&in, params.r[i]);
    wl = sizeof work / sizeof *work;
    iwl = sizeof iwork / sizeof *iwork;
    memory = mcs_sim_workspace_size(n, md->nc + (opt.max_locks > 0 ? opt.max_locks : 0), &need,
                                    &ineed) == MCS_OK
                 ? byte(&in)
                 : 2;
    if (memory % 4 == 0) {
        wl = need - byte(&in) % 3; /* exactly enough, or just too little */
        iwl = ineed - byte(&in) % 2;
        if (wl > sizeof work / sizeof *work || iwl > sizeof iwork / sizeof *iwork)
            abort(); /* the harness's arrays must hold what it claims: fix MAX_ROWS */
    }
    if (memory % 4 == 1) {
        /* the firmware path: memory sized by the options (dense output, max_dof from the same
         * byte), placed at the very end of `block` so that ASan sees a byte written past it */
        size_t bytes;
        opt.dense_output = (int)((memory >> 2) & 1U);
        opt.max_dof = (int)((memory >> 3) % (unsigned)(n + 1));
        compact_options(memory, &opt);
        bytes = mcs_sim_memory_size(md, &opt);
        if (bytes > sizeof block || bytes % sizeof(mcs_real) != 0)
            abort(); /* more than mcs_sim_init's workspace, or not whole reals */
        st = mcs_sim_assign(&sim, md, &params, &opt, (char *)block + (sizeof block - bytes), bytes);
        if (bytes == 0 && st == MCS_OK)
            abort(); /* a size of 0 says the options are refused */
    } else {
        compact_options(memory, &opt);
        st = mcs_sim_init(&sim, md, &params, &opt, work, wl, iwork, iwl);
    }
    check_status(st);
    if (byte(&in) % 8 == 0) { /* statics and modes from a fuzzed configuration */
        vector(&in, n, md->x0, x);
        statics_and_modes(&in, md, x);
    }
    if (st != MCS_OK)
        return 0;
    vector(&in, n, md->x0, x);
    vector(&in, n, md->v0, v);
    if (byte(&in) & 1)
        t0 = real(&in, 1);
    st = mcs_sim_set_state(&sim, t0, x, v, &rep);
    check_status(st);
    if (st != MCS_OK)
        return 0;
    check_finite(n, sim.cur.x);
    check_finite(n, sim.cur.v);
    for (op = 0; op < MAX_OPS && in.n > 0; ++op) {
        const mcs_real t = sim.cur.t, dt = real(&in, (mcs_real)0.01);
        const int call = (int)(byte(&in) % 12);
        /* the call's operand bytes, read in order (the order of evaluation of a function's
         * arguments is unspecified: two byte() calls in one argument list would decode
         * differently under gcc and clang) */
        const unsigned a0 = byte(&in), a1 = byte(&in), a2 = byte(&in);
        switch (call) {
        case 0: st = mcs_sim_step(&sim, t + dt); break;
        case 1: st = mcs_sim_advance(&sim, t + dt); break;
        case 2:
            st = mcs_sim_dense(&sim, (a0 & 1) ? t - dt : dt, out, out2, (a1 & 1) ? x : NULL, NULL);
            if (st == MCS_OK)
                check_finite(n, out);
            break;
        case 3:
            vector(&in, n, sim.cur.x, x);
            vector(&in, n, sim.cur.v, v);
            st = mcs_sim_multipliers(&sim, (a0 & 1) ? dt : t, x, v, out);
            if (st == MCS_OK)
                check_finite(md->nc, out);
            break;
        case 4: {
            mcs_real a, b;
            check_status(mcs_sim_energy(&sim, &a, &b));
            check_status(mcs_sim_constraint_norm(&sim, &a));
            vector(&in, n, sim.cur.x, x);
            check_status(mcs_sim_constraint_norm_at(&sim, dt, x, &a));
            check_status(mcs_sim_energy_at(&sim, dt, x, sim.cur.v, &a, &b));
            st = mcs_sim_minimal(&sim, out, out2);
            break;
        }
        case 5:
            st = mcs_sim_lock(&sim, (int)a0 % (n + 2) - 1, (mcs_jump_method)((int)a1 % 6 - 1), dv,
                              jwork, sizeof jwork / sizeof *jwork - a2 % 2, jiwork,
                              sizeof jiwork / sizeof *jiwork, &tr);
            break;
        case 6:
            st = mcs_sim_lock_group(&sim, n + (int)a0 % 4, (int)a1 % (md->ngroups + 2) - 1,
                                    (mcs_jump_method)((int)a2 % 4), dv, jwork,
                                    sizeof jwork / sizeof *jwork, jiwork,
                                    sizeof jiwork / sizeof *jiwork, &tr);
            break;
        case 7: st = mcs_sim_unlock(&sim, (int)a0 % (n + 6) - 1, &tr); break;
        case 10:
            vector(&in, n, sim.cur.v, x); /* any row a */
            st = mcs_sim_lock_row(&sim, n + (int)a0 % 4 - 1, x, (mcs_jump_method)((int)a1 % 4), dv,
                                  jwork, sizeof jwork / sizeof *jwork, jiwork,
                                  sizeof jiwork / sizeof *jiwork, &tr);
            break;
        case 11:
            basis_and_jump(&in, a0, a1, a2);
            vector(&in, n, sim.cur.x, x);
            vector(&in, n, sim.cur.v, v);
            st = mcs_sim_momenta_at(&sim, dt, x, v, sim.cur.Q, (int)a2 % (n + 2) - 1, out);
            break;
        case 8:
            vector(&in, n, sim.cur.v, v);
            st = mcs_sim_momenta(&sim, v, out);
            break;
        case 9:
            vector(&in, n, sim.cur.x, x);
            vector(&in, n, sim.cur.v, v);
            st = mcs_sim_set_state(&sim, t + dt, x, v, NULL);
            break;
        default: abort();
        }
        check_status(st);
        if (getenv("FUZZ_TRACE")) /* replay FILE with FUZZ_TRACE=1 to see what a crash did */
            fprintf(
                stderr,
                "model %s (method %d, h %g) op %d (call %d): t %g dt %g -> %s, t = %g, rank %d\n",
                md->name, (int)opt.method, (double)opt.h, op, call, (double)t, (double)dt,
                mcs_status_str(st), (double)sim.cur.t, sim.cur.r);
        if (st == MCS_OK && sim.ready) {
            check_finite(n, sim.cur.x);
            check_finite(n, sim.cur.v);
            if (!(sim.cur.t - sim.cur.t == 0))
                abort();
        }
    }
    return 0;
}
