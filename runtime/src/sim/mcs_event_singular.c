/* mcs_event_singular.c - the singular-configuration event (mcs_events.c's table): a singular
 * configuration inside an accepted step, by golden-section search of sigma(t) on the interpolant,
 * and the new admissible motions aligned with the continued basis (SPEC §6, §3.7). */

#include "sim/mcs_stages.h"

#if MCS_WITH_EVENTS
/* sigma at time t inside the last step, measured at the chart's rank: the dense state's
 * |R_{rp-1}| / |R_0| with rp = prev.r (0 when the chart cannot be evaluated there, which happens
 * only at a singular point). Leaves x in s->event.x and the factorization in s->probe. */
static mcs_real sigma_at(mcs_sim *s, mcs_real t)
{
    mcs_real *x = s->event.x;
    mcs_real *v = s->w.tmp2;
    if (mcs_interpolated_state(s, t, x, v) != MCS_OK) {
        return 0;
    }
    if (mcs_probe_factor(s, t, x, v) != MCS_OK) {
        return 0;
    }
    return mcs_frame_ratio(s, &s->probe, s->prev.r);
}

/* Whether sigma can have a minimum inside the step just accepted (prev.t .. cur.t), from sigma
 * at its ends and at the start of the step before (sigma ~ rate |t - t*| near a crossing): not
 * when sigma falls through the step and, extrapolated from the step before, reaches 0 only after
 * it; not when it rises through both; not when it turned upwards in this step but the search
 * of the step before found the turn inside that one. Every other case is searched (SPEC §6). */
static int minimum_possible(const mcs_sim *s)
{
    const mcs_real sa = s->prev.sigma;
    const mcs_real sb = s->cur.sigma;
    const mcs_real s0 = s->w.sigma_before;
    const mcs_real dt0 = s->prev.t - s->w.sigma_before_t;
    if ((s->w.sigma_before_r != s->prev.r) || !(dt0 > MCS_R(0.0))) {
        return 1; /* nothing to compare with */
    }
    if (sb < sa) {
        /* falling: does the line through the step before reach 0 inside this one (or within
         * half of it after, for the curvature the line ignores)? */
        const mcs_real h = s->cur.t - s->prev.t;
        return !(s0 > sa) ||
               ((s->prev.t + ((sa * dt0) / (s0 - sa))) < (s->cur.t + (MCS_R(0.5) * h)));
    }
    if (sa >= s0) {
        return 0; /* rising through both steps */
    }
    return !s->w.searched; /* the turn lies in this step, unless the last search found it */
}

/* Whether the line through sigma over the step before this one reaches 0 inside this step (or
 * within half of it after): a crossing predicted here although sigma at both ends is above the
 * watch level (a step placed across the predicted crossing from further away, mcs_step.c). */
static int crossing_predicted(const mcs_sim *s)
{
    const mcs_real sa = s->prev.sigma;
    const mcs_real s0 = s->w.sigma_before;
    const mcs_real dt0 = s->prev.t - s->w.sigma_before_t;
    const mcs_real h = s->cur.t - s->prev.t;
    if ((s->w.sigma_before_r != s->prev.r) || !(dt0 > MCS_R(0.0)) || !(s0 > sa)) {
        return 0;
    }
    return ((s->prev.t + ((sa * dt0) / (s0 - sa))) < (s->cur.t + (MCS_R(0.5) * h))) ? 1 : 0;
}

/* The smallest sigma measured so far (a probe where the chart failed returns 0: not one), and
 * its configuration (sigma_at left it in event.x; kept in event.continued, scratch until an
 * event is recorded: near the singular point a second evaluation of the chart at the same t can
 * fail where the first did not, the Newton iteration starting elsewhere). */
static void keep_best(mcs_sim *s, mcs_real t, mcs_real sigma, mcs_real *t_best, mcs_real *s_best)
{
    int i;
    if ((sigma > MCS_R(0.0)) && (sigma < *s_best)) {
        *t_best = t;
        *s_best = sigma;
        for (i = 0; i < s->n; ++i) {
            s->event.continued[i] = s->event.x[i];
        }
    }
}

/* SPEC §6: look for a singular configuration inside the step just accepted (prev.t .. cur.t).
 * When sigma is small at one of its ends, or the step before predicts a crossing inside this
 * one (crossing_predicted), minimize sigma(t) over the step by golden-section
 * search on the dense output; a minimum inside the step and below sing_tol is an event. The new
 * motions come from the factorization there with sing_tol, aligned with the continued basis
 * (SPEC §3.7: continued motions first, the new ones after). */
void mcs_event_singular_locate(mcs_sim *s)
{
    const mcs_real g = MCS_R(0.6180339887498949);
    const int n = s->n;
    const int rp = s->prev.r;
    const int f_old = n - rp;
    mcs_real a = s->prev.t;
    mcs_real b = s->cur.t;
    mcs_real c;
    mcs_real d;
    mcs_real fc;
    mcs_real fd;
    mcs_real t_min;
    mcs_real s_min;
    mcs_real t_best = MCS_R(0.0);
    mcs_real s_best = MCS_R(1.0);
    int use_best;
    mcs_real ends;
    mcs_event *ev = &s->event;
    int it;
    int i;
    int r_s;
    int f_s;
    int kmin;
    s->w.searched = 0;
    if (!(s->opt.sing_tol > MCS_R(0.0)) || !s->w.interp_ready || (rp == 0) || (s->cur.r != rp)) {
        return;
    }
    ends = MIN2(s->prev.sigma, s->cur.sigma);
    if ((!(ends < mcs_watch_level(s)) && !crossing_predicted(s)) || !minimum_possible(s)) {
        return;
    }
    c = b - (g * (b - a));
    d = a + (g * (b - a));
    fc = sigma_at(s, c);
    fd = sigma_at(s, d);
    keep_best(s, c, fc, &t_best, &s_best);
    keep_best(s, d, fd, &t_best, &s_best);
    for (it = 0; it < 80; ++it) {
        /* down to the resolution of t, or to a point a thousand times closer to the singular
         * configuration than sing_tol (sigma ~ rate |t - t*|: t is then within about
         * sing_tol / 1000 / rate of t*, and the rank there is the singular one; a probe where
         * the chart cannot be evaluated counts 0, which is no measurement) */
        if (!((b - a) > (MCS_R(1e-13) * MAX2(MCS_R(1.0), mcs_fabs(b)))) ||
            ((MIN2(fc, fd) > MCS_R(0.0)) && (MIN2(fc, fd) < (MCS_R(1e-3) * s->opt.sing_tol)))) {
            break;
        }
        if (fc < fd) {
            b = d;
            d = c;
            fd = fc;
            c = b - (g * (b - a));
            fc = sigma_at(s, c);
            keep_best(s, c, fc, &t_best, &s_best);
        } else {
            a = c;
            c = d;
            fc = fd;
            d = a + (g * (b - a));
            fd = sigma_at(s, d);
            keep_best(s, d, fd, &t_best, &s_best);
        }
    }
    t_min = (fc < fd) ? c : d;
    /* the turn of sigma was inside this step (not at its end, where a monotonic fall leads the
     * search): the next step, rising, needs no search of its own */
    s->w.searched = 0;
    if (t_min < (s->cur.t - (MCS_R(1e-3) * (s->cur.t - s->prev.t)))) {
        s->w.searched = 1;
    }
    s_min = MIN2(fc, fd);
    use_best = 0;
    if ((s_best < s->opt.sing_tol) && !(s_min > MCS_R(0.0))) {
        use_best = 1;
    }
    if (use_best != 0) {
        /* the search ended where the chart cannot be evaluated (in float a wider band around
         * the singular point): the closest probe that could is the configuration */
        t_min = t_best;
        s_min = s_best;
        for (i = 0; i < n; ++i) {
            ev->x[i] = ev->continued[i];
        }
    }
    if (!(s_min < s->opt.sing_tol) || !(s_min < (MCS_R(0.5) * ends))) {
        return;
    }
    /* the configuration there: step off the exact point if the chart cannot be evaluated on it */
    {
        mcs_real dt =
            MAX2(MCS_R(1e-12), MCS_R(4.0) * MCS_REAL_EPS) * MAX2(MCS_R(1.0), mcs_fabs(t_min));
        for (i = 0; (i < 40) && (use_best == 0); ++i) {
            if (mcs_interpolated_state(s, t_min, ev->x, s->w.tmp2) == MCS_OK) {
                break;
            }
            const int scale = i + 1;
            t_min += (((i % 2) != 0) ? (-dt * (mcs_real)scale) : (dt * (mcs_real)scale));
            dt *= MCS_R(2.0);
        }
        if (i == 40) {
            return;
        }
    }
    if (s->m > 0) {
        mcs_rows_A(s, ev->x, t_min, s->w.A);
    }
    if (mcs_qr_basis(n, s->m, s->w.A, MAX2(s->m, 1), s->opt.sing_tol, s->probe.Q, s->probe.R,
                     s->probe.piv, &r_s, s->w.basis_work) != MCS_OK) {
        return;
    }
    f_s = n - r_s;
    if (r_s >= rp) {
        return;
    }
    /* continued basis at t_min, then align the singular null space with it */
    if ((s->opt.continuation != MCS_CONT_OFF) && (s->m > 0) &&
        (s->opt.continuation != MCS_CONT_NONE)) {
        if ((s->model->nc > 0) && (s->model->A_dot == NULL)) {
            return; /* no predictor without A_dot: the step's basis update reports it */
        }
        mcs_rows_A_dot(s, s->prev.x, s->prev.v, s->prev.t, s->w.A_dot);
    }
    if (s->opt.continuation == MCS_CONT_OFF) {
        mcs_mat_copy(n, f_old, s->prev.T, n, s->w.Tpred, n);
    } else if (mcs_predict_tangent(n, s->m, rp, s->prev.Q, s->prev.R, s->prev.piv, s->w.A_dot,
                                   t_min - s->prev.t, s->opt.continuation, s->w.Tpred,
                                   s->w.basis_work, s->w.basis_iwork) != MCS_OK) {
        return;
    } else {
        /* the tangent continued to t_min is in Tpred */
    }
    mcs_mat_copy(n, f_s, &s->probe.Q[r_s * n], n, s->w.That, n);
    if (mcs_align_basis(n, f_old, s->w.Tpred, f_s, s->w.That, s->w.Phi, s->w.basis_work) !=
        MCS_OK) {
        return;
    }
    ev->t = t_min;
    /* sigma measured at the located configuration (the search may end where the chart could
     * not be evaluated, counted there as 0) */
    ev->sigma = (mcs_fabs(s->probe.R[0]) > MCS_R(0.0))
                    ? (mcs_fabs(s->probe.R[(rp - 1) + ((rp - 1) * n)]) / mcs_fabs(s->probe.R[0]))
                    : s_min;
    ev->rank_before = rp;
    ev->rank_after = r_s;
    kmin = (n < s->m) ? n : s->m;
    ev->nrdiag = kmin;
    for (i = 0; i < kmin; ++i) {
        ev->rdiag[i] = mcs_fabs(s->probe.R[i + (i * n)]);
    }
    ev->nmotions = f_s - f_old;
    mcs_mat_copy(n, f_old, s->w.Phi, n, ev->continued, n);
    mcs_mat_copy(n, f_s - f_old, &s->w.Phi[f_old * n], n, ev->motions, n);
    s->event_ready = 1;
    s->stats.events++;
    s->probe.r = r_s; /* the probe now holds the singular factorization */
    s->probe.identity = 0;
    s->probe.T = &s->probe.Q[r_s * n];
}
#endif
