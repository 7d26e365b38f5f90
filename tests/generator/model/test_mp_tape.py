"""model/mp_tape.py: values and gradients in multiprecision against SymPy's own (diff, then
evaluation at 60 digits), for every function a model may call."""

import mpmath
import pytest
import sympy as sp

from mcsgen.model.expr import FUNCTIONS
from mcsgen.model.mp_tape import Tape, TapeError

x, y, t = sp.symbols("x y t", real=True)
a = sp.Symbol("a", positive=True)
POINT = {x: sp.Rational(7, 10), y: sp.Rational(13, 10), t: sp.Rational(1, 4), a: 2}

# one expression per function a model may call, plus sums, products and powers that share
# subexpressions (each built once on the tape) and a variable missing from the expression
EXPRESSIONS = [
    sp.exp(x) * sp.sin(y) + x**2 * a,
    sp.sqrt(x**2 + y**2) - a,
    sp.atan2(y, x) * sp.Abs(x - y) + sp.cos(t * x),
    x**y + a**x,
    sp.log(x) * sp.pi / 3 + sp.Rational(1, 3) * y,
    (x * y * t * x) ** 3 - 1 / (x + y),
    sp.tan(x * y) + sp.asin(x / 2) * sp.acos(y / 2) + sp.atan(x * t),
    sp.sinh(x) * sp.cosh(y) - sp.tanh(x * y * t),
    sp.cos(x) ** 2 + sp.sin(x) ** 2 * sp.cos(x) ** 2,
    a * y + 3,
]


def test_every_function_a_model_may_call_is_covered():
    used = {type(f) for e in EXPRESSIONS for f in e.atoms(sp.Function)}
    # sqrt is not a class: SymPy writes it as a power (the second expression)
    assert {f for f, _ in FUNCTIONS.values() if isinstance(f, type)} <= used


@pytest.mark.parametrize("expr", EXPRESSIONS, ids=str)
def test_values_and_gradients_agree_with_sympy_to_the_working_precision(expr):
    with mpmath.workdps(40):
        tape = Tape(expr, [x, y, t], [a])
        value, gradient = tape([mpmath.mpf(POINT[s]) for s in (x, y, t)], [mpmath.mpf(2)])
        expected = [expr] + [sp.diff(expr, s) for s in (x, y, t)]
        for got, want in zip([value] + gradient, expected):
            exact = sp.N(want.subs(POINT), 60)
            assert abs(got - mpmath.mpf(str(exact))) <= mpmath.mpf(10) ** -37 * (1 + abs(got))


def test_a_square_root_of_a_negative_number_comes_out_complex():
    with mpmath.workdps(40):
        value, _ = Tape(sp.sqrt(x - 1), [x], [])([mpmath.mpf("0.5")], [])
    assert isinstance(value, mpmath.mpc) and value.imag != 0


def test_an_expression_it_cannot_evaluate_is_refused_when_read():
    with pytest.raises(TapeError, match="gamma"):
        Tape(sp.gamma(x), [x], [])
