"""`coordinates: joint`: a bodies-and-joints model rewritten in the coordinates of its joints.

The model is first built and its initial state solved in body coordinates, as for
`coordinates: body` (mechanism.py, initial.py): the same rows, Lagrange blocks, forces and
initial state. Then (to_joint_coordinates):

- the spanning tree (tree.py) picks the tree joints; each contributes the coordinates its
  joint library entry names (joints.py, JointType.tree): a revolute or prismatic joint one,
  named after the joint (the angle about, or the position along, its axis, as its free
  coordinate `j.<joint>` is defined in body coordinates: from the initial pose, plus its
  `initial:`), a universal joint its two angles, a cylindrical, planar or parallel joint its
  translations and angle, a spherical joint its Euler parameters (and their norm row); how each
  places its child is tree_steps.py, its initial values tree_state.py; a body the tree does not
  reach keeps its body coordinates (and its norm row);
- every other body's coordinates (`<body>.x`, ..., `<body>.e3`) and velocities become
  intermediates (model/intermediates.py): its pose is a short expression of its parent's pose
  and its joint's coordinate, its velocities the time derivatives of those;
- the tree joints' rows and the norm rows of the bodies they place hold identically and are
  dropped; the rows of cut joints, drivers and the norm rows of floating bodies stay, as
  expressions of the bodies' poses;
- the initial state is the body model's, expressed in the tree's coordinates.

derive/joint_terms.py then projects the bodies' Lagrange blocks through the pose Jacobians.
"""

from dataclasses import dataclass, field
from typing import Dict, List, Optional

import numpy as np
import sympy as sp

from .intermediates import Intermediates
from ..errors import ModelError
from .consistency import check_consistency
from .bodies import G_matrix, rotation_from_euler
from .exact import DIGITS, clean, numbers_as_coefficients, to_double
from .ir import Constraint, Coordinate
from .joints import joint_rate_label, joint_types
from .switches import RowGroup
from .tree import TREE_TYPES, free_rotations, spanning_tree
from .tree_state import (
    cylindrical_initial,
    planar_initial,
    spherical_initial,
    universal_initial,
    written_translations,
)
from .tree_steps import (
    Frame,
    place_cylindrical_child,
    place_plane_child,
    place_spatial_child,
    place_spherical_child,
    place_universal_child,
    tree_motion,
)


# what the lock of a tree joint of several coordinates holds (its other tree joints' hold
# their one coordinate or, a spherical joint's, the relative rotation)
LOCK_WHAT = {
    "universal": "angle1 angle2",
    "cylindrical": "x Rx",
    "planar": "y z Rx",
    "parallel": "x y z Rx",
}


# a tree joint's rows must vanish at sampled tree coordinates to this (a failure is a bug, or
# an initial pose that does not satisfy the joint exactly)
ROW_TOL = 1e-9


@dataclass
class JointGeometry:
    """What the tree needs of a joint (recorded by mechanism.py, exact, geometry symbols as in
    the rows): its points and axes in its bodies' frames."""

    type: str
    body1: str
    body2: str
    point1: list  # (dim) in body1's frame
    point2: list  # (dim) in body2's frame
    axis1: Optional[list]  # (dim) unit, in body1's frame (the joint axis), or None
    axis2: Optional[list]  # (dim) in body2's frame
    initial: sp.Expr  # the joint's `initial:` (0 when not given)
    cut: bool  # `cut: true`, or driven: never a tree joint
    # a spatial planar joint's in-plane directions (F2's y and z axes, body2's frame), or None
    plane2: Optional[tuple] = None


@dataclass
class Topology:
    """What a joint-coordinate model keeps of its body-coordinate build."""

    bodies: list  # [bodies.Body] in file order
    joints: Dict[str, JointGeometry]
    tree: object = None  # tree.SpanningTree, once chosen
    gravity: object = None  # (dim) the gravity vector (expressions), or None
    rotors: dict = field(default_factory=dict)  # force block index -> (joint, I_r) of a rotor
    # [((joint, force block index, k, c, rest), applied forces of its damping or None)]: the
    # joints' spring-dampers (a tree joint's act on its coordinate directly)
    springs: list = field(default_factory=list)
    # [(joint, applied forces in body coordinates, input symbol)]: the `joint:` inputs (a tree
    # joint's acts on its coordinate directly)
    joint_inputs: list = field(default_factory=list)
    body_forces: object = None  # (n_body x 1) applied forces in body coordinates, or None
    body_x: List[sp.Symbol] = field(default_factory=list)  # the body coordinates (n_body)
    body_v: List[sp.Symbol] = field(default_factory=list)
    # spatial bodies: body -> Frame (rotation, centre of mass, body-frame angular velocity)
    frames: dict = field(default_factory=dict)
    # spatial tree steps (steps below): step -> (sign, world axis (3), world point (3), kind)
    # of its motion
    motions: dict = field(default_factory=dict)
    joint_symbol: dict = field(default_factory=dict)  # one-coordinate tree joint -> it
    # the tree's kinematic steps, parents before children: each tree joint's
    # (tree.TreeJoint), but a universal joint's two, through a massless frame at its cross,
    # `<joint>:cross`, and a cylindrical, planar or parallel joint's chain of slides and a
    # turn through massless frames `<joint>:<k>` (tree_steps.py); a spherical joint's child
    # is none (Lagrange's equations below it: derive/joint_terms.floats); step_symbol: step ->
    # the coordinate it turns or slides by (not for a fixed joint)
    steps: list = field(default_factory=list)
    step_symbol: dict = field(default_factory=dict)
    # a spatial tree on the ground: the Newton-Euler pass at qdd = 0 (derive/joint_terms.py),
    # ({body: (w, alpha, acc)}, {body: (F, N)}): each body's angular velocity and acceleration
    # and its centre of mass's acceleration less gravity, and what its subtree needs (about its
    # centre of mass), all in its own frame; None otherwise
    newton_euler: tuple = None
    # spatial tree steps: step -> Link, the step in its two frames' terms (for the
    # recursive Newton-Euler pass in body frames, derive/joint_terms.py)
    links: dict = field(default_factory=dict)


def choose_tree(topo):
    return spanning_tree(
        [b.name for b in topo.bodies],
        [(name, g.type, g.body1, g.body2, not g.cut) for name, g in topo.joints.items()],
    )


def plain_tree(model):
    """Whether the joint model is a tree on the ground with nothing else to hold: no cut joint,
    no floating body, no driver, and only tree joints' rates given. Its initial state needs no
    solving (the tree places every body; the given rates are the coordinates' rates, the rest
    0, as the minimum-norm solution in body coordinates has them); with no rows, its mass
    matrix is checked at generation in the tree's coordinates
    (consistency.check_joint_mass_matrix)."""
    tree = choose_tree(model.topology)
    if tree.cuts or tree.roots or free_rotations(model.topology, tree):
        return False
    tree_rows = {i for j in model.joints for i in j.rows}
    norms = {f"{b.name}.norm" for b in model.topology.bodies}
    rows_left = [
        c for i, c in enumerate(model.constraints) if i not in tree_rows and c.name not in norms
    ]
    rates = {joint_rate_label(t.joint) for t in tree.joints}
    return not rows_left and all(what in rates for what, _, _ in model.held)


@dataclass
class TreeCoordinates:
    """A joint model's coordinates (the floating bodies', then the tree joints', file order) and
    the tree joints' among them: joint_symbol a joint's one coordinate, universal_symbols the
    several of a universal, cylindrical, planar or parallel joint, spherical_symbols a
    spherical joint's Euler parameters."""

    coords: List[Coordinate]
    joint_symbol: Dict[str, sp.Symbol]
    universal_symbols: Dict[str, tuple]
    spherical_symbols: Dict[str, tuple]


def to_joint_coordinates(model):
    """Rewrite a bodies-and-joints model whose initial state is solved (body coordinates) in
    joint coordinates, in place; a plain tree (plain_tree) needs nothing solved. Returns the
    model."""
    solved = model.v0 is not None
    if solved:
        check_consistency(model)  # in body coordinates: the same bodies, rows and mass
    topo = model.topology
    bodies = {b.name: b for b in topo.bodies}
    tree = choose_tree(topo)
    topo.tree = tree
    topo.body_x, topo.body_v = list(model.x), list(model.v)
    topo.body_forces = model.forces
    body_coordinates = {c.symbol: c for c in model.coordinates}
    tc = _tree_coordinates(model, tree, bodies, body_coordinates)
    inter = _place_bodies(model, tree, bodies, tc)
    tree_joints = {tj.joint for tj in tree.joints}
    _check_tree_rows(model, inter, tree_joints, tc.joint_symbol)
    constraints, new_index = _rows_left(model, tree, tree_joints, tc.spherical_symbols)
    x0, v0, initial_x, x_float = _initial_state(model, tree, bodies, body_coordinates, tc, solved)
    _joints_on_the_tree(model, tc, tree_joints, constraints, new_index)
    held = _held_on_the_tree(model, inter, tc, x_float, x0)

    model.coordinates = tc.coords
    model.constraints = constraints
    model.intermediates = inter
    model.x0, model.v0 = x0, v0
    model.initial_x = initial_x
    model.initial_v = [sp.Integer(0)] * len(tc.coords)
    model.held = held
    model.x_assembled = None
    model.jacobian_assembled = None
    _forces_on_the_tree(model, inter, tc)
    return model


def _tree_coordinates(model, tree, bodies, body_coordinates) -> TreeCoordinates:
    """The coordinates: the floating bodies', then the tree joints' (file order), each as its
    joint library entry names them."""
    topo = model.topology
    coords = []
    for name in tree.roots:
        coords += [body_coordinates[s] for s in bodies[name].q]
    joint_symbol, universal_symbols, spherical_symbols = {}, {}, {}
    for name, g in topo.joints.items():
        tj = tree.parent_joint.get(_child_of(tree, name))
        if tj is None or tj.joint != name or TREE_TYPES[g.type] == 0:
            continue
        symbols = []  # the coordinates of its motion, as its joint library entry names them
        for what, unit in joint_types(model.kind)[g.type].tree:
            q = sp.Symbol(f"{name}.{what}" if what else name, real=True)
            coords.append(Coordinate(q.name, unit, q, sp.Symbol(f"{q.name}_dot", real=True)))
            symbols.append(q)
        if g.type == "spherical":  # the relative rotation's Euler parameters (unit norm row)
            spherical_symbols[name] = tuple(symbols)
        elif len(symbols) > 1:  # steps of the recursive algorithms (universal, ...)
            universal_symbols[name] = tuple(symbols)
        else:
            joint_symbol[name] = symbols[0]
    return TreeCoordinates(coords, joint_symbol, universal_symbols, spherical_symbols)


def _place_bodies(model, tree, bodies, tc):
    """The Intermediates of the tree's coordinates: each placed body's pose and velocities a
    short expression of its parent's and its joint's coordinates (topology's frames and steps
    as the recursive algorithms read them)."""
    topo = model.topology
    coords, joint_symbol = tc.coords, tc.joint_symbol
    universal_symbols, spherical_symbols = tc.universal_symbols, tc.spherical_symbols
    inter = Intermediates([c.symbol for c in coords], [c.velocity for c in coords], model.time)
    topo.joint_symbol = joint_symbol
    poses = {"ground": _ground_pose(model.kind)}
    if model.kind == "spatial":
        topo.frames["ground"] = Frame(sp.eye(3), [sp.Integer(0)] * 3, [sp.Integer(0)] * 3, [])
    for name in tree.roots:
        poses[name] = _pose_of(bodies[name])
        if model.kind == "spatial":
            body = bodies[name]
            w = 2 * G_matrix(body.q[3:7]) * sp.Matrix(body.qd[3:7])
            topo.frames[name] = Frame(
                _rotation(inter, name, body.q[3:7]),
                list(body.q[:3]),
                [inter.name(f"w({name})[{a}]", w[a]) for a in range(3)],
                [],
            )
    for tj in tree.joints:
        child = bodies[tj.child]
        g = topo.joints[tj.joint]
        q = joint_symbol.get(tj.joint)
        if g.type == "universal":
            place_universal_child(inter, topo, g, tj, bodies, universal_symbols[tj.joint])
        elif g.type == "cylindrical":
            place_cylindrical_child(inter, topo, g, tj, bodies, universal_symbols[tj.joint])
        elif g.type in ("planar", "parallel"):
            place_plane_child(inter, topo, g, tj, bodies, universal_symbols[tj.joint])
        elif g.type == "spherical":
            place_spherical_child(inter, topo, g, tj, bodies, spherical_symbols[tj.joint])
        elif model.kind == "spatial":
            topo.steps.append(tj)
            if q is not None:
                topo.step_symbol[tj.joint] = q
            place_spatial_child(inter, topo, g, tj, bodies, q)
        else:
            _place_planar_child(inter, g, tj, poses[tj.parent], bodies, q)
        for s, r in zip(child.q, child.qd):
            inter.define_rate(s, r)
        poses[tj.child] = _pose_of(child)
    return inter


def _rows_left(model, tree, tree_joints, spherical_symbols):
    """(constraints, {old row: new row}): the tree joints' rows and the placed bodies' norm rows
    dropped, the rest in order, then a norm row per spherical tree joint."""
    placed = {tj.child for tj in tree.joints}
    dropped = set()
    for joint in model.joints:
        if joint.name in tree_joints:
            dropped.update(joint.rows)
    for i, con in enumerate(model.constraints):
        if con.name.endswith(".norm") and con.name[: -len(".norm")] in placed:
            dropped.add(i)
    kept = [i for i in range(model.m) if i not in dropped]
    new_index = {old: new for new, old in enumerate(kept)}
    constraints = [Constraint(model.constraints[i].name, model.constraints[i].expr) for i in kept]
    # a spherical tree joint's Euler parameters are unit, as a body's are
    for name, e in spherical_symbols.items():
        constraints.append(Constraint(f"{name}.norm", sum((c * c for c in e), sp.Integer(0)) - 1))
    return constraints, new_index


def _initial_state(model, tree, bodies, body_coordinates, tc, solved):
    """(x0, v0, initial_x, x_float): the body model's initial state in the tree's coordinates
    (doubles, and the exact positions of the parameters), and the point x_float it was read at
    (parameters, geometry and body coordinates as 30-digit numbers)."""
    topo = model.topology
    coords = tc.coords
    universal_symbols, spherical_symbols = tc.universal_symbols, tc.spherical_symbols
    x_body = model.parameter_values()
    x_body.update(zip(model.x, (sp.Float(a, 30) for a in model.x_assembled or model.x0)))
    v_body = dict(zip(model.v, (sp.Float(a, 30) for a in model.v0 or [])))
    # the same with the parameters and geometry symbols as 30-digit numbers: a coordinate of a
    # parameter-dependent geometry is a large exact expression, slow to evaluate exactly
    x_float = {s: sp.Float(to_double(e), 30) if e.is_number else e for s, e in x_body.items()}
    x_float = {
        s: (sp.Float(to_double(e.xreplace(x_float)), 30) if not e.is_number else e)
        for s, e in x_float.items()
    }
    given_rate = {}  # a plain tree's given joint rates
    if not solved:
        labels = {joint_rate_label(j.name): j.name for j in model.joints}
        for what, _, value in model.held:
            given_rate[labels[what]] = to_double(sp.sympify(value).xreplace(x_float))
    exact_x0 = dict(zip(model.x, model.initial_x))
    params = model.parameter_values()  # exact: a held start's coordinates are evaluated with them
    moved = model.x_assembled is not None and any(
        abs(a - b) > 1e-14 for a, b in zip(model.x_assembled, model.x0)
    )
    universal = {}  # a universal joint's angle -> (its value, its rate)
    for name, pair in universal_symbols.items():
        initial_state = {
            "cylindrical": cylindrical_initial,
            "planar": planar_initial,
            "parallel": planar_initial,
        }.get(topo.joints[name].type, universal_initial)
        state = initial_state(topo, tree, bodies, name, x_float, v_body, moved or model.starts_held)
        if initial_state is not universal_initial and not (moved or model.starts_held):
            # the translations as written, exact: expressions of run-time geometry parameters
            # where the joint's points or the bodies' poses depend on them (a prismatic joint's
            # likewise: initial_x_of)
            shifts = written_translations(topo.joints[name], bodies, exact_x0)
            state = tuple(shifts) + tuple(state[len(shifts) :])
        universal.update({q: (state[k], state[k + len(pair)]) for k, q in enumerate(pair)})
    for name, four in spherical_symbols.items():  # (1, 0, 0, 0) at the pose as written
        state = spherical_initial(topo, tree, bodies, name, x_float, v_body)
        if not (moved or model.starts_held):
            state = (sp.Integer(1),) + (sp.Integer(0),) * 3 + state[4:]
        universal.update({e: (state[k], state[k + 4]) for k, e in enumerate(four)})
    x0, v0, initial_x = [], [], []
    for c in coords:
        if c.symbol in body_coordinates:
            x0.append(to_double(x_body[c.symbol]))
            v0.append(to_double(v_body[c.velocity]))
            initial_x.append(exact_x0[c.symbol])
            continue
        if c.symbol in universal:  # 0 (1) at the pose as written
            value, rate = universal[c.symbol]
            x0.append(to_double(value.xreplace(x_float)))
            v0.append(to_double(rate))
            initial_x.append(value if value.is_Integer else numbers_as_coefficients(clean(value)))
            continue
        joint = next(j for j in model.joints if j.name == c.name)
        exact = initial_x_of(joint, topo.joints[joint.name], exact_x0, model.starts_held, params)
        x0.append(
            to_double(joint.coordinate.xreplace(x_float))
            if moved
            else to_double(exact.xreplace(x_float))
        )
        if solved:  # the joint's rate, d/dt of its coordinate along the body velocities
            rate = sum(
                (sp.diff(joint.coordinate, s) * v for s, v in zip(model.x, model.v)),
                sp.Integer(0),
            )
            v0.append(to_double(rate.xreplace(x_float).xreplace(v_body)))
        else:
            v0.append(given_rate.get(joint.name, 0.0))
        initial_x.append(exact)
    return x0, v0, initial_x, x_float


def _joints_on_the_tree(model, tc, tree_joints, constraints, new_index):
    """The joints, row groups and switches in the tree's coordinates: a tree joint's free
    coordinate and lock are its coordinates', a cut joint keeps its rows (renumbered)."""
    topo = model.topology
    coords, joint_symbol = tc.coords, tc.joint_symbol
    universal_symbols, spherical_symbols = tc.universal_symbols, tc.spherical_symbols
    for joint in model.joints:
        if joint.name in tree_joints:
            joint.first_row, joint.nrows = len(constraints), 0
            if joint.name in joint_symbol:
                joint.coordinate = joint_symbol[joint.name]
                what = "theta" if topo.joints[joint.name].type == "revolute" else "translation"
                joint.lock = RowGroup(joint.name, entries=[joint.coordinate], what=what)
            elif joint.name in universal_symbols:
                pair = list(universal_symbols[joint.name])
                what = LOCK_WHAT[topo.joints[joint.name].type]
                joint.lock = RowGroup(joint.name, entries=pair, what=what)
            elif joint.name in spherical_symbols:  # its relative rotation, held as a body's
                e = spherical_symbols[joint.name]
                joint.lock = RowGroup(joint.name, rotation=e, rotation_rows=7, what="Rx Ry Rz")
            else:
                joint.lock = None
        else:
            rows = [new_index[i] for i in joint.rows]
            joint.first_row = rows[0] if rows else len(constraints)
    for k, group in enumerate(model.row_groups):
        owner = next((j for j in model.joints if j.lock_group == k), None)
        if owner is not None and owner.name in tree_joints:
            model.row_groups[k] = owner.lock if owner.lock is not None else group
    for switch in model.switches:
        if switch.coordinate >= 0:
            name = model.coordinates[switch.coordinate].name
            index = [c.name for c in coords]
            if name not in index:
                raise ModelError(
                    model.path,
                    "switches",
                    f"switch '{switch.name}' locks '{name}', which joint coordinates compute "
                    "from the tree (lock the joint instead)",
                )
            switch.coordinate = index.index(name)


def _held_on_the_tree(model, inter, tc, x_float, x0):
    """The held initial velocity conditions in the tree's coordinates (a tree joint's rate is
    its coordinate's; more than n are reduced to independent ones)."""
    coords, joint_symbol = tc.coords, tc.joint_symbol
    held = []
    rate_of = {joint_rate_label(j): q for j, q in joint_symbol.items()}
    for what, row, value in model.held:
        if what in rate_of:  # a tree joint's rate is its coordinate's
            held.append((what, [sp.Integer(int(c.symbol == rate_of[what])) for c in coords], value))
            continue
        if isinstance(row, sp.Expr):  # a cut joint's coordinate: its gradient
            new_row = [inter.diff(row, c.symbol) for c in coords]
        else:  # coefficients of the body coordinates (a body's velocity)
            new_row = [
                sum((a * inter.diff(s, c.symbol) for s, a in zip(model.x, row) if a != 0), 0)
                for c in coords
            ]
        held.append((what, [sp.sympify(a) for a in new_row], value))
    if len(held) > len(coords):
        point = dict(x_float)
        point.update(zip([c.symbol for c in coords], (sp.Float(a, 30) for a in x0)))
        point[model.time] = sp.Integer(0)
        held = _independent_held(held, inter, point)
    return held


def _forces_on_the_tree(model, inter, tc):
    """model.potential and model.forces in the tree's coordinates: a tree joint's spring-damper
    acts on its coordinate, its potential k/2 (q - rest)^2 as a block of q, its damping -c qd on
    q (in place of their body-coordinate forms), a tree joint's input u on its coordinate, the
    other applied forces projected, J^T Q."""
    topo = model.topology
    coords, joint_symbol = tc.coords, tc.joint_symbol
    nbodies = len(topo.bodies)
    joint_forces = sp.zeros(len(coords), 1)
    for (joint, block, k, c, rest), damping in topo.springs:
        if joint not in joint_symbol:
            continue
        q = joint_symbol[joint]
        model.blocks[nbodies + block] = (sp.Integer(0), k / 2 * (q - rest) ** 2)
        if damping is not None:
            topo.body_forces = topo.body_forces - damping
            index = [c_.symbol for c_ in coords].index(q)
            joint_forces[index] -= c * coords[index].velocity
    for joint, applied, u in topo.joint_inputs:  # a tree joint's input: u on its coordinate
        if joint in joint_symbol:
            topo.body_forces = topo.body_forces - applied
            index = [c_.symbol for c_ in coords].index(joint_symbol[joint])
            joint_forces[index] += u
    if topo.body_forces is not None and all(e == 0 for e in topo.body_forces):
        topo.body_forces = None
    model.potential = sum(
        (b[1].xreplace(b[2]) if len(b) > 2 else b[1] for b in model.blocks), sp.Integer(0)
    )
    model.forces = None
    if topo.body_forces is not None:  # J^T Q: the applied forces in the tree's coordinates
        model.forces = sp.Matrix(
            len(coords),
            1,
            [
                sum(
                    (inter.diff(s, c.symbol) * Q for s, Q in zip(topo.body_x, topo.body_forces)),
                    sp.Integer(0),
                )
                for c in coords
            ],
        )
    if any(e != 0 for e in joint_forces):
        model.forces = joint_forces if model.forces is None else model.forces + joint_forces


def _independent_held(held, inter, point):
    """The held velocity conditions (what, row (n), value) independent at the initial state
    (point: the coordinates' and parameters' values), in order. In joint coordinates a body's
    held velocity (3 rows) or angular velocity may depend on fewer coordinates than it has rows,
    and the runtime's start at other parameter values holds no more rows than coordinates
    (mcs_sim_start); the rows left out hold with the others (the initial state was solved
    with them all)."""
    kept, basis = [], []
    for entry in held:
        row = np.array(inter.evaluate(entry[1], point), dtype=float)
        rest = row.copy()
        for b in basis:
            rest -= (rest @ b) * b
        size = np.linalg.norm(rest)
        if size > 1e-9 * max(1.0, np.linalg.norm(row)):
            basis.append(rest / size)
            kept.append(entry)
    return kept


def initial_x_of(joint, geometry, exact_x0, starts_held=False, values=None):
    """A tree joint's initial coordinate as an exact expression of the parameters: a revolute
    joint's angle counts from the initial pose, so it is its `initial:` there; a prismatic
    joint's position is evaluated at the initial pose. After an assembly that held `start:`
    values (exact_x0 the assembled pose, 40-digit numbers), every coordinate is evaluated
    there (values: the parameters' exact values)."""
    if starts_held:
        value = sp.N(joint.coordinate.xreplace(exact_x0).xreplace(values), DIGITS)
        return numbers_as_coefficients(clean(value))
    if geometry.type == "revolute":
        return numbers_as_coefficients(sp.sympify(geometry.initial))
    return numbers_as_coefficients(clean(joint.coordinate.xreplace(exact_x0)))


def _child_of(tree, joint):
    for tj in tree.joints:
        if tj.joint == joint:
            return tj.child
    return None


def _ground_pose(kind):
    if kind == "planar":
        return [sp.Integer(0)] * 3
    return [sp.Integer(0)] * 3 + [sp.Integer(1)] + [sp.Integer(0)] * 3


def _pose_of(body):
    return list(body.q)


def joint_motion_axis(model, joint, tj):
    """(kind, (3) world direction) of a tree joint's motion: its child turns about
    (revolute) or slides along (prismatic) the direction, per unit of the joint's coordinate
    (the axis in the parent's frame, turned to the world, times the motion's sign)."""
    topo = model.topology
    g = topo.joints[joint]
    _, _, u_parent, sign, _ = tree_motion(g, tj, topo.joint_symbol[joint])
    if model.kind == "spatial":
        return g.type, sign * topo.frames[tj.parent].R * sp.Matrix(u_parent)
    if g.type == "revolute":
        return g.type, sp.Matrix([0, 0, sign])
    if tj.parent == "ground":
        R = sp.eye(2)
    else:
        R = _planar_rotation(model.intermediates, tj.parent, _body_named(topo, tj.parent).q[2])
    u = sign * R * sp.Matrix(u_parent)
    return g.type, sp.Matrix([u[0], u[1], 0])


def _body_named(topo, name):
    return next(b for b in topo.bodies if b.name == name)


def _place_planar_child(inter, g, tj, parent_pose, bodies, q):
    """Define a planar child body's coordinates (x, y, theta) as expressions of its parent's
    pose and the joint coordinate q (None: fixed)."""
    child, parent = bodies[tj.child], bodies.get(tj.parent)  # parent None: the ground
    p_parent, p_child, u_parent, _, move = tree_motion(g, tj, q)
    offset = sp.Matrix(p_parent)
    if g.type == "prismatic":
        offset += move * sp.Matrix(u_parent)
    th0 = child.x0[2] - (parent.x0[2] if parent is not None else 0)
    turn = move if g.type == "revolute" else 0
    inter.define(child.q[2], parent_pose[2] + numbers_as_coefficients(clean(th0)) + turn)
    Rp = _planar_rotation(inter, tj.parent, parent_pose[2])
    Rc = _planar_rotation(inter, tj.child, child.q[2])
    r = sp.Matrix(parent_pose[:2]) + Rp * offset - Rc * sp.Matrix(p_child)
    inter.define(child.q[0], r[0])
    inter.define(child.q[1], r[1])


def _rotation(inter, body, e):
    """R(e) (3 x 3), each entry an intermediate (the ground's: the identity). Named once per
    body (a parent's serves all its children)."""
    R = rotation_from_euler(e)
    if all(sp.sympify(c).is_number for c in e):
        return R
    names = [sp.Symbol(f"R({body})[{a}{b}]", real=True) for a in range(3) for b in range(3)]
    if names[0] not in inter:
        for s, entry in zip(names, R):
            inter.define(s, entry)
    return sp.Matrix(3, 3, names)


def _planar_rotation(inter, body, th):
    if sp.sympify(th).is_number:
        return sp.Matrix([[sp.cos(th), -sp.sin(th)], [sp.sin(th), sp.cos(th)]])
    c_, s_ = sp.Symbol(f"cos({body})", real=True), sp.Symbol(f"sin({body})", real=True)
    if c_ not in inter:
        inter.define(c_, sp.cos(th))
        inter.define(s_, sp.sin(th))
    return sp.Matrix([[c_, -s_], [s_, c_]])


def _check_tree_rows(model, inter, tree_joints, joint_symbol):
    """The tree joints' rows and free coordinates at sampled tree coordinates: the rows vanish and
    each free coordinate (as body coordinates define it) equals the joint's coordinate."""
    import random

    rng = random.Random(20261127)
    values = {s: sp.Float(to_double(e), 30) for s, e in model.parameter_values().items()}
    values[model.time] = sp.Integer(0)
    for c in inter.x:
        values[c] = sp.Float(rng.uniform(-1, 1), 20)
    for c in inter.v:
        values[c] = sp.Integer(0)
    for joint in model.joints:
        if joint.name not in tree_joints:
            continue
        exprs = [model.constraints[i].expr for i in joint.rows]
        if joint.name in joint_symbol:
            exprs.append(joint.coordinate - joint_symbol[joint.name])
        for e, value in zip(exprs, inter.evaluate(exprs, values)):
            if abs(value) > ROW_TOL:
                raise ModelError(
                    model.path,
                    "joints",
                    f"joint '{joint.name}' in joint coordinates: its rows do not hold at the "
                    f"bodies' poses its tree gives (residual {abs(value):.3g}); is the initial "
                    "pose consistent with the joint (its points coincide, its axis aligned)?",
                )
