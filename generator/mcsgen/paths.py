"""Where things are: the one place that knows the checkout's layout (docs/develop/layout.md)."""

import hashlib
import os
from pathlib import Path
from typing import Dict, Union

ROOT = Path(__file__).resolve().parents[2]  # the checkout, or PREFIX/share/mcsgen installed
PACKAGE = ROOT / "generator" / "mcsgen"  # this package
TEMPLATES = ROOT / "templates"  # Jinja2 templates of the generated C
MODELS = ROOT / "models"  # the shipped mechanism files
RUNTIME = ROOT / "runtime"  # the C runtime (include/, src/, app/)
# the runtime library's sources, by layer (docs/develop/layout.md: linalg/, basis/, sim/,
# analysis/); its files include each other's internal headers by their path under src/ (-I
# runtime/src)
RUNTIME_SRC = RUNTIME / "src"


def runtime_c_files() -> list:
    """Every C file of the runtime library (both linear-algebra backends), sorted by path."""
    return sorted(RUNTIME_SRC.rglob("*.c"))


def runtime_internal_headers() -> list:
    """The runtime library's internal headers (under src/), sorted by path."""
    return sorted(RUNTIME_SRC.rglob("*.h"))


# `make install` (scripts/install) leaves this file in PREFIX/share/mcsgen: the package runs from
# an installation, which may be read-only and shared by several users
INSTALLED = (ROOT / "INSTALLED").is_file()


def _default_build() -> Path:
    """Compiled objects, solvers, benchmarks: $MCSGEN_BUILD_DIR when set; else build/ of the
    checkout, or, installed, the user's cache ($XDG_CACHE_HOME/mcsgen, ~/.cache/mcsgen), never
    under the installation."""
    chosen = os.environ.get("MCSGEN_BUILD_DIR")
    if chosen:
        return Path(chosen)
    if not INSTALLED:
        return ROOT / "build"
    cache = os.environ.get("XDG_CACHE_HOME", "")
    return (Path(cache) if os.path.isabs(cache) else Path.home() / ".cache") / "mcsgen"


BUILD = _default_build()
# emitted C of the shipped models: committed in generated/ of the checkout (an installation has
# none: there they are generated into the build directory)
GENERATED = ROOT / "generated" if (ROOT / "generated").is_dir() else BUILD / "models"
# emitted C of mechanism files outside models/: build/generated/<name>/<key>/, one folder per
# file's contents (file_key): two files of one name never share generated C or a solver, and
# identical files in two folders share both
USER_GENERATED = BUILD / "generated"
FIRMWARE_GENERATED = BUILD / "firmware" / "generated"  # emitted C with a kernel subset


def shipped(path: "PathLike") -> bool:
    """Whether a mechanism file is one of models/ (its C lives in the committed generated/)."""
    return Path(path).resolve().parent == MODELS.resolve()


# where runs, audits and figures go by default: out/ of the checkout, or, installed, of the
# current directory (never under the installation)
OUT = Path.cwd() / "out" if INSTALLED else ROOT / "out"


def model_path(arg) -> Path:
    """A model given as a file (`models/slider_crank.yaml`, `../arm.yml`; the suffix may be left
    out: `models/slider_crank`) or as the bare name of a shipped model (`slider_crank`: models/).
    A bare name is looked up in models/ only when no file of that name is here."""
    p = Path(arg)
    if p.suffix in (".yaml", ".yml") or p.is_file():
        return p
    if p.is_dir() and not (len(p.parts) == 1 and (MODELS / f"{arg}.yaml").is_file()):
        from .errors import McsError

        raise McsError(
            f"{arg}: a folder, not a mechanism file: give its FILE.yaml (or a shipped model's "
            "name, a file of models/)"
        )
    for suffix in (".yaml", ".yml"):
        if p.with_name(p.name + suffix).is_file():
            return p.with_name(p.name + suffix)
    if len(p.parts) > 1:  # a path without its file: name the file it would be
        return p.with_name(p.name + ".yaml")
    return MODELS / f"{arg}.yaml"


def generated_root(name: str) -> Path:
    """Where the generated C of model `name` lives by default: generated/ for the shipped models,
    build/generated/ for the user's (so that generating them never touches committed files)."""
    return GENERATED if (MODELS / f"{name}.yaml").exists() else USER_GENERATED


def file_key(path: "PathLike") -> str:
    """A short hash of a mechanism file's bytes: the folder of its generated C and of its solvers
    when it is not a shipped model. Identical files in two folders share one build; two files of
    one name and other contents never do (the banner's hash checks the contents again:
    generate.is_up_to_date). A file that cannot be read is keyed by its resolved path (loading
    it then says why)."""
    try:
        return hashlib.sha256(Path(path).read_bytes()).hexdigest()[:12]
    except OSError:
        return hashlib.sha256(str(Path(path).resolve()).encode()).hexdigest()[:12]


def user_generated_dir(name: str, path: "PathLike") -> Path:
    """build/generated/<name>/<file_key>/: the generated C of the user's mechanism file `path`."""
    return USER_GENERATED / name / file_key(path)


# The generated folder of each user model generated at its default place in this process, by
# name (the last one generated wins): how the functions that take only a model's name (the
# command line's, after it generated the model) find it. The Python API passes folders.
_user_dirs: Dict[str, Path] = {}


def remember_user_dir(name: str, out_dir: Path) -> None:
    _user_dirs[name] = Path(out_dir)


def remembered_user_dir(name: str):
    """The folder remember_user_dir recorded for `name` in this process, or None."""
    return _user_dirs.get(name)


PathLike = Union[str, os.PathLike]  # what the API takes for a path
