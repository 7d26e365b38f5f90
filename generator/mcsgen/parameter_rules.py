"""The rules a body's mass and inertia keep, for the file's values and for the run-time ones.

A mechanism file's masses and inertias are checked at their default parameter values when it is
loaded (model/mechanism.py); a value given at run time (`--param`, `params=` of the Python API, a
sweep's design) could make the same mass negative. Each rule is written once here: the loader
calls it on the file's numbers, and the checks whose expressions hold parameters are kept on the
Model (Model.parameter_checks) as NumPy source text, to be evaluated again, numerically and for
many parameter sets at once (a sweep's design), before a run starts. Nothing here is derived or
emitted, and SymPy is imported only to print a kept check's expressions: a command on a built
model checks its --param values without it (built_model.py).
"""

from dataclasses import dataclass
from typing import Dict, List, Optional, Tuple

import numpy as np


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


@dataclass(frozen=True)
class ParameterCheck:
    """A rule on expressions of the parameters: `field` the file's field (bodies[0].mass),
    `rule` one of "mass", "planar_inertia", "inertia" (the functions above), `code` its
    expressions as NumPy source over the parameters' names (one, or the nine entries of an
    inertia tensor row by row), `strict` the inertia's triangle inequality."""

    field: str
    rule: str
    code: Tuple[str, ...]
    strict: bool = True


def parameter_dependent(field, rule, exprs, strict=True) -> Optional[ParameterCheck]:
    """The check to keep for run-time values (exprs: SymPy expressions of the parameters), or
    None when no expression holds a parameter."""
    import sympy as sp
    from sympy.printing.numpy import NumPyPrinter

    exprs = tuple(sp.sympify(e) for e in exprs)
    if not any(e.free_symbols for e in exprs):
        return None
    printer = NumPyPrinter({"fully_qualified_modules": True})
    return ParameterCheck(field, rule, tuple(printer.doprint(e) for e in exprs), strict)


def _evaluate(code: str, args: Dict[str, np.ndarray]) -> np.ndarray:
    """A kept expression's value for every parameter set: (k) floats. Its source is the
    printer's, over names the file validated as identifiers; nothing else is in scope."""
    scope = {"__builtins__": {}, **args, "numpy": np}
    return np.asarray(eval(code, scope), dtype=float)  # noqa: S307 - our printer's own text


def first_problem(
    checks: List[ParameterCheck], values: Dict[str, np.ndarray]
) -> Optional[Tuple[int, str, str]]:
    """The first parameter set that breaks a rule: (its index, the field, the problem), or None.
    values: {name: (k) array} the k sets' values of every parameter (the defaults repeated where
    a set leaves one as it is)."""
    args = {name: np.asarray(v, dtype=float) for name, v in values.items()}
    count = len(next(iter(args.values()))) if args else 1
    for check in checks:
        entries = [np.broadcast_to(_evaluate(c, args), (count,)) for c in check.code]
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
