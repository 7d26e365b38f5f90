/* mcs_linalg_portable.c - self-contained dense linear algebra for firmware (no LAPACK, no heap).
 * Selected with -DMCS_LINALG_PORTABLE; same interface and storage conventions as the LAPACK
 * backend (mcs_linalg.h): Householder reflectors H = I - tau v v^T with v[0] = 1 implicit, R in
 * the upper triangle, as LAPACK's dgeqp3/dorgqr; tau = 0 when the column is already reduced.
 * Written for the small matrices of mechanisms (order up to a few dozen): plain loops, O(n^3). */
#ifdef MCS_LINALG_PORTABLE
#include "linalg/mcs_linalg.h"

static mcs_real hypot2(mcs_real a, mcs_real b)
{
    const mcs_real aa = mcs_fabs(a);
    const mcs_real bb = mcs_fabs(b);
    const mcs_real big = (aa > bb) ? aa : bb;
    const mcs_real small = (aa > bb) ? bb : aa;
    mcs_real r;
    if (big == MCS_R(0.0)) {
        return 0;
    }
    r = small / big;
    return big * mcs_sqrt(MCS_R(1.0) + (r * r));
}

static mcs_real column_norm(int len, const mcs_real *x)
{
    mcs_real scale = MCS_R(0.0);
    mcs_real ssq = MCS_R(0.0);
    int i;
    /* The plain sum of squares unless it over- or underflows (an entry too small to square then
     * weighs < eps): the scaled sum took 7 % of P3 (every column's norm, every reflector). */
    for (i = 0; i < len; ++i) {
        ssq += x[i] * x[i];
    }
    if ((ssq >= (MCS_REAL_MIN / MCS_REAL_EPS)) && ((ssq - ssq) == MCS_R(0.0))) {
        return mcs_sqrt(ssq);
    }
    ssq = MCS_R(1.0);
    for (i = 0; i < len; ++i) { /* scaled sum of squares, as LAPACK's dnrm2 */
        if (x[i] != MCS_R(0.0)) {
            const mcs_real ax = mcs_fabs(x[i]);
            if (scale < ax) {
                ssq = MCS_R(1.0) + (ssq * (scale / ax) * (scale / ax));
                scale = ax;
            } else {
                ssq += (ax / scale) * (ax / scale);
            }
        }
    }
    return scale * mcs_sqrt(ssq);
}

/* Householder reflector for x (len): on return x[0] = beta, x[1..] = v[1..], *tau. */
static void make_reflector(int len, mcs_real *x, mcs_real *tau)
{
    const mcs_real alpha = x[0];
    const mcs_real xnorm = (len > 1) ? column_norm(len - 1, &x[1]) : MCS_R(0.0);
    mcs_real beta;
    int i;
    if (xnorm == MCS_R(0.0)) {
        *tau = MCS_R(0.0);
        return;
    }
    beta = -((alpha >= MCS_R(0.0)) ? 1 : -1) * hypot2(alpha, xnorm);
    *tau = (beta - alpha) / beta;
    for (i = 1; i < len; ++i) {
        x[i] /= (alpha - beta);
    }
    x[0] = beta;
}

/* Apply H = I - tau v v^T (v[0] = 1, v[1..] stored in v) from the left to c (len x cols). */
static void apply_reflector(int len, const mcs_real *v, mcs_real tau, int cols, mcs_real *c,
                            int ldc)
{
    int i;
    int j;
    if (tau == MCS_R(0.0)) {
        return;
    }
    for (j = 0; j < cols; ++j) {
        mcs_real *cj = &c[j * ldc];
        mcs_real s = cj[0];
        for (i = 1; i < len; ++i) {
            s += v[i] * cj[i];
        }
        s *= tau;
        cj[0] -= s;
        for (i = 1; i < len; ++i) {
            cj[i] -= s * v[i];
        }
    }
}

int mcs_la_qr_pivoted(int rows, int cols, mcs_real *a, int lda, int *jpvt, mcs_real *tau,
                      mcs_real *work, int lwork)
{
    const int k = (rows < cols) ? rows : cols;
    mcs_real *norms = work; /* (cols) remaining column norms, recomputed (sizes are small) */
    int i;
    int j;
    int l;
    if (lwork < cols) {
        return -8;
    }
    for (j = 0; j < cols; ++j) {
        jpvt[j] = j;
    }
    for (i = 0; i < k; ++i) {
        int best = i;
        for (j = i; j < cols; ++j) {
            norms[j] = column_norm(rows - i, &a[i + (j * lda)]);
            if (norms[j] > norms[best]) {
                best = j;
            }
        }
        if (best != i) {
            int tmp = jpvt[i];
            jpvt[i] = jpvt[best];
            jpvt[best] = tmp;
            for (l = 0; l < rows; ++l) {
                mcs_real t = a[l + (i * lda)];
                a[l + (i * lda)] = a[l + (best * lda)];
                a[l + (best * lda)] = t;
            }
        }
        make_reflector(rows - i, &a[i + (i * lda)], &tau[i]);
        if ((i + 1) < cols) {
            const mcs_real beta = a[i + (i * lda)];
            a[i + (i * lda)] = MCS_R(1.0);
            apply_reflector(rows - i, &a[i + (i * lda)], tau[i], cols - i - 1,
                            &a[i + ((i + 1) * lda)], lda);
            a[i + (i * lda)] = beta;
        }
    }
    return 0;
}

int mcs_la_qr_form_q(int rows, int k, mcs_real *q, int ldq, const mcs_real *tau, mcs_real *work,
                     int lwork)
{
    /* Q = H_0 H_1 ... H_{k-1} applied to I, accumulated backwards; the reflectors' v live below
     * the diagonal of q's first k columns and are copied to work before being overwritten. */
    mcs_real *v = work;
    int i;
    int j;
    int l;
    if (lwork < rows) {
        return -7;
    }
    for (i = k - 1; i >= 0; --i) {
        for (l = i; l < rows; ++l) {
            v[l - i] = q[l + (i * ldq)];
        }
        /* columns i.. of q: column i becomes e_i before H_i is applied; columns > i already hold
         * H_{i+1} ... H_{k-1} restricted to rows/cols > i */
        for (l = 0; l < rows; ++l) {
            q[l + (i * ldq)] = (l == i);
        }
        if (i == (k - 1)) {
            for (j = i + 1; j < rows; ++j) {
                for (l = 0; l < rows; ++l) {
                    q[l + (j * ldq)] = (l == j);
                }
            }
        }
        v[0] = MCS_R(1.0);
        apply_reflector(rows - i, v, tau[i], rows - i, &q[i + (i * ldq)], ldq);
    }
    if (k == 0) {
        for (j = 0; j < rows; ++j) {
            for (l = 0; l < rows; ++l) {
                q[l + (j * ldq)] = (l == j);
            }
        }
    }
    return 0;
}

int mcs_la_lu(int n, mcs_real *a, int lda, int *ipiv)
{
    int i;
    int j;
    int k;
    int info = 0;
    for (k = 0; k < n; ++k) {
        int p = k;
        mcs_real amax = mcs_fabs(a[k + (k * lda)]);
        for (i = k + 1; i < n; ++i) { /* the running maximum kept, not reloaded through p */
            const mcs_real ai = mcs_fabs(a[i + (k * lda)]);
            if (ai > amax) {
                amax = ai;
                p = i;
            }
        }
        ipiv[k] = p;
        if (p != k) {
            for (j = 0; j < n; ++j) {
                mcs_real t = a[k + (j * lda)];
                a[k + (j * lda)] = a[p + (j * lda)];
                a[p + (j * lda)] = t;
            }
        }
        if (a[k + (k * lda)] == MCS_R(0.0)) {
            if (!info) {
                info = k + 1; /* singular, as LAPACK: the factorization is still completed */
            }
            continue;
        }
        { /* a reciprocal per column (as dgetf2), not a division per entry: P3 -4 % */
            const mcs_real pivot = a[k + (k * lda)];
            const mcs_real inv = MCS_R(1.0) / pivot; /* Inf below MCS_REAL_MIN: divide then */
            for (i = k + 1; i < n; ++i) {
                a[i + (k * lda)] = (mcs_fabs(pivot) >= MCS_REAL_MIN) ? (a[i + (k * lda)] * inv)
                                                                     : (a[i + (k * lda)] / pivot);
            }
        }
        for (j = k + 1; j < n; ++j) {
            const mcs_real akj = a[k + (j * lda)];
            if (akj != MCS_R(0.0)) {
                for (i = k + 1; i < n; ++i) {
                    a[i + (j * lda)] -= a[i + (k * lda)] * akj;
                }
            }
        }
    }
    return info;
}

int mcs_la_lu_solve(int n, int nrhs, const mcs_real *lu, int lda, const int *ipiv, mcs_real *b,
                    int ldb)
{
    int i;
    int j;
    int r;
    for (r = 0; r < nrhs; ++r) {
        mcs_real *x = &b[r * ldb];
        for (i = 0; i < n; ++i) {
            if (ipiv[i] != i) {
                mcs_real t = x[i];
                x[i] = x[ipiv[i]];
                x[ipiv[i]] = t;
            }
        }
        for (j = 0; j < n; ++j) { /* L y = P b, unit diagonal */
            for (i = j + 1; i < n; ++i) {
                x[i] -= lu[i + (j * lda)] * x[j];
            }
        }
        for (j = n - 1; j >= 0; --j) { /* U x = y */
            /* the reciprocal does not wait for x: the division leaves the dependency chain */
            const mcs_real d = lu[j + (j * lda)];
            x[j] = (mcs_fabs(d) >= MCS_REAL_MIN) ? (x[j] * (MCS_R(1.0) / d)) : (x[j] / d);
            for (i = 0; i < j; ++i) {
                x[i] -= lu[i + (j * lda)] * x[j];
            }
        }
    }
    return 0;
}

int mcs_la_cholesky(int n, mcs_real *a, int lda)
{
    int i;
    int j;
    int k;
    for (j = 0; j < n; ++j) {
        mcs_real d = a[j + (j * lda)];
        for (k = 0; k < j; ++k) {
            d -= a[j + (k * lda)] * a[j + (k * lda)];
        }
        if (!(d > MCS_R(0.0))) {
            return j + 1;
        }
        d = mcs_sqrt(d);
        a[j + (j * lda)] = d;
        for (i = j + 1; i < n; ++i) {
            mcs_real s = a[i + (j * lda)];
            for (k = 0; k < j; ++k) {
                s -= a[i + (k * lda)] * a[j + (k * lda)];
            }
            a[i + (j * lda)] = s / d;
        }
    }
    return 0;
}

int mcs_la_cholesky_solve(int n, int nrhs, const mcs_real *l, int lda, mcs_real *b, int ldb)
{
    int i;
    int j;
    int r;
    for (r = 0; r < nrhs; ++r) {
        mcs_real *x = &b[r * ldb];
        for (j = 0; j < n; ++j) {
            x[j] /= l[j + (j * lda)];
            for (i = j + 1; i < n; ++i) {
                x[i] -= l[i + (j * lda)] * x[j];
            }
        }
        for (j = n - 1; j >= 0; --j) {
            for (i = j + 1; i < n; ++i) {
                x[j] -= l[i + (j * lda)] * x[i];
            }
            x[j] /= l[j + (j * lda)];
        }
    }
    return 0;
}

/* Complete the first `have` orthonormal columns of q (len x len, ld len) to an orthonormal basis:
 * each new column is the unit vector with the largest residual after two Gram-Schmidt passes. */
static void complete_basis(int len, int have, mcs_real *q)
{
    int c;
    int e;
    int j;
    int i;
    int pass;
    for (c = have; c < len; ++c) {
        int best = 0;
        mcs_real best_norm = -MCS_R(1.0);
        for (e = 0; e < len; ++e) { /* residual of e_e against columns 0..c-1 */
            mcs_real r2 = MCS_R(1.0);
            for (j = 0; j < c; ++j) {
                r2 -= q[e + (j * len)] * q[e + (j * len)];
            }
            if (r2 > best_norm) {
                best_norm = r2;
                best = e;
            }
        }
        for (i = 0; i < len; ++i) {
            q[i + (c * len)] = (i == best);
        }
        for (pass = 0; pass < 2; ++pass) {
            for (j = 0; j < c; ++j) {
                mcs_real s = MCS_R(0.0);
                for (i = 0; i < len; ++i) {
                    s += q[i + (j * len)] * q[i + (c * len)];
                }
                for (i = 0; i < len; ++i) {
                    q[i + (c * len)] -= s * q[i + (j * len)];
                }
            }
        }
        {
            const mcs_real nrm = column_norm(len, &q[c * len]);
            for (i = 0; i < len; ++i) {
                q[i + (c * len)] /= nrm;
            }
        }
    }
}

/* One-sided Jacobi SVD of b (tall: len x k, len >= k, ld len): b J = U~ S.
 * On return b holds U~ S, j (k x k) the rotations, s the column norms (sorted descending with
 * the columns of b and j). */
static void jacobi_tall(int len, int k, mcs_real *b, mcs_real *jm, mcs_real *s)
{
    const mcs_real tol = MCS_R(4.0) * MCS_REAL_EPS;
    int sweep;
    int p;
    int q;
    int i;
    for (q = 0; q < k; ++q) {
        for (p = 0; p < k; ++p) {
            jm[p + (q * k)] = (p == q);
        }
    }
    for (sweep = 0; sweep < 60; ++sweep) {
        int rotated = 0;
        for (p = 0; p < (k - 1); ++p) {
            for (q = p + 1; q < k; ++q) {
                mcs_real alpha = MCS_R(0.0);
                mcs_real beta = MCS_R(0.0);
                mcs_real gamma = MCS_R(0.0);
                mcs_real zeta;
                mcs_real t;
                mcs_real c;
                mcs_real sn;
                for (i = 0; i < len; ++i) {
                    alpha += b[i + (p * len)] * b[i + (p * len)];
                    beta += b[i + (q * len)] * b[i + (q * len)];
                    gamma += b[i + (p * len)] * b[i + (q * len)];
                }
                if ((gamma == MCS_R(0.0)) || (mcs_fabs(gamma) <= (tol * mcs_sqrt(alpha * beta)))) {
                    continue;
                }
                rotated = 1;
                zeta = (beta - alpha) / (MCS_R(2.0) * gamma);
                t = ((zeta >= MCS_R(0.0)) ? 1 : -1) /
                    (mcs_fabs(zeta) + mcs_sqrt(MCS_R(1.0) + (zeta * zeta)));
                c = MCS_R(1.0) / mcs_sqrt(MCS_R(1.0) + (t * t));
                sn = c * t;
                for (i = 0; i < len; ++i) {
                    const mcs_real bp = b[i + (p * len)];
                    const mcs_real bq = b[i + (q * len)];
                    b[i + (p * len)] = (c * bp) - (sn * bq);
                    b[i + (q * len)] = (sn * bp) + (c * bq);
                }
                for (i = 0; i < k; ++i) {
                    const mcs_real jp = jm[i + (p * k)];
                    const mcs_real jq = jm[i + (q * k)];
                    jm[i + (p * k)] = (c * jp) - (sn * jq);
                    jm[i + (q * k)] = (sn * jp) + (c * jq);
                }
            }
        }
        if (!rotated) {
            break;
        }
    }
    for (p = 0; p < k; ++p) {
        s[p] = column_norm(len, &b[p * len]);
    }
    for (p = 0; p < k; ++p) { /* selection sort, descending */
        int best = p;
        for (q = p + 1; q < k; ++q) {
            if (s[q] > s[best]) {
                best = q;
            }
        }
        if (best != p) {
            mcs_real t = s[p];
            s[p] = s[best];
            s[best] = t;
            for (i = 0; i < len; ++i) {
                t = b[i + (p * len)];
                b[i + (p * len)] = b[i + (best * len)];
                b[i + (best * len)] = t;
            }
            for (i = 0; i < k; ++i) {
                t = jm[i + (p * k)];
                jm[i + (p * k)] = jm[i + (best * k)];
                jm[i + (best * k)] = t;
            }
        }
    }
}

int mcs_la_svd(int rows, int cols, mcs_real *a, int lda, mcs_real *s, mcs_real *u, int ldu,
               mcs_real *vt, int ldvt, mcs_real *work, int lwork)
{
    /* Work on the tall matrix B = a (rows >= cols) or a^T (rows < cols): B J = U~ S. The tall
     * side's full basis is U~ normalized and completed; the short side's is J. */
    const int tall = (rows >= cols) ? rows : cols;
    const int k = (rows >= cols) ? cols : rows;
    mcs_real *b = work;
    mcs_real *jm = &work[tall * k];
    mcs_real *full = &work[(tall * k) + (k * k)];
    int i;
    int j;
    int rank = 0;
    if (lwork < ((tall * k) + (k * k) + (tall * tall))) {
        return -13;
    }
    for (j = 0; j < k; ++j) {
        for (i = 0; i < tall; ++i) {
            b[i + (j * tall)] = (rows >= cols) ? a[i + (j * lda)] : a[j + (i * lda)];
        }
    }
    jacobi_tall(tall, k, b, jm, s);
    for (j = 0; j < k; ++j) {
        const mcs_real floor = ((s[0] > MCS_R(0.0)) ? s[0] : MCS_R(1.0)) * tall * MCS_REAL_EPS;
        if (s[j] > floor) {
            for (i = 0; i < tall; ++i) {
                full[i + (j * tall)] = b[i + (j * tall)] / s[j];
            }
            ++rank;
        } else {
            break; /* sorted: the rest are (numerically) zero */
        }
    }
    complete_basis(tall, rank, full);
    if (rows >= cols) { /* a = full S J^T: u = full, vt = J^T */
        for (j = 0; j < rows; ++j) {
            for (i = 0; i < rows; ++i) {
                u[i + (j * ldu)] = full[i + (j * tall)];
            }
        }
        for (j = 0; j < cols; ++j) {
            for (i = 0; i < cols; ++i) {
                vt[i + (j * ldvt)] = jm[j + (i * k)];
            }
        }
    } else { /* a^T = full S J^T: a = J S full^T: u = J, vt = full^T */
        for (j = 0; j < rows; ++j) {
            for (i = 0; i < rows; ++i) {
                u[i + (j * ldu)] = jm[i + (j * k)];
            }
        }
        for (j = 0; j < cols; ++j) {
            for (i = 0; i < cols; ++i) {
                vt[i + (j * ldvt)] = full[j + (i * tall)];
            }
        }
    }
    return 0;
}
#endif /* MCS_LINALG_PORTABLE */
