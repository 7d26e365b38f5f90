"""A tree joint's coordinates and rates in the body model's initial state (joint_coordinates.py):
the universal joint's two angles, the cylindrical, planar and parallel joints' translations and
angle, the spherical joint's Euler parameters, read from their bodies' poses and velocities in
30-digit arithmetic (where an assembly moved the bodies; at the pose as written the angles are
0 and the Euler parameters 1, 0, 0, 0).
"""

import sympy as sp

from .bodies import G_matrix, quat_conj, quat_mul, rotation_from_euler
from .tree_steps import translation_axes


def spherical_initial(topo, tree, bodies, name, values, v_body):
    """(e (4), e' (4)) of a spherical tree joint in the body model's initial state (30-digit
    numbers), from e_child = e_parent rel0 e (place_spherical_child): e = conj(rel0)
    conj(e_parent) e_child and its rate. values: the body coordinates, parameters and geometry
    symbols as numbers; v_body: the body velocities."""
    tj = next(t for t in tree.joints if t.joint == name)
    one = (sp.Integer(1), sp.Integer(0), sp.Integer(0), sp.Integer(0))
    zero = (sp.Integer(0),) * 4

    def num(c):
        return sp.N(sp.sympify(c).xreplace(values).xreplace(values), 30)

    def pose(body):  # (initial e, e, e') of a body (the ground's: 1, 0, 0, 0)
        if body == "ground":
            return one, one, zero
        b = bodies[body]
        rates = tuple(num(v_body.get(r, sp.Integer(0))) for r in b.qd[3:7])
        return tuple(b.x0[3:7]), tuple(num(c) for c in b.q[3:7]), rates

    (e_p0, e_p, ed_p), (e_c0, e_c, ed_c) = pose(tj.parent), pose(tj.child)
    back = quat_conj(tuple(num(c) for c in quat_mul(quat_conj(e_p0), e_c0)))  # conj(rel0)
    e = quat_mul(back, quat_mul(quat_conj(e_p), e_c))
    rate = quat_mul(
        back,
        tuple(
            a + b for a, b in zip(quat_mul(quat_conj(ed_p), e_c), quat_mul(quat_conj(e_p), ed_c))
        ),
    )
    return tuple(num(c) for c in e) + tuple(num(c) for c in rate)


def cylindrical_initial(topo, tree, bodies, name, values, v_body, moved):
    """(translation, angle, their rates) of a cylindrical tree joint in the body model's initial
    state (30-digit numbers; the angle exactly 0 at the pose as written unless the assembly
    moved it): F1's origin along the axis in F2's basis and the turn about the axis from the
    pose as written. values: the body coordinates, parameters and geometry symbols as numbers;
    v_body: the body velocities."""
    g = topo.joints[name]
    rel = _RelativeState(g, bodies, values, v_body)
    at = rel if moved else _RelativeState(g, bodies, values, v_body, written=True)
    u2 = rel.vector(g.axis2)
    translation = rel.num(u2.dot(at.gap))
    angle = rel.angle_about(u2) if moved else sp.Integer(0)
    return translation, angle, rel.num(u2.dot(rel.gap_rate)), rel.angle_rate(u2)


def planar_initial(topo, tree, bodies, name, values, v_body, moved):
    """(the translations, the angle, their rates) of a spatial planar or parallel tree joint in
    the body model's initial state (30-digit numbers, the angle exactly 0 at the pose as written
    unless the assembly moved it): F1's origin in F2's basis and the turn about the axis."""
    g = topo.joints[name]
    rel = _RelativeState(g, bodies, values, v_body)
    at = rel if moved else _RelativeState(g, bodies, values, v_body, written=True)
    directions = [rel.vector(d) for d in translation_axes(g)]
    u2 = rel.vector(g.axis2)
    angle = rel.angle_about(u2) if moved else sp.Integer(0)
    shifts = tuple(rel.num(d.dot(at.gap)) for d in directions)
    rates = tuple(rel.num(d.dot(rel.gap_rate)) for d in directions) + (rel.angle_rate(u2),)
    return shifts + (angle,) + rates


def written_translations(g, bodies, exact_x0):
    """The translations of a cylindrical, planar or parallel joint at the pose as written, exact
    (expressions of the geometry parameters it depends on): F1's origin in F2's basis along the
    directions its coordinates count (exact_x0: body coordinate -> its exact initial value)."""

    def pose(name):  # (r, R) of a body's symbols, or the ground's
        if name == "ground":
            return sp.zeros(3, 1), sp.eye(3)
        b = bodies[name]
        return sp.Matrix(b.q[:3]), rotation_from_euler(b.q[3:7])

    (r1, R1), (r2, R2) = pose(g.body1), pose(g.body2)
    gap = R2.T * (r1 + R1 * sp.Matrix(g.point1) - r2 - R2 * sp.Matrix(g.point2))
    directions = [g.axis2] if g.type == "cylindrical" else translation_axes(g)
    return [
        sum((a * b for a, b in zip(d, gap)), sp.Integer(0)).xreplace(exact_x0) for d in directions
    ]


class _RelativeState:
    """A joint's body1 relative to its body2 in the body model's state (30-digit numbers):
    gap (3) F1's origin less F2's in body2's frame and its rate; turn (3 x 3) the relative
    rotation R(body2 <- body1) less the one as written R0 (turn = Rot(axis2, angle) for a joint
    that turns about its axis), w_rel (3) body1's angular velocity relative to body2's, in
    body1's frame. written: at the poses as written (x0, exact) instead."""

    def __init__(self, g, bodies, values, v_body, written=False):
        self.values = values
        self.written = written
        r1, R1, w1, rd1, e10 = self._body(bodies, g.body1, v_body)
        r2, R2, w2, rd2, e20 = self._body(bodies, g.body2, v_body)
        p1, p2 = self.vector(g.point1), self.vector(g.point2)
        self.gap = (R2.T * (r1 + R1 * p1 - r2 - R2 * p2)).applyfunc(self.num)
        rate = R2.T * (rd1 + R1 * w1.cross(p1) - rd2 - R2 * w2.cross(p2)) - w2.cross(self.gap)
        self.gap_rate = rate.applyfunc(self.num)
        Q = (R2.T * R1).applyfunc(self.num)  # body2 <- body1
        self.R0 = rotation_from_euler(
            [self.num(c) for c in quat_mul(quat_conj(e20), e10)]
        ).applyfunc(self.num)
        self.turn = (Q * self.R0.T).applyfunc(self.num)
        self.w_rel = (w1 - Q.T * w2).applyfunc(self.num)

    def num(self, c):
        return sp.N(sp.sympify(c).xreplace(self.values).xreplace(self.values), 30)

    def vector(self, entries):
        return sp.Matrix([self.num(c) for c in entries])

    def _body(self, bodies, name, v_body):  # (r, R, w (own frame), r', initial e)
        if name == "ground":
            zero = sp.zeros(3, 1)
            return zero, sp.eye(3), zero, zero, (1, 0, 0, 0)
        b = bodies[name]
        q = b.x0 if self.written else b.q
        e = [self.num(c) for c in q[3:7]]
        rates = [self.num(v_body.get(c, 0)) for c in b.qd]
        w = (2 * G_matrix(e) * sp.Matrix(rates[3:7])).applyfunc(self.num)
        r = self.vector(q[:3])
        return r, rotation_from_euler(e).applyfunc(self.num), w, sp.Matrix(rates[:3]), b.x0[3:7]

    def angle_about(self, u):
        """The angle of turn about the unit u (turn = Rot(u, angle))."""
        normal = u.cross(sp.Matrix([1, 0, 0]))
        if normal.norm() < 0.5:
            normal = u.cross(sp.Matrix([0, 1, 0]))
        normal = normal / normal.norm()
        turned = self.turn * normal
        return self.num(sp.atan2(u.dot(normal.cross(turned)), normal.dot(turned)))

    def angle_rate(self, u):
        """The rate of the angle about u (body2's frame): w_rel along R0^T u."""
        return self.num((self.R0.T * u).dot(self.w_rel))


def universal_initial(topo, tree, bodies, name, values, v_body, moved):
    """(angle1, angle2, their rates) of a universal tree joint in the body model's initial state
    (30-digit numbers; the angles exactly 0 at the pose as written unless the assembly moved
    it, a loop's `start:` values included). values: the body coordinates, parameters and
    geometry symbols as numbers."""
    g = topo.joints[name]
    tj = next(t for t in tree.joints if t.joint == name)
    zero = (sp.Integer(0),) * 4

    def pose(body, initial):
        if body == "ground":
            return (sp.Integer(1), sp.Integer(0), sp.Integer(0), sp.Integer(0)), zero
        b = bodies[body]
        if initial:
            return tuple(b.x0[3:7]), zero
        return tuple(b.q[3:7]), tuple(v_body.get(r, sp.Integer(0)) for r in b.qd[3:7])

    (e_p0, _), (e_c0, _) = pose(tj.parent, True), pose(tj.child, True)
    (e_p, ed_p), (e_c, ed_c) = pose(tj.parent, False), pose(tj.child, False)
    state = universal_state(g, tj.child == g.body1, e_p0, e_c0, e_p, e_c, ed_p, ed_c, values)
    if not moved:
        state = (sp.Integer(0), sp.Integer(0)) + state[2:]
    return state


def universal_state(g, child_is_body1, e_p0, e_c0, pose_p, pose_c, rates_p, rates_c, values):
    """(angle1, angle2, angle1 rate, angle2 rate) of a universal joint (30-digit numbers) at its
    bodies' poses: Euler parameters e_p, e_c (4) of the tree's parent and child (the ground's:
    1, 0, 0, 0), their rates (4); e_p0, e_c0 the initial poses the angles count from
    (place_universal_child); values: what the symbols among them (and the axes) stand for.
    With Q = R_p^T R_c = Rot(u_p, s a_p) R0 Rot(u_c, s a_c): Q u_c = Rot(u_p, s a_p) R0 u_c and
    Q^T u_p = Rot(u_c, -s a_c) R0^T u_p give the angles; the relative angular velocity (child
    frame) s a_p' Q^T u_p + s a_c' u_c their rates."""

    def num(c):
        return sp.N(sp.sympify(c).xreplace(values).xreplace(values), 30)

    def vec(entries):
        return sp.Matrix([num(c) for c in entries])

    def rot(e):
        return rotation_from_euler([num(c) for c in e]).applyfunc(num)

    def omega(e, ed):  # body-frame angular velocity 2 G(e) e'
        return (2 * G_matrix([num(c) for c in e]) * vec(ed)).applyfunc(num)

    def angle(axis, a, b):  # the angle about axis from a to b (both normal to it)
        return num(sp.atan2(axis.dot(a.cross(b)), a.dot(b)))

    sign = -1 if child_is_body1 else 1
    u_p = vec(g.axis2 if child_is_body1 else g.axis1)
    u_c = vec(g.axis1 if child_is_body1 else g.axis2)
    R0 = rot(quat_mul(quat_conj(e_p0), e_c0))
    Q = (rot(pose_p).T * rot(pose_c)).applyfunc(num)
    a_p = angle(u_p, R0 * u_c, Q * u_c)
    a_c = -angle(u_c, R0.T * u_p, Q.T * u_p)
    w = omega(pose_c, rates_c) - Q.T * omega(pose_p, rates_p)
    rate_p, rate_c = num(w.dot(Q.T * u_p)), num(w.dot(u_c))
    pair = (sign * a_c, sign * a_p) if child_is_body1 else (sign * a_p, sign * a_c)
    rates = (sign * rate_c, sign * rate_p) if child_is_body1 else (sign * rate_p, sign * rate_c)
    return pair + rates
