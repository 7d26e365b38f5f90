"""What `./mcsgen simulate` reports about a run (issue 34): whole turns of the joint columns with
sparse output rows; a damped robot's run that returns at once (the energy's balance is the
model's, decided at generation, not a symbolic expansion after the run); an unstable run of a
model that cannot gain energy, or one retaken on most steps, is not ok and says what to do."""

import csv
import math
import subprocess
import time
from fractions import Fraction

import pytest

import mcsgen
from mcsgen.paths import MODELS, ROOT
from mcsgen.urdf import import_urdf

SPINNER = """\
name: spinner
description: a planar disc turning about its centre on a revolute joint, no gravity
parameters:
  m: {value: 1.0, unit: kg, description: mass}
  J: {value: 0.5, unit: kg m^2, description: inertia about the centre}
gravity: [0, 0]
bodies:
  - {name: disc, type: planar, mass: m, inertia: J, angle: 0, position: [0, 0]}
joints:
  - {name: hub, type: revolute, body1: disc, body2: ground, point: [0, 0], rate: RATE}
simulation:
  t_end: 1.0
  h: 1.0e-3
  method: rk4
"""


def read_csv(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def test_joint_angles_count_whole_turns_between_sparse_rows(cli, write_model, tmp_path):
    """A disc turning at 2.5 turns/s, rows every 0.3 s (0.75 of a turn apart, more than half a
    turn): j.hub is the angle turned, 5 pi t, not the angle less the turns between rows."""
    for rate in ("5*pi", "-5*pi"):
        model = write_model(SPINNER.replace("RATE", rate), "spinner")
        out = tmp_path / "spin.csv"
        proc = cli("simulate", model, "--dt-out", "0.3", "--out", out)
        assert proc.returncode == 0, proc.stderr
        rows = read_csv(out)
        assert len(rows) == 4
        sign = -1 if rate.startswith("-") else 1
        for row in rows:
            turned = sign * 5 * math.pi * float(row["t"])
            assert abs(float(row["j.hub"]) - turned) < 1e-9, (row["t"], row["j.hub"])
            assert abs(float(row["jd.hub"]) - sign * 5 * math.pi) < 1e-9


@pytest.fixture(scope="module")
def light_arm(tmp_path_factory):
    """models/urdf/double_pendulum.urdf with joint damping on both joints and a light lower bar
    (10 g, 1e-4 kg m^2 about its centre): its elbow damper decays motion at about 4e3 1/s, too
    fast for RK4 at h = 0.8 ms. Imported, generated and built once."""
    text = (MODELS / "urdf" / "double_pendulum.urdf").read_text()
    text = text.replace('damping="0"', 'damping="0.05"')
    text = text.replace('<mass value="0.5"/>', '<mass value="0.01"/>')
    text = text.replace(
        'ixx="0.0417" ixy="0" ixz="0" iyy="0.0417" iyz="0" izz="0.0001"',
        'ixx="1e-4" ixy="0" ixz="0" iyy="1e-4" iyz="0" izz="1e-6"',
    )
    elbow = '<axis xyz="0 1 0"/>\n  </joint>\n  <joint name="tip_joint"'
    assert elbow in text
    text = text.replace(
        elbow, elbow.replace("\n  </joint>", '\n    <dynamics damping="10"/>\n  </joint>')
    )
    folder = tmp_path_factory.mktemp("light_arm")
    (folder / "light_arm.urdf").write_text(text)
    path, notes = import_urdf(
        folder / "light_arm.urdf",
        folder / "light_arm.yaml",
        q={"shoulder": Fraction(1)},
        qd={"elbow": Fraction(2)},
        # body coordinates: the chart's Newton is what fails at 1 ms (in joint coordinates
        # there are no rows and RK4 at 0.8 ms is past its stability limit outright)
        coordinates="body",
        limits="comments",
    )
    assert any(n.startswith("warning: joint 'elbow'") for n in notes)  # import-urdf warns
    mechanism = mcsgen.load(path)
    assert mechanism.model.energy.kind == "dissipated"
    return path, mechanism.build()


def test_a_damped_robot_run_returns_at_once(light_arm):
    """Issue 34, item 1: `simulate` of a damped robot printed its summary and then spent minutes
    to hours in sympy.expand deciding whether the energy is conserved. The run below loses 8 %
    of its energy to its dampers (more than the 1 % that asked the question)."""
    path, _ = light_arm
    start = time.monotonic()
    out = subprocess.run(
        [str(ROOT / "mcsgen"), "simulate", str(path), "--t-end", "1", "--h", "2e-4",
         "--dt-out", "0.01", "--out", str(path.parent / "run.csv")],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    took = time.monotonic() - start
    assert out.returncode == 0, out.stdout + out.stderr
    assert "(dissipated)" in out.stdout and "warning" not in out.stderr
    assert took < 120, f"simulate took {took:.0f} s"  # generated and compiled already: seconds


def test_an_unstable_run_of_a_dissipative_model_is_not_ok(cli, light_arm):
    """Issue 34, item 3: RK4 at 0.7 ms on the stiff damper gains energy in a model that can only
    lose it; the run reaches its end, but is not ok, and says why and what to do. (At 0.8 ms the
    growth now ends the run early, a singular chart: the unstable steps amplify any change, and
    the start pose is now placed by the generator from import-urdf's start:; 0.6 ms is stable.)"""
    path, solver = light_arm
    good = solver.simulate(t_end=0.5, h=2e-4)
    assert good.ok and good.summary["problems"] == []
    assert good.summary["energy_rise"] < 1e-9 * good.summary["energy_scale"]
    bad = solver.simulate(t_end=0.5, h=7e-4)
    assert bad.summary["status"] == "ok" and bad.t[-1] == 0.5  # the run went through
    assert not bad.ok
    problem = bad.summary["problems"][0]  # (retakes on most steps may be said after it)
    assert problem.startswith("the energy rose by") and "can only decrease" in problem
    assert "take a smaller --h (now 0.0007 s), or --method dopri5" in problem
    assert bad.summary["energy_rise"] > 0.01 * bad.summary["energy_scale"]
    assert bad.energy[-1] > bad.energy[0]  # more than it started with: the dampers gave energy
    out = cli("simulate", path, "--t-end", "0.5", "--h", "7e-4", "--out", path.parent / "b.csv")
    assert out.returncode == 1
    assert "  NOT OK: the energy rose by" in out.stdout


def test_retakes_on_most_steps_are_said(light_arm):
    """At 1 ms the stiff damper makes the chart's Newton fail on most steps: each is retaken
    shorter (a detour) until the run stops. The summary says so, with what to do."""
    _, solver = light_arm
    run = solver.simulate(t_end=0.5, h=1e-3)
    s = run.summary
    assert not run.ok and s["detours"] + s["rejected"] > s["steps"]
    assert any(
        p.startswith(f"{s['detours'] + s['rejected']} steps were retaken for {s['steps']}")
        and "too long for this model" in p
        for p in s["problems"]
    ), s["problems"]


def test_json_goes_alone_to_stdout(cli, tmp_path):
    """Issue 34, item 9: `simulate --json` printed the human summary before the JSON, so stdout
    could not be piped to a JSON reader. The JSON is stdout's only content; the human summary goes
    to stderr."""
    import json

    out = cli(
        "simulate", "spatial_pendulum", "--t-end", "0.1", "--json", "--out", tmp_path / "r.csv"
    )
    assert out.returncode == 0
    summary = json.loads(out.stdout)
    assert summary["model"] == "spatial_pendulum" and summary["ok"] is True
    assert summary["energy_balance"] == "conserved"
    assert "spatial_pendulum: rk4" in out.stderr and f"CSV: {tmp_path / 'r.csv'}" in out.stderr


def test_energy_lost_at_locks_is_reported(cli, tmp_path):
    """Issue 34, item 9: the summary's max |E - E0| restarts at every lock, so a naive lock that
    destroys hundreds of joules showed a drift of 1e-11 and nothing else. The energy the
    transitions changed is now a line of its own (and energy_transitions in the JSON)."""
    import json

    runs = {}
    for transition in ("minimal", "naive"):
        out = cli("simulate", "pendulum_3r_bodies", "--transition", transition, "--json",
                  "--out", tmp_path / f"{transition}.csv")  # fmt: skip
        assert out.returncode == 0, out.stderr
        runs[transition] = s = json.loads(out.stdout)
        jumps = sum(t["kinetic_after"] - t["kinetic_before"] for t in s["transitions"])
        assert len(s["transitions"]) == 2 and s["energy_transitions"] == pytest.approx(jumps)
        assert f"energy changed by {s['energy_transitions']:.6g} at the 2 transition(s)" in (
            out.stderr
        )
        assert s["energy_drift_rel"] < 1e-8  # between the transitions: round-off
    # 004 §5: the momentum-consistent jump loses energy (1/2 dv' M dv); zeroing the locked rate
    # of body coordinates without the momentum balance even makes some (43 J)
    assert -40 < runs["minimal"]["energy_transitions"] < -30
    assert runs["naive"]["energy_transitions"] > 40


def test_a_model_path_without_its_suffix(cli, tmp_path, monkeypatch):
    """Issue 34, item 9: `simulate models/slider_crank` looked for models/models/slider_crank.yaml.
    A path without .yaml is the file with it; a bare name is a shipped model's."""
    from mcsgen.paths import MODELS, model_path

    monkeypatch.chdir(ROOT)
    assert model_path("models/slider_crank").resolve() == MODELS / "slider_crank.yaml"
    assert model_path("slider_crank") == MODELS / "slider_crank.yaml"
    assert model_path(tmp_path / "arm") == tmp_path / "arm.yaml"  # named, not found: said later
    out = cli("simulate", "models/spatial_pendulum", "--t-end", "0.01", "--out", tmp_path / "r.csv")
    assert out.returncode == 0 and out.stdout.startswith("spatial_pendulum: "), out.stderr
    out = cli("simulate", "models/no_such_model", "--t-end", "0.01")
    assert out.returncode == 2 and "models/no_such_model.yaml" in out.stderr
    assert "models/models" not in out.stderr


def test_a_csv_of_gigabytes_is_said(tmp_path, monkeypatch):
    """Issue 34, item 9: a 400 s run of a robot at 0.1 ms without --dt-out silently wrote 5.1 GB
    of CSV. When the rows are known before the run (RK4, or --dt-out) the size is said before it
    starts; an adaptive run's CSV is said when it passes the size."""
    import mcsgen.api as api
    from mcsgen.cli.simulate import csv_size_warning
    from mcsgen.model import load_model
    from mcsgen.paths import model_path

    puma = load_model(model_path("puma560_estop"))  # 42 coordinates: 220 columns
    # the columns are the simulator's own header (runtime/app/mcs_simulate_output.c), with the
    # size of its first rows, as the command line passes them: taken here from a short run
    headers = []
    mcsgen.load("puma560_estop").build().simulate_to_files(
        tmp_path / "p.csv",
        tmp_path / "p.events.json",
        header=lambda *told: headers.append(told),
        t_end=0.05,
        method="rk4",
        h=1e-3,
    )
    ((header, row_bytes),) = headers
    assert header.count(",") + 1 == 220 and 220 * 10 < row_bytes < 220 * 24
    rk4 = {"t_end": 400.0, "h": 1e-4, "method": "rk4", "max_steps": 10_000_000}
    (line,) = csv_size_warning(puma, rk4, header, row_bytes)
    assert line.startswith(f"the CSV will be about {4e6 * row_bytes / 2**30:.1f} GiB (4e+06 rows")
    assert line.endswith("give --dt-out to write fewer rows")
    # more rows than --max-steps (default 1e6): the run is refused, and only that is said
    assert csv_size_warning(puma, {**rk4, "max_steps": None}, header, row_bytes) == []
    dt_out = {"t_end": 400.0, "h": 1e-4, "method": "rk4", "dt_out": 0.01}
    assert csv_size_warning(puma, dt_out, header, row_bytes) == []
    adaptive = {"t_end": 400.0, "method": "dopri5"}
    assert csv_size_warning(puma, adaptive, header, row_bytes) == []  # told on the way
    monkeypatch.setattr(api, "LARGE_CSV", 20_000)
    said = []
    solver = mcsgen.load("spatial_pendulum").build()
    solver.simulate_to_files(
        tmp_path / "r.csv", tmp_path / "r.events.json", large=said.append, t_end=1.0
    )
    assert len(said) == 1 and said[0] > 20_000  # once, with the size passed (64 KiB pieces)


def test_the_size_said_is_the_size_written(tmp_path):
    """Issue 60: `--dt-out 1e-9 --t-end 0.001` warned "about 1.1 GiB" and wrote 848 MB (22
    characters counted for every value, where most print shorter). The size is now told from the
    run's first rows: here within 5 % of what the run writes (rows at --dt-out, and a step's)."""
    solver = mcsgen.load("double_four_bar").build()
    for options in ({"dt_out": 1e-3}, {"method": "rk4", "h": 1e-3}):
        told = []
        out = tmp_path / "d.csv"
        solver.simulate_to_files(
            out,
            tmp_path / "d.events.json",
            header=lambda line, row_bytes: told.append(row_bytes),
            t_end=2.0,
            **options,
        )
        rows = 2.0 / 1e-3
        header = len(out.read_text().split("\n", 1)[0]) + 1
        assert abs(rows * told[0] + header - out.stat().st_size) <= 0.05 * out.stat().st_size, (
            options,
            rows * told[0],
            out.stat().st_size,
        )


def test_a_run_whose_energy_overflows_is_summarized(tmp_path, cli):
    """Issue 60: an unstable run whose energy overflows (the damped 7-DOF arm with RK4 at 11 ms:
    its state still finite, its energy beyond the largest double) printed `inf` and `-nan` in
    its summary, which is not JSON: simulate died with a JSONDecodeError traceback. Now the
    summary says where it stopped and --json writes strict JSON, null for what overflowed."""
    import json

    path, _ = import_urdf(
        MODELS / "urdf" / "damped_arm.urdf", tmp_path / "damped_arm.yaml", limits="comments"
    )
    proc = cli(
        "simulate", path, "--method", "rk4", "--h", "0.011", "--t-end", "2", "--json",
        "--out", tmp_path / "arm.csv",
    )  # fmt: skip
    assert proc.returncode == 1 and "Traceback" not in proc.stderr, proc.stderr
    assert "stopped: non-finite value" in proc.stderr and "max |E - E0| = inf" in proc.stderr
    summary = json.loads(proc.stdout, parse_constant=pytest.fail)  # no NaN, no Infinity
    assert summary["ok"] is False and summary["energy_drift"] is None
    assert math.isfinite(summary["energy0"]) and summary["t_reached"] < 2


def test_options_the_run_will_not_use_are_said(tmp_path, cli):
    """Issue 60: `--method rk4 --rtol 1e-6` ignored the tolerance and `--lock A@5` on a 2 s run
    never happened, both silently. The run goes on, and a warning says which option it does not
    use and why; options it uses say nothing."""
    out = tmp_path / "sp.csv"
    proc = cli(
        "simulate", "spatial_pendulum", "--method", "rk4", "--rtol", "1e-6", "--t-end", "0.5",
        "--lock", "x@3", "--out", out,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    warnings = [line for line in proc.stderr.splitlines() if "warning" in line]
    assert warnings == [
        "mcsgen: warning: --rtol is not used: rk4 takes fixed steps of --h (0.001 s); the "
        "adaptive methods (dopri5, dop853, ros34pw2) take tolerances",
        "mcsgen: warning: --lock x@3: after the run's end (t_end = 0.5 s): it does not happen",
    ]
    proc = cli(
        "simulate", "spatial_pendulum", "--method", "dopri5", "--rtol", "1e-6", "--t-end", "0.5",
        "--lock", "x@0.3", "--out", out,
    )  # fmt: skip
    assert proc.returncode == 0 and "warning" not in proc.stderr, proc.stderr
