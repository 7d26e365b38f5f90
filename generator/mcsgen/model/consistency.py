"""Errors of a mechanism file that only its numbers show, found at generation before anything is
written (README, "Bad input"): constraints that no configuration near the initial one satisfies
(`x**2 + z**2 + 1`, a constant row `1`), and a mass matrix that is not positive definite on the
motions the constraints leave free (`diagonal: [M, 0]`, `[M, -M]`).

The assembly is the minimum-norm Newton of initial.py, in multiprecision; the mass matrix is
evaluated in double at the assembled configuration with the default parameters: a yes/no far from
its threshold, nothing of it is emitted (exact.py). A `--param` value that makes the mass matrix
singular at run time is the runtime's to report (MCS_ERR_MASS_NOT_PD).
"""

from typing import TYPE_CHECKING

import numpy as np
import sympy as sp

from ..errors import ModelError
from .initial import solve_initial_velocities

if TYPE_CHECKING:  # for the hints only
    from .loader import Model

ASSEMBLY_TOL = 1e-8  # |c|_inf after the Newton correction (as for bodies-and-joints models)
MASS_TOL = 1e-12  # eigenvalues below MASS_TOL * the largest count as zero


def check_consistency(model: "Model") -> None:
    """Raise a ModelError naming the field when the constraints cannot be satisfied near the
    initial configuration or the mass matrix is not positive definite on the free motions."""
    x = _assembled_positions(model)
    _check_mass_matrix(model, x)


def _assembled_positions(model):
    """x0 assembled onto c(x, t0) = 0 (floats). Bodies-and-joints models were assembled when
    their initial velocities were solved (initial.complete_initial_state reports its own error)."""
    if model.x_assembled is not None or not model.constraints:
        return list(model.x_assembled or model.x0)
    _, report = solve_initial_velocities(model, model.x0, [], model.x, model.time)
    if report["assembly_residual"] > ASSEMBLY_TOL:
        row = report["worst_row"]
        con = model.constraints[row]
        raise ModelError(
            model.path,
            f"constraints[{row}].expr",
            f"no configuration near the initial one satisfies constraint '{con.name}' = 0: its "
            f"residual stays at {report['assembly_residual']:.3g} after the Newton correction from "
            "initial.x (has it a real solution? is it the intended sign?)",
        )
    return report["x_assembled"]


def _check_mass_matrix(model, x):
    """M(x) with the default parameters: no negative eigenvalue, and T'MT (T an orthonormal
    basis of the null space of A(x)) positive definite. Bodies carry their own checks
    (positive masses, `inertia_check`)."""
    if model.blocks is not None or model.n == 0:
        return
    given = model.mass_matrix is not None
    field = "dynamics.mass_matrix" if given else "dynamics.kinetic"
    values = {p.symbol: p.exact for p in model.parameters}
    values.update(zip(model.x, (sp.Float(a) for a in x)))
    values[model.time] = sp.Integer(0)
    if given:
        M = model.mass_matrix
    else:
        M = sp.hessian(model.kinetic, model.v)
        values.update((v, sp.Integer(0)) for v in model.v)
    M = np.array(M.xreplace(values).evalf(), dtype=float)
    eig = np.linalg.eigvalsh(0.5 * (M + M.T))
    scale = max(float(np.abs(eig).max()), 1e-300)
    where = "at the initial configuration with the default parameters"
    if eig[0] < -MASS_TOL * scale:
        raise ModelError(
            model.path,
            field,
            f"the mass matrix is indefinite {where} (eigenvalue {eig[0]:.3g}): kinetic energy "
            "must not be negative (are all masses positive?)",
        )
    if model.constraints:
        A = sp.Matrix([c.expr for c in model.constraints]).jacobian(model.x)
        A = np.array(A.xreplace(values).evalf(), dtype=float)
        _, s, vt = np.linalg.svd(A)
        rank = int(np.sum(s > 1e-9 * max(s.max(initial=0.0), 1.0)))
        T = vt[rank:].T
    else:
        T = np.eye(model.n)
    if T.shape[1] == 0:
        return
    reduced = np.linalg.eigvalsh(T.T @ M @ T)
    if reduced[0] <= MASS_TOL * scale:
        raise ModelError(
            model.path,
            field,
            f"the mass matrix is singular on a motion the constraints leave free {where} "
            f"(T'MT has eigenvalue {reduced[0]:.3g}): every free motion needs mass (a zero "
            "entry?)",
        )
