/* test_runs.h - what the simulator's tests share: a run from the file's state to a time in
 * mcs_sim_init's workspace (run_to: the includer's work arrays, WORK_ARGS at the call), and the
 * largest difference of two vectors (max_diff). Static inline: a file that uses neither does not
 * warn. Include after <cmocka.h> and mcs/mcs_sim.h; a file that calls run_to defines
 * WORK_ARGS (work, its length, iwork, its length), its arrays sized for the models it runs. */
#ifndef TEST_RUNS_H
#define TEST_RUNS_H

#include <math.h>
#include <stddef.h>

/* runs to t_end from the file's state; x_out the end positions; returns the evaluations */
static inline long run_in(mcs_real *work, size_t work_len, int *iwork, size_t iwork_len,
                          const mcs_model *md, const void *params, mcs_method method,
                          mcs_continuation c, double h, double rtol, double t_end, mcs_real *x_out)
{
    mcs_sim sim;
    mcs_options opt;
    int i;
    mcs_options_default(&opt, md);
    opt.method = method;
    opt.continuation = c;
    opt.h = h;
    opt.rtol = rtol;
    opt.atol = rtol * 1e-2;
    assert_int_equal(mcs_sim_init(&sim, md, params, &opt, work, work_len, iwork, iwork_len),
                     MCS_OK);
    assert_int_equal(mcs_sim_set_state(&sim, 0, md->x0, md->v0, NULL), MCS_OK);
    assert_int_equal(mcs_sim_advance(&sim, t_end), MCS_OK);
    assert_true(sim.cur.t == t_end);
    for (i = 0; i < md->nx; ++i)
        x_out[i] = sim.cur.x[i];
    return sim.stats.evaluations;
}

/* run_in with the including file's workspace */
#define run_to(md, params, method, c, h, rtol, t_end, x_out) \
    run_in(WORK_ARGS, md, params, method, c, h, rtol, t_end, x_out)

static inline double max_diff(int n, const mcs_real *a, const mcs_real *b)
{
    double d = 0;
    int i;
    for (i = 0; i < n; ++i)
        if (fabs(a[i] - b[i]) > d)
            d = fabs(a[i] - b[i]);
    return d;
}

#endif /* TEST_RUNS_H */
