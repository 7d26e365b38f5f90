"""The mechanism file's outputs (model/outputs.py, mcs_sim_outputs, mcs_sim_linearize_outputs;
docs/reference/inputs-outputs.md): the CSV's y.<name> columns are the quantities they name,
computed here independently from the run's own coordinates; the same outputs in body and in joint
coordinates agree; the outputs' rows C, D of a linearization match central differences of the
outputs along the chart's coordinates and the inputs."""
from pathlib import Path

import numpy as np
import pytest

import mcsgen
from mcsgen.errors import McsError

from helpers import quaternion_matrix
from test_inputs import MOTORS, pendulum_with

ROOT = Path(__file__).resolve().parents[2]
PIN = [0, 0.04, 0]  # the crank's pin B in the crank's body frame (its long axis is body y)

SENSORS = """inputs:
  - {name: motor, unit: N m, joint: A}
outputs:
  - {name: crank, expr: "A", unit: rad}
  - {name: crank_rate, expr: "A_dot", unit: rad/s}
  - {name: slide, expr: "D", unit: m}
  - {name: pin, position: {body: crank, point: [0, 0.04, 0]}, unit: m}
  - {name: pin_v, velocity: {body: crank, point: [0, 0.04, 0]}, unit: m/s}
  - {name: reach, distance: {body1: slider, body2: crank, point2: [0, 0.04, 0]}, unit: m}
  - {name: power, expr: "motor*A_dot", unit: W}
kernels: [linearization]
"""


def crank_with_sensors(name, coordinates="body"):
    text = (ROOT / "models" / "slider_crank.yaml").read_text()
    text = text.replace("name: slider_crank", f"name: {name}") + SENSORS
    return text + ("coordinates: joint\n" if coordinates == "joint" else "")


@pytest.fixture(scope="module")
def crank(tmp_path_factory):
    """The slider-crank (body coordinates) with a crank motor and sensors, and its joint-coordinate
    twin."""
    folder = tmp_path_factory.mktemp("outputs")
    solvers = {}
    for coordinates in ("body", "joint"):
        name = f"crank_sensors_{coordinates}"
        path = folder / f"{name}.yaml"
        path.write_text(crank_with_sensors(name, coordinates))
        solvers[coordinates] = mcsgen.load(path).build()
    return solvers


def motor(t):
    return [0.05 * np.sin(9 * t)]


def test_the_outputs_are_the_quantities_they_name(crank):
    """Body coordinates: y.pin is the crank's position plus R(e) times the pin, y.pin_v its
    derivative along the run's velocities (differences of R along e_dot), y.reach the distance
    from the slider's centre to the pin, y.crank and y.slide the joints' coordinates (j.A, j.D),
    y.crank_rate their rate, y.power the motor's input times that rate, under a schedule (a row
    at a tick is the end of the step before it: the input held over that step)."""
    run = crank["body"].simulate(t_end=0.3, dt_out=0.05, method="dopri5", inputs=(motor, 0.01))
    assert run.ok
    y, col = run.outputs, run.columns
    assert list(y) == [
        "crank", "crank_rate", "slide", "pin.x", "pin.y", "pin.z",
        "pin_v.x", "pin_v.y", "pin_v.z", "reach", "power",
    ]  # fmt: skip
    for k in range(len(run.t)):
        r = np.array([col[f"x.crank.{a}"][k] for a in "xyz"])
        e = np.array([col[f"x.crank.e{i}"][k] for i in range(4)])
        rd = np.array([col[f"v.crank.{a}"][k] for a in "xyz"])
        ed = np.array([col[f"v.crank.e{i}"][k] for i in range(4)])
        pin = r + quaternion_matrix(e) @ PIN
        h = 1e-6
        Rd = (quaternion_matrix(e + h * ed) - quaternion_matrix(e - h * ed)) / (2 * h)
        pin_v = rd + Rd @ PIN
        slider = np.array([col[f"x.slider.{a}"][k] for a in "xyz"])
        got = np.array([y[f"pin.{a}"][k] for a in "xyz"])
        assert np.abs(got - pin).max() <= 1e-15
        assert np.abs(np.array([y[f"pin_v.{a}"][k] for a in "xyz"]) - pin_v).max() <= 1e-8
        assert abs(y["reach"][k] - np.linalg.norm(slider - pin)) <= 1e-15
    assert np.array_equal(y["crank"], col["j.A"]) or np.abs(y["crank"] - col["j.A"]).max() < 1e-15
    assert np.abs(y["slide"] - col["j.D"]).max() <= 1e-15
    assert np.abs(y["crank_rate"] - col["jd.A"]).max() <= 1e-13
    # a row at an input's change is the end of the step before it: the input held over that step
    held = np.array([motor(max(round(t / 0.01) - 1, 0) * 0.01)[0] for t in run.t])
    assert np.abs(y["power"] - held * col["jd.A"]).max() <= 1e-12
    assert np.abs(y["power"]).max() > 0.01  # the motor works


def test_body_and_joint_coordinates_give_the_same_outputs(crank):
    """The outputs are the file's quantities, not a formulation's: 21 body coordinates and 1
    joint coordinate (the pin's pose through the tree's intermediates) agree to the runs'
    tolerance."""
    runs = {
        k: s.simulate(t_end=0.5, dt_out=0.1, method="dopri5", rtol=1e-11, atol=1e-13)
        for k, s in crank.items()
    }
    body, joint = runs["body"].outputs, runs["joint"].outputs
    assert list(body) == list(joint)
    for name in body:
        assert np.abs(body[name] - joint[name]).max() <= 1e-8 * max(1, np.abs(body[name]).max())


def rows_by_differences(run, y0, u0, eps=1e-6):
    """Central differences of the outputs along the chart's coordinates (the states the chart
    puts at y0 +- eps e_j) and along the inputs."""
    x0, v0, t0 = run.x, run.v, run.t
    names = list(run.outputs())

    def outputs_at(y=None, u=None):
        if y is not None:
            x, v = run.chart_state(y)
            run.set_state(x, v, t0)
        if u is not None:
            run.set_inputs(u)
        out = run.outputs()
        run.set_state(x0, v0, t0)
        if u0.size:
            run.set_inputs(u0)
        return np.array([out[n] for n in names])

    C = np.column_stack(
        [
            (outputs_at(y=y0 + eps * e) - outputs_at(y=y0 - eps * e)) / (2 * eps)
            for e in np.eye(y0.size)
        ]
    )
    D = np.zeros((len(names), 0))
    if u0.size:
        D = np.column_stack(
            [
                (outputs_at(u=u0 + e) - outputs_at(u=u0 - e)) / 2
                for e in np.eye(u0.size)  # the outputs are affine in u here: a unit step is exact
            ]
        )
    return C, D


DFB_SENSORS = (ROOT / "models" / "double_four_bar.yaml").read_text().replace(
    "name: double_four_bar", "name: dfb_sensors"
) + (
    "outputs:\n"
    "  - {name: tip, position: {body: bar4, point: [0.5, 0]}, unit: m}\n"
    "  - {name: tip_v, velocity: {body: bar4, point: [0.5, 0]}, unit: m/s}\n"
    "  - {name: crank_rate, expr: O1_dot, unit: rad/s}\n"
    "  - {name: span, distance: {body1: bar1, point1: [0, 0.5], body2: bar5}, unit: m}\n"
)
CASES = {  # name: (model text or shipped file, inputs held)
    "spatial_pendulum": (ROOT / "models" / "spatial_pendulum.yaml", []),  # no inputs: D is empty
    "delta_robot": (ROOT / "models" / "delta_robot.yaml", [100.0, -50.0, 30.0]),
    "dfb_sensors": (DFB_SENSORS, []),  # the double four-bar: a body's point through two loops
    "pendulum_3r_sensors": (
        pendulum_with(["tau1", "tau2", "tau3"], MOTORS, name="pendulum_3r_sensors") + "outputs:\n"
        "  - {name: tip_x, expr: 'L*(sin(phi1) + sin(phi2) + sin(phi3))', unit: m}\n"
        "  - {name: tip_z, expr: '-L*(cos(phi1) + cos(phi2) + cos(phi3))', unit: m}\n"
        "  - {name: tip_speed2, expr: 'vx3**2 + vz3**2'}\n"
        "  - {name: power, expr: 'tau1*q1_dot + tau2*q2_dot + tau3*q3_dot', unit: W}\n",
        [3.0, -2.0, 1.0],
    ),
}


@pytest.mark.parametrize("name", sorted(CASES) + ["body", "joint"])
def test_C_and_D_match_central_differences_of_the_outputs(crank, tmp_path, name):
    """At states away from equilibrium, under held inputs: the exact C (ny x 2f) and D (ny x nu)
    of linearize() against central differences of the outputs at the states the chart puts at
    y0 +- eps e_j, and at u +- e_k, to 1e-6 relative: a tree in coordinates, the slider-crank in
    body and in joint coordinates, the spatial pendulum, the double four-bar's points through its
    two loops, the Delta robot's plate and arms (its outputs do not read the inputs: D = 0)."""
    if name in CASES:
        model, u0 = CASES[name]
        if isinstance(model, str):  # a model's text
            path = tmp_path / f"{name}.yaml"
            path.write_text(model)
            model = path
        solver = mcsgen.load(model).build(kernels="all")
    else:
        solver, u0 = crank[name], [0.02]
    u0 = np.array(u0, dtype=float)
    run = solver.start(method="dopri5", rtol=1e-10, atol=1e-12)
    if u0.size:
        run.set_inputs(u0)
    rng = np.random.default_rng(5)
    for k in range(2):
        run.advance(run.t + 0.03)
        run.set_state(run.x, run.v + 0.5 * rng.standard_normal(run.n))
        lin = run.linearize()
        f = lin.dof
        assert lin.C.shape == (len(lin.output_names), 2 * f) and lin.D.shape == (
            len(lin.output_names),
            u0.size,
        )
        y0 = np.concatenate([np.zeros(f), lin.T.T @ run.v])
        C, D = rows_by_differences(run, y0, u0)
        scale = np.abs(lin.C).max()
        assert np.abs(C - lin.C).max() <= 1e-6 * scale, (name, k, np.abs(C - lin.C).max())
        if u0.size:
            assert np.abs(D - lin.D).max() <= 1e-6 * max(np.abs(lin.D).max(), 1e-300)
        if name not in ("delta_robot",) and u0.size:
            assert np.abs(lin.D).max() > 0  # the power reads the inputs


def test_outputs_need_the_linearization_kernels_only_for_C_and_D(tmp_path):
    """A default build has the outputs (kernel `outputs`, motion set): the CSV's columns and
    outputs(); its linearize() asks for the linearization kernels. A model without outputs:
    empty C and D, outputs() empty."""
    path = tmp_path / "crank_plain.yaml"
    path.write_text(crank_with_sensors("crank_plain").replace("kernels: [linearization]\n", ""))
    solver = mcsgen.load(path).build()
    assert "linearization" not in solver.kernel_sets
    run = solver.start()
    assert run.outputs()["crank"] == 0.0 and run.outputs()["reach"] > 0.2
    with pytest.raises(McsError, match="without the linearization kernels"):
        run.linearize()
    pendulum = mcsgen.load(ROOT / "models" / "pendulum_3r.yaml").build(kernels="all").start()
    assert pendulum.outputs() == {}
    lin = pendulum.linearize()
    assert lin.C.shape == (0, 6) and lin.D.shape == (0, 0)
    # the shipped spatial pendulum's two sensors: the bob's height and its speed squared
    bob = mcsgen.load(ROOT / "models" / "spatial_pendulum.yaml").build().start()
    assert bob.outputs() == {"height": bob.x[2], "speed2": pytest.approx(bob.v @ bob.v, 1e-15)}


def test_the_csv_header_and_check(crank, cli, tmp_path):
    """The command line writes y.<name> after the joints' columns; `check` holds the outputs'
    tangent to differences of the outputs."""
    from mcsgen.selfcheck import check_model

    out = tmp_path / "run.csv"
    path = tmp_path / "crank_cli.yaml"
    path.write_text(crank_with_sensors("crank_cli"))
    result = cli("simulate", path, "--t-end", "0.01", "--out", out)
    assert result.returncode == 0, result.stderr
    header = out.read_text().splitlines()[0].split(",")
    assert header[header.index("jd.D") + 1 : header.index("jd.D") + 4] == [
        "y.crank",
        "y.crank_rate",
        "y.slide",
    ]
    mechanism = crank["joint"].mechanism
    report = check_model(mechanism.model, samples=2, generated_dir=crank["joint"].generated_dir)
    rows = {name: err for name, _, err in report.rows}
    assert report.ok and rows["outputs_x"] <= 1e-7


PLANAR_ANGLES = """outputs:
  - {name: coupler_angle, angle: {body: coupler}, unit: rad}
  - {name: coupler_rate, angular_velocity: {body: coupler}, unit: rad/s}
"""


def test_a_planar_bodys_angle_and_rate_are_outputs(tmp_path):
    """Issue 60: an output could not name a body's angle in a bodies file, and the message
    suggested nothing. `angle: {body}` and `angular_velocity: {body}` are the coupler's world
    angle and its rate: its coordinate and velocity in body coordinates, the same through the
    tree's intermediates in joint coordinates."""
    text = (ROOT / "docs" / "examples" / "four_bar.yaml").read_text() + PLANAR_ANGLES
    runs = {}
    for coordinates in ("body", "joint"):
        name = f"four_bar_angles_{coordinates}"
        path = tmp_path / f"{name}.yaml"
        path.write_text(
            text.replace("name: four_bar", f"name: {name}") + f"coordinates: {coordinates}\n"
        )
        runs[coordinates] = (
            mcsgen.load(path)
            .build()
            .simulate(t_end=1.0, dt_out=0.1, method="dopri5", rtol=1e-11, atol=1e-13)
        )
    body = runs["body"]
    assert np.abs(body.outputs["coupler_angle"] - body.columns["x.coupler.theta"]).max() == 0
    assert np.abs(body.outputs["coupler_rate"] - body.columns["v.coupler.theta"]).max() == 0
    assert np.ptp(body.outputs["coupler_angle"]) > 0.05  # it moves
    for name in ("coupler_angle", "coupler_rate"):
        assert np.abs(runs["joint"].outputs[name] - body.outputs[name]).max() <= 1e-8


@pytest.mark.parametrize(
    "output, said",
    [
        ('{name: a, expr: "crank.theta"}', "outputs[0].expr: 'crank.theta' is a coordinate of "
         "body crank, not a name in expressions (they name joints, their angle or slide by the "
         "joint's name): write angle: {body: crank} for its angle"),
        ("{name: a, angle: {body: ground}}", "outputs[0].angle.body: ground does not turn"),
        ("{name: a, angle: {body: rod}}", "outputs[0].angle.body: rod is a spatial body: its "
         "orientation is no one angle"),
        ("{name: a, angle: {body: crank, point: [0, 0]}}", "outputs[0].angle"),
    ],
)  # fmt: skip
def test_a_body_angle_refused_says_what_to_write(tmp_path, output, said):
    from mcsgen.errors import ModelError
    from mcsgen.model import load_model

    if "rod" in output:
        text = (
            (ROOT / "models" / "slider_crank.yaml")
            .read_text()
            .replace("name: slider_crank", "name: bad_angle")
        )
    else:
        text = (
            (ROOT / "docs" / "examples" / "four_bar.yaml")
            .read_text()
            .replace("name: four_bar", "name: bad_angle")
        )
    path = tmp_path / "bad_angle.yaml"
    path.write_text(text + f"outputs:\n  - {output}\n")
    with pytest.raises(ModelError) as refused:
        load_model(path)
    assert said in str(refused.value), refused.value


@pytest.mark.parametrize("name", ["pendulum_3r_bodies", "slider_crank"])
def test_bodies_give_a_joint_coordinate_csv_the_bodies_world_positions(tmp_path, name):
    """Issue 60: a joint-coordinate CSV had no body world positions (its coordinates are the
    joints'). `bodies: all` makes each body's centre of mass in the world, and a planar body's
    angle, outputs named by the body: y.<body>.x ... are the body-coordinate CSV's x.<body>.x
    ... columns of the same mechanism (the 3R pendulum planar, the slider-crank spatial)."""
    text = (ROOT / "models" / f"{name}.yaml").read_text()
    path = tmp_path / f"{name}_seen.yaml"
    path.write_text(
        text.replace(f"name: {name}", f"name: {name}_seen")
        + "outputs:\n  - {bodies: all}\ncoordinates: joint\n"
    )
    options = dict(t_end=0.5, dt_out=0.05, method="dopri5", rtol=1e-11, atol=1e-13)
    joint = mcsgen.load(path).build().simulate(**options)
    body = mcsgen.load(name).build().simulate(**options)
    axes = ("x", "y", "z", "theta")
    wanted = {
        column[2:]: values
        for column, values in body.columns.items()
        if column.startswith("x.") and column.rsplit(".", 1)[1] in axes
    }
    assert set(joint.outputs) == set(wanted) and len(wanted) >= 6, sorted(joint.outputs)
    assert max(np.ptp(values) for values in wanted.values()) > 0.01  # it moves
    for output, values in wanted.items():
        assert np.abs(joint.outputs[output] - values).max() <= 1e-8, output


@pytest.mark.parametrize(
    "output, said",
    [
        ("{bodies: all, name: a}", "outputs[0].name: unknown field (allowed: bodies)"),
        ("{bodies: [ground]}", "outputs[0].bodies[0]: ground does not move"),
        ("{bodies: [link1, link1]}", "outputs[0].bodies[1]: link1 is already in the list"),
        ("{bodies: [wheel]}", "outputs[0].bodies[0]"),
        ("{bodies: every}", "outputs[0].bodies: give all or a list of bodies, not 'every'"),
        ("{bodies: []}", "outputs[0].bodies: give all or a list of bodies, not []"),
        ("{bodies: null}", "outputs[0].bodies: give all or a list of bodies, not null"),
        ("{bodies: all}\n  - {name: link2, position: {body: link1}}",
         "outputs[1].name: 'link2.x' is already the name of outputs[0]"),
        ("{name: link2, velocity: {body: link1}}\n  - {bodies: [link2]}",
         "outputs[1].bodies: 'link2.x' is already the name of outputs[0]"),
    ],
)  # fmt: skip
def test_bodies_refused_say_why(tmp_path, output, said):
    from mcsgen.errors import ModelError
    from mcsgen.model import load_model

    text = (ROOT / "models" / "pendulum_3r_bodies.yaml").read_text()
    path = tmp_path / "bad_bodies.yaml"
    path.write_text(
        text.replace("name: pendulum_3r_bodies", "name: bad_bodies") + f"outputs:\n  - {output}\n"
    )
    with pytest.raises(ModelError) as refused:
        load_model(path)
    assert said in str(refused.value), refused.value


def test_a_coordinate_model_has_no_bodies_to_give(tmp_path):
    from mcsgen.errors import ModelError
    from mcsgen.model import load_model

    text = (ROOT / "models" / "pendulum_3r.yaml").read_text()
    path = tmp_path / "no_bodies.yaml"
    path.write_text(
        text.replace("name: pendulum_3r", "name: no_bodies") + "outputs:\n  - {bodies: all}\n"
    )
    with pytest.raises(ModelError) as refused:
        load_model(path)
    assert "outputs[0].bodies: a model given by coordinates has no bodies" in str(refused.value)
