/* mcs_carve.c - the memory's building blocks: one carver that takes buffers from the caller's
 * block or only counts them (so sizes can never disagree with the layout), and the full layout's
 * frames and matrices, which every variant runs in from mcs_sim_init's work arrays and the dense
 * one from mcs_sim_assign's block too (mcs_memory.c lays the memory out). */
#include "sim/mcs_core.h"

mcs_real *mcs_carve_take(mcs_carver *c, size_t k)
{
    mcs_real *p = (c->w != NULL) ? (&c->w[c->used]) : NULL;
    c->used += k;
    return p;
}

int *mcs_carve_itake(mcs_carver *c, size_t k)
{
    int *p = (c->iw != NULL) ? (&c->iw[c->iused]) : NULL;
    c->iused += k;
    return p;
}

/* mcs_carve_take(c, k) when `on`, else NULL (the buffer is not part of this layout) */
mcs_real *mcs_carve_take_if(mcs_carver *c, unsigned on, size_t k)
{
    return (on != 0U) ? mcs_carve_take(c, k) : NULL;
}

/* min(n, m), at least 1: the reflectors of a factorization, the largest rank */
size_t mcs_carve_kmin(const mcs_layout *l)
{
    return MAX2(MIN2(l->n, l->m), 1U);
}

static void carve_frame(mcs_carver *c, mcs_frame *fr, const mcs_layout *l)
{
    fr->x = mcs_carve_take(c, l->n);
    fr->x_lo = mcs_carve_take(c, l->n);
    fr->v = mcs_carve_take(c, l->n);
    fr->q = mcs_carve_take(c, l->f);
    fr->Q = mcs_carve_take(c, l->n * l->n);
    fr->T = fr->Q; /* &Q[r n] once factored (the compact variant: its own, here) */
    fr->R = mcs_carve_take(c, l->n * MAX2(l->m, 1U));
    fr->tau = mcs_carve_take(c, mcs_carve_kmin(l));
    fr->piv = mcs_carve_itake(c, MAX2(l->m, 1U));
    fr->t = MCS_R(0.0);
    fr->r = 0;
    fr->identity = 0;
    fr->sigma = MCS_R(1.0);
}

/* A compact or banded layout's frame without its factorization: x, x_lo, v, q and its own T
 * (n x f_max), no n x n Q */
void mcs_carve_frame_state(mcs_carver *c, mcs_frame *fr, const mcs_layout *l)
{
    fr->x = mcs_carve_take(c, l->n);
    fr->x_lo = mcs_carve_take(c, l->n);
    fr->v = mcs_carve_take(c, l->n);
    fr->q = mcs_carve_take(c, l->f);
    fr->Q = NULL;
    fr->T = mcs_carve_take(c, l->n * l->f);
    fr->t = MCS_R(0.0);
    fr->r = 0;
    fr->identity = 0;
    fr->sigma = MCS_R(1.0);
}

void mcs_carve_no_frame(mcs_frame *fr)
{
    fr->x = NULL;
    fr->x_lo = NULL;
    fr->v = NULL;
    fr->q = NULL;
    fr->Q = NULL;
    fr->T = NULL;
    fr->R = NULL;
    fr->tau = NULL;
    fr->piv = NULL;
    fr->t = MCS_R(0.0);
    fr->r = 0;
    fr->identity = 0;
    fr->sigma = MCS_R(1.0);
}

void mcs_carve_full(mcs_carver *c, mcs_sim *s, const mcs_layout *l)
{
    const unsigned feat = l->features;
    const unsigned probe = feat & (MCS_MEM_DENSE_OUTPUT | MCS_MEM_EVENTS);
    const unsigned locks = feat & MCS_MEM_LOCKS;
    const unsigned predictor = feat & (MCS_MEM_EULER | MCS_MEM_EXP);
    const size_t n = l->n;
    const size_t mr = MAX2(l->m, 1U);
    const size_t r_max = mcs_carve_kmin(l);
    carve_frame(c, &s->cur, l);
    carve_frame(c, &s->prev, l);
    if (probe != 0U) {
        carve_frame(c, &s->probe, l);
    } else {
        mcs_carve_no_frame(&s->probe);
    }
    s->w.A = mcs_carve_take(c, mr * n);
    s->w.A_nz = mcs_carve_take(c, MAX2(l->a_nnz, 1U)); /* the chart's A (the locks' rows in w.A) */
    /* A_dot: the predictors' input, and a lock's scratch (mcs_locks.c) */
    s->w.A_dot = mcs_carve_take_if(c, predictor | locks, mr * n);
    s->w.M = mcs_carve_take(c, n * n);
    s->w.G = mcs_carve_take(c, r_max * r_max); /* the LU of A_S U; the multipliers' r x r matrix */
}
