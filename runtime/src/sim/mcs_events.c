/* mcs_events.c - the event kinds as data and their one switch: what is located inside a step once
 * it is accepted (mcs_step.c calls mcs_events_detect), each kind in its own file (the singular
 * configurations of SPEC §6: mcs_event_singular.c). A kind is added by an entry here, its cases
 * in the two switches (mcs_event_asked, event_locate), and its file (DEVELOPING.md: a new event kind). */
#include "sim/mcs_stages.h"

const mcs_event_kind_info mcs_event_kinds[MCS_EVENT_KIND_COUNT] = {
    /* a minimum of sigma below options.sing_tol: the record s->event, s->event_ready */
    {"singular", MCS_MEM_EVENTS, MCS_PART_EVENTS},
};

int mcs_event_asked(const mcs_options *opt, mcs_event_kind kind)
{
    switch (kind) {
    case MCS_EVENT_SINGULAR: return (opt->sing_tol > MCS_R(0.0)) ? 1 : 0;
    default: return 0;
    }
}

/* Locates an event of the kind inside the step just accepted: the kind's own function. */
static void event_locate(mcs_sim *s, mcs_event_kind kind)
{
    (void)s; /* (a build without events) */
    switch (kind) {
#if MCS_WITH_EVENTS
    case MCS_EVENT_SINGULAR: mcs_event_singular_locate(s); break;
#endif
    default: break; /* left out of this build: the options' check refuses the options asking */
    }
}

void mcs_events_detect(mcs_sim *s)
{
    int k;
    for (k = 0; k < MCS_EVENT_KIND_COUNT; ++k) {
        event_locate(s, (mcs_event_kind)k);
    }
}
