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


# `make test` runs the tests not marked `slow`; `make test-slow` runs those (docs/develop/tests.md,
# "The slow tier": which moved and why). A family of tests over every shipped model runs on these
# in `make test`: the slider-crank (a closed loop of spatial bodies, in body and in joint
# coordinates), the spinning top (a free body's Euler parameters), the 3R pendulum (a coordinate
# model) and the double four-bar (planar bodies, the singular crossings); on every model in
# `make test-slow`.
REPRESENTATIVE_MODELS = frozenset(
    ("slider_crank", "slider_crank_joint", "spin_top", "pendulum_3r", "double_four_bar")
)


def over_models(values, keep=()):
    """pytest params of a family over shipped models (`values`: names, or paths whose stem is
    the name): the representative models' and those in `keep` (what only they show in the
    family) as they are, the others marked slow."""
    out = []
    for value in values:
        name = Path(value).stem if isinstance(value, Path) else str(value)
        marks = () if name in REPRESENTATIVE_MODELS or name in keep else (pytest.mark.slow,)
        out.append(pytest.param(value, id=name, marks=marks))
    return out


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "slow: in make test-slow, not make test (docs/develop/tests.md)"
    )


# The files that take longest (`pytest --durations`: each over half a minute of one worker),
# first: `--dist loadfile` hands whole files to the two workers in collection order, and a long
# file taken last keeps one worker busy while the other has nothing left to do.
SLOW_FILES_FIRST = (
    "e2e/test_statics_modes.py",
    "e2e/test_firmware_qemu.py",
    "e2e/test_tree_joint_types.py",
    "e2e/test_joint_coordinates.py",
    "generator/test_audit.py",
    "generator/test_misra.py",
    "test_install.py",
    "e2e/test_urdf_models.py",
    "e2e/test_geometry_params.py",
    "e2e/test_kc_paper.py",
    "e2e/test_inputs.py",
    "e2e/test_sweep.py",
    "docs/test_examples.py",
    "docs/test_site.py",
)


def pytest_collection_modifyitems(config, items):
    """Run SLOW_FILES_FIRST before the rest (each file's tests stay together, in order)."""
    rank = {name: k for k, name in enumerate(SLOW_FILES_FIRST)}
    tests = ROOT / "tests"

    def key(item):
        path = Path(str(item.fspath))
        rel = path.relative_to(tests).as_posix() if path.is_relative_to(tests) else ""
        return rank.get(rel, len(rank))

    items.sort(key=key)
