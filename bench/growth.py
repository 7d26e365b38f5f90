"""Cost of one RK4 step against the size n of a model (issue 13: a growth exponent of at most 1.5
between n = 40 and n = 600), for two families of chains:

- point chains: N planar point masses on rigid rods, Cartesian coordinates (n = 2N, m = N);
- spatial chains: N rigid bodies with Euler parameters on spherical joints (n = 7N, m = 4N;
  bench/gen_chain.py's model).

Each size is generated, compiled with LAPACK and timed by bench_step.c's `banded` mode: the
default simulator (continuation off) against the banded one (off and none), the best of a few
interleaved repeats, with the largest difference of their final positions. The exponent is the
slope of log(cost) over log(n) between the smallest and the largest size.

Usage: bench/growth.py [--quick]   (--quick: the two end sizes of each family only)
"""

import json
import math
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "generator"))
sys.path.insert(0, str(ROOT / "bench"))

from gen_chain import chain_yaml  # noqa: E402
from mcsgen import build  # noqa: E402
from mcsgen.generate import generate  # noqa: E402

OUT = ROOT / "build" / "bench" / "growth"
H = 1e-3


def point_chain_yaml(masses):
    """N point masses (1 kg) on rods of 0.1 m, the first hinged at the origin, starting
    horizontal at rest (bench/models/point_chain_10.yaml for any N)."""
    coords = [f"{a}{i}" for i in range(1, masses + 1) for a in ("x", "z")]
    lines = [
        f"name: point_chain_{masses}",
        f"coordinates: [{', '.join(coords)}]",
        "parameters:",
        "  m: {value: 1.0, unit: kg}",
        "  l: {value: 0.1, unit: m}",
        "  g: {value: 9.81, unit: m/s^2}",
        "constraints:",
        '  - {name: rod1, expr: "x1**2 + z1**2 - l**2"}',
    ]
    for i in range(2, masses + 1):
        lines.append(
            f'  - {{name: rod{i}, expr: "(x{i} - x{i - 1})**2 + (z{i} - z{i - 1})**2 - l**2"}}'
        )
    lines += [
        "dynamics:",
        f"  mass_matrix: {{diagonal: [{', '.join(['m'] * 2 * masses)}]}}",
        f"  forces: [{', '.join(['0', '-m*g'] * masses)}]",
        f"  potential: \"m*g*({' + '.join(f'z{i}' for i in range(1, masses + 1))})\"",
        "initial:",
        "  x: {" + ", ".join(f"x{i}: {i}*l, z{i}: 0" for i in range(1, masses + 1)) + "}",
        "simulation: {t_end: 1.0, h: 1.0e-3, method: rk4, continuation: none}",
    ]
    return "\n".join(lines) + "\n"


FAMILIES = {
    # name: (yaml writer, sizes N giving n from about 40 to about 600)
    "point": (point_chain_yaml, (20, 40, 80, 150, 300)),
    "spatial": (chain_yaml, (6, 12, 24, 43, 86)),
}


def measure(family, size):
    writer, _ = FAMILIES[family]
    text = writer(size)
    name = text.splitlines()[0].split(": ")[1]
    path = OUT / f"{name}.yaml"
    path.write_text(text)
    start = time.perf_counter()
    generate(path, out_root=OUT / "generated", force=True)
    generated_s = time.perf_counter() - start
    exe = OUT / f"bench_{name}"
    cmd = build.program_command(
        name,
        [ROOT / "bench" / "bench_step.c"],
        exe,
        "lapack",
        ["-D_POSIX_C_SOURCE=199309L"],
        gdir=OUT / "generated" / name,
    )
    start = time.perf_counter()
    subprocess.run(cmd, check=True)
    compiled_s = time.perf_counter() - start
    steps = 20 if size * (7 if family == "spatial" else 2) > 200 else 100
    out = subprocess.run(
        [str(exe), "banded", str(steps * H), str(H), "3"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    row = json.loads(out)
    row.update(family=family, size=size, generate_s=generated_s, compile_s=compiled_s)
    return row


def slope(rows, key):
    a, b = rows[0], rows[-1]
    return math.log(b[key] / a[key]) / math.log(b["n"] / a["n"])


def main(quick=False):
    OUT.mkdir(parents=True, exist_ok=True)
    results = {}
    print(
        f"  {'family':<8} {'n':>4} {'m':>4} {'w':>3} {'kb':>3}  {'dense off us':>12}  "
        f"{'banded off us':>13}  {'banded none us':>14}  {'max |dx|':>9}"
    )
    for family, (_, sizes) in FAMILIES.items():
        rows = []
        for size in (sizes[0], sizes[-1]) if quick else sizes:
            r = measure(family, size)
            rows.append(r)
            print(
                f"  {family:<8} {r['n']:>4} {r['m']:>4} {r['band_width']:>3} {r['kkt_band']:>3}  "
                f"{r['ns_per_step_default_off'] / 1e3:12.1f}  "
                f"{r['ns_per_step_banded_off'] / 1e3:13.1f}  "
                f"{r['ns_per_step_banded_none'] / 1e3:14.1f}  {r['max_dx']:9.1e}",
                flush=True,
            )
        exponents = {
            k: slope(rows, f"ns_per_step_{k}") for k in ("default_off", "banded_off", "banded_none")
        }
        print(
            f"  {family} chains, n = {rows[0]['n']} .. {rows[-1]['n']}: cost ~ n^e with e = "
            + ", ".join(f"{v:.2f} ({k.replace('_', ' ')})" for k, v in exponents.items())
        )
        results[family] = {"rows": rows, "exponents": exponents}
    return results


if __name__ == "__main__":
    main(quick="--quick" in sys.argv[1:])
