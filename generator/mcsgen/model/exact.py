"""Exact numbers: why the generated C is the same on every machine
(docs/explanation/determinism.md).

Every number the generator writes is computed without machine floating point:

- a number in a model file is the exact rational of its decimal text (`0.08` is 8/100);
- geometry (joint points and frames in body coordinates, rotations, quaternions) is SymPy's exact
  arithmetic on those numbers, with exact `pi`, `sqrt`, `sin`, `cos`;
- an irrational constant enters a symbolic expression as a `DIGITS`-digit Float (`coefficient`),
  the initial-velocity solve runs in `DIGITS`-digit mpmath, and a value is rounded to double
  once, when it is printed (`to_double`, correctly rounded through integer arithmetic).

SymPy's and mpmath's arithmetic is integer arithmetic in Python: it gives the same digits on every
CPU, BLAS and thread count. numpy, scipy and `math` may still make yes/no decisions (is this
inertia positive definite, which rows are independent), never a number that is emitted.

A value computed with 40 digits can carry noise of about 1e-40 where the exact value is simple
(a product of two rounded radicals that is exactly 1, a sum that is exactly 0). `snap` returns the
simple rational when the value is within `SNAP` (relative) of one with a small denominator:
a 1e-30 coincidence with such a rational does not happen for the numbers of a mechanism file.
"""

from decimal import Decimal
from fractions import Fraction

import sympy as sp

DIGITS = 40  # digits of the Floats that carry irrational constants
EVAL_DIGITS = 60  # digits used to evaluate an exact expression before snapping
SNAP = sp.Rational(1, 10**30)
MAX_DENOMINATOR = 10**6


class NotANumber(ValueError):
    """The expression does not evaluate to a finite real number."""


def from_literal(value):
    """An int, a float or a numeral's text as the exact SymPy number its decimal digits say.

    A float is taken as its shortest round-trip text (`repr`), which is the decimal the author
    wrote for every number with at most 17 significant digits."""
    if isinstance(value, bool):
        raise TypeError("a boolean is not a number")
    if isinstance(value, int):
        return sp.Integer(value)
    text = repr(value) if isinstance(value, float) else str(value).replace("_", "")
    frac = Fraction(Decimal(text))
    return sp.Rational(frac.numerator, frac.denominator)


def approx(expr, digits=EVAL_DIGITS):
    """`expr` (an exact SymPy number) as a Float of `digits` digits; NotANumber if it is not a
    finite real number."""
    expr = sp.sympify(expr)
    if not expr.is_number:
        raise NotANumber(f"'{expr}' is not a number")
    if expr.is_Rational:
        return sp.Float(expr, digits)
    value = _shared_value(expr, digits)
    if value is None:
        value = expr.evalf(digits)
    if not value.is_Number:  # complex, or a non-numeric leftover
        re, im = value.as_real_imag()
        if im.is_Number and abs(im) < SNAP and re.is_Number:
            value = re
        else:
            raise NotANumber(f"'{expr}' is not a real number")
    if value in (sp.oo, -sp.oo, sp.zoo, sp.nan) or not value.is_finite:
        raise NotANumber(f"'{expr}' is not finite")
    return sp.Float(value, digits)


GUARD = 5  # digits beyond `digits` on which the two precisions of _shared_value must agree
SHARED_FROM = 200  # tree nodes from which _shared_value is tried before evalf


def _shared_value(expr, digits):
    """The value of an exact expression that repeats its subexpressions (the entries of a
    rotation built from one quaternion repeat it hundreds of times), each distinct
    subexpression evaluated once, at two working precisions (digits + 20 and 2 digits + 20); a
    Float when the two agree to digits + GUARD significant digits, else None (cancellation, an
    exact zero, a complex intermediate: evalf decides). evalf evaluates a subexpression every time
    it meets it: a universal joint's frame entry of 1 400 nodes and 45 distinct ones took 0.4 s."""
    nodes = 0
    for _ in sp.preorder_traversal(expr):
        nodes += 1
        if nodes >= SHARED_FROM:
            break
    else:
        return None
    values = [_bottom_up(expr, precision) for precision in (digits + 20, 2 * digits + 20)]
    if any(v is None or not v.is_Float for v in values):
        return None
    low, high = values
    if high == 0 or abs(low - high) > abs(high) * sp.Float(10) ** (-(digits + GUARD)):
        return None
    return high


def _bottom_up(expr, precision):
    """expr evaluated at `precision` digits, each distinct subexpression once (None when a
    value is not a finite real Float)."""
    memo = {}

    def value(node):
        known = memo.get(node)
        if known is not None:
            return known
        if not node.args:
            result = node.evalf(precision)
        else:
            args = [value(a) for a in node.args]
            if any(a is None for a in args):
                return None
            result = node.func(*args).evalf(precision)
        if not result.is_Float or not result.is_finite:
            return None
        memo[node] = result
        return result

    return value(expr)


def snap(expr):
    """The exact rational `expr` is, if it is one (or within SNAP of a rational with a small
    denominator); else None."""
    expr = sp.sympify(expr)
    if expr.is_Rational:
        return expr
    value = sp.Rational(approx(expr))  # the exact value of the binary Float
    scale = max(sp.Integer(1), abs(value))
    near = Fraction(value.p, value.q).limit_denominator(MAX_DENOMINATOR)
    if abs(value - sp.Rational(near.numerator, near.denominator)) <= SNAP * scale:
        return sp.Rational(near.numerator, near.denominator)
    return None


def coefficient(expr):
    """A number ready to enter a symbolic expression: the exact Rational when it is one, else
    a DIGITS-digit Float."""
    rational = snap(expr)
    if rational is not None:
        return rational
    return sp.Float(approx(expr), DIGITS)


def numbers_as_coefficients(expr):
    """`expr` with every numeric part (a maximal sub-expression without symbols) a coefficient:
    `sqrt(2)*L/2` -> `0.7071...*L`, so the C reads a correctly rounded literal, not libm's
    sqrt(2.0)."""
    expr = sp.sympify(expr)
    if expr.is_number:
        return coefficient(expr)
    if not expr.args:
        return expr
    return expr.func(*[numbers_as_coefficients(a) for a in expr.args])


def to_double(expr):
    """`expr` rounded once to the nearest double (correctly rounded, machine-independent)."""
    expr = sp.sympify(expr)
    rational = snap(expr)
    if rational is None:
        rational = sp.Rational(approx(expr))
    return float(Fraction(int(rational.p), int(rational.q)))  # int/int division is exact


def sign(expr):
    """-1, 0 or 1: the sign of an exact number (0 within SNAP of zero)."""
    rational = snap(expr)
    value = rational if rational is not None else approx(expr)
    return 0 if value == 0 else (1 if value > 0 else -1)


def clean(expr):
    """`expr` with every Float coefficient replaced by its exact rational when it is one (the
    40-digit noise of products of rounded constants), so that exact zeros vanish and exact ones
    print as 1."""
    if not isinstance(expr, sp.Basic):
        return expr
    if expr.is_Atom:  # most entries of a large model's n x n matrices are the Integer 0
        return coefficient(expr) if expr.is_Float else expr
    return _clean_compound(expr)


# The tables and the kernels clean each entry of A and M several times (patterns, counts, band
# structure, kernel bodies): remembered by identity (sympy's == takes 2.0 for 2, and an entry is
# the same object each time), a 43-body chain's generation takes a quarter less time.
_CLEANED = {}
_CLEANED_MAX = 1 << 15


def _clean_compound(expr):
    seen = _CLEANED.get(id(expr))
    if seen is not None and seen[0] is expr:
        return seen[1]
    floats = expr.atoms(sp.Float)
    cleaned = expr.xreplace({f: coefficient(f) for f in floats}) if floats else expr
    if len(_CLEANED) >= _CLEANED_MAX:
        _CLEANED.clear()
    _CLEANED[id(expr)] = (expr, cleaned)  # expr held: its id is not reused while remembered
    return cleaned
