"""What a command costs over its run on a model whose C is up to date (issue 60): for every
shipped model, `./mcsgen simulate MODEL --t-end T --json` once to generate and compile what is
missing, then best of three: the command's wall time, the run's own (the summary's wall_s) and
the difference, the overhead (Python's start, imports, the cached model, the compiled solver's
check, the files)."""

import json
import subprocess
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
T_END = "0.01"


def measure(path):
    argv = [str(ROOT / "mcsgen"), "simulate", str(path), "--t-end", T_END, "--json",
            "--out", str(ROOT / "build" / "bench" / "overhead" / f"{path.stem}.csv")]  # fmt: skip
    subprocess.run(argv, capture_output=True, check=True)  # generate and compile once
    best = None
    for _ in range(3):
        start = time.perf_counter()
        proc = subprocess.run(argv, capture_output=True, text=True, check=True)
        wall = time.perf_counter() - start
        run = json.loads(proc.stdout)["wall_s"]
        if best is None or wall - run < best["overhead_s"]:
            best = {"command_s": wall, "run_s": run, "overhead_s": wall - run}
    return best


def main():
    results = {}
    for path in sorted((ROOT / "models").glob("*.yaml")):
        results[path.stem] = r = measure(path)
        print(f"  {path.stem:<28} command {r['command_s']:6.3f} s, run {r['run_s'] * 1e3:7.1f} ms,"
              f" overhead {r['overhead_s']:6.3f} s")  # fmt: skip
    return results


if __name__ == "__main__":
    main()
