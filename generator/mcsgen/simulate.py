"""Running a generated model's simulator (library API; `./mcsgen simulate` is its command line).

`run_simulation(model_name, options)` compiles (cached) and runs the C simulator of
generated/<model>/ and returns its JSON summary; the CSV and the event log go where the options
say.
"""

import json
import signal
import subprocess
from typing import List, Optional

from .build import build_simulator
from .errors import McsError
from .paths import PathLike


def option_arguments(options: dict) -> List[str]:
    """The simulator's command-line arguments for options keyed by their names in options.py
    (with "_" for "-"): None and False are left out, True is a flag, a list repeats its option,
    a float is written as its shortest round-trip text (the simulator reads back that double)."""
    args = []
    for key, value in options.items():
        if value is None or value is False:
            continue
        flag = "--" + key.replace("_", "-")
        if isinstance(value, (list, tuple)):
            for item in value:
                args += [flag, str(item)]
        elif value is True:
            args.append(flag)
        else:
            args += [flag, repr(value) if isinstance(value, float) else str(value)]
    return args


def run_simulation(
    model_name: str, options: dict, out_csv: Optional[PathLike] = None, progress: bool = False
) -> dict:
    """Build and run the simulator; returns its JSON summary as a dict."""
    exe = build_simulator(model_name)
    cmd = [str(exe)] + option_arguments(options)
    if out_csv:
        cmd += ["--out", str(out_csv)]
    if progress:
        cmd.append("--progress")
    proc = subprocess.Popen(
        cmd, stdout=subprocess.PIPE, stderr=None if progress else subprocess.PIPE, text=True
    )
    try:
        stdout, stderr = proc.communicate()
    except KeyboardInterrupt:
        # Ctrl-C: the simulator stops after its current step, closes its files (a valid,
        # partial CSV) and reports (summary "interrupted"); it may not have had the signal
        # itself when only this process did
        proc.send_signal(signal.SIGINT)
        stdout, stderr = proc.communicate()
    # 0: done, 1: stopped by a failure (the summary says which), 130: interrupted
    if proc.returncode not in (0, 1, 130) or not stdout.strip():
        err = (stderr or "").strip() or f"exit code {proc.returncode}"
        if proc.returncode == 2:  # the simulator refused its arguments (it names the option)
            raise McsError(f"simulate {model_name}: {err.removeprefix('simulate: ')}")
        raise McsError(f"simulation of {model_name} failed: {err}")
    return json.loads(stdout)
