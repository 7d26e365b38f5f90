"""Each type of tree joint of joint coordinates (model/tree_steps.py, tree_state.py) against
body coordinates: a small mechanism per type (universal, spherical, cylindrical, planar,
parallel), both tree directions, written both ways: the same motion, energy, lock energy and
joints' wrenches, and its derived terms against finite differences."""

import re

import numpy as np
import pytest
import sympy as sp

from mcsgen.selfcheck import check_model
from mcsgen.model.tree_state import cylindrical_initial, planar_initial

import helpers
from helpers import assert_same_physics, written_both_ways

TOL = dict(method="dopri5", rtol=1e-11, atol=1e-13)


def locked_at_0_4(joint, coordinates):
    """The end of a test mechanism's file: `joint` locked at 0.4 s, a 1 s DOPRI5 run, in the
    formulation `coordinates`."""
    return f"""switches:
  - {{name: lock_{joint}, lock: {joint}}}
events:
  - {{at: 0.4, activate: lock_{joint}}}
simulation: {{t_end: 1.0, h: 1.0e-3, method: dopri5}}
coordinates: {coordinates}
"""


UNIVERSAL_CHAIN = """name: universal_chain{suffix}
description: two rods hanging from the ground on universal joints, the first written with the
  ground as its body 2 (its tree child is body 1), the second with the rods in tree order; both
  rods turned about their long axes, the second set spinning (the angles' rates solved from it)
parameters:
  g: {{value: 9.81, unit: m/s^2}}
gravity: [1.5, -2, -g]
bodies:
  - {{name: r1, type: spatial, mass: 1.0, inertia: [0.03, 0.1, 0.12], position: [0.5, 0, 0],
     orientation: {{axis: [1, 0, 0], angle: 0.5}}}}
  - {{name: r2, type: spatial, mass: 0.5, inertia: [0.015, 0.04, 0.03], position: [1.3, 0, 0],
     orientation: {{axis: [1, 0, 0], angle: 0.3}}, angular_velocity: [0, 1.5, -0.8]}}
joints:
  - {{name: U1, type: universal, body1: r1, body2: ground, point: [0, 0, 0], axis1: [0, 0, 1],
     axis2: [0, 1, 0]}}
  - {{name: U2, type: universal, body1: r1, body2: r2, point: [1, 0, 0], axis1: [0, 1, 0],
     axis2: [0, 0, 1]}}
{events}simulation: {{t_end: 1.0, h: 1.0e-3, method: dopri5}}
{coordinates}"""
LOCK_U2 = """switches:
  - {name: lock_U2, lock: U2}
events:
  - {at: 0.4, activate: lock_U2}
"""


def test_universal_tree_joints_give_the_same_motion_as_body_coordinates(tmp_path):
    """Universal joints on the tree (two angles each, both tree directions): the motion, the
    energy, the energy U2's lock takes at 0.4 s, and the joints' wrenches before it (in body
    coordinates a universal joint's lock adds three rotation rows to its perp row, and the
    load split between dependent rows is the minimum-norm one, so not compared after it)."""
    texts = {
        f: UNIVERSAL_CHAIN.format(suffix=f"_{f}", events=LOCK_U2, coordinates=f"coordinates: {f}\n")
        for f in ("body", "joint")
    }
    runs = written_both_ways(tmp_path, "universal_chain", texts, **TOL, t_end=1.0, dt_out=0.05)
    joint_model, body_model = runs["joint"][3], runs["body"][3]
    assert [c.name for c in joint_model.coordinates] == [
        "U1.angle1", "U1.angle2", "U2.angle1", "U2.angle2"
    ]  # fmt: skip
    assert (joint_model.n, joint_model.m, body_model.n, body_model.m) == (4, 0, 14, 10)
    assert_same_physics(joint_model, body_model, runs["joint"][:3], runs["body"][:3])
    assert min(abs(r) for r in joint_model.v0) > 1e-2  # every angle starts moving
    assert [e["kind"] for e in runs["joint"][2] if e["kind"] == "lock"] == ["lock"]
    rj, rb = runs["joint"][1], runs["body"][1]
    before = rb["t"] < 0.4
    wrenches = [c for c in rb if re.match(r"[FN][xyz]\.", c)]
    assert len(wrenches) == 12
    for c in wrenches:
        scale = max(np.abs(rb[c][before]).max(), 1e-3)
        assert np.abs(rj[c][before] - rb[c][before]).max() <= 1e-6 * scale, c
    assert np.abs(np.diff(rj["x.U2.angle2"][before])).max() > 1e-3  # it swings ...
    after = rj["t"] >= 0.4  # ... until the lock holds it
    assert np.ptp(rj["x.U2.angle1"][after]) <= 1e-9 and np.ptp(rj["x.U2.angle2"][after]) <= 1e-9


SPHERICAL_CHAIN = """name: spherical_chain{suffix}
description: two rods on spherical joints (the first written with the ground as its body 2),
  a third on a revolute joint below the second (under a spherical joint the tree's bodies take
  Lagrange's equations); the rods tumbling, each at its own rate
parameters:
  g: {{value: 9.81, unit: m/s^2}}
gravity: [1.5, -2, -g]
bodies:
  - {{name: r1, type: spatial, mass: 1.0, inertia: [0.03, 0.1, 0.12], position: [0.5, 0, 0],
     orientation: {{axis: [1, 0, 0], angle: 0.5}}, angular_velocity: [0.3, 1.0, -0.5]}}
  - {{name: r2, type: spatial, mass: 0.5, inertia: [0.015, 0.04, 0.03], position: [1.3, 0, 0],
     orientation: {{axis: [1, 0, 0], angle: 0.3}}, angular_velocity: [0.2, 1.5, -0.8]}}
  - {{name: r3, type: spatial, mass: 0.3, inertia: [0.01, 0.02, 0.02], position: [1.9, 0, 0]}}
joints:
  - {{name: S1, type: spherical, body1: r1, body2: ground, point1: [-0.5, 0, 0],
     point2: [0, 0, 0]}}
  - {{name: S2, type: spherical, body1: r1, body2: r2, point: [1, 0, 0]}}
  - {{name: H3, type: revolute, body1: r2, body2: r3, point: [1.6, 0, 0], axis: [0, 1, 0]}}
"""


def test_spherical_tree_joints_give_the_same_motion_as_body_coordinates(tmp_path):
    """Spherical joints on the tree (four Euler parameters and their norm row each, both tree
    directions), a revolute joint below one: the motion, the energy, the energy S2's lock takes
    at 0.4 s, the joints' wrenches before it; after it S2's relative rotation is held. The
    derived terms agree with finite differences (`check`, off the unit norm too)."""
    texts = {
        f: SPHERICAL_CHAIN.format(suffix=f"_{f}") + locked_at_0_4("S2", f)
        for f in ("body", "joint")
    }
    runs = written_both_ways(tmp_path, "spherical_chain", texts, **TOL, t_end=1.0, dt_out=0.05)
    joint_model, body_model = runs["joint"][3], runs["body"][3]
    names = [c.name for c in joint_model.coordinates]
    assert names == [f"S{k}.e{a}" for k in (1, 2) for a in range(4)] + ["H3"]
    assert [c.name for c in joint_model.constraints] == ["S1.norm", "S2.norm"]
    assert (joint_model.n, joint_model.m, body_model.n, body_model.m) == (9, 2, 21, 14)
    assert joint_model.x0[:8] == [1.0, 0.0, 0.0, 0.0] * 2  # the poses as written
    for k in (0, 4):  # both joints turning (e0' = 0: e . e' = 0 at e = (1, 0, 0, 0))
        assert abs(joint_model.v0[k]) <= 1e-15
        assert max(abs(r) for r in joint_model.v0[k + 1 : k + 4]) > 1e-2
    (_, rj, ej), rb = runs["joint"][:3], runs["body"][1]
    assert [e["kind"] for e in ej if e["kind"] == "lock"] == ["lock"]
    kinetic = [e["kinetic_after"] - e["kinetic_before"] for e in ej if e["kind"] == "lock"]
    assert kinetic[0] < -1e-3  # the lock takes energy ...
    assert_same_physics(joint_model, body_model, runs["joint"][:3], runs["body"][:3])
    before, after = rb["t"] < 0.4, rj["t"] >= 0.4
    for c in (c for c in rb if re.match(r"[FN][xyz]\.", c)):
        scale = max(np.abs(rb[c][before]).max(), 1e-3)
        assert np.abs(rj[c][before] - rb[c][before]).max() <= 1e-6 * scale, c
    moving = [np.ptp(rj[f"x.S2.e{a}"][rj["t"] < 0.4]) for a in range(4)]
    assert max(moving) > 1e-2  # S2 turns ...
    for a in range(4):  # ... until the lock holds it (the quaternion, to the run's tolerance)
        assert np.ptp(rj[f"x.S2.e{a}"][after]) <= 1e-9
    norm = sum(rj[f"x.S1.e{a}"] ** 2 for a in range(4))
    assert np.abs(norm - 1).max() <= 1e-10
    solver = helpers._solvers[str(tmp_path / "spherical_chain_joint.yaml")]
    report = check_model(joint_model, samples=2, seed=5, generated_dir=solver.generated_dir)
    assert report.ok, report.table()
    assert {"K_f", "D", "M", "f", "group S2: G"} <= {r[0] for r in report.rows}


CYLINDRICAL_CHAIN = """name: cylindrical_chain{suffix}
description: a sleeve on a shaft (a cylindrical joint, the ground as body1, the sleeve its
  body2), an arm hinged to it, a rod on a second cylindrical joint along the arm (the rod as
  body1), under a tilted gravity; the sleeve turning and sliding, the rod spinning
parameters:
  g: {{value: 9.81, unit: m/s^2}}
  s0: {{value: 0.05, unit: m, description: "the shaft's point below the sleeve's centre"}}
gravity: [1.5, -2, -g]
bodies:
  - {{name: sleeve, type: spatial, mass: 2.0, inertia: [0.05, 0.04, 0.03], position: [0, 0, 0.2],
     angular_velocity: [0, 0, 2.0], velocity: [0, 0, 0.3]}}
  - {{name: arm, type: spatial, mass: 1.0, inertia: [0.01, 0.08, 0.08], position: [0.5, 0, 0.2]}}
  - {{name: rod, type: spatial, mass: 0.4, inertia: [0.002, 0.01, 0.01], position: [0.8, 0, 0.2],
     orientation: {{axis: [0, 0, 1], angle: 0.4}}, angular_velocity: [1.5, 0, 2.0]}}
joints:
  - {{name: C1, type: cylindrical, body1: ground, body2: sleeve, point1: [0, 0, s0],
     point2: [0, 0, 0], axis: [0, 0, 1]}}
  - {{name: H2, type: revolute, body1: sleeve, body2: arm, point: [0, 0, 0.2], axis: [0, 1, 0]}}
  - {{name: C3, type: cylindrical, body1: rod, body2: arm, point: [0.7, 0, 0.2],
     axis: [1, 0, 0]}}
"""


def test_cylindrical_tree_joints_give_the_same_motion_as_body_coordinates(tmp_path):
    """Cylindrical joints on the tree (a slide and a turn each, both tree directions): no rows,
    the motion, the energy, the energy C3's lock takes at 0.4 s and the joints' wrenches (the
    lock holds both of C3's coordinates: no dependent row in either formulation); the derived
    terms agree with finite differences."""
    texts = {
        f: CYLINDRICAL_CHAIN.format(suffix=f"_{f}") + locked_at_0_4("C3", f)
        for f in ("body", "joint")
    }
    runs = written_both_ways(tmp_path, "cylindrical_chain", texts, **TOL, t_end=1.0, dt_out=0.05)
    joint_model, body_model = runs["joint"][3], runs["body"][3]
    assert [c.name for c in joint_model.coordinates] == [
        "C1.translation", "C1.angle", "H2", "C3.translation", "C3.angle"
    ]  # fmt: skip
    assert (joint_model.n, joint_model.m, body_model.n, body_model.m) == (5, 0, 21, 16)
    # C1's shaft point s0 below the sleeve's centre (0.2): its translation s0 - 0.2 as written,
    # C3's points coincide; the sleeve rising and turning, the rod (turned about z, not about
    # C3's axis: R0 and the turn do not commute) spinning and sliding as the arm swings
    assert joint_model.x0 == pytest.approx([-0.15, 0, 0, 0, 0], abs=1e-15)
    assert joint_model.v0[0] == pytest.approx(-0.3, abs=1e-14)  # the sleeve is body2: -0.3
    assert joint_model.v0[1] == pytest.approx(-2.0, abs=1e-14)
    assert joint_model.v0[4] == pytest.approx(1.5, abs=1e-14)
    (_, rj, ej) = runs["joint"][:3]
    assert [e["kind"] for e in ej if e["kind"] == "lock"] == ["lock"]
    assert_same_physics(joint_model, body_model, runs["joint"][:3], runs["body"][:3])
    before, after = rj["t"] < 0.4, rj["t"] >= 0.4
    for c in ("x.C3.translation", "x.C3.angle"):
        assert np.ptp(rj[c][before]) > 1e-2  # moving ...
        assert np.ptp(rj[c][after]) <= 1e-9  # ... until the lock holds it
    # another s0 at run time: the joint model's translation follows it as the body model's rows
    # do (the bodies start where the file puts them): its initial value is s0 - 1/5, exact
    s0 = next(iter(joint_model.initial_x[0].free_symbols))
    assert sp.expand(joint_model.initial_x[0] - (s0 - sp.Rational(1, 5))) == 0
    # and a run at it starts where the body model's does: the same energy (the 9 held velocity
    # components are 4 independent conditions on the 5 joint coordinates: the runtime's start at
    # other parameter values takes no more than n)
    assert len(joint_model.held) <= joint_model.n < len(body_model.held)
    other = {}
    for f in ("body", "joint"):
        path = str(tmp_path / f"cylindrical_chain_{f}.yaml")
        _, other[f] = helpers.simulate(
            tmp_path, path, **TOL, t_end=0.5, dt_out=0.05, params={"s0": 0.12}
        )
    e_b, e_j = other["body"]["energy"], other["joint"]["energy"]
    assert np.abs(e_j - e_b).max() <= 1e-9 * np.abs(e_b).max()
    assert abs(other["joint"]["x.C1.translation"][0] - (0.12 - 0.2)) <= 1e-14
    solver = helpers._solvers[str(tmp_path / "cylindrical_chain_joint.yaml")]
    report = check_model(joint_model, samples=2, seed=5, generated_dir=solver.generated_dir)
    assert report.ok, report.table()
    # where an assembly moved the bodies, the coordinates are read from their poses: at poses
    # the tree gives for known coordinates, the same coordinates come back
    x = [0.05, 0.3, -0.2, 0.1, 0.7]
    values = _tree_poses(joint_model, x)
    bodies = {b.name: b for b in joint_model.topology.bodies}
    for name, k in (("C1", 0), ("C3", 3)):
        state = cylindrical_initial(joint_model.topology, None, bodies, name, values, {}, True)
        assert [float(a) for a in state] == pytest.approx(x[k : k + 2] + [0, 0], abs=1e-12)


PLANAR_CHAIN = """name: planar_chain{suffix}
description: a puck on a planar joint (on the plane normal to z through the origin, the puck as
  body1), an arm hinged to it, a plate on a second planar joint at the arm's end (normal to y,
  the plate as body2), under a tilted gravity; the puck sliding and turning
parameters:
  g: {{value: 9.81, unit: m/s^2}}
gravity: [1.5, -2, -g]
bodies:
  - {{name: puck, type: spatial, mass: 2.0, inertia: [0.05, 0.04, 0.03], position: [0, 0, 0.1],
     velocity: [0.5, 0.2, 0], angular_velocity: [0, 0, 1.5]}}
  - {{name: arm, type: spatial, mass: 1.0, inertia: [0.08, 0.01, 0.08], position: [0, 0.4, 0.1]}}
  - {{name: plate, type: spatial, mass: 0.4, inertia: [0.01, 0.02, 0.01],
     position: [0.2, 0.8, 0.1], orientation: {{axis: [1, 0, 0], angle: 0.3}},
     angular_velocity: [0, 2.0, 1.5]}}
joints:
  - {{name: P1, type: planar, body1: puck, body2: ground, point: [0, 0, 0], axis: [0, 0, 1]}}
  - {{name: H2, type: revolute, body1: puck, body2: arm, point: [0, 0, 0.1], axis: [1, 0, 0]}}
  - {{name: P3, type: planar, body1: arm, body2: plate, point: [0, 0.8, 0.1], axis: [0, 1, 0]}}
"""


@pytest.mark.parametrize("kind, body_m", [("planar", 14), ("parallel", 12)])
def test_planar_tree_joints_give_the_same_motion_as_body_coordinates(tmp_path, kind, body_m):
    """Spatial planar joints on the tree (two slides and a turn, both tree directions: as body2,
    the child turns first and slides along its own axes), and parallel ones (three slides and a
    turn; the puck then also rises, the plate also slides along the arm): no rows, the motion,
    the energy, the energy P3's lock takes at 0.4 s and the joints' wrenches; the derived terms
    agree with finite differences; the coordinates read back from poses the tree gives."""
    texts = {
        f: (PLANAR_CHAIN.format(suffix=f"_{kind}_{f}") + locked_at_0_4("P3", f)).replace(
            "planar,", f"{kind},"
        )
        for f in ("body", "joint")
    }
    stem = f"planar_chain_{kind}"
    runs = written_both_ways(tmp_path, stem, texts, **TOL, t_end=1.0, dt_out=0.05)
    joint_model, body_model = runs["joint"][3], runs["body"][3]
    shifts = ["y", "z"] if kind == "planar" else ["x", "y", "z"]
    names = [f"P1.{a}" for a in shifts + ["angle"]] + ["H2"]
    names += [f"P3.{a}" for a in shifts + ["angle"]]
    assert [c.name for c in joint_model.coordinates] == names
    n = len(names)
    assert (joint_model.n, joint_model.m, body_model.n, body_model.m) == (n, 0, 21, body_m)
    (_, rj, ej) = runs["joint"][:3]
    assert [e["kind"] for e in ej if e["kind"] == "lock"] == ["lock"]
    assert_same_physics(joint_model, body_model, runs["joint"][:3], runs["body"][:3])
    before, after = rj["t"] < 0.4, rj["t"] >= 0.4
    for c in names:
        if c != "H2":
            assert np.ptp(rj[f"x.{c}"][before]) > 1e-3, c  # everything moves ...
    for c in names[len(shifts) + 2 :]:
        assert np.ptp(rj[f"x.{c}"][after]) <= 1e-9  # ... until the lock holds P3
    solver = helpers._solvers[str(tmp_path / f"{stem}_joint.yaml")]
    report = check_model(joint_model, samples=2, seed=5, generated_dir=solver.generated_dir)
    assert report.ok, report.table()
    x = list(np.linspace(-0.2, 0.7, n))
    values = _tree_poses(joint_model, x)
    bodies = {b.name: b for b in joint_model.topology.bodies}
    k = len(shifts) + 1
    for name, first in (("P1", 0), ("P3", k + 1)):
        state = planar_initial(joint_model.topology, None, bodies, name, values, {}, True)
        expected = x[first : first + k] + [0] * k
        assert [float(a) for a in state] == pytest.approx(expected, abs=1e-12)


def _tree_poses(model, x):
    """{symbol: 30-digit value} of a joint model's coordinates x, parameters and the bodies'
    coordinates the tree gives them."""
    inter = model.intermediates
    values = dict(model.parameter_values())
    values.update(zip(model.x, (sp.Float(a, 30) for a in x)))
    values[model.time] = sp.Integer(0)
    for body in model.topology.bodies:
        values.update(zip(body.q, (sp.Float(a, 30) for a in inter.evaluate(body.q, values))))
    return values
