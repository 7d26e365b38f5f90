/* mcs_carve.c - the carver: it takes buffers from the caller's block or only counts them (so the
 * sizes can never disagree with the layout), and a fresh frame's scalars. mcs_memory.c lays the
 * memory out with it, from mcs_sim_memory.h's one list of buffers. */
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

void mcs_frame_reset(mcs_frame *fr)
{
    fr->t = MCS_R(0.0);
    fr->r = 0;
    fr->identity = 0;
    fr->sigma = MCS_R(1.0);
}
