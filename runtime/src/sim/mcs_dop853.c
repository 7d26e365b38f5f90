/* mcs_dop853.c - Dormand-Prince 8(5,3) on the frozen chart of s->cur (SPEC §4 allows any explicit
 * Runge-Kutta method): twelve stages, the 5th- and 3rd-order error estimates combined as in
 * Hairer's DOP853, the end state with its FSAL stage, and the 7th-order dense output, whose three
 * extra stages are evaluated on the first request inside a step (the event search and output
 * rows ask; a run that asks nothing pays twelve evaluations per step, eleven with FSAL).
 * Coefficients: E. Hairer, S. P. Norsett, G. Wanner, Solving Ordinary Differential Equations I,
 * 2nd ed., Springer 1993, section II.10 (the published values of Hairer's dop853). */

#include "sim/mcs_methods.h"

#if MCS_WITH_DOP853

#define STAGES 12 /* of a step; stage 12 is the end (FSAL), 13-15 the dense output's */
#define AT(row, j) ((((row) * ((row) + 1)) / 2) + (j)) /* A (row, j) in the packed rows */

static const mcs_real C[16] = {MCS_R(0.0),
                               MCS_R(0.526001519587677318785587544488e-01),
                               MCS_R(0.789002279381515978178381316732e-01),
                               MCS_R(0.118350341907227396726757197510),
                               MCS_R(0.281649658092772603273242802490),
                               MCS_R(0.333333333333333333333333333333),
                               MCS_R(0.25),
                               MCS_R(0.307692307692307692307692307692),
                               MCS_R(0.651282051282051282051282051282),
                               MCS_R(0.6),
                               MCS_R(0.857142857142857142857142857142),
                               MCS_R(1.0),
                               MCS_R(1.0),
                               MCS_R(0.1),
                               MCS_R(0.2),
                               MCS_R(0.777777777777777777777777777778)};

/* A, packed by rows: stage i + 1 (i = 0..14) from stages 0..i, its row at i (i + 1) / 2; row 11
 * is the 8th-order weights b (stage 12, the end). */
static const mcs_real A[120] = {
    /* stage 1 */ MCS_R(5.26001519587677318785587544488e-2),
    /* stage 2 */ MCS_R(1.97250569845378994544595329183e-2),
    MCS_R(5.91751709536136983633785987549e-2),
    /* stage 3 */ MCS_R(2.95875854768068491816892993775e-2),
    MCS_R(0.0),
    MCS_R(8.87627564304205475450678981324e-2),
    /* stage 4 */ MCS_R(2.41365134159266685502369798665e-1),
    MCS_R(0.0),
    MCS_R(-8.84549479328286085344864962717e-1),
    MCS_R(9.24834003261792003115737966543e-1),
    /* stage 5 */ MCS_R(3.7037037037037037037037037037e-2),
    MCS_R(0.0),
    MCS_R(0.0),
    MCS_R(1.70828608729473871279604482173e-1),
    MCS_R(1.25467687566822425016691814123e-1),
    /* stage 6 */ MCS_R(3.7109375e-2),
    MCS_R(0.0),
    MCS_R(0.0),
    MCS_R(1.70252211019544039314978060272e-1),
    MCS_R(6.02165389804559606850219397283e-2),
    MCS_R(-1.7578125e-2),
    /* stage 7 */ MCS_R(3.70920001185047927108779319836e-2),
    MCS_R(0.0),
    MCS_R(0.0),
    MCS_R(1.70383925712239993810214054705e-1),
    MCS_R(1.07262030446373284651809199168e-1),
    MCS_R(-1.53194377486244017527936158236e-2),
    MCS_R(8.27378916381402288758473766002e-3),
    /* stage 8 */ MCS_R(6.24110958716075717114429577812e-1),
    MCS_R(0.0),
    MCS_R(0.0),
    MCS_R(-3.36089262944694129406857109825),
    MCS_R(-8.68219346841726006818189891453e-1),
    MCS_R(2.75920996994467083049415600797e1),
    MCS_R(2.01540675504778934086186788979e1),
    MCS_R(-4.34898841810699588477366255144e1),
    /* stage 9 */ MCS_R(4.77662536438264365890433908527e-1),
    MCS_R(0.0),
    MCS_R(0.0),
    MCS_R(-2.48811461997166764192642586468),
    MCS_R(-5.90290826836842996371446475743e-1),
    MCS_R(2.12300514481811942347288949897e1),
    MCS_R(1.52792336328824235832596922938e1),
    MCS_R(-3.32882109689848629194453265587e1),
    MCS_R(-2.03312017085086261358222928593e-2),
    /* stage 10 */ MCS_R(-9.3714243008598732571704021658e-1),
    MCS_R(0.0),
    MCS_R(0.0),
    MCS_R(5.18637242884406370830023853209),
    MCS_R(1.09143734899672957818500254654),
    MCS_R(-8.14978701074692612513997267357),
    MCS_R(-1.85200656599969598641566180701e1),
    MCS_R(2.27394870993505042818970056734e1),
    MCS_R(2.49360555267965238987089396762),
    MCS_R(-3.0467644718982195003823669022),
    /* stage 11 */ MCS_R(2.27331014751653820792359768449),
    MCS_R(0.0),
    MCS_R(0.0),
    MCS_R(-1.05344954667372501984066689879e1),
    MCS_R(-2.00087205822486249909675718444),
    MCS_R(-1.79589318631187989172765950534e1),
    MCS_R(2.79488845294199600508499808837e1),
    MCS_R(-2.85899827713502369474065508674),
    MCS_R(-8.87285693353062954433549289258),
    MCS_R(1.23605671757943030647266201528e1),
    MCS_R(6.43392746015763530355970484046e-1),
    /* stage 12 */ MCS_R(5.42937341165687622380535766363e-2),
    MCS_R(0.0),
    MCS_R(0.0),
    MCS_R(0.0),
    MCS_R(0.0),
    MCS_R(4.45031289275240888144113950566),
    MCS_R(1.89151789931450038304281599044),
    MCS_R(-5.8012039600105847814672114227),
    MCS_R(3.1116436695781989440891606237e-1),
    MCS_R(-1.52160949662516078556178806805e-1),
    MCS_R(2.01365400804030348374776537501e-1),
    MCS_R(4.47106157277725905176885569043e-2),
    /* stage 13 */ MCS_R(5.61675022830479523392909219681e-2),
    MCS_R(0.0),
    MCS_R(0.0),
    MCS_R(0.0),
    MCS_R(0.0),
    MCS_R(0.0),
    MCS_R(2.53500210216624811088794765333e-1),
    MCS_R(-2.46239037470802489917441475441e-1),
    MCS_R(-1.24191423263816360469010140626e-1),
    MCS_R(1.5329179827876569731206322685e-1),
    MCS_R(8.20105229563468988491666602057e-3),
    MCS_R(7.56789766054569976138603589584e-3),
    MCS_R(-8.298e-3),
    /* stage 14 */ MCS_R(3.18346481635021405060768473261e-2),
    MCS_R(0.0),
    MCS_R(0.0),
    MCS_R(0.0),
    MCS_R(0.0),
    MCS_R(2.83009096723667755288322961402e-2),
    MCS_R(5.35419883074385676223797384372e-2),
    MCS_R(-5.49237485713909884646569340306e-2),
    MCS_R(0.0),
    MCS_R(0.0),
    MCS_R(-1.08347328697249322858509316994e-4),
    MCS_R(3.82571090835658412954920192323e-4),
    MCS_R(-3.40465008687404560802977114492e-4),
    MCS_R(1.41312443674632500278074618366e-1),
    /* stage 15 */ MCS_R(-4.28896301583791923408573538692e-1),
    MCS_R(0.0),
    MCS_R(0.0),
    MCS_R(0.0),
    MCS_R(0.0),
    MCS_R(-4.69762141536116384314449447206),
    MCS_R(7.68342119606259904184240953878),
    MCS_R(4.06898981839711007970213554331),
    MCS_R(3.56727187455281109270669543021e-1),
    MCS_R(0.0),
    MCS_R(0.0),
    MCS_R(0.0),
    MCS_R(-1.39902416515901462129418009734e-3),
    MCS_R(2.9475147891527723389556272149),
    MCS_R(-9.15095847217987001081870187138)};

/* out (len) = y0 + h sum_j A[AT(row, j)] k[j] over the stages 0..row (zeros skipped). */
static void stage_point(const mcs_sim *s, int len, mcs_real h, int row, mcs_real *out)
{
    int i;
    int j;
    for (i = 0; i < len; ++i) {
        mcs_real sum = MCS_R(0.0);
        for (j = 0; j <= row; ++j) {
            if (A[AT(row, j)] != MCS_R(0.0)) {
                sum += A[AT(row, j)] * s->w.k[j][i];
            }
        }
        out[i] = s->w.y0[i] + (h * sum);
    }
}

/* Hairer's error norm: h |e5|^2 / sqrt(len (|e5|^2 + 0.01 |e3|^2)), each entry scaled by
 * atol + rtol max(|y0|, |y1|) (positions at least by the size of x, as DOPRI5). */
static mcs_real error_norm(const mcs_sim *s, int len, mcs_real h, mcs_real rtol, mcs_real xscale)
{
    /* The 5th-order error weights, and b minus the 3rd-order weights (nonzero at stages 0, 8, 11). */
    static const mcs_real E5[STAGES] = {MCS_R(0.1312004499419488073250102996e-1),
                                        0,
                                        0,
                                        0,
                                        0,
                                        MCS_R(-0.1225156446376204440720569753e+1),
                                        MCS_R(-0.4957589496572501915214079952),
                                        MCS_R(0.1664377182454986536961530415e+1),
                                        MCS_R(-0.3503288487499736816886487290),
                                        MCS_R(0.3341791187130174790297318841),
                                        MCS_R(0.8192320648511571246570742613e-1),
                                        MCS_R(-0.2235530786388629525884427845e-1)};
    static const mcs_real BHH[3] = {MCS_R(0.244094488188976377952755905512),
                                    MCS_R(0.733846688281611857341361741547),
                                    MCS_R(0.220588235294117647058823529412e-1)};
    const int f = len / 2;
    mcs_real *const *k = s->w.k;
    mcs_real e5sq = MCS_R(0.0);
    mcs_real e3sq = MCS_R(0.0);
    int i;
    int j;
    for (i = 0; i < len; ++i) {
        mcs_real e5 = MCS_R(0.0);
        mcs_real e3;
        mcs_real sc = MAX2(mcs_fabs(s->w.y0[i]), mcs_fabs(s->w.y1[i]));
        for (j = 0; j < STAGES; ++j) {
            e5 += E5[j] * k[j][i];
        }
        /* b - bhh: the 8th-order weights minus the 3rd-order ones */
        e3 = -((BHH[0] * k[0][i]) + (BHH[1] * k[8][i]) + (BHH[2] * k[11][i]));
        for (j = 0; j < STAGES; ++j) {
            e3 += A[AT(11, j)] * k[j][i];
        }
        if (i < f) {
            sc = MAX2(sc, xscale);
        }
        sc = s->opt.atol + (rtol * sc);
        e5sq += (e5 / sc) * (e5 / sc);
        e3sq += (e3 / sc) * (e3 / sc);
    }
    if (!(e5sq > MCS_R(0.0))) {
        return e5sq; /* 0, or NaN */
    }
    return (h * e5sq) / mcs_sqrt((mcs_real)len * (e5sq + (MCS_R(0.01) * e3sq)));
}

mcs_status mcs_dop853_attempt(mcs_sim *s, mcs_real h, mcs_real *err)
{
    const int n = s->n;
    const int f = n - s->cur.r;
    const int len = 2 * f;
    const mcs_real t = s->cur.t;
    const mcs_real xscale = mcs_vec_max_abs(n, s->cur.x);
    mcs_real **k = s->w.k;
    mcs_status st;
    int j;
    st = mcs_adaptive_first_stage(s);
    if (st != MCS_OK) {
        return st;
    }
    for (j = 1; j < STAGES; ++j) {
        stage_point(s, len, h, j - 1, s->w.ys);
        st = mcs_chart_rhs(s, &s->cur, s->w.ys, t + (C[j] * h), k[j]);
        if (st != MCS_OK) {
            return st;
        }
    }
    stage_point(s, len, h, STAGES - 1, s->w.y1); /* the 8th-order end */
    /* as DOPRI5: no tolerance below what stages near a singular point can be evaluated to */
    *err = error_norm(s, len, h, MAX2(s->opt.rtol, 10 * MCS_REAL_EPS * s->w.g_cond_max), xscale);
    if (!((*err - *err) == MCS_R(0.0))) {
        return MCS_ERR_NONFINITE;
    }
    if (*err > MCS_R(1.0)) {
        return MCS_OK; /* rejected: the end is not evaluated */
    }
    /* the end: its x, v (compensated) are the new state, its stage the next step's first */
    s->w.want_lo = 1;
    st = mcs_chart_rhs(s, &s->cur, s->w.y1, t + h, k[STAGES]);
    s->w.want_lo = 0;
    if (st != MCS_OK) {
        return st;
    }
    mcs_adaptive_end(s, k[STAGES]);
    s->w.interp_extra = 0;
    return MCS_OK;
}

mcs_status mcs_dop853_interpolate(mcs_sim *s, mcs_real th, mcs_real *y)
{
    /* The dense output's last four coefficients from the stages 0, 5..15 (Hairer's d4..d7). */
    static const mcs_real D[4][16] = {
        {MCS_R(-0.84289382761090128651353491142e+1), 0, 0, 0, 0,
         MCS_R(0.56671495351937776962531783590), MCS_R(-0.30689499459498916912797304727e+1),
         MCS_R(0.23846676565120698287728149680e+1), MCS_R(0.21170345824450282767155149946e+1),
         MCS_R(-0.87139158377797299206789907490), MCS_R(0.22404374302607882758541771650e+1),
         MCS_R(0.63157877876946881815570249290), MCS_R(-0.88990336451333310820698117400e-1),
         MCS_R(0.18148505520854727256656404962e+2), MCS_R(-0.91946323924783554000451984436e+1),
         MCS_R(-0.44360363875948939664310572000e+1)},
        {MCS_R(0.10427508642579134603413151009e+2), 0, 0, 0, 0,
         MCS_R(0.24228349177525818288430175319e+3), MCS_R(0.16520045171727028198505394887e+3),
         MCS_R(-0.37454675472269020279518312152e+3), MCS_R(-0.22113666853125306036270938578e+2),
         MCS_R(0.77334326684722638389603898808e+1), MCS_R(-0.30674084731089398182061213626e+2),
         MCS_R(-0.93321305264302278729567221706e+1), MCS_R(0.15697238121770843886131091075e+2),
         MCS_R(-0.31139403219565177677282850411e+2), MCS_R(-0.93529243588444783865713862664e+1),
         MCS_R(0.35816841486394083752465898540e+2)},
        {MCS_R(0.19985053242002433820987653617e+2), 0, 0, 0, 0,
         MCS_R(-0.38703730874935176555105901742e+3), MCS_R(-0.18917813819516756882830838328e+3),
         MCS_R(0.52780815920542364900561016686e+3), MCS_R(-0.11573902539959630126141871134e+2),
         MCS_R(0.68812326946963000169666922661e+1), MCS_R(-0.10006050966910838403183860980e+1),
         MCS_R(0.77771377980534432092869265740), MCS_R(-0.27782057523535084065932004339e+1),
         MCS_R(-0.60196695231264120758267380846e+2), MCS_R(0.84320405506677161018159903784e+2),
         MCS_R(0.11992291136182789328035130030e+2)},
        {MCS_R(-0.25693933462703749003312586129e+2), 0, 0, 0, 0,
         MCS_R(-0.15418974869023643374053993627e+3), MCS_R(-0.23152937917604549567536039109e+3),
         MCS_R(0.35763911791061412378285349910e+3), MCS_R(0.93405324183624310003907691704e+2),
         MCS_R(-0.37458323136451633156875139351e+2), MCS_R(0.10409964950896230045147246184e+3),
         MCS_R(0.29840293426660503123344363579e+2), MCS_R(-0.43533456590011143754432175058e+2),
         MCS_R(0.96324553959188282948394950600e+2), MCS_R(-0.39177261675615439165231486172e+2),
         MCS_R(-0.14972683625798562581422125276e+3)}};
    const int f = s->n - s->prev.r;
    const int len = 2 * f;
    const mcs_real h = s->h_last;
    const mcs_real th1 = MCS_R(1.0) - th;
    mcs_real **k = s->w.k;
    int i;
    int j;
    if (s->w.interp_extra == 0) { /* stages 13-15 on the step's chart (now s->prev) */
        for (j = STAGES + 1; j < 16; ++j) {
            stage_point(s, len, h, j - 1, y);
            for (i = 0; i < s->prev.r; ++i) {
                s->w.p[i] = MCS_R(0.0);
            }
            s->w.pred_x = NULL;
            {
                const mcs_status st = mcs_chart_rhs(s, &s->prev, y, s->prev.t + (C[j] * h), k[j]);
                if (st != MCS_OK) {
                    return st;
                }
            }
        }
        s->w.interp_extra = 1;
    }
    for (i = 0; i < len; ++i) {
        const mcs_real y0 = s->w.y0[i];
        const mcs_real dy = s->w.y1[i] - y0;
        const mcs_real bspl = (h * k[0][i]) - dy;
        const mcs_real r4 = dy - (h * k[STAGES][i]) - bspl;
        mcs_real r[4];
        int d;
        for (d = 0; d < 4; ++d) {
            mcs_real sum = MCS_R(0.0);
            for (j = 0; j < 16; ++j) {
                if (D[d][j] != MCS_R(0.0)) {
                    sum += D[d][j] * k[j][i];
                }
            }
            r[d] = h * sum;
        }
        /* y0 + th (dy + th1 (bspl + th (r4 + th1 (r5 + th (r6 + th1 (r7 + th r8)))))) */
        {
            mcs_real acc = r[2] + (th * r[3]);
            acc = r[1] + (th1 * acc);
            acc = r[0] + (th * acc);
            acc = r4 + (th1 * acc);
            acc = bspl + (th * acc);
            acc = dy + (th1 * acc);
            y[i] = y0 + (th * acc);
        }
    }
    return MCS_OK;
}

#endif /* MCS_WITH_DOP853 */
