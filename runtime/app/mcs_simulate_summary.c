/* mcs_simulate_summary.c - the command-line simulator's JSON summary of a run, and the problems
 * that make a run that reached its end not ok (see mcs_simulate_output.h). */
#include "mcs_simulate_output.h"
#include "mcs_simulate_setup.h"

#include <stdio.h>

static void json_string(app_stream *o, const char *s)
{
    stream_printf(o, "\"");
    for (; *s; ++s)
        stream_printf(o, (*s == '"' || *s == '\\') ? "\\%c" : "%c", *s);
    stream_printf(o, "\"");
}

/* A rise of the energy above this share of the energy in motion (the largest kinetic energy and
 * the range of the potential) is no integration error: the run went unstable. */
#define ENERGY_RISE 0.01
/* More retakes than this share of the accepted steps (and at least RETAKES_MIN) mean the step is
 * too long for the model. */
#define RETAKES_SHARE 0.5
#define RETAKES_MIN 10

static const char *const energy_names[] = {"undefined", "conserved", "dissipated", "exchanged"};

/* The run's energy balance: the model's at u = 0 (mcs_model.energy_balance), exchanged when the
 * run applies inputs. */
static int run_balance(const run_info *ri)
{
    return ri->driven ? (int)MCS_ENERGY_EXCHANGED : ri->model->energy_balance;
}

/* What to try when a run's result is not to be trusted, for its method. */
static void advice(char *text, size_t cap, const mcs_options *opt)
{
    const unsigned flags = mcs_method_flags(opt->method);
    if (!(flags & (MCS_METHOD_FLAG_ADAPTIVE | MCS_METHOD_FLAG_IMPLICIT)))
        snprintf(text, cap,
                 "take a smaller --h (now %g s), or --method %s (%s if the model is stiff)",
                 (double)opt->h, method_like(MCS_METHOD_FLAG_ADAPTIVE),
                 method_like(MCS_METHOD_FLAG_IMPLICIT));
    else if (!(flags & MCS_METHOD_FLAG_ADAPTIVE))
        snprintf(text, cap, "take a smaller --h (now %g s), or --method %s", (double)opt->h,
                 method_like(MCS_METHOD_FLAG_ADAPTIVE | MCS_METHOD_FLAG_IMPLICIT));
    else
        snprintf(text, cap, "take a smaller --rtol (now %g)", (double)opt->rtol);
}

/* A run whose DOPRI5 steps were mostly cut short by stability, not accuracy, is stiff: more
 * than this share of them (and at least STIFF_MIN) gets the suggestion of the implicit method. */
#define STIFF_SHARE 0.5
#define STIFF_MIN 100

/* The stiffness DOPRI5 measured (mcs_stats): its stability-limited steps, the largest |lambda|
 * and the stiffness ratio |lambda|_max (t_end - t_0), the number of the fastest decay's time
 * constants in the run (Shampine and Gear's measure; a ratio of eigenvalues would need the
 * slowest one, which a run does not see); and the suggestion of ros34pw2 when most steps were
 * stability-limited. */
static void stiffness(run_info *ri, const mcs_sim *sim)
{
    app_stream *o = &ri->summary;
    long dopri5 = 0; /* the steps of the method whose steps carry the test (DOPRI5's) */
    int m;
    const long limited = sim->stats.stability_limited;
    const double lam = (double)sim->stats.lambda_max;
    char text[512];
    for (m = 0; m < MCS_METHOD_COUNT; ++m)
        if (mcs_method_flags((mcs_method)m) & MCS_METHOD_FLAG_STIFFNESS_TEST)
            dopri5 += sim->stats.steps_by_method[m];
    stream_printf(o,
                  ", \"stability_limited\": %ld, \"lambda_max\": %.6g, \"stiffness_ratio\": %.6g",
                  limited, lam, lam * (double)(sim->cur.t - ri->t0));
    stream_printf(o, ", \"suggestions\": [");
    if (limited >= STIFF_MIN && (double)limited > STIFF_SHARE * (double)dopri5) {
        snprintf(text, sizeof text,
                 "%ld of the %ld DOPRI5 steps (%.0f %%) were cut short by stability, not "
                 "accuracy (|lambda| up to %.3g 1/s): the model is stiff; --method ros34pw2 "
                 "takes the steps accuracy allows (ros34pw2_fixed on a fixed step)",
                 limited, dopri5, 100.0 * (double)limited / (double)dopri5, lam);
        json_string(o, text);
    }
    stream_printf(o, "]");
}

/* The problems of a run that reached its end but whose result is wrong, as JSON strings of one
 * line each into the summary; their number. An energy that rose in a model that cannot gain it
 * (conserved, or only dissipated: locks lose energy too), or retakes on most steps. */
static int problems(run_info *ri, const mcs_sim *sim, const run_summary *rs)
{
    const mcs_model *md = ri->model;
    const mcs_options *opt = rs->opt;
    const long steps = sim->stats.steps, retakes = sim->stats.rejected + sim->stats.detours;
    const mcs_real scale = ri->kin_max + (ri->pot_max - ri->pot_min);
    app_stream *o = &ri->summary;
    char fix[160], text[512];
    int count = 0;
    const int balance = run_balance(ri);
    advice(fix, sizeof fix, opt);
    stream_printf(o, ", \"problems\": [");
    if (md->potential && (balance == MCS_ENERGY_CONSERVED || balance == MCS_ENERGY_DISSIPATED) &&
        ri->e_rise_max > (mcs_real)ENERGY_RISE * scale &&
        ri->e_rise_max > MCS_R(1e3) * MCS_REAL_EPS * (mcs_fabs(ri->e_initial) + scale)) {
        snprintf(text, sizeof text,
                 "the energy rose by %.3g above its lowest value in a model whose energy can "
                 "only %s: the integration is unstable at this step; %s",
                 (double)ri->e_rise_max,
                 balance == MCS_ENERGY_CONSERVED ? "stay constant" : "decrease", fix);
        json_string(o, text);
        ++count;
    }
    if (retakes >= RETAKES_MIN && (double)retakes > RETAKES_SHARE * (double)steps) {
        snprintf(text, sizeof text,
                 "%ld steps were retaken for %ld accepted (%ld rejected, %ld detours): the step "
                 "is too long for this model (stiff?); %s",
                 retakes, steps, sim->stats.rejected, sim->stats.detours, fix);
        stream_printf(o, "%s", count ? ", " : "");
        json_string(o, text);
        ++count;
    }
    stream_printf(o, "]");
    return count;
}

int output_summary(run_info *ri, const mcs_sim *sim, const run_summary *rs)
{
    static const char *const cont_names[] = {"exp", "euler", "none", "off"};
    const mcs_model *md = ri->model;
    const mcs_options *opt = rs->opt;
    const mcs_assembly *a = rs->assembly;
    app_stream *o = &ri->summary;
    int i, ok;
    output_follow_pending(ri); /* the last step's end */
    stream_printf(o, "{\"model\": ");
    json_string(o, md->name);
    stream_printf(o, ", \"status\": ");
    /* Ctrl-C stops the run as a step limit would (MCS_ERR_LIMIT): say which it was */
    json_string(o, ri->interrupted ? "interrupted (Ctrl-C)" : mcs_status_str(rs->status));
    ok = problems(ri, sim, rs) == 0; /* said for a run that stopped too: why it did */
    ok = ok && rs->status == MCS_OK;
    stream_printf(o, ", \"ok\": %s, \"interrupted\": %s, \"t_reached\": %.17g, \"t_end\": %.17g",
                  ok ? "true" : "false", ri->interrupted ? "true" : "false", (double)sim->cur.t,
                  (double)rs->t_end);
    stream_printf(o, ", \"events_log\": %s", ri->nevents > 0 ? "true" : "false");
    stream_printf(o, ", \"simulator\": \"%s\"", ri->simulator);
    stream_printf(o,
                  ", \"method\": \"%s\", \"continuation\": \"%s\", \"h\": %.17g, \"rtol\": %.17g, "
                  "\"atol\": %.17g",
                  mcs_method_name(opt->method), cont_names[opt->continuation], (double)opt->h,
                  (double)opt->rtol, (double)opt->atol);
    stream_printf(
        o, ", \"n\": %d, \"m\": %d, \"rank\": %d, \"dof\": %d, \"rank_min\": %d, \"rank_max\": %d",
        md->nx, md->nc, rs->rank0, md->nx - rs->rank0, ri->rank_min, ri->rank_max);
    stream_printf(
        o,
        ", \"steps\": %ld, \"rejected\": %ld, \"evaluations\": %ld, \"newton_iterations\": %ld, "
        "\"factorizations\": %ld, \"rank_changes\": %ld, \"rows\": %d, \"events\": %ld, "
        "\"detours\": %ld",
        sim->stats.steps, sim->stats.rejected, sim->stats.evaluations, sim->stats.newton_iterations,
        sim->stats.factorizations, sim->stats.rank_changes, ri->rows, sim->stats.events,
        sim->stats.detours);
    /* which method took how many steps: DOP853 leaves those near a singular configuration to
     * DOPRI5 (mcs_sim.h, sing_watch) */
    stream_printf(o, ", \"steps_by_method\": {");
    for (i = 0; i < MCS_METHOD_COUNT; ++i)
        stream_printf(o, "%s\"%s\": %ld", (i > 0) ? ", " : "", mcs_method_name((mcs_method)i),
                      sim->stats.steps_by_method[i]);
    stream_printf(o, "}");
    stiffness(ri, sim);
    stream_printf(o, ", \"sing_tol\": %.17g, \"rank_tol\": %.17g", (double)opt->sing_tol,
                  (double)opt->rank_tol);
    stream_printf(o, ", \"dependent_rows\": [");
    for (i = rs->rank0; i < md->nc; ++i)
        stream_printf(o, "%s\"%s\"", i > rs->rank0 ? ", " : "", md->constraint_names[rs->piv0[i]]);
    stream_printf(o, "]");
    stream_printf(o, ", \"max_c_norm\": %.17g, \"wall_s\": %.6f, \"blas_threads\": %d",
                  (double)ri->c_max, rs->wall_s, rs->blas_threads);
    stream_printf(o, ", \"transitions\": [");
    for (i = 0; i < ri->ntransitions; ++i) {
        const mcs_transition *tr = &ri->transitions[i];
        stream_printf(o,
                      "%s{\"kind\": \"%s\", \"t\": %.17g, \"target\": \"%s\", \"impulse\": %.17g, "
                      "\"kinetic_before\": %.17g, \"kinetic_after\": %.17g, \"dependent\": %d, "
                      "\"dof_after\": %d}",
                      i ? ", " : "", tr->lock ? "lock" : "unlock", (double)tr->t,
                      lock_name(md, tr->key), (double)tr->impulse, (double)tr->jump.kinetic_before,
                      (double)tr->jump.kinetic_after, tr->jump.dependent, tr->jump.dof_after);
    }
    stream_printf(o, "]");
    if (md->nstops > 0)
        stream_printf(o,
                      ", \"stops\": {\"impacts\": %ld, \"held\": %ld, \"releases\": %ld, "
                      "\"impact_loss\": %.17g}",
                      ri->stop_impacts, ri->stop_holds, ri->stop_releases, (double)ri->stop_loss);
    if (md->nfriction > 0)
        stream_printf(o, ", \"friction\": {\"sticks\": %ld, \"slips\": %ld, \"work\": %.17g}",
                      ri->friction_sticks, ri->friction_slips, (double)ri->friction_work);
    if (ri->reactions) {
        stream_printf(o, ", \"reactions_status\": ");
        json_string(o, mcs_status_str(ri->reaction_status));
    }
    stream_printf(o, ", \"energy_balance\": \"%s\"",
                  energy_names[run_balance(ri) >= 0 && run_balance(ri) <= 3 ? run_balance(ri) : 0]);
    if (md->potential) {
        /* relative to |E0|, or to the energy that moves when that is more (E0 = 0 at a
         * potential's zero: relative to 0 it said nothing) */
        const mcs_real moved = ri->kin_max + (ri->pot_max - ri->pot_min);
        mcs_real scale = mcs_fabs(ri->e0) > moved ? mcs_fabs(ri->e0) : moved;
        stream_printf(o,
                      ", \"energy0\": %.17g, \"energy_drift\": %.17g, \"energy_drift_rel\": %.17g",
                      (double)ri->e_initial, (double)ri->e_dev_max,
                      (double)(scale > 0 ? ri->e_dev_max / scale : 0));
        stream_printf(o,
                      ", \"energy_rise\": %.17g, \"energy_scale\": %.17g, "
                      "\"energy_transitions\": %.17g",
                      (double)ri->e_rise_max, (double)(ri->kin_max + (ri->pot_max - ri->pot_min)),
                      (double)ri->e_transitions);
    }
    stream_printf(
        o,
        ", \"assembly\": {\"c_norm_before\": %.17g, \"c_norm_after\": %.17g, \"dx_norm\": %.17g, "
        "\"cdot_norm_before\": %.17g, \"dv_norm\": %.17g, \"iterations\": %d}",
        (double)a->c_norm_before, (double)a->c_norm_after, (double)a->dx_norm,
        (double)a->cdot_norm_before, (double)a->dv_norm, a->iterations);
    stream_printf(o, "}\n");
    stream_flush(o);
    return ok;
}
