"""`./mcsgen sweep`: the Python API's Solver.sweep (sweep/) with its files, progress and report."""

import sys
import time
from pathlib import Path

from ..paths import OUT, model_path
from .generation import ensure_generated
from .spinner import Spinner

# simulate options a sweep does not take: its files are its own, a schedule file is not shipped
SKIPPED_SIMULATE_OPTIONS = ("out", "events", "inputs", "param", "progress", "x0", "v0")
FAILURES_SHOWN = 5


class Progress:
    """`sweep: 412/1000 runs, 3 failed, 12 s left` on stderr, at most 5 times a second."""

    def __init__(self):
        self.shown = 0.0
        self.width = 0

    def __call__(self, done, total, failed, seconds):
        now = time.monotonic()
        if now - self.shown < 0.2 and done < total:
            return
        self.shown = now
        left = ""
        if 0 < done < total:
            left = f", {seconds / done * (total - done):.0f} s left"
        text = f"  sweep: {done}/{total} runs, {failed} failed{left}"
        sys.stderr.write("\r" + text.ljust(self.width))
        sys.stderr.flush()
        self.width = len(text)

    def clear(self):
        if self.width:
            sys.stderr.write("\r" + " " * self.width + "\r")
            sys.stderr.flush()


def cmd_sweep(args):
    from ..api import Mechanism, Solver
    from ..build import build_simulator_library, model_linalg_backend
    from ..options import OPTIONS
    from ..sweep import make_design
    from ..sweep.runner import execute, plan

    model = ensure_generated(args.model, built=True)
    design = make_design(
        args.grid or [],
        args.sample or [],
        args.samples,
        args.seed,
        args.combine,
        args.table,
    )
    sources = {g.partition("=")[0].strip(): "--param" for g in args.grid or []}
    sources.update({s.partition("=")[0].strip(): "--sample" for s in args.sample or []})
    if args.table:
        sources.update({name: f"--table {args.table}" for name in design.names})
    if args.run == "simulate":
        options = {
            o.name.replace("-", "_"): getattr(args, o.name.replace("-", "_"))
            for o in OPTIONS
            if o.name not in SKIPPED_SIMULATE_OPTIONS
        }
        for flag in ("kkt", "no_kc", "max_iter", "count", "damped"):
            if getattr(args, flag) not in (None, False):
                raise_option(flag, "an option of --run statics or modes")
    else:
        simulate_given = [
            o.name
            for o in OPTIONS
            if o.name not in SKIPPED_SIMULATE_OPTIONS
            and getattr(args, o.name.replace("-", "_")) not in (None, False, [])
        ]
        if simulate_given:
            raise_option(simulate_given[0].replace("-", "_"), "an option of --run simulate")
        options = {"kkt": args.kkt, "use_kc": not args.no_kc}
        if args.max_iter is not None:
            options["max_iter"] = args.max_iter
        if args.run == "modes":
            options.update(damped=args.damped, count=args.count)
        elif args.count is not None or args.damped:
            raise_option("count" if args.count is not None else "damped", "an option of modes")
    backend = model_linalg_backend(model.name)
    with Spinner(f"compiling {model.name}"):
        library = build_simulator_library(model.name, backend)
    solver = Solver(Mechanism(model, model_path(args.model)), library, backend)
    out = Path(args.out) if args.out else OUT / f"{model.name}-sweep.csv"
    prepared = plan(
        solver,
        design,
        sources,
        kind=args.run,
        quantities=args.quantity,
        timeout=args.timeout,
        out=out,
        options=options,
    )
    progress = Progress() if sys.stderr.isatty() else None
    try:
        result = execute(
            prepared,
            workers=args.workers,
            scheduler=args.scheduler,
            resume=args.resume,
            batch=args.batch,
            progress=progress,
        )
    finally:
        if progress is not None:
            progress.clear()
    print(format_sweep(result, out))
    return 0 if result.summary["failed"] == 0 and result.summary["complete"] else 1


def raise_option(flag: str, what: str):
    from ..sweep import DesignError

    raise DesignError(f"sweep: --{flag.replace('_', '-')} is {what}")


def format_sweep(result, out: Path) -> str:
    s = result.summary
    lines = [
        f"sweep of {s['model']} ({s['run']}): {s['runs']} runs ({s['design']}) on {s['where']}",
        f"  {s['ok']} ok, {s['failed']} failed"
        + (
            " ("
            + ", ".join(f"{k} {v}" for k, v in sorted(s["statuses"].items()) if k != "ok")
            + ")"
            if s["failed"]
            else ""
        )
        + f"; {s['seconds']:.1f} s, {s['runs_per_second']:.1f} runs/s",
    ]
    names = s["parameters"]
    for row in result.failed[:FAILURES_SHOWN]:
        values = ", ".join(f"{n} = {row[n]:.6g}" for n in names)
        lines.append(f"  run {row['run']} ({values}): {row['status']}: {row['message']}")
    if len(result.failed) > FAILURES_SHOWN:
        lines.append(f"  ... {len(result.failed) - FAILURES_SHOWN} more failed runs in the CSV")
    if s["stats"]:
        width = max(len(k) for k in s["stats"])
        lines.append(f"  {'quantity':<{width}} {'min':>14} {'mean':>14} {'max':>14} {'std':>12}")
        for name, st in s["stats"].items():
            lines.append(
                f"  {name:<{width}} {st['min']:>14.8g} {st['mean']:>14.8g} {st['max']:>14.8g} "
                f"{st['std']:>12.4g}"
            )
    if s["missing"]:
        lines.append(
            f"  {s['missing']} runs were interrupted on their workers each time they were sent: "
            "--resume runs them"
        )
    lines.append(f"  wrote {out} and {out.with_suffix('.json')}")
    return "\n".join(lines)
