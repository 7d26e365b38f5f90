"""Inputs (README, "Inputs"): the model file's `inputs:`, the simulator's zero-order hold
(mcs_sim_set_inputs, --inputs FILE.csv) and the generalized forces they apply, against the same
torques written into the model and against the same mechanism in the other formulation."""
import subprocess
from pathlib import Path

import numpy as np
import pytest

import mcsgen
from mcsgen.build import generated_dir_of, program_command
from mcsgen.outputs.plot import read_run

HARNESS = Path(__file__).parent / "c" / "inputs_zoh.c"
PENDULUM = (Path(__file__).resolve().parents[2] / "models" / "pendulum_3r.yaml").read_text()


def pendulum_with(forces, inputs="", name="p3in", extra_params=""):
    """The 3R pendulum of paper 004 (models/pendulum_3r.yaml, relative joint angles q1..q3) with
    generalized forces `forces` (three texts) and the `inputs:` block `inputs`."""
    text = PENDULUM.replace("name: pendulum_3r", f"name: {name}")
    text = text.replace("  g: {value: 9.81", extra_params + "  g: {value: 9.81")
    text = text.replace(
        '  potential: "m*g*(z1 + z2 + z3)"',
        '  potential: "m*g*(z1 + z2 + z3)"\n  forces: ['
        + ", ".join(f'"{f}"' for f in forces)
        + "]",
    )
    return text + inputs


MOTORS = """inputs:
  - {name: tau1, unit: N m, limits: [-500, 500], description: motor of joint 1}
  - {name: tau2, unit: N m}
  - {name: tau3, unit: N m}
"""
TORQUE_PARAMS = (
    "  T1: {value: 0, unit: N m}\n  T2: {value: 0, unit: N m}\n  T3: {value: 0, unit: N m}\n"
)


@pytest.fixture(scope="module")
def harness(tmp_path_factory):
    """The harness compiled with the 3R pendulum whose joint torques are both the inputs tau_i
    and the parameters T_i: run(mode, method) -> (ticks x (1 + 2 n + 1)) array."""
    tmp = tmp_path_factory.mktemp("inputs")
    path = tmp / "p3in.yaml"
    forces = ["tau1 + T1", "tau2 + T2", "tau3 + T3"]  # relative angles: Q_i is joint i's torque
    path.write_text(pendulum_with(forces, MOTORS, extra_params=TORQUE_PARAMS))
    mechanism = mcsgen.load(path)
    mechanism.build()
    gdir = generated_dir_of(mechanism.model)
    exe = tmp / "inputs_zoh"
    cmd = program_command("p3in", [HARNESS], exe, gdir=gdir)
    subprocess.run(cmd, check=True, capture_output=True, text=True)

    def run(mode, method="dopri5", rtol=1e-10):
        out = subprocess.run([str(exe), mode, method, repr(rtol)], capture_output=True, text=True)
        assert out.returncode == 0, (mode, out.returncode, out.stderr)
        return np.array([[float(a) for a in line.split(",")] for line in out.stdout.split()])

    return run


@pytest.mark.parametrize("method", ["dopri5", "rk4"])
def test_inputs_equal_the_same_torques_written_into_the_model(harness, method):
    """Tick by tick (40 ticks of 50 ms, torques up to 400 N m changing at each), the inputs move
    the pendulum as the same torques written into the model do, to 1e-12."""
    by_inputs, by_params = harness("inputs", method), harness("params", method)
    state = slice(1, 7)
    scale = np.abs(by_params[:, state]).max()
    assert np.abs(by_inputs[:, state] - by_params[:, state]).max() <= 1e-12 * scale
    # the torques moved it: far from the free pendulum's motion (the same start, no torque)
    assert np.abs(by_params[-1, 4:7]).max() > 1.0


def test_dopri5_drops_its_first_same_as_last_stage_when_the_inputs_change(harness):
    """DOPRI5's first stage of a step is the last step's last one (FSAL): it holds the old
    inputs' forces. Kept across a change (what the runtime does not do), it enters both of the
    step's solutions: at a loose tolerance the error estimate lets it through and the run departs
    from the one with the torques in the model by far more than their difference of rounding;
    at a tight one the step is rejected and retaken (more evaluations). Dropped, it is the same
    run as the parameter route, evaluation for evaluation."""
    state = slice(1, 7)
    stale, right = harness("stale", rtol=1e-4), harness("params", rtol=1e-4)
    assert np.abs(stale[:, state] - right[:, state]).max() > 1e-4
    by_inputs = harness("inputs", rtol=1e-4)
    assert np.abs(by_inputs[:, state] - right[:, state]).max() <= 1e-12 * np.abs(right).max()
    stale, right = harness("stale"), harness("params")
    assert harness("inputs")[-1, -1] == right[-1, -1]  # evaluations: the same
    assert stale[-1, -1] > right[-1, -1]


def test_a_schedule_converges_to_the_torque_it_samples(tmp_path):
    """A smooth torque written as a time function, and the same torque sampled onto a schedule of
    ticks dt held constant (--inputs FILE.csv): the zero-order hold is first order in dt, so
    halving dt halves the difference (and it is small)."""
    smooth = ["300*sin(3*t)", "-150*cos(2*t)", "80*sin(5*t + 1)"]
    timed = tmp_path / "p3t.yaml"
    timed.write_text(pendulum_with(smooth, name="p3t"))
    held = tmp_path / "p3in.yaml"
    held.write_text(pendulum_with(["tau1", "tau2", "tau3"], MOTORS))
    options = dict(t_end=1.0, method="dopri5", rtol=1e-11, atol=1e-12, dt_out=0.25)
    reference = read_run_of(timed, tmp_path, **options)
    errors = []
    for dt in (0.01, 0.005, 0.0025):
        t = np.arange(0.0, 1.0, dt)
        schedule = tmp_path / f"u_{dt}.csv"
        # the torques at the middle of each tick: the hold's error is then of second order
        # per tick but first order over the run, as an average
        mid = t + dt / 2
        rows = np.column_stack(
            [t, 300 * np.sin(3 * mid), -150 * np.cos(2 * mid), 80 * np.sin(5 * mid + 1)]
        )
        schedule.write_text(
            "t,tau1,tau2,tau3\n" + "\n".join(",".join(repr(float(a)) for a in r) for r in rows)
        )
        run = read_run_of(held, tmp_path, inputs=str(schedule), **options)
        assert np.allclose(run["t"], reference["t"])
        errors.append(max(np.abs(run[f"x.q{i}"] - reference[f"x.q{i}"]).max() for i in (1, 2, 3)))
    assert errors[0] < 1e-3
    for coarse, fine in zip(errors, errors[1:]):
        assert 3.0 < coarse / fine < 5.0  # midpoint sampling: second order


def read_run_of(path, tmp_path, **options):
    solver = mcsgen.load(path).build()
    out = tmp_path / f"{path.stem}_{len(list(tmp_path.iterdir()))}.csv"
    summary = solver.simulate_to_files(out, tmp_path / f"{out.stem}.events.json", **options)
    assert summary["ok"], summary
    return read_run(out)
