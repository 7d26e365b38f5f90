/* mcs_rosenbrock.c - ROS34PW2 on the frozen chart of s->cur: a linearly implicit Rosenbrock-W
 * method for stiff models (joint damping on light links), with error control or on a fixed grid.
 *
 * Why this method (docs/explanation/integrators.md): a stiff chart ODE y' = F(y, t), y = (q, qd), needs an
 * L-stable method; a Rosenbrock method needs no Newton iteration (one LU a step, bounded work:
 * what a control loop on a microcontroller can afford), and a Rosenbrock-W method keeps its
 * order with any matrix in place of the Jacobian (Steihaug and Wolfbrandt 1979; Hairer and
 * Wanner, Solving ODEs II, §IV.7). That matters here: the chart's exact Jacobian needs the
 * linearization kernels (M_x, gamma_x), which host builds leave out by default, while the stiff
 * part of it (the springs' K_f and K_c, the dampers' D) is in every host build; with them alone,
 * and with the time column left out (the rheonomic rows, the inputs' schedules), the method is
 * still of order 3. ROS34PW2 (Rang and Angermann, BIT 45 (2005) 761-787, Table 4.2: W-order 3,
 * embedded order 2, L-stable, stiffly accurate) is the four-stage method of that kind with
 * one stage matrix; Radau IIA (order 5) would need a Newton iteration of a (3 2f) system.
 *
 * A step, in Hairer and Wanner's form (IV.7.4): with W = I - gamma h J,
 *
 *   W k_i = h F(t + c_i h, y0 + sum_j<i a_ij k_j) + h J sum_j<i g_ij k_j,   y1 = y0 + sum b_i k_i,
 *
 * J = [0 I; Jq Jv] the chart Jacobian at the step's start (mcs_chart_jacobian). W's block form
 * reduces each solve to the (f x f) E = I - gamma h Jv - (gamma h)^2 Jq: for k = (ka, kb) and a
 * right-hand side (ra, rb), E kb = rb + gamma h Jq ra and ka = ra + gamma h kb.
 */
#include "sim/mcs_methods.h"

#if MCS_WITH_IMPLICIT

#define STAGES 4

/* Rang and Angermann's ROS34PW2 (gamma the root of 6 g^3 - 18 g^2 + 9 g - 1 for L-stability) */
static const mcs_real GAMMA = MCS_R(0.435866521508459);
static const mcs_real RA[STAGES][STAGES - 1] = {
    {0, 0, 0},
    {MCS_R(0.87173304301691801), 0, 0},
    {MCS_R(0.84457060015369423), MCS_R(-0.11299064236484185), 0},
    {0, 0, 1}};
static const mcs_real RG[STAGES][STAGES - 1] = {
    {0, 0, 0},
    {MCS_R(-0.87173304301691801), 0, 0},
    {MCS_R(-0.90338057013044082), MCS_R(0.054180672388095326), 0},
    {MCS_R(0.24212380706095346), MCS_R(-1.2232505839045147), MCS_R(0.54526025533510214)}};
/* the nodes c_i = sum_j a_ij (the W-method's time: no df/dt term) */
static const mcs_real RC[STAGES] = {0, MCS_R(0.87173304301691801), MCS_R(0.73157995778885238), 1};
static const mcs_real RB[STAGES] = {MCS_R(0.24212380706095346), MCS_R(-1.2232505839045147),
                                    MCS_R(1.5452602553351020), MCS_R(0.435866521508459)};
/* b - b^ (b^ the embedded second-order weights) */
static const mcs_real RE[STAGES] = {MCS_R(0.24212380706095346) - MCS_R(0.37810903145819369),
                                    MCS_R(-1.2232505839045147) - MCS_R(-0.096042292212423178),
                                    MCS_R(1.5452602553351020) - MCS_R(0.5),
                                    MCS_R(0.435866521508459) - MCS_R(0.2179332607542295)};

/* Y (f x 2f, ld f) = -(T^T M T)^-1 T^T [K_f T, D T] at the chart's centre (state cur), the stiff
 * part of the chart Jacobian: what a layout without Q (the compact one) can form, with its
 * variant's products by T and M alone. Its work: K (n x n), two n-vectors, Mr (f x f), Y. */
static mcs_status stiff_part_jacobian(mcs_sim *s, mcs_real t, mcs_real *work, mcs_real *Y)
{
    const mcs_model *md = s->model;
    const mcs_frame *ch = &s->cur;
    const int n = s->n;
    const int f = n - ch->r;
    const size_t nn = (size_t)n * (size_t)n;
    mcs_real *K = work;
    mcs_real *col = &work[nn];
    mcs_real *prod = &col[n];
    mcs_real *Mr = &prod[n];
    mcs_real *e = s->w.jac_g; /* (2f) a unit vector of q */
    mcs_status st = MCS_OK;
    int pass;
    int i;
    int j;
    for (i = 0; i < f; ++i) {
        e[i] = MCS_R(0.0);
    }
    for (pass = 0; (pass < 3) && (st == MCS_OK); ++pass) {
        /* pass 0: Mr = T^T M T; 1: Y's q columns -T^T K_f T; 2: its qd columns -T^T D T */
        if (pass == 1) {
            md->K_f(ch->x, ch->v, t, s->params, K);
        }
        if (pass == 2) {
            md->D(ch->x, ch->v, t, s->params, K);
        }
        for (j = 0; (j < f) && (st == MCS_OK); ++j) {
            const int column = j + ((pass - 1) * f); /* Y's (passes 1 and 2) */
            mcs_real *out =
                (pass == 0) ? &Mr[(size_t)j * (size_t)f] : &Y[(size_t)column * (size_t)f];
            e[j] = MCS_R(1.0);
            mcs_frame_T(s, ch, e, col);
            e[j] = MCS_R(0.0);
            if (pass == 0) {
                st = mcs_variant_mass_times(s, ch->x, t, col, prod);
            } else {
                mcs_mat_gemm(0, 0, n, 1, n, -1, K, n, col, n, 0, prod, n);
            }
            mcs_frame_Tt(s, ch, prod, out);
        }
    }
    if (st != MCS_OK) {
        return st;
    }
    if (mcs_la_cholesky(f, Mr, f) != 0) {
        return MCS_ERR_MASS_NOT_PD;
    }
    return (mcs_la_cholesky_solve(f, 2 * f, Mr, f, Y, f) != 0) ? MCS_ERR_LINALG : MCS_OK;
}

/* out (2f) = J v for J = [0 I; Jq Jv], Y = [Jq Jv] (f x 2f, ld f). */
static void jacobian_times(int f, const mcs_real *Y, const mcs_real *v, mcs_real *out)
{
    int i;
    for (i = 0; i < f; ++i) {
        out[i] = v[f + i];
    }
    mcs_mat_gemm(0, 0, f, 1, 2 * f, 1, Y, f, v, 2 * f, 0, &out[f], f);
}

/* k (2f) := W^-1 k in place, E's LU in w.jac_E. */
static mcs_status stage_solve(mcs_sim *s, int f, const mcs_real *Y, mcs_real gh, mcs_real *k)
{
    int i;
    /* kb = E^-1 (rb + gh Jq ra); ka = ra + gh kb */
    mcs_mat_gemm(0, 0, f, 1, f, gh, Y, f, k, f, 1, &k[f], f);
    if (mcs_la_lu_solve(f, 1, s->w.jac_E, f, s->w.jac_ipiv, &k[f], f) != 0) {
        return MCS_ERR_NONFINITE; /* (as stage_matrix's) */
    }
    for (i = 0; i < f; ++i) {
        k[i] += gh * k[f + i];
    }
    return MCS_OK;
}

/* E = I - gh Jv - gh^2 Jq (f x f), LU-factored into w.jac_E. */
static mcs_status stage_matrix(mcs_sim *s, int f, const mcs_real *Y, mcs_real gh)
{
    mcs_real *E = s->w.jac_E;
    int i;
    int j;
    for (j = 0; j < f; ++j) {
        for (i = 0; i < f; ++i) {
            const mcs_real jq = Y[i + (j * f)];
            const mcs_real jv = Y[i + ((f + j) * f)];
            E[i + (j * f)] = -(gh * jv) - (gh * gh * jq);
        }
        E[j + (j * f)] += MCS_R(1.0);
    }
    /* singular when gamma h lambda = 1 for an unstable mode lambda: a shorter step moves off
     * it, so the step is retaken as one with a non-finite stage is */
    return (mcs_la_lu(f, E, f, s->w.jac_ipiv) != 0) ? MCS_ERR_NONFINITE : MCS_OK;
}

/* The scaled error norm of e = sum (b_i - b^_i) k_i, as DOPRI5's (the positions on the chart,
 * which start at 0, scaled by the size of x; no tolerance below what the stages near a singular
 * configuration are evaluated to). */
static mcs_real ros_error_norm(const mcs_sim *s, int f)
{
    const int len = 2 * f;
    const mcs_real xscale = mcs_vec_max_abs(s->n, s->cur.x);
    const mcs_real rtol = MAX2(s->opt.rtol, 10 * MCS_REAL_EPS * s->w.g_cond_max);
    mcs_real sum = MCS_R(0.0);
    int i;
    int j;
    for (i = 0; i < len; ++i) {
        mcs_real e = MCS_R(0.0);
        mcs_real sc = MAX2(mcs_fabs(s->w.y0[i]), mcs_fabs(s->w.y1[i]));
        for (j = 0; j < STAGES; ++j) {
            e += RE[j] * s->w.k[j][i];
        }
        if (i < f) {
            sc = MAX2(sc, xscale);
        }
        sc = s->opt.atol + (rtol * sc);
        sum += (e / sc) * (e / sc);
    }
    return (len > 0) ? mcs_sqrt(sum / (mcs_real)len) : MCS_R(0.0);
}

mcs_status mcs_ros34pw2_attempt(mcs_sim *s, mcs_real h, int adaptive, mcs_real *err)
{
    const int f = s->n - s->cur.r;
    const int len = 2 * f;
    const mcs_real t = s->cur.t;
    const mcs_real gh = GAMMA * h;
    mcs_real **k = s->w.k;
    mcs_real *F = s->w.jac_F;
    mcs_real *g = s->w.jac_g;
    mcs_real *Y = NULL;
    int i;
    int j;
    int c;
    mcs_status st;
    *err = MCS_R(0.0);
    s->w.g_cond_max = MCS_R(1.0);
    mcs_chart_start(s, s->w.y0);
    /* J and F(y0), the first stage's, at the step's start: the chart Jacobian where the layout
     * has Q (the dense simulator), else its stiff part (the compact one) */
#if MCS_WITH_DENSE
    st = mcs_chart_jacobian(s, s->w.y0, t, s->w.jac, &Y, F);
#else
    st = MCS_ERR_UNSUPPORTED;
#endif
    if (st == MCS_ERR_UNSUPPORTED) {
        Y = &s->w.jac[((size_t)s->n * (size_t)s->n) + (2U * (size_t)s->n) +
                      ((size_t)f * (size_t)f)]; /* after K, col, prod and Mr */
        st = stiff_part_jacobian(s, t, s->w.jac, Y);
        if (st == MCS_OK) { /* after it: its products wrote the chart scratch */
            st = mcs_chart_rhs(s, &s->cur, s->w.y0, t, F);
        }
    }
    if (st != MCS_OK) {
        return st;
    }
    if (f > 0) {
        st = stage_matrix(s, f, Y, gh);
    }
    for (c = 0; (c < STAGES) && (st == MCS_OK) && (f > 0); ++c) {
        if (c > 0) { /* the stage's point y0 + sum a_cj k_j, and F there */
            mcs_rk_combine(len, s->w.y0, MCS_R(1.0), c, RA[c], k, s->w.ys);
            st = mcs_chart_rhs(s, &s->cur, s->w.ys, t + (RC[c] * h), F);
            if (st != MCS_OK) {
                break;
            }
        }
        /* k_c = W^-1 h (F + J sum_j<c g_cj k_j) */
        for (i = 0; i < len; ++i) {
            mcs_real sum = MCS_R(0.0);
            for (j = 0; j < c; ++j) {
                sum += RG[c][j] * k[j][i];
            }
            g[i] = sum;
        }
        jacobian_times(f, Y, g, k[c]);
        for (i = 0; i < len; ++i) {
            k[c][i] = h * (F[i] + k[c][i]);
        }
        st = stage_solve(s, f, Y, gh, k[c]);
    }
    if (st != MCS_OK) {
        return st;
    }
    mcs_rk_combine(len, s->w.y0, MCS_R(1.0), (f > 0) ? STAGES : 0, RB, k, s->w.y1);
    if (mcs_vec_max_abs(len, s->w.y1) < MCS_R(0.0)) {
        return MCS_ERR_NONFINITE;
    }
    if (adaptive != 0) {
        *err = ros_error_norm(s, f);
        if (!((*err - *err) == MCS_R(0.0))) {
            return MCS_ERR_NONFINITE;
        }
        if (*err > MCS_R(1.0)) {
            return MCS_OK; /* rejected: the caller retakes it shorter */
        }
    }
    return mcs_one_step_end(s, t + h, f,
                            (adaptive != 0) ? MCS_METHOD_ROS34PW2 : MCS_METHOD_ROS34PW2_FIXED);
}

#endif /* MCS_WITH_IMPLICIT */
