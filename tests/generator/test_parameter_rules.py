"""parameter_rules.py: the rules on masses and inertias, for the file's values and for
run-time ones (issue 60: a negative mass given by --param ran)."""

import numpy as np
import pytest
import sympy as sp

import mcsgen
from mcsgen.errors import McsError
from mcsgen.parameter_rules import (
    first_problem,
    inertia_problem,
    parameter_dependent,
)

m, a, b = sp.symbols("m a b", real=True)


def test_the_rules_on_a_spatial_inertia():
    assert inertia_problem(np.diag([1.0, 2.0, 2.5]), strict=True) is None
    assert "positive definite" in inertia_problem(np.diag([1.0, -2.0, 2.5]), strict=True)
    assert "symmetric" in inertia_problem(np.array([[1, 0.5, 0], [0, 1, 0], [0, 0, 1.0]]), True)
    # J3 > J1 + J2: no rigid body; accepted where the file says inertia_check: warn
    assert "triangle" in inertia_problem(np.diag([1.0, 1.0, 3.0]), strict=True)
    assert inertia_problem(np.diag([1.0, 1.0, 3.0]), strict=False) is None


def test_only_expressions_of_parameters_are_kept():
    assert parameter_dependent("bodies[0].mass", "mass", [sp.Integer(2)]) is None
    kept = parameter_dependent("bodies[0].mass", "mass", [2 * m])
    assert kept.field == "bodies[0].mass" and kept.code == ("2*m",)


def test_the_first_set_that_breaks_a_rule_is_named():
    # functions and rationals: the kept NumPy text evaluates them as SymPy would
    mass = m * (sp.cos(a) ** 2 + sp.sin(a) ** 2) - sp.Rational(1, 2) - sp.Rational(1, 2)
    checks = [
        parameter_dependent("bodies[0].mass", "mass", [mass]),
        parameter_dependent("bodies[0].inertia", "inertia", [a, 0, 0, 0, b, 0, 0, 0, a + b]),
    ]
    values = {
        "m": np.array([2.0, 2.0, 0.5, 2.0]),
        "a": np.array([1.0, 1.0, 1.0, -1.0]),
        "b": np.array([1.0, 1.0, 1.0, 1.0]),
    }
    assert first_problem(checks, values) == (
        2,
        "bodies[0].mass",
        "mass must be positive, got -0.5",
    )
    values["m"][2] = 3.0
    row, field, problem = first_problem(checks, values)
    assert (row, field) == (3, "bodies[0].inertia") and "positive definite" in problem
    values["a"][3] = 1.0
    assert first_problem(checks, values) is None


def test_a_loaded_model_keeps_its_bodies_rules():
    model = mcsgen.load("squeezer").model
    fields = [c.field for c in model.parameter_checks]
    assert "bodies[0].mass" in fields and "bodies[0].inertia" in fields


@pytest.mark.parametrize(
    "params, said",
    [
        ({"m": -5}, "params m=-5: bodies[0].mass: mass must be positive, got -5"),
        ({"J": -1.0}, "params J=-1.0: bodies[0].inertia: inertia must be non-negative"),
        ({"m": "abc"}, "params m=abc: not a finite real number"),
        ({"m": True}, "params m=True: not a finite real number"),
        ({"m": float("inf")}, "params m=inf: not a finite real number"),
        ({"m": [1.0]}, "params m=[1.0]: not a finite real number"),
    ],
)
def test_the_python_api_refuses_values_the_file_would(params, said):
    mechanism = mcsgen.load("pendulum_3r_bodies")
    with pytest.raises(McsError, match=r"pendulum_3r_bodies\.yaml: ") as refused:
        mechanism.check_param_values(params, "params")
    assert str(refused.value).endswith(said) or said in str(refused.value), refused.value
    mechanism.check_param_values({"m": np.float64(2.0), "J": 3}, "params")  # numbers pass
