"""Transitions: coordinate locks with the momentum-consistent velocity jump (004 §5-6), run end
to end through the simulator (`simulate --lock NAME@T`, `--unlock`, `--transition`)."""

from pathlib import Path

import numpy as np
import pytest

from helpers import simulate
from mcsgen.compiled import CompiledModel
from mcsgen.model import load_model

ROOT = Path(__file__).resolve().parents[2]
LOCKS = ["q2@0.8", "q3@1.3"]  # 004 §6: joint 2 at 0.8 s, joint 3 at 1.3 s


def transitions(events):
    return [e for e in events if e.get("kind") in ("lock", "unlock")]


def rows_at(run, t):
    return np.flatnonzero(np.abs(run["t"] - t) < 1e-12)


def run_tmp_model(tmp_path, monkeypatch, name, text, options):
    """Generate a model written for the test into tmp_path and run it there (not in generated/):
    (summary, run, transitions)."""
    import json

    from mcsgen import build
    from mcsgen.generate import generate
    from mcsgen.outputs.plot import read_run
    from helpers import run_simulation

    path = tmp_path / f"{name}.yaml"
    path.write_text(text)
    generate(path, out_root=tmp_path / "generated")
    monkeypatch.setattr(build, "GENERATED", tmp_path / "generated")
    monkeypatch.setattr(build, "USER_GENERATED", tmp_path / "generated")
    monkeypatch.setattr(build, "BUILD", tmp_path / "build")
    out, events = tmp_path / "run.csv", tmp_path / "run.events.json"
    summary = run_simulation(name, dict(options, events=events), out_csv=out)
    assert summary["ok"], summary
    return summary, read_run(out), transitions(json.loads(events.read_text()))


@pytest.fixture(scope="module")
def locking(tmp_path_factory):
    """The 3R pendulum, DOPRI5 rtol 1e-10, with each formulation and the naive lock."""
    tmp = tmp_path_factory.mktemp("locks")
    runs = {}
    for method in ("minimal", "full", "projected", "naive"):
        runs[method] = simulate(
            tmp,
            "pendulum_3r",
            with_events=True,
            t_end=2.0,
            lock=LOCKS,
            transition=method,
            method="dopri5",
            rtol=1e-10,
            atol=1e-12,
        )
    return runs


def test_three_formulations_give_the_same_jump(locking):
    ref = transitions(locking["minimal"][2])
    assert [e["target"] for e in ref] == ["q2", "q3"]
    for method in ("full", "projected"):
        for a, b in zip(ref, transitions(locking[method][2])):
            for name in ("q1", "q2", "q3"):
                assert abs(a["dv"][name] - b["dv"][name]) <= 1e-12, (method, name)


def test_locked_joints_stay_locked(locking):
    _, run, _ = locking["minimal"]
    for name, t_lock in (("q2", 0.8), ("q3", 1.3)):
        after = run["t"] >= t_lock
        i0 = rows_at(run, t_lock)[-1]  # the row after the jump
        assert np.all(run[f"v.{name}"][i0:] == 0.0)  # exactly zero
        assert np.abs(run[f"x.{name}"][after] - run[f"x.{name}"][i0]).max() <= 1e-12


def test_free_joint_momenta_are_continuous(locking):
    for e in transitions(locking["minimal"][2]):
        before, after = np.array(e["momenta_before"]), np.array(e["momenta_after"])
        assert np.abs(after - before).max() <= 1e-10 * np.abs(before).max()


def test_energy_constant_between_events_and_drops_by_the_jump(locking):
    summary, run, events = locking["minimal"]
    assert summary["energy_drift_rel"] <= 1e-8  # measured from each event's level on
    model = load_model(ROOT / "models" / "pendulum_3r.yaml")
    cm = CompiledModel(model)
    for e in transitions(events):
        i = rows_at(run, e["t"])[0]
        x = np.array([run[f"x.{c}"][i] for c in ("q1", "q2", "q3")])
        dv = np.array([e["dv"][c] for c in ("q1", "q2", "q3")])
        M = cm.M(x, e["t"])
        lost = e["kinetic_before"] - e["kinetic_after"]
        assert lost == pytest.approx(0.5 * dv @ M @ dv, rel=1e-10)
        assert lost > 0


def test_naive_locking_loses_momentum_as_measured_on_simbody(locking):
    """Zeroing the locked rate (Simbody's lock()): the free joints' momentum drops 8.7 % at the
    first lock and 45 % at the second (the P2b target, docs/explanation/performance.md), 258.6 J at
    the first.
    """
    naive = transitions(locking["naive"][2])
    drops = [1 - abs(e["momenta_after"][0]) / abs(e["momenta_before"][0]) for e in naive]
    assert 0.08 < drops[0] < 0.095 and 0.44 < drops[1] < 0.47, drops
    assert naive[0]["kinetic_before"] - naive[0]["kinetic_after"] == pytest.approx(258.6, abs=0.1)
    final = {k: locking[k][1]["x.q1"][-1] for k in ("minimal", "naive")}
    assert abs(final["minimal"] - final["naive"]) > 0.1  # a different final state


def test_unlock_changes_no_velocity(tmp_path):
    summary, run, events = simulate(
        tmp_path,
        "pendulum_3r",
        with_events=True,
        t_end=1.5,
        lock=["q2@0.5"],
        unlock=["q2@1.0"],
        method="dopri5",
        rtol=1e-10,
        atol=1e-12,
    )
    (unlock,) = [e for e in transitions(events) if e["kind"] == "unlock"]
    assert all(v == 0 for v in unlock["dv"].values())
    i, j = rows_at(run, 1.0)[:2]
    for c in ("q1", "q2", "q3"):
        assert run[f"v.{c}"][i] == run[f"v.{c}"][j]
    assert summary["energy_drift_rel"] <= 1e-8
    assert run["v.q2"][-1] != 0  # the joint moves again


def test_locking_the_last_freedom_of_a_closed_loop_stops_it(tmp_path):
    """The double four-bar has one DOF: locking bar 1's angle stops it, exactly."""
    summary, run, events = simulate(
        tmp_path,
        "double_four_bar",
        with_events=True,
        t_end=0.6,
        lock=["bar1.theta@0.3"],
    )
    (lock,) = transitions(events)
    assert lock["dof_after"] == 0
    i0 = rows_at(run, 0.3)[-1]
    vcols = [c for c in run if c.startswith("v.")]
    assert max(np.abs(run[c][i0:]).max() for c in vcols) <= 1e-12
    assert run["c_norm"][i0:].max() <= 1e-10
    assert summary["ok"]


def test_bad_lock_options_are_one_line_errors(cli):
    proc = cli("simulate", "pendulum_3r", "--lock", "nowhere@1")
    assert proc.returncode == 2 and "unknown coordinate" in proc.stderr
    proc = cli("simulate", "pendulum_3r", "--unlock", "q2@1")
    assert proc.returncode == 2 and "not locked" in proc.stderr


def test_model_file_switches_and_events_run_as_the_command_line_locks(tmp_path):
    """pendulum_3r_locking declares 004 §6's locks in its file (switches, events at 0.8 and 1.3
    s, RK4 h = 1e-4): the same run as pendulum_3r with --lock on the command line."""
    _, from_file, ev_file = simulate(tmp_path, "pendulum_3r_locking", with_events=True)
    _, from_cli, ev_cli = simulate(
        tmp_path, "pendulum_3r", with_events=True, t_end=2.0, lock=LOCKS, method="rk4", h=1e-4
    )
    assert [e["t"] for e in transitions(ev_file)] == [0.8, 1.3]
    for c in ("x.q1", "x.q2", "x.q3", "v.q1"):
        assert np.abs(from_file[c] - from_cli[c]).max() <= 1e-12, c
    for a, b in zip(transitions(ev_file), transitions(ev_cli)):
        assert a["dv"] == pytest.approx(b["dv"], abs=1e-13)


CONDITION = """
switches:
  - {name: lock3, lock: q3}
events:
  - {when: q3_dot, direction: falling, activate: lock3}
"""


@pytest.mark.parametrize(
    "options",
    # make test-slow: the located event with a dense output written every 10 ms (the same search)
    [{}, pytest.param({"dt_out": 0.01}, marks=pytest.mark.slow), {"method": "rk4", "h": 1e-3}],
)
def test_condition_event_locks_when_the_rate_crosses_zero(tmp_path, monkeypatch, options):
    """`when: q3_dot, direction: falling`: the lock happens where the dense output's q3_dot is 0
    (to 1e-10 s), so the rate barely jumps (<= 1e-8) and the rest of the run keeps it locked."""
    text = (ROOT / "models" / "pendulum_3r.yaml").read_text()
    text = text.replace("name: pendulum_3r\n", "name: p3when\n") + CONDITION
    _, run, (lock,) = run_tmp_model(tmp_path, monkeypatch, "p3when", text, dict(options, t_end=1.0))
    i_before, i_after = rows_at(run, lock["t"])[:2]
    rate_scale = np.abs(run["v.q3"]).max()
    # the state at the located time has q3_dot = 0: the time is the root to ~1e-10 s
    assert abs(run["v.q3"][i_before]) <= 1e-10 * rate_scale * 10
    assert max(abs(v) for v in lock["dv"].values()) <= 1e-8
    assert np.all(run["v.q3"][i_after:] == 0)
    # before the event q3_dot was positive, falling through 0 there
    assert run["v.q3"][i_before - 1] > 0


def test_momenta_columns_and_plot(tmp_path):
    """simulate --momenta writes P = T'M v per row (checked against the basis columns and the
    compiled M); plot --momenta draws them with the event times marked (004 Fig. 4a)."""
    from mcsgen.outputs.plot import event_times, plot_runs

    summary, run, events = simulate(
        tmp_path, "pendulum_3r_locking", with_events=True, momenta=True, basis=True, dt_out=0.05
    )
    cm = CompiledModel(load_model(ROOT / "models" / "pendulum_3r_locking.yaml"))
    names = ("q1", "q2", "q3")
    for i in (3, len(run["t"]) - 1):  # before the locks (3 DOF) and after both (1 DOF)
        x = np.array([run[f"x.{c}"][i] for c in names])
        v = np.array([run[f"v.{c}"][i] for c in names])
        f = 3 - int(run["rank"][i])
        T = np.array([[run[f"T{j + 1}.{c}"][i] for j in range(f)] for c in names])
        expected = T.T @ cm.M(x, run["t"][i]) @ v
        got = np.array([run[f"p{j + 1}"][i] for j in range(f)])
        np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-9)
    csv = sorted(tmp_path.glob("pendulum_3r_locking_*.csv"))[0]
    assert event_times(csv) == [0.8, 1.3]
    (png,) = plot_runs([csv], tmp_path / "momenta.png", momenta=True)
    assert png.stat().st_size > 10000


def test_bodies_and_coordinates_versions_agree(tmp_path):
    """pendulum_3r_bodies (planar bodies, revolute joints, `lock: J2` and `lock: J3`) and
    pendulum_3r_locking (joint angles, coordinate locks): the same joint angles to 1e-9."""
    _, bodies, ev_b = simulate(tmp_path, "pendulum_3r_bodies", with_events=True, dt_out=0.05)
    _, coords, _ = simulate(tmp_path, "pendulum_3r_locking", with_events=True, dt_out=0.05)
    assert [e["target"] for e in transitions(ev_b)] == ["J2", "J3"]
    th = [bodies[f"x.link{i}.theta"] for i in (1, 2, 3)]
    angles = {"q1": th[0] + np.pi / 2, "q2": th[1] - th[0], "q3": th[2] - th[1]}
    assert len(bodies["t"]) == len(coords["t"])
    for name, q in angles.items():
        assert np.abs(q - coords[f"x.{name}"]).max() <= 1e-9, name


def test_locking_a_hinge_of_a_closed_loop_stops_it(tmp_path, monkeypatch):
    """A switch on one hinge of the double four-bar (a 1-DOF closed loop) stops it: every velocity
    exactly 0 after the lock, the constraints still hold."""
    text = (ROOT / "models" / "double_four_bar.yaml").read_text()
    text = text.replace("name: double_four_bar\n", "name: dfb_brake\n")
    text += "switches:\n  - {name: brake, lock: O1}\nevents:\n  - {at: 0.3, activate: brake}\n"
    _, run, (lock,) = run_tmp_model(tmp_path, monkeypatch, "dfb_brake", text, {"t_end": 0.6})
    assert lock["target"] == "O1" and lock["dof_after"] == 0 and lock["dependent"] == 0
    assert lock["kinetic_after"] == 0
    i0 = rows_at(run, 0.3)[-1]
    assert max(np.abs(run[c][i0:]).max() for c in run if c.startswith("v.")) == 0
    assert run["c_norm"][i0:].max() <= 1e-10


def test_joint_locks_that_are_not_supported_yet_are_refused(tmp_path):
    from mcsgen.errors import ModelError

    text = (ROOT / "models" / "pendulum_kc.yaml").read_text()
    path = tmp_path / "pendulum_kc.yaml"
    path.write_text(text + "switches:\n  - {name: s, lock: nowhere}\n")
    with pytest.raises(ModelError, match="unknown coordinate or joint 'nowhere'"):
        load_model(path)
