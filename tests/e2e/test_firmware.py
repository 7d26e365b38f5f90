"""Firmware properties: no heap in the runtime or generated code, strict C99, float builds."""
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
HEAP = {"malloc", "calloc", "realloc", "free", "aligned_alloc", "posix_memalign", "strdup",
        "strndup", "valloc", "memalign", "reallocarray"}
LIBRARY_SOURCES = sorted((ROOT / "runtime" / "src").glob("*.c")) + \
    sorted((ROOT / "generated").glob("*/*.c"))
FORBIDDEN_CALLS = HEAP | {"printf", "fprintf", "puts", "putchar", "exit", "abort", "fopen",
                          "fwrite", "perror"}


def compile_object(src, tmp_path, *flags):
    obj = tmp_path / (src.stem + ".o")
    cmd = ["cc", "-std=c99", "-pedantic", "-Wall", "-Wextra", "-Werror", "-O2", *flags,
           f"-I{ROOT / 'runtime/include'}", f"-I{ROOT / 'runtime/src'}", "-c", str(src),
           "-o", str(obj)]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    return obj


def undefined_symbols(obj):
    out = subprocess.run(["nm", "-u", str(obj)], capture_output=True, text=True, check=True).stdout
    return {line.split()[-1].split("@")[0] for line in out.splitlines() if line.strip()}


@pytest.mark.parametrize("src", [s for s in LIBRARY_SOURCES
                                 if s.name != "mcs_linalg_portable.c"],
                         ids=lambda s: s.name)
@pytest.mark.parametrize("real", ["double", "float"])
def test_no_heap_no_printing(src, real, tmp_path):
    flags = ["-DMCS_REAL_FLOAT"] if real == "float" else []
    used = undefined_symbols(compile_object(src, tmp_path, *flags))
    assert not used & FORBIDDEN_CALLS, f"{src.name} references {sorted(used & FORBIDDEN_CALLS)}"


def test_lapack_only_through_work_routines(tmp_path):
    used = undefined_symbols(compile_object(ROOT / "runtime/src/mcs_linalg_lapack.c", tmp_path))
    lapack = {s for s in used if s.startswith("LAPACKE_")}
    assert lapack and all(s.endswith("_work") for s in lapack), sorted(lapack)
