"""The `outputs:` of a mechanism file: named sensor quantities y = h(x, v, u, t)
(docs/reference/inputs-outputs.md).

Each entry is one of
- `expr:` an expression of the model's names: a coordinate model's coordinates, their rates
  (`<name>_dot`), definitions, parameters, inputs and t; a bodies model's joints (each joint's
  free coordinate by its name, its rate as `<joint>_dot`), parameters, inputs and t;
- in a bodies model, a point of a body: `position: {body, point}` (its world coordinates, two or
  three outputs `<name>.x`, `<name>.y`, `<name>.z`), `velocity: {body, point}` (their rates) and
  `distance: {body1, point1, body2, point2}` (one output); a planar body's world angle
  `angle: {body}` and its rate `angular_velocity: {body}` (one output each; a spatial body's
  orientation is no one angle);
- in a bodies model, `bodies: all` (or a list of bodies): for each, the world position of its
  centre of mass, `<body>.x`, `<body>.y` (, `<body>.z`), and a planar body's angle
  `<body>.theta`: a body-coordinate CSV's x.<body>.* columns, as outputs of a joint-coordinate
  model, whose coordinates are its joints'.
The expressions are those of the body coordinates; in joint coordinates the bodies' poses and
rates are intermediates of the joint coordinates (joint_coordinates.py), which the kernels
evaluate as they do an event's condition. The generator emits h (kernel `h`) and its tangent
along (dx, dv, du) (`h_x`, with the linearization set), from which the runtime forms the outputs'
rows C, D of a linearization (mcs_sim_linearize_outputs).
"""

from dataclasses import dataclass
from typing import List

import sympy as sp

KINDS = ("expr", "position", "velocity", "distance", "angle", "angular_velocity")
OUTPUT_KEYS = {"name", "unit", "description", *KINDS}
BODIES_KEYS = {"bodies"}  # each body's columns are named by the body, in metres and radians
AXES = ("x", "y", "z")


@dataclass
class Output:
    name: str  # the CSV's y.<name>; a point's components <name>.x, ...
    unit: str
    expr: sp.Expr  # of the coordinates, velocities, inputs, parameters and t
    description: str = ""
    where: str = ""  # its field, outputs[i]


def read_outputs(ctx, raw, names, points=None) -> List[Output]:
    """[Output] of the `outputs:` list. names: what an `expr:` may use (symbols by name);
    points: the bodies model's builder (body_ref, vector, geos), None for a coordinate model."""
    if raw is None:
        return []
    raw = ctx.seq(raw, "outputs")
    out: List[Output] = []
    seen = {}  # output name -> the entry that gave it (outputs[i])

    def claim(name, field, entry):
        """`name` taken by the output of `entry` (refused at `field` when one before has it)."""
        if name in seen:
            ctx.fail(field, f"'{name}' is already the name of {seen[name]}")
        seen[name] = entry

    for i, spec in enumerate(raw):
        where = f"outputs[{i}]"
        spec = ctx.mapping(spec, where)
        if "bodies" in spec:
            ctx.unknown_keys(spec, BODIES_KEYS, where)
            if points is None:
                ctx.fail(f"{where}.bodies", "a model given by coordinates has no bodies")
            for output in _body_outputs(ctx, points, spec["bodies"], f"{where}.bodies"):
                claim(output.name, f"{where}.bodies", where)
                out.append(output)
            continue
        ctx.unknown_keys(spec, OUTPUT_KEYS | BODIES_KEYS, where)
        if "name" not in spec:
            ctx.fail(f"{where}.name", "missing required field")
        name = ctx.identifier(spec["name"], f"{where}.name", "output")
        claim(name, f"{where}.name", where)
        unit = ctx.text(spec.get("unit", ""), f"{where}.unit")
        description = ctx.text(spec.get("description", ""), f"{where}.description")
        kinds = [k for k in KINDS if k in spec]
        if len(kinds) != 1:
            ctx.fail(
                where,
                f"give exactly one of {', '.join(KINDS)} (or bodies, alone)"
                + (f" (got {', '.join(kinds)})" if kinds else ""),
            )
        (kind,) = kinds
        at = f"{where}.{kind}"
        if kind == "expr":
            if points is not None:
                _refuse_body_coordinates(ctx, points, spec["expr"], at)
            expr = ctx.expr(spec["expr"], at, names)
            out.append(Output(name, unit, expr, description, where))
            continue
        if points is None:
            ctx.fail(at, "a model given by coordinates has no bodies: write the output as expr")
        if kind in ("angle", "angular_velocity"):
            expr = _angle_output(ctx, points, kind, spec[kind], at)
            out.append(Output(name, unit, expr, description, where))
            continue
        values = _point_output(ctx, points, kind, spec[kind], at)
        if kind == "distance":
            out.append(Output(name, unit, values[0], description, where))
            continue
        for axis, e in zip(AXES, values):
            claim(f"{name}.{axis}", f"{where}.name", where)  # a body's of a `bodies:` entry?
            out.append(Output(f"{name}.{axis}", unit, e, description, where))
    return out


def _body_outputs(ctx, builder, raw, where) -> List[Output]:
    """`bodies: all` or a list of bodies: each one's centre of mass in the world (m) and, for a
    planar body, its angle (rad), named <body>.x, <body>.y (, <body>.z), <body>.theta."""
    moving = [b for b in builder.bodies.values() if b.kind != "ground"]
    if raw == "all":
        chosen = moving
    else:
        if not isinstance(raw, list) or not raw:
            shown = "null" if raw is None else f"'{raw}'" if isinstance(raw, str) else str(raw)
            ctx.fail(where, f"give all or a list of bodies, not {shown}")
        chosen = []
        for i, name in enumerate(raw):
            body = builder.body_ref(name, f"{where}[{i}]")
            if body.kind == "ground":
                ctx.fail(f"{where}[{i}]", "ground does not move: give a moving body")
            if body.name in {b.name for b in chosen}:
                ctx.fail(f"{where}[{i}]", f"{body.name} is already in the list")
            chosen.append(body)
    if not chosen:
        ctx.fail(where, "the model has no moving body")
    dim = 2 if builder.kind == "planar" else 3
    out = []
    for body in chosen:
        centre = body.point(builder.geos([0] * dim))
        text = f"{body.name}'s centre of mass in the world"
        out += [Output(f"{body.name}.{a}", "m", e, text, where) for a, e in zip(AXES, centre)]
        if body.kind == "planar":
            out.append(
                Output(f"{body.name}.theta", "rad", body.q[2], f"{body.name}'s angle", where)
            )
    return out


def _point_output(ctx, builder, kind, raw, where):
    """The expressions of a position, velocity or distance output (body coordinates)."""
    raw = ctx.mapping(raw, where)
    dim = 2 if builder.kind == "planar" else 3
    if kind == "distance":
        ctx.unknown_keys(raw, {"body1", "point1", "body2", "point2"}, where)
        ends = []
        for k in ("1", "2"):
            if f"body{k}" not in raw:
                ctx.fail(f"{where}.body{k}", "missing required field")
            body = builder.body_ref(raw[f"body{k}"], f"{where}.body{k}")
            p = builder.vector(raw.get(f"point{k}", [0] * dim), f"{where}.point{k}", dim)
            ends.append(body.point(builder.geos(p)))
        delta = ends[0] - ends[1]
        return [sp.sqrt(sum((d * d for d in delta), sp.Integer(0)))]
    ctx.unknown_keys(raw, {"body", "point"}, where)
    if "body" not in raw:
        ctx.fail(f"{where}.body", "missing required field")
    body = builder.body_ref(raw["body"], f"{where}.body")
    if body.kind == "ground":
        ctx.fail(f"{where}.body", "a point of ground does not move: give a moving body")
    p = builder.vector(raw.get("point", [0] * dim), f"{where}.point", dim)
    position = body.point(builder.geos(p))
    if kind == "position":
        return list(position)
    # d/dt along the body's own coordinates' rates (intermediates in joint coordinates)
    return [
        sum((sp.diff(e, q) * qd for q, qd in zip(body.q, body.qd)), sp.Integer(0)) for e in position
    ]


def _refuse_body_coordinates(ctx, builder, text, where):
    """A bodies model's expression that names a body's coordinate (crank.theta, rod.x): not a
    name in expressions (they name joints); the message says what to write instead."""
    import re

    if not isinstance(text, str):
        return
    for body, coordinate in re.findall(r"\b([A-Za-z_]\w*)\.([A-Za-z_]\w*)", text):
        if body in builder.bodies and body != "ground":
            kind = builder.bodies[body].kind
            angle = f"angle: {{body: {body}}} for its angle, " if kind == "planar" else ""
            ctx.fail(
                where,
                f"'{body}.{coordinate}' is a coordinate of body {body}, not a name in expressions "
                f"(they name joints, their angle or slide by the joint's name): write {angle}"
                f"position: {{body: {body}, point: [...]}} for a point",
            )


def _angle_output(ctx, builder, kind, raw, where):
    """A planar body's world angle (its coordinate theta; an intermediate in joint coordinates),
    or its rate."""
    raw = ctx.mapping(raw, where)
    ctx.unknown_keys(raw, {"body"}, where)
    if "body" not in raw:
        ctx.fail(f"{where}.body", "missing required field")
    body = builder.body_ref(raw["body"], f"{where}.body")
    if body.kind == "ground":
        ctx.fail(f"{where}.body", "ground does not turn: give a moving body")
    if body.kind != "planar":
        ctx.fail(
            f"{where}.body",
            f"{body.name} is a spatial body: its orientation is no one angle (give a joint's "
            "angle by the joint's name in an expr, or the positions of two points)",
        )
    return body.q[2] if kind == "angle" else body.qd[2]
