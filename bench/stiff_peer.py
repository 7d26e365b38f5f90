"""make bench, section "stiff" (issue 38): the implicit integrator on a stiff robot, against
DOPRI5 and against MuJoCo's `implicit` integrator, in one run.

The damped 7-DOF arm of models/urdf/damped_arm.urdf (joint damping 1-5 N m s/rad on wrist links
down to 6.7e-5 kg m^2: decay rates above 1e4 1/s), bent and released from rest under gravity for
1 s (ARM_Q; tests/e2e/test_implicit.py starts it the same way). Each run's integration loop
alone, single-threaded, the best of interleaved repeats; its steps; and its error, the largest
difference of the final joint angles from mcsgen's DOP853 at rtol 1e-12:

- mcsgen DOPRI5 at rtol 1e-6 (its steps bound by stability: the summary's stability_limited),
- mcsgen ros34pw2 at rtol 1e-5 (error control) and ros34pw2_fixed at h = 1 ms (a control loop's),
- MuJoCo 2.2.2's `implicit` (damping implicit in the velocity, Euler otherwise: first order) at
  h = 1 ms and 0.1 ms, and its RK4 at 1 ms (unstable here, as mcsgen's RK4 is).

MuJoCo reads the same URDF itself (its <dynamics damping> as joint damping; the inertias are
diagonal in the links' frames); contacts and joint limits are off, as in bench/mujoco_peer.py.
"""

import math
from fractions import Fraction

from mujoco_peer import URDF, build_mujoco_step, ensure_mujoco, run_json

T_END = 1.0
ROUNDS, REPEATS = 3, 3
ARM_JOINTS = tuple(f"joint{i}" for i in range(1, 8))
ARM_Q = (0.0, 0.6, 0.0, -1.2, 0.3, 0.8, 0.0)
RUNS = (  # (label, program, method or integrator, h, rtol)
    ("mcsgen dopri5 rtol 1e-6", "mcsgen", "dopri5", 1e-3, 1e-6),
    ("mcsgen ros34pw2 rtol 1e-5", "mcsgen", "ros34pw2", 1e-3, 1e-5),
    ("mcsgen ros34pw2_fixed h 1 ms", "mcsgen", "ros34pw2_fixed", 1e-3, 1e-9),
    ("MuJoCo implicit h 1 ms", "mujoco", "implicit", 1e-3, None),
    ("MuJoCo implicit h 0.1 ms", "mujoco", "implicit", 1e-4, None),
    ("MuJoCo rk4 h 1 ms", "mujoco", "rk4", 1e-3, None),
)


def measure(out, generate, build_bench, import_urdf):
    """The section's rows, printed as a table."""
    ensure_mujoco()
    out.mkdir(parents=True, exist_ok=True)
    peer = build_mujoco_step(out)
    path, _ = import_urdf(
        URDF / "damped_arm.urdf",
        out / "damped_arm.yaml",
        q={j: Fraction(q) for j, q in zip(ARM_JOINTS, ARM_Q)},  # the doubles MuJoCo gets
        limits="comments",  # MuJoCo's constraints are off: the same rigid-body dynamics
    )
    gen_root = out / "generated"
    generate(path, out_root=gen_root)
    exe = build_bench("damped_arm", gen_root, "lapack")
    reference = run_json([exe, "run", "dop853", 1e-3, 1e-12, T_END, 1])["joint_coords"]
    best, results = {}, {}
    for _ in range(ROUNDS):  # interleaved: the machine's noise falls on all alike
        for label, program, method, h, rtol in RUNS:
            if program == "mcsgen":
                r = run_json([exe, "run", method, h, rtol, T_END, REPEATS])
                seconds, angles = r["wall_s"], r["joint_coords"][: len(ARM_Q)]
            else:
                steps = round(T_END / h)
                r = run_json([peer, URDF / "damped_arm.urdf", steps, h, REPEATS, method, *ARM_Q,
                              "--", *([0.0] * len(ARM_Q))])  # fmt: skip
                r["steps"] = steps
                # MuJoCo resets an unstable run and goes on: its end state then means nothing
                unstable = r["unstable"] > 0
                seconds, angles = r["seconds"], [math.inf] * len(ARM_Q) if unstable else r["qpos"]
            if seconds < best.get(label, math.inf):
                best[label] = seconds
            results[label] = (r, angles)
    rows = []
    for label, program, method, h, _ in RUNS:
        r, angles = results[label]
        error = max(
            (abs(a - b) if math.isfinite(a) else math.inf for a, b in zip(angles, reference)),
            default=math.inf,
        )
        rows.append(
            dict(run=label, program=program, method=method, h=h, seconds=best[label],
                 steps=r["steps"], error=error)
        )  # fmt: skip
    dopri5 = rows[0]
    print(f"  {'run':<30}{'time':>10}{'steps':>8}{'steps/DOPRI5':>14}{'error [rad]':>14}")
    for row in rows:
        error = f"{row['error']:.1e}" if math.isfinite(row["error"]) else "unstable"
        print(
            f"  {row['run']:<30}{row['seconds'] * 1e3:>8.2f}ms{row['steps']:>8}"
            f"{row['steps'] / dopri5['steps']:>14.3f}{error:>14}"
        )
    print(
        f"  the damped 7-DOF arm (models/urdf/damped_arm.urdf), {T_END:g} s from rest; error: "
        f"final joint angles against mcsgen's DOP853 at rtol 1e-12; best of {ROUNDS} x {REPEATS}"
        " interleaved, integration loop only"
    )
    return rows
