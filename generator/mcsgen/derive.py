"""Symbolic derivation of every quantity the runtime needs (SPEC §1).

All differentiation is done entry by entry on small expressions (one constraint row, one force
component, one Lagrangian momentum) so SymPy 1.11 stays fast; nothing is simplify()-ed.
"""

from dataclasses import dataclass

import sympy as sp

from .errors import ModelError


@dataclass
class Derived:
    """Everything the emitter prints. Shapes in brackets; all matrices are SymPy Matrices."""
    c: sp.Matrix        # (m x 1) constraints c(x, t)
    A: sp.Matrix        # (m x n) dc/dx
    c_t: sp.Matrix      # (m x 1) dc/dt
    gamma: sp.Matrix    # (m x 1) -(d(cdot)/dx v + d(cdot)/dt), so that A xdd = gamma
    A_dot: sp.Matrix    # (m x n) sum_j dA/dx_j v_j + dA/dt
    M: sp.Matrix        # (n x n) mass matrix
    f: sp.Matrix        # (n x 1) applied minus quadratic-velocity forces: M xdd + A^T lam = f
    K_c: sp.Matrix      # (n x n) d(A^T lam)/dx = sum_i lam_i Hess(c_i)
    K_f: sp.Matrix      # (n x n) -df/dx
    D: sp.Matrix        # (n x n) -df/dv
    kinetic: sp.Expr    # T(x, v, t): the model's, or 1/2 v^T M v
    potential: sp.Expr  # V(x, t) or None when the model defines no energy
    lam: list           # (m) multiplier symbols used in K_c


def derive(model):
    x, v, t = model.x, model.v, model.time
    n, m = model.n, model.m
    lam = [sp.Symbol(f"lam_{i}", real=True) for i in range(m)]

    c = sp.Matrix(m, 1, [con.expr for con in model.constraints])
    A = sp.zeros(m, n)
    c_t = sp.zeros(m, 1)
    gamma = sp.zeros(m, 1)
    A_dot = sp.zeros(m, n)
    K_c = sp.zeros(n, n)
    for i in range(m):
        ci = c[i]
        row = [sp.diff(ci, xj) for xj in x]
        ct = sp.diff(ci, t)
        for j in range(n):
            A[i, j] = row[j]
        c_t[i] = ct
        # cdot = A v + c_t; gamma = -(d(cdot)/dx v + d(cdot)/dt), term by term.
        cdot = sum((row[j] * v[j] for j in range(n)), sp.Integer(0)) + ct
        gamma[i] = -(sum((sp.diff(cdot, xk) * v[k] for k, xk in enumerate(x)), sp.Integer(0))
                     + sp.diff(cdot, t))
        for j in range(n):
            if row[j] == 0:
                continue
            hess = [sp.diff(row[j], xk) for xk in x]
            A_dot[i, j] = sum((hess[k] * v[k] for k in range(n)), sp.Integer(0)) + sp.diff(row[j], t)
            for k in range(n):
                if hess[k] != 0:
                    K_c[j, k] += lam[i] * hess[k]

    if model.kinetic is not None:
        M, f = _lagrange(model)
    else:
        M = model.mass_matrix
        f = model.forces
    K_f = sp.zeros(n, n)
    D = sp.zeros(n, n)
    for i in range(n):
        for j in range(n):
            K_f[i, j] = -sp.diff(f[i], x[j])
            D[i, j] = -sp.diff(f[i], v[j])
    if model.kinetic is not None:
        kinetic = model.kinetic
    else:
        kinetic = sp.Rational(1, 2) * sum((v[i] * M[i, j] * v[j] for i in range(n) for j in range(n)
                                           if M[i, j] != 0), sp.Integer(0))
    return Derived(c=c, A=A, c_t=c_t, gamma=gamma, A_dot=A_dot, M=M, f=f, K_c=K_c, K_f=K_f, D=D,
                   kinetic=kinetic, potential=model.potential, lam=lam)


def _lagrange(model):
    """M and f from T(x, v, t), V(x, t) and extra forces Q by Lagrange's equations.

    With p = dT/dv:  d/dt p - dT/dx + dV/dx = Q  and  d/dt p = M vdot + (dp/dx) v + dp/dt,
    so  M = d2T/dv2  and  f = Q - dV/dx + dT/dx - (dp/dx) v - dp/dt.
    """
    x, v, t, n = model.x, model.v, model.time, model.n
    T = model.kinetic
    momenta = [sp.diff(T, vi) for vi in v]
    M = sp.zeros(n, n)
    for i in range(n):
        for j in range(i, n):
            M[i, j] = M[j, i] = sp.diff(momenta[i], v[j])
    if any(M[i, j].has(*v) for i in range(n) for j in range(n)):
        raise ModelError(model.path, "dynamics.kinetic",
                         "kinetic energy must be at most quadratic in the velocities "
                         "(its second derivative in the velocities depends on them)")
    f = sp.zeros(n, 1)
    for i in range(n):
        fi = sp.diff(T, x[i]) - sp.diff(momenta[i], t)
        fi -= sum((sp.diff(momenta[i], xk) * v[k] for k, xk in enumerate(x)), sp.Integer(0))
        if model.potential is not None:
            fi -= sp.diff(model.potential, x[i])
        if model.forces is not None:
            fi += model.forces[i]
        f[i] = fi
    return M, f
