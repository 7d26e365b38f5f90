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
    log = tmp_path / "missing" / "run.events.json"
    proc = cli("simulate", "spatial_pendulum", "--t-end", "0.2", "--out", tmp_path / "run.csv",
               "--events", log)  # fmt: skip
    assert proc.returncode == 2
    assert proc.stderr.count("\n") == 1 and f"cannot write: {log}" in proc.stderr, proc.stderr


def test_generate_into_an_impossible_directory_is_one_line(cli, tmp_path):
    blocker = tmp_path / "a_file"
    blocker.write_text("")
    proc = cli("generate", "spatial_pendulum", "--force", "--no-misra", "--out", blocker / "gen")
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert proc.stderr.count("\n") == 1 and "generate: cannot write" in proc.stderr, proc.stderr
