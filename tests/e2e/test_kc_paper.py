"""The generated tangent stiffness of constraints against paper 003's analytical one (§3.1,
eqs. 44-49, Appendix C), for a revolute and a spherical joint between two free bodies, at random
states and multipliers (issue 10).

003 varies a body's pose by (dr, theta_l), theta_l the virtual rotation in the body's basis; our
coordinates are (r, e) with e the Euler parameters, and K_c = d(A^T lam)/dx. On |e| = 1 the two
are related by de = B(e) theta_l, B(e) = 1/2 [-v^T; s I + v~] (4 x 3) for e = (s, v) (003 B.13a),
so with Phi = blockdiag(I, B(e1), I, B(e2)) (14 x 12):

    003's generalized reaction   Q = Phi^T A^T lam                            (eq. 25 / 36)
    003's K_c                    dQ/dtheta = Phi^T K_c Phi + H,   H = blockdiag(0, L1 B1, 0, L2 B2)

where L_i (3 x 4) = d(B(e)^T w_i)/de at fixed w_i = (A^T lam) over e_i: the turning of the basis
itself (SPEC §8). The model's own rows are 003's (R_F2^T (r_F1 - r_F2) and Im(rho_F1(F2)),
Table 1), so its multipliers are 003's gamma_f, gamma_m row by row.
"""

import numpy as np
import pytest

from helpers import quaternion_matrix
from mcsgen.compiled import CompiledModel
from mcsgen.generate import generate

MODEL = """\
name: kc_paper_joints
description: |
  Three free bodies, a revolute joint between a and b and a spherical joint between b and c,
  with joint frames that are not aligned with the bodies: the K_c test of paper 003 eqs. 45/49.
parameters: {}
gravity: [0, 0, -9.81]
bodies:
  - {name: a, type: spatial, mass: 2.0, inertia: [0.3, 0.4, 0.5], position: [0, 0, 0]}
  - {name: b, type: spatial, mass: 1.5, inertia: [0.2, 0.3, 0.4], position: [1.0, 0.5, -0.3]}
  - {name: c, type: spatial, mass: 1.0, inertia: [0.1, 0.2, 0.3], position: [2.0, -0.4, 0.2]}
joints:
  - {name: hinge, type: revolute, body1: a, body2: b, point: [0.4, 0.3, 0.1], axis: [1, 2, 2]}
  - {name: ball, type: spherical, body1: b, body2: c, point: [1.6, 0.2, 0.3],
     axis1: [2, -1, 2], axis2: [0, 3, 4]}
"""
# (joint, body1, body2, world point, axis of F1, axis of F2, rows); bodies start unrotated, so a
# frame in body coordinates is the world frame built from its axis and a point is P - position
POSITIONS = {"a": [0, 0, 0], "b": [1.0, 0.5, -0.3], "c": [2.0, -0.4, 0.2]}
BODY_INDEX = {"a": 0, "b": 1, "c": 2}
JOINTS = [
    ("hinge", "a", "b", [0.4, 0.3, 0.1], [1, 2, 2], [1, 2, 2], ("x", "y", "z", "Ry", "Rz")),
    ("ball", "b", "c", [1.6, 0.2, 0.3], [2, -1, 2], [0, 3, 4], ("x", "y", "z")),
]


def skew(a):
    return np.array([[0, -a[2], a[1]], [a[2], 0, -a[0]], [-a[1], a[0], 0]])


def quat_mul(a, b):
    s, v, t, w = a[0], np.asarray(a[1:]), b[0], np.asarray(b[1:])
    return np.concatenate([[s * t - v @ w], s * w + t * v + np.cross(v, w)])


def conj(q):
    return np.array([q[0], -q[1], -q[2], -q[3]])


def frame_from_axis(axis):
    """The joint frame of README's rule: x along the axis, the coordinate axis least aligned
    with it (first on a tie) seeds y."""
    u = np.asarray(axis, float) / np.linalg.norm(axis)
    k = min(range(3), key=lambda i: (round(abs(u[i]), 12), i))
    v = np.eye(3)[k] - u[k] * u
    v /= np.linalg.norm(v)
    return np.column_stack([u, v, np.cross(u, v)])


def quaternion_of(R):
    """Unit quaternion of a rotation matrix with w >= 0 (the generator's convention)."""
    w = np.sqrt(max(0.0, 1 + np.trace(R))) / 2
    v = np.array([R[2, 1] - R[1, 2], R[0, 2] - R[2, 0], R[1, 0] - R[0, 1]]) / (4 * w)
    return np.concatenate([[w], v])


def basis_map(e):
    """B(e) = de/dtheta_l (4 x 3) of 003 (B.13a)."""
    s, v = e[0], np.asarray(e[1:])
    return 0.5 * np.vstack([-v, s * np.eye(3) + skew(v)])


def kc_003(r1, e1, r2, e2, F1, F2, p1, p2, gamma_f, gamma_m):
    """003's K_c = K_c^(M) + K_c^(P) (eqs. 44, 45a-h, 48, 49a-d) over (dr1, th1, dr2, th2), and
    its generalized reaction C_q^T gamma (eq. 36). F: frames in body coordinates, p: frame
    origins in body coordinates, gamma_f, gamma_m: reactions in F2's basis."""
    RB1, RB2 = quaternion_matrix(e1), quaternion_matrix(e2)
    RF1, RF2 = RB1 @ F1, RB2 @ F2
    rho = quat_mul(conj(quat_mul(e2, quaternion_of(F2))), quat_mul(e1, quaternion_of(F1)))
    s, v = rho[0], rho[1:]
    P = 0.5 * (s * np.eye(3) + skew(v))  # (C.1)
    G = -0.25 * np.outer(gamma_m, v) - 0.25 * skew(gamma_m) @ (s * np.eye(3) + skew(v))  # (C.11)
    r12 = RB2.T @ (r1 + RB1 @ p1 - r2 - RB2 @ p2)  # (14)
    gf, pm, p1x, p2x = skew(gamma_f), skew(P @ gamma_m), skew(p1), skew(p2)
    K = np.zeros((12, 12))
    K[0:3, 9:12] = -RF2 @ gf @ RF2.T @ RB2  # (45a)
    K[3:6, 3:6] = p1x @ RB1.T @ RF2 @ gf @ RF2.T @ RB1 + RB1.T @ RF2 @ pm @ RF2.T @ RB1  # (45b)
    K[3:6, 9:12] = -p1x @ RB1.T @ RF2 @ gf @ RF2.T @ RB2 - RB1.T @ RF2 @ pm @ RF2.T @ RB2  # (45c)
    K[6:9, 9:12] = RF2 @ gf @ RF2.T @ RB2  # (45d)
    K[9:12, 0:3] = RB2.T @ RF2 @ gf @ RF2.T  # (45e)
    K[9:12, 3:6] = -RB2.T @ RF2 @ gf @ RF2.T @ RB1 @ p1x  # (45f)
    K[9:12, 6:9] = -RB2.T @ RF2 @ gf @ RF2.T  # (45g)
    K[9:12, 9:12] = RB2.T @ RF2 @ gf @ RF2.T @ RB2 @ (skew(r12) + p2x)  # (45h)
    K[3:6, 3:6] += RB1.T @ RF2 @ G @ RF1.T @ RB1  # (49a)
    K[3:6, 9:12] += -RB1.T @ RF2 @ G @ RF1.T @ RB2  # (49b)
    K[9:12, 3:6] += -RB2.T @ RF2 @ G @ RF1.T @ RB1  # (49c)
    K[9:12, 9:12] += RB2.T @ RF2 @ G @ RF1.T @ RB2  # (49d)
    Q = np.concatenate(
        [
            RF2 @ gamma_f,  # (36a)
            p1x @ RB1.T @ RF2 @ gamma_f + RB1.T @ RF2 @ P @ gamma_m,  # (36b, c)
            -RF2 @ gamma_f,  # (36d)
            -p2x @ RB2.T @ RF2 @ gamma_f
            - skew(r12) @ RB2.T @ RF2 @ gamma_f
            - RB2.T @ RF2 @ P @ gamma_m,  # (36e, f)
        ]
    )
    return K, Q


def random_state(rng, model, joint):
    """x (random positions, random unit Euler parameters: the constraints need not hold) and
    lam (random on the joint's rows, zero elsewhere)."""
    x = rng.uniform(-1, 1, model.n)
    for b in range(model.n // 7):
        e = rng.normal(size=4)
        x[7 * b + 3 : 7 * b + 7] = e / np.linalg.norm(e)
    lam = np.zeros(model.m)
    lam[list(joint.rows)] = rng.uniform(-5, 5, joint.nrows)
    return x, lam


@pytest.fixture(scope="module")
def compiled(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("kc003")
    path = tmp / "kc_paper_joints.yaml"
    path.write_text(MODEL)
    # K_c is the stiffness set's (the file's continuation needs the predictor's A_dot): the
    # transitions' row groups (a lock per joint) and the reactions are not needed here
    model, gdir, _ = generate(path, out_root=tmp / "gen", kernels="stiffness,predictor")
    return CompiledModel(model, gdir)


@pytest.mark.parametrize("joint", JOINTS, ids=[j[0] for j in JOINTS])
def test_generated_kc_is_003s_analytical_kc(compiled, joint):
    name, b1, b2, point, axis1, axis2, rows = joint
    model = compiled.model
    (spec,) = [j for j in model.joints if j.name == name]
    assert spec.nrows == len(rows)
    i1, i2 = BODY_INDEX[b1], BODY_INDEX[b2]
    idx = list(range(7 * i1, 7 * i1 + 7)) + list(range(7 * i2, 7 * i2 + 7))
    F1, F2 = frame_from_axis(axis1), frame_from_axis(axis2)
    p1 = np.subtract(point, POSITIONS[b1])
    p2 = np.subtract(point, POSITIONS[b2])
    rng = np.random.default_rng(20261123 + i1)
    worst_k = worst_q = 0.0
    for _ in range(10):
        x, lam = random_state(rng, model, spec)
        gamma = dict(zip(rows, lam[list(spec.rows)]))
        gamma_f = np.array([gamma.get(r, 0.0) for r in ("x", "y", "z")])
        gamma_m = np.array([gamma.get(r, 0.0) for r in ("Rx", "Ry", "Rz")])
        r1, e1 = x[7 * i1 : 7 * i1 + 3], x[7 * i1 + 3 : 7 * i1 + 7]
        r2, e2 = x[7 * i2 : 7 * i2 + 3], x[7 * i2 + 3 : 7 * i2 + 7]
        K_ref, Q_ref = kc_003(r1, e1, r2, e2, F1, F2, p1, p2, gamma_f, gamma_m)

        # ours, mapped to 003's variations
        Phi = np.zeros((14, 12))
        Phi[0:3, 0:3] = Phi[7:10, 6:9] = np.eye(3)
        Phi[3:7, 3:6], Phi[10:14, 9:12] = basis_map(e1), basis_map(e2)
        g = (compiled.A(x, 0.0).T @ lam)[idx]
        Kc = compiled.K_c(x, lam, 0.0)
        assert np.abs(np.delete(Kc, idx, axis=0)).max() == 0  # no other body feels this joint
        assert np.abs(np.delete(Kc, idx, axis=1)).max() == 0
        H = np.zeros((12, 12))
        for blk, w in ((3, g[3:7]), (9, g[10:14])):
            L = np.column_stack([basis_map(np.eye(4)[k]).T @ w for k in range(4)])
            e = e1 if blk == 3 else e2
            H[blk : blk + 3, blk : blk + 3] = L @ basis_map(e)
        K_ours = Phi.T @ Kc[np.ix_(idx, idx)] @ Phi + H
        Q_ours = Phi.T @ g
        scale_k, scale_q = np.abs(K_ref).max(), np.abs(Q_ref).max()
        worst_k = max(worst_k, np.abs(K_ours - K_ref).max() / scale_k)
        worst_q = max(worst_q, np.abs(Q_ours - Q_ref).max() / scale_q)
    assert worst_q < 1e-12, worst_q  # the Jacobians agree (eq. 25)
    assert worst_k < 1e-10, worst_k  # and so do the tangent stiffnesses (eqs. 45, 49)


def test_003_kc_is_unsymmetric_and_ours_is_symmetric(compiled):
    """003 §3.1.3: its K_c is in general not symmetric (the rotation variations do not commute);
    ours, a Hessian in Euler-parameter coordinates, is, as a second derivative must be."""
    model = compiled.model
    (spec,) = [j for j in model.joints if j.name == "hinge"]
    x, lam = random_state(np.random.default_rng(7), model, spec)
    Kc = compiled.K_c(x, lam, 0.0)
    assert np.abs(Kc - Kc.T).max() <= 1e-13 * np.abs(Kc).max()
    K_ref, _ = kc_003(
        x[0:3],
        x[3:7],
        x[7:10],
        x[10:14],
        frame_from_axis([1, 2, 2]),
        frame_from_axis([1, 2, 2]),
        np.subtract([0.4, 0.3, 0.1], POSITIONS["a"]),
        np.subtract([0.4, 0.3, 0.1], POSITIONS["b"]),
        lam[spec.first_row : spec.first_row + 3],
        np.array([0.0, lam[spec.first_row + 3], lam[spec.first_row + 4]]),
    )
    assert np.abs(K_ref - K_ref.T).max() > 1e-3 * np.abs(K_ref).max()
