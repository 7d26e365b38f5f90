"""C printing of derived expressions: SymPy's C99 printer, adapted to the runtime's `mcs_real`.

- Real literals go through MCS_R(...) and math functions through MCS_FN(name)(...), so the same
  generated file compiles for double and for float (sinf, sqrtf, ...) with no double arithmetic.
- Small integer powers become products (x*x), other powers pow(); 1/2 powers sqrt().
- No M_PI-style macros (not standard C): named constants print as their 17-digit value.
- Every number is rounded to double once, from its exact value (exact.to_double): an exact
  rational prints as its correctly rounded decimal (`MCS_R(0.08)`), an integer as an integer.
- Anything the printer does not support is an error, never silently emitted text.
"""

import sympy as sp
from sympy.printing.c import C99CodePrinter
from sympy.printing.precedence import precedence

from ..errors import McsError
from ..model.exact import to_double


class McsCodePrinter(C99CodePrinter):
    def __init__(self, names):
        """names: dict Symbol -> the C text that reads it (e.g. x[0], p->M)."""
        super().__init__({"math_macros": {}, "contract": False})
        self.names = names

    def doprint(self, expr, assign_to=None):
        text = super().doprint(expr, assign_to)
        if self._not_supported:
            bad = ", ".join(sorted(str(e) for e in self._not_supported))
            raise McsError(f"cannot print to C: {bad}")
        return text

    def _print_Symbol(self, expr):
        try:
            return self.names[expr]
        except KeyError:
            raise McsError(f"internal: no C name for symbol {expr}") from None

    def _literal(self, value):
        """A real constant: MCS_R(<shortest round-trip text of the correctly rounded double>)."""
        text = repr(to_double(value))
        if "e" not in text and "." not in text and "inf" not in text:
            text += ".0"
        return f"MCS_R({text})"

    def value(self, value):
        """A constant outside expressions (initial state, defaults): exact integers as integers
        (`0`, `1`), anything else as a literal."""
        number = sp.Rational(value) if isinstance(value, (int, float)) else sp.sympify(value)
        if number.is_Integer:
            return str(int(number))
        return self._literal(number)

    def parenthesize(self, item, level, strict=False):
        # a rational prints as one literal (MCS_R(0.06)), not as a quotient that needs brackets
        if isinstance(item, sp.Rational) and not item.is_Integer and item > 0:
            return self._print(item)
        return super().parenthesize(item, level, strict)

    def _print_Float(self, expr):
        return self._literal(expr)

    def _print_Integer(self, expr):
        return str(int(expr))

    def _print_Rational(self, expr):
        return self._literal(expr)

    def _print_NumberSymbol(self, expr):
        return self._literal(expr)

    _print_Pi = _print_NumberSymbol
    _print_Exp1 = _print_NumberSymbol

    def _print_Pow(self, expr):
        base, exp = expr.as_base_exp()
        prec = precedence(expr)
        b = self.parenthesize(base, prec)
        if exp.is_Integer and 1 <= abs(int(exp)) <= 4:
            k = abs(int(exp))
            prod = "*".join([b] * k) if k > 1 else b
            if exp > 0:
                return prod if k == 1 else f"({prod})"
            return f"1/({prod})"
        if exp == sp.Rational(1, 2):
            return f"MCS_FN(sqrt)({self._print(base)})"
        if exp == -sp.Rational(1, 2):
            return f"1/MCS_FN(sqrt)({self._print(base)})"
        return f"MCS_FN(pow)({self._print(base)}, {self._print(exp)})"

    def _print_Abs(self, expr):
        return f"MCS_FN(fabs)({self._print(expr.args[0])})"

    def _print_mcs_function(self, expr):
        name = MATH_FUNCTIONS[type(expr)]
        return f"MCS_FN({name})({', '.join(self._print(a) for a in expr.args)})"


# The model language's functions (expr.py) and their <math.h> names.
MATH_FUNCTIONS = {
    sp.sin: "sin",
    sp.cos: "cos",
    sp.tan: "tan",
    sp.asin: "asin",
    sp.acos: "acos",
    sp.atan: "atan",
    sp.atan2: "atan2",
    sp.sinh: "sinh",
    sp.cosh: "cosh",
    sp.tanh: "tanh",
    sp.exp: "exp",
    sp.log: "log",
}
# SymPy binds each math function's printer to the base class's method, so ours are set per class.
for _cls in MATH_FUNCTIONS:
    setattr(McsCodePrinter, f"_print_{_cls.__name__}", McsCodePrinter._print_mcs_function)
