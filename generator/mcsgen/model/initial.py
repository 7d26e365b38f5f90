"""The initial velocities of a mechanism: the given body velocities and joint rates held, the rest
of minimum norm, at the assembled positions, all in multiprecision (exact.py explains why).

`solve_initial_velocities` is the entry point; `independent_rows` and `min_norm_solution` are its
linear algebra (sparse rows as {column: value} dicts).
"""

from fractions import Fraction
from typing import TYPE_CHECKING

import numpy as np
import sympy as sp

from ..errors import ModelError
from .exact import DIGITS, approx
from .mp_tape import Tape

if TYPE_CHECKING:  # for the hints only
    from .ir import Model


def complete_initial_state(model: "Model") -> "Model":
    """Solve the initial velocities of a bodies-and-joints model (a no-op for other models and
    when already done): model.v0 and model.initial_report. Generation calls it; so does anything
    that needs v0 of a freshly loaded model. A ModelError when the positions cannot be assembled
    or the given rates contradict the constraints."""
    if model.pending_initial is None:
        return model
    x0, held, starts = model.pending_initial
    v, report = solve_initial_velocities(model, x0, held, model.x, model.time, starts)
    if report["start_residual"] > 1e-8:
        raise ModelError(
            model.path,
            "joints",
            "the start values cannot all hold with the loops closed: joint "
            f"'{report['worst_start']}' stays {report['start_residual']:.3g} off its start "
            "(a loop with fewer degrees of freedom than started joints? start fewer)",
        )
    if report["assembly_residual"] > 1e-8:
        raise ModelError(
            model.path,
            "bodies",
            f"the initial positions cannot be assembled: the constraint residual stays at "
            f"{report['assembly_residual']:.3g} (check the joint points and the bodies' positions)",
        )
    if report["residual"] > 1e-8:
        raise ModelError(
            model.path,
            "bodies",
            f"the given initial velocities and joint rates contradict the velocity constraints "
            f"(residual {report['residual']:.3g})",
        )
    model.v0 = v
    model.x_assembled = report.pop("x_assembled")
    model.jacobian_assembled = report.pop("jacobian")
    x_exact = report.pop("x_exact")
    if starts:  # the emitted initial state: the pose the loops closed at, the starts held
        model.initial_x = x_exact
        model.x0 = [float(a) for a in x_exact]
        model.starts_held = True
    for key in ("worst_row", "worst_start", "start_residual"):
        report.pop(key)
    model.initial_report = report
    model.pending_initial = None
    return model


def solve_initial_velocities(model, x0, held, x_sym, t, starts=()):
    """Velocities that satisfy A v + c_t = 0 with the held conditions (body velocities, joint
    rates) kept, the rest of minimum norm, at the assembled positions. Returns (v, report).
    starts: [(joint, its coordinate (an expression of x), value)] that the assembly holds (the
    `start:` values of joints in a mechanism with loops, model/placement.py): the positions
    close the loops with those joints at their values.

    v is emitted into the generated C, so no machine floating point may reach it (exact.py):
    starting from the exact positions x0, the positions are assembled by minimum-norm Newton and
    the velocity system solved, all in DIGITS-digit mpmath, and v is rounded to double once.
    Double precision only chooses which rows are independent (a yes/no per row, far from its
    threshold) and preconditions the multiprecision solves, whose answers do not depend on it.
    The minimum-norm solution is unique whichever independent rows are used."""
    import mpmath

    n = model.n
    # the parameters (and geometry symbols) stay symbols, passed to the functions as numbers:
    # substituting exact values would turn a row of a parameter-dependent geometry into a large
    # exact expression
    values = model.parameter_values()
    params = list(values)
    index = {s: i for i, s in enumerate(x_sym)}

    def local_symbols(expr):
        return sorted((s for s in expr.free_symbols if s in index), key=lambda s: index[s])

    # one small multiprecision function per row, over the row's own coordinates and t:
    # (c_i, [dc_i/dx_local..., dc_i/dt]) (mp_tape.py); rows that are the same function of their
    # own coordinates (the links of a chain) share one, written in canonical symbols @x0, @x1, ...
    rows_fn, same_rows = [], {}
    for con in model.constraints:
        c = con.expr
        local = local_symbols(c)
        X = [sp.Symbol(f"@x{k}", **s.assumptions0) for k, s in enumerate(local)]
        key = c.xreplace(dict(zip(local, X)))
        if key not in same_rows:
            same_rows[key] = Tape(key, X + [t], params)
        rows_fn.append(([index[s] for s in local], same_rows[key]))
    start_rows = []  # (joint, columns, f(x_local, params) -> (coordinate, its gradient), value)
    for joint, coordinate, value in starts:
        local = local_symbols(coordinate)
        start_rows.append(
            (joint, [index[s] for s in local], Tape(coordinate, local, params), value)
        )
    held_rows, rhs, names = [], [], []
    for name, row, value in held:
        if isinstance(row, sp.Expr):  # a joint coordinate: its gradient is the row
            local = local_symbols(row)
            held_rows.append(([index[s] for s in local], Tape(row, local, params)))
        else:  # explicit coefficients of v
            cols = [i for i, a in enumerate(row) if a != 0]
            held_rows.append((cols, [row[i] for i in cols]))
        rhs.append(value)
        names.append(name)
    m = len(rows_fn)

    with mpmath.workdps(DIGITS):

        def mp(value):
            return mpmath.mpf(approx(value, DIGITS + 10)._mpf_)

        pvals = [mp(a) for a in values.values()]

        def real(value, row):
            """An mpmath number of row `row` as an mpf; NotReal when it has an imaginary part
            (sqrt or log of a negative expression)."""
            if isinstance(value, mpmath.mpc):
                if value.imag != 0:
                    raise NotReal(row, value)
                value = value.real
            return mpmath.mpf(value)

        def constraints(x):
            """c (m), the sparse rows of [A; H] ({column: value}), b = [-c_t; h]."""
            zero = mpmath.mpf(0)
            c, rows, b = [], [], []
            for i, (cols, fn) in enumerate(rows_fn):
                ci, gi = fn([x[j] for j in cols] + [zero], pvals)
                c.append(real(ci, i))
                rows.append({j: real(g, i) for j, g in zip(cols, gi) if g != 0})
                b.append(-real(gi[-1], i))
            for (cols, spec), h in zip(held_rows, rhs):
                if callable(spec):
                    grad = spec([x[j] for j in cols], pvals)[1]
                else:
                    grad = [mp(a) for a in spec]
                rows.append({j: mpmath.mpf(g) for j, g in zip(cols, grad) if g != 0})
                b.append(mp(h))
            return c, rows, b

        def held_starts(x):
            """The started joints' offsets from their values and their gradients (rows)."""
            offsets, grads = [], []
            for _, cols, fn, value in start_rows:
                q, grad = fn([x[j] for j in cols], pvals)
                offsets.append(mpmath.mpf(q) - mp(value))
                grads.append({j: mpmath.mpf(g) for j, g in zip(cols, grad) if g != 0})
            return offsets, grads

        x = [mp(a) for a in x0]
        tol = mpmath.mpf(10) ** -(DIGITS - 8)
        where = "at the initial configuration"
        try:
            c, rows, b = constraints(x)
            offsets, grads = held_starts(x)
            for _ in range(50):
                if max((abs(a) for a in c + offsets), default=0) <= tol:
                    break
                # the rows first: a started joint that a loop's closure fixes already is the
                # dependent one left out (and its offset reported)
                system = rows[:m] + grads
                keep = independent_rows(system, n)
                residual = c + offsets
                dx = min_norm_solution([system[i] for i in keep], [-residual[i] for i in keep], n)
                x = [a + d for a, d in zip(x, dx)]
                where = "at a configuration the assembly from the initial one reached"
                c, rows, b = constraints(x)
                offsets, grads = held_starts(x)
        except NotReal as exc:
            con = model.constraints[exc.row]
            field = f"constraints[{exc.row}].expr" if model.blocks is None else "joints"
            raise ModelError(
                model.path,
                field,
                f"constraint '{con.name}' is not a real number {where} (its value or derivative "
                f"is {mpmath.nstr(exc.value, 6)}): a square root or logarithm of a negative "
                "expression? Constraints must be real near the initial configuration",
            ) from None
        assembly = max((abs(a) for a in c), default=mpmath.mpf(0))
        worst_row = max(range(m), key=lambda i: abs(c[i])) if m else None
        keep = independent_rows(rows, n)
        if all(bi == 0 for bi in b):
            # nothing moves the mechanism (no held velocity, no rheonomic row): v = 0 exactly
            v = [mpmath.mpf(0)] * n
        else:
            v = min_norm_solution([rows[i] for i in keep], [b[i] for i in keep], n)
        residual = max(
            (abs(sum(a * v[j] for j, a in row.items()) - bi) for row, bi in zip(rows, b)),
            default=mpmath.mpf(0),
        )
        # exact zeros come out as 40-digit noise: flush them, so they print as 0
        v_double = [0.0 if a is None else mpf_to_double(a) for a in _noise_flushed(v)]
        correction = mpmath.sqrt(sum((a - mp(a0)) ** 2 for a, a0 in zip(x, x0)))
        # the assembled pose to DIGITS digits (noise flushed to 0), for the initial state a
        # held start emits (the runtime's assembly would not hold the starts)
        x_exact = [
            sp.Integer(0) if a is None else sp.Float(mpmath.nstr(a, DIGITS), DIGITS)
            for a in _noise_flushed(x)
        ]
    report = {
        "held": names,
        "residual": float(residual),
        "undetermined": n - len(keep),
        "x_correction": float(correction),
        "assembly_residual": float(assembly),
        "worst_row": worst_row,  # the constraint row farthest from 0 after the assembly
        # the started joint farthest from its value (None without starts), and how far
        "worst_start": (
            start_rows[max(range(len(offsets)), key=lambda i: abs(offsets[i]))][0]
            if offsets
            else None
        ),
        "start_residual": float(max((abs(a) for a in offsets), default=0)),
        "x_assembled": [float(a) for a in x],  # (for checks only: never emitted)
        "x_exact": x_exact,  # (DIGITS-digit Floats)
        # A there (m x n, floats; for checks only: consistency.py)
        "jacobian": _dense([rows[i] for i in range(m)], n),
    }
    return v_double, report


def _noise_flushed(values):
    """mpf values with None for those below 10^-(DIGITS - 10) of the largest (or of 1): the
    noise an exact zero comes out as."""
    import mpmath

    flush = mpmath.mpf(10) ** -(DIGITS - 10) * max([mpmath.mpf(1)] + [abs(a) for a in values])
    return [None if abs(a) < flush else a for a in values]


def _dense(rows, n):
    """Sparse rows ({column: mpf}) as an (len(rows) x n) float array."""
    out = np.zeros((len(rows), n))
    for i, row in enumerate(rows):
        for j, a in row.items():
            out[i, j] = float(a)
    return out


class NotReal(Exception):
    """A constraint row (its index) that is complex at a configuration."""

    def __init__(self, row, value):
        super().__init__(row)
        self.row = row
        self.value = value


def mpf_to_double(value):
    """An mpmath number rounded once to the nearest double (integer arithmetic)."""
    sign, man, exp, _ = value._mpf_
    if not man:
        return 0.0
    frac = Fraction(man * 2**exp) if exp >= 0 else Fraction(man, 2**-exp)
    return float(-frac if sign else frac)


def independent_rows(rows, n):
    """Indices of a maximal independent subset of sparse rows ({column: value}), chosen greedily
    in their order (no pivoting, so no ties that round differently on another machine): a row is
    kept when what remains of it after removing its part in the kept rows' span is above 1e-9
    of its norm. Double precision: a yes/no per row, far from its threshold."""
    basis, keep = [], []
    for i, row in enumerate(rows):
        w = np.zeros(n)
        for j, a in row.items():
            w[j] = float(a)
        norm = float(np.sqrt(np.dot(w, w)))
        if norm == 0.0:
            continue
        w /= norm
        for _ in range(2):  # Gram-Schmidt twice is enough (Kahan)
            for q in basis:
                w -= np.dot(q, w) * q
        rest = float(np.sqrt(np.dot(w, w)))
        if rest > 1e-9:
            basis.append(w / rest)
            keep.append(i)
    return keep


def min_norm_solution(rows, b, n):
    """The minimum-norm solution z = K^T y, (K K^T) y = b, of K z = b for independent sparse rows
    K (r x n), in mpmath at the working precision plus 10 digits.

    Iterative refinement: residuals in multiprecision, corrections from a double factorization
    of K K^T (which only sets how fast it converges, not what it converges to); an exact
    multiprecision solve when the double factorization is too poor to converge."""
    import mpmath
    from scipy.linalg import lu_factor, lu_solve

    r = len(rows)
    if r == 0:
        return [mpmath.mpf(0)] * n
    with mpmath.workdps(mpmath.mp.dps + 10):
        K = np.zeros((r, n))
        for i, row in enumerate(rows):
            for j, a in row.items():
                K[i, j] = float(a)

        def transpose_times(y):
            z = [mpmath.mpf(0)] * n
            for row, yi in zip(rows, y):
                for j, a in row.items():
                    z[j] += a * yi
            return z

        def residual(y):
            z = transpose_times(y)
            return [bi - sum(a * z[j] for j, a in row.items()) for row, bi in zip(rows, b)]

        tol = mpmath.mpf(10) ** -(mpmath.mp.dps - 8) * max([mpmath.mpf(1)] + [abs(a) for a in b])
        y = [mpmath.mpf(0)] * r
        res = residual(y)
        size = max(abs(a) for a in res)
        factor = lu_factor(K @ K.T)
        converged = False
        for _ in range(40):
            if size <= tol:
                converged = True
                break
            dy = lu_solve(factor, np.array([float(a) for a in res]))
            y = [yi + mpmath.mpf(float(d)) for yi, d in zip(y, dy)]
            res = residual(y)
            new_size = max(abs(a) for a in res)
            if not new_size < size / 10:  # not contracting: solve exactly instead
                break
            size = new_size
        if not converged and size > tol:
            G = mpmath.matrix(r, r)
            for i, ri in enumerate(rows):
                for k, rk in enumerate(rows):
                    G[i, k] = sum(a * rk[j] for j, a in ri.items() if j in rk)
            y = list(mpmath.lu_solve(G, mpmath.matrix(b)))
        z = transpose_times(y)
    return [+a for a in z]  # unary + rounds to the caller's precision
