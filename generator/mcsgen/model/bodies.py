"""Bodies, joints, drivers and force elements -> coordinates, constraint rows and local dynamics.

Conventions (paper 003 §2, SPEC §1):
- A spatial body has coordinates r = (x, y, z) of its centre of mass and Euler parameters
  e = (e0, e1, e2, e3); `e^T e - 1 = 0` is added as the constraint row `<body>.norm`. Its rotation
  matrix is R(e) (the homogeneous quadratic form, a rotation on |e| = 1) and its body-frame angular
  velocity w' = 2 G(e) edot with G the paper's E of 000 eq. (61b).
- A planar body has (x, y, theta). `ground` is fixed at the origin with identity orientation.
- A joint connects frame F1 on body1 (the driven body) to frame F2 on body2 (the main body).
  Translational rows are the position of F1's origin in F2's basis, R_F2^T (P1 - P2); rotational
  rows the imaginary part of rho_F1(F2) = conj(rho_F2) rho_F1. A joint type selects rows
  (003 Table 1, joints.py). The joint axis is the frame's x axis.
- Kinetic and potential energy are built per body (one Lagrange block each, 7 or 3 coordinates),
  so derivation cost grows linearly with the number of bodies.
"""

import sympy as sp

from .exact import approx
from .exact import sign as exact_sign

SPATIAL_COORDS = ("x", "y", "z", "e0", "e1", "e2", "e3")
PLANAR_COORDS = ("x", "y", "theta")


def quat_mul(a, b):
    a0, a1, a2, a3 = a
    b0, b1, b2, b3 = b
    return (
        a0 * b0 - a1 * b1 - a2 * b2 - a3 * b3,
        a0 * b1 + a1 * b0 + a2 * b3 - a3 * b2,
        a0 * b2 - a1 * b3 + a2 * b0 + a3 * b1,
        a0 * b3 + a1 * b2 - a2 * b1 + a3 * b0,
    )


def quat_conj(a):
    return (a[0], -a[1], -a[2], -a[3])


def rotation_from_euler(e):
    """R(e) as a SymPy Matrix (3 x 3); a rotation when |e| = 1."""
    e0, e1, e2, e3 = e
    return sp.Matrix(
        [
            [
                e0**2 + e1**2 - e2**2 - e3**2,
                2 * (e1 * e2 - e0 * e3),
                2 * (e1 * e3 + e0 * e2),
            ],
            [
                2 * (e1 * e2 + e0 * e3),
                e0**2 - e1**2 + e2**2 - e3**2,
                2 * (e2 * e3 - e0 * e1),
            ],
            [
                2 * (e1 * e3 - e0 * e2),
                2 * (e2 * e3 + e0 * e1),
                e0**2 - e1**2 - e2**2 + e3**2,
            ],
        ]
    )


def G_matrix(e):
    """Body-frame angular velocity w' = 2 G(e) edot (000 eq. 61b's E)."""
    e0, e1, e2, e3 = e
    return sp.Matrix([[-e1, e0, e3, -e2], [-e2, -e3, e0, e1], [-e3, e2, -e1, e0]])


def E_matrix(e):
    """World-frame angular velocity w = 2 E(e) edot."""
    e0, e1, e2, e3 = e
    return sp.Matrix([[-e1, e0, -e3, e2], [-e2, e3, e0, -e1], [-e3, -e2, e1, e0]])


def quaternion_from_matrix(R, at=None):
    """Unit quaternion (w, x, y, z) of an exact rotation matrix (3 x 3), w >= 0; exact SymPy
    numbers. The branch is chosen from the exact values (Shepperd's method: the largest of the
    trace and the diagonal keeps the square root away from zero). R may depend on parameters:
    the branch and the sign are then chosen at their values `at` ({Symbol: exact value})."""
    R = sp.Matrix(R)
    tr = R[0, 0] + R[1, 1] + R[2, 2]

    def sign(expr):  # of the exact value, or at the parameters' values
        return exact_sign(sp.sympify(expr).xreplace(at) if at else expr)

    if sign(tr) > 0:
        s = sp.sqrt(tr + 1) * 2
        q = [s / 4, (R[2, 1] - R[1, 2]) / s, (R[0, 2] - R[2, 0]) / s, (R[1, 0] - R[0, 1]) / s]
    elif sign(R[0, 0] - R[1, 1]) > 0 and sign(R[0, 0] - R[2, 2]) > 0:
        s = sp.sqrt(1 + R[0, 0] - R[1, 1] - R[2, 2]) * 2
        q = [(R[2, 1] - R[1, 2]) / s, s / 4, (R[0, 1] + R[1, 0]) / s, (R[0, 2] + R[2, 0]) / s]
    elif sign(R[1, 1] - R[2, 2]) > 0:
        s = sp.sqrt(1 + R[1, 1] - R[0, 0] - R[2, 2]) * 2
        q = [(R[0, 2] - R[2, 0]) / s, (R[0, 1] + R[1, 0]) / s, s / 4, (R[1, 2] + R[2, 1]) / s]
    else:
        s = sp.sqrt(1 + R[2, 2] - R[0, 0] - R[1, 1]) * 2
        q = [(R[1, 0] - R[0, 1]) / s, (R[0, 2] + R[2, 0]) / s, (R[1, 2] + R[2, 1]) / s, s / 4]
    return tuple(-c for c in q) if sign(q[0]) < 0 else tuple(q)


def matrix_from_quaternion(q):
    """R(q) (3 x 3) of a unit quaternion, exact SymPy (the same form as rotation_from_euler)."""
    return rotation_from_euler([sp.sympify(c) for c in q])


def frame_from_axis(axis, at=None):
    """A deterministic rotation (3 x 3, exact SymPy) whose first column is the unit axis.

    The coordinate axis least aligned with u (the first one on a tie) seeds the second column;
    when the axis depends on parameters, the least aligned at their values `at`."""
    u = sp.Matrix([sp.sympify(c) for c in axis])
    u = u / sp.sqrt(sum(c * c for c in u))
    magnitudes = [approx(abs(c).xreplace(at) if at else abs(c)) for c in u]
    k = min(range(3), key=lambda i: (magnitudes[i], i))
    seed = sp.Matrix([1 if i == k else 0 for i in range(3)])
    v = seed - u[k] * u
    v = v / sp.sqrt(sum(c * c for c in v))
    w = u.cross(v)
    return sp.Matrix.hstack(u, v, w)


class Body:
    """One body: its symbols, pose expressions and initial state."""

    def __init__(self, name, kind, index0=None):
        self.name = name
        self.kind = kind  # "spatial" | "planar" | "ground"
        self.index0 = index0  # index of its first coordinate
        if kind == "spatial":
            self.coord_names = [f"{name}.{c}" for c in SPATIAL_COORDS]
        elif kind == "planar":
            self.coord_names = [f"{name}.{c}" for c in PLANAR_COORDS]
        else:
            self.coord_names = []
        self.q = [sp.Symbol(n, real=True) for n in self.coord_names]
        self.qd = [sp.Symbol(n + "_dot", real=True) for n in self.coord_names]
        self.mass = None
        self.inertia = None  # (3 x 3) SymPy matrix, or scalar for planar
        self.x0 = []
        self.v0 = None  # given linear velocity (world) or None
        self.w0 = None  # given angular velocity (world) or None

    # --- pose ---------------------------------------------------------------------------------
    @property
    def dim(self):
        return 2 if self.kind == "planar" else 3

    def position(self):
        if self.kind == "ground":
            return None
        return sp.Matrix(self.q[: self.dim])

    def rotation(self):
        if self.kind == "spatial":
            return rotation_from_euler(self.q[3:7])
        if self.kind == "planar":
            th = self.q[2]
            return sp.Matrix([[sp.cos(th), -sp.sin(th)], [sp.sin(th), sp.cos(th)]])
        return None

    def quaternion(self):
        return tuple(self.q[3:7]) if self.kind == "spatial" else None

    def point(self, p):
        """World position of body point p (body coordinates, relative to the centre of mass)."""
        p = sp.Matrix(p)
        if self.kind == "ground":
            return p
        return self.position() + self.rotation() * p

    # --- energy -------------------------------------------------------------------------------
    def kinetic(self, generic=False):
        """T of the body. generic: with generic symbols for the mass and the inertia entries
        (returned with the substitution that restores them), so that every body of a kind shares
        one symbolic derivation."""
        m, J, subs = self.mass, self.inertia, {}
        if generic:
            m = sp.Symbol("_mass", real=True)
            subs[m] = self.mass
            if self.kind == "spatial":
                Jg = sp.zeros(3, 3)
                for a in range(3):
                    for b in range(a, 3):
                        if self.inertia[a, b] != 0:
                            Jg[a, b] = Jg[b, a] = sp.Symbol(f"_J{a}{b}", real=True)
                            subs[Jg[a, b]] = self.inertia[a, b]
                J = Jg
            else:
                J = sp.Symbol("_J", real=True)
                subs[J] = self.inertia
        if self.kind == "spatial":
            rd = sp.Matrix(self.qd[:3])
            w = 2 * G_matrix(self.q[3:7]) * sp.Matrix(self.qd[3:7])
            T = m / 2 * (rd.T * rd)[0] + (w.T * J * w)[0] / 2
        else:
            rd = sp.Matrix(self.qd[:2])
            T = m / 2 * (rd.T * rd)[0] + J * self.qd[2] ** 2 / 2
        return (T, subs) if generic else T

    def gravity_potential(self, g, mass=None):
        return -(self.mass if mass is None else mass) * (sp.Matrix(g).T * self.position())[0]


def relative_rotation_rows(b1, q1, b2, q2, drive=None):
    """Im(conj(rho_F2) rho_F1 [conj(rho_t)]) as 3 expressions. q1, q2: frame quaternions in their
    bodies (numeric tuples); drive: a quaternion of t (tuple) or None."""
    rho1 = quat_mul(b1.quaternion(), q1) if b1.kind == "spatial" else q1
    rho2 = quat_mul(b2.quaternion(), q2) if b2.kind == "spatial" else q2
    rel = quat_mul(quat_conj(rho2), rho1)
    if drive is not None:
        rel = quat_mul(rel, quat_conj(drive))
    return rel


def frame_rotation(body, R_frame):
    """World rotation of a joint frame: R_body R_frame (ground: R_frame)."""
    R_frame = sp.Matrix(R_frame)
    if body.kind == "ground":
        return R_frame
    return body.rotation() * R_frame
