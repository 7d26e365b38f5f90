"""The self-check (`./mcsgen check`): the compiled model's derived terms against finite differences.

Every derived kernel is compared with a central difference (Richardson-extrapolated, O(h^4)) of a
lower-order compiled function at random states:

    A      <- d c / dx               c_t   <- d c / dt
    A_dot  <- d/de A(x + e v, t + e) gamma <- -d/de (A v + c_t)(x + e v, t + e)
    K_c    <- d (A^T lam) / dx       K_f   <- -d f / dx          D <- -d f / dv
    M      <- d2 T / dv2             (T the compiled kinetic energy)
    f      <- dT/dx - dV/dx - d/de dT/dv(x + e v, v, t + e) + Q   (Lagrange models only; Q, the
              model's extra generalized forces, is evaluated from the model file by SymPy)

The states need not satisfy the constraints: these identities hold everywhere.
"""

import copy
from dataclasses import dataclass, field

import numpy as np
import sympy as sp

from .compiled import CompiledModel
from .errors import McsError
from .model import Model, complete_initial_state


def derivative(func, h):
    """d/de func(e) at e = 0, central differences with one Richardson step (error O(h^4))."""
    d1 = (func(h) - func(-h)) / (2 * h)
    d2 = (func(h / 2) - func(-h / 2)) / h
    return (4 * d2 - d1) / 3


def second_derivative(func, h):
    """d2/de2 func(e) at 0 (Richardson-extrapolated)."""
    f0 = func(0.0)
    s1 = (func(h) - 2 * f0 + func(-h)) / h**2
    s2 = (func(h / 2) - 2 * f0 + func(-h / 2)) / (h / 2) ** 2
    return (4 * s2 - s1) / 3


def jacobian_fd(func, x, h):
    """(len(func) x len(x)) by columns of central differences."""
    cols = []
    for j in range(len(x)):
        e = np.zeros(len(x))
        e[j] = 1.0
        cols.append(np.atleast_1d(derivative(lambda s: func(x + s * e), h[j])))
    return np.column_stack(cols) if cols else np.zeros((0, 0))


def rel_error(derived, reference):
    derived, reference = np.asarray(derived, float), np.asarray(reference, float)
    if derived.size == 0:
        return 0.0
    scale = max(np.abs(derived).max(), np.abs(reference).max(), 1e-8)
    return float(np.abs(derived - reference).max() / scale)


@dataclass
class CheckReport:
    model: str
    tol: float
    rows: list = field(default_factory=list)  # (quantity, reference, max rel error)
    # the sample states: {"x", "v", "t", "lam"} and the steps {"hx", "hv", "he", "hT"}
    samples: list = field(default_factory=list)

    @property
    def ok(self):
        return all(err <= self.tol for _, _, err in self.rows)

    def table(self):
        width = max(len(q) for q, _, _ in self.rows)
        ref_w = max(len(r) for _, r, _ in self.rows)
        lines = [
            f"{self.model}: derived terms vs. finite differences (tolerance {self.tol:.0e})",
            f"  {'term':<{width}}  {'compared with':<{ref_w}}  max rel error  result",
        ]
        for q, ref, err in self.rows:
            verdict = "ok" if err <= self.tol else "FAIL"
            lines.append(f"  {q:<{width}}  {ref:<{ref_w}}  {err:13.2e}  {verdict}")
        lines.append("all terms agree" if self.ok else "MISMATCH: see the rows marked FAIL")
        return "\n".join(lines)


def check_model(
    model: Model, samples: int = 5, seed: int = 1, tol: float = 1e-6, generated_dir=None
) -> "CheckReport":
    """Every compiled kernel against finite differences of lower-order compiled functions at
    `samples` random states (the model's generated/ C, or generated_dir's)."""
    if samples < 1:
        raise McsError("check: --samples must be at least 1")
    complete_initial_state(model)  # the sample states are spread around (x0, v0)
    cm = CompiledModel(model, generated_dir)
    n, m = model.n, model.m
    rng = np.random.default_rng(seed)
    x0 = np.array(model.x0, float)
    v0 = np.array(model.v0, float)
    xscale = np.maximum(np.abs(x0), max(np.abs(x0).max(), 0.1) * 0.5)
    vscale = max(np.abs(v0).max(), 1.0)
    q_func = _extra_forces(model)
    worst, states = {}, []

    def note(name, ref, err):
        key = (name, ref)
        worst[key] = max(worst.get(key, 0.0), err)

    for _ in range(samples):
        x = x0 + 0.2 * xscale * rng.standard_normal(n)
        v = vscale * rng.standard_normal(n)
        t = float(rng.uniform(0.0, 1.0))
        lam = rng.standard_normal(m)
        hx = 1e-4 * np.maximum(np.abs(x), xscale)
        hv = 1e-4 * max(np.abs(v).max(), 1.0)
        he = 1e-4 / max(1.0, np.abs(v).max() / xscale.min())  # along (v, 1)
        # T is at most quadratic in v (the generator enforces it), so differences in v are exact
        # up to round-off: a large step keeps round-off small
        hT = 1e-2 * max(np.abs(v).max(), 1.0)
        states.append(dict(x=x, v=v, t=t, lam=lam, hx=hx, hv=hv, he=he, hT=hT))
        if m:
            note("A", "d c/dx", rel_error(cm.A(x, t), jacobian_fd(lambda y: cm.c(y, t), x, hx)))
            note(
                "c_t", "d c/dt", rel_error(cm.c_t(x, t), derivative(lambda s: cm.c(x, t + s), 1e-4))
            )
            note(
                "A_dot",
                "d/dt A along (v, 1)",
                rel_error(cm.A_dot(x, v, t), derivative(lambda s: cm.A(x + s * v, t + s), he)),
            )
            note(
                "gamma",
                "-d/dt (A v + c_t)",
                rel_error(
                    cm.gamma(x, v, t),
                    -derivative(
                        lambda s: cm.A(x + s * v, t + s) @ v + cm.c_t(x + s * v, t + s), he
                    ),
                ),
            )
            note(
                "K_c",
                "d (A^T lam)/dx",
                rel_error(cm.K_c(x, lam, t), jacobian_fd(lambda y: cm.A(y, t).T @ lam, x, hx)),
            )
        for k, group in enumerate(model.row_groups):  # switchable rows: joint locks, switch rows
            if group.held_coordinates(model.x) is not None:
                continue  # a coordinate lock: the runtime forms its unit rows, nothing generated
            name = f"group {group.name}"
            G = cm.group(k, "G", x)
            g_fd = jacobian_fd(lambda y: cm.group(k, "g", y), x, hx)
            note(f"{name}: G", "d g/dx", rel_error(G, g_fd))
            G_dot = derivative(lambda s: cm.group(k, "G", x + s * v), he)
            note(f"{name}: G_dot", "d/dt G along v", rel_error(cm.group(k, "G_dot", x, v), G_dot))
            gamma = -derivative(lambda s: cm.group(k, "G", x + s * v) @ v, he)
            note(f"{name}: gamma", "-d/dt (G v)", rel_error(cm.group(k, "gamma", x, v), gamma))
        njc = sum(j.coordinate is not None for j in model.joints)
        if njc:  # the joints' rates against the derivative of their coordinates along v
            rates = cm.xwt("joint_coords", x, v, t, 2 * njc)[njc:]
            moved = derivative(lambda s: cm.xwt("joint_coords", x + s * v, v, t, 2 * njc)[:njc], he)
            note("joint rates", "d/dt joint coordinates along v", rel_error(rates, moved))
            held = _held_joint_rates(model)
            if held:  # the held initial conditions' rows H: H v is the joint's rate
                H = cm.xt("held", x, t, len(model.held) * (n + 1), (len(model.held), n + 1))
                rows, joints = zip(*held)
                note(
                    "held joint rates",
                    "joint rates",
                    rel_error(H[list(rows), :n] @ v, rates[list(joints)]),
                )
        note(
            "K_f",
            "-d f/dx",
            rel_error(cm.K_f(x, v, t), -jacobian_fd(lambda y: cm.f(y, v, t), x, hx)),
        )
        note(
            "D",
            "-d f/dv",
            rel_error(cm.D(x, v, t), -jacobian_fd(lambda w: cm.f(x, w, t), v, np.full(n, hv))),
        )
        if model.inputs:
            _check_inputs(model, cm, x, v, t, rng, note)
        if cm.carries("M_x"):  # the linearization set (model/kernel_sets.py)
            _check_linear_tangents(model, cm, x, v, t, rng, xscale, note)
        if model.outputs and cm.carries("outputs_x"):
            _check_output_tangent(model, cm, x, v, t, rng, xscale, vscale, note)
        # M against the compiled kinetic energy: M_ij = d2T/dv_i dv_j (polarization)
        M_fd = np.zeros((n, n))
        for i in range(n):
            for j in range(n):
                ei, ej = np.eye(n)[i], np.eye(n)[j]
                tij = second_derivative(lambda s: cm.kinetic(x, v + s * (ei + ej), t), hT)
                tii = second_derivative(lambda s: cm.kinetic(x, v + s * ei, t), hT)
                tjj = second_derivative(lambda s: cm.kinetic(x, v + s * ej, t), hT)
                M_fd[i, j] = (tij - tii - tjj) / 2 if i != j else tii
        note("M", "d2 T/dv2", rel_error(cm.M(x, t), M_fd))
        if model.kinetic is not None:
            # Lagrange: f = dT/dx - dV/dx - d/dt(dT/dv) + Q  (d/dt taken along (v, 1) at fixed v)
            dTdx = jacobian_fd(
                lambda y: np.array([cm.kinetic(y, v, t) - cm.potential(y, t)]), x, hx
            )[0]

            def momentum(s):
                return jacobian_fd(
                    lambda w: np.array([cm.kinetic(x + s * v, w, t + s)]), v, np.full(n, hT)
                )[0]

            f_fd = dTdx - derivative(momentum, he) + q_func(x, v, t)
            note("f", "Lagrange from T, V", rel_error(cm.f(x, v, t), f_fd))
    report = CheckReport(model.name, tol, samples=states)
    for (name, ref), err in worst.items():
        report.rows.append((name, ref, err))
    return report


def _check_output_tangent(model, cm, x, v, t, rng, xscale, vscale, note):
    """outputs_x (derive/output_terms.py) against the derivative of the outputs along a random
    direction (dx, dv, du), at random inputs u."""
    n, nu, ny = model.n, len(model.inputs), len(model.outputs)
    u = rng.standard_normal(nu)
    dx, dv = xscale * rng.standard_normal(n), vscale * rng.standard_normal(n)
    du = rng.standard_normal(nu)
    tangent = cm.xwt("outputs_x", x, np.concatenate([v, u, dx, dv, du]), t, ny)

    def outputs(s):
        return cm.xwt("outputs", x + s * dx, np.concatenate([v + s * dv, u + s * du]), t, ny)

    note(
        "outputs_x",
        "d h(x, v, u)/ds along (dx, dv, du)",
        rel_error(tangent, derivative(outputs, 1e-4)),
    )


def _check_linear_tangents(model, cm, x, v, t, rng, xscale, note):
    """M_x and gamma_x (derive/linear_terms.py) against the derivatives of M a - B u and
    A a - gamma along a random direction dx, at random accelerations a and inputs u."""
    n, m, nu = model.n, model.m, len(model.inputs)
    a, u = rng.standard_normal(n), rng.standard_normal(nu)
    dx = xscale * rng.standard_normal(n)

    def forces(y):
        out = cm.M(y, t) @ a
        return out - cm.f_u(y, u, t) if nu else out

    M_x = cm.xwt("M_x", x, np.concatenate([a, u, dx]), t, n)
    note(
        "M_x",
        "d(M a - B u)/dx along dx",
        rel_error(M_x, derivative(lambda s: forces(x + s * dx), 1e-4)),
    )
    if m:
        gamma_x = cm.xwt("gamma_x", x, np.concatenate([v, a, dx]), t, m)

        def rows(s):
            y = x + s * dx
            return cm.A(y, t) @ a - cm.gamma(y, v, t)

        note("gamma_x", "d(A a - gamma)/dx along dx", rel_error(gamma_x, derivative(rows, 1e-4)))


def _held_joint_rates(model):
    """[(row of model.held, index among the joints with a coordinate)] of the held joint rates."""
    from .model.mechanism import joint_rate_label

    coordinates = [j.name for j in model.joints if j.coordinate is not None]
    index = {joint_rate_label(name): k for k, name in enumerate(coordinates)}
    return [(i, index[what]) for i, (what, _, _) in enumerate(model.held) if what in index]


def _check_inputs(model, cm, x, v, t, rng, note):
    """The input map f_u = B(x, t) u: against the file's generalized forces at u less at u = 0,
    evaluated by SymPy; and a joint input's power v . B e_k against the rate of its joint (the
    virtual work of a torque or force on a joint's coordinate: independent of how either
    formulation writes it)."""
    nu = len(model.inputs)
    u = rng.standard_normal(nu)
    given = _forces_of_inputs(model)
    if given is not None:
        reference = given(x, v, t, u)
        note("f_u", "the file's forces at u less at 0", rel_error(cm.f_u(x, u, t), reference))
    coordinates = [j.name for j in model.joints if j.coordinate is not None]
    njc = len(coordinates)
    if any(inp.joint is not None for inp in model.inputs):
        # the two agree where the joints hold (a revolute joint's relative motion is then a turn
        # about its axis): at the assembled initial state, v in the null space of A there
        x = np.array(model.x0, float)
        if model.m:
            _, sv, vt = np.linalg.svd(cm.A(x, t))
            null = vt[int(np.sum(sv > 1e-10 * max(sv.max(), 1.0))) :]
            v = null.T @ (null @ v)
    for k, inp in enumerate(model.inputs):
        if inp.joint is None:
            continue
        rate = cm.xwt("joint_coords", x, v, t, 2 * njc)[njc + coordinates.index(inp.joint)]
        power = v @ cm.f_u(x, np.eye(nu)[k], t)
        note("f_u", "a joint input's power: its joint's rate", rel_error(np.array([power]), [rate]))


def _forces_of_inputs(model):
    """(x, v, t, u) -> the file's generalized forces at u less at u = 0, evaluated by SymPy, or
    None for a model whose forces are not given as a whole (mass-matrix models are)."""
    if model.forces is None:
        return None
    symbols = [i.symbol for i in model.inputs]
    zero = {s: 0 for s in symbols}
    forces = [e - e.xreplace(zero) for e in model.forces]
    if model.intermediates is not None:  # joint coordinates: J^T Q through the bodies' poses
        inter, xs, vs, ts = model.intermediates, model.x, model.v, model.time
        params = _numeric_params(model)

        def evaluate(x, v, t, u):
            at = dict(params)
            at.update(zip(xs, x))
            at.update(zip(vs, v))
            at.update(zip(symbols, u))
            at[ts] = t
            return np.array(inter.evaluate(forces, at), dtype=float)

        return evaluate
    args = model.x + model.v + [model.time] + model.p + symbols
    values = [p.value for p in model.parameters]
    geometry = dict(model.geometry)
    fn = sp.lambdify(args, [e.xreplace(geometry) for e in forces], modules="numpy")
    return lambda x, v, t, u: np.array(fn(*x, *v, t, *values, *u), dtype=float)


def _numeric_params(model):
    params = {p.symbol: p.value for p in model.parameters}
    params.update((g, float(e.xreplace(model.parameter_values()))) for g, e in model.geometry)
    return params


def _extra_forces(model):
    """Q(x, v, t) of a Lagrange model at u = 0, evaluated by SymPy (it is given, not derived)."""
    n = model.n
    if model.kinetic is None or model.forces is None:
        return lambda x, v, t: np.zeros(n)
    if model.inputs:
        model = copy.copy(model)
        model.forces = model.forces.xreplace({i.symbol: 0 for i in model.inputs})
    if model.intermediates is not None:  # joint coordinates: J^T Q through the bodies' poses
        inter, x, v, t = model.intermediates, model.x, model.v, model.time
        params = {p.symbol: p.value for p in model.parameters}
        params.update((g, float(e.xreplace(model.parameter_values()))) for g, e in model.geometry)

        def forces(xs, vs, ts):
            at = dict(params)
            at.update(zip(x, xs))
            at.update(zip(v, vs))
            at[t] = ts
            return np.array(inter.evaluate(list(model.forces), at), dtype=float)

        return forces
    args = model.x + model.v + [model.time] + model.p
    values = [p.value for p in model.parameters]
    fn = sp.lambdify(args, list(model.forces), modules="numpy")
    return lambda x, v, t: np.array(fn(*x, *v, t, *values), dtype=float)
