"""mcsgen.expr: the whitelist parser never runs model text and builds the right SymPy."""
import math
import re

import pytest
import sympy as sp
from hypothesis import given, settings, strategies as st

from mcsgen.model.expr import ExprError, parse_expr

x, y, t = sp.symbols("x y t", real=True)
SYMS = {"x": x, "y": y, "t": t}


@pytest.mark.parametrize(
    "text, expected",
    [
        ("x**2 + y**2 - 1", x**2 + y**2 - 1),
        ("-x*y/2", -x * y / 2),
        ("sin(x)*cos(t) + sqrt(y)", sp.sin(x) * sp.cos(t) + sp.sqrt(y)),
        ("atan2(y, x) + pi", sp.atan2(y, x) + sp.pi),
        ("abs(x) + exp(-t) + log(y)", sp.Abs(x) + sp.exp(-t) + sp.log(y)),
        ("1.5e-3*x", sp.Float(1.5e-3) * x),
        (2, sp.Integer(2)),
        (0.25, sp.Float(0.25)),
    ],
)
def test_accepts_the_expression_language(text, expected):
    assert sp.simplify(parse_expr(text, SYMS) - expected) == 0


@pytest.mark.parametrize(
    "text, message",
    [
        ("__import__('os').system('touch /tmp/mcsgen_pwned')", "only plain function calls"),
        ("x.__class__", "attribute access"),
        ("().__class__.__bases__[0]", "not allowed"),
        ("[x for x in y]", "not allowed"),
        ("lambda: 1", "not allowed"),
        ("'text'", "unsupported constant"),
        ("x if y else t", "not allowed"),
        ("x[0]", "not allowed"),
        ("eval('1')", "unknown function 'eval'"),
        ("open('/etc/passwd')", "unknown function 'open'"),
        ("sin(x, y)", "takes 1 argument"),
        ("sin(x=1)", "keyword arguments"),
        ("z + 1", "unknown symbol 'z'"),
        ("x ^ 2", "write x**2"),
        ("x +", "syntax error"),
        ("x / 0", "division by zero"),
        ("", "empty"),
        ("sin", "without arguments"),
        ("True", "unsupported constant"),
        ("x == y", "not allowed"),
        ("x; y", "syntax error"),
        ("-" * 300 + "x", "nested too deeply"),
    ],
)
def test_rejects_everything_else(text, message):
    with pytest.raises(ExprError, match=re.escape(message)):
        parse_expr(text, SYMS)


def test_a_long_chain_is_one_level_and_the_same_expression():
    """A sum over a 300-mass chain's potential is as deep as it is long in Python's tree; it is
    built as one level (no 'nested too deeply'), into the expression term-by-term building gives
    (structurally equal: the generated C is the same)."""
    zs = sp.symbols("z1:301", real=True)
    names = {str(z): z for z in zs}
    potential = parse_expr("m*g*(" + " + ".join(names) + ")", {**names, **SYMS, "m": t, "g": y})
    assert potential == t * y * sp.Add(*zs)
    assert parse_expr("x - y/t*2 + x/y - 3", SYMS) == ((x - (y / t) * 2) + x / y) - 3
    assert parse_expr("x/y/t*2", SYMS) == ((x / y) / t) * 2
    with pytest.raises(ExprError, match="division by zero"):
        parse_expr("x + y/(t - t)", SYMS)


def test_injection_creates_nothing(tmp_path):
    target = tmp_path / "x"
    with pytest.raises(ExprError):
        parse_expr(f"__import__('os').system('touch {target}')", SYMS)
    assert not target.exists()


@pytest.mark.parametrize("value", [float("inf"), float("nan"), True, None, [1], {"a": 1}])
def test_rejects_non_expressions(value):
    with pytest.raises(ExprError):
        parse_expr(value, SYMS)


# Random expressions over the whitelist evaluate like Python's own math on the same tree.
leaf = st.one_of(
    st.sampled_from(["x", "y", "t"]), st.floats(0.1, 9.0).map(lambda v: repr(round(v, 3)))
)


def _combine(children):
    return st.one_of(
        st.tuples(children, st.sampled_from(["+", "-", "*"]), children).map(
            lambda a: f"({a[0]} {a[1]} {a[2]})"
        ),
        st.tuples(st.sampled_from(["sin", "cos", "atan"]), children).map(
            lambda a: f"{a[0]}({a[1]})"
        ),
    )


@settings(max_examples=150, deadline=None)
@given(st.recursive(leaf, _combine, max_leaves=12))
def test_random_expressions_evaluate_like_python(text):
    values = {"x": 0.3, "y": -1.7, "t": 2.5}
    ours = float(parse_expr(text, SYMS).subs({x: 0.3, y: -1.7, t: 2.5}))
    reference = eval(
        text,
        {"__builtins__": {}, "sin": math.sin, "cos": math.cos, "atan": math.atan},  # noqa: S307
        values,
    )  # test oracle only
    assert ours == pytest.approx(reference, rel=1e-12, abs=1e-12)
