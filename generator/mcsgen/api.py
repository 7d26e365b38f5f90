"""The Python way in (docs/reference/python-api.md): load a mechanism file, build its solver, run it
in-process and get NumPy arrays, without CSV files.

    import mcsgen
    model = mcsgen.load("models/slider_crank.yaml")      # or a shipped model's name
    solver = model.build(backend="portable")             # "lapack" or "portable" (default: by size)
    run = solver.simulate(t_end=5, method="dopri5", params={"g": 9.0})
    run.t, run.x, run.q, run.energy, run.events

`build` generates the model's C when it is not up to date (the shipped models' committed
generated/, a file of yours into build/generated/<model>/<key>/, a folder per file) and compiles
the simulate driver with it as a shared library (build/<model>/libsimulate_<model>_<backend>.so,
for a file of yours build/<model>/at-<key>/..., cached like the command line's executable): two
files that share a model name are two solvers, in one process too. `simulate` calls that library
through ctypes: the very program `./mcsgen simulate` runs, with its CSV, event log and summary
handed back in memory instead of written, so a run's numbers are the command line's to the last
bit (the CSV's 17 significant digits read back are the doubles). It takes the options of
`./mcsgen simulate` (options.py) as keyword arguments, with `params`, `lock` and `unlock` as a
dict and lists. The command line's `simulate` is built on it.
`statics` and `modes` run the compiled analyzer of `./mcsgen statics`/`modes` (analyze.py) in a
child process and return its results as NumPy arrays.
"""

import ctypes
import hashlib
import io
import numbers
import os
import re
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Dict, List, Optional, Tuple

import numpy as np

from . import cjson
from .enums import method_is
from .errors import Interrupted, McsError
from .paths import model_path

if TYPE_CHECKING:  # for the hints only
    from .stepper import Stepper
    from .sweep import SweepResult

CHANNELS = ("csv", "events", "summary")  # what mcs_simulate_run passes on channels 0, 1, 2
LARGE_CSV = 1 << 30  # a CSV past this size is said (simulate_to_files' large)
SAMPLE_ROWS = 20  # the rows a CSV's size is told from (simulate_to_files' header)
TEXT_FN = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_int, ctypes.c_char_p)


def load(path_or_name) -> "Mechanism":
    """A mechanism file (a path, or the name of a shipped model in models/), validated: a
    ModelError names the file, the field and the problem."""
    from .model_cache import load_completed

    path = model_path(str(path_or_name))
    if not path.exists():
        raise McsError(f"{path}: no such mechanism file")
    return Mechanism(load_completed(path), path)


@dataclass
class Event:
    """One entry of the event log: a singular configuration (kind "singular": t, sigma,
    rank_before, rank_after, rdiag, x, continued, motions) or a transition (kind "lock" or
    "unlock": t, target, impulse, kinetic_before, kinetic_after, dv, momenta_before/after, ...).
    Every field of the JSON entry is an attribute."""

    kind: str
    t: float
    data: dict = field(repr=False)

    def __getattr__(self, name):
        try:
            return self.__dict__["data"][name]
        except KeyError:
            raise AttributeError(name) from None


ENERGY_WARNING = 0.01  # relative change of T + V that makes a conservative run meaningless


def run_warnings(summary: dict) -> List[str]:
    """What the error indicators of a run say about its result, one line each (empty when
    nothing is wrong): the energy of a model that conserves it (the summary's energy_balance,
    decided at generation: model/energy.py) changed by more than ENERGY_WARNING relative. A rise
    the simulator itself calls a problem (the summary's "problems", which make the run not ok)
    is not repeated here. Run.warnings, and `./mcsgen simulate` prints them."""
    drift = summary.get("energy_drift_rel")
    if drift is None or drift <= ENERGY_WARNING or summary.get("energy_balance") != "conserved":
        return []
    if summary.get("problems"):
        return []
    fixed = not method_is(summary["method"], "adaptive")
    fix = "a smaller --h" if fixed else "a smaller --rtol"
    return [
        f"the energy of {summary['model']}, which physics conserves, changed by {drift:.0%} over "
        f"the run: the result is meaningless at this step (h = {summary['h']:g}); try {fix}"
    ]


@dataclass
class Run:
    """A simulated run, in arrays of rows (N rows: the initial state, then each step or each
    --dt-out time). x, v (N x n); q, qd (N x n: the minimal coordinates, the first f = n - rank
    of each row, NaN after); energy (N, or None without a potential); c_norm, rank (N);
    columns: every CSV column by name (as the command line's CSV); events: [Event];
    summary: the JSON summary (steps, energy drift, ...)."""

    model: str
    coordinates: List[str]
    t: np.ndarray
    x: np.ndarray
    v: np.ndarray
    q: np.ndarray
    qd: np.ndarray
    energy: Optional[np.ndarray]
    c_norm: np.ndarray
    rank: np.ndarray
    columns: Dict[str, np.ndarray] = field(repr=False)
    events: List[Event] = field(repr=False)
    summary: dict = field(repr=False)

    @property
    def ok(self) -> bool:
        return bool(self.summary["ok"])

    @property
    def warnings(self) -> List[str]:
        """What makes an ok run's result doubtful (run_warnings): energy a conservative model
        lost or gained at this step."""
        return run_warnings(self.summary)

    @property
    def outputs(self) -> Dict[str, np.ndarray]:
        """The file's outputs (`outputs:`), name -> (N): the CSV's y.<name> columns."""
        return {k[2:]: a for k, a in self.columns.items() if k.startswith("y.")}


@dataclass
class Statics:
    """A static equilibrium (Solver.statics), read from the analyzer's JSON."""

    x: np.ndarray  # (n) the equilibrium configuration
    lam: np.ndarray  # (m) the constraint multipliers there
    ok: bool
    message: str  # the runtime's status text ("ok", or why not)
    iterations: int
    rank: int
    residual_c: float  # |c(x)|
    residual_f: float  # |f - A^T lambda| (reduced)
    reactions: Dict[str, Dict[str, float]]  # joint -> {coordinate of body1: reaction}
    # joint -> (force, moment) it exerts on its body 2 (world frame, the moment about its point
    # on body 2): (2) and (1) planar, (3) and (3) spatial; {} without the reactions kernels
    wrenches: Dict[str, Tuple[np.ndarray, np.ndarray]]
    result: dict  # the analyzer's whole JSON (./mcsgen statics --json)


@dataclass
class Modes:
    """Vibration modes about an equilibrium (Solver.modes)."""

    statics: Statics  # the equilibrium they are about
    ok: bool
    message: str
    eigenvalues: np.ndarray  # (k) complex s: +-i omega undamped, re + i im damped
    omega: np.ndarray  # (k) rad/s
    freq: np.ndarray  # (k) Hz
    zeta: np.ndarray  # (k) damping ratios
    kinds: List[str]  # (k) oscillating | unstable | decaying | rigid
    shapes: np.ndarray  # (n x k) mode shapes in the coordinates (real parts)
    result: dict


class Mechanism:
    """A loaded mechanism file: `model` is the validated Model (coordinates, parameters, ...)."""

    def __init__(self, model, path):
        self.model = model
        self.path = Path(path)

    @property
    def name(self) -> str:
        return self.model.name

    @property
    def coordinates(self) -> List[str]:
        return [c.name for c in self.model.coordinates]

    @property
    def parameters(self) -> Dict[str, float]:
        return {p.name: p.value for p in self.model.parameters}

    def check_params(self, names, option: str = "--param") -> None:
        """Refuse parameters the mechanism file's `freeze:` list made constants at generation
        (Model.frozen_parameters): a new value would change nothing. option: how the message
        names them ("--param", "params", a sweep's "--grid")."""
        for name in names:
            where = self.model.frozen_parameters.get(name)
            if where is not None:
                raise McsError(
                    f"{self.path}: {option} {name}: frozen at generation ({where}): change its "
                    "value in the model file, or take it off the freeze list, and regenerate"
                )

    def check_param_values(self, given: Dict[str, object], option: str) -> None:
        """Refuse run-time parameter values as the file's would be: a parameter frozen at
        generation (check_params), a value that is not a finite
        real number, or that breaks a rule of the file's masses and inertias
        (parameter_rules.py: a negative mass, an inertia that is not positive definite).
        given: {name: value} (a number, or the command line's text); option: how the message
        names them ("--param", "params"). Names the model does not have are the simulator's to
        refuse."""
        from .parameter_rules import first_problem

        self.check_params(list(given), option)
        values = {p.name: float(p.exact) for p in self.model.parameters}
        for name, value in given.items():
            if name not in values:
                continue
            number = _finite_number(value)
            if number is None:
                raise McsError(f"{self.path}: {option} {name}={value!s}: not a finite real number")
            values[name] = number
        found = first_problem(
            self.model.parameter_checks, {k: np.array([v]) for k, v in values.items()}
        )
        if found is not None:
            _, field, problem = found
            shown = ", ".join(f"{k}={v!s}" for k, v in given.items() if k in values)
            raise McsError(f"{self.path}: {option} {shown}: {field}: {problem}")

    def build(self, backend: Optional[str] = None, kernels: Optional[str] = None) -> "Solver":
        """Generate (when not up to date) and compile the in-process solver. backend: "lapack"
        or "portable" (default: $MCS_LINALG, else by size: portable below
        build.PORTABLE_BELOW coordinates, LAPACK from there on). kernels: the kernel sets to
        carry, as `generate --kernels` takes them ("all": every set; the default is a host
        build's, every set but linearization plus the file's `kernels:`): a solver that
        linearizes needs "all" or "linearization,..." (model/kernel_sets.py). Another choice
        than the default is generated into a folder of its own under build/generated-kernels/."""
        from .build import build_simulator_library, model_linalg_backend
        from .generate import choose_kernel_sets, generate
        from .model import kernel_sets
        from .paths import BUILD, file_key

        if backend not in (None, "lapack", "portable"):
            raise McsError(f"build: backend must be 'lapack' or 'portable', not '{backend}'")
        if kernels is None or choose_kernel_sets(self.model, False, kernels) == kernel_sets.host(
            self.model
        ):
            _, gdir, _ = generate(self.path, model=self.model)
        else:  # a folder per file and choice: two choices are two solvers
            label = kernel_sets.label(choose_kernel_sets(self.model, False, kernels))
            tag = hashlib.sha256(label.encode()).hexdigest()[:8]
            root = BUILD / "generated-kernels" / f"{file_key(self.path)}-{tag}"
            _, gdir, _ = generate(self.path, out_root=root, kernels=kernels, model=self.model)
        backend = backend or model_linalg_backend(self.name, gdir)
        return Solver(self, build_simulator_library(self.name, backend, gdir), backend, gdir)


# The solver libraries this process loaded, by path, with the build stamp of what it loaded: the
# dynamic loader hands back the library it already has for a path, so a library rebuilt since
# (its mechanism file changed) is loaded from a copy named after its stamp (_load_library).
_loaded: Dict[str, str] = {}


def _load_library(library: Path) -> ctypes.CDLL:
    stamp_file = library.with_name(library.name + ".stamp")
    stamp = stamp_file.read_text() if stamp_file.exists() else ""
    first = _loaded.setdefault(str(library), stamp)
    if first != stamp:
        copy = library.with_name(f"{library.stem}.{stamp[:16]}{library.suffix}")
        if not copy.exists():
            tmp = copy.with_name(f".{copy.name}.{os.getpid()}.tmp")
            tmp.write_bytes(library.read_bytes())
            os.replace(tmp, copy)
        library = copy
    return ctypes.CDLL(str(library))


class Solver:
    """The compiled solver of one mechanism, loaded in this process."""

    def __init__(
        self,
        mechanism: Mechanism,
        library: Path,
        backend: str,
        generated_dir: Optional[Path] = None,
    ):
        self.mechanism = mechanism
        self.library = library
        self.backend = backend
        self.generated_dir = generated_dir  # the model's C (None: build.model_dir finds it)
        self._lib = _load_library(Path(library))
        self._run = self._lib.mcs_simulate_run
        self._run.restype = ctypes.c_int
        self._run.argtypes = [
            ctypes.c_int,
            ctypes.POINTER(ctypes.c_char_p),
            TEXT_FN,
            ctypes.c_void_p,
            ctypes.c_char_p,
            ctypes.c_size_t,
        ]

    @property
    def kernel_sets(self) -> frozenset:
        """The kernel sets the solver's generated C carries (its header's <NAME>_KERNELS)."""
        from .build import model_dir
        from .model import kernel_sets

        gdir = self.generated_dir or model_dir(self.mechanism.name)
        header = (gdir / f"{self.mechanism.name}.h").read_text()
        match = re.search(r'#define \w+_KERNELS "([a-z_, ]+)"', header)
        names = match.group(1).split(", ") if match else []
        return kernel_sets.ALL if names == ["all"] else frozenset(names)

    def simulate(self, params: Optional[Dict[str, float]] = None, **options) -> Run:
        """Run the simulation with the options of `./mcsgen simulate` (t_end, h, method, rtol,
        atol, continuation, dt_out, lock=[...], unlock=[...], transition, reactions, basis,
        momenta, rank_tol, ...; options.py) and parameter values; returns the Run. Bad options
        raise McsError naming the option; a run that stops on a failure returns a Run whose
        summary says why (run.ok is False); Ctrl-C raises Interrupted."""
        status, text = self.run_text(params=params, **options)
        if status == 130:
            summary = cjson.loads(text["summary"])
            raise Interrupted(f"simulate: interrupted at t = {summary['t_reached']:g} s")
        return parse_run(self.mechanism, text)

    def start(self, params: Optional[Dict[str, float]] = None, **options) -> "Stepper":
        """A run stepped from Python (stepper.Stepper): started at the file's initial state for
        the parameters, with the simulate options that apply to stepping (h, method, rtol, atol,
        continuation, rank_tol, ...). run.step(u, dt), run.advance(t), run.t, run.x, run.v,
        run.forward(...), run.inverse(xdd). Starting another ends it."""
        from .stepper import Stepper, start_argv

        return Stepper(self, start_argv(self._simulate_options("start", params, options)))

    def sweep(self, **kw) -> "SweepResult":
        """Many runs of this solver, one per set of parameter values, each reduced to a few
        numbers (docs/reference/sweeps.md; the command line's `sweep`). The sets: grid={name:
        "LO:HI:N" or [values]} (combine="product" or "zip"), samples={name: "normal(MU,SIGMA)" |
        "uniform(LO,HI)" | "truncnormal(MU,SIGMA,LO,HI)"} with count and seed, or table=CSV.
        run: "simulate" (with its options as keywords, as simulate takes them), "statics" or
        "modes" (kkt, use_kc, max_iter, tol, count, damped). quantities: ["final(x.slider.x)",
        "max(energy)", "t_event(1)", "energy_lost(2)", "freq(1)", "x(q1)", ...]; reduce: a
        callable given each run (sweep.worker.SweepRun, or the analysis's JSON) that returns a
        number or {name: number}. Where: workers=N local worker processes (default one per
        core; 0: serially in this process), scheduler="tcp://HOST:PORT" or client=a Dask
        Client. out=FILE.csv (and FILE.json) written as runs finish; resume=True completes
        that file; timeout: seconds per run; progress(done, total, failed, seconds).
        Returns a SweepResult (rows in run order, .column(name), .summary); a run that fails
        is a row with its status and message; Ctrl-C raises Interrupted with the finished
        rows written."""
        from .sweep import run_sweep

        return run_sweep(self, **kw)

    def _simulate_options(self, verb: str, params, options: dict) -> dict:
        """The simulate options of the API as the command line's: unknown names refused, the
        parameters checked and appended to `param` as NAME=VALUE texts."""
        from .options import OPTIONS

        known = {o.name.replace("-", "_") for o in OPTIONS} - {"out", "events", "progress"}
        unknown = sorted(set(options) - known)
        if unknown:
            raise McsError(f"{verb}: unknown option '{unknown[0]}'")
        options = dict(options)
        texts = param_texts(options.get("param"))
        option = "params" if params else "--param"
        self.mechanism.check_param_values({**texts, **(params or {})}, option)
        options["param"] = list(options.get("param") or []) + [
            f"{k}={_number_text(v)}" for k, v in (params or {}).items()
        ]
        return options

    def statics(
        self,
        params: Optional[Dict[str, float]] = None,
        x=None,
        kkt: bool = False,
        use_kc: bool = True,
        max_iter: int = 50,
        tol: Optional[float] = None,
    ) -> Statics:
        """The static equilibrium from the file's initial configuration (or x, (n)) for these
        parameter values, as `./mcsgen statics` finds it (tangent-space Newton, or the KKT system
        with kkt=True; use_kc=False leaves the constraint stiffness K_c out of the Newton
        matrix). Runs the compiled analyzer (runtime/app/mcs_analyze.c) in a child process."""
        result = self._analysis(params, x, kkt=kkt, statics_kc=use_kc, max_iter=max_iter, tol=tol)
        return _statics(result)

    def modes(
        self,
        params: Optional[Dict[str, float]] = None,
        x=None,
        count: Optional[int] = None,
        damped: bool = False,
        use_kc: bool = True,
        kkt: bool = False,
        max_iter: int = 50,
        tol: Optional[float] = None,
    ) -> Modes:
        """The vibration modes about the equilibrium statics() finds (count: the first count;
        damped: the first-order form with the damping matrix D; use_kc=False: K_c left out), as
        `./mcsgen modes`. If the equilibrium is not found, ok is False and the message says so."""
        from .analyze import KINDS

        result = self._analysis(
            params,
            x,
            modes=True,
            kkt=kkt,
            modes_kc=use_kc,
            damped=damped,
            count=count,
            max_iter=max_iter,
            tol=tol,
        )
        n = len(self.mechanism.coordinates)
        statics = _statics(result)
        m = result.get("modes", {"status": -1, "message": statics.message})
        modes = m.get("list", [])
        return Modes(
            statics=statics,
            ok=statics.ok and m["status"] == 0,
            message=m["message"],
            eigenvalues=np.array([complex(k["re"], k["im"]) for k in modes], dtype=complex),
            omega=np.array([k["omega"] for k in modes], dtype=float),
            freq=np.array([k["freq"] for k in modes], dtype=float),
            zeta=np.array([k["zeta"] for k in modes], dtype=float),
            kinds=[KINDS[k["kind"]] for k in modes],
            shapes=np.array([k["shape"] for k in modes], dtype=float).reshape(len(modes), n).T,
            result=result,
        )

    def _analysis(self, params, x, **kw) -> dict:
        from .analyze import run_analysis

        params = dict(params or {})
        self.mechanism.check_param_values(params, "params")
        n = len(self.mechanism.coordinates)
        if x is not None and np.shape(x) != (n,):
            raise McsError(f"statics {self.mechanism.name}: x must have {n} entries (n)")
        return run_analysis(
            self.mechanism.name,
            generated_dir=self.generated_dir,
            params=[f"{k}={_number_text(v)}" for k, v in params.items()],
            x=None if x is None else [float(v) for v in x],
            **kw,
        )

    def simulate_to_files(
        self,
        csv_path: Path,
        events_path: Path,
        large: Optional[Callable[[int], None]] = None,
        header: Optional[Callable[[str], None]] = None,
        **options,
    ) -> dict:
        """Run (options as run_text) writing the CSV and the event log as the text comes, as
        `./mcsgen simulate` does; returns the summary. Both files are opened first (an
        unwritable path is named before the run) and removed when the run is refused; the log
        of a run without events is removed; a write that fails (a full disk) raises McsError
        naming the file, never a summary over lost data. header(line, row_bytes) is called once
        with the CSV's first line (its columns) and the mean size of a row, when SAMPLE_ROWS rows
        have come (the first, the initial state's round numbers, not counted): what the whole
        CSV will be is known before it is written; large(bytes) once when the CSV passes
        LARGE_CSV bytes (the command line warns)."""
        files, failed = {}, set()
        written = [0]
        first_lines = [""]  # the CSV's text until its header and first rows are seen

        def sink(channel, piece):
            if channel not in failed:
                try:
                    files[channel].write(piece)
                except OSError:  # not raised through the C caller: reported after the run
                    failed.add(channel)
            if channel == "csv" and header is not None and first_lines[0] is not None:
                first_lines[0] += piece
                lines = first_lines[0].split("\n", SAMPLE_ROWS + 1)
                if len(lines) > SAMPLE_ROWS + 1:  # the header and SAMPLE_ROWS whole rows
                    rows = lines[2 : SAMPLE_ROWS + 1]
                    header(lines[0].rstrip("\r"), sum(len(r) + 1 for r in rows) / len(rows))
                    first_lines[0] = None
            if channel == "csv" and large is not None and written[0] <= LARGE_CSV:
                written[0] += len(piece)
                if written[0] > LARGE_CSV:
                    large(written[0])

        try:
            for channel, path in (("csv", csv_path), ("events", events_path)):
                try:
                    files[channel] = open(path, "w", encoding="utf-8", newline="")
                except OSError:
                    raise McsError(
                        f"simulate {self.mechanism.name}: cannot write: {path}"
                    ) from None
            status, text = self.run_text(sink=sink, **options)
        except McsError:  # a run that could not start leaves nothing behind
            for f in files.values():
                _close(f)
                Path(f.name).unlink(missing_ok=True)
            raise
        for channel, f in files.items():
            if not _close(f):
                failed.add(channel)
        for channel, path in (("csv", csv_path), ("events", events_path)):
            if channel in failed:  # half a run's output is none: remove both files
                for other in (csv_path, events_path):
                    Path(other).unlink(missing_ok=True)
                raise McsError(
                    f"simulate {self.mechanism.name}: cannot write (the data is incomplete): "
                    f"{path}"
                )
        summary = cjson.loads(text["summary"])
        if not summary.get("events_log"):
            Path(events_path).unlink(missing_ok=True)  # no events, no log (nor a stale one)
        return summary

    def run_text(
        self,
        params: Optional[Dict[str, float]] = None,
        sink: Optional[Callable[[str, str], None]] = None,
        progress: bool = False,
        **options,
    ):
        """The exit status (0, 1 or 130; status 2 raises McsError naming the option) and the
        run's text: the CSV, the event log (each passed to sink(channel, piece) as it comes when
        a sink is given: the command line writes its files so) and the JSON summary."""
        from .options import option_arguments

        options = self._simulate_options("simulate", params, options)
        options["progress"] = progress
        with tempfile.TemporaryDirectory(prefix="mcsgen-inputs-") as folder:
            schedule = None  # a schedule given as Python data: its CSV, which no user named
            if options.get("inputs") is not None and not isinstance(options["inputs"], (str, Path)):
                schedule = write_schedule(self.mechanism, options["inputs"], Path(folder), options)
                options["inputs"] = str(schedule)
            try:
                return self._run_argv(["simulate"] + option_arguments(options), sink)
            except McsError as exc:
                if schedule is None:
                    raise
                raise McsError(_schedule_message(str(exc), schedule)) from None

    def _run_argv(self, argv, sink):
        pieces: Dict[str, list] = {c: [] for c in CHANNELS}

        def receive(_ctx, channel, data):
            piece = data.decode()
            if sink is not None and CHANNELS[channel] != "summary":
                sink(CHANNELS[channel], piece)
            else:
                pieces[CHANNELS[channel]].append(piece)

        callback = TEXT_FN(receive)  # kept alive for the call
        # (the schedule's temporary file lives until this returns)
        args = (ctypes.c_char_p * len(argv))(*(a.encode() for a in argv))
        error = ctypes.create_string_buffer(1024)
        status = self._run(len(argv), args, callback, None, error, len(error))
        if status == 2:
            message = error.value.decode().removeprefix("simulate: ")
            raise McsError(f"simulate {self.mechanism.name}: {message}")
        return status, {c: "".join(p) for c, p in pieces.items()}


def write_schedule(mechanism: "Mechanism", inputs, folder: Path, options: dict) -> Path:
    """The `inputs` of Solver.simulate as the --inputs CSV in folder: rows [(t, u_1, ..., u_nu)]
    (the model's input order), a mapping {"t": [...], "<input>": [...], ...}, or (u, dt): a
    callable u(t) -> (nu) sampled every dt from 0 to the run's end, each value held for its tick
    (zero-order hold: sample at t + dt/2 inside u for a second-order hold of a smooth torque)."""
    names = [u.name for u in mechanism.model.inputs]
    if not names:
        raise McsError(f"simulate {mechanism.name}: inputs: the model has no inputs")
    expected = McsError(
        f"simulate {mechanism.name}: inputs: rows of t and {len(names)} input values expected"
    )
    try:
        if isinstance(inputs, dict):
            missing = [k for k in ["t"] + names if k not in inputs]
            if missing:
                raise McsError(f"simulate {mechanism.name}: inputs: no column '{missing[0]}'")
            columns = [np.asarray(inputs[k], dtype=float).reshape(-1) for k in ["t"] + names]
            if len({c.size for c in columns}) != 1:
                raise McsError(
                    f"simulate {mechanism.name}: inputs: the columns have different lengths"
                )
            rows = np.column_stack(columns)
        elif isinstance(inputs, tuple) and len(inputs) == 2 and callable(inputs[0]):
            u, dt = inputs
            t_end = options.get("t_end") or mechanism.model.simulation["t_end"]
            if not (isinstance(dt, (int, float)) and 0 < dt <= t_end):
                raise McsError(f"simulate {mechanism.name}: inputs: the tick must be in (0, t_end]")
            ticks = np.arange(0.0, t_end, dt)
            rows = np.array([[t, *np.asarray(u(t), dtype=float).reshape(-1)] for t in ticks])
        else:
            rows = np.asarray(inputs, dtype=float)
    except (ValueError, TypeError):  # ragged rows, text, None: not numbers in rows
        raise expected from None
    if rows.ndim != 2 or rows.shape[1] != 1 + len(names):
        raise expected
    path = folder / "inputs.csv"
    lines = [",".join(["t"] + names)]
    lines += [",".join(repr(float(a)) for a in row) for row in rows]
    path.write_text("\n".join(lines) + "\n")
    return path


def _schedule_message(message: str, path: Path) -> str:
    """The command line's complaint about the CSV write_schedule wrote, in the caller's terms:
    its rows (0-based, as the caller indexed them), not the temporary file's lines."""

    def row(match):
        return f"inputs: row {int(match.group(1)) - 2}:"

    message = re.sub(rf"--inputs: {re.escape(str(path))}, line (\d+):", row, message)
    return message.replace(f"--inputs: {path}", "inputs")


def _statics(result: dict) -> Statics:
    from .analyze import joint_reactions

    s = result["statics"]
    return Statics(
        x=np.array(result["x"], dtype=float),
        lam=np.array(result["lambda"], dtype=float),
        ok=s["status"] == 0,
        message=s["message"],
        iterations=s["iterations"],
        rank=s["rank"],
        residual_c=s["residual_c"],
        residual_f=s["residual_f"],
        reactions=joint_reactions(result),
        wrenches={
            w["joint"]: (np.array(w["force"], dtype=float), np.array(w["moment"], dtype=float))
            for w in result.get("wrenches", [])
        },
        result=result,
    )


def _close(f) -> bool:
    """Close a file; False when flushing it failed (a full disk)."""
    try:
        f.close()
        return True
    except OSError:
        return False


def param_texts(params) -> Dict[str, str]:
    """The command line's --param NAME=VALUE texts (a list, or None) as {name: value text} (a
    text without '=' is the simulator's to refuse: its value is empty here)."""
    return dict(p.split("=", 1) if "=" in p else (p, "") for p in params or ())


def _finite_number(value) -> Optional[float]:
    """A parameter's value as a float: a real number (not a bool), or a text that reads as one
    (the command line's); None for anything else, and for infinities and NaN."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (str, numbers.Real)):
        return None
    try:
        number = float(value)
    except (TypeError, ValueError, OverflowError):
        return None
    return number if np.isfinite(number) else None


def _number_text(value) -> str:
    """A parameter value as the text the simulator reads back to the same double."""
    value = float(value)
    if not np.isfinite(value):
        raise McsError(f"simulate: parameter values must be finite, got {value}")
    return repr(value)


def parse_run(mechanism: Mechanism, text: Dict[str, str]) -> Run:
    """The Run of a simulation's text (as the command line writes it)."""
    from .outputs.plot import read_run

    columns = read_run(io.StringIO(text["csv"]))
    names = mechanism.coordinates
    n = len(names)

    def block(prefix):
        return np.column_stack([columns[f"{prefix}{k}"] for k in names])

    def numbered(prefix):
        return np.column_stack([columns[f"{prefix}{i + 1}"] for i in range(n)])

    events_text = text["events"].strip()
    events = [
        Event(e.get("kind", "singular"), float(e["t"]), e)
        for e in (cjson.loads(events_text) if events_text else [])
    ]
    return Run(
        model=mechanism.name,
        coordinates=names,
        t=columns["t"],
        x=block("x."),
        v=block("v."),
        q=numbered("q"),
        qd=numbered("qd"),
        energy=columns.get("energy"),
        c_norm=columns["c_norm"],
        rank=columns["rank"].astype(int),
        columns=columns,
        events=events,
        summary=cjson.loads(text["summary"]),
    )
