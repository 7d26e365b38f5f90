"""Why DOPRI5's default tolerances are rtol 1e-10, atol 1e-12 (issue 14): for the shipped
conservative models, the steps, the rejected steps and the relative energy drift over the run
at rtol 1e-8 ... 1e-12 (atol = rtol / 100), in-process through the Python API.

Usage: bench/dopri5_defaults.py   (run.py calls main())
"""

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "generator"))

import mcsgen  # noqa: E402

RUNS = (("double_four_bar", 10.0), ("pendulum_3r", 5.0), ("spatial_pendulum", 10.0),
        ("slider_crank", 5.0))  # fmt: skip
RTOLS = (1e-8, 1e-9, 1e-10, 1e-11, 1e-12)


def main():
    rows = []
    for name, t_end in RUNS:
        solver = mcsgen.load(name).build()
        for rtol in RTOLS:
            s = solver.simulate(method="dopri5", rtol=rtol, atol=rtol / 100, t_end=t_end).summary
            tried = s["steps"] + s["rejected"]
            rows.append(
                {
                    "model": name,
                    "rtol": rtol,
                    "steps": s["steps"],
                    "rejected_share": s["rejected"] / max(tried, 1),
                    "energy_drift_rel": s["energy_drift_rel"],
                    "wall_ms": s["wall_s"] * 1e3,
                }
            )
            r = rows[-1]
            print(
                f"  {name:<18} rtol {rtol:.0e}: {r['steps']:6d} steps, "
                f"{r['rejected_share']:4.0%} rejected, energy drift {r['energy_drift_rel']:.1e} "
                f"relative, {r['wall_ms']:6.0f} ms"
            )
    return rows


if __name__ == "__main__":
    main()
