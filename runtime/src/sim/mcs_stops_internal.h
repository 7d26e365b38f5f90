/* mcs_stops_internal.h - what the stops' event location (mcs_stops.c) and friction
 * (mcs_friction.c) share; internal, in the simulator's top tier. */
#ifndef MCS_STOPS_INTERNAL_H
#define MCS_STOPS_INTERNAL_H

#include "mcs/mcs_stops.h"
#include "sim/mcs_stages.h"

/* The multiplier row of the last lock with this key (nc + the rows of the locks before it), or
 * -1 when no lock has it. */
int mcs_stops_lock_row(const mcs_sim *sim, int key);

/* The key of the lock that holds friction element k stuck: past the coordinates and groups. */
int mcs_friction_key(const mcs_sim *sim, int k);

/* The force that holds stuck friction element k at (t, x, v): -lambda of its row. */
mcs_status mcs_friction_holding(mcs_stops *st, mcs_sim *sim, int k, mcs_real t, const mcs_real *x,
                                const mcs_real *v, mcs_real *force);

/* Whether a stop holds friction element k's coordinate now (its friction then rests). */
int mcs_friction_rests(const mcs_stops *st, const mcs_sim *sim, int k);

/* The friction forces of st->force in force (mcs_sim_set_friction). */
mcs_status mcs_friction_push(mcs_stops *st, mcs_sim *sim);

/* Friction element k at rest now sticks (its lock, no jump) when the force that holds it is
 * within the static level, else slides the way that force resisted; *stuck, *holding say which
 * and the force. */
mcs_status mcs_friction_stick(mcs_stops *st, mcs_sim *sim, int k, mcs_jump_method method,
                              mcs_real *dv, mcs_real *jwork, size_t jwork_len, int *jiwork,
                              size_t jiwork_len, int *stuck, mcs_real *holding);

/* Stuck friction element k slips now: its lock released, sliding the way its holding force
 * (*holding) resisted. */
mcs_status mcs_friction_slip(mcs_stops *st, mcs_sim *sim, int k, mcs_real *holding);

/* After a velocity jump or a release: each sliding element slides the way it now moves, one a
 * stop holds rests, one left at rest sticks or slides. */
mcs_status mcs_friction_refresh(mcs_stops *st, mcs_sim *sim, mcs_jump_method method, mcs_real *dv,
                                mcs_real *jwork, size_t jwork_len, int *jiwork, size_t jiwork_len);

#endif /* MCS_STOPS_INTERNAL_H */
