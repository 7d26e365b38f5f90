"""Placing a spatial tree joint's child in joint coordinates (joint_coordinates.py): the pose and
angular velocity of the child as short expressions of its parent's (named intermediates), and
the steps of the recursive algorithms each type of tree joint takes (derive/joint_terms.py):
one step a revolute, prismatic or fixed joint; a universal joint two turns through a massless
frame at its cross; cylindrical, planar and parallel joints chains of slides and a turn
(_place_step_chain); a spherical joint its relative rotation as Euler parameters (its child then
takes Lagrange's equations, joint_terms.floats).
"""

from dataclasses import dataclass

import sympy as sp

from .bodies import G_matrix, quat_conj, quat_mul, rotation_from_euler
from .exact import clean, numbers_as_coefficients
from .tree import TreeJoint


@dataclass
class Frame:
    """A spatial body's pose and angular velocity as the tree computes them (intermediates or
    numbers): R (3 x 3) world <- body, r (3) its centre of mass, w (3) its angular velocity in
    its own frame, and the tree joints between it and the ground (nearest the ground first)."""

    R: sp.Matrix
    r: list
    w: list
    path: list


@dataclass
class Link:
    """A spatial tree joint seen from its child body C (frames at the centres of mass): Q
    (3 x 3) parent <- child rotation, offset (3) the parent's centre of mass to the point the
    child hangs from (parent frame; a prismatic joint's moves along its axis), hang (3) that
    point to the child's centre of mass (child frame, constant), axis (3) the joint's axis in
    the child's frame (constant), and the joint's rate times its sign (0 for a fixed joint):
    the child turns (revolute) or slides (prismatic) at `rate` = sign qd about / along `axis`
    (sign -1 where the child is the joint's body2: its coordinate moves body1; a universal
    joint's two steps, sign -1 where the child is body1, place_universal_child)."""

    Q: sp.Matrix
    offset: sp.Matrix
    hang: sp.Matrix
    axis: sp.Matrix
    rate: sp.Expr
    sign: int
    kind: str


def tree_motion(g, tj, q):
    """(parent point, child point, axis in the parent's frame, signed motion) of a tree joint:
    q moves body1 relative to body2 by +q (the rows' sense), so a child that is body2 moves by
    -q; the motion is counted from the joint's `initial:` value. q None: a fixed joint."""
    child_is_body1 = tj.child == g.body1
    p_parent = g.point2 if child_is_body1 else g.point1
    p_child = g.point1 if child_is_body1 else g.point2
    u_parent = g.axis2 if child_is_body1 else g.axis1
    sign = 1 if child_is_body1 else -1
    move = sign * (q - g.initial) if q is not None else sp.Integer(0)
    return p_parent, p_child, u_parent, sign, move


def place_spatial_child(inter, topo, g, tj, bodies, q):
    """Define a spatial child body's rotation R_C = R_P Q (Q the joint's relative rotation:
    about the axis by the motion, times the initial relative rotation), its centre of mass,
    its angular velocity in its own frame w_C = Q^T w_P + qd u_C, and its Euler parameters
    (e_P times the relative quaternion: only the kernels that read them compute them)."""
    P = topo.frames[tj.parent]
    p_parent, p_child, u_parent, sign, move = tree_motion(g, tj, q)
    j = tj.joint
    rel0, R_rel0 = written_relative_rotation(bodies, tj)
    u = sp.Matrix(u_parent).applyfunc(snapped)
    offset = sp.Matrix(p_parent).applyfunc(zero_snapped)
    p_child = sp.Matrix(p_child).applyfunc(zero_snapped)
    w_joint = sp.zeros(3, 1)
    rel = rel0
    if g.type == "revolute":
        angle, R_base, rel_base = move, R_rel0, rel0
        initial = sp.sympify(g.initial)
        if initial != 0 and not initial.free_symbols:
            # turned from the joint's zero (sign q) instead of from its initial value (move):
            # the rotation at zero is the frames' own (URDF's and DH's: entries 0 and +-1, where
            # the one at an initial pi/4 is full of sqrt(2)/2s; the PUMA's C 80 KB against 60)
            angle = sign * q
            back = -sign * initial
            turn_back = axis_rotation(u, sp.cos(back), sp.sin(back))
            R_base = (turn_back * R_rel0).applyfunc(snapped)
            half_back = (sp.cos(back / 2),) + tuple(sp.sin(back / 2) * a for a in u)
            rel_base = tuple(snapped(c) for c in quat_mul(half_back, rel0))
        c_ = inter.name(f"cos({j})", sp.cos(angle))
        s_ = inter.name(f"sin({j})", sp.sin(angle))
        Q = (axis_rotation(u, c_, s_) * R_base).applyfunc(sp.expand)
        w_joint = sign * inter.v[inter.x.index(q)] * (R_base.T * u)
        half_c = inter.name(f"cos({j}/2)", sp.cos(angle / 2))
        half_s = inter.name(f"sin({j}/2)", sp.sin(angle / 2))
        rho = (half_c,) + tuple(half_s * a for a in u)
        rel = tuple(inter.name(f"rel({j})[{k}]", e) for k, e in enumerate(quat_mul(rho, rel_base)))
    else:
        Q = R_rel0
        if g.type == "prismatic":
            offset += move * u
    Q = Q.applyfunc(lambda c: inter.name(f"Q({j})", c))
    rate = sign * inter.v[inter.x.index(q)] if q is not None else sp.Integer(0)
    if q is None:
        topo.links[j] = Link(Q, offset, -sp.Matrix(p_child), sp.zeros(3, 1), rate, 1, "fix")
    else:
        axis = (R_base if g.type == "revolute" else R_rel0).T * u
        topo.links[j] = Link(Q, offset, -sp.Matrix(p_child), axis, rate, sign, g.type)
    _place_body(inter, topo, bodies, tj, P, Q, offset, p_child, rel, w_joint, j)
    if q is not None:
        point = sp.Matrix(P.r) + P.R * sp.Matrix(p_parent)
        _record_motion(inter, topo, j, sign, P.R * u, point, g.type)


def _place_body(inter, topo, bodies, tj, P, Q, offset, p_child, rel, w_joint, step):
    """Define a spatial child's pose and angular velocity from the frame P it hangs from by the
    tree step `step`: R_C = R_P Q, its centre of mass P.r + R_P offset - R_C p_child, its Euler
    parameters e_parent rel (rel relative to tj's parent body), w_C = Q^T w_P + w_joint (its
    own frame)."""
    child = bodies[tj.child]
    R = P.R * Q
    R = sp.Matrix(3, 3, [inter.name(f"R({tj.child})[{k}]", e) for k, e in enumerate(R)])
    r = sp.Matrix(P.r) + P.R * offset - R * sp.Matrix(p_child)
    for s, e in zip(child.q[:3], r):
        inter.define(s, e)
    for s, e in zip(child.q[3:7], quat_mul(P_quaternion(topo, tj.parent, bodies), rel)):
        inter.define(s, e)
    w = Q.T * sp.Matrix(P.w) + w_joint
    w = [inter.name(f"w({tj.child})[{a}]", w[a]) for a in range(3)]
    topo.frames[tj.child] = Frame(R, list(child.q[:3]), w, P.path + [step])


def written_relative_rotation(bodies, tj):
    """(quaternion (4), rotation (3 x 3)) of a tree joint's child relative to its parent at the
    pose as written (parent <- child; exact, the rotation's entries snapped: snapped)."""
    child, parent = bodies[tj.child], bodies.get(tj.parent)  # parent None: the ground
    e_p0 = parent.x0[3:7] if parent is not None else (1, 0, 0, 0)
    rel0 = tuple(
        numbers_as_coefficients(clean(c)) for c in quat_mul(quat_conj(e_p0), child.x0[3:7])
    )
    return rel0, rotation_from_euler(rel0).applyfunc(snapped)


def _record_motion(inter, topo, step, sign, axis, point, kind):
    """A tree step's axis and point in the world (named), for the Jacobian columns of the
    bodies beyond it (topology.motions)."""
    topo.motions[step] = (
        sign,
        [inter.name(f"axis({step})[{a}]", axis[a]) for a in range(3)],
        [inter.name(f"point({step})[{a}]", point[a]) for a in range(3)],
        kind,
    )


def place_universal_child(inter, topo, g, tj, bodies, angles):
    """A universal joint's child, through two revolute steps of the recursive algorithms: the
    first turns a massless frame at the joint's cross, `<joint>:cross` (origin at the joint's
    point, the parent's orientation turned), about the parent's axis; the second turns the
    child about its own axis. With R0 the bodies' initial relative rotation (body1 <- body2),

        R(body1 <- body2) = Rot(axis1, angle1) R0 Rot(axis2, angle2)

    (axis1 in body1's frame, axis2 in body2's; both angles 0 at the initial pose). The two
    angles are coordinates of every pose the joint allows: no singular configuration of the
    parametrization (a universal joint is a 2-torus). A child that is body1 turns by the
    angles' negatives, about axis2 first."""
    P = topo.frames[tj.parent]
    j, first, cross = tj.joint, f"{tj.joint}:1", f"{tj.joint}:cross"
    child_is_body1 = tj.child == g.body1
    sign = -1 if child_is_body1 else 1
    q_p, q_c = (angles[1], angles[0]) if child_is_body1 else angles
    p_parent, p_child = (g.point2, g.point1) if child_is_body1 else (g.point1, g.point2)
    u_p, u_c = (g.axis2, g.axis1) if child_is_body1 else (g.axis1, g.axis2)
    u_p, u_c = sp.Matrix(u_p).applyfunc(snapped), sp.Matrix(u_c).applyfunc(snapped)
    rel0, R0 = written_relative_rotation(bodies, tj)
    u_x = (R0 * u_c).applyfunc(snapped)  # the child's axis in the cross's frame
    offset = sp.Matrix(p_parent).applyfunc(zero_snapped)
    hang = -sp.Matrix(p_child).applyfunc(zero_snapped)
    zero = sp.zeros(3, 1)

    def turn(step, q, u):  # (Q, half-angle quaternion, rate) of a turn by sign q about u
        c_ = inter.name(f"cos({step})", sp.cos(sign * q))
        s_ = inter.name(f"sin({step})", sp.sin(sign * q))
        half = (inter.name(f"cos({step}/2)", sp.cos(sign * q / 2)),)
        half += tuple(inter.name(f"sin({step}/2)", sp.sin(sign * q / 2)) * a for a in u)
        return axis_rotation(u, c_, s_), half, sign * inter.v[inter.x.index(q)]

    # the cross: turned about the parent's axis, at the joint's point
    Q1, rho1, rate1 = turn(first, q_p, u_p)
    Q1 = Q1.applyfunc(sp.expand).applyfunc(lambda c: inter.name(f"Q({first})", c))
    topo.links[first] = Link(Q1, offset, zero, u_p, rate1, sign, "revolute")
    R_x = P.R * Q1
    R_x = sp.Matrix(3, 3, [inter.name(f"R({cross})[{k}]", e) for k, e in enumerate(R_x)])
    r_x = sp.Matrix(P.r) + P.R * offset
    r_x = [inter.name(f"r({cross})[{a}]", r_x[a]) for a in range(3)]
    w_x = Q1.T * sp.Matrix(P.w) + rate1 * u_p
    w_x = [inter.name(f"w({cross})[{a}]", w_x[a]) for a in range(3)]
    topo.frames[cross] = Frame(R_x, r_x, w_x, P.path + [first])
    _record_motion(inter, topo, first, sign, P.R * u_p, r_x, "revolute")
    # the child: turned about its own axis (u_x in the cross's frame, u_c in its own)
    Q2, rho2, rate2 = turn(j, q_c, u_x)
    Q2 = (Q2 * R0).applyfunc(sp.expand).applyfunc(lambda c: inter.name(f"Q({j})", c))
    topo.links[j] = Link(Q2, zero, hang, u_c, rate2, sign, "revolute")
    rel = quat_mul(quat_mul(rho1, rho2), rel0)
    rel = tuple(inter.name(f"rel({j})[{k}]", e) for k, e in enumerate(rel))
    frame = topo.frames[cross]
    _place_body(inter, topo, bodies, tj, frame, Q2, zero, -hang, rel, rate2 * u_c, j)
    _record_motion(inter, topo, j, sign, R_x * u_x, r_x, "revolute")
    topo.steps += [TreeJoint(first, tj.parent, cross), TreeJoint(j, cross, tj.child)]
    topo.step_symbol.update({first: q_p, j: q_c})


def place_spherical_child(inter, topo, g, tj, bodies, e):
    """A spherical joint's child, turned by the joint's Euler parameters e (4 coordinates, unit by
    their norm row, (1, 0, 0, 0) at the initial pose): with R0 the bodies' initial relative
    rotation (tree parent <- child),

        R(parent <- child) = R0 R(e),   e_child = e_parent rel0 e,
        w_child = Q^T w_parent + 2 G(e) e'

    whichever of the two is body1. Like a floating body's, its Euler parameters are coordinates,
    a rotation only on |e| = 1: the child and every body below it take Lagrange's equations in
    their body coordinates (derive/joint_terms.py, floats), exact at every state `check`
    samples, and their rows the generic gradients. Four parameters and a row, not three angles:
    every rotation has one (no singular configuration of the parametrization), as for bodies."""
    P = topo.frames[tj.parent]
    j = tj.joint
    child_is_body1 = tj.child == g.body1
    p_parent, p_child = (g.point2, g.point1) if child_is_body1 else (g.point1, g.point2)
    rel0, R0 = written_relative_rotation(bodies, tj)
    offset = sp.Matrix(p_parent).applyfunc(zero_snapped)
    p_child = sp.Matrix(p_child).applyfunc(zero_snapped)
    Q = (R0 * rotation_from_euler(e)).applyfunc(sp.expand)
    Q = Q.applyfunc(lambda c: inter.name(f"Q({j})", c))
    rel = tuple(inter.name(f"rel({j})[{k}]", c) for k, c in enumerate(quat_mul(rel0, e)))
    rates = sp.Matrix([inter.v[inter.x.index(c)] for c in e])
    w_joint = 2 * G_matrix(e) * rates
    _place_body(inter, topo, bodies, tj, P, Q, offset, p_child, rel, w_joint, j)


def place_cylindrical_child(inter, topo, g, tj, bodies, pair):
    """A cylindrical joint's child: a slide of a massless frame along the axis by the
    translation (F1's origin along the axis in F2's basis, as a prismatic joint's coordinate:
    the points' offset at the pose as written; the type takes no `initial:`), then a turn of
    the child about the axis by the angle (0 there); the two commute (the same axis), and a
    child that is body2 moves by their negatives (tree_motion). With R0 the bodies' initial
    relative rotation (parent <- child):

        R(parent <- child) = Rot(u, sign angle) R0,   point = parent point + sign translation u"""
    translation, angle = pair
    p_parent, p_child, u_p, sign, _ = tree_motion(g, tj, translation)
    u_p = sp.Matrix(u_p).applyfunc(snapped)
    base = sp.Matrix(p_parent).applyfunc(zero_snapped)
    steps = [("prismatic", translation, sign, u_p, base), ("revolute", angle, sign, u_p, None)]
    _place_step_chain(inter, topo, tj, bodies, steps, p_child)


def place_plane_child(inter, topo, g, tj, bodies, coords):
    """A spatial planar or parallel joint's child (coords: the translations, then the angle):
    F1's origin in F2's basis at (0, y, z) (planar) or (x, y, z) (parallel), as at the pose as
    written, body1 turned about the joint's axis by the angle (0 there). Body1 as the child:
    slides along F2's axes (fixed in the parent, body2), then the turn; body2 as the child:
    the inverse, the turn by -angle about F1's axis first, then the slides back along F2's axes
    (fixed in the child)."""
    *shifts, angle = coords
    _, R0 = written_relative_rotation(bodies, tj)
    directions = [sp.Matrix(d).applyfunc(snapped) for d in translation_axes(g)]
    if tj.child == g.body1:  # the parent is body2
        base = sp.Matrix(g.point2).applyfunc(zero_snapped)
        steps = [("prismatic", q, 1, d, None) for q, d in zip(shifts, directions)]
        steps[0] = steps[0][:4] + (base,)
        steps.append(("revolute", angle, 1, sp.Matrix(g.axis2).applyfunc(snapped), None))
        p_child = g.point1
    else:
        base = sp.Matrix(g.point1).applyfunc(zero_snapped)
        steps = [("revolute", angle, -1, sp.Matrix(g.axis1).applyfunc(snapped), base)]
        steps += [("prismatic", q, -1, (R0 * d).applyfunc(snapped), None)
                  for q, d in zip(shifts, directions)]  # fmt: skip
        p_child = g.point2
    _place_step_chain(inter, topo, tj, bodies, steps, p_child)


def translation_axes(g):
    """The directions (body2's frame) a planar or parallel joint's translations are counted
    along: F2's y and z axes, and before them its x axis (the joint's) for a parallel joint."""
    return ([g.axis2] if g.type == "parallel" else []) + list(g.plane2)


def _place_step_chain(inter, topo, tj, bodies, steps, p_child):
    """A tree joint of several coordinates as a chain of one-coordinate steps of the recursive
    algorithms, through massless frames `<joint>:<k>` (k = 1, 2, ...), the last step moving the
    child. steps: [(kind, coordinate, sign, u, base)]: a turn about (revolute) or a slide along
    (prismatic) the unit u, given in the frame the step starts from, by sign times the
    coordinate; base: the step's origin in that frame (None: the frame's own). The last step
    ends in the bodies' initial relative rotation R0 (parent <- child, the pose as written)
    and hangs the child from its point p_child (its frame)."""
    j = tj.joint
    rel0, R0 = written_relative_rotation(bodies, tj)
    hang = -sp.Matrix(p_child).applyfunc(zero_snapped)
    zero = sp.zeros(3, 1)
    frame, frame_name = topo.frames[tj.parent], tj.parent
    rel = (sp.Integer(1), sp.Integer(0), sp.Integer(0), sp.Integer(0))
    for k, (kind, q, sign, u, base) in enumerate(steps, start=1):
        last = k == len(steps)
        step = j if last else f"{j}:{k}"
        offset = base if base is not None else zero
        rate = sign * inter.v[inter.x.index(q)]
        if kind == "revolute":
            c_ = inter.name(f"cos({step})", sp.cos(sign * q))
            s_ = inter.name(f"sin({step})", sp.sin(sign * q))
            turn = axis_rotation(u, c_, s_)
            half = (inter.name(f"cos({step}/2)", sp.cos(sign * q / 2)),)
            half += tuple(inter.name(f"sin({step}/2)", sp.sin(sign * q / 2)) * a for a in u)
        else:
            turn, half = sp.eye(3), (sp.Integer(1),) + (sp.Integer(0),) * 3
            offset = offset + sign * q * u
        Q = turn * R0 if last else turn
        if Q != sp.eye(3):
            Q = Q.applyfunc(sp.expand).applyfunc(lambda c: inter.name(f"Q({step})", c))
        axis = (R0.T * u).applyfunc(snapped) if last else u  # in the step's child frame
        topo.links[step] = Link(Q, offset, hang if last else zero, axis, rate, sign, kind)
        point = sp.Matrix(frame.r) + frame.R * offset
        point = [inter.name(f"r({j}:{k})[{a}]", point[a]) for a in range(3)]
        _record_motion(inter, topo, step, sign, frame.R * u, point, kind)
        rel = quat_mul(rel, half)
        w_joint = rate * axis if kind == "revolute" else zero
        if last:
            rel = tuple(inter.name(f"rel({j})[{a}]", e) for a, e in enumerate(quat_mul(rel, rel0)))
            _place_body(inter, topo, bodies, tj, frame, Q, offset, -hang, rel, w_joint, step)
            topo.steps.append(TreeJoint(step, frame_name, tj.child))
        else:
            name = f"{j}:{k}"
            R = frame.R * Q
            if Q != sp.eye(3):
                R = sp.Matrix(3, 3, [inter.name(f"R({name})[{a}]", e) for a, e in enumerate(R)])
            w = Q.T * sp.Matrix(frame.w) + w_joint
            w = [inter.name(f"w({name})[{a}]", w[a]) if kind == "revolute" else w[a]
                 for a in range(3)]  # fmt: skip
            topo.frames[name] = Frame(R, point, w, frame.path + [step])
            topo.steps.append(TreeJoint(step, frame_name, name))
            frame, frame_name = topo.frames[name], name
        topo.step_symbol[step] = q


def axis_rotation(u, c, s):
    """(3 x 3) the rotation by the angle of cosine c and sine s about the unit axis u (3 x 1)."""
    cross = sp.Matrix([[0, -u[2], u[1]], [u[2], 0, -u[0]], [-u[1], u[0], 0]])
    return c * sp.eye(3) + s * cross + (1 - c) * (u * u.T)


# A joint's rotation at its zero, its axis and points in its bodies' frames are usually 0 or
# +-1 (URDF's and DH's frames), but come out 1e-16..1e-15 off from a file whose poses are
# doubles (import-urdf writes the world poses at the start state): within this they are taken
# as exactly 0 or +-1, which the doubles cannot tell apart, so the kernels lose the products
# with noise (the imported PUMA 560 at its start state: 79 KB of C against 60 at q = 0)
SNAP = 1e-13


def snapped(c):
    """An exact constant as its 40-digit value, made exact where it is a rational (cos(pi/4)^2
    + ... = 1 exactly: products of a frame's rotations at a joint's initial value) or within
    SNAP of 0 or +-1."""
    if not c.is_number:
        return c
    value = numbers_as_coefficients(clean(sp.N(c, 40)))
    if not value.is_Rational:
        for exact in (0, 1, -1):
            if abs(float(value) - exact) <= SNAP:
                return sp.Integer(exact)
    return value


def zero_snapped(c):
    """A joint point's coordinate: exactly 0 within SNAP (metres) of it."""
    return sp.Integer(0) if c.is_number and abs(float(c)) <= SNAP else c


def P_quaternion(topo, body, bodies):
    """A body's Euler parameters (the ground's: 1, 0, 0, 0)."""
    if body == "ground":
        return (sp.Integer(1), sp.Integer(0), sp.Integer(0), sp.Integer(0))
    return tuple(bodies[body].q[3:7])
