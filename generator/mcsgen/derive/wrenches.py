"""The joints' reactions as forces and moments: the same physical quantity in both formulations.

A joint's wrench is the force F and moment N (world frame) that the joint exerts on its body 2,
the moment about the joint's point on body 2 (the ground's point when body 2 is the ground: the
wrench then is minus the one on body 1, moved to that point). Given the state (x, v), the
accelerations a = x'' (n) and the multipliers lam (m):

- a joint with rows (every joint in body coordinates, a cut joint in joint coordinates): its
  generalized reaction on a body's coordinates is Q = -(dc_k/dq_b)^T lam_k over its rows k
  (M x'' = f - A^T lam); a body's position part is the force on its centre of mass, the Euler
  parameters' part gives the moment in its own frame n' = G(e) Q_e / 2 (w' = 2 G(e) e', so
  Q_e = 2 G^T n'; G e = 0 drops the norm row's share), turned to the world by R(e); a planar
  body's angle part is the moment;
- a tree joint of joint coordinates (no rows): Newton-Euler over the subtree it carries. Each
  body's reaction, the sum of what all its joints exert on it, is R_b = M_b a_b - f_b in its body
  coordinates (its own and the force elements' Lagrange blocks, the applied forces; a_b its
  accelerations through the tree); over the subtree the joints inside cancel in pairs, so the
  tree joint's wrench on its child is the subtree's sum less the cut joints' wrenches on it from
  outside and the joint's own spring-damper (an applied force on the child, as in body
  coordinates).

Planar models give (F_x, F_y, N_z) per joint, spatial ones (F_x, F_y, F_z, N_x, N_y, N_z).
"""

from typing import TYPE_CHECKING, Dict, List, Optional, Tuple

import sympy as sp

from ..model.bodies import G_matrix
from .joint_terms import floats, mass_and_inertia

if TYPE_CHECKING:  # for the hints only
    from ..model import Model

Wrench = Tuple[sp.Matrix, sp.Matrix]  # (F (3), N (3)), world frame


def acceleration_symbols(n: int) -> List[sp.Symbol]:
    """The accelerations x'' (n) the wrench kernel reads (printed a[i])."""
    return [sp.Symbol(f"@acc{i}", real=True) for i in range(n)]


def wrench_size(model: "Model") -> int:
    """Entries per joint: 3 (planar) or 6 (spatial)."""
    return 3 if model.kind == "planar" else 6


def lock_symbols(model: "Model") -> List[sp.Symbol]:
    """The multipliers of the row groups' quantities g (nmu = the sum of their lengths, groups in
    model order) the wrench kernel reads (printed nu[i]): a lock's rows are weighted sums of its
    group's g (mcs_rows.c), so its reaction is -G^T nu with nu the rows' multipliers carried
    back through the weights (mcs_lock_group_multipliers); 0 for a group not locked."""
    count = sum(len(group.g) for group in model.row_groups)
    return [sp.Symbol(f"@nu{i}", real=True) for i in range(count)]


def joint_wrenches(model: "Model", accel, lam, nu, local=None) -> Optional[sp.Matrix]:
    """(k nj x 1) the joints' wrenches on their bodies 2 (module docstring), k = wrench_size,
    or None for a model without joints. accel (n), lam (m), nu (lock_symbols): the symbols of
    x'', the multipliers and the row groups' multipliers; local(T, V, xs, vs): a Lagrange
    block's M_b, f_b (terms._local_block), needed for the tree joints of joint coordinates.

    A locked joint's wrench includes the torque (force) that holds it: its lock group's
    reaction -G^T nu joins its rows' (a tree joint's lock in joint coordinates is a row of its
    coordinate, which the Newton-Euler balance already carries)."""
    if not model.joints or model.bodies is None:
        return None
    bodies = {b.name: b for b in model.bodies}
    rows = [c.expr for c in model.constraints]
    first = [0]  # each row group's first entry in nu
    for group in model.row_groups:
        first.append(first[-1] + len(group.g))
    wrench_on = {}  # (joint, body) -> (F, N about the body's centre of mass), of a joint's rows

    def rows_wrench(joint, body):
        key = (joint.name, body)
        if key not in wrench_on:
            b = bodies[body]
            reaction = [(lam[i], rows[i]) for i in joint.rows]
            if joint.lock_group >= 0:
                g = model.row_groups[joint.lock_group].g
                start = first[joint.lock_group]
                reaction += [(nu[start + e], ge) for e, ge in enumerate(g)]
            Q = [-sum((m * sp.diff(c, s) for m, c in reaction), sp.Integer(0)) for s in b.q]
            wrench_on[key] = _as_wrench(model, b, Q)
        return wrench_on[key]

    residual, totals = None, None
    if model.intermediates is not None:
        residual = _body_reactions(model, accel, local)
        if model.topology.newton_euler is not None:
            totals = _newton_euler_totals(model, accel)
    out = []
    for joint in model.joints:
        point = _world(model, bodies, joint.body2, model.joint_geometry[joint.name].point2)
        if joint.nrows > 0 or model.intermediates is None:
            if joint.body2 != "ground":
                F, N = _moved(rows_wrench(joint, joint.body2), _centre(bodies[joint.body2]), point)
            else:
                F, N = _moved(rows_wrench(joint, joint.body1), _centre(bodies[joint.body1]), point)
                F, N = -F, -N
        else:
            F, N = _tree_wrench(model, bodies, joint, point, residual, rows_wrench, totals)
        if model.kind == "planar":
            out += [F[0], F[1], N[2]]
        else:
            out += list(F) + list(N)
    return sp.Matrix(len(out), 1, out)


def _centre(body):
    return sp.Matrix(list(body.q[: body.dim]) + [0] * (3 - body.dim))


def _rotation(model, body):
    """A body's rotation (world <- body): the tree's, where joint coordinates compute it (no
    Euler parameters), else from its coordinates."""
    topo = model.topology
    if topo is not None and body.name in topo.frames:
        return topo.frames[body.name].R
    return body.rotation()


def _world(model, bodies, body, point):
    """A joint's point (its body's frame) in the world, as a (3) vector."""
    if body == "ground":
        p = sp.Matrix(point)
    else:
        b = bodies[body]
        p = sp.Matrix(b.q[: b.dim]) + _rotation(model, b) * sp.Matrix(point)
    return sp.Matrix(list(p) + [0] * (3 - len(p)))


def _moved(wrench: Wrench, frm, to) -> Wrench:
    """The same wrench with its moment about `to` instead of `frm`."""
    F, N = wrench
    return F, N + (frm - to).cross(F)


def _as_wrench(model, body, Q) -> Wrench:
    """The wrench (world, moment about the centre of mass) of a generalized force Q on a body's
    coordinates."""
    if body.kind == "planar":
        return sp.Matrix([Q[0], Q[1], 0]), sp.Matrix([0, 0, Q[2]])
    if all(q == 0 for q in Q[3:7]):
        return sp.Matrix(Q[:3]), sp.zeros(3, 1)
    e = body.q[3:7]
    moment = _rotation(model, body) * (G_matrix(e) * sp.Matrix(Q[3:7])) / 2
    return sp.Matrix(Q[:3]), moment


def _body_reactions(model, accel, local) -> Dict[str, Wrench]:
    """{body: its reaction (world, about its centre of mass)} of a joint-coordinate model: what
    its joints exert on it, its inertial wrench less the applied forces.

    A body takes its Lagrange block over its body coordinates: R_b = M_b a_b - f_b, a_b its
    accelerations through the tree, except the spatial bodies of a tree on the ground, whose
    inertia and weight the Newton-Euler totals carry (_newton_euler_totals): those take only
    what acts on them besides. The force elements' blocks and the applied forces in body
    coordinates are taken off (a tree joint's spring-damper, now on its coordinate, is left to
    _tree_wrench). A tree joint's rotor (T = I_r qd^2 / 2, qd = a . (w1 - w2) its axial rate)
    takes the moments its block gives in body coordinates, in closed form (_rotor_moments)."""
    inter, topo = model.intermediates, model.topology
    body_x, body_v = topo.body_x, topo.body_v
    nbodies = len(model.bodies)
    # (a floating body's Euler parameters are coordinates, unit only on the motion: its
    # rotor's block stays, exact at every state as check samples it)
    rotors = {
        b: r
        for b, r in topo.rotors.items()
        if r[0] in topo.joint_symbol
        and not any(
            floats(topo, body)
            for body in (topo.joints[r[0]].body1, topo.joints[r[0]].body2)
            if body != "ground"
        )
    }
    direction = dict(zip(model.v, accel))
    acc = {}

    def body_acc(r):  # x_b'' through the tree
        if r not in acc:
            acc[r] = inter.dot(r) + inter.tangent(r, direction, "wacc")
        return acc[r]

    Q = {s: sp.Integer(0) for s in body_x}  # generalized reactions, body coordinates
    index = {s: k for k, s in enumerate(body_x)}
    vindex = {s: k for k, s in enumerate(body_v)}
    newton_euler = set(topo.newton_euler[0]) - {"ground"} if topo.newton_euler else set()
    for number, block in enumerate(model.blocks):
        if number < nbodies and model.bodies[number].name in newton_euler:
            continue
        if number - nbodies in rotors:
            continue
        T, V = block[0], block[1]
        after = block[2] if len(block) > 2 else {}
        free = T.free_symbols | V.free_symbols
        cols = sorted(
            {index[s] for s in free if s in index} | {vindex[s] for s in free if s in vindex}
        )
        if not cols:
            continue  # a tree joint's spring, on its coordinate
        xs, vs = [body_x[k] for k in cols], [body_v[k] for k in cols]
        Mb, fb = local(T, V, xs, vs)
        Mb, fb = Mb.xreplace(after), fb.xreplace(after)
        for a, k in enumerate(cols):
            inertial = sum(
                (Mb[a, b] * body_acc(body_v[kk]) for b, kk in enumerate(cols) if Mb[a, b] != 0),
                sp.Integer(0),
            )
            Q[body_x[k]] += inertial - fb[a]
    if topo.body_forces is not None:
        for s, applied in zip(body_x, topo.body_forces):
            Q[s] -= applied
    extra = _rotor_moments(model, accel, rotors.values())
    out = {}
    for body in model.bodies:
        name = body.name
        F, N = _as_wrench(
            model, body, [inter.name(f"R({name})[{a}]", Q[s]) for a, s in enumerate(body.q)]
        )
        N = N + extra.get(name, sp.zeros(3, 1))
        out[name] = (
            sp.Matrix([inter.name(f"Fr({name})[{a}]", F[a]) for a in range(3)]),
            sp.Matrix([inter.name(f"Nr({name})[{a}]", N[a]) for a in range(3)]),
        )
    return out


def _rotor_moments(model, accel, rotors) -> Dict[str, sp.Matrix]:
    """{body: (3) moment (world)} of the tree joints' rotors (joint, I_r): the Lagrange terms
    of T = I_r qd^2 / 2 with qd = a1 . w1 - a2 . w2 on a body's Euler parameters give, through
    n' = G(e) Q_e / 2 and 2 G(e) G(edot)^T a' = w' x a', the rate of the rotor's angular
    momentum I_r qd a carried by each body:

        on body 1:  I_r (qdd a + qd w1 x a),    on body 2:  -I_r (qdd a + qd w2 x a)

    (a the joint's axis, w the bodies' angular velocities, world; planar: w x a = 0)."""
    from ..model.joint_coordinates import joint_motion_axis  # (it imports derive)

    topo = model.topology
    out = {}
    for joint, inertia in rotors:
        g = topo.joints[joint]
        tj = next(t for t in topo.tree.joints if t.joint == joint)
        k = model.x.index(topo.joint_symbol[joint])
        _, direction = joint_motion_axis(model, joint, tj)
        axis = direction if tj.child == g.body1 else -direction  # body1's axis
        for body, sign in ((g.body1, 1), (g.body2, -1)):
            if body == "ground":
                continue
            moment = (
                sign * inertia * (accel[k] * axis + model.v[k] * _omega(model, body).cross(axis))
            )
            out[body] = out.get(body, sp.zeros(3, 1)) + moment
    return out


def _omega(model, body):
    """A body's angular velocity (world, (3)): the tree's frame, or a planar body's rate."""
    topo = model.topology
    if body in topo.frames:
        return topo.frames[body].R * sp.Matrix(topo.frames[body].w)
    b = next(b for b in model.bodies if b.name == body)
    return sp.Matrix([0, 0, b.qd[2]])


def _subtree(tree, child):
    """The bodies a tree joint carries: its child and every body below it."""
    below = {child}
    for tj in tree.joints:  # parents before children
        if tj.parent in below:
            below.add(tj.child)
    return below


def _tree_wrench(model, bodies, joint, point, residual, rows_wrench, totals) -> Wrench:
    """A tree joint's wrench on its body 2, moment about `point`; totals: the subtrees'
    Newton-Euler totals (_newton_euler_totals), or None off a spatial tree on the ground."""
    from ..model.joint_coordinates import joint_motion_axis  # (it imports derive)

    topo = model.topology
    tree = topo.tree
    tj = next(t for t in tree.joints if t.joint == joint.name)
    below = _subtree(tree, tj.child)
    F, N = sp.zeros(3, 1), sp.zeros(3, 1)
    if totals is not None:  # the subtree's inertia and weight, about the joint
        F_s, N_s = totals[tj.child]
        link = topo.links[joint.name]
        R = topo.frames[tj.child].R
        F = R * F_s
        N = R * (N_s + link.hang.cross(F_s))
        if model.joint_geometry[joint.name].type != "revolute":  # a revolute joint's points
            at = _world(model, bodies, tj.child, _child_point(model, joint, tj))  # coincide
            F, N = _moved((F, N), at, point)
    for name in sorted(below, key=[b.name for b in model.bodies].index):
        Fb, Nb = _moved(residual[name], _centre(bodies[name]), point)
        F, N = F + Fb, N + Nb
    for other in model.joints:  # cut joints from outside the subtree
        if other.nrows == 0:
            continue
        for body, across in ((other.body1, other.body2), (other.body2, other.body1)):
            if body in below and across not in below:
                Fc, Nc = _moved(rows_wrench(other, body), _centre(bodies[body]), point)
                F, N = F - Fc, N - Nc
    for (name, _, k, c, rest), damping in topo.springs:
        if name != joint.name or name not in topo.joint_symbol:
            continue
        q = topo.joint_symbol[name]
        torque = -k * (q - rest)
        if damping is not None:
            torque -= c * model.v[model.x.index(q)]
        kind, direction = joint_motion_axis(model, joint.name, tj)
        if kind == "revolute":
            N -= torque * direction
        else:
            F -= torque * direction
    for name, _, u in topo.joint_inputs:  # a tree joint's input, on its coordinate
        if name != joint.name or name not in topo.joint_symbol:
            continue
        kind, direction = joint_motion_axis(model, joint.name, tj)
        if kind == "revolute":
            N -= u * direction
        else:
            F -= u * direction
    if tj.child != joint.body2:  # the wrench on body 1: body 2 takes the opposite
        F, N = -F, -N
    return F, N


def _child_point(model, joint, tj):
    """A tree joint's point on its child (the child's frame)."""
    g = model.joint_geometry[joint.name]
    return g.point1 if tj.child == joint.body1 else g.point2


def _newton_euler_totals(model, accel):
    """{child body: (F, N)} (its own frame, N about its centre of mass): what the subtree below
    each spatial tree joint needs to move as it does, weight included: the Newton-Euler pass's
    totals at qdd = 0 (derive/joint_terms.py) plus their parts linear in qdd, by the same
    recursion on the accelerations qdd alone causes (the first stage of the qdd = 0 pass, its
    velocity terms dropped):

        alpha_C = Q^T alpha_P + sign qdd axis            (revolute)
        acc_C = Q^T (acc_P + alpha_P x offset) + alpha_C x hang  (+ sign qdd axis: prismatic)
        F_C = m acc_C + sum Q_k F_k,  N_C = I alpha_C + sum (Q_k N_k + d_k x Q_k F_k)"""
    topo, inter = model.topology, model.intermediates
    state, totals = topo.newton_euler
    bodies = {b.name: b for b in model.bodies}
    zero = sp.zeros(3, 1)
    alpha, acc, children = {"ground": zero}, {"ground": zero}, {}

    def named(name, vec):
        return sp.Matrix([inter.name(f"{name}[{a}]", vec[a]) for a in range(3)])

    for tj in topo.steps:  # parents before children
        link = topo.links[tj.joint]
        a_c = link.Q.T * alpha[tj.parent]
        acc_j = acc[tj.parent] + alpha[tj.parent].cross(link.offset)
        acc_c = link.Q.T * acc_j
        if tj.joint in topo.step_symbol:
            qdd = accel[model.x.index(topo.step_symbol[tj.joint])]
            if link.kind == "revolute":
                a_c += link.sign * qdd * link.axis
            else:
                acc_c += link.sign * qdd * link.axis
        alpha[tj.child] = named(f"alphaq({tj.child})", a_c)
        acc[tj.child] = named(f"accq({tj.child})", acc_c + alpha[tj.child].cross(link.hang))
        children.setdefault(tj.parent, []).append(tj)
    out = {}
    for tj in reversed(topo.steps):  # children before parents
        mass, inertia = mass_and_inertia(bodies, tj.child)
        force = mass * acc[tj.child]
        moment = inertia * alpha[tj.child]
        for child in children.get(tj.child, ()):
            F_k, N_k = out[child.child]
            link_k = topo.links[child.joint]
            QF = link_k.Q * F_k
            d_k = link_k.offset + link_k.Q * link_k.hang
            force += QF
            moment += link_k.Q * N_k + d_k.cross(QF)
        out[tj.child] = (named(f"Fq({tj.child})", force), named(f"Nq({tj.child})", moment))
    return {
        child: (totals[child][0] + F_q, totals[child][1] + N_q) for child, (F_q, N_q) in out.items()
    }
