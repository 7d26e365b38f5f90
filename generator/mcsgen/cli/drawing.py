"""`plot` and `animate`: figures of saved runs and analyses (outputs/)."""

import json
from pathlib import Path

from ..errors import McsError, ModelError
from ..paths import model_path
from .generation import exact_value
from .spinner import Spinner


def cmd_animate(args):
    from ..model_cache import load_completed as load_model
    from ..outputs.animate import animate_run

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
        params[name.strip()] = float(exact_value(text, where, model.path))
    with Spinner("drawing frames"):
        path = animate_run(
            args.csv, model, args.out, frames=args.frames, fps=args.fps, params=params
        )
    print(path)
    return 0


def cmd_plot(args):
    from ..outputs.plot import plot_basis, plot_columns, plot_events, plot_rdiag, plot_runs

    if args.modes:
        return _plot_analysis(args)
    from ..outputs.sweep_plot import is_sweep_csv, plot_sweep

    sweeps = [p for p in args.csv if is_sweep_csv(p)]
    if sweeps or args.against or args.hist or args.sensitivity:
        if len(args.csv) != 1 or len(sweeps) != 1:
            raise McsError("plot: --against, --hist and --sensitivity take one sweep's CSV")
        columns = [c.strip() for c in (args.columns or "").split(",") if c.strip()]
        written = plot_sweep(
            sweeps[0], args.out, args.against, columns, args.hist, args.sensitivity
        )
        for path in written:
            print(path)
        return 0
    if args.events:
        if not args.model:
            raise McsError("plot --events needs --model MODEL (to draw the mechanism)")
        from ..model_cache import load_completed as load_model

        written = plot_events(args.events, load_model(model_path(args.model)), args.out)
    elif not args.csv:
        raise McsError("plot: give CSV files, or --events FILE.json --model MODEL")
    elif args.columns:
        from ..model_cache import load_completed as load_model

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
            from ..model_cache import load_completed as load_model

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
    from ..outputs.modes_plot import plot_modes

    path = Path(args.modes)
    try:
        result = json.loads(path.read_text())
    except (OSError, ValueError) as exc:
        raise McsError(f"plot --modes: cannot read {path}: {exc}")
    if not isinstance(result, dict) or not {"coordinates", "x"} <= set(result):
        raise McsError(f"plot --modes: {path} is not the JSON of `mcsgen statics` or `modes`")
    out = Path(args.out) if args.out else path.parent
    model = None
    if args.model:  # its bodies drawn by their joint points
        from ..model_cache import load_completed

        model = load_completed(model_path(args.model))
        if [c.name for c in model.coordinates] != list(result["coordinates"]):
            raise McsError(
                f"plot --modes: {path} is not a result of {model.name} (its coordinates)"
            )
    for written in plot_modes(result, out, animate=args.animate, model=model):
        print(written)
    return 0
