"""What the emitter writes and how: C string literals, and the generated files, all or none."""

import os
import tempfile
from pathlib import Path
from typing import Dict


def c_string(text):
    """A C string literal (names and units are plain ASCII identifiers and unit text)."""
    out = text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", " ")
    return '"' + "".join(ch if 32 <= ord(ch) < 127 else "?" for ch in out) + '"'


def write_atomically(files: Dict[str, str], directory: "os.PathLike") -> None:
    """Write every file or none: render first, then move complete temp files into place. The
    files get the mode a file created here would (0666 less the umask), not mkstemp's 0600."""
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    umask = os.umask(0)
    os.umask(umask)
    temps = []
    try:
        for name, text in files.items():
            fd, tmp = tempfile.mkstemp(prefix=f".{name}.", dir=directory)
            with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as fh:
                fh.write(text)
                os.fchmod(fh.fileno(), 0o666 & ~umask)
            temps.append((tmp, directory / name))
        for tmp, final in temps:
            os.replace(tmp, final)
    finally:
        for tmp, _ in temps:
            if os.path.exists(tmp):
                os.unlink(tmp)
