"""`simulate`: one call of the Python API (Solver.simulate_to_files) and its printing."""

import contextlib
import sys
from pathlib import Path

from .. import cjson
from ..errors import Interrupted
from ..paths import OUT, model_path
from .generation import ensure_generated
from .report import format_events, format_summary
from .spinner import Spinner


def csv_size_warning(model, options, header, row_bytes):
    """One line when the run's CSV will pass api.LARGE_CSV bytes (400 s of a robot at 0.1 ms, one
    row per step, are gigabytes): its rows are known before the run with --dt-out (t_end / dt_out)
    or a fixed-step method (t_end / h), its columns from the CSV's header (the simulator's one
    list of them, runtime/app/mcs_simulate_output.c) and a row's size from the run's first rows
    (row_bytes: simulate_to_files passes both when they have come); an adaptive run's size is
    said when it gets there (simulate_to_files' large). Nothing when the rows pass --max-steps:
    the run is then refused, and that is all it says."""
    from ..enums import method_is
    from ..api import LARGE_CSV
    from ..options import OPTIONS

    OPTION_DEFAULTS = {o.name: o.default for o in OPTIONS}

    sim = dict(model.simulation)
    sim.update({k: v for k, v in options.items() if k in sim and v is not None})
    if sim.get("dt_out"):
        rows, why = sim["t_end"] / sim["dt_out"], f"a row every --dt-out {sim['dt_out']:g} s"
    elif not method_is(sim["method"], "adaptive"):
        rows, why = sim["t_end"] / sim["h"], f"a row per step of {sim['h']:g} s"
    else:
        return []
    if rows > float(options.get("max_steps") or OPTION_DEFAULTS["max-steps"]):
        return []  # the run is refused before it starts (--max-steps), with its own message
    columns = header.count(",") + 1
    size = rows * row_bytes
    if size <= LARGE_CSV:
        return []
    return [
        f"the CSV will be about {size / 2**30:.1f} GiB ({rows:.3g} rows of {columns} columns, "
        f"{why}): give --dt-out to write fewer rows"
    ]


def ignored_options(model, options):
    """Lines saying which given options the run will not use (the user meant something by
    them): a tolerance for a fixed-step method, a lock or unlock after the run's end."""
    from ..enums import method_is, methods_that_are

    sim = dict(model.simulation)
    sim.update({k: v for k, v in options.items() if k in sim and v is not None})
    lines = []
    given = [f"--{k}" for k in ("rtol", "atol") if options.get(k) is not None]
    if given and not method_is(sim["method"], "adaptive"):
        adaptive = ", ".join(methods_that_are("adaptive"))
        lines.append(
            f"{' and '.join(given)} {'is' if len(given) == 1 else 'are'} not used: {sim['method']} "
            f"takes fixed steps of --h ({sim['h']:g} s); the adaptive methods ({adaptive}) take "
            "tolerances"
        )
    for option in ("lock", "unlock"):
        for text in options.get(option) or ():
            name, _, at = text.rpartition("@")
            try:
                late = float(at) > sim["t_end"]
            except ValueError:  # the simulator refuses it, naming the option
                continue
            if late:
                lines.append(
                    f"--{option} {text}: after the run's end (t_end = {sim['t_end']:g} s): it "
                    "does not happen"
                )
    return lines


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
    model = ensure_generated(args.model, built=True)
    from ..options import OPTIONS

    options = {
        o.name.replace("-", "_"): getattr(args, o.name.replace("-", "_"))
        for o in OPTIONS
        if o.name not in ("out", "events", "progress")
    }
    out = args.out
    if out is None:
        out = OUT / f"{model.name}.csv"
    events = Path(args.events) if args.events else Path(out).with_suffix(".events.json")
    from ..api import Mechanism, Solver, param_texts, run_warnings
    from ..build import build_simulator_library, model_linalg_backend

    mechanism = Mechanism(model, model_path(args.model))
    mechanism.check_param_values(param_texts(args.param), "--param")  # before compiling
    backend = model_linalg_backend(model.name)
    with Spinner(f"compiling {model.name}"):
        library = build_simulator_library(model.name, backend)
    solver = Solver(mechanism, library, backend)

    for line in ignored_options(model, options):
        print(f"mcsgen: warning: {line}", file=sys.stderr)

    def header(line, row_bytes):  # the CSV's columns and its first rows' size
        for warning in csv_size_warning(model, options, line, row_bytes):
            print(f"mcsgen: warning: {warning}", file=sys.stderr)

    def large(size):  # a run whose size could not be told before it started
        print(
            f"mcsgen: warning: {out} has passed {size / 2**30:.1f} GiB: --dt-out writes fewer "
            "rows (Ctrl-C stops the run with the rows so far)",
            file=sys.stderr,
        )

    with _output_directories(Path(out).parent, events.parent):
        summary = solver.simulate_to_files(
            Path(out), events, header=header, large=large, progress=sys.stderr.isatty(), **options
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
        print(cjson.dumps(summary, indent=2))
    for line in run_warnings(summary):
        print(f"mcsgen: warning: {line}", file=sys.stderr)
    if summary.get("interrupted"):
        raise Interrupted(
            f"simulate: interrupted at t = {summary['t_reached']:g} s: {out} holds the "
            f"{summary['rows']} rows up to there"
        )
    return 0 if summary["ok"] else 1
