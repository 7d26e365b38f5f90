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


def row_terms(ci, x, v, t, index, cache=None) -> RowTerms:
    """Differentiate one row, locally: only over the coordinates it contains (index: symbol ->
    column).

    cache (a dict, optional): rows that are the same function of their own coordinates (every
    link of a chain, every wheel of a vehicle) are differentiated once. The row is rewritten in
    canonical symbols for its coordinates and velocities (the k-th of its columns becomes @xk,
    @vk); the derivatives of that canonical row are kept and renamed back, which costs an
    xreplace instead of a Hessian."""
    cols = sorted((index[s] for s in ci.free_symbols if s in index))
    if cache is None:
        return _row_terms(ci, [x[j] for j in cols], [v[j] for j in cols], t, cols)
    X = [_canonical_symbol("x", k, x[j]) for k, j in enumerate(cols)]
    V = [_canonical_symbol("v", k, v[j]) for k, j in enumerate(cols)]
    key = ci.xreplace(dict(zip((x[j] for j in cols), X)))
    local = cache.get(key)
    if local is None:
        local = cache[key] = _row_terms(key, X, V, t, range(len(cols)))
    back = dict(zip(X, (x[j] for j in cols)))
    back.update(zip(V, (v[j] for j in cols)))

    def ren(e):
        return e.xreplace(back)

    return RowTerms(
        {cols[k]: ren(a) for k, a in local.A.items()},
        ren(local.c_t),
        {cols[k]: ren(a) for k, a in local.A_dot.items()},
        ren(local.gamma),
        {(cols[j], cols[k]): ren(h) for (j, k), h in local.hessian.items()},
    )


def _canonical_symbol(kind, k, like):
    """The k-th canonical coordinate (kind "x") or velocity ("v"), with the assumptions of the
    symbol it stands for; "@" keeps it apart from every name a model file can declare."""
    return sp.Symbol(f"@{kind}{k}", **like.assumptions0)


def _row_terms(ci, xs, vs, t, cols) -> RowTerms:
    """The derivatives of ci over xs (its coordinates, listed for columns cols) with velocities
    vs."""
    cols = list(cols)
    xs = dict(zip(cols, xs))
    vs = dict(zip(cols, vs))
    row = {j: sp.diff(ci, xs[j]) for j in cols}
    ct = sp.diff(ci, t)
    A_dot, hessian = {}, {}
    for j in cols:
        if row[j] == 0:
            continue
        hess = {k: sp.diff(row[j], xs[k]) for k in cols}
        A_dot[j] = sum((hess[k] * vs[k] for k in cols), sp.Integer(0)) + sp.diff(row[j], t)
        hessian.update({(j, k): h for k, h in hess.items() if h != 0})
    # With cdot = A v + c_t:  d(cdot)/dx v + d(cdot)/dt = A_dot v + (dc_t/dx) v + c_tt,
    # so gamma reuses A_dot (cheaper than differentiating cdot, and shared by the CSE).
    gamma = -(
        sum((A_dot[j] * vs[j] for j in cols if j in A_dot), sp.Integer(0))
        + sum((sp.diff(ct, xs[k]) * vs[k] for k in cols), sp.Integer(0))
        + sp.diff(ct, t)
    )
    return RowTerms({j: a for j, a in row.items()}, ct, A_dot, gamma, hessian)
