"""make bench, section "linearize" (issue 37): what an exact linearization costs and how accurate
it is, against central finite differences of the same simulator and against MuJoCo's
mjd_transitionFD, in one run.

For each mechanism (bench/bench_linearize.c, at a state along its motion, RK4 at h = 1 ms):
- the continuous-time A of the chart's (q, qd) by mcs_sim_linearize (exact, from the generated
  derivative kernels) and by central differences of mcs_sim_chart_rhs (eps 1e-6, 4f
  evaluations of the right-hand side): time per call, and the error of each against the
  Richardson extrapolation of central differences at eps 2e-4 and 1e-4 (error O(eps^4));
- the discrete-time J of one RK4 step by mcs_sim_step_jacobian (a step and its exact Jacobian)
  and by central differences of the step (4f runs of one step from the perturbed states: what
  mjd_transitionFD does), with one plain step's time for scale, each against the Richardson
  extrapolation of differences of the step.
The PUMA 560 of models/urdf/puma560.urdf (joint coordinates, n = 6, m = 0, issue 36's state,
as section "mujoco") also against MuJoCo 2.2.2's mjd_transitionFD (centered, eps 1e-6, RK4 at
1 ms; Debian's libmujoco-dev, installed by this section only): its time per call, its error
against its own Richardson extrapolation, how far its A is from mcsgen's exact J (both are
d(q, qd)'/d(q, qd) of one RK4 step), and how far each is from central differences of MuJoCo's
own mj_step (bench/mujoco_transition.c).
"""

import json
import subprocess
from fractions import Fraction
from pathlib import Path

import mujoco_peer

ROOT = Path(__file__).resolve().parents[1]
H, REPEATS, CALLS, ROUNDS = 1e-3, 5, 20, 3
MODELS = (  # (title, model file, time of the state)
    ("spatial pendulum (P1)", "spatial_pendulum", 0.05),
    ("slider-crank", "slider_crank", 0.05),
    ("double four-bar (P3)", "double_four_bar", 0.05),
)


def build_exe(name, gen_root, out):
    from mcsgen import build

    exe = out / f"bench_linearize_{name}"
    cmd = build.program_command(
        name,
        [ROOT / "bench" / "bench_linearize.c"],
        exe,
        "lapack",
        ["-D_POSIX_C_SOURCE=199309L"],
        gdir=gen_root / name,
    )
    subprocess.run(cmd, check=True)
    return exe


def build_peer(out):
    exe = out / "mujoco_transition"
    subprocess.run(
        [
            "gcc",
            "-std=c99",
            "-O2",
            "-Wall",
            "-Wextra",
            "-Werror",
            "-D_POSIX_C_SOURCE=199309L",
            str(ROOT / "bench" / "mujoco_transition.c"),
            "-o",
            str(exe),
            "-lmujoco",
            "-lm",
        ],
        check=True,
    )
    return exe


def measure(out, generate, import_urdf):
    """The section's rows, printed as a table."""
    out.mkdir(parents=True, exist_ok=True)
    gen_root = out / "generated"
    cases = []
    for title, name, t0 in MODELS:
        generate(ROOT / "models" / f"{name}.yaml", out_root=gen_root, kernels="all")
        cases.append((title, name, t0))
    path, _ = import_urdf(
        mujoco_peer.URDF / "puma560.urdf",
        out / "puma560.yaml",
        q={j: Fraction(q) for j, q in zip(mujoco_peer.PUMA_JOINTS, mujoco_peer.PUMA_Q)},
        qd={j: Fraction(q) for j, q in zip(mujoco_peer.PUMA_JOINTS, mujoco_peer.PUMA_QD)},
        limits="comments",
    )
    generate(path, out_root=gen_root, kernels="all")
    cases.append(("PUMA 560 (URDF, joint coordinates)", "puma560", 0.0))
    rows = []
    for title, name, t0 in cases:
        exe = build_exe(name, gen_root, out)
        r = mujoco_peer.run_json([exe, t0, H, REPEATS, CALLS])
        r["mechanism"] = title
        rows.append(r)
    puma = rows[-1]
    try:
        mujoco_peer.ensure_mujoco()
        peer = build_peer(out)
        mj = mujoco_peer.run_json(
            [
                peer,
                mujoco_peer.URDF / "puma560.urdf",
                H,
                REPEATS,
                CALLS,
                *mujoco_peer.PUMA_Q,
                "--",
                *mujoco_peer.PUMA_QD,
            ]
        )
        exe = out / "bench_linearize_puma560"
        for _ in range(ROUNDS - 1):  # interleaved with mcsgen's: the noise falls on both alike
            again = mujoco_peer.run_json([exe, 0.0, H, REPEATS, CALLS])
            puma["step_jacobian_s"] = min(puma["step_jacobian_s"], again["step_jacobian_s"])
            puma["linearize_s"] = min(puma["linearize_s"], again["linearize_s"])
            again = mujoco_peer.run_json(
                [
                    peer,
                    mujoco_peer.URDF / "puma560.urdf",
                    H,
                    REPEATS,
                    CALLS,
                    *mujoco_peer.PUMA_Q,
                    "--",
                    *mujoco_peer.PUMA_QD,
                ]
            )
            mj["seconds"] = min(mj["seconds"], again["seconds"])
        k = 2 * mj["nv"]
        J = [puma["J"][i + j * k] for i in range(k) for j in range(k)]  # to row-major
        scale = max(abs(a) for a in J)

        def apart(a, b):
            return max(abs(x - y) for x, y in zip(a, b)) / scale

        puma["mujoco"] = dict(
            transition_fd_s=mj["seconds"],
            error=mj["error"],
            # mjd_transitionFD against mcsgen's exact J, and each against central differences
            # of MuJoCo's own mj_step
            apart_from_exact=apart(mj["A"], J),
            apart_from_step_differences=mj["apart_from_step_differences"],
            exact_apart_from_step_differences=apart(J, mj["A_step"]),
            version=mj["version"],
        )
    except (SystemExit, subprocess.CalledProcessError, OSError) as exc:
        puma["mujoco"] = {"not_measured": str(exc)}
    for r in rows:
        r.pop("J")
    print(
        f"  {'mechanism':<36}{'n':>4}{'f':>3}  {'exact A':>9}{'FD A':>9}{'err exact':>11}"
        f"{'err FD':>9}  {'step+J':>9}{'step':>9}{'FD J':>9}{'err exact':>11}{'err FD':>9}"
    )
    for r in rows:
        print(
            f"  {r['mechanism']:<36}{r['n']:>4}{r['dof']:>3}  {r['linearize_s'] * 1e6:>7.1f}us"
            f"{r['rhs_differences_s'] * 1e6:>7.1f}us{r['linearize_error']:>11.1e}"
            f"{r['rhs_differences_error']:>9.1e}  {r['step_jacobian_s'] * 1e6:>7.1f}us"
            f"{r['step_s'] * 1e6:>7.1f}us{r['step_differences_s'] * 1e6:>7.1f}us"
            f"{r['step_jacobian_error']:>11.1e}{r['step_differences_error']:>9.1e}"
        )
    mj = puma["mujoco"]
    if "not_measured" in mj:
        print(f"  MuJoCo mjd_transitionFD: not measured: {mj['not_measured']}")
    else:
        print(
            f"  PUMA 560, MuJoCo {mj['version']} mjd_transitionFD (centered, eps 1e-6): "
            f"{mj['transition_fd_s'] * 1e6:.1f} us per call, error {mj['error']:.1e}; "
            f"mcsgen's exact step Jacobian {puma['step_jacobian_s'] * 1e6:.1f} us "
            f"({mj['transition_fd_s'] / puma['step_jacobian_s']:.1f}x faster), "
            f"error {puma['step_jacobian_error']:.1e}; the two apart by "
            f"{mj['apart_from_exact']:.1e}; against central differences of MuJoCo's own mj_step: "
            f"mjd_transitionFD {mj['apart_from_step_differences']:.1e}, mcsgen's J "
            f"{mj['exact_apart_from_step_differences']:.1e}"
        )
    return rows


def main(out, generate, import_urdf):
    return measure(out, generate, import_urdf)


if __name__ == "__main__":
    import sys

    sys.path.insert(0, str(ROOT / "generator"))
    from mcsgen.generate import generate
    from mcsgen.urdf import import_urdf

    print(json.dumps(measure(ROOT / "build" / "bench" / "linearize", generate, import_urdf)))
