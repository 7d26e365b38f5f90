"""A SymPy expression's value and gradient in multiprecision, without printing it.

The initial solve (initial.py) evaluates each constraint row, its gradient over the row's own
coordinates and its time derivative in DIGITS-digit mpmath, a few times per Newton step.
sympy.lambdify prints an expression into Python source, and the gradient needs sympy.diff first:
for the PUMA 560 in body coordinates the two took 8 of the 8.5 s of the solve. A Tape reads the
expression once instead: its distinct subexpressions in evaluation order (SymPy's structural
equality shares the repeated ones), evaluated forward in the working precision, and the gradient
in one backward (adjoint) pass, which is the chain rule applied to the same subexpressions.

Supported: numbers and number symbols (pi), the variables and parameters given, Add, Mul, Pow and
the functions a model may call (model/expr.py); anything else is a TapeError at construction.
"""

import mpmath
import sympy as sp

from .exact import DIGITS, approx

# SymPy's functions a model may call (model/expr.py FUNCTIONS), as mpmath evaluates them; sign
# enters as the derivative of Abs
_MPMATH = {
    sp.sin: mpmath.sin,
    sp.cos: mpmath.cos,
    sp.tan: mpmath.tan,
    sp.asin: mpmath.asin,
    sp.acos: mpmath.acos,
    sp.atan: mpmath.atan,
    sp.atan2: mpmath.atan2,
    sp.sinh: mpmath.sinh,
    sp.cosh: mpmath.cosh,
    sp.tanh: mpmath.tanh,
    sp.exp: mpmath.exp,
    sp.log: mpmath.log,
    sp.Abs: mpmath.fabs,
    sp.sign: mpmath.sign,
}

# node kinds of the tape
_VAR, _PAR, _CONST, _ADD, _MUL, _POW_INT, _POW, _FN = range(8)


class TapeError(ValueError):
    """An expression with a node the tape cannot evaluate."""


class Tape:
    """f(variables; parameters) -> (value, [df/dvariable]) in the working mpmath precision.

    variables, parameters: sequences of SymPy symbols; the call takes their values (mpf) in the
    same order. Values may come out complex (mpc: a square root or logarithm of a negative
    number), as with lambdify's mpmath module; the caller decides what that means."""

    def __init__(self, expr, variables, parameters):
        self._ops = []  # (kind, ...) per node, children before parents
        self._depends = []  # per node: does it depend on a variable
        self._partials = []  # per node: ((child, partial node or None), ...) for the backward pass
        self._index = {}
        self._variables = {s: i for i, s in enumerate(variables)}
        self._parameters = {s: i for i, s in enumerate(parameters)}
        self._constants = {}  # mpmath precision -> {node: mpf}
        self._pending = []  # (node, its children, d node / d child) for the second phase
        self._out = self._node(sp.sympify(expr), differentiable=True)
        # the derivatives' nodes: made after the whole expression, and not differentiated
        # themselves (their values are only read backward; differentiating them would not end)
        for k, ids, derivatives in self._pending:
            self._partials[k] = tuple(
                (i, self._node(d, differentiable=False))
                for i, d in zip(ids, derivatives)
                if self._depends[i]
            )
        self._var_nodes = [self._index.get(s) for s in variables]

    def _node(self, expr, differentiable):
        """The node of expr, made (with those of its subexpressions) if new. Iterative post-order:
        a long chain's expressions are deeper than Python's recursion limit allows."""
        stack = [(expr, False)]
        while stack:
            e, ready = stack.pop()
            if e in self._index:
                continue
            children = self._children(e)
            if not ready and any(c not in self._index for c in children):
                stack.append((e, True))
                stack.extend((c, False) for c in reversed(children) if c not in self._index)
                continue
            self._add(e, differentiable)
        return self._index[expr]

    def _children(self, e):
        if e in self._variables or e in self._parameters or e.is_Number or e.is_NumberSymbol:
            return ()
        if e.is_Add or e.is_Mul or e.is_Pow:
            return e.args
        if type(e) in _MPMATH:
            return e.args
        raise TapeError(f"cannot evaluate '{type(e).__name__}' in '{e}'")

    def _add(self, e, differentiable):
        ids = [self._index[c] for c in self._children(e)]
        depends = any(self._depends[i] for i in ids)
        derivatives = None  # d e / d child, for Pow and functions (nodes made later)
        if e in self._variables:
            op, depends = (_VAR, self._variables[e]), True
        elif e in self._parameters:
            op = (_PAR, self._parameters[e])
        elif e.is_Number or e.is_NumberSymbol:
            op = (_CONST,)
        elif e.is_Add or e.is_Mul:
            op = (_ADD if e.is_Add else _MUL, ids)
        elif e.is_Pow:
            base, exponent = e.args
            if exponent.is_Integer:
                op = (_POW_INT, ids[0], int(exponent))
            else:
                op = (_POW, ids[0], ids[1])
            if differentiable:
                derivatives = [exponent * base ** (exponent - 1), e * sp.log(base)]
        else:
            op = (_FN, _MPMATH[type(e)], ids)
            if not differentiable:
                pass
            elif type(e) is sp.Abs:  # its fdiff is written for complex arguments
                derivatives = [sp.sign(e.args[0])]
            else:
                derivatives = [e.fdiff(k + 1) for k in range(len(ids))]
        k = len(self._ops)
        self._index[e] = k
        self._ops.append(op)
        self._depends.append(depends)
        self._partials.append(())
        if not differentiable:
            pass
        elif derivatives is None:  # Add and Mul: the backward pass needs no node
            self._partials[k] = tuple((i, None) for i in ids if self._depends[i])
        else:
            self._pending.append((k, ids, derivatives))

    def _constant_values(self, prec):
        values = self._constants.get(prec)
        if values is None:
            nodes = [e for e, k in self._index.items() if self._ops[k][0] == _CONST]
            values = {
                self._index[e]: mpmath.mpf(approx(e, DIGITS + 10)._mpf_)
                for e in sorted(nodes, key=self._index.get)
            }
            self._constants[prec] = values
        return values

    def __call__(self, x, p):
        """(value, gradient over the variables) at the variables' values x, parameters' p."""
        ops = self._ops
        val = [None] * len(ops)
        constants = self._constant_values(mpmath.mp.prec)
        for k, op in enumerate(ops):
            kind = op[0]
            if kind == _VAR:
                val[k] = x[op[1]]
            elif kind == _PAR:
                val[k] = p[op[1]]
            elif kind == _CONST:
                val[k] = constants[k]
            elif kind == _ADD:
                total = val[op[1][0]]
                for i in op[1][1:]:
                    total = total + val[i]
                val[k] = total
            elif kind == _MUL:
                product = val[op[1][0]]
                for i in op[1][1:]:
                    product = product * val[i]
                val[k] = product
            elif kind == _POW_INT:
                val[k] = val[op[1]] ** op[2]
            elif kind == _POW:
                val[k] = val[op[1]] ** val[op[2]]
            else:
                val[k] = op[1](*(val[i] for i in op[2]))
        adjoint = [0] * len(ops)
        adjoint[self._out] = mpmath.mpf(1)
        for k in range(len(ops) - 1, -1, -1):
            a = adjoint[k]
            if a == 0 or not self._partials[k]:
                continue
            op = ops[k]
            if op[0] == _ADD:
                for i, _ in self._partials[k]:
                    adjoint[i] += a
            elif op[0] == _MUL:
                children = op[1]
                for position, i in enumerate(children):
                    if self._depends[i]:
                        others = a
                        for j, c in enumerate(children):
                            if j != position:
                                others = others * val[c]
                        adjoint[i] += others
            else:
                for i, d in self._partials[k]:
                    adjoint[i] += a * val[d]
        gradient = [mpmath.mpf(0) if k is None else adjoint[k] for k in self._var_nodes]
        return val[self._out], [g if g != 0 else mpmath.mpf(0) for g in gradient]
