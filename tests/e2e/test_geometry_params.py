"""Geometry as run-time parameters (issue 14): a parameter in joint points, axes, lengths or initial
poses changes the simulated mechanism exactly as regenerating the model with the new value does;
`freeze:` makes parameters constants at generation, and `--param` refuses those.

Each comparison runs the model with `params=` in-process and the same file with the new values as
defaults (under another name, so both solvers load side by side), and compares every output."""

import numpy as np
import pytest

import mcsgen
from mcsgen.errors import McsError

# A planar double pendulum whose link lengths, initial angle and crank rate are parameters: they
# enter the joint points (world, initial pose), the bodies' poses and inertias, and the held rate.
PLANAR = """\
name: {name}
description: planar double pendulum with its geometry as parameters
parameters:
  L1: {{value: {L1}, unit: m}}
  L2: {{value: {L2}, unit: m}}
  th0: {{value: {th0}, unit: rad}}
  w0: {{value: {w0}, unit: rad/s}}
  m: {{value: 1.0, unit: kg}}
  g: {{value: 9.81, unit: m/s^2}}
{freeze}gravity: [0, -g]
bodies:
  - {{name: link1, type: planar, mass: m, inertia: m*L1**2/12, angle: th0 - pi/2,
     position: ["L1/2*sin(th0)", "-L1/2*cos(th0)"]}}
  - {{name: link2, type: planar, mass: m, inertia: m*L2**2/12, angle: -pi/2,
     position: ["L1*sin(th0)", "-L1*cos(th0) - L2/2"]}}
joints:
  - {{name: J1, type: revolute, body1: link1, body2: ground, point: [0, 0], rate: w0}}
  - {{name: J2, type: revolute, body1: link2, body2: link1,
     point: ["L1*sin(th0)", "-L1*cos(th0)"]}}
simulation: {{t_end: 0.3, h: 1.0e-3, method: rk4}}
"""
PLANAR_DEFAULTS = dict(L1=1.0, L2=0.7, th0=0.5, w0=2.0)

# A spatial arm on a revolute joint whose axis is tilted by a parameter (so its frame, the frame's
# quaternion and the arm's orientation depend on it) and a bob on a spherical joint, with a spring
# between parameter-dependent points.
SPATIAL = """\
name: {name}
description: spatial revolute-spherical pendulum with a tilted axis, geometry as parameters
parameters:
  L: {{value: {L}, unit: m}}
  a: {{value: {a}, unit: rad}}
  h: {{value: {h}, unit: m}}
  w0: {{value: 1.5, unit: rad/s}}
  g: {{value: 9.81, unit: m/s^2}}
{freeze}gravity: [0, 0, -g]
bodies:
  - {{name: arm, type: spatial, mass: 1.0, inertia: [0.05, 0.01, 0.05],
     position: [0, 0, "h - L/2"], orientation: {{axis: [0, 0, 1], angle: a}}}}
  - {{name: bob, type: spatial, mass: 0.5, inertia: [0.002, 0.002, 0.002],
     position: ["L/3", 0, "h - L"]}}
joints:
  - {{name: R, type: revolute, body1: arm, body2: ground, point: [0, 0, h],
     axis: ["cos(a)", "sin(a)", 0], rate: w0}}
  - {{name: S, type: spherical, body1: bob, body2: arm, point: [0, 0, "h - L"]}}
forces:
  - {{name: spring, type: spring_damper, body1: bob, body2: ground, point1: [0, 0, 0],
     point2: ["L", 0, "h - L"], stiffness: 20, rest_length: "L/3"}}
simulation: {{t_end: 0.3, h: 1.0e-3, method: rk4}}
"""
SPATIAL_DEFAULTS = dict(L=0.8, a=0.3, h=0.1)


def write(tmp_path, template, name, values, freeze=""):
    tmp_path.mkdir(parents=True, exist_ok=True)
    path = tmp_path / f"{name}.yaml"
    path.write_text(template.format(name=name, freeze=freeze, **values))
    return path


def outputs(run):
    return {k: getattr(run, k) for k in ("t", "x", "v", "q", "qd", "energy", "c_norm")}


@pytest.mark.parametrize(
    "template, defaults, changed",
    [
        (PLANAR, PLANAR_DEFAULTS, dict(L1=1.3, L2=0.55, th0=0.8, w0=-1.5)),
        # make test-slow: 36 s of derivation; make test runs the spatial geometry parameters in
        # joint coordinates (test_joint_coordinates.py)
        pytest.param(SPATIAL, SPATIAL_DEFAULTS, dict(L=0.9, a=0.5, h=-0.2), marks=pytest.mark.slow),
    ],
    ids=["planar", "spatial"],
)
def test_a_geometry_parameter_changes_the_mechanism_as_regenerating_does(
    tmp_path, template, defaults, changed
):
    kind = "planar" if template is PLANAR else "spatial"
    at_runtime = mcsgen.load(write(tmp_path, template, f"geo_{kind}", defaults)).build()
    regenerated = mcsgen.load(
        write(tmp_path, template, f"geo_{kind}_regenerated", {**defaults, **changed})
    ).build()
    run = at_runtime.simulate(params=changed)
    reference = regenerated.simulate()
    assert run.ok and reference.ok
    for key, value in outputs(run).items():
        ref = outputs(reference)[key]
        assert value.shape == ref.shape, key
        assert np.array_equal(np.isnan(value), np.isnan(ref)), key  # q, qd: NaN past f
        assert np.nanmax(np.abs(value - ref)) <= 1e-12, (key, np.nanmax(np.abs(value - ref)))
    # the held rate is the new one, and the parameters did change the motion
    assert np.abs(run.x - at_runtime.simulate().x).max() > 1e-2
    assert run.summary["assembly"]["c_norm_after"] < 1e-12


def test_at_the_default_values_the_start_is_the_generators_state_to_the_bit(tmp_path):
    """mcs_sim_start at the defaults is mcs_sim_set_state(x0, v0) with the multiprecision x0, v0:
    a parameter set to its default value gives the default run, bit for bit."""
    # the first test's file and name: its solver (cached build) is this one
    solver = mcsgen.load(write(tmp_path, PLANAR, "geo_planar", PLANAR_DEFAULTS)).build()
    default, same = solver.simulate(), solver.simulate(params={"L1": 1.0, "w0": 2.0})
    for key, value in outputs(default).items():
        assert np.array_equal(value, outputs(same)[key], equal_nan=True), key


def test_held_velocities_the_new_geometry_contradicts_are_an_error(tmp_path):
    """A body velocity held together with a joint rate is consistent at the defaults (the centre
    of a link hanging at th0 = 0 moves at w0 L1/2) but not for another vx: the run says so."""
    text = write(tmp_path, PLANAR, "geo_held", dict(PLANAR_DEFAULTS, th0=0.0)).read_text()
    text = text.replace("  g: {value", "  vx: {value: 1.0, unit: m/s}\n  g: {value")
    text = text.replace(
        'position: ["L1/2*sin(th0)"', 'velocity: [vx, 0], position: ["L1/2*sin(th0)"'
    )
    path = tmp_path / "geo_held.yaml"
    path.write_text(text)
    solver = mcsgen.load(path).build()
    assert solver.simulate().ok
    assert solver.simulate(params={"vx": 1.3, "L1": 1.3}).ok  # w0 L1/2 = vx again
    with pytest.raises(McsError, match="held velocities"):
        solver.simulate(params={"vx": 3.0})


def test_frozen_parameters_are_constants_and_param_refuses_them(tmp_path, capsys):
    from mcsgen.cli import main
    from mcsgen.generate import generate
    from helpers import run_simulation

    path = write(tmp_path, PLANAR, "geo_frozen", PLANAR_DEFAULTS, freeze="freeze: [L1, th0]\n")
    solver = mcsgen.load(path).build()
    header = (solver.generated_dir / "geo_frozen.h").read_text()
    source = (solver.generated_dir / "geo_frozen.c").read_text()
    assert '#define GEO_FROZEN_FROZEN_PARAMS "L1,th0"' in header
    assert "p->mcs_p_L1" not in source and "p->mcs_p_th0" not in source
    assert "p->mcs_p_L2" in source
    with pytest.raises(McsError, match=r"params L1: frozen at generation \(freeze\[0\]\)"):
        solver.simulate(params={"L1": 2.0})
    with pytest.raises(McsError, match=r" --param L1: frozen at generation \(freeze\[0\]\)"):
        solver.simulate(param=["L1=2"])
    out = tmp_path / "run.csv"
    status = main(["simulate", str(path), "--param", "th0=1", "--out", str(out)])
    err = capsys.readouterr().err
    assert status == 2 and err.count("\n") == 1 and not out.exists(), err
    assert str(path) in err and "freeze[1]" in err and "regenerate" in err
    with pytest.raises(McsError, match="freeze"):  # the compiled driver refuses it too
        run_simulation("geo_frozen", {"param": ["L1=2"]}, out_csv=out)
    assert not out.exists()
    # the others still change at run time, geometry included
    assert solver.simulate(params={"L2": 0.5}).ok
    # what freezing buys: those parameters' expressions are numbers in the C, no reads or sines
    # of them in the kernels (bench/geometry_params.py measures generation time, code size and
    # speed on a spatial model)
    unfrozen = generate(write(tmp_path / "u", PLANAR, "geo_frozen", PLANAR_DEFAULTS), tmp_path)[1]
    text = (unfrozen / "geo_frozen.c").read_text()
    assert text.count("p->") > source.count("p->") and "mcs_sin(p->mcs_p_th0)" in text


def test_the_animation_draws_the_geometry_the_run_simulated(tmp_path, capsys):
    """animate --param: the joint points are placed by the run's geometry (at t = 0 the pivot
    J1 at the origin and J2 at (L1 sin th0, -L1 cos th0) of the new values), not the defaults."""
    from mcsgen.cli import main
    from mcsgen.model import load_model
    from mcsgen.outputs.animate import body_segments
    from mcsgen.outputs.plot import read_run

    changed = dict(L1=1.3, th0=0.8)
    path = write(tmp_path, PLANAR, "geo_planar", PLANAR_DEFAULTS)
    csv = tmp_path / "run.csv"
    mcsgen.load(path).build().simulate_to_files(
        csv, tmp_path / "run.events.json", params=changed, t_end=0.05
    )
    model, run = load_model(path), read_run(csv)
    segments = {b: pts for b, _, pts in body_segments(model, run, 0, model.drawing_at(changed))}
    j2 = [1.3 * np.sin(0.8), -1.3 * np.cos(0.8)]
    assert np.allclose(segments["link1"], [[0, 0], j2], rtol=0, atol=1e-12)
    assert np.allclose(segments["link2"][0], j2, rtol=0, atol=1e-12)
    at_defaults = {b: pts for b, _, pts in body_segments(model, run, 0)}
    assert not np.allclose(at_defaults["link1"][0], [0, 0], atol=1e-3)  # the wrong picture
    gif = tmp_path / "run.gif"
    argv = ["animate", str(csv), "--model", str(path), "--frames", "3", "--out", str(gif)]
    assert main(argv + ["--param", "L1=1.3", "--param", "th0=0.8"]) == 0 and gif.exists()
    capsys.readouterr()
    assert main(argv + ["--param", "nope=1"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--param nope=1" in err
