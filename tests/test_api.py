"""mcsgen.api, the Python way in (issue 14): the slider-crank run in-process without writing a
file, its numbers the command line's to the last bit, events as objects, errors as McsError."""

import hashlib
import math
import os
import subprocess

import numpy as np
import pytest

import mcsgen
from conftest import ROOT
from mcsgen.errors import McsError
from mcsgen.outputs.plot import read_run
from helpers import run_simulation


def same(a, b):
    """Equal to the last bit (NaN where the other is NaN: the cells past f)."""
    return a.shape == b.shape and np.array_equal(a, b, equal_nan=True)


def files_under(*folders, named=""):
    """Every file with its size and modification time, of the folders' files whose path names
    `named` (the other pytest worker builds and runs other models into build/ and out/ while
    this test runs: build/runtime/'s objects, build/planar_pendulum/'s library)."""
    out = {}
    for folder in folders:
        for dirpath, _, names in os.walk(folder):
            for name in names:
                if named not in os.path.join(dirpath, name):
                    continue
                st = os.stat(os.path.join(dirpath, name))
                out[os.path.join(dirpath, name)] = (st.st_size, st.st_mtime_ns)
    return out


@pytest.fixture(scope="module")
def slider_crank():
    return mcsgen.load(ROOT / "models" / "slider_crank.yaml").build()


def test_the_slider_crank_runs_in_process_without_writing_a_file(slider_crank, tmp_path, cli):
    os.chdir(tmp_path)
    watched = [ROOT / "out", ROOT / "build", ROOT / "generated"]
    before = files_under(*watched, named="slider_crank"), files_under(tmp_path)
    run = slider_crank.simulate(t_end=1.0, method="dopri5", params={"g": 9.0})
    assert (files_under(*watched, named="slider_crank"), files_under(tmp_path)) == before
    assert run.ok and run.model == "slider_crank" and run.summary["steps"] > 50
    n = len(run.coordinates)
    assert run.x.shape == run.v.shape == run.q.shape == (len(run.t), n)
    assert run.t[0] == 0.0 and run.t[-1] == 1.0
    assert np.all(run.c_norm < 1e-9) and abs(np.ptp(run.energy)) < 1e-6 * abs(run.energy[0])
    # the same run on the command line (the in-process library writing its CSV) and by the
    # standalone executable: the same numbers, to the last bit
    out = tmp_path / "cli.csv"
    proc = cli("simulate", "slider_crank", "--t-end", 1, "--method", "dopri5", "--param",
               "g=9.0", "--out", out)  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    exe = tmp_path / "exe.csv"
    run_simulation("slider_crank", {"t_end": 1.0, "method": "dopri5", "param": ["g=9.0"]},
                   out_csv=exe)  # fmt: skip
    for csv in (out, exe):
        columns = read_run(csv)
        assert list(columns) == list(run.columns)
        for name, values in columns.items():
            assert same(values, run.columns[name]), name
    assert same(run.x, np.column_stack([read_run(exe)[f"x.{c}"] for c in run.coordinates]))


def test_events_are_objects_and_parameters_change_the_run(tmp_path):
    solver = mcsgen.load("pendulum_3r_bodies").build()
    run = solver.simulate(t_end=1.5, dt_out=0.01)
    assert [(e.kind, e.t, e.target) for e in run.events] == [
        ("lock", 0.8, "J2"),
        ("lock", 1.3, "J3"),
    ]
    assert run.events[0].kinetic_after < run.events[0].kinetic_before
    heavier = solver.simulate(t_end=1.5, dt_out=0.01, params={"g": 2 * 9.81})
    # rows every 0.01 s, plus the states just before and after each transition
    assert not np.array_equal(heavier.x, run.x) and len(heavier.t) == len(run.t) == 151 + 2


def test_both_backends_run_in_one_process():
    model = mcsgen.load("spatial_pendulum")
    a = model.build(backend="lapack").simulate(t_end=0.5)
    b = model.build(backend="portable").simulate(t_end=0.5)
    assert np.abs(a.x - b.x).max() < 1e-12 and same(a.t, b.t)


def test_bad_calls_raise_one_line_errors(slider_crank):
    with pytest.raises(McsError, match="--h must be|--h"):
        slider_crank.simulate(h=-1.0)
    with pytest.raises(McsError, match="unknown parameter"):
        slider_crank.simulate(params={"omega0": 6.0})
    with pytest.raises(McsError, match="unknown option 'speed'"):
        slider_crank.simulate(speed=2)
    with pytest.raises(McsError, match="--max-steps"):
        slider_crank.simulate(t_end=1e12, method="rk4")
    bounded = slider_crank.simulate(t_end=1e12, method="dopri5", max_steps=200)
    assert not bounded.ok and "limit" in bounded.summary["status"] and len(bounded.t) == 201
    with pytest.raises(McsError, match="backend"):
        mcsgen.load("slider_crank").build(backend="cuda")
    with pytest.raises(McsError, match="no such mechanism file"):
        mcsgen.load("no_such_model")
    # after refusals the solver still runs
    assert slider_crank.simulate(t_end=0.01).ok


def test_statics_and_modes_in_the_api():
    """003 §4.1's pendulum (pendulum_kc, a 4 m rod's 15 kg bob): the lower equilibrium, the
    hinge's reaction and the eigenvalues +-1.566 i, then with another g the numbers follow
    (sqrt(g / 4), 15 g), and from above the hinge the unstable upper equilibrium."""
    solver = mcsgen.load("pendulum_kc").build()
    modes = solver.modes()
    assert modes.ok and modes.statics.ok and modes.kinds == ["oscillating"]
    assert np.allclose(modes.statics.x, [0, -4, -math.pi / 2], rtol=0, atol=1e-12)
    assert abs(modes.eigenvalues[0] - 1j * math.sqrt(9.81 / 4)) < 1e-10
    assert f"{modes.eigenvalues[0].imag:.3f}" == "1.566"
    assert abs(modes.statics.reactions["hinge"]["bob.y"] - 15 * 9.81) < 1e-10
    assert (
        modes.shapes.shape == (3, 1) and abs(modes.freq[0] - modes.omega[0] / 2 / math.pi) < 1e-12
    )
    light = solver.modes(params={"g": 4.0})
    assert abs(light.omega[0] - 1.0) < 1e-10
    assert abs(light.statics.reactions["hinge"]["bob.y"] - 60.0) < 1e-10
    above = [4 * math.sin(5 * math.pi / 6), -4 * math.cos(5 * math.pi / 6), math.pi / 3]
    upper = solver.modes(x=above)
    assert np.allclose(upper.statics.x, [0, 4, math.pi / 2], rtol=0, atol=1e-12)
    assert (
        upper.kinds == ["unstable"] and abs(upper.eigenvalues[0].real - math.sqrt(9.81 / 4)) < 1e-10
    )
    statics = solver.statics(kkt=True)
    assert statics.ok and np.allclose(statics.x, modes.statics.x, rtol=0, atol=1e-12)
    with pytest.raises(McsError, match="unknown parameter"):
        solver.statics(params={"nope": 1.0})
    with pytest.raises(McsError, match="x must have 3 entries"):
        solver.statics(x=[0.0, 1.0])


PENDULUM = """name: arm
coordinates: [x, z]
parameters: {l: LENGTH, g: 9.81}
constraints:
  - {name: length, expr: "x**2 + z**2 - l**2"}
dynamics:
  mass_matrix: {diagonal: [1, 1]}
  forces: ["0", "-g"]
  potential: "g*z"
initial:
  x: {x: "l*sin(0.1)", z: "-l*cos(0.1)"}
"""


def quarter_period(run):
    """The first time the bob passes under the pivot (x = 0, from x > 0), interpolated."""
    x, t = run.x[:, 0], run.t
    i = int(np.argmax(x <= 0))
    assert i > 0, "no crossing"
    return t[i - 1] + (t[i] - t[i - 1]) * x[i - 1] / (x[i - 1] - x[i])


def test_two_files_of_one_model_name_are_two_solvers_in_one_process(tmp_path):
    """Issue 34: two mechanism files named arm.yaml (`name: arm`) in two folders, pendulums of 1 m
    and 4 m, each get their own generated C and solver library (keyed by the file's path), and in
    one process each simulates its own pendulum (radius l, a quarter period near pi/2 sqrt(l/g));
    the first one's statics finds its own equilibrium, and each generated folder keeps its own
    file's C (building one never evicts the other)."""
    from mcsgen.emit.fingerprint import BANNER
    from mcsgen.model import load_model

    paths = {}
    for length, folder in ((1.0, "a"), (4.0, "b")):
        (tmp_path / folder).mkdir()
        paths[length] = tmp_path / folder / "arm.yaml"
        paths[length].write_text(PENDULUM.replace("LENGTH", str(length)))
    solvers = {length: mcsgen.load(path).build() for length, path in paths.items()}
    assert solvers[1.0].generated_dir != solvers[4.0].generated_dir
    assert solvers[1.0].library != solvers[4.0].library
    for length, solver in solvers.items():
        run = solver.simulate(t_end=1.2, h=1e-3, dt_out=0.01)
        assert run.ok
        assert np.allclose(np.hypot(run.x[:, 0], run.x[:, 1]), length, rtol=1e-9)
        expected = math.pi / 2 * math.sqrt(length / 9.81) * (1 + 0.1**2 / 16)  # amplitude 0.1
        assert abs(quarter_period(run) - expected) < 1e-3 * expected, length
        header = (solver.generated_dir / "arm.h").read_text()
        assert BANNER.search(header).group(3) == load_model(paths[length]).file_hash
    assert np.allclose(solvers[1.0].statics().x, [0, -1.0], rtol=0, atol=1e-12)


def test_a_solver_rebuilt_in_the_process_is_loaded_again(tmp_path):
    """The dynamic loader hands back the library it already loaded from a path: a solver library
    rebuilt at the same path (its mechanism file changed) is loaded from a copy named after its
    build stamp, and the old one goes on serving the solvers made before."""
    from mcsgen.api import _load_library

    library = tmp_path / "libsolver.so"

    def build(value):
        src = tmp_path / "solver.c"
        src.write_text(f"int mcs_value(void) {{ return {value}; }}\n")
        tmp = tmp_path / "new.so"
        cmd = ["cc", "-shared", "-fPIC", str(src), "-o", str(tmp)]
        assert subprocess.run(cmd, capture_output=True).returncode == 0
        os.replace(tmp, library)
        stamp = hashlib.sha256(str(value).encode()).hexdigest()  # as build._cached's
        (tmp_path / "libsolver.so.stamp").write_text(stamp)

    build(1)
    first = _load_library(library)
    build(2)
    second = _load_library(library)
    assert (first.mcs_value(), second.mcs_value()) == (1, 2)
    assert _load_library(library).mcs_value() == 2


def test_every_api_user_gets_the_energy_judgment_of_the_command_line(slider_crank):
    """The judgment that a conservative model's energy drifted (cli's before issue 35) is the
    API's: Run.warnings, which `./mcsgen simulate` prints."""
    run = slider_crank.simulate(t_end=0.2, method="rk4", h=1e-3)
    assert run.ok and run.warnings == [] and run.summary["energy_balance"] == "conserved"
    drifted = dict(run.summary, energy_drift_rel=0.05)  # what a too long step leaves
    (line,) = mcsgen.api.run_warnings(drifted)
    assert "which physics conserves, changed by 5%" in line and "a smaller --h" in line
    assert mcsgen.api.run_warnings(dict(drifted, energy_balance="dissipative")) == []
    assert mcsgen.api.run_warnings(dict(drifted, problems=["the energy rose"])) == []


def test_run_time_parameter_values_are_checked_as_the_files():
    """Issue 60: params={"m1": -5} ran until the step size fell below the minimum, {"k": "abc"}
    raised a raw ValueError. Every entry of a run (simulate, start, statics, sweep) refuses a
    value the file would refuse, naming it and the field, before anything runs."""
    solver = mcsgen.load("pendulum_3r_bodies").build()
    for call in (solver.simulate, solver.start, solver.statics):
        with pytest.raises(McsError, match=r"params m=-5: bodies\[0\]\.mass: mass must be pos"):
            call(params={"m": -5})
        with pytest.raises(McsError, match="params J=abc: not a finite real number"):
            call(params={"J": "abc"})
    with pytest.raises(McsError, match=r"run 3 \(m=-1\): bodies\[0\]\.mass"):
        solver.sweep(grid={"m": [1.0, 2.0, -1.0]}, workers=0)
    assert solver.simulate(params={"m": 50.0}, t_end=0.01).ok


def test_the_package_shows_only_its_own_names():
    """Issue 60: dir(mcsgen) showed os (imported to pin BLAS's threads)."""
    public = {n for n in dir(mcsgen) if not n.startswith("_")}
    assert "load" in public and "os" not in public
    assert not {n for n in public if n in ("sys", "os", "json", "np", "numpy")}
