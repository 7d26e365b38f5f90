"""Loaded models kept between commands: a mechanism file read, validated and its initial state
solved (model.load_model, model.complete_initial_state: seconds of SymPy for a robot or a
Stewart platform in joint coordinates) is pickled under build/loaded/, keyed by everything the
result depends on, so that the next command on the same file unpickles it in milliseconds.

The key: the file's bytes and resolved path (the model names its file in every message), this
generator's fingerprint and version (a changed loader loads anew), and the SymPy and Python
versions (a pickle of SymPy expressions is theirs). A cache entry that cannot be read is loaded
anew and written again; one that cannot be written is not kept (a read-only build directory
costs time, never a run). Only this process's own build directory is ever read."""

import hashlib
import importlib.util
import os
import pickle
import sys
import tempfile
from pathlib import Path

from .paths import BUILD, PathLike

CACHE = BUILD / "loaded"


def _sympy_release() -> bytes:
    """SymPy's release file, read, not imported (a command on a built model never imports it)."""
    spec = importlib.util.find_spec("sympy")
    if spec is None or spec.origin is None:
        return b""
    try:
        return (Path(spec.origin).parent / "release.py").read_bytes()
    except OSError:
        return b""


def entry_key(path: Path, raw: bytes) -> str:
    """What a model read from the file at `path` with bytes `raw` depends on (this module's key,
    and built_model's): without SymPy's import."""
    from .emit.fingerprint import generator_fingerprint
    from .version import __version__

    h = hashlib.sha256()
    for part in (__version__, generator_fingerprint(), sys.version, str(path.resolve())):
        h.update(part.encode() + b"\0")
    h.update(hashlib.sha256(_sympy_release()).digest())
    h.update(hashlib.sha256(raw).digest())
    return h.hexdigest()[:24]


def load_completed(path: PathLike):
    """The model of the mechanism file at `path` with its initial state solved: from the cache
    when this generator loaded these bytes at this path before, else loaded (a ModelError on any
    problem of the file, never cached) and kept."""
    from .model import complete_initial_state, load_model

    path = Path(path)
    try:
        raw = path.read_bytes()
    except OSError:
        return complete_initial_state(load_model(path))  # load_model says what is wrong
    entry = CACHE / f"{entry_key(path, raw)}.pickle"
    try:
        with open(entry, "rb") as f:
            model = pickle.load(f)
        model.path = path  # as the caller named it (messages print it)
        return model
    except Exception:  # noqa: BLE001 - none yet, or stale or torn: load anew and keep it
        pass
    model = complete_initial_state(load_model(path))
    _keep(entry, model)
    return model


def _keep(entry: Path, model) -> None:
    try:
        data = pickle.dumps(model, protocol=pickle.HIGHEST_PROTOCOL)
    except Exception:  # noqa: BLE001 - a model that does not pickle is simply not kept
        return
    write_entry(entry, data)


def write_entry(entry: Path, data: bytes) -> None:
    """Writes a cache entry atomically (a rename): a concurrent reader sees all of it or none.
    One that cannot be written is not kept: a read-only build folder costs time, never a run."""
    try:
        entry.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=entry.parent, prefix=".tmp-", suffix=".pickle")
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, entry)
    except OSError:
        return
