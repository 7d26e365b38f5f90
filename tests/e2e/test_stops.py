"""End stops (issue 61; runtime/src/sim/mcs_stops.c), run end to end through the simulator and
held to references written here, not taken from the code: a pendulum bouncing on a stop against
quadrature of its energy integral between the impacts, and a rotor pushed into its stop by a
torque ramp against the closed form of its motion; in coordinates, body and joint coordinates.
"""

import numpy as np
import pytest
from scipy.integrate import quad

from helpers import simulate

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
