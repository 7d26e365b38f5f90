/* mcs_analyze.c - command-line driver of statics and modal analysis (mcs_statics.h,
 * mcs_modes.h) for one generated model; prints one JSON document on stdout. Built by
 * `./mcsgen statics` / `./mcsgen modes` with the same defines as mcs_simulate.c. The CLI
 * (generator/mcsgen/analyze.py) formats its output; this program is its engine:
 *
 *   analyze [--statics-no-kc] [--kkt] [--max-iter N] [--tol T] [--t T] [--param NAME=VALUE]...
 *           [--x FILE [--lambda FILE --no-statics]] [--modes [--modes-no-kc] [--damped]
 *           [--count N] [--basis-rotate SEED | --continued-basis] [--verify N [--verify-cycles C]
 *           [--verify-amp A] [--verify-samples S]]]
 *
 * --x / --lambda read nx / nc numbers; --basis-rotate replaces the QR tangent basis T by T W with
 * a pseudo-random orthogonal W (seeded), and --continued-basis carries the QR basis of the start
 * along the Newton path by the simulator's continuation (mcs_statics_options.basis) and uses it for
 * the modes: both show the results do not depend on the basis; --verify
 * simulates the first N oscillating modes from the equilibrium with initial velocity along the
 * mode and records the displacement of its dominant coordinate (the CLI takes the FFT).
 * An application, not library code: it may print and exit. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mcs/mcs_modes.h"
#include "mcs/mcs_sim.h"
#include "mcs/mcs_statics.h"
#include "mcs_app_util.h"

#define CAT2(a, b) a##b
#define CAT(a, b) CAT2(a, b)
#define MODEL CAT(MCS_APP_MODEL, _model)
#define PARAMS_T CAT(MCS_APP_MODEL, _params)
#define DEFAULTS CAT(MCS_APP_MODEL, _default_params)
#define NX MCS_APP_NX
#define NC (MCS_APP_NC > 0 ? MCS_APP_NC : 1)
#define MAX_SAMPLES 4096

const char *const app_name = "analyze";

static mcs_real swork[MCS_STATICS_WORK_SIZE(NX, NC)];
static int siwork[MCS_STATICS_IWORK_SIZE(NX, NC)];
static mcs_real mwork[MCS_MODES_WORK_SIZE(NX, NC)];
static int miwork[MCS_MODES_IWORK_SIZE(NX, NC)];
static mcs_real simwork[MCS_SIM_WORK_SIZE(NX, NC)];
static int simiwork[MCS_SIM_IWORK_SIZE(NX, NC)];
static mcs_real x[NX], lambda[NC], v0[NX], basis[NX * NX], wrot[NX * NX];
static mcs_real xv_file[2 * NX]; /* the mechanism file's [x0; v0] for the parameters */
static mcs_real shapes[2 * NX * NX], shapes_im[2 * NX * NX], samples[MAX_SAMPLES];
static mcs_mode modes[2 * NX];
static mcs_real Abuf[NC * NX];
#define NW (MCS_APP_NW > 6 ? MCS_APP_NW : 6) /* room for one spatial joint, whatever the model */
/* [v; x''; lambda; nu] and the joints' wrenches */
static mcs_real wstack[2 * NX + NC + MCS_APP_NMU + MCS_APP_NU], wrench[NW];

typedef struct args {
    int statics_kc, modes_kc, kkt, max_iter, no_statics, modes, damped, count, verify;
    unsigned long rotate_seed;
    int rotate, continued, verify_samples;
    mcs_real tol, t, verify_cycles, verify_amp;
    const char *x_file, *lambda_file;
} args;

static void read_vector(const char *path, mcs_real *out, int len)
{
    FILE *fp = fopen(path, "r");
    int i;
    if (!fp)
        die("cannot read", path);
    for (i = 0; i < len; ++i) {
        double v;
        if (fscanf(fp, "%lf", &v) != 1) {
            fclose(fp);
            die("too few numbers in", path);
        }
        out[i] = (mcs_real)v;
    }
    fclose(fp);
}

/* An integer option in lo..hi (checked before the conversion: a double beyond int's range has
 * no int value). */
static int count_option(const char *val, const char *flag, int lo, int hi)
{
    const double v = number(val, flag);
    if (!(v >= lo && v <= hi) || v != (double)(int)v) {
        static char text[96];
        snprintf(text, sizeof text, "%s %s (an integer in %d..%d)", flag, val, lo, hi);
        die("out of range", text);
    }
    return (int)v;
}

static void parse(int argc, char **argv, args *a, const mcs_model *md, void *params)
{
    int i;
    for (i = 1; i < argc; ++i) {
        const char *o = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
        int takes = 1;
        if (!strcmp(o, "--statics-no-kc"))
            a->statics_kc = 0, takes = 0;
        else if (!strcmp(o, "--modes-no-kc"))
            a->modes_kc = 0, takes = 0;
        else if (!strcmp(o, "--kkt"))
            a->kkt = 1, takes = 0;
        else if (!strcmp(o, "--no-statics"))
            a->no_statics = 1, takes = 0;
        else if (!strcmp(o, "--modes"))
            a->modes = 1, takes = 0;
        else if (!strcmp(o, "--damped"))
            a->damped = 1, takes = 0;
        else if (!strcmp(o, "--continued-basis"))
            a->continued = 1, takes = 0;
        else if (!val)
            die("unknown option or missing value", o);
        else if (!strcmp(o, "--max-iter"))
            a->max_iter = count_option(val, o, 1, MCS_STATICS_HISTORY - 1);
        else if (!strcmp(o, "--tol"))
            a->tol = (mcs_real)number(val, o);
        else if (!strcmp(o, "--t"))
            a->t = (mcs_real)number(val, o);
        else if (!strcmp(o, "--param"))
            set_param(md, params, val);
        else if (!strcmp(o, "--x"))
            a->x_file = val;
        else if (!strcmp(o, "--lambda"))
            a->lambda_file = val;
        else if (!strcmp(o, "--count"))
            a->count = count_option(val, o, 0, 1 << 30);
        else if (!strcmp(o, "--basis-rotate"))
            a->rotate = 1, a->rotate_seed = (unsigned long)number(val, o);
        else if (!strcmp(o, "--verify"))
            a->verify = count_option(val, o, 0, 1 << 30);
        else if (!strcmp(o, "--verify-cycles"))
            a->verify_cycles = (mcs_real)number(val, o);
        else if (!strcmp(o, "--verify-amp"))
            a->verify_amp = (mcs_real)number(val, o);
        else if (!strcmp(o, "--verify-samples"))
            a->verify_samples = count_option(val, o, 16, MAX_SAMPLES);
        else
            die("unknown option", o);
        i += takes;
    }
    if (a->no_statics && (!a->x_file || (md->nc > 0 && !a->lambda_file)))
        die("--no-statics needs --x and --lambda", NULL);
}

/* Statuses of a call that refused its arguments before computing anything: its report is empty
 * and the command line's arguments (or the build) are at fault, not the mechanism. */
static int refused(mcs_status st)
{
    return st == MCS_ERR_ARGUMENT || st == MCS_ERR_WORKSPACE || st == MCS_ERR_MODEL_VERSION;
}

static void print_vector(const char *key, const mcs_real *a, int len)
{
    int i;
    printf("\"%s\": [", key);
    for (i = 0; i < len; ++i)
        printf("%s%.17g", i ? ", " : "", (double)a[i]);
    printf("]");
}

static void print_names(const char *key, const char *const *names, int len)
{
    int i;
    printf("\"%s\": [", key);
    for (i = 0; i < len; ++i)
        printf("%s\"%s\"", i ? ", " : "", names[i]);
    printf("]");
}

static void print_status(mcs_status st)
{
    printf("\"status\": %d, \"message\": \"%s\"", (int)st, mcs_status_str(st));
}

/* Per joint, the generalized reaction -A_j^T lambda_j on the coordinates (nonzero entries). */
static void print_reactions(const mcs_model *md, const void *params, mcs_real t)
{
    int j, i, k;
    if (md->nc == 0 || md->nj == 0)
        return;
    md->A(x, t, params, Abuf);
    printf(",\n\"reactions\": [");
    for (j = 0; j < md->nj; ++j) {
        const mcs_joint *jt = &md->joints[j];
        int first = 1;
        printf("%s\n{\"joint\": \"%s\", \"body1\": \"%s\", \"body2\": \"%s\", "
               "\"generalized\": [",
               j ? "," : "", jt->name, jt->body1, jt->body2);
        for (i = 0; i < NX; ++i) {
            mcs_real s = 0;
            for (k = jt->first_row; k < jt->first_row + jt->nrows; ++k)
                s -= Abuf[k + i * md->nc] * lambda[k];
            if (s != 0) {
                printf("%s[%d, %.17g]", first ? "" : ", ", i, (double)s);
                first = 0;
            }
        }
        printf("]}");
    }
    printf("]");
}

/* Per joint, its force and moment on its body 2 at the equilibrium (world frame, the moment about
 * its point on body 2): the wrench kernel at v = 0, x'' = 0 and the multipliers. */
static void print_wrenches(const mcs_model *md, const void *params, mcs_real t)
{
    int i, j, k;
    if (md->joint_wrenches == NULL || md->nj == 0)
        return;
    for (i = 0; i < 2 * NX; ++i)
        wstack[i] = 0;
    for (i = 0; i < md->nc; ++i)
        wstack[2 * NX + i] = lambda[i];
    for (i = 0; i < md->nmu; ++i) /* no lock at a static equilibrium */
        wstack[2 * NX + md->nc + i] = 0;
    for (i = 0; i < md->nu; ++i) /* the equilibrium of the inputs at 0 */
        wstack[2 * NX + md->nc + md->nmu + i] = 0;
    md->joint_wrenches(x, wstack, t, params, wrench);
    k = md->nw / md->nj;
    printf(",\n\"wrenches\": [");
    for (j = 0; j < md->nj; ++j) {
        const mcs_real *w = &wrench[j * k];
        printf("%s\n{\"joint\": \"%s\", ", j ? "," : "", md->joints[j].name);
        if (k == 3)
            printf("\"force\": [%.17g, %.17g], \"moment\": [%.17g]}", (double)w[0], (double)w[1],
                   (double)w[2]);
        else
            printf("\"force\": [%.17g, %.17g, %.17g], \"moment\": [%.17g, %.17g, %.17g]}",
                   (double)w[0], (double)w[1], (double)w[2], (double)w[3], (double)w[4],
                   (double)w[5]);
    }
    printf("]");
}

/* T W: the QR basis at x times an orthogonal W from the QR of a seeded pseudo-random matrix. */
static int rotated_basis(const mcs_model *md, const void *params, mcs_real t, unsigned long seed,
                         int *f_out)
{
    static mcs_real A[NC * NX], Q[NX * NX], R[NX * (NX + NC)];
    static mcs_real bw[MCS_BASIS_WORK_SIZE(NX, NX + NC)];
    static int piv[NX + NC];
    int r = 0, f, i, j, k;
    if (md->nc > 0) {
        md->A(x, t, params, A);
        if (mcs_qr_basis(NX, md->nc, A, md->nc, MCS_R(1e-9), Q, R, piv, &r, bw) != MCS_OK)
            return 0;
    } else
        for (j = 0; j < NX; ++j)
            for (i = 0; i < NX; ++i)
                Q[i + j * NX] = (i == j);
    f = NX - r;
    for (j = 0; j < f * f; ++j) { /* W: QR of a random (f x f) matrix (LCG, reproducible) */
        seed = seed * 6364136223846793005UL + 1442695040888963407UL;
        wrot[j] = (mcs_real)((double)(seed >> 11) / 9007199254740992.0 - 0.5);
    }
    if (mcs_qr_basis(f, f, wrot, f, MCS_R(1e-12), basis, R, piv, &k, bw) != MCS_OK)
        return 0; /* (its rank k is not needed: Q is orthogonal whatever it is) */
    for (j = 0; j < f * f; ++j)
        wrot[j] = basis[j];
    for (j = 0; j < f; ++j)
        for (i = 0; i < NX; ++i) {
            mcs_real s = 0;
            for (k = 0; k < f; ++k)
                s += Q[i + (r + k) * NX] * wrot[k + j * f];
            basis[i + j * NX] = s;
        }
    *f_out = f;
    return 1;
}

/* Simulate mode k from the equilibrium with v0 = amp omega phi; samples of its dominant
 * coordinate's displacement over `cycles` periods. */
/* The stops at the equilibrium x (v = 0): each one's coordinate and whether it is beyond a limit
 * ("beyond": "lower" or "upper", else null). An equilibrium beyond a stop is not the mechanism's
 * (the stop would hold it at its limit): 1 when there is one. */
static mcs_real stop_jc[2 * MCS_APP_NJC + 1], stop_v[NX];
static int print_stops(const mcs_model *md, const void *params, mcs_real t)
{
    int k, beyond_any = 0;
    printf(",\n\"stops\": [");
    for (k = 0; k < md->nstops; ++k) {
        const mcs_stop *s = &md->stops[k];
        const char *beyond = NULL;
        mcs_real q;
        if (s->coordinate >= 0) {
            q = x[s->coordinate];
        } else {
            md->joint_coords(x, stop_v, t, params, stop_jc);
            q = stop_jc[md->joints[s->joint].coord_index];
        }
        if ((s->sides & MCS_STOP_LOWER) && q < s->lower)
            beyond = "lower";
        if ((s->sides & MCS_STOP_UPPER) && q > s->upper)
            beyond = "upper";
        beyond_any |= beyond != NULL;
        printf("%s{\"name\": \"%s\", \"q\": %.17g", k ? ", " : "", s->name, (double)q);
        if (s->sides & MCS_STOP_LOWER)
            printf(", \"lower\": %.17g", (double)s->lower);
        if (s->sides & MCS_STOP_UPPER)
            printf(", \"upper\": %.17g", (double)s->upper);
        if (beyond)
            printf(", \"beyond\": \"%s\"}", beyond);
        else
            printf(", \"beyond\": null}");
    }
    printf("]");
    return beyond_any;
}

static mcs_status verify_mode(const mcs_model *md, const void *params, const args *a, int k,
                              int *coord, mcs_real *dt)
{
    const mcs_real *phi = shapes + (size_t)k * NX;
    mcs_options opt;
    mcs_sim sim;
    mcs_status st;
    mcs_real big = 0, L = 1;
    int i, j = 0;
    for (i = 0; i < NX; ++i) {
        if (mcs_fabs(phi[i]) > big)
            big = mcs_fabs(phi[i]), j = i;
        if (mcs_fabs(x[i]) > L)
            L = mcs_fabs(x[i]);
    }
    for (i = 0; i < NX; ++i)
        v0[i] = a->verify_amp * L * modes[k].omega * phi[i];
    *coord = j;
    *dt = a->verify_cycles / (modes[k].freq * (mcs_real)a->verify_samples);
    if ((st = mcs_options_default(&opt, md)) != MCS_OK)
        return st;
    if ((st = mcs_sim_init(&sim, md, params, &opt, simwork, sizeof simwork / sizeof *simwork,
                           simiwork, sizeof simiwork / sizeof *simiwork)) != MCS_OK)
        return st;
    if ((st = mcs_sim_set_state(&sim, a->t, x, v0, NULL)) != MCS_OK)
        return st;
    for (i = 0; i < a->verify_samples; ++i) {
        if ((st = mcs_sim_advance(&sim, a->t + (i + 1) * *dt)) != MCS_OK)
            return st;
        samples[i] = sim.cur.x[j] - x[j];
    }
    return MCS_OK;
}

int main(int argc, char **argv)
{
    const mcs_model *md = &MODEL;
    static PARAMS_T params;
    args a = {1, 1, 0, 50, 0, 0, 0, -1, 0, 0, 0, 0, 256, 0, 0, 6, MCS_R(1e-3), NULL, NULL};
    mcs_statics_options sopt;
    mcs_statics_report srep;
    mcs_modes_options mopt;
    mcs_modes_report mrep;
    mcs_status st = MCS_OK;
    int i, f = 0;

    params = DEFAULTS;
    (void)app_pin_blas_threads(); /* one BLAS thread, as simulate */
    mcs_statics_defaults(&sopt);
    a.tol = sopt.tol;
    parse(argc, argv, &a, md, &params);
    if ((st = mcs_model_initial_state(md, &params, xv_file)) != MCS_OK)
        die("initial state", mcs_status_str(st));
    for (i = 0; i < NX; ++i)
        x[i] = xv_file[i];
    for (i = 0; i < NC; ++i)
        lambda[i] = 0;
    if (a.x_file)
        read_vector(a.x_file, x, NX);
    if (a.lambda_file)
        read_vector(a.lambda_file, lambda, md->nc);
    printf("{\"model\": \"%s\", \"nx\": %d, \"nc\": %d, ", md->name, md->nx, md->nc);
    print_names("coordinates", md->coord_names, md->nx);
    printf(", ");
    print_names("units", md->coord_units, md->nx);
    printf(", ");
    print_names("rows", md->constraint_names, md->nc);
    if (!a.no_statics) {
        sopt.use_kc = a.statics_kc;
        sopt.method = a.kkt ? MCS_STATICS_KKT : MCS_STATICS_TANGENT;
        sopt.max_iter = a.max_iter;
        sopt.tol = a.tol;
        sopt.t = a.t;
        if (a.continued) {
            sopt.basis = basis; /* from the QR basis at the start, continued along the path */
            sopt.basis_cols = &f;
        }
        st =
            mcs_statics_solve(md, &params, &sopt, x, lambda, &srep, swork,
                              sizeof swork / sizeof *swork, siwork, sizeof siwork / sizeof *siwork);
        if (refused(st)) /* nothing was solved: the report holds no result */
            die("statics refused", mcs_status_str(st));
        printf(",\n\"statics\": {");
        print_status(st);
        printf(", \"method\": \"%s\", \"use_kc\": %d, \"assembly_steps\": %d, \"iterations\": %d, "
               "\"evaluations\": %d, \"rank\": %d, \"residual_c\": %.17g, \"residual_f\": %.17g, ",
               a.kkt ? "kkt" : "tangent", a.statics_kc, srep.assembly_steps, srep.iterations,
               srep.evaluations, srep.rank, (double)srep.residual_c, (double)srep.residual_f);
        print_vector("merit", srep.merit, srep.history_len);
        printf(", ");
        print_vector("step", srep.step, srep.history_len);
        printf("}");
    }
    printf(",\n");
    print_vector("x", x, NX);
    printf(",\n");
    print_vector("lambda", lambda, md->nc);
    print_reactions(md, &params, a.t);
    print_wrenches(md, &params, a.t);
    if (md->nstops > 0 && print_stops(md, &params, a.t) && st == MCS_OK)
        st = MCS_ERR_ARGUMENT; /* no modes about a state the stops exclude */
    if (a.modes && st == MCS_OK) {
        int count, k;
        mcs_modes_defaults(&mopt);
        mopt.use_kc = a.modes_kc;
        mopt.damped = a.damped;
        mopt.t = a.t;
        if (a.continued && !a.no_statics) {
            mopt.basis = basis;
            mopt.basis_cols = f;
        } else if (a.rotate) {
            if (!rotated_basis(md, &params, a.t, a.rotate_seed, &f))
                die("--basis-rotate: factorization failed", NULL);
            mopt.basis = basis;
            mopt.basis_cols = f;
        }
        st = mcs_modes_solve(md, &params, &mopt, x, lambda, &mrep, modes, shapes, shapes_im, mwork,
                             sizeof mwork / sizeof *mwork, miwork, sizeof miwork / sizeof *miwork);
        if (refused(st))
            die("modes refused", mcs_status_str(st));
        printf(",\n\"modes\": {");
        print_status(st);
        if (st == MCS_OK) {
            count = a.count < 0 || a.count > mrep.nmodes ? mrep.nmodes : a.count;
            printf(", \"use_kc\": %d, \"damped\": %d, \"rank\": %d, \"dof\": %d, \"symmetric\": %d,"
                   " \"rigid\": %d, \"stiffness\": %.17g, \"asymmetry\": %.17g, \"count\": %d,"
                   " \"list\": [",
                   a.modes_kc, a.damped, mrep.rank, mrep.dof, mrep.symmetric, mrep.rigid,
                   (double)mrep.stiffness, (double)mrep.asymmetry, mrep.nmodes);
            for (k = 0; k < count; ++k) {
                printf("%s\n{\"re\": %.17g, \"im\": %.17g, \"omega\": %.17g, \"freq\": %.17g, "
                       "\"zeta\": %.17g, \"kind\": %d, ",
                       k ? "," : "", (double)modes[k].re, (double)modes[k].im,
                       (double)modes[k].omega, (double)modes[k].freq, (double)modes[k].zeta,
                       modes[k].kind);
                print_vector("shape", shapes + (size_t)k * NX, NX);
                printf(", ");
                print_vector("shape_im", shapes_im + (size_t)k * NX, NX);
                printf("}");
            }
            printf("]");
        }
        printf("}");
        if (st == MCS_OK && a.verify > 0) {
            int done = 0;
            printf(",\n\"verify\": [");
            for (k = 0; k < mrep.nmodes && done < a.verify; ++k) {
                mcs_status vs;
                int coord = 0;
                mcs_real dt = 0;
                if (modes[k].kind != MCS_MODE_OSCILLATING)
                    continue;
                vs = verify_mode(md, &params, &a, k, &coord, &dt);
                printf("%s\n{\"mode\": %d, ", done ? "," : "", k);
                print_status(vs);
                printf(", \"coordinate\": %d, \"dt\": %.17g, ", coord, (double)dt);
                print_vector("samples", samples, vs == MCS_OK ? a.verify_samples : 0);
                printf("}");
                ++done;
            }
            printf("]");
        }
    }
    printf("}\n");
    return st == MCS_OK ? 0 : 1;
}
