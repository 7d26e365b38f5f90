/* mcs_stages.h - the simulator's stages tier (internal; mcs_core.h draws the tiers): what a run
 * goes through, on the methods and operations below: its options (mcs_options.c), its memory
 * (mcs_memory.c), binding and the small queries (mcs_sim.c), a consistent start (mcs_assembly.c),
 * the state inside the last step (mcs_interpolate.c), events located in it (mcs_events.c and a
 * file per kind), the
 * step policy (mcs_step.c), reactions and dynamics at a state (mcs_reactions.c, mcs_inverse.c) and
 * transitions (mcs_locks.c). The top tier (the linearizations and the step's Jacobian) sits on
 * these.
 */
#ifndef MCS_STAGES_H
#define MCS_STAGES_H

#include "sim/mcs_methods.h"

/* ---- mcs_options.c: the options, checked once when a run is bound to its memory ---- */

/* The model and options can be run: MCS_OK, MCS_ERR_ARGUMENT (a value out of its range, a kernel
 * every run needs missing), MCS_ERR_MODEL_VERSION, or MCS_ERR_UNSUPPORTED (mcs_sim_refusals says
 * why). */
mcs_status mcs_options_check(const mcs_model *model, const mcs_options *opt);
/* mcs_sim_step's check that the options are the ones the run was checked with (as far as its
 * memory and the build's parts go: their features, s->w.checked) or, changed since, still fit
 * the layout and the build (then they become the checked ones): MCS_ERR_ARGUMENT for a method
 * or variant out of range or memory the layout lacks, MCS_ERR_UNSUPPORTED for a part this build
 * left out or options the variant does not take. */
mcs_status mcs_options_in_force(mcs_sim *s);

/* ---- mcs_sim.c ---- */

/* Binds s (its buffers carved) to the model, parameters and options; features: the memory it
 * has (MCS_MEM_*), f_max: the free directions its buffers hold. No state yet (ready = 0). */
void mcs_bind(mcs_sim *s, const mcs_model *model, const void *params, const mcs_options *opt,
              unsigned features, int f_max);

/* ---- mcs_assembly.c ---- */

/* |c(x, t)|_inf (0 when m = 0; negative when not finite). Writes w.c. */
mcs_real mcs_constraint_norm_at(mcs_sim *s, const mcs_real *x, mcs_real t);

/* ---- mcs_interpolate.c ---- */

/* The state at t inside the last accepted step (prev.t <= t <= cur.t) from the method's
 * interpolant on the chart of s->prev. Writes w.ys and the chart scratch; x, v must not be chart
 * scratch. */
mcs_status mcs_interpolated_state(mcs_sim *s, mcs_real t, mcs_real *x, mcs_real *v);

/* ---- mcs_events.c: the event kinds as data, and their one switch ---- */

typedef enum mcs_event_kind {
    MCS_EVENT_SINGULAR = 0 /* a singular configuration (mcs_event_singular.c) */
} mcs_event_kind;
#define MCS_EVENT_KIND_COUNT 1

typedef struct mcs_event_kind_info {
    const char *name;
    unsigned memory; /* its MCS_MEM_* feature: its record's buffers */
    unsigned part;   /* the MCS_PART_* bit it needs compiled in */
} mcs_event_kind_info;

/* indexed by mcs_event_kind */
extern const mcs_event_kind_info mcs_event_kinds[MCS_EVENT_KIND_COUNT];
/* Whether the options ask for events of the kind (1/0). */
int mcs_event_asked(const mcs_options *opt, mcs_event_kind kind);
/* After a step has been accepted: an event of every kind located inside it (prev.t .. cur.t),
 * by the kind's own function below when the options ask for it. */
void mcs_events_detect(mcs_sim *s);

/* ---- mcs_event_singular.c ---- */

/* A singular configuration inside the step just accepted (SPEC §6): when options.sing_tol > 0,
 * the search and, if one is found, s->event filled and s->event_ready set. Writes s->probe,
 * s->event, w.tmp2, w.Tpred, w.That, w.Phi, w.A, w.A_dot and what mcs_interpolated_state
 * writes. */
void mcs_event_singular_locate(mcs_sim *s);

/* ---- mcs_reactions.c ---- */

/* x'' (n, may be NULL) and the multipliers lambda (m) at (t, x, v) with the inputs s->u, by the
 * variant's own means or the chart centred there (uses the probe frame). */
mcs_status mcs_dynamics_at(mcs_sim *s, mcs_real t, const mcs_real *x, const mcs_real *v,
                           mcs_real *xdd, mcs_real *lambda);

#endif /* MCS_STAGES_H */
