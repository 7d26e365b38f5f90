/* mcs_stops.h - end stops and Coulomb friction: the mechanism file's `stops:` and `friction:` as
 * constraints that the motion switches on and off (docs/explanation/stops.md).
 *
 * A stop limits a coordinate, or a revolute or prismatic joint's free coordinate q (its angle or
 * position), to lower <= q <= upper. While q is inside, the stop does nothing. When q reaches a
 * limit, an impact: q's rate r changes to -e r (Newton's restitution law with the stop's
 * coefficient e), and the velocity in every other direction by paper 004's momentum-consistent
 * jump, the plastic jump of the stop's lock scaled by 1 + e. With e = 0, or when rebounds
 * accumulate (a rebound predicted to fly for less than zeno_time), the limit is then held: the
 * coordinate's or the joint's lock (mcs_sim_lock, mcs_sim_lock_group) joins the rows. A held
 * limit is released (mcs_sim_unlock, no jump) when its multiplier would have the stop pull.
 *
 * Friction on a coordinate (a model's own, or a tree joint's in joint coordinates) with a kinetic
 * level tau_k and a static level tau_s >= tau_k: while the coordinate slides, the force -tau_k
 * sign(rate) acts (mcs_sim_set_friction), the sign held through the sliding phase. When the rate
 * reaches 0 the coordinate sticks: a lock of it (no velocity jump), kept while the force that
 * holds it is within +-tau_s; when that force reaches the static level it slips, towards the
 * force that moves it. While a stop holds the coordinate its friction rests (the stop holds).
 *
 * Usage, with a simulator whose options.max_locks counts the stops that may be held at once:
 *
 *   static mcs_real swork[MCS_STOPS_WORK_SIZE(NX, NSTOPS, NFRICTION, NJC, NC + MAX_LOCKS)];
 *   static int siwork[MCS_STOPS_IWORK_SIZE(NSTOPS, NFRICTION)];
 *   mcs_stops stops; mcs_stop_event ev;
 *   mcs_stops_init(&stops, &sim, swork, ..., siwork, ...);   (after mcs_sim_start)
 *   mcs_stops_begin(&stops, &sim, MCS_JUMP_MINIMAL, dv, jwork, ..., jiwork, ...);
 *                                                     (what sticks at the start, what slides)
 *   while (sim.cur.t < t_end) {
 *       mcs_sim_step(&sim, t_end);
 *       mcs_stops_locate(&stops, &sim, &ev);         (the first stop event in the step)
 *       if (ev.kind != MCS_STOP_EVENT_NONE)
 *           mcs_stops_apply(&stops, &sim, &ev, MCS_JUMP_MINIMAL, dv, jwork, ..., jiwork, ...);
 *   }
 *
 * mcs_stops_apply moves the simulator back to the event (the step's dense output there, as a
 * restart: mcs_sim_restart), so the step's end is not kept; a caller writing output rows at fixed
 * times writes those before ev.t first. Several stops reaching their limits in the same step are
 * taken one at a time, the earliest first (a simultaneous impact is two impacts at one time).
 */
#ifndef MCS_STOPS_H
#define MCS_STOPS_H

#include <stddef.h>

#include "mcs_model.h"
#include "mcs_sim.h"
#include "mcs_status.h"
#include "mcs_transition.h"

/* A rebound whose flight 2 e |r| / |a| (r the impact rate, a the acceleration into the stop just
 * before it) would be shorter than this ends in a held limit instead (s): bounded work for a ball
 * that comes to rest, and the accumulated impacts' limit to well within the event tolerance. */
#define MCS_STOPS_ZENO_TIME MCS_R(1e-6)

/* Events one instant may hold, per stop and friction element (and one more): past them
 * mcs_stops_apply returns MCS_ERR_LIMIT, since the active set cycles instead of settling. */
#define MCS_STOPS_SAME_INSTANT 4

/* Real and int workspace of mcs_stops_init: n coordinates, nstops stops, nfr friction elements,
 * njc joint coordinates, m rows at most (nc + options.max_locks). */
#define MCS_STOPS_WORK_SIZE(n, nstops, nfr, njc, m) \
    ((3 * (n)) + (2 * (njc)) + MCS_SIM_MAX((m), 1) + (nstops) + (3 * (nfr)) + 2)
#define MCS_STOPS_IWORK_SIZE(nstops, nfr) ((nstops) + (nfr) + 1)

typedef struct mcs_stops {
    const mcs_model *model;
    int nstops;
    int *held;          /* (nstops) 0: free; MCS_STOP_LOWER or MCS_STOP_UPPER: held at that limit */
    mcs_real *sign;     /* (nstops) +-1: the held lock row's rate per unit rate of q */
    mcs_real zeno_time; /* MCS_STOPS_ZENO_TIME unless the caller sets another (>= 0) */
    long impacts;       /* impacts made, rebounds and holds */
    long holds;         /* impacts that ended held (plastic, or rebounds accumulated) */
    long releases;      /* held limits released */
    mcs_real impact_loss; /* kinetic energy the impacts took, summed (>= 0) */
    int nfriction;
    int *stuck;             /* (nfriction) 1: stuck (its lock holds it), 0: sliding or resting */
    mcs_real *slide;        /* (nfriction) -1, 1: the sign of the rate it slides with; 0: none */
    mcs_real *force;        /* (nfriction) the friction forces in force (mcs_sim_set_friction) */
    mcs_real *q_phase;      /* (nfriction) the coordinate where its sliding phase began */
    long sticks;            /* coordinates that stuck */
    long slips;             /* stuck coordinates that slipped */
    mcs_real friction_work; /* the work friction took, summed over the ended sliding phases */
    mcs_real last_t;        /* the time of the last event applied */
    int same_instant;       /* events applied at last_t before the last one */
    /* scratch (n, n, n, 2 njc, m) */
    mcs_real *x;
    mcs_real *v;
    mcs_real *vminus;
    mcs_real *jc;
    mcs_real *lambda;
    int nlambda;
} mcs_stops;

typedef enum mcs_stop_event_kind {
    MCS_STOP_EVENT_NONE = 0,
    MCS_STOP_EVENT_IMPACT = 1,  /* a free limit reached */
    MCS_STOP_EVENT_RELEASE = 2, /* a held limit's reaction turned to pull */
    MCS_STOP_EVENT_STICK = 3,   /* a sliding coordinate's rate reached 0 */
    MCS_STOP_EVENT_SLIP = 4     /* a stuck coordinate's holding force reached the static level */
} mcs_stop_event_kind;

/* A stop event: located by mcs_stops_locate, completed by mcs_stops_apply. */
typedef struct mcs_stop_event {
    int kind;                /* an mcs_stop_event_kind */
    int stop;                /* its index in model->stops (impact, release) or model->friction */
    int side;                /* MCS_STOP_LOWER or MCS_STOP_UPPER (impact, release) */
    mcs_real t;              /* when */
    mcs_real q;              /* the coordinate then (a limit: to the event tolerance) */
    mcs_real rate_before;    /* its rate before (an impact: towards the limit) */
    mcs_real rate_after;     /* and after (-e rate_before for a rebound, 0 held) */
    mcs_real accel;          /* an impact: the acceleration of q just before it (0: unknown) */
    mcs_real kinetic_before; /* the kinetic energy before and after */
    mcs_real kinetic_after;
    mcs_real holding; /* stick, slip: the force that held the coordinate (its lock's) */
    int held;         /* after it: 1 the limit is held or the coordinate stuck, 0 free */
    int zeno;         /* an impact held because its rebound would fly < zeno_time */
} mcs_stop_event;

/* Binds the model's stops and friction to the simulator sim (started: mcs_sim_start or
 * mcs_sim_set_state), every limit free and no friction force yet (mcs_stops_begin). work/iwork:
 * MCS_STOPS_WORK_SIZE(n, nstops, nfriction, njc, nc + options.max_locks) and
 * MCS_STOPS_IWORK_SIZE(nstops, nfriction). MCS_ERR_ARGUMENT for a descriptor whose stops name no coordinate
 * or joint with a free coordinate and a lock, MCS_ERR_UNSUPPORTED when the model has stops but
 * the build leaves locks out or options.max_locks is 0, MCS_ERR_WORKSPACE when work is short. */
mcs_status mcs_stops_init(mcs_stops *st, const mcs_sim *sim, mcs_real *work, size_t lwork,
                          int *iwork, size_t liwork);

/* The friction at the start (after mcs_stops_init, and after the caller moved the state with
 * mcs_sim_set_state): each coordinate with friction slides with its rate's sign, or, at rest,
 * sticks when the force that holds it is within its static level (else slides towards the force
 * that moves it). jwork/jiwork as for mcs_stops_apply. */
mcs_status mcs_stops_begin(mcs_stops *st, mcs_sim *sim, mcs_jump_method method, mcs_real *dv,
                           mcs_real *jwork, size_t jwork_len, int *jiwork, size_t jiwork_len);

/* The work friction took up to a state x (n) of the sliding phases under way (the current step's
 * states: its end, or a dense output inside it): st->friction_work, what the ended phases took,
 * plus kinetic |x_j - x_j(phase start)| of each coordinate sliding now (its sign is held through
 * the phase, so the work of a phase is exact). */
mcs_real mcs_stops_friction_work(const mcs_stops *st, const mcs_real *x);

/* The stop's coordinate q and its rate r at (t, x, v). */
mcs_status mcs_stops_coordinate(mcs_stops *st, const mcs_sim *sim, int stop, mcs_real t,
                                const mcs_real *x, const mcs_real *v, mcs_real *q, mcs_real *r);

/* The first stop whose coordinate is beyond one of its limits at the current state, or -1. */
int mcs_stops_violated(mcs_stops *st, const mcs_sim *sim);

/* After an accepted step (mcs_sim_step): the first stop event inside it (prev.t < t <= cur.t,
 * or at prev.t for an impact there), located on the dense output to 1e-12 s relative; ev->kind
 * MCS_STOP_EVENT_NONE when there is none. Uses the probe frame. */
mcs_status mcs_stops_locate(mcs_stops *st, mcs_sim *sim, mcs_stop_event *ev);

/* Moves the simulator to ev->t (if before cur.t) and applies the event located there: an impact
 * (a rebound, or a held limit; a limit held whose reaction pulls at once is released again), a
 * release, a stick (a stuck coordinate whose holding force is beyond its static level slips at
 * once) or a slip. dv (n) is the caller's; jwork/jiwork as for mcs_sim_lock_group (MCS_JUMP_*_SIZE(n,
 * nc + max_locks, 1)). method: the transition (MCS_JUMP_MINIMAL is 004's). Fills the rest of
 * ev. */
mcs_status mcs_stops_apply(mcs_stops *st, mcs_sim *sim, mcs_stop_event *ev, mcs_jump_method method,
                           mcs_real *dv, mcs_real *jwork, size_t jwork_len, int *jiwork,
                           size_t jiwork_len);

/* mcs_sim_advance with the stops and friction: steps until cur.t == t_target (finite), each
 * event located in a step applied there (mcs_stops_locate, mcs_stops_apply); at most
 * options.max_steps steps, else MCS_ERR_LIMIT with the state at the last step taken. *events
 * (may be NULL) counts the events applied. For a caller who wants the motion, not each event
 * (a controller's plant, firmware); jwork/jiwork as for mcs_stops_apply. */
mcs_status mcs_stops_advance(mcs_stops *st, mcs_sim *sim, mcs_real t_target, mcs_jump_method method,
                             mcs_real *dv, mcs_real *jwork, size_t jwork_len, int *jiwork,
                             size_t jiwork_len, long *events);

#endif /* MCS_STOPS_H */
