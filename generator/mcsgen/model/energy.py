"""What physics says of a model's energy T + V, decided at generation from its structure, in time
bounded by the size of the file (docs/reference/outputs.md): conserved, only dissipated, exchanged
with the outside, or undefined. The emitter stores it in the model's descriptor (`energy_balance`);
the simulator then knows, after a run, whether energy that grew means the run is wrong.

- Bodies and joints: the elements say it. Drivers (rows that depend on t), `force` and `torque`
  elements and time-varying springs exchange energy; dampers with a non-negative coefficient only
  dissipate it; gravity and springs are in the potential.
- Coordinates: the power of the forces that are not in the potential, sampled. For a
  mass-matrix model P = v'(f + dV/dx) + v' Mdot v / 2 (f holds the velocity-quadratic terms of a
  configuration-dependent M, whose power cancels v' Mdot v / 2); for a Lagrangian model
  P = v'Q, Q its `forces`. P = 0 at every sample: conserved; P <= 0: dissipated; else exchanged.
  The samples are seeded (the same decision on every machine) and far from the thresholds for any
  model that is not built to sit on them.

Transitions (locks) lose energy (004 §5) and unlocks keep it: neither changes the class. The class
is decided with the file's parameter values: a `--param` that makes a damping negative is the
user's to know.
"""

import random
from dataclasses import dataclass

import sympy as sp

from ..enums import ENERGY_BALANCE

CONSERVED = "conserved"
DISSIPATED = "dissipated"
EXCHANGED = "exchanged"
UNDEFINED = "undefined"
# the C enum mcs_energy_balance's names, in its order (enums.py)
KINDS = ENERGY_BALANCE.names

SAMPLES = 8  # states the power of a coordinate model's forces is evaluated at
ZERO_POWER = 1e-9  # |P| below this times the size of its terms is no power at all


@dataclass(frozen=True)
class EnergyBalance:
    kind: str  # one of KINDS
    reason: str  # why, one line (the summary and the audit print it)


def mechanism_balance(model, elements) -> EnergyBalance:
    """A bodies-and-joints model's balance from the elements the builder met: `elements` is
    [(kind, where, coefficient)] with kind "force", "torque", "damper" or "input" (mechanism.py).
    A joint's input does no work at u = 0: the balance is the motion's with the inputs at zero
    (a run that applies inputs exchanges energy: the simulator says so, mcs_simulate)."""
    balance = _unforced_balance(model, [e for e in elements if e[0] != "input"])
    if balance.kind != EXCHANGED and len(elements) > len([e for e in elements if e[0] != "input"]):
        return EnergyBalance(balance.kind, balance.reason + " (the inputs at zero)")
    return balance


def _unforced_balance(model, elements) -> EnergyBalance:
    timed = _time_dependence(model)
    if timed:
        return EnergyBalance(EXCHANGED, timed)
    for kind, where, _ in elements:
        if kind in ("force", "torque"):
            return EnergyBalance(EXCHANGED, f"{where} ({kind}) does work on the mechanism")
    dampers = [(where, c) for kind, where, c in elements if kind == "damper"]
    for where, c in dampers:
        if c < 0:
            return EnergyBalance(EXCHANGED, f"{where}.damping is negative ({float(c):.6g})")
    if dampers:
        where = ", ".join(w for w, _ in dampers[:3]) + (" ..." if len(dampers) > 3 else "")
        return EnergyBalance(DISSIPATED, f"dampers ({where}) only take energy out")
    return EnergyBalance(CONSERVED, "gravity, springs and ideal joints only")


def coordinate_balance(model) -> EnergyBalance:
    """A model given by its coordinates: from the power of its non-potential forces, sampled."""
    if model.potential is None:
        return EnergyBalance(UNDEFINED, "the model defines no potential energy")
    timed = _time_dependence(model)
    if timed:
        return EnergyBalance(EXCHANGED, timed)
    if model.inputs:  # the forces are linear in them: any u != 0 does work
        return EnergyBalance(EXCHANGED, "the inputs (inputs:) do work on the mechanism")
    if model.forces is None or all(f == 0 for f in model.forces):
        if model.kinetic is not None:
            return EnergyBalance(CONSERVED, "no forces besides the potential")
    field = "dynamics.forces"
    power = _sampled_power(model)
    if power is None:
        return EnergyBalance(EXCHANGED, f"{field}: their power could not be evaluated")
    if all(abs(p) <= ZERO_POWER * size for p, size in power):
        return EnergyBalance(CONSERVED, f"{field} are those of the potential")
    if all(p <= ZERO_POWER * size for p, size in power):
        return EnergyBalance(DISSIPATED, f"{field} beyond the potential only take energy out")
    return EnergyBalance(EXCHANGED, f"{field} beyond the potential do work on the mechanism")


def _time_dependence(model):
    """Why the model's energy depends on time explicitly, or '' (drivers, time-varying forces,
    mass or potential)."""
    t = model.time
    for row in model.constraints:
        if row.expr.has(t):
            return f"constraint row '{row.name}' moves with time (a driver)"
    for what, expr in (("potential", model.potential), ("kinetic energy", model.kinetic)):
        if expr is not None and expr.has(t):
            return f"the {what} depends on time"
    if model.mass_matrix is not None and any(e.has(t) for e in model.mass_matrix):
        return "the mass matrix depends on time"
    if model.forces is not None and any(f.has(t) for f in model.forces):
        return "a force depends on time"
    return ""


def _sampled_power(model):
    """[(P, size of its terms)] at SAMPLES seeded states near the initial one, or None when an
    expression does not evaluate to a finite real there."""
    import math

    x, v = list(model.x), list(model.v)
    values = {p.symbol: p.exact for p in model.parameters}
    f = model.forces if model.forces is not None else sp.zeros(model.n, 1)
    if model.kinetic is not None:  # Lagrangian: `forces` are the non-potential ones
        terms = [sum((vi * fi for vi, fi in zip(v, f)), sp.Integer(0))]
    else:
        V = model.potential
        terms = [
            sum((vi * fi for vi, fi in zip(v, f)), sp.Integer(0)),
            sum((vi * sp.diff(V, xi) for vi, xi in zip(v, x)), sp.Integer(0)),
        ]
        M = model.mass_matrix
        if any(e.has(*x) for e in M):
            Mdot = sp.zeros(model.n, model.n)
            for xk, vk in zip(x, v):
                Mdot += M.diff(xk) * vk
            terms.append((sp.Matrix([v]) * Mdot * sp.Matrix(v))[0] / 2)
    try:
        fns = [sp.lambdify(x + v, term.xreplace(values), "math") for term in terms]
    except (TypeError, ValueError, NameError, SyntaxError, RecursionError):
        return None
    rng = random.Random(20261125)
    x0 = [float(a) for a in model.x0]
    out = []
    for _ in range(SAMPLES):
        xs = [a + (1 + abs(a)) * rng.uniform(-0.5, 0.5) for a in x0]
        vs = [rng.uniform(-1, 1) for _ in v]
        try:
            parts = [float(fn(*xs, *vs)) for fn in fns]
        except (ValueError, TypeError, ZeroDivisionError, OverflowError):
            return None
        if not all(math.isfinite(p) for p in parts):
            return None
        out.append((sum(parts), sum(abs(p) for p in parts) or 1.0))
    return out
