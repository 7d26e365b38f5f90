"""Where things are: the one place that knows the checkout's layout (README, "Layout")."""

import os
from pathlib import Path
from typing import Union

ROOT = Path(__file__).resolve().parents[2]  # the checkout
PACKAGE = ROOT / "generator" / "mcsgen"  # this package
TEMPLATES = ROOT / "templates"  # Jinja2 templates of the generated C
MODELS = ROOT / "models"  # the shipped mechanism files
GENERATED = ROOT / "generated"  # emitted C, committed
RUNTIME = ROOT / "runtime"  # the C runtime (include/, src/, app/)
BUILD = ROOT / "build"  # compiled objects, solvers, benchmarks

PathLike = Union[str, os.PathLike]  # what the API takes for a path
