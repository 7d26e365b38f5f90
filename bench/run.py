"""make bench: speed of the runtime and of the generator, measured in one run (ratios first).

1. Cost per RK4 step of the traditional QR basis vs. each continuation predictor (exp, euler,
   none), for the spatial pendulum (n = 3) and point chains of 10 and 40 masses (n = 20, 80).
2. TARGETS.md problems P1 (spatial pendulum, 2 s), P2a (3R pendulum, 2 s) and P3 (double
   four-bar, 10 s, 10 singular crossings) with RK4, DOPRI5 and DOP853: wall time of the
   integration loop and error of the
   final positions against an independent reference (SciPy's DOP853 at rtol 1e-13 on a separate
   formulation; for P3 the exact parallelogram motion).
3. Generation time per model, and of a chain of N = 5, 10, 20, 40 spatial bodies joined by
   spherical joints (bench/gen_chain.py; expected linear in N).
4. Large models: the cost of one RK4 step against n = 40 .. 600 on point and spatial chains, the
   default simulator against the banded one (bench/growth.py, with the growth exponents), and 60 s
   of the 43-body anchor chain's free vibration (n = 301) through `./mcsgen simulate`.
5. A 7-DOF arm (models/urdf/panda.urdf, the Franka Emika Panda): the time of its URDF import, its
   derivation and its MISRA check, as `./mcsgen import-urdf` and `./mcsgen generate` run them,
   against issue 34's target of 2 minutes (one run: the derivation alone takes minutes).
6. The peer (bench/mujoco_peer.py): MuJoCo 2.2.2 from Debian's libmujoco-dev (installed by this
   section only) and mcsgen on P1, P2a and the PUMA 560 URDF, 1 s of RK4 at 1 ms in one run:
   times, ratios and how far apart the final states are.
7. Linearization (bench/linearize_peer.py): the exact A and step Jacobian against central
   differences of the same simulator, and on the PUMA 560 against MuJoCo's mjd_transitionFD:
   time per call and error against a Richardson-extrapolated reference.
8. Stiff (bench/stiff_peer.py): the damped 7-DOF arm (models/urdf/damped_arm.urdf), 1 s: the
   implicit ros34pw2 (adaptive and at a fixed 1 ms) against DOPRI5 and MuJoCo's `implicit`
   integrator: time, steps and error in one run.

9. Stops (bench/stops_peer.py): a URDF pendulum falling onto its joint limit, with and without
   hinge friction: how far past the limit mcsgen's end stop and MuJoCo's soft limit let it go,
   where each comes to rest, and the time per simulated second.

10. Sweep (bench/sweep_scaling.py): a 1 000-run slider-crank sweep serially and on a LocalCluster
   of 1 and 2 worker processes: runs per second, the time a run takes and the overhead per run.

Timings are the best of several interleaved repeats (the machines are shared and noisy).
Writes build/bench/results.json and prints a table; the sections growth, mujoco, linearize, stiff
and sweep also write the manual's tables, docs/measured/<section>.md (bench/tables.py).
`bench/run.py SECTION...` runs only the named sections (SECTIONS: arm, growth, mujoco, linearize,
stiff, stops, sweep) and updates their entries in build/bench/results.json.
"""

import json
import shutil
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "generator"))
sys.path.insert(0, str(ROOT / "bench"))

import tables  # noqa: E402
from mcsgen import build  # noqa: E402
from mcsgen.generate import generate  # noqa: E402

OUT = ROOT / "build" / "bench"
BACKENDS = ("lapack", "portable")


def build_bench(name, gen_root, backend):
    exe = OUT / f"bench_{name}_{backend}"
    cmd = build.program_command(
        name,
        [ROOT / "bench" / "bench_step.c"],
        exe,
        backend,
        ["-D_POSIX_C_SOURCE=199309L"],
        gdir=gen_root / name,
    )
    subprocess.run(cmd, check=True)
    return exe


def run_json(cmd):
    return json.loads(
        subprocess.run(list(map(str, cmd)), check=True, capture_output=True, text=True).stdout
    )


def reference_spatial_pendulum(t_end):
    """Spherical pendulum in Cartesian coordinates with the multiplier in closed form
    (an index-1 formulation, no projection), DOP853 at rtol 1e-13."""
    from scipy.integrate import solve_ivp

    g, length = 9.81, 0.08

    def rhs(_, y):
        r, v = y[:3], y[3:]
        lam = (v @ v - g * r[2]) / (
            length * length
        )  # from d2/dt2 |r|^2 = 0 with a = -lam r - g e_z
        a = -lam * r - np.array([0, 0, g])
        return np.concatenate([v, a])

    sol = solve_ivp(
        rhs, (0, t_end), [0.08, 0, 0, 0, 0.7895, 0], method="DOP853", rtol=1e-13, atol=1e-15
    )
    return sol.y[:3, -1]


def pendulum_3r_dynamics(q, qd):
    """3R pendulum in relative angles: (M(q), f(q, qd)) with M qdd = f, from the textbook
    absolute-angle form (independent of the generator)."""
    m, J, L, g = 108.0, 9.36, 1.0, 9.81
    lc = L / 2
    phi = np.cumsum(q)
    w = np.cumsum(qd)
    # absolute angles phi_i; link i centre: sum_{k<i} L u_k + lc u_i, u = (sin, -cos)
    # mass matrix in phi: Mphi_ij = m * sum_k a_ki a_kj cos(phi_i - phi_j) + J delta_ij
    a = np.array([[lc, 0, 0], [L, lc, 0], [L, L, lc]])
    Mphi = np.zeros((3, 3))
    for i in range(3):
        for j in range(3):
            Mphi[i, j] = m * sum(a[k, i] * a[k, j] for k in range(3)) * np.cos(phi[i] - phi[j])
        Mphi[i, i] += J
    # centrifugal and gravity
    h = np.zeros(3)
    for i in range(3):
        for j in range(3):
            h[i] -= (
                m * sum(a[k, i] * a[k, j] for k in range(3)) * np.sin(phi[i] - phi[j]) * w[j] ** 2
            )
        h[i] -= m * g * sum(a[k, i] for k in range(3)) * np.sin(phi[i])
    # q = S phi with phi = C q (C lower-triangular ones): qdd = C^-1 phidd
    C = np.tril(np.ones((3, 3)))
    return C.T @ Mphi @ C, C.T @ h


def reference_pendulum_3r(t_end, locks=()):
    """3R pendulum from rest at q = pi/6 (004 §6), DOP853 at rtol 1e-13; locks: (time, joint)
    in time order. A lock is integrated as the reduced ODE of the free joints, and the jump
    conserves their momenta (M v+)_F = (M v-)_F with the locked rates 0: an independent form of
    004's transition condition."""
    from scipy.integrate import solve_ivp

    free = [0, 1, 2]

    def rhs(_, y):
        q, qd = y[:3], y[3:]
        M, f = pendulum_3r_dynamics(q, qd)
        qdd = np.zeros(3)
        qdd[free] = np.linalg.solve(M[np.ix_(free, free)], f[free])
        return np.concatenate([qd, qdd])

    y = np.array([np.pi / 6] * 3 + [0.0] * 3)
    t = 0.0
    for t_lock, joint in list(locks) + [(t_end, None)]:
        sol = solve_ivp(rhs, (t, t_lock), y, method="DOP853", rtol=1e-13, atol=1e-14)
        y, t = sol.y[:, -1].copy(), t_lock
        if joint is None:
            break
        M, _ = pendulum_3r_dynamics(y[:3], y[3:])
        p = M @ y[3:]
        free = [k for k in free if k != joint]
        v = np.zeros(3)
        v[free] = np.linalg.solve(M[np.ix_(free, free)], p[free])
        y[3:] = v
    return y[:3]


def reference_double_four_bar(t_end):
    """Positions of the five bars on the parallelogram branch at t_end (phi from the vertical)."""
    from scipy.integrate import solve_ivp

    sol = solve_ivp(
        lambda t, y: [y[1], 3.5 * 9.81 * np.sin(y[0]) / 3],
        (0, t_end),
        [0, 1],
        method="DOP853",
        rtol=1e-13,
        atol=1e-14,
    )
    phi = sol.y[0, -1]
    s, c = np.sin(phi), np.cos(phi)
    x = []
    for k in range(5):
        if k % 2 == 0:  # vertical bars 1, 3, 5 hinged at x = 0, 1, 2: centre at half length
            x += [k / 2 + 0.5 * s, 0.5 * c, np.pi / 2 - phi]
        else:  # horizontal bars translate with the tops
            x += [(k - 1) / 2 + 0.5 + s, c, 0.0]
    return np.array(x)


def anchor_chain_60s():
    """60 s of the anchor chain's free vibration (bench/models/anchor_chain.yaml) with RK4 at
    h = 0.01 (issue 13: under 10 s; rows every 0.1 s) and with DOPRI5 at rtol 1e-8 (a row per
    step), in the simulator --simulator auto takes (the banded one), and RK4 in the dense one;
    wall_s is the run's CPU time (the simulator's summary), the energy drift relative to |E0|."""
    from mcsgen import load

    sim = load(ROOT / "bench" / "models" / "anchor_chain.yaml").build()
    cases = [
        ("rk4 h=0.01 off", "auto", dict(method="rk4", h=0.01, continuation="off", dt_out=0.1)),
        ("rk4 h=0.01 off", "dense", dict(method="rk4", h=0.01, continuation="off", dt_out=0.1)),
        # a row at every step: rows between adaptive steps would need dense output
        (
            "dopri5 rtol=1e-8 none",
            "auto",
            dict(method="dopri5", rtol=1e-8, continuation="none", dt_out=0),
        ),
    ]
    rows = []
    for label, simulator, options in cases:
        run = sim.simulate(t_end=60.0, simulator=simulator, **options)
        s = run.summary
        rows.append(
            dict(
                case=label,
                simulator=s["simulator"],
                ok=run.ok,
                wall_s=s["wall_s"],
                steps=s["steps"],
                energy_drift=s["energy_drift_rel"],
            )
        )
        r = rows[-1]
        print(
            f"  {label:<22} {r['simulator']:<7}: {r['wall_s']:6.2f} s, {r['steps']} steps, "
            f"energy drift {r['energy_drift']:.1e}" + ("" if run.ok else ", FAILED")
        )
    return rows


ARM_URDF = ROOT / "models" / "urdf" / "panda.urdf"
ARM_TARGET_S = 120.0  # issue 34, item 5: a 7-DOF arm generated, MISRA check included


def arm_generation():
    """The 7-DOF arm: import (`./mcsgen import-urdf`), derivation and emission (`generate`), and
    the MISRA check `./mcsgen generate` runs on what it wrote; seconds of each, one run."""
    from mcsgen import misra
    from mcsgen.urdf import import_urdf

    arm = OUT / "arm"
    arm.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    path, _ = import_urdf(ARM_URDF, arm / "panda.yaml")
    imported = time.perf_counter()
    model, out_dir, _ = generate(path, out_root=arm / "generated", force=True)
    derived = time.perf_counter()
    result = misra.check_model(out_dir) if shutil.which("cppcheck") else None
    checked = time.perf_counter()
    row = dict(
        model=model.name,
        n=model.n,
        m=model.m,
        c_bytes=sum(p.stat().st_size for p in out_dir.glob("*.[ch]")),
        import_s=imported - start,
        derivation_s=derived - imported,
        misra_s=checked - derived if result else None,
        misra_pieces=result.pieces if result else None,
        misra_workers=misra.WORKERS,
        misra=result.summary() if result else "not checked (no cppcheck)",
        total_s=checked - start,
        target_s=ARM_TARGET_S,
    )
    print(
        f"  {row['model']} (n = {row['n']}, m = {row['m']}, {row['c_bytes'] / 1e6:.1f} MB of C): "
        f"import {row['import_s']:.1f} s, derivation {row['derivation_s']:.1f} s, MISRA "
        + (
            f"{row['misra_s']:.1f} s ({row['misra_pieces']} pieces, {row['misra_workers']} at a "
            f"time)"
            if result
            else "not checked"
        )
        + f"; total {row['total_s']:.1f} s (target < {ARM_TARGET_S:.0f} s: "
        + ("met" if row["total_s"] < ARM_TARGET_S else "NOT met")
        + ")"
    )
    print(f"  {row['misra']}")
    return row


def mujoco_peer():
    """MuJoCo and mcsgen on P1, P2a and the PUMA 560 in one run (bench/mujoco_peer.py)."""
    import mujoco_peer
    from mcsgen.urdf import import_urdf

    return mujoco_peer.measure(OUT / "mujoco", generate, build_bench, import_urdf)


def linearize_peer():
    """Exact linearizations against finite differences and MuJoCo's mjd_transitionFD
    (bench/linearize_peer.py)."""
    import linearize_peer
    from mcsgen.urdf import import_urdf

    return linearize_peer.measure(OUT / "linearize", generate, import_urdf)


def stiff_peer():
    """The implicit integrator on the damped 7-DOF arm against DOPRI5 and MuJoCo's implicit
    (bench/stiff_peer.py)."""
    import stiff_peer
    from mcsgen.urdf import import_urdf

    return stiff_peer.measure(OUT / "stiff", generate, build_bench, import_urdf)


def stops_peer():
    """An end stop and joint friction against MuJoCo's joint limit and friction loss
    (bench/stops_peer.py)."""
    import stops_peer
    from mcsgen.urdf import import_urdf

    return stops_peer.measure(OUT / "stops", generate, import_urdf)


def sweep_scaling():
    """A 1 000-run slider-crank sweep serially and on 1 and 2 local workers
    (bench/sweep_scaling.py)."""
    import sweep_scaling

    return sweep_scaling.measure(ROOT)


def growth_section():
    """The cost of one RK4 step against n, default and banded simulators (bench/growth.py)."""
    import growth

    return growth.main()


def command_section():
    """What a command costs over its run on a built model (bench/command_overhead.py)."""
    import command_overhead

    return command_overhead.main()


# sections that `bench/run.py SECTION` runs alone: name -> (results key, title, function)
SECTIONS = {
    "command": (
        "command_overhead",
        "A command on a built model: `simulate --t-end 0.01` against its run (overhead)",
        command_section,
    ),
    "growth": (
        "growth",
        "cost of one RK4 step against n: the default simulator and the banded one (growth.py)",
        growth_section,
    ),
    "mujoco": (
        "mujoco_peer",
        "The peer: MuJoCo 2.2.2 and mcsgen, 1 s of RK4 at 1 ms (P1, P2a, PUMA 560, Panda)",
        mujoco_peer,
    ),
    "linearize": (
        "linearize",
        "Exact linearization and step Jacobian against central differences, and MuJoCo's "
        "mjd_transitionFD (PUMA 560)",
        linearize_peer,
    ),
    "stiff": (
        "stiff",
        "Stiff: the damped 7-DOF arm, 1 s, mcsgen's ros34pw2 against DOPRI5 and MuJoCo's implicit",
        stiff_peer,
    ),
    "stops": (
        "stops",
        "Stops: a pendulum falling onto its joint limit, with and without friction, against "
        "MuJoCo's soft limit",
        stops_peer,
    ),
    "sweep": (
        "sweep",
        "Sweep: 1 000 slider-crank runs serially and on a LocalCluster of 1 and 2 workers",
        sweep_scaling,
    ),
    "arm": (
        "arm_generation",
        "7-DOF arm (models/urdf/panda.urdf): URDF import, derivation and MISRA check",
        arm_generation,
    ),
}


def run_sections(names):
    """Only the named sections, their entries of build/bench/results.json updated."""
    unknown = [n for n in names if n not in SECTIONS]
    if unknown:
        sys.exit(f"bench/run.py: no section {', '.join(unknown)} (sections: {', '.join(SECTIONS)})")
    OUT.mkdir(parents=True, exist_ok=True)
    path = OUT / "results.json"
    results = json.loads(path.read_text()) if path.exists() else {}
    for name in names:
        key, title, run = SECTIONS[name]
        print(title)
        results[key] = run()
        written = tables.write(name, results[key])
        if written:
            print(f"  the manual's table: {written.relative_to(ROOT)}")
    path.write_text(json.dumps(results, indent=2))
    print(f"results: {path}")


def main():
    if sys.argv[1:]:
        return run_sections(sys.argv[1:])
    OUT.mkdir(parents=True, exist_ok=True)
    gen_root = OUT / "generated"
    results = {"generation_s": {}}
    model_files = sorted((ROOT / "models").glob("*.yaml")) + [
        ROOT / "bench/models/point_chain_10.yaml",
        ROOT / "bench/models/point_chain_40.yaml",
    ]
    for path in model_files:
        best = 1e30
        for _ in range(3):
            start = time.perf_counter()
            generate(path, out_root=gen_root, force=True)
            best = min(best, time.perf_counter() - start)
        results["generation_s"][path.stem] = best

    # 1. cost per step, traditional vs continuation, for both linear-algebra backends
    results["per_step"] = []
    for backend in BACKENDS:
        for name, t_end in (
            ("spatial_pendulum", 2.0),
            ("point_chain_10", 0.5),
            ("point_chain_40", 0.1),
        ):
            exe = build_bench(name, gen_root, backend)
            r = run_json([exe, "per-step", t_end, 1e-3, 7])
            r["backend"] = backend
            results["per_step"].append(r)

    # 2. TARGETS P1, P2a (2 s) and P3: double four-bar, 10 s, through 10 singular configurations;
    # P3's error against the parallelogram motion 3 phi'' = 3.5 g sin(phi) (exact on that branch)
    targets = (
        (
            "P1",
            "spatial_pendulum",
            2.0,
            15,
            reference_spatial_pendulum(2.0),
            (
                ("rk4", 1e-3, 0),
                ("rk4", 2e-3, 0),
                ("dopri5", 1e-3, 1e-9),
                ("dopri5", 1e-3, 1e-10),
                ("dop853", 1e-3, 1e-8),
                ("dop853", 1e-3, 1e-9),
            ),
        ),
        (
            "P2a",
            "pendulum_3r",
            2.0,
            15,
            reference_pendulum_3r(2.0),
            (
                ("rk4", 1e-3, 0),
                ("rk4", 2e-3, 0),
                ("dopri5", 1e-3, 1e-10),
                ("dopri5", 1e-3, 1e-11),
                ("dop853", 1e-3, 1e-10),
            ),
        ),
        (
            "P3",
            "double_four_bar",
            10.0,
            3,
            reference_double_four_bar(10.0),
            (
                ("rk4", 1e-3, 0),
                ("rk4", 2.5e-4, 0),
                ("dopri5", 1e-3, 1e-9),
                ("dopri5", 1e-3, 1e-10),
                ("dopri5", 1e-3, 1e-11),
                ("dopri5", 1e-3, 5e-12),
                ("dop853", 1e-3, 1e-8),
                ("dop853", 1e-3, 1e-9),
                ("dop853", 1e-3, 1e-10),
                ("dop853", 1e-3, 1e-11),
            ),
        ),
    )
    for problem, name, t_end, repeats, ref, cases in targets:
        results[problem] = []
        for backend in BACKENDS:
            exe = build_bench(name, gen_root, backend)
            for method, h, rtol in cases:
                r = run_json([exe, "run", method, h, rtol or 1e-8, t_end, repeats])
                r.update(
                    backend=backend,
                    method=method,
                    h=h,
                    rtol=rtol,
                    err=float(np.abs(np.array(r["x"]) - ref).max()),
                )
                results[problem].append(r)

    # TARGETS P2b: the 3R pendulum with joint 2 locked at 0.8 s and joint 3 at 1.3 s (004 §6),
    # 2 s; error against the independent reference, and what one lock costs against one step
    ref2b = reference_pendulum_3r(2.0, locks=[(0.8, 1), (1.3, 2)])
    results["P2b"] = []
    for backend in BACKENDS:
        p2b = build_bench("pendulum_3r", gen_root, backend)
        for method, h, rtol, jump in (
            ("rk4", 1e-4, 0, "minimal"),
            ("dopri5", 1e-3, 1e-10, "minimal"),
            ("dopri5", 1e-3, 1e-10, "naive"),
        ):
            r = run_json([p2b, "locks", method, h, rtol or 1e-8, 2.0, 7, jump, "q2@0.8", "q3@1.3"])
            step = (r["wall_s"] - r["lock_s"]) / r["steps"]
            r.update(
                backend=backend,
                method=method,
                h=h,
                rtol=rtol,
                jump=jump,
                err=float(np.abs(np.array(r["x"]) - ref2b).max()),
                lock_over_step=r["lock_s"] / r["locks"] / step,
            )
            results["P2b"].append(r)

    # 004 §7 with the PUMA 560: brakes on joints 1-3 (row groups of spatial revolute joints);
    # what one brake costs against one RK4 step, and consistent against naive final poses
    results["puma"] = []
    for backend in BACKENDS:
        exe = build_bench("puma560_estop", gen_root, backend)
        for method, h, rtol, jump in (("rk4", 1e-4, 0, "minimal"), ("rk4", 1e-4, 0, "naive")):
            brakes = ["J1@0.05", "J2@0.1", "J3@0.15"]
            r = run_json([exe, "locks", method, h, rtol or 1e-8, 1.0, 3, jump, *brakes])
            step = (r["wall_s"] - r["lock_s"]) / r["steps"]
            r.update(
                backend=backend,
                method=method,
                h=h,
                jump=jump,
                step_us=step * 1e6,
                lock_over_step=r["lock_s"] / r["locks"] / step,
            )
            results["puma"].append(r)

    (OUT / "results.json").write_text(json.dumps(results, indent=2))
    print("cost per RK4 step (best of 7 interleaved repeats)")
    print(
        f"  {'backend':<9}{'model':<18} {'n':>3} {'m':>3}  {'off ns':>8}  {'euler':>14}  "
        f"{'none':>14}  {'exp':>14}"
    )
    for r in results["per_step"]:
        off = r["ns_per_step_off"]
        cells = [
            f"{r[f'ns_per_step_{k}']:8.0f} ({r[f'ns_per_step_{k}'] / off:4.2f}x)"
            for k in ("euler", "none", "exp")
        ]
        print(
            f"  {r['backend']:<9}{r['model']:<18} {r['n']:>3} {r['m']:>3}  {off:8.0f}  "
            + "  ".join(cells)
        )
    print("TARGETS P1 spatial pendulum 2 s (target <= 1.5 ms at err <= 4e-9)")
    for r in results["P1"]:
        label = f"{r['method']} h={r['h']:g}" + (f" rtol={r['rtol']:g}" if r["rtol"] else "")
        print(
            f"  {r['backend']:<9} {label:<26}: {r['wall_s'] * 1e3:7.3f} ms, {r['steps']} steps, "
            f"err {r['err']:.2e}"
        )
    print("TARGETS P2a 3R pendulum 2 s (target <= 2.4 ms at err <= 2e-10)")
    for r in results["P2a"]:
        label = f"{r['method']} h={r['h']:g}" + (f" rtol={r['rtol']:g}" if r["rtol"] else "")
        print(
            f"  {r['backend']:<9} {label:<26}: {r['wall_s'] * 1e3:7.3f} ms, {r['steps']} steps, "
            f"err {r['err']:.2e}"
        )
    print("TARGETS P3 double four-bar 10 s, 10 singular crossings (target err <= 1e-9 in <= 40 ms,")
    print("  the error falling with rtol)")
    for r in results["P3"]:
        label = f"{r['method']} h={r['h']:g}" + (f" rtol={r['rtol']:g}" if r["rtol"] else "")
        print(
            f"  {r['backend']:<9} {label:<26}: {r['wall_s'] * 1e3:8.2f} ms, {r['steps']} steps, "
            f"err {r['err']:.2e}"
        )
    print("TARGETS P2b 3R pendulum 2 s, joints 2 and 3 locked at 0.8 and 1.3 s (target <= 1 ms,")
    print("  free-joint momenta continuous; err against the independent reference)")
    for r in results["P2b"]:
        label = f"{r['method']} h={r['h']:g}" + (f" rtol={r['rtol']:g}" if r["rtol"] else "")
        print(
            f"  {r['backend']:<9} {label:<26} {r['jump']:<8}: {r['wall_s'] * 1e3:8.3f} ms, "
            f"{r['steps']} steps, err {r['err']:.2e}, one lock = {r['lock_over_step']:.1f} steps"
        )
    print("004 sec. 7 PUMA 560 emergency stop, 1 s, brakes on joints 1-3 (RK4 h = 1e-4)")
    for r in results["puma"]:
        print(
            f"  {r['backend']:<9} {r['jump']:<8}: {r['wall_s'] * 1e3:8.1f} ms, {r['steps']} steps "
            f"of {r['step_us']:.1f} us, one brake = {r['lock_over_step']:.1f} steps"
        )
    print("generation time per model (best of 3)")
    for name, s in results["generation_s"].items():
        print(f"  {name:<28} {s:6.2f} s")
    print("generation time of a chain of N spatial bodies with spherical joints")
    import gen_chain

    results["chain_generation_s"] = dict(gen_chain.main([5, 10, 20, 40]))
    for section in ("command", "arm", "mujoco", "linearize", "stiff", "stops", "sweep"):
        key, title, run = SECTIONS[section]
        print(title)
        try:
            results[key] = run()
            tables.write(section, results[key])  # the manual's table (docs/measured/)
        except (SystemExit, subprocess.CalledProcessError, OSError) as exc:
            # MuJoCo missing (no network or root to install it) or a failed run: the section
            # says why and the bench goes on
            print(f"  not measured: {exc}")
            results[key] = {"not_measured": str(exc)}
    print("DOPRI5 tolerances: steps, rejections and energy drift (the defaults' reason)")
    import dopri5_defaults

    results["dopri5_defaults"] = dopri5_defaults.main()
    print("run-time geometry against freeze: (bench/models/geo_tilted.yaml)")
    import geometry_params

    results["geometry_params"] = geometry_params.main()
    print(SECTIONS["growth"][1])
    results["growth"] = growth_section()
    tables.write("growth", results["growth"])
    print("anchor chain (n = 301), 60 s of free vibration through ./mcsgen simulate")
    results["anchor_chain_60s"] = anchor_chain_60s()
    print("anchor chain (003 sec. 4.2): statics from the V and modes, by number of bodies")
    import chain_modes

    results["anchor_chain"] = chain_modes.main(verify=True)
    print("anchor chain in joint coordinates (issue 36): the same, N = 11, 21, 43")
    results["anchor_chain_joint"] = chain_modes.main((11, 21, 43), coordinates="joint")
    (OUT / "results.json").write_text(json.dumps(results, indent=2))
    print(f"results: {OUT / 'results.json'}")


if __name__ == "__main__":
    main()
