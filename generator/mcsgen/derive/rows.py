"""The derivatives of one constraint row, taken locally (over the coordinates it contains)."""

from dataclasses import dataclass

import sympy as sp


@dataclass
class RowTerms:
    """The derivatives of one constraint row c_i(x, t), sparse over the columns it uses."""

    A: dict  # {j: dc_i/dx_j}
    c_t: sp.Expr
    A_dot: dict  # {j: sum_k d2c_i/dx_j dx_k v_k + d2c_i/dx_j dt}
    gamma: sp.Expr  # -(d(cdot_i)/dx v + d(cdot_i)/dt)
    hessian: dict  # {(j, k): d2c_i/dx_j dx_k}, nonzero entries only


def row_terms(ci, x, v, t, index) -> RowTerms:
    """Differentiate one row, locally: only over the coordinates it contains (index: symbol ->
    column)."""
    cols = sorted((index[s] for s in ci.free_symbols if s in index))
    row = {j: sp.diff(ci, x[j]) for j in cols}
    ct = sp.diff(ci, t)
    A_dot, hessian = {}, {}
    for j in cols:
        if row[j] == 0:
            continue
        hess = {k: sp.diff(row[j], x[k]) for k in cols}
        A_dot[j] = sum((hess[k] * v[k] for k in cols), sp.Integer(0)) + sp.diff(row[j], t)
        hessian.update({(j, k): h for k, h in hess.items() if h != 0})
    # With cdot = A v + c_t:  d(cdot)/dx v + d(cdot)/dt = A_dot v + (dc_t/dx) v + c_tt,
    # so gamma reuses A_dot (cheaper than differentiating cdot, and shared by the CSE).
    gamma = -(
        sum((A_dot[j] * v[j] for j in cols if j in A_dot), sp.Integer(0))
        + sum((sp.diff(ct, x[k]) * v[k] for k in cols), sp.Integer(0))
        + sp.diff(ct, t)
    )
    return RowTerms({j: a for j, a in row.items()}, ct, A_dot, gamma, hessian)
