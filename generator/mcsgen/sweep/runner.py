"""Running a sweep: its runs in batches on a Dask cluster (by default a LocalCluster of worker
processes, one per core; or the scheduler the user names), or one after the other in this
process (workers=0: the serial loop); rows written to the CSV as they arrive, --resume.

The solver reaches the workers as bytes: the shared library (simulate) or the analyzer (statics,
modes) is built once here and scattered to every worker, which writes it into its temporary
folder and loads it (worker.py). Shipping the binary rather than the generated sources means
that every worker runs the very code the serial loop runs (bit-for-bit the same results), that a
worker needs no compiler, and that a 1 000-run sweep compiles once, not once per machine. The
price: workers on other machines must be the same architecture with the same Debian libraries
(libc; LAPACK for the lapack backend, none for the portable one), which a cluster of one
Debian image is; a worker that cannot load it reports that as each run's row.

Files: the CSV (a row per run: run, status, message, the parameters, the quantities, seconds)
and the JSON summary next to it (FILE.json), written first with "complete": false and the
sweep's fingerprint, so that an interrupted sweep can be resumed: --resume keeps the rows of
the finished runs and runs the others. When the sweep ends, the CSV is rewritten in run order.
"""

import csv
import hashlib
import io
import json
import logging
import math
import os
import signal
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Dict, List, Optional, Sequence

import numpy as np

from ..errors import Interrupted, McsError
from .worker import COLUMN_FUNCS, EVENT_PREFIXES, STATE_PREFIXES, parse_quantity, run_task
from .design import Design, DesignError

FIXED_COLUMNS = ("run", "status", "message")
FINISHED = ("ok", "failed", "timeout", "refused", "error", "crashed")  # a row is a result
CONNECT_TIMEOUT = "10s"
WORKERS_TIMEOUT = 60  # seconds a scheduler may go without a worker before the sweep gives up
PASSES = 3  # times a run interrupted on its worker is sent again
ANALYSIS_OPTIONS = ("kkt", "use_kc", "max_iter", "tol", "count", "damped")
NOT_IN_A_SWEEP = ("out", "events", "inputs", "progress", "param", "x0", "v0")


@dataclass
class SweepResult:
    """A finished (or resumed) sweep: the header of its CSV, a row per run in run order (a dict
    column -> value: numbers as floats, NaN where a run gave none) and the JSON summary."""

    header: List[str]
    rows: List[dict]
    summary: dict

    def column(self, name: str) -> np.ndarray:
        """(N) the column of every run (NaN where empty)."""
        if name not in self.header:
            raise KeyError(name)
        return np.array([_as_float(r.get(name)) for r in self.rows], dtype=float)

    @property
    def ok(self) -> np.ndarray:
        """(N) True where the run succeeded."""
        return np.array([r["status"] == "ok" for r in self.rows])

    @property
    def failed(self) -> List[dict]:
        return [r for r in self.rows if r["status"] != "ok"]


def _as_float(value) -> float:
    if value is None or value == "":
        return math.nan
    try:
        return float(value)
    except (TypeError, ValueError):
        return math.nan


@dataclass
class Plan:
    """A sweep checked and ready: the program, each run's arguments, the columns, the files."""

    model: str
    kind: str
    design: Design
    argv: List[str]
    quantities: List[str]
    reducer: Optional[Callable]
    program_path: Path
    timeout: Optional[float]
    out: Optional[Path]
    fingerprint: str

    @property
    def header(self) -> List[str]:
        return list(FIXED_COLUMNS) + self.design.names + self.quantities + ["seconds"]


def default_quantities(mechanism, kind: str) -> List[str]:
    """What a run is reduced to when the user names nothing: the final configuration, the
    equilibrium, or the first three frequencies."""
    names = mechanism.coordinates
    if kind == "simulate":
        return [f"final(x.{c})" for c in names]
    if kind == "statics":
        return [f"x({c})" for c in names]
    return ["freq(1)", "freq(2)", "freq(3)"]


def check_quantities(mechanism, kind: str, quantities: Sequence[str], options: dict) -> List[str]:
    """The quantities, each parsed (worker.parse_quantity) and its column or coordinate looked
    up; a DesignError names the bad one."""
    names = mechanism.coordinates
    n = len(names)
    columns = {"t", "energy", "c_norm", "rank"}
    columns |= {f"x.{c}" for c in names} | {f"v.{c}" for c in names}
    columns |= {f"q{i + 1}" for i in range(n)} | {f"qd{i + 1}" for i in range(n)}
    columns |= {f"y.{o.name}" for o in mechanism.model.outputs}
    # each joint's coordinate and rate (runtime/app/mcs_simulate_output.c: j.<joint>, jd.<joint>)
    joints = [j.name for j in mechanism.model.joints if j.coordinate is not None]
    columns |= {f"j.{j}" for j in joints} | {f"jd.{j}" for j in joints}
    more = any(options.get(k) for k in ("reactions", "basis", "momenta"))
    out = []
    for text in quantities:
        try:
            func, arg = parse_quantity(kind, text)
        except ValueError as exc:
            raise DesignError(f"--quantity {text}: {exc}") from None
        if func in COLUMN_FUNCS and arg not in columns and not more:
            example = f"x.{names[0]}" if names else "t"
            raise DesignError(
                f"--quantity {text}: no column '{arg}' in a run's CSV (e.g. {example}, energy, "
                "j.<joint>, y.<output>)"
            )
        if func == "x" and arg not in names:
            raise DesignError(f"--quantity {text}: no coordinate '{arg}' in {mechanism.name}")
        out.append(text.strip())
    if len(set(out)) != len(out):
        raise DesignError("--quantity: a quantity is named twice")
    return out


def check_names(mechanism, design: Design, sources: Dict[str, str], kind: str) -> None:
    """Every parameter of the design is one of the model's and not frozen, the time of a lock or
    unlock (lock@NAME, unlock@NAME: a simulate run's --lock NAME@T) of something the model can
    lock, or a coordinate of the initial state (x0.NAME, v0.NAME: --x0 NAME=V, --v0 NAME=V)."""
    known = mechanism.parameters
    model = mechanism.model
    lockable = set(mechanism.coordinates) | {j.name for j in model.joints}
    lockable |= {g.name for g in model.row_groups}
    for name in design.names:
        option = sources.get(name, "--param")
        event = next((p for p in EVENT_PREFIXES if name.startswith(p)), None)
        if event is not None:
            target = name[len(event) :]
            if kind != "simulate":
                raise DesignError(f"{option} {name}: a {event[:-1]} time is for --run simulate")
            if target not in lockable:
                raise DesignError(
                    f"{option} {name}: {mechanism.name} has no coordinate or joint '{target}' "
                    "to lock"
                )
            if not np.all(design.values[:, design.names.index(name)] > 0):
                raise DesignError(f"{option} {name}: a {event[:-1]} time is > 0")
            continue
        state = next((p for p in STATE_PREFIXES if name.startswith(p)), None)
        if state is not None:
            target = name[len(state) :]
            if kind != "simulate":
                raise DesignError(f"{option} {name}: an initial state is for --run simulate")
            if target not in mechanism.coordinates:
                listed = ", ".join(mechanism.coordinates)
                raise DesignError(
                    f"{option} {name}: {mechanism.name} has no coordinate '{target}' (its "
                    f"coordinates: {listed})"
                )
            continue
        if name not in known:
            listed = ", ".join(known) or "none"
            raise DesignError(
                f"{option} {name}: unknown parameter of {mechanism.name} (its parameters: "
                f"{listed})"
            )
    mechanism.check_params(
        [n for n in design.names if "@" not in n and not n.startswith(STATE_PREFIXES)]
    )
    check_values(mechanism, design, sources)


def check_values(mechanism, design: Design, sources: Dict[str, str]) -> None:
    """Every run's parameter values keep the file's rules on masses and inertias
    (parameter_rules.py), as a simulate's --param does: the first run that breaks one is
    named with its values before anything runs (a sampled mass that can go negative wants a
    truncnormal)."""
    from ..parameter_rules import first_problem

    model = mechanism.model
    names = {p.name for p in model.parameters}
    count = len(design)
    values = {p.name: np.full(count, float(p.exact)) for p in model.parameters}
    for k, name in enumerate(design.names):
        if name in names:
            values[name] = design.values[:, k].astype(float)
    found = first_problem(model.parameter_checks, values)
    if found is None:
        return
    row, field, problem = found
    shown = ", ".join(f"{n}={design.values[row, k]:g}" for k, n in enumerate(design.names))
    options = ", ".join(sorted({sources.get(n, "--param") for n in design.names if n in names}))
    raise DesignError(f"{options}: run {row + 1} ({shown}): {field}: {problem}")


def plan(
    solver,
    design: Design,
    sources: Dict[str, str],
    kind: str = "simulate",
    quantities: Optional[Sequence[str]] = None,
    reducer: Optional[Callable] = None,
    timeout: Optional[float] = None,
    out: Optional[Path] = None,
    options: Optional[dict] = None,
) -> Plan:
    """Everything checked before anything runs or is written (bad input: a DesignError or an
    McsError naming the option)."""
    from ..analyze import analysis_arguments
    from ..build import build_analyzer
    from ..options import option_arguments

    mechanism = solver.mechanism
    options = dict(options or {})
    if kind not in ("simulate", "statics", "modes"):
        raise DesignError(f"--run: simulate, statics or modes, not '{kind}'")
    if timeout is not None and not (isinstance(timeout, (int, float)) and timeout > 0):
        raise DesignError(f"--timeout: a number of seconds > 0, got {timeout}")
    check_names(mechanism, design, sources, kind)
    if quantities is None or (len(quantities) == 0 and reducer is None):
        quantities = default_quantities(mechanism, kind)
    quantities = check_quantities(mechanism, kind, quantities, options)
    if kind == "simulate":
        for key in NOT_IN_A_SWEEP:
            if options.get(key):
                raise DesignError(f"sweep: --{key.replace('_', '-')} is not an option of a sweep")
        bad = sorted(set(options) & set(ANALYSIS_OPTIONS))
        if bad:
            raise DesignError(f"sweep: '{bad[0]}' is an option of statics and modes, not simulate")
        argv = ["simulate"] + option_arguments(solver._simulate_options("sweep", None, options))
        program = Path(solver.library)
    else:
        unknown = sorted(set(options) - set(ANALYSIS_OPTIONS))
        if unknown:
            raise DesignError(f"sweep --run {kind}: unknown option '{unknown[0]}'")
        if kind == "statics" and ("count" in options or "damped" in options):
            raise DesignError("sweep --run statics: count and damped are options of modes")
        use_kc = options.pop("use_kc", True)
        argv = analysis_arguments(
            modes=kind == "modes", statics_kc=use_kc, modes_kc=use_kc, **options
        )
        program = build_analyzer(mechanism.name, gdir=solver.generated_dir)
    if out is not None and Path(out).suffix.lower() == ".json":
        raise DesignError(f"--out {out}: the runs' CSV (its summary goes to FILE.json)")
    # what makes two sweeps the same (--resume): the model, the very program, the run's options,
    # the sets, the quantities, the reducer's code and the timeout
    digest = hashlib.sha256()
    for part in (
        Path(mechanism.path).read_bytes(),
        Path(program).read_bytes(),
        kind.encode(),
        json.dumps(argv).encode(),
        json.dumps(design.names).encode(),
        np.ascontiguousarray(design.values).tobytes(),
        json.dumps(list(quantities)).encode(),
        _code_text(reducer).encode(),
        repr(timeout).encode(),
    ):
        digest.update(hashlib.sha256(part).digest())
    return Plan(
        model=mechanism.name,
        kind=kind,
        design=design,
        argv=argv,
        quantities=list(quantities),
        reducer=reducer,
        program_path=Path(program),
        timeout=None if timeout is None else float(timeout),
        out=None if out is None else Path(out),
        fingerprint=digest.hexdigest(),
    )


def _code_text(reducer) -> str:
    """The reducer's name and code (its bytecode and constants), or "" without one."""
    if reducer is None:
        return ""
    code = getattr(reducer, "__code__", None)
    name = getattr(reducer, "__qualname__", type(reducer).__name__)
    if code is None:
        return name
    return f"{name}:{code.co_code.hex()}:{code.co_consts!r}:{code.co_names!r}"


def _program(path: Path) -> tuple:
    data = path.read_bytes()
    return (path.name, hashlib.sha256(data).hexdigest(), data)


def _batches(to_run: List[int], design: Design, size: int) -> List[List[tuple]]:
    """The runs to_run (their indices) as batches of size runs: [[(index, {param: value})]]."""
    runs = [(i, design.run(i)) for i in to_run]
    return [runs[k : k + size] for k in range(0, len(runs), size)]


def _tcp_parts(address: str):
    """(scheme, host, port text) of a scheduler address, tcp:// when it names none."""
    from urllib.parse import urlsplit

    parts = urlsplit(address if "://" in address else f"tcp://{address}")
    host, _, port = parts.netloc.rpartition(":") if ":" in parts.netloc else (parts.netloc, "", "")
    return parts.scheme, host.strip("[]"), port


def _bad_port(address: str) -> bool:
    """True when a TCP scheduler address gives a port that is not a number 1..65535."""
    scheme, _, port = _tcp_parts(address)
    return scheme == "tcp" and port != "" and not (port.isdigit() and 0 < int(port) < 65536)


def _refused(address: str) -> bool:
    """True when the TCP scheduler at `address` (tcp://HOST:PORT or HOST:PORT) refuses a
    connection at once: nothing listens there. Anything else (a timeout, a name that does not
    resolve, another protocol) is left to Dask's own connect and its message."""
    import socket

    scheme, host, port = _tcp_parts(address)
    if scheme != "tcp" or not host or not port or _bad_port(address):
        return False
    try:
        with socket.create_connection((host, int(port)), timeout=2):
            return False
    except ConnectionRefusedError:
        return True
    except OSError:
        return False


class Cluster:
    """The Dask client of a sweep: a LocalCluster of `workers` processes (one thread each: a
    solver library runs one run at a time), or the scheduler at `scheduler`, or the caller's
    client. Closed (the LocalCluster stopped) on exit."""

    def __init__(self, workers: Optional[int] = None, scheduler: Optional[str] = None, client=None):
        self.client, self.cluster, self.own = client, None, client is None
        if client is not None:
            return
        try:
            from distributed import Client, LocalCluster
        except ImportError:
            raise McsError(
                "sweep: Dask is not installed (Debian's python3-distributed; make deps installs "
                "it), or run serially with --workers 0"
            ) from None
        if scheduler is not None:
            if _bad_port(scheduler):  # Dask's connect would fail after 20 s, with a traceback
                raise McsError(
                    f"--scheduler {scheduler}: expected tcp://HOST:PORT, PORT a number 1..65535"
                )
            if _refused(scheduler):  # Dask would retry a closed port for CONNECT_TIMEOUT
                raise McsError(
                    f"--scheduler {scheduler}: cannot reach the scheduler (connection refused)"
                )
            try:
                self.client = Client(scheduler, timeout=CONNECT_TIMEOUT, set_as_default=False)
            except Exception as exc:  # OSError, TimeoutError, ValueError of a bad address
                text = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
                raise McsError(
                    f"--scheduler {scheduler}: cannot reach the scheduler ({text})"
                ) from None
            try:
                self.client.wait_for_workers(1, timeout=WORKERS_TIMEOUT)
            except Exception:  # TimeoutError (asyncio's or the builtin)
                self.client.close()
                raise McsError(
                    f"--scheduler {scheduler}: no worker joined it in {WORKERS_TIMEOUT} s"
                ) from None
            return
        # the workers ignore Ctrl-C (it is the client's to handle: it cancels their runs), so
        # they are started with SIGINT ignored, which their processes inherit
        previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
        try:
            self.cluster = LocalCluster(
                n_workers=workers or os.cpu_count() or 1,
                threads_per_worker=1,
                processes=True,
                dashboard_address=":0",  # any free port: none of the warnings 8787 taken gives
                silence_logs=logging.ERROR,
            )
        finally:
            signal.signal(signal.SIGINT, previous)
        self.client = Client(self.cluster, set_as_default=False)

    @property
    def nworkers(self) -> int:
        return max(1, len(self.client.scheduler_info().get("workers", {})))

    def close(self):
        if self.own:
            self.client.close()
            if self.cluster is not None:
                self.cluster.close()


class Writer:
    """The CSV of a sweep, a row per finished run appended and flushed as it arrives (a whole
    line per write: an interrupted sweep leaves a valid CSV), and its JSON summary."""

    def __init__(self, plan: Plan, kept: List[dict], header: Optional[List[str]] = None):
        self.plan = plan
        self.path = plan.out
        self.rows: Dict[int, dict] = {int(r["run"]): r for r in kept}
        self.header = header or plan.header
        self.fh = None
        if self.path is not None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self.fh = open(self.path, "w", encoding="utf-8", newline="")
            self.csv = csv.writer(self.fh, lineterminator="\n")
            self.csv.writerow(self.header)
            for i in sorted(self.rows):
                self.csv.writerow(self._cells(self.rows[i]))
            self.fh.flush()

    def _cells(self, row: dict) -> list:
        out = []
        for name in self.header:
            value = row.get(name, "")
            if isinstance(value, float):
                value = "" if math.isnan(value) else repr(value)
            out.append(value)
        return out

    def add(self, outcome: dict) -> Optional[dict]:
        """The row of an outcome, unless its run already has one (a batch a lost worker had
        started and another finished: each run once)."""
        index = outcome["index"]
        if index in self.rows or outcome["status"] not in FINISHED:
            return None
        values = outcome["values"]
        row = {"run": index, "status": outcome["status"], "message": outcome["message"]}
        row.update(self.plan.design.run(index))
        for name in self.plan.quantities:
            row[name] = float(values.get(name, math.nan))
        extra = [k for k in values if k not in self.plan.quantities]  # the reducer's names
        reserved = set(FIXED_COLUMNS) | {"seconds"} | set(self.plan.design.names)
        taken = [k for k in extra if k in reserved]
        if taken:  # a name that is a column of the sweep already: this run's error
            row.update(status="error", message=f"the reducer's name '{taken[0]}' is a column")
        else:
            new = [k for k in extra if k not in self.header]
            if new:
                self._widen(new)
            for name in extra:
                row[name] = float(values[name])
        row["seconds"] = float(outcome["seconds"])
        self.rows[index] = row
        if self.fh is not None:
            self.csv.writerow(self._cells(row))
            self.fh.flush()
        return row

    def _widen(self, names):
        """A reducer's names, known once its first run returns: new columns before seconds (the
        rows so far rewritten with them empty, under another name, then renamed)."""
        self.header = self.header[:-1] + list(names) + ["seconds"]
        if self.fh is not None:
            self.fh.close()
            self._rewrite()
            self.fh = open(self.path, "a", encoding="utf-8", newline="")
            self.csv = csv.writer(self.fh, lineterminator="\n")

    def finish(self) -> None:
        """The CSV rewritten in run order (under another name, then renamed)."""
        if self.fh is None:
            return
        self.fh.close()
        self._rewrite()

    def _rewrite(self) -> None:
        tmp = self.path.with_name(f".{self.path.name}.{os.getpid()}.tmp")
        with open(tmp, "w", encoding="utf-8", newline="") as fh:
            w = csv.writer(fh, lineterminator="\n")
            w.writerow(self.header)
            for i in sorted(self.rows):
                w.writerow(self._cells(self.rows[i]))
        os.replace(tmp, self.path)

    def close(self):
        if self.fh is not None and not self.fh.closed:
            self.fh.close()


def summary_path(out: Path) -> Path:
    return out.with_suffix(".json")


def read_finished(plan: Plan):
    """--resume: the header and the finished rows of the CSV this sweep wrote before (checked
    against its summary's fingerprint); a last line cut short is dropped."""
    path = plan.out
    if path is None:
        raise DesignError("--resume: needs the CSV of the sweep to resume (--out)")
    spath = summary_path(path)
    if not path.exists() or not spath.exists():
        raise DesignError(f"--resume: no sweep to resume at {path} (and {spath.name})")
    try:
        earlier = json.loads(spath.read_text())
    except (OSError, ValueError):
        raise DesignError(f"--resume: {spath}: not a sweep summary") from None
    if earlier.get("fingerprint") != plan.fingerprint:
        raise DesignError(
            f"--resume: {path} is another sweep's (model file, run options, parameter sets or "
            "quantities differ)"
        )
    data = path.read_bytes()
    data = data[: data.rfind(b"\n") + 1]  # a last line cut short (a kill) is dropped
    try:
        lines = list(csv.reader(io.StringIO(data.decode("utf-8"), newline="")))
    except (UnicodeDecodeError, csv.Error):
        raise DesignError(f"--resume: {path}: not a sweep CSV") from None
    header = lines[0] if lines else []
    planned = plan.header
    if header[: len(planned) - 1] != planned[:-1] or header[-1:] != ["seconds"]:
        raise DesignError(f"--resume: {path}: its columns are not this sweep's")
    if len(header) > len(planned) and plan.reducer is None:
        raise DesignError(f"--resume: {path}: its columns are not this sweep's")
    rows = []
    for cells in lines[1:]:
        if len(cells) != len(header) or cells[1] not in FINISHED or not cells[0].isdigit():
            continue
        row = dict(zip(header, cells))
        for name in header:
            if name not in ("status", "message"):
                row[name] = int(row[name]) if name == "run" else _as_float(row[name])
        if row["run"] < len(plan.design):
            rows.append(row)
    return header, rows


def _summary(plan: Plan, writer: Writer, started: float, complete: bool, where: str) -> dict:
    rows = writer.rows
    statuses: Dict[str, int] = {}
    for r in rows.values():
        statuses[r["status"]] = statuses.get(r["status"], 0) + 1
    elapsed = time.monotonic() - started
    stats = {}
    for name in writer.header[len(FIXED_COLUMNS) + len(plan.design.names) : -1]:
        values = np.array(
            [r[name] for r in rows.values() if r["status"] == "ok" and name in r], dtype=float
        )
        values = values[np.isfinite(values)]
        if values.size:
            stats[name] = {
                "min": float(values.min()),
                "max": float(values.max()),
                "mean": float(values.mean()),
                "std": float(values.std()),
                "count": int(values.size),
            }
    return {
        "model": plan.model,
        "run": plan.kind,
        "complete": complete,
        "runs": len(plan.design),
        "finished": len(rows),
        "ok": statuses.get("ok", 0),
        "failed": len(rows) - statuses.get("ok", 0),
        "statuses": statuses,
        "design": plan.design.description,
        "parameters": plan.design.names,
        "quantities": plan.quantities,
        "argv": plan.argv,
        "where": where,
        "seconds": elapsed,
        "fingerprint": plan.fingerprint,
        "stats": stats,
    }


def _write_summary(plan: Plan, summary: dict) -> None:
    if plan.out is None:
        return
    path = summary_path(plan.out)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(json.dumps(summary, indent=1) + "\n")
    os.replace(tmp, path)


def execute(
    plan: Plan,
    workers: Optional[int] = None,
    scheduler: Optional[str] = None,
    client=None,
    resume: bool = False,
    batch: Optional[int] = None,
    progress: Optional[Callable[[int, int, int, float], None]] = None,
) -> SweepResult:
    """Run the plan (module docstring): workers=0 runs serially in this process. progress(done,
    total, failed, seconds) after each batch. Ctrl-C cancels the runs under way and raises
    Interrupted with the finished rows written (--resume completes them)."""
    if workers is not None and (not isinstance(workers, int) or workers < 0):
        raise DesignError(f"--workers: a whole number >= 0, got {workers}")
    if batch is not None and (not isinstance(batch, int) or batch < 1):
        raise DesignError(f"--batch: a whole number >= 1, got {batch}")
    if workers == 0 and (scheduler is not None or client is not None):
        raise DesignError("--workers 0 runs in this process: no --scheduler")
    header, kept = read_finished(plan) if resume else (None, [])
    done = {int(r["run"]) for r in kept}
    to_run = [i for i in range(len(plan.design)) if i not in done]
    cluster = None if workers == 0 else Cluster(workers, scheduler, client)
    try:
        where = "serial" if cluster is None else _where(cluster, scheduler)
        nworkers = 1 if cluster is None else cluster.nworkers
        # serially a run is a batch (its row written as it ends); on a cluster about 8 batches
        # a worker, at most 64 runs each, so that Dask's cost per task is paid once a batch
        size = 1 if cluster is None else batch or max(1, min(64, len(to_run) // (8 * nworkers)))
        program = _program(plan.program_path)
        writer = Writer(plan, kept, header)  # only now: nothing is written before the checks pass
        started = time.monotonic()
        _write_summary(plan, _summary(plan, writer, started, False, where))
        task = {
            "kind": plan.kind,
            "argv": plan.argv,
            "quantities": plan.quantities,
            "reducer": plan.reducer,
            "timeout": plan.timeout,
        }
        failed = sum(1 for r in writer.rows.values() if r["status"] != "ok")
        pending, passes = to_run, 0
        try:
            # a run a worker's Ctrl-C stopped (its batch ends there) has no row: it is sent
            # again, up to PASSES times
            while pending and passes < PASSES:
                batches = _batches(pending, plan.design, size)
                if cluster is None:
                    outcomes = (run_task(dict(task, runs=b), program) for b in batches)
                else:
                    outcomes = _on_cluster(cluster.client, task, batches, program, plan.fingerprint)
                for batch_outcomes in outcomes:
                    for o in batch_outcomes:
                        if cluster is None and o["status"] == "interrupted":
                            raise KeyboardInterrupt  # Ctrl-C stopped the run in this process
                        row = writer.add(o)
                        failed += row is not None and row["status"] != "ok"
                    if progress is not None:
                        seconds = time.monotonic() - started
                        progress(len(writer.rows), len(plan.design), failed, seconds)
                pending = [i for i in to_run if i not in writer.rows]
                passes += 1
        except KeyboardInterrupt:
            writer.close()
            _write_summary(plan, _summary(plan, writer, started, False, where))
            raise Interrupted(
                f"sweep: interrupted after {len(writer.rows)} of {len(plan.design)} runs"
                + (f" (--resume completes {plan.out})" if plan.out else "")
            ) from None
        finally:
            writer.close()
        writer.finish()
        summary = _summary(plan, writer, started, not pending, where)
        summary["missing"] = len(pending)
        summary["workers"] = nworkers
        summary["batch"] = size
        summary["runs_per_second"] = len(to_run) / max(summary["seconds"], 1e-9)
        _write_summary(plan, summary)
    finally:
        if cluster is not None:
            cluster.close()
    rows = [writer.rows[i] for i in sorted(writer.rows)]
    return SweepResult(writer.header, rows, summary)


def _where(cluster: Cluster, scheduler: Optional[str]) -> str:
    if scheduler is not None:
        return f"scheduler {scheduler}"
    if cluster.cluster is None:
        return "the caller's client"
    return f"LocalCluster of {cluster.nworkers} worker processes"


def _on_cluster(client, task: dict, batches, program: tuple, fingerprint: str):
    """Each batch's outcomes as its task finishes (any order). A batch whose workers died is
    run again: Dask reruns a lost worker's tasks elsewhere (KilledWorker when a task has killed
    several: its runs are rows "crashed"), and a batch cancelled because every worker holding
    the scattered program was lost (workers that come and go, or a run that kills its worker)
    is sent again with the program scattered anew, up to PASSES times. A run lost that way may
    only have shared the worker of the run that killed it (queued behind it), so each run of
    such a batch is then sent once more alone, with nothing else running: only a run that loses
    its worker alone is "crashed". The futures are cancelled on the way out."""
    import cloudpickle
    from distributed import as_completed
    from distributed.scheduler import KilledWorker

    worker = sys.modules[run_task.__module__]
    read_c_json = sys.modules[worker.c_json.__module__]
    for module in (worker, read_c_json):  # the workers need no mcsgen (worker.py)
        cloudpickle.register_pickle_by_value(module)
    shipped = [client.scatter([program], broadcast=True, hash=False)[0]]
    futures: Dict = {}  # future -> (runs, times sent)

    def submit(runs, sent):
        key = f"mcsgen-sweep-{fingerprint[:12]}-{runs[0][0]}-{time.monotonic_ns()}"
        future = client.submit(run_task, dict(task, runs=runs), shipped[0], key=key, pure=False)
        futures[future] = (runs, sent)
        return future

    def rescatter():
        if shipped[0].status != "finished":  # every replica was lost
            shipped[0] = client.scatter([program], broadcast=True, hash=False)[0]

    def lost_with_worker(future, exc):
        return future.cancelled() or type(exc).__name__ == "CancelledError"

    def alone(run):
        """One run sent by itself until it finishes, or is lost with its worker PASSES times."""
        for _ in range(PASSES):
            rescatter()
            future = submit([run], 1)
            try:
                return future.result()
            except KilledWorker as exc:
                return [_lost(run[0], "crashed", f"the run killed its worker ({exc})")]
            except Exception as exc:
                if not lost_with_worker(future, exc):
                    text = f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"
                    return [_lost(run[0], "error", text)]
        text = f"the workers running it were lost each of the {PASSES} times it was sent alone"
        return [_lost(run[0], "crashed", text)]

    for runs in batches:
        submit(runs, 1)
    pending = as_completed(list(futures), loop=client.loop)
    suspects = []  # runs lost with their workers, to be sent again alone
    try:
        for future in pending:
            runs, sent = futures[future]
            try:
                yield future.result()
            except KilledWorker:
                suspects += runs
            except Exception as exc:  # cancelled (the program lost), cannot load it, ...
                if lost_with_worker(future, exc):
                    if sent < PASSES:
                        rescatter()
                        pending.add(submit(runs, sent + 1))
                        continue
                    suspects += runs
                    continue
                text = f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"
                yield [_lost(i, "error", text) for i, _ in runs]
        for run in suspects:  # one at a time: a death is then this run's own
            yield alone(run)
    finally:
        client.cancel(list(futures))
        for module in (worker, read_c_json):
            cloudpickle.unregister_pickle_by_value(module)


def _lost(index: int, status: str, message: str) -> dict:
    return {"index": index, "status": status, "message": message, "values": {}, "seconds": 0.0}
