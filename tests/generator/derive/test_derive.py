"""mcsgen.derive: the derived terms equal the papers' closed forms and Lagrange's equations."""
from pathlib import Path

import numpy as np
import sympy as sp

from mcsgen.derive import derive
from mcsgen.model import load_model

MODELS = Path(__file__).resolve().parents[3] / "models"


def test_spatial_pendulum_matches_paper_000_eqs_50_51():
    model = load_model(MODELS / "spatial_pendulum.yaml")
    d = derive(model)
    x, y, z = model.x
    xd, yd, zd = model.v
    assert d.A == sp.Matrix([[2 * x, 2 * y, 2 * z]])  # eq. (50)
    assert d.A_dot == sp.Matrix([[2 * xd, 2 * yd, 2 * zd]])  # eq. (51)
    assert sp.expand(d.gamma[0] + 2 * (xd**2 + yd**2 + zd**2)) == 0
    assert d.c_t == sp.zeros(1, 1)
    lam = d.lam[0]
    assert d.K_c == 2 * lam * sp.eye(3)  # Hessian of c times lambda
    M, g = model.p[0], model.p[2]
    assert d.M == M * sp.eye(3) and list(d.f) == [0, 0, -M * g]


def test_rheonomic_terms(tmp_path):
    """c = x - sin(w t): c_t = -w cos(w t), gamma = -c_tt = -w^2 sin(w t)."""
    path = tmp_path / "driven.yaml"
    path.write_text(
        """\
name: driven
coordinates: [x, y]
parameters: {w: 2.0}
constraints:
  - {name: drive, expr: "x - sin(w*t)"}
  - {name: moving_circle, expr: "(x - t)**2 + y**2 - 1"}
dynamics: {mass_matrix: {diagonal: [1, 1]}, forces: ["0", "0"]}
initial: {x: {x: 0, y: 1}}
"""
    )
    model = load_model(path)
    d = derive(model)
    t, (xd, yd), w = model.time, model.v, model.p[0]
    assert sp.simplify(d.c_t[0] + w * sp.cos(w * t)) == 0
    assert sp.simplify(d.gamma[0] + w**2 * sp.sin(w * t)) == 0
    # second row: cdot = 2(x - t)(xd - 1) + 2 y yd -> gamma = -(2 (xd - 1)^2 + 2 yd^2)
    assert sp.expand(d.gamma[1] + 2 * (xd - 1) ** 2 + 2 * yd**2) == 0
    assert sp.expand(d.A_dot[1, 0] - 2 * (xd - 1)) == 0


def test_lagrange_3r_mass_matrix_is_symmetric_positive_definite():
    model = load_model(MODELS / "pendulum_3r.yaml")
    d = derive(model)
    values = {s: p.value for s, p in zip(model.p, model.parameters)}
    rng = np.random.default_rng(0)
    for _ in range(5):
        q = dict(zip(model.x, rng.uniform(-3, 3, 3)))
        M = np.array(d.M.subs(values).subs(q), dtype=float)
        assert np.allclose(M, M.T)
        assert np.all(np.linalg.eigvalsh(M) > 0)
    # at q = 0 (hanging straight down) the single-link terms are textbook:
    # M33 = m (L/2)^2 + J for the last link alone
    M0 = np.array(d.M.subs(values).subs({s: 0 for s in model.x}), dtype=float)
    assert abs(M0[2, 2] - (108 * 0.25 + 9.36)) < 1e-12


def test_lagrange_3r_gravity_at_rest():
    """At rest f = -dV/dq: for q = (0, 0, pi/2) only the last link's weight acts, on all joints:
    f = -m g L/2 (1, 1, 1)."""
    model = load_model(MODELS / "pendulum_3r.yaml")
    d = derive(model)
    values = {s: p.value for s, p in zip(model.p, model.parameters)}
    state = dict(zip(model.x, [0, 0, sp.pi / 2]))
    state.update({v: 0 for v in model.v})
    f = np.array(d.f.subs(values).subs(state), dtype=float).ravel()
    assert np.allclose(f, -108 * 9.81 * 0.5 * np.ones(3), atol=1e-9)


def test_joint_damper_is_the_torque_of_the_joint_angle_rate(tmp_path):
    """A rotational damper on a revolute joint between two moving bodies (skew axis, bodies
    turned away from the world axes) is -c rate d rate/dv with the axial rate a1 . w1' - a2 . w2'
    (mechanism.add_rate_damping): on the constraint manifold it is the generalized force of the
    joint angle, -c (grad theta . v) grad theta, at every velocity the joints allow."""
    path = tmp_path / "damped_pair.yaml"
    path.write_text(
        """\
name: damped_pair
parameters: {c: 0.7}
gravity: [0, 0, -9.81]
bodies:
  - {name: upper, type: spatial, mass: 2, inertia: [0.1, 0.2, 0.15], position: [0.3, 0, -0.5],
     orientation: {axis: [1, 2, 3], angle: 0.4}}
  - {name: lower, type: spatial, mass: 1, inertia: [0.05, 0.04, 0.03], position: [0.6, 0.2, -1],
     orientation: {axis: [-2, 1, 1], angle: 1.1}}
joints:
  - {name: shoulder, type: spherical, body1: upper, body2: ground, point: [0, 0, 0]}
  - {name: elbow, type: revolute, body1: lower, body2: upper, point: [0.5, 0.1, -0.8],
     axis: [0.3, 1, -0.2]}
forces:
  - {type: rotational_spring_damper, joint: elbow, damping: c}
"""
    )
    model = load_model(path)
    elbow = next(j for j in model.joints if j.name == "elbow")
    theta = elbow.coordinate
    x0 = {s: float(a) for s, a in zip(model.x, model.x0)}
    values = {p.symbol: p.value for p in model.parameters}
    values.update({g: float(e.xreplace(values)) for g, e in model.geometry})
    at = {**x0, **values}
    A = np.array(sp.Matrix([c.expr for c in model.constraints]).jacobian(model.x).xreplace(at),
                 dtype=float)  # fmt: skip
    assert np.abs(np.array([float(c.expr.xreplace(at)) for c in model.constraints])).max() < 1e-14
    _, s, vt = np.linalg.svd(A)
    tangent = vt[np.sum(s > 1e-10) :].T  # (n x f) the velocities the joints allow
    assert tangent.shape[1] == 4  # three turns of the upper body, one of the elbow
    grad = np.array([float(sp.diff(theta, s).xreplace(at)) for s in model.x])
    Q = sp.Matrix(model.forces).xreplace(at)
    rng = np.random.default_rng(3)
    for _ in range(4):
        v = tangent @ rng.normal(size=tangent.shape[1])
        rate = grad @ v
        assert abs(rate) > 1e-3
        got = np.array([float(q.xreplace(dict(zip(model.v, v)))) for q in Q])
        assert np.abs(got - (-0.7 * rate * grad)).max() < 1e-12 * np.abs(got).max()


def test_the_tangents_are_derived_only_for_the_sets_that_emit_them(tmp_path):
    """K_c (stiffness) and K_f, D (force_tangents) only where a build emits them: a firmware
    build or `--kernels motion` took as long for them as the default build (the spherical tree
    joints' model: 13 s of its 15 s of derivation in f's tangent). The sets that emit them get
    the same terms as before (generated/ is byte for byte what it was)."""
    joint = tmp_path / "slider_crank_joint.yaml"
    text = (MODELS / "slider_crank.yaml").read_text()
    joint.write_text(
        text.replace("name: slider_crank", "name: slider_crank_joint") + "\ncoordinates: joint\n"
    )
    for path in (MODELS / "slider_crank.yaml", joint):
        # a model each: a derivation adds to a joint-coordinate model's intermediates
        model, again = load_model(path), load_model(path)
        full, bare = derive(model), derive(again, {"motion"})
        if model.intermediates is not None:  # joint coordinates: the tangents' expressions
            assert full.f_tangent is not None and full.kc_tangent is not None
            assert bare.f_tangent is None and bare.kc_tangent is None
        else:  # body coordinates: the matrices, 0 where not derived
            assert full.K_c != sp.zeros(model.n, model.n)
            assert bare.K_c == bare.K_f == bare.D == sp.zeros(model.n, model.n)
        assert bare.M == full.M and bare.f == full.f and bare.gamma == full.gamma
