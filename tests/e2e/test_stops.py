"""End stops (issue 61; runtime/src/sim/mcs_stops.c), run end to end through the simulator and
held to references written here, not taken from the code: a pendulum bouncing on a stop against
quadrature of its energy integral between the impacts, and a rotor pushed into its stop by a
torque ramp against the closed form of its motion; in coordinates, body and joint coordinates.
"""

import re
from pathlib import Path

import numpy as np
import pytest
from scipy.integrate import quad

from helpers import simulate

ROOT = Path(__file__).resolve().parents[2]
G = 9.81
Q0, Q_STOP, E = 1.0, 0.3, 0.5  # the pendulum's start and stop (rad), the restitution

# The same pendulum as a body on a revolute joint (inertia J about its centre at 1 m from the
# pivot: I = m + J about the pivot), in body and in joint coordinates.
BODIES = """
name: {name}
description: the pendulum on a stop as a body and a revolute joint
parameters:
  m: {{value: 1.0, unit: kg}}
  J: {{value: 0.1, unit: kg m^2}}
  g: {{value: 9.81, unit: m/s^2}}
gravity: [0, -g]
bodies:
  - {{name: link, type: planar, mass: m, inertia: J, angle: "1 - pi/2",
     position: ["sin(1)", "-cos(1)"]}}
joints:
  - {{name: J1, type: revolute, body1: link, body2: ground, point: [0, 0], initial: 1.0}}
stops:
  - {{joint: J1, lower: 0.3, restitution: 0.5}}
coordinates: {formulation}
simulation:
  t_end: 3.0
  method: dop853
  rtol: 1.0e-12
  atol: 1.0e-12
"""

# A rotor (inertia I) from rest at q = 0.1 under the torque -tau0 + k t: it reaches its stop at
# q = 0 when 0.1 + (-tau0 t^2 / 2 + k t^3 / 6) / I = 0, is held there while the torque pushes
# into the stop, and leaves when it turns at t = tau0 / k: q = k (t - tau0/k)^3 / (6 I) after.
ROTOR = """
name: {name}
description: a rotor pushed into its stop by a torque that ramps through zero
coordinates:
  - {{name: q, unit: rad}}
parameters:
  I: {{value: 0.5, unit: kg m^2}}
  tau0: {{value: 2.0, unit: N m}}
  k: {{value: 4.0, unit: N m/s}}
dynamics:
  kinetic: "I/2*q_dot**2"
  forces: ["{sign}(-tau0 + k*t)"]
initial:
  x: {{q: {q0}}}
  v: {{q: 0}}
stops:
  - {{coordinate: q, {side}: 0}}
simulation:
  t_end: 1.0
  method: {method}
  h: 1.0e-3
  rtol: 1.0e-12
  atol: 1.0e-12
"""
I_ROTOR, TAU0, K = 0.5, 2.0, 4.0


def fall_time(q_top, inertia, mgl):
    """Time from rest at q_top down to the stop, by quadrature of dt = dq / qdot(q) with
    qdot^2 = 2 mgl (cos q - cos q_top) / I; q = q_top - s^2 takes the root's singularity away,
    and cos(q_top - s^2) - cos(q_top) = 2 sin(q_top - s^2/2) sin(s^2/2) its cancellation."""

    def integrand(s):
        if s == 0:
            return 2 / np.sqrt(2 * mgl / inertia * np.sin(q_top))
        drop = 2 * np.sin(q_top - s * s / 2) * np.sin(s * s / 2)
        return 2 * s / np.sqrt(2 * mgl / inertia * drop)

    return quad(integrand, 0, np.sqrt(q_top - Q_STOP), epsabs=1e-14, epsrel=1e-12, limit=200)[0]


def impacts_reference(inertia, mgl, count=5):
    """[(t, rate before)] of the first impacts: energy is conserved between them, each rebound
    leaves with e times the speed it came with and rises to where that kinetic energy is spent."""
    t = fall_time(Q0, inertia, mgl)
    speed = np.sqrt(2 * mgl / inertia * (np.cos(Q_STOP) - np.cos(Q0)))
    out = []
    for _ in range(count):
        out.append((t, -speed))
        speed *= E
        q_top = np.arccos(np.cos(Q_STOP) - inertia * speed**2 / (2 * mgl))
        t += 2 * fall_time(q_top, inertia, mgl)
    return out


def stop_events(events):
    return [e for e in events if e.get("kind") in ("impact", "release")]


@pytest.fixture(scope="module")
def bounces(tmp_path_factory):
    """{formulation: (summary, run, stop events, I, m g l)}: the shipped pendulum_stop (I = 1,
    m g l = 9.81) and the body pendulum in body and joint coordinates (I = 1.1)."""
    tmp = tmp_path_factory.mktemp("stops")
    summary, run, events = simulate(tmp, "pendulum_stop", with_events=True)
    out = {"coordinates": (summary, run, stop_events(events), 1.0, G)}
    for formulation in ("body", "joint"):
        path = tmp / f"pend_stop_{formulation}.yaml"
        name = f"pend_stop_{formulation}"
        path.write_text(BODIES.format(name=name, formulation=formulation))
        summary, run, events = simulate(tmp, str(path), with_events=True)
        out[formulation] = (summary, run, stop_events(events), 1.1, G)
    return out


@pytest.mark.parametrize("formulation", ["coordinates", "body", "joint"])
def test_the_first_five_impacts_are_those_of_quadrature(bounces, formulation):
    _, _, events, inertia, mgl = bounces[formulation]
    for (t, rate), ev in zip(impacts_reference(inertia, mgl), events):
        assert ev["kind"] == "impact"
        assert abs(ev["t"] - t) < 1e-8, (ev, t)
        assert abs(ev["rate_before"] - rate) < 1e-8, (ev, rate)


@pytest.mark.parametrize("formulation", ["coordinates", "body", "joint"])
def test_each_rebound_leaves_with_e_times_the_impact_rate(bounces, formulation):
    _, _, events, _, _ = bounces[formulation]
    rebounds = [e for e in events if not e["held"]]
    assert len(rebounds) > 10
    for ev in rebounds:
        assert ev["rate_after"] == pytest.approx(-E * ev["rate_before"], rel=1e-12, abs=1e-15)
        # one degree of freedom: the kinetic energy keeps e^2 of itself
        assert ev["kinetic_after"] == pytest.approx(E**2 * ev["kinetic_before"], rel=1e-10)


@pytest.mark.parametrize("formulation", ["coordinates", "body", "joint"])
def test_the_bounces_accumulate_into_a_held_limit_that_holds(bounces, formulation):
    summary, run, events, _, _ = bounces[formulation]
    last = events[-1]
    assert last["kind"] == "impact" and last["held"] and last["zeno"], last
    assert abs(last["rate_before"]) < 1e-5
    assert summary["stops"]["held"] == 1 and summary["stops"]["releases"] == 0
    q = run["x.q"] if "x.q" in run else run["j.J1"]
    after = run["t"] > last["t"]
    assert after.sum() >= 2
    assert np.all(np.abs(q[after] - Q_STOP) < 1e-9)
    # never beyond the limit: the impacts are located on its inside
    assert q.min() >= Q_STOP - 1e-12, q.min()


def test_body_and_joint_coordinates_agree_with_the_coordinate_model(bounces):
    body, joint = bounces["body"][2], bounces["joint"][2]
    assert len(body) == len(joint)
    for b, j in zip(body[:10], joint[:10]):
        assert abs(b["t"] - j["t"]) < 1e-9 and abs(b["rate_before"] - j["rate_before"]) < 1e-9


@pytest.mark.parametrize("formulation", ["coordinates", "body", "joint"])
def test_the_energy_the_impacts_take_closes_the_balance(bounces, formulation):
    summary, run, events, _, _ = bounces[formulation]
    loss = sum(e["kinetic_before"] - e["kinetic_after"] for e in events)
    assert summary["stops"]["impact_loss"] == pytest.approx(loss, rel=1e-12)
    assert summary["energy_transitions"] == pytest.approx(-loss, rel=1e-12)
    # E(end) = E0 - what the impacts took (a conservative model otherwise)
    energy = run.get("energy")
    if energy is not None:
        assert energy[-1] - summary["energy0"] == pytest.approx(-loss, abs=1e-9 * abs(loss))


def rotor(tmp, method="dop853", side="lower"):
    """The rotor run: (summary, run, stop events), on its lower stop, or mirrored on an upper."""
    name = f"rotor_{side}_{method}"
    text = ROTOR.format(
        name=name,
        method=method,
        side=side,
        sign="" if side == "lower" else "-",
        q0=0.1 if side == "lower" else -0.1,
    )
    path = tmp / f"{name}.yaml"
    path.write_text(text)
    summary, run, events = simulate(tmp, str(path), with_events=True)
    return summary, run, stop_events(events)


def rotor_impact_time():
    roots = np.roots([K / (6 * I_ROTOR), -TAU0 / (2 * I_ROTOR), 0, 0.1])
    return min(r.real for r in roots if abs(r.imag) < 1e-12 and r.real > 0)


@pytest.mark.parametrize(
    "method, side", [("dop853", "lower"), ("dop853", "upper"), ("rk4", "lower")]
)
def test_a_held_stop_is_released_when_the_torque_turns(tmp_path, method, side):
    summary, run, events = rotor(tmp_path, method, side)
    tol = 1e-10 if method == "dop853" else 1e-8
    impact, release = events
    assert impact["kind"] == "impact" and impact["held"] and not impact["zeno"]
    assert abs(impact["t"] - rotor_impact_time()) < tol
    assert impact["rate_after"] == 0
    assert release["kind"] == "release" and abs(release["t"] - TAU0 / K) < tol
    sign = 1 if side == "lower" else -1
    held = (run["t"] > impact["t"]) & (run["t"] <= release["t"])
    assert np.all(np.abs(run["x.q"][held]) < 1e-12)
    # after the release: q = k (t - tau0/k)^3 / (6 I), away from the stop
    t_end = run["t"][-1]
    assert run["x.q"][-1] == pytest.approx(
        sign * K * (t_end - TAU0 / K) ** 3 / (6 * I_ROTOR), abs=tol
    )
    assert summary["stops"] == {
        "impacts": 1,
        "held": 1,
        "releases": 1,
        "impact_loss": pytest.approx(impact["kinetic_before"], rel=1e-12),
    }


# ---- Coulomb friction: a pendulum, a block on a belt, a torque ramp ----

FRICTION_PENDULUM = """
name: {name}
description: a pendulum with Coulomb friction in its pivot
coordinates:
  - {{name: q, unit: rad}}
parameters:
  m: {{value: 1.0, unit: kg}}
  l: {{value: 1.0, unit: m}}
  g: {{value: 9.81, unit: m/s^2}}
dynamics:
  kinetic: "m*l**2/2*q_dot**2"
  potential: "-m*g*l*cos(q)"
initial:
  x: {{q: 1.0}}
  v: {{q: 0}}
friction:
  - {{coordinate: q, kinetic: 0.5, static: 0.6}}
simulation:
  t_end: 12.0
  method: {method}
  h: 1.0e-3
  rtol: 1.0e-12
  atol: 1.0e-12
"""
TAU_K, TAU_S = 0.5, 0.6


def turning_points():
    """The pendulum's turning points from V(q_next) - V(q) = -tau_k |q_next - q| (V = -m g l cos q,
    a root on the other side of the bottom), until the first one where gravity's torque
    m g l |sin q| is within the static level: there it sticks."""
    from scipy.optimize import brentq

    points = [Q0]
    while G * abs(np.sin(points[-1])) > TAU_S:
        q = points[-1]

        def balance(r):
            return -G * np.cos(r) + G * np.cos(q) + TAU_K * abs(r - q)

        points.append(brentq(balance, -np.sign(q) * 1e-9, -q, xtol=1e-15, rtol=1e-15))
    return points[1:]


@pytest.mark.parametrize("method", ["dop853", "rk4"])
def test_a_pendulum_with_friction_turns_where_the_energy_says_and_sticks(tmp_path, method):
    name = f"friction_pendulum_{method}"
    path = tmp_path / f"{name}.yaml"
    path.write_text(FRICTION_PENDULUM.format(name=name, method=method))
    summary, run, events = simulate(tmp_path, str(path), with_events=True)
    events = stop_events(events) + [e for e in events if e.get("kind") in ("stick", "reverse")]
    reference = turning_points()
    assert len(reference) >= 6
    assert [e["kind"] for e in events] == ["reverse"] * (len(reference) - 1) + ["stick"]
    for ev, q in zip(events, reference):
        assert abs(ev["q"] - q) < 1e-8, (ev, q)
        assert abs(ev["rate_before"]) < 1e-8 and ev["rate_after"] == 0
    # it sticks at the first turning point gravity cannot move it from, and stays there
    last = events[-1]
    assert last["held"] and abs(last["holding"]) <= TAU_S
    after = run["t"] > last["t"]
    assert after.sum() >= 1 and np.all(run["x.q"][after] == run["x.q"][-1])
    assert np.all(run["v.q"][after] == 0)
    assert summary["friction"]["sticks"] == 1
    # E(end) - E0 = -(the work friction took) = -tau_k times the path length
    path_length = sum(abs(b - a) for a, b in zip([Q0] + reference[:-1], reference))
    assert summary["friction"]["work"] == pytest.approx(TAU_K * path_length, rel=1e-8)
    closed = run["energy"][-1] - summary["energy0"] + summary["friction"]["work"]
    assert abs(closed) < 1e-8 * abs(summary["energy0"])


# A block (mass m) held to ground by a spring (k) on a belt moving at V: in the belt's frame, u =
# x - V t, friction acts on u's rate. Stuck, the block rides the belt until the spring's pull k x
# reaches the static level; it slips back, m x'' = -k x + tau_k, from x_s = tau_s / k with rate V,
# and sticks again when its rate is V once more: x = tau_k/k + A cos(w s) + (V/w) sin(w s), A =
# (tau_s - tau_k)/k, s the time since the slip; it sticks at the first s > 0 with
# -w A sin(w s) + V cos(w s) = V (solved below by bracketing, independently of the code).
BELT = """
name: {name}
description: stick-slip of a block on a moving belt, held by a spring
coordinates:
  - {{name: u, unit: m}}
parameters:
  m: {{value: 1.0, unit: kg}}
  k: {{value: 100.0, unit: N/m}}
  V: {{value: 0.1, unit: m/s}}
dynamics:
  kinetic: "m/2*(u_dot + V)**2"
  potential: "k/2*(u + V*t)**2"
initial:
  x: {{u: 0}}
  v: {{u: 0}}
friction:
  - {{coordinate: u, kinetic: 2.0, static: 3.0}}
simulation:
  t_end: 3.5
  method: dop853
  rtol: 1.0e-12
  atol: 1.0e-12
"""
M_B, K_B, V_B, TK_B, TS_B = 1.0, 100.0, 0.1, 2.0, 3.0


def belt_events(t_end):
    """[(kind, t)] of the block's slips and sticks from the closed form."""
    from scipy.optimize import brentq

    w = np.sqrt(K_B / M_B)
    a = (TS_B - TK_B) / K_B

    def rate_gap(s):  # x'(s) - V on the slipping arc
        return -w * a * np.sin(w * s) + V_B * np.cos(w * s) - V_B

    # the first s > 0 where x' = V again: rate_gap starts at 0 going down, comes back up
    grid = np.linspace(1e-6, 2 * np.pi / w, 2001)
    values = rate_gap(grid)
    i = next(i for i in range(1, len(grid)) if values[i - 1] < 0 <= values[i])
    s_stick = brentq(rate_gap, grid[i - 1], grid[i], xtol=1e-15)
    x_stick = TK_B / K_B + a * np.cos(w * s_stick) + V_B / w * np.sin(w * s_stick)
    out, t, x = [], 0.0, 0.0
    while True:
        t += (TS_B / K_B - x) / V_B  # rides the belt to the static level
        if t > t_end:
            return out
        out.append(("slip", t))
        t += s_stick
        if t > t_end:
            return out
        out.append(("stick", t))
        x = x_stick


def test_stick_slip_on_a_belt_has_the_closed_form_instants(tmp_path):
    path = tmp_path / "belt.yaml"
    path.write_text(BELT.format(name="belt"))
    summary, run, events = simulate(tmp_path, str(path), with_events=True)
    events = [e for e in events if e.get("kind") in ("stick", "slip", "reverse")]
    reference = belt_events(3.5)
    assert len(reference) >= 6  # several cycles
    assert [e["kind"] for e in events] == [k for k, _ in reference]
    for ev, (_, t) in zip(events, reference):
        assert abs(ev["t"] - t) < 1e-8, (ev, t)
    for ev in events:
        if ev["kind"] == "slip":  # the spring's pull at the static level
            assert abs(abs(ev["holding"]) - TS_B) < 1e-8


# A rotor (inertia I) at rest under a torque k t and static friction tau_s: stuck until k t =
# tau_s, then I q'' = k t - tau_k.
TORQUE_RAMP = """
name: torque_ramp
description: a motor's torque ramp against static friction
coordinates:
  - {name: q, unit: rad}
parameters:
  I: {value: 0.5, unit: kg m^2}
  k: {value: 2.0, unit: N m/s}
dynamics:
  kinetic: "I/2*q_dot**2"
  forces: ["k*t"]
initial:
  x: {q: 0}
  v: {q: 0}
friction:
  - {coordinate: q, kinetic: 0.8, static: 1.0}
simulation:
  t_end: 1.0
  method: dop853
  rtol: 1.0e-12
  atol: 1.0e-12
"""


def test_a_torque_ramp_moves_the_joint_when_it_crosses_the_static_level(tmp_path):
    path = tmp_path / "torque_ramp.yaml"
    path.write_text(TORQUE_RAMP)
    summary, run, events = simulate(tmp_path, str(path), with_events=True)
    (slip,) = [e for e in events if e.get("kind") in ("stick", "slip", "reverse")]
    t_slip = 1.0 / 2.0
    assert slip["kind"] == "slip" and abs(slip["t"] - t_slip) < 1e-10
    held = run["t"] < t_slip
    assert np.all(run["x.q"][held] == 0)
    # after: q = (k (t^3 - ts^3)/6 - k ts^2 (t - ts)/2 - tau_k (t - ts)^2 / 2) / I
    t = run["t"][-1]
    s = t - t_slip
    expected = (
        2.0 * (t**3 - t_slip**3) / 6 - 2.0 * t_slip**2 * s / 2 - 0.8 * s**2 / 2
    ) / 0.5
    assert run["x.q"][-1] == pytest.approx(expected, abs=1e-10)
    # stuck from the start (mcs_stops_begin), not by an event: no stick counted
    assert summary["friction"] == {"sticks": 0, "slips": 1, "work": pytest.approx(0.8 * expected)}


def test_statics_says_when_its_equilibrium_is_beyond_a_stop(capsys):
    from mcsgen.cli import main

    status = main(["statics", "pendulum_stop"])
    out = capsys.readouterr().out
    # the frictionless equilibrium q = 0 is beyond the stop at 0.3: not the mechanism's
    assert status == 1
    assert "beyond its stop: q = 0, lower limit 0.3" in out
    assert "stability" not in out


def test_a_seven_joint_arm_from_urdf_settles_on_its_stops_and_friction(tmp_path):
    """The damped arm of models/urdf without its dampers, with <dynamics friction> 0.05 and
    limits of +-1.2 rad in every joint, released under gravity with two joints turning: it hits
    stops, sticks and slips, and comes to rest with every joint stuck or held."""
    from fractions import Fraction

    from mcsgen.urdf import import_urdf

    text = (ROOT / "models" / "urdf" / "damped_arm.urdf").read_text()
    text = re.sub(r"<dynamics damping=\"[^\"]*\"[^/]*/>", '<dynamics friction="0.05"/>', text)
    text = text.replace('lower="-3" upper="3"', 'lower="-1.2" upper="1.2"')
    urdf = tmp_path / "arm.urdf"
    urdf.write_text(text)
    q = {"joint1": Fraction(3, 10), "joint2": Fraction(1, 2), "joint4": Fraction(-7, 10)}
    q["joint6"] = Fraction(2, 5)
    qd = {"joint1": Fraction(1), "joint7": Fraction(2)}
    path, notes = import_urdf(urdf, tmp_path / "friction_arm.yaml", q=q, qd=qd)
    assert any("as end stops" in n for n in notes)
    summary, run, events = simulate(
        tmp_path, str(path), with_events=True, t_end=6.0, method="dop853", rtol=1e-10, atol=1e-10
    )
    kinds = {e["kind"] for e in events}
    assert {"impact", "stick", "slip"} <= kinds, kinds
    joints = [f"joint{k}" for k in range(1, 8)]
    for j in joints:  # never beyond a limit
        assert np.abs(run[f"j.{j}"]).max() <= 1.2 + 1e-9, j
    # E(end) - E0 = the jumps at the events (the impacts' losses) - the work friction took
    closed = (
        run["energy"][-1]
        - summary["energy0"]
        - summary["energy_transitions"]
        + summary["friction"]["work"]
    )
    assert abs(closed) < 1e-8 * abs(summary["energy0"])
    assert summary["stops"]["impact_loss"] > 1 and summary["friction"]["work"] > 0.1
    # at rest at the end: every joint stuck or on a stop
    for j in joints:
        assert abs(run[f"jd.{j}"][-1]) < 1e-9, j
    for ev in events:
        if ev["kind"] == "stick" and ev["held"]:
            assert abs(ev["holding"]) <= 0.05


def test_the_csv_has_the_active_set(bounces, tmp_path):
    """stop.<name> (-1 held at the lower limit, 0 free) and, with friction, stuck.<name>."""
    _, run, events, _, _ = bounces["coordinates"]
    held = events[-1]["t"]
    assert np.all(run["stop.q"][run["t"] > held] == -1)
    assert np.all(run["stop.q"][run["t"] < events[0]["t"]] == 0)
    path = tmp_path / "torque_ramp.yaml"
    path.write_text(TORQUE_RAMP)
    _, run, _ = simulate(tmp_path, str(path), with_events=True)
    assert np.all(run["stuck.q"][run["t"] < 0.5] == 1) and run["stuck.q"][-1] == 0


def test_a_controller_steps_the_axis_and_sees_stick_slip_and_stops():
    """The how-to's servo axis stepped from Python at 1 kHz: stuck at rest, broken loose by the
    motor, held on its upper stop, released but held by friction at the limit, and driven onto
    the lower stop; inverse dynamics knows the sliding friction, and says so when a lock holds
    the axis (no input moves it then)."""
    import mcsgen
    from mcsgen.errors import McsError

    plant = mcsgen.load(str(ROOT / "docs" / "examples" / "servo_axis.yaml")).build().start()
    assert plant.active() == {"stop.phi": 0, "stuck.phi": 1}  # at rest, no torque: stuck
    with pytest.raises(McsError, match="the inputs act on no motion"):  # stuck: a lock holds it
        plant.inverse([0.0])
    seen = set()
    for tick in range(1000):
        t = tick * 1e-3
        u = 0.06 if t < 0.1 else 0.3 if t < 0.4 else -0.07 if t < 0.6 else -0.3
        plant.step([u], dt=1e-3)
        seen.add(tuple(plant.active().values()))
        if abs(t - 0.2) < 1e-9:  # sliding up: no acceleration takes c rate + the kinetic level
            rate = plant.v[0]
            assert rate > 0 and plant.active() == {"stop.phi": 0, "stuck.phi": 0}
            feed = plant.inverse([0.0])
            assert feed.u[0] == pytest.approx(0.001 * rate + 0.05, rel=1e-12)
        if abs(t - 0.09) < 1e-9:  # 0.06 N m is below the breakaway level
            assert plant.x[0] == 0 and plant.active()["stuck.phi"] == 1
        if abs(t - 0.39) < 1e-9:  # on the upper stop
            assert plant.active()["stop.phi"] == 1 and abs(plant.x[0] - 1) < 1e-9
        if abs(t - 0.59) < 1e-9:  # the stop let go; friction holds it at the limit
            assert plant.active() == {"stop.phi": 0, "stuck.phi": 1}
            assert abs(plant.x[0] - 1) < 1e-9
    assert plant.active()["stop.phi"] == -1 and abs(plant.x[0] + 1) < 1e-9
    assert {(0, 1), (0, 0), (1, 0), (-1, 0)} <= seen
