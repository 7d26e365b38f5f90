"""make bench, section "stops" (issue 61): an end stop against MuJoCo's joint limit, in one run.

bench/mujoco/stop_pendulum.urdf, a pendulum released at q = 1.2 rad that falls onto its limit at
q = 0.3 rad (2 s), without friction and with a friction of 0.2 N m in its hinge (MuJoCo's
frictionloss, mcsgen's Coulomb friction from <dynamics friction>). MuJoCo 2.2.2 reads the URDF
itself (its limits and friction loss on, contacts off: bench/mujoco_stops.c), mcsgen through
`import-urdf` (a plastic end stop, joint coordinates: bench/bench_stops.c). For each: how far
the joint goes past its limit over the run, where it is at the end against the limit, and the
time per simulated second (the best of interleaved repeats; both loops check the limit at every
step, which costs each a little).
"""

import json
import subprocess
from fractions import Fraction
from pathlib import Path

import mujoco_peer

ROOT = Path(__file__).resolve().parents[1]
URDF = ROOT / "bench" / "mujoco" / "stop_pendulum.urdf"
T_END, H, REPEATS, ROUNDS = 2.0, 1e-3, 5, 3
Q0, LIMIT = 1.2, 0.3
CASES = (("no friction", "0"), ("friction 0.2 N m", "0.2"))


def build_mcsgen(name, gen_root, out):
    from mcsgen import build

    exe = out / f"bench_stops_{name}"
    cmd = build.program_command(
        name,
        [ROOT / "bench" / "bench_stops.c"],
        exe,
        "lapack",
        ["-D_POSIX_C_SOURCE=199309L"],
        gdir=gen_root / name,
    )
    subprocess.run(cmd, check=True)
    return exe


def build_peer(out):
    exe = out / "mujoco_stops"
    source = ROOT / "bench" / "mujoco_stops.c"
    flags = ["-std=c99", "-O2", "-Wall", "-Wextra", "-Werror", "-D_POSIX_C_SOURCE=199309L"]
    subprocess.run(["gcc", *flags, str(source), "-o", str(exe), "-lmujoco", "-lm"], check=True)
    return exe


def measure(out, generate, import_urdf):
    """The section's rows (printed as a table): per case, MuJoCo (RK4 at 1 ms) and mcsgen (RK4
    at 1 ms, and DOPRI5 at rtol 1e-10)."""
    out.mkdir(parents=True, exist_ok=True)
    gen_root = out / "generated"
    mujoco_peer.ensure_mujoco()
    peer = build_peer(out)
    rows = []
    for title, friction in CASES:
        tag = "friction" if friction != "0" else "plain"
        urdf = out / f"stop_pendulum_{tag}.urdf"
        urdf.write_text(URDF.read_text().replace("FRICTION", friction))
        name = f"stop_pendulum_{tag}"
        path, _ = import_urdf(urdf, out / f"{name}.yaml", q={"hinge": Fraction(6, 5)})
        generate(path, out_root=gen_root)
        exe = build_mcsgen(name, gen_root, out)
        runs = {}
        for _ in range(ROUNDS):  # interleaved: the machine's noise falls on both alike
            mj = mujoco_peer.run_json(
                [peer, urdf, int(round(T_END / H)), H, REPEATS, "rk4", Q0, "--", 0.0]
            )
            rk4 = mujoco_peer.run_json([exe, T_END, "rk4", H, 1e-10, REPEATS])
            dopri5 = mujoco_peer.run_json([exe, T_END, "dopri5", H, 1e-10, REPEATS])
            for key, r in (("mujoco", mj), ("rk4", rk4), ("dopri5", dopri5)):
                if key not in runs or r["time_s"] < runs[key]["time_s"]:
                    runs[key] = r
        mj = runs["mujoco"]
        rows.append(
            {
                "case": title,
                "simulator": "MuJoCo 2.2.2, RK4 at 1 ms (soft limit, frictionloss)",
                "beyond_rad": mj["beyond"],
                "rest_minus_limit_rad": mj["qpos"][0] - LIMIT,
                "rate_at_end": mj["qvel"][0],
                "time_per_s": mj["time_s"] / T_END,
                "frictionloss": mj["frictionloss"][0],
                "unstable": mj["unstable"],
            }
        )
        for key, label in (("rk4", "RK4 at 1 ms"), ("dopri5", "DOPRI5 at rtol 1e-10")):
            r = runs[key]
            rows.append(
                {
                    "case": title,
                    "simulator": f"mcsgen, {label} (end stop, Coulomb friction)",
                    "beyond_rad": r["beyond"],
                    "rest_minus_limit_rad": r["q"][0] - LIMIT,
                    "time_per_s": r["time_s"] / T_END,
                    "impacts": r["impacts"],
                    "steps": r["steps"],
                }
            )
    print(
        f"  {'case':<18} {'simulator':<58} {'past limit':>11} {'rest - limit':>13} {'s per s':>10}"
    )
    for r in rows:
        print(
            f"  {r['case']:<18} {r['simulator']:<58} {r['beyond_rad']:>11.3g} "
            f"{r['rest_minus_limit_rad']:>13.3g} {r['time_per_s']:>10.3g}"
        )
    return {"rows": rows, "t_end_s": T_END, "h_s": H}


if __name__ == "__main__":
    import sys

    sys.path.insert(0, str(ROOT / "generator"))
    from mcsgen.generate import generate
    from mcsgen.urdf import import_urdf

    print(json.dumps(measure(ROOT / "build" / "bench" / "stops", generate, import_urdf), indent=1))
