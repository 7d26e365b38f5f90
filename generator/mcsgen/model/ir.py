"""The model IR: what stage 1 hands to the rest of the pipeline (a validated `Model`, its
coordinates, parameters and constraint rows), written by loader.py and mechanism.py, read by
derive/, emit/, the audit and the API. Expressions are SymPy's, exact (model/exact.py); shapes
in the comments: n coordinates, m constraint rows."""

from dataclasses import dataclass, field
from pathlib import Path

import sympy as sp

from .energy import EnergyBalance
from .exact import to_double


@dataclass
class Coordinate:
    name: str
    unit: str
    symbol: sp.Symbol
    velocity: sp.Symbol


@dataclass
class Parameter:
    name: str
    value: float  # the default, as the double the generated C initializes it to
    unit: str
    description: str
    symbol: sp.Symbol
    exact: sp.Rational = None  # the default as written (decimal digits, exact)


@dataclass
class Constraint:
    name: str
    expr: sp.Expr


@dataclass
class Model:
    path: Path
    name: str
    description: str
    source: str
    coordinates: list
    parameters: list
    constraints: list
    time: sp.Symbol
    # Exactly one of (mass_matrix, forces given) or kinetic is the source of the dynamics.
    mass_matrix: sp.Matrix = None  # (n x n) or None when derived from `kinetic`
    forces: sp.Matrix = None  # (n x 1) applied generalized forces (may be None)
    kinetic: sp.Expr = None
    potential: sp.Expr = None
    x0: list = field(default_factory=list)
    v0: list = field(default_factory=list)
    simulation: dict = field(default_factory=dict)
    # `firmware:` the settings of a firmware build (the simulation's, method rk4 and continuation
    # none unless given) and the kernel sets it adds to what they need (model/kernel_sets.py)
    firmware: dict = field(default_factory=dict)
    # `kernels:` the kernel sets a host build carries besides the default ones
    # (model/kernel_sets.DEFAULT): [linearization] for a model a controller linearizes
    kernels: frozenset = frozenset()
    # `outputs:` the named sensor quantities y = h(x, v, u, t) (model/outputs.py)
    outputs: list = field(default_factory=list)
    file_hash: str = ""
    # Mechanism (bodies) models: per-body Lagrange blocks [(T, V)], derived locally, and what
    # was done to the initial velocities.
    blocks: list = None
    initial_report: dict = None
    x_assembled: list = None  # x0 assembled onto c = 0 (floats, for checks; consistency.py)
    # whether the initial assembly held joints at their `start:` values (a mechanism with loops:
    # initial_x is then the assembled pose, model/initial.py)
    starts_held: bool = False
    jacobian_assembled: object = None  # A there ((m x n) floats, for checks; consistency.py)
    # parameters the file's `freeze:` list makes constants at generation: name -> the field
    # that says so. `--param` refuses them.
    frozen_parameters: dict = field(default_factory=dict)
    # the rules on bodies' masses and inertias whose expressions hold parameters
    # (parameter_rules.py): a value given at run time keeps them as the file's default does
    parameter_checks: list = field(default_factory=list)
    # The initial state as expressions of the parameters (the run-time initial state, SPEC §4):
    # initial_x (n) the file's positions, initial_v (n) its velocities (0 where the held
    # conditions decide them), held [(what, row (n) of expressions of x and the parameters,
    # value)]: H v = h held, the rest of v minimum-norm.
    # [(Symbol, expression of the parameters)]: the geometric quantities of a bodies model that
    # depend on parameters, as symbols in the rows (mechanism.py, MechanismBuilder.geo); the
    # emitter writes their expressions into the C
    geometry: list = field(default_factory=list)
    initial_x: list = None
    initial_v: list = None
    held: list = field(default_factory=list)
    kind: str = None  # "planar" | "spatial" for mechanisms
    drawing: dict = None  # body -> joint points in body coordinates (for figures)
    drawing_exprs: dict = None  # the same as expressions of the parameters (drawing_at)
    joints: list = field(default_factory=list)  # [joints.Joint] of a bodies-and-joints model
    switches: list = field(default_factory=list)  # [switches.Switch]
    # [switches.RowGroup]: the joints' locks (joint order), then the switches' explicit rows
    row_groups: list = field(default_factory=list)
    events: list = field(default_factory=list)  # [switches.TimedEvent], in time order
    stops: list = field(default_factory=list)  # [stops.Stop]: end stops (held by locks)
    friction: list = field(default_factory=list)  # [stops.Friction]: Coulomb friction
    # (exact x0, held velocity conditions) until initial.complete_initial_state solves v0
    pending_initial: tuple = None
    # what physics says of T + V (energy.py), decided from the structure at loading
    energy: EnergyBalance = None
    # what the file asked to accept against a default check (e.g. `inertia_check: warn`), one
    # line each naming the file and the field; the command line prints them
    warnings: list = field(default_factory=list)
    # `coordinates:` of a bodies-and-joints model: "body" (each body's pose, paper 003) or
    # "joint" (the tree's joint coordinates, joint_coordinates.py); topology: what the joint
    # formulation keeps of the body build; intermediates: the bodies' poses and velocities as
    # named expressions of the joint coordinates (model/intermediates.py), None in body
    # coordinates
    formulation: str = "body"
    # the bodies ([bodies.Body], file order) and the joints' geometry ({name:
    # joint_coordinates.JointGeometry}) of a bodies-and-joints model, in both formulations
    bodies: list = None
    joint_geometry: dict = None
    topology: object = None
    intermediates: object = None
    # `inputs:` [inputs.Input]: what a controller sets; model.forces is linear in their symbols
    # (inputs.py), the derivation splits them off into the input map f_u = B(x, t) u
    inputs: list = field(default_factory=list)

    def drawing_at(self, params: dict) -> dict:
        """`drawing` for other parameter values ({name: float}; the rest at their defaults):
        the joint points of the geometry a run with those values simulated."""
        if not params:
            return self.drawing
        values = {
            p.symbol: sp.Rational(params[p.name]) if p.name in params else p.exact
            for p in self.parameters
        }
        return {
            body: [[to_double(sp.sympify(c).xreplace(values)) for c in point] for point in points]
            for body, points in self.drawing_exprs.items()
        }

    def parameter_values(self) -> dict:
        """{Symbol: exact value}: the parameters at their defaults, and the geometry symbols at
        those (what the model's expressions are evaluated with at generation)."""
        values = {p.symbol: p.exact for p in self.parameters}
        values.update((g, e.xreplace(values)) for g, e in self.geometry)
        return values

    @property
    def n(self):
        return len(self.coordinates)

    @property
    def m(self):
        return len(self.constraints)

    @property
    def x(self):
        return [c.symbol for c in self.coordinates]

    @property
    def v(self):
        return [c.velocity for c in self.coordinates]

    @property
    def p(self):
        return [q.symbol for q in self.parameters]
