"""Statics and modes with the tangent stiffness of constraints (issue 10, paper 003 §4): the
pendulum's equilibria and eigenvalues (±1.566 i, ±1.566), the failure without K_c, a torsion
pendulum against its hand derivation (K_c, K_f and D), the anchor chain's catenary and its first
four modes (003 Table 3), verification by simulation, and invariance to the tangent basis and to
a rotation of the model about the gravity axis."""

import json
import math
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from helpers import quaternion_matrix
from mcsgen.analyze import dominant_frequency, joint_reactions, run_analysis, verify_table
from mcsgen.generate import generate

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))

SINGULAR_JACOBIAN = 12  # MCS_ERR_SINGULAR_JACOBIAN (mcs_status.h)
OMEGA = math.sqrt(9.81 / 4)


def test_pendulum_lower_equilibrium_and_eigenvalues():
    r = run_analysis("pendulum_kc", modes=True)
    assert r["statics"]["status"] == 0
    assert np.allclose(r["x"], [0, -4, -math.pi / 2], rtol=0, atol=1e-12)
    (mode,) = r["modes"]["list"]
    assert mode["re"] == 0 and abs(mode["im"] - OMEGA) <= 1e-10
    assert f"{mode['im']:.3f}" == "1.566"  # ±1.566 i, 003 §4.1
    # the hinge carries the weight: 15 kg * 9.81 along +y on the bob's y coordinate
    assert abs(joint_reactions(r)["hinge"]["bob.y"] - 15 * 9.81) < 1e-10


def test_pendulum_started_above_the_hinge_finds_the_upper_equilibrium():
    x150 = [4 * math.sin(5 * math.pi / 6), -4 * math.cos(5 * math.pi / 6), math.pi / 3]
    r = run_analysis("pendulum_kc", modes=True, x=x150)
    assert r["statics"]["status"] == 0
    assert np.allclose(r["x"], [0, 4, math.pi / 2], rtol=0, atol=1e-12)
    (mode,) = r["modes"]["list"]
    assert mode["im"] == 0 and abs(mode["re"] - OMEGA) <= 1e-10  # ±1.566: unstable
    assert mode["kind"] == 1


def test_pendulum_without_kc_fails_as_003_says():
    r = run_analysis("pendulum_kc", statics_kc=False)
    assert r["statics"]["status"] == SINGULAR_JACOBIAN
    assert "singular" in r["statics"]["message"]
    m = run_analysis("pendulum_kc", modes=True, modes_kc=False)["modes"]
    assert m["status"] == 0 and m["stiffness"] == 0 and m["rigid"] == 1
    assert m["list"][0]["omega"] == 0
    out = subprocess.run(
        [str(ROOT / "mcsgen"), "statics", "pendulum_kc", "--no-kc"],
        capture_output=True,
        text=True,
    )
    assert out.returncode == 1 and "singular" in out.stdout


@pytest.mark.parametrize("model", ["pendulum_kc", "pendulum_torsion"])
def test_tangent_and_kkt_newton_agree(model):
    a = run_analysis(model)
    b = run_analysis(model, kkt=True)
    assert a["statics"]["status"] == b["statics"]["status"] == 0
    assert b["statics"]["method"] == "kkt"
    assert np.allclose(a["x"], b["x"], rtol=0, atol=1e-12)
    assert np.allclose(a["lambda"], b["lambda"], rtol=1e-10, atol=1e-9)


def torsion_hand():
    """m g L sin(phi) + k (phi - rest) = 0; I_O phi'' + c phi' + (m g L cos phi + k) phi = 0."""
    from scipy.optimize import brentq

    m, g, L, k, c, rest, J = 15.0, 9.81, 4.0, 200.0, 30.0, 0.5, 0.6
    phi = brentq(lambda p: m * g * L * math.sin(p) + k * (p - rest), -1, 1, xtol=1e-15)
    inertia = m * L * L + J
    w2 = (m * g * L * math.cos(phi) + k) / inertia
    return phi, math.sqrt(w2), c / (2 * inertia), w2


def test_torsion_pendulum_matches_the_hand_derivation():
    phi, omega, sigma, w2 = torsion_hand()
    r = run_analysis("pendulum_torsion", modes=True)
    x = r["x"]
    # rotation about +y by phi: bob at (-L sin phi, 0, -L cos phi), e = (cos phi/2, 0, sin phi/2, 0)
    assert np.allclose(x[:3], [-4 * math.sin(phi), 0, -4 * math.cos(phi)], atol=1e-12)
    assert abs(2 * math.atan2(x[5], x[3]) - phi) < 1e-12
    (mode,) = r["modes"]["list"]
    assert abs(mode["im"] - omega) < 1e-10 * omega
    d = run_analysis("pendulum_torsion", modes=True, damped=True, verify=1, verify_cycles=8)
    (mode,) = d["modes"]["list"]
    assert d["modes"]["symmetric"] == 0
    assert abs(mode["re"] + sigma) < 1e-10 and abs(mode["im"] - math.sqrt(w2 - sigma**2)) < 1e-10
    assert abs(mode["zeta"] - sigma / omega) < 1e-10
    ((_, f_eig, f_sim, rel, _),) = verify_table(d)
    assert rel < 0.01, (f_eig, f_sim)


def test_dominant_frequency_of_a_sampled_sinusoid():
    t = np.arange(256) * 0.05
    f = dominant_frequency(np.sin(2 * np.pi * 0.37 * t + 0.3), 0.05)
    assert abs(f - 0.37) < 0.002


def test_modes_invariant_to_a_rotation_of_the_model_about_gravity(tmp_path):
    text = (ROOT / "models" / "pendulum_torsion.yaml").read_text()
    psi = "0.7"
    text = text.replace("name: pendulum_torsion", "name: pendulum_torsion_turned")
    text = text.replace(
        "position: [0, 0, -4]}",
        f"position: [0, 0, -4], orientation: {{axis: [0, 0, 1], angle: {psi}}}}}",
    )
    text = text.replace("axis: [0, 1, 0]}", f"axis: [-sin({psi}), cos({psi}), 0]}}")
    path = tmp_path / "pendulum_torsion_turned.yaml"
    path.write_text(text)
    generate(path, out_root=tmp_path / "gen")
    a = run_analysis("pendulum_torsion", modes=True, damped=True)
    b = run_analysis(
        "pendulum_torsion_turned",
        modes=True,
        damped=True,
        generated_dir=tmp_path / "gen" / "pendulum_torsion_turned",
    )
    c, s = math.cos(0.7), math.sin(0.7)
    xa = np.array(a["x"][:3])
    assert np.allclose(
        b["x"][:3], [c * xa[0] - s * xa[1], s * xa[0] + c * xa[1], xa[2]], atol=1e-12
    )
    (ma,), (mb,) = a["modes"]["list"], b["modes"]["list"]
    assert abs(ma["re"] - mb["re"]) < 1e-12 and abs(ma["im"] - mb["im"]) < 1e-10


# --- the anchor chain (003 §4.2) --------------------------------------------------------------
# Two members of the family: the 43-body chain of 003 Table 3 (generation about a minute) and
# the 11-body chain, both compiled at -O0 (the 43-body chain's 300-coordinate kernels in five
# seconds instead of two minutes, the 11-body chain's in 5 s instead of 18 s; a static solve
# plus modes still take about a second, the same numbers to the bit); the 11-body chain's modes
# are also simulated and compared by FFT (the 43-body simulation costs about 0.5 s per step
# until issue 13 makes large models cheaper: `make bench` runs it, "anchor chain" study).

TABLE3 = [0.240, 0.309, 0.504, 0.551]


_CHAINS = {}


def generated_chain(n, tmp_path_factory):
    """(name, generated dir, n, build flags) of the n-body chain, generated once per session."""
    from anchor_chain import anchor_chain_yaml

    if n not in _CHAINS:
        text = anchor_chain_yaml(n)
        name = text.splitlines()[0].split(": ")[1]
        tmp = tmp_path_factory.mktemp(f"chain{n}")
        (tmp / f"{name}.yaml").write_text(text)
        # the kernels statics, modes and a plain run use: not the transitions (a row group per
        # joint) nor the predictor (65 s of the 43-body chain's 80)
        generate(tmp / f"{name}.yaml", out_root=tmp / "gen", kernels="stiffness")
        _CHAINS[n] = name, tmp / "gen" / name, n, ["-O0"]
    return _CHAINS[n]


@pytest.fixture(scope="module", params=[43, 11])
def chain_model(request, tmp_path_factory):
    return generated_chain(request.param, tmp_path_factory)


@pytest.fixture(scope="module")
def chain(chain_model):
    name, gdir, n, flags = chain_model
    return run_analysis(name, modes=True, count=8, generated_dir=gdir, build_flags=flags)


def joint_points(result, n):
    """World positions of the n - 1 universal joints (at +h along body i's x axis)."""
    x = np.asarray(result["x"]).reshape(n, 7)
    h = math.sqrt(61) / (n - 1)
    return np.array([x[i, :3] + quaternion_matrix(x[i, 3:]) @ [h, 0, 0] for i in range(n - 1)])


def test_anchor_chain_equilibrium_is_a_catenary(chain_model, chain):
    from scipy.optimize import curve_fit

    n = chain_model[2]
    s = chain["statics"]
    assert s["status"] == 0, s["message"]
    assert s["rank"] == n + 4 * (n - 1) + 10  # no dependent rows
    reactions = joint_reactions(chain)
    fx = [reactions[f"U{i}"][f"b{i}.x"] for i in range(n - 1)]
    T0 = abs(np.mean(fx))
    assert max(abs(abs(f) - T0) for f in fx) <= 1e-8 * T0  # 003 §4.2.1
    assert abs(abs(reactions["A"]["b0.x"]) - T0) <= 1e-8 * T0  # and the hinge at A
    P = joint_points(chain, n)
    assert np.allclose(P[:, 1], 0, atol=1e-12)

    def catenary(x, a, x0, z0):
        return a * np.cosh((x - x0) / a) + z0

    (a, x0, z0), _ = curve_fit(catenary, P[:, 0], P[:, 2], p0=[3, 5, -8])
    dev = np.abs(catenary(P[:, 0], a, x0, z0) - P[:, 2]).max()
    # the joints of a chain of rigid links lie on a catenary only approximately (the links'
    # own weight acts at their centres): 3.7 mm over 15.6 m for 11 links, 0.24 mm for 43
    assert dev < {11: 0.01, 43: 0.001}[n], dev
    print(
        f"anchor chain {n}: horizontal tension {T0:.6g} N, lowest joint z = {P[:, 2].min():.6g} m,"
        f" catenary a = {a:.6g} m, largest deviation {dev:.3g} m"
    )
    assert abs(x0 - 5) < 1e-9  # symmetric
    # a = T0 / (w g), w the mass per unit length (10 kg per link of 2h)
    w = 10 / (2 * math.sqrt(61) / (n - 1))
    assert abs(a - T0 / (w * 9.81)) < 0.05 * a


def sign_changes(values, tol):
    vals = [v for v in values if abs(v) > tol]
    return sum(1 for a, b in zip(vals, vals[1:]) if a * b < 0)


def mode_type(chain, mode, n):
    """'out-of-plane'/'in-plane' and 'swing'/'bending' from the shape on the bodies' centres."""
    shape = np.asarray(mode["shape"]).reshape(n, 7)
    x = np.asarray(chain["x"]).reshape(n, 7)
    out_of_plane = np.sum(shape[:, 1] ** 2) > np.sum(shape[:, 0] ** 2 + shape[:, 2] ** 2)
    if out_of_plane:
        nodes = sign_changes(shape[1:-1, 1], 1e-3)
        return "out-of-plane", "swing" if nodes == 0 else "bending"
    # in-plane: the displacement normal to the equilibrium curve
    tangent = np.gradient(x[:, [0, 2]], axis=0)
    normal = np.stack([-tangent[:, 1], tangent[:, 0]], axis=1)
    un = np.sum(shape[:, [0, 2]] * normal, axis=1) / np.linalg.norm(normal, axis=1)
    nodes = sign_changes(un[1:-1], 1e-3)
    return "in-plane", "swing" if nodes == 1 else "bending"


def test_anchor_chain_modes_are_those_of_003_table_3(chain_model, chain):
    n = chain_model[2]
    m = chain["modes"]
    assert m["status"] == 0 and m["dof"] == 2 * n - 6 and m["symmetric"] == 1
    types = [mode_type(chain, mode, n) for mode in m["list"][:4]]
    assert types == [
        ("out-of-plane", "swing"),
        ("in-plane", "swing"),
        ("in-plane", "bending"),
        ("out-of-plane", "bending"),
    ]
    freqs = [mode["freq"] for mode in m["list"][:4]]
    if n == 43:  # 003's chain: Table 3 to its three printed digits
        assert [f"{f:.3f}" for f in freqs] == [f"{f:.3f}" for f in TABLE3], freqs
    else:  # 11 links are stiffer than 43: each frequency a few per cent above Table 3
        for f, f3 in zip(freqs, TABLE3):
            assert f3 < f < 1.12 * f3


def test_anchor_chain_in_joint_coordinates_gives_the_same_statics_and_modes(tmp_path_factory):
    """The 11-body chain in joint coordinates (issue 36): hinges and universal joints on the
    tree (two angles each), the middle universal joint cut, so n = 20 and m = 4 against 77 and
    60. The same equilibrium (the cut joint's multipliers, its rows the same in both) and the
    same modes (the 43-body chain's Table 3 in joint coordinates: `make bench`, "anchor chain in
    joint coordinates", 2 minutes of generation)."""
    from anchor_chain import anchor_chain_yaml

    name, gdir, n, flags = generated_chain(11, tmp_path_factory)
    body = run_analysis(name, modes=True, count=8, generated_dir=gdir, build_flags=flags)
    tmp = tmp_path_factory.mktemp("chain11_joint")
    text = anchor_chain_yaml(11).replace(f"name: {name}\n", f"name: {name}_joint\n", 1)
    (tmp / f"{name}_joint.yaml").write_text(text + "coordinates: joint\n")
    model, jdir, _ = generate(tmp / f"{name}_joint.yaml", out_root=tmp / "gen", kernels="stiffness")
    assert (model.n, model.m) == (20, 4)
    joint = run_analysis(
        f"{name}_joint", modes=True, count=8, generated_dir=jdir, build_flags=flags
    )
    assert joint["statics"]["status"] == 0 and joint["modes"]["status"] == 0
    # the cut joint's rows, by name, carry the same multipliers
    lam_b = dict(zip(body["rows"], body["lambda"]))
    lam_j = dict(zip(joint["rows"], joint["lambda"]))
    assert len(lam_j) == 4
    scale = max(abs(v) for v in lam_b.values())
    for row, value in lam_j.items():
        assert abs(value - lam_b[row]) <= 1e-8 * scale, row
    freqs_b = [mode["freq"] for mode in body["modes"]["list"]]
    freqs_j = [mode["freq"] for mode in joint["modes"]["list"]]
    assert freqs_j == pytest.approx(freqs_b, rel=1e-9)


def test_anchor_chain_simulated_frequencies_agree(tmp_path_factory):
    name, gdir, n, flags = generated_chain(11, tmp_path_factory)
    result = run_analysis(
        name, modes=True, count=4, verify=4, verify_cycles=5, generated_dir=gdir, build_flags=flags
    )
    rows = verify_table(result)
    assert len(rows) == 4
    for k, f_eig, f_sim, rel, what in rows:
        assert f_eig is not None, what
        assert rel < 0.02, (k, f_eig, f_sim)


def test_anchor_chain_tangent_and_kkt_agree(chain_model, chain):
    name, gdir, _, flags = chain_model
    kkt = run_analysis(name, kkt=True, generated_dir=gdir, build_flags=flags)
    assert kkt["statics"]["status"] == 0
    assert np.allclose(kkt["x"], chain["x"], rtol=0, atol=1e-10)
    assert np.allclose(kkt["lambda"], chain["lambda"], rtol=1e-8, atol=1e-7)


@pytest.mark.parametrize("basis", ["continued", "rotated"])
def test_anchor_chain_statics_and_modes_do_not_depend_on_the_basis(chain_model, chain, basis):
    """Traditional (the QR basis of each iterate) against continued (the start's QR basis carried
    along the Newton path by the simulator's continuation) and against T W, W a random rotation."""
    name, gdir, _, flags = chain_model
    choice = dict(continued_basis=True) if basis == "continued" else dict(basis_rotate=12345)
    other = run_analysis(name, modes=True, count=8, generated_dir=gdir, build_flags=flags, **choice)
    assert other["statics"]["status"] == 0
    assert np.allclose(other["x"], chain["x"], rtol=0, atol=1e-11)
    assert np.allclose(other["lambda"], chain["lambda"], rtol=1e-9, atol=1e-8)
    for a, b in zip(chain["modes"]["list"], other["modes"]["list"]):
        assert abs(a["omega"] - b["omega"]) <= 1e-9 * a["omega"]
    for a, b in zip(chain["modes"]["list"][:4], other["modes"]["list"][:4]):
        sa, sb = np.asarray(a["shape"]), np.asarray(b["shape"])
        assert min(np.abs(sa - sb).max(), np.abs(sa + sb).max()) < 1e-6


def test_cli_tables_and_outputs(tmp_path):
    out = subprocess.run(
        [str(ROOT / "mcsgen"), "modes", "pendulum_kc", "--out", str(tmp_path), "--plot"],
        capture_output=True,
        text=True,
    )
    assert out.returncode == 0, out.stderr
    assert re.search(r"oscillating\s+±1\.56605i\s+0\.2492", out.stdout)
    for name in ("modes.json", "modes.csv", "shapes.csv", "modes.png"):
        assert (tmp_path / name).stat().st_size > 0
    bad = subprocess.run(
        [str(ROOT / "mcsgen"), "modes", "pendulum_kc", "--from", str(tmp_path / "modes.csv")],
        capture_output=True,
        text=True,
    )
    assert bad.returncode == 2 and "not a run's CSV (its first column is not t)" in bad.stderr
    assert "Traceback" not in bad.stderr
    # `plot --modes` redraws a saved result, with a GIF per mode
    drawn = subprocess.run(
        [str(ROOT / "mcsgen"), "plot", "--modes", str(tmp_path / "modes.json"), "--animate"]
        + ["--out", str(tmp_path / "again")],
        capture_output=True,
        text=True,
    )
    assert drawn.returncode == 0, drawn.stderr
    written = sorted(p.name for p in (tmp_path / "again").iterdir())
    assert "modes.png" in written and any(n.endswith(".gif") for n in written), written
    bad = subprocess.run(
        [str(ROOT / "mcsgen"), "plot", "--modes", str(tmp_path / "modes.csv")],
        capture_output=True,
        text=True,
    )
    assert bad.returncode == 2 and "cannot read" in bad.stderr and "Traceback" not in bad.stderr


def test_statics_and_modes_in_float_on_the_portable_backend(tmp_path):
    """The firmware configuration: float, no LAPACK (the undamped modes by Jacobi)."""
    from mcsgen.build import analyzer_sources, program_command

    exe = tmp_path / "analyze_float"
    cmd = program_command(
        "pendulum_torsion",
        analyzer_sources(),
        exe,
        backend="portable",
        extra_flags=["-DMCS_REAL_FLOAT"],
    )
    subprocess.run(cmd, check=True, capture_output=True)
    out = subprocess.run([str(exe), "--modes"], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    import json

    r = json.loads(out.stdout)
    phi, omega, _, _ = torsion_hand()
    assert r["statics"]["status"] == 0
    assert abs(2 * math.atan2(r["x"][5], r["x"][3]) - phi) < 1e-5
    assert abs(r["modes"]["list"][0]["omega"] - omega) < 1e-4 * omega
    damped = subprocess.run([str(exe), "--modes", "--damped"], capture_output=True, text=True)
    assert json.loads(damped.stdout)["modes"]["message"].startswith("not available")


@pytest.mark.parametrize("steps", ["64", "1000", "1e20", "0"])
def test_max_iter_out_of_range_is_refused_in_one_line(cli, steps):
    """Issue 34: `statics --max-iter 64` printed uninitialized memory ("1960757368 Newton steps,
    rank 1960847968") or crashed: the runtime refused the value and nobody read its status. The
    command line refuses it before the run; the analyzer refuses it by itself too."""
    from mcsgen.build import build_analyzer
    from mcsgen.options import MAX_STATICS_ITER

    out = cli("statics", "pendulum_kc", "--max-iter", steps)
    assert out.returncode == 2 and out.stdout == ""
    assert out.stderr.count("\n") == 1 and "--max-iter" in out.stderr
    assert f"1..{MAX_STATICS_ITER}" in out.stderr and "Traceback" not in out.stderr
    exe = build_analyzer("pendulum_kc")
    raw = subprocess.run([str(exe), "--max-iter", steps], capture_output=True, text=True)
    assert raw.returncode == 2 and raw.stdout == ""
    assert "--max-iter" in raw.stderr and f"1..{MAX_STATICS_ITER}" in raw.stderr


def test_max_iter_at_the_limit_runs():
    from mcsgen.options import MAX_STATICS_ITER

    header = (ROOT / "runtime" / "include" / "mcs" / "mcs_statics.h").read_text()
    history = int(re.search(r"#define MCS_STATICS_HISTORY (\d+)", header).group(1))
    assert MAX_STATICS_ITER == history - 1
    r = run_analysis("pendulum_kc", max_iter=MAX_STATICS_ITER)
    assert r["statics"]["status"] == 0 and 1 <= r["statics"]["iterations"] < MAX_STATICS_ITER


# A spatial parallelogram: two cranks (1 m, hinged to the ground 2 m apart) and a coupler, all
# four revolute axes along y. Three spatial bodies (21 coordinates, 3 normalizations + 4 x 5 joint
# rows = 23 rows): Grubler's count gives -2, the mechanism moves (mobility 1) because three rows
# are dependent on the constraint manifold, and only there. Hanging under gravity from 60 degrees.
PARALLELOGRAM = """\
name: parallelogram
description: a spatial parallelogram four-bar with parallel revolute axes (overconstrained)
parameters:
  g: {value: 9.81, unit: m/s^2, description: gravity along -z}
gravity: [0, 0, -g]
bodies:
  - {name: left, type: spatial, mass: 1, inertia: [0.1, 0.1, 0.01],
     position: ["sin(pi/3)/2", 0, "-cos(pi/3)/2"]}
  - {name: right, type: spatial, mass: 1, inertia: [0.1, 0.1, 0.01],
     position: ["2 + sin(pi/3)/2", 0, "-cos(pi/3)/2"]}
  - {name: coupler, type: spatial, mass: 2, inertia: [0.01, 0.7, 0.7],
     position: ["1 + sin(pi/3)", 0, "-cos(pi/3)"]}
joints:
  - {name: A, type: revolute, body1: left, body2: ground, point: [0, 0, 0], axis: [0, 1, 0]}
  - {name: B, type: revolute, body1: right, body2: ground, point: [2, 0, 0], axis: [0, 1, 0]}
  - {name: C, type: revolute, body1: coupler, body2: left,
     point: ["sin(pi/3)", 0, "-cos(pi/3)"], axis: [0, 1, 0]}
  - {name: D, type: revolute, body1: coupler, body2: right,
     point: ["2 + sin(pi/3)", 0, "-cos(pi/3)"], axis: [0, 1, 0]}
"""


def test_statics_of_an_overconstrained_linkage_from_off_its_manifold(write_model):
    """Issue 34, item 7: from a pose off the constraint manifold the three rows that are dependent
    on it are not, the rank came out full and Newton diverged; from a pose on it, three steps. The
    start is now assembled onto c = 0 first and the rank found there kept: both starts find the
    hanging equilibrium (cranks straight down) with the manifold's rank."""
    import random

    path = write_model(PARALLELOGRAM, "parallelogram")
    generate(path)
    on = run_analysis("parallelogram")
    s = on["statics"]
    assert s["status"] == 0 and s["rank"] == 20 and s["assembly_steps"] == 0
    x = np.array(on["x"])
    names = on["coordinates"]
    # the cranks hang straight down: centres at z = -1/2 below their hinges, the coupler at -1
    assert abs(x[names.index("left.x")]) < 1e-12 and abs(x[names.index("right.x")] - 2) < 1e-12
    assert abs(x[names.index("coupler.z")] + 1) < 1e-12
    rng = random.Random(7)
    start = [v + 1e-3 * rng.uniform(-1, 1) for v in generate_start(path)]
    off = run_analysis("parallelogram", x=start)
    s = off["statics"]
    assert s["status"] == 0, s["message"]
    assert s["assembly_steps"] >= 1 and s["rank"] == 20 and s["iterations"] <= 10
    assert np.allclose(off["x"], on["x"], rtol=0, atol=1e-10)


def generate_start(path):
    """The model file's initial configuration x (n)."""
    from mcsgen.model import load_model

    return list(load_model(path).x0)


def test_statics_says_whether_its_equilibrium_is_stable(cli):
    """Issue 60: statics printed "ok" for an equilibrium motion leaves (the double four-bar drawn
    upright); only modes said so. It now computes the modes there and says which."""
    upright = cli("statics", "double_four_bar")
    assert upright.returncode == 0, upright.stderr
    assert "  stability: UNSTABLE: 1 mode(s) grow, the fastest as exp(3.383 t)" in upright.stdout
    hanging = cli("statics", "pendulum_torsion")
    assert hanging.returncode == 0 and "  stability: stable\n" in hanging.stdout


def test_statics_from_a_row_of_a_run(cli, tmp_path):
    """Issue 60: --from takes a run's CSV (its last row, or FILE.csv@T its last row at or before
    T): the planar pendulum's file pose (level with its pivot) has no stiffness along its free
    direction and Newton cannot start there; from the run's row at 0.3 s it converges to the
    hanging equilibrium, stable, whose frequency is sqrt(g/l). Bad rows and times: one line."""
    run = tmp_path / "swing.csv"
    assert cli("simulate", "planar_pendulum", "--t-end", "1", "--out", run).returncode == 0
    level = cli("statics", "planar_pendulum")
    assert level.returncode == 1 and "singular" in level.stdout
    hanging = cli("statics", "planar_pendulum", "--from", f"{run}@0.3")
    assert hanging.returncode == 0, hanging.stdout + hanging.stderr
    assert re.search(r"\n  z +-1  m\n", hanging.stdout) and "stability: stable" in hanging.stdout
    modes = cli("modes", "planar_pendulum", "--from", f"{run}@0.3", "--json")
    (mode,) = json.loads(modes.stdout)["modes"]["list"]
    assert abs(mode["im"] - math.sqrt(9.81)) < 1e-9
    for args, said in (
        ([f"{run}@x"], "'x' after '@' is not a time"),
        ([f"{run}@-1"], "no row at or before t = -1"),
        ([str(ROOT / "generated" / "slider_crank" / "slider_crank.h").replace(".h", ".csv")],
         "cannot read it"),
    ):  # fmt: skip
        bad = cli("statics", "planar_pendulum", "--from", *args)
        assert (
            bad.returncode == 2 and bad.stderr.startswith("mcsgen: --from") and said in bad.stderr
        )
    other = tmp_path / "other.csv"
    assert cli("simulate", "pendulum_torsion", "--t-end", "0.1", "--out", other).returncode == 0
    wrong = cli("statics", "planar_pendulum", "--from", other)
    assert wrong.returncode == 2 and "are not the model's coordinates (x, z)" in wrong.stderr


def test_modes_are_drawn_on_the_mechanism_by_its_joints(tmp_path):
    """Issue 60: `modes --plot` joined the bodies' centres in file order, so the tutorial's
    four-bar did not look like one. Each body is now drawn from its centre to its joint points
    (as animate does): at the equilibrium the crank's and the coupler's segments meet at B, the
    coupler's and the rocker's at C, and the ground's pivots A and D are drawn."""
    from mcsgen.model_cache import load_completed
    from mcsgen.outputs.modes_plot import _Drawing, plot_modes

    path = ROOT / "docs" / "examples" / "four_bar.yaml"
    out = subprocess.run(
        [str(ROOT / "mcsgen"), "modes", str(path), "--out", str(tmp_path), "--plot"],
        capture_output=True,
        text=True,
    )
    assert out.returncode == 0, out.stderr
    result = json.loads((tmp_path / "modes.json").read_text())
    model = load_completed(path)
    draw = _Drawing(result["coordinates"], [], model)
    assert draw.by_joints
    ends = [tuple(np.round(line[-1], 9)) for line in draw.lines(np.asarray(result["x"]), 1, 2)]
    ground = {(0.0, 0.0), (0.3, 0.0)}  # A and D, drawn as points of their own
    assert ground <= set(ends)
    joints = [e for e in ends if e not in ground]
    # B and C each end two bodies' segments (A and D one body's and the ground's point)
    shared = {e for e in joints if joints.count(e) == 2}
    assert len(shared) == 2, ends
    # without the model (plot --modes FILE.json alone) the centres are joined, as before
    assert not _Drawing(result["coordinates"], [], None).by_joints
    assert plot_modes(result, tmp_path / "again", model=model)[0].stat().st_size > 0
