"""A run stepped from Python (Solver.start; docs/reference/inputs-outputs.md):
tick by tick it is the scheduled run of the command line, and a computed-torque controller
written in Python against it tracks a path with the model's own inverse dynamics."""
import numpy as np
import pytest

import mcsgen
from mcsgen.errors import McsError

from test_inputs import MOTORS, pendulum_with


@pytest.fixture(scope="module")
def solver(tmp_path_factory):
    path = tmp_path_factory.mktemp("stepper") / "p3in.yaml"
    path.write_text(pendulum_with(["tau1", "tau2", "tau3"], MOTORS))
    return mcsgen.load(path).build()


def torques(k):
    return [300 * np.sin(0.9 * k), 100 * np.cos(1.7 * k), -40.0 + 5 * k]


def test_stepping_is_the_scheduled_run(solver):
    """20 ticks of 50 ms: stepped from Python with set_inputs, and run by simulate with the same
    schedule (rows at the ticks), the states at the ticks are equal to the last bit (the same
    steps: a row's time is a segment boundary, as a tick's end is)."""
    dt = 0.05
    options = dict(method="dopri5", rtol=1e-10, atol=1e-12)
    run = solver.start(**options)
    states = []
    for k in range(20):
        run.set_inputs(torques(k))
        run.advance((k + 1) * dt)  # the schedule's times, not a sum of dt's
        states.append(np.concatenate([run.x, run.v]))
    scheduled = solver.simulate(
        inputs=[(k * dt, *torques(k)) for k in range(20)], t_end=20 * dt, dt_out=dt, **options
    )
    by_schedule = np.column_stack([scheduled.x, scheduled.v])[1:]
    assert np.abs(by_schedule - np.array(states)).max() <= 1e-15 * np.abs(by_schedule).max()
    assert run.t == pytest.approx(1.0, abs=1e-15)


def test_computed_torque_in_python_tracks_a_path(solver):
    """Computed torque at 1 kHz: u = ID(x, v, q''_d + Kd (q'_d - q') + Kp (q_d - q)) from the
    run's own inverse dynamics, held for each tick. Started 0.1 rad off the path, the error decays
    as the PD law says (critically damped, 20 rad/s) to below 1e-4 rad in 1 s; without the
    feed-forward (PD alone, the same gains) it does not."""
    kp, kd, dt = 400.0, 40.0, 1e-3

    def path(t):  # relative angles: a slow sway about the file's initial pose
        a, w = np.array([0.3, -0.2, 0.25]), np.array([1.1, 1.7, 2.3])
        q0 = np.full(3, np.pi / 6) + 0.1
        return q0 + a * np.sin(w * t), a * w * np.cos(w * t), -a * w * w * np.sin(w * t)

    def track(feed_forward):
        run = solver.start(method="rk4", h=dt)
        worst_late = 0.0
        for k in range(1000):
            q, qd, qdd = path(run.t)
            wanted = qdd + kd * (qd - run.v) + kp * (q - run.x)
            if feed_forward:
                u = run.inverse(wanted).u
            else:
                u = 108.0 * (kd * (qd - run.v) + kp * (q - run.x))  # PD, scaled by a mass
            run.step(u, dt)
            if run.t > 0.8:
                worst_late = max(worst_late, np.abs(path(run.t)[0] - run.x).max())
        return worst_late

    tracked = track(True)
    assert tracked < 1e-4
    assert track(False) > 100 * tracked


def test_the_dynamics_at_the_state_and_bad_calls(solver):
    run = solver.start()
    xdd, lam = run.forward(u=[10.0, 0.0, 0.0])
    assert lam.shape == (0,) and xdd.shape == (3,)
    back = run.inverse(xdd)
    assert np.abs(back.u - [10.0, 0.0, 0.0]).max() <= 1e-9
    assert (back.rank, back.dof) == (3, 3)
    with pytest.raises(McsError, match="set_inputs: expected 3 values"):
        run.set_inputs([1.0])
    with pytest.raises(McsError, match="unknown option 'nope'"):
        solver.start(nope=1)
    with pytest.raises(McsError, match="--h"):
        solver.start(h=-1.0)
    with pytest.raises(McsError, match="--inputs"):
        solver.start(inputs="u.csv")


def test_a_run_ended_by_a_later_start_refuses_calls(solver):
    """One stepped run per solver (its workspace is static): a later start() ends the earlier
    one, whose calls are refused in one line instead of moving the new run."""
    first = solver.start()
    second = solver.start()
    with pytest.raises(McsError, match="ended by a later start"):
        first.advance(0.01)
    with pytest.raises(McsError, match="ended by a later start"):
        first.linearize()
    second.advance(0.01)
    assert second.t == pytest.approx(0.01)


def test_inverse_reports_the_part_of_a_request_no_force_can_give(tmp_path):
    """On a closed loop (the slider-crank with two inputs) a requested x'' that breaks
    A x'' = gamma cannot be met by any input: inverse dynamics gives the nearest motion and
    reports the part normal to the constraints (report.normal), which is then the whole
    residual; a request on the constraints has none."""
    from test_inverse_dynamics import SLIDER_CRANK

    path = tmp_path / "crank_motor.yaml"
    path.write_text(SLIDER_CRANK)
    run = mcsgen.load(path).build().start()
    run.advance(0.05)
    xdd, _ = run.forward(u=[3.0, -20.0])  # on the constraints
    ok = run.inverse(xdd)
    assert ok.normal <= 1e-10 * np.abs(xdd).max() and ok.residual <= 1e-9 * np.abs(xdd).max()
    kick = np.random.default_rng(5).standard_normal(run.n)
    off = run.inverse(xdd + kick)
    assert off.normal > 0.1 * np.linalg.norm(kick)
    assert off.residual == pytest.approx(off.normal, rel=1e-6)


def test_bad_values_are_refused_and_leave_the_run_as_it_was(solver):
    """Issue 60: set_state([nan] * n) raised but left the run's x NaN (outputs() and step() then
    failed with "invalid argument"); step(dt=-1) and step(dt=0) did nothing, silently; advance to
    an earlier time too. Each is refused in one line naming the argument, the run unmoved."""
    run = solver.start().advance(0.05)
    t, x, v = run.t, run.x, run.v
    for call, said in [
        (lambda: run.set_state([np.nan] * 3), r"set_state: x: entry 0 is nan"),
        (lambda: run.set_state(x, v=[0.0, np.inf, 0.0]), r"set_state: v: entry 1 is inf"),
        (lambda: run.set_state(["a", "b", "c"]), r"set_state: x: expected 3 real numbers"),
        (lambda: run.set_state(x, t=float("nan")), r"set_state: t: expected a finite number"),
        (lambda: run.step(dt=-1), r"step: dt must be > 0, got -1"),
        (lambda: run.step(dt=0), r"step: dt must be > 0, got 0"),
        (lambda: run.step(dt="soon"), r"step: dt: expected a finite number"),
        (lambda: run.advance(0.01), r"advance: t = 0.01 is before the run's time 0.05"),
        (lambda: run.forward(x=[np.nan] * 3), r"x: entry 0 is nan"),
        (lambda: run.set_inputs([1.0, np.nan, 0.0]), r"set_inputs: entry 1 is nan"),
    ]:
        with pytest.raises(McsError, match=said):
            call()
        assert run.t == t and np.array_equal(run.x, x) and np.array_equal(run.v, v)
    run.step(dt=0.01)  # the run goes on from where it was
    assert run.t == pytest.approx(0.06) and np.all(np.isfinite(run.x))


def test_the_step_jacobian_names_the_method_it_needs(tmp_path):
    """Issue 60: step_jacobian on a run of the file's dopri5 said "not available with this
    linear-algebra backend or model's kernel sets"; the cause is the method (RK4's steps only)."""
    pendulum = mcsgen.load("spatial_pendulum").build()  # its generated/ has every kernel set
    run = pendulum.start(method="dopri5")
    with pytest.raises(McsError, match="this run's method is dopri5; .* method='rk4'"):
        run.step_jacobian(1e-3)
    with pytest.raises(McsError, match="step_jacobian: give dt or t"):
        pendulum.start().step_jacobian()
    assert pendulum.start().step_jacobian(1e-3).J.shape == (4, 4)
