/* mcs_frame.c - frames: the probe frame's factorization, the continuation of the tangent basis
 * from one frame to the next (SPEC §3), and the queries of the current frame (mcs_sim_basis,
 * mcs_sim_rdiag). The factorization, prediction and alignment themselves are each variant's
 * (mcs_variant.c). */

#include "sim/mcs_operations.h"

/* Load the state (t, x, v) into the probe frame and factor it there. */
mcs_status mcs_probe_factor(mcs_sim *s, mcs_real t, const mcs_real *x, const mcs_real *v)
{
    int i;
    s->probe.t = t;
    for (i = 0; i < s->n; ++i) {
        s->probe.x[i] = x[i];
        s->probe.v[i] = v[i];
    }
    return mcs_frame_factor(s, &s->probe);
}

/* fr has been factored (Q = [U^ T^]); replace its T by the basis continued from the chart `from`
 * over h (SPEC §3). */
mcs_status mcs_frame_continue_basis(mcs_sim *s, const mcs_frame *from, mcs_real h, mcs_frame *to)
{
    const mcs_status st = mcs_frame_predict(s, from, h);
    return (st != MCS_OK) ? st : mcs_frame_align(s, s->n - from->r, to);
}

/* ---------------------------------------------------------------- queries (mcs_sim.h) */

mcs_status mcs_sim_basis(mcs_sim *s, mcs_real *T)
{
    if (!s || !s->ready || !T) {
        return MCS_ERR_ARGUMENT;
    }
    mcs_frame_basis(s, &s->cur, T);
    return MCS_OK;
}

mcs_status mcs_sim_rdiag(mcs_sim *s, mcs_real *d)
{
    if (!s || !s->ready || !d) {
        return MCS_ERR_ARGUMENT;
    }
    return mcs_frame_rdiag(s, &s->cur, d);
}
