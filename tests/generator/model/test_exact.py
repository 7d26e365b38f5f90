"""mcsgen.exact: model numbers are exact, values are rounded to double once and correctly,
and 40-digit noise never survives as a coefficient."""
from fractions import Fraction

import pytest
import sympy as sp

from mcsgen.model.exact import (
    NotANumber,
    approx,
    clean,
    coefficient,
    from_literal,
    sign,
    snap,
    to_double,
)
from mcsgen.model.expr import parse_expr


def test_decimals_are_the_rationals_they_spell():
    assert from_literal(0.08) == sp.Rational(8, 100)
    assert from_literal(1.0e-4) == sp.Rational(1, 10000)
    assert from_literal(3) == 3 and from_literal(3).is_Integer
    assert from_literal("2.5e-3") == sp.Rational(1, 400)
    # the parser keeps the digits as written, in text and as YAML numbers
    assert parse_expr("0.1*3", {}) == sp.Rational(3, 10)
    assert parse_expr(0.3, {}) == sp.Rational(3, 10)
    assert parse_expr("1.0e-4 + 2", {}) == sp.Rational(20001, 10000)
    with pytest.raises(TypeError):
        from_literal(True)


@pytest.mark.parametrize(
    "expr",
    [
        sp.Rational(1, 3),
        sp.sqrt(2) / 2,
        sp.pi / 3,
        sp.cos(sp.Rational(7, 20)),
        -sp.sqrt(5) / 5,
        sp.Rational(3602879701896397, 36028797018963968),
    ],
)
def test_to_double_is_correctly_rounded(expr):
    exact = sp.Rational(approx(expr, 80))
    got = to_double(expr)
    frac = Fraction(int(exact.p), int(exact.q))
    error = abs(Fraction(got) - frac)
    # no double is closer to the exact value
    import math

    for other in (math.nextafter(got, math.inf), math.nextafter(got, -math.inf)):
        assert error <= abs(Fraction(other) - frac)


def test_noise_snaps_to_the_exact_value():
    # what a product of two rounded 40-digit constants can leave where the exact value is 1
    noisy_one = sp.Float(1, 40) + sp.Float(sp.Rational(1, 10**39), 40)
    assert sp.Rational(noisy_one) != 1 and abs(noisy_one - 1) < 1e-38
    assert snap(noisy_one) == 1
    assert coefficient(noisy_one) == 1 and coefficient(noisy_one).is_Integer
    assert coefficient(sp.sqrt(2) / 2 * sp.sqrt(2) / 4) == sp.Rational(1, 4)
    third = coefficient(sp.pi / 3)
    assert isinstance(third, sp.Float) and abs(third - sp.pi / 3) < 1e-39
    x, y = sp.symbols("x y")
    expr = sp.Float("1e-41", 40) * x * y + noisy_one * x + sp.Float("0.3", 40) * y
    assert clean(expr) == x + sp.Rational(3, 10) * y


def test_sign_and_bad_numbers():
    assert sign(sp.cos(sp.pi / 2)) == 0
    assert sign(sp.sqrt(2) - sp.Rational(14142, 10000)) == 1
    assert sign(-sp.pi) == -1
    assert to_double(sp.cos(sp.pi / 2)) == 0.0 and to_double(sp.Rational(1, 2)) == 0.5
    with pytest.raises(NotANumber):
        approx(sp.sqrt(-1))
    with pytest.raises(NotANumber):
        approx(sp.Symbol("x"))
    with pytest.raises(NotANumber):
        approx(sp.oo)


def shared_rotation_entries():
    """Entries of R R R a and of R^T R^T R R a: one quaternion of cos, sin and sqrt repeated
    hundreds of times (the shape of a joint frame in body coordinates); the second is a[0] = 1/3
    exactly."""
    angle, axis = sp.Rational(7, 10), [sp.Rational(1, 5), -1, sp.Rational(2, 5)]
    norm = sp.sqrt(sum(c**2 for c in axis))
    w, (x, y, z) = sp.cos(angle / 2), [sp.sin(angle / 2) * c / norm for c in axis]
    R = sp.Matrix(
        [
            [1 - 2 * (y**2 + z**2), 2 * (x * y - w * z), 2 * (x * z + w * y)],
            [2 * (x * y + w * z), 1 - 2 * (x**2 + z**2), 2 * (y * z - w * x)],
            [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x**2 + y**2)],
        ]
    )
    a = sp.Matrix([sp.Rational(1, 3), sp.Rational(2, 3), sp.Rational(2, 3)])
    return (R * (R * (R * a)))[0], (R.T * (R.T * (R * (R * a))))[0]


def test_a_shared_expression_is_evaluated_once_per_subexpression_to_evalfs_digits():
    """approx takes a large expression with repeated parts through exact._shared_value (each
    distinct subexpression once, two precisions that must agree): evalf's digits; an exact value
    behind cancellation still snaps exactly, and an exact zero is left to evalf."""
    from mcsgen.model.exact import EVAL_DIGITS, _shared_value

    irrational, third = shared_rotation_entries()
    for e in (irrational, third):
        nodes = sum(1 for _ in sp.preorder_traversal(e))
        assert nodes > 300 and len(set(sp.preorder_traversal(e))) < nodes / 4
        assert _shared_value(e, EVAL_DIGITS) is not None  # the shared path took it
        assert abs(approx(e) - e.evalf(80)) < sp.Float(10) ** -58
    assert snap(third) == sp.Rational(1, 3) and snap(irrational) is None
    assert _shared_value(third - sp.Rational(1, 3), EVAL_DIGITS) is None
    assert coefficient(third - sp.Rational(1, 3)) == 0
