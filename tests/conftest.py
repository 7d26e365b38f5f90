"""Shared fixtures: the generator package on sys.path, paths, and a CLI runner."""
import os

# before numpy is imported anywhere: reproducible BLAS (see generator/mcsgen/__init__.py)
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

import subprocess  # noqa: E402
import sys  # noqa: E402
from pathlib import Path  # noqa: E402

import pytest  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "generator"))


def run_cli(*args, cwd=None):
    """./mcsgen with arguments; returns CompletedProcess (text)."""
    env = dict(os.environ, PYTHONHASHSEED="0")
    return subprocess.run(
        [str(ROOT / "mcsgen"), *map(str, args)],
        capture_output=True,
        text=True,
        cwd=cwd or ROOT,
        env=env,
    )


@pytest.fixture
def cli():
    return run_cli


@pytest.fixture
def write_model(tmp_path):
    """Write a YAML model text to tmp_path/<name>.yaml and return the path."""

    def write(text, name="m"):
        path = tmp_path / f"{name}.yaml"
        path.write_text(text)
        return path

    return write
