"""The generator's fingerprint: a short hash of every source that shapes generated output, so
that output is regenerated whenever that code changes, not only when the version number does."""

import hashlib

from ..paths import PACKAGE, TEMPLATES

# The parts of the package that shape generated output (the CLI, the self-check, outputs and the
# build helpers do not; enums.py gives the descriptor's enumerators).
SHAPING = ("__init__.py", "enums.py", "generate.py", "model", "derive", "emit")


def shaping_files() -> list:
    """The files hashed, in a fixed order: the shaping modules, then the templates."""
    files = []
    for entry in SHAPING:
        path = PACKAGE / entry
        files += sorted(path.rglob("*.py")) if path.is_dir() else [path]
    return files + sorted(TEMPLATES.glob("*.j2"))


def generator_fingerprint() -> str:
    h = hashlib.sha256()
    for f in shaping_files():
        h.update(f.relative_to(PACKAGE.parents[1]).as_posix().encode())
        h.update(f.read_bytes())
    return h.hexdigest()[:12]
