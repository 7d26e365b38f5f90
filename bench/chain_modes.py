"""Statics and modes of the anchor chain family (issue 10): generation time, the static solve from
the V shape and the modal analysis, for N = 11, 21, 43, 85 bodies; for N = 43 the first four
frequencies against 003 Table 3 (0.240, 0.309, 0.504, 0.551 Hz) and, with --verify, the FFT of
simulated responses (slow: about 3 minutes of simulation per mode). With --joint, the same
chains written in joint coordinates (issue 36: the hinges and universal joints on the tree, two
angles each, one joint cut: n = 2 N - 2, m = 4 or 5).

Usage: bench/chain_modes.py [--verify] [--joint] [N ...]   (run.py calls main() with the
defaults, and with coordinates="joint" for N = 11, 21, 43)
"""

import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "generator"))
sys.path.insert(0, str(ROOT / "bench"))

from anchor_chain import anchor_chain_yaml  # noqa: E402
from mcsgen.analyze import run_analysis, verify_table  # noqa: E402
from mcsgen.build import build_analyzer  # noqa: E402
from mcsgen.generate import generate  # noqa: E402

OUT = ROOT / "build" / "bench" / "anchor_chains"
TABLE3 = [0.240, 0.309, 0.504, 0.551]


def timed(cmd, repeat=3):
    best = 1e30
    for _ in range(repeat):
        start = time.perf_counter()
        subprocess.run(cmd, check=False, capture_output=True)
        best = min(best, time.perf_counter() - start)
    return best


def main(sizes=(11, 21, 43, 85), verify=False, coordinates="body"):
    OUT.mkdir(parents=True, exist_ok=True)
    rows = []
    print(
        f"{'N':>4} {'n':>5} {'m':>5} {'gen s':>7} {'build s':>8} {'statics ms':>11}"
        f" {'modes ms':>9} {'iters':>6} {'T0 N':>8} {'z_low m':>8}  first four Hz"
    )
    for n in sizes:
        name = anchor_chain_yaml(n).splitlines()[0].split(": ")[1]
        text = anchor_chain_yaml(n)
        if coordinates == "joint":
            text = text.replace(f"name: {name}\n", f"name: {name}_joint\n", 1)
            text += "coordinates: joint\n"
            name += "_joint"
        path = OUT / f"{name}.yaml"
        path.write_text(text)
        t0 = time.perf_counter()
        model, gdir, _ = generate(path, out_root=OUT / "generated", force=True)
        t1 = time.perf_counter()
        exe = build_analyzer(name, gdir=gdir)
        t2 = time.perf_counter()
        statics_s = timed([str(exe)])
        both_s = timed([str(exe), "--modes", "--count", "4"])
        r = run_analysis(name, modes=True, count=4, generated_dir=gdir)
        freqs = [m["freq"] for m in r["modes"]["list"][:4]]
        # 003 §4.2.1: the horizontal tension (the x reaction, equal at every joint: hinge A's
        # force) and the lowest point of the chain (the lowest body centre, body coordinates)
        tension = abs(next(w["force"][0] for w in r["wrenches"] if w["joint"] == "A"))
        lowest = min(r["x"][7 * i + 2] for i in range(n)) if coordinates == "body" else float("nan")
        row = dict(
            bodies=n,
            n=model.n,
            m=model.m,
            generation_s=t1 - t0,
            build_s=t2 - t1,
            statics_ms=statics_s * 1e3,
            modes_ms=(both_s - statics_s) * 1e3,
            iterations=r["statics"]["iterations"],
            tension_N=tension,
            lowest_z_m=lowest,
            freqs=freqs,
        )
        rows.append(row)
        print(
            f"{n:>4} {model.n:>5} {model.m:>5} {row['generation_s']:7.1f} {row['build_s']:8.1f}"
            f" {row['statics_ms']:11.1f} {row['modes_ms']:9.1f} {row['iterations']:>6}"
            f" {tension:8.2f} {lowest:8.4f}  " + ", ".join(f"{f:.4f}" for f in freqs)
        )
        if n == 43:
            ok = [f"{f:.3f}" for f in freqs] == [f"{f:.3f}" for f in TABLE3]
            print(f"     003 Table 3 to three digits: {'yes' if ok else 'NO'}")
            if verify:
                rv = run_analysis(
                    name,
                    modes=True,
                    count=4,
                    verify=4,
                    verify_cycles=4,
                    verify_samples=128,
                    generated_dir=gdir,
                )
                for k, f_eig, f_sim, rel, what in verify_table(rv):
                    print(
                        f"     mode {k}: eigen {f_eig:.4f} Hz, simulated {f_sim:.4f} Hz ({rel:.2%})"
                    )
                    row.setdefault("verify", []).append([k, f_eig, f_sim, rel])
    return rows


if __name__ == "__main__":
    args = [a for a in sys.argv[1:] if a not in ("--verify", "--joint")]
    main(
        [int(a) for a in args] or (11, 21, 43, 85),
        verify="--verify" in sys.argv,
        coordinates="joint" if "--joint" in sys.argv else "body",
    )
