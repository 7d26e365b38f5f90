"""Inputs (docs/reference/inputs-outputs.md): the model file's `inputs:`, the simulator's
zero-order hold (mcs_sim_set_inputs, --inputs FILE.csv) and the generalized forces they apply,
against the same torques written into the model and against the same mechanism in the other
formulation."""
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
def motor_solver(tmp_path_factory):
    """The solver of the 3R pendulum with a motor on each joint (relative angles)."""
    path = tmp_path_factory.mktemp("motors") / "p3in.yaml"
    path.write_text(pendulum_with(["tau1", "tau2", "tau3"], MOTORS))
    return mcsgen.load(path).build()


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


def test_dense_output_of_the_last_step_keeps_the_inputs_it_was_taken_with(harness):
    """DOP853 evaluates three more stages of a step when its dense output is first asked for:
    asked after the next inputs are set, it is what it was before (mcs_sim_set_inputs evaluates
    them with the step's inputs first)."""
    before, after = harness("dense_before", "dop853"), harness("dense_after", "dop853")
    assert np.array_equal(before, after)
    assert len(before) == 40


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


BODIES = (Path(__file__).resolve().parents[2] / "models" / "pendulum_3r_bodies.yaml").read_text()


def motor_pendulum(formulation):
    """pendulum_3r_bodies without its locks, a motor on each joint (`joint:` inputs), in the
    given formulation."""
    text = BODIES.replace("name: pendulum_3r_bodies", f"name: p3m_{formulation}")
    text = text[: text.index("switches:")] + text[text.index("simulation:") :]
    text += f"coordinates: {formulation}\n"
    text += "inputs:\n" + "".join(
        f"  - {{name: tau{k}, unit: N m, joint: J{k}}}\n" for k in (1, 2, 3)
    )
    return text


def test_joint_motors_move_both_formulations_and_the_coordinate_model_alike(tmp_path):
    """A motor on each joint of the 3R pendulum (`joint:` inputs), one schedule: in body
    coordinates (the torque pair on the joint's two bodies, Q = u d(rate)/dv), in joint
    coordinates (u on the joint's coordinate) and in the coordinate model of relative angles
    (Q_i = tau_i) the joints move alike, and the joints' wrenches (which read u) agree between
    the two bodies formulations."""
    schedule = tmp_path / "motors.csv"
    schedule.write_text(
        "t,tau3,tau1,tau2\n0,40,-300,120\n0.2,-60,250,0\n0.45,0,0,-200\n0.7,90,100,50\n"
    )
    options = dict(t_end=1.0, method="dopri5", rtol=1e-11, atol=1e-12, dt_out=0.05)
    runs = {}
    for formulation in ("body", "joint"):
        path = tmp_path / f"p3m_{formulation}.yaml"
        path.write_text(motor_pendulum(formulation))
        runs[formulation] = read_run_of(
            path, tmp_path, inputs=str(schedule), reactions=True, **options
        )
    coords = tmp_path / "p3in.yaml"
    coords.write_text(pendulum_with(["tau1", "tau2", "tau3"], MOTORS))
    relative = read_run_of(coords, tmp_path, inputs=str(schedule), **options)
    body, joint = runs["body"], runs["joint"]
    for k in (1, 2, 3):
        q = relative[f"x.q{k}"] - relative[f"x.q{k}"][0]
        assert np.abs(joint[f"j.J{k}"] - q).max() <= 1e-8, k
        assert np.abs(body[f"j.J{k}"] - q).max() <= 1e-8, k
        for column in (f"Fx.J{k}", f"Fy.J{k}", f"Nz.J{k}"):
            scale = 1 + np.abs(body[column]).max()
            assert np.abs(joint[column] - body[column]).max() <= 1e-6 * scale, column
    # the motors did something: far from the free pendulum
    free = read_run_of(tmp_path / "p3m_joint.yaml", tmp_path, **options)
    assert np.abs(free["j.J1"] - joint["j.J1"]).max() > 0.1


@pytest.mark.parametrize(
    "text, said",
    [
        ("", "the file is empty"),
        ("tau1,tau2,tau3\n0,1,2,3\n", "first column must be t"),
        ("t,tau1,tau2\n0,1,2\n", "lacks input 'tau3'"),
        ("t,tau1,tau2,tau3,tau4\n", "'tau4' is not an input"),
        ("t,tau1,tau1,tau3\n", "named twice"),
        ("t,tau1,tau2,tau3\n0,1,2,3\n0,1,2,3\n", "line 3: the times must increase"),
        ("t,tau1,tau2,tau3\n0,1,2\n", "too few columns"),
        ("t,tau1,tau2,tau3\n0,1,2,3,4\n", "too many columns"),
        ("t,tau1,tau2,tau3\n0,1,nan,3\n", "line 2: not a finite number"),
        ("t,tau1,tau2,tau3\n0,1,2,3\n0.5,1,x,3\n", "line 3: not a finite number"),
    ],
)
def test_a_bad_schedule_is_refused_in_one_line(motor_solver, tmp_path, text, said):
    """A schedule is read whole before the run: a bad one is refused with the file, the line and
    the problem, and nothing is run."""
    from mcsgen.errors import McsError

    schedule = tmp_path / "bad.csv"
    schedule.write_text(text)
    solver = motor_solver
    with pytest.raises(McsError) as caught:
        solver.simulate(inputs=str(schedule), t_end=0.1)
    message = str(caught.value)
    assert "\n" not in message and str(schedule) in message and said in message, message


def test_check_compares_the_input_map_with_the_file_and_with_the_joints_power(tmp_path):
    """`check` holds f_u = B(x, t) u to the file's forces (SymPy) and a joint input's power
    v . B e_k to its joint's rate, in the three formulations."""
    from mcsgen.selfcheck import check_model

    texts = {
        "p3in": pendulum_with(["tau1 - tau2", "tau2 - tau3", "tau3"], MOTORS),
        "p3m_body": motor_pendulum("body"),
        "p3m_joint": motor_pendulum("joint"),
    }
    for name, text in texts.items():
        path = tmp_path / f"{name}.yaml"
        path.write_text(text)
        mechanism = mcsgen.load(path)
        mechanism.build()
        report = check_model(mechanism.model, samples=3)
        rows = {(term, ref): err for term, ref, err in report.rows}
        assert report.ok, report.table()
        assert ("f_u", "the file's forces at u less at 0") in rows
        if name != "p3in":
            assert rows[("f_u", "a joint input's power: its joint's rate")] <= 1e-12


def test_the_api_takes_a_schedule_as_rows_columns_or_a_function(motor_solver, tmp_path):
    """Solver.simulate(inputs=...) takes the --inputs CSV's path, rows (t, u...), columns by
    name, or (u(t), dt): the same schedule, the same run to the last bit."""
    from mcsgen.errors import McsError

    solver = motor_solver
    dt, t_end = 0.1, 0.5
    ticks = np.arange(0.0, t_end, dt)

    def u(t):
        return [100 * np.sin(7 * t), -50.0, 30 * t]

    rows = [(t, *u(t)) for t in ticks]
    csv = tmp_path / "u.csv"
    csv.write_text(
        "t,tau3,tau2,tau1\n" + "".join(f"{t!r},{c!r},{b!r},{a!r}\n" for t, a, b, c in rows)
    )
    columns = {"t": ticks, **{f"tau{k + 1}": [r[k + 1] for r in rows] for k in range(3)}}
    options = dict(t_end=t_end, method="dopri5", dt_out=0.05)
    runs = [
        solver.simulate(inputs=schedule, **options)
        for schedule in (str(csv), rows, columns, (u, dt))
    ]
    for run in runs[1:]:
        assert np.array_equal(run.x, runs[0].x) and np.array_equal(run.v, runs[0].v)
    assert np.abs(runs[0].x[-1] - solver.simulate(**options).x[-1]).max() > 1e-3
    with pytest.raises(McsError, match="rows of t and 3 input values"):
        solver.simulate(inputs=[(0.0, 1.0)], **options)
    with pytest.raises(McsError, match="no column 'tau2'"):
        solver.simulate(inputs={"t": [0], "tau1": [1], "tau3": [2]}, **options)
    # ragged rows, text and columns of different lengths: one line, no traceback from NumPy
    with pytest.raises(McsError, match="rows of t and 3 input values"):
        solver.simulate(inputs=[(0.0, 1.0, 2.0, 3.0), (0.1, 1.0)], **options)
    with pytest.raises(McsError, match="rows of t and 3 input values"):
        solver.simulate(inputs=[(0.0, "one", 2.0, 3.0)], **options)
    with pytest.raises(McsError, match="different lengths"):
        solver.simulate(inputs={"t": [0, 0.1], "tau1": [1], "tau2": [1], "tau3": [2]}, **options)
    # what the CSV checker finds is said of the caller's rows, not of a temporary file
    with pytest.raises(McsError) as caught:
        solver.simulate(inputs=[(0.0, 1, 2, 3), (0.2, 1, 2, 3), (0.1, 1, 2, 3)], **options)
    assert "inputs: row 2: " in str(caught.value) and "mcsgen-inputs-" not in str(caught.value)


def test_joint_motors_at_rest_keep_the_energy_check_and_driven_they_exchange(tmp_path):
    """Issue 60 (import-urdf gives every robot a motor per joint): a joint's input does no work
    at u = 0, so the model's balance is its motion's with the inputs at zero (conserved here),
    and a run without a schedule keeps the summary's energy check; a run that applies a
    schedule says exchanged and checks nothing."""
    path = tmp_path / "p3m_joint.yaml"
    path.write_text(motor_pendulum("joint"))
    solver = mcsgen.load(path).build()
    assert solver.mechanism.model.energy.kind == "conserved"
    assert "the inputs at zero" in solver.mechanism.model.energy.reason
    free = solver.simulate(t_end=0.5, method="dopri5")
    assert free.summary["energy_balance"] == "conserved" and free.ok
    schedule = tmp_path / "motors.csv"
    schedule.write_text("t,tau3,tau1,tau2\n0,40,-300,120\n")
    driven = solver.simulate(t_end=0.5, method="dopri5", inputs=str(schedule))
    assert driven.summary["energy_balance"] == "exchanged" and driven.ok
    assert driven.summary["energy_drift"] > 1e3 * free.summary["energy_drift"]
