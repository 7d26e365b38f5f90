/* mcs_step.c - the step policy: RK4 on its grid, adaptive error control, retakes near singular
 * configurations (SPEC §6 rules 1-3), acceptance with re-factorization and basis continuation. */

#include "sim/mcs_stages.h"

/* Retakes of one step near a singular point before the step is accepted as it is. */
#define MAX_RETRIES 6

/* After the stages: x1, v1 are in s->prev's buffers (the new frame). Factor there, continue the
 * basis from the chart (s->cur), and make the new frame current. Rule 1 of SPEC §6: a step that
 * would end at (or within chart_tol of) a singular configuration returns MCS_ERR_SINGULAR_CHART
 * so that the caller retakes it shorter; after MAX_RETRIES it is accepted as it is. */
static mcs_status finish_step(mcs_sim *s, mcs_real h)
{
    mcs_frame *nf = &s->prev;
    mcs_frame tmp;
    const int r_old = s->cur.r;
    mcs_status st;
    if ((mcs_vec_max_abs(s->n, nf->x) < MCS_R(0.0)) ||
        (mcs_vec_max_abs(s->n, nf->v) < MCS_R(0.0))) {
        return MCS_ERR_NONFINITE;
    }
    /* the prediction first: it reads the chart's factorization, which the frames of a compact
     * simulator share with the new one */
    st = mcs_frame_predict(s, &s->cur, h);
    if (st != MCS_OK) {
        return st;
    }
    st = mcs_frame_factor(s, nf);
    if (st != MCS_OK) {
        return st;
    }
    if ((s->opt.chart_tol > MCS_R(0.0)) && (s->w.retries < MAX_RETRIES) && (r_old > 0) &&
        ((nf->r < r_old) || (mcs_frame_ratio(s, nf, r_old) < s->opt.chart_tol))) {
        return MCS_ERR_SINGULAR_CHART;
    }
    st = mcs_frame_align(s, s->n - r_old, nf);
    if (st != MCS_OK) {
        return st;
    }
    /* q(t_k+1) = q(t_k) + the chart coordinate at the step's end (w.y1, both methods) */
    mcs_q_carry(s->n - r_old, s->cur.q, s->w.y1, s->n - nf->r, nf->q);
    s->w.sigma_before_t = s->w.sigma_start_t;
    s->w.sigma_before = s->w.sigma_start;
    s->w.sigma_before_r = (s->h_last > MCS_R(0.0)) ? s->w.sigma_start_r : -1;
    s->w.sigma_start_t = s->cur.t;
    s->w.sigma_start = s->cur.sigma;
    s->w.sigma_start_r = s->cur.r;
    tmp = s->cur;
    s->cur = *nf;
    s->prev = tmp;
    s->h_last = h;
    s->stats.steps++;
    s->w.retries = 0;
    if (s->cur.sigma > s->w.sigma_ref) {
        s->w.sigma_ref = s->cur.sigma;
    }
    if (s->cur.r != r_old) {
        s->stats.rank_changes++;
    }
    mcs_events_detect(s);
    return MCS_OK;
}

/* How to retake a step that ended on, or whose stages met, a singular configuration: shorter
 * (0.45) when its start is well away from it, so that it now ends before the singular point; but
 * longer (3x) when the start itself is close to it, so that it ends past it (shortening would
 * only creep towards it). */
static mcs_real retake_factor(const mcs_sim *s)
{
    return (s->cur.sigma > (MCS_R(3.0) * s->opt.chart_tol)) ? MCS_R(0.45) : MCS_R(3.0);
}

/* The time a singular configuration is predicted to be crossed, from sigma at the start and the
 * end of the last accepted step (sigma(t) ~ rate |t - t*| near a crossing, SPEC §6): 0 when none
 * is approaching (no previous step, a rank change, sigma not falling, or far from singular: above
 * the watch level and not predicted within `ahead`). The look-ahead matters: a long step from
 * just above the watch level can reach the crossing, and one of its stages land on it (P3 with
 * DOP853 at rtol 9e-10: a DOPRI5 stage at 0.8 of a 15 ms step, 1.4e-6 m where 0.8e-9 and 1e-9
 * give 2e-8). */
static int predict_crossing(const mcs_sim *s, mcs_real ahead, mcs_real *t_star, mcs_real *rate)
{
    const mcs_real dt = s->cur.t - s->w.sigma_start_t;
    const mcs_real ds = s->w.sigma_start - s->cur.sigma;
    if (!(s->h_last > MCS_R(0.0)) || (s->w.sigma_start_r != s->cur.r) || (s->cur.r == 0) ||
        !(dt > MCS_R(0.0)) || !(ds > MCS_R(0.0))) {
        return 0;
    }
    *rate = ds / dt;
    if (!(s->cur.sigma < mcs_watch_level(s)) && !(s->cur.sigma < (*rate * ahead))) {
        return 0;
    }
    *t_star = s->cur.t + (s->cur.sigma / *rate);
    return 1;
}

/* Stage placement near a singular configuration (SPEC §6). A stage close to one computes its
 * acceleration to about eps / sigma^2 only: the tangent at x is determined to eps / sigma, and the
 * curvature term divides by sigma again. Stages that happen to land close to the crossing cost
 * the run its accuracy (the P3 error floor, and worse for smaller steps). So the step that would
 * come near the predicted crossing t* is replaced by two: one that stops `theta hc` before t*,
 * then the crossing step of length hc, with t* at the fraction theta of it, between two stages.
 * hc is the nominal step H, longer when a stage would otherwise be closer to t* than sigma =
 * sigma_gap (RK4: options.sing_gap; DOPRI5 passes 0, its controller chooses H) or a step end
 * closer than 3 chart_tol (rule 1), but never longer than hc_max (after a rejected attempt, the
 * controller's shorter step: a crossing step its error test refuses is not taken again as it
 * was). A target the crossing step would pass shortens it to end there. Returns the step to
 * take: h when nothing is near. */
static mcs_real place_step(const mcs_sim *s, mcs_real h, mcs_real H, mcs_real hc_max,
                           mcs_real theta, mcs_real sigma_gap, mcs_real t_target)
{
    mcs_real t_star;
    mcs_real rate;
    mcs_real a;
    mcs_real hc;
    mcs_real gap;
    if (!predict_crossing(s, MCS_R(2.0) * MAX2(h, H), &t_star, &rate)) {
        return h;
    }
    a = t_star - s->cur.t;
    hc = MAX2(H, (MCS_R(3.0) * s->opt.chart_tol) / (rate * MIN2(theta, MCS_R(1.0) - theta)));
    hc = MAX2(hc, sigma_gap / (rate * theta));
    hc = MIN2(hc, MCS_R(16.0) * H); /* a slow crossing: rules 1-2 handle what is left */
    hc = MIN2(hc, hc_max);
    if ((t_target > t_star) && ((t_target - t_star) < ((MCS_R(1.0) - theta) * hc))) {
        hc = (t_target - t_star) / (MCS_R(1.0) - theta); /* the crossing step ends at the target */
    }
    gap = theta * hc;
    if (a <= (MCS_R(1.1) * gap)) {
        /* the crossing step, from where the previous one stopped (or as near as we already are) */
        if ((a >= (MCS_R(0.5) * gap)) && ((a / theta) <= hc_max)) {
            hc = a / theta;
        }
        return hc;
    }
    if (a < (h + gap)) {
        return a - gap; /* stop short, so that the next step crosses at theta */
    }
    return h;
}

/* DOP853 near a singular configuration: within sing_watch, or sigma falling (over the last
 * step) fast enough to reach sing_watch within `ahead`. Such steps are DOPRI5's: across a
 * crossing the chart's ODE is stiff in q (A_S U turns singular between the stages) and an
 * 8th-order step, long and with its stages far from the step's ends, follows it worse (P3 at
 * rtol 1e-11: 2.6e-10 or 2.8e-9 by backend with DOP853 throughout, 1.1e-10 and 1.8e-10 so). */
static int near_crossing(const mcs_sim *s, mcs_real ahead)
{
    const mcs_real dt = s->cur.t - s->w.sigma_start_t;
    const mcs_real ds = s->w.sigma_start - s->cur.sigma;
    const mcs_real watch = mcs_watch_level(s);
    if (s->cur.r == 0) {
        return 0;
    }
    if (!(s->cur.sigma > watch)) {
        return 1;
    }
    if (!(s->h_last > MCS_R(0.0)) || (s->w.sigma_start_r != s->cur.r) || !(dt > MCS_R(0.0)) ||
        !(ds > MCS_R(0.0))) {
        return 0;
    }
    return ((s->cur.sigma - watch) < ((ds / dt) * ahead)) ? 1 : 0;
}

/* Whether a failed step should be retaken shorter (the failures a singular point causes). */
static int retryable(mcs_status st)
{
    return (st == MCS_ERR_NEWTON) || (st == MCS_ERR_SINGULAR_CHART) ||
           (st == MCS_ERR_MASS_NOT_PD) || (st == MCS_ERR_NONFINITE);
}

/* A fixed-step method's step of length h, accepted (no error control). */
static mcs_status step_fixed(mcs_sim *s, mcs_real h)
{
    mcs_real err;
    mcs_status st = mcs_method_attempt(s, s->opt.method, h, &err);
    if (st == MCS_OK) {
        st = finish_step(s, h);
    }
    if (st == MCS_OK) {
        s->stats.steps_by_method[s->opt.method]++;
    }
    return st;
}

/* An adaptive method's step (mcs_methods: DOPRI5, DOP853): error control (the step factor
 * 0.9 err^exponent, within 0.2 .. 5), retakes of failed stages, acceptance. Near a singular
 * configuration the steps are its near_singular method's. */
static mcs_status step_adaptive(mcs_sim *s, mcs_real t_target)
{
    const mcs_real t = s->cur.t;
    mcs_method method = s->opt.method; /* compiled in: mcs_sim_step checked */
    int last_rejected = 0;
    int attempts = 0;
    int shortened = 0;
    for (;;) {
        mcs_real h = s->h_next;
        mcs_real err = MCS_R(0.0);
        mcs_real fac;
        mcs_status st;
        int final = 0;
        if (++attempts > s->opt.max_attempts) {
            return MCS_ERR_LIMIT;
        }
        if ((mcs_methods[method].near_singular != method) && (near_crossing(s, h) != 0)) {
            if ((attempts == 1) && s->w.interp_ready && (s->w.interp_method == method)) {
                h *= mcs_methods[method].handover; /* from its own step: the other needs less */
            }
            method = mcs_methods[method].near_singular;
        }
        {
            const mcs_real place = mcs_methods[method].place;
            const mcs_real placed = place_step(
                s, h, h, (last_rejected != 0) ? h : (MCS_R(16.0) * h), place, MCS_R(0.0), t_target);
            shortened = 0;
            if (placed < h) {
                shortened = 1;
            }
            h = placed;
        }
        if (h >= ((t_target - t) - (MCS_R(1e-12) * MAX2(MCS_R(1.0), mcs_fabs(t))))) {
            h = t_target - t;
            final = 1;
        }
        /* a step must move time (t + h == t in the arithmetic: no progress is possible) */
        if (!(h >= s->opt.h_min) || !((t + h) > t)) {
            return MCS_ERR_STEP_TOO_SMALL;
        }
        st = mcs_method_attempt(s, method, h, &err);
        if (retryable(st) != 0) {
            /* a failed stage rejects the step; it is retaken on the same chart, shorter, or
             * longer when the chart itself is close to the singular point */
            s->stats.rejected++;
            s->h_next = h * ((retake_factor(s) < MCS_R(1.0)) ? MCS_R(0.25) : retake_factor(s));
            last_rejected = 1;
            continue;
        }
        if (st != MCS_OK) {
            return st;
        }
        fac = (err > MCS_R(0.0)) ? (MCS_R(0.9) * mcs_pow(err, mcs_methods[method].exponent))
                                 : MCS_R(5.0);
        if (err <= MCS_R(1.0)) {
            fac = MIN2(fac, (last_rejected != 0) ? MCS_R(1.0) : MCS_R(5.0));
            s->prev.t = final ? t_target : (t + h);
            s->w.interp_ready = 1;
            s->w.interp_method = method;
            st = finish_step(s, s->prev.t - t);
            if (st == MCS_OK) {
                s->stats.steps_by_method[method]++;
            }
            if (st == MCS_ERR_SINGULAR_CHART) { /* rule 1: never end a step at a singular point */
                s->stats.detours++;
                s->w.retries++;
                s->h_next = h * retake_factor(s);
                last_rejected = 1;
                continue;
            }
            if (st != MCS_OK) {
                return st;
            }
            if (s->w.a_end != NULL) {
                s->w.fsal = 1; /* the next step's first stage is ready (mcs_rk.c) */
            }
            /* keep the controller's step when this one was cut short to hit the target or to
             * place the next one across a singular configuration */
            if ((!final && !shortened) || (h * MAX2(fac, MCS_R(0.2)) > s->h_next)) {
                s->h_next = h * MAX2(fac, MCS_R(0.2));
            }
            return MCS_OK;
        }
        s->stats.rejected++;
        /* from the shorter of this step and the controller's (a placed step may be longer) */
        s->h_next = MIN2(h, s->h_next) * MAX2(fac, MCS_R(0.2));
        last_rejected = 1;
    }
}

mcs_status mcs_sim_step(mcs_sim *s, mcs_real t_target)
{
    mcs_status st;
    if (!s || !s->ready || !(t_target > s->cur.t)) {
        return MCS_ERR_ARGUMENT;
    }
    st = mcs_options_in_force(s); /* the options checked at binding, or changed since */
    if (st != MCS_OK) {
        return st;
    }
    if (mcs_method_has(s->opt.method, MCS_METHOD_FLAG_ADAPTIVE) != 0) {
        return step_adaptive(s, t_target);
    }
    {
        /* RK4 on the grid t_grid0 + k h; a step towards an off-grid target is shortened and the
         * next one returns to the grid. Rules 2-3 of SPEC §6: a step whose stages fail near a
         * singular point, or that would end on one, is retaken shorter and asymmetric (0.45 of
         * it), and the next step returns to the grid; each retake is counted as a detour. */
        const mcs_real h = s->opt.h;
        const mcs_real snap = MCS_R(1e-9) * h;
        long next_index = s->grid_index + 1;
        mcs_real next = s->t_grid0 + ((mcs_real)next_index * h);
        mcs_real end;
        if (s->cur.t >= (next - snap)) {
            s->grid_index++;
            next_index = s->grid_index + 1;
            next = s->t_grid0 + ((mcs_real)next_index * h);
        }
        end = next;
        {
            const mcs_real placed =
                place_step(s, next - s->cur.t, h, MCS_R(16.0) * h, mcs_methods[s->opt.method].place,
                           s->opt.sing_gap, t_target);
            if (placed != (next - s->cur.t)) {
                end = s->cur.t + placed;
            }
        }
        if (t_target < (end - snap)) {
            end = t_target;
        }
        for (;;) {
            if (!(end > s->cur.t)) { /* h below the resolution of t: no progress is possible */
                return MCS_ERR_STEP_TOO_SMALL;
            }
            st = step_fixed(s, end - s->cur.t);
            if (st == MCS_OK) {
                break;
            }
            if (!retryable(st) || (s->w.retries >= MAX_RETRIES)) {
                return st;
            }
            s->stats.detours++;
            s->w.retries++;
            end = s->cur.t + (retake_factor(s) * (end - s->cur.t));
            if (end > t_target) {
                end = t_target;
            }
        }
        s->cur.t = ((end == next) && (t_target >= (next - snap)) && (t_target <= (next + snap)))
                       ? t_target
                       : end;
        /* the grid points reached (a step placed across a singular point may pass one) */
        for (;;) {
            const long following = s->grid_index + 1;
            if ((s->t_grid0 + ((mcs_real)following * h)) > (s->cur.t + snap)) {
                break;
            }
            s->grid_index = following;
        }
        return MCS_OK;
    }
}

mcs_status mcs_sim_advance(mcs_sim *s, mcs_real t_target)
{
    long steps = 0;
    if (!s || !((t_target - t_target) == MCS_R(0.0))) { /* NaN and +-Inf: never reached */
        return MCS_ERR_ARGUMENT;
    }
    while (s->cur.t < t_target) {
        mcs_status st;
        if (++steps > s->opt.max_steps) {
            return MCS_ERR_LIMIT;
        }
        st = mcs_sim_step(s, t_target);
        if (st != MCS_OK) {
            return st;
        }
    }
    return MCS_OK;
}
