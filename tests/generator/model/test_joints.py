"""The joint library (paper 003 §2): each joint type leaves the relative motions of its frames
that Table 1 allows free and blocks the others, and its Jacobian equals 003's closed forms
(eqs. 15, 24 and, driven, 33) once Euler-parameter derivatives are mapped to local rotation
increments (de = 1/2 G(e)^T theta)."""
import math

import numpy as np
import pytest
import sympy as sp

from mcsgen.model import bodies
from mcsgen.model.joints import SPATIAL_JOINTS
from mcsgen.model import load_model

DOFS = ("x", "y", "z", "Rx", "Ry", "Rz")
# relative motions of frame F1 in F2 that each type allows (003 Table 1: the complement of its rows)
ALLOWED = {
    name: [d for d in DOFS if d not in rows]
    for name, rows in SPATIAL_JOINTS.items()
    if name not in ("universal", "distance")
}
ALLOWED["universal"] = ["Rx", "Ry"]  # about axis1 = F1's x (here F1 = F2 at the start) and axis2
ALLOWED["distance"] = ["Ry", "Rz", "Rx"]  # rotations about the far point keep the distance

JOINT_POINT = np.array([0.3, -0.2, 0.5])
AXIS = np.array([1.0, 2.0, 2.0]) / 3.0


def two_body_model(tmp_path, jtype, drive=None):
    """body 'a' (driven, F1) on body 'b' (main, F2), both spatial and rotated, b hinged to
    ground by a fix joint so the pair is well posed."""
    extra = ""
    if jtype == "universal":
        extra = (
            ", point: [0.3, -0.2, 0.5], axis1: [1/3, 2/3, 2/3], "
            "axis2: [0, 1/sqrt(2), -1/sqrt(2)]"
        )
    elif jtype == "distance":
        extra = ", point1: [0, 0, 0], point2: [0, 0, 0], distance: 1"
    elif jtype == "distance_along_axis":
        extra = ", point: [0.3, -0.2, 0.5], axis: [1/3, 2/3, 2/3], distance: 0"
    else:
        extra = ", point: [0.3, -0.2, 0.5], axis: [1/3, 2/3, 2/3]"
    if drive:
        extra += f", drive: {drive}"
    a_pos = "[1.3, 0.3, -0.1]" if jtype == "distance" else "[0.1, 0.4, 0.2]"
    text = f"""\
name: pair
bodies:
  - {{name: a, type: spatial, mass: 1, inertia: [1, 2, 2.5], position: {a_pos},
     orientation: {{axis: [0.2, -1, 0.4], angle: 0.7}}}}
  - {{name: b, type: spatial, mass: 2, inertia: [1, 1, 1], position: [0.3, 0.3, -0.1],
     orientation: {{axis: [1, 1, 0], angle: -0.4}}}}
joints:
  - {{name: J, type: {jtype}, body1: a, body2: b{extra}}}
"""
    path = tmp_path / "pair.yaml"
    path.write_text(text)
    return load_model(path)


# numeric (float) views of the generator's exact geometry helpers, for the reference formulas
def matrix_from_quaternion(q):
    return np.array(bodies.matrix_from_quaternion([float(c) for c in q]), dtype=float)


def frame_from_axis(axis):
    return np.array(bodies.frame_from_axis([float(c) for c in axis]), dtype=float)


def quaternion_from_matrix(R):
    return np.array(
        [float(c) for c in bodies.quaternion_from_matrix(sp.Matrix(np.asarray(R, dtype=float)))]
    )


def joint_rows(model):
    return [c for c in model.constraints if c.name.startswith("J.")]


def skew(a):
    return np.array([[0, -a[2], a[1]], [a[2], 0, -a[0]], [-a[1], a[0], 0]])


def quat_mul(a, b):
    a0, av, b0, bv = a[0], np.array(a[1:]), b[0], np.array(b[1:])
    return np.concatenate([[a0 * b0 - av @ bv], a0 * bv + b0 * av + np.cross(av, bv)])


def axis_angle_quat(axis, angle):
    axis = np.asarray(axis, float) / np.linalg.norm(axis)
    return np.concatenate([[math.cos(angle / 2)], math.sin(angle / 2) * axis])


def evaluate(model, rows, x, t=0.0):
    subs = dict(zip(model.x, x))
    subs[model.time] = t
    subs.update({p.symbol: p.value for p in model.parameters})
    return np.array([float(r.expr.xreplace(subs)) for r in rows])


def moved(x0, dof, amount):
    """Move body a (coordinates 0..6) relative to b by `amount` along/about the frame axis of
    `dof`. At the start F1 and F2 coincide with world frame W = frame_from_axis(AXIS) at the
    joint point P (or at a's origin for the distance joint)."""
    x = np.array(x0, float)
    W = frame_from_axis(AXIS)
    P = JOINT_POINT
    r, e = x[0:3], x[3:7]
    if dof in ("x", "y", "z"):
        x[0:3] = r + amount * W[:, "xyz".index(dof)]
    else:
        w = W[:, ["Rx", "Ry", "Rz"].index(dof)]
        qr = axis_angle_quat(w, amount)
        Rr = matrix_from_quaternion(qr)
        x[0:3] = P + Rr @ (r - P)
        x[3:7] = quat_mul(qr, e)
    return x


@pytest.mark.parametrize("jtype", sorted(SPATIAL_JOINTS))
def test_allowed_motion_is_free_and_forbidden_is_blocked(tmp_path, jtype):
    model = two_body_model(tmp_path, jtype)
    rows = joint_rows(model)
    x0 = np.array(model.x0)
    if jtype == "universal":
        # the universal joint's own frame: axis1 and axis2 are the free rotations
        return check_universal(model, rows, x0)
    if jtype == "distance":
        return check_distance(model, rows, x0)
    assert np.abs(evaluate(model, rows, x0)).max() < 1e-14
    for dof in DOFS:
        res = np.abs(evaluate(model, rows, moved(x0, dof, 0.3))).max()
        if dof in ALLOWED[jtype]:
            assert res < 1e-13, f"{jtype}: {dof} should be free (residual {res:.2e})"
        else:
            assert res > 1e-3, f"{jtype}: {dof} should be blocked (residual {res:.2e})"


def rotate_about(x0, point, axis, angle):
    x = np.array(x0, float)
    q = axis_angle_quat(axis, angle)
    R = matrix_from_quaternion(q)
    x[0:3] = point + R @ (x[0:3] - point)
    x[3:7] = quat_mul(q, x[3:7])
    return x


def check_universal(model, rows, x0):
    a1 = np.array([1, 2, 2]) / 3
    a2 = np.array([0, 1, -1]) / math.sqrt(2)
    assert abs(a1 @ a2) < 1e-15
    assert np.abs(evaluate(model, rows, x0)).max() < 1e-14
    # rotating a about its own cross axis a1 keeps a1 fixed: free
    assert np.abs(evaluate(model, rows, rotate_about(x0, JOINT_POINT, a1, 0.5))).max() < 1e-13
    # rotating a about b's axis a2 turns a1 in the plane normal to a2: stays perpendicular
    assert np.abs(evaluate(model, rows, rotate_about(x0, JOINT_POINT, a2, 0.5))).max() < 1e-13
    # rotating about a1 x a2 (the twist of the cross) is blocked, so is translation
    assert (
        np.abs(evaluate(model, rows, rotate_about(x0, JOINT_POINT, np.cross(a1, a2), 0.3))).max()
        > 1e-2
    )
    y = np.array(x0)
    y[0] += 0.1
    assert np.abs(evaluate(model, rows, y)).max() > 1e-2


def check_distance(model, rows, x0):
    Pb = np.array([0.3, 0.3, -0.1])
    assert np.abs(evaluate(model, rows, x0)).max() < 1e-14
    for axis in ([1, 0, 0], [0, 1, 0], [0, 0, 1]):  # any rotation about b's centre
        assert np.abs(evaluate(model, rows, rotate_about(x0, Pb, axis, 0.4))).max() < 1e-13
    y = np.array(x0)
    y[0:3] = Pb + 1.2 * (y[0:3] - Pb)  # radial motion is blocked
    assert np.abs(evaluate(model, rows, y)).max() > 1e-2


def G(e):
    e0, e1, e2, e3 = e
    return np.array([[-e1, e0, e3, -e2], [-e2, -e3, e0, e1], [-e3, e2, -e1, e0]])


def P(rho):
    """003 Appendix C: Im(rho (1, theta/2)) = Im(rho) + P(rho) theta (local increment)."""
    return 0.5 * (rho[0] * np.eye(3) + skew(rho[1:]))


def closed_form_jacobian(x, p1, p2, F1, F2, t_rows, r_rows, rho_t=None):
    """003 eqs. (15) and (24)/(33) w.r.t. (dr_a, theta_a, dr_b, theta_b), local increments."""
    ra, ea, rb, eb = x[0:3], x[3:7], x[7:10], x[10:14]
    Ra, Rb = matrix_from_quaternion(ea), matrix_from_quaternion(eb)
    RF2 = Rb @ F2
    r12 = Rb.T @ (ra + Ra @ p1 - rb - Rb @ p2)
    trans = np.hstack(
        [RF2.T, -RF2.T @ Ra @ skew(p1), -RF2.T, RF2.T @ Rb @ skew(p2) + RF2.T @ Rb @ skew(r12)]
    )
    q1, q2 = quaternion_from_matrix(F1), quaternion_from_matrix(F2)
    rho1, rho2 = quat_mul(ea, q1), quat_mul(eb, q2)
    rel = quat_mul(np.array([rho2[0], *-rho2[1:]]), rho1)
    if rho_t is not None:
        rel = quat_mul(rel, np.array([rho_t[0], *-np.asarray(rho_t[1:])]))
    Pt = P(rel).T
    rot = np.hstack([np.zeros((3, 3)), Pt @ RF2.T @ Ra, np.zeros((3, 3)), -Pt @ RF2.T @ Rb])
    rows = {"x": trans[0], "y": trans[1], "z": trans[2], "Rx": rot[0], "Ry": rot[1], "Rz": rot[2]}
    return np.array([rows[k] for k in t_rows + r_rows])


@pytest.mark.parametrize(
    "jtype, drive",
    [
        (j, None)
        for j in (
            "fix",
            "revolute",
            "prismatic",
            "cylindrical",
            "spherical",
            "planar",
            "parallel",
            "orthogonal",
        )
    ]
    + [("revolute", "{angle: '0.3*t + 0.1*t**2'}")],
)
def test_jacobian_equals_003_closed_form(tmp_path, jtype, drive):
    model = two_body_model(tmp_path, jtype, drive)
    rows = joint_rows(model)
    names = [r.name.split(".")[1] for r in rows]
    x0 = np.array(model.x0)
    a_R0 = matrix_from_quaternion(x0[3:7])
    b_R0 = matrix_from_quaternion(x0[10:14])
    W = frame_from_axis(AXIS)
    F1, F2 = a_R0.T @ W, b_R0.T @ W
    p1 = a_R0.T @ (JOINT_POINT - x0[0:3])
    p2 = b_R0.T @ (JOINT_POINT - x0[7:10])
    rng = np.random.default_rng(5)
    for _ in range(3):
        x = x0 + 0.2 * rng.standard_normal(14)  # an arbitrary (inconsistent) pose
        x[3:7] /= np.linalg.norm(x[3:7])
        x[10:14] /= np.linalg.norm(x[10:14])
        t = float(rng.uniform(0, 2))
        subs = dict(zip(model.x, x))
        subs[model.time] = t
        A = np.array(
            [[float(sp.diff(r.expr, s).xreplace(subs)) for s in model.x[:14]] for r in rows]
        )
        # map Euler-parameter derivatives to local rotation increments: de = 1/2 G(e)^T theta
        Tmap = np.zeros((14, 12))
        Tmap[0:3, 0:3] = np.eye(3)
        Tmap[3:7, 3:6] = 0.5 * G(x[3:7]).T
        Tmap[7:10, 6:9] = np.eye(3)
        Tmap[10:14, 9:12] = 0.5 * G(x[10:14]).T
        rho_t = None
        if drive:
            phi = 0.3 * t + 0.1 * t * t
            rho_t = [math.cos(phi / 2), math.sin(phi / 2), 0, 0]
        t_rows = [n for n in names if n in ("x", "y", "z")]
        r_rows = [n for n in names if n.startswith("R")]
        ref = closed_form_jacobian(x, p1, p2, F1, F2, t_rows, r_rows, rho_t)
        ours = (A @ Tmap)[[names.index(n) for n in t_rows + r_rows]]
        np.testing.assert_allclose(ours, ref, atol=1e-12, rtol=1e-12)


def test_driven_revolute_rheonomic_terms(tmp_path):
    """A revolute joint driven by angle phi(t) = 0.3 t + 0.1 t^2: c_t and gamma carry phi', phi''.
    At a pose where the driven frame has turned by phi(t) the drive row vanishes."""
    from mcsgen.derive import derive

    model = two_body_model(tmp_path, "revolute", "{angle: '0.3*t + 0.1*t**2'}")
    rows = joint_rows(model)
    assert [r.name for r in rows][-1] == "J.Rx"
    d = derive(model)
    x0 = np.array(model.x0)
    t = 0.7
    phi = 0.3 * t + 0.1 * t * t
    x = rotate_about(x0, JOINT_POINT, AXIS, phi)  # frame x axis = AXIS
    assert np.abs(evaluate(model, rows, x, t)).max() < 1e-13
    i = [c.name for c in model.constraints].index("J.Rx")
    subs = dict(zip(model.x, x))
    subs.update(dict(zip(model.v, np.zeros(model.n))))
    subs[model.time] = t
    # at rest with the frames turned by phi: d/dt Im_x = -1/2 phi' cos(0) -> c_t = -phi'/2
    assert float(d.c_t[i].xreplace(subs)) == pytest.approx(-(0.3 + 0.2 * t) / 2, rel=1e-12)
    assert float(d.gamma[i].xreplace(subs)) == pytest.approx(0.2 / 2, rel=1e-12)


def test_model_joints_reach_the_descriptor(tmp_path):
    """Model.joints (joints.py) name each joint's rows, type and free coordinate, and the
    generated descriptor carries the same table to the runtime (the slider-crank: a revolute, a
    spherical, a universal and a prismatic joint)."""
    import re
    import subprocess

    from mcsgen.emit.render import MODEL_ABI_VERSION
    from mcsgen.enums import JOINT_COORDINATE
    from mcsgen.paths import GENERATED, MODELS, RUNTIME

    header = (RUNTIME / "include/mcs/mcs_model.h").read_text()
    assert int(re.search(r"#define MCS_MODEL_ABI_VERSION (\d+)", header).group(1)) == (
        MODEL_ABI_VERSION
    )
    model = load_model(MODELS / "slider_crank.yaml")
    names = [c.name for c in model.constraints]
    expected = []
    for j in model.joints:
        rows = [names[i] for i in j.rows]
        assert rows == [f"{j.name}.{r}" for r in j.type.rows], rows
        assert (j.coordinate is not None) == j.type.has_rate
        expected.append(
            f"{j.name} {j.type.name} {j.body1} {j.body2} {j.first_row} {j.nrows} "
            f"{JOINT_COORDINATE.names.index(j.type.coordinate)} {j.lock_group} "
            f"{model.row_groups[j.lock_group].nrows}"
        )
    # each lock adds the fixed joint's rows the type lacks (003 Table 1); the universal joint's
    # three rotations include one its `perp` row already holds (a dependent row at the lock)
    assert [model.row_groups[j.lock_group].what for j in model.joints] == [
        "Rx",
        "Rx Ry Rz",
        "Rx Ry Rz",
        "x",
    ]
    assert [j.type.name for j in model.joints] == [
        "revolute",
        "spherical",
        "universal",
        "prismatic",
    ]
    probe = tmp_path / "joints.c"
    probe.write_text(
        '#include <stdio.h>\n#include "slider_crank.h"\nint main(void)\n{\n    int k;\n'
        "    for (k = 0; k < slider_crank_model.nj; ++k) {\n"
        "        const mcs_joint *j = &slider_crank_model.joints[k];\n"
        '        printf("%s %s %s %s %d %d %d %d %d\\n", j->name, j->type, j->body1, j->body2,\n'
        "               j->first_row, j->nrows, j->coordinate, j->lock_group,\n"
        "               slider_crank_model.groups[j->lock_group].nrows);\n    }\n"
        "    return 0;\n}\n"
    )
    exe = tmp_path / "joints"
    gdir = GENERATED / "slider_crank"
    subprocess.run(
        [
            "cc",
            "-std=c99",
            f"-I{RUNTIME / 'include'}",
            f"-I{gdir}",
            str(probe),
            str(gdir / "slider_crank.c"),
            "-o",
            str(exe),
            "-lm",
        ],
        check=True,
    )
    out = subprocess.run([str(exe)], capture_output=True, text=True, check=True).stdout
    assert out.splitlines() == expected


def test_joint_fields_are_checked_per_type(tmp_path):
    """A field the joint type does not use is an error naming it (joints.py's keys)."""
    from mcsgen.errors import ModelError

    text = """\
name: pair
bodies:
  - {name: a, type: spatial, mass: 1, inertia: [1, 1, 1], position: [0, 0, 0]}
joints:
  - {name: J, type: revolute, body1: a, body2: ground, point: [0, 0, 0], distance: 2}
"""
    path = tmp_path / "pair.yaml"
    path.write_text(text)
    with pytest.raises(ModelError, match=r"joints\[0\]\.distance: unknown field"):
        load_model(path)
