"""Errors of a mechanism file that only its numbers show, found at generation before anything is
written (docs/reference/commands.md): constraints that no configuration near the initial one
satisfies (`x**2 + z**2 + 1`, a constant row `1`), and a mass matrix that is not positive definite
on the motions the constraints leave free (`diagonal: [M, 0]`, `[M, -M]`).

The assembly is the minimum-norm Newton of initial.py, in multiprecision; the mass matrix is
evaluated in double at the assembled configuration with the default parameters: a yes/no far from
its threshold, nothing of it is emitted (exact.py). A `--param` value is held to the bodies'
rules on masses and inertias before a run (parameter_rules.py); one that makes the mass matrix
singular otherwise is the runtime's to report (MCS_ERR_MASS_NOT_PD).
"""

from typing import TYPE_CHECKING

import numpy as np
import sympy as sp

from ..errors import ModelError
from .initial import solve_initial_velocities

if TYPE_CHECKING:  # for the hints only
    from .ir import Model

ASSEMBLY_TOL = 1e-8  # |c|_inf after the Newton correction (as for bodies-and-joints models)
MASS_TOL = 1e-12  # eigenvalues below MASS_TOL * the largest count as zero


def check_consistency(model: "Model") -> None:
    """Raise a ModelError naming the field when the constraints cannot be satisfied near the
    initial configuration or the mass matrix is not positive definite on the free motions.
    A joint-coordinate model was checked in body coordinates, before it was rewritten
    (joint_coordinates.py): the same bodies, rows and mass."""
    if model.intermediates is not None:
        return
    x, A = _assembled_positions(model)
    _check_mass_matrix(model, x, A)


def _assembled_positions(model):
    """x0 assembled onto c(x, t0) = 0 (floats) and A there ((m x n) floats). Bodies-and-joints
    models were assembled when their initial velocities were solved
    (initial.complete_initial_state reports its own error)."""
    if not model.constraints:
        return list(model.x_assembled or model.x0), np.zeros((0, model.n))
    if model.x_assembled is not None:
        return list(model.x_assembled), model.jacobian_assembled
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
    return report["x_assembled"], report["jacobian"]


def _check_mass_matrix(model, x, A):
    """M(x) with the default parameters: no negative eigenvalue, and T'MT (T an orthonormal
    basis of the null space of A(x)) positive definite. A bodies-and-joints model's M is assembled
    from its bodies' blocks: a planar body may have zero inertia where its joints make its
    rotation move its mass (a bob on a link, 003's pendulum), not where it turns freely."""
    if model.n == 0:
        return
    values = model.parameter_values()
    values.update(zip(model.x, (sp.Float(a) for a in x)))
    values[model.time] = sp.Integer(0)
    if model.blocks is not None:
        field = "bodies"
        M = _blocks_mass_matrix(model, values)
    else:
        given = model.mass_matrix is not None
        field = "dynamics.mass_matrix" if given else "dynamics.kinetic"
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
        _, s, vt = np.linalg.svd(A)
        rank = int(np.sum(s > 1e-9 * max(s.max(initial=0.0), 1.0)))
        T = vt[rank:].T
    else:
        T = np.eye(model.n)
    if T.shape[1] == 0:
        return
    reduced, shapes = np.linalg.eigh(T.T @ M @ T)
    if reduced[0] <= MASS_TOL * scale:
        motion = T @ shapes[:, 0]  # (n) the free motion without mass
        main = model.coordinates[int(np.argmax(np.abs(motion)))].name
        hint = "a zero entry?"
        if model.blocks is not None:
            hint = (
                "a body with zero inertia that its joints let turn about its centre of mass? "
                "give it a positive inertia"
            )
        raise ModelError(
            model.path,
            field,
            f"the mass matrix is singular on a motion the constraints leave free {where} "
            f"(T'MT has eigenvalue {reduced[0]:.3g}, the motion mostly along {main}): every "
            f"free motion needs mass ({hint})",
        )


def check_joint_mass_matrix(model: "Model", M) -> None:
    """A plain tree in joint coordinates (joint_coordinates.plain_tree: no rows, nothing solved
    in body coordinates) has its mass matrix M ((n x n), derived) checked here instead, at the
    initial configuration with the default parameters: positive definite, every joint's motion
    moving mass."""
    if model.initial_report is not None or model.constraints or model.intermediates is None:
        return
    values = dict(model.parameter_values())
    values.update(zip(model.x, (sp.Float(a, 20) for a in model.x0)))
    values.update((v, sp.Integer(0)) for v in model.v)
    values[model.time] = sp.Integer(0)
    Mn = np.array(model.intermediates.evaluate(list(M), values)).reshape(model.n, model.n)
    eig, shapes = np.linalg.eigh(0.5 * (Mn + Mn.T))
    scale = max(float(np.abs(eig).max()), 1e-300)
    if eig[0] <= MASS_TOL * scale:
        main = model.coordinates[int(np.argmax(np.abs(shapes[:, 0])))].name
        raise ModelError(
            model.path,
            "bodies",
            f"the mass matrix is singular at the initial configuration with the default "
            f"parameters (eigenvalue {eig[0]:.3g}, the motion mostly along joint {main}): every "
            "joint's motion needs mass (a body with zero inertia that turns about its centre of "
            "mass? give it a positive inertia)",
        )


def _blocks_mass_matrix(model, values):
    """M (n x n, floats) of a bodies-and-joints model at `values` (parameters, geometry, x): the
    sum of its blocks' d2T/dv2, each over its own few velocities."""
    vindex = {s: i for i, s in enumerate(model.v)}
    M = np.zeros((model.n, model.n))
    for block in model.blocks:
        T = block[0]
        after = block[2] if len(block) > 2 else {}
        vs = sorted((s for s in T.free_symbols if s in vindex), key=lambda s: vindex[s])
        if not vs:
            continue
        H = sp.hessian(T, vs).xreplace(after).xreplace(values)
        H = np.array(H.evalf(), dtype=float)
        cols = [vindex[s] for s in vs]
        M[np.ix_(cols, cols)] += H
    return M
