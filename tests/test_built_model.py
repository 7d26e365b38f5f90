"""built_model.py: a command on a built model reads a plain record of it, without SymPy (issue
60: the overhead of a command on a model whose C is up to date)."""

import subprocess
import sys

import pytest

from mcsgen import built_model, paths
from mcsgen import generate as generate_module
from mcsgen.api import Mechanism
from mcsgen.errors import McsError
from mcsgen.paths import ROOT

SOURCE = ROOT / "models" / "pendulum_3r_bodies.yaml"


@pytest.fixture
def records(tmp_path, monkeypatch):
    monkeypatch.setattr(built_model, "RECORDS", tmp_path / "built")
    monkeypatch.setattr(paths, "USER_GENERATED", tmp_path / "generated")
    return tmp_path / "built"


def _copy(folder, extra=""):
    """The spatial 3R pendulum in bodies under a name of the user's."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "my_3r.yaml"
    text = SOURCE.read_text().replace("name: pendulum_3r_bodies", "name: my_3r")
    path.write_text(text + extra)
    return path


def test_the_record_says_what_the_model_does(tmp_path, records):
    path = _copy(tmp_path)
    model, out_dir, _ = generate_module.generate(path)
    record = built_model.load(path)
    assert record is not None and record.out_dir == out_dir and record.path == path
    assert (record.name, record.n, record.m) == (model.name, model.n, model.m)
    assert [c.name for c in record.coordinates] == [c.name for c in model.coordinates]
    assert [(p.name, p.value) for p in record.parameters] == [
        (p.name, p.value) for p in model.parameters
    ]
    assert [y.name for y in record.outputs] == [y.name for y in model.outputs]
    assert [g.name for g in record.row_groups] == [g.name for g in model.row_groups]
    assert record.simulation == model.simulation
    assert record.initial_report == model.initial_report
    assert record.parameter_checks == tuple(model.parameter_checks)
    # the run-time rules on masses hold on the record as on the model
    for source in (model, record):
        with pytest.raises(McsError, match="mass must be positive, got -5"):
            Mechanism(source, path).check_param_values({"m": -5}, "--param")


def test_a_changed_file_or_stale_c_has_no_record(tmp_path, records):
    path = _copy(tmp_path)
    _, out_dir, _ = generate_module.generate(path)
    assert built_model.load(path) is not None
    header = out_dir / "my_3r.h"
    text = header.read_text()
    header.write_text(text.replace("Kernels: ", "Kernels: linearization, ", 1))
    assert built_model.load(path) is None  # the C is another build's
    header.write_text(text)
    assert built_model.load(path) is not None
    path.write_text(path.read_text() + "\n# changed\n")
    assert built_model.load(path) is None  # these bytes were never built
    path.write_text(path.read_text().replace("\n# changed\n", ""))
    for entry in records.glob("*.pickle"):
        entry.write_bytes(b"torn")
    assert built_model.load(path) is None


def test_a_command_on_a_built_model_imports_no_sympy(tmp_path):
    """The whole command in a fresh process, as a user runs it: simulate after generate, on a
    file of the user's (its record is in this checkout's build/)."""
    path = _copy(tmp_path, extra="\n# test_built_model\n")
    out = tmp_path / "run.csv"
    script = (
        "import sys\n"
        f"sys.path.insert(0, {str(ROOT / 'generator')!r})\n"
        "from mcsgen.cli import main\n"
        "sys.argv = ['mcsgen'] + sys.argv[1:]\n"
        "try:\n"
        "    main()\n"
        "except SystemExit as e:\n"
        "    assert not e.code, e.code\n"
        "print('sympy imported:', 'sympy' in sys.modules)\n"
    )
    run = [sys.executable, "-c", script, "simulate", str(path), "--t-end", "0.01"]
    run += ["--out", str(out)]
    first = subprocess.run(run, cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert first.returncode == 0, first.stderr
    assert "sympy imported: True" in first.stdout  # it generated
    rows = out.read_bytes()
    again = subprocess.run(run, cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert again.returncode == 0, again.stderr
    assert "sympy imported: False" in again.stdout, again.stdout
    assert out.read_bytes() == rows  # the same run
    # a bad run-time value is still refused in one line, naming the option
    command = [str(ROOT / "mcsgen"), *run[3:], "--param", "m=-1"]
    bad = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert bad.returncode != 0 and "--param m=-1: bodies[0].mass: mass must be positive" in (
        bad.stderr
    ), bad.stderr
    assert "Traceback" not in bad.stderr
