"""The implicit integrator (issue 38): ROS34PW2, a Rosenbrock-W method of order 3 on the chart
Jacobian (runtime/src/sim/mcs_rosenbrock.c), adaptive and on a fixed grid.

- The damped 7-DOF arm (models/urdf/damped_arm.urdf: damping 1-5 N m s/rad on wrist links down
  to 6.7e-5 kg m^2, decay rates above 1e4 1/s): the energy lost equals the integral of the
  damping power to 1e-6 relative in at most 1/20 of DOPRI5's steps; the fixed-step method is
  stable and accurate at h = 1 ms, where RK4 blows up; the summary says the run is stiff.
- Order 3, measured: a stiff linear spring-damper chain against its matrix exponential, the
  damped cart-pole (models/urdf/) against DOP853.
- Non-stiff models: the same motion as DOP853 on P1, P2a and P3 (P3 through its ten singular
  configurations), the error falling with rtol.
"""

from fractions import Fraction

import numpy as np
import pytest
from scipy.integrate import simpson
from scipy.linalg import expm

import mcsgen
from mcsgen.urdf import import_urdf

from conftest import ROOT

URDF = ROOT / "models" / "urdf"
ARM_DAMPING = np.array([5, 5, 3, 3, 2, 1, 1.0])  # damped_arm.urdf's <dynamics damping>


@pytest.fixture(scope="module")
def arm(tmp_path_factory):
    """The damped arm, bent (joints 2, 4, 5, 6) and released from rest under gravity: its
    solver, DOP853's reference over 1 s, and DOPRI5's run at rtol 1e-6."""
    tmp = tmp_path_factory.mktemp("arm")
    q = {"joint2": Fraction(3, 5), "joint4": Fraction(-6, 5), "joint5": Fraction(3, 10)}
    q["joint6"] = Fraction(4, 5)
    path, _ = import_urdf(URDF / "damped_arm.urdf", tmp / "damped_arm.yaml", q=q, limits="comments")
    solver = mcsgen.load(path).build()
    reference = solver.simulate(t_end=1.0, method="dop853", rtol=1e-11, atol=1e-13)
    explicit = solver.simulate(t_end=1.0, dt_out=1e-4, method="dopri5", rtol=1e-6, atol=1e-8)
    return solver, reference, explicit


def energy_balance(run):
    """(energy lost, its relative difference from the integral of the damping power)."""
    rates = np.column_stack([run.columns[f"jd.joint{i}"] for i in range(1, 8)])
    dissipated = simpson((ARM_DAMPING * rates**2).sum(axis=1), x=run.t)
    lost = run.energy[0] - run.energy[-1]
    return lost, abs(lost - dissipated) / lost


def test_damped_arm_loses_the_damping_work_in_a_twentieth_of_dopri5s_steps(arm):
    solver, reference, explicit = arm
    run = solver.simulate(t_end=1.0, dt_out=1e-4, method="ros34pw2", rtol=1e-5, atol=1e-7)
    assert run.ok
    lost, off = energy_balance(run)
    assert lost > 0.5 * (run.energy[0] - run.energy.min())  # most of the motion's energy: real
    assert off < 1e-6  # measured 1.1e-7
    # DOPRI5 at a tenth of the tolerance, its steps bound by stability (4 719, ros34pw2 179)
    assert energy_balance(explicit)[1] < 1e-6
    assert 20 * run.summary["steps"] <= explicit.summary["steps"]
    # the same motion: both within their tolerance of DOP853's
    assert np.abs(run.x[-1] - reference.x[-1]).max() < 1e-5
    assert np.abs(explicit.x[-1] - reference.x[-1]).max() < 1e-6


def test_fixed_step_at_one_millisecond_is_stable_where_rk4_is_not(arm):
    solver, reference, _ = arm
    run = solver.simulate(t_end=1.0, h=1e-3, dt_out=1e-4, method="ros34pw2_fixed")
    assert run.ok and run.summary["steps"] == 1000 and run.summary["rejected"] == 0
    assert energy_balance(run)[1] < 1e-6  # measured 5.1e-9
    assert np.abs(run.x[-1] - reference.x[-1]).max() < 1e-6  # measured 9.5e-9 rad
    assert np.abs(run.v[-1] - reference.v[-1]).max() < 1e-5
    rk4 = solver.simulate(t_end=0.05, h=1e-3, method="rk4")
    assert not rk4.ok  # the flange's damping at 1.3e4 1/s: h |lambda| = 13, far outside RK4's 2.8
    assert any("ros34pw2_fixed" in p for p in rk4.summary["problems"])


def test_summary_finds_the_arm_stiff_and_suggests_the_implicit_method(arm):
    _, _, explicit = arm
    s = explicit.summary
    assert s["stability_limited"] > 0.9 * s["steps"]  # measured 4 684 of 4 719
    # the flange's damping over the inertia it moves (7.7e-5 kg m^2): 1.3e4 1/s, the largest
    # rate the import reports; the whole arm's fastest mode is a little faster
    assert 1.3e4 < s["lambda_max"] < 3e4
    assert s["stiffness_ratio"] == pytest.approx(s["lambda_max"] * 1.0)
    assert len(s["suggestions"]) == 1 and "--method ros34pw2" in s["suggestions"][0]
    # a model that is not stiff: no step cut short by stability, nothing suggested
    calm = mcsgen.load("pendulum_3r").build().simulate(t_end=2, method="dopri5", rtol=1e-6)
    assert calm.summary["stability_limited"] == 0 and calm.summary["suggestions"] == []
    assert calm.summary["lambda_max"] < 1000  # measured 138: a hundred times below the arm


CHAIN = """
name: stiff_chain
description: three masses on a line, springs to the wall and between them; the last mass is
  light and heavily damped (decay rate 5e3 1/s), the others slow (linear, exact by expm)
coordinates: [{name: x1, unit: m}, {name: x2, unit: m}, {name: x3, unit: m}]
parameters:
  m: {value: 1.0, unit: kg}
  ml: {value: 1.0e-3, unit: kg}
  k: {value: 100.0, unit: N/m}
  c: {value: 0.5, unit: N*s/m}
  cl: {value: 5.0, unit: N*s/m}
dynamics:
  mass_matrix: {diagonal: [m, m, ml]}
  forces:
    - "-k*x1 - k*(x1 - x2) - c*x1_dot"
    - "-k*(x2 - x1) - k*(x2 - x3) - c*x2_dot"
    - "-k*(x3 - x2) - cl*x3_dot"
  potential: "k/2*(x1**2 + (x2 - x1)**2 + (x3 - x2)**2)"
initial:
  x: {x1: 0.1, x2: -0.05, x3: 0.02}
  v: {x1: 0, x2: 0.3, x3: 0}
"""


def orders(errors):
    return np.log2(np.array(errors[:-1]) / np.array(errors[1:]))


def test_order_three_on_a_stiff_linear_chain_against_its_exponential(write_model):
    solver = mcsgen.load(write_model(CHAIN, "stiff_chain")).build()
    M = np.diag([1, 1, 1e-3])
    K = np.array([[200.0, -100, 0], [-100, 200, -100], [0, -100, 100]])
    C = np.diag([0.5, 0.5, 5.0])
    A = np.block([[np.zeros((3, 3)), np.eye(3)], [-np.linalg.solve(M, K), -np.linalg.solve(M, C)]])
    assert -np.linalg.eigvals(A).real.max() < 1 < 1000 < -np.linalg.eigvals(A).real.min()  # stiff
    exact = expm(A * 1.0) @ np.array([0.1, -0.05, 0.02, 0, 0.3, 0])
    errors = []
    for h in (0.02, 0.01, 0.005, 0.0025):  # h |lambda_max| from 100 to 12
        run = solver.simulate(t_end=1.0, h=h, method="ros34pw2_fixed")
        errors.append(np.abs(np.concatenate([run.x[-1], run.v[-1]]) - exact).max())
    assert orders(errors) == pytest.approx([3, 3, 3], abs=0.25)
    assert errors[-1] < 3e-5  # measured 1.8e-5 m/s in the rates, 6.7e-7 m in the positions
    adaptive = solver.simulate(t_end=1.0, method="ros34pw2", rtol=1e-8, atol=1e-10)
    assert np.abs(np.concatenate([adaptive.x[-1], adaptive.v[-1]]) - exact).max() < 1e-6


def test_order_three_on_the_damped_cart_pole(tmp_path):
    path, _ = import_urdf(
        URDF / "cart_pole.urdf",
        tmp_path / "cart_pole.yaml",
        q={"hinge": Fraction(3, 10)},
        limits="comments",
    )
    solver = mcsgen.load(path).build()
    reference = solver.simulate(t_end=1.0, method="dop853", rtol=1e-13, atol=1e-15)
    errors = []
    for h in (0.02, 0.01, 0.005, 0.0025):
        run = solver.simulate(t_end=1.0, h=h, method="ros34pw2_fixed")
        errors.append(np.abs(run.x[-1] - reference.x[-1]).max())
    assert orders(errors) == pytest.approx([3, 3, 3], abs=0.25)


@pytest.mark.parametrize(
    "model, t_end, bound",
    [
        ("spatial_pendulum", 2.0, 20),  # P1: measured 11 rtol
        ("pendulum_3r", 2.0, 5),  # P2a: 2 rtol
    ],
)
def test_non_stiff_problems_agree_with_dop853(model, t_end, bound):
    solver = mcsgen.load(model).build()
    reference = solver.simulate(t_end=t_end, method="dop853", rtol=1e-12, atol=1e-14)
    previous = None
    for rtol in (1e-6, 1e-8):
        run = solver.simulate(t_end=t_end, method="ros34pw2", rtol=rtol, atol=rtol * 1e-2)
        error = np.abs(run.x[-1] - reference.x[-1]).max()
        assert run.ok and error < bound * rtol
        if previous is not None:
            assert error < previous / 50  # falling with rtol, as the tolerance does
        previous = error


def test_double_four_bar_crosses_its_ten_singular_configurations():
    """P3: the implicit method takes the same branch through every crossing (the events DOP853
    locates) and its error falls with rtol (measured 3.4e-3, 3.5e-5 at rtol 1e-6, 1e-8 over
    10 s; DOPRI5 3.0e-4, 1.3e-6: a third-order method's global error grows faster over the ten
    periods)."""
    solver = mcsgen.load("double_four_bar").build()
    reference = solver.simulate(t_end=10.0, method="dop853", rtol=1e-12, atol=1e-14)
    assert reference.summary["events"] == 10
    errors = []
    for rtol in (1e-6, 1e-8):
        run = solver.simulate(t_end=10.0, method="ros34pw2", rtol=rtol, atol=rtol * 1e-2)
        assert run.ok and run.summary["events"] == 10
        assert np.allclose(
            [e.t for e in run.events], [e.t for e in reference.events], atol=3e3 * rtol
        )  # measured up to 1.5e-3 s and 1.5e-5 s: the phase error of the last crossings
        errors.append(np.abs(run.x[-1] - reference.x[-1]).max())
    assert errors[0] < 1e-2 and errors[1] < 1e-4 and errors[1] < errors[0] / 50


@pytest.mark.parametrize("model", ["pendulum_3r", "pendulum_3r_bodies"])
def test_locks_as_with_the_explicit_methods(model):
    """P2b: joints 2 and 3 locked at 0.8 and 1.3 s (in body coordinates each lock adds rows, whose
    terms the method's Jacobian leaves out: a W-method keeps its order); the same transitions and
    the same end as DOP853's."""
    solver = mcsgen.load(model).build()
    locks = ["q2@0.8", "q3@1.3"] if model == "pendulum_3r" else ["J2@0.8", "J3@1.3"]
    reference = solver.simulate(t_end=2.0, method="dop853", rtol=1e-12, atol=1e-14, lock=locks)
    run = solver.simulate(t_end=2.0, method="ros34pw2", rtol=1e-9, atol=1e-11, lock=locks)
    assert run.ok and len(run.summary["transitions"]) == len(reference.summary["transitions"]) >= 2
    for mine, theirs in zip(run.summary["transitions"], reference.summary["transitions"]):
        assert mine["t"] == theirs["t"]
        assert mine["kinetic_after"] == pytest.approx(theirs["kinetic_after"], rel=1e-7)
    assert np.abs(run.x[-1] - reference.x[-1]).max() < 1e-7


def test_what_the_implicit_methods_do_not_take_is_said_before_the_run(cli, tmp_path):
    """The banded simulator has no implicit step: --simulator banded says so (and auto, which
    picks banded only for a run that needs nothing it lacks, keeps to the dense one); a fixed
    step that would take more steps than --max-steps is refused as RK4's is."""
    out = tmp_path / "run.csv"
    proc = cli("simulate", "double_four_bar", "--simulator", "banded", "--method", "ros34pw2",
               "--out", out)  # fmt: skip
    assert proc.returncode == 2 and not out.exists()
    assert proc.stderr.strip().endswith(
        "--simulator banded: the implicit methods (--method ros34pw2, ros34pw2_fixed) need "
        "--simulator dense"
    )
    proc = cli("simulate", "pendulum_3r", "--method", "ros34pw2_fixed", "--h", "1e-9", "--out", out)
    assert proc.returncode == 2 and not out.exists()
    assert "takes 2e+09 ros34pw2_fixed steps, more than --max-steps" in proc.stderr
