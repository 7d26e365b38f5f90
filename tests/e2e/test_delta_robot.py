"""The Delta robot (models/delta_robot.yaml: the CIIRC testbed's Autonox24 RL5 in Codourey's
model; docs/reference/inputs-outputs.md): three closed loops, three motors. Its
inverse dynamics reproduces the accelerations it is asked for to 1e-10; computed torque (inverse
dynamics feed-forward and PD on the measured arm angles) tracks a pick-and-place path at 1 kHz in
Python against the same C a firmware runs; an LQR from the exact step Jacobian holds a hover
point."""
from pathlib import Path

import numpy as np
import pytest
from scipy.linalg import solve_discrete_are

import mcsgen

ROOT = Path(__file__).resolve().parents[2]
MODEL = ROOT / "models" / "delta_robot.yaml"
PHI = np.radians([0.0, 120.0, 240.0])  # the motors' azimuths


@pytest.fixture(scope="module")
def delta():
    mechanism = mcsgen.load(MODEL)
    return mechanism, mechanism.build()


def params(mechanism):
    return mechanism.parameters


def arm_angles(p, plate):
    """Inverse kinematics of the model's geometry: each arm's angle th (positive down) that puts
    its elbow Lb from the plate's joint, the elbow outward (the working branch)."""
    out = []
    for phi in PHI:
        radial = np.array([np.cos(phi), np.sin(phi)])
        # in the arm's vertical plane: the plate joint at horizontal distance a, height b
        a = plate[:2] @ radial - (p["R"] - p["r"])
        side = plate[:2] @ np.array([-np.sin(phi), np.cos(phi)])
        b = plate[2]
        # (a - La cos th)^2 + (b + La sin th)^2 = Lb^2 - side^2
        rhs = (p["Lb"] ** 2 - side**2 - a**2 - b**2 - p["La"] ** 2) / (2 * p["La"])
        # -a cos th + b sin th = rhs  ->  rho cos(th + delta) = rhs
        rho, delta = np.hypot(a, b), np.arctan2(-b, -a)
        out.append(np.arccos(rhs / rho) - delta)
    return np.array(out)


def pick_and_place(t, T=0.6, start=None):
    """A 25-305-25 mm pick-and-place cycle (the adept cycle's shape, up, across, down) from
    `start`, as one smooth quintic blend of three segments over T seconds: position, velocity,
    acceleration of the plate."""
    waypoints = np.array([[0, 0, 0], [0, 0, 0.025], [0.305, 0, 0.025], [0.305, 0, 0]]) + start
    seg = T / 3
    k = min(int(t // seg), 2)
    s = (t - k * seg) / seg
    blend = 10 * s**3 - 15 * s**4 + 6 * s**5
    dblend = (30 * s**2 - 60 * s**3 + 30 * s**4) / seg
    ddblend = (60 * s - 180 * s**2 + 120 * s**3) / seg**2
    d = waypoints[k + 1] - waypoints[k]
    return waypoints[k] + blend * d, dblend * d, ddblend * d


def desired_state(p, t, start):
    """x, v, x'' (6) of the path at t: the plate's, and the arms' from the inverse kinematics
    (their rates and accelerations by central differences of it, eps 1e-4 s)."""
    eps = 1e-4

    def th(s):
        return arm_angles(p, pick_and_place(min(max(s, 0.0), 0.6), start=start)[0])

    plate, rate, acc = pick_and_place(t, start=start)
    q = th(t)
    qd = (th(t + eps) - th(t - eps)) / (2 * eps)
    qdd = (th(t + eps) - 2 * q + th(t - eps)) / eps**2
    return np.concatenate([q, plate]), np.concatenate([qd, rate]), np.concatenate([qdd, acc])


def test_the_inverse_kinematics_is_the_models_geometry(delta):
    """The start the generator assembled is the inverse kinematics' answer (a check of the test's
    own reference), on the constraints to 1e-12."""
    mechanism, solver = delta
    run = solver.start()
    p = params(mechanism)
    assert np.abs(arm_angles(p, run.x[3:]) - run.x[:3]).max() <= 1e-12
    assert run.x[5] == pytest.approx(-0.9875, abs=1e-4)  # the plate 0.99 m below the base


def test_inverse_dynamics_gets_back_the_torques_that_move_it(delta):
    """At states of a run under random torques: forward dynamics under u, then inverse dynamics
    of those accelerations, then forward again: the accelerations to 1e-10, and u itself (three
    motors for three degrees of freedom: unique)."""
    mechanism, solver = delta
    run = solver.start(method="dopri5", rtol=1e-10, atol=1e-12)
    rng = np.random.default_rng(11)
    for k in range(6):
        run.step(rng.uniform(-40, 40, 3), 0.02)
        u = rng.uniform(-200, 200, 3)
        xdd, _ = run.forward(u)
        answer = run.inverse(xdd)
        again, _ = run.forward(answer.u)
        assert np.abs(again - xdd).max() <= 1e-10 * max(1.0, np.abs(xdd).max())
        assert np.abs(answer.u - u).max() <= 1e-9 * np.abs(u).max()
        assert answer.rank == answer.dof == 3


def track(solver, p, feed_forward, dt=1e-3, T=0.6):
    """The pick-and-place path under PD on the arm angles (Kp 4e4 N m/rad, Kd 400 N m s/rad on
    the arm side), with the inverse dynamics' torques added when feed_forward: the largest
    distance of the plate from the path over the run (m), and the run."""
    run = solver.start(method="rk4", h=dt)
    start = run.x[3:].copy()
    worst = 0.0
    for k in range(int(round(T / dt))):
        t = k * dt
        xd, vd, ad = desired_state(p, t, start)
        u = 4e4 * (xd[:3] - run.x[:3]) + 400 * (vd[:3] - run.v[:3])
        if feed_forward:
            u += run.inverse(ad, x=xd, v=vd, t=t).u
        run.step(u, dt)
        y = run.outputs()
        plate = np.array([y["x"], y["y"], y["z"]])
        worst = max(worst, np.linalg.norm(plate - pick_and_place(t + dt, start=start)[0]))
    return worst, run


def test_computed_torque_tracks_a_pick_and_place_cycle(delta):
    """Computed torque at 1 kHz (the inverse dynamics' feed-forward at the path's state plus PD
    on the measured arm angles) keeps the plate within 0.1 mm of a 305 mm cycle done in 0.6 s
    (accelerations up to 4.5 g; measured 0.044 mm); the same PD without the feed-forward strays
    by more than 2 mm (2.5 mm)."""
    mechanism, solver = delta
    p = params(mechanism)
    with_model, run = track(solver, p, feed_forward=True)
    assert run.outputs()["x"] == pytest.approx(0.305, abs=2e-4)
    without, _ = track(solver, p, feed_forward=False)
    assert with_model <= 1e-4, with_model
    assert without >= 10 * with_model and without > 2e-3, (with_model, without)


def test_an_lqr_from_the_exact_step_jacobian_holds_a_hover_point(delta):
    """About the start held by gravity-compensating torques (the inverse dynamics at rest), the
    exact step Jacobian (1 ms RK4) gives the discrete model z' = J z + G u; the LQR on it brings
    the plate back from a 20 mm push (in the chart coordinates of the hover point) to within
    1e-6 m in 0.3 s, and the closed loop's eigenvalues are inside the unit circle."""
    mechanism, solver = delta
    dt = 1e-3
    run = solver.start(method="rk4", h=dt)
    x0 = run.x.copy()
    hold = run.inverse(np.zeros(6), x=x0, v=np.zeros(6)).u
    run.set_inputs(hold)
    T = run.basis()
    sj = run.step_jacobian(dt)
    f = sj.J.shape[1] // 2
    assert f == 3 and np.array_equal(sj.T_from, T)
    run.set_state(x0, np.zeros(6), 0.0)
    Q = np.diag([1e4] * f + [1.0] * f)
    Rw = np.eye(3) * 1e-6
    P = solve_discrete_are(sj.J, sj.G, Q, Rw)
    K = np.linalg.solve(Rw + sj.G.T @ P @ sj.G, sj.G.T @ P @ sj.J)
    assert np.abs(np.linalg.eigvals(sj.J - sj.G @ K)).max() < 1
    # pushed 20 mm sideways along the constraints (the chart's state at q = T^T dx)
    q0 = np.linalg.lstsq(T[3:], np.array([0.02, 0.0, 0.0]), rcond=None)[0]
    x, v = run.chart_state(np.concatenate([q0, np.zeros(f)]))
    run.set_state(x, v, 0.0)
    for _ in range(300):
        z = np.concatenate([T.T @ (run.x - x0), T.T @ run.v])
        run.step(hold - K @ z, dt)
    assert np.linalg.norm(run.x[3:] - x0[3:]) <= 1e-6
