"""The terms of a joint-coordinate model (model/joint_coordinates.py), through intermediates.

The bodies' coordinates x_b (n_b) are intermediates of the joint coordinates q (n), their
velocities xd_b = J_b qd with J_b = dx_b/dq, and their accelerations at qdd = 0 are
a_b = d(J_b qd)/dt. A body's Lagrange block gives, in its own coordinates, M_b and f_b (the same
derivation as body coordinates: terms._lagrange_local), and Lagrange's equations in q are the
body's projected (the tree holds the dropped rows identically, so their multipliers vanish from
J^T A^T):

    M(q) = sum_b J_b^T M_b J_b         f(q, qd) = sum_b J_b^T (f_b - M_b a_b) + J^T Q

The spatial bodies of a tree on the ground take the recursive algorithms instead, each body's
quantities in its own frame (a short expression of its parent's through the joint's rotation):
M by composite rigid bodies, f by the Newton-Euler pass with qdd = 0, the kinetic energy from
the bodies' velocities (Featherstone, Rigid Body Dynamics Algorithms, 2008, ch. 5-6).

Rows (cut joints, drivers, floating bodies' norms) are differentiated through the intermediates:
A = dc/dq (a row of tree bodies' poses from their Jacobian columns, GeometricRows),
gamma = -d(A qd + c_t)/dt at qdd = 0, A_dot = dA/dt; K_c = d(A^T lam)/dq, K_f = -df/dq and
D = -df/dqd as tangents (one column per unit direction). Every derivative is a short expression
of named ones (forward mode), so nothing grows with the depth of the tree but the number of
intermediates.
"""

from typing import TYPE_CHECKING

import sympy as sp

from ..model.bodies import G_matrix
from ..model.tree import free_rotations
from .groups import GroupTerms, derive_group
from .rows import RowTerms

if TYPE_CHECKING:  # for the hints only
    from ..model import Model


def row_terms_through(ci, inter, x, v, t, row=None) -> RowTerms:
    """The first derivatives of one row c_i(x, t) through the intermediates (rows.RowTerms,
    sparse over the coordinates it depends on; no Hessian: K_c is the tangent of A^T lam,
    joint_stiffness_tangent). row: its gradient {j: dc_i/dx_j} when known
    (GeometricRows.gradient), else taken here, coordinate by coordinate."""
    if row is None:
        row = {}
        for j, xj in enumerate(x):
            a = inter.diff(ci, xj)
            if a != 0:
                row[j] = a
    ct = inter.diff(ci, t)
    A_dot = {j: inter.dot(a) for j, a in row.items()}
    gamma = -(
        sum((A_dot[j] * v[j] for j in row), sp.Integer(0)) + (inter.dot(ct) if ct != 0 else 0)
    )
    return RowTerms(row, ct, A_dot, gamma, {})


class GeometricRows:
    """The gradients of rows of the world poses of spatial bodies whose path leads to the ground
    (a model may have floating bodies besides), from
    the Jacobian columns of the bodies' poses (_columns: each tree step's world axis and point,
    O(1) per column) instead of a derivative of every intermediate between the row and each
    coordinate (O(depth) per coordinate: a long loop's cut rows took minutes):

        dc/dq_k = dc/dr . Jv_k + (G(e) dc/de / 2) . Jw_k

    over the row's bodies, r and e a body's centre of mass and Euler parameters, Jv_k (world)
    and Jw_k (its own frame) their columns: e' = G(e)^T w' / 2 for the tree's unit e. A row of
    a floating body's subtree (whose Euler parameters are coordinates, not unit by
    construction) is left to row_terms_through."""

    def __init__(self, model: "Model"):
        self.model = model
        topo = model.topology
        self.enabled = model.kind == "spatial" and topo is not None and topo.frames
        self.body_of = {}
        if self.enabled:
            for body in topo.bodies:
                if body.kind == "spatial" and not floats(topo, body.name):
                    self.body_of.update((s, body) for s in body.q)
        self.columns = {}  # body -> _columns(model, body)

    def gradient(self, ci, tag):
        """{k: dc_i/dq_k}, or None where the geometric form does not apply."""
        if not self.enabled:
            return None
        inter = self.model.intermediates
        free = sp.sympify(ci).free_symbols
        if free & set(self.model.x):
            return None  # a floating body's own coordinates
        bodies = []
        for s in free:
            if s in inter and s not in self.body_of:
                return None
            body = self.body_of.get(s)
            if body is not None and body not in bodies:
                bodies.append(body)
        row = {}
        for body in sorted(bodies, key=lambda b: b.name):
            if body.name not in self.columns:
                self.columns[body.name] = _columns(self.model, body)
            dr = [sp.diff(ci, s) for s in body.q[:3]]
            de = sp.Matrix([sp.diff(ci, s) for s in body.q[3:7]])
            moment = G_matrix(body.q[3:7]) * de / 2
            F = [inter.name(f"dc({tag},{body.name})r{a}", dr[a]) for a in range(3)]
            N = [inter.name(f"dc({tag},{body.name})w{a}", moment[a]) for a in range(3)]
            for k, (Jv, Jw) in self.columns[body.name].items():
                entry = sum((F[a] * Jv[a] + N[a] * Jw[a] for a in range(3)), sp.Integer(0))
                row[k] = row.get(k, sp.Integer(0)) + entry
        return {k: a for k, a in row.items() if a != 0}


def joint_rows(model: "Model", geometric=None):
    """c, A, c_t, gamma and A_dot of the model's rows (terms.Derived's shapes)."""
    inter, x, v, t, n, m = model.intermediates, model.x, model.v, model.time, model.n, model.m
    c = sp.Matrix(m, 1, [con.expr for con in model.constraints])
    A, A_dot = sp.zeros(m, n), sp.zeros(m, n)
    c_t, gamma = sp.zeros(m, 1), sp.zeros(m, 1)
    geometric = geometric or GeometricRows(model)
    for i in range(m):
        gradient = geometric.gradient(c[i], f"c{i}")
        row = row_terms_through(c[i], inter, x, v, t, row=gradient)
        c_t[i], gamma[i] = row.c_t, row.gamma
        for j, a in row.A.items():
            A[i, j] = a
        for j, a in row.A_dot.items():
            A_dot[i, j] = a
    return c, A, c_t, gamma, A_dot


def joint_stiffness_tangent(model: "Model", A, lam):
    """(n x 1) K_c dq = d(A^T lam)/dq dq, for the direction dq (tangent_directions): the K_c
    kernel evaluates it along each unit direction (one column each). The Hessians of the cut
    rows as n^2 separate derivatives each reach through every joint of the loop (the 11-body
    anchor chain's took 100 s to generate); the tangent is one pass over A's intermediates.
    None for a model without rows."""
    if model.m == 0:
        return None
    inter, n = model.intermediates, model.n
    dq, _ = tangent_directions(n)
    direction = dict(zip(model.x, dq))
    force = [sum((lam[i] * A[i, j] for i in range(model.m)), sp.Integer(0)) for j in range(n)]
    return sp.Matrix(n, 1, [inter.tangent(g, direction, "ktan") for g in force])


def joint_dynamics(model: "Model", local):
    """M (n x n), f (n x 1) and the kinetic energy T. The spatial bodies of a tree on the
    ground: M by composite rigid bodies, f by the recursive Newton-Euler pass (both O(n) named
    intermediates). Under a floating body, a spatial body's block is taken in the
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
    # a spatial tree on the ground: f by the recursive Newton-Euler pass and M by composite
    # rigid bodies, in the bodies' own frames; under a floating body, each body's terms
    # through its Jacobian columns
    recursive = model.kind == "spatial" and not topo.tree.roots and not free_rotations(topo)
    if recursive:
        f += _recursive_newton_euler(model)
        _composite_rigid_bodies(model, M)
        velocities = _centre_velocities(model)
    for index, block in enumerate(model.blocks):
        body = topo.bodies[index] if index < nbodies else None
        # Newton-Euler holds on |e| = 1 only: a floating body's subtree, whose angular
        # velocities depend on its Euler parameters, takes Lagrange's equations (exact for
        # every state, as `check` samples them)
        if body is not None and body.kind == "spatial" and not floats(topo, body.name):
            if recursive:
                T_total += _kinetic(model, body, velocities[body.name])
            else:
                T_total += _newton_euler(model, body, M, f)
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


def floats(topo, body):
    """Whether a body's rotation is Euler parameters among the coordinates, its own or a joint's
    between it and the ground: a floating root or a body under one, a spherical tree joint's
    child or a body under one (else its path leads to the ground through joints of angles and
    lengths)."""
    while body in topo.tree.parent_joint:
        tj = topo.tree.parent_joint[body]
        if topo.joints[tj.joint].type == "spherical":
            return True
        body = tj.parent
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
            continue  # a fixed joint (or a spherical one: not under a floating body's)
        sign, axis, point, kind = topo.motions[j]
        k = x.index(topo.step_symbol[j])
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
    root = set(x) - set(topo.step_symbol.values())
    for k, (xk, vk) in enumerate(zip(x, v)):
        if xk in root:
            Jv = [inter.diff(r, vk) for r in body.qd[:3]]
            Jw = [inter.diff(w, vk) for w in frame.w]
            if any(e != 0 for e in Jv + Jw):
                cols[k] = (Jv, Jw)
    return cols


def _newton_euler(model, body, M, f):
    """Add a spatial body's terms to M and f through its Jacobian columns (a tree under a
    floating body: joint_dynamics); returns its kinetic energy."""
    inter = model.intermediates
    topo = model.topology
    frame = topo.frames[body.name]
    m, inertia = body.mass, sp.Matrix(body.inertia)
    w = sp.Matrix(frame.w)
    cols = _columns(model, body)
    acc = sp.Matrix([inter.dot(c) for c in body.qd[:3]])  # centre of mass, at qdd = 0
    alpha = sp.Matrix([inter.dot(c) for c in frame.w])
    g = sp.Matrix(topo.gravity) if topo.gravity is not None else sp.zeros(3, 1)
    force = [inter.name(f"F({body.name})[{a}]", e) for a, e in enumerate(m * (g - acc))]
    moment = -(inertia * alpha + w.cross(inertia * w))
    moment = [inter.name(f"N({body.name})[{a}]", e) for a, e in enumerate(moment)]
    for k, (Jv_k, Jw_k) in cols.items():
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
    return _kinetic(model, body, body.qd[:3])


def _kinetic(model, body, velocity):
    """A spatial body's kinetic energy m v.v / 2 + w.I w / 2 (w in its own frame, v its centre
    of mass's velocity (3) in any frame)."""
    w, vel = sp.Matrix(model.topology.frames[body.name].w), sp.Matrix(velocity)
    return body.mass * (vel.T * vel)[0] / 2 + (w.T * sp.Matrix(body.inertia) * w)[0] / 2


def _centre_velocities(model):
    """{body: (3) its centre of mass's velocity in its own frame} for a tree on the ground, one
    short step from its parent's: v_C = Q^T (v_P + w_P x offset (+ rate Q axis, prismatic))
    + w_C x hang (topology.links; the kinetic energy without the world poses)."""
    inter, topo = model.intermediates, model.topology
    zero = sp.zeros(3, 1)
    frames, out = topo.frames, {"ground": zero}
    for tj in topo.steps:  # parents before children
        link = topo.links[tj.joint]
        w_p = sp.Matrix(frames[tj.parent].w) if tj.parent != "ground" else zero
        v = out[tj.parent] + w_p.cross(link.offset)
        if link.kind == "prismatic":
            v += link.rate * (link.Q * link.axis)
        v = link.Q.T * v + sp.Matrix(frames[tj.child].w).cross(link.hang)
        out[tj.child] = sp.Matrix([inter.name(f"vc({tj.child})[{a}]", v[a]) for a in range(3)])
    return out


def _composite_rigid_bodies(model, M):
    """Add the spatial bodies of a tree on the ground to M (n x n) by the composite-rigid-body
    method, each body's quantities in its own frame about its centre of mass
    (topology.links: Q parent <- child, offset, hang, axis, rate = sign qd):

        joint j's motion vector in its child's frame: S_j = (w_j, v_j), w = sign axis,
            v = sign axis x hang (revolute: the centre of mass turns about the joint's
            point); w = 0, v = sign axis (prismatic)
        a subtree's inertia about its root's centre of mass, from the leaves: mass m, first
            moment h, rotational inertia J; a child k's moved in (d = offset_k + Q_k hang_k,
            h' = Q_k h_k, J' = Q_k J_k Q_k^T):
            m += m_k,  h += h' + m_k d,
            J += J' + m_k (|d|^2 1 - d d^T) + 2 (d.h') 1 - d h'^T - h' d^T
        the momentum of joint j's subtree moving with S_j: F = (J w + h x v, m v - h x w),
            carried to each ancestor's frame (f' = Q f, n' = Q n + d x f') and
            M[i, j] = S_i . F for j and every tree joint i between it and the ground

    O(n) named inertias and O(n depth) entries of six products each."""
    inter, x = model.intermediates, model.x
    topo = model.topology
    bodies = {b.name: b for b in topo.bodies}
    parent_joint = {st.child: st for st in topo.steps}
    children = {}
    for tj in topo.steps:
        children.setdefault(tj.parent, []).append(tj)

    def named(name, vec):
        return sp.Matrix([inter.name(f"{name}[{a}]", vec[a]) for a in range(3)])

    motion, where = {}, {}  # joint -> (k, w, v) in its child's frame; body -> its centre
    for tj in topo.steps:
        link = topo.links[tj.joint]
        d = link.offset + link.Q * link.hang  # the child's centre of mass, parent's frame
        where[tj.child] = named(f"d({tj.child})", d)
        if link.kind == "fix":
            continue
        a = link.sign * link.axis
        w, v = (a, a.cross(link.hang)) if link.kind == "revolute" else (sp.zeros(3, 1), a)
        motion[tj.joint] = (x.index(topo.step_symbol[tj.joint]), w, v)
    composite = {}  # body -> (m, h (3), J (3 x 3)) of its subtree, its frame and centre
    for tj in reversed(topo.steps):  # children before parents
        mass, J = mass_and_inertia(bodies, tj.child)
        h = sp.zeros(3, 1)
        for child in children.get(tj.child, ()):
            m_k, h_k, J_k = composite[child.child]
            Q, d = topo.links[child.joint].Q, where[child.child]
            h_r = Q * h_k
            J_r = Q * J_k * Q.T
            mass += m_k
            h += h_r + m_k * d
            dd, dh = (d.T * d)[0], (d.T * h_r)[0]
            J += J_r + m_k * (dd * sp.eye(3) - d * d.T) + 2 * dh * sp.eye(3) - d * h_r.T
            J -= h_r * d.T
        h = named(f"Ic({tj.child})h", h)
        J = _named_symmetric(inter, f"Ic({tj.child})J", J)
        composite[tj.child] = (mass, h, J)
        if tj.joint not in motion:
            continue
        k, w, v = motion[tj.joint]
        n_j = named(f"F({tj.joint})n", J * w + h.cross(v))
        f_j = named(f"F({tj.joint})f", mass * v - h.cross(w))
        below, joint = tj.child, tj.joint
        while True:
            if joint in motion:  # F is in `below`'s frame, about its centre of mass
                k_i, w_i, v_i = motion[joint]
                entry = (w_i.T * n_j)[0] + (v_i.T * f_j)[0]
                M[k_i, k] += entry
                if k_i != k:
                    M[k, k_i] += entry
            up = parent_joint[below]
            if up.parent == "ground":
                break
            Q, d = topo.links[up.joint].Q, where[below]
            f_j = named(f"F({tj.joint})@{up.parent}f", Q * f_j)
            n_j = named(f"F({tj.joint})@{up.parent}n", Q * n_j + d.cross(f_j))
            below = up.parent
            joint = parent_joint[below].joint


def _named_symmetric(inter, name, J):
    """A symmetric (3 x 3) as six intermediates (the upper triangle named, mirrored)."""
    out = sp.zeros(3, 3)
    for a in range(3):
        for b in range(a, 3):
            out[a, b] = out[b, a] = inter.name(f"{name}[{a}{b}]", J[a, b])
    return out


def _recursive_newton_euler(model):
    """(n x 1) f of the spatial bodies of a tree on the ground: minus the joint forces that
    hold the motion with qdd = 0 (gravity in), by one pass out and one back, each body's
    quantities in its own frame (topology.links: Q parent <- child, offset, hang, axis, rate;
    the ground's frame is the world's, its acceleration -g carries gravity to every body):

    out, body C after its parent P:
        w_C = Q^T w_P + rate axis          (a prismatic or fixed joint: Q^T w_P)
        alpha_C = Q^T alpha_P + w_C x (rate axis)      (= (Q^T w_P) x (rate axis))
        acc_J = acc_P + alpha_P x offset + w_P x (w_P x offset)
                (+ 2 w_P x (rate axis_P) for a prismatic joint: the point slides in P)
        acc_C = Q^T acc_J + alpha_C x hang + w_C x (w_C x hang)
        F_C = m acc_C,   N_C = I alpha_C + w_C x I w_C
    back, from the leaves, what a subtree needs (about its centre of mass, its frame):
        F*_C = F_C + sum Q_k F*_k,   N*_C = N_C + sum (Q_k N*_k + d_k x Q_k F*_k)
            with d_k = offset_k + Q_k hang_k (child k's centre of mass, C's frame)
        f_j = -sign axis . (N*_C + hang x F*_C)   (revolute),   -sign axis . F*_C   (prismatic)

    Every step is a short expression of constants, the joint's rotation and its parent's
    intermediates: no world rotation or position (those are other kernels' business)."""
    inter, x, n = model.intermediates, model.x, model.n
    topo = model.topology
    bodies = {b.name: b for b in topo.bodies}
    g = sp.Matrix(topo.gravity) if topo.gravity is not None else sp.zeros(3, 1)
    zero = sp.zeros(3, 1)
    state = {"ground": (zero, zero, -g)}  # w, alpha, acc of the centre of mass, own frame
    children = {}
    f = sp.zeros(n, 1)

    def named(name, vec):
        return sp.Matrix([inter.name(f"{name}[{a}]", vec[a]) for a in range(3)])

    for tj in topo.steps:  # parents before children
        link = topo.links[tj.joint]
        w_p, alpha_p, acc_p = state[tj.parent]
        Qt = link.Q.T
        acc_j = acc_p + alpha_p.cross(link.offset) + w_p.cross(w_p.cross(link.offset))
        w_c = sp.Matrix(topo.frames[tj.child].w)  # Q^T w_P + rate axis (joint_coordinates.py)
        alpha_c = Qt * alpha_p
        if link.kind == "revolute":
            alpha_c += w_c.cross(link.rate * link.axis)
        elif link.kind == "prismatic":
            acc_j += 2 * w_p.cross(link.rate * (link.Q * link.axis))
        alpha_c = named(f"alpha({tj.child})", alpha_c)
        acc_j = named(f"accJ({tj.child})", Qt * acc_j)
        hang = link.hang
        acc_c = named(f"acc({tj.child})", acc_j + alpha_c.cross(hang) + w_c.cross(w_c.cross(hang)))
        state[tj.child] = (w_c, alpha_c, acc_c)
        children.setdefault(tj.parent, []).append(tj)
    totals = {}
    for tj in reversed(topo.steps):  # children before parents
        w_c, alpha_c, acc_c = state[tj.child]
        mass, inertia = mass_and_inertia(bodies, tj.child)
        force = mass * acc_c
        moment = inertia * alpha_c + w_c.cross(inertia * w_c)
        for child in children.get(tj.child, ()):
            F_k, N_k = totals[child.child]
            link_k = topo.links[child.joint]
            QF = named(f"QF({child.child})", link_k.Q * F_k)
            d_k = link_k.offset + link_k.Q * link_k.hang  # child k's centre of mass
            force += QF
            moment += link_k.Q * N_k + d_k.cross(QF)
        totals[tj.child] = (named(f"Fsub({tj.child})", force), named(f"Nsub({tj.child})", moment))
        link = topo.links[tj.joint]
        if link.kind == "fix":
            continue
        F_s, N_s = totals[tj.child]
        if link.kind == "revolute":
            value = (link.axis.T * (N_s + link.hang.cross(F_s)))[0]
        else:
            value = (link.axis.T * F_s)[0]
        f[x.index(topo.step_symbol[tj.joint])] -= link.sign * value
    topo.newton_euler = (state, totals)  # the joints' wrenches build on them (wrenches.py)
    return f


def mass_and_inertia(bodies, name):
    """(mass, (3 x 3) central inertia) of a tree's frame: a body's, or 0 for the massless
    frames between a joint's steps (a universal joint's cross, a chain's slides:
    model/tree_steps.py)."""
    body = bodies.get(name)
    if body is None:
        return sp.Integer(0), sp.zeros(3, 3)
    return body.mass, sp.Matrix(body.inertia)


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


def joint_group(group, model: "Model", geometric=None) -> GroupTerms:
    """A row group's kernels (groups.derive_group) through the intermediates (geometric: a
    GeometricRows to share between the groups)."""
    inter, x, v, t = model.intermediates, model.x, model.v, model.time
    geometric = geometric or GeometricRows(model)
    count = iter(range(len(group.g)))

    def terms_of(gi):
        gi = sp.sympify(gi)
        gradient = geometric.gradient(gi, f"{group.name}.g{next(count)}")
        return row_terms_through(gi, inter, x, v, t, row=gradient)

    return derive_group(group, model, terms_of=terms_of)
