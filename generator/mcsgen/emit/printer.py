"""C printing of derived expressions: SymPy's C99 printer, adapted to the runtime's `mcs_real`.

- Real literals go through MCS_R(...) and math functions through mcs_<name>(...) (mcs_config.h),
  so the same generated file compiles for double and for float (sinf, sqrtf, ...) with no double
  arithmetic.
- MISRA C:2012 shapes: every integer in an expression prints as a real literal (`MCS_R(2.0)`, so
  no operator mixes essential types, rule 10.4), and every product or quotient that is a term of
  a sum is parenthesised (`(a*b) + c`, precedence made explicit, rule 12.1). Neither changes the
  value or the order of evaluation.
- Small integer powers become products (x*x), other powers pow(); 1/2 powers sqrt().
- No M_PI-style macros (not standard C): named constants print as their 17-digit value.
- Every number is rounded to double once, from its exact value (exact.to_double): an exact
  rational prints as its correctly rounded decimal (`MCS_R(0.08)`), an integer as `MCS_R(2.0)`.
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
        """A real constant outside expressions (initial state, defaults, options)."""
        number = sp.Rational(value) if isinstance(value, (int, float)) else sp.sympify(value)
        return self._literal(number)

    def _print_Add(self, expr, order=None):
        # SymPy's sum printing, then each term with a binary operator of its own bracketed
        text = super()._print_Add(expr, order)
        return " ".join(
            f"({piece})" if has_top_level_operator(piece) else piece
            for piece in split_top_level_terms(text)
        )

    def parenthesize(self, item, level, strict=False):
        # a rational prints as one literal (MCS_R(0.06)), not as a quotient that needs brackets
        if isinstance(item, sp.Rational) and not item.is_Integer and item > 0:
            return self._print(item)
        return super().parenthesize(item, level, strict)

    def _print_Float(self, expr):
        return self._literal(expr)

    def _print_Integer(self, expr):
        return self._literal(expr)

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
            return f"MCS_R(1.0)/({prod})"
        if exp == sp.Rational(1, 2):
            return f"mcs_sqrt({self._print(base)})"
        if exp == -sp.Rational(1, 2):
            return f"MCS_R(1.0)/mcs_sqrt({self._print(base)})"
        return f"mcs_pow({self._print(base)}, {self._print(exp)})"

    def _print_Abs(self, expr):
        return f"mcs_fabs({self._print(expr.args[0])})"

    def _print_mcs_function(self, expr):
        name = MATH_FUNCTIONS[type(expr)]
        return f"mcs_{name}({', '.join(self._print(a) for a in expr.args)})"


def split_top_level_terms(text):
    """`a*b - c + (d - e)` -> ["a*b", "-", "c", "+", "(d - e)"]: SymPy separates the terms of a
    sum by " + " / " - " outside brackets; a leading "-" stays with the first term."""
    pieces, depth, start, i = [], 0, 0, 0
    while i < len(text):
        ch = text[i]
        depth += (ch == "(") - (ch == ")")
        if depth == 0 and text[i : i + 3] in (" + ", " - "):
            pieces += [text[start:i], text[i + 1]]
            start = i = i + 3
            continue
        i += 1
    return pieces + [text[start:]]


def has_top_level_operator(term):
    """Whether a printed term applies a binary operator outside brackets (`a*b`, `-2*a`, `1/x`),
    i.e. whether it needs brackets as an operand of + or -. A leading unary minus does not count."""
    depth = 0
    for i, ch in enumerate(term):
        depth += (ch in "([") - (ch in ")]")
        is_arrow = term[i : i + 2] == "->"  # p->name reads a parameter
        if depth == 0 and i > 0 and ch in "*/+-" and not is_arrow:
            return True
    return False


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
