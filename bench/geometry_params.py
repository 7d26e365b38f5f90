"""What run-time geometry costs (issue 14): bench/models/geo_tilted.yaml, whose joint axis, points
and lengths are parameters, against the same file with `freeze: [L, a, h]` (geometry evaluated at
generation): generation time (best of 3), machine code of the model's kernels (-O2), and the time
per RK4 step of the in-process solver (best of 7 interleaved runs of 2 s).

Usage: bench/geometry_params.py   (run.py calls main())
"""

import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "generator"))

import mcsgen  # noqa: E402
from mcsgen.generate import generate  # noqa: E402

MODEL = ROOT / "bench" / "models" / "geo_tilted.yaml"


def variants(folder):
    """{label: model file}: the run-time geometry and the frozen one (another name, so both
    solvers load in one process)."""
    frozen = folder / "geo_tilted_frozen.yaml"
    text = MODEL.read_text().replace("name: geo_tilted", "name: geo_tilted_frozen")
    frozen.write_text(text.replace("gravity:", "freeze: [L, a, h]\ngravity:", 1))
    return {"run-time": MODEL, "frozen": frozen}


def code_size(source):
    """Bytes of machine code (the text section) of a generated model compiled as the solvers
    are (-O2, double)."""
    obj = source.with_suffix(".o")
    subprocess.run(
        ["cc", "-std=c99", "-O2", "-c", f"-I{ROOT / 'runtime' / 'include'}", str(source), "-o",
         str(obj)],
        check=True,
    )  # fmt: skip
    text = subprocess.run(["size", str(obj)], check=True, capture_output=True, text=True).stdout
    return int(text.splitlines()[1].split()[0])


def main():
    rows = {}
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        files = variants(folder)
        solvers = {}
        for label, path in files.items():
            best = float("inf")
            for _ in range(3):
                start = time.perf_counter()
                _, out, _ = generate(path, folder / "gen", force=True)
                best = min(best, time.perf_counter() - start)
            rows[label] = {"generation_s": best, "code_bytes": code_size(out / f"{out.name}.c")}
            solvers[label] = mcsgen.load(path).build()
        for label in files:
            rows[label]["step_us"] = float("inf")
        for _ in range(7):
            for label, solver in solvers.items():
                s = solver.simulate().summary
                step_us = s["wall_s"] / s["steps"] * 1e6
                rows[label]["step_us"] = min(rows[label]["step_us"], step_us)
    for label, r in rows.items():
        print(
            f"  {label:<9} generation {r['generation_s']:5.2f} s, "
            f"code {r['code_bytes'] / 1024:6.1f} KiB, {r['step_us']:6.1f} us per RK4 step"
        )
    run, frozen = rows["run-time"], rows["frozen"]
    print(
        f"  run-time / frozen: generation {run['generation_s'] / frozen['generation_s']:.2f}x, "
        f"code {run['code_bytes'] / frozen['code_bytes']:.2f}x, "
        f"step {run['step_us'] / frozen['step_us']:.2f}x"
    )
    return rows


if __name__ == "__main__":
    main()
