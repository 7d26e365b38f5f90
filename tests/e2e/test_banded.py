"""The banded simulator through `simulate` (--simulator, issue 13): the default simulator's motion
and every CSV column it writes, what auto chooses, and a message for each run it cannot take."""

import numpy as np
import pytest

import mcsgen
from conftest import ROOT
from helpers import simulate
from mcsgen.errors import McsError

CHAIN = ROOT / "bench" / "models" / "point_chain_40.yaml"  # n = 80: auto takes the banded one


def columns(run, prefix):
    """(rows x k) the columns whose names start with prefix (a dict of read_run)."""
    return np.column_stack([run[c] for c in run if c.startswith(prefix)])


def test_the_cli_columns_are_the_dense_simulators(tmp_path):
    """RK4 (rows at the same times): positions, velocities, multipliers and energy; the basis,
    the minimal velocity and the momenta up to the basis' sign (each simulator's traditional
    basis is its own factorization's); R's diagonal through the product of |R_ii|, which is
    sqrt(det(A Aᵀ)) in both."""
    common = dict(t_end=0.3, method="rk4", continuation="off", reactions=True, momenta=True)
    dense, d = simulate(
        tmp_path, "slider_crank", simulator="dense", sing_tol=0, basis=True, **common
    )
    banded, b = simulate(tmp_path, "slider_crank", simulator="banded", basis=True, **common)
    assert dense["simulator"] == "dense" and banded["simulator"] == "banded"
    assert banded["steps"] == dense["steps"] == 300
    assert list(d) == list(b)
    wrenches = [(f"{c}{a}.", 1e-8) for c in "FN" for a in "xyz"]  # the joints' (from the KKT)
    for prefix, tol in [("x.", 1e-12), ("v.", 1e-11), ("lam.", 1e-8), ("energy", 1e-12)] + wrenches:
        scale = max(1.0, np.abs(columns(d, prefix)).max())
        assert np.abs(columns(d, prefix) - columns(b, prefix)).max() < tol * scale, prefix
    # f = 1: the basis and the minimal velocity are the same up to the column's sign
    sign = np.sign(np.sum(columns(d, "T1.") * columns(b, "T1."), axis=1))[:, None]
    assert np.abs(columns(d, "T1.") - sign * columns(b, "T1.")).max() < 1e-10
    assert np.abs(d["qd1"] - sign[:, 0] * b["qd1"]).max() < 1e-9
    assert np.abs(d["p1"] - sign[:, 0] * b["p1"]).max() < 1e-9
    prod_d = np.prod(columns(d, "rdiag"), axis=1)
    prod_b = np.prod(columns(b, "rdiag"), axis=1)
    assert np.abs(prod_d - prod_b).max() < 1e-10 * prod_d.max()
    assert banded["max_c_norm"] < 1e-13


def test_auto_takes_the_banded_simulator_for_large_models_only(tmp_path):
    """n = 80 with the continuation none: banded, the same end state as the dense simulator; with
    exp (which it does not take): dense; the slider-crank (n = 21): dense."""
    chain = mcsgen.load(CHAIN).build()
    common = dict(t_end=0.1, method="rk4", continuation="none")
    auto = chain.simulate(**common)
    dense = chain.simulate(simulator="dense", sing_tol=0, **common)
    assert auto.summary["simulator"] == "banded" and dense.summary["simulator"] == "dense"
    assert auto.ok and dense.ok
    assert np.abs(auto.x[-1] - dense.x[-1]).max() < 1e-12
    exp = chain.simulate(t_end=0.01, method="rk4", continuation="exp")
    assert exp.summary["simulator"] == "dense"
    small, _ = simulate(tmp_path, "slider_crank", t_end=0.01, method="rk4", continuation="none")
    assert small["simulator"] == "dense"


@pytest.mark.parametrize(
    "model, options, message",
    [
        ("slider_crank", {}, "continuation exp (the model file's or --continuation)"),
        ("pendulum_3r", {"continuation": "none"}, "no band structure"),
        ("pendulum_3r_bodies", {"continuation": "none"}, "locks"),  # its file locks joints
        ("slider_crank", {"continuation": "none", "dt_out": 0.01}, "need dense output"),
    ],
    ids=["exp", "no-structure", "locks", "interpolated-rows"],
)
def test_what_it_cannot_take_is_refused_with_a_reason(model, options, message):
    with pytest.raises(McsError, match="--simulator banded") as err:
        mcsgen.load(model).build().simulate(simulator="banded", t_end=0.01, **options)
    assert message in str(err.value)


def test_it_stops_at_a_singular_configuration(tmp_path):
    solver = mcsgen.load("double_four_bar").build()
    run = solver.simulate(simulator="banded", continuation="none", method="rk4", t_end=1.0)
    assert not run.summary["ok"] and "singular on the chart" in run.summary["status"]
    assert abs(run.summary["t_reached"] - 0.714) < 2e-3
