"""The mechanism file of an imported URDF tree: ordinary YAML, one comment per body and joint
saying which URDF element it came from (docs/reference/urdf.md)."""

import re
import textwrap

import mpmath
import sympy as sp

from ..model.bodies import quaternion_from_matrix
from .tree import DIGITS, mp, unit

SNAP = mpmath.mpf("1e-14")  # relative to the largest entry: below it an entry is round-off


def num(value, tol=0):
    """The shortest decimal text within `tol` of an mpf (or, with tol = 0, of the double nearest
    it). Deterministic: mpmath rounds correctly and Python's float formatting is exact."""
    x = float(value)
    if x == 0:
        return "0"
    for digits in range(1, 18):
        text = format(x, f".{digits}g")
        if float(text) == x or abs(mpmath.mpf(text) - value) <= tol:
            break
    text = repr(float(text))  # the same double's shortest text, positional where Python's is
    return text[:-2] if text.endswith(".0") else text


def nums(values):
    """A YAML list of numbers, each the shortest text within 1e-15 of the largest (round-off of
    the 17-digit pi/2 of a URDF's rpy, say, is not written out)."""
    values = list(values)
    scale = max([abs(v) for v in values] + [mpmath.mpf(0)])
    tol = mpmath.mpf("1e-15") * scale
    return "[" + ", ".join(num(0 if abs(v) <= SNAP * scale else v, tol) for v in values) + "]"


def quaternion(R):
    """Unit quaternion (w, x, y, z), w >= 0, of a rotation matrix (3 x 3 mpmath): the model's own
    conversion (bodies.quaternion_from_matrix) on DIGITS-digit SymPy Floats."""
    exact = sp.Matrix(3, 3, lambda i, j: sp.Float(mpmath.nstr(R[i, j], DIGITS), DIGITS))
    q = [mpmath.mpf(str(sp.Float(c, DIGITS))) for c in quaternion_from_matrix(exact)]
    norm = mpmath.sqrt(sum(c * c for c in q))
    return [c / norm for c in q]


def comment_text(text):
    """Text safe inside a YAML comment or block scalar: printable ASCII on one line."""
    text = re.sub(r"\s+", " ", str(text))
    return "".join(ch if 32 <= ord(ch) < 127 else "?" for ch in text)


def quoted(text):
    return '"' + comment_text(text).replace("\\", "\\\\").replace('"', '\\"') + '"'


# the joints a controller drives: a torque (revolute, continuous) or force (prismatic) input
ACTUATED = ("revolute", "continuous", "prismatic")


def input_name(wanted, taken):
    """wanted, or wanted_2, _3, ... when a body, joint or parameter has that name already."""
    name, k = wanted, 2
    while name in taken:
        name, k = f"{wanted}_{k}", k + 1
    taken.add(name)
    return name


def stopped_joints(tree):
    """The joints whose URDF <limit lower upper> become stops: revolute and prismatic ones (a
    continuous joint has none) whose start lies within them (urdf/__init__.py notes the others)."""
    out = []
    for j in tree.joints if getattr(tree, "stops_from_limits", True) else []:
        limit = j.urdf.limit or {}
        if j.urdf.type not in ("revolute", "prismatic") or not {"lower", "upper"} <= set(limit):
            continue
        if not limit["lower"] < limit["upper"]:
            continue
        start = float(j.q) if j.q is not None else 0.0
        if float(limit["lower"]) <= start <= float(limit["upper"]):
            out.append(j)
    return out


def render(tree, name, source, gravity, coordinates="joint"):
    """The YAML text. gravity: None (9.81 along -z, as the parameter g) or 3 Fractions;
    coordinates: joint (the joints' coordinates) or body (each body's pose)."""
    robot = tree.robot
    about = (
        f"Imported from the URDF robot '{comment_text(robot.name)}' ({comment_text(source)}): "
        f"{len(tree.bodies)} bodies, {len(tree.joints)} joints. Body frames are the URDF link "
        "frames, positions the centres of mass. Joint coordinates (CSV columns j.<joint>) are "
        "the URDF joint positions. <limit lower upper> are end stops (plastic), <dynamics "
        "friction> Coulomb friction (static = kinetic; joint coordinates only); mcsgen has no "
        "contact between bodies."
    )
    out = [
        f"# Imported from {comment_text(source)} by ./mcsgen import-urdf: an ordinary mechanism",
        "# file (docs/reference/model-file.md); edit it, then generate and simulate.",
        f"name: {name}",
        "description: |",
    ]
    out += ["  " + line for line in textwrap.wrap(about, 96)]
    out.append("  What the import did:")
    for note in tree.notes:
        lines = textwrap.wrap(comment_text(note), 94)
        out += ["  - " + lines[0]] + ["    " + line for line in lines[1:]]
    out.append(f"source: {quoted(source)}")
    dampers = [j for j in tree.joints if j.urdf.damping > 0 and j.urdf.type != "planar"]
    params = []
    if gravity is None:
        params.append("  g: {value: 9.81, unit: m/s^2, description: gravity along -z}")
    for j in dampers:
        unit_text = "N m s/rad" if j.urdf.type != "prismatic" else "N s/m"
        params.append(
            f"  damping_{j.name}: {{value: {num(j.urdf.damping)}, unit: {unit_text}, "
            f"description: <dynamics damping> of joint {quoted(j.urdf.name)}}}"
        )
    if params:
        out.append("parameters:")
        out += params
    if gravity is None:
        out.append("gravity: [0, 0, -g]")
    else:
        out.append(f"gravity: {nums([mpmath.mpf(g.numerator) / g.denominator for g in gravity])}")
    out.append(f"coordinates: {coordinates}")
    out.append("bodies:")
    free = {f[0] for f in tree.free}
    for body in tree.bodies.values():
        link = robot.links[body.link]
        merged = f"; merged: {', '.join(body.merged)}" if body.merged else ""
        out.append(f"  # link {quoted(body.link)} ({comment_text(link.where)}){merged}")
        out.append(f"  - name: {body.name}")
        out.append("    type: spatial")
        out.append(f"    mass: {num(body.mass)}")
        J = body.inertia
        scale = max(abs(J[a, b]) for a in range(3) for b in range(3))
        off = [J[0, 1], J[0, 2], J[1, 2]]
        if all(abs(v) <= SNAP * scale for v in off):
            out.append(f"    inertia: {nums([J[0, 0], J[1, 1], J[2, 2]])}")
        else:
            rows = ", ".join(nums([J[a, b] for b in range(3)]) for a in range(3))
            out.append(f"    inertia: [{rows}]")
        if body.inertia_check != "strict":
            out.append(f"    inertia_check: {body.inertia_check}  # see the description")
        out.append(f"    position: {nums(body.world.apply(body.com))}")
        q = quaternion(body.world.R)
        if not (abs(q[0] - 1) <= SNAP and all(abs(c) <= SNAP for c in q[1:])):
            out.append(f"    orientation: {{euler_parameters: {nums(q)}}}")
        if body.name in free:
            out.append("    velocity: [0, 0, 0]")
            out.append("    angular_velocity: [0, 0, 0]")
    if tree.joints:
        out.append("joints:")
    stopped = stopped_joints(tree)
    kinds = {"revolute": "revolute", "continuous": "revolute", "prismatic": "prismatic"}
    kinds["planar"] = "planar"
    for j in tree.joints:
        u = j.urdf
        parent_link = u.parent
        out.append(
            f"  # joint {quoted(u.name)} ({u.type}): link {quoted(parent_link)} -> "
            f"link {quoted(u.child)}"
        )
        if u.limit and j not in stopped:
            limits = ", ".join(f"{k} {num(v)}" for k, v in u.limit.items())
            out.append(f"  #   <limit> {limits} (not enforced: see the notes)")
        if u.friction > 0 and coordinates != "joint":
            out.append(
                f"  #   <dynamics friction> {num(u.friction)} (not modelled in body coordinates)"
            )
        point, axis = tree.joint_world(j)
        fields = [
            f"name: {j.name}",
            f"type: {kinds[u.type]}",
            f"body1: {j.child}",
            f"body2: {j.parent}",
            f"point: {nums(point)}",
            f"axis: {nums(axis)}",
        ]
        if j.q is not None:
            fields += ([f"start: {num(j.q)}"] if j.q != 0 else []) + [f"rate: {num(j.qd)}"]
        out.append("  - {" + ", ".join(fields) + "}")
    actuated = [j for j in tree.joints if j.urdf.type in ACTUATED]
    if actuated:
        out.append("inputs:  # a motor per actuated joint; limits: the URDF <limit effort>")
        taken = {b for b in tree.bodies} | {j.name for j in tree.joints} | {"g"}
        taken |= {f"damping_{j.name}" for j in dampers}
        for j in actuated:
            prismatic = j.urdf.type == "prismatic"
            name = input_name(("force_" if prismatic else "tau_") + j.name, taken)
            fields = [f"name: {name}", f"unit: {'N' if prismatic else 'N m'}", f"joint: {j.name}"]
            effort = (j.urdf.limit or {}).get("effort", 0)
            if effort > 0:
                fields.append(f"limits: [{num(-mp(effort))}, {num(mp(effort))}]")
            out.append("  - {" + ", ".join(fields) + "}")
    if stopped:
        out.append("stops:  # the URDF <limit lower upper>, plastic (restitution 0)")
        for j in stopped:
            low, high = num(j.urdf.limit["lower"]), num(j.urdf.limit["upper"])
            out.append(f"  - {{joint: {j.name}, lower: {low}, upper: {high}}}")
    rubbing = [j for j in tree.joints if j.urdf.friction > 0 and j.urdf.type in ACTUATED]
    if rubbing and coordinates == "joint":
        out.append("friction:  # the URDF <dynamics friction>: static level = kinetic level")
        for j in rubbing:
            out.append(f"  - {{joint: {j.name}, kinetic: {num(j.urdf.friction)}}}")
    if dampers:
        out.append("forces:  # <dynamics damping> as joint dampers")
        for j in dampers:
            kind = (
                "rotational_spring_damper"
                if j.urdf.type != "prismatic"
                else "translational_spring_damper"
            )
            out.append(f"  - {{type: {kind}, joint: {j.name}, damping: damping_{j.name}}}")
    return "\n".join(out) + "\n"


__all__ = ["render", "num", "nums", "quaternion", "unit"]
