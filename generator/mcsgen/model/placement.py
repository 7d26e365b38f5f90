"""Initial configurations by joint values (`start:` on a joint): the bodies as written are the
pose where each joint reads its `initial:` (0 unless given); the bodies beyond a started joint,
away from the ground along the spanning tree (model/tree.py), are turned or slid there before
anything reads the initial state. Both formulations. In a mechanism with loops the turn opens
the loops at their cut joints; the initial assembly (initial.py) then closes them holding the
started joints at their values.
"""

import sympy as sp

from .bodies import matrix_from_quaternion, quat_mul
from .exact import clean, numbers_as_coefficients
from .tree import PLACEMENT_TYPES, spanning_tree


def place_at_start(builder):
    """Move the bodies to the joints' `start:` values: each such joint turns (revolute) or
    slides (prismatic) the bodies beyond it, away from the ground along the spanning tree
    (model/tree.py), by its start value less its value at the pose as written (`initial:`,
    0 by default), nearest the ground first, in exact arithmetic (constants evaluated to
    40 digits). The joints' points, axes and rows were read at the written pose and are in
    the bodies' frames, so only the poses move; a joint's coordinate then reads its start
    value. With loops, the started joints go to builder.held_starts for the assembly to hold.
    A joint the tree does not take (a loop's cut joint) is refused: nothing beyond it to
    turn."""
    if not builder.starts:
        return
    geometry = builder.joint_geometry
    tree = spanning_tree(
        [b.name for b in builder.order],
        [(name, g.type, g.body1, g.body2, not g.cut) for name, g in geometry.items()],
        PLACEMENT_TYPES,
    )
    taken = {tj.joint for tj in tree.joints}
    for name, (_, where) in builder.starts.items():
        if name not in taken:
            builder.ctx.fail(
                f"{where}.start",
                "start values turn the bodies beyond a joint of the spanning tree, and this "
                "joint closes a loop (a cut joint): start another joint of the loop",
            )
    if tree.cuts:  # the loops close at the assembly, the started joints held there
        builder.held_starts = [(name, value) for name, (value, _) in builder.starts.items()]
    children = {}
    for tj in tree.joints:
        children.setdefault(tj.parent, []).append(tj.child)

    def subtree(body):
        out, stack = [], [body]
        while stack:
            b = stack.pop()
            out.append(builder.bodies[b])
            stack.extend(children.get(b, ()))
        return out

    for tj in tree.joints:  # parents before children: their poses are placed already
        if tj.joint not in builder.starts:
            continue
        g = geometry[tj.joint]
        value = builder.starts[tj.joint][0]
        child_is_body1 = tj.child == g.body1
        sign = 1 if child_is_body1 else -1
        delta = sign * (value - g.initial)
        parent = builder.bodies[tj.parent]
        point = g.point2 if child_is_body1 else g.point1
        axis = g.axis2 if child_is_body1 else g.axis1
        dim = len(point)
        if parent.kind == "ground":
            R_p, r_p = sp.eye(dim), sp.zeros(dim, 1)
        else:
            R_p, r_p = parent.R0, sp.Matrix(parent.x0[:dim])
        where_world = r_p + R_p * sp.Matrix(point)
        for body in subtree(tj.child):
            _move(body, g.type, delta, where_world, R_p, axis, dim)
        g.initial = value  # the coordinate's value at the pose now written


def _move(body, jtype, delta, point, R_p, axis, dim):
    """Turn a body's initial pose by delta about the joint's axis through point (world), or
    slide it by delta along the axis (axis in the parent's frame R_p; planar: no axis for a
    revolute joint, which turns about the normal)."""
    r = sp.Matrix(body.x0[:dim])
    if jtype == "prismatic":
        r = r + delta * (R_p * sp.Matrix(axis))
        body.x0 = [_exactly(c) for c in r] + list(body.x0[dim:])
        return
    if dim == 2:
        c, s = sp.cos(delta), sp.sin(delta)
        turn = sp.Matrix([[c, -s], [s, c]])
        r = point + turn * (r - point)
        angle = _exactly(body.x0[2] + delta)
        body.x0 = [_exactly(e) for e in r] + [angle]
        body.R0 = sp.Matrix([[sp.cos(angle), -sp.sin(angle)], [sp.sin(angle), sp.cos(angle)]])
        return
    a = R_p * sp.Matrix(axis)
    half = (sp.cos(delta / 2),) + tuple(sp.sin(delta / 2) * e for e in a)
    turn = matrix_from_quaternion(half)
    r = point + turn * (r - point)
    e = [_exactly(c) for c in quat_mul(half, body.x0[3:7])]
    body.x0 = [_exactly(c) for c in r] + e
    body.R0 = matrix_from_quaternion(e)


def _exactly(c):
    """A placed pose's entry: a number to 40 digits (rationals exact), an expression of the
    parameters as it is (exact nested radicals of turns on turns grow without end)."""
    c = sp.sympify(c)
    if not c.is_number:
        return c
    return numbers_as_coefficients(clean(sp.N(c, 40)))
