"""Joint locks (row groups: a joint becomes a fixed joint at its pose then), explicit switch rows
and condition events of bodies models, end to end; and the PUMA 560 emergency stop of 004 §7."""

from pathlib import Path

import numpy as np
import pytest
import sympy as sp

from helpers import quaternion_matrix, simulate
from mcsgen.compiled import CompiledModel
from mcsgen.model import load_model

ROOT = Path(__file__).resolve().parents[2]
MODELS = ROOT / "models"


def transitions(events):
    return [e for e in events if e.get("kind") in ("lock", "unlock")]


def rows_at(run, t):
    return np.flatnonzero(np.abs(run["t"] - t) < 1e-12)


def state(run, model, i):
    x = np.array([run[f"x.{c.name}"][i] for c in model.coordinates])
    v = np.array([run[f"v.{c.name}"][i] for c in model.coordinates])
    return x, v


def rotation_weights(axis, r):
    """Python twin of mcs_rows.c: Im(rho conj(r))_axis = w . rho."""
    return [
        [-r[1], r[0], r[3], -r[2]],
        [-r[2], -r[3], r[0], r[1]],
        [-r[3], r[2], -r[1], r[0]],
    ][axis]


def test_locking_the_crank_hinge_of_the_slider_crank_stops_it(tmp_path):
    summary, run, events = simulate(
        tmp_path, "slider_crank", with_events=True, t_end=0.3, lock=["A@0.1"]
    )
    (lock,) = transitions(events)
    assert lock["target"] == "A" and lock["dof_after"] == 0 and lock["kinetic_after"] == 0
    i0 = rows_at(run, 0.1)[-1]
    assert max(np.abs(run[c][i0:]).max() for c in run if c.startswith("v.")) <= 1e-12
    assert run["c_norm"].max() <= 1e-10


def test_a_ball_joint_lock_on_a_closed_loop_gives_the_minimum_norm_impulse(tmp_path):
    """Locking the spherical joint B adds 3 rotation rows where one freedom is left: 2 rows are
    dependent, reported, and the impulse is the minimum-norm one: a dense least-squares solve
    of 004 eq. (37) at the event state gives the same |Lambda|."""
    model = load_model(MODELS / "slider_crank.yaml")
    summary, run, events = simulate(
        tmp_path, "slider_crank", with_events=True, t_end=0.2, lock=["B@0.1"], basis=True
    )
    (lock,) = transitions(events)
    assert lock["dependent"] == 2 and lock["dof_after"] == 0 and lock["kinetic_after"] == 0
    i = rows_at(run, 0.1)[0]  # the state before the jump
    x, v = state(run, model, i)
    T = np.array([run[f"T1.{c.name}"][i] for c in model.coordinates])[:, None]  # (n x 1)
    cm = CompiledModel(model)
    k = next(j.lock_group for j in model.joints if j.name == "B")
    rho = cm.group(k, "g", x)
    J2 = np.array([rotation_weights(a, rho) for a in range(3)]) @ cm.group(k, "G", x)[:4]
    # eq. (37) with ds = -s- (the loop stops): (J2 T)^T Lambda = T^T M v-, minimum norm
    lam, *_ = np.linalg.lstsq((J2 @ T).T, T.T @ cm.M(x, 0.1) @ v, rcond=None)
    assert lock["impulse"] == pytest.approx(np.linalg.norm(lam), rel=1e-8)
    assert run["c_norm"].max() <= 1e-10


def test_a_coordinate_group_reads_as_the_runtime_forms_it():
    """The double four-bar's ground joints lock a body coordinate each: no kernels
    (mcs_row_group.coords); CompiledModel.group gives what mcs_rows.c forms, g = x[coords],
    unit rows G, zero gamma and G_dot, as tests/runtime/test_locks.c checks of the runtime."""
    model = load_model(MODELS / "double_four_bar.yaml")
    cm = CompiledModel(model)
    x = np.linspace(0.1, 1.5, model.n)
    v = np.linspace(-1.0, 1.0, model.n)
    held = [(k, g.held_coordinates(model.x)) for k, g in enumerate(model.row_groups)]
    held = [(k, coords) for k, coords in held if coords is not None]
    assert len(held) == 3
    for k, coords in held:
        assert cm.group(k, "g", x).tolist() == x[coords].tolist()
        G = cm.group(k, "G", x)
        assert G.shape == (len(coords), model.n) and G.sum() == len(coords)
        assert G[np.arange(len(coords)), coords].tolist() == [1.0] * len(coords)
        assert not cm.group(k, "gamma", x, v).any() and not cm.group(k, "G_dot", x, v).any()


def test_joint_locks_unlock_in_any_order(tmp_path):
    """pendulum_3r_bodies: lock J2 and J3, release J2 first: J3 stays held (its captured value
    moves in the table), J2 moves again with continuous velocities."""
    _, run, events = simulate(
        tmp_path,
        "pendulum_3r_bodies",
        with_events=True,
        t_end=0.7,
        lock=["J2@0.3", "J3@0.4"],
        unlock=["J2@0.55"],
        method="dopri5",
        rtol=1e-10,
        atol=1e-12,
    )
    assert [(e["kind"], e["target"]) for e in transitions(events)] == [
        ("lock", "J2"),
        ("lock", "J3"),
        ("unlock", "J2"),
    ]
    th = [run[f"x.link{i}.theta"] for i in (1, 2, 3)]
    rel2, rel3 = th[1] - th[0], th[2] - th[1]
    held2 = (run["t"] >= 0.3) & (run["t"] <= 0.55)
    held3 = run["t"] >= 0.4
    assert np.ptp(rel2[held2]) <= 1e-10 and np.ptp(rel3[held3]) <= 1e-10
    assert np.ptp(rel2[run["t"] >= 0.55]) > 1e-3  # free again
    i, j = rows_at(run, 0.55)[:2]
    assert all(run[c][i] == run[c][j] for c in run if c.startswith("v."))


def test_condition_event_of_a_bodies_model(tmp_path, monkeypatch):
    """`when: J3_dot` in a bodies model: J3's rate (from the link angles) is 0 at the lock."""
    from test_transitions import run_tmp_model

    text = (MODELS / "pendulum_3r_bodies.yaml").read_text()
    text = text.replace("name: pendulum_3r_bodies\n", "name: p3bwhen\n")
    text = text.split("switches:")[0] + (
        "switches:\n  - {name: lock3, lock: J3}\n"
        "events:\n  - {when: J3_dot, direction: falling, activate: lock3}\n"
        "simulation: {t_end: 1.0, method: dopri5, rtol: 1.0e-10, atol: 1.0e-12}\n"
    )
    _, run, (lock,) = run_tmp_model(tmp_path, monkeypatch, "p3bwhen", text, {})
    rate = run["v.link3.theta"] - run["v.link2.theta"]
    i_before, i_after = rows_at(run, lock["t"])[:2]
    assert abs(rate[i_before]) <= 1e-9 * np.abs(rate).max()
    assert max(abs(v) for v in lock["dv"].values()) <= 1e-8
    assert np.abs(rate[i_after:]).max() <= 1e-12
    assert rate[i_before - 1] > 0


LATCH = """
switches:
  - {name: latch, constraints: [q2 - q3]}
events:
  - {when: q2 - q3, direction: both, activate: latch}
"""


def test_explicit_rows_latch_when_they_hold(tmp_path, monkeypatch):
    """A switch of explicit rows (q2 - q3 = 0) activated when the row crosses zero: the row
    holds from then on, and the energy drops by exactly 1/2 dv' M dv there."""
    from test_transitions import run_tmp_model

    model = load_model(MODELS / "pendulum_3r.yaml")
    cm = CompiledModel(model)  # the same dynamics (built before run_tmp_model moves generated/)
    text = (MODELS / "pendulum_3r.yaml").read_text().replace("name: pendulum_3r\n", "name: latch\n")
    options = {"t_end": 1.5, "method": "dopri5", "rtol": 1e-10, "atol": 1e-12}
    summary, run, (lock,) = run_tmp_model(tmp_path, monkeypatch, "latch", text + LATCH, options)
    i0 = rows_at(run, lock["t"])[-1]
    assert np.abs(run["x.q2"][i0:] - run["x.q3"][i0:]).max() <= 1e-9
    x, _ = state(run, model, i0)
    dv = np.array([lock["dv"][c] for c in ("q1", "q2", "q3")])
    lost = lock["kinetic_before"] - lock["kinetic_after"]
    assert lost == pytest.approx(0.5 * dv @ cm.M(x, lock["t"]) @ dv, rel=1e-10)
    assert summary["energy_drift_rel"] <= 1e-8


def test_bad_joint_lock_options_are_one_line_errors(cli):
    proc = cli("simulate", "slider_crank", "--lock", "Z@0.1")
    assert proc.returncode == 2 and "unknown coordinate or joint" in proc.stderr


# ---- PUMA 560 emergency stop (004 §7) ----------------------------------------------------------

DH = [  # (d, a, alpha) of docs/data/puma560.md
    (0, 0, np.pi / 2),
    (0, 0.4318, 0),
    (0.15005, 0.0203, -np.pi / 2),
    (0.4318, 0, np.pi / 2),
    (0, 0, -np.pi / 2),
    (0, 0, 0),
]
COM = [(0, 0, 0), (-0.3638, 0.006, 0.2275), (-0.0203, -0.0141, 0.070), (0, 0.019, 0), (0, 0, 0)]
COM.append((0, 0, 0.032))
Q_NOMINAL = [0, np.pi / 4, np.pi, 0, np.pi / 4, 0]
GEAR = [-62.6111, 107.815, -53.7063, 76.0364, 71.923, 76.686]


def dh_frames(q):
    """World (R, o) of DH frames 1..6 at joint angles q, independently of the generator."""
    R, o, out = np.eye(3), np.zeros(3), []
    for (d, a, alpha), qi in zip(DH, q):
        c, s, ca, sa = np.cos(qi), np.sin(qi), np.cos(alpha), np.sin(alpha)
        o = o + R @ np.array([a * c, a * s, d])
        R = R @ np.array([[c, -s * ca, s * sa], [s, c * ca, -c * sa], [0, sa, ca]])
        out.append((R, o))
    return out


@pytest.fixture(scope="module")
def puma(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("puma")
    model = load_model(MODELS / "puma560_estop.yaml")
    angles = sp.lambdify([model.x], [j.coordinate for j in model.joints])
    runs = {
        method: simulate(tmp, "puma560_estop", with_events=True, transition=method, momenta=True)
        for method in ("minimal", "naive")
    }
    return model, angles, runs


def test_puma_model_is_the_dh_arm_at_the_nominal_pose(puma):
    model, angles, _ = puma
    x0 = np.array(model.x0)
    # joint angles count from the initial pose (a quaternion's sign does not make one 2 pi)
    assert np.abs(angles(x0)).max() <= 1e-15
    for i, (R, o) in enumerate(dh_frames(Q_NOMINAL)):
        r, e = x0[7 * i : 7 * i + 3], x0[7 * i + 3 : 7 * i + 7]
        assert np.abs(r - (o + R @ np.array(COM[i]))).max() <= 1e-15
        assert np.abs(quaternion_matrix(e) - R).max() <= 1e-15


def test_puma_locks_keep_free_momenta_and_hold_the_locked_joints(puma):
    model, angles, runs = puma
    summary, run, events = runs["minimal"]
    locks = transitions(events)
    assert [(e["target"], e["t"]) for e in locks] == [("J1", 0.05), ("J2", 0.1), ("J3", 0.15)]
    assert [e["dof_after"] for e in locks] == [5, 4, 3]
    cm = CompiledModel(model)
    for e in locks:
        before, after = np.array(e["momenta_before"]), np.array(e["momenta_after"])
        assert np.abs(after - before).max() <= 1e-10 * np.abs(before).max()
        i = rows_at(run, e["t"])[0]
        x, _ = state(run, model, i)
        dv = np.array([e["dv"][c.name] for c in model.coordinates])
        lost = e["kinetic_before"] - e["kinetic_after"]
        assert lost > 0 and lost == pytest.approx(0.5 * dv @ cm.M(x, e["t"]) @ dv, rel=1e-10)
    q = np.array([angles(np.array(state(run, model, i)[0])) for i in range(len(run["t"]))])
    for k, e in enumerate(locks):
        held = run["t"] >= e["t"]
        assert np.ptp(q[held, k]) <= 1e-9, e["target"]
    assert summary["energy_drift_rel"] <= 1e-8  # energy only changes at the events
    assert run["c_norm"].max() <= 1e-10


def test_puma_naive_braking_loses_momentum_and_ends_elsewhere(puma):
    """Zeroing the braked rates without momentum balance: the still-free joints' momenta jump
    (measured: the largest relative change at each brake) and the final pose differs; the
    motor angles G q (004 Fig. 8) differ by whole degrees."""
    model, angles, runs = puma
    naive = transitions(runs["naive"][2])
    jumps = [
        np.abs(np.subtract(e["momenta_after"], e["momenta_before"])).max()
        / np.abs(e["momenta_before"]).max()
        for e in naive
    ]
    assert min(jumps) > 0.01, jumps
    final = {k: np.array(angles(state(runs[k][1], model, -1)[0])) for k in ("minimal", "naive")}
    motor = np.degrees(np.array(GEAR) * (final["minimal"] - final["naive"]))
    assert np.abs(motor[3:]).max() > 10, motor  # the free wrist ends degrees apart
    assert np.abs(motor[:3]).max() > 1, motor


def test_float_build_locks_joints(tmp_path):
    """The float solver (MCS_REAL_FLOAT, portable linear algebra) locks a joint of a bodies model
    through its row group: the braked relative angle holds to single precision."""
    import json
    import subprocess

    from mcsgen.build import program_command, simulator_sources

    exe = tmp_path / "sim_float"
    cmd = program_command(
        "pendulum_3r_bodies",
        simulator_sources(),
        exe,
        "portable",
        ["-DMCS_REAL_FLOAT", "-Wdouble-promotion"],
    )
    proc = subprocess.run(cmd, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    out = tmp_path / "run.csv"
    args = [str(exe), "--t-end", "0.7", "--h", "1e-3", "--out", str(out), "--lock", "J2@0.3"]
    run = subprocess.run(args, capture_output=True, text=True)
    summary = json.loads(run.stdout)
    assert summary["ok"] and summary["max_c_norm"] < 1e-5, run.stderr
    from mcsgen.outputs.plot import read_run

    data = read_run(out)
    rel = data["x.link2.theta"] - data["x.link1.theta"]
    assert np.ptp(rel[data["t"] >= 0.3]) <= 1e-5
    assert np.ptp(rel[data["t"] <= 0.3]) > 1e-2
