"""URDF robots imported, generated, checked and simulated as a user would (./mcsgen import-urdf,
check, simulate): energy conservation, the damping power, and the imported PUMA 560 against the
hand-written DH model of models/puma560_estop.yaml."""

import json
import re

import numpy as np
import pytest
import yaml
from scipy.integrate import simpson

from mcsgen.compiled import CompiledModel
from mcsgen.generate import generate
from mcsgen.model import load_model
from mcsgen.model.exact import approx
from mcsgen.model.expr import parse_expr
from mcsgen.outputs.plot import read_run
from mcsgen.paths import MODELS

URDF = MODELS / "urdf"
Q_NOMINAL = {"J2": "pi/4", "J3": "pi", "J5": "pi/4"}
QD_NOMINAL = {"J1": 1.0, "J2": -0.8, "J3": 0.6, "J4": 0.5, "J5": 0.5, "J6": 0.5}
CASES = {
    # model name: (URDF, --q, --qd)
    "urdf_puma560": ("puma560.urdf", Q_NOMINAL, QD_NOMINAL),
    "urdf_double_pendulum": (
        "double_pendulum.urdf",
        {"shoulder": 1.2, "elbow": -0.5},
        {"elbow": 2},
    ),
}


def import_and_run(cli, tmp, name, urdf, q, qd, *options):
    """import-urdf, check and simulate one robot; returns (model file, summary text, run)."""
    path = tmp / f"{name}.yaml"
    # the limits as comments: these runs hold the energy, which impacts on the stops would not
    args = ["import-urdf", URDF / urdf, "--out", path, "--limits", "comments"]
    args += [a for j, v in q.items() for a in ("--q", f"{j}={v}")]
    args += [a for j, v in qd.items() for a in ("--qd", f"{j}={v}")]
    proc = cli(*args)
    assert proc.returncode == 0, proc.stderr
    proc = cli("check", path, "--samples", "2")
    assert proc.returncode == 0 and "all terms agree" in proc.stdout, proc.stdout + proc.stderr
    out = tmp / f"{name}.csv"
    proc = cli("simulate", path, "--out", out, *options)
    assert proc.returncode == 0, proc.stderr
    return path, proc.stdout, read_run(out)


@pytest.fixture(scope="module")
def conservative(tmp_path_factory):
    from conftest import run_cli

    tmp = tmp_path_factory.mktemp("urdf")
    options = ("--method", "dopri5", "--rtol", "1e-11", "--atol", "1e-13", "--t-end", "2")
    return {
        name: import_and_run(run_cli, tmp, name, *case, *options) for name, case in CASES.items()
    }


@pytest.mark.parametrize("name", list(CASES))
def test_imported_robot_conserves_energy_and_reports_joint_angles(conservative, name):
    path, summary, run = conservative[name]
    e = run["energy"]
    assert np.abs(e - e[0]).max() <= 1e-9 * abs(e[0])
    assert run["c_norm"].max() <= 1e-10
    # j.<joint> starts at the --q value (URDF joint positions), jd.<joint> is its rate
    urdf, q, qd = CASES[name]
    for joint in yaml.safe_load(path.read_text())["joints"]:
        j, jd = run[f"j.{joint['name']}"], run[f"jd.{joint['name']}"]
        start = float(approx(parse_expr(str(q.get(joint["name"], 0)), {})))
        assert j[0] == pytest.approx(start, abs=1e-15)
        assert jd[0] == pytest.approx(qd.get(joint["name"], 0), abs=1e-12)
        t = run["t"]
        middle = slice(2, len(t) - 2)
        assert np.abs(np.gradient(j, t) - jd)[middle].max() <= 1e-3 * max(1, np.abs(jd).max())


def joint_space_mass_matrix(cm, model, theta, x0):
    """M_q = T' M T at joint coordinates theta: x(theta) solves [c(x); j(x) - theta] = 0
    (Newton, continued from x0 in small steps) and T = dx/dtheta (n x f)."""
    n, f = model.n, len(theta)

    def joints(x):
        return cm.xwt("joint_coords", x, np.zeros(n), 0.0, 2 * f)[:f]

    def jacobian(x):
        rows = [cm.xwt("joint_coords", x, e, 0.0, 2 * f)[f:] for e in np.eye(n)]
        return np.vstack([cm.A(x, 0.0), np.array(rows).T])

    x, start = np.array(x0, float), joints(np.array(x0, float))
    for s in np.linspace(0, 1, 9)[1:]:
        target = start + s * (np.asarray(theta) - start)
        for _ in range(20):
            residual = np.concatenate([cm.c(x, 0.0), joints(x) - target])
            if np.abs(residual).max() < 1e-15:
                break
            x = x - np.linalg.solve(jacobian(x), residual)
    assert np.abs(np.concatenate([cm.c(x, 0.0), joints(x) - theta])).max() < 1e-13
    T = np.linalg.solve(jacobian(x), np.vstack([np.zeros((model.m, f)), np.eye(f)]))
    return T.T @ cm.M(x, 0.0) @ T


def test_imported_puma_has_the_hand_written_mass_matrix(conservative):
    """At random joint angles the imported PUMA's mass matrix (joint coordinates: the one
    import-urdf writes) equals the joint-space mass matrix of models/puma560_estop.yaml (body
    coordinates; different body frames, poses and joint frames) less the latter's rotor
    inertias G^2 Jm, which URDF cannot express: the two formulations agree. The hand model
    counts its joint angles from the nominal pose, the import gives the URDF's (= DH) angles."""
    path = conservative["urdf_puma560"][0]
    imported = load_model(path)
    assert (imported.n, imported.m) == (6, 0)
    hand = load_model(MODELS / "puma560_estop.yaml")
    raw = yaml.safe_load((MODELS / "puma560_estop.yaml").read_text())
    rotor = [float(approx(parse_expr(str(j["rotor_inertia"]), {}))) for j in raw["joints"]]
    cm_imported, cm_hand = CompiledModel(imported), CompiledModel(hand)
    nominal = np.array([0, np.pi / 4, np.pi, 0, np.pi / 4, 0])
    rng = np.random.default_rng(7)
    for _ in range(3):
        theta = nominal + rng.uniform(-1.5, 1.5, 6)
        M_imported = joint_space_mass_matrix(cm_imported, imported, theta, imported.x0)
        M_hand = joint_space_mass_matrix(cm_hand, hand, theta - nominal, hand.x0)
        M_hand -= np.diag(rotor)
        assert np.abs(M_imported - M_hand).max() <= 1e-12 * np.abs(M_hand).max()


def test_imported_puma_fits_in_60_kb_of_c(cli, tmp_path):
    """The PUMA 560 as `import-urdf` writes it (joint coordinates, n = 6, m = 0), generated with
    every kernel set but `linearization`, is at most 61 KB of C (60.6 with its six motor
    inputs, issue 60): M_f's statements are one static
    function whose Newton-Euler values the joints' wrenches and f's tangent (K_f, D) read from an
    array it fills when given one (the simulators' M_f passes none); the joints' locks are the
    coordinates they hold, no kernels; no row kernels where there are no rows. With
    `linearization` too (M_x, the tangent of M a through the composite inertias: 17 KB), at most
    80 KB."""
    path = tmp_path / "puma560.yaml"
    assert cli("import-urdf", URDF / "puma560.urdf", "--out", path).returncode == 0

    def code(out_dir):  # the code, not the banner, which names the test's temporary path
        return len((out_dir / "puma560.c").read_text().split("\n", 3)[3].encode())

    _, out_dir, _ = generate(path, out_root=tmp_path / "all")
    assert code(out_dir) <= 80_000
    sets = "predictor,stiffness,transitions,reactions"
    _, out_dir, _ = generate(path, out_root=tmp_path / "gen", kernels=sets)
    c = (out_dir / "puma560.c").read_text()
    assert code(out_dir) <= 61_000
    assert c.count("static void mcs_gen_M_f_pass(") == 1
    callers = re.findall(r"\n(?:void|static void) (\w+)\([^{]*\{[^}]*mcs_gen_M_f_pass\(x", c)
    assert sorted(callers) == ["puma560_D", "puma560_K_f", "puma560_M_f", "puma560_joint_wrenches"]
    assert "mcs_gen_M_f_pass(x, v, t, p, M_out, f_out, NULL);" in c  # the simulators' call
    assert "_group_0_g(" not in c and "&mcs_gen_group_coords[5]" in c
    assert "puma560_gamma(" not in c and ".gamma = mcs_gen_no_rows_xwt" in c


def test_joint_damping_dissipates_exactly_the_damping_power(cli, tmp_path):
    """The cart-pole's <dynamics damping> (a translational and a rotational joint damper): the
    energy lost equals the integral of c1 xd^2 + c2 thetad^2 over the run, plus the work of the
    slider's <dynamics friction>."""
    path, summary, run = import_and_run(
        cli,
        tmp_path,
        "urdf_cart_pole",
        "cart_pole.urdf",
        {"hinge": 0.3},
        {"slider": 1},
        "--method",
        "dopri5",
        "--rtol",
        "1e-11",
        "--atol",
        "1e-13",
        "--t-end",
        "3",
        "--dt-out",
        "0.001",
        "--json",
    )
    power = 0.3 * run["jd.slider"] ** 2 + 0.01 * run["jd.hinge"] ** 2
    dissipated = simpson(power, x=run["t"])
    # the slider's <dynamics friction> 0.1 takes its work too (exact per sliding phase)
    friction = json.loads(summary)["friction"]["work"]
    assert friction > 0
    lost = run["energy"][0] - run["energy"][-1]
    assert lost > 0.1 * run["energy"][0]  # a real loss, not round-off
    assert lost == pytest.approx(dissipated + friction, rel=1e-8)


YAW_PITCH_ELBOW = """<robot name="arm">
  <link name="base"/>
  <link name="yaw_frame"/>
  <link name="upper"><inertial><origin xyz="0 0 -0.5"/><mass value="2"/>
    <inertia ixx="0.2" iyy="0.3" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <link name="lower"><inertial><origin xyz="0 0 -0.4"/><mass value="1"/>
    <inertia ixx="0.05" iyy="0.04" izz="0.005" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <joint name="yaw" type="revolute"><parent link="base"/><child link="yaw_frame"/>
    <axis xyz="0 0 1"/><limit effort="80" velocity="2" lower="-3" upper="3"/></joint>
  <joint name="pitch" type="revolute"><parent link="yaw_frame"/><child link="upper"/>
    <axis xyz="0 1 0"/><limit effort="60" velocity="2" lower="-2" upper="2"/></joint>
  <joint name="elbow" type="continuous"><parent link="upper"/><child link="lower"/>
    <origin xyz="0 0 -1"/><axis xyz="0 1 0"/></joint>
</robot>
"""


def _yaw_pitch_elbow_mass_matrix(q):
    """M of the arm above from its own kinematics (rotations about z, y, y; the link frames'
    centres of mass and principal inertias), with numerical Jacobians of the centres."""

    def rz(a):
        c, s = np.cos(a), np.sin(a)
        return np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]])

    def ry(a):
        c, s = np.cos(a), np.sin(a)
        return np.array([[c, 0, s], [0, 1, 0], [-s, 0, c]])

    def centres(q):
        r_u = rz(q[0]) @ ry(q[1])
        return r_u @ [0, 0, -0.5], r_u @ ([0, 0, -1] + ry(q[2]) @ [0, 0, -0.4])

    eps = 1e-6
    jv = np.zeros((2, 3, 3))
    for k in range(3):
        dq = np.eye(3)[k] * eps
        jv[:, :, k] = (np.array(centres(q + dq)) - np.array(centres(q - dq))) / (2 * eps)
    z, y = np.array([0, 0, 1.0]), rz(q[0]) @ [0, 1.0, 0]
    jw_u = np.column_stack([z, y, np.zeros(3)])
    jw_l = np.column_stack([z, y, y])
    r_u, r_l = rz(q[0]) @ ry(q[1]), rz(q[0]) @ ry(q[1] + q[2])
    i_u, i_l = r_u @ np.diag([0.2, 0.3, 0.01]) @ r_u.T, r_l @ np.diag([0.05, 0.04, 0.005]) @ r_l.T
    return 2 * jv[0].T @ jv[0] + jv[1].T @ jv[1] + jw_u.T @ i_u @ jw_u + jw_l.T @ i_l @ jw_l


def test_a_massless_link_between_joints_gives_the_composite_mass_matrix(cli, tmp_path):
    """Issue 60: a massless yaw frame between the yaw and pitch joints, imported in joint
    coordinates, with a motor input per joint: M^-1 read from forward dynamics (x''(e_k) -
    x''(0)) is the inverse of the arm's M from its own kinematics."""
    import mcsgen

    (tmp_path / "arm.urdf").write_text(YAW_PITCH_ELBOW)
    out = tmp_path / "arm.yaml"
    proc = cli("import-urdf", tmp_path / "arm.urdf", "--out", out, "--q", "pitch=0.4", "--q",
               "elbow=0.7")  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    solver = mcsgen.load(out).build()
    assert solver.mechanism.coordinates == ["yaw", "pitch", "elbow"]
    run = solver.start()
    assert list(run.x) == [0, 0.4, 0.7]
    free, _ = run.forward(u=np.zeros(3))
    m_inv = np.column_stack([run.forward(u=np.eye(3)[k])[0] - free for k in range(3)])
    want = np.linalg.inv(_yaw_pitch_elbow_mass_matrix(np.array([0, 0.4, 0.7])))
    assert np.allclose(m_inv, want, rtol=1e-7, atol=1e-9), (m_inv, want)
