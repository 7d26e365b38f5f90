"""make bench, section "mujoco" (issue 36): the peer in our own benchmark.

MuJoCo 2.2.2 (Debian's libmujoco-dev, installed here by `scripts/install-deps mujoco`, never by
`make test`) and mcsgen on the same mechanisms, in one run: 1 s of RK4 at h = 1 ms, the
integration loop only, single-threaded, the best of interleaved repeats; and how far apart their
final states are.

- P1 (TARGETS.md): the spatial pendulum, models/spatial_pendulum.yaml against
  bench/mujoco/spatial_pendulum.xml (a ball joint; the mass's position compared).
- P2a: the 3R pendulum, models/pendulum_3r.yaml (joint coordinates, m = 0) against
  bench/mujoco/pendulum_3r.xml (the joint angles compared).
- The PUMA 560 of models/urdf/puma560.urdf, which MuJoCo reads itself and mcsgen through
  `./mcsgen import-urdf` (in joint coordinates: n = 6, m = 0), from issue 36's state
  q = (0, pi/4, pi, 0, pi/4, 0), qd = (1, -0.8, 0.6, 0.5, 0.5, 0.5) (the joint angles compared).
- The 7-DOF Panda of models/urdf/panda.urdf (written from Franka's DH table and Gaz et al.'s
  identified dynamics; its header names the sources), from Franka's "ready" pose with rates, in
  a copy without its joint damping (PANDA_Q, PANDA_QD below; n = 7, m = 0); MuJoCo reads it with
  each inertia in its principal axes (principal_axes: the same bodies).

mcsgen runs as a user gets it (the model's own settings, continuation exp, events on: bench_step
`run`), with the LAPACK and the portable backend, and a model with constraint rows also with
the banded simulator, continuation off (bench_step `banded`). Contacts, joint limits and every other
MuJoCo constraint are off: the rigid-body dynamics only, which both integrate.
"""

import json
import math
import re
import subprocess
from fractions import Fraction
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
HERE = ROOT / "bench" / "mujoco"
URDF = ROOT / "models" / "urdf"
T_END, H, STEPS = 1.0, 1e-3, 1000
ROUNDS, REPEATS = 3, 5  # interleaved rounds of each program, each the best of REPEATS loops

PUMA_Q = (0.0, math.pi / 4, math.pi, 0.0, math.pi / 4, 0.0)
PUMA_QD = (1.0, -0.8, 0.6, 0.5, 0.5, 0.5)
PUMA_JOINTS = ("J1", "J2", "J3", "J4", "J5", "J6")
# the Panda of models/urdf/panda.urdf from Franka's "ready" pose, with rates; its <dynamics
# damping> (up to 1.9 N m s/rad on the light outer links) is stripped from the copy both read:
# explicit RK4 at 1 ms is unstable with it in mcsgen and MuJoCo alike (import-urdf says so)
PANDA_JOINTS = tuple(f"panda_joint{i}" for i in range(1, 8))
PANDA_Q = (0.0, -math.pi / 4, 0.0, -3 * math.pi / 4, 0.0, math.pi / 2, math.pi / 4)
PANDA_QD = (0.5, -0.4, 0.3, 0.5, -0.5, 0.4, 0.6)
P1_LENGTH, P1_SPEED = 0.08, 0.7895  # models/spatial_pendulum.yaml: r0 = (l, 0, 0), v0 along y


def run_json(cmd):
    done = subprocess.run(list(map(str, cmd)), capture_output=True, text=True)
    if done.returncode:
        raise SystemExit(f"bench: {' '.join(map(str, cmd[:2]))}: {done.stderr.strip()}")
    return json.loads(done.stdout)


def ensure_mujoco():
    """Debian's libmujoco-dev, installed when missing (the bench's set-up only)."""
    if not (Path("/usr/include/mujoco/mujoco.h")).exists():
        subprocess.run([str(ROOT / "scripts" / "install-deps"), "mujoco"], check=True)


def build_mujoco_step(out):
    exe = out / "mujoco_step"
    subprocess.run(
        [
            "gcc",
            "-std=c99",
            "-O2",
            "-Wall",
            "-Wextra",
            "-Werror",
            "-D_POSIX_C_SOURCE=199309L",
            str(ROOT / "bench" / "mujoco_step.c"),
            "-o",
            str(exe),
            "-lmujoco",
        ],
        check=True,
    )
    return exe


def rotate(quat, p):
    """p rotated by the unit quaternion (w, x, y, z)."""
    w, x, y, z = quat
    u = (x, y, z)
    uxp = (u[1] * p[2] - u[2] * p[1], u[2] * p[0] - u[0] * p[2], u[0] * p[1] - u[1] * p[0])
    uxuxp = (
        u[1] * uxp[2] - u[2] * uxp[1],
        u[2] * uxp[0] - u[0] * uxp[2],
        u[0] * uxp[1] - u[1] * uxp[0],
    )
    return [p[i] + 2 * w * uxp[i] + 2 * uxuxp[i] for i in range(3)]


def cases(out, generate, build_bench, import_urdf):
    """[(title, gen_root, model name, MuJoCo file, qpos, qvel, compared, what)]: compared(mcsgen's
    bench_step result, MuJoCo's) -> the two lists of final quantities to compare."""
    gen_root = out / "generated"
    generate(ROOT / "models" / "spatial_pendulum.yaml", out_root=gen_root)
    generate(ROOT / "models" / "pendulum_3r.yaml", out_root=gen_root)
    path, _ = import_urdf(
        URDF / "puma560.urdf",
        out / "puma560.yaml",
        q={j: Fraction(q) for j, q in zip(PUMA_JOINTS, PUMA_Q)},  # the doubles MuJoCo gets
        qd={j: Fraction(q) for j, q in zip(PUMA_JOINTS, PUMA_QD)},
        limits="comments",
    )
    generate(path, out_root=gen_root)
    panda_urdf = out / "panda_undamped.urdf"
    panda_urdf.write_text(
        re.sub(r"\s*<dynamics damping=\"[^\"]*\"/>", "", (URDF / "panda.urdf").read_text())
    )
    path, _ = import_urdf(
        panda_urdf,
        out / "panda.yaml",
        q={j: Fraction(q) for j, q in zip(PANDA_JOINTS, PANDA_Q)},
        qd={j: Fraction(q) for j, q in zip(PANDA_JOINTS, PANDA_QD)},
        limits="comments",
    )
    generate(path, out_root=gen_root)
    # MuJoCo reads the same Panda with each link's inertia given in its principal axes (the
    # <inertial> origin's rpy and a diagonal tensor, exactly the same body): from the full
    # tensors its final state is 5.8e-5 rad from mcsgen's at any step size (its own limit as
    # h -> 0 included), from the principal axes 3e-10 (2026-11-27): MuJoCo 2.2.2's
    # decomposition of a full URDF inertia is what differs, not the dynamics
    panda_principal = out / "panda_principal.urdf"
    panda_principal.write_text(principal_axes(panda_urdf.read_text()))

    # what is compared: (from mcsgen's bench_step result, from MuJoCo's), each a list
    def p1(mine, peer):
        return mine["x"], rotate(peer["qpos"], (P1_LENGTH, 0.0, 0.0))

    def p2a(mine, peer):
        return mine["x"], peer["qpos"]

    def arm(mine, peer):
        # joint_coords: the joints' angles (from the zero pose: the file's joints carry their
        # `initial:` angles), then their rates; an angle may differ from MuJoCo's by whole turns
        nq = len(peer["qpos"])
        ours = [
            b + math.remainder(a - b, 2 * math.pi)
            for a, b in zip(mine["joint_coords"][:nq], peer["qpos"])
        ]
        return ours, peer["qpos"]

    omega_z = P1_LENGTH * P1_SPEED / P1_LENGTH**2  # the ball joint's rate for r0 x v0
    return [
        ("P1 spatial pendulum", gen_root, "spatial_pendulum", HERE / "spatial_pendulum.xml",
         (1, 0, 0, 0), (0, 0, omega_z), p1, "position of the mass [m]"),
        ("P2a 3R pendulum", gen_root, "pendulum_3r", HERE / "pendulum_3r.xml",
         (math.pi / 6,) * 3, (0, 0, 0), p2a, "joint angles [rad]"),
        ("PUMA 560 (URDF)", gen_root, "puma560", URDF / "puma560.urdf",
         PUMA_Q, PUMA_QD, arm, "joint angles [rad]"),
        ("Panda (URDF, undamped)", gen_root, "panda", panda_principal,
         PANDA_Q, PANDA_QD, arm, "joint angles [rad]"),
    ]  # fmt: skip


def principal_axes(urdf):
    """The URDF text with each <inertial> whose origin has no rotation given in its principal
    axes instead: origin rpy = the eigenvectors' rotation (R = Rz(y) Ry(p) Rx(r), URDF's), the
    eigenvalues as a diagonal inertia (checked to rebuild the tensor to 1e-14 of its largest entry).
    """
    import numpy as np

    def rotation(r, p, y):
        cx, sx, cy, sy, cz, sz = (f(a) for a in (r, p, y) for f in (math.cos, math.sin))
        Rx = np.array([[1, 0, 0], [0, cx, -sx], [0, sx, cx]])
        Ry = np.array([[cy, 0, sy], [0, 1, 0], [-sy, 0, cy]])
        Rz = np.array([[cz, -sz, 0], [sz, cz, 0], [0, 0, 1]])
        return Rz @ Ry @ Rx

    def principal(match):
        block = match.group(0)
        origin = re.search(r'<origin xyz="([^"]*)" rpy="0 0 0"/>', block)
        if origin is None:
            return block
        i = {k: float(v) for k, v in re.findall(r'(i[xyz]{2})="([^"]*)"', block)}
        inertia = np.array(
            [
                [i["ixx"], i["ixy"], i["ixz"]],
                [i["ixy"], i["iyy"], i["iyz"]],
                [i["ixz"], i["iyz"], i["izz"]],
            ]
        )
        moments, axes = np.linalg.eigh(inertia)
        if np.linalg.det(axes) < 0:
            axes[:, 0] *= -1
        r, p, y = (
            math.atan2(axes[2, 1], axes[2, 2]),
            math.asin(-axes[2, 0]),
            math.atan2(axes[1, 0], axes[0, 0]),
        )
        R = rotation(r, p, y)
        assert np.abs(R @ np.diag(moments) @ R.T - inertia).max() <= 1e-14 * np.abs(inertia).max()
        block = block.replace(
            origin.group(0), f'<origin xyz="{origin.group(1)}" rpy="{r!r} {p!r} {y!r}"/>'
        )
        diagonal = 'ixx="{!r}" ixy="0" ixz="0" iyy="{!r}" iyz="0" izz="{!r}"'.format(*moments)
        return re.sub(r"<inertia [^/]*/>", f"<inertia {diagonal}/>", block)

    return re.sub(r"<inertial>.*?</inertial>", principal, urdf, flags=re.S)


def measure(out, generate, build_bench, import_urdf):
    """The section's rows, printed as a table; one dict per mechanism."""
    ensure_mujoco()
    out.mkdir(parents=True, exist_ok=True)
    peer = build_mujoco_step(out)
    rows = []
    for title, gen_root, name, mj_file, qpos, qvel, compared, what in cases(
        out, generate, build_bench, import_urdf
    ):
        exes = {b: build_bench(name, gen_root, b) for b in ("lapack", "portable")}
        best = {}
        results = {}

        def keep(key, seconds, result):
            if seconds < best.get(key, 1e30):
                best[key] = seconds
            results[key] = result

        for _ in range(ROUNDS):  # interleaved: the machine's noise falls on all alike
            r = run_json([peer, mj_file, STEPS, H, REPEATS, "rk4", *qpos, "--", *qvel])
            keep("mujoco", r["seconds"], r)
            for backend, exe in exes.items():
                r = run_json([exe, "run", "rk4", H, 1e-9, T_END, REPEATS])  # rtol: unused by RK4
                keep(backend, r["wall_s"], r)
            if len(results["lapack"]["x"]) > results["mujoco"]["nv"]:  # rows: the banded one
                r = run_json([exes["lapack"], "banded", T_END, H, REPEATS])
                keep("banded", r["ns_per_step_banded_off"] * 1e-9 * r["steps"], r)
        mine = results["lapack"]
        # the reference: mcsgen's own DOP853 at rtol 1e-12 (the RK4 runs' error against it)
        ref = run_json([exes["lapack"], "run", "dop853", H, 1e-12, T_END, 1])

        def apart(a, b):
            return max(abs(x - y) for x, y in zip(a, b))

        ref_q = compared(ref, results["mujoco"])[0]
        row = dict(
            mechanism=title,
            model=name,
            n=results["mujoco"]["nv"],
            mcsgen_n=len(mine["x"]),
            mcsgen_steps=mine["steps"],
            mujoco_s=best["mujoco"],
            mcsgen_lapack_s=best["lapack"],
            mcsgen_portable_s=best["portable"],
            mcsgen_banded_off_s=best.get("banded"),
            agreement=apart(*compared(mine, results["mujoco"])),
            agreement_portable=apart(*compared(results["portable"], results["mujoco"])),
            mcsgen_rk4_error=apart(compared(mine, results["mujoco"])[0], ref_q),
            mujoco_rk4_error=apart(compared(mine, results["mujoco"])[1], ref_q),
            compared=what,
            mujoco_version=results["mujoco"]["version"],
        )
        rows.append(row)
    print(
        f"  {'mechanism':<22}{'n':>4}{'mcsgen n':>10}{'MuJoCo':>10}{'mcsgen':>10}{'portable':>10}"
        f"{'banded':>10}   ratio (mcsgen / MuJoCo)   final states apart"
    )
    for r in rows:
        banded = r["mcsgen_banded_off_s"]
        ratios = [r["mcsgen_lapack_s"], r["mcsgen_portable_s"]] + ([banded] if banded else [])
        print(
            f"  {r['mechanism']:<22}{r['n']:>4}{r['mcsgen_n']:>10}"
            f"{r['mujoco_s'] * 1e3:>8.2f}ms{r['mcsgen_lapack_s'] * 1e3:>8.2f}ms"
            f"{r['mcsgen_portable_s'] * 1e3:>8.2f}ms"
            + (f"{banded * 1e3:>8.2f}ms" if banded else f"{'-':>10}")
            + "   "
            + " / ".join(f"{s / r['mujoco_s']:.2f}" for s in ratios).ljust(26)
            + f"{r['agreement']:.1e} ({r['compared']})"
        )
    print("  the RK4 runs' errors against mcsgen's DOP853 at rtol 1e-12:")
    for r in rows:
        print(
            f"  {r['mechanism']:<22}mcsgen {r['mcsgen_rk4_error']:.1e}, "
            f"MuJoCo {r['mujoco_rk4_error']:.1e} ({r['compared']})"
        )
    print(
        f"  1 s of RK4 at h = {H * 1e3:g} ms, integration loop only, best of {ROUNDS} x "
        f"{REPEATS} interleaved; MuJoCo {rows[0]['mujoco_version']} with its constraints off; "
        "mcsgen as the model file sets it (LAPACK, portable) and the banded simulator with "
        "continuation off"
    )
    return rows
