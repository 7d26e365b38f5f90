"""The `inputs:` of a mechanism file: named inputs u that a controller sets at each tick.

An input is a symbol the generalized forces may contain, linearly and with coefficients free of
the velocities: f(x, v, t, u) = f(x, v, t, 0) + B(x, t) u (docs/reference/inputs-outputs.md). It
reaches them
two ways:
- `joint: <name>`: a torque (revolute) or force (prismatic) on a joint's free coordinate, equal
  and opposite on its two bodies (mechanism.py, `joint_input`);
- by name, in a coordinate model's `dynamics.forces` or a bodies model's `force` and `torque`
  elements (the generalized force expression the file writes).
The derivation splits f at u = 0 (split_inputs): every kernel but the input map f_u sees f(x, v,
t, 0), f_u = B(x, t) u is the one that reads u. Units and limits are metadata the runtime's
descriptor carries (limits are the caller's to respect: a controller saturates, the solver
applies what it is given).
"""

import math
from dataclasses import dataclass

import sympy as sp

INPUT_KEYS = {"name", "unit", "limits", "joint", "description"}
# the prefix of an input's symbol: never a name the file can declare (names start with a letter)
SYMBOL_PREFIX = "_u_"


@dataclass
class Input:
    name: str
    unit: str
    symbol: sp.Symbol
    lower: float  # limits, -inf / inf when none are given
    upper: float
    joint: str = None  # `joint:` the joint it acts on, or None (it appears in forces by name)
    description: str = ""
    where: str = ""  # its field, inputs[i]


def read_inputs(ctx, raw):
    """[Input] of the `inputs:` list; names join the model's namespace (ctx.declare)."""
    if raw is None:
        return []
    raw = ctx.seq(raw, "inputs")
    out = []
    for i, spec in enumerate(raw):
        where = f"inputs[{i}]"
        spec = ctx.mapping(spec, where)
        ctx.unknown_keys(spec, INPUT_KEYS, where)
        if "name" not in spec:
            ctx.fail(f"{where}.name", "missing required field")
        name = ctx.declare(spec["name"], f"{where}.name", "input")
        unit = ctx.text(spec.get("unit", ""), f"{where}.unit")
        description = ctx.text(spec.get("description", ""), f"{where}.description")
        lower, upper = -math.inf, math.inf
        if "limits" in spec:
            limits = ctx.seq(spec["limits"], f"{where}.limits")
            if len(limits) != 2:
                ctx.fail(f"{where}.limits", f"expected [lower, upper], got {len(limits)} entries")
            lower = ctx.number(limits[0], f"{where}.limits[0]")
            upper = ctx.number(limits[1], f"{where}.limits[1]")
            if not lower < upper:
                ctx.fail(f"{where}.limits", f"lower limit {lower:g} is not below upper {upper:g}")
        joint = None
        if "joint" in spec:
            joint = ctx.text(spec["joint"], f"{where}.joint")
        symbol = sp.Symbol(SYMBOL_PREFIX + name, real=True)
        out.append(Input(name, unit, symbol, lower, upper, joint, description, where))
    return out


def check_linear(ctx, expr, inputs, velocities, where):
    """Fail at `where` unless expr is linear in the inputs with coefficients free of them and of
    the velocities (a generalized force B(x, t) u: what the input map and linearization take)."""
    symbols = {u.symbol for u in inputs}
    present = expr.free_symbols & symbols
    if not present:
        return expr
    velocities = set(velocities)
    for u in sorted(present, key=lambda s: s.name):
        coefficient = sp.diff(expr, u)
        if coefficient.free_symbols & symbols:
            ctx.fail(where, f"must be linear in the inputs ({_name(u)} appears non-linearly)")
        if coefficient.free_symbols & velocities:
            ctx.fail(
                where,
                f"the coefficient of input {_name(u)} depends on velocities: an input's "
                "generalized force is B(x, t) u",
            )
    return expr


def split_inputs(f, inputs):
    """(f at u = 0 (n x 1), f_u = B u (n x 1)) of forces f linear in the inputs (check_linear):
    entry by entry, so each derivative is small."""
    if not inputs:
        return f, None
    symbols = [u.symbol for u in inputs]
    zero = {s: sp.Integer(0) for s in symbols}
    n = f.shape[0]
    f0, fu = sp.zeros(n, 1), sp.zeros(n, 1)
    for i in range(n):
        e = f[i]
        present = [s for s in symbols if s in e.free_symbols]
        if not present:
            f0[i] = e
            continue
        f0[i] = e.xreplace(zero)
        fu[i] = sum((sp.diff(e, s) * s for s in present), sp.Integer(0))
    return f0, fu


def _name(symbol):
    return symbol.name[len(SYMBOL_PREFIX) :]
