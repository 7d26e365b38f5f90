"""Named intermediate quantities and derivatives through them (forward mode).

A joint-coordinate model (model/joint_coordinates.py) writes each body's pose as a short
expression of its parent's: the body's coordinate symbols (`link3.x`, `link3.e0`, ...) become
intermediates, s = expr(q, qd, t, parameters, earlier intermediates), instead of being expanded
into q (whose expressions grow with the depth of the tree). Everything downstream differentiates
through them:

    d expr / d var = sum over the symbols s of expr of  (partial expr / partial s) * (d s / d var)

where d s / d var of an intermediate is again an intermediate (memoized, zero where s does not
depend on var), so each derivative stays a short expression of its parent's derivatives. `dot`
is the time derivative along the motion with the accelerations zero (qdd = 0): what the
velocity-product terms (gamma, the body accelerations of M^-1 f) need.

The emitter (emit/statements.py) writes the intermediates a kernel reads as statements before its
outputs, in definition order; `evaluate` does the same in floats for the checks.
"""

from typing import Dict, Iterable, List

import sympy as sp


class Intermediates:
    """An ordered list of definitions s_k = expr_k over the coordinates x, velocities v, time t,
    parameters and earlier s. x, v: the model's coordinate and velocity symbols (lists, n)."""

    def __init__(self, x, v, t):
        self.x, self.v, self.t = list(x), list(v), t
        self.velocity_of = dict(zip(self.x, self.v))
        self.defs: Dict[sp.Symbol, sp.Expr] = {}  # insertion order is definition order
        self.order: Dict[sp.Symbol, int] = {}
        self._diff: Dict[tuple, sp.Expr] = {}
        self._dot: Dict[sp.Symbol, sp.Expr] = {}
        self._tangents: Dict[str, Dict[sp.Symbol, sp.Expr]] = {}

    def __contains__(self, symbol):
        return symbol in self.defs

    def __len__(self):
        return len(self.defs)

    def define(self, symbol: sp.Symbol, expr) -> sp.Expr:
        """Define `symbol` as expr (a symbol the model's expressions already read, such as a
        body's coordinate). Returns symbol."""
        expr = sp.sympify(expr)
        if symbol in self.defs:
            raise ValueError(f"intermediate {symbol} defined twice")
        self.order[symbol] = len(self.defs)
        self.defs[symbol] = expr
        return symbol

    def define_rate(self, symbol: sp.Symbol, rate: sp.Symbol) -> sp.Expr:
        """Define `rate` as d(symbol)/dt along the motion (qdd = 0), so that dot(symbol) is
        `rate` from now on (a body's velocity symbols, the time derivatives of its pose)."""
        d = self.dot(self.defs[symbol]) if symbol in self.defs else self.dot(symbol)
        self._dot[symbol] = self.define(rate, d)
        return rate

    def name(self, base: str, expr) -> sp.Expr:
        """A fresh intermediate named after base for expr; a number or a lone symbol is
        returned as itself instead (nothing to name). Returns what stands for expr."""
        expr = sp.sympify(expr)
        if expr.is_number or expr.is_Symbol:
            return expr
        symbol = sp.Symbol(base, real=True)
        k = 1
        while symbol in self.defs:
            symbol = sp.Symbol(f"{base}_{k}", real=True)
            k += 1
        return self.define(symbol, expr)

    # --- derivatives ---------------------------------------------------------------------------
    def diff(self, expr, var) -> sp.Expr:
        """The total derivative of expr by var (a coordinate, velocity or t), through the
        intermediates it reads."""
        expr = sp.sympify(expr)
        total = sp.Integer(0)
        for s in _sorted(expr.free_symbols):
            ds = self._symbol_diff(s, var)
            if ds != 0:
                total += sp.diff(expr, s) * ds
        return total

    def _symbol_diff(self, s, var):
        if s == var:
            return sp.Integer(1)
        if s not in self.defs:
            return sp.Integer(0)
        key = (s, var)
        if key not in self._diff:
            d = self.diff(self.defs[s], var)
            self._diff[key] = self.name(f"d({s})/d({var})", d) if d != 0 else d
        return self._diff[key]

    def dot(self, expr) -> sp.Expr:
        """d expr / dt along the motion with qdd = 0: x_k -> v_k, v_k -> 0, t -> 1, through the
        intermediates."""
        expr = sp.sympify(expr)
        total = sp.Integer(0)
        for s in _sorted(expr.free_symbols):
            ds = self._symbol_dot(s)
            if ds != 0:
                total += sp.diff(expr, s) * ds
        return total

    def _symbol_dot(self, s):
        if s == self.t:
            return sp.Integer(1)
        if s in self.velocity_of:
            return self.velocity_of[s]
        if s not in self.defs:
            return sp.Integer(0)  # velocities (qdd = 0), parameters
        if s not in self._dot:
            d = self.dot(self.defs[s])
            self._dot[s] = self.name(f"dot({s})", d) if d != 0 else d
        return self._dot[s]

    def tangent(self, expr, direction: dict, tag: str) -> sp.Expr:
        """The derivative of expr along a direction: sum over the coordinates, velocities and t
        of (d expr / d s) * direction[s] (direction: {symbol: expression}, absent symbols 0),
        through the intermediates; one tangent intermediate per intermediate, named with tag
        (one memo per tag: each tag is one direction). Code that evaluates it for the n unit
        directions costs n times the expression, against n separate derivatives each as large
        (the K_f and D kernels of joint coordinates, emit/tangent_kernels.py)."""
        memo = self._tangents.setdefault(tag, {})
        expr = sp.sympify(expr)
        total = sp.Integer(0)
        for s in _sorted(expr.free_symbols):
            if s in direction:
                ds = direction[s]
            elif s in self.defs:
                if s not in memo:
                    d = self.tangent(self.defs[s], direction, tag)
                    memo[s] = self.name(f"{tag}({s})", d) if d != 0 else d
                ds = memo[s]
            else:
                continue
            if ds != 0:
                total += sp.diff(expr, s) * ds
        return total

    # --- use -----------------------------------------------------------------------------------
    def needed(self, exprs: Iterable) -> List[sp.Symbol]:
        """The intermediates exprs read, directly or through others, in definition order."""
        seen, stack = set(), []
        for e in exprs:
            stack.extend(s for s in sp.sympify(e).free_symbols if s in self.defs)
        while stack:
            s = stack.pop()
            if s in seen:
                continue
            seen.add(s)
            stack.extend(r for r in self.defs[s].free_symbols if r in self.defs and r not in seen)
        return sorted(seen, key=self.order.__getitem__)

    def expand(self, expr) -> sp.Expr:
        """expr with every intermediate replaced by its definition (in q only): for small
        models and tests; the sizes grow with the depth of the tree."""
        expr = sp.sympify(expr)
        needed = self.needed([expr])
        full = {}
        for s in needed:
            full[s] = self.defs[s].xreplace(full)
        return expr.xreplace(full)

    def evaluate(self, exprs, values: dict) -> list:
        """exprs as floats at values ({symbol: number} for x, v, t and the parameters)."""
        values = dict(values)
        for s in self.needed(exprs):
            values[s] = sp.sympify(self.defs[s]).xreplace(values)
        return [float(sp.sympify(e).xreplace(values)) for e in exprs]


def _sorted(symbols):
    """Symbols in a deterministic order (by name): the sums built from them then print the
    same on every machine."""
    return sorted(symbols, key=lambda s: s.name)
