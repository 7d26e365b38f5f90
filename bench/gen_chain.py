"""Generation time of a chain of N spatial bodies joined by spherical joints (issue: linear in N).

Usage: bench/gen_chain.py [N ...]   (default 5 10 20 40). Prints seconds per phase and per body.
"""
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "generator"))

from mcsgen.derive import derive  # noqa: E402
from mcsgen.emit.render import render  # noqa: E402
from mcsgen.model import complete_initial_state, load_model  # noqa: E402

OUT = ROOT / "build" / "bench" / "chains"


def chain_yaml(n):
    """Links of 0.5 m along x from the origin, the first one hinged to it by a spherical joint."""
    lines = [f"name: chain_{n}", "gravity: [0, 0, -9.81]", "bodies:"]
    for i in range(1, n + 1):
        lines.append(
            f"  - {{name: link{i}, type: spatial, mass: 1.0, inertia: [0.001, 0.02, 0.02],"
            f" position: [{0.5 * i - 0.25}, 0, 0]}}"
        )
    lines.append("joints:")
    for i in range(1, n + 1):
        other = "ground" if i == 1 else f"link{i - 1}"
        lines.append(
            f"  - {{name: S{i}, type: spherical, body1: link{i}, body2: {other},"
            f" point: [{0.5 * (i - 1)}, 0, 0]}}"
        )
    return "\n".join(lines) + "\n"


def main(sizes):
    OUT.mkdir(parents=True, exist_ok=True)
    print(
        f"{'N':>4} {'n':>5} {'m':>5} {'load s':>8} {'derive s':>9} {'emit s':>8} {'total s':>8}"
        f" {'s/body':>7}"
    )
    rows = []
    for n in sizes:
        path = OUT / f"chain_{n}.yaml"
        path.write_text(chain_yaml(n))
        t0 = time.perf_counter()
        model = complete_initial_state(load_model(path))  # as before: loading + velocities
        t1 = time.perf_counter()
        derived = derive(model)  # every term a host build needs, the joints' wrenches too
        t2 = time.perf_counter()
        render(model, derived)
        t3 = time.perf_counter()
        rows.append((n, t3 - t0))
        print(
            f"{n:>4} {model.n:>5} {model.m:>5} {t1 - t0:8.2f} {t2 - t1:9.2f} {t3 - t2:8.2f}"
            f" {t3 - t0:8.2f} {(t3 - t0) / n:7.3f}"
        )
    if len(rows) > 1:
        (n0, s0), (n1, s1) = rows[0], rows[-1]
        print(
            f"time ratio {s1 / s0:.1f} for N ratio {n1 / n0:.0f} "
            f"(linear: {n1 / n0:.0f}, quadratic: {(n1 / n0) ** 2:.0f})"
        )
    return rows


if __name__ == "__main__":
    main([int(a) for a in sys.argv[1:]] or [5, 10, 20, 40])
