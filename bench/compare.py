"""make bench-compare REV=<git revision>: the integration loop of this checkout against the same
loop at REV, interleaved in one run, as ratios (this / REV; below 1 is faster).

Each tree builds bench/bench_step.c with its own runtime and its own generated models (its
build.program_command), so a change of the runtime, of the printer or of the templates shows.
For each model, backend and method: the best of REPEATS interleaved runs of each binary, the
step counts and the largest difference of the final positions (0 when the arithmetic is the
same), and, where valgrind is installed, the instructions each binary executes for one run
(callgrind; setup included): a count the machine's timing noise and the code's address layout do
not move, where a 3 % difference of wall times on a shared VM can be either.
Writes build/bench/compare.json and prints a table.
"""

import json
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "build" / "bench"
PYTHON = "/usr/bin/python3"
# (model, method, h, rtol, t_end): P1, P2a and P3 of TARGETS.md, and the slider-crank
CASES = [
    ("spatial_pendulum", "rk4", 2e-3, 1e-8, 2.0),
    ("spatial_pendulum", "dopri5", 1e-3, 1e-9, 2.0),
    ("pendulum_3r", "rk4", 1e-3, 1e-8, 2.0),
    ("pendulum_3r", "dopri5", 1e-3, 1e-10, 2.0),
    ("double_four_bar", "dopri5", 1e-3, 1e-10, 10.0),
    ("double_four_bar", "dopri5", 1e-3, 1e-11, 10.0),
    ("spatial_pendulum", "dop853", 1e-3, 1e-8, 2.0),
    ("double_four_bar", "dop853", 1e-3, 1e-11, 10.0),
    ("slider_crank", "rk4", 1e-3, 1e-8, 2.0),
]
BACKENDS = ("lapack", "portable")
REPEATS = 7

BUILD = """
import json, sys
from pathlib import Path
from mcsgen import build
name, backend, target = sys.argv[1:4]
root = Path.cwd()
cmd = build.program_command(name, [root / "bench" / "bench_step.c"], target, backend,
                            ["-D_POSIX_C_SOURCE=199309L"], gdir=root / "generated" / name)
print(json.dumps(cmd))
"""


def compile_in(tree, name, backend, target):
    env = {"PYTHONPATH": str(tree / "generator"), "PATH": "/usr/bin:/bin"}
    proc = subprocess.run([PYTHON, "-c", BUILD, name, backend, str(target)], cwd=tree, env=env,
                          capture_output=True, text=True, check=True)  # fmt: skip
    subprocess.run(json.loads(proc.stdout), cwd=tree, check=True)


def timed_run(exe, method, h, rtol, t_end):
    """One bench_step run (best of 3 inside): wall time, steps and final positions."""
    out = subprocess.run([str(exe), "run", method, str(h), str(rtol), str(t_end), "3"],
                         capture_output=True, text=True, check=True).stdout  # fmt: skip
    return json.loads(out)


def instructions(exe, method, h, rtol, t_end):
    """Instructions one bench_step run executes (valgrind's callgrind), or None without
    valgrind."""
    if shutil.which("valgrind") is None:
        return None
    proc = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null",
                           str(exe), "run", method, str(h), str(rtol), str(t_end), "1"],
                          capture_output=True, text=True, check=True)  # fmt: skip
    return int(re.search(r"Collected : (\d+)", proc.stderr).group(1))


def main():
    if len(sys.argv) < 2:
        sys.exit("usage: bench/compare.py REV [MODEL...]")
    rev, only = sys.argv[1], set(sys.argv[2:])
    OUT.mkdir(parents=True, exist_ok=True)
    rows = []
    with tempfile.TemporaryDirectory(prefix="mcs-bench-") as tmp:
        old = Path(tmp) / "old"
        subprocess.run(["git", "worktree", "add", "--detach", "-q", str(old), rev], cwd=ROOT,
                       check=True)  # fmt: skip
        try:
            # the methods REV knows: named in its bench driver (before the method table) or in
            # its runtime (mcs_method.c's names since)
            old_methods = (old / "bench" / "bench_step.c").read_text() + "".join(
                p.read_text() for p in sorted((old / "runtime").rglob("*.c"))
            )
            for name, method, h, rtol, t_end in CASES:
                if only and name not in only:
                    continue
                if method not in ("rk4", "dopri5") and f'"{method}"' not in old_methods:
                    print(f"{name} {method}: {rev} has no {method}; not compared")
                    continue
                for backend in BACKENDS:
                    exes = {}
                    for label, tree in (("old", old), ("new", ROOT)):
                        exes[label] = Path(tmp) / f"{label}_{name}_{backend}"
                        compile_in(tree, name, backend, exes[label])
                    runs = {"old": [], "new": []}
                    for _ in range(REPEATS):
                        for label in ("old", "new"):
                            runs[label].append(timed_run(exes[label], method, h, rtol, t_end))
                    best = {k: min(r["wall_s"] for r in v) for k, v in runs.items()}
                    last = {k: v[-1] for k, v in runs.items()}
                    dx = max(abs(a - b) for a, b in zip(last["old"]["x"], last["new"]["x"]))
                    ir = {k: instructions(exes[k], method, h, rtol, t_end) for k in exes}
                    ir_ratio = ir["new"] / ir["old"] if ir["old"] else None
                    rows.append(dict(model=name, backend=backend, method=method, rtol=rtol,
                                     instructions_old=ir["old"], instructions_new=ir["new"],
                                     instructions_ratio=ir_ratio,
                                     old_ms=1e3 * best["old"], new_ms=1e3 * best["new"],
                                     ratio=best["new"] / best["old"],
                                     steps_old=last["old"]["steps"],
                                     steps_new=last["new"]["steps"], max_dx=dx))  # fmt: skip
        finally:
            subprocess.run(["git", "worktree", "remove", "--force", str(old)], cwd=ROOT)
    (OUT / "compare.json").write_text(json.dumps({"rev": rev, "rows": rows}, indent=1))
    print(f"integration loop, this checkout against {rev} (best of {REPEATS} interleaved runs)")
    print(f"{'model':<18} {'backend':<9} {'method':<7} {'rtol':>6} {rev[:10]:>10} {'this':>10}"
          f" {'ratio':>7} {'steps':>13} {'max |dx|':>9} {'instr':>7}")  # fmt: skip
    for r in rows:
        rtol = f"{r['rtol']:.0e}" if r["method"] != "rk4" else "-"
        print(
            f"{r['model']:<18} {r['backend']:<9} {r['method']:<7} {rtol:>6} "
            f"{r['old_ms']:>8.3f}ms {r['new_ms']:>8.3f}ms {r['ratio']:>7.3f} "
            f"{r['steps_old']:>6}/{r['steps_new']:<6} {r['max_dx']:>9.1e} "
            + (f"{r['instructions_ratio']:>7.4f}" if r["instructions_ratio"] else "      -")
        )


if __name__ == "__main__":
    main()
