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

from .groups import GroupTerms, derive_group
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
    """M (n x n), f (n x 1) and the kinetic energy T. A spatial body's block is taken in the
    Newton-Euler form (its Jacobian columns from the joints between it and the ground, its
    accelerations at qdd = 0 through the intermediates):

        M += m Jv^T Jv + Jw^T I Jw,   f += Jv^T m (g - a) - Jw^T (I alpha + w x I w)

    with Jv (3 x n) of its centre of mass (world), Jw (3 x n) of its angular velocity w (its own
    frame), a and alpha their time derivatives at qdd = 0. A joint's rotor inertia adds I_r to
    its diagonal entry. Every other block (planar bodies, force elements) is projected from
    its own coordinates: M += J^T M_b J, f += J^T (f_b - M_b a_b). local(T, V, xs, vs): a
    block's M_b, f_b (terms._lagrange_local, cached)."""
    x, v, n = model.x, model.v, model.n
    topo = model.topology
    M, f = sp.zeros(n, n), sp.zeros(n, 1)
    T_total = sp.Integer(0)
    column = {s: k for k, s in enumerate(x)}
    nbodies = len(topo.bodies)
    # a spatial tree on the ground: f by the recursive Newton-Euler pass (O(n)); under a
    # floating body, each body's forces through its Jacobian columns
    recursive = model.kind == "spatial" and not topo.tree.roots
    if recursive:
        f += _recursive_newton_euler(model)
    for index, block in enumerate(model.blocks):
        body = topo.bodies[index] if index < nbodies else None
        # Newton-Euler holds on |e| = 1 only: a floating body's subtree, whose angular
        # velocities depend on its Euler parameters, takes Lagrange's equations (exact for
        # every state, as `check` samples them)
        if body is not None and body.kind == "spatial" and not _floats(topo, body.name):
            T_total += _newton_euler(model, body, M, None if recursive else f)
            continue
        rotor = topo.rotors.get(index - nbodies)
        if rotor is not None and rotor[0] in topo.joint_symbol:
            k = column[topo.joint_symbol[rotor[0]]]
            M[k, k] += rotor[1]
            T_total += rotor[1] * v[k] ** 2 / 2
            continue
        T_total += _projected_block(model, block, local, M, f)
    if model.forces is not None:  # the applied forces, projected (joint_coordinates.py)
        f += model.forces
    return M, f, T_total


def _floats(topo, body):
    """Whether a body is a floating root or under one (else its path leads to the ground)."""
    while body in topo.tree.parent_joint:
        body = topo.tree.parent_joint[body].parent
    return body != "ground"


def _columns(model, body):
    """{k: (Jv_k (3), Jw_k (3))}: the nonzero Jacobian columns of a spatial body's centre of
    mass (world) and angular velocity (its own frame)."""
    inter, x, v = model.intermediates, model.x, model.v
    topo = model.topology
    frame = topo.frames[body.name]
    cols = {}
    for j in frame.path:
        if j not in topo.motions:
            continue  # a fixed joint
        sign, axis, point, kind = topo.motions[j]
        k = x.index(topo.joint_symbol[j])
        a = sp.Matrix(axis) * sign
        if kind == "revolute":
            Jv = a.cross(sp.Matrix(frame.r) - sp.Matrix(point))
            Jw = frame.R.T * a
        else:
            Jv, Jw = a, sp.zeros(3, 1)
        name = f"J({body.name})[{k}]"
        cols[k] = (
            [inter.name(f"{name}v{a}", Jv[a]) for a in range(3)],
            [inter.name(f"{name}w{a}", Jw[a]) for a in range(3)],
        )
    root = set(x) - set(topo.joint_symbol.values())
    for k, (xk, vk) in enumerate(zip(x, v)):
        if xk in root:
            Jv = [inter.diff(r, vk) for r in body.qd[:3]]
            Jw = [inter.diff(w, vk) for w in frame.w]
            if any(e != 0 for e in Jv + Jw):
                cols[k] = (Jv, Jw)
    return cols


def _newton_euler(model, body, M, f):
    """Add a spatial body's terms to M and f (joint_dynamics); returns its kinetic energy."""
    inter = model.intermediates
    topo = model.topology
    frame = topo.frames[body.name]
    m, inertia = body.mass, sp.Matrix(body.inertia)
    w = sp.Matrix(frame.w)
    vel = sp.Matrix(body.qd[:3])
    Iw = inertia * w
    cols = _columns(model, body)
    if f is not None:  # f through the Jacobian columns (recursive_newton_euler: none given)
        acc = sp.Matrix([inter.dot(c) for c in body.qd[:3]])  # centre of mass, at qdd = 0
        alpha = sp.Matrix([inter.dot(c) for c in frame.w])
        g = sp.Matrix(topo.gravity) if topo.gravity is not None else sp.zeros(3, 1)
        force = [inter.name(f"F({body.name})[{a}]", e) for a, e in enumerate(m * (g - acc))]
        moment = -(inertia * alpha + w.cross(Iw))
        moment = [inter.name(f"N({body.name})[{a}]", e) for a, e in enumerate(moment)]
    for k, (Jv_k, Jw_k) in cols.items():
        if f is not None:
            f[k] += sum((Jv_k[a] * force[a] + Jw_k[a] * moment[a] for a in range(3)), 0)
        IJw_k = [
            inter.name(f"IJ({body.name})[{k}]{a}", e)
            for a, e in enumerate(inertia * sp.Matrix(Jw_k))
        ]
        for k2, (Jv_l, Jw_l) in cols.items():
            if k2 < k:
                continue
            entry = sum((m * Jv_k[a] * Jv_l[a] + IJw_k[a] * Jw_l[a] for a in range(3)), 0)
            M[k, k2] += entry
            if k2 != k:
                M[k2, k] += entry
    return m * (vel.T * vel)[0] / 2 + (w.T * Iw)[0] / 2


def _recursive_newton_euler(model):
    """(n x 1) f of the spatial bodies of a tree on the ground: minus the joint forces that
    hold the motion with qdd = 0 (gravity in), by one pass out and one back (world frame):

    out, body C after its parent P through joint j (axis a, point p, sign s, rate qd):
        w_C = w_P + s qd a                      (revolute; a prismatic joint keeps w_P)
        alpha_C = alpha_P + w_P x (s qd a)
        acc_C = acc_P + alpha_P x d_P + w_P x (w_P x d_P) + alpha_C x d_C + w_C x (w_C x d_C)
            with d_P = p - r_P, d_C = r_C - p (revolute); for a prismatic joint
        acc_C = acc_P + alpha_P x d + w_P x (w_P x d) + 2 w_P x (s qd a), d = r_C - r_P
        F_C = m (acc_C - g),  N_C = R (I alpha' + w' x I w') (' in C's frame: R^T w, R^T alpha)
    back, from the leaves: the forces and moments (about its centre of mass) a subtree needs,
        F*_C = F_C + sum F*_child,  N*_C = N_C + sum (N*_child + (r_child - r_C) x F*_child)
        f_j = -s a . (N*_C + (r_C - p) x F*_C)   (revolute),   -s a . F*_C   (prismatic)."""
    inter, x, v, n = model.intermediates, model.x, model.v, model.n
    topo = model.topology
    bodies = {b.name: b for b in topo.bodies}
    g = sp.Matrix(topo.gravity) if topo.gravity is not None else sp.zeros(3, 1)
    zero = sp.zeros(3, 1)
    state = {"ground": (zero, zero, zero, zero)}  # w, alpha, acc, r (world)
    children = {}
    f = sp.zeros(n, 1)

    def named(name, vec):
        return sp.Matrix([inter.name(f"{name}[{a}]", vec[a]) for a in range(3)])

    for tj in topo.tree.joints:  # parents before children
        body = bodies[tj.child]
        w_p, alpha_p, acc_p, r_p = state[tj.parent]
        r_c = sp.Matrix(body.q[:3])
        if tj.joint in topo.motions:
            sign, axis, point, kind = topo.motions[tj.joint]
            rate = sign * v[x.index(topo.joint_symbol[tj.joint])] * sp.Matrix(axis)
            point = sp.Matrix(point)
        else:  # fixed
            kind, rate, point = "fix", zero, r_c
        if kind == "revolute":
            w_c = named(f"ww({tj.child})", w_p + rate)
            alpha_c = named(f"alpha({tj.child})", alpha_p + w_p.cross(rate))
            d_p, d_c = point - r_p, r_c - point
            acc = acc_p + alpha_p.cross(d_p) + w_p.cross(w_p.cross(d_p))
            acc += alpha_c.cross(d_c) + w_c.cross(w_c.cross(d_c))
        else:
            w_c, alpha_c, d = w_p, alpha_p, r_c - r_p
            acc = acc_p + alpha_p.cross(d) + w_p.cross(w_p.cross(d)) + 2 * w_p.cross(rate)
        acc_c = named(f"acc({tj.child})", acc)
        state[tj.child] = (w_c, alpha_c, acc_c, r_c)
        children.setdefault(tj.parent, []).append(tj)
    totals = {}
    for tj in reversed(topo.tree.joints):  # children before parents
        body = bodies[tj.child]
        w_c, alpha_c, acc_c, r_c = state[tj.child]
        R = topo.frames[tj.child].R
        inertia = sp.Matrix(body.inertia)
        w_b, alpha_b = R.T * w_c, R.T * alpha_c
        force = body.mass * (acc_c - g)
        moment = R * (inertia * alpha_b + w_b.cross(inertia * w_b))
        for child in children.get(tj.child, ()):
            F_k, N_k = totals[child.child]
            r_k = sp.Matrix(bodies[child.child].q[:3])
            force += F_k
            moment += N_k + (r_k - r_c).cross(F_k)
        totals[tj.child] = (named(f"Fsub({tj.child})", force), named(f"Nsub({tj.child})", moment))
        if tj.joint not in topo.motions:
            continue
        sign, axis, point, kind = topo.motions[tj.joint]
        F_s, N_s = totals[tj.child]
        a = sp.Matrix(axis)
        if kind == "revolute":
            about_joint = N_s + (r_c - sp.Matrix(point)).cross(F_s)
            value = (a.T * about_joint)[0]
        else:
            value = (a.T * F_s)[0]
        f[x.index(topo.joint_symbol[tj.joint])] -= sign * value
    return f


def _projected_block(model, block, local, M, f):
    """Add a block in body coordinates to M and f through the pose Jacobians; returns its
    kinetic energy."""
    inter, x, n = model.intermediates, model.x, model.n
    topo = model.topology
    body_x, body_v = topo.body_x, topo.body_v
    T, V = block[0], block[1]
    after = block[2] if len(block) > 2 else {}
    free = T.free_symbols | V.free_symbols
    used = [a for a, (s, r) in enumerate(zip(body_x, body_v)) if s in free or r in free]
    if not used:  # a block of the joint coordinates themselves (a tree joint's spring)
        cols = [k for k, (s, r) in enumerate(zip(x, model.v)) if s in free or r in free]
        if cols:
            Mb, fb = local(T, V, [x[k] for k in cols], [model.v[k] for k in cols])
            for a, k in enumerate(cols):
                f[k] += fb[a]
                for b, k2 in enumerate(cols):
                    M[k, k2] += Mb[a, b]
        return T
    xs, vs = [body_x[a] for a in used], [body_v[a] for a in used]
    Mb, fb = local(T, V, xs, vs)
    Mb, fb = Mb.xreplace(after), fb.xreplace(after)
    nb = len(xs)
    cols = [[inter.diff(s, x[k]) for s in xs] for k in range(n)]  # column k of J_b (nb)
    accel = [inter.dot(r) for r in vs]  # a_b: d(xd_b)/dt at qdd = 0
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
        for k2 in MJ:
            if k2 >= k:
                entry = sum((cols[k][a] * MJ[k2][a] for a in range(nb) if cols[k][a] != 0), 0)
                M[k, k2] += entry
                if k2 != k:
                    M[k2, k] += entry
    return T.xreplace(after)


def tangent_directions(n):
    """The direction symbols of f's tangent: dq (n), dqd (n), as the K_f and D kernels name
    them (dq[i], dqd[i])."""
    return (
        [sp.Symbol(f"@dq{i}", real=True) for i in range(n)],
        [sp.Symbol(f"@dqd{i}", real=True) for i in range(n)],
    )


def joint_force_tangent(model: "Model", f):
    """(n x 1) -(df/dq dq + df/dqd dqd): K_f dq + D dqd, for directions dq, dqd
    (tangent_directions). The kernels K_f and D evaluate it along each unit direction (one
    column each): n times the cost of f at run time, against n^2 derivatives of f as
    separate expressions (n times the size of f, each)."""
    inter, x, v, n = model.intermediates, model.x, model.v, model.n
    dq, dqd = tangent_directions(n)
    direction = dict(zip(x, dq))
    direction.update(zip(v, dqd))
    return sp.Matrix(n, 1, [-inter.tangent(f[i], direction, "tan") for i in range(n)])


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
    inter, x, v, t = model.intermediates, model.x, model.v, model.time
    return derive_group(
        group, model, terms_of=lambda gi: row_terms_through(sp.sympify(gi), inter, x, v, t)
    )
