"""Firmware properties: no heap in the runtime or generated code, strict C99, float builds;
scripts/firmware's arguments (a mechanism file anywhere, or a shipped model's name)."""
import json
import shutil
import subprocess
from pathlib import Path

import pytest

from mcsgen.paths import runtime_c_files

ROOT = Path(__file__).resolve().parents[2]
HEAP = {
    "malloc",
    "calloc",
    "realloc",
    "free",
    "aligned_alloc",
    "posix_memalign",
    "strdup",
    "strndup",
    "valloc",
    "memalign",
    "reallocarray",
}
LIBRARY_SOURCES = runtime_c_files() + sorted((ROOT / "generated").glob("*/*.c"))
FORBIDDEN_CALLS = HEAP | {
    "printf",
    "fprintf",
    "puts",
    "putchar",
    "exit",
    "abort",
    "fopen",
    "fwrite",
    "perror",
}


def compile_object(src, tmp_path, *flags, optimize="-O2"):
    obj = tmp_path / (src.stem + ".o")
    cmd = [
        "cc",
        "-std=c99",
        "-pedantic",
        "-Wall",
        "-Wextra",
        "-Werror",
        optimize,
        *flags,
        f"-I{ROOT / 'runtime/include'}",
        f"-I{ROOT / 'runtime/src'}",
        "-c",
        str(src),
        "-o",
        str(obj),
    ]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    return obj


def undefined_symbols(obj):
    out = subprocess.run(["nm", "-u", str(obj)], capture_output=True, text=True, check=True).stdout
    return {line.split()[-1].split("@")[0] for line in out.splitlines() if line.strip()}


@pytest.mark.parametrize("src", LIBRARY_SOURCES, ids=lambda s: s.name)
@pytest.mark.parametrize("real", ["double", "float"])
def test_no_heap_no_printing(src, real, tmp_path):
    flags = ["-DMCS_REAL_FLOAT"] if real == "float" else []
    if src.name == "mcs_linalg_portable.c":
        flags.append("-DMCS_LINALG_PORTABLE")
    # unoptimized: every call the source writes stays a reference (none dropped as dead code),
    # and the large generated files compile in a fraction of -O2's time
    used = undefined_symbols(compile_object(src, tmp_path, *flags, optimize="-O0"))
    assert not used & FORBIDDEN_CALLS, f"{src.name} references {sorted(used & FORBIDDEN_CALLS)}"


def test_lapack_only_through_work_routines(tmp_path):
    used = undefined_symbols(
        compile_object(ROOT / "runtime/src/linalg/mcs_linalg_lapack.c", tmp_path)
    )
    lapack = {s for s in used if s.startswith("LAPACKE_")}
    assert lapack and all(s.endswith("_work") for s in lapack), sorted(lapack)


def test_portable_backend_has_no_external_dependencies(tmp_path):
    """The firmware build references nothing but libm."""
    used = undefined_symbols(
        compile_object(
            ROOT / "runtime/src/linalg/mcs_linalg_portable.c", tmp_path, "-DMCS_LINALG_PORTABLE"
        )
    )
    assert used <= {"sqrt", "sqrtf", "fabs", "fabsf"}, sorted(used)


def test_backends_agree_end_to_end(tmp_path, monkeypatch):
    import numpy as np
    from helpers import run_simulation
    from mcsgen.outputs.plot import read_run

    runs = {}
    for backend in ("lapack", "portable"):
        monkeypatch.setenv("MCS_LINALG", backend)
        out = tmp_path / f"{backend}.csv"
        summary = run_simulation("spatial_pendulum", {"t_end": 1.0}, out_csv=out)
        assert summary["ok"]
        runs[backend] = read_run(out)
    for col in ("x.x", "x.y", "x.z", "v.x", "v.y", "v.z", "qd1", "qd2"):
        assert np.abs(runs["lapack"][col] - runs["portable"][col]).max() < 1e-12, col


# make test-slow: LAPACK in float (firmware links the portable backend, which make test builds)
@pytest.mark.parametrize("backend", ["portable", pytest.param("lapack", marks=pytest.mark.slow)])
def test_float_build_runs(tmp_path, backend):
    """The whole solver (runtime, driver, generated model) builds with MCS_REAL_FLOAT, clean under
    -Wdouble-promotion (no hidden double arithmetic), and integrates to single precision."""
    import json
    from mcsgen.build import program_command, simulator_sources

    exe = tmp_path / "sim_float"
    cmd = program_command(
        "spatial_pendulum",
        simulator_sources(),
        exe,
        backend,
        ["-DMCS_REAL_FLOAT", "-Wdouble-promotion"],
    )
    proc = subprocess.run(cmd, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    run = subprocess.run([str(exe), "--t-end", "2"], capture_output=True, text=True)
    summary = json.loads(run.stdout)
    assert summary["ok"] and summary["steps"] == 2000
    assert summary["max_c_norm"] < 1e-7  # float round-off on |x|^2 - l^2 ~ 6e-3
    assert summary["energy_drift_rel"] < 1e-3


FIRMWARE = ROOT / "scripts" / "firmware"
CROSS = all(shutil.which(t) for t in ("arm-none-eabi-gcc", "qemu-system-arm"))


# make test-slow: make test builds a file outside models/ (test_firmware_qemu's implicit one)
@pytest.mark.slow
@pytest.mark.skipif(not CROSS, reason="the cross toolchain and QEMU: make deps installs them")
def test_the_firmware_script_takes_a_mechanism_file_anywhere(tmp_path):
    """Issue 34: `scripts/firmware` takes a mechanism file's path (here relative to another
    directory), as ./mcsgen's verbs do, not only a name under models/: the spatial pendulum as
    tmp/elsewhere/my_pendulum.yaml (0.1 s of its firmware run), its image built, run under QEMU
    and on the host, and recorded under its name in --out's sizes.json and runs.json."""
    (tmp_path / "elsewhere").mkdir()
    text = (ROOT / "models" / "spatial_pendulum.yaml").read_text()
    text = text.replace("name: spatial_pendulum", "name: my_pendulum", 1)
    text = text.replace("firmware:", "firmware:\n  t_end: 0.1", 1).replace("  t_end: 1.0\n", "")
    (tmp_path / "elsewhere" / "my_pendulum.yaml").write_text(text)
    proc = subprocess.run(
        [str(FIRMWARE), "--out", "fw", "elsewhere/my_pendulum.yaml"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.startswith("my_pendulum for Cortex-M4F"), proc.stdout
    sizes = json.loads((tmp_path / "fw" / "sizes.json").read_text())
    runs = json.loads((tmp_path / "fw" / "runs.json").read_text())
    assert list(sizes) == list(runs) == ["my_pendulum"] and sizes["my_pendulum"]["heap"] == 0
    assert runs["my_pendulum"]["qemu"]["ok"] and runs["my_pendulum"]["host"]["ok"]
    assert runs["my_pendulum"]["qemu"]["steps"] == 200  # 0.1 s at h = 0.5 ms


@pytest.mark.parametrize(
    "args, said",
    [
        (["elsewhere/no_such.yaml"], "elsewhere/no_such.yaml: cannot read file"),
        (["no_such_model"], "models/no_such_model.yaml: cannot read file"),
        (["one", "two"], "usage: scripts/firmware [--out DIR] [--app FILE.c] [MODEL]"),
        (["--app", "nope.c"], "--app needs a C file"),
        (["--out"], "--out needs a directory"),
    ],
)
def test_the_firmware_script_refuses_bad_arguments_in_one_line(tmp_path, args, said):
    """A missing file or an unknown name is the generator's one-line error (exit 2), said before
    anything is built or installed, and nothing is written."""
    out = ["--out", "fw"] if args[0] != "--out" else []
    proc = subprocess.run(
        [str(FIRMWARE), *out, *args], cwd=tmp_path, capture_output=True, text=True
    )
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1, proc.stderr
    assert said in proc.stderr and "Traceback" not in proc.stderr
    assert list(tmp_path.iterdir()) == []
