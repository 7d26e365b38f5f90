/* mcs_band.c - the banded simulator's linear algebra (options.banded; mcs_banded.c drives it):
 * the QR factorization of A^T by rows and Givens rotations along the structure the generator laid
 * out (mcs_band_structure, generator/mcsgen/emit/structure.py), applications of its Q, solves with
 * its banded R, and an LU with partial pivoting of a banded matrix (LAPACK's gbtrf storage). Every
 * cost is O(n w) or O(N b^2), w and b the bands: no n x n matrix. Plain C99, no allocation. */
#include "linalg/mcs_band.h"

/* sqrt(a^2 + b^2) without overflow or underflow in the squares (mcs_linalg_portable.c has its own
 * copy: that backend references nothing but libm, tests/e2e/test_firmware.py) */
static mcs_real safe_hypot(mcs_real a, mcs_real b)
{
    const mcs_real fa = mcs_fabs(a);
    const mcs_real fb = mcs_fabs(b);
    const mcs_real big = (fa > fb) ? fa : fb;
    const mcs_real small = (fa > fb) ? fb : fa;
    mcs_real q;
    if (!(big > MCS_R(0.0))) {
        return big; /* 0, or NaN */
    }
    q = small / big;
    return big * mcs_sqrt(MCS_R(1.0) + (q * q));
}

int mcs_band_qr(const mcs_model *md, const mcs_real *a_nz, mcs_real *R, mcs_real *cs, mcs_real *sn,
                mcs_real *win)
{
    const mcs_band_structure *bs = md->band;
    const int n = md->nx;
    const int m = md->nc;
    const int w = bs->width;
    int k;
    int i;
    for (i = 0; i < (m * w); ++i) {
        R[i] = MCS_R(0.0);
    }
    for (k = 0; k < n; ++k) {
        const int j = bs->x_order[k];
        int c = bs->first[k];
        int rot;
        int p;
        if (c >= m) {
            continue; /* a coordinate in no row: a tangent slot as it stands */
        }
        for (i = 0; i < w; ++i) {
            win[i] = MCS_R(0.0);
        }
        for (p = bs->a_col_start[j]; p < bs->a_col_start[j + 1]; ++p) {
            win[bs->c_pos[md->a_rows[p]] - c] = a_nz[p]; /* within the band: the structure's */
        }
        for (rot = bs->rot_start[k]; rot < bs->rot_start[k + 1]; ++rot) {
            mcs_real *Rc = &R[c * w];
            const mcs_real a = Rc[0];
            const mcs_real b = win[0];
            const mcs_real r = safe_hypot(a, b);
            mcs_real co = MCS_R(1.0);
            mcs_real si = MCS_R(0.0);
            if (r > MCS_R(0.0)) {
                co = a / r;
                si = b / r;
            }
            if (!((r - r) == MCS_R(0.0))) {
                return -1; /* a NaN or Inf entry */
            }
            cs[rot] = co;
            sn[rot] = si;
            for (i = 0; i < w; ++i) { /* row c of R and the slot's row, columns c .. c + w - 1 */
                const mcs_real ri = Rc[i];
                const mcs_real wi = win[i];
                Rc[i] = (co * ri) + (si * wi);
                win[i] = (co * wi) - (si * ri);
            }
            for (i = 1; i < w; ++i) { /* the slot's entry at c is 0: its window moves to c + 1 */
                win[i - 1] = win[i];
            }
            win[w - 1] = MCS_R(0.0);
            ++c;
        }
        if (bs->place[k] >= 0) { /* the rest of the slot's row is row c of R */
            for (i = 0; i < w; ++i) {
                R[(c * w) + i] = win[i];
            }
        }
    }
    return 0;
}

void mcs_band_qt(const mcs_model *md, const mcs_real *cs, const mcs_real *sn, const mcs_real *y,
                 mcs_real *z)
{
    const mcs_band_structure *bs = md->band;
    const int n = md->nx;
    int k;
    int rot;
    for (k = 0; k < n; ++k) {
        z[k] = y[bs->x_order[k]];
    }
    for (k = 0; k < n; ++k) {
        for (rot = bs->rot_start[k]; rot < bs->rot_start[k + 1]; ++rot) {
            const int p = bs->owner[bs->rot_col[rot]];
            const mcs_real zp = z[p];
            const mcs_real zk = z[k];
            z[p] = (cs[rot] * zp) + (sn[rot] * zk);
            z[k] = (cs[rot] * zk) - (sn[rot] * zp);
        }
    }
}

void mcs_band_q(const mcs_model *md, const mcs_real *cs, const mcs_real *sn, mcs_real *z,
                mcs_real *y)
{
    const mcs_band_structure *bs = md->band;
    const int n = md->nx;
    int k;
    int rot;
    for (k = n - 1; k >= 0; --k) {
        for (rot = bs->rot_start[k + 1] - 1; rot >= bs->rot_start[k]; --rot) {
            const int p = bs->owner[bs->rot_col[rot]];
            const mcs_real zp = z[p];
            const mcs_real zk = z[k];
            z[p] = (cs[rot] * zp) - (sn[rot] * zk);
            z[k] = (sn[rot] * zp) + (cs[rot] * zk);
        }
    }
    for (k = 0; k < n; ++k) {
        y[bs->x_order[k]] = z[k];
    }
}

void mcs_band_solve_rt(int m, int w, const mcs_real *R, mcs_real *b)
{
    int c;
    int t;
    for (c = 0; c < m; ++c) { /* column c of R^T: R(c - t, c) = R[(c - t) w + t] */
        mcs_real sum = b[c];
        for (t = 1; (t < w) && (t <= c); ++t) {
            sum -= R[((c - t) * w) + t] * b[c - t];
        }
        b[c] = sum / R[c * w];
    }
}

/* where entry (i, j) of a banded matrix of half band kb is (|i - j| within the band, the LU's
 * fill above it included): LAPACK gbtrf's layout with kl = ku = kb, ld 3 kb + 1 */
static int at(int kb, int i, int j)
{
    return ((2 * kb) + (i - j)) + (j * ((3 * kb) + 1));
}

int mcs_band_lu(int N, int kb, mcs_real *ab, int *ipiv)
{
    const int ld = (3 * kb) + 1;
    const int ku = 2 * kb; /* U's band: kb and the pivoting's fill */
    int j;
    for (j = 0; j < N; ++j) {
        const int below = ((j + kb) < N) ? kb : ((N - 1) - j);
        const int right = ((j + ku) < N) ? ku : ((N - 1) - j);
        /* column j from its diagonal down: col[i] = (j + i, j) */
        mcs_real *col = &ab[at(kb, j, j)];
        mcs_real best = mcs_fabs(col[0]);
        mcs_real piv;
        int p = 0;
        int i;
        int c;
        for (i = 1; i <= below; ++i) {
            if (mcs_fabs(col[i]) > best) {
                best = mcs_fabs(col[i]);
                p = i;
            }
        }
        ipiv[j] = j + p;
        if (!(best > MCS_R(0.0))) {
            return j + 1; /* singular (or NaN) */
        }
        if (p != 0) { /* swap rows j and j + p over the columns U may reach */
            for (c = 0; c <= right; ++c) {
                mcs_real *cc = &ab[at(kb, j, j + c)];
                const mcs_real tmp = cc[0];
                cc[0] = cc[p];
                cc[p] = tmp;
            }
        }
        piv = MCS_R(1.0) / col[0];
        for (i = 1; i <= below; ++i) {
            col[i] *= piv;
        }
        for (c = 1; c <= right; ++c) {
            /* column j + c from row j down: (j + i, j + c) at cc[i], one column step is ld - 1
             * entries further than (j + i, j) */
            mcs_real *cc = &col[c * (ld - 1)];
            const mcs_real ujc = cc[0];
            if (ujc != MCS_R(0.0)) {
                for (i = 1; i <= below; ++i) {
                    cc[i] -= col[i] * ujc;
                }
            }
        }
    }
    return 0;
}

void mcs_band_lu_solve(int N, int kb, const mcs_real *ab, const int *ipiv, mcs_real *b)
{
    int j;
    int i;
    for (j = 0; j < N; ++j) { /* L y = P b */
        const int below = ((j + kb) < N) ? kb : ((N - 1) - j);
        const mcs_real *col = &ab[at(kb, j, j)];
        mcs_real bj;
        if (ipiv[j] != j) {
            const mcs_real tmp = b[j];
            b[j] = b[ipiv[j]];
            b[ipiv[j]] = tmp;
        }
        bj = b[j];
        for (i = 1; i <= below; ++i) {
            b[j + i] -= col[i] * bj;
        }
    }
    for (j = N - 1; j >= 0; --j) { /* U x = y, U's band 2 kb: (j - i, j) at col[-i] */
        const int above = (j < (2 * kb)) ? j : (2 * kb);
        const mcs_real *col = &ab[at(kb, j, j)];
        mcs_real xj;
        b[j] /= col[0];
        xj = b[j];
        for (i = 1; i <= above; ++i) {
            b[j - i] -= col[-i] * xj;
        }
    }
}
