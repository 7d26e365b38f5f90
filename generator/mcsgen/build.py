"""Compiling generated models with the runtime (system C compiler), with a content-hash cache."""

import hashlib
import os
import shutil
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import List, Optional, Sequence, Tuple

from .errors import BuildError
from .paths import (
    BUILD,
    GENERATED,
    MODELS,
    ROOT,
    RUNTIME,
    USER_GENERATED,
    PathLike,
    remembered_user_dir,
    RUNTIME_SRC,
    file_key,
    runtime_c_files,
    runtime_internal_headers,
    shipped,
)

# The compile line's parts. The Makefile (CFLAGS_STRICT, LIBS) and scripts/firmware spell the
# same flags; tests/test_build.py checks that they agree with these.
WARNINGS = ["-std=c99", "-pedantic", "-Wall", "-Wextra", "-Werror"]
CFLAGS = WARNINGS + ["-O2"]
# The model alone as a shared library (check, the audit, the Python API's kernel calls): a few
# thousand calls at most, so compiled unoptimized: the PUMA 560's 458 KB of body-coordinate C in
# 1.1 s against 5.3 s at -O2, the same IEEE arithmetic (no -ffast-math either way)
SHARED_CFLAGS = WARNINGS + ["-O0"]
LIBS = ["-llapacke", "-llapack", "-lblas", "-lm"]


# The simulator's backend by model size: below this many coordinates the portable backend's small
# loops beat LAPACK's calls, from it on LAPACK's blocked kernels win. One RK4 step, both backends
# in one run (docs/reference/generated-code.md), portable's time over LAPACK's: point chains n = 20
# 0.85, n = 40 1.17, n = 60 1.40, n = 80 1.42; the slider-crank (n = 21) 0.91, the PUMA 560 (n = 42)
# 1.28; P1 (n = 3) and P3 (n = 15) 0.4 and 0.7.
PORTABLE_BELOW = 28


def linalg_backend(nx: Optional[int] = None) -> str:
    """'lapack' or 'portable' (self-contained, as on firmware): $MCS_LINALG when it names one;
    else ('auto' or unset) 'portable' for a simulator of fewer than PORTABLE_BELOW coordinates
    and 'lapack' otherwise, and when nx is not given (statics and modes: damped modes need
    LAPACK)."""
    backend = os.environ.get("MCS_LINALG", "auto") or "auto"
    if backend == "auto":
        return "portable" if (nx is not None and nx < PORTABLE_BELOW) else "lapack"
    if backend not in ("lapack", "portable"):
        raise BuildError(f"MCS_LINALG must be 'lapack', 'portable' or 'auto', not '{backend}'")
    return backend


def model_nx(name: str, gdir: Optional[PathLike] = None) -> int:
    """The number of coordinates of a generated model, from its header (<NAME>_NX)."""
    gdir = Path(gdir) if gdir else model_dir(name)
    key = f"#define {name.upper()}_NX "
    for line in (gdir / f"{name}.h").read_text().splitlines():
        if line.startswith(key):
            return int(line[len(key) :].split()[0])
    raise BuildError(f"{gdir / (name + '.h')}: no {name.upper()}_NX (regenerate the model)")


def model_linalg_backend(name: str, gdir: Optional[PathLike] = None) -> str:
    """The linear-algebra backend a generated model's simulator is built with: linalg_backend of
    its size."""
    return linalg_backend(model_nx(name, gdir))


def runtime_sources(backend: Optional[str] = None) -> List[Path]:
    """Runtime C files for one linear-algebra backend."""
    skip = {"lapack": "mcs_linalg_portable.c", "portable": "mcs_linalg_lapack.c"}[
        backend or linalg_backend()
    ]
    return [p for p in runtime_c_files() if p.name != skip]


def backend_flags(backend: Optional[str] = None) -> Tuple[List[str], List[str]]:
    backend = backend or linalg_backend()
    return (["-DMCS_LINALG_PORTABLE"], ["-lm"]) if backend == "portable" else ([], LIBS)


def compiler() -> str:
    cc = os.environ.get("CC") or shutil.which("cc") or shutil.which("gcc")
    if not cc:
        raise BuildError("no C compiler found (install gcc: run `make deps`)")
    return cc


def _fingerprint(paths, args):
    h = hashlib.sha256()
    for p in paths:
        h.update(str(p).encode())
        h.update(Path(p).read_bytes())
    h.update("\0".join(args).encode())
    return h.hexdigest()


def _run(cmd, what):
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        tail = (proc.stderr or proc.stdout).strip().splitlines()[-15:]
        raise BuildError(f"{what} failed:\n" + "\n".join(tail))


def _cached(target, inputs, cmd, what):
    """Run cmd (which writes target after "-o") unless target exists and was built from the same
    inputs and command. The compiler writes a private temporary that is renamed into place, so
    processes building the same target at once (parallel tests) never see a partial file."""
    stamp = target.with_suffix(target.suffix + ".stamp")
    fp = _fingerprint(inputs, cmd)
    if target.exists() and stamp.exists() and stamp.read_text() == fp:
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    private = [str(tmp) if a == str(target) else a for a in cmd]
    try:
        _run(private, what)
        os.replace(tmp, target)
        stamp_tmp = stamp.with_name(f".{stamp.name}.{os.getpid()}.tmp")
        stamp_tmp.write_text(fp)
        os.replace(stamp_tmp, stamp)
    finally:
        if tmp.exists():
            tmp.unlink()
    return target


def _build_dir(name: str, gdir: Optional[PathLike] = None) -> Path:
    """build/<name>/ for a shipped model's generated/<name>/; a subfolder per other source
    directory (a user's file's build/generated/<name>/<key>/, `generate --out`, tests' temporary
    copies), so that builds of the same name never collide: two mechanism files of one name get
    two solver libraries at two paths, which one process can load side by side."""
    gdir = Path(gdir) if gdir else model_dir(name)
    if gdir.resolve() == (_generated_root(name) / name).resolve():
        return BUILD / name
    tag = hashlib.sha256(str(gdir.resolve()).encode()).hexdigest()[:12]
    return BUILD / name / f"at-{tag}"


def _generated_root(name: str) -> Path:
    """generated/ for a shipped model, build/generated/ for a user's (paths.generated_root; read
    through this module's names so that tests can point both elsewhere)."""
    return GENERATED if (MODELS / f"{name}.yaml").exists() else USER_GENERATED


def model_dir(name: str) -> Path:
    """The generated C of the model called `name`: generated/<name>/ of a shipped model; of a
    user's, the build/generated/<name>/<key>/ this process last generated it into (the command
    line generates, then builds by name), else the only one there is. The Python API passes the
    folder instead (two files of one name have two)."""
    d = _generated_root(name) / name
    if d.parent != GENERATED:
        remembered = remembered_user_dir(name)
        if remembered is not None and remembered.parent == d:
            return remembered
        keyed = sorted(k.parent for k in d.glob(f"*/{name}.c"))
        if len(keyed) > 1:
            shown = d.relative_to(ROOT) if d.is_relative_to(ROOT) else d
            raise BuildError(
                f"{shown}/: {len(keyed)} mechanism files named {name} were generated: give the "
                "file (a path), not the name"
            )
        if keyed:
            return keyed[0]
    if not (d / f"{name}.c").exists():
        shown = d.relative_to(ROOT) if d.is_relative_to(ROOT) else d
        raise BuildError(f"{shown}/{name}.c not found: run `./mcsgen generate` first")
    return d


def generated_dir_of(model) -> Path:
    """The generated C of a loaded model: generated/<name>/ of a shipped file, the folder keyed
    by the user's file's contents when generation wrote one there, else what
    model_dir finds by name (a model generated with --out and remembered in this process)."""
    if shipped(model.path):
        return GENERATED / model.name
    keyed = USER_GENERATED / model.name / file_key(model.path)  # paths.user_generated_dir
    return keyed if (keyed / f"{model.name}.c").exists() else model_dir(model.name)


def simulator_sources() -> List[Path]:
    """The command-line simulator's own C files (runtime/app/mcs_simulate*.c and the helpers
    it shares with the analyzer, mcs_app_util.c)."""
    return sorted((RUNTIME / "app").glob("mcs_simulate*.c")) + [RUNTIME / "app" / "mcs_app_util.c"]


# The simulator's files that read nothing of the model (no MCS_APP_* macro, nothing of its
# header): compiled once per backend and flags and shared by every model's program, like the
# runtime (app_objects). tests/test_build.py compiles each with two models' headers and macros
# and finds the same object.
SHARED_APP_SOURCES = (
    "mcs_simulate_args.c",
    "mcs_simulate_inputs.c",
    "mcs_simulate_output.c",
    "mcs_simulate_setup.c",
    "mcs_simulate_summary.c",
)


def analyzer_sources() -> List[Path]:
    """The statics/modes driver's own C files (runtime/app/mcs_analyze.c and the helpers it shares
    with the simulator, mcs_app_util.c)."""
    return [RUNTIME / "app" / "mcs_analyze.c", RUNTIME / "app" / "mcs_app_util.c"]


# Flags of a program's compile line that are the program's own, not the runtime's: linking a
# shared library, the linker's options and the drivers' MCS_APP_* macros (no runtime file reads
# them). Every other flag (optimization, sanitizers, -fPIC, MCS_WITH_*, MCS_REAL_FLOAT) is the
# runtime's too.
def _runtime_flags(flags: Sequence[str]) -> List[str]:
    return [f for f in flags if f != "-shared" and not f.startswith(("-Wl,", "-DMCS_APP_"))]


def runtime_objects(backend: Optional[str] = None, extra_flags: Sequence[str] = ()) -> List[Path]:
    """The runtime's object files for one backend and compile flags, one per source in
    runtime_sources' order, compiled once and kept (build/runtime/<backend>-<flags' hash>/; each
    object rebuilt when its source, a runtime header or the flags change) on every core. The
    runtime does not depend on the model: a simulator of a new model compiles only its model and
    the driver files that read the model (1 s) instead of the 50 files of all (7 s)."""
    backend = backend or linalg_backend()
    headers = sorted((RUNTIME / "include" / "mcs").glob("*.h")) + runtime_internal_headers()
    return _shared_objects("runtime", runtime_sources(backend), RUNTIME_SRC, backend,
                           _shared_args(backend, extra_flags), headers)  # fmt: skip


def _shared_objects(kind, sources, root, backend, args, headers) -> List[Path]:
    """One object per source (its path under root kept), compiled with args on every core and
    kept in build/<kind>/<backend>-<hash of the compiler, backend and args>/ (each rebuilt when
    its source, one of headers or the flags change): runtime_objects' and app_objects'."""
    key = hashlib.sha256("\0".join([compiler(), backend, *args]).encode()).hexdigest()[:12]
    out = BUILD / kind / f"{backend}-{key}"

    def compile_one(src: Path) -> Path:
        obj = out / src.relative_to(root).with_suffix(".o")
        cmd = [compiler(), *args, "-c", str(src), "-o", str(obj)]
        return _cached(obj, [src, *headers], cmd, f"compiling the {kind} ({src.name})")

    with ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
        return list(pool.map(compile_one, sources))


def _shared_args(backend: str, extra_flags: Sequence[str]) -> List[str]:
    """The compile flags of the runtime's and the shared app files' objects: the program's but
    its own (_runtime_flags)."""
    defines, _ = backend_flags(backend)
    return [
        *CFLAGS,
        *_runtime_flags(extra_flags),
        *defines,
        f"-I{RUNTIME / 'include'}",
        f"-I{RUNTIME_SRC}",
    ]


def app_objects(
    sources: Sequence[PathLike], backend: Optional[str] = None, extra_flags: Sequence[str] = ()
) -> List[Path]:
    """The objects of the app files among `sources` that read nothing of the model
    (SHARED_APP_SOURCES), compiled once per backend and flags and kept (build/app/<backend>-<flags'
    hash>/): a new model's simulator then compiles only its model and the files that read it
    (after the first model, the Delta robot's solver library in 0.9 s instead of 1.9 s)."""
    backend = backend or linalg_backend()
    args = [*_shared_args(backend, extra_flags), f"-I{RUNTIME / 'app'}"]
    headers = (
        sorted((RUNTIME / "include" / "mcs").glob("*.h"))
        + runtime_internal_headers()
        + sorted((RUNTIME / "app").glob("*.h"))
    )
    shared = [Path(s) for s in sources if Path(s).name in SHARED_APP_SOURCES]
    return _shared_objects("app", shared, RUNTIME / "app", backend, args, headers)


def program_command(
    name: str,
    main_sources: Sequence[PathLike],
    target: PathLike,
    backend: Optional[str] = None,
    extra_flags: Sequence[str] = (),
    gdir: Optional[PathLike] = None,
) -> List[str]:
    """The one compile line of a program linked with generated model `name` and the runtime
    (used by `simulate`, the benchmarks and the tests): strict C99 flags, the backend's defines
    and libraries, and the MCS_APP_* macros the drivers expect. The runtime and the app files
    that read nothing of the model come as their object files with the same flags
    (runtime_objects, app_objects: compiled here when they are not yet)."""
    gdir = Path(gdir) if gdir else model_dir(name)
    upper = name.upper()
    backend = backend or linalg_backend()
    defines, libs = backend_flags(backend)
    own = [s for s in main_sources if Path(s).name not in SHARED_APP_SOURCES]
    sources = own + [gdir / f"{name}.c"]
    return [
        compiler(),
        *CFLAGS,
        *extra_flags,
        *defines,
        f"-I{RUNTIME / 'include'}",
        f"-I{RUNTIME_SRC}",
        f"-I{RUNTIME / 'app'}",
        f"-I{gdir}",
        f"-DMCS_APP_MODEL={name}",
        f"-DMCS_APP_NX={upper}_NX",
        f"-DMCS_APP_NC={upper}_NC",
        f"-DMCS_APP_NGROUPS={upper}_NGROUPS",
        f"-DMCS_APP_GROUP_ROWS={upper}_MAX_GROUP_ROWS",
        f"-DMCS_APP_NJC={upper}_NJC",
        f"-DMCS_APP_NSTOPS={upper}_NSTOPS",
        f"-DMCS_APP_NFRICTION={upper}_NFRICTION",
        f"-DMCS_APP_NW={upper}_NW",
        f"-DMCS_APP_NMU={upper}_NMU",
        f"-DMCS_APP_NU={upper}_NU",
        f"-DMCS_APP_NY={upper}_NY",
        f"-DMCS_APP_FROZEN={upper}_FROZEN_PARAMS",
        "-include",
        f"{name}.h",
        *map(str, sources),
        *map(str, app_objects(main_sources, backend, extra_flags)),
        *map(str, runtime_objects(backend, extra_flags)),
        "-o",
        str(target),
        *libs,
    ]


def _program_inputs(cmd: Sequence[str], name: str, gdir: Path) -> List[Path]:
    """Every file a program's compile line reads (for the build cache): its sources, the
    runtime's objects (which stand for the runtime's sources), and the headers."""
    return (
        [Path(a) for a in cmd if a.endswith((".c", ".o"))]
        + sorted((RUNTIME / "include" / "mcs").glob("*.h"))
        + runtime_internal_headers()
        + sorted((RUNTIME / "app").glob("*.h"))
        + [gdir / f"{name}.h"]
    )


def build_simulator(
    name: str, extra_flags: Sequence[str] = (), gdir: Optional[PathLike] = None
) -> Path:
    """The simulate driver linked with one generated model (model_dir, or gdir); returns the
    executable's path."""
    gdir = Path(gdir) if gdir else model_dir(name)
    backend = model_linalg_backend(name, gdir)
    target = _build_dir(name, gdir) / f"simulate_{name}_{backend}"
    cmd = program_command(
        name, simulator_sources(), target, backend, extra_flags=extra_flags, gdir=gdir
    )
    return _cached(
        target,
        _program_inputs(cmd, name, gdir),
        cmd,
        f"compiling the simulator of {name}",
    )


def build_simulator_library(
    name: str, backend: Optional[str] = None, gdir: Optional[PathLike] = None
) -> Path:
    """The simulate driver of one model (model_dir, or gdir) as a shared library for in-process
    runs (mcsgen.api): the same sources and flags as the executable, plus -DMCS_APP_LIBRARY
    (mcs_simulate_run in place of main), position-independent, and bound to its own symbols
    (-Bsymbolic), so that the libraries of several models load side by side (two files of one
    name too: their libraries have two paths, _build_dir)."""
    gdir = Path(gdir) if gdir else model_dir(name)
    backend = backend or model_linalg_backend(name, gdir)
    target = _build_dir(name, gdir) / f"libsimulate_{name}_{backend}.so"
    cmd = program_command(
        name,
        simulator_sources(),
        target,
        backend=backend,
        extra_flags=["-DMCS_APP_LIBRARY", "-fPIC", "-shared", "-Wl,-Bsymbolic"],
        gdir=gdir,
    )
    return _cached(
        target,
        _program_inputs(cmd, name, gdir),
        cmd,
        f"compiling the solver library of {name}",
    )


def build_analyzer(
    name: str, extra_flags: Sequence[str] = (), gdir: Optional[PathLike] = None
) -> Path:
    """The statics/modes driver (runtime/app/mcs_analyze.c) linked with one generated model
    (from generated/, or from gdir: a `generate --out` directory's <name>/)."""
    gdir = Path(gdir) if gdir else model_dir(name)
    target = _build_dir(name, gdir) / f"analyze_{name}_{linalg_backend()}"
    cmd = program_command(name, analyzer_sources(), target, extra_flags=extra_flags, gdir=gdir)
    inputs = _program_inputs(cmd, name, gdir)
    return _cached(target, inputs, cmd, f"compiling the analyzer of {name}")


def build_shared(name: str, gdir: Optional[PathLike] = None) -> Path:
    """The generated model alone as a shared library (for `check` through ctypes), from
    generated/ or from gdir (a `generate --out` directory's <name>/)."""
    gdir = Path(gdir) if gdir else model_dir(name)
    src = gdir / f"{name}.c"
    target = _build_dir(name, gdir) / f"lib{name}.so"
    cmd = [
        compiler(),
        *SHARED_CFLAGS,
        "-fPIC",
        "-shared",
        f"-I{RUNTIME / 'include'}",
        f"-I{gdir}",
        str(src),
        "-o",
        str(target),
        "-lm",
    ]
    return _cached(
        target,
        [
            src,
            gdir / f"{name}.h",
            RUNTIME / "include/mcs/mcs_model.h",
            RUNTIME / "include/mcs/mcs_config.h",
        ],
        cmd,
        f"compiling the model {name}",
    )
