/* mcs_rk.c - what the explicit Runge-Kutta methods on the frozen chart share (SPEC §4): a stage's
 * point y0 + h sum a_j k_j, and the adaptive methods' first-same-as-last stage (from the last
 * step's end acceleration, while the parameters and the state are that step's) and their end
 * (the end state into s->prev, the end acceleration kept). */

#include "sim/mcs_methods.h"

void mcs_rk_combine(int len, const mcs_real *y0, mcs_real h, int nst, const mcs_real *coef,
                    mcs_real *const *k, mcs_real *out)
{
    int i;
    int j;
    for (i = 0; i < len; ++i) {
        mcs_real sum = MCS_R(0.0);
        for (j = 0; j < nst; ++j) {
            sum += coef[j] * k[j][i];
        }
        out[i] = y0[i] + (h * sum);
    }
}

static uint64_t params_fingerprint(const mcs_sim *s)
{
    /* FNV-1a over the struct's 8-byte words (little-endian), then its last bytes: a change of
     * one word always changes it, since each step is a bijection of the running value */
    const unsigned char *b = (const unsigned char *)s->params;
    const size_t len = s->model->params_size;
    const uint64_t prime = 1099511628211ULL;
    uint64_t fp = 14695981039346656037ULL;
    size_t i = 0U;
    while ((i + 8U) <= len) {
        uint64_t word = 0U;
        size_t j;
        for (j = 8U; j > 0U; --j) {
            word = (word << 8U) | (uint64_t)b[(i + j) - 1U];
        }
        fp = (fp ^ word) * prime;
        i += 8U;
    }
    while (i < len) {
        fp = (fp ^ (uint64_t)b[i]) * prime;
        ++i;
    }
    return fp;
}

/* k0 (2f) = the first stage on the chart of s->cur from the last step's end acceleration, when
 * it may be used (FSAL, mcs_sim.h: returns 1), else 0. */
static int first_stage_from_last(mcs_sim *s, const mcs_real *y0, mcs_real *k0)
{
    const int f = s->n - s->cur.r;
    int i;
    if (!s->w.fsal || !s->w.interp_ready ||
        !mcs_method_has(s->w.interp_method, MCS_METHOD_FLAG_FSAL) || (s->w.a_end == NULL) ||
        !(s->cur.sigma > mcs_watch_level(s)) || (params_fingerprint(s) != s->w.fsal_params)) {
        return 0;
    }
    for (i = 0; i < f; ++i) {
        k0[i] = y0[f + i];
    }
    mcs_frame_Tt(s, &s->cur, s->w.a_end, &k0[f]);
    return 1;
}

mcs_status mcs_adaptive_first_stage(mcs_sim *s)
{
    mcs_status st = MCS_OK;
    s->w.g_cond_max = MCS_R(1.0);
    mcs_chart_start(s, s->w.y0);
    if (!first_stage_from_last(s, s->w.y0, s->w.k[0])) {
        st = mcs_chart_rhs(s, &s->cur, s->w.y0, s->cur.t, s->w.k[0]);
    }
    s->w.fsal = 0; /* used, or stale: the caller sets it again when this step is accepted */
    return st;
}

void mcs_adaptive_end(mcs_sim *s, const mcs_real *k_last)
{
    int i;
    if (s->w.a_end != NULL) {
        mcs_chart_end_acceleration(s, k_last); /* a_end = x'' at the step's end */
        s->w.fsal_params = params_fingerprint(s);
    }
    for (i = 0; i < s->n; ++i) {
        s->prev.x[i] = s->w.xs[i];
        s->prev.x_lo[i] = s->w.x_lo[i];
        s->prev.v[i] = s->w.vs[i];
    }
}
