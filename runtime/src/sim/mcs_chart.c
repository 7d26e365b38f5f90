/* mcs_chart.c - the chart's start on the current frame (SPEC §4): the ODE's initial value. The
 * chart's map onto the manifold and its Maggi-Kane ODE are each variant's (mcs_chart_map and
 * mcs_chart_rhs, mcs_variant.c); what every chart shares is mcs_chart_common.c's. */

#include "sim/mcs_operations.h"

/* y0 = (0, T^T v_k) on the chart of s->cur; resets the Newton warm start. */
void mcs_chart_start(mcs_sim *s, mcs_real *y0)
{
    const int n = s->n;
    const int r = s->cur.r;
    const int f = n - r;
    int i;
    for (i = 0; i < f; ++i) {
        y0[i] = MCS_R(0.0);
    }
    mcs_frame_Tt(s, &s->cur, s->cur.v, &y0[f]);
    for (i = 0; i < r; ++i) {
        s->w.p[i] = MCS_R(0.0);
    }
    s->w.pred_x = NULL;
}
