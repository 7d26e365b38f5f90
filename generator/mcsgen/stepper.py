"""A run stepped from Python (Solver.start): a controller or an estimator sets the inputs and
advances the plant tick by tick against the same compiled C a firmware runs, and asks for
forward and inverse dynamics at any state (docs/reference/inputs-outputs.md).

The solver's library carries it (runtime/app/mcs_simulate_stepper.c): options and parameters
are the command line's, parsed by the same code (the same names and one-line errors). One stepped
run at a time per solver: starting another ends the first (its workspace is static, as on
firmware)."""

import ctypes
import math
from dataclasses import dataclass
from typing import Dict, Sequence

import numpy as np

from .enums import method_is, methods_that_are
from .errors import McsError

DP = ctypes.POINTER(ctypes.c_double)


def _array(values, size, what):
    """values as a contiguous (size) array of finite doubles, or an McsError naming `what`."""
    try:
        a = np.ascontiguousarray(np.asarray(values, dtype=float).reshape(-1))
    except (TypeError, ValueError):
        raise McsError(f"{what}: expected {size} real numbers, got {values!r}") from None
    if a.shape != (size,):
        raise McsError(f"{what}: expected {size} values, got {a.size}")
    if not np.all(np.isfinite(a)):
        bad = int(np.flatnonzero(~np.isfinite(a))[0])
        raise McsError(f"{what}: entry {bad} is {a[bad]}: expected finite numbers")
    return a


def _time(value, what) -> float:
    """A time or a step as a finite double, or an McsError naming `what`."""
    try:
        number = float(value)
    except (TypeError, ValueError):
        number = math.nan
    if isinstance(value, bool) or not math.isfinite(number):
        raise McsError(f"{what}: expected a finite number, got {value!r}")
    return number


def _ptr(a):
    return a.ctypes.data_as(DP)


@dataclass
class InverseDynamics:
    """What Stepper.inverse found (mcs_inverse_report)."""

    u: np.ndarray  # (nu) the inputs
    residual: float  # |x''(u) - xdd|: what they cannot give
    normal: float  # of it, the part no force can give (the request breaks A x'' = gamma)
    rank: int  # motions the inputs act on
    dof: int  # degrees of freedom there


@dataclass
class Linearization:
    """What Stepper.linearize found: dz/dt = A dz + B du about the current state, in the
    minimal coordinates z = (q, qd) of the chart centred there (mcs_sim_linearize)."""

    A: np.ndarray  # (2f x 2f) [0 I; dqdd/dq dqdd/dqd]
    B: np.ndarray  # (2f x nu) [0; dqdd/du]
    T: np.ndarray  # (n x f) the chart's basis: dx = T dq, dv = T dqd + (constraint part)
    t: float  # the state it was taken at
    x: np.ndarray
    v: np.ndarray
    # dy = C dz + D du of the file's outputs (mcs_sim_linearize_outputs): (ny x 2f), (ny x nu)
    C: np.ndarray = None
    D: np.ndarray = None
    output_names: tuple = ()

    @property
    def dof(self) -> int:
        return self.T.shape[1]


@dataclass
class StepJacobian:
    """What Stepper.step_jacobian found: dz' = J dz + G du for the step just taken, from the
    minimal coordinates z = (q, qd) of the chart centred at its start (basis T_from) to those of
    the chart centred at its end (T_to) (mcs_sim_step_jacobian)."""

    J: np.ndarray  # (2g x 2f)
    G: np.ndarray  # (2g x nu)
    T_from: np.ndarray  # (n x f)
    T_to: np.ndarray  # (n x g)


class Stepper:
    """A started run (Solver.start). t, x (n), v (n): its state; step(u, dt) and advance(t)
    move it; forward(...) and inverse(...) are the dynamics at any state (the current one by
    default)."""

    def __init__(self, solver, argv: Sequence[str]):
        """solver: the api.Solver whose library runs it; argv: start_argv's."""
        self.solver = solver
        model = solver.mechanism.model
        self.n, self.m, self.nu = model.n, model.m, len(model.inputs)
        self.output_names = tuple(y.name for y in model.outputs)
        self.ny = len(self.output_names)
        self.inputs = [u.name for u in model.inputs]
        # the run's method: start()'s, else the file's
        given = [argv[k + 1] for k, a in enumerate(argv[:-1]) if a == "--method"]
        self.method = given[-1] if given else model.simulation["method"]
        lib = solver._lib
        self._start = lib.mcs_stepper_start
        self._start.restype = ctypes.c_int
        self._start.argtypes = [
            ctypes.c_int,
            ctypes.POINTER(ctypes.c_char_p),
            DP,
            ctypes.c_char_p,
            ctypes.c_size_t,
        ]
        self._set_inputs = lib.mcs_stepper_set_inputs
        self._advance = lib.mcs_stepper_advance
        self._advance.argtypes = [ctypes.c_double, DP]
        self._forward = lib.mcs_stepper_forward
        self._forward.argtypes = [ctypes.c_double, DP, DP, DP, DP, DP]
        self._inverse = lib.mcs_stepper_inverse
        self._inverse.argtypes = [ctypes.c_double, DP, DP, DP, DP, DP]
        self._set_state = lib.mcs_stepper_set_state
        self._set_state.argtypes = [ctypes.c_double, DP, DP, DP]
        self._linearize = lib.mcs_stepper_linearize
        self._linearize.argtypes = [DP, DP, DP, ctypes.POINTER(ctypes.c_int)]
        self._chart_rhs = lib.mcs_stepper_chart_rhs
        self._chart_rhs.argtypes = [DP, DP]
        self._chart_state = lib.mcs_stepper_chart_state
        self._chart_state.argtypes = [DP, DP, DP]
        self._basis = lib.mcs_stepper_basis
        self._basis.argtypes = [DP, ctypes.POINTER(ctypes.c_int)]
        self._outputs = lib.mcs_stepper_outputs
        self._outputs.argtypes = [DP]
        self._linearize_outputs = lib.mcs_stepper_linearize_outputs
        self._linearize_outputs.argtypes = [DP, DP, ctypes.POINTER(ctypes.c_int)]
        self._step_jacobian = lib.mcs_stepper_step_jacobian
        self._step_jacobian.argtypes = [ctypes.c_double, DP, DP, ctypes.POINTER(ctypes.c_int), DP]
        self._active = lib.mcs_stepper_active
        self._active.argtypes = [ctypes.POINTER(ctypes.c_int)]
        self.stop_names = tuple(k.name for k in model.stops)
        self.friction_names = tuple(k.name for k in model.friction)
        self._status = lib.mcs_status_str
        self._status.restype = ctypes.c_char_p
        self._status.argtypes = [ctypes.c_int]
        self._txv = np.zeros(1 + 2 * self.n)
        args = (ctypes.c_char_p * len(argv))(*(a.encode() for a in argv))
        error = ctypes.create_string_buffer(1024)
        status = self._start(len(argv), args, _ptr(self._txv), error, len(error))
        if status != 0:
            message = error.value.decode().removeprefix("simulate: ")
            raise McsError(f"start {solver.mechanism.name}: {message}")
        self.u = np.zeros(self.nu)
        solver._stepped_run = self  # the library's one stepped run is this one now

    # --- the state
    @property
    def t(self) -> float:
        return float(self._txv[0])

    @property
    def x(self) -> np.ndarray:
        return self._txv[1 : 1 + self.n].copy()

    @property
    def v(self) -> np.ndarray:
        return self._txv[1 + self.n :].copy()

    def _live(self, what):
        """Refuses a call on a run that a later start() of the same solver ended (the library
        holds one stepped run: the call would move the other)."""
        if getattr(self.solver, "_stepped_run", None) is not self:
            raise McsError(f"{what}: this run was ended by a later start() of the same solver")

    def _needs_linearization(self, what):
        """The linearizations read the linearization kernel set, which a host build carries
        only when asked (model/kernel_sets.py), and the force_tangents and stiffness sets (K_f, D,
        K_c), with the
        predictor's A_dot when there are rows: say how to get them, not "unsupported"."""
        need = ["linearization", "force_tangents", "stiffness"] + (["predictor"] if self.m else [])
        missing = [k for k in need if k not in self.solver.kernel_sets]
        if missing:
            name = self.solver.mechanism.name
            raise McsError(
                f"{what}: {name}'s solver was built without the {', '.join(missing)} kernels: "
                'build it with mcsgen.load(...).build(kernels="all"), or add `kernels: '
                "[linearization]` to its mechanism file"
            )

    def _check(self, status, what):
        if status != 0:
            raise McsError(f"{what}: {self._status(status).decode()}")

    def active(self) -> Dict[str, int]:
        """The active set of the file's `stops:` and `friction:` now (what a controller sees of
        stick and slip): "stop.<name>" -1 held at its lower limit, 1 at its upper, 0 free;
        "stuck.<name>" 1 while the coordinate sticks, 0 while it slides or rests on a stop."""
        self._live("active")
        count = len(self.stop_names) + len(self.friction_names)
        out = (ctypes.c_int * max(count, 1))()
        self._check(self._active(out), "active")
        sides = {0: 0, 1: -1, 2: 1}  # MCS_STOP_LOWER, MCS_STOP_UPPER
        held = {f"stop.{n}": sides[out[k]] for k, n in enumerate(self.stop_names)}
        stuck = {
            f"stuck.{n}": int(out[len(self.stop_names) + k])
            for k, n in enumerate(self.friction_names)
        }
        return {**held, **stuck}

    # --- moving it
    def set_inputs(self, u) -> None:
        """The inputs from now on (zero-order hold: mcs_sim_set_inputs)."""
        self._live("set_inputs")
        if self.nu == 0:
            raise McsError(f"set_inputs: {self.solver.mechanism.name} has no inputs")
        u = _array(u, self.nu, "set_inputs")
        self._check(self._set_inputs(_ptr(u)), "set_inputs")
        self.u = u.copy()

    def advance(self, t: float) -> "Stepper":
        """Steps to time t, not before the run's (mcs_sim_advance; at the run's time nothing
        moves)."""
        self._live("advance")
        t = _time(t, "advance: t")
        if t < self.t:
            raise McsError(f"advance: t = {t:g} is before the run's time {self.t:g}")
        self._check(self._advance(t, _ptr(self._txv)), f"advance to t = {t:g}")
        return self

    def set_state(self, x, v=None, t=None) -> "Stepper":
        """Moves the run to (t, x, v) (default: v = 0, the current t), assembled onto the
        constraints (mcs_sim_set_state); the inputs are kept. Refused, the run stays where it
        was."""
        self._live("set_state")
        t = self.t if t is None else _time(t, "set_state: t")
        x = _array(x, self.n, "set_state: x")
        v = np.zeros(self.n) if v is None else _array(v, self.n, "set_state: v")
        txv = self._txv.copy()
        self._check(self._set_state(t, _ptr(x), _ptr(v), _ptr(txv)), "set_state")
        self._txv[:] = txv
        return self

    def step(self, u=None, dt: float = 1e-3) -> "Stepper":
        """One control tick: the inputs u (when given) held for dt (> 0)."""
        dt = _time(dt, "step: dt")
        if not dt > 0:
            raise McsError(f"step: dt must be > 0, got {dt:g}")
        if u is not None:
            self.set_inputs(u)
        return self.advance(self.t + dt)

    # --- the dynamics at any state
    def _at(self, t, x, v):
        t = self.t if t is None else float(t)
        x = self.x if x is None else _array(x, self.n, "x")
        v = self.v if v is None else _array(v, self.n, "v")
        return t, x, v

    def forward(self, u=None, x=None, v=None, t=None):
        """(x'' (n), lambda (m)) at (t, x, v) under u (default: the run's state and inputs)."""
        self._live("forward dynamics")
        t, x, v = self._at(t, x, v)
        u = None if u is None else _array(u, self.nu, "u")
        xdd, lam = np.zeros(self.n), np.zeros(self.m + self.n + 1)
        st = self._forward(
            t, _ptr(x), _ptr(v), None if u is None else _ptr(u), _ptr(xdd), _ptr(lam)
        )
        self._check(st, "forward dynamics")
        return xdd, lam[: self.m]

    def inverse(self, xdd, x=None, v=None, t=None) -> InverseDynamics:
        """The inputs that give the accelerations xdd (n) at (t, x, v) (default: the run's
        state): least squares of minimum norm (mcs_sim_inverse_dynamics)."""
        self._live("inverse dynamics")
        t, x, v = self._at(t, x, v)
        xdd = _array(xdd, self.n, "xdd")
        u, report = np.zeros(max(self.nu, 1)), np.zeros(4)
        st = self._inverse(t, _ptr(x), _ptr(v), _ptr(xdd), _ptr(u), _ptr(report))
        self._check(st, "inverse dynamics")
        return InverseDynamics(
            u[: self.nu], float(report[0]), float(report[1]), int(report[2]), int(report[3])
        )

    # --- linearization
    def linearize(self) -> Linearization:
        """The exact linearization about the current state (mcs_sim_linearize): from the
        generated derivative kernels, through the constraint forces, at any state."""
        self._live("linearize")
        self._needs_linearization("linearize")
        n, nu = self.n, self.nu
        A, B = np.zeros(4 * n * n), np.zeros(max(2 * n * nu, 1))
        T, dof = np.zeros(max(n * n, 1)), ctypes.c_int(0)
        self._check(self._linearize(_ptr(A), _ptr(B), _ptr(T), ctypes.byref(dof)), "linearize")
        f = dof.value
        ny = self.ny
        C, D = np.zeros(max(2 * n * ny, 1)), np.zeros(max(ny * nu, 1))
        st = self._linearize_outputs(_ptr(C), _ptr(D), ctypes.byref(dof))
        self._check(st, "linearize (the outputs' C, D)")
        return Linearization(
            A[: 4 * f * f].reshape(2 * f, 2 * f, order="F").copy(),
            B[: 2 * f * nu].reshape(2 * f, nu, order="F").copy(),
            T[: n * f].reshape(n, f, order="F").copy(),
            self.t,
            self.x,
            self.v,
            C[: ny * 2 * f].reshape(ny, 2 * f, order="F").copy(),
            D[: ny * nu].reshape(ny, nu, order="F").copy(),
            self.output_names,
        )

    def outputs(self) -> Dict[str, float]:
        """The file's outputs at the current state, the inputs held (mcs_sim_outputs): name ->
        value, in the file's order (a point's components as <name>.x, ...)."""
        self._live("outputs")
        y = np.zeros(max(self.ny, 1))
        self._check(self._outputs(_ptr(y)), "outputs")
        return {name: float(y[k]) for k, name in enumerate(self.output_names)}

    def basis(self) -> np.ndarray:
        """T (n x f): the continued tangent basis of the current state (mcs_sim_basis)."""
        self._live("basis")
        T, dof = np.zeros(max(self.n * self.n, 1)), ctypes.c_int(0)
        self._check(self._basis(_ptr(T), ctypes.byref(dof)), "basis")
        return T[: self.n * dof.value].reshape(self.n, dof.value, order="F").copy()

    def chart_state(self, y):
        """(x (n), v (n)) the chart centred at the current state puts at y = (q, qd) (2f)
        (mcs_sim_chart_state): on the constraints, with T^T v = qd."""
        self._live("chart_state")
        y = np.ascontiguousarray(np.asarray(y, dtype=float).reshape(-1))
        x, v = np.zeros(self.n), np.zeros(self.n)
        self._check(self._chart_state(_ptr(y), _ptr(x), _ptr(v)), "chart_state")
        return x, v

    def step_jacobian(self, dt: float = None, t: float = None) -> StepJacobian:
        """One step towards t (default: t + dt; RK4 runs only) and the exact Jacobian of the
        step taken (mcs_sim_step_jacobian): the discrete-time model of a controller running at
        the step's rate."""
        self._live("step_jacobian")
        self._needs_linearization("step_jacobian")
        if not method_is(self.method, "step_jacobian"):
            steppable = ", ".join(methods_that_are("step_jacobian"))
            raise McsError(
                f"step_jacobian: this run's method is {self.method}; the step Jacobian is that "
                f"of a fixed step of {steppable}: start the run with method='{steppable}'"
            )
        if t is not None:
            target = _time(t, "step_jacobian: t")
        elif dt is not None:
            target = self.t + _time(dt, "step_jacobian: dt")
        else:
            raise McsError("step_jacobian: give dt or t")
        if not target > self.t:
            raise McsError(f"step_jacobian: t = {target:g} is not after the run's {self.t:g}")
        T_from = self.basis()
        n, nu = self.n, self.nu
        J, G = np.zeros(4 * n * n), np.zeros(max(2 * n * nu, 1))
        dofs = (ctypes.c_int * 2)()
        st = self._step_jacobian(target, _ptr(J), _ptr(G), dofs, _ptr(self._txv))
        self._check(st, f"step_jacobian to t = {target:g}")
        f, g = dofs[0], dofs[1]
        return StepJacobian(
            J[: 4 * f * g].reshape(2 * g, 2 * f, order="F").copy(),
            G[: 2 * g * nu].reshape(2 * g, nu, order="F").copy(),
            T_from,
            self.basis(),
        )

    def chart_rhs(self, y) -> np.ndarray:
        """(qd, qdd) at y = (q, qd) (2f) on the chart centred at the current state, the inputs
        held: the right-hand side the integrators step and linearize() differentiates
        (mcs_sim_chart_rhs)."""
        self._live("chart_rhs")
        y = np.ascontiguousarray(np.asarray(y, dtype=float).reshape(-1))
        if y.size % 2:
            raise McsError(f"chart_rhs: y has {y.size} values, not 2f")
        ydot = np.zeros(max(y.size, 1))
        self._check(self._chart_rhs(_ptr(y), _ptr(ydot)), "chart_rhs")
        return ydot[: y.size]


def start_argv(options: dict) -> list:
    """The stepped run's argv from Solver.start's options (the simulate options' names)."""
    from .options import option_arguments

    return ["start"] + option_arguments(options)


__all__ = ["Stepper", "InverseDynamics", "Linearization", "StepJacobian", "start_argv"]
