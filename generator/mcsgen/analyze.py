"""Static equilibrium and vibration modes (library API; `./mcsgen statics` and `./mcsgen modes`
are its command line; the numbers come from the C runtime, runtime/app/mcs_analyze.c).

`run_analysis(model_name, ...)` compiles (cached) and runs the analyzer and returns its JSON as a
dict; `format_statics`, `format_modes` and `verify_table` turn that into text a person reads;
`write_outputs` writes JSON and CSV for programs; `dominant_frequency` is the FFT estimate that
`--verify` compares with the eigenvalues (003 §4.2.2 validates its table the same way).
"""

import csv
import json
import math
import subprocess
import tempfile
from pathlib import Path
from typing import Dict, List, Optional, Sequence

from . import cjson
from .build import build_analyzer
from .enums import MODE_KIND
from .errors import McsError
from .options import MAX_STATICS_ITER

KINDS = MODE_KIND.names  # a mode's "kind" is an mcs_mode_kind: its index here
STATUS_OK = 0


def run_analysis(
    model_name: str,
    x: Optional[Sequence[float]] = None,
    generated_dir=None,
    build_flags: Sequence[str] = (),
    **options,
) -> dict:
    """Statics from the model's initial configuration (or x), then optionally the modes there,
    with the options of analysis_arguments (modes, statics_kc, kkt, params, count, ...).
    Returns the analyzer's JSON; failures of the analysis are statuses inside it
    (`result["statics"]["status"]`, `result["modes"]["status"]`), not exceptions.
    generated_dir: the model's generated sources when not in generated/ (`generate --out`);
    build_flags: extra compiler flags of the analyzer (e.g. -O0: a 300-coordinate model's kernels
    take two minutes to optimize and five seconds not to)."""
    args = analysis_arguments(**options)
    exe = build_analyzer(model_name, extra_flags=build_flags, gdir=generated_dir)
    cmd = [str(exe)] + args
    with tempfile.TemporaryDirectory() as tmp:
        if x is not None:
            xfile = Path(tmp) / "x.txt"
            xfile.write_text("\n".join(repr(float(v)) for v in x) + "\n")
            cmd += ["--x", str(xfile)]
        proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if proc.returncode not in (0, 1) or not proc.stdout.strip():
        err = proc.stderr.strip() or f"exit code {proc.returncode}"
        raise McsError(f"analysis of {model_name} failed: {err}")
    return cjson.loads(proc.stdout)


def analysis_arguments(
    modes: bool = False,
    statics_kc: bool = True,
    modes_kc: bool = True,
    kkt: bool = False,
    damped: bool = False,
    params: Sequence[str] = (),
    count: Optional[int] = None,
    basis_rotate: Optional[int] = None,
    continued_basis: bool = False,
    verify: int = 0,
    verify_cycles: float = 6.0,
    verify_amp: float = 1e-3,
    verify_samples: int = 256,
    max_iter: int = 50,
    tol: Optional[float] = None,
) -> List[str]:
    """The analyzer's arguments: what run_analysis runs, and what a sweep's workers run with each
    run's --param appended. basis_rotate: modes in T W (W a seeded random rotation) instead of
    the QR basis T; continued_basis: the Newton steps and the modes in the QR basis of the start
    carried along the Newton path by the simulator's continuation (both only to show the
    results do not depend on T)."""
    if not (isinstance(max_iter, int) and 1 <= max_iter <= MAX_STATICS_ITER):
        raise McsError(f"statics: max_iter must be a whole number in 1..{MAX_STATICS_ITER}")
    cmd = ["--max-iter", str(max_iter)]
    if tol is not None:
        cmd += ["--tol", repr(float(tol))]
    if not statics_kc:
        cmd.append("--statics-no-kc")
    if kkt:
        cmd.append("--kkt")
    if continued_basis:
        cmd.append("--continued-basis")
    for p in params:
        cmd += ["--param", p]
    if modes:
        cmd.append("--modes")
        if not modes_kc:
            cmd.append("--modes-no-kc")
        if damped:
            cmd.append("--damped")
        if count is not None:
            cmd += ["--count", str(count)]
        if basis_rotate is not None:
            cmd += ["--basis-rotate", str(basis_rotate)]
        if verify:
            cmd += ["--verify", str(verify), "--verify-cycles", repr(float(verify_cycles))]
            cmd += ["--verify-amp", repr(float(verify_amp))]
            cmd += ["--verify-samples", str(verify_samples)]
    return cmd


def load_start(path, coordinates: Optional[Sequence[str]] = None) -> Sequence[float]:
    """The configuration x to start Newton from: of a statics result (`--json` output or
    statics.json of --out), or of a run's CSV (`simulate`'s: its x.<coordinate> columns), its
    last row or, as FILE.csv@T, its last row at or before t = T (a simulated rest state
    converges where the file's pose may not). coordinates: the model's, which a CSV's columns
    must be."""
    text = str(path)
    at = None
    if "@" in text and text.rpartition("@")[0].lower().endswith(".csv"):
        text, _, when = text.rpartition("@")
        try:
            at = float(when)
        except ValueError:
            raise McsError(f"--from {path}: '{when}' after '@' is not a time") from None
        if not math.isfinite(at):
            raise McsError(f"--from {path}: '{when}' after '@' is not a finite time")
    if text.lower().endswith(".csv"):
        return _row_of_run(text, at, coordinates)
    try:
        data = json.loads(Path(path).read_text())
        x = data["x"]
        if not all(isinstance(v, (int, float)) for v in x):
            raise ValueError("x must be a list of numbers")
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise McsError(f"{path}: not a statics result with a list 'x' ({exc})") from None
    return x


def _row_of_run(path, at, coordinates):
    """x of a run's CSV: its last row, or its last at or before t = at."""
    try:
        with open(path, newline="") as fh:
            reader = csv.reader(fh)
            header = next(reader, None)
            if not header or header[0] != "t":
                raise McsError(f"--from {path}: not a run's CSV (its first column is not t)")
            columns = [k for k, name in enumerate(header) if name.startswith("x.")]
            names = [header[k][2:] for k in columns]
            if coordinates is not None and names != list(coordinates):
                raise McsError(
                    f"--from {path}: its x.<coordinate> columns ({', '.join(names) or 'none'}) "
                    f"are not the model's coordinates ({', '.join(coordinates)})"
                )
            chosen = None
            for line, row in enumerate(reader, 2):
                try:
                    t = float(row[0])
                    if at is not None and t > at:
                        break
                    chosen = (t, [float(row[k]) for k in columns])
                except (ValueError, IndexError):
                    raise McsError(f"--from {path}: line {line} is not a row of numbers") from None
    except OSError as exc:
        raise McsError(f"--from {path}: cannot read it ({exc.strerror})") from None
    if chosen is None:
        when = f" at or before t = {at:g}" if at is not None else ""
        raise McsError(f"--from {path}: no row{when}")
    if not all(math.isfinite(v) for v in chosen[1]):
        raise McsError(f"--from {path}: the row at t = {chosen[0]:g} is not finite")
    return chosen[1]


def joint_reactions(result: dict) -> Dict[str, Dict[str, float]]:
    """{joint: {coordinate of body1: generalized reaction}} (force components for a body's
    position coordinates, in the world frame)."""
    names = result["coordinates"]
    out = {}
    for r in result.get("reactions", []):
        prefix = r["body1"] + "."
        out[r["joint"]] = {names[i]: v for i, v in r["generalized"] if names[i].startswith(prefix)}
    return out


def format_statics(result: dict, limit: int = 24) -> str:
    s = result["statics"]
    lines = [
        f"statics of {result['model']}: {s['message']}",
        f"  method {s['method']}, K_c {'included' if s['use_kc'] else 'left out'}, "
        + (
            f"start assembled onto c = 0 in {s['assembly_steps']} steps, "
            if s.get("assembly_steps")
            else ""
        )
        + f"{s['iterations']} Newton steps ({s['evaluations']} evaluations), rank {s['rank']}",
        f"  residuals: |c| {s['residual_c']:.3g}, |f - A'lambda| {s['residual_f']:.3g}",
        "  merit per step: " + ", ".join(f"{m:.2e}" for m in s["merit"]),
    ]
    names, units, x = result["coordinates"], result["units"], result["x"]
    if len(x) <= limit:
        lines.append(f"  {'coordinate':<16} {'equilibrium':>20}  unit")
        for n, u, v in zip(names, units, x):
            lines.append(f"  {n:<16} {v:>20.12g}  {u}")
    else:
        lines.append(f"  ({len(x)} coordinates: see --json or --out)")
    reactions = joint_reactions(result)
    if reactions and len(reactions) <= limit:
        lines.append("  joint reactions on body1 (generalized, world frame):")
        for joint, comps in reactions.items():
            text = ", ".join(f"{k} {v:.6g}" for k, v in comps.items())
            lines.append(f"    {joint:<12} {text}")
    elif result["rows"] and len(result["rows"]) <= limit:
        lines.append("  multipliers:")
        for n, v in zip(result["rows"], result["lambda"]):
            lines.append(f"    {n:<16} {v:.12g}")
    wrenches = result.get("wrenches", [])
    if wrenches and len(wrenches) <= limit:
        lines.append("  joint forces and moments on body2 (world frame, about the joint's point):")
        for w in wrenches:
            force = ", ".join(f"{v:.6g}" for v in w["force"])
            moment = ", ".join(f"{v:.6g}" for v in w["moment"])
            lines.append(f"    {w['joint']:<12} F ({force})  N ({moment})")
    for stop in beyond_stops(result):
        limit_value = stop[stop["beyond"]]
        lines.append(
            f"  beyond its stop: {stop['name']} = {stop['q']:.12g}, {stop['beyond']} limit "
            f"{limit_value:.12g}: not the mechanism's equilibrium (the stop would hold it at its "
            "limit; an equilibrium against a stop is not solved yet)"
        )
    return "\n".join(lines)


def beyond_stops(result: dict) -> list:
    """The stops (the file's `stops:`) the equilibrium found lies beyond."""
    return [s for s in result.get("stops", []) if s.get("beyond")]


def dominant_coordinates(result: dict, shape: Sequence[float], top: int = 3) -> str:
    names = result["coordinates"]
    order = sorted(range(len(shape)), key=lambda i: -abs(shape[i]))[:top]
    return ", ".join(f"{names[i]} {shape[i]:+.2f}" for i in order)


def eigenvalue_text(mode: dict, damped: bool) -> str:
    """s as a person writes it: ±1.566i, -0.1 ± 2i, ±1.566 (undamped real pair), -3.2, 0."""
    re, im = mode["re"], mode["im"]
    if im:
        return f"±{im:.6g}i" if re == 0 else f"{re:.6g} ± {im:.6g}i"
    if re == 0:
        return "0"
    return f"{re:.6g}" if damped else f"±{abs(re):.6g}"


def stability_text(result: dict) -> str:
    """One line on the equilibrium's stability, from the modes computed there (statics runs
    them: an equilibrium that motion leaves is not "ok" to a user who asked for one)."""
    m = result.get("modes")
    if not m:
        return ""
    if m["status"] != STATUS_OK:
        return f"  stability: not determined ({m['message']})"
    kinds = [KINDS[mode["kind"]] for mode in m["list"]]
    growing = [mode for mode in m["list"] if KINDS[mode["kind"]] == "unstable"]
    if growing:
        fastest = max(growing, key=lambda mode: mode["re"])
        return (
            f"  stability: UNSTABLE: {len(growing)} mode(s) grow, the fastest as "
            f"exp({fastest['re']:.4g} t) ({dominant_coordinates(result, fastest['shape'])}): "
            "motion leaves this equilibrium (`modes` lists them)"
        )
    rigid = kinds.count("rigid")
    return "  stability: stable" + (
        f" but for {rigid} rigid motion(s) (a free coordinate: no stiffness)" if rigid else ""
    )


def format_modes(result: dict) -> str:
    m = result["modes"]
    if m["status"] != STATUS_OK:
        return f"modes of {result['model']}: {m['message']}"
    lines = [
        f"modes of {result['model']}: {m['dof']} DOF, K_c "
        f"{'included' if m['use_kc'] else 'left out'}, "
        f"{'damped (first-order form)' if m['damped'] else 'undamped'}, "
        f"{'symmetric-definite' if m['symmetric'] else 'general'} eigensolver",
    ]
    if m["stiffness"] == 0:
        lines.append("  zero stiffness: every mode is a rigid motion (0 Hz)")
    lines.append(
        f"  {'#':>3} {'kind':<11} {'eigenvalue s (1/s)':>28} {'freq Hz':>10} {'period s':>10}"
        f" {'zeta':>8}  dominant coordinates"
    )
    for k, mode in enumerate(m["list"]):
        s = eigenvalue_text(mode, m["damped"])
        period = 1 / mode["freq"] if mode["freq"] > 0 else math.inf
        lines.append(
            f"  {k + 1:>3} {KINDS[mode['kind']]:<11} {s:>28} {mode['freq']:>10.4f}"
            f" {period:>10.4f} {mode['zeta']:>8.4f}  {dominant_coordinates(result, mode['shape'])}"
        )
    return "\n".join(lines)


def dominant_frequency(samples: Sequence[float], dt: float) -> float:
    """The peak of the amplitude spectrum (Hann window, zero-padded 16x, parabolic
    interpolation of the log magnitude around the peak bin)."""
    import numpy as np

    y = np.asarray(samples, dtype=float)
    y = (y - y.mean()) * np.hanning(len(y))
    nfft = 16 * len(y)
    spec = np.abs(np.fft.rfft(y, nfft))
    k = int(np.argmax(spec[1:])) + 1
    if 1 <= k < len(spec) - 1:
        a, b, c = np.log(spec[k - 1 : k + 2] + 1e-300)
        k = k + 0.5 * (a - c) / (a - 2 * b + c)
    return float(k / (nfft * dt))


def verify_table(result: dict) -> list:
    """[(mode number, eigen Hz, simulated Hz, relative difference, coordinate)] of --verify."""
    rows = []
    for v in result.get("verify", []):
        mode = (
            result["modes"]["list"][v["mode"]] if v["mode"] < len(result["modes"]["list"]) else None
        )
        if v["status"] != STATUS_OK or mode is None:
            rows.append((v["mode"] + 1, None, None, None, v["message"]))
            continue
        sim = dominant_frequency(v["samples"], v["dt"])
        rows.append(
            (
                v["mode"] + 1,
                mode["freq"],
                sim,
                abs(sim - mode["freq"]) / mode["freq"],
                result["coordinates"][v["coordinate"]],
            )
        )
    return rows


def format_verify(rows: list) -> str:
    lines = [f"  {'#':>3} {'eigen Hz':>10} {'simulated Hz':>13} {'rel diff':>9}  signal"]
    for k, f_eig, f_sim, rel, what in rows:
        if f_eig is None:
            lines.append(f"  {k:>3} simulation failed: {what}")
        else:
            lines.append(f"  {k:>3} {f_eig:>10.4f} {f_sim:>13.4f} {rel:>9.2%}  {what}")
    return "\n".join(lines)


def write_outputs(result: dict, out_dir, stem: str) -> list:
    """<stem>.json (everything), and for modes modes.csv (one row per mode) and shapes.csv
    (one column per mode shape, next to the equilibrium)."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    written = [out / f"{stem}.json"]
    written[0].write_text(cjson.dumps(result, indent=1) + "\n")
    m = result.get("modes")
    if m and m["status"] == STATUS_OK:
        with open(out / "modes.csv", "w", newline="") as fh:
            w = csv.writer(fh)
            w.writerow(["mode", "kind", "re", "im", "omega", "freq_hz", "period_s", "zeta"])
            for k, mode in enumerate(m["list"]):
                period = 1 / mode["freq"] if mode["freq"] > 0 else ""
                w.writerow(
                    [k + 1, KINDS[mode["kind"]], mode["re"], mode["im"], mode["omega"]]
                    + [mode["freq"], period, mode["zeta"]]
                )
        with open(out / "shapes.csv", "w", newline="") as fh:
            w = csv.writer(fh)
            w.writerow(
                ["coordinate", "unit", "equilibrium"]
                + [f"mode{k + 1}" for k in range(len(m["list"]))]
            )
            for i, name in enumerate(result["coordinates"]):
                w.writerow(
                    [name, result["units"][i], result["x"][i]]
                    + [mode["shape"][i] for mode in m["list"]]
                )
        written += [out / "modes.csv", out / "shapes.csv"]
    return written
