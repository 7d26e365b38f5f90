"""The terms of a joint-coordinate model (model/joint_coordinates.py), through intermediates.

The bodies' coordinates x_b (n_b) are intermediates of the joint coordinates q (n), their
velocities xd_b = J_b qd with J_b = dx_b/dq, and their accelerations at qdd = 0 are
a_b = d(J_b qd)/dt. A body's Lagrange block gives, in its own coordinates, M_b and f_b (the same
derivation as body coordinates: terms._lagrange_local), and Lagrange's equations in q are the
body's projected (the tree holds the dropped rows identically, so their multipliers vanish from
J^T A^T):

    M(q) = sum_b J_b^T M_b J_b         f(q, qd) = sum_b J_b^T (f_b - M_b a_b) + J^T Q

Rows (cut joints, drivers, floating bodies' norms) are differentiated through the intermediates:
A = dc/dq, gamma = -d(A qd + c_t)/dt at qdd = 0, A_dot = dA/dt, K_c = d(A^T lam)/dq; and
K_f = -df/dq, D = -df/dqd. Every derivative is a short expression of named ones (forward mode),
so nothing grows with the depth of the tree but the number of intermediates.
"""

from typing import TYPE_CHECKING

import sympy as sp

from ..model.exact import numbers_as_coefficients
from .groups import GroupTerms
from .rows import RowTerms

if TYPE_CHECKING:  # for the hints only
    from ..model import Model


def row_terms_through(ci, inter, x, v, t) -> RowTerms:
    """The derivatives of one row c_i(x, t) through the intermediates (rows.RowTerms, sparse
    over the coordinates it depends on)."""
    row = {}
    for j, xj in enumerate(x):
        a = inter.diff(ci, xj)
        if a != 0:
            row[j] = a
    ct = inter.diff(ci, t)
    A_dot, hessian = {}, {}
    for j, a in row.items():
        A_dot[j] = inter.dot(a)
        for k, xk in enumerate(x):
            h = inter.diff(a, xk)
            if h != 0:
                hessian[(j, k)] = h
    gamma = -(
        sum((A_dot[j] * v[j] for j in row), sp.Integer(0)) + (inter.dot(ct) if ct != 0 else 0)
    )
    return RowTerms(row, ct, A_dot, gamma, hessian)


def joint_rows(model: "Model", lam):
    """c, A, c_t, gamma, A_dot, K_c of the model's rows (terms.Derived's shapes)."""
    inter, x, v, t, n, m = model.intermediates, model.x, model.v, model.time, model.n, model.m
    c = sp.Matrix(m, 1, [con.expr for con in model.constraints])
    A, A_dot, K_c = sp.zeros(m, n), sp.zeros(m, n), sp.zeros(n, n)
    c_t, gamma = sp.zeros(m, 1), sp.zeros(m, 1)
    for i in range(m):
        row = row_terms_through(c[i], inter, x, v, t)
        c_t[i], gamma[i] = row.c_t, row.gamma
        for j, a in row.A.items():
            A[i, j] = a
        for j, a in row.A_dot.items():
            A_dot[i, j] = a
        for (j, k), h in row.hessian.items():
            K_c[j, k] += lam[i] * h
    return c, A, c_t, gamma, A_dot, K_c


def joint_dynamics(model: "Model", local):
    """M (n x n) and f (n x 1) from the bodies' Lagrange blocks projected onto q. local(T, V,
    xs, vs): a block's M_b, f_b over its own coordinates (terms._lagrange_local, cached)."""
    inter, x, v, n = model.intermediates, model.x, model.v, model.n
    topo = model.topology
    M, f = sp.zeros(n, n), sp.zeros(n, 1)
    body_x, body_v = topo.body_x, topo.body_v
    jac = {}

    def J(s, k):  # d(body coordinate s)/dq_k, memoized
        if (s, k) not in jac:
            jac[s, k] = inter.diff(s, x[k])
        return jac[s, k]

    for block in model.blocks:
        T, V = block[0], block[1]
        after = block[2] if len(block) > 2 else {}
        free = T.free_symbols | V.free_symbols
        used = [a for a, (s, r) in enumerate(zip(body_x, body_v)) if s in free or r in free]
        xs, vs = [body_x[a] for a in used], [body_v[a] for a in used]
        Mb, fb = local(T, V, xs, vs)
        Mb, fb = Mb.xreplace(after), fb.xreplace(after)
        nb = len(xs)
        cols = [[J(s, k) for s in xs] for k in range(n)]  # column k of J_b: (nb) per k
        accel = [inter.dot(r) for r in vs]  # a_b: d(xd_b)/dt at qdd = 0
        # M_b a_b and M_b J_b named once per block: each M entry is then nb products
        Ma = [sum((Mb[a, b] * accel[b] for b in range(nb) if accel[b] != 0), 0) for a in range(nb)]
        MJ = {}
        for k in range(n):
            if any(e != 0 for e in cols[k]):
                MJ[k] = [
                    inter.name(
                        f"MJ({xs[0]})[{a}][{k}]",
                        sum((Mb[a, b] * cols[k][b] for b in range(nb) if cols[k][b] != 0), 0),
                    )
                    for a in range(nb)
                ]
        for k in MJ:
            f[k] += sum((cols[k][a] * (fb[a] - Ma[a]) for a in range(nb) if cols[k][a] != 0), 0)
            for l in MJ:
                if l >= k:
                    entry = sum((cols[k][a] * MJ[l][a] for a in range(nb) if cols[k][a] != 0), 0)
                    M[k, l] += entry
                    if l != k:
                        M[l, k] += entry
    if topo.body_forces is not None:
        for i, s in enumerate(body_x):
            Q = topo.body_forces[i]
            if Q == 0:
                continue
            for k in range(n):
                Jk = J(s, k)
                if Jk != 0:
                    f[k] += Jk * Q
    return M, f


def joint_force_derivatives(model: "Model", f):
    """K_f = -df/dq and D = -df/dqd (n x n), through the intermediates."""
    inter, x, v, n = model.intermediates, model.x, model.v, model.n
    K_f, D = sp.zeros(n, n), sp.zeros(n, n)
    for i in range(n):
        for k in range(n):
            K_f[i, k] = -inter.diff(f[i], x[k])
            D[i, k] = -inter.diff(f[i], v[k])
    return K_f, D


def joint_coordinates_of(model: "Model"):
    """(2 nq x 1): each joint's free coordinate (a tree joint's is its coordinate, a cut joint's
    an expression of its bodies' poses), then its rate; None when no joint has one."""
    inter = model.intermediates
    coords = [j.coordinate for j in model.joints if j.coordinate is not None]
    if not coords:
        return None
    return sp.Matrix(coords + [inter.dot(q) for q in coords])


def joint_group(group, model: "Model") -> GroupTerms:
    """A row group's kernels (groups.derive_group) through the intermediates."""
    inter, x, v, t, n = model.intermediates, model.x, model.v, model.time, model.n
    g = group.g
    p = len(g)
    G, G_dot, gamma = sp.zeros(p, n), sp.zeros(p, n), sp.zeros(p, 1)
    for i, gi in enumerate(g):
        row = row_terms_through(sp.sympify(gi), inter, x, v, t)
        gamma[i] = row.gamma
        for j, a in row.A.items():
            G[i, j] = a
        for j, a in row.A_dot.items():
            G_dot[i, j] = a
    return GroupTerms(sp.Matrix(p, 1, g), G, gamma, G_dot)


def held_rows(model: "Model"):
    """(nh x (n + 1)) [H | h] of the held conditions, numbers as coefficients."""
    held = sp.zeros(len(model.held), model.n + 1)
    for i, (_, row, value) in enumerate(model.held):
        for j, a in enumerate(list(row) + [value]):
            held[i, j] = numbers_as_coefficients(sp.sympify(a))
    return held
