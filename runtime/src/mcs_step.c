/* mcs_step.c - the step policy: RK4 on its grid, DOPRI5 error control, retakes near singular
 * configurations (SPEC §6 rules 1-3), acceptance with re-factorization and basis continuation. */

#include "mcs_sim_internal.h"

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
    st = mcs_frame_factor(s, nf);
    if (st != MCS_OK) {
        return st;
    }
    if ((s->opt.chart_tol > MCS_R(0.0)) && (s->w.retries < MAX_RETRIES) && (r_old > 0) &&
        ((nf->r < r_old) || (mcs_frame_ratio(s, nf, r_old) < s->opt.chart_tol))) {
        return MCS_ERR_SINGULAR_CHART;
    }
    st = mcs_frame_continue_basis(s, &s->cur, h, nf);
    if (st != MCS_OK) {
        return st;
    }
    /* q(t_k+1) = q(t_k) + the chart coordinate at the step's end (w.y1, both methods) */
    mcs_q_carry(s->n - r_old, s->cur.q, s->w.y1, s->n - nf->r, nf->q);
    tmp = s->cur;
    s->cur = *nf;
    s->prev = tmp;
    s->h_last = h;
    s->stats.steps++;
    s->w.retries = 0;
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

/* Whether a failed step should be retaken shorter (the failures a singular point causes). */
static int retryable(mcs_status st)
{
    return (st == MCS_ERR_NEWTON) || (st == MCS_ERR_SINGULAR_CHART) ||
           (st == MCS_ERR_MASS_NOT_PD) || (st == MCS_ERR_NONFINITE);
}

static mcs_status step_rk4(mcs_sim *s, mcs_real h)
{
    mcs_status st = mcs_rk4_attempt(s, h);
    return (st != MCS_OK) ? st : finish_step(s, h);
}

static mcs_status step_dopri5(mcs_sim *s, mcs_real t_target)
{
    const mcs_real t = s->cur.t;
    int last_rejected = 0;
    int attempts = 0;
    for (;;) {
        mcs_real h = s->h_next;
        mcs_real err = MCS_R(0.0);
        mcs_real fac;
        mcs_status st;
        int final = 0;
        if (++attempts > s->opt.max_attempts) {
            return MCS_ERR_LIMIT;
        }
        if (h >= ((t_target - t) - (MCS_R(1e-12) * MAX2(MCS_R(1.0), mcs_fabs(t))))) {
            h = t_target - t;
            final = 1;
        }
        /* a step must move time (t + h == t in the arithmetic: no progress is possible) */
        if (!(h >= s->opt.h_min) || !((t + h) > t)) {
            return MCS_ERR_STEP_TOO_SMALL;
        }
        st = mcs_dopri5_attempt(s, h, &err);
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
        fac = (err > MCS_R(0.0)) ? (MCS_R(0.9) * mcs_pow(err, MCS_R(-0.2))) : MCS_R(5.0);
        if (err <= MCS_R(1.0)) {
            fac = MIN2(fac, (last_rejected != 0) ? MCS_R(1.0) : MCS_R(5.0));
            s->prev.t = final ? t_target : (t + h);
            s->w.dense_ready = 1;
            st = finish_step(s, s->prev.t - t);
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
            /* keep the controller's step when this one was cut short to hit the target */
            if (!final || (h * MAX2(fac, MCS_R(0.2)) > s->h_next)) {
                s->h_next = h * MAX2(fac, MCS_R(0.2));
            }
            return MCS_OK;
        }
        s->stats.rejected++;
        s->h_next = h * MAX2(fac, MCS_R(0.2));
        last_rejected = 1;
    }
}

mcs_status mcs_sim_step(mcs_sim *s, mcs_real t_target)
{
    mcs_status st;
    if (!s || !s->ready || !(t_target > s->cur.t)) {
        return MCS_ERR_ARGUMENT;
    }
    if ((mcs_sim_memory_features(&s->opt) & ~s->features) != 0U) {
        return MCS_ERR_ARGUMENT; /* options changed to need memory mcs_sim_assign did not give */
    }
    if (s->opt.method == MCS_METHOD_DOPRI5) {
        return step_dopri5(s, t_target);
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
        if (t_target < (next - snap)) {
            end = t_target;
        }
        for (;;) {
            if (!(end > s->cur.t)) { /* h below the resolution of t: no progress is possible */
                return MCS_ERR_STEP_TOO_SMALL;
            }
            st = step_rk4(s, end - s->cur.t);
            if (st == MCS_OK) {
                break;
            }
            if (!retryable(st) || (s->w.retries >= MAX_RETRIES)) {
                return st;
            }
            s->stats.detours++;
            s->w.retries++;
            end = s->cur.t + (MCS_R(0.45) * (end - s->cur.t));
        }
        if (end == next) {
            s->grid_index++;
        }
        s->cur.t = ((end == next) && (t_target >= (next - snap)) && (t_target <= (next + snap)))
                       ? t_target
                       : end;
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
