"""Running a generated model's simulator (library API; `./mcsgen simulate` is its command line).

`run_simulation(model_name, options)` compiles (cached) and runs the C simulator of
generated/<model>/ and returns its JSON summary; the CSV and the event log go where the options
say.
"""

import json
import subprocess
from typing import Optional

from .build import build_simulator
from .errors import McsError
from .paths import PathLike


def run_simulation(
    model_name: str, options: dict, out_csv: Optional[PathLike] = None, progress: bool = False
) -> dict:
    """Build and run the simulator; returns its JSON summary as a dict."""
    exe = build_simulator(model_name)
    cmd = [str(exe)]
    for key, value in options.items():
        if value is None or value is False:
            continue
        flag = "--" + key.replace("_", "-")
        if isinstance(value, (list, tuple)):
            for item in value:
                cmd += [flag, str(item)]
        elif value is True:
            cmd.append(flag)
        else:
            cmd += [flag, str(value)]
    if out_csv:
        cmd += ["--out", str(out_csv)]
    if progress:
        cmd.append("--progress")
    proc = subprocess.run(
        cmd, stdout=subprocess.PIPE, stderr=None if progress else subprocess.PIPE, text=True
    )
    if proc.returncode not in (0, 1) or not proc.stdout.strip():
        err = (proc.stderr or "").strip() or f"exit code {proc.returncode}"
        raise McsError(f"simulation of {model_name} failed: {err}")
    return json.loads(proc.stdout)
