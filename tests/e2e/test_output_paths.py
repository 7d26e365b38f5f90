"""Output paths that cannot be written (issue 14): one line naming the path, a non-zero exit,
never a traceback and never "ok" with the data lost."""

import os

import pytest


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
def test_a_full_disk_is_an_error_not_a_lost_run(cli):
    proc = cli("simulate", "spatial_pendulum", "--t-end", "0.2", "--out", "/dev/full")
    assert proc.returncode == 2, proc.stdout
    assert proc.stderr.count("\n") == 1 and "cannot write (the data is incomplete): /dev/full" in (
        proc.stderr
    )


def test_an_unwritable_event_log_is_named(cli, tmp_path):
    blocker = tmp_path / "a_file"
    blocker.write_text("")
    log = blocker / "run.events.json"  # under a file: no folder can be made there
    proc = cli("simulate", "spatial_pendulum", "--t-end", "0.2", "--out", tmp_path / "run.csv",
               "--events", log)  # fmt: skip
    assert proc.returncode == 2
    assert proc.stderr.count("\n") == 1 and str(blocker) in proc.stderr, proc.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a_file"]


def test_events_makes_its_folders_as_out_does(cli, tmp_path):
    """Issue 34, item 9: --out created missing folders, --events refused them."""
    out = tmp_path / "runs" / "a" / "run.csv"
    log = tmp_path / "logs" / "b" / "run.events.json"
    proc = cli("simulate", "double_four_bar", "--t-end", "1.2", "--out", out, "--events", log)
    assert proc.returncode == 0, proc.stderr
    assert out.is_file() and log.is_file()  # the double four-bar crosses its singular point


def test_generate_into_an_impossible_directory_is_one_line(cli, tmp_path):
    blocker = tmp_path / "a_file"
    blocker.write_text("")
    proc = cli("generate", "spatial_pendulum", "--force", "--no-misra", "--out", blocker / "gen")
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert proc.stderr.count("\n") == 1 and "generate: cannot write" in proc.stderr, proc.stderr


def test_ctrl_c_leaves_a_valid_partial_csv(cli, tmp_path):
    """Ctrl-C (SIGINT to the terminal's process group: mcsgen and the simulator) stops the run
    after its current step: every row written is whole, the event log closed, one line says
    where the run stopped, and the exit status is 130."""
    import signal
    import subprocess
    import time

    from conftest import ROOT

    assert cli("simulate", "spatial_pendulum", "--t-end", "0.01").returncode == 0  # built
    out = tmp_path / "long.csv"
    proc = subprocess.Popen(
        [
            str(ROOT / "mcsgen"),
            "simulate",
            "spatial_pendulum",
            "--t-end",
            "90",
            "--h",
            "1e-4",
            "--out",
            str(out),
        ],  # fmt: skip
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # its own process group, as a terminal's foreground job
    )
    deadline = time.monotonic() + 60
    while (
        proc.poll() is None
        and time.monotonic() < deadline
        and (not out.exists() or out.stat().st_size < 200_000)
    ):
        time.sleep(0.05)
    os.killpg(proc.pid, signal.SIGINT)
    stdout, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 130, (stdout, stderr)
    assert stderr.count("\n") == 1 and "Traceback" not in stderr, stderr
    assert "interrupted at t = " in stderr and f"{out} holds the " in stderr, stderr
    lines = out.read_text().splitlines()
    width = lines[0].count(",")
    assert len(lines) > 100 and all(line.count(",") == width for line in lines)
    t = [float(line.split(",")[0]) for line in lines[1:]]
    assert t[0] == 0.0 and 0 < t[-1] < 90 and all(b > a for a, b in zip(t, t[1:]))
    assert f"holds the {len(lines) - 1} rows" in stderr
    # the summary says the run was interrupted, not that it hit a step limit (issue 34)
    assert "(stopped: interrupted (Ctrl-C))" in stdout and "limit" not in stdout, stdout


@pytest.mark.skipif(not os.path.exists("/proc/version"), reason="needs /proc/version")
def test_an_output_that_cannot_be_written_leaves_no_other(cli, tmp_path):
    """Issue 34, item 8: `--events /proc/version` (opened, but refusing the writes) left the CSV
    of the run behind, and the folders made for it. One line names the file; nothing is left."""
    out = tmp_path / "new" / "deeper" / "run.csv"
    proc = cli("simulate", "spatial_pendulum", "--t-end", "0.1", "--out", out,
               "--events", "/proc/version")  # fmt: skip
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.count("\n") == 1 and "/proc/version" in proc.stderr, proc.stderr
    assert list(tmp_path.iterdir()) == []
