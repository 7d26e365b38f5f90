"""The verbs of the generated code: generate, misra, check, audit, import-urdf; and what the
others share of them (a model generated on demand, the warnings its file accepted, a number of
the command line)."""

import sys
import time
from pathlib import Path

from ..errors import McsError, ModelError
from ..paths import MODELS, OUT, ROOT, model_path, remember_user_dir, shipped
from .spinner import Spinner


def cmd_generate(args):
    from ..generate import generate

    paths = [model_path(m) for m in args.models] or sorted(MODELS.glob("*.yaml"))
    status = 0
    flagged = []  # models whose generated C has MISRA findings
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
        warn_accepted(model)
        state = f"written in {took:.2f} s" if written else "up to date (skipped)"
        print(f"{model.name}: n = {model.n}, m = {model.m} -> {_shown(out_dir)}/ {state}")
        if not args.no_misra:  # kept per generated file: checked once (misra.check_model_once)
            if _misra_of_generated(model.name, out_dir, took if written else None):
                status = 1
                flagged.append(model.name)
    if flagged:
        print(
            f"mcsgen: generate: the C of {', '.join(flagged)} has MISRA C:2012 findings (listed "
            "above): a case the deviations do not cover, to report (docs/reference/misra.md); "
            "--no-misra skips the check",
            file=sys.stderr,
        )
    return status


def _shown(folder):
    """A folder as the user can type it where they are: relative to the working directory when
    under it, else whole (never relative to the checkout, which may be elsewhere)."""
    folder = Path(folder).resolve()
    here = Path.cwd().resolve()
    return folder.relative_to(here) if folder.is_relative_to(here) else folder


# what `generate --no-misra` means, said where a check takes long enough to be skipped
SKIP_MISRA = (
    "--no-misra skips the check: the C runs the same, but firmware held to MISRA C:2012 then "
    "needs `./mcsgen misra {folder}` before it ships (docs/howto/misra.md)"
)
LONG_CHECK_BYTES = 300_000  # C of this size and more takes Cppcheck minutes to check


def _misra_of_generated(name, out_dir, generation_s=None):
    """Print the MISRA C:2012 result of freshly generated C; 1 when there is a finding. A check
    not made before of C large enough to take minutes is announced with how to skip it, and a
    check that took longer than the generation (generation_s, None when the C was up to date)
    says so after."""
    import shutil

    from ..misra import WORKERS, check_model_once, known_result

    if shutil.which("cppcheck") is None:
        print("  MISRA C:2012: not checked (cppcheck is not installed; make deps installs it)")
        return 0
    skip = SKIP_MISRA.format(folder=_shown(out_dir))
    size = sum(f.stat().st_size for f in Path(out_dir).glob("*.[ch]"))
    if size >= LONG_CHECK_BYTES and known_result(out_dir) is None:
        print(f"  MISRA C:2012 check of {size // 1000} KB of C: minutes on {WORKERS} cores; {skip}")
    start = time.monotonic()
    with Spinner(f"MISRA check of {name}"):
        result = check_model_once(out_dir)
    took = time.monotonic() - start
    for finding in result.findings:
        print(f"  {finding}")
    print(f"  {result.summary()}")
    if result.pieces > 1 and took >= 1:  # a large model's check: its cost
        print(f"  (MISRA C:2012 checked in {result.pieces} pieces, {WORKERS} at a time, in "
              f"{took:.0f} s: docs/reference/misra.md)")  # fmt: skip
    if generation_s is not None and took > max(generation_s, 10.0):
        print(f"  the check took {took:.0f} s, its generation {generation_s:.0f} s: {skip}")
    return 1 if result.findings else 0


def cmd_misra(args):
    """MISRA C:2012 over the runtime and generated models, deviations applied."""
    from .. import misra
    from ..paths import GENERATED

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


def warn_accepted(model):
    """The departures the model's file accepted (e.g. `inertia_check: warn`), on stderr."""
    for line in model.warnings:
        print(f"mcsgen: warning: {line}", file=sys.stderr)


def ensure_generated(name_or_path, built=False):
    """The model of a file (a shipped model's name or a path), generated when its C is not up
    to date. built: a command that only runs the C (simulate, statics, modes, sweep) takes the
    plain record of a model built before (built_model.BuiltModel) when there is one, and does
    no symbolic work at all."""
    path = model_path(name_or_path)
    if built:
        from .. import built_model

        record = built_model.load(path)
        if record is not None:
            if not shipped(path):
                remember_user_dir(record.name, record.out_dir)  # as generate() does
            warn_accepted(record)
            return record
    from ..generate import generate

    with Spinner("generating"):
        model, _, _ = generate(path)
    warn_accepted(model)
    return model


def cmd_check(args):
    from ..selfcheck import check_model

    model = ensure_generated(args.model)
    with Spinner(f"checking {model.name}"):
        report = check_model(model, samples=args.samples, seed=args.seed, tol=args.tol)
    print(report.table())
    return 0 if report.ok else 1


def cmd_audit(args):
    from ..audit import collect, write_report
    from ..build import model_dir

    if args.format not in ("html", "md"):
        raise McsError(f"audit --format: 'html' or 'md', got '{args.format}'")
    model = ensure_generated(args.model)
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


def exact_value(text, where, path):
    """A number or constant expression (pi/4) of the command line as an exact Fraction."""
    from fractions import Fraction

    import sympy as sp

    from ..model.exact import NotANumber, approx
    from ..model.expr import ExprError, parse_expr

    try:
        value = sp.Rational(approx(parse_expr(text.strip(), {})))
    except (ExprError, NotANumber) as exc:
        raise ModelError(path, where, f"'{text}' is not a finite number ({exc})") from None
    return Fraction(int(value.p), int(value.q))


def cmd_import_urdf(args):
    from ..urdf import import_urdf

    values = {}
    for option in ("q", "qd"):
        values[option] = {}
        for item in getattr(args, option):
            joint, eq, text = item.partition("=")
            if not eq or not joint.strip():
                raise ModelError(args.urdf, f"--{option} {item}", "expected JOINT=VALUE")
            values[option][joint.strip()] = exact_value(text, f"--{option} {item}", args.urdf)
    gravity = None
    if args.gravity is not None:
        parts = args.gravity.split(",")
        if len(parts) != 3:
            raise ModelError(args.urdf, "--gravity", f"expected X,Y,Z, got '{args.gravity}'")
        gravity = [exact_value(p, "--gravity", args.urdf) for p in parts]
    out, notes = import_urdf(
        args.urdf,
        args.out,
        args.name,
        values["q"],
        values["qd"],
        gravity,
        args.coordinates,
        limits=args.limits,
    )
    for note in notes:
        print(f"  {note}")
    print(f"wrote {out}")
    return 0
