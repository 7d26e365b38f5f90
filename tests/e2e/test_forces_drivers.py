"""Force elements and drivers end to end: derived terms against finite differences, energy that
only decreases with damping, and a driven joint that follows its function of time."""
import numpy as np
import pytest

import mcsgen.build as build
from mcsgen.selfcheck import check_model
from helpers import run_simulation
from mcsgen.generate import generate
from mcsgen.model import load_model
from mcsgen.outputs.plot import read_run

PLANAR = """\
name: planar_forces
parameters:
  k: {value: 50.0, unit: N/m}
  c: {value: 2.0, unit: N s/m}
  cr: {value: 0.5, unit: N m s}
gravity: [0, -9.81]
bodies:
  - {name: b1, type: planar, mass: 1, inertia: 0.1, position: [0.5, 0], angle: 0}
  - {name: b2, type: planar, mass: 2, inertia: 0.2, position: [1.5, 0], angle: 0}
joints:
  - {name: O, type: revolute, body1: b1, body2: ground, point: [0, 0]}
  - {name: A, type: revolute, body1: b2, body2: b1, point: [1, 0]}
forces:
  - {type: spring_damper, body1: b2, point1: [0.5, 0], body2: ground, point2: [2, 1],
     stiffness: k, damping: c, rest_length: 0.5}
  - {type: rotational_spring_damper, joint: A, stiffness: 3.0, damping: cr, rest_angle: 0.2}
"""

SPATIAL = """\
name: spatial_forces
gravity: [0, 0, -9.81]
bodies:
  - {name: b, type: spatial, mass: 2, inertia: [0.1, 0.2, 0.25], position: [0.5, 0, 0]}
joints:
  - {name: S, type: spherical, body1: b, body2: ground, point: [0, 0, 0]}
forces:
  - {type: force, body: b, point: [0.5, 0, 0], force: [0, "sin(t)", 1.0]}
  - {type: torque, body: b, torque: ["0.2*t", 0, 0.1]}
  - {type: spring_damper, body1: b, point1: [0.5, 0, 0], body2: ground, point2: [1, 0, 1],
     stiffness: 20, damping: 0.3, rest_length: 0.2}
"""

DRIVEN = """\
name: driven_crank
gravity: [0, 0, -9.81]
bodies:
  - {name: crank, type: spatial, mass: 1, inertia: [0.01, 0.001, 0.01], position: [0, 0.5, 0]}
joints:
  - {name: A, type: revolute, body1: crank, body2: ground, point: [0, 0, 0], axis: [1, 0, 0],
     drive: {angle: "2*t + 0.3*sin(3*t)"}}
"""


@pytest.fixture
def local_models(tmp_path, monkeypatch):
    """Generate model texts into a private generated/ and build/ (leaving the repository's)."""
    monkeypatch.setattr(build, "GENERATED", tmp_path / "generated")
    monkeypatch.setattr(build, "USER_GENERATED", tmp_path / "generated")
    monkeypatch.setattr(build, "BUILD", tmp_path / "build")

    def make(text):
        name = text.split("\n", 1)[0].split(": ")[1]
        path = tmp_path / f"{name}.yaml"
        path.write_text(text)
        generate(path, out_root=tmp_path / "generated")
        return load_model(path)

    return make


@pytest.mark.parametrize("text", [PLANAR, SPATIAL, DRIVEN], ids=["planar", "spatial", "driven"])
def test_finite_difference_check(local_models, text):
    model = local_models(text)
    report = check_model(model, samples=3, seed=11)
    assert report.ok, report.table()
    rows = {r[0] for r in report.rows}
    assert {"K_f", "D", "f"} <= rows


def test_damping_only_removes_energy(local_models, tmp_path):
    local_models(PLANAR)
    out = tmp_path / "p.csv"
    summary = run_simulation(
        "planar_forces",
        {"t_end": 3.0, "method": "dopri5", "rtol": 1e-10, "atol": 1e-12},
        out_csv=out,
    )
    assert summary["ok"]
    e = read_run(out)["energy"]
    assert np.all(np.diff(e) < 1e-9)  # non-increasing up to round-off
    assert e[-1] < e[0] - 1.0  # and it does dissipate
    # without damping the same model (springs and gravity only) conserves it
    out2 = tmp_path / "p2.csv"
    summary = run_simulation(
        "planar_forces",
        {"t_end": 3.0, "method": "dopri5", "rtol": 1e-10, "atol": 1e-12, "param": ["c=0", "cr=0"]},
        out_csv=out2,
    )
    e2 = read_run(out2)["energy"]
    assert np.abs(e2 - e2[0]).max() / np.abs(e2).max() < 1e-8


def test_driven_joint_follows_its_angle(local_models, tmp_path):
    model = local_models(DRIVEN)
    assert model.m == 1 + 6 and model.n == 7  # normalization + revolute (5) + drive row (Rx)
    out = tmp_path / "d.csv"
    summary = run_simulation("driven_crank", {"t_end": 2.0, "dt_out": 0.1}, out_csv=out)
    assert summary["ok"] and summary["dof"] == 0
    run = read_run(out)
    e0, e1 = run["x.crank.e0"], run["x.crank.e1"]
    angle = np.unwrap(2 * np.arctan2(e1, e0))
    t = run["t"]
    assert np.abs(angle - (2 * t + 0.3 * np.sin(3 * t))).max() < 1e-10
    assert run["c_norm"].max() < 1e-12
