"""The papers' mechanisms built from bodies and joints, simulated end to end."""
from pathlib import Path

import numpy as np
import pytest
from scipy.integrate import solve_ivp

from mcsgen.model import complete_initial_state, load_model

from helpers import simulate

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def slider(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("slider")
    return {c: simulate(tmp, "slider_crank", continuation=c) for c in ("exp", "off")}


def test_slider_crank_structure(slider):
    s, _ = slider["exp"]
    assert (s["n"], s["m"], s["rank"], s["dof"]) == (21, 20, 20, 1)


def test_slider_crank_stays_within_its_geometric_limits(slider):
    _, run = slider["exp"]
    x = run["x.slider.x"]
    assert x.min() >= 0.18495 and x.max() <= 0.29016
    # and it reaches both limits (the crank turns fully round)
    assert x.min() < 0.18496 and x.max() > 0.29015


def test_slider_crank_energy_and_residual(slider):
    s, run = slider["exp"]
    assert run["c_norm"].max() <= 1e-10
    e = run["energy"]
    assert np.abs(e - e[0]).max() / abs(e[0]) <= 1e-8
    assert s["energy_drift_rel"] <= 1e-8
    assert run["t"][-1] == 5.0


def test_slider_crank_continued_qdot_keeps_its_sign(slider):
    _, cont = slider["exp"]
    _, trad = slider["off"]
    assert cont["qd1"].min() > 0 or cont["qd1"].max() < 0  # one sign all along
    flips = np.sum(np.sign(trad["qd1"][1:]) != np.sign(trad["qd1"][:-1]))
    assert flips >= 2  # the traditional basis flips


def test_slider_crank_bases_give_the_same_motion(tmp_path):
    """Continued and traditional bases integrate the same motion: on a common output grid they
    differ by less than either differs from a tight reference (rtol 1e-13), i.e. the choice of
    basis adds nothing beyond DOPRI5's own error at rtol 1e-10 (itself below 5e-8 over 5 s;
    the crank turns 30 rad, so its phase error dominates)."""
    runs = {
        name: simulate(tmp_path, "slider_crank", dt_out=0.01, **opts)[1]
        for name, opts in (
            ("cont", dict(continuation="exp")),
            ("trad", dict(continuation="off")),
            ("ref", dict(continuation="exp", rtol=1e-13, atol=1e-15)),
        )
    }
    for col in ("x.slider.x", "x.crank.e1", "x.rod.z"):
        between = np.abs(runs["cont"][col] - runs["trad"][col]).max()
        errors = [np.abs(runs[k][col] - runs["ref"][col]).max() for k in ("cont", "trad")]
        assert max(errors) < 5e-8, (col, errors)
        assert between < min(errors), (col, between, errors)


def test_slider_crank_initial_velocities_solved_from_the_crank_rate():
    model = complete_initial_state(load_model(ROOT / "models" / "slider_crank.yaml"))
    rep = model.initial_report
    assert rep["held"] == ["joint A rate"] and rep["undetermined"] == 0
    v = dict(zip([c.name for c in model.coordinates], model.v0))
    # the crank turns at 6 rad/s about +x: B = A + 0.08 (0, -sin, cos) moves at 0.48 m/s along -y,
    # so the crank's centre (mid-crank) moves at 0.24 m/s
    assert v["crank.y"] == pytest.approx(-0.24, abs=1e-12)
    assert v["crank.z"] == pytest.approx(0.0, abs=1e-12)
    assert v["slider.y"] == pytest.approx(0.0, abs=1e-12)


def angular_momentum_z(run):
    m, J = 30.0, np.diag([90.0, 90.0, 30.0])
    out = []
    for i in range(len(run["t"])):
        r = np.array([run[f"x.top.{c}"][i] for c in "xyz"])
        v = np.array([run[f"v.top.{c}"][i] for c in "xyz"])
        e0, e1, e2, e3 = (run[f"x.top.e{k}"][i] for k in range(4))
        ed = np.array([run[f"v.top.e{k}"][i] for k in range(4)])
        G = np.array([[-e1, e0, e3, -e2], [-e2, -e3, e0, e1], [-e3, e2, -e1, e0]])
        R = np.array(
            [
                [
                    e0 * e0 + e1 * e1 - e2 * e2 - e3 * e3,
                    2 * (e1 * e2 - e0 * e3),
                    2 * (e1 * e3 + e0 * e2),
                ],
                [
                    2 * (e1 * e2 + e0 * e3),
                    e0 * e0 - e1 * e1 + e2 * e2 - e3 * e3,
                    2 * (e2 * e3 - e0 * e1),
                ],
                [
                    2 * (e1 * e3 - e0 * e2),
                    2 * (e2 * e3 + e0 * e1),
                    e0 * e0 - e1 * e1 - e2 * e2 + e3 * e3,
                ],
            ]
        )
        out.append((m * np.cross(r, v) + R @ (J @ (2 * G @ ed)))[2])
    return np.array(out)


def test_spin_top_first_integrals(tmp_path):
    s, run = simulate(tmp_path, "spin_top")
    assert (s["n"], s["m"], s["dof"]) == (7, 2, 5)
    # the paper's r0 violates the constraint: the run assembles it and says so
    assert s["assembly"]["c_norm_before"] == pytest.approx(0.5)  # (|r_T|^2 - 1) / 2
    assert s["assembly"]["c_norm_after"] < 1e-15
    e = run["energy"]
    kinetic_max = s["energy_drift"] / s["energy_drift_rel"]
    # energy: relative to the energy that changes form (max kinetic energy, 556 J; E0 = 30 J
    # depends on the arbitrary zero of the potential)
    assert np.abs(e - e[0]).max() / max(abs(e[0]), kinetic_max) <= 1e-8
    Lz = angular_momentum_z(run)
    assert np.abs(Lz - Lz[0]).max() / abs(Lz[0]) <= 1e-8
    assert run["c_norm"].max() < 1e-12


def test_double_four_bar_follows_the_parallelogram(tmp_path):
    """Up to and through its singular configurations (all bars horizontal, phi = pi/2 + k pi),
    the motion is the parallelogram's: 3 phi'' = 3.5 g sin(phi), phi the angle of bar 1 from
    the vertical, phi(0) = 0, phi'(0) = 1 rad/s."""
    s, run = simulate(tmp_path, "double_four_bar", t_end=2.0)
    assert (s["n"], s["m"], s["rank"], s["dof"]) == (15, 14, 14, 1)
    phi = np.pi / 2 - run["x.bar1.theta"]
    sol = solve_ivp(
        lambda t, y: [y[1], 3.5 * 9.81 * np.sin(y[0]) / 3],
        (0, 2.0),
        [0, 1],
        rtol=1e-12,
        atol=1e-14,
        dense_output=True,
    )
    assert np.abs(phi - sol.sol(run["t"])[0]).max() < 1e-7
    assert phi.max() > np.pi / 2  # it went through the first singular configuration
    assert run["c_norm"].max() < 1e-10
    # the horizontal bars translate: their angles never change
    assert np.abs(run["x.bar2.theta"]).max() < 1e-10
    assert np.abs(run["x.bar4.theta"]).max() < 1e-10


def test_pendulum_kc_swings_at_its_frequency(tmp_path):
    s, run = simulate(tmp_path, "pendulum_kc")
    assert (s["n"], s["m"], s["dof"]) == (3, 2, 1)
    e = run["energy"]
    assert np.abs(e - e[0]).max() / abs(e[0]) < 1e-9
    # period of a 4 m pendulum released at 30 degrees: 4 sqrt(l/g) K(sin^2(theta0/2))
    theta = run["x.bob.theta"] + np.pi / 2  # from the downward vertical
    crossings = np.nonzero(np.sign(theta[1:]) != np.sign(theta[:-1]))[0]  # half a period apart
    t = run["t"]
    times = [t[i] - theta[i] * (t[i + 1] - t[i]) / (theta[i + 1] - theta[i]) for i in crossings]
    period = 2 * (times[1] - times[0])
    k = np.sin(np.pi / 12)
    from scipy.special import ellipk

    exact = 4 * np.sqrt(4 / 9.81) * ellipk(k * k)
    assert period == pytest.approx(exact, rel=1e-6)


def test_pendulum_kc_hinge_reaction(tmp_path):
    """At release (rest, 30 degrees) the link tension is m g cos(30 deg): the hinge rows are in
    the ground frame, so the reaction on the bob, -A_bob^T lam, points from bob to hinge."""
    _, run = simulate(tmp_path, "pendulum_kc", t_end=0.01, reactions=True)
    lam = np.array([run["lam.hinge.x"][0], run["lam.hinge.y"][0]])
    tension = 15 * 9.81 * np.cos(np.pi / 6)
    assert np.linalg.norm(lam) == pytest.approx(tension, rel=1e-10)
    bob = np.array([run["x.bob.x"][0], run["x.bob.y"][0]])
    assert (-lam) @ (-bob) / np.linalg.norm(bob) == pytest.approx(tension, rel=1e-10)
