"""Where things are: the one place that knows the checkout's layout (README, "Layout")."""

import os
from pathlib import Path
from typing import Union

ROOT = Path(__file__).resolve().parents[2]  # the checkout, or PREFIX/share/mcsgen installed
PACKAGE = ROOT / "generator" / "mcsgen"  # this package
TEMPLATES = ROOT / "templates"  # Jinja2 templates of the generated C
MODELS = ROOT / "models"  # the shipped mechanism files
RUNTIME = ROOT / "runtime"  # the C runtime (include/, src/, app/)
# compiled objects, solvers, benchmarks: build/ of the checkout, or $MCSGEN_BUILD_DIR (the
# installed launcher sets it outside the installation, scripts/install)
BUILD = Path(os.environ.get("MCSGEN_BUILD_DIR") or ROOT / "build")
# emitted C of the shipped models: committed in generated/ of the checkout (an installation has
# none: there they are generated into the build directory)
GENERATED = ROOT / "generated" if (ROOT / "generated").is_dir() else BUILD / "models"
USER_GENERATED = BUILD / "generated"  # emitted C of mechanism files outside models/
FIRMWARE_GENERATED = BUILD / "firmware" / "generated"  # emitted C with a kernel subset


def shipped(path: "PathLike") -> bool:
    """Whether a mechanism file is one of models/ (its C lives in the committed generated/)."""
    return Path(path).resolve().parent == MODELS.resolve()


def model_path(arg) -> Path:
    """A model given as a file or as a bare name found in models/."""
    p = Path(arg)
    if p.suffix in (".yaml", ".yml") or p.exists():
        return p
    return MODELS / f"{arg}.yaml"


def generated_root(name: str) -> Path:
    """Where the generated C of model `name` lives by default: generated/ for the shipped models,
    build/generated/ for the user's (so that generating them never touches committed files)."""
    return GENERATED if (MODELS / f"{name}.yaml").exists() else USER_GENERATED


PathLike = Union[str, os.PathLike]  # what the API takes for a path
