"""Mechanism files (YAML) -> a validated `Model`.

Every problem is reported as one `ModelError(file, field, problem)`. The file format is documented
in the manual (docs/reference/model-file.md); `load_model` is the only entry point.
"""

import hashlib
import os
from pathlib import Path
from typing import Union

import sympy as sp
import yaml

from ..enums import CONTINUATION, METHOD
from ..errors import ModelError
from .exact import NotANumber, from_literal, to_double
from .energy import coordinate_balance, mechanism_balance
from .ir import Constraint, Coordinate, Model, Parameter
from .initial import complete_initial_state
from .inputs import check_linear, read_inputs
from .outputs import read_outputs
from .joint_coordinates import Topology, plain_tree, to_joint_coordinates
from .mechanism import MechanismBuilder
from .reader import Reader, key_text
from .kernel_sets import SETS as KERNEL_SETS
from .kernel_sets import expand as kernel_sets_expand
from .stops import friction_balance, read_friction, read_stops
from .switches import read_events, read_switches, row_groups_of_joints

VELOCITY_SUFFIX = "_dot"

TOP_KEYS = {
    "name",
    "description",
    "source",
    "coordinates",
    "parameters",
    "freeze",
    "definitions",
    "constraints",
    "dynamics",
    "initial",
    "simulation",
    "firmware",
    "kernels",
    "switches",
    "events",
    "stops",
    "friction",
    "inputs",
    "outputs",
}
BODY_TOP_KEYS = {
    "name",
    "description",
    "source",
    "parameters",
    "freeze",
    "gravity",
    "bodies",
    "joints",
    "drivers",
    "forces",
    "simulation",
    "firmware",
    "kernels",
    "switches",
    "events",
    "stops",
    "friction",
    "coordinates",
    "inputs",
    "outputs",
}
DYNAMICS_KEYS = {"mass_matrix", "forces", "kinetic", "potential"}
# DOPRI5's tolerances: at rtol 1e-10 the energy of the shipped conservative models drifts by
# about 1e-9 relative over their runs (the level the papers' energy plots show as flat), with at
# most 2 % of the steps rejected; 1e-8 lets it drift by up to 3e-7 with up to 18 % rejected (the
# slider-crank), for 2.5x fewer steps; below 1e-11 the stages' rounding dominates
# (docs/explanation/integrators.md; bench/dopri5_defaults.py).
SIM_DEFAULTS = {
    "t_end": 1.0,
    "h": 1e-3,
    "method": "rk4",
    "continuation": "exp",
    "rtol": 1e-10,
    "atol": 1e-12,
    "dt_out": None,
}
# the integrators and continuations a file may name: the C enums' (enums.py)
METHODS = METHOD.names
CONTINUATIONS = CONTINUATION.names


def _refuse_duplicate_keys(node, file_path, where="", visited=None):
    """Walk the composed YAML tree (nodes, nothing constructed yet) and refuse a mapping key
    given twice, naming its full field path (PyYAML silently keeps the last one). Each node is
    visited once: aliases (also recursive ones) are not walked again."""
    visited = set() if visited is None else visited
    if id(node) in visited:
        return
    visited.add(id(node))
    if isinstance(node, yaml.MappingNode):
        seen = set()
        for key_node, value_node in node.value:
            key = key_node.value if isinstance(key_node, yaml.ScalarNode) else "(key)"
            field = f"{where}.{key}" if where else str(key)
            if key in seen:
                raise ModelError(
                    file_path, field, f"duplicate key (line {key_node.start_mark.line + 1})"
                )
            seen.add(key)
            _refuse_duplicate_keys(value_node, file_path, field, visited)
    elif isinstance(node, yaml.SequenceNode):
        for i, item in enumerate(node.value):
            _refuse_duplicate_keys(item, file_path, f"{where}[{i}]", visited)


def load_model(path: Union[str, os.PathLike]) -> Model:
    """Read, parse and validate a mechanism file. Raises ModelError on any problem."""
    path = Path(path)
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise ModelError(path, "", f"cannot read file ({exc.strerror})") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise ModelError(path, "", "file is not UTF-8 text") from None
    try:
        _refuse_duplicate_keys(yaml.compose(text, Loader=yaml.SafeLoader), path)
        doc = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise ModelError(path, "", f"YAML syntax error{where}: {problem}") from None
    return _Validator(path, hashlib.sha256(raw).hexdigest()).model(doc)


# the values each symbol takes where identically_zero evaluates a row: three points at which
# no two symbols are equal and no simple expression of them vanishes by chance
_PROBES = ((0.5813, 0.0731), (1.2377, 0.1519), (-0.8641, 0.2203))


def identically_zero(expr) -> bool:
    """A row that holds no condition: 0 as written or expanded ("0", "x - x"), or 0 at three
    points where its symbols take values of their own ("sin(x)**2 + cos(x)**2 - 1"). A row of a
    mechanism is a smooth function: one that vanishes at three such points is zero."""
    expr = sp.sympify(expr)
    if expr == 0 or sp.expand(expr) == 0:
        return True
    symbols = sorted(expr.free_symbols, key=str)
    if not symbols:
        return False
    for start, stride in _PROBES:
        values = {s: sp.Float(start + stride * k, 30) for k, s in enumerate(symbols)}
        try:
            value = complex(expr.xreplace(values).evalf(30))
        except (TypeError, ValueError):  # not a number there (zoo): not zero
            return False
        if not abs(value) <= 1e-20:
            return False
    return True


class _Validator(Reader):
    """The document's schema: one method per section. Its readers (fail, mapping, declare, expr,
    ...) are the Reader's, which mechanism.py gets too."""

    def __init__(self, path, file_hash):
        super().__init__(path)
        self.file_hash = file_hash

    # --- the document --------------------------------------------------------------------------
    def model(self, doc):
        if doc is None:
            self.fail("", "file is empty")
        doc = self.mapping(doc, "(top level)")
        if "bodies" in doc:
            return self.mechanism(doc)
        self.unknown_keys(doc, TOP_KEYS, "")
        for key in ("name", "coordinates", "dynamics", "initial"):
            if key not in doc:
                self.fail(key, "missing required field")

        name = self.identifier(doc["name"], "name", "model")
        if name != self.path.stem:
            self.fail("name", f"model name '{name}' must match the file name '{self.path.stem}'")
        description = self.text(doc.get("description", ""), "description").strip()
        source = self.text(doc.get("source", ""), "source").strip()

        params = self.parameters(doc.get("parameters", {}) or {})
        frozen = self.freeze(doc.get("freeze"), params)
        coords = self.coordinates(doc["coordinates"])
        t = sp.Symbol("t", real=True)
        pos_syms = {p.name: p.symbol for p in params}
        pos_syms.update({c.name: c.symbol for c in coords})
        pos_syms["t"] = t
        vel_syms = dict(pos_syms)
        vel_syms.update({c.name + VELOCITY_SUFFIX: c.velocity for c in coords})
        self.position_symbols = set(pos_syms.values())
        self.definitions(doc.get("definitions", {}) or {}, pos_syms, vel_syms)
        inputs = read_inputs(self, doc.get("inputs"))
        for u in inputs:
            if u.joint is not None:
                self.fail(
                    f"{u.where}.joint",
                    "a model given by coordinates has no joints: write the input's generalized "
                    "force in dynamics.forces by its name",
                )

        constraints = self.constraints(doc.get("constraints", []) or [], pos_syms)
        model = Model(
            path=self.path,
            name=name,
            description=description,
            source=source,
            coordinates=coords,
            parameters=params,
            constraints=constraints,
            time=t,
            file_hash=self.file_hash,
        )
        model.frozen_parameters = frozen
        model.inputs = inputs
        self.dynamics(doc["dynamics"], model, pos_syms, vel_syms)
        with_inputs = dict(vel_syms)
        with_inputs.update((u.name, u.symbol) for u in model.inputs)
        model.outputs = read_outputs(self, doc.get("outputs"), with_inputs)
        self.initial(doc["initial"], model)
        model.simulation = self.simulation(doc.get("simulation", {}) or {})
        model.firmware = self.firmware(doc.get("firmware", {}) or {}, model.simulation, model.n)
        model.kernels = self.kernel_sets(doc.get("kernels"), "kernels")
        self.switches(doc, model, pos_syms, vel_syms)
        model.energy = friction_balance(coordinate_balance(model), model.friction)
        return model

    def mechanism(self, doc):
        """A model described by bodies, joints, drivers and forces (mechanism.py)."""
        self.unknown_keys(doc, BODY_TOP_KEYS, "")
        if "name" not in doc:
            self.fail("name", "missing required field")
        name = self.identifier(doc["name"], "name", "model")
        if name != self.path.stem:
            self.fail("name", f"model name '{name}' must match the file name '{self.path.stem}'")
        description = self.text(doc.get("description", ""), "description").strip()
        source = self.text(doc.get("source", ""), "source").strip()
        params = self.parameters(doc.get("parameters", {}) or {})
        frozen = self.freeze(doc.get("freeze"), params)
        t = sp.Symbol("t", real=True)
        builder = MechanismBuilder(self, {p.name: p.symbol for p in params}, t)
        builder.param_values = {p.symbol: p.exact for p in params}
        builder.inputs = read_inputs(self, doc.get("inputs"))
        builder.joint_formulation = doc.get("coordinates", "body") == "joint"
        builder.build_bodies(doc["bodies"])
        gravity = None
        if doc.get("gravity") is not None:
            dim = 2 if builder.kind == "planar" else 3
            gravity = builder.vector(doc["gravity"], "gravity", dim, numeric=False)
        builder.build_joints(doc.get("joints"))
        builder.build_drivers(doc.get("drivers"))
        builder.build_forces(doc.get("forces"))
        builder.build_joint_inputs()
        builder.build_dynamics(gravity)
        builder.place_at_start()  # the joints' start: values (the rest reads the written pose)
        formulation = doc.get("coordinates", "body")
        if formulation not in ("body", "joint"):
            self.fail(
                "coordinates",
                f"'{formulation}' is not one of body (each body's pose), joint (the joints' "
                "coordinates)",
            )
        coords = [Coordinate(n_, u, s_, sd) for n_, u, s_, sd in builder.coords]
        constraints = [Constraint(n_, e) for n_, e in builder.constraints]
        model = Model(
            path=self.path,
            name=name,
            description=description,
            source=source,
            coordinates=coords,
            parameters=params,
            constraints=constraints,
            time=t,
            file_hash=self.file_hash,
        )
        model.blocks = builder.blocks
        model.kind = builder.kind
        model.formulation = formulation
        model.bodies = builder.order
        model.joint_geometry = builder.joint_geometry
        if formulation == "joint":
            model.topology = Topology(
                bodies=builder.order,
                joints=builder.joint_geometry,
                gravity=builder.gravity,
                rotors=builder.rotors,
                springs=list(zip(builder.joint_springs, builder.joint_damping)),
                joint_inputs=builder.joint_inputs,
            )
        model.drawing = builder.drawing
        model.drawing_exprs = builder.drawing_exprs
        model.warnings = builder.warnings
        model.frozen_parameters = frozen
        model.parameter_checks = builder.parameter_checks
        model.inputs = builder.inputs
        model.geometry = builder.geometry
        model.joints = list(builder.joints.values())
        model.kinetic = builder.kinetic_total
        model.potential = builder.potential_total
        model.forces = builder.applied
        model.energy = mechanism_balance(model, builder.energy_elements)
        x0 = builder.initial_state()
        values = builder.param_values
        model.initial_x = x0
        model.initial_v = [sp.Integer(0)] * len(x0)  # decided by the held conditions
        if formulation == "joint":  # rows of the joint coordinates (joint_coordinates.py)
            model.held = list(builder.held)
        else:
            model.held = [
                (what, _held_row(row, model.x), value) for what, row, value in builder.held
            ]
        if len(model.held) > model.n:  # the run-time start (mcs_sim_start) holds at most n
            self.fail(
                "bodies",
                f"{len(model.held)} initial velocity conditions (body velocities, angular "
                f"velocities, joint rates) for {model.n} coordinates: give at most {model.n} "
                "(more cannot be independent)",
            )
        model.x0 = [to_double(a.xreplace(values)) for a in x0]
        model.simulation = self.simulation(doc.get("simulation", {}) or {})
        model.firmware = self.firmware(doc.get("firmware", {}) or {}, model.simulation, model.n)
        model.kernels = self.kernel_sets(doc.get("kernels"), "kernels")
        positions, velocities = joint_namespace(model, params, t)
        self.switches(doc, model, positions, velocities)
        model.energy = friction_balance(model.energy, model.friction)
        with_inputs = dict(velocities)
        with_inputs.update((u.name, u.symbol) for u in model.inputs)
        model.outputs = read_outputs(self, doc.get("outputs"), with_inputs, builder)
        # the velocities those rates imply are solved at generation (initial.py), not here
        model.v0 = None
        model.pending_initial = (
            [a.xreplace(values) for a in x0],
            [
                (
                    what,
                    row  # a joint coordinate: initial.py evaluates it with the parameters
                    if isinstance(row, sp.Expr)
                    else [sp.sympify(a).xreplace(values) for a in row],
                    sp.sympify(value).xreplace(values),
                )
                for what, row, value in builder.held
            ],
            # a mechanism with loops: the started joints' values, held by the assembly
            [
                (name, builder.joint_coordinate(name), sp.sympify(value).xreplace(values))
                for name, value in builder.held_starts
            ],
        )
        if formulation == "joint":  # its coordinates need the initial state
            if plain_tree(model):  # nothing to assemble or solve: the tree places every body
                model.pending_initial = None
            else:  # solved in body coordinates, then rewritten
                complete_initial_state(model)
            return to_joint_coordinates(model)
        return model

    def freeze(self, raw, params):
        """`freeze: [name, ...]`: parameters made constants at generation (smaller, faster
        kernels; `--param` refuses them). Every expression read after this sees their values."""
        if raw is None:
            return {}
        raw = self.seq(raw, "freeze")
        names = {p.name: p for p in params}
        frozen = {}
        for i, name in enumerate(raw):
            where = f"freeze[{i}]"
            if not isinstance(name, str) or name not in names:
                self.fail(where, f"'{key_text(name)}' is not a parameter of this model")
            if name in frozen:
                self.fail(where, f"'{name}' is listed twice")
            frozen[name] = where
        self.frozen_values = {names[n].symbol: names[n].exact for n in frozen}
        return frozen

    def parameters(self, raw):
        raw = self.mapping(raw, "parameters")
        out = []
        for key, spec in raw.items():
            where = f"parameters.{key_text(key)}"
            self.declare(key, where, "parameter")
            unit, description = "", ""
            if isinstance(spec, dict):
                self.unknown_keys(spec, {"value", "unit", "description"}, where)
                if "value" not in spec:
                    self.fail(where + ".value", "missing required field")
                raw_value = spec["value"]
                value = self.number(raw_value, where + ".value")
                unit = self.text(spec.get("unit", ""), where + ".unit")
                description = self.text(spec.get("description", ""), where + ".description")
            else:
                raw_value = spec
                value = self.number(spec, where)
            out.append(
                Parameter(
                    key,
                    value,
                    unit,
                    description,
                    sp.Symbol(key, real=True),
                    from_literal(raw_value),
                )
            )
        return out

    def coordinates(self, raw):
        raw = self.seq(raw, "coordinates")
        if not raw:
            self.fail("coordinates", "a model needs at least one coordinate")
        out = []
        for i, spec in enumerate(raw):
            where = f"coordinates[{i}]"
            unit = ""
            if isinstance(spec, dict):
                self.unknown_keys(spec, {"name", "unit"}, where)
                if "name" not in spec:
                    self.fail(where + ".name", "missing required field")
                name = spec["name"]
                unit = self.text(spec.get("unit", ""), where + ".unit")
                where = where + ".name"
            else:
                name = spec
            self.declare(name, where, "coordinate")
            self.declare(name + VELOCITY_SUFFIX, where, "velocity")
            out.append(
                Coordinate(
                    name,
                    unit,
                    sp.Symbol(name, real=True),
                    sp.Symbol(name + VELOCITY_SUFFIX, real=True),
                )
            )
        return out

    def definitions(self, raw, pos_syms, vel_syms):
        """Named intermediate expressions, in order; each may use the ones before it. A definition
        free of velocities is available wherever positions are; the others only where velocities
        are (kinetic energy, forces). They are substituted, so the generated code never sees them.
        """
        raw = self.mapping(raw, "definitions")
        for name, text in raw.items():
            where = f"definitions.{name}"
            self.declare(name, where, "definition")
            value = self.expr(text, where, vel_syms)
            vel_syms[name] = value
            if value.free_symbols <= self.position_symbols:
                pos_syms[name] = value

    def constraints(self, raw, symbols):
        raw = self.seq(raw, "constraints")
        out = []
        for i, spec in enumerate(raw):
            where = f"constraints[{i}]"
            spec = self.mapping(spec, where)
            self.unknown_keys(spec, {"name", "expr"}, where)
            for key in ("name", "expr"):
                if key not in spec:
                    self.fail(f"{where}.{key}", "missing required field")
            name = self.declare(spec["name"], where + ".name", "constraint")
            expr = self.expr(spec["expr"], where + ".expr", symbols)
            if identically_zero(expr):
                self.fail(
                    where + ".expr",
                    f"constraint '{name}' is identically zero ({spec['expr']}): it holds no "
                    "condition (remove it)",
                )
            out.append(Constraint(name, expr))
        return out

    def dynamics(self, raw, model, pos_syms, vel_syms):
        raw = self.mapping(raw, "dynamics")
        self.unknown_keys(raw, DYNAMICS_KEYS, "dynamics")
        n = model.n
        has_m, has_t = "mass_matrix" in raw, "kinetic" in raw
        if has_m == has_t:
            self.fail(
                "dynamics",
                "give either 'mass_matrix' (with 'forces') or 'kinetic' "
                "(kinetic energy T, from which M and f are derived), not both",
            )
        if has_m:
            model.mass_matrix = self.mass_matrix(raw["mass_matrix"], n, pos_syms)
            if "forces" not in raw:
                self.fail("dynamics.forces", "missing required field (needed with 'mass_matrix')")
        else:
            model.kinetic = self.expr(raw["kinetic"], "dynamics.kinetic", vel_syms)
        if "forces" in raw:
            forces = self.seq(raw["forces"], "dynamics.forces")
            if len(forces) != n:
                self.fail(
                    "dynamics.forces",
                    f"expected {n} entries (one per coordinate), " f"got {len(forces)}",
                )
            with_inputs = dict(vel_syms)
            with_inputs.update((u.name, u.symbol) for u in model.inputs)
            model.forces = sp.Matrix(
                [
                    check_linear(
                        self,
                        self.expr(e, f"dynamics.forces[{i}]", with_inputs),
                        model.inputs,
                        model.v,
                        f"dynamics.forces[{i}]",
                    )
                    for i, e in enumerate(forces)
                ]
            )
        if "potential" in raw:
            model.potential = self.expr(raw["potential"], "dynamics.potential", pos_syms)

    def mass_matrix(self, raw, n, symbols):
        where = "dynamics.mass_matrix"
        if isinstance(raw, dict):
            self.unknown_keys(raw, {"diagonal"}, where)
            diag = self.seq(raw.get("diagonal"), where + ".diagonal")
            if len(diag) != n:
                self.fail(where + ".diagonal", f"expected {n} entries, got {len(diag)}")
            return sp.diag(
                *[self.expr(e, f"{where}.diagonal[{i}]", symbols) for i, e in enumerate(diag)]
            )
        rows = self.seq(raw, where)
        if len(rows) != n:
            self.fail(where, f"expected {n} rows (n x n, n = {n}), got {len(rows)}")
        mat = sp.zeros(n, n)
        for i, row in enumerate(rows):
            row = self.seq(row, f"{where}[{i}]")
            if len(row) != n:
                self.fail(f"{where}[{i}]", f"expected {n} entries, got {len(row)}")
            for j, e in enumerate(row):
                mat[i, j] = self.expr(e, f"{where}[{i}][{j}]", symbols)
        if mat != mat.T:
            self.fail(where, "mass matrix must be symmetric")
        return mat

    def initial(self, raw, model):
        raw = self.mapping(raw, "initial")
        self.unknown_keys(raw, {"x", "v"}, "initial")
        consts = {p.name: p.symbol for p in model.parameters}
        values = {p.symbol: p.exact for p in model.parameters}
        for key in ("x", "v"):
            given = self.mapping(raw.get(key, {}) or {}, f"initial.{key}")
            known = {c.name for c in model.coordinates}
            out, exprs = [], []  # doubles at the default values, expressions of the parameters
            for name in given:
                if name not in known:
                    self.fail(f"initial.{key}.{name}", "not a coordinate of this model")
            for c in model.coordinates:
                where = f"initial.{key}.{c.name}"
                if c.name not in given:
                    if key == "x":
                        self.fail(where, "missing initial position")
                    out.append(0.0)
                    exprs.append(sp.Integer(0))
                    continue
                symbolic = self.expr(given[c.name], where, consts)
                e = symbolic.xreplace(values)
                if not e.is_number:
                    self.fail(where, "does not evaluate to a number")
                try:
                    value = to_double(e)  # exact, rounded once (exact.py)
                except NotANumber:
                    self.fail(where, f"number is not finite or not real ({e})")
                out.append(value)
                exprs.append(symbolic)
            setattr(model, f"{key}0", out)
            setattr(model, f"initial_{key}", exprs)

    def switches(self, doc, model, positions, velocities):
        """switches:, events: and stops:. positions: the names explicit rows may use; velocities:
        the names conditions may use."""
        model.row_groups = row_groups_of_joints(model)
        model.switches = read_switches(self, doc.get("switches"), model, positions)
        model.events = read_events(self, doc.get("events"), model.switches, velocities)
        model.stops = read_stops(self, doc.get("stops"), model)
        model.friction = read_friction(self, doc.get("friction"), model, model.formulation)

    def simulation(self, raw, where="simulation", base=None):
        raw = self.mapping(raw, where)
        firmware_keys = {"kernels", "max_dof", "events", "compact"} if base else set()
        self.unknown_keys(raw, set(SIM_DEFAULTS) | firmware_keys, where)
        sim = dict(base or SIM_DEFAULTS)
        for key in ("t_end", "h", "rtol", "atol"):
            if key in raw:
                sim[key] = self.number(raw[key], f"{where}.{key}", positive=True)
        if raw.get("dt_out") is not None:
            sim["dt_out"] = self.number(raw["dt_out"], f"{where}.dt_out", positive=True)
        for key, allowed in (("method", METHODS), ("continuation", CONTINUATIONS)):
            if key in raw:
                if raw[key] not in allowed:
                    self.fail(f"{where}.{key}", f"'{raw[key]}' is not one of {', '.join(allowed)}")
                sim[key] = raw[key]
        return sim

    def firmware(self, raw, simulation, n):
        """`firmware:` the simulation's settings for a firmware build (method rk4, continuation
        none unless given: the smallest run), `kernels:` sets to carry beyond what those
        settings need (statics on the target: [stiffness]), and what sizes its memory:
        `max_dof` (the most free directions the run meets; 0, the default, is n), `events`
        (whether it locates singular configurations; default true) and `compact` (the compact
        simulator, options.compact: a fraction of the memory, no events, no singular
        crossings; default false)."""
        raw = self.mapping(raw, "firmware")
        base = dict(simulation, method="rk4", continuation="none")
        sim = self.simulation(raw, "firmware", base)
        max_dof = raw.get("max_dof", 0)
        if isinstance(max_dof, bool) or not isinstance(max_dof, int) or not 0 <= max_dof <= n:
            self.fail("firmware.max_dof", f"expected a whole number from 0 to {n}, got {max_dof!r}")
        events = raw.get("events", True)
        if not isinstance(events, bool):
            self.fail("firmware.events", f"expected true or false, got {events!r}")
        compact = raw.get("compact", False)
        if not isinstance(compact, bool):
            self.fail("firmware.compact", f"expected true or false, got {compact!r}")
        if compact and events:
            self.fail(
                "firmware.compact",
                "a compact simulator locates no singular configurations: set events: false",
            )
        return {
            "simulation": sim,
            "kernels": self.kernel_sets(raw.get("kernels"), "firmware.kernels"),
            "max_dof": max_dof,
            "events": events,
            "compact": compact,
        }

    def kernel_sets(self, raw, where):
        """A list of kernel set names (model/kernel_sets.SETS): `kernels:` (what a host build
        carries besides the default sets: [linearization]) and `firmware.kernels`."""
        extra = set()
        for i, name in enumerate(self.seq(raw or [], where)):
            if name not in KERNEL_SETS:
                self.fail(
                    f"{where}[{i}]", f"'{name}' is not a kernel set ({', '.join(KERNEL_SETS)})"
                )
            extra.add(name)
        return kernel_sets_expand(extra)


def _held_row(row, x):
    """A held velocity condition's row (n): explicit coefficients as given; a joint coordinate's
    gradient (its rate is the row times v)."""
    if isinstance(row, sp.Expr):
        return [sp.diff(row, s) if s in row.free_symbols else sp.Integer(0) for s in x]
    return [sp.sympify(a) for a in row]


def joint_namespace(model, params, t):
    """Names for the expressions of a bodies model (switch rows, conditions): each joint's free
    coordinate by the joint's name, its rate as `<joint>_dot`, the parameters and t. Returns
    (positions, with velocities)."""
    positions = {p.name: p.symbol for p in params}
    positions["t"] = t
    velocities = dict(positions)
    for joint in model.joints:
        if joint.coordinate is None:
            continue
        positions[joint.name] = joint.coordinate
        velocities[joint.name] = joint.coordinate
        velocities[joint.name + VELOCITY_SUFFIX] = sum(
            (sp.diff(joint.coordinate, x) * v for x, v in zip(model.x, model.v)), sp.Integer(0)
        )
    return positions, velocities
