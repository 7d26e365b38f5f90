"""Command line: ./mcsgen generate | check | simulate | statics | modes | plot  (see README.md,
"CLI reference")."""

import argparse
import contextlib
import json
import re
import sys
import threading
import time
from pathlib import Path

from .version import __version__
from .errors import Interrupted, McsError, ModelError
from .options import MAX_STATICS_ITER
from .paths import MODELS, OUT, ROOT, model_path


class Spinner:
    """A progress line on stderr for work that lasts longer than a second (TTY only)."""

    def __init__(self, label):
        self.label = label
        self.done = threading.Event()
        self.thread = None
        self.shown = False

    def __enter__(self):
        if sys.stderr.isatty():
            self.thread = threading.Thread(target=self._run, daemon=True)
            self.thread.start()
        return self

    def _run(self):
        start = time.monotonic()
        frames = "|/-\\"
        i = 0
        while not self.done.wait(0.2):
            elapsed = time.monotonic() - start
            if elapsed >= 1.0:
                sys.stderr.write(f"\r  {frames[i % 4]} {self.label} ({elapsed:.0f} s)")
                sys.stderr.flush()
                self.shown = True
                i += 1

    def __exit__(self, *exc):
        self.done.set()
        if self.thread:
            self.thread.join()
        if self.shown:
            sys.stderr.write("\r" + " " * (len(self.label) + 20) + "\r")
            sys.stderr.flush()
        return False


def cmd_generate(args):
    from .generate import generate

    paths = [model_path(m) for m in args.models] or sorted(MODELS.glob("*.yaml"))
    status = 0
    for path in paths:
        start = time.monotonic()
        with Spinner(f"generating {path.stem}"):
            try:
                model, out_dir, written = generate(
                    path,
                    out_root=args.out,
                    force=args.force,
                    firmware=args.firmware,
                    kernels=args.kernels,
                )
            except OSError as exc:  # the output directory (a model file's errors are McsError)
                where = exc.filename or args.out or path
                raise McsError(f"generate: cannot write {where}: {exc.strerror or exc}") from None
        took = time.monotonic() - start
        _warn(model)
        state = f"written in {took:.2f} s" if written else "up to date (skipped)"
        rel = out_dir.relative_to(ROOT) if out_dir.is_relative_to(ROOT) else out_dir
        print(f"{model.name}: n = {model.n}, m = {model.m} -> {rel}/ {state}")
        if written and not args.no_misra:
            status = max(status, _misra_of_generated(model.name, out_dir))
    return status


def _misra_of_generated(name, out_dir):
    """Print the MISRA C:2012 result of freshly generated C; 1 when there is a finding."""
    import shutil

    from .misra import WORKERS, check_model

    if shutil.which("cppcheck") is None:
        print("  MISRA C:2012: not checked (cppcheck is not installed; make deps installs it)")
        return 0
    start = time.monotonic()
    with Spinner(f"MISRA check of {name}"):
        result = check_model(out_dir)
    for finding in result.findings:
        print(f"  {finding}")
    print(f"  {result.summary()}")
    if result.pieces > 1:  # a large model: say what the check cost and why
        print(f"  (MISRA C:2012 checked in {result.pieces} pieces, {WORKERS} at a time, in "
              f"{time.monotonic() - start:.0f} s: README \"MISRA C:2012\")")  # fmt: skip
    return 1 if result.findings else 0


def cmd_misra(args):
    """MISRA C:2012 over the runtime and generated models, deviations applied."""
    from . import misra
    from .paths import GENERATED

    deviations = misra.load_deviations()
    dirs = [Path(d) for d in args.dirs]
    if args.all:
        dirs += sorted(p.parent for p in GENERATED.glob("*/*.c"))
    if not dirs and not (args.runtime or args.all):
        raise McsError("nothing to check: give --runtime, --all or generated model directories")
    with Spinner("MISRA C:2012 check"):
        results = misra.check_all(dirs, runtime=args.runtime or args.all, deviations=deviations)
    print(misra.cppcheck_version())
    for r in results:
        for finding in r.findings:
            print(finding)
        print(f"{r.scope}: {r.summary()}")
    bad = sum(len(r.findings) for r in results)
    if args.all:
        unused = [d for d in deviations if d.used == 0]
        for d in unused:
            print(f"{misra.DEVIATIONS.relative_to(ROOT)}:{d.lineno}: deviation of rule {d.rule} "
                  f"({d.files}) is not used: remove it")  # fmt: skip
        bad += len(unused)
    return 1 if bad else 0


def _warn(model):
    """The departures the model's file accepted (e.g. `inertia_check: warn`), on stderr."""
    for line in model.warnings:
        print(f"mcsgen: warning: {line}", file=sys.stderr)


def _ensure_generated(name_or_path):
    from .generate import generate

    with Spinner("generating"):
        model, _, _ = generate(model_path(name_or_path))
    _warn(model)
    return model


def cmd_check(args):
    from .analysis.check import check_model

    model = _ensure_generated(args.model)
    with Spinner(f"checking {model.name}"):
        report = check_model(model, samples=args.samples, seed=args.seed, tol=args.tol)
    print(report.table())
    return 0 if report.ok else 1


def cmd_audit(args):
    from .audit import collect, write_report
    from .build import model_dir

    if args.format not in ("html", "md"):
        raise McsError(f"audit --format: 'html' or 'md', got '{args.format}'")
    model = _ensure_generated(args.model)
    out = Path(args.out) if args.out else OUT / model.name / f"audit.{args.format}"
    if out.suffix.lower() not in (".html", ".htm", ".md"):
        out = out / f"audit.{args.format}"  # a directory
    with Spinner(f"auditing {model.name}"):
        audit = collect(
            model,
            model_dir(model.name),
            samples=args.samples,
            seed=args.seed,
            misra=not args.no_misra,
        )
    try:
        written = write_report(audit, out, args.format)
    except OSError as exc:
        raise McsError(f"audit: cannot write {out}: {exc.strerror or exc}")
    print(f"{model.name}: verification {'PASS' if audit.ok else 'FAIL'}; report {written}")
    return 0 if audit.ok else 1


def _exact_value(text, where, path):
    """A number or constant expression (pi/4) of the command line as an exact Fraction."""
    from fractions import Fraction

    import sympy as sp

    from .model.exact import NotANumber, approx
    from .model.expr import ExprError, parse_expr

    try:
        value = sp.Rational(approx(parse_expr(text.strip(), {})))
    except (ExprError, NotANumber) as exc:
        raise ModelError(path, where, f"'{text}' is not a finite number ({exc})") from None
    return Fraction(int(value.p), int(value.q))


def cmd_import_urdf(args):
    from .urdf import import_urdf

    values = {}
    for option in ("q", "qd"):
        values[option] = {}
        for item in getattr(args, option):
            joint, eq, text = item.partition("=")
            if not eq or not joint.strip():
                raise ModelError(args.urdf, f"--{option} {item}", "expected JOINT=VALUE")
            values[option][joint.strip()] = _exact_value(text, f"--{option} {item}", args.urdf)
    gravity = None
    if args.gravity is not None:
        parts = args.gravity.split(",")
        if len(parts) != 3:
            raise ModelError(args.urdf, "--gravity", f"expected X,Y,Z, got '{args.gravity}'")
        gravity = [_exact_value(p, "--gravity", args.urdf) for p in parts]
    out, notes = import_urdf(args.urdf, args.out, args.name, values["q"], values["qd"], gravity)
    for note in notes:
        print(f"  {note}")
    print(f"wrote {out}")
    return 0


def _by_method(s):
    """`: DOP853 168, DOPRI5 12` for a DOP853 run (it leaves the steps near a singular
    configuration to DOPRI5), else nothing."""
    counts = s.get("steps_by_method")
    if s["method"] != "dop853" or not counts:
        return ""
    return f": DOP853 {counts['dop853']}, DOPRI5 {counts['dopri5']}"


def format_summary(s):
    lines = [
        f"{s['model']}: {s['method']}, continuation {s['continuation']}"
        + (", banded simulator" if s.get("simulator") == "banded" else "")
        + f", t = 0 .. {s['t_reached']:g} s"
        + ("" if s["status"] == "ok" else f" (stopped: {s['status']})"),
        f"  n = {s['n']}, m = {s['m']}, rank = {s['rank']}, DOF = {s['dof']}"
        + (
            f" (rank varied {s['rank_min']}..{s['rank_max']})"
            if s["rank_min"] != s["rank_max"]
            else ""
        ),
        f"  steps {s['steps']}{_by_method(s)} (rejected {s['rejected']}, detours "
        f"{s.get('detours', 0)}), "
        f"evaluations {s['evaluations']}, "
        f"Newton iterations {s['newton_iterations']}, wall {s['wall_s'] * 1e3:.1f} ms",
        f"  max constraint residual |c|_inf = {s['max_c_norm']:.3e}",
    ]
    if "energy_drift_rel" in s:
        between = " between transitions" if s["transitions"] else ""
        lines.append(
            f"  energy E0 = {s['energy0']:.10g} ({s['energy_balance']}), max |E - E0|{between} "
            f"= {s['energy_drift']:.3e} (relative {s['energy_drift_rel']:.3e})"
        )
        if s["transitions"]:
            lines.append(
                f"  energy changed by {s['energy_transitions']:.6g} at the "
                f"{len(s['transitions'])} transition(s)"
            )
    for problem in s.get("problems", []):
        lines.append(f"  NOT OK: {problem}")
    a = s["assembly"]
    if a["dx_norm"] > 1e-12 or a["dv_norm"] > 1e-12:  # below that it is round-off
        lines.append(
            f"  initial conditions corrected: |c| {a['c_norm_before']:.3e} -> "
            f"{a['c_norm_after']:.3e} with |dx| = {a['dx_norm']:.3e}; "
            f"|A v + c_t| {a['cdot_norm_before']:.3e} fixed with |dv| = {a['dv_norm']:.3e}"
        )
    return "\n".join(lines)


def csv_size_warning(model, options):
    """One line when the run's CSV will pass api.LARGE_CSV bytes (400 s of a robot at 0.1 ms, one
    row per step, are gigabytes): its rows are known before the run with --dt-out (t_end / dt_out)
    or RK4 (t_end / h); an adaptive run's are said when it gets there (simulate_to_files).
    Nothing when the rows pass --max-steps: the run is then refused, and that is all it says."""
    from .api import LARGE_CSV
    from .options import OPTIONS

    OPTION_DEFAULTS = {o.name: o.default for o in OPTIONS}

    sim = dict(model.simulation)
    sim.update({k: v for k, v in options.items() if k in sim and v is not None})
    if sim.get("dt_out"):
        rows, why = sim["t_end"] / sim["dt_out"], f"a row every --dt-out {sim['dt_out']:g} s"
    elif sim["method"] == "rk4":
        rows, why = sim["t_end"] / sim["h"], f"a row per step of {sim['h']:g} s"
    else:
        return []
    if rows > float(options.get("max_steps") or OPTION_DEFAULTS["max-steps"]):
        return []  # the run is refused before it starts (--max-steps), with its own message
    n, m = model.n, model.m
    columns = 1 + 4 * n + 2 + min(n, m) + 1 + 2 * len(model.joints)
    columns += n * n * bool(options.get("basis")) + n * bool(options.get("momenta"))
    size = rows * columns * 22  # a value is about 22 characters with its comma
    if size <= LARGE_CSV:
        return []
    return [
        f"the CSV will be about {size / 2**30:.1f} GiB ({rows:.3g} rows of {columns} columns, "
        f"{why}): give --dt-out to write fewer rows"
    ]


ENERGY_WARNING = 0.01  # relative change of T + V that makes a conservative run meaningless


def meaningless_result(summary):
    """What the error indicators of a run say about its result, one line each (empty when
    nothing is wrong): the energy of a model that conserves it (the summary's energy_balance,
    decided at generation: model/energy.py) changed by more than ENERGY_WARNING relative. A rise
    the simulator itself calls a problem (the summary's "problems") is not repeated here."""
    drift = summary.get("energy_drift_rel")
    if drift is None or drift <= ENERGY_WARNING or summary.get("energy_balance") != "conserved":
        return []
    if summary.get("problems"):
        return []
    fix = "a smaller --h" if summary["method"] == "rk4" else "a smaller --rtol"
    return [
        f"the energy of {summary['model']}, which physics conserves, changed by {drift:.0%} over "
        f"the run: the result is meaningless at this step (h = {summary['h']:g}); try {fix}"
    ]


def format_events(path, limit=12):
    """Summary lines of a JSON event log: singular configurations and transitions."""
    if not Path(path).exists():  # the simulator writes no log when nothing happened
        return "  singular configurations: none (no event log written)"
    try:
        events = json.loads(Path(path).read_text())
    except (OSError, ValueError):
        return f"  events: cannot read {path}"
    singular = [e for e in events if e.get("kind", "singular") == "singular"]
    transitions = [e for e in events if e.get("kind") in ("lock", "unlock")]
    if not singular:
        lines = [f"  singular configurations: none (event log {path})"]
    else:
        lines = [f"  singular configurations: {len(singular)} (event log {path})"]
    for ev in singular[:limit]:
        lines.append(
            f"    t = {ev['t']:.9f} s: rank {ev['rank_before']} -> {ev['rank_after']}, "
            f"{len(ev['motions'])} new motion(s), sigma {ev['sigma']:.1e}"
        )
    if len(singular) > limit:
        lines.append(f"    ... {len(singular) - limit} more")
    if transitions:
        lines.append(f"  transitions: {len(transitions)}")
    for ev in transitions[:limit]:
        lost = ev["kinetic_before"] - ev["kinetic_after"]
        extra = f", {ev['dependent']} dependent row(s)" if ev.get("dependent") else ""
        lines.append(
            f"    t = {ev['t']:.9f} s: {ev['kind']} {ev['target']}, kinetic energy "
            f"{ev['kinetic_before']:.6g} -> {ev['kinetic_after']:.6g} J (dE = {-lost:.4g} J), "
            f"|impulse| {abs(ev['impulse']):.4g}, {ev['dof_after']} DOF left{extra}"
        )
    return "\n".join(lines)


@contextlib.contextmanager
def _output_directories(*folders):
    """Creates the folders (and their missing parents) for a run's files (--out's and --events':
    the same rule for both), and removes what it created again when the run is refused or fails:
    a bad input leaves nothing behind."""
    created = []  # the outermost directory each creates
    try:
        for folder in map(Path, folders):
            first_new = None
            for p in [folder, *folder.parents]:
                if p.exists():
                    break
                first_new = p
            folder.mkdir(parents=True, exist_ok=True)
            if first_new is not None:
                created.append(first_new)
        yield
    except BaseException:
        for first_new in created:
            for p in sorted(first_new.rglob("*"), reverse=True) + [first_new]:
                if p.is_dir() and not any(p.iterdir()):
                    p.rmdir()
        raise


def cmd_simulate(args):
    model = _ensure_generated(args.model)
    from .options import OPTIONS

    options = {
        o.name.replace("-", "_"): getattr(args, o.name.replace("-", "_"))
        for o in OPTIONS
        if o.name not in ("out", "events", "progress")
    }
    out = args.out
    if out is None:
        out = OUT / f"{model.name}.csv"
    events = Path(args.events) if args.events else Path(out).with_suffix(".events.json")
    from .api import Mechanism, Solver
    from .build import build_simulator_library, simulator_backend

    backend = simulator_backend(model.name)
    with Spinner(f"compiling {model.name}"):
        library = build_simulator_library(model.name, backend)
    solver = Solver(Mechanism(model, model_path(args.model)), library, backend)
    for line in csv_size_warning(model, options):
        print(f"mcsgen: warning: {line}", file=sys.stderr)

    def large(size):  # a run whose size could not be told before it started
        print(
            f"mcsgen: warning: {out} has passed {size / 2**30:.1f} GiB: --dt-out writes fewer "
            "rows (Ctrl-C stops the run with the rows so far)",
            file=sys.stderr,
        )

    with _output_directories(Path(out).parent, events.parent):
        summary = solver.simulate_to_files(
            Path(out), events, large=large, progress=sys.stderr.isatty(), **options
        )
    # the human summary on stdout, or with --json on stderr: stdout is then the JSON alone
    human = sys.stderr if args.json else sys.stdout
    print(format_summary(summary), file=human)
    if summary.get("dependent_rows"):
        print(
            f"  dependent constraint rows (redundant, found by the pivoted QR): "
            f"{', '.join(summary['dependent_rows'])}",
            file=human,
        )
    if summary.get("simulator") == "banded":  # no search: it would have stopped at one
        print(
            "  singular configurations: not searched (the banded simulator stops at one)",
            file=human,
        )
        if not summary["ok"] and "singular on the chart" in summary["status"]:
            print(
                "  the rows lost rank there: --simulator dense crosses singular configurations",
                file=human,
            )
    else:
        print(format_events(events), file=human)
    rep = model.initial_report
    if rep is not None:
        held = ", ".join(dict.fromkeys(rep["held"])) or "nothing"
        extra = (
            (
                f"; {rep['undetermined']} direction(s) were not fixed by them and took the "
                "minimum-norm value"
            )
            if rep["undetermined"]
            else ""
        )
        print(
            f"  initial velocities: held {held}; every other velocity solved from the "
            f"velocity constraints{extra}",
            file=human,
        )
    print(f"  CSV: {out}", file=human)
    if args.json:
        print(json.dumps(summary, indent=2))
    for line in meaningless_result(summary):
        print(f"mcsgen: warning: {line}", file=sys.stderr)
    if summary.get("interrupted"):
        raise Interrupted(
            f"simulate: interrupted at t = {summary['t_reached']:g} s: {out} holds the "
            f"{summary['rows']} rows up to there"
        )
    return 0 if summary["ok"] else 1


def _analysis(args, modes):
    from .analyze import load_start, run_analysis

    model = _ensure_generated(args.model)
    x = load_start(args.start) if args.start else None
    kw = dict(modes=modes, params=args.param or (), x=x, kkt=args.kkt, max_iter=args.max_iter)
    if modes:
        kw.update(modes_kc=not args.no_kc, damped=args.damped, count=args.count)
        kw.update(verify=(args.count or 4) if args.verify else 0)
    else:
        kw.update(statics_kc=not args.no_kc)
    with Spinner(f"{'modes' if modes else 'statics'} of {model.name}"):
        return model, run_analysis(model.name, **kw)


def _write_analysis(args, model, result, stem):
    from .analyze import write_outputs

    if not args.out:
        return
    written = write_outputs(result, args.out, stem)
    if getattr(args, "plot", False) or getattr(args, "animate", False):
        from .outputs.modes_plot import plot_modes

        written += plot_modes(result, args.out, animate=getattr(args, "animate", False))
    for path in written:
        print(f"wrote {path}")


def cmd_statics(args):
    from .analyze import format_statics

    model, result = _analysis(args, modes=False)
    if args.json:
        print(json.dumps(result, indent=1))
    else:
        print(format_statics(result))
    _write_analysis(args, model, result, "statics")
    return 0 if result["statics"]["status"] == 0 else 1


def cmd_modes(args):
    from .analyze import format_modes, format_statics, format_verify, verify_table

    model, result = _analysis(args, modes=True)
    st = result["statics"]
    if args.json:
        print(json.dumps(result, indent=1))
    elif st["status"] != 0:
        print(format_statics(result))
        print("modes: no equilibrium to linearize about")
    else:
        print(
            f"equilibrium of {model.name}: {st['iterations']} Newton steps, "
            f"|c| {st['residual_c']:.2g}, |f - A'lambda| {st['residual_f']:.2g}"
        )
        print(format_modes(result))
        if args.verify and "verify" in result:
            print("verification by simulation (FFT of the free response along each mode):")
            print(format_verify(verify_table(result)))
    _write_analysis(args, model, result, "modes")
    ok = st["status"] == 0 and result.get("modes", {}).get("status") == 0
    return 0 if ok else 1


def _analysis_arguments(parser):
    parser.add_argument("model", metavar="MODEL", help=MODEL_HELP)
    parser.add_argument(
        "--no-kc",
        action="store_true",
        help="leave the tangent stiffness of constraints K_c out (003: statics then fail, "
        "a pendulum has zero stiffness)",
    )
    parser.add_argument(
        "--param", action="append", metavar="NAME=VALUE", help="override a parameter (repeatable)"
    )
    parser.add_argument(
        "--from",
        dest="start",
        metavar="FILE.json",
        help="start from the configuration x of a statics result instead of the model's",
    )
    parser.add_argument(
        "--kkt",
        action="store_true",
        help="Newton on the full saddle-point matrix [[K, A'], [A, 0]] instead of the tangent "
        "space (a cross-check; fails with dependent rows)",
    )
    parser.add_argument(
        "--max-iter",
        type=_checked(int, "newton-steps"),
        default=50,
        help=f"Newton steps (default 50, at most {MAX_STATICS_ITER})",
    )
    parser.add_argument("--json", action="store_true", help="print the full result as JSON")
    parser.add_argument("--out", metavar="DIR", help="write JSON and CSV files (and plots) here")


def cmd_animate(args):
    from .model import load_model
    from .outputs.animate import animate_run

    model = load_model(model_path(args.model))
    params = {}
    names = {p.name for p in model.parameters}
    for item in args.param or ():
        name, eq, text = item.partition("=")
        where = f"--param {item}"
        if not eq or name.strip() not in names:
            raise ModelError(
                model.path, where, "expected NAME=VALUE with NAME a parameter of the model"
            )
        params[name.strip()] = float(_exact_value(text, where, model.path))
    with Spinner("drawing frames"):
        path = animate_run(
            args.csv, model, args.out, frames=args.frames, fps=args.fps, params=params
        )
    print(path)
    return 0


def cmd_plot(args):
    from .outputs.plot import plot_basis, plot_columns, plot_events, plot_rdiag, plot_runs

    if args.modes:
        return _plot_analysis(args)
    if args.events:
        if not args.model:
            raise McsError("plot --events needs --model MODEL (to draw the mechanism)")
        from .model import load_model

        written = plot_events(args.events, load_model(model_path(args.model)), args.out)
    elif not args.csv:
        raise McsError("plot: give CSV files, or --events FILE.json --model MODEL")
    elif args.columns:
        from .model import load_model

        columns = [c.strip() for c in args.columns.split(",") if c.strip()]
        model = load_model(model_path(args.model)) if args.model else None
        written = plot_columns(args.csv, columns, args.out, labels=args.label, model=model)
    elif args.rdiag:
        written = plot_rdiag(args.csv, args.out, labels=args.label)
    elif args.basis:
        written = plot_basis(args.csv, args.basis, args.out, labels=args.label)
    else:
        model = None
        if args.model:
            from .model import load_model

            model = load_model(model_path(args.model))
        written = plot_runs(
            args.csv, args.out, labels=args.label, momenta=args.momenta, model=model
        )
    for path in written:
        print(path)
    return 0


def _plot_analysis(args):
    """plot --modes FILE.json: the equilibrium or the mode shapes of a saved statics/modes result
    (written by `statics`/`modes --out DIR` or `--json`), and with --animate a GIF per mode."""
    from .outputs.modes_plot import plot_modes

    path = Path(args.modes)
    try:
        result = json.loads(path.read_text())
    except (OSError, ValueError) as exc:
        raise McsError(f"plot --modes: cannot read {path}: {exc}")
    if not isinstance(result, dict) or not {"coordinates", "x"} <= set(result):
        raise McsError(f"plot --modes: {path} is not the JSON of `mcsgen statics` or `modes`")
    out = Path(args.out) if args.out else path.parent
    for written in plot_modes(result, out, animate=args.animate):
        print(written)
    return 0


MODEL_HELP = "a mechanism file (path), or the name of a shipped model (models/NAME.yaml)"


def _checked(kind, valid):
    """argparse type: a finite number of `kind` (float or int) passing options.VALID[valid]."""
    from .options import SimOption, option_value

    return option_value(SimOption("", "real" if kind is float else "int", "", valid=valid))


class _Parser(argparse.ArgumentParser):
    """argparse with one-line errors: `mcsgen simulate: argument --h: expected a number > 0, got
    -1 (see mcsgen simulate --help)`, exit 2 (no usage block)."""

    def error(self, message):
        self.exit(2, f"{self.prog}: {message} (see {self.prog} --help)\n")


# a number as an option's value: argparse takes `-1e-3` for an option unless it is joined
_NUMBER = r"(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?"
_NEGATIVE_NUMBER = re.compile(rf"^-{_NUMBER}(,[-+]?{_NUMBER})*$|^-(inf|nan)$", re.I)  # or X,Y,Z


def join_negative_values(argv):
    """`--h -1e-3` -> `--h=-1e-3`, so a negative number reaches the option (which then says
    whether it takes it) instead of being read as an unknown option."""
    out = []
    for arg in argv:
        if out and out[-1].startswith("--") and "=" not in out[-1] and _NEGATIVE_NUMBER.match(arg):
            out[-1] = f"{out[-1]}={arg}"
        else:
            out.append(arg)
    return out


def build_parser():
    parser = _Parser(
        prog="mcsgen",
        description="Mechanism file -> allocation-free C solver with QR "
        "tangent-space continuation.",
    )
    parser.add_argument("--version", action="version", version=f"mcsgen {__version__}")
    sub = parser.add_subparsers(dest="verb", metavar="VERB", parser_class=_Parser)
    sub.required = True

    g = sub.add_parser(
        "generate",
        help="derive and emit C for models",
        description="Derive c, A, c_t, gamma, A_dot, M, f, K_c, K_f, D and emit "
        "generated/<model>/<model>.{h,c}. Skipped when the generator "
        "version and the model file's hash are unchanged.",
    )
    g.add_argument(
        "models",
        nargs="*",
        metavar="MODEL",
        help="model file or name in models/ (default: every model)",
    )
    g.add_argument("--force", action="store_true", help="regenerate even when up to date")
    g.add_argument("--out", metavar="DIR", help="output root instead of generated/")
    g.add_argument(
        "--firmware",
        action="store_true",
        help="a firmware build: the file's `firmware:` settings (default RK4, continuation "
        "none) as the defaults, only the kernels they need (default output root "
        "build/firmware/generated/)",
    )
    g.add_argument(
        "--kernels",
        metavar="SETS",
        help="emit only these kernel sets, comma-separated, besides motion: predictor (A_dot), "
        "stiffness (K_c, K_f, D), transitions (row groups, switches, events); default all, "
        "or with --firmware what its settings need",
    )
    g.add_argument(
        "--no-misra",
        action="store_true",
        help="skip the MISRA C:2012 check of the emitted C (by default Cppcheck's addon checks "
        "each model written, and a finding makes the exit status 1: seconds for most models, "
        "about 40 s on 2 cores for a 7-DOF arm's 820 KB of C, which is checked in pieces)",
    )
    g.set_defaults(func=cmd_generate)

    mi = sub.add_parser(
        "misra",
        help="MISRA C:2012 check of the runtime and generated models",
        description="Run Cppcheck's MISRA C:2012 addon over the runtime and generated models, "
        "apply misra/deviations.txt, print every finding left; exit 1 if there is one.",
    )
    mi.add_argument("dirs", nargs="*", metavar="DIR", help="generated model directories")
    mi.add_argument("--runtime", action="store_true", help="check the runtime library")
    mi.add_argument(
        "--all",
        action="store_true",
        help="the runtime and every model in generated/; unused deviations are findings",
    )
    mi.set_defaults(func=cmd_misra)

    c = sub.add_parser(
        "check",
        help="compare derived terms with finite differences",
        description="Evaluate the compiled model at random states and compare A, "
        "c_t, gamma, A_dot, K_c, K_f, D (and M, f of Lagrange models) "
        "with central finite differences of lower-order functions.",
    )
    c.add_argument("model", metavar="MODEL", help=MODEL_HELP)
    c.add_argument(
        "--samples", type=_checked(int, "count"), default=5, help="random states (default 5)"
    )
    c.add_argument("--seed", type=int, default=1, help="random seed (default 1)")
    c.add_argument(
        "--tol",
        type=_checked(float, "positive"),
        default=1e-6,
        help="max relative error (default 1e-6; a number > 0)",
    )
    c.set_defaults(func=cmd_check)

    au = sub.add_parser(
        "audit",
        help="write the derivation audit report (HTML or Markdown)",
        description="One self-contained report of a model: identity and hashes, bodies, "
        "joints and the origin of every constraint row, every derived term as mathematics with "
        "its CSE definitions and C lines, sparsity pictures and operation counts, the "
        "finite-difference self-check and an entry-by-entry SymPy evaluation of the compiled "
        "kernels, and the physics at the initial state. Exit 1 when verification fails.",
    )
    au.add_argument("model", metavar="MODEL", help=MODEL_HELP)
    au.add_argument(
        "--out", metavar="PATH", help="file or directory (default out/<model>/audit.<format>)"
    )
    au.add_argument("--format", default="html", help="html (default) or md")
    au.add_argument(
        "--samples",
        type=_checked(int, "count"),
        default=3,
        help="check's random states (default 3)",
    )
    au.add_argument(
        "--no-misra",
        action="store_true",
        help="leave out the MISRA C:2012 check of the generated C (Cppcheck: seconds for most "
        "models, minutes for a robot's megabytes of C)",
    )
    au.add_argument("--seed", type=int, default=1, help="random seed (default 1)")
    au.set_defaults(func=cmd_audit)

    u = sub.add_parser(
        "import-urdf",
        help="write a mechanism file from a URDF robot",
        description="Read a URDF robot description (safely: no DTDs, no entities) and write an "
        "ordinary mechanism file: one spatial body per moving link (fixed joints merged), "
        "revolute, continuous, prismatic and planar joints, joint damping as dampers. The root "
        "link is fixed to the ground; joints start at 0 unless --q says otherwise; gravity is "
        "9.81 m/s^2 along -z. What the import did is printed, one line per item.",
    )
    u.add_argument("urdf", metavar="ROBOT.urdf")
    u.add_argument(
        "--out", metavar="MODEL.yaml", help="the file to write (default: <name>.yaml, here)"
    )
    u.add_argument("--name", help="model name (default: the --out file's, else the robot's)")
    u.add_argument(
        "--q",
        action="append",
        default=[],
        metavar="JOINT=VALUE",
        help="start position of a joint (rad or m; an expression such as pi/4; default 0)",
    )
    u.add_argument(
        "--qd",
        action="append",
        default=[],
        metavar="JOINT=VALUE",
        help="start rate of a joint (rad/s or m/s; default 0)",
    )
    u.add_argument(
        "--gravity", metavar="X,Y,Z", help="gravity in m/s^2, world frame (default 0,0,-9.81)"
    )
    u.set_defaults(func=cmd_import_urdf)

    s = sub.add_parser(
        "simulate",
        help="build and run the solver, write CSV",
        description="Compile the generated model with the runtime, simulate, write "
        "a CSV and print a summary. Defaults come from the model file.",
    )
    s.add_argument("model", metavar="MODEL", help=MODEL_HELP)
    from .options import add_arguments

    add_arguments(s)  # the one table of simulate options (options.py)
    s.add_argument("--json", action="store_true", help="also print the summary as JSON")
    s.set_defaults(func=cmd_simulate)

    st = sub.add_parser(
        "statics",
        help="static equilibrium (Newton with K_c)",
        description="Solve A'lambda = f(x, 0), c(x) = 0 from the model's initial configuration "
        "by Newton with the tangent stiffness of constraints K_c and a line search; print the "
        "equilibrium, the residual history and the joint reactions (003 §4).",
    )
    _analysis_arguments(st)
    st.add_argument("--plot", action="store_true", help="with --out: draw the equilibrium")
    st.set_defaults(func=cmd_statics)

    mo = sub.add_parser(
        "modes",
        help="vibration modes about the equilibrium",
        description="Find the static equilibrium, linearize there in the tangent space and "
        "print eigenvalues, frequencies, damping and mode shapes (003 §4).",
    )
    _analysis_arguments(mo)
    mo.add_argument("--damped", action="store_true", help="include D (first-order form)")
    mo.add_argument(
        "--count", type=_checked(int, "count"), default=None, help="the first N modes (default all)"
    )
    mo.add_argument(
        "--verify",
        action="store_true",
        help="simulate each mode from the equilibrium and compare the FFT peak with it",
    )
    mo.add_argument("--plot", action="store_true", help="with --out: draw the mode shapes")
    mo.add_argument("--animate", action="store_true", help="with --out: also a GIF of each mode")
    mo.set_defaults(func=cmd_modes)

    p = sub.add_parser(
        "plot",
        help="PNG figures of runs and events",
        description="Plot q_i and qdot_i of one or more runs side by side (as in "
        "the papers' figures), plus constraint residual and energy; "
        "or with --rdiag the diagonal of R over time (002 Figs. 2, 5, "
        "8, 14); with --basis BODY the tangent-basis components of a "
        "body (runs made with simulate --basis; 002 Figs. 10-11); "
        "with --events the admissible motions at each singular "
        "configuration drawn on the mechanism (002 Figs. 3, 6, 9); "
        "with --modes the equilibrium or the mode shapes of a saved "
        "statics/modes result drawn on the mechanism (003 Figs. 3, 5).",
    )
    p.add_argument("csv", nargs="*", metavar="FILE.csv")
    p.add_argument("--rdiag", action="store_true", help="diag(R) over time")
    p.add_argument(
        "--columns",
        metavar="COL,...",
        help="these CSV columns over time, one panel each (e.g. x.crank.theta,v.crank.theta,"
        "energy); with --model, axes carry the coordinates' units",
    )
    p.add_argument(
        "--momenta",
        action="store_true",
        help="also the generalized momenta P = T'Mv (runs of simulate --momenta; 004 Fig. 4a)",
    )
    p.add_argument("--basis", metavar="BODY", help="components of T for BODY's coordinates")
    p.add_argument("--events", metavar="FILE.json", help="draw the motions of an event log")
    p.add_argument(
        "--model",
        metavar="MODEL",
        help="the model of the runs: draws --events; units of --columns and of the q panels",
    )
    p.add_argument(
        "--modes", metavar="FILE.json", help="draw a statics/modes result (modes --json/--out)"
    )
    p.add_argument("--animate", action="store_true", help="with --modes: a GIF of each mode")
    p.add_argument(
        "--out",
        metavar="FILE.png",
        help="output (default: next to the first CSV; with --modes a directory, default the "
        "JSON's)",
    )
    p.add_argument("--label", action="append", help="legend label per CSV (default: file name)")
    p.set_defaults(func=cmd_plot)

    p = sub.add_parser(
        "animate",
        help="GIF of a run: the mechanism drawn over time",
        description="Draw the bodies and joints of a simulated run over time (planar in 2D, "
        "spatial as a 3D line drawing from the joint points), with the time and the energy in "
        "a corner: a GIF, or an MP4 when ffmpeg is installed.",
    )
    p.add_argument("csv", metavar="FILE.csv", help="a run written by simulate")
    p.add_argument("--model", required=True, help="the model of the run (bodies and joints)")
    p.add_argument(
        "--out", metavar="FILE.gif", help="FILE.gif or FILE.mp4 (default: the CSV's, .gif)"
    )
    p.add_argument(
        "--frames",
        type=_checked(int, "count"),
        default=100,
        help="frames, at equal times through the run (default 100)",
    )
    p.add_argument(
        "--fps", type=_checked(int, "count"), default=20, help="frames per second (default 20)"
    )
    p.add_argument(
        "--param",
        action="append",
        metavar="NAME=VALUE",
        help="a parameter value the run was simulated with (repeatable): the joint points are "
        "drawn where that geometry puts them",
    )
    p.set_defaults(func=cmd_animate)
    return parser


def main(argv=None):
    parser = build_parser()
    args = parser.parse_args(join_negative_values(sys.argv[1:] if argv is None else list(argv)))
    try:
        return args.func(args)
    except Interrupted as exc:
        print(f"mcsgen: {exc}", file=sys.stderr)
        return 130
    except McsError as exc:
        print(f"mcsgen: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:  # a path the user gave that cannot be read or written
        where = exc.filename or "input/output"
        print(f"mcsgen: {args.verb}: {where}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("mcsgen: interrupted", file=sys.stderr)
        return 130
