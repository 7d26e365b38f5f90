"""The outputs' kernels (model/outputs.py): h (ny x 1), the sensor quantities y = h(x, v, u, t),
and its tangent along a direction (dx, dv, du) of the coordinates, velocities and inputs,

    h_x = dh/dx dx + dh/dv dv + dh/du du      (ny x 1),

an expression of the direction symbols (printed dx[i], dv[i], du[k]) that the runtime evaluates
once per column of the outputs' rows C and D of a linearization (mcs_sim_linearize_outputs): one
forward pass over each output's tree (linear_terms._directional), through the intermediates in
joint coordinates (Intermediates.tangent).
"""

from typing import List, Optional

import sympy as sp

from .linear_terms import _directional, direction_symbols


def velocity_direction_symbols(n: int) -> List[sp.Symbol]:
    """The direction dv (n) of the outputs' tangent (printed dv[i])."""
    return [sp.Symbol(f"@dv{i}", real=True) for i in range(n)]


def input_direction_symbols(nu: int) -> List[sp.Symbol]:
    """The direction du (nu) of the outputs' tangent (printed du[k])."""
    return [sp.Symbol(f"@du{k}", real=True) for k in range(nu)]


def output_terms(model) -> Optional[sp.Matrix]:
    """h (ny x 1), or None without outputs."""
    if not model.outputs:
        return None
    return sp.Matrix(len(model.outputs), 1, [o.expr for o in model.outputs])


def output_tangent(model, h) -> Optional[sp.Matrix]:
    """h_x (ny x 1) of the module's docstring, or None without outputs."""
    if h is None:
        return None
    n, nu = model.n, len(model.inputs)
    direction = dict(zip(model.x, direction_symbols(n)))
    direction.update(zip(model.v, velocity_direction_symbols(n)))
    direction.update(zip([u.symbol for u in model.inputs], input_direction_symbols(nu)))
    inter = model.intermediates
    memo: dict = {}
    out = sp.zeros(h.shape[0], 1)
    for i in range(h.shape[0]):
        if inter is not None:
            out[i] = inter.tangent(h[i], direction, "htan")
        else:
            out[i] = _directional(h[i], direction, memo)
    return out
