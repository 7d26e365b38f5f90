"""The coordinates' tangents of the dynamics' two equations: what the exact linearization adds to
K_c, K_f and D (runtime/src/sim/mcs_linearize.c).

The dynamics are  M(x) x'' + A(x, t)^T lam = f(x, v, t) + B(x, t) u  and  A(x, t) x'' = gamma(x,
v, t). Their derivatives along a direction dx of the coordinates, at accelerations a and inputs
u, are K_c dx + K_f dx and the two tangents here:

    M_x     = d(M(x) a - B(x, t) u)/dx dx       (n x 1)
    gamma_x = d(A(x, t) a - gamma(x, v, t))/dx dx   (m x 1)

along v they are D and -2 A_dot (d gamma/dv = -2 A_dot: both are the symmetric second
derivatives of c along v). Each is an expression of the direction symbols dx (printed dx[i]), the
accelerations a (wrenches.acceleration_symbols, printed a[i]) and the inputs, evaluated once per
direction at run time: n times the cost of one expression, against n separate derivatives each
as large (the way K_f and D of joint coordinates are, joint_terms.joint_force_tangent).
"""

from typing import Dict, List

import sympy as sp

from .rows import _canonical_symbol


def direction_symbols(n: int) -> List[sp.Symbol]:
    """The direction dx (n) of the tangents (printed dx[i])."""
    return [sp.Symbol(f"@dx{i}", real=True) for i in range(n)]


def linear_tangents(model, M, f_u, A, gamma, accel, hessians=None):
    """(M_x (n x 1), gamma_x (m x 1)) of the module's docstring.

    hessians: [{(j, k): d2c_i/dx_j dx_k}] of each row (the body-coordinate derivation has
    them for K_c: A's tangent is sum_jk H_jk a_k dx_j), or None for a joint-coordinate model,
    whose tangents go through its intermediates (Intermediates.tangent)."""
    n, m = model.n, model.m
    dx = direction_symbols(n)
    direction = dict(zip(model.x, dx))
    inter = model.intermediates
    cache: Dict = {}

    def along(expr):
        if inter is not None:
            return inter.tangent(expr, direction, "xtan")
        return _tangent(expr, model.x, direction, cache)

    M_x = sp.zeros(n, 1)
    for i in range(n):
        row = sum((M[i, k] * accel[k] for k in range(n) if M[i, k] != 0), sp.Integer(0))
        if f_u is not None:
            row -= f_u[i]
        M_x[i] = along(row)
    gamma_x = sp.zeros(m, 1)
    for i in range(m):
        if hessians is None:
            row = sum((A[i, k] * accel[k] for k in range(n) if A[i, k] != 0), sp.Integer(0))
            gamma_x[i] = along(row - gamma[i])
        else:
            a_part = sum((h * accel[k] * dx[j] for (j, k), h in hessians[i].items()), sp.Integer(0))
            gamma_x[i] = a_part - along(gamma[i])
    return M_x, gamma_x


def _tangent(expr, x, direction, cache):
    """sum_j d expr/dx_j dx_j over the coordinates expr contains, in one forward pass over its
    tree (_directional): a large row (a body-coordinate robot's gamma) costs one pass instead
    of a derivative per coordinate. Entries that are the same function of their own coordinates
    (every link of a chain) are differentiated once: in canonical symbols, renamed back (as
    rows.row_terms does)."""
    own = sorted((s for s in expr.free_symbols if s in direction), key=x.index)
    if not own:
        return sp.Integer(0)
    canonical = [_canonical_symbol("y", k, s) for k, s in enumerate(own)]
    key = expr.xreplace(dict(zip(own, canonical)))
    local = cache.get(key)
    if local is None:
        seeds = {c: sp.Symbol(f"@dy{k}", real=True) for k, c in enumerate(canonical)}
        local = cache[key] = (_directional(key, seeds, {}), seeds)
    back = dict(zip(canonical, own))
    back.update((local[1][c], direction[s]) for c, s in zip(canonical, own))
    return local[0].xreplace(back)


def _directional(expr, seeds, memo):
    """d expr along the seeds ({symbol: its direction}), one pass over the tree with each
    subexpression's tangent memoized."""
    if expr in memo:
        return memo[expr]
    if expr.is_Symbol:
        out = seeds.get(expr, sp.Integer(0))
    elif not expr.free_symbols & seeds.keys():
        out = sp.Integer(0)
    elif expr.is_Add:
        out = sp.Add(*(_directional(a, seeds, memo) for a in expr.args))
    elif expr.is_Mul:
        terms = []
        args = expr.args
        for k, a in enumerate(args):
            da = _directional(a, seeds, memo)
            if da != 0:
                terms.append(sp.Mul(*(args[:k] + (da,) + args[k + 1 :])))
        out = sp.Add(*terms)
    elif expr.is_Pow and not expr.exp.free_symbols & seeds.keys():
        base, exp = expr.args
        out = exp * base ** (exp - 1) * _directional(base, seeds, memo)
    elif isinstance(expr, sp.Function) and len(expr.args) == 1:
        (arg,) = expr.args
        out = expr.fdiff(1) * _directional(arg, seeds, memo)
    else:  # anything else: a derivative per seed it contains
        out = sp.Add(*(sp.diff(expr, s) * d for s, d in seeds.items() if s in expr.free_symbols))
    memo[expr] = out
    return out
