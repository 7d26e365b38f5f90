"""`coordinates: joint` against `coordinates: body` (issue 36): every shipped bodies-and-joints
model, written in both formulations, simulates the same physics: the joints' coordinates and
rates, the bodies' world poses, the energy and the energy each lock takes."""

import re
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
import sympy as sp
from scipy.integrate import solve_ivp

from conftest import over_models
from mcsgen.errors import ModelError
from mcsgen.model import complete_initial_state, load_model
from mcsgen.paths import MODELS, ROOT

import helpers
from helpers import assert_same_physics, body_pose, simulate, world_poses, written_both_ways

TOL = dict(method="dopri5", rtol=1e-11, atol=1e-13)
# every shipped model built from bodies and joints (the papers' mechanisms)
BODIES_MODELS = sorted(
    p.stem for p in MODELS.glob("*.yaml") if re.search(r"^bodies:", p.read_text(), re.M)
)


@pytest.fixture(scope="module")
def joint_dir(tmp_path_factory):
    """Where the tests write the joint versions of the shipped models: one file per model, so
    that a model's tests share its generated and compiled solver (helpers.simulate)."""
    return tmp_path_factory.mktemp("joint_versions")


def joint_version(tmp: Path, name: str) -> Path:
    """models/<name>.yaml in joint coordinates, as <name>_joint.yaml in tmp."""
    text = (MODELS / f"{name}.yaml").read_text()
    text = re.sub(rf"^name: {name}$", f"name: {name}_joint", text, flags=re.M)
    path = tmp / f"{name}_joint.yaml"
    path.write_text(text + "\ncoordinates: joint\n")
    return path


def both_runs(tmp, joint_dir, name, **options):
    """(joint model, body model, (summary, run, events) in joint and in body coordinates); the
    joint version written to joint_dir."""
    path = joint_version(joint_dir, name)
    body = simulate(tmp, name, with_events=True, **options)
    joint = simulate(tmp, str(path), with_events=True, **options)
    # the models simulate() loaded (loading the PUMA twice more would cost seconds)
    return (
        helpers._solvers[str(path)].mechanism.model,
        helpers._solvers[name].mechanism.model,
        joint,
        body,
    )


# the time compared: 1 s, or the model's own run when shorter (Andrews' squeezer: 0.03 s, after
# which its motion is chaotic)
T_END = {"squeezer": 0.03}
# rows 0.01 s apart where the brakes engage at 0.05, 0.1 and 0.15 s (the joints' wrenches with
# and without them)
DT_OUT = {"puma560_estop": 0.01}


@pytest.mark.parametrize("name", over_models(BODIES_MODELS))
def test_both_formulations_simulate_the_same_motion(tmp_path, joint_dir, name):
    """The joints' coordinates and rates, the energy and each lock's energy; the bodies' world
    poses at the middle and the last row."""
    t_end = T_END.get(name, 1.0)
    dt_out = DT_OUT.get(name, t_end / 20)
    runs = both_runs(tmp_path, joint_dir, name, **TOL, t_end=t_end, dt_out=dt_out, reactions=True)
    joint_model, body_model = runs[:2]
    if name == "puma560_estop":  # a 6-DOF arm: 6 coordinates, no rows (body: 42 and 36)
        assert (joint_model.n, joint_model.m, body_model.n, body_model.m) == (6, 0, 42, 36)
    assert_same_physics(*runs)


def test_rotors_give_the_same_motion_and_reactions_in_both_formulations(tmp_path):
    """Planar rotors (the PUMA's are spatial: its run above): the 3R pendulum with a rotor on
    each joint. In joint coordinates a tree joint's rotor adds I_r to its diagonal, and its
    reactions on the two bodies are its momentum's rate in closed form (wrenches.py)."""
    text = (MODELS / "pendulum_3r_bodies.yaml").read_text()
    text = text.replace("type: revolute,", "type: revolute, rotor_inertia: 0.3,")
    assert text.count("rotor_inertia") == 3
    texts = {
        f: text.replace("name: pendulum_3r_bodies", f"name: rotor_3r_{f}", 1)
        + f"\ncoordinates: {f}\n"
        for f in ("body", "joint")
    }
    # rtol 1e-12: the heavier joints' lock at 0.8 s takes 1.28 J, the same in both to 1.2e-9 J
    # at rtol 1e-11, 1.1e-10 J at 1e-12 and 6e-12 J at 1e-13 (the integration's error)
    runs = written_both_ways(tmp_path, "rotor_3r", texts, method="dopri5", rtol=1e-12,
                             atol=1e-14, t_end=1.0, dt_out=0.05)  # fmt: skip
    assert [e["kind"] for e in runs["joint"][2]].count("lock") == 1
    assert_same_physics(runs["joint"][3], runs["body"][3], runs["joint"][:3], runs["body"][:3])


@pytest.mark.parametrize(
    "name, body_counts, joint_counts",
    [
        ("pendulum_3r_bodies", (9, 6), (3, 0)),  # a tree of revolute joints: no rows
        # the crank and the slider on the tree, the rod on the slider's universal joint (its
        # two angles), the spherical joint cut (3 rows)
        ("slider_crank", (21, 20), (4, 3)),
        ("double_four_bar", (15, 14), (5, 4)),  # the tree's five joints, two cut: 2 rows each
    ],
)
def test_joint_coordinates_keep_only_the_rows_of_cut_joints(
    tmp_path, name, body_counts, joint_counts
):
    body = load_model(MODELS / f"{name}.yaml")
    joint = load_model(joint_version(tmp_path, name))
    assert (body.n, body.m) == body_counts
    assert (joint.n, joint.m) == joint_counts
    tree = {c.name for c in joint.coordinates} & {j.name for j in joint.joints}
    assert tree == {t.joint for t in joint.topology.tree.joints if t.joint in tree}


def test_double_four_bar_crosses_its_singular_configurations_in_joint_coordinates(
    tmp_path, joint_dir
):
    """10 s: the ten crossings of the bars' horizontal configurations, on the parallelogram
    branch, at the times body coordinates find them; bar 1's angle within 1e-8 of it."""
    runs = both_runs(tmp_path, joint_dir, "double_four_bar", **TOL, t_end=10.0, dt_out=0.5)
    (sj, rj, ej), (sb, rb, eb) = runs[2:]
    crossings_j = [e["t"] for e in ej if e["kind"] == "singular"]
    crossings_b = [e["t"] for e in eb if e["kind"] == "singular"]
    assert len(crossings_b) == 10
    # located by the event search, to its tolerance
    assert crossings_j == pytest.approx(crossings_b, abs=1e-7)
    for c in (c for c in rb if c.startswith("j.")):
        assert np.abs(rj[c] - rb[c]).max() <= 1e-8, c
    # bar 1 (joint O1 from its vertical start) follows the parallelogram's
    # 3 phi'' = 3.5 g sin(phi), phi(0) = 0, phi'(0) = 1 (test_mechanisms.py)
    phi = -rj["j.O1"]
    sol = solve_ivp(
        lambda t, y: [y[1], 3.5 * 9.81 * np.sin(y[0]) / 3],
        (0, 10.0),
        [0, 1],
        rtol=1e-13,
        atol=1e-14,
        dense_output=True,
    )
    assert np.abs(phi - sol.sol(rj["t"])[0]).max() <= 1e-8
    assert phi[-1] > 5 * np.pi  # through the ten crossings


@pytest.mark.parametrize("name", ["pendulum_kc", "pendulum_torsion"])
def test_statics_and_modes_agree_in_both_formulations(joint_dir, name):
    """003's pendulum and the torsion pendulum: the same equilibrium (joint angle), the same
    joints' forces and moments there, the same frequencies. In joint coordinates there are no
    rows (m = 0): K_f alone is the stiffness, and the joints' wrenches come from the
    Newton-Euler balance of the bodies they carry."""
    import mcsgen

    joint = mcsgen.load(joint_version(joint_dir, name)).build()
    body = mcsgen.load(name).build()
    assert joint.mechanism.model.m == 0
    statics_j, statics_b = joint.statics(), body.statics()
    assert statics_j.ok and statics_b.ok
    assert set(statics_j.wrenches) == {j.name for j in body.mechanism.model.joints}
    weight = max(np.abs(force).max() for force, _ in statics_b.wrenches.values())
    assert weight > 1.0  # 15 kg hang on the joints
    for name_, (force_b, moment_b) in statics_b.wrenches.items():
        force_j, moment_j = statics_j.wrenches[name_]
        assert np.abs(force_j - force_b).max() <= 1e-9 * weight, name_
        assert np.abs(moment_j - moment_b).max() <= 1e-9 * weight, name_
    modes_j, modes_b = joint.modes(), body.modes()
    assert modes_j.ok and modes_b.ok
    assert np.abs(modes_j.eigenvalues).tolist() == pytest.approx(
        np.abs(modes_b.eigenvalues).tolist(), rel=1e-10
    )


def test_run_time_geometry_parameters_in_joint_coordinates(tmp_path):
    """bench/models/geo_tilted.yaml (its revolute axis, joint points and spring anchor depend
    on parameters) with L and a changed at run time: the same motion in both formulations, the
    tree's poses following the new geometry without regenerating."""
    import shutil

    source = ROOT / "bench" / "models" / "geo_tilted.yaml"
    body_path = tmp_path / "geo_tilted.yaml"
    shutil.copy(source, body_path)
    joint_path = tmp_path / "geo_tilted_joint.yaml"
    text = source.read_text().replace("name: geo_tilted", "name: geo_tilted_joint", 1)
    # the bob's spherical joint cut, so that it keeps its body coordinates: the file leaves the
    # bob's velocity to the initial solve, and a run at other parameter values starts from the
    # file's velocities in the model's own coordinates, projected (minimum norm) on the new rows;
    # as a tree joint its relative rates would be the ones kept, a different start
    assert text.count("type: spherical,") == 1
    text = text.replace("type: spherical,", "type: spherical, cut: true,")
    joint_path.write_text(text + "\ncoordinates: joint\n")
    options = dict(TOL, t_end=1.0, dt_out=0.1, params={"L": 0.9, "a": 0.4})
    _, rj = simulate(tmp_path, str(joint_path), **options)
    _, rb = simulate(tmp_path, str(body_path), **options)
    for c in ("j.R", "jd.R", "energy"):
        assert np.abs(rj[c] - rb[c]).max() <= 1e-9 * max(1.0, np.abs(rb[c]).max()), c
    assert helpers._solvers[str(joint_path)].mechanism.model.n < 14


@pytest.mark.parametrize("name", ["pendulum_3r_bodies", "slider_crank"])
def test_audit_of_a_joint_model_shows_its_intermediates_and_passes(cli, tmp_path, joint_dir, name):
    """The audit report of a joint-coordinate model (a planar tree; a spatial loop with a cut
    joint, the rod on the slider's universal joint): every term through the named
    intermediates, which the report lists with their definitions; K_f and D as f's tangent,
    K_c as A^T lam's (the slider-crank's); the cut joints' rows attributed to
    them; the finite-difference check and the compiled kernels against SymPy's evaluation
    through the intermediates pass."""
    path = joint_version(joint_dir, name)
    out = cli("audit", path, "--format", "md", "--no-misra", "--out", tmp_path / "audit.md")
    assert out.returncode == 0, out.stderr
    report = (tmp_path / "audit.md").read_text()
    assert "Verification: PASS" in report
    section = report.split("### Intermediates (", 1)[1].split("```", 2)[1]
    defined = [line.split(" = ", 1)[0] for line in section.strip().splitlines()]
    assert len(defined) > 5 and len(set(defined)) == len(defined)
    assert "### f_tangent:" in report
    model = load_model(path)
    for joint in model.joints:
        for k in joint.rows:  # a cut joint's rows are its own
            assert f"| {k} | `{model.constraints[k].name}` | `joint {joint.name}` |" in report
    if name == "pendulum_3r_bodies":  # a tree: the mass matrix's rows are the joints'
        assert "joint J1:" in report.split("### M:", 1)[1]
    else:  # rows: K_c from A^T lam's tangent
        assert "### K_c_tangent:" in report


# The 3R pendulum of models/pendulum_3r_bodies.yaml written at its joints' zero (every link
# hanging straight down) and placed by start: values: its relative angles are pi/6 each
PENDULUM_AT_ZERO = """
name: {name}
parameters:
  m: {{value: 108.0}}
  J: {{value: 9.36}}
  g: {{value: 9.81}}
gravity: [0, -g]
coordinates: {coordinates}
bodies:
  - {{name: link1, type: planar, mass: m, inertia: J, angle: -pi/2, position: [0, -0.5]}}
  - {{name: link2, type: planar, mass: m, inertia: J, angle: -pi/2, position: [0, -1.5]}}
  - {{name: link3, type: planar, mass: m, inertia: J, angle: -pi/2, position: [0, -2.5]}}
joints:
  - {{name: J1, type: revolute, body1: link1, body2: ground, point: [0, 0], start: pi/6}}
  - {{name: J2, type: revolute, body1: link2, body2: link1, point: [0, -1], start: pi/6}}
  - {{name: J3, type: revolute, body1: link3, body2: link2, point: [0, -2], start: pi/6}}
"""


@pytest.mark.parametrize("coordinates", ["body", "joint"])
def test_start_values_place_the_bodies_as_writing_their_poses_does(tmp_path, coordinates):
    """Issue 36, initial configurations by joint values: the 3R pendulum written at its joints'
    zero with start: pi/6 at each joint is models/pendulum_3r_bodies.yaml's pendulum (written
    by hand at its start pose), in both formulations; its joints read their start values."""
    path = tmp_path / f"p3_{coordinates}.yaml"
    path.write_text(PENDULUM_AT_ZERO.format(name=path.stem, coordinates=coordinates))
    placed = load_model(path)
    written = load_model(MODELS / "pendulum_3r_bodies.yaml")
    if coordinates == "body":
        assert placed.x0 == pytest.approx(written.x0, abs=1e-15)
    else:
        assert placed.x0 == pytest.approx([np.pi / 6] * 3, abs=1e-15)
        poses = world_poses(placed, placed.x0)
        for k, name in enumerate(("link1", "link2", "link3")):
            r, R = poses[name]
            r_w, R_w = body_pose("planar", written.x0[3 * k : 3 * k + 3])
            assert np.abs(r - r_w).max() <= 1e-15 and np.abs(R - R_w).max() <= 1e-15


def test_an_imported_robot_starts_where_its_start_values_say_in_both_formulations(tmp_path):
    """import-urdf writes the PUMA 560 at its joints' zero (the URDF's frames) with each --q as
    the joint's start:; placed by the generator, in body and in joint coordinates, the centres
    of mass are where the URDF's own forward kinematics puts them at those joint values
    (mcsgen.urdf.tree's frames composed here: world = parent * joint frame * motion(q))."""
    import mpmath

    from mcsgen.urdf import import_urdf, model_names
    from mcsgen.urdf.read import parse
    from mcsgen.urdf.tree import Frame, Tree, motion

    urdf = ROOT / "models" / "urdf" / "puma560.urdf"
    q = {"J2": Fraction(np.pi / 4), "J3": Fraction(np.pi), "J5": Fraction(np.pi / 4)}
    with mpmath.workdps(40):
        robot = parse(urdf)
        tree = Tree(urdf, robot, {}, {}, model_names(robot)[0])
        world = {"ground": Frame.identity()}
        for j in tree.joints:
            angle = q.get(j.urdf.name, Fraction(0))
            world[j.child] = (
                world[j.parent]
                * j.frame
                * motion(j.urdf, mpmath.mpf(angle.numerator) / angle.denominator)
            )
        centres = {
            name: [float(c) for c in world[name].apply(body.com)]
            for name, body in tree.bodies.items()
        }
    models = {}
    for coordinates in ("joint", "body"):
        path, _ = import_urdf(urdf, tmp_path / f"puma_{coordinates}.yaml", q=q,
                              coordinates=coordinates, limits="comments")  # fmt: skip
        models[coordinates] = load_model(path)
    joint, body = models["joint"], models["body"]
    assert joint.x0 == pytest.approx([0, np.pi / 4, np.pi, 0, np.pi / 4, 0], abs=1e-15)
    poses = world_poses(joint, joint.x0)
    for k, b in enumerate(joint.topology.bodies):
        assert np.abs(poses[b.name][0] - centres[b.name]).max() <= 1e-14, b.name
        assert np.abs(np.array(body.x0[7 * k : 7 * k + 3]) - centres[b.name]).max() <= 1e-14


@pytest.mark.parametrize(
    "model, change, problem",
    [
        (
            "double_four_bar",
            ("- {name: A23,", "- {start: 0.1, name: A23,"),
            "this joint closes a loop (a cut joint): start another joint of the loop",
        ),
        (
            "double_four_bar",
            (
                "- {name: O3,",
                "- {start: 0.1, name: O3,",
                "- {name: O5,",
                "- {start: 0.2, name: O5,",
            ),
            "the start values cannot all hold with the loops closed: joint 'O",
        ),
        (
            "slider_crank",
            ("type: spherical,", "type: spherical, start: 1,"),
            "a start value needs a revolute or prismatic joint that is not driven",
        ),
    ],
)
def test_start_values_are_refused_where_they_cannot_place_a_body(tmp_path, model, change, problem):
    text = (MODELS / f"{model}.yaml").read_text()
    text = re.sub(rf"^name: {model}$", f"name: {model}_started", text, flags=re.M)
    for old, new in zip(change[::2], change[1::2]):
        assert old in text
        text = text.replace(old, new, 1)
    path = tmp_path / f"{model}_started.yaml"
    path.write_text(text)
    with pytest.raises(ModelError) as err:
        complete_initial_state(load_model(path))
    assert problem in str(err.value) and "start" in str(err.value)


def _started(tmp_path, model, coordinates, changes):
    text = (MODELS / f"{model}.yaml").read_text()
    name = f"{model}_{coordinates}_started"
    text = re.sub(rf"^name: {model}$", f"name: {name}", text, flags=re.M)
    for old, new in changes:
        assert old in text
        text = text.replace(old, new, 1)
    path = tmp_path / f"{name}.yaml"
    path.write_text(text + f"\ncoordinates: {coordinates}\n")
    return path


def test_start_values_in_loops_close_them_with_the_started_joints_held(tmp_path):
    """Issue 36, initial configurations by joint values in a mechanism with loops: the double
    four-bar (drawn with its bars upright) started at O3 = 0.1 closes into the parallelogram
    turned by 0.1 (every ground joint 0.1, every coupler joint -0.1, to 40 digits), the
    slider-crank started at A = 0.5 assembles with its crank there; both formulations start
    from the same pose, and the body-coordinate run starts there (the runtime's assembly, a
    minimum-norm correction, would not hold the start: the assembled pose is what is emitted)."""
    from mcsgen.model.exact import to_double

    def joint_values(model):
        values = dict(zip(model.x, model.initial_x))
        values.update(model.parameter_values())
        return {
            j.name: to_double(sp.N(j.coordinate.xreplace(values), 40))
            for j in model.joints
            if j.coordinate is not None
        }

    expected = {"O1": 0.1, "O3": 0.1, "O5": 0.1, "A12": -0.1, "A23": -0.1, "A34": -0.1}
    models = {}
    for coordinates in ("body", "joint"):
        path = _started(tmp_path, "double_four_bar", coordinates,
                        [("- {name: O3,", "- {start: 0.1, name: O3,")])  # fmt: skip
        models[coordinates] = complete_initial_state(load_model(path))
    body, joint = models["body"], models["joint"]
    values = joint_values(body)
    for name, value in expected.items():
        assert values[name] == pytest.approx(value, abs=1e-15), name
    assert [to_double(a) for a in joint.initial_x] == pytest.approx(
        [0.1, 0.1, 0.1, -0.1, -0.1], abs=1e-15
    )
    # the bodies where the joint model's tree puts them
    poses = world_poses(joint, [to_double(a) for a in joint.initial_x])
    for k, b in enumerate(joint.topology.bodies):
        r, R = poses[b.name]
        r_b, R_b = body_pose("planar", [to_double(a) for a in body.initial_x[3 * k : 3 * k + 3]])
        assert np.abs(r - r_b).max() <= 1e-14 and np.abs(R - R_b).max() <= 1e-14, b.name
    # the run starts there: its first row reads the start values
    _, run = simulate(tmp_path, str(_started(tmp_path, "double_four_bar", "body",
                      [("- {name: O3,", "- {start: 0.1, name: O3,")])), t_end=0.01)  # fmt: skip
    for name, value in expected.items():
        assert run[f"j.{name}"][0] == pytest.approx(value, abs=1e-13), name

    turned = ("- {name: A, type: revolute,", "- {name: A, start: 0.5, type: revolute,")
    crank = _started(tmp_path, "slider_crank", "body", [turned])
    model = complete_initial_state(load_model(crank))
    assert joint_values(model)["A"] == pytest.approx(0.5, abs=1e-15)
    assert model.initial_report["assembly_residual"] < 1e-30
    # in joint coordinates the rod hangs on the slider's universal joint, whose two angles
    # (not 0 once the assembly has moved the rod) put every body where body coordinates do
    joint = complete_initial_state(
        load_model(_started(tmp_path, "slider_crank", "joint", [turned]))
    )
    x0 = [to_double(a) for a in joint.initial_x]
    assert abs(x0[joint.x.index(sp.Symbol("C.angle1", real=True))]) > 1e-3
    poses = world_poses(joint, x0)
    for b in joint.topology.bodies:
        r, R = poses[b.name]
        k = model.x.index(b.q[0])
        r_b, R_b = body_pose("spatial", [to_double(a) for a in model.initial_x[k : k + 7]])
        assert np.abs(r - r_b).max() <= 1e-12 and np.abs(R - R_b).max() <= 1e-12, b.name
