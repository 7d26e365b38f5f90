"""The IFToMM spatial slider-crank (paper 000 §3.2, models/slider_crank.yaml) against a reference
that shares nothing with mcsgen: the mechanism's one degree of freedom, the crank angle, with the
loop solved in closed form.

The crank turns about the global x axis through A, so B(th) = A + 0.08 (0, -sin th, cos th); the
slider's point C = (x, 0, 0) is 0.3 m from B, x = sqrt(0.09 - B_y^2 - B_z^2) (B_y^2 + B_z^2 stays
below 0.056, so the root never vanishes); the rod's long axis is u = (C - B)/0.3 and its cross axis
of the universal joint z = x_hat cross u / |x_hat cross u| (perpendicular to the slider's x axis and
to the rod), so every body's pose is a closed-form function of th. The kinetic energy is
m(th) th'^2 / 2 (m from the poses' th-derivatives, SymPy), the potential V(th) the weights', and
Lagrange's equation m th'' + m' th'^2 / 2 + V' = 0 is integrated by SciPy's DOP853 at rtol 1e-13
(its energy stays within 1e-11 J). The IFToMM benchmark's published reference solution (slider
position over time) is not available here; this reference plays its part, to the same 2e-9 m.
"""

import numpy as np
import pytest
import sympy as sp
from scipy.integrate import solve_ivp

from mcsgen.paths import MODELS

from helpers import simulate

T_END = 5.0  # the model's own run: the crank turns about 8.6 times
RATE = 6.0  # the crank's initial rate (rad/s), models/slider_crank.yaml
X0 = 0.2  # the slider's initial position: its joint D's coordinate counts from it


def reference(times):
    """(crank angle, slider position) (len(times) each) of the closed-form model."""
    th = sp.Symbol("th", real=True)
    A = sp.Matrix([0, sp.Rational(1, 10), sp.Rational(12, 100)])
    B = A + sp.Rational(8, 100) * sp.Matrix([0, -sp.sin(th), sp.cos(th)])
    x = sp.sqrt(sp.Rational(9, 100) - B[1] ** 2 - B[2] ** 2)
    C = sp.Matrix([x, 0, 0])
    u = (C - B) / sp.Rational(3, 10)
    z = sp.Matrix([1, 0, 0]).cross(u)
    z = z / sp.sqrt(z.dot(z))
    crank = sp.Matrix(
        [[1, 0, 0], [0, sp.cos(th), -sp.sin(th)], [0, sp.sin(th), sp.cos(th)]]
    ) * sp.Matrix(
        [[1, 0, 0], [0, 0, -1], [0, 1, 0]]
    )  # its body y axis along AB: pi/2 about x at th = 0
    bodies = [  # mass, central inertia (body axes), centre, rotation (world <- body)
        (sp.Rational(12, 100), (1e-4, 1e-5, 1e-4), (A + B) / 2, crank),
        (sp.Rational(1, 2), (4e-3, 4e-4, 4e-3), (B + C) / 2, sp.Matrix.hstack(u.cross(z), u, z)),
        (sp.Integer(2), (1e-4, 1e-4, 1e-4), C, sp.eye(3)),
    ]
    m, V = sp.Integer(0), sp.Integer(0)
    for mass, inertia, r, R in bodies:
        dr = r.diff(th)
        W = R.T * R.diff(th)  # the body-frame angular velocity per unit th', skew
        w = (W[2, 1], W[0, 2], W[1, 0])
        m += mass * dr.dot(dr) + sum(J * wk**2 for J, wk in zip(inertia, w))
        V += mass * sp.Rational(981, 100) * r[2]
    terms = sp.lambdify(th, [m, m.diff(th), V.diff(th), V, x], "math", cse=True)

    def rhs(_, y):
        mass, dm, dV, _, _ = terms(y[0])
        return [y[1], -(dm * y[1] ** 2 / 2 + dV) / mass]

    sol = solve_ivp(rhs, (0, times[-1]), [0.0, RATE], method="DOP853", rtol=1e-13, atol=1e-14,
                    dense_output=True)  # fmt: skip
    assert sol.success
    angle, rate = sol.sol(times)
    values = np.array([terms(a) for a in angle])  # (len(times) x 5)
    energy = values[:, 0] * rate**2 / 2 + values[:, 3]
    assert np.ptp(energy) < 1e-11  # J: conserved
    return angle, values[:, 4]


@pytest.mark.parametrize("coordinates", ["body", "joint"])
def test_slider_crank_matches_the_closed_form_reference(tmp_path, coordinates):
    model = "slider_crank"
    if coordinates == "joint":
        text = (MODELS / "slider_crank.yaml").read_text()
        text = text.replace("name: slider_crank\n", "name: slider_crank_joint\n", 1)
        model = str(tmp_path / "slider_crank_joint.yaml")
        (tmp_path / "slider_crank_joint.yaml").write_text(text + "coordinates: joint\n")
    _, run = simulate(
        tmp_path, model, method="dopri5", rtol=1e-12, atol=1e-14, t_end=T_END, dt_out=0.05
    )
    angle, slider = reference(run["t"])
    assert run["t"][-1] == pytest.approx(T_END)
    assert angle[-1] > 8 * 2 * np.pi  # it turned all the way, eight times
    # the slider's position to 2e-9 m over the whole run, and the crank's angle
    print(
        f"slider-crank ({coordinates} coordinates) against the closed-form reference over"
        f" {T_END} s: slider {np.abs(run['j.D'] + X0 - slider).max():.2g} m,"
        f" crank {np.abs(run['j.A'] - angle).max():.2g} rad"
    )
    assert np.abs(run["j.D"] + X0 - slider).max() <= 2e-9
    assert np.abs(run["j.A"] - angle).max() <= 1e-8
