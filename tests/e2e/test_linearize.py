"""The exact linearization about any state (mcs_sim_linearize, Stepper.linearize;
docs/reference/linearization.md): A and B from the generated derivative kernels against central
finite differences of the simulator's own right-hand side (mcs_sim_chart_rhs) at states away from
equilibrium, on open chains and closed loops, body and joint coordinates, redundant rows; at an
equilibrium A's eigenvalues are the vibration modes'."""
from pathlib import Path

import numpy as np
import pytest

import mcsgen
from conftest import over_models
from mcsgen.errors import McsError
from mcsgen.model import kernel_sets

from test_inputs import MOTORS, pendulum_with
from test_inverse_dynamics import SLIDER_CRANK

ROOT = Path(__file__).resolve().parents[2]


def shipped(name):
    return ROOT / "models" / f"{name}.yaml"


def in_joint_coordinates(name):
    text = shipped(name).read_text()
    return text.replace(f"name: {name}", f"name: {name}_joint") + "coordinates: joint\n"


def build(tmp_path_factory, name, model):
    """A solver of a shipped model (its path) or of a model's text, with every kernel set (a
    host build leaves the linearization's out unless asked: model/kernel_sets.py)."""
    if isinstance(model, str):
        path = tmp_path_factory.mktemp("linearize") / f"{name}.yaml"
        path.write_text(model)
        model = path
    return mcsgen.load(model).build(kernels="all")


def rhs_jacobian(run, y0, h=1e-5):
    """Central differences of the chart's right-hand side about y0 (2f)."""
    cols = []
    for j in range(y0.size):
        e = np.zeros(y0.size)
        e[j] = h * max(1.0, abs(y0[j]))
        cols.append((run.chart_rhs(y0 + e) - run.chart_rhs(y0 - e)) / (2 * e[j]))
    return np.column_stack(cols)


def away_from_equilibrium(run, rng, k):
    """The run moved along its motion and kicked to a random velocity (projected onto the
    constraints by set_state): a state with accelerations, velocities and constraint forces."""
    run.advance(run.t + 0.02 * (k + 1))
    run.set_state(run.x, run.v + rng.standard_normal(run.n))
    return run


CASES = {  # name: (model text, degrees of freedom, the states' seed)
    "spatial_pendulum": (shipped("spatial_pendulum"), 2, 1),
    "slider_crank": (shipped("slider_crank"), 1, 2),
    "double_four_bar": (shipped("double_four_bar"), 1, 3),
    "modified_2x2_four_bar": (shipped("modified_2x2_four_bar"), 2, 4),  # redundant rows
    "spin_top": (shipped("spin_top"), 5, 5),  # Euler parameters
    "pendulum_3r": (shipped("pendulum_3r"), 3, 6),  # joint coordinates, a tree
    "slider_crank_joint": (in_joint_coordinates("slider_crank"), 1, 7),  # a loop of joints
    "delta_robot": (shipped("delta_robot"), 3, 8),  # three loops
}


# the 2x2 four-bar in make test too: its rows are redundant
@pytest.mark.parametrize("name", over_models(sorted(CASES), keep=("modified_2x2_four_bar",)))
def test_A_matches_central_differences_of_the_right_hand_side(tmp_path_factory, name):
    """At three states away from equilibrium: the exact A against central differences of the
    chart's right-hand side to 1e-6 relative (they agree to about 1e-9: the differences' own
    error), and its first block row is [0 I]."""
    text, dof, seed = CASES[name]
    solver = build(tmp_path_factory, name, text)
    run = solver.start(method="dopri5", rtol=1e-10, atol=1e-12)
    rng = np.random.default_rng(seed)
    for k in range(3):
        away_from_equilibrium(run, rng, k)
        lin = run.linearize()
        f = lin.dof
        assert f == dof and lin.A.shape == (2 * f, 2 * f) and lin.T.shape == (run.n, f)
        y0 = np.concatenate([np.zeros(f), lin.T.T @ run.v])
        assert np.abs(run.chart_rhs(y0)[:f] - y0[f:]).max() == 0.0
        J = rhs_jacobian(run, y0)
        scale = np.abs(lin.A).max()
        assert np.abs(J - lin.A).max() <= 1e-6 * scale, (name, k)
        assert np.array_equal(lin.A[:f, :f], np.zeros((f, f)))
        assert np.array_equal(lin.A[:f, f:], np.eye(f))


INPUT_CASES = {  # name: (model text, inputs held, the states' seed)
    "p3lin": (pendulum_with(["tau1", "tau2", "tau3"], MOTORS, name="p3lin"), [40, -25, 10], 11),
    "crank_motor": (SLIDER_CRANK, [2.0, -30.0], 12),  # joint inputs: B depends on x
    "delta_robot": (shipped("delta_robot"), [100.0, -50.0, 30.0], 13),  # motors on three loops
}


@pytest.mark.parametrize("name", sorted(INPUT_CASES))
def test_A_and_B_under_inputs_match_central_differences(tmp_path_factory, name):
    """With inputs held (so A carries the tangent of B(x) u): A against differences in the
    state and B against differences in the inputs of the chart's right-hand side, to 1e-6."""
    text, u0, seed = INPUT_CASES[name]
    solver = build(tmp_path_factory, name, text)
    run = solver.start(method="dopri5", rtol=1e-10, atol=1e-12)
    rng = np.random.default_rng(seed)
    u0 = np.array(u0, dtype=float)
    for k in range(2):
        run.set_inputs(u0)
        away_from_equilibrium(run, rng, k)
        lin = run.linearize()
        f = lin.dof
        y0 = np.concatenate([np.zeros(f), lin.T.T @ run.v])
        A = rhs_jacobian(run, y0)
        assert np.abs(A - lin.A).max() <= 1e-6 * np.abs(lin.A).max()
        B = []
        for j in range(u0.size):
            du = np.zeros(u0.size)
            du[j] = 1e-3 * max(1.0, abs(u0[j]))
            run.set_inputs(u0 + du)
            plus = run.chart_rhs(y0)
            run.set_inputs(u0 - du)
            B.append((plus - run.chart_rhs(y0)) / (2 * du[j]))
        B = np.column_stack(B)
        assert lin.B.shape == (2 * f, u0.size)
        assert np.abs(B - lin.B).max() <= 1e-6 * np.abs(lin.B).max()
        assert np.array_equal(lin.B[:f], np.zeros((f, u0.size)))
    # the inputs' tangent in A matters: linearized at u = 0 the crank's A is another
    if name == "crank_motor":
        run.set_inputs(0 * u0)
        assert np.abs(run.linearize().A - lin.A).max() > 1e-3 * np.abs(lin.A).max()


@pytest.mark.parametrize(
    "name, start, reference",
    [
        ("pendulum_kc", None, [1.5660459763365815]),  # 003 §4.1: ±1.566 i, the lower position
        ("pendulum_3r", [0.1, -0.1, 0.05], None),  # three modes about hanging down
    ],
)
def test_at_an_equilibrium_A_has_the_eigenvalues_of_the_modes(name, start, reference):
    """About the static equilibrium statics() finds, the eigenvalues of A are +-i omega of the
    modes (the generalized problem of T^T M T and T^T (K_f + K_c) T, mcs_modes.c) to 1e-10."""
    solver = mcsgen.load(shipped(name)).build(kernels="all")
    modes = solver.modes(x=start)
    assert modes.ok
    run = solver.start()
    run.set_state(modes.statics.x)
    lin = run.linearize()
    eig = np.linalg.eigvals(lin.A)
    omega = np.sort(np.abs(eig.imag[eig.imag > 0]))
    assert omega.size == lin.dof and np.abs(eig.real).max() <= 1e-10 * omega.max()
    assert np.abs(omega - np.sort(modes.omega)).max() <= 1e-10 * omega.max()
    if reference is not None:
        assert np.abs(omega - reference).max() <= 1e-12 * omega.max()


def step_from(run, t0, x0, v0, h, y=None, u=None):
    """The state one step of h after (t0, x0, v0) (moved to the chart coordinates y of the chart
    centred there, under the inputs u, when given)."""
    run.set_state(x0, v0, t0)
    if y is not None:
        x, v = run.chart_state(y)
        run.set_state(x, v, t0)
    if u is not None:
        run.set_inputs(u)
    run.advance(t0 + h)
    return run.x, run.v


STEP_CASES = {  # name: (model, inputs held)
    "spatial_pendulum": (shipped("spatial_pendulum"), None),
    "spin_top": (shipped("spin_top"), None),
    "double_four_bar": (shipped("double_four_bar"), None),
    "crank_motor": (SLIDER_CRANK, [2.0, -30.0]),
}


@pytest.mark.parametrize("name", sorted(STEP_CASES))
def test_the_step_jacobian_matches_differences_of_the_step(tmp_path_factory, name):
    """One RK4 step of 2 ms from a state along the motion: J (and G) against central differences
    of the step itself, started from the states the chart puts at y0 +- eps e_j (and under the
    inputs u +- du), their ends read in the next chart's basis, to 1e-7. At this step the
    method's second-order terms are about 1e-4 of J: a recursion that dropped them would fail.
    (Larger steps part the two: each perturbed run starts a chart of its own, and RK4's
    truncation error differs from chart to chart by O((h omega)^5).)"""
    model, u0 = STEP_CASES[name]
    solver = build(tmp_path_factory, name, model)
    h = 2e-3
    run = solver.start(method="rk4", h=h)
    if u0 is not None:
        run.set_inputs(u0)
    run.advance(0.05)
    t0, x0, v0 = run.t, run.x, run.v
    run.set_state(x0, v0, t0)
    T0 = run.basis()
    f = T0.shape[1]
    y0 = np.concatenate([np.zeros(f), T0.T @ v0])
    sj = run.step_jacobian(h)
    assert run.t == pytest.approx(t0 + h, abs=1e-15)
    T1 = sj.T_to
    assert np.array_equal(sj.T_from, T0) and T1.shape == T0.shape

    def read(end_plus, end_minus, eps):
        (xp, vp), (xm, vm) = end_plus, end_minus
        return np.concatenate([T1.T @ (xp - xm), T1.T @ (vp - vm)]) / (2 * eps)

    eps = 1e-6
    J = np.column_stack(
        [
            read(
                step_from(run, t0, x0, v0, h, y0 + eps * e, u0),
                step_from(run, t0, x0, v0, h, y0 - eps * e, u0),
                eps,
            )
            for e in np.eye(2 * f)
        ]
    )
    assert np.abs(J - sj.J).max() <= 1e-7 * np.abs(sj.J).max()
    # the step is not I: it moved the state by its dynamics' second order too
    assert np.abs(sj.J - np.eye(2 * f)).max() > 1e-3
    if u0 is not None:
        u0 = np.array(u0)
        G = np.column_stack(
            [
                read(
                    step_from(run, t0, x0, v0, h, u=u0 + du),
                    step_from(run, t0, x0, v0, h, u=u0 - du),
                    np.abs(du).max(),
                )
                for du in np.diag(1e-3 * np.maximum(1.0, np.abs(u0)))
            ]
        )
        assert np.abs(G - sj.G).max() <= 1e-7 * np.abs(sj.G).max()
        assert np.abs(sj.G).max() > 0


def test_a_solver_without_the_linearization_kernels_says_how_to_get_them(tmp_path):
    """A host build carries every kernel set but linearization (model/kernel_sets.DEFAULT): its
    linearize() names the two ways to add them instead of answering "unsupported"; the file's
    `kernels: [linearization]` is one (the shipped spatial pendulum's generated/ has them) and
    build(kernels="all") the other, into a folder of its own beside the default build's."""
    mechanism = mcsgen.load(shipped("slider_crank"))
    plain = mechanism.build()
    assert "linearization" not in plain.kernel_sets and "stiffness" in plain.kernel_sets
    run = plain.start()
    for call in (run.linearize, lambda: run.step_jacobian(1e-3)):
        with pytest.raises(McsError, match=r"without the linearization kernels: .*kernels=\"all\""):
            call()
    assert run.t == 0.0  # refused before stepping
    full = mechanism.build(kernels="all")
    assert full.kernel_sets == kernel_sets.ALL and full.generated_dir != plain.generated_dir
    assert full.start().linearize().dof == 1
    pendulum = mcsgen.load(shipped("spatial_pendulum")).build()
    assert pendulum.generated_dir == ROOT / "generated" / "spatial_pendulum"
    assert "linearization" in pendulum.kernel_sets
    assert pendulum.start().linearize().dof == 2
    with pytest.raises(McsError, match="'nope' is not a kernel set"):
        mechanism.build(kernels="nope")
    with pytest.raises(McsError, match="'bogus' is not a kernel set"):
        mechanism.build(kernels="all,bogus")
    # linearization without the force_tangents and stiffness sets (K_f, D, K_c) cannot linearize
    # either: said so
    bare = mcsgen.load(shipped("pendulum_3r")).build(kernels="predictor,linearization")
    with pytest.raises(McsError, match="without the force_tangents, stiffness kernels"):
        bare.start().linearize()


def test_check_compares_the_linearization_kernels_with_differences():
    """./mcsgen check of a build that carries the linearization set checks M_x and gamma_x
    against differences of M a - B u and A a - gamma (a closed loop's third derivatives); a
    default build has neither kernel nor row."""
    from mcsgen.selfcheck import check_model

    mechanism = mcsgen.load(shipped("slider_crank"))
    full = check_model(
        mechanism.model, samples=2, generated_dir=mechanism.build(kernels="all").generated_dir
    )
    rows = {name: err for name, _, err in full.rows}
    assert full.ok and rows["M_x"] <= 1e-6 and rows["gamma_x"] <= 1e-6
    plain = check_model(mechanism.model, samples=1, generated_dir=mechanism.build().generated_dir)
    assert not {"M_x", "gamma_x"} & {name for name, _, _ in plain.rows}
