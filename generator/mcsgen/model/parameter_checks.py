"""The rules a body's mass and inertia keep, for the file's values and for the run-time ones.

A mechanism file's masses and inertias are checked at their default parameter values when it is
loaded (mechanism.py); a value given at run time (`--param`, `params=` of the Python API, a
sweep's design) could make the same mass negative. Each rule is written once here: the loader
calls it on the file's numbers, and the checks whose expressions hold parameters are kept on the
Model (Model.parameter_checks) to be evaluated again, numerically and for many parameter sets at
once (a sweep's design), before a run starts. Nothing here is derived or emitted.
"""

from dataclasses import dataclass
from typing import Dict, List, Optional, Tuple

import numpy as np
import sympy as sp


def mass_problem(value: float) -> Optional[str]:
    """A body's mass: positive."""
    return None if value > 0 else f"mass must be positive, got {value:g}"


def planar_inertia_problem(value: float) -> Optional[str]:
    """A planar body's inertia about its centre of mass: non-negative (zero for a point mass on a
    link: its joints then make its rotation move mass)."""
    return None if value >= 0 else f"inertia must be non-negative, got {value:g}"


def inertia_problem(J: np.ndarray, strict: bool) -> Optional[str]:
    """A spatial body's inertia tensor ((3 x 3) floats, body axes): symmetric, positive definite,
    and a rigid body's (J1 + J2 >= J3) when strict; a violation of the triangle inequality alone
    is accepted with a warning otherwise (inertia_check: warn, mechanism.py)."""
    if not np.allclose(J, J.T, rtol=0, atol=1e-12 * max(1.0, float(np.abs(J).max()))):
        return "inertia tensor must be symmetric"
    eig = np.linalg.eigvalsh(J)
    if eig.min() <= 0:
        return (
            f"inertia tensor must be positive definite (eigenvalues "
            f"{', '.join(f'{x:g}' for x in eig)})"
        )
    if strict and violates_triangle(eig):
        return (
            "inertia tensor violates the triangle inequality (J1 + J2 >= J3): not a rigid body "
            "(give the body 'inertia_check: warn' to accept identified data as they are)"
        )
    return None


def violates_triangle(eig) -> bool:
    """Principal moments that no rigid body has: the largest above the sum of the other two."""
    return eig.max() > 1.0000001 * (eig.sum() - eig.max())


@dataclass
class ParameterCheck:
    """A rule on expressions of the parameters: `field` the file's field (bodies[0].mass),
    `rule` one of "mass", "planar_inertia", "inertia" (the functions above), `exprs` its
    expressions (one, or the nine entries of an inertia tensor row by row), `strict` the
    inertia's triangle inequality."""

    field: str
    rule: str
    exprs: Tuple[sp.Expr, ...]
    strict: bool = True


def parameter_dependent(field, rule, exprs, strict=True) -> Optional[ParameterCheck]:
    """The check to keep for run-time values, or None when no expression holds a parameter."""
    exprs = tuple(sp.sympify(e) for e in exprs)
    if not any(e.free_symbols for e in exprs):
        return None
    return ParameterCheck(field, rule, exprs, strict)


def first_problem(
    checks: List[ParameterCheck], symbols: Dict[str, sp.Symbol], values: Dict[str, np.ndarray]
) -> Optional[Tuple[int, str, str]]:
    """The first parameter set that breaks a rule: (its index, the field, the problem), or None.
    symbols: {name: Symbol} of every parameter; values: {name: (k) array} the k sets' values of
    every parameter (the defaults repeated where a set leaves one as it is)."""
    names = sorted(symbols)
    args = [np.asarray(values[name], dtype=float) for name in names]
    count = len(args[0]) if args else 1
    for check in checks:
        f = sp.lambdify([symbols[name] for name in names], list(check.exprs), "numpy")
        entries = [np.broadcast_to(np.asarray(e, dtype=float), (count,)) for e in f(*args)]
        for k in range(count):
            if check.rule == "mass":
                problem = mass_problem(float(entries[0][k]))
            elif check.rule == "planar_inertia":
                problem = planar_inertia_problem(float(entries[0][k]))
            else:
                J = np.array([e[k] for e in entries]).reshape(3, 3)
                problem = inertia_problem(J, check.strict)
            if problem is not None:
                return k, check.field, problem
    return None
