"""make bench-compare-cli REV=<git revision>: every command-line run of the shipped models in
this checkout against the same run at REV, byte for byte (a refactoring's "behaviour unchanged").

The runs (RUNS): each shipped model with its file's settings, the three methods under the four
continuation modes on two models, dense output, the banded and compact simulators, locks with
both transition kinds, reactions, bases and momenta, and statics and modes of four models. Each
tree runs them with its own generator, runtime and generated models; what each run writes (CSV,
event log, JSON summary, its exit status and its stderr) is compared after removing what may
differ by nature: wall times and the output paths. Prints the runs that differ (none: exit 0) and
writes build/bench/cli_compare.json.
"""

import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "build" / "bench"


def runs(tree):
    """[(name, verb, args)] of the comparison, the shipped models those of `tree`."""
    out = [(m.stem, "simulate", [m.stem]) for m in sorted((tree / "models").glob("*.yaml"))]
    for method in ("rk4", "dopri5", "dop853"):
        for cont in ("off", "none", "euler", "exp"):
            common = ["--method", method, "--continuation", cont]
            out.append((f"sp_{method}_{cont}", "simulate",
                        ["spatial_pendulum", *common, "--t-end", "1"]))  # fmt: skip
            out.append((f"dfb_{method}_{cont}", "simulate",
                        ["double_four_bar", *common, "--t-end", "3"]))  # fmt: skip
    chain = "bench/models/point_chain_40.yaml"
    out += [
        ("sc_banded", "simulate",
         ["slider_crank", "--simulator", "banded", "--continuation", "off", "--t-end", "1"]),
        ("pc40_banded", "simulate",
         [chain, "--simulator", "banded", "--continuation", "euler", "--t-end", "0.5"]),
        ("pc40_dense", "simulate",
         [chain, "--simulator", "dense", "--continuation", "euler", "--t-end", "0.5"]),
        ("top_banded", "simulate",
         ["spin_top", "--simulator", "banded", "--continuation", "none", "--t-end", "1"]),
        ("p3r_locks", "simulate",
         ["pendulum_3r", "--lock", "q2@0.8", "--lock", "q3@1.3", "--method", "rk4", "--h",
          "1e-4", "--t-end", "2", "--momenta"]),
        ("p3r_naive", "simulate",
         ["pendulum_3r", "--lock", "q2@0.8", "--transition", "naive", "--t-end", "1.5"]),
        ("sc_react", "simulate",
         ["slider_crank", "--reactions", "--basis", "--momenta", "--t-end", "0.5"]),
        ("dfb_dense", "simulate",
         ["double_four_bar", "--dt-out", "0.01", "--method", "dopri5", "--t-end", "2"]),
        ("dfb_853_dense", "simulate",
         ["double_four_bar", "--dt-out", "0.01", "--method", "dop853", "--t-end", "2"]),
    ]  # fmt: skip
    for model in ("pendulum_kc", "pendulum_torsion", "slider_crank", "double_four_bar"):
        out += [(f"statics_{model}", "statics", [model]), (f"modes_{model}", "modes", [model])]
    return out


WALL = re.compile(r'"wall_s": [0-9.e+-]+|wall [0-9.]+ ms')


def run_all(tree, out_dir):
    """Each run of `tree` into out_dir/NAME.*; returns {file name: text}."""
    out_dir.mkdir(parents=True)
    results = {}
    for name, verb, args in runs(tree):
        files = []
        if verb == "simulate":
            csv, events = out_dir / f"{name}.csv", out_dir / f"{name}.events.json"
            args = [*args, "--out", str(csv), "--events", str(events), "--json"]
            files = [csv, events]
        else:
            args = [*args, "--json"]
        proc = subprocess.run(["./mcsgen", verb, *args], cwd=tree, capture_output=True,
                              text=True)  # fmt: skip
        results[f"{name}.status"] = str(proc.returncode)
        results[f"{name}.stdout"] = proc.stdout
        results[f"{name}.stderr"] = proc.stderr
        for f in files:
            results[f.name] = f.read_text() if f.exists() else "(none)"
    return {k: WALL.sub("wall", v).replace(str(out_dir), "OUT") for k, v in results.items()}


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: bench/cli_compare.py REV")
    rev = sys.argv[1]
    OUT.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="mcs-cli-") as tmp:
        old = Path(tmp) / "old"
        subprocess.run(["git", "worktree", "add", "--detach", "-q", str(old), rev], cwd=ROOT,
                       check=True)  # fmt: skip
        try:
            before = run_all(old, Path(tmp) / "before")
            after = run_all(ROOT, Path(tmp) / "after")
        finally:
            subprocess.run(["git", "worktree", "remove", "--force", str(old)], cwd=ROOT)
    differ = sorted(k for k in before.keys() | after.keys() if before.get(k) != after.get(k))
    names = len(runs(ROOT))
    (OUT / "cli_compare.json").write_text(
        json.dumps({"rev": rev, "runs": names, "outputs": len(after), "differ": differ}, indent=1)
    )
    for k in differ:
        print(f"differs from {rev}: {k}")
    print(f"{names} command-line runs, {len(after)} outputs: {len(differ)} differ from {rev}")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
