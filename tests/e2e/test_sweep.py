"""Sweeps on Dask (issue 39; mcsgen/sweep/, ./mcsgen sweep, Solver.sweep):

- a sweep on a real LocalCluster of two worker processes gives, run by run, bit for bit the
  numbers of the serial loop of Solver.simulate (grid and seeded samples; final values, maxima,
  event times, the energy each lock takes, a Python reducer), and so does statics and modes;
- a dask-scheduler and two dask-worker processes on 127.0.0.1, started here without mcsgen on
  their path: a sweep through --scheduler loses one worker (SIGKILL) midway and still has every
  run exactly once, each the serial loop's numbers;
- a run that fails (assembly, a singular mass matrix, the per-run timeout) is a row with its
  status, not the end of the sweep; Ctrl-C leaves a valid partial CSV and --resume completes it
  without running the finished runs again;
- bad input (an unknown parameter, an empty range, a bad distribution, an unreachable
  scheduler): one line naming the option, exit 2, nothing written.
"""

import csv
from fractions import Fraction
import json
import math
import os
import signal
import subprocess
import time

import numpy as np
import pytest

import mcsgen

from conftest import ROOT, run_cli

LOCKING = "pendulum_3r_locking"  # q1..q3, locks of q2 at 0.8 s and q3 at 1.3 s (004 P2b)
OPTIONS = dict(method="dopri5", rtol=1e-6, atol=1e-8)  # 58 steps: a run takes milliseconds
OPTIONS_CLI = ["--method", "dopri5", "--rtol", "1e-6", "--atol", "1e-8"]
QUANTITIES = ["final(x.q1)", "max(v.q3)", "t_event(2)", "energy_lost(1)", "energy_lost(2)"]


def serial_loop(solver, design_rows, **options):
    """What a user writes without sweeps: Solver.simulate per parameter set, reduced by hand."""
    out = []
    for params in design_rows:
        run = solver.simulate(params=params, **options)
        locks = [e for e in run.events if e.kind == "lock"]
        out.append(
            {
                "final(x.q1)": run.x[-1, 0],
                "max(v.q3)": np.nanmax(run.v[:, 2]),
                "t_event(2)": run.events[1].t,
                "energy_lost(1)": locks[0].kinetic_before - locks[0].kinetic_after,
                "energy_lost(2)": locks[1].kinetic_before - locks[1].kinetic_after,
                "peak": float(np.max(np.abs(run.columns["v.q2"]))),
            }
        )
    return out


@pytest.fixture(scope="module")
def solver():
    return mcsgen.load(LOCKING).build()


def peak_rate(run):
    return {"peak": float(np.max(np.abs(run.columns["v.q2"])))}


def test_local_cluster_gives_the_serial_loops_numbers_bit_for_bit(solver, tmp_path):
    kw = dict(
        grid={"L": "0.8:1.2:3", "m": [100.0, 116.0]},
        samples={"J": "truncnormal(9.36,0.5,8,11)"},
        count=3,
        seed=11,
        quantities=QUANTITIES,
        reduce=peak_rate,
        **OPTIONS,
    )
    clustered = solver.sweep(workers=2, batch=2, out=tmp_path / "c.csv", **kw)
    serial = solver.sweep(workers=0, **kw)
    assert clustered.summary["where"] == "LocalCluster of 2 worker processes"
    assert len(clustered.rows) == 18 and all(clustered.ok)
    design = [{k: r[k] for k in ("L", "m", "J")} for r in clustered.rows]
    assert [r["run"] for r in clustered.rows] == list(range(18))
    expected = serial_loop(solver, design, **OPTIONS)
    for got, alone, want in zip(clustered.rows, serial.rows, expected):
        for name, value in want.items():
            assert got[name] == value == alone[name], (got["run"], name)
    # the rows really differ from run to run (a sweep of one run repeated would pass the above)
    assert len({r["energy_lost(2)"] for r in clustered.rows}) == 18
    # the CSV holds the same numbers, to the bit, in run order
    with open(tmp_path / "c.csv", newline="") as fh:
        table = list(csv.DictReader(fh))
    assert [int(r["run"]) for r in table] == list(range(18))
    for row, got in zip(table, clustered.rows):
        assert float(row["energy_lost(2)"]) == got["energy_lost(2)"]
        assert float(row["peak"]) == got["peak"]
    summary = json.loads((tmp_path / "c.json").read_text())
    assert summary["complete"] and summary["ok"] == 18 and summary["failed"] == 0
    assert summary["stats"]["t_event(2)"]["min"] == summary["stats"]["t_event(2)"]["max"] == 1.3


def test_statics_and_modes_sweeps_match_the_analyses_one_by_one(tmp_path):
    """A pendulum under K_c (003): its frequency goes as sqrt(g), its equilibrium holds the
    weight, so each run's numbers show its own parameters reached the analyzer."""
    solver = mcsgen.load("pendulum_kc").build()
    result = solver.sweep(
        grid={"g": [1.62, 9.81, 24.79]},
        run="modes",
        quantities=["freq(1)", "iterations"],
        workers=0,
    )
    for row in result.rows:
        modes = solver.modes(params={"g": row["g"]})
        assert row["freq(1)"] == modes.freq[0]
        assert row["iterations"] == modes.statics.iterations
    freq = result.column("freq(1)")
    np.testing.assert_allclose(freq / np.sqrt(result.column("g")), freq[1] / np.sqrt(9.81))
    assert len(set(freq)) == 3
    statics = solver.sweep(
        grid={"mass": [5.0, 15.0]}, run="statics", quantities=["lambda(1)", "residual_c"],
        workers=0,
    )  # fmt: skip
    for row in statics.rows:
        reference = solver.statics(params={"mass": row["mass"]})
        assert row["lambda(1)"] == reference.lam[0] and row["residual_c"] == reference.residual_c
    lam = statics.column("lambda(1)")
    assert lam[1] == pytest.approx(3 * lam[0], rel=1e-12)  # the multiplier carries the weight


def test_lock_times_are_design_variables(solver, tmp_path):
    """lock@NAME=T: the run's --lock NAME@T (the e-stop's brake delays), and plot of the sweep."""
    out = tmp_path / "l.csv"
    proc = run_cli(
        "sweep", LOCKING, "--param", "lock@q1=0.2:0.6:3", "--param", "unlock@q1=0.7,0.9",
        "--workers", "0", "--quantity", "final(x.q1)", "--quantity", "t_event(1)",
        "--quantity", "energy_lost(1)", "--out", out, *OPTIONS_CLI,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    rows = list(csv.DictReader(open(out, newline="")))
    assert [(r["lock@q1"], r["unlock@q1"]) for r in rows][:3] == [
        ("0.2", "0.7"), ("0.2", "0.9"), ("0.4", "0.7")
    ]  # fmt: skip
    assert all(r["status"] == "ok" for r in rows)
    for row in rows:
        t1, t2 = float(row["lock@q1"]), float(row["unlock@q1"])
        run = solver.simulate(lock=[f"q1@{t1!r}"], unlock=[f"q1@{t2!r}"], **OPTIONS)
        assert float(row["final(x.q1)"]) == run.x[-1, 0]
        assert float(row["t_event(1)"]) == run.events[0].t == t1
        assert len(run.events) == 4  # q1's lock and release, the file's q2 and q3 locks
        e = run.events[0]
        assert float(row["energy_lost(1)"]) == e.kinetic_before - e.kinetic_after
    proc = run_cli("plot", out)
    assert proc.returncode == 0 and proc.stdout.strip() == str(tmp_path / "l_against.png")
    proc = run_cli("sweep", LOCKING, "--param", "lock@nothing=0.2", "--out", out)
    assert proc.returncode == 2 and "has no coordinate or joint 'nothing'" in proc.stderr
    # four lock rows at once (the file locks q2, q3): a row "refused" per run, not an end
    args = ["--param", "lock@q1=0.2", "--param", "lock@q3=0.5", "--workers", "0", "--out", out]
    proc = run_cli("sweep", LOCKING, *args)
    assert proc.returncode == 1 and "refused: --lock: more lock rows" in proc.stdout
    proc = run_cli("sweep", LOCKING, "--param", "lock@q1=0,1", "--out", out)
    assert proc.returncode == 2 and "lock time is > 0" in proc.stderr


def test_a_monte_carlo_over_initial_states(tmp_path):
    """x0.NAME and v0.NAME: a run's --x0 NAME=V and --v0 NAME=V. 100 initial states of the
    double pendulum (imported from its URDF, joint coordinates) drawn from a seed, on a
    LocalCluster of two workers, against serial Solver.simulate runs with those states: bit for
    bit; every run starts where its row says."""
    yaml = tmp_path / "double_pendulum.yaml"
    proc = run_cli("import-urdf", ROOT / "models/urdf/double_pendulum.urdf", "--out", yaml)
    assert proc.returncode == 0, proc.stderr
    solver = mcsgen.load(yaml).build()
    names = ["x0.shoulder", "x0.elbow", "v0.shoulder", "v0.elbow"]
    quantities = [
        f"{f}({c}.{j})" for f in ("final", "max") for c in "xv" for j in ("shoulder", "elbow")
    ]
    result = solver.sweep(
        samples={n: "uniform(-1,1)" for n in names}, count=100, seed=5, t_end=0.5,
        quantities=quantities + ["steps"], workers=2, batch=10, **OPTIONS,
    )  # fmt: skip
    assert len(result.rows) == 100 and all(result.ok)
    assert len({r["final(x.elbow)"] for r in result.rows}) == 100
    for row in result.rows:
        x0 = [f"{j}={row['x0.' + j]!r}" for j in ("shoulder", "elbow")]
        v0 = [f"{j}={row['v0.' + j]!r}" for j in ("shoulder", "elbow")]
        run = solver.simulate(x0=x0, v0=v0, t_end=0.5, **OPTIONS)
        assert list(run.x[0]) == [row["x0.shoulder"], row["x0.elbow"]]
        assert list(run.v[0]) == [row["v0.shoulder"], row["v0.elbow"]]
        for k, j in enumerate(("shoulder", "elbow")):
            assert row[f"final(x.{j})"] == run.x[-1, k] and row[f"final(v.{j})"] == run.v[-1, k]
            assert (
                row[f"max(x.{j})"] == run.x[:, k].max() and row[f"max(v.{j})"] == run.v[:, k].max()
            )
        assert row["steps"] == run.summary["steps"]
    proc = run_cli("sweep", yaml, "--param", "x0.wrist=0,1", "--out", tmp_path / "w.csv")
    assert proc.returncode == 2 and "has no coordinate 'wrist'" in proc.stderr
    proc = run_cli("sweep", yaml, "--run", "statics", "--param", "x0.elbow=0,1")
    assert proc.returncode == 2 and "an initial state is for --run simulate" in proc.stderr


def test_a_failed_run_is_a_row_with_its_status(tmp_path):
    out = tmp_path / "f.csv"
    proc = run_cli(
        "sweep", "planar_pendulum", "--param", "M=0,1", "--param", "l=0,1",
        "--workers", "0", "--out", out,
    )  # fmt: skip
    assert proc.returncode == 1, proc.stderr
    rows = list(csv.DictReader(open(out, newline="")))
    status = {(r["M"], r["l"]): (r["status"], r["message"]) for r in rows}
    assert status[("1.0", "1.0")] == ("ok", "ok")
    assert status[("0.0", "1.0")] == ("failed", "reduced mass matrix not positive definite")
    assert status[("1.0", "0.0")][0] == "failed"
    assert "3 failed" in proc.stdout and "run 0 (M = 0, l = 0): failed:" in proc.stdout
    # a run longer than --timeout stops at it, its row says so, and the next runs go on
    start = time.monotonic()
    proc = run_cli(
        "sweep", "planar_pendulum", "--param", "l=1,2", "--workers", "0", "--t-end", "1000",
        "--method", "rk4", "--h", "1e-5", "--max-steps", "1000000000", "--timeout", "0.3",
        "--out", out,
    )  # fmt: skip
    assert time.monotonic() - start < 30
    rows = list(csv.DictReader(open(out, newline="")))
    assert [r["status"] for r in rows] == ["timeout", "timeout"], rows
    assert rows[0]["message"].startswith("stopped at t = ")
    assert float(rows[0]["seconds"]) < 5


def _wait_for_rows(path, count, proc, limit=120):
    start = time.monotonic()
    while time.monotonic() - start < limit:
        if proc.poll() is not None:
            raise AssertionError(f"ended early: {proc.communicate()}")
        if path.exists() and path.read_text().count("\n") > count:
            return
        time.sleep(0.05)
    raise AssertionError("no rows")


def _sweep_cli(*args, env=None, new_session=False):
    return subprocess.Popen(
        [str(ROOT / "mcsgen"), "sweep", *map(str, args)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        start_new_session=new_session,
    )


SLOW_RUNS = ["--method", "rk4", "--h", "2e-4", "--t-end", "2"]  # 10 000 steps: about 0.3 s


# make test-slow: the LocalCluster's (make test interrupts the serial loop)
@pytest.mark.parametrize("workers, n", [("0", 12), pytest.param("2", 24, marks=pytest.mark.slow)])
def test_ctrl_c_keeps_a_valid_csv_and_resume_completes_it(solver, tmp_path, workers, n):
    """Serially (Ctrl-C stops the run under way in this process) and on a LocalCluster (the
    client cancels the workers' runs; batches of 2: rows come two at a time, and Ctrl-C after
    the first few leaves most of the 24 runs to do)."""
    out = tmp_path / "r.csv"
    args = [LOCKING, "--param", f"L=0.9:1.1:{n}", "--workers", workers, "--out", out, *SLOW_RUNS]
    args += ["--quantity", "final(x.q1)"]
    if workers == "2":
        args += ["--batch", "2"]
    proc = _sweep_cli(*args, new_session=True)
    _wait_for_rows(out, 3, proc)
    os.killpg(proc.pid, signal.SIGINT)  # as a terminal's Ctrl-C: every process of the group
    started = time.monotonic()
    stdout, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 130, stderr
    assert time.monotonic() - started < 10  # not after the rest of the runs
    assert "interrupted after" in stderr and "--resume" in stderr
    text = out.read_text()
    assert text.endswith("\n")
    before = list(csv.DictReader(text.splitlines()))
    assert 3 <= len(before) < n and all(r["status"] == "ok" for r in before)
    assert not json.loads(out.with_suffix(".json").read_text())["complete"]
    # another sweep's file is not resumed (nor touched)
    other = list(args)
    other[2] = f"L=1:2:{n}"
    proc = run_cli("sweep", *other, "--resume")
    assert proc.returncode == 2 and "another sweep's" in proc.stderr, proc.stderr
    assert out.read_text() == text
    proc = run_cli("sweep", *args, "--resume")
    assert proc.returncode == 0, proc.stderr
    after = list(csv.DictReader(open(out, newline="")))
    assert [int(r["run"]) for r in after] == list(range(n))
    finished = {r["run"]: r for r in before}
    for row in after:  # the finished runs kept as they were (their wall time too): not rerun
        if row["run"] in finished:
            assert row == finished[row["run"]]
    summary = json.loads(out.with_suffix(".json").read_text())
    assert summary["complete"] and summary["ok"] == n
    assert math.isclose(summary["runs_per_second"] * summary["seconds"], n - len(before))
    values = serial_loop_final(solver, [float(r["L"]) for r in after])
    assert [float(r["final(x.q1)"]) for r in after] == values


def serial_loop_final(solver, lengths):
    opts = dict(method="rk4", h=2e-4, t_end=2.0)
    return [solver.simulate(params={"L": L}, **opts).x[-1, 0] for L in lengths]


def test_a_scheduler_and_two_workers_one_killed_midway(solver, tmp_path):
    """Separate processes, as on a cluster: the workers' environment has no mcsgen (the worker
    module travels by value, the solver as bytes)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["PYTHONPATH"] = ""
    file = tmp_path / "scheduler.json"
    procs = [
        subprocess.Popen(
            ["/usr/bin/dask-scheduler", "--host", "127.0.0.1", "--port", "0",
             "--no-dashboard", "--scheduler-file", str(file)],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, cwd=tmp_path,
        )  # fmt: skip
    ]
    try:
        start = time.monotonic()
        while not file.exists() and time.monotonic() - start < 60:
            time.sleep(0.1)
        time.sleep(0.2)
        address = json.loads(file.read_text())["address"]
        for _ in range(2):
            procs.append(
                subprocess.Popen(
                    ["/usr/bin/dask-worker", address, "--nthreads", "1", "--no-nanny",
                     "--no-dashboard", "--local-directory", str(tmp_path)],
                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, cwd=tmp_path,
                )  # fmt: skip
            )
        from distributed import Client

        with Client(address, timeout="30s") as client:
            client.wait_for_workers(2, timeout=60)
            found = client.run(lambda: __import__("importlib.util").util.find_spec("mcsgen"))
            assert list(found.values()) == [None, None]  # the workers have no mcsgen
        out = tmp_path / "k.csv"
        sweep = _sweep_cli(
            LOCKING, "--param", "L=0.9:1.1:16", "--scheduler", address, "--batch", "1",
            "--out", out, "--quantity", "final(x.q1)", *SLOW_RUNS,
        )  # fmt: skip
        _wait_for_rows(out, 3, sweep)
        procs[1].kill()  # a worker lost with the runs it had started
        stdout, stderr = sweep.communicate(timeout=300)
        assert sweep.returncode == 0, stderr
        rows = list(csv.DictReader(open(out, newline="")))
        assert [int(r["run"]) for r in rows] == list(range(16))
        assert all(r["status"] == "ok" for r in rows)
        lengths = [float(r["L"]) for r in rows]  # 0.9 + 0.2 k / 15, each rounded once
        assert lengths[2] == float(Fraction(9, 10) + Fraction(2, 10) * Fraction(2, 15))
        assert [float(r["final(x.q1)"]) for r in rows] == serial_loop_final(solver, lengths)
        assert f"on scheduler {address}" in stdout
    finally:
        for p in procs:
            p.kill()
            p.wait()


@pytest.mark.parametrize(
    "args, message",
    [
        (["--param", "zz=1:2:3"], "--param zz: unknown parameter of planar_pendulum"),
        (["--param", "l=1:2:0"], "--param l=1:2:0: empty range"),
        (["--sample", "l=gauss(1,2)", "--samples", "5"], "--sample l=gauss(1,2): expected"),
        (
            ["--param", "l=1,2", "--scheduler", "tcp://127.0.0.1:9"],
            "--scheduler tcp://127.0.0.1:9: cannot reach the scheduler (connection refused)",
        ),
        # it used to fail after 20 s with Dask's traceback under the message
        (
            ["--param", "l=1,2", "--scheduler", "127.0.0.1:port"],
            "--scheduler 127.0.0.1:port: expected tcp://HOST:PORT, PORT a number 1..65535",
        ),
        (["--param", "l=1,2", "--quantity", "final(x.nope)"], "--quantity final(x.nope)"),
    ],
)
def test_bad_input_is_one_line_exit_2_and_nothing_written(tmp_path, args, message):
    out = tmp_path / "sub" / "b.csv"
    proc = run_cli("sweep", "planar_pendulum", *args, "--out", out, cwd=tmp_path)
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"mcsgen: {message}"), proc.stderr
    assert "Traceback" not in proc.stderr and proc.stdout == ""
    assert os.listdir(tmp_path) == []  # neither the CSV's folder nor out/


def test_a_closed_port_is_refused_at_once_and_a_listening_one_is_left_to_dask():
    """A closed port used to be retried by Dask for its connect timeout (10 s) before the
    message; one that listens is not judged here."""
    import socket

    from mcsgen.sweep.runner import _bad_port, _refused

    with socket.socket() as listening:
        listening.bind(("127.0.0.1", 0))
        listening.listen()
        port = listening.getsockname()[1]
        assert not _refused(f"tcp://127.0.0.1:{port}") and not _refused(f"127.0.0.1:{port}")
    assert _refused(f"tcp://127.0.0.1:{port}")  # closed now
    assert not _refused("tls://127.0.0.1:9") and not _refused("tcp://127.0.0.1")
    assert _bad_port("tcp://h:x") and _bad_port("h:0") and _bad_port("h:65536")
    assert not _bad_port("tcp://h:8786") and not _bad_port("tcp://h") and not _bad_port("ucx://h:x")


def test_sweep_is_in_the_cli_help():
    proc = run_cli("sweep", "--help")
    assert proc.returncode == 0 and "--scheduler" in proc.stdout and "--resume" in proc.stdout


def test_a_reducer_that_raises_is_that_runs_row(solver):
    def fragile(run):
        if run.params["L"] > 1.0:
            raise ValueError("too long")
        return float(run.columns["x.q1"][-1])

    result = solver.sweep(
        grid={"L": [0.9, 1.1]}, quantities=[], reduce=fragile, workers=0, **OPTIONS
    )
    assert [r["status"] for r in result.rows] == ["ok", "error"]
    assert result.rows[1]["message"] == "ValueError: too long"
    assert result.rows[0]["value"] == solver.simulate(params={"L": 0.9}, **OPTIONS).x[-1, 0]
    assert result.header == ["run", "status", "message", "L", "value", "seconds"]


def test_api_refusals_name_the_option(solver):
    for kw, message in [
        (dict(grid={"L": [1.0]}, out_file="x"), "unknown option 'out_file'"),
        (dict(grid={"L": [1.0]}, run="modes", t_end=1.0), "unknown option 't_end'"),
        (dict(grid={"L": [1.0]}, kkt=True), "'kkt' is an option of statics and modes"),
        (dict(grid={"L": [1.0]}, workers=-1), "--workers: a whole number >= 0"),
        (dict(grid={"L": [1.0]}, timeout=0), "--timeout: a number of seconds > 0"),
        (dict(grid={"L": [1.0]}, resume=True), "--resume: needs the CSV"),
        (dict(grid={"L": [1.0]}, inputs="u.csv"), "--inputs is not an option of a sweep"),
    ]:
        with pytest.raises(mcsgen.errors.McsError, match=message):
            solver.sweep(**kw)


def test_resume_refuses_what_is_not_this_sweeps_and_out_is_a_csv(solver, tmp_path):
    out = tmp_path / "s.csv"
    kw = dict(grid={"L": [0.9, 1.0]}, quantities=["final(x.q1)"], workers=0, **OPTIONS)
    with pytest.raises(mcsgen.errors.McsError, match="--out .*s.json: the runs' CSV"):
        solver.sweep(out=tmp_path / "s.json", **kw)
    solver.sweep(out=out, **kw)
    text = out.read_text()
    out.write_text(text.replace("final(x.q1)", "final(x.q2)"))  # columns not this sweep's
    with pytest.raises(mcsgen.errors.McsError, match="its columns are not this sweep's"):
        solver.sweep(out=out, resume=True, **kw)
    # a kill mid-line (inside a multi-byte character too) loses only that line
    lines = text.splitlines(keepends=True)
    out.write_bytes((lines[0] + lines[1]).encode() + "2,ok,é".encode()[:-1])
    result = solver.sweep(out=out, resume=True, **kw)
    assert [r["run"] for r in result.rows] == [0, 1] and result.summary["complete"]
    assert out.read_text().splitlines()[1] == lines[1].rstrip("\n")  # run 0 kept, not rerun
    # a reducer whose name is a column of the sweep: that run's error, not a lost column
    result = solver.sweep(reduce=lambda run: {"L": 1.0}, **kw)
    assert [r["status"] for r in result.rows] == ["error", "error"]
    assert result.rows[0]["message"] == "the reducer's name 'L' is a column"


def test_progress_line(capsys):
    from mcsgen.cli.sweep import Progress

    progress = Progress()
    progress(0, 10, 0, 0.0)
    progress(10, 10, 2, 5.0)
    err = capsys.readouterr().err
    assert err.endswith("\r  sweep: 10/10 runs, 2 failed")
    assert "\r  sweep: 0/10 runs, 0 failed" in err


def kill_the_worker_past_one(run):
    """A reducer that kills its worker process for L > 1 (as a run that crashes would)."""
    if run.params["L"] > 1.0:
        os._exit(3)
    return float(run.columns["x.q1"][-1])


def test_a_run_that_kills_its_worker_is_a_crashed_row(solver):
    """Each time, the worker dies with the scattered program's copy: the program is scattered
    again and the batch sent again; a run lost with its worker is then sent alone, and given up
    as crashed only when it loses its worker alone. The others finish, the run queued behind
    the killer on its worker included (it came back lost under CI's load before the runs of
    lost batches were sent again alone)."""
    result = solver.sweep(
        grid={"L": [0.9, 1.1, 0.95]}, quantities=[], reduce=kill_the_worker_past_one,
        workers=2, batch=1, **OPTIONS,
    )  # fmt: skip
    assert [r["status"] for r in result.rows] == ["ok", "crashed", "ok"]
    message = result.rows[1]["message"]
    assert "lost each of the 3 times it was sent alone" in message or "killed its" in message
    for row in (result.rows[0], result.rows[2]):
        assert row["value"] == solver.simulate(params={"L": row["L"]}, **OPTIONS).x[-1, 0]
    assert result.summary["complete"] and result.summary["failed"] == 1
