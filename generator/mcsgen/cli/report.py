"""The human summary of a run: what `simulate` prints (its JSON summary and event log in lines)."""

import json
from pathlib import Path

from ..enums import METHOD_NEAR_SINGULAR


def _by_method(s):
    """`: DOP853 168, DOPRI5 12` for a run of a method that leaves the steps near a singular
    configuration to another (enums.py's METHOD_NEAR_SINGULAR), else nothing."""
    counts = s.get("steps_by_method")
    other = METHOD_NEAR_SINGULAR.get(s["method"])
    if other is None or not counts:
        return ""
    return f": {s['method'].upper()} {counts[s['method']]}, {other.upper()} {counts[other]}"


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
    if s.get("stability_limited"):
        lines.append(
            f"  stiffness: {s['stability_limited']} steps limited by stability, |lambda| up to "
            f"{s['lambda_max']:.3g} 1/s, stiffness ratio |lambda| T = {s['stiffness_ratio']:.3g}"
        )
    for problem in s.get("problems", []):
        lines.append(f"  NOT OK: {problem}")
    for suggestion in s.get("suggestions", []):
        lines.append(f"  suggestion: {suggestion}")
    a = s["assembly"]
    if a["dx_norm"] > 1e-12 or a["dv_norm"] > 1e-12:  # below that it is round-off
        lines.append(
            f"  initial conditions corrected: |c| {a['c_norm_before']:.3e} -> "
            f"{a['c_norm_after']:.3e} with |dx| = {a['dx_norm']:.3e}; "
            f"|A v + c_t| {a['cdot_norm_before']:.3e} fixed with |dv| = {a['dv_norm']:.3e}"
        )
    return "\n".join(lines)


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
