/* mcs_basis.c - QR tangent basis, predictors and polar alignment (SPEC §2, §3). */
#include "mcs/mcs_basis.h"

#include "linalg/mcs_linalg.h"

/* max(n, m, 1): the order of the square work matrices (MCS_BASIS_K in int, before the
 * arguments are checked) */
static int basis_order(int n, int m)
{
    int k = (n > m) ? n : m;
    if (k < 1) {
        k = 1;
    }
    return k;
}

int mcs_qr_rank(int rows, int kmin, const mcs_real *R, int ldr, mcs_real rank_tol)
{
    const mcs_real r11 = (kmin > 0) ? mcs_fabs(R[0]) : MCS_R(0.0);
    int r = 0;
    (void)rows;
    while ((r < kmin) && (r11 > MCS_R(0.0)) && (mcs_fabs(R[r + (r * ldr)]) > (rank_tol * r11))) {
        ++r;
    }
    return r;
}

mcs_status mcs_qr_basis(int n, int m, const mcs_real *A, int lda, mcs_real rank_tol, mcs_real *Q,
                        mcs_real *R, int *piv, int *rank, mcs_real *work)
{
    const int k = basis_order(n, m);
    const int kmin = (n < m) ? n : m;
    mcs_real *tau = work;        /* (k) */
    mcs_real *lawork = &work[k]; /* LAPACK work */
    const size_t lwork_size = MCS_LINALG_LWORK_QR((size_t)k);
    const int lwork = (int)lwork_size;
    int i;
    int j;
    int info;
    int r = 0;
    if ((n < 1) || (m < 0) || (n > MCS_MAX_DIM) || (m > MCS_MAX_DIM) ||
        ((m > 0) && (!A || !piv || (lda < m))) || !Q || !R || !rank || !work ||
        !((rank_tol >= MCS_R(0.0)) && (rank_tol < MCS_R(1.0)))) {
        return MCS_ERR_ARGUMENT;
    }
    /* R <- A^T (n x m) */
    for (j = 0; j < m; ++j) {
        for (i = 0; i < n; ++i) {
            R[i + (j * n)] = A[j + (i * lda)];
        }
    }
    if (mcs_vec_max_abs(n * m, R) < MCS_R(0.0)) {
        return MCS_ERR_NONFINITE; /* LAPACK would return a NaN basis without complaint */
    }
    info = mcs_la_qr_pivoted(n, m, R, n, piv, tau, lawork, lwork);
    if (info != 0) {
        return MCS_ERR_LINALG;
    }
    if ((mcs_vec_max_abs(n * m, R) < MCS_R(0.0)) || (mcs_vec_max_abs(kmin, tau) < MCS_R(0.0))) {
        return MCS_ERR_NONFINITE; /* entries near the range of mcs_real overflow in the norms */
    }
    r = mcs_qr_rank(n, kmin, R, n, rank_tol);
    /* Q <- reflectors, then the full orthogonal factor */
    for (j = 0; j < n; ++j) {
        for (i = 0; i < n; ++i) {
            Q[i + (j * n)] = ((j < kmin) && (i > j)) ? R[i + (j * n)] : MCS_R(0.0);
        }
    }
    info = mcs_la_qr_form_q(n, kmin, Q, n, tau, lawork, lwork);
    *rank = r;
    if (info != 0) {
        return MCS_ERR_LINALG;
    }
    return (mcs_vec_max_abs(n * n, Q) < MCS_R(0.0)) ? MCS_ERR_NONFINITE : MCS_OK;
}

#if MCS_WITH_PREDICTORS
static mcs_status predict_rotated(int n, int m, int r, const mcs_real *Q, const mcs_real *R,
                                  const int *piv, const mcs_real *A_dot,
                                  const mcs_sparse_rows *A_dot_rows, mcs_real h,
                                  mcs_continuation kind, mcs_real *Tpred, mcs_real *work,
                                  int *iwork);
#endif

/* mcs_predict_tangent and mcs_predict_tangent_rows: A_dot dense or by rows (the other NULL). */
static mcs_status predict(int n, int m, int r, const mcs_real *Q, const mcs_real *R, const int *piv,
                          const mcs_real *A_dot, const mcs_sparse_rows *A_dot_rows, mcs_real h,
                          mcs_continuation kind, mcs_real *Tpred, mcs_real *work, int *iwork)
{
    const int f = n - r;
    const mcs_real *T = &Q[r * n];
    int rotated = 0;                 /* euler or exp with constraints: the predictors proper */
    mcs_real a_dot_max = MCS_R(0.0); /* max |A_dot| (exp), negative when not finite */
    if ((kind != MCS_CONT_OFF) && (kind != MCS_CONT_NONE) && (r > 0)) {
        rotated = 1;
    }
    if ((n < 1) || (m < 0) || (r < 0) || (r > n) || (r > m) || !Q || !Tpred || !work || !iwork ||
        ((unsigned)kind > (unsigned)MCS_CONT_OFF) ||
        ((rotated != 0) && (!R || !piv || (!A_dot && !A_dot_rows)))) {
        return MCS_ERR_ARGUMENT;
    }
    if ((rotated != 0) && (A_dot_rows != NULL) &&
        ((A_dot_rows->nnz < 0) || !A_dot_rows->start || !A_dot_rows->at || !A_dot_rows->col ||
         ((A_dot_rows->nnz > 0) && !A_dot_rows->val))) {
        return MCS_ERR_ARGUMENT;
    }
    /* exp checks all of A_dot; euler's is not checked here: a NaN or Inf in a row it uses
     * (piv[0..r-1]) reaches every entry of T~ (each is a sum of products with it), which is
     * checked at the end */
    if ((rotated != 0) && (kind == MCS_CONT_EXP)) {
        if (A_dot_rows != NULL) {
            a_dot_max = mcs_vec_max_abs(A_dot_rows->nnz, A_dot_rows->val);
        } else {
            a_dot_max = mcs_vec_max_abs(m * n, A_dot);
        }
    }
    if ((rotated != 0) && (!((h - h) == MCS_R(0.0)) || (a_dot_max < MCS_R(0.0)))) {
        return MCS_ERR_NONFINITE;
    }
    if ((rotated == 0) || (f == 0)) {
        mcs_mat_copy(n, f, T, n, Tpred, n);
        return MCS_OK;
    }
#if MCS_WITH_PREDICTORS
    return predict_rotated(n, m, r, Q, R, piv, A_dot, A_dot_rows, h, kind, Tpred, work, iwork);
#else
    return MCS_ERR_UNSUPPORTED; /* left out of this build (mcs_config.h) */
#endif
}

mcs_status mcs_predict_tangent(int n, int m, int r, const mcs_real *Q, const mcs_real *R,
                               const int *piv, const mcs_real *A_dot, mcs_real h,
                               mcs_continuation kind, mcs_real *Tpred, mcs_real *work, int *iwork)
{
    return predict(n, m, r, Q, R, piv, A_dot, NULL, h, kind, Tpred, work, iwork);
}

mcs_status mcs_predict_tangent_rows(int n, int m, int r, const mcs_real *Q, const mcs_real *R,
                                    const int *piv, const mcs_sparse_rows *A_dot, mcs_real h,
                                    mcs_continuation kind, mcs_real *Tpred, mcs_real *work,
                                    int *iwork)
{
    return predict(n, m, r, Q, R, piv, NULL, A_dot, h, kind, Tpred, work, iwork);
}

#if MCS_WITH_PREDICTORS
/* expm_skew_action for a rotation that needs no scaling (|x| <= 1/2) and fewer constraints than
 * twice the free directions (r < 2 f): the terms' top blocks only. With x = [[x11, x12],
 * [x21, 0]], term k = x^k [0; I_f] / k! = [a_k; b_k] and p_k = a_k / (k + 1): b_(k+1) = x21 p_k, so
 * a_(k+1) = (x11 a_k + M p_(k-1)) / (k + 1) with M = x12 x21 (r x r), and the bottom block of
 * the sum is I + x21 (p_1 + p_2 + ...): 2 r^2 f multiply-adds a term instead of
 * r^2 f + 2 r f^2 (the 20-coordinate chain: 2000 against 3000), M and the bottom once. The sum
 * stops as expm_skew_action's, with |b_k| bounded by |x| |p_(k-1)|. work: 5 r f + r^2 reals. */
static void expm_action_top(int n, int f, const mcs_real *x, mcs_real norm, mcs_real *y,
                            mcs_real *work)
{
    const int r = n - f;
    const int rf = r * f;
    mcs_real *a_cur = work;           /* (r x f) a_k */
    mcs_real *a_next = &work[rf];     /* (r x f) a_(k+1) */
    mcs_real *p_prev = &work[2 * rf]; /* (r x f) p_(k-1) */
    mcs_real *p_cur = &work[3 * rf];  /* (r x f) p_k */
    mcs_real *w = &work[4 * rf];      /* (r x f) p_1 + p_2 + ... */
    mcs_real *M = &work[5 * rf];      /* (r x r) x12 x21 */
    mcs_real big = MCS_R(0.0);        /* max |a_k| */
    mcs_real big_p = MCS_R(0.0);      /* max |p_(k-1)| */
    int i;
    int j;
    int k;
    for (j = 0; j < f; ++j) { /* a_1 = x12 (term 0 = [0; I]), p_1 = a_1 / 2, y's top = a_1 */
        for (i = 0; i < r; ++i) {
            const mcs_real a = x[i + ((r + j) * n)];
            a_cur[i + (j * r)] = a;
            p_cur[i + (j * r)] = MCS_R(0.5) * a;
            w[i + (j * r)] = MCS_R(0.5) * a;
            y[i + (j * n)] = a;
            big = (mcs_fabs(a) > big) ? mcs_fabs(a) : big;
        }
    }
    mcs_mat_multiply(r, r, f, &x[r * n], n, &x[r], n, 0, M, r);
    for (k = 1; k < 30; ++k) {
        const mcs_real alpha = MCS_R(1.0) / ((mcs_real)k + MCS_R(1.0));
        const mcs_real beta = MCS_R(1.0) / ((mcs_real)k + MCS_R(2.0));
        const mcs_real bound = norm * ((big > (norm * big_p)) ? big : (norm * big_p));
        mcs_real *swap;
        if (!((alpha * bound) > (MCS_REAL_EPS / MCS_R(4.0)))) {
            break; /* the next term is below eps / 4 (or NaN: T~'s check reports it) */
        }
        mcs_mat_multiply(r, f, r, x, n, a_cur, r, 0, a_next, r);
        if (k >= 2) { /* p_0 = 0 */
            mcs_mat_multiply(r, f, r, M, r, p_prev, r, 1, a_next, r);
        }
        big_p = MCS_R(0.0);
        for (i = 0; i < rf; ++i) {
            big_p = (mcs_fabs(p_cur[i]) > big_p) ? mcs_fabs(p_cur[i]) : big_p;
        }
        big = MCS_R(0.0);
        for (j = 0; j < f; ++j) { /* a_(k+1), y's top, p_(k+1) into p_prev's place, w */
            for (i = 0; i < r; ++i) {
                const mcs_real a = alpha * a_next[i + (j * r)];
                const mcs_real p = beta * a;
                a_next[i + (j * r)] = a;
                y[i + (j * n)] += a;
                p_prev[i + (j * r)] = p;
                w[i + (j * r)] += p;
                big = (mcs_fabs(a) > big) ? mcs_fabs(a) : big;
            }
        }
        swap = a_cur;
        a_cur = a_next;
        a_next = swap;
        swap = p_cur;
        p_cur = p_prev;
        p_prev = swap;
    }
    for (j = 0; j < f; ++j) { /* y's bottom = I + x21 w */
        for (i = 0; i < f; ++i) {
            y[(r + i) + (j * n)] = (i == j) ? MCS_R(1.0) : MCS_R(0.0);
        }
    }
    mcs_mat_multiply(f, f, r, &x[r], n, w, r, 1, &y[r], n);
}

/* y (n x f) = exp(x) [0; I_f], the last f columns of the exponential of x (n x n, skew, its
 * (f x f) block 0: Omega's), by Taylor terms x^k [0; I_f] / k! after scaling x by 2^-s to norm
 * <= 1/2 (then 2^s applications; at most 2^6, else nonzero and the caller uses Padé). A term
 * [a; b] (r x f over f x f) gives the next as [X11 a + X12 b; X21 a] / k: r^2 f + 2 r f^2
 * multiply-adds, and the first, x [0; I_f] = [X12; 0], none. The sum stops when the next term's
 * bound, |x| |term| / (k + 1), is below eps / 4 (about 6 terms for a step's h Omega of norm
 * 0.01). work: 2 n f reals, 5 r f + r^2 on expm_action_top's path (the caller's: 4 n^2). */
static int expm_skew_action(int n, int f, const mcs_real *x, mcs_real *y, mcs_real *work)
{
    const int r = n - f;
    mcs_real *term = work;
    mcs_real *next = &work[n * f];
    const mcs_real norm = mcs_mat_norm1(n, x);
    mcs_real scale;
    int s = 0;
    int apps = 1;
    int app;
    int i;
    int j;
    int k;
    if (norm < MCS_R(0.0)) {
        return -1;
    }
    while ((s <= 6) && (mcs_ldexp(norm, -s) > MCS_R(0.5))) {
        ++s;
        apps *= 2;
    }
    if (s > 6) {
        return 1;
    }
    if ((s == 0) && (r < (2 * f))) {
        expm_action_top(n, f, x, norm, y, work);
        return 0;
    }
    scale = mcs_ldexp(MCS_R(1.0), -s);
    for (j = 0; j < f; ++j) {
        for (i = 0; i < n; ++i) {
            y[i + (j * n)] = (i == (r + j)) ? MCS_R(1.0) : MCS_R(0.0);
        }
    }
    for (app = 0; app < apps; ++app) {
        mcs_real big = MCS_R(0.0);
        if (app == 0) { /* term 1 = scale x [0; I_f] = scale [X12; 0] */
            for (j = 0; j < f; ++j) {
                for (i = 0; i < n; ++i) {
                    const mcs_real t = (i < r) ? (scale * x[i + ((r + j) * n)]) : MCS_R(0.0);
                    term[i + (j * n)] = t;
                    y[i + (j * n)] += t;
                    big = (mcs_fabs(t) > big) ? mcs_fabs(t) : big;
                }
            }
            k = 1;
        } else { /* term 0 = y */
            mcs_mat_copy(n, f, y, n, term, n);
            big = MCS_R(1.0);
            k = 0;
        }
        /* the next term while its bound scale |x| big / (k + 1) is above eps / 4 (30 at most;
         * a NaN ends the sum, and the caller's check of T~ reports it) */
        for (; k < 30; ++k) {
            const mcs_real alpha = scale / ((mcs_real)k + MCS_R(1.0));
            mcs_real *swap;
            if (!((alpha * norm * big) > (MCS_REAL_EPS / MCS_R(4.0)))) {
                break;
            }
            mcs_mat_multiply(r, f, r, x, n, term, n, 0, next, n);
            mcs_mat_multiply(r, f, f, &x[r * n], n, &term[r], n, 1, next, n);
            mcs_mat_multiply(f, f, r, &x[r], n, term, n, 0, &next[r], n);
            big = MCS_R(0.0);
            for (i = 0; i < (n * f); ++i) {
                const mcs_real t = alpha * next[i];
                next[i] = t;
                y[i] += t;
                big = (mcs_fabs(t) > big) ? mcs_fabs(t) : big;
            }
            swap = term;
            term = next;
            next = swap;
        }
    }
    return 0;
}

int mcs_predict_exp_action(int n, int r, const mcs_real *J, mcs_real h, mcs_real *omega,
                           mcs_real *E, mcs_real *scratch, int *iwork)
{
    const int f = n - r;
    int i;
    int j;
    /* Omega = [[Omega_ns, -Omega_s^T], [Omega_s, 0]] scaled by h */
    for (j = 0; j < n; ++j) {
        for (i = 0; i < n; ++i) {
            omega[i + (j * n)] = MCS_R(0.0);
        }
    }
    for (j = 0; j < r; ++j) {
        for (i = j + 1; i < r; ++i) { /* strictly lower part of J11 R^-1, made skew */
            omega[i + (j * n)] = h * J[i + (j * n)];
            omega[j + (i * n)] = -h * J[i + (j * n)];
        }
        for (i = r; i < n; ++i) {
            omega[i + (j * n)] = h * J[i + (j * n)];
            omega[j + (i * n)] = -h * J[i + (j * n)];
        }
    }
    /* E[:, r:] = exp(Omega) [0; I_f] (n x f), as the exponential's action on those columns (f n^2
     * per Taylor term, a handful of terms for a step's rotation; cheaper than Padé's whole n x n
     * exponential even at f = n/2: the 10-mass chain's RK4 step 50.0 -> 46.1 us), Padé for a
     * rotation too long for 2^6 scaled applications and for small n */
    {
        /* below n = 6 Padé's few products cost less than the terms (measured: n = 3, 2.9k
         * against 4.0k instructions) */
        const int st = (n >= 6) ? expm_skew_action(n, f, omega, E, scratch) : 1;
        if (st < 0) {
            return -1;
        }
        if (st > 0) {
            if (mcs_mat_expm(n, omega, E, scratch, iwork) != 0) {
                return -1;
            }
            mcs_mat_copy(n, f, &E[r * n], n, E, n);
        }
    }
    return 0;
}

/* mcs_predict_tangent's euler and exp predictors (r > 0, f > 0). */
static mcs_status predict_rotated(int n, int m, int r, const mcs_real *Q, const mcs_real *R,
                                  const int *piv, const mcs_real *A_dot,
                                  const mcs_sparse_rows *A_dot_rows, mcs_real h,
                                  mcs_continuation kind, mcs_real *Tpred, mcs_real *work,
                                  int *iwork)
{
    const int f = n - r;
    const mcs_real *U = Q;
    const mcs_real *T = &Q[r * n];
    mcs_real *J = work;                   /* (n x r) Q^T A_dot_S^T */
    mcs_real *room = &work[n * r];        /* (n f) scratch: euler's work is n^2 (J and this) */
    mcs_real *omega = &work[n * n];       /* (n x n) */
    mcs_real *E = &work[2 * n * n];       /* (n x n) */
    mcs_real *scratch = &work[3 * n * n]; /* 4 n*n for expm */
    /* euler needs only J's rows r.. (T^T A_dot_S^T: Omega_s), exp all of them */
    const int first = (kind == MCS_CONT_EULER) ? r : 0;
    int i;
    int j;
    int l;
    /* J = Q^T A_dot_S^T: column j is Q^T (row piv[j] of A_dot), over the row's nonzeros only
     * (gathered into nz_val / nz_col, or given by rows), each entry a dot product down a column
     * of Q (the same sums, term for term, as the dense product) */
    for (j = 0; j < r; ++j) {
        mcs_real *nz_val = room;
        int *nz_col = iwork;
        int nnz = 0;
        if (A_dot_rows != NULL) {
            const int end = A_dot_rows->start[piv[j] + 1];
            for (l = A_dot_rows->start[piv[j]]; l < end; ++l) {
                const int at = A_dot_rows->at[l];
                nz_val[nnz] = A_dot_rows->val[at];
                nz_col[nnz] = A_dot_rows->col[at];
                ++nnz;
            }
        } else {
            /* the row's start, loaded once (the stores to nz_col could alias piv) */
            const mcs_real *row = &A_dot[piv[j]];
            for (l = 0; l < n; ++l) {
                const mcs_real a = row[l * m];
                if (a != MCS_R(0.0)) {
                    nz_val[nnz] = a;
                    nz_col[nnz] = l;
                    ++nnz;
                }
            }
        }
        i = first;
#if MCS_SMALL_KERNELS == 0
        for (; (i + 3) < n; i += 4) { /* four columns of Q at a time: independent sums */
            const mcs_real *Qi = &Q[i * n];
            mcs_real sum[4] = {MCS_R(0.0), MCS_R(0.0), MCS_R(0.0), MCS_R(0.0)};
            for (l = 0; l < nnz; ++l) {
                const mcs_real a = nz_val[l];
                const int c = nz_col[l];
                sum[0] += Qi[c] * a;
                sum[1] += Qi[c + n] * a;
                sum[2] += Qi[c + (2 * n)] * a;
                sum[3] += Qi[c + (3 * n)] * a;
            }
            J[i + (j * n)] = sum[0];
            J[(i + 1) + (j * n)] = sum[1];
            J[(i + 2) + (j * n)] = sum[2];
            J[(i + 3) + (j * n)] = sum[3];
        }
#endif
        for (; i < n; ++i) {
            const mcs_real *Qi = &Q[i * n];
            mcs_real sum = MCS_R(0.0);
            for (l = 0; l < nnz; ++l) {
                sum += Qi[nz_col[l]] * nz_val[l];
            }
            J[i + (j * n)] = sum;
        }
    }
    /* J <- J R_ns^-1 (both blocks at once): rows r.. give Omega_s, rows ..r give Omega_L */
    mcs_mat_solve_right_upper(n - first, r, R, n, &J[first], n);
    if (kind == MCS_CONT_EULER) {
        /* T~ = T - h U Omega_s^T, with -h Omega_s^T (r x f) formed in the room after J */
        mcs_real *B = room;
        for (j = 0; j < f; ++j) {
            for (i = 0; i < r; ++i) {
                B[i + (j * r)] = -h * J[(r + j) + (i * n)];
            }
        }
        mcs_mat_copy(n, f, T, n, Tpred, n);
        mcs_mat_multiply(n, f, r, U, n, B, r, 1, Tpred, n);
        return (mcs_vec_max_abs(n * f, Tpred) < MCS_R(0.0)) ? MCS_ERR_NONFINITE : MCS_OK;
    }
    if (mcs_predict_exp_action(n, r, J, h, omega, E, scratch, iwork) != 0) {
        return MCS_ERR_LINALG;
    }
    /* T~ = (Q E)[:, r:] = Q E[:, r:] */
    mcs_mat_multiply(n, f, n, Q, n, E, n, 0, Tpred, n);
    /* an enormous h h|Omega| overflows the exponential: no prediction, not a NaN basis */
    return (mcs_vec_max_abs(n * f, Tpred) < MCS_R(0.0)) ? MCS_ERR_NONFINITE : MCS_OK;
}
#endif

mcs_status mcs_min_norm_multipliers(int n, int m, int r, const mcs_real *Q, const mcs_real *R,
                                    const int *piv, const mcs_real *g, mcs_real *lambda,
                                    mcs_real *N, mcs_real *y)
{
    int i;
    int j;
    int l;
    if ((n < 1) || (m < 0) || (r < 0) || (r > n) || (r > m) || !Q || !R ||
        ((m > 0) && (!piv || !lambda)) || !g || ((r > 0) && (!N || !y))) {
        return MCS_ERR_ARGUMENT;
    }
    if (mcs_vec_max_abs(n, g) < MCS_R(0.0)) {
        return MCS_ERR_NONFINITE;
    }
    for (i = 0; i < m; ++i) {
        lambda[i] = MCS_R(0.0);
    }
    if (r == 0) {
        return MCS_OK;
    }
    mcs_mat_gemm(1, 0, r, 1, n, 1, Q, n, g, n, 0, y, r); /* y = U^T g */
    for (j = 0; j < r; ++j) {
        for (i = 0; i < r; ++i) {
            mcs_real sum = MCS_R(0.0);
            for (l = ((i > j) ? i : j); l < m; ++l) { /* R is upper triangular */
                sum += R[i + (l * n)] * R[j + (l * n)];
            }
            N[i + (j * r)] = sum;
        }
    }
    if (mcs_la_cholesky(r, N, r) != 0) {
        return MCS_ERR_SINGULAR_CHART;
    }
    (void)mcs_la_cholesky_solve(r, 1, N, r, y, r);
    for (l = 0; l < m; ++l) {
        mcs_real sum = MCS_R(0.0);
        for (i = 0; (i < r) && (i <= l); ++i) {
            sum += R[i + (l * n)] * y[i];
        }
        lambda[piv[l]] = sum; /* lambda = P mu */
    }
    return (mcs_vec_max_abs(m, lambda) < MCS_R(0.0)) ? MCS_ERR_NONFINITE : MCS_OK;
}
