/* mcs_chart_common.c - what every variant's chart shares (SPEC §4): the ratio of a pivoted
 * QR's R, the accumulated chart coordinate carried from frame to frame, the Newton warm start
 * from the chart's last solution, the end acceleration, and the level of sigma the singular
 * watch compares with. Below the variants: it calls none of them. */
#include "sim/mcs_core.h"

mcs_real mcs_qr_ratio(const mcs_sim *s, const mcs_frame *fr, int r)
{
    const mcs_real r00 = mcs_fabs(fr->R[0]);
    if ((r <= 0) || (s->m == 0) || !(r00 > MCS_R(0.0))) {
        return 1;
    }
    return mcs_fabs(fr->R[(r - 1) + ((r - 1) * s->n)]) / r00;
}

void mcs_q_carry(int f_from, const mcs_real *q_from, const mcs_real *dq, int f_to, mcs_real *q_to)
{
    int i;
    for (i = 0; i < f_to; ++i) {
        if (i >= f_from) {
            q_to[i] = MCS_R(0.0);
        } else if (dq != NULL) {
            q_to[i] = q_from[i] + dq[i];
        } else {
            q_to[i] = q_from[i];
        }
    }
}

mcs_real mcs_watch_level(const mcs_sim *s)
{
    return s->opt.sing_watch * s->w.sigma_ref;
}

void mcs_chart_warm_start(mcs_sim *s, const mcs_frame *ch, const mcs_real *q)
{
    const int r = ch->r;
    const int f = s->n - r;
    mcs_real *p = s->w.p;
    int i;
    int j;
    if ((s->w.pred_x == ch->x) && (s->w.pred_t == ch->t) && (s->w.pred_r == r) && (r > 0) &&
        (f > 0)) {
        /* first-order warm start from the chart's last solution (P3: 12 % fewer iterations) */
        for (i = 0; i < r; ++i) {
            p[i] = s->w.p_last[i];
        }
        for (j = 0; j < f; ++j) { /* small: plain loops, not a call per product */
            const mcs_real dq = q[j] - s->w.q_last[j];
            for (i = 0; i < r; ++i) {
                p[i] += s->w.dpdq[i + (j * r)] * dq;
            }
        }
    }
}

void mcs_chart_keep_warm_start(mcs_sim *s, const mcs_frame *ch, const mcs_real *q,
                               const mcs_real *Z)
{
    const int r = ch->r;
    const int f = s->n - r;
    int i;
    /* dp/dq = -Z, for the next evaluation on this chart */
    for (i = 0; i < (r * f); ++i) {
        s->w.dpdq[i] = -Z[i];
    }
    for (i = 0; i < f; ++i) {
        s->w.q_last[i] = q[i];
    }
    for (i = 0; i < r; ++i) {
        s->w.p_last[i] = s->w.p[i];
    }
    s->w.pred_x = ch->x;
    s->w.pred_t = ch->t;
    s->w.pred_r = r;
}

int mcs_chart_identity(const mcs_sim *s, const mcs_frame *fr)
{
    return ((s->m == 0) && (fr->r == 0) && (fr->T == fr->Q) && (fr->identity != 0)) ? 1 : 0;
}

/* a_end (n) = x'' at the stage just evaluated on the chart of s->cur: Phi q'' + beta (beta = U
 * G^-1 gamma_S, left in w.Z by the chart's rhs; 0 without rows): the dense and compact
 * variants' (mcs_chart_end_acceleration). */
void mcs_chart_acceleration(mcs_sim *s, const mcs_real *k_last)
{
    const int n = s->n;
    const int r = s->cur.r;
    const int f = n - r;
    int i;
    if (mcs_chart_identity(s, &s->cur) != 0) { /* Phi = I, not written by the map */
        for (i = 0; i < n; ++i) {
            s->w.a_end[i] = k_last[n + i];
        }
        return;
    }
    for (i = 0; i < n; ++i) {
        s->w.a_end[i] = (r > 0) ? s->w.Z[i] : MCS_R(0.0);
    }
    mcs_mat_gemm(0, 0, n, 1, f, 1, s->w.Phi, n, &k_last[f], MAX2(f, 1), 1, s->w.a_end, n);
}
