"""`coordinates: joint`: a bodies-and-joints model rewritten in the coordinates of its joints.

The model is first built and its initial state solved in body coordinates, as for
`coordinates: body` (mechanism.py, initial.py): the same rows, Lagrange blocks, forces and
initial state. Then (to_joint_coordinates):

- the spanning tree (tree.py) picks the tree joints; each revolute or prismatic tree joint
  contributes one coordinate, named after the joint (the angle about, or the position along,
  its axis, as its free coordinate `j.<joint>` is defined in body coordinates: from the initial
  pose, plus its `initial:`), a universal tree joint two (its angles about axis1 and axis2,
  _place_universal_child); a body the tree does not reach keeps its body coordinates (and its
  norm row);
- every other body's coordinates (`<body>.x`, ..., `<body>.e3`) and velocities become
  intermediates (derive/intermediates.py): its pose is a short expression of its parent's pose
  and its joint's coordinate, its velocities the time derivatives of those;
- the tree joints' rows and the norm rows of the bodies they place hold identically and are
  dropped; the rows of cut joints, drivers and the norm rows of floating bodies stay, as
  expressions of the bodies' poses;
- the initial state is the body model's, expressed in the tree's coordinates.

derive/joint_terms.py then projects the bodies' Lagrange blocks through the pose Jacobians.
"""

from dataclasses import dataclass, field
from typing import Dict, List, Optional

import sympy as sp

from ..derive.intermediates import Intermediates
from ..errors import ModelError
from .consistency import check_consistency
from .bodies import G_matrix, quat_conj, quat_mul, rotation_from_euler
from .exact import DIGITS, clean, numbers_as_coefficients, to_double
from .ir import Constraint, Coordinate
from .joints import joint_rate_label
from .switches import RowGroup
from .tree import TREE_TYPES, TreeJoint, free_rotations, spanning_tree

# the coordinates of a tree joint the recursive algorithms take as several steps (name, unit),
# and what its lock holds
STEP_COORDINATES = {
    "universal": (("angle1", "rad"), ("angle2", "rad")),
    "cylindrical": (("translation", "m"), ("angle", "rad")),
    "planar": (("y", "m"), ("z", "m"), ("angle", "rad")),
    "parallel": (("x", "m"), ("y", "m"), ("z", "m"), ("angle", "rad")),
}
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
    # `<joint>:cross` (_place_universal_child); step_symbol: step -> the coordinate it turns
    # or slides by (not for a fixed joint)
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
    joint's two steps, sign -1 where the child is body1, _place_universal_child)."""

    Q: sp.Matrix
    offset: sp.Matrix
    hang: sp.Matrix
    axis: sp.Matrix
    rate: sp.Expr
    sign: int
    kind: str


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

    # the coordinates: the floating bodies', then the tree joints' (file order)
    coords = []
    for name in tree.roots:
        coords += [body_coordinates[s] for s in bodies[name].q]
    joint_symbol, universal_symbols, spherical_symbols = {}, {}, {}
    for name, g in topo.joints.items():
        tj = tree.parent_joint.get(_child_of(tree, name))
        if tj is None or tj.joint != name or TREE_TYPES[g.type] == 0:
            continue
        if g.type == "spherical":  # the relative rotation's Euler parameters (unit norm row)
            four = []
            for k in range(4):
                e = sp.Symbol(f"{name}.e{k}", real=True)
                coords.append(Coordinate(e.name, "1", e, sp.Symbol(f"{e.name}_dot", real=True)))
                four.append(e)
            spherical_symbols[name] = tuple(four)
            continue
        if g.type in STEP_COORDINATES:  # a universal, cylindrical or planar joint's
            pair = []
            for what, unit in STEP_COORDINATES[g.type]:
                q = sp.Symbol(f"{name}.{what}", real=True)
                coords.append(Coordinate(q.name, unit, q, sp.Symbol(f"{q.name}_dot", real=True)))
                pair.append(q)
            universal_symbols[name] = tuple(pair)
            continue
        unit = "rad" if g.type == "revolute" else "m"
        q = sp.Symbol(name, real=True)
        coords.append(Coordinate(name, unit, q, sp.Symbol(f"{name}_dot", real=True)))
        joint_symbol[name] = q

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
            _place_universal_child(inter, topo, g, tj, bodies, universal_symbols[tj.joint])
        elif g.type == "cylindrical":
            _place_cylindrical_child(inter, topo, g, tj, bodies, universal_symbols[tj.joint])
        elif g.type in ("planar", "parallel"):
            _place_plane_child(inter, topo, g, tj, bodies, universal_symbols[tj.joint])
        elif g.type == "spherical":
            _place_spherical_child(inter, topo, g, tj, bodies, spherical_symbols[tj.joint])
        elif model.kind == "spatial":
            topo.steps.append(tj)
            if q is not None:
                topo.step_symbol[tj.joint] = q
            _place_spatial_child(inter, topo, g, tj, bodies, q)
        else:
            _place_planar_child(inter, g, tj, poses[tj.parent], bodies, q)
        for s, r in zip(child.q, child.qd):
            inter.define_rate(s, r)
        poses[tj.child] = _pose_of(child)

    placed = {tj.child for tj in tree.joints}
    tree_joints = {tj.joint for tj in tree.joints}
    _check_tree_rows(model, inter, tree_joints, joint_symbol)

    # rows: drop the tree joints' and the placed bodies' norm rows, keep the rest in order
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

    # initial state: the body model's, in the tree's coordinates
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
        }.get(topo.joints[name].type, _universal_initial)
        state = initial_state(topo, tree, bodies, name, x_float, v_body, moved or model.starts_held)
        universal.update({q: (state[k], state[k + len(pair)]) for k, q in enumerate(pair)})
    for name, four in spherical_symbols.items():  # (1, 0, 0, 0) at the pose as written
        state = _spherical_initial(topo, tree, bodies, name, x_float, v_body)
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
            x0.append(to_double(value))
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

    # the joints: tree joints' free coordinates are theirs; cut joints keep their rows
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

    model.coordinates = coords
    model.constraints = constraints
    model.intermediates = inter
    model.x0, model.v0 = x0, v0
    model.initial_x = initial_x
    model.initial_v = [sp.Integer(0)] * len(coords)
    model.held = held
    model.x_assembled = None
    model.jacobian_assembled = None
    # a tree joint's spring-damper acts on its coordinate: its potential k/2 (q - rest)^2 as a
    # block of q, its damping -c qd on q (in place of their body-coordinate forms)
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
    return model


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


def _motion(g, tj, q):
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


def joint_motion_axis(model, joint, tj):
    """(kind, (3) world direction) of a tree joint's motion: its child turns about
    (revolute) or slides along (prismatic) the direction, per unit of the joint's coordinate
    (the axis in the parent's frame, turned to the world, times the motion's sign)."""
    topo = model.topology
    g = topo.joints[joint]
    _, _, u_parent, sign, _ = _motion(g, tj, topo.joint_symbol[joint])
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
    p_parent, p_child, u_parent, _, move = _motion(g, tj, q)
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


def _place_spatial_child(inter, topo, g, tj, bodies, q):
    """Define a spatial child body's rotation R_C = R_P Q (Q the joint's relative rotation:
    about the axis by the motion, times the initial relative rotation), its centre of mass,
    its angular velocity in its own frame w_C = Q^T w_P + qd u_C, and its Euler parameters
    (e_P times the relative quaternion: only the kernels that read them compute them)."""
    child, parent = bodies[tj.child], bodies.get(tj.parent)  # parent None: the ground
    P = topo.frames[tj.parent]
    p_parent, p_child, u_parent, sign, move = _motion(g, tj, q)
    j = tj.joint
    e_p0 = parent.x0[3:7] if parent is not None else (1, 0, 0, 0)
    rel0 = tuple(
        numbers_as_coefficients(clean(c)) for c in quat_mul(quat_conj(e_p0), child.x0[3:7])
    )
    R_rel0 = rotation_from_euler(rel0).applyfunc(_snapped)
    u = sp.Matrix(u_parent).applyfunc(_snapped)
    offset = sp.Matrix(p_parent).applyfunc(_zero_snapped)
    p_child = sp.Matrix(p_child).applyfunc(_zero_snapped)
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
            turn_back = _axis_rotation(u, sp.cos(back), sp.sin(back))
            R_base = (turn_back * R_rel0).applyfunc(_snapped)
            half_back = (sp.cos(back / 2),) + tuple(sp.sin(back / 2) * a for a in u)
            rel_base = tuple(_snapped(c) for c in quat_mul(half_back, rel0))
        c_ = inter.name(f"cos({j})", sp.cos(angle))
        s_ = inter.name(f"sin({j})", sp.sin(angle))
        Q = (_axis_rotation(u, c_, s_) * R_base).applyfunc(sp.expand)
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


def _record_motion(inter, topo, step, sign, axis, point, kind):
    """A tree step's axis and point in the world (named), for the Jacobian columns of the
    bodies beyond it (topology.motions)."""
    topo.motions[step] = (
        sign,
        [inter.name(f"axis({step})[{a}]", axis[a]) for a in range(3)],
        [inter.name(f"point({step})[{a}]", point[a]) for a in range(3)],
        kind,
    )


def _place_universal_child(inter, topo, g, tj, bodies, angles):
    """A universal joint's child, through two revolute steps of the recursive algorithms: the
    first turns a massless frame at the joint's cross, `<joint>:cross` (origin at the joint's
    point, the parent's orientation turned), about the parent's axis; the second turns the
    child about its own axis. With R0 the bodies' initial relative rotation (body1 <- body2),

        R(body1 <- body2) = Rot(axis1, angle1) R0 Rot(axis2, angle2)

    (axis1 in body1's frame, axis2 in body2's; both angles 0 at the initial pose). The two
    angles are coordinates of every pose the joint allows: no singular configuration of the
    parametrization (a universal joint is a 2-torus). A child that is body1 turns by the
    angles' negatives, about axis2 first."""
    child, parent = bodies[tj.child], bodies.get(tj.parent)  # parent None: the ground
    P = topo.frames[tj.parent]
    j, first, cross = tj.joint, f"{tj.joint}:1", f"{tj.joint}:cross"
    child_is_body1 = tj.child == g.body1
    sign = -1 if child_is_body1 else 1
    q_p, q_c = (angles[1], angles[0]) if child_is_body1 else angles
    p_parent, p_child = (g.point2, g.point1) if child_is_body1 else (g.point1, g.point2)
    u_p, u_c = (g.axis2, g.axis1) if child_is_body1 else (g.axis1, g.axis2)
    u_p, u_c = sp.Matrix(u_p).applyfunc(_snapped), sp.Matrix(u_c).applyfunc(_snapped)
    e_p0 = parent.x0[3:7] if parent is not None else (1, 0, 0, 0)
    rel0 = tuple(
        numbers_as_coefficients(clean(c)) for c in quat_mul(quat_conj(e_p0), child.x0[3:7])
    )
    R0 = rotation_from_euler(rel0).applyfunc(_snapped)
    u_x = (R0 * u_c).applyfunc(_snapped)  # the child's axis in the cross's frame
    offset = sp.Matrix(p_parent).applyfunc(_zero_snapped)
    hang = -sp.Matrix(p_child).applyfunc(_zero_snapped)
    zero = sp.zeros(3, 1)

    def turn(step, q, u):  # (Q, half-angle quaternion, rate) of a turn by sign q about u
        c_ = inter.name(f"cos({step})", sp.cos(sign * q))
        s_ = inter.name(f"sin({step})", sp.sin(sign * q))
        half = (inter.name(f"cos({step}/2)", sp.cos(sign * q / 2)),)
        half += tuple(inter.name(f"sin({step}/2)", sp.sin(sign * q / 2)) * a for a in u)
        return _axis_rotation(u, c_, s_), half, sign * inter.v[inter.x.index(q)]

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


def _place_spherical_child(inter, topo, g, tj, bodies, e):
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
    child, parent = bodies[tj.child], bodies.get(tj.parent)  # parent None: the ground
    P = topo.frames[tj.parent]
    j = tj.joint
    child_is_body1 = tj.child == g.body1
    p_parent, p_child = (g.point2, g.point1) if child_is_body1 else (g.point1, g.point2)
    e_p0 = parent.x0[3:7] if parent is not None else (1, 0, 0, 0)
    rel0 = tuple(
        numbers_as_coefficients(clean(c)) for c in quat_mul(quat_conj(e_p0), child.x0[3:7])
    )
    R0 = rotation_from_euler(rel0).applyfunc(_snapped)
    offset = sp.Matrix(p_parent).applyfunc(_zero_snapped)
    p_child = sp.Matrix(p_child).applyfunc(_zero_snapped)
    Q = (R0 * rotation_from_euler(e)).applyfunc(sp.expand)
    Q = Q.applyfunc(lambda c: inter.name(f"Q({j})", c))
    rel = tuple(inter.name(f"rel({j})[{k}]", c) for k, c in enumerate(quat_mul(rel0, e)))
    rates = sp.Matrix([inter.v[inter.x.index(c)] for c in e])
    w_joint = 2 * G_matrix(e) * rates
    _place_body(inter, topo, bodies, tj, P, Q, offset, p_child, rel, w_joint, j)


def _spherical_initial(topo, tree, bodies, name, values, v_body):
    """(e (4), e' (4)) of a spherical tree joint in the body model's initial state (30-digit
    numbers), from e_child = e_parent rel0 e (_place_spherical_child): e = conj(rel0)
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


def _place_cylindrical_child(inter, topo, g, tj, bodies, pair):
    """A cylindrical joint's child: a slide of a massless frame along the axis by the
    translation (F1's origin along the axis in F2's basis, as a prismatic joint's coordinate:
    the points' offset at the pose as written), then a turn of the child about the axis by the
    angle (0 there); the two commute (the same axis), and a child that is body2 moves by their
    negatives (_motion). With R0 the bodies' initial relative rotation (parent <- child):

        R(parent <- child) = Rot(u, sign angle) R0,   point = parent point + sign translation u"""
    translation, angle = pair
    p_parent, p_child, u_p, sign, _ = _motion(g, tj, translation)
    u_p = sp.Matrix(u_p).applyfunc(_snapped)
    base = sp.Matrix(p_parent).applyfunc(_zero_snapped) - sign * g.initial * u_p
    steps = [("prismatic", translation, sign, u_p, base), ("revolute", angle, sign, u_p, None)]
    _place_step_chain(inter, topo, tj, bodies, steps, p_child)


def _place_plane_child(inter, topo, g, tj, bodies, coords):
    """A spatial planar or parallel joint's child (coords: the translations, then the angle):
    F1's origin in F2's basis at (0, y, z) (planar) or (x, y, z) (parallel), as at the pose as
    written, body1 turned about the joint's axis by the angle (0 there). Body1 as the child:
    slides along F2's axes (fixed in the parent, body2), then the turn; body2 as the child:
    the inverse, the turn by -angle about F1's axis first, then the slides back along F2's axes
    (fixed in the child)."""
    *shifts, angle = coords
    child, parent = bodies[tj.child], bodies.get(tj.parent)  # parent None: the ground
    e_p0 = parent.x0[3:7] if parent is not None else (1, 0, 0, 0)
    R0 = rotation_from_euler(
        [numbers_as_coefficients(clean(c)) for c in quat_mul(quat_conj(e_p0), child.x0[3:7])]
    ).applyfunc(_snapped)
    directions = [sp.Matrix(d).applyfunc(_snapped) for d in _translation_axes(g)]
    if tj.child == g.body1:  # the parent is body2
        base = sp.Matrix(g.point2).applyfunc(_zero_snapped)
        steps = [("prismatic", q, 1, d, None) for q, d in zip(shifts, directions)]
        steps[0] = steps[0][:4] + (base,)
        steps.append(("revolute", angle, 1, sp.Matrix(g.axis2).applyfunc(_snapped), None))
        p_child = g.point1
    else:
        base = sp.Matrix(g.point1).applyfunc(_zero_snapped)
        steps = [("revolute", angle, -1, sp.Matrix(g.axis1).applyfunc(_snapped), base)]
        steps += [("prismatic", q, -1, (R0 * d).applyfunc(_snapped), None)
                  for q, d in zip(shifts, directions)]  # fmt: skip
        p_child = g.point2
    _place_step_chain(inter, topo, tj, bodies, steps, p_child)


def _translation_axes(g):
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
    child, parent = bodies[tj.child], bodies.get(tj.parent)  # parent None: the ground
    j = tj.joint
    e_p0 = parent.x0[3:7] if parent is not None else (1, 0, 0, 0)
    rel0 = tuple(
        numbers_as_coefficients(clean(c)) for c in quat_mul(quat_conj(e_p0), child.x0[3:7])
    )
    R0 = rotation_from_euler(rel0).applyfunc(_snapped)
    hang = -sp.Matrix(p_child).applyfunc(_zero_snapped)
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
            turn = _axis_rotation(u, c_, s_)
            half = (inter.name(f"cos({step}/2)", sp.cos(sign * q / 2)),)
            half += tuple(inter.name(f"sin({step}/2)", sp.sin(sign * q / 2)) * a for a in u)
        else:
            turn, half = sp.eye(3), (sp.Integer(1),) + (sp.Integer(0),) * 3
            offset = offset + sign * q * u
        Q = turn * R0 if last else turn
        if Q != sp.eye(3):
            Q = Q.applyfunc(sp.expand).applyfunc(lambda c: inter.name(f"Q({step})", c))
        axis = (R0.T * u).applyfunc(_snapped) if last else u  # in the step's child frame
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


def cylindrical_initial(topo, tree, bodies, name, values, v_body, moved):
    """(translation, angle, their rates) of a cylindrical tree joint in the body model's initial
    state (30-digit numbers; the angle exactly 0 at the pose as written unless the assembly
    moved it): F1's origin along the axis in F2's basis (plus the joint's `initial:`, as
    _motion counts it) and the turn about the axis from the pose as written. values: the body
    coordinates, parameters and geometry symbols as numbers; v_body: the body velocities."""
    g = topo.joints[name]
    rel = _RelativeState(g, bodies, values, v_body)
    at = rel if moved else _RelativeState(g, bodies, values, v_body, written=True)
    u2 = rel.vector(g.axis2)
    translation = rel.num(u2.dot(at.gap) + g.initial)
    angle = rel.angle_about(u2) if moved else sp.Integer(0)
    return translation, angle, rel.num(u2.dot(rel.gap_rate)), rel.angle_rate(u2)


def planar_initial(topo, tree, bodies, name, values, v_body, moved):
    """(the translations, the angle, their rates) of a spatial planar or parallel tree joint in
    the body model's initial state (30-digit numbers, the angle exactly 0 at the pose as written
    unless the assembly moved it): F1's origin in F2's basis and the turn about the axis."""
    g = topo.joints[name]
    rel = _RelativeState(g, bodies, values, v_body)
    at = rel if moved else _RelativeState(g, bodies, values, v_body, written=True)
    directions = [rel.vector(d) for d in _translation_axes(g)]
    u2 = rel.vector(g.axis2)
    angle = rel.angle_about(u2) if moved else sp.Integer(0)
    shifts = tuple(rel.num(d.dot(at.gap)) for d in directions)
    rates = tuple(rel.num(d.dot(rel.gap_rate)) for d in directions) + (rel.angle_rate(u2),)
    return shifts + (angle,) + rates


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


def _universal_initial(topo, tree, bodies, name, values, v_body, moved):
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
    (_place_universal_child); values: what the symbols among them (and the axes) stand for.
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


def _axis_rotation(u, c, s):
    """(3 x 3) the rotation by the angle of cosine c and sine s about the unit axis u (3 x 1)."""
    cross = sp.Matrix([[0, -u[2], u[1]], [u[2], 0, -u[0]], [-u[1], u[0], 0]])
    return c * sp.eye(3) + s * cross + (1 - c) * (u * u.T)


# A joint's rotation at its zero, its axis and points in its bodies' frames are usually 0 or
# +-1 (URDF's and DH's frames), but come out 1e-16..1e-15 off from a file whose poses are
# doubles (import-urdf writes the world poses at the start state): within this they are taken
# as exactly 0 or +-1, which the doubles cannot tell apart, so the kernels lose the products
# with noise (the imported PUMA 560 at its start state: 79 KB of C against 60 at q = 0)
SNAP = 1e-13


def _snapped(c):
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


def _zero_snapped(c):
    """A joint point's coordinate: exactly 0 within SNAP (metres) of it."""
    return sp.Integer(0) if c.is_number and abs(float(c)) <= SNAP else c


def P_quaternion(topo, body, bodies):
    """A body's Euler parameters (the ground's: 1, 0, 0, 0)."""
    if body == "ground":
        return (sp.Integer(1), sp.Integer(0), sp.Integer(0), sp.Integer(0))
    return tuple(bodies[body].q[3:7])


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
