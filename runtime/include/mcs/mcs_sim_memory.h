/* mcs_sim_memory.h - the simulator's memory as compile-time constants (included by mcs_sim.h):
 * the features that options use beyond the core of every run (MCS_MEM_*), the block
 * mcs_sim_assign carves (MCS_SIM_MEMORY_REALS, per model <NAME>_SIM_MEMORY) and mcs_sim_init's
 * workspace (MCS_SIM_WORK_SIZE, MCS_SIM_IWORK_SIZE). runtime/src/mcs_memory.c lays the memory out
 * in the order these sum it; tests/runtime/test_memory.c checks them equal. */
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
#define MCS_SIM_ON(feat, bits, k) ((((feat) & (bits)) != 0U) ? (k) : 0)
/* max(min(n, m), 1): the largest rank, the reflectors of a factorization */
#define MCS_SIM_KMIN_(n, m) MCS_SIM_MAX(MCS_SIM_MIN((n), (m)), 1)
/* reals of one frame: x, x_lo, v, q, Q (n x n), R (n x m), tau */
#define MCS_SIM_FRAME_(n, m, F) \
    ((3 * (n)) + (F) + ((n) * (n)) + ((n)*MCS_SIM_MAX((m), 1)) + MCS_SIM_KMIN_(n, m))
/* the frames and the matrices A, A_nz, A_dot, M, G: a compact layout's two frames (x, x_lo, v,
 * q, T (n x f)) share one factorization (R, tau) and keep A, A_dot and M as their nonzeros; a
 * banded layout's each have their own R (m x bw) and rotations (2 nrot), and it adds its vectors
 * (2 n + f + bw) and the KKT band ((n + m) x (3 kb + 2): the LU and its right side) */
#define MCS_SIM_FRAMES_(n, m, an, mn, bw, nr, kb, F, feat) \
    (((feat)&MCS_MEM_COMPACT) \
         ? ((2 * ((3 * (n)) + (F) + ((n) * (F)))) + ((n)*MCS_SIM_MAX((m), 1)) + \
            MCS_SIM_KMIN_(n, m) + MCS_SIM_MAX((an), 1) + \
            MCS_SIM_ON(feat, MCS_MEM_EULER | MCS_MEM_EXP, MCS_SIM_MAX((an), 1)) + \
            MCS_SIM_MAX((mn), 1)) \
     : ((feat)&MCS_MEM_BANDED) \
         ? ((2 * ((3 * (n)) + (F) + ((n) * (F)) + ((m) * (bw)) + (2 * (nr)))) + \
            MCS_SIM_MAX((an), 1) + \
            MCS_SIM_ON(feat, MCS_MEM_EULER | MCS_MEM_EXP, MCS_SIM_MAX((an), 1)) + \
            MCS_SIM_MAX((mn), 1) + (2 * (n)) + (F) + (bw) + (((n) + (m)) * ((3 * (kb)) + 2))) \
         : (((2 + MCS_SIM_ON(feat, MCS_MEM_DENSE_OUTPUT | MCS_MEM_EVENTS, 1)) * \
             MCS_SIM_FRAME_(n, m, F)) + \
            ((1 + MCS_SIM_ON(feat, MCS_MEM_EULER | MCS_MEM_EXP | MCS_MEM_LOCKS, 1)) * \
             MCS_SIM_MAX((m), 1) * (n)) + \
            MCS_SIM_MAX((an), 1) + ((n) * (n)) + (MCS_SIM_KMIN_(n, m) * MCS_SIM_KMIN_(n, m))))
#define MCS_SIM_BASIS_(n, m, F, feat) \
    MCS_SIM_MAX( \
        MCS_SIM_MAX(MCS_BASIS_QR_WORK_SIZE(n, m), MCS_BASIS_ALIGN_WORK_SIZE(F)), \
        (((feat)&MCS_MEM_EXP) ? (7 * (n) * (n)) : MCS_SIM_ON(feat, MCS_MEM_EULER, (n) * (n))))
/* ROS34PW2's: the chart Jacobian's workspace (mcs_sim.h's MCS_SIM_LINEARIZE_WORK_SIZE without
 * inputs; the compact layout's stiff part: K (n x n), two n-vectors, T^T M T and Y (f x 3f)),
 * the stage matrix (f x f), a stage's right-hand side and sum (2 f each) */
#define MCS_SIM_IMPLICIT_REALS_(n, m, F, feat) \
    ((((feat)&MCS_MEM_COMPACT) ? (((n) * (n)) + (2 * (n)) + (3 * (F) * (F))) \
                               : MCS_SIM_LINEARIZE_WORK_SIZE((n), (m), 0)) + \
     ((F) * (F)) + (4 * (F)))
/* ... then the chart's buffers (Z, Phi, MPhi, Mred, That, Tpred; c, c_t, gamma, f, f_u, p, xs, vs,
 * tmp2, rhs, tmp), the stages, the event record, the basis work, x_lo, xq, start, the warm
 * start, the locks' and the held velocities' buffers (mcs_memory.c, in this order) */
#define MCS_SIM_REALS_(n, m, an, mn, bw, nr, kb, K, F, held, feat) \
    (MCS_SIM_FRAMES_(n, m, an, mn, bw, nr, kb, F, feat) + (5 * (n) * (F)) + ((F) * (F)) + \
     (3 * MCS_SIM_MAX((m), 1)) + (4 * (n)) + (4 * (K)) + (14 * (F)) + \
     MCS_SIM_ON(feat, MCS_MEM_DOPRI5 | MCS_MEM_DOP853 | MCS_MEM_DENSE_OUTPUT | MCS_MEM_IMPLICIT, \
                2 * (F)) + \
     MCS_SIM_ON(feat, MCS_MEM_DOPRI5 | MCS_MEM_DOP853, (6 * (F)) + (n)) + \
     MCS_SIM_ON(feat, MCS_MEM_DOP853, 18 * (F)) + \
     MCS_SIM_ON(feat, MCS_MEM_IMPLICIT, MCS_SIM_IMPLICIT_REALS_(n, m, F, feat)) + \
     MCS_SIM_ON(feat, MCS_MEM_EVENTS, (n) + (K) + (2 * (n) * (n))) + \
     MCS_SIM_BASIS_(n, m, F, feat) + (4 * (n)) + ((MCS_SIM_KMIN_(n, m) + 1) * (F)) + \
     MCS_SIM_KMIN_(n, m) + MCS_SIM_ON(feat, MCS_MEM_LOCKS, (4 * (K)) + ((K) * (n)) + (K) + 3) + \
     (((feat)&MCS_MEM_LOCKS) ? (((K) + 3) * (K)) : (MCS_SIM_MAX((held), 1) * ((n) + 1))))
/* ints: the pivots (one set for a compact layout's frames, none for a banded one's), G's LU or
 * the held velocities' QR, the locks' bookkeeping, the basis routines', the KKT band's pivots */
#define MCS_SIM_INTS_(n, m, K, held, feat) \
    ((((feat)&MCS_MEM_COMPACT) ? MCS_SIM_MAX((m), 1) \
      : ((feat)&MCS_MEM_BANDED) \
          ? 0 \
          : ((2 + MCS_SIM_ON(feat, MCS_MEM_DENSE_OUTPUT | MCS_MEM_EVENTS, 1)) * \
             MCS_SIM_MAX((m), 1))) + \
     (((feat)&MCS_MEM_COMPACT) ? MCS_SIM_MAX((held), 1) : (K)) + \
     MCS_SIM_ON(feat, MCS_MEM_LOCKS, 4 * (K)) + (K) + \
     MCS_SIM_ON(feat, MCS_MEM_BANDED, (n) + (m)) + MCS_SIM_ON(feat, MCS_MEM_IMPLICIT, (n)))

/* The block mcs_sim_assign carves, in mcs_real units (declare it `static mcs_real
 * mem[MCS_SIM_MEMORY_REALS(...)]`, so it is aligned for mcs_real), for a model with n
 * coordinates, m = nc + options.max_locks rows, a_nnz and m_nnz nonzeros in A and M (the compact
 * and banded layouts'; <NAME>_A_NNZ, <NAME>_M_NNZ), the band structure's bw, nrot and kb (the
 * banded layout's; <NAME>_BAND_WIDTH, _NROT, _KKT), `held` held initial velocities
 * (<NAME>_NHELD), options.max_dof = f (0: n) and the features the options use
 * (mcs_sim_memory_features). Equal to mcs_sim_memory_size / sizeof(mcs_real) (a test checks it).
 * A generated header gives it per model: <NAME>_SIM_MEMORY(max_dof, features). */
#define MCS_SIM_MEMORY_REALS(n, m, a_nnz, m_nnz, bw, nrot, kb, f, held, feat) \
    (MCS_SIM_REALS_(n, m, a_nnz, m_nnz, bw, nrot, kb, MCS_SIM_K(n, m), MCS_SIM_F(n, m, f, feat), \
                    held, feat) + \
     (((MCS_SIM_INTS_(n, m, MCS_SIM_K(n, m), held, feat) * sizeof(int)) + sizeof(mcs_real) - 1) / \
      sizeof(mcs_real)))

/* Workspace (number of mcs_real / int entries) of mcs_sim_init for a model with n coordinates and
 * m rows (nc + max_locks): every feature, every shape at its largest. They equal what
 * mcs_sim_workspace_size counts from the layout itself (a test checks it for many n, m). */
#define MCS_SIM_WORK_SIZE(n, m) \
    MCS_SIM_REALS_(n, m, (n) * (m), 0, 0, 0, 0, MCS_SIM_K(n, m), (n), MCS_SIM_K(n, m) + 2, \
                   MCS_MEM_ALL)
#define MCS_SIM_IWORK_SIZE(n, m) MCS_SIM_INTS_(n, m, MCS_SIM_K(n, m), 0, MCS_MEM_ALL)

#endif /* MCS_SIM_MEMORY_H */
