"""What a worker does for a sweep: run a batch of parameter sets through the compiled solver and
reduce each run to the few numbers the user named, so that only those travel back.

Self-contained on purpose: the standard library, NumPy and mcsgen's cjson.py (the C programs'
JSON) only. The client sends this module and cjson.py to the workers by value
(cloudpickle.register_pickle_by_value in runner.py), so a worker on another machine needs Python,
NumPy and Dask (docs/setup.md's packages) but not mcsgen; the solver comes as a Program, the
bytes of the compiled library (or of the analyzer executable for statics and modes) built once on
the client, written once per worker process into its temporary folder under its SHA-256 and loaded
from there.

A run's outcome is a row: its status ("ok"; "failed": the solver stopped on a failure, the
summary says which; "timeout"; "refused": the simulator rejected an argument for these values;
"error": the reduction raised), a message, the quantities and the run's wall time.
"""

import ctypes
import hashlib
import math
import os
import re
import stat
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from typing import Dict, List

import numpy as np

from ..cjson import loads as c_json  # sent by value with this module (runner.py)

CHANNELS = ("csv", "events", "summary")  # mcs_simulate_run's channels 0, 1, 2

# A quantity a run is reduced to: FUNC(ARG) or a NAME (docs/reference/sweeps.md). By kind of run:
# the functions of a column over the run's rows, of the K-th event (1-based), of a coordinate or the
# K-th mode; scalars from the summary or the analysis.
COLUMN_FUNCS = ("final", "max", "min", "maxabs", "mean")
QUANTITIES = {
    "simulate": {
        "functions": COLUMN_FUNCS + ("t_event", "energy_lost"),
        "scalars": ("steps", "t_reached", "energy_drift", "events"),
    },
    "statics": {
        "functions": ("x", "lambda"),
        "scalars": ("iterations", "residual_c", "residual_f"),
    },
    "modes": {
        "functions": ("x", "lambda", "freq", "omega", "zeta"),
        "scalars": ("iterations", "residual_c", "residual_f", "count"),
    },
}
QUANTITY_FORM = re.compile(r"^([a-z_]+)(?:\(([^()]+)\))?$")
INDEXED = ("t_event", "energy_lost", "lambda", "freq", "omega", "zeta")  # take K >= 1


def parse_quantity(kind: str, text: str):
    """(function, argument) of a quantity's text, or a ValueError saying what is wrong with it
    (the argument of an indexed function is the whole number K >= 1)."""
    match = QUANTITY_FORM.match(text.strip())
    table = QUANTITIES[kind]
    if not match:
        raise ValueError(f"'{text}' is not NAME or FUNC(ARG)")
    func, arg = match.group(1), match.group(2)
    if arg is None:
        if func not in table["scalars"]:
            known = ", ".join(table["scalars"] + tuple(f"{f}(...)" for f in table["functions"]))
            raise ValueError(f"unknown quantity '{text}' of a {kind} run (known: {known})")
        return func, None
    if func not in table["functions"]:
        known = ", ".join(f"{f}(...)" for f in table["functions"])
        raise ValueError(f"unknown function '{func}' of a {kind} run (known: {known})")
    arg = arg.strip()
    if func in INDEXED:
        if not arg.isdigit() or int(arg) < 1:
            raise ValueError(f"'{text}': {func} takes a whole number K >= 1")
        return func, int(arg)
    return func, arg


# What crosses to a worker and back is plain data (tuples, dicts, lists), never a class of this
# module: a worker unpickles it without importing mcsgen.
#
# program: (name, sha256, bytes), a compiled program the workers run: the solver library
#   (simulate) or the analyzer executable (statics, modes), named by its SHA-256.
# task: a batch of runs of one kind with the same options, a dict:
#   kind       simulate | statics | modes
#   argv       the program's arguments but the parameters (built on the client)
#   runs       [(index, {param: value})]
#   quantities [text] (parse_quantity)
#   reducer    the API's callable (given a SweepRun, or the analysis's JSON) or None
#   timeout    seconds per run, or None
# outcome: a dict: index, status, message, values {quantity: number}, seconds, worker.


@dataclass
class SweepRun:
    """What a simulate run gives the API's reducer: its parameters, the CSV's columns by name
    (t, x.<coordinate>, v.<coordinate>, energy, y.<output>, ...; each (N)), the event log and the
    JSON summary (as Solver.simulate's Run has them)."""

    params: Dict[str, float]
    columns: Dict[str, np.ndarray]
    events: List[dict]
    summary: dict

    @property
    def t(self) -> np.ndarray:
        return self.columns["t"]


def _state() -> dict:
    """This process's programs: "paths" sha256 -> the program's file, "libraries" sha256 ->
    (CDLL, its lock: one run at a time per library). Kept on the sys module, not in this
    module's globals: a task's functions arrive by value with a copy of those (and a ctypes
    object cannot be pickled at all), while the cache and the lock must be the process's."""
    return sys.__dict__.setdefault(
        "_mcsgen_sweep_state", {"paths": {}, "libraries": {}, "lock": threading.RLock()}
    )


def _text_fn():
    return ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_int, ctypes.c_char_p)


def _private_folder() -> str:
    """This user's folder for the programs: /tmp/mcsgen-sweep-<uid>, used only when it is a
    directory (not a link) of this user that no one else can write to; else a fresh one of
    this process's."""
    folder = os.path.join(tempfile.gettempdir(), f"mcsgen-sweep-{os.getuid()}")
    try:
        os.makedirs(folder, mode=0o700, exist_ok=True)
        st = os.lstat(folder)
        if stat.S_ISDIR(st.st_mode) and st.st_uid == os.getuid() and not st.st_mode & 0o077:
            return folder
    except OSError:
        pass
    return tempfile.mkdtemp(prefix="mcsgen-sweep-")


def _sha256_of(path: str) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _materialize(program: tuple) -> str:
    """The program's file in this process: written once (under another name, then renamed),
    and a file already there loaded only if its SHA-256 is the program's."""
    name, sha256, data = program
    state = _state()
    with state["lock"]:
        path = state["paths"].get(sha256)
        if path is None:
            path = os.path.join(_private_folder(), f"{sha256[:32]}-{name}")
            if not os.path.exists(path) or _sha256_of(path) != sha256:
                tmp = f"{path}.{os.getpid()}.{threading.get_ident()}.tmp"
                with open(tmp, "wb") as fh:
                    fh.write(data)
                os.chmod(tmp, 0o700)
                os.replace(tmp, path)
            state["paths"][sha256] = path
    return path


def _library(program: tuple):
    state = _state()
    entry = state["libraries"].get(program[1])
    if entry is None:
        lib = _load(program)
        with state["lock"]:
            entry = state["libraries"].setdefault(program[1], (lib, threading.Lock()))
    return entry


def _load(program: tuple):
    lib = ctypes.CDLL(_materialize(program))
    lib.mcs_simulate_run.restype = ctypes.c_int
    lib.mcs_simulate_run.argtypes = [
        ctypes.c_int,
        ctypes.POINTER(ctypes.c_char_p),
        _text_fn(),
        ctypes.c_void_p,
        ctypes.c_char_p,
        ctypes.c_size_t,
    ]
    lib.mcs_simulate_stop.restype = None
    return lib


EVENT_PREFIXES = ("lock@", "unlock@")  # a design variable that is the time of a --lock/--unlock
STATE_PREFIXES = ("x0.", "v0.")  # one that is a coordinate of the initial state (--x0, --v0)


def param_arguments(params: Dict[str, float]) -> List[str]:
    """--param NAME=VALUE for each, the value as the text that reads back to the same double;
    lock@NAME=T and unlock@NAME=T as --lock NAME@T and --unlock NAME@T; x0.NAME=V and v0.NAME=V
    as --x0 NAME=V and --v0 NAME=V."""
    out = []
    for name, value in params.items():
        for prefix in EVENT_PREFIXES:
            if name.startswith(prefix):
                out += [f"--{prefix[:-1]}", f"{name[len(prefix):]}@{float(value)!r}"]
                break
        else:
            for prefix in STATE_PREFIXES:
                if name.startswith(prefix):
                    out += [f"--{prefix[:-1]}", f"{name[len(prefix):]}={float(value)!r}"]
                    break
            else:
                out += ["--param", f"{name}={float(value)!r}"]
    return out


def run_task(task: dict, program: tuple) -> List[dict]:
    """The outcome of every run of the batch, in order; never raises for a run (its failure is
    its row)."""
    host = f"{os.uname().nodename}:{os.getpid()}"
    out = []
    for index, params in task["runs"]:
        started = time.perf_counter()
        try:
            if task["kind"] == "simulate":
                status, message, values = _simulate(task, program, params)
            else:
                status, message, values = _analyze(task, program, params)
        except Exception as exc:  # the reducer's or the reading's: this run's row, not the end
            status, message, values = "error", f"{type(exc).__name__}: {exc}", {}
        out.append(
            {
                "index": index,
                "status": status,
                "message": message,
                "values": values,
                "seconds": time.perf_counter() - started,
                "worker": host,
            }
        )
        if status == "interrupted":  # Ctrl-C reached this process: the batch ends here
            break
    return out


def _simulate(task: dict, program: tuple, params):
    lib, lock = _library(program)
    argv = task["argv"] + param_arguments(params)
    pieces: Dict[str, list] = {c: [] for c in CHANNELS}

    def receive(_ctx, channel, data):
        pieces[CHANNELS[channel]].append(data.decode())

    callback = _text_fn()(receive)
    args = (ctypes.c_char_p * len(argv))(*(a.encode() for a in argv))
    error = ctypes.create_string_buffer(1024)
    timer, timed_out, returned = None, threading.Event(), threading.Event()
    with lock:  # the library's workspace is static: one run at a time in a process
        if task["timeout"] is not None:

            def stop():
                # again and again until the run returns: a run clears the request when it
                # starts, and a deadline may fall in its set-up
                timed_out.set()
                while not returned.is_set():
                    lib.mcs_simulate_stop()
                    returned.wait(0.01)

            timer = threading.Timer(task["timeout"], stop)
            timer.daemon = True
            timer.start()
        try:
            code = lib.mcs_simulate_run(len(argv), args, callback, None, error, len(error))
        finally:
            returned.set()
            if timer is not None:
                timer.cancel()
    if code == 2:
        return "refused", error.value.decode().removeprefix("simulate: "), {}
    summary = c_json("".join(pieces["summary"]))
    if code == 130:
        if timed_out.is_set():
            return (
                "timeout",
                f"stopped at t = {summary['t_reached']:.6g} s after {task['timeout']:g} s",
                {},
            )
        return "interrupted", "interrupted", {}
    if not summary.get("ok"):
        problems = "; ".join(summary.get("problems") or [])
        return "failed", summary.get("status", "failed") + (f": {problems}" if problems else ""), {}
    events_text = "".join(pieces["events"]).strip()
    run = SweepRun(
        params=dict(params),
        columns=read_columns("".join(pieces["csv"])),
        events=c_json(events_text) if events_text else [],
        summary=summary,
    )
    values = {q: simulate_quantity(run, q) for q in task["quantities"]}
    if task["reducer"] is not None:
        values.update(_reduced(task["reducer"](run)))
    return "ok", "ok", values


def _analyze(task: dict, program: tuple, params):
    cmd = [_materialize(program)] + task["argv"] + param_arguments(params)
    try:
        proc = subprocess.run(
            cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=task["timeout"]
        )
    except subprocess.TimeoutExpired:
        return "timeout", f"stopped after {task['timeout']:g} s", {}
    if proc.returncode not in (0, 1) or not proc.stdout.strip():
        return (
            "refused",
            (proc.stderr.strip() or f"exit code {proc.returncode}").splitlines()[0],
            {},
        )
    result = c_json(proc.stdout)
    statics = result["statics"]
    if statics["status"] != 0:
        return "failed", f"statics: {statics['message']}", {}
    if task["kind"] == "modes":
        modes = result.get("modes", {"status": -1, "message": "no modes"})
        if modes["status"] != 0:
            return "failed", f"modes: {modes['message']}", {}
    values = {q: analysis_quantity(result, q) for q in task["quantities"]}
    if task["reducer"] is not None:
        values.update(_reduced(task["reducer"](result)))
    return "ok", "ok", values


def _reduced(value) -> Dict[str, float]:
    """The reducer's result as named numbers: a number is "value", a mapping is kept."""
    if isinstance(value, dict):
        return {str(k): float(v) for k, v in value.items()}
    return {"value": float(value)}


def read_columns(text: str) -> Dict[str, np.ndarray]:
    """The simulator's CSV text -> column name -> (N) array (empty cells NaN)."""
    lines = text.splitlines()
    header = lines[0].split(",")
    data = np.array(
        [[float(v) if v != "" else math.nan for v in line.split(",")] for line in lines[1:]],
        dtype=float,
    ).reshape(len(lines) - 1, len(header))
    return {name: data[:, i] for i, name in enumerate(header)}


def simulate_quantity(run: SweepRun, text: str) -> float:
    func, arg = parse_quantity("simulate", text)
    if func in COLUMN_FUNCS:
        if arg not in run.columns:
            raise KeyError(f"no column '{arg}' in the run's CSV")
        col = run.columns[arg]
        return float(
            {
                "final": lambda c: c[-1],
                "max": np.nanmax,
                "min": np.nanmin,
                "maxabs": lambda c: np.nanmax(np.abs(c)),
                "mean": np.nanmean,
            }[func](col)
        )
    if func == "t_event":
        return float(run.events[arg - 1]["t"]) if arg <= len(run.events) else math.nan
    if func == "energy_lost":  # the K-th transition's kinetic energy before less after
        moves = [e for e in run.events if e.get("kind") in ("lock", "unlock")]
        if arg > len(moves):
            return math.nan
        return float(moves[arg - 1]["kinetic_before"] - moves[arg - 1]["kinetic_after"])
    if func == "events":
        return float(len(run.events))
    value = run.summary.get(func)
    return math.nan if value is None else float(value)


def analysis_quantity(result: dict, text: str) -> float:
    kind = "modes" if "modes" in result else "statics"
    func, arg = parse_quantity(kind, text)
    statics = result["statics"]
    if func == "x":
        names = result["coordinates"]
        if arg not in names:
            raise KeyError(f"no coordinate '{arg}'")
        return float(result["x"][names.index(arg)])
    if func == "lambda":
        lam = result["lambda"]
        return float(lam[arg - 1]) if arg <= len(lam) else math.nan
    if func in ("freq", "omega", "zeta"):
        modes = result["modes"].get("list", [])
        return float(modes[arg - 1][func]) if arg <= len(modes) else math.nan
    if func == "count":
        return float(len(result["modes"].get("list", [])))
    return float(statics[func])
