"""`statics` and `modes`: one analyzer run each (analyze.run_analysis) and its printing."""

from .. import cjson
from .generation import ensure_generated
from .spinner import Spinner


def _analysis(args, modes):
    from ..analyze import load_start, run_analysis
    from ..api import Mechanism, param_texts
    from ..paths import model_path

    model = ensure_generated(args.model, built=True)
    # the --param values as simulate's (frozen parameters, the file's rules on masses)
    texts = param_texts(args.param)
    mechanism = Mechanism(model, model_path(args.model))
    mechanism.check_param_values(texts, "--param")
    x = load_start(args.start, mechanism.coordinates) if args.start else None
    # statics computes the modes there too: whether the equilibrium is stable
    kw = dict(modes=True, params=args.param or (), x=x, kkt=args.kkt, max_iter=args.max_iter)
    kw.update(modes_kc=not args.no_kc, statics_kc=not args.no_kc)
    if modes:
        kw.update(damped=args.damped, count=args.count)
        kw.update(verify=(args.count or 4) if args.verify else 0)
    with Spinner(f"{'modes' if modes else 'statics'} of {model.name}"):
        return model, run_analysis(model.name, **kw)


def _write_analysis(args, model, result, stem):
    from ..analyze import write_outputs

    if not args.out:
        return
    written = write_outputs(result, args.out, stem)
    if getattr(args, "plot", False) or getattr(args, "animate", False):
        from ..api import param_texts
        from ..model_cache import load_completed
        from ..outputs.modes_plot import plot_modes
        from ..paths import model_path

        # the mechanism as the run's parameters place it (a figure, not a run: SymPy's import
        # is worth it here)
        full = load_completed(model_path(args.model))
        params = {k: float(v) for k, v in param_texts(args.param).items()}
        drawing = full.drawing_at(params) if full.drawing else None
        animate = getattr(args, "animate", False)
        written += plot_modes(result, args.out, animate=animate, model=full, drawing=drawing)
    for path in written:
        print(f"wrote {path}")


def cmd_statics(args):
    from ..analyze import beyond_stops, format_statics, stability_text

    model, result = _analysis(args, modes=False)
    if args.json:
        print(cjson.dumps(result, indent=1))
    else:
        print(format_statics(result))
        if result["statics"]["status"] == 0 and not beyond_stops(result):
            print(stability_text(result))
    _write_analysis(args, model, result, "statics")
    ok = result["statics"]["status"] == 0 and not beyond_stops(result)
    return 0 if ok else 1


def cmd_modes(args):
    from ..analyze import beyond_stops, format_modes, format_statics, format_verify, verify_table

    model, result = _analysis(args, modes=True)
    st = result["statics"]
    if args.json:
        print(cjson.dumps(result, indent=1))
    elif st["status"] != 0 or beyond_stops(result):
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
