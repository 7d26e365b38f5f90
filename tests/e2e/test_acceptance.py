"""End-to-end runs of the example models: generate -> compile -> simulate -> CSV, with the numbers
the slice's acceptance asks for."""
from pathlib import Path

import numpy as np
import pytest


from helpers import simulate

ROOT = Path(__file__).resolve().parents[2]


def positions(run, names):
    return np.column_stack([run[f"x.{n}"] for n in names])


def max_step_change(run, prefix, count):
    return max(np.abs(np.diff(run[f"{prefix}{i}"])).max() for i in range(1, count + 1))


@pytest.fixture(scope="module")
def spatial(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("spatial")
    return {
        c: simulate(tmp, "spatial_pendulum", continuation=c, method="rk4", h=1e-3, t_end=2.0)
        for c in ("exp", "euler", "none", "off")
    }


def test_spatial_pendulum_continued_vs_traditional(spatial):
    xyz = ("x", "y", "z")
    cont, trad = spatial["exp"][1], spatial["off"][1]
    for c in ("euler", "none", "off"):  # same physical motion whatever the basis
        assert np.abs(positions(spatial[c][1], xyz) - positions(cont, xyz)).max() < 1e-9
    assert max_step_change(cont, "qd", 2) < 0.02  # continuous projected velocities
    assert max_step_change(trad, "qd", 2) > 0.1  # the traditional basis jumps
    for c in ("euler", "none"):
        assert max_step_change(spatial[c][1], "qd", 2) < 0.02


def test_spatial_pendulum_paper_numbers(spatial):
    summary, run = spatial["exp"]
    assert (summary["n"], summary["m"], summary["rank"], summary["dof"]) == (3, 1, 1, 2)
    assert summary["steps"] == 2000 and run["t"][-1] == 2.0
    assert abs(abs(run["qd1"][0]) - 0.7895) < 1e-15 and abs(run["qd2"][0]) < 1e-15
    assert run["c_norm"].max() <= 1e-12
    assert summary["energy_drift_rel"] <= 1e-7
    e = run["energy"]
    assert np.abs(e - e[0]).max() / abs(e[0]) <= 1e-7
    # energy E0 = 1/2 M v0^2 at z = 0
    assert e[0] == pytest.approx(0.5 * 0.7895**2, rel=1e-15)


def central_derivative(t, y):
    """dy/dt at the interior rows of a CSV column (central differences, any spacing)."""
    return (y[2:] - y[:-2]) / (t[2:] - t[:-2])


def test_spatial_pendulum_minimal_coordinates_are_accumulated(spatial, tmp_path):
    """SPEC §4: q is the accumulated chart coordinate (T'x is identically 0 here: x is radial).
    It starts at 0, moves, is continuous, and qd is its time derivative; so with DOPRI5's dense
    output at rows between the steps."""
    run = spatial["exp"][1]
    summary, dense = simulate(tmp_path, "spatial_pendulum", method="dopri5", t_end=2.0, dt_out=1e-3)
    step = 2.0 / summary["steps"]  # DOPRI5's mean step: rows every 1e-3 s lie inside the steps
    # (a dense row's basis is continued from the step's start: its mismatch grows over the step)
    for r, h, k in ((run, 1e-3, 0.2), (dense, step, 0.5)):
        assert r["q1"][0] == 0.0 and r["q2"][0] == 0.0
        for i in (1, 2):
            q, qd = r[f"q{i}"], r[f"qd{i}"]
            assert np.abs(np.diff(q)).max() <= 1.01e-3 * np.abs(qd).max()  # continuous
            # qd = dq/dt to first order in the step: each step's dq is measured in the
            # basis it starts with, which the continuation moves by O(h) a step
            err = np.abs(central_derivative(r["t"], q) - qd[1:-1]).max()
            assert err < k * h * np.abs(qd).max(), (err, h)
        assert np.ptp(r["q1"]) > 0.25 and np.ptp(r["q2"]) > 0.25  # non-zero: it moves
    # both integrators give the same coordinates, to first order in the (larger) step: the
    # bases are continued the same way, the increments measured in each step's basis
    for i in (1, 2):
        assert np.abs(run[f"q{i}"] - dense[f"q{i}"]).max() < 0.5 * step


def test_redundant_planar_pendulum_same_motion(tmp_path):
    plain_s, plain = simulate(tmp_path, "planar_pendulum", t_end=3.0)
    red_s, red = simulate(tmp_path, "planar_pendulum_redundant", t_end=3.0)
    assert (red_s["n"], red_s["m"], red_s["rank"], red_s["dof"]) == (2, 2, 1, 1)
    assert set(red["rank"]) == {1}
    for col in ("x.x", "x.z", "v.x", "v.z"):
        assert np.abs(red[col] - plain[col]).max() <= 1e-10
    # continuation: qdot1 changes sign only where the swing reverses (speed ~ 0)
    qd = red["qd1"]
    flips = np.nonzero(np.sign(qd[1:]) * np.sign(qd[:-1]) < 0)[0]
    speed = np.hypot(red["v.x"], red["v.z"])
    assert all(speed[i] < 0.05 for i in flips)
    assert np.abs(np.abs(qd) - speed).max() < 1e-12  # |qdot| = |v| for one DOF


def test_planar_pendulum_traditional_flips_sign(tmp_path):
    _, trad = simulate(tmp_path, "planar_pendulum", continuation="off", t_end=3.0)
    jumps = np.abs(np.diff(trad["qd1"]))
    assert (jumps > 1.0).sum() >= 1  # spurious sign reversals of T


def test_pendulum_3r_energy_dopri5(tmp_path):
    summary, run = simulate(
        tmp_path, "pendulum_3r", method="dopri5", rtol=1e-10, atol=1e-12, t_end=2.0
    )
    e = run["energy"]
    assert np.abs(e - e[0]).max() / abs(e[0]) <= 1e-8
    assert summary["energy_drift_rel"] <= 1e-8
    assert (summary["n"], summary["m"], summary["dof"]) == (3, 0, 3)
    # released from rest at (pi/6, pi/6, pi/6)
    assert positions(run, ("q1", "q2", "q3"))[0] == pytest.approx([np.pi / 6] * 3, abs=1e-15)


def test_dt_out_rows_at_exact_times(tmp_path):
    for method in ("rk4", "dopri5"):
        _, run = simulate(
            tmp_path,
            "spatial_pendulum",
            method=method,
            dt_out=0.05,
            t_end=1.0,
            rtol=1e-10,
            atol=1e-12,
            h=0.003,
        )
        assert len(run["t"]) == 21
        assert np.abs(run["t"] - 0.05 * np.arange(21)).max() < 1e-15
        assert run["c_norm"].max() < 1e-13
    # dense output and RK4-stepped outputs agree
    _, a = simulate(tmp_path, "spatial_pendulum", method="rk4", dt_out=0.05, t_end=1.0, h=1e-4)
    _, b = simulate(
        tmp_path,
        "spatial_pendulum",
        method="dopri5",
        dt_out=0.05,
        t_end=1.0,
        rtol=1e-11,
        atol=1e-13,
    )
    xyz = ("x", "y", "z")
    assert np.abs(positions(a, xyz) - positions(b, xyz)).max() < 1e-9


def test_parameter_override_changes_the_motion(tmp_path):
    s1, r1 = simulate(tmp_path, "spatial_pendulum", t_end=0.2)
    s2, r2 = simulate(tmp_path, "spatial_pendulum", t_end=0.2, param=["g=3.0"])
    assert np.abs(r1["x.z"][-1] - r2["x.z"][-1]) > 1e-4


def test_cli_simulate_and_plot(cli, tmp_path):
    csv_a, csv_b = tmp_path / "a.csv", tmp_path / "b.csv"
    proc = cli("simulate", "spatial_pendulum", "--t-end", "0.5", "--out", csv_a)
    assert proc.returncode == 0, proc.stderr
    assert "n = 3, m = 1, rank = 1, DOF = 2" in proc.stdout
    assert "energy" in proc.stdout and "max constraint residual" in proc.stdout
    header = csv_a.read_text().splitlines()[0].split(",")
    assert header == [
        "t",
        "x.x",
        "x.y",
        "x.z",
        "v.x",
        "v.y",
        "v.z",
        "q1",
        "q2",
        "q3",
        "qd1",
        "qd2",
        "qd3",
        "c_norm",
        "rank",
        "rdiag1",
        "energy",
        "y.height",  # the file's outputs:
        "y.speed2",
    ]
    cli("simulate", "spatial_pendulum", "--t-end", "0.5", "--continuation", "off", "--out", csv_b)
    png = tmp_path / "fig.png"
    proc = cli("plot", csv_a, csv_b, "--label", "continued", "--label", "traditional", "--out", png)
    assert proc.returncode == 0, proc.stderr
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 20000


@pytest.mark.parametrize("verb", ["generate", "check", "simulate", "plot"])
def test_every_verb_has_help(cli, verb):
    proc = cli(verb, "--help")
    assert proc.returncode == 0 and "usage: mcsgen " + verb in proc.stdout


def test_cli_errors_are_one_line(cli, tmp_path):
    proc = cli("simulate", "no_such_model")
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert "no_such_model.yaml" in proc.stderr and "cannot read file" in proc.stderr
    bad_csv = tmp_path / "bad.csv"
    bad_csv.write_text("hello\n1,2\n")
    proc = cli("plot", bad_csv)
    assert proc.returncode == 2 and "not a simulation CSV" in proc.stderr
    proc = cli("simulate", "spatial_pendulum", "--param", "nope=1", "--t-end", "0.01")
    assert proc.returncode == 2 and "unknown parameter" in proc.stderr


def test_reactions_are_the_multipliers(tmp_path):
    """Spatial pendulum at t = 0: 2 l lam = M v0^2 / l (centripetal, gravity is tangent there)."""
    _, run = simulate(tmp_path, "spatial_pendulum", t_end=0.01, reactions=True)
    assert run["lam.length"][0] == pytest.approx(0.7895**2 / (2 * 0.08**2), rel=1e-13)
    # redundant rows share the load with minimum norm: half each
    _, plain = simulate(tmp_path, "planar_pendulum", t_end=0.5, reactions=True)
    _, red = simulate(tmp_path, "planar_pendulum_redundant", t_end=0.5, reactions=True)
    np.testing.assert_allclose(red["lam.length"], plain["lam.length"] / 2, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(
        red["lam.length_again"], plain["lam.length"] / 2, rtol=1e-10, atol=1e-12
    )
