/* mcs_sim_memory.h - the simulator's memory as compile-time constants (included by mcs_sim.h):
 * the features that options use beyond the core of every run (MCS_MEM_*), the one list of the
 * buffers each layout has (MCS_SIM_BUFFERS), and what it sums to: the block mcs_sim_assign
 * carves (MCS_SIM_MEMORY_REALS, per model <NAME>_SIM_MEMORY) and mcs_sim_init's workspace
 * (MCS_SIM_WORK_SIZE, MCS_SIM_IWORK_SIZE). runtime/src/sim/mcs_memory.c carves the same list, so
 * the sizes and the layout cannot disagree; a new buffer is one line of it (DEVELOPING.md). */
#ifndef MCS_SIM_MEMORY_H
#define MCS_SIM_MEMORY_H

#include "mcs_basis.h"
#include "mcs_config.h"

/* What a set of options needs beyond the core of every run (RK4, continuation none or off, no
 * dense output, no event detection, no locks). mcs_sim_memory_features(options) ORs them. */
#define MCS_MEM_DOPRI5 1U       /* method DOPRI5: seven stages and the error estimate */
#define MCS_MEM_EULER 2U        /* continuation euler: A_dot */
#define MCS_MEM_EXP 4U          /* continuation exp: A_dot and the exponential's work */
#define MCS_MEM_DENSE_OUTPUT 8U /* dense_output: mcs_sim_dense's q and qd, mcs_sim_multipliers */
#define MCS_MEM_EVENTS 16U      /* sing_tol > 0: singular-configuration search and its record */
#define MCS_MEM_LOCKS 32U       /* max_locks > 0: transitions */
#define MCS_MEM_DOP853 64U /* method DOP853: sixteen stages (twelve, the end and three dense) */
/* methods ROS34PW2 and ROS34PW2_FIXED: the chart Jacobian's workspace, the stage matrix's LU */
#define MCS_MEM_IMPLICIT 512U
#define MCS_MEM_ALL (127U | MCS_MEM_IMPLICIT)
/* MCS_VARIANT_COMPACT: the compact layout (less: no n x n Q, no r x r G, A and M as nonzeros, one
 * factorization for both frames); not part of MCS_MEM_ALL, which mcs_sim_init's room covers */
#define MCS_MEM_COMPACT 128U
/* MCS_VARIANT_BANDED: the banded layout (banded R and rotations, the KKT band; mcs_sim_assign only) */
#define MCS_MEM_BANDED 256U

/* The stage buffers an mcs_sim holds pointers to (DOP853's 16 when it is compiled in). */
#if MCS_WITH_DOP853
#define MCS_SIM_STAGES 16
#else
#define MCS_SIM_STAGES 7
#endif
#define MCS_SIM_MAX(a, b) (((a) > (b)) ? (a) : (b))
#define MCS_SIM_MIN(a, b) (((a) < (b)) ? (a) : (b))
#define MCS_SIM_K(n, m) MCS_BASIS_K(n, m)
/* The free directions the buffers hold: f (options.max_dof; 0 = n, or n - m for a banded layout,
 * whose rows keep their full rank m), or n when dense output, events or locks may meet more. */
#define MCS_SIM_F(n, m, f, feat) \
    ((((feat) & (MCS_MEM_DENSE_OUTPUT | MCS_MEM_EVENTS | MCS_MEM_LOCKS)) || ((f) > (n))) ? (n) \
     : ((f) >= 1)                                                                        ? (f) \
     : ((feat)&MCS_MEM_BANDED) ? MCS_SIM_MAX((n) - (m), 1) \
                               : (n))
/* max(min(n, m), 1): the largest rank, the reflectors of a factorization */
#define MCS_SIM_KMIN(n, m) MCS_SIM_MAX(MCS_SIM_MIN((n), (m)), 1)

/* The layouts: the full one (the dense variant's; mcs_sim_init's for every variant but the
 * banded one), the compact one and the banded one (their own in mcs_sim_assign's block). */
#define MCS_SIM_FULL_(feat) ((((feat) & (MCS_MEM_COMPACT | MCS_MEM_BANDED)) == 0U) ? 1 : 0)
#define MCS_SIM_COMPACT_(feat) ((((feat)&MCS_MEM_COMPACT) != 0U) ? 1 : 0)
#define MCS_SIM_BANDED_(feat) \
    ((MCS_WITH_BANDED && (((feat) & (MCS_MEM_COMPACT | MCS_MEM_BANDED)) == MCS_MEM_BANDED)) ? 1 : 0)
/* whether feat has one of the bits */
#define MCS_SIM_HAS_(feat, bits) ((((feat) & (bits)) != 0U) ? 1 : 0)
/* a part's buffers: in the layout when the features use it and the build has it (mcs_config.h's
 * MCS_WITH_*: a firmware build without it neither counts nor carves them) */
#define MCS_SIM_PREDICTOR_(feat) \
    (MCS_WITH_PREDICTORS && MCS_SIM_HAS_(feat, MCS_MEM_EULER | MCS_MEM_EXP))
#define MCS_SIM_EVENTS_(feat) (MCS_WITH_EVENTS && MCS_SIM_HAS_(feat, MCS_MEM_EVENTS))
#define MCS_SIM_LOCKS_(feat) (MCS_WITH_LOCKS && MCS_SIM_HAS_(feat, MCS_MEM_LOCKS))
#define MCS_SIM_IMPLICIT_(feat) (MCS_WITH_IMPLICIT && MCS_SIM_HAS_(feat, MCS_MEM_IMPLICIT))

/* clang-format off */
/* The buffers of a layout, in the order they are carved, each once:
 *   MCS_SIM_BUF(sel, member, on, count)    count reals for s->member when `on`, else NULL
 *   MCS_SIM_IBUF(sel, member, on, count)     count ints
 *   MCS_SIM_SHARE(sel, member, source, on) s->member is s->source (no memory of its own)
 *   MCS_SIM_FRAME(sel, fr, on, ...)         the frame s->fr with its factorization (MCS_SIM_FRAME_BUFFERS)
 *   MCS_SIM_STATE(sel, fr, on, ...)         the frame s->fr's state alone (MCS_SIM_STATE_BUFFERS)
 * for n coordinates, m rows (nc + max_locks; mr = max(m, 1)), K = max(n, m, 1), kmin = max(min(n,
 * m), 1), F free directions (MCS_SIM_F), the model's nonzeros an of A and mn of M, the band
 * structure's bw, nr and kb (the banded layout), `held` held initial velocities and the features
 * feat (MCS_MEM_*). mcs_memory.c expands it into the carver, MCS_SIM_MEMORY_REALS into a sum. */
#define MCS_SIM_BUFFERS(sel, n, m, mr, K, kmin, F, an, mn, bw, nr, kb, held, feat) \
    /* the full layout's frames: cur, prev and, with dense output or events, the probe */ \
    MCS_SIM_FRAME(sel, cur, MCS_SIM_FULL_(feat), n, mr, kmin, F) \
    MCS_SIM_FRAME(sel, prev, MCS_SIM_FULL_(feat), n, mr, kmin, F) \
    MCS_SIM_FRAME(sel, probe, MCS_SIM_FULL_(feat) && MCS_SIM_HAS_(feat, MCS_MEM_DENSE_OUTPUT | MCS_MEM_EVENTS), \
          n, mr, kmin, F) \
    /* A (the locks' rows too) and A by its nonzeros (the chart's), A_dot (the predictors' input, \
     * a lock's scratch), M, and G (the LU of A_S U; the multipliers' r x r matrix) */ \
    MCS_SIM_BUF(sel, w.A, MCS_SIM_FULL_(feat), (mr) * (n)) \
    MCS_SIM_BUF(sel, w.A_nz, MCS_SIM_FULL_(feat), MCS_SIM_MAX((an), 1)) \
    MCS_SIM_BUF(sel, w.A_dot, MCS_SIM_FULL_(feat) && (MCS_SIM_PREDICTOR_(feat) || MCS_SIM_LOCKS_(feat)), \
         (mr) * (n)) \
    MCS_SIM_BUF(sel, w.M, MCS_SIM_FULL_(feat), (n) * (n)) \
    MCS_SIM_BUF(sel, w.G, MCS_SIM_FULL_(feat), (kmin) * (kmin)) \
    /* the compact layout's frames: each its state and its own T (n x f), one factorization (R \
     * with the reflectors, tau, pivots) for both, no probe; A, A_dot and M as their nonzeros */ \
    MCS_SIM_STATE(sel, cur, MCS_SIM_COMPACT_(feat), n, F) \
    MCS_SIM_STATE(sel, prev, MCS_SIM_COMPACT_(feat), n, F) \
    MCS_SIM_BUF(sel, cur.R, MCS_SIM_COMPACT_(feat), (n) * (mr)) \
    MCS_SIM_BUF(sel, cur.tau, MCS_SIM_COMPACT_(feat), kmin) \
    MCS_SIM_IBUF(sel, cur.piv, MCS_SIM_COMPACT_(feat), mr) \
    MCS_SIM_SHARE(sel, prev.R, cur.R, MCS_SIM_COMPACT_(feat)) \
    MCS_SIM_SHARE(sel, prev.tau, cur.tau, MCS_SIM_COMPACT_(feat)) \
    MCS_SIM_SHARE(sel, prev.piv, cur.piv, MCS_SIM_COMPACT_(feat)) \
    MCS_SIM_BUF(sel, w.A, MCS_SIM_COMPACT_(feat), MCS_SIM_MAX((an), 1)) \
    MCS_SIM_BUF(sel, w.A_dot, MCS_SIM_COMPACT_(feat) && MCS_SIM_PREDICTOR_(feat), \
         MCS_SIM_MAX((an), 1)) \
    MCS_SIM_BUF(sel, w.M, MCS_SIM_COMPACT_(feat), MCS_SIM_MAX((mn), 1)) \
    /* the banded layout's frames: each its state, its own R (m x bw) and rotations (cosines then \
     * sines, in tau), no pivots (the structure's order), no probe; A, A_dot and M as their \
     * nonzeros; the chart's vectors by slot and coordinate, R's window, the KKT band */ \
    MCS_SIM_STATE(sel, cur, MCS_SIM_BANDED_(feat), n, F) \
    MCS_SIM_BUF(sel, cur.R, MCS_SIM_BANDED_(feat), (m) * (bw)) \
    MCS_SIM_BUF(sel, cur.tau, MCS_SIM_BANDED_(feat), 2 * (nr)) \
    MCS_SIM_STATE(sel, prev, MCS_SIM_BANDED_(feat), n, F) \
    MCS_SIM_BUF(sel, prev.R, MCS_SIM_BANDED_(feat), (m) * (bw)) \
    MCS_SIM_BUF(sel, prev.tau, MCS_SIM_BANDED_(feat), 2 * (nr)) \
    MCS_SIM_BUF(sel, w.A, MCS_SIM_BANDED_(feat), MCS_SIM_MAX((an), 1)) \
    MCS_SIM_BUF(sel, w.A_dot, MCS_SIM_BANDED_(feat) && MCS_SIM_PREDICTOR_(feat), \
         MCS_SIM_MAX((an), 1)) \
    MCS_SIM_BUF(sel, w.M, MCS_SIM_BANDED_(feat), MCS_SIM_MAX((mn), 1)) \
    MCS_SIM_BUF(sel, w.bz, MCS_SIM_BANDED_(feat), n) \
    MCS_SIM_BUF(sel, w.bx, MCS_SIM_BANDED_(feat), n) \
    MCS_SIM_BUF(sel, w.bq, MCS_SIM_BANDED_(feat), F) \
    MCS_SIM_BUF(sel, w.bwin, MCS_SIM_BANDED_(feat), bw) \
    MCS_SIM_BUF(sel, w.kkt, MCS_SIM_BANDED_(feat), ((n) + (m)) * ((3 * (kb)) + 1)) \
    MCS_SIM_BUF(sel, w.kkt_rhs, MCS_SIM_BANDED_(feat), (n) + (m)) \
    /* the chart and the Maggi-Kane ODE (every layout): Z (G^-1 A_S T, r x f; n scratch; H T of \
     * the assembly), Phi, M Phi, the reduced mass matrix, the basis before alignment and the \
     * predicted one; the rows' residuals, rates and gamma; the forces and the inputs' share */ \
    MCS_SIM_BUF(sel, w.Z, 1, (n) * (F)) \
    MCS_SIM_BUF(sel, w.Phi, 1, (n) * (F)) \
    MCS_SIM_BUF(sel, w.MPhi, 1, (n) * (F)) \
    MCS_SIM_BUF(sel, w.Mred, 1, (F) * (F)) \
    MCS_SIM_BUF(sel, w.That, 1, (n) * (F)) \
    MCS_SIM_BUF(sel, w.Tpred, 1, (n) * (F)) \
    MCS_SIM_BUF(sel, w.c, 1, mr) \
    MCS_SIM_BUF(sel, w.c_t, 1, mr) \
    MCS_SIM_BUF(sel, w.gamma, 1, mr) \
    MCS_SIM_BUF(sel, w.f, 1, n) \
    MCS_SIM_BUF(sel, w.f_u, 1, n) \
    MCS_SIM_BUF(sel, w.p, 1, K) \
    MCS_SIM_BUF(sel, w.xs, 1, n) \
    MCS_SIM_BUF(sel, w.vs, 1, n) \
    MCS_SIM_BUF(sel, w.tmp2, 1, K) \
    MCS_SIM_BUF(sel, w.rhs, 1, K) \
    MCS_SIM_BUF(sel, w.tmp, 1, K) \
    /* the integrators (runtime/src/sim/mcs_method_table.c: a method's stages and memory bit): \
     * the chart state at the step's ends and a stage, the error estimate (the adaptive methods, \
     * dense output), the stages (RK4 4, DOPRI5 7, DOP853 16), the end acceleration of the \
     * first-same-as-last methods, ROS34PW2's Jacobian workspace (MCS_SIM_LINEARIZE_WORK_SIZE \
     * without inputs; the compact layout's stiff part: K (n x n), two n-vectors, T^T M T and Y \
     * (f x 3f)), its stage matrix (f x f), a stage's right-hand side and sum (2 f each) */ \
    MCS_SIM_BUF(sel, w.y0, 1, 2 * (F)) \
    MCS_SIM_BUF(sel, w.y1, 1, 2 * (F)) \
    MCS_SIM_BUF(sel, w.ys, 1, 2 * (F)) \
    MCS_SIM_BUF(sel, w.yerr, \
         MCS_SIM_HAS_(feat, \
                      MCS_MEM_DOPRI5 | MCS_MEM_DOP853 | MCS_MEM_IMPLICIT | MCS_MEM_DENSE_OUTPUT), \
         2 * (F)) \
    MCS_SIM_BUF(sel, w.k[0], 1, 2 * (F)) \
    MCS_SIM_BUF(sel, w.k[1], 1, 2 * (F)) \
    MCS_SIM_BUF(sel, w.k[2], 1, 2 * (F)) \
    MCS_SIM_BUF(sel, w.k[3], 1, 2 * (F)) \
    MCS_SIM_BUF(sel, w.k[4], MCS_SIM_HAS_(feat, MCS_MEM_DOPRI5 | MCS_MEM_DOP853), 2 * (F)) \
    MCS_SIM_BUF(sel, w.k[5], MCS_SIM_HAS_(feat, MCS_MEM_DOPRI5 | MCS_MEM_DOP853), 2 * (F)) \
    MCS_SIM_BUF(sel, w.k[6], MCS_SIM_HAS_(feat, MCS_MEM_DOPRI5 | MCS_MEM_DOP853), 2 * (F)) \
    MCS_SIM_DOP853_STAGES_(sel, MCS_SIM_HAS_(feat, MCS_MEM_DOP853), F) \
    MCS_SIM_BUF(sel, w.a_end, MCS_SIM_HAS_(feat, MCS_MEM_DOPRI5 | MCS_MEM_DOP853), n) \
    MCS_SIM_BUF(sel, w.jac, MCS_SIM_IMPLICIT_(feat), \
         MCS_SIM_COMPACT_(feat) ? (((n) * (n)) + (2 * (n)) + (3 * (F) * (F))) \
                                : MCS_SIM_LINEARIZE_WORK_SIZE((n), (m), 0)) \
    MCS_SIM_BUF(sel, w.jac_E, MCS_SIM_IMPLICIT_(feat), (F) * (F)) \
    MCS_SIM_BUF(sel, w.jac_F, MCS_SIM_IMPLICIT_(feat), 2 * (F)) \
    MCS_SIM_BUF(sel, w.jac_g, MCS_SIM_IMPLICIT_(feat), 2 * (F)) \
    /* the event record: the configuration, |R_ii| there, the continued basis, the new motions */ \
    MCS_SIM_BUF(sel, event.x, MCS_SIM_EVENTS_(feat), n) \
    MCS_SIM_BUF(sel, event.rdiag, MCS_SIM_EVENTS_(feat), K) \
    MCS_SIM_BUF(sel, event.continued, MCS_SIM_EVENTS_(feat), (n) * (n)) \
    MCS_SIM_BUF(sel, event.motions, MCS_SIM_EVENTS_(feat), (n) * (n)) \
    /* the basis routines' work: the QR always, the alignment of up to f columns, the predictor's \
     * n^2 (euler) or 7 n^2 (exp), one after the other */ \
    MCS_SIM_BUF(sel, w.basis_work, 1, \
         MCS_SIM_MAX(MCS_SIM_MAX(MCS_BASIS_QR_WORK_SIZE(n, m), MCS_BASIS_ALIGN_WORK_SIZE(F)), \
                     (MCS_WITH_PREDICTORS && MCS_SIM_HAS_(feat, MCS_MEM_EXP)) \
                         ? (7 * (n) * (n)) \
                         : ((MCS_WITH_PREDICTORS && MCS_SIM_HAS_(feat, MCS_MEM_EULER)) \
                                ? ((n) * (n)) \
                                : 0))) \
    /* the chart map's split of x, the compact chart's x_k + T q, mcs_sim_start's [x0; v0], and \
     * the chart's last solution for the Newton's warm start (dp/dq, q, p) */ \
    MCS_SIM_BUF(sel, w.x_lo, 1, n) \
    MCS_SIM_BUF(sel, w.xq, 1, n) \
    MCS_SIM_BUF(sel, w.start, 1, 2 * (n)) \
    MCS_SIM_BUF(sel, w.dpdq, 1, (kmin) * (F)) \
    MCS_SIM_BUF(sel, w.q_last, 1, F) \
    MCS_SIM_BUF(sel, w.p_last, 1, kmin) \
    /* pivots: G's LU and the held velocities' QR (the compact layout: those alone), the KKT \
     * band's */ \
    MCS_SIM_IBUF(sel, w.ipiv, 1, MCS_SIM_COMPACT_(feat) ? MCS_SIM_MAX((held), 1) : (K)) \
    MCS_SIM_IBUF(sel, w.kkt_ipiv, MCS_SIM_BANDED_(feat), (n) + (m)) \
    /* the locks' bookkeeping (mcs_sim.h), their captured values, rows and group scratch */ \
    MCS_SIM_IBUF(sel, lock_key, MCS_SIM_LOCKS_(feat), K) \
    MCS_SIM_IBUF(sel, lock_group, MCS_SIM_LOCKS_(feat), K) \
    MCS_SIM_IBUF(sel, lock_rows, MCS_SIM_LOCKS_(feat), K) \
    MCS_SIM_IBUF(sel, lock_ref_at, MCS_SIM_LOCKS_(feat), K) \
    MCS_SIM_BUF(sel, lock_ref, MCS_SIM_LOCKS_(feat), 4 * (K)) \
    MCS_SIM_BUF(sel, lock_a, MCS_SIM_LOCKS_(feat), (K) * (n)) \
    MCS_SIM_BUF(sel, lock_g, MCS_SIM_LOCKS_(feat), (K) + 3) \
    /* a group lock's G, or the held initial velocities [H | h] (held x (n + 1)) */ \
    MCS_SIM_BUF(sel, lock_G, 1, \
         MCS_SIM_LOCKS_(feat) ? (((K) + 3) * (K)) \
                                           : (MCS_SIM_MAX((held), 1) * ((n) + 1))) \
    MCS_SIM_IBUF(sel, w.basis_iwork, 1, K) \
    MCS_SIM_IBUF(sel, w.jac_ipiv, MCS_SIM_IMPLICIT_(feat), n)

/* A frame's buffers, MCS_SIM_FBUF(sel, fr, member, count) and MCS_SIM_FIBUF(sel, fr, member, count) for fr->member: a full
 * layout's frame (x, x_lo, v, q (f), Q (n x n, T = its last f columns), R (n x m), tau, the
 * pivots), and a compact or banded layout's state of a frame (x, x_lo, v, q and its own T). */
#define MCS_SIM_FRAME_BUFFERS(sel, fr, n, mr, kmin, F) \
    MCS_SIM_FBUF(sel, fr, x, n) \
    MCS_SIM_FBUF(sel, fr, x_lo, n) \
    MCS_SIM_FBUF(sel, fr, v, n) \
    MCS_SIM_FBUF(sel, fr, q, F) \
    MCS_SIM_FBUF(sel, fr, Q, (n) * (n)) \
    MCS_SIM_FBUF(sel, fr, R, (n) * (mr)) \
    MCS_SIM_FBUF(sel, fr, tau, kmin) \
    MCS_SIM_FIBUF(sel, fr, piv, mr)
#define MCS_SIM_STATE_BUFFERS(sel, fr, n, F) \
    MCS_SIM_FBUF(sel, fr, x, n) \
    MCS_SIM_FBUF(sel, fr, x_lo, n) \
    MCS_SIM_FBUF(sel, fr, v, n) \
    MCS_SIM_FBUF(sel, fr, q, F) \
    MCS_SIM_FBUF(sel, fr, T, (n) * (F))
/* DOP853's stages after DOPRI5's seven (k[7..15]: twelve, the end and three dense) */
#if MCS_WITH_DOP853
#define MCS_SIM_DOP853_STAGES_(sel, on, F) \
    MCS_SIM_BUF(sel, w.k[7], on, 2 * (F)) \
    MCS_SIM_BUF(sel, w.k[8], on, 2 * (F)) \
    MCS_SIM_BUF(sel, w.k[9], on, 2 * (F)) \
    MCS_SIM_BUF(sel, w.k[10], on, 2 * (F)) \
    MCS_SIM_BUF(sel, w.k[11], on, 2 * (F)) \
    MCS_SIM_BUF(sel, w.k[12], on, 2 * (F)) \
    MCS_SIM_BUF(sel, w.k[13], on, 2 * (F)) \
    MCS_SIM_BUF(sel, w.k[14], on, 2 * (F)) \
    MCS_SIM_BUF(sel, w.k[15], on, 2 * (F))
#else
#define MCS_SIM_DOP853_STAGES_(sel, on, F)
#endif

/* clang-format on */

/* The list's entries as the size macros count them: the reals (sel MCS_SIM_REALS_OF_) or the ints
 * (MCS_SIM_INTS_OF_) of a layout. A carver gives these names a meaning of its own
 * (runtime/src/sim/mcs_memory.c), with its own values of sel. */
#define MCS_SIM_REALS_OF_ 0
#define MCS_SIM_INTS_OF_ 1
#define MCS_SIM_BUF(sel, member, on, count) +((((sel) == MCS_SIM_REALS_OF_) && (on)) ? (count) : 0)
#define MCS_SIM_IBUF(sel, member, on, count) +((((sel) == MCS_SIM_INTS_OF_) && (on)) ? (count) : 0)
#define MCS_SIM_SHARE(sel, member, source, on)
#define MCS_SIM_FBUF(sel, fr, member, count) +(((sel) == MCS_SIM_REALS_OF_) ? (count) : 0)
#define MCS_SIM_FIBUF(sel, fr, member, count) +(((sel) == MCS_SIM_INTS_OF_) ? (count) : 0)
#define MCS_SIM_FRAME(sel, fr, on, n, mr, kmin, F) \
    +((on) ? (0 MCS_SIM_FRAME_BUFFERS(sel, fr, n, mr, kmin, F)) : 0)
#define MCS_SIM_STATE(sel, fr, on, n, F) +((on) ? (0 MCS_SIM_STATE_BUFFERS(sel, fr, n, F)) : 0)
#define MCS_SIM_REALS_(n, m, an, mn, bw, nr, kb, F, held, feat) \
    (0 MCS_SIM_BUFFERS(MCS_SIM_REALS_OF_, n, m, MCS_SIM_MAX((m), 1), MCS_SIM_K(n, m), \
                       MCS_SIM_KMIN(n, m), F, an, mn, bw, nr, kb, held, feat))
#define MCS_SIM_INTS_(n, m, an, mn, bw, nr, kb, F, held, feat) \
    (0 MCS_SIM_BUFFERS(MCS_SIM_INTS_OF_, n, m, MCS_SIM_MAX((m), 1), MCS_SIM_K(n, m), \
                       MCS_SIM_KMIN(n, m), F, an, mn, bw, nr, kb, held, feat))

/* The block mcs_sim_assign carves, in mcs_real units (declare it `static mcs_real
 * mem[MCS_SIM_MEMORY_REALS(...)]`, so it is aligned for mcs_real), for a model with n
 * coordinates, m = nc + options.max_locks rows, a_nnz and m_nnz nonzeros in A and M (the compact
 * and banded layouts'; <NAME>_A_NNZ, <NAME>_M_NNZ), the band structure's bw, nrot and kb (the
 * banded layout's; <NAME>_BAND_WIDTH, _NROT, _KKT), `held` held initial velocities
 * (<NAME>_NHELD), options.max_dof = f (0: n) and the features the options use
 * (mcs_sim_memory_features): the reals, then the ints rounded up to whole reals. Equal to
 * mcs_sim_memory_size / sizeof(mcs_real). A generated header gives it per model:
 * <NAME>_SIM_MEMORY(max_dof, features). */
#define MCS_SIM_MEMORY_REALS(n, m, a_nnz, m_nnz, bw, nrot, kb, f, held, feat) \
    (MCS_SIM_REALS_(n, m, a_nnz, m_nnz, bw, nrot, kb, MCS_SIM_F(n, m, f, feat), held, feat) + \
     (((MCS_SIM_INTS_(n, m, a_nnz, m_nnz, bw, nrot, kb, MCS_SIM_F(n, m, f, feat), held, feat) * \
        sizeof(int)) + \
       sizeof(mcs_real) - 1) / \
      sizeof(mcs_real)))

/* Workspace (number of mcs_real / int entries) of mcs_sim_init for a model with n coordinates and
 * m rows (nc + max_locks): the full layout with every feature and every shape at its largest (A's
 * nonzeros n m, f = n, room for n held velocities). Equal to what mcs_sim_workspace_size counts. */
#define MCS_SIM_WORK_SIZE(n, m) \
    MCS_SIM_REALS_(n, m, (n) * (m), 0, 0, 0, 0, (n), MCS_SIM_K(n, m) + 2, MCS_MEM_ALL)
#define MCS_SIM_IWORK_SIZE(n, m) \
    MCS_SIM_INTS_(n, m, (n) * (m), 0, 0, 0, 0, (n), MCS_SIM_K(n, m) + 2, MCS_MEM_ALL)

/* The chart Jacobian's arrays in the caller's workspace (mcs_sim_linearize,
 * mcs_sim_step_jacobian, the implicit methods' W-matrix: runtime/src/sim/mcs_chart_jacobian.c
 * lays them out from this list, in this order: MCS_SIM_JBUF(sel, member, on, count)): n
 * coordinates, mr = max(m, 1) rows, nu inputs; `stepping`: with the step Jacobian's (the stages'
 * variations, the basis after the step). */
/* clang-format off */
#define MCS_SIM_JACOBIAN_BUFFERS(sel, n, mr, nu, stepping) \
    MCS_SIM_JBUF(sel, Phi, 1, (n) * (n)) \
    MCS_SIM_JBUF(sel, P, 1, (n) * (n)) \
    MCS_SIM_JBUF(sel, X, 1, (n) * (n)) \
    MCS_SIM_JBUF(sel, M, 1, (n) * (n)) \
    MCS_SIM_JBUF(sel, K, 1, (n) * (n)) \
    MCS_SIM_JBUF(sel, S, 1, (n) * (n)) \
    MCS_SIM_JBUF(sel, Dm, 1, (n) * (n)) \
    MCS_SIM_JBUF(sel, Mr, 1, (n) * (n)) \
    MCS_SIM_JBUF(sel, Ad, 1, (n) * (mr)) \
    MCS_SIM_JBUF(sel, R, 1, (n) * ((2 * (n)) + (nu))) \
    MCS_SIM_JBUF(sel, Y, 1, (n) * ((2 * (n)) + (nu))) \
    MCS_SIM_JBUF(sel, xs, 1, n) \
    MCS_SIM_JBUF(sel, vs, 1, n) \
    MCS_SIM_JBUF(sel, xdd, 1, n) \
    MCS_SIM_JBUF(sel, g, 1, n) \
    MCS_SIM_JBUF(sel, wbuf, 1, (3 * (n)) + (2 * (nu))) \
    MCS_SIM_JBUF(sel, dv, 1, n) \
    MCS_SIM_JBUF(sel, rf, 1, n) \
    MCS_SIM_JBUF(sel, tmp, 1, n) \
    MCS_SIM_JBUF(sel, rcs, 1, n) \
    MCS_SIM_JBUF(sel, lam, 1, mr) \
    MCS_SIM_JBUF(sel, gam, 1, mr) \
    MCS_SIM_JBUF(sel, rc, 1, mr) \
    MCS_SIM_JBUF(sel, yc, 1, 2 * (n)) \
    MCS_SIM_JBUF(sel, ydc, 1, 2 * (n)) \
    MCS_SIM_JBUF(sel, Jy, stepping, 2 * (n) * ((2 * (n)) + (nu))) \
    MCS_SIM_JBUF(sel, dY, stepping, 2 * (n) * ((2 * (n)) + (nu))) \
    MCS_SIM_JBUF(sel, dK, stepping, 2 * (n) * ((2 * (n)) + (nu))) \
    MCS_SIM_JBUF(sel, sum, stepping, 2 * (n) * ((2 * (n)) + (nu))) \
    MCS_SIM_JBUF(sel, kst, stepping, 8 * (n)) \
    MCS_SIM_JBUF(sel, Tto, stepping, (n) * (n))
/* clang-format on */
/* an array as the workspace macros count it (the carver: mcs_chart_jacobian.c's meaning) */
#define MCS_SIM_JBUF(sel, member, on, count) +((on) ? (count) : 0)
#define MCS_SIM_LINEARIZE_WORK_SIZE(n, m, nu) \
    (0 MCS_SIM_JACOBIAN_BUFFERS(0, n, MCS_SIM_MAX((m), 1), nu, 0))
#define MCS_SIM_STEP_JACOBIAN_WORK_SIZE(n, m, nu) \
    (0 MCS_SIM_JACOBIAN_BUFFERS(0, n, MCS_SIM_MAX((m), 1), nu, 1))

#endif /* MCS_SIM_MEMORY_H */
