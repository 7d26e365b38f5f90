"""Firmware properties: no heap in the runtime or generated code, strict C99, float builds."""
import subprocess
from pathlib import Path

import pytest

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
LIBRARY_SOURCES = sorted((ROOT / "runtime" / "src").glob("*.c")) + sorted(
    (ROOT / "generated").glob("*/*.c")
)
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


def compile_object(src, tmp_path, *flags):
    obj = tmp_path / (src.stem + ".o")
    cmd = [
        "cc",
        "-std=c99",
        "-pedantic",
        "-Wall",
        "-Wextra",
        "-Werror",
        "-O2",
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
    used = undefined_symbols(compile_object(src, tmp_path, *flags))
    assert not used & FORBIDDEN_CALLS, f"{src.name} references {sorted(used & FORBIDDEN_CALLS)}"


def test_lapack_only_through_work_routines(tmp_path):
    used = undefined_symbols(compile_object(ROOT / "runtime/src/mcs_linalg_lapack.c", tmp_path))
    lapack = {s for s in used if s.startswith("LAPACKE_")}
    assert lapack and all(s.endswith("_work") for s in lapack), sorted(lapack)


def test_portable_backend_has_no_external_dependencies(tmp_path):
    """The firmware build references nothing but libm."""
    used = undefined_symbols(
        compile_object(
            ROOT / "runtime/src/mcs_linalg_portable.c", tmp_path, "-DMCS_LINALG_PORTABLE"
        )
    )
    assert used <= {"sqrt", "sqrtf", "fabs", "fabsf"}, sorted(used)


def test_backends_agree_end_to_end(tmp_path, monkeypatch):
    import numpy as np
    from mcsgen.simulate import run_simulation
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


@pytest.mark.parametrize("backend", ["portable", "lapack"])
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
