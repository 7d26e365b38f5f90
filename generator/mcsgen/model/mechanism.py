"""Mechanism files with `bodies:` -> coordinates, constraints, Lagrange blocks and initial state.

Called by loader.py with a reader.Reader (typed values, expressions, one-line errors). The
schema is documented in the manual (docs/reference/model-file.md). Everything stays symbolic in the
parameters: masses, inertias, gravity, forces, drive functions and the geometry too (joint points
and axes, initial poses, distances), so that a parameter's value can change at run time without
regenerating. Checks and choices (is the axis of zero length, which branch of a quaternion
formula) are made at the parameters' default values (`value`). A file's `freeze:` list makes
parameters constants at generation instead (reader.Reader.frozen_values).

Geometry is exact (exact.py): poses, points, axes and frames are exact SymPy expressions, and
enter the constraint rows as exact rationals or 40-digit Floats, or as geometry symbols that
stand for expressions of the parameters (`geo`). numpy only answers yes/no questions here (is the
inertia positive definite, is this a rotation matrix).
"""

import numpy as np
import sympy as sp

from .bodies import (
    Body,
    E_matrix,
    G_matrix,
    frame_from_axis,
    frame_rotation,
    matrix_from_quaternion,
    quaternion_from_matrix,
    relative_rotation_rows,
)
from .exact import NotANumber, approx, clean, coefficient, numbers_as_coefficients, to_double
from .forces import ForceElements
from .inputs import check_linear
from .joint_coordinates import JointGeometry
from .joints import SPATIAL_JOINTS, Joint, joint_rate_label, joint_types, spatial_lock
from ..parameter_rules import (
    inertia_problem,
    mass_problem,
    parameter_dependent,
    planar_inertia_problem,
    violates_triangle,
)
from .placement import place_at_start
from .switches import RowGroup


# An expression of parameters in the geometry is simplified when it has at most this many
# operations (a body point R0^T (P - r0) is L1 sin(a)^2/2 + L1 cos(a)^2/2 before, L1/2 after);
# larger ones (frames of parameter-dependent axes) are kept as they are.
SIMPLIFY_OPS = 40


BODY_KEYS = {
    "name",
    "type",
    "mass",
    "inertia",
    "position",
    "orientation",
    "angle",
    "velocity",
    "angular_velocity",
    "inertia_check",
}


class MechanismBuilder(ForceElements):
    def __init__(self, ctx, params, t):
        self.ctx = ctx  # a reader.Reader: typed values, names, expressions, error messages
        self.params = params  # name -> Symbol
        self.param_values = {}  # Symbol -> default (exact)
        self.t = t
        # joint coordinates (`coordinates: joint`): a massless link that carries others is
        # accepted there (only the composite inertia of a subtree enters the mass matrix)
        self.joint_formulation = False
        self.bodies = {"ground": Body("ground", "ground")}
        self.order = []
        self.coords = []  # (name, unit, Symbol, velocity Symbol)
        self.constraints = []  # (name, expr)
        self.blocks = []  # (kinetic, potential) per body / element
        self.applied = None  # (n x 1) non-conservative generalized forces
        # the elements that move energy in or out: [(kind, field, coefficient at the defaults)],
        # kind "force", "torque" or "damper" (energy.mechanism_balance)
        self.energy_elements = []
        self.joints = {}
        # revolute joint -> the rate of its angle as a linear form in v (axial_rate)
        self.axial_rates = {}
        self.held = []  # (description, row (n), value)
        self.starts = {}  # joint -> (its `start:` value, where): place_at_start
        # [(joint, start value)] the initial assembly holds (a mechanism with loops)
        self.held_starts = []
        self.gravity = None
        self.kind = None  # "spatial" | "planar"
        self.drawing = {}  # body -> joint points (body coordinates, at the default values)
        self.drawing_exprs = {}  # the same as expressions of the parameters
        # geometric quantities that depend on parameters, each a symbol in the rows (so that
        # derivation sees a constant, as it would a number): [(Symbol, expression of params)]
        self.geometry = []
        self.geometry_symbols = {}  # expression -> its Symbol
        self.warnings = []  # accepted departures (Model.warnings)
        self.parameter_checks = []  # the rules run-time values keep (Model.parameter_checks)
        # joint -> its points and axes in its bodies' frames (joint_coordinates.JointGeometry)
        self.joint_geometry = {}
        # index among the force elements' blocks -> (joint, I_r) of a joint's rotor_inertia block
        self.rotors = {}
        # joint spring-dampers: (joint, index of its block among the force elements', k, c,
        # rest), and the applied forces its damping added (None without damping)
        self.joint_springs = []
        self.joint_damping = []
        self.inputs = []  # [inputs.Input] of the file's `inputs:`
        # (joint, the applied forces it added, input symbol) of every `joint:` input: a tree
        # joint's acts on its coordinate directly (joint_coordinates.py)
        self.joint_inputs = []

    # --- numbers --------------------------------------------------------------------------------
    def sym(self, value, where, allow_t=False, allow_u=False):
        """allow_u: the inputs by name too, linearly (a force or torque element's value)."""
        names = dict(self.params)
        if allow_t:
            names["t"] = self.t
        if allow_u:
            names.update((u.name, u.symbol) for u in self.inputs)
            e = self.ctx.expr(value, where, names)
            return check_linear(self.ctx, e, self.inputs, (), where)
        return self.ctx.expr(value, where, names)

    def num(self, value, where):
        """An expression of the parameters only (no t) that must be a finite real number at their
        default values: the exact SymPy expression, parameters kept as symbols."""
        e = self.sym(value, where)
        at_defaults = self.value(e)
        if not at_defaults.is_number:
            self.ctx.fail(where, "does not evaluate to a number")
        try:
            approx(at_defaults)
        except NotANumber:
            self.ctx.fail(where, f"number is not finite or not real ({at_defaults})")
        return e

    def geo(self, expr):
        """An exact geometric quantity ready to enter the rows: a number as a coefficient
        (Rational or 40-digit Float); a parameter as itself; any other expression of parameters
        (small ones simplified, numeric parts as coefficients: exact.numbers_as_coefficients) as a
        geometry symbol `_g<k>` whose expression the emitter puts back into the C (CSE shares
        it), so derivation differentiates small rows."""
        expr = sp.sympify(expr)
        if expr.is_number:
            return coefficient(expr)
        if sp.count_ops(expr) <= SIMPLIFY_OPS:
            expr = sp.simplify(expr)
        expr = numbers_as_coefficients(expr)
        if expr.is_Symbol or expr.is_number:
            return expr
        if expr not in self.geometry_symbols:
            symbol = sp.Symbol(f"_g{len(self.geometry)}", real=True)
            self.geometry_symbols[expr] = symbol
            self.geometry.append((symbol, expr))
        return self.geometry_symbols[expr]

    def geos(self, values):
        return [self.geo(c) for c in values]

    def value(self, expr):
        """An expression of the parameters at their default values (exact): what checks and
        choices are made on."""
        expr = sp.sympify(expr)
        if self.geometry:
            expr = expr.xreplace(dict(self.geometry))
        return expr.xreplace(self.param_values)

    def approx_value(self, expr):
        return approx(self.value(expr))

    def vector(self, value, where, dim, numeric=True, allow_t=False, allow_u=False):
        """numeric: exact numbers (list); else symbolic expressions (list)."""
        value = self.ctx.seq(value, where)
        if len(value) != dim:
            self.ctx.fail(where, f"expected {dim} components, got {len(value)}")
        if numeric:
            return [self.num(c, f"{where}[{i}]") for i, c in enumerate(value)]
        return [self.sym(c, f"{where}[{i}]", allow_t, allow_u) for i, c in enumerate(value)]

    def unit_vector(self, value, where, dim=3):
        u = self.vector(value, where, dim)
        norm2 = sum(c * c for c in u)
        if self.approx_value(norm2) < 1e-24:
            self.ctx.fail(where, "axis has zero length")
        norm = sp.sqrt(norm2)
        return [c / norm for c in u]

    # --- bodies ---------------------------------------------------------------------------------
    def build_bodies(self, raw):
        raw = self.ctx.seq(raw, "bodies")
        if not raw:
            self.ctx.fail("bodies", "a mechanism needs at least one body")
        for i, spec in enumerate(raw):
            where = f"bodies[{i}]"
            spec = self.ctx.mapping(spec, where)
            self.ctx.unknown_keys(spec, BODY_KEYS, where)
            for key in ("name", "type", "mass", "inertia", "position"):
                if key not in spec:
                    self.ctx.fail(f"{where}.{key}", "missing required field")
            name = spec["name"]
            if name == "ground":
                self.ctx.fail(f"{where}.name", "'ground' is predefined (fixed at the origin)")
            self.ctx.declare(name, f"{where}.name", "body")
            kind = spec["type"]
            if kind not in ("spatial", "planar"):
                self.ctx.fail(f"{where}.type", f"'{kind}' is not one of spatial, planar")
            if self.kind and kind != self.kind:
                self.ctx.fail(
                    f"{where}.type", f"mixing {self.kind} and {kind} bodies is not " "supported"
                )
            self.kind = kind
            body = Body(name, kind, index0=len(self.coords))
            body.mass = self.sym(spec["mass"], f"{where}.mass")
            mass_value = float(self.approx_value(self.num(spec["mass"], f"{where}.mass")))
            check = spec.get("inertia_check", "strict")
            if check not in ("strict", "warn"):
                self.ctx.fail(f"{where}.inertia_check", f"'{check}' is not one of strict, warn")
            if body.mass == 0 and self.joint_formulation:
                self.read_massless(body, spec["inertia"], f"{where}.inertia")
            else:
                problem = mass_problem(mass_value)
                if problem and mass_value == 0:
                    problem += (
                        " (a massless link that carries other bodies is accepted in joint "
                        "coordinates: `coordinates: joint`, mass 0 and inertia 0)"
                    )
                if problem:
                    self.ctx.fail(f"{where}.mass", problem)
                self.keep_check(f"{where}.mass", "mass", [body.mass])
                self.read_inertia(body, spec["inertia"], f"{where}.inertia", check)
            self.read_pose(body, spec, where)
            units = ["m"] * body.dim + (["1"] * 4 if kind == "spatial" else ["rad"])
            for n_, u, s, sd in zip(body.coord_names, units, body.q, body.qd):
                self.coords.append((n_, u, s, sd))
            self.bodies[name] = body
            self.order.append(body)
            if kind == "spatial":
                e = body.q[3:7]
                self.constraints.append((f"{name}.norm", sum(c * c for c in e) - 1))

    def read_inertia(self, body, raw, where, check="strict"):
        """The inertia about the centre of mass (body axes): symmetric positive definite, and
        a rigid body's (J1 + J2 >= J3) unless check is "warn" (identified data often violate
        it, docs/data/puma560.md): then accepted with a warning."""
        if body.kind == "planar":
            body.inertia = self.sym(raw, where)
            problem = planar_inertia_problem(float(self.approx_value(self.num(raw, where))))
            if problem:
                self.ctx.fail(where, problem)
            self.keep_check(where, "planar_inertia", [body.inertia])
            return
        raw = self.ctx.seq(raw, where)
        if len(raw) == 3 and not isinstance(raw[0], list):
            J = sp.diag(*[self.sym(c, f"{where}[{i}]") for i, c in enumerate(raw)])
        elif len(raw) == 3:
            J = sp.Matrix(
                [
                    [
                        self.sym(c, f"{where}[{i}][{j}]")
                        for j, c in enumerate(self.ctx.seq(row, f"{where}[{i}]"))
                    ]
                    for i, row in enumerate(raw)
                ]
            )
            if J.shape != (3, 3):
                self.ctx.fail(where, "expected a 3 x 3 matrix or 3 diagonal entries")
        else:
            self.ctx.fail(where, "expected 3 diagonal entries or a 3 x 3 matrix")
        Jn = np.array(
            [[float(approx(self.num_of(J[a, b], where))) for b in range(3)] for a in range(3)]
        )
        problem = inertia_problem(Jn, strict=check != "warn")
        if problem:
            self.ctx.fail(where, problem)
        self.keep_check(where, "inertia", list(J), strict=check != "warn")
        eig = np.linalg.eigvalsh(Jn)
        if violates_triangle(eig):
            self.warnings.append(
                f"{self.ctx.path}: {where}: inertia tensor violates the triangle inequality "
                f"(principal moments {', '.join(f'{x:g}' for x in eig)}): accepted as given "
                "(inertia_check: warn)"
            )
        body.inertia = J

    def read_massless(self, body, raw, where):
        """A massless link of a model in joint coordinates: mass 0 (as written) and an inertia of
        zeros. Whether the joints it carries leave the mass matrix positive definite is the
        generator's check of M (consistency.check_joint_mass_matrix: a massless leaf is not)."""
        if body.kind == "planar":
            if self.sym(raw, where) != 0:
                self.ctx.fail(where, "a massless link's inertia is 0")
            body.inertia = sp.Integer(0)
            return
        entries = self.ctx.seq(raw, where)
        flat = []
        for i, row in enumerate(entries):
            flat += self.ctx.seq(row, f"{where}[{i}]") if isinstance(row, list) else [row]
        if len(flat) not in (3, 9) or any(self.sym(c, where) != 0 for c in flat):
            self.ctx.fail(where, "a massless link's inertia is 0: [0, 0, 0]")
        body.inertia = sp.zeros(3, 3)

    def keep_check(self, where, rule, exprs, strict=True):
        """A rule of parameter_rules.py that a value given at run time must keep too: kept on
        the Model (parameter_checks) when its expressions hold parameters."""
        check = parameter_dependent(where, rule, exprs, strict)
        if check is not None:
            self.parameter_checks.append(check)

    def num_of(self, expr, where):
        """A symbolic number (e.g. an inertia entry) at the parameters' default values."""
        e = expr.xreplace(self.param_values)
        try:
            approx(e)
        except NotANumber:
            self.ctx.fail(where, f"does not evaluate to a finite real number ({e})")
        return e

    def read_pose(self, body, spec, where):
        """Initial pose, exact: body.x0 (coordinates) and body.R0 (rotation, dim x dim)."""
        pos = self.vector(spec["position"], f"{where}.position", body.dim)
        if body.kind == "planar":
            if "orientation" in spec:
                self.ctx.fail(
                    f"{where}.orientation",
                    "a planar body's orientation is its 'angle' (radians, counter-clockwise), "
                    "a field of the body itself: {name: ..., type: planar, angle: 0.5, ...}",
                )
            angle = self.num(spec.get("angle", 0), f"{where}.angle")
            body.x0 = list(pos) + [angle]
            body.R0 = sp.Matrix([[sp.cos(angle), -sp.sin(angle)], [sp.sin(angle), sp.cos(angle)]])
        else:
            if "angle" in spec:
                self.ctx.fail(f"{where}.angle", "spatial bodies take 'orientation'")
            q, R = self.read_orientation(spec.get("orientation"), f"{where}.orientation")
            body.x0 = list(pos) + list(q)
            body.R0 = R
        if "velocity" in spec:
            body.v0 = self.vector(spec["velocity"], f"{where}.velocity", body.dim)
        if "angular_velocity" in spec:
            if body.kind == "planar":
                body.w0 = [self.num(spec["angular_velocity"], f"{where}.angular_velocity")]
            else:
                body.w0 = self.vector(spec["angular_velocity"], f"{where}.angular_velocity", 3)

    def read_orientation(self, raw, where):
        """(Euler parameters (4), rotation matrix (3 x 3)), both exact."""
        if raw is None:
            return (sp.Integer(1), sp.Integer(0), sp.Integer(0), sp.Integer(0)), sp.eye(3)
        raw = self.ctx.mapping(raw, where)
        self.ctx.unknown_keys(raw, {"axis", "angle", "matrix", "euler_parameters"}, where)
        if "euler_parameters" in raw:
            q = self.vector(raw["euler_parameters"], f"{where}.euler_parameters", 4)
            norm2 = sum(c * c for c in q)
            norm = float(self.approx_value(norm2)) ** 0.5
            if abs(norm - 1) > 1e-9:
                self.ctx.fail(f"{where}.euler_parameters", f"must have unit norm, got {norm:.12g}")
            q = tuple(c / sp.sqrt(norm2) for c in q)
            return q, matrix_from_quaternion(q)
        if "matrix" in raw:
            rows = self.ctx.seq(raw["matrix"], f"{where}.matrix")
            if len(rows) != 3:
                self.ctx.fail(f"{where}.matrix", "expected 3 rows")
            R = sp.Matrix([self.vector(r, f"{where}.matrix[{i}]", 3) for i, r in enumerate(rows)])
            Rn = np.array([[float(self.approx_value(c)) for c in R.row(i)] for i in range(3)])
            if np.abs(Rn.T @ Rn - np.eye(3)).max() > 1e-9 or np.linalg.det(Rn) < 0:
                self.ctx.fail(f"{where}.matrix", "not a rotation matrix (R^T R = I, det R = 1)")
            return quaternion_from_matrix(R, self.param_values), R
        if "axis" in raw:
            u = self.unit_vector(raw["axis"], f"{where}.axis")
            angle = self.num(raw.get("angle", 0), f"{where}.angle")
            q = (sp.cos(angle / 2),) + tuple(sp.sin(angle / 2) * c for c in u)
            return q, matrix_from_quaternion(q)
        self.ctx.fail(where, "give 'axis' and 'angle', 'matrix', or 'euler_parameters'")

    # --- joints ---------------------------------------------------------------------------------
    def body_ref(self, name, where):
        if not isinstance(name, str) or name not in self.bodies:
            self.ctx.fail(where, f"unknown body '{name}'")
        return self.bodies[name]

    def world_to_body(self, body, point):
        """A world point at the initial pose in body coordinates (exact list)."""
        if body.kind == "ground":
            return list(point)
        r0 = sp.Matrix(body.x0[: body.dim])
        return list(body.R0.T * (sp.Matrix(point) - r0))

    def build_joints(self, raw):
        raw = self.ctx.seq(raw or [], "joints")
        for i, spec in enumerate(raw):
            where = f"joints[{i}]"
            spec = self.ctx.mapping(spec, where)
            for key in ("name", "type", "body1", "body2"):
                if key not in spec:
                    self.ctx.fail(f"{where}.{key}", "missing required field")
            name = self.ctx.declare(spec["name"], f"{where}.name", "joint")
            b1 = self.body_ref(spec["body1"], f"{where}.body1")
            b2 = self.body_ref(spec["body2"], f"{where}.body2")
            if b1 is b2:
                self.ctx.fail(
                    f"{where}.body2",
                    f"a joint needs two different bodies (both are " f"'{b1.name}')",
                )
            jtype = spec["type"]
            planar = self.kind == "planar"
            types = joint_types(self.kind)
            if jtype not in types:
                self.ctx.fail(
                    f"{where}.type",
                    f"'{jtype}' is not a {'planar' if planar else 'spatial'}"
                    f" joint type ({', '.join(sorted(types))})",
                )
            self.ctx.unknown_keys(spec, types[jtype].keys, where)
            dim = 2 if planar else 3
            p1, p2 = self.joint_points(spec, b1, b2, where, dim)
            for body, point in ((b1, p1), (b2, p2)):
                self.drawing.setdefault(body.name, []).append(
                    [to_double(self.value(c)) for c in point]
                )
                self.drawing_exprs.setdefault(body.name, []).append(list(point))
            first = len(self.constraints)
            if planar:
                coordinate = self.planar_joint(name, jtype, b1, b2, p1, p2, spec, where)
            else:
                coordinate = self.spatial_joint(name, jtype, b1, b2, p1, p2, spec, where)
            jt = types[jtype]
            driven = spec.get("drive") is not None
            cut = spec.get("cut", False)
            if not isinstance(cut, bool):
                self.ctx.fail(f"{where}.cut", f"expected true or false, got {cut!r}")
            self.joint_geometry[name] = self.geometry_of_joint(
                jtype, b1, b2, p1, p2, spec, where, cut or driven
            )
            if "initial" in spec:  # the value the free coordinate has at the initial pose
                if not jt.coordinate:
                    self.ctx.fail(
                        f"{where}.initial",
                        "an initial coordinate needs a revolute or prismatic joint",
                    )
                coordinate = coordinate + self.num(spec["initial"], f"{where}.initial")
            self.joints[name] = Joint(
                name=name,
                type=jt,
                body1=b1.name,
                body2=b2.name,
                first_row=first,
                nrows=len(self.constraints) - first,
                coordinate=coordinate if jt.coordinate else None,
                driven=driven,
                lock=None if driven else self.lock,
            )
            if "start" in spec:  # placed there by place_at_start
                if not jt.coordinate or driven:
                    self.ctx.fail(
                        f"{where}.start",
                        "a start value needs a revolute or prismatic joint that is not driven",
                    )
                self.starts[name] = (self.num(spec["start"], f"{where}.start"), where)
            if jt.coordinate == "angle":
                self.axial_rates[name] = self.axial_rate(spec, b1, b2, where)
            self.joint_rate(name, spec, where)
            if "rotor_inertia" in spec:
                self.rotor(name, spec, where)

    def geometry_of_joint(self, jtype, b1, b2, p1, p2, spec, where, cut):
        """The joint's points and axes in its bodies' frames, for the spanning tree of joint
        coordinates (joint_coordinates.JointGeometry)."""
        initial = self.num(spec["initial"], f"{where}.initial") if "initial" in spec else 0
        axis1 = axis2 = plane2 = None
        if self.kind == "planar":
            if jtype == "prismatic" and "axis" in spec:
                u = self.unit_vector(spec["axis"], f"{where}.axis", 2)
                axis1 = self.geos(self.world_to_body_dir(b1, u))
                axis2 = self.geos(self.world_to_body_dir(b2, u))
        elif jtype in ("revolute", "prismatic", "universal", "cylindrical", "planar", "parallel"):
            F1, F2 = self.joint_frames(spec, b1, b2, where)
            axis1, axis2 = self.geos(F1[:, 0]), self.geos(F2[:, 0])
            if jtype in ("planar", "parallel"):  # F2's y and z: the translations' directions
                plane2 = (self.geos(F2[:, 1]), self.geos(F2[:, 2]))
        return JointGeometry(
            type=jtype,
            body1=b1.name,
            body2=b2.name,
            point1=self.geos(p1),
            point2=self.geos(p2),
            axis1=axis1,
            axis2=axis2,
            initial=sp.sympify(initial),
            cut=cut,
            plane2=plane2,
        )

    def axial_rate(self, spec, b1, b2, where):
        """The rate of a revolute joint's angle as a linear form in v: in 3D a1 . w1' - a2 . w2'
        with the body-frame angular velocities w' = 2 G(e) edot and the axis in each body's frame
        (equal to the world axis projection a . (w1 - w2), and to the time derivative of the
        joint angle, wherever the joint's rows hold). Polynomial in e, where the derivative of
        the angle 2 atan2(rel_1, rel_0) is a rational function of both bodies' e."""
        if self.kind == "planar":
            return sum(
                (s * b.qd[2] for s, b in ((1, b1), (-1, b2)) if b.kind != "ground"), sp.Integer(0)
            )
        F1, F2 = self.joint_frames(spec, b1, b2, where)
        w = sp.Integer(0)
        for s, body, F in ((1, b1, F1), (-1, b2, F2)):
            if body.kind == "ground":
                continue
            a = F.applyfunc(self.geo)[:, 0]
            w_body = 2 * G_matrix(body.q[3:7]) * sp.Matrix(body.qd[3:7])
            w += s * (a.T * w_body)[0]
        return w

    def rotor(self, name, spec, where):
        """A revolute joint's `rotor_inertia` I_r: a Lagrange block T = I_r w_rel^2 / 2, w_rel the
        rate of the joint angle (axial_rate)."""
        I_r = self.sym(spec["rotor_inertia"], f"{where}.rotor_inertia")
        if not approx(self.num_of(I_r, f"{where}.rotor_inertia")) >= 0:
            self.ctx.fail(f"{where}.rotor_inertia", "rotor inertia must be non-negative")
        w = self.axial_rates[name]
        self.rotors[len(self.blocks)] = (name, I_r)
        self.blocks.append((I_r * w**2 / 2, sp.Integer(0)))

    def joint_points(self, spec, b1, b2, where, dim):
        if "point" in spec:
            if "point1" in spec or "point2" in spec:
                self.ctx.fail(
                    f"{where}.point",
                    "give 'point' (world, initial pose) or "
                    "'point1'/'point2' (body coordinates), not both",
                )
            P = self.vector(spec["point"], f"{where}.point", dim)
            return self.world_to_body(b1, P), self.world_to_body(b2, P)
        p1 = self.vector(spec.get("point1", [0] * dim), f"{where}.point1", dim)
        p2 = self.vector(spec.get("point2", [0] * dim), f"{where}.point2", dim)
        return p1, p2

    def joint_frames(self, spec, b1, b2, where):
        """Frame rotations in body coordinates (x axis = joint axis), exact (3 x 3)."""
        if "axis1" in spec or "axis2" in spec:
            if "axis" in spec:
                self.ctx.fail(f"{where}.axis", "give 'axis' or 'axis1'/'axis2', not both")
            a1 = self.unit_vector(spec.get("axis1", [1, 0, 0]), f"{where}.axis1")
            a2 = self.unit_vector(spec.get("axis2", [1, 0, 0]), f"{where}.axis2")
            return frame_from_axis(
                self.world_to_body_dir(b1, a1), self.param_values
            ), frame_from_axis(self.world_to_body_dir(b2, a2), self.param_values)
        W = (
            frame_from_axis(self.unit_vector(spec["axis"], f"{where}.axis"), self.param_values)
            if "axis" in spec
            else sp.eye(3)
        )
        return self.world_to_body_dir(b1, W), self.world_to_body_dir(b2, W)

    @staticmethod
    def world_to_body_dir(body, W):
        W = sp.Matrix(W)
        return W if body.kind == "ground" else body.R0.T * W

    def spatial_joint(self, name, jtype, b1, b2, p1, p2, spec, where):
        rows = SPATIAL_JOINTS[jtype]
        F1, F2 = self.joint_frames(spec, b1, b2, where)
        P1 = b1.point(self.geos(p1))
        P2 = b2.point(self.geos(p2))
        RF2 = frame_rotation(b2, F2.applyfunc(self.geo))
        drive = self.read_drive(spec.get("drive"), f"{where}.drive", jtype)
        translation = RF2.T * (P1 - P2)
        if drive and "translation" in drive:
            translation = translation - sp.Matrix(drive["translation"])
            rows = tuple(dict.fromkeys(("x", "y", "z") + rows))
        q1 = tuple(self.geos(quaternion_from_matrix(F1, self.param_values)))
        q2 = tuple(self.geos(quaternion_from_matrix(F2, self.param_values)))
        rho_t = drive.get("quaternion") if drive else None
        if drive and "angle" in drive:
            half = drive["angle"] / 2
            rho_t = (sp.cos(half), sp.sin(half), sp.Integer(0), sp.Integer(0))
        if rho_t is not None:
            rows = tuple(dict.fromkeys(rows + ("Rx", "Ry", "Rz")))
        rel = relative_rotation_rows(b1, q1, b2, q2, rho_t)
        parts = {
            "x": translation[0],
            "y": translation[1],
            "z": translation[2],
            "Rx": rel[1],
            "Ry": rel[2],
            "Rz": rel[3],
        }
        if jtype == "distance_along_axis":
            d = self.sym(spec.get("distance", 0), f"{where}.distance")
            parts["x"] = parts["x"] - d
        for r in rows:
            self.add_row(f"{name}.{r}", parts[r])
        if jtype == "universal":
            if "axis1" not in spec or "axis2" not in spec:
                self.ctx.fail(
                    f"{where}.axis1",
                    "a universal joint needs 'axis1' (on body1) and "
                    "'axis2' (on body2), perpendicular",
                )
            a1 = frame_rotation(b1, F1.applyfunc(self.geo))[:, 0]
            a2 = RF2[:, 0]
            self.add_row(f"{name}.perp", (a1.T * a2)[0])
        if jtype == "distance":
            if "distance" not in spec:
                self.ctx.fail(f"{where}.distance", "missing required field (the distance d)")
            d = self.sym(spec["distance"], f"{where}.distance")
            if not approx(self.num_of(d, f"{where}.distance")) > 0:
                self.ctx.fail(f"{where}.distance", "distance must be positive")
            delta = P1 - P2
            self.add_row(f"{name}.d", ((delta.T * delta)[0] - d**2) / (2 * d))
        self.lock = spatial_lock(
            name,
            jtype,
            RF2.T * (P1 - P2),
            relative_rotation_rows(b1, q1, b2, q2),
        )
        # the free coordinate: the position along the axis, or the angle about it
        if jtype == "prismatic":
            return translation[0]
        # the angle from the initial pose: rel is +-1 there (a quaternion and its negative are
        # the same rotation), and the sign that makes it +1 starts the angle at 0, not 2 pi
        initial = {q: value for b in (b1, b2) if b.kind != "ground" for q, value in zip(b.q, b.x0)}
        initial[self.t] = sp.Integer(0)
        s = -1 if self.approx_value(rel[0].xreplace(initial)) < 0 else 1
        return 2 * sp.atan2(s * rel[1], s * rel[0])

    def planar_joint(self, name, jtype, b1, b2, p1, p2, spec, where):
        P1 = b1.point(self.geos(p1))
        P2 = b2.point(self.geos(p2))
        R2 = b2.rotation() if b2.kind != "ground" else sp.eye(2)
        th1 = b1.q[2] if b1.kind != "ground" else sp.Integer(0)
        th2 = b2.q[2] if b2.kind != "ground" else sp.Integer(0)
        rel0 = (b1.x0[2] if b1.kind != "ground" else 0) - (b2.x0[2] if b2.kind != "ground" else 0)
        local = R2.T * (P1 - P2)
        if spec.get("drive") is not None:
            self.ctx.fail(
                f"{where}.drive",
                "drives on planar joints are not supported; use a " "coordinate driver (drivers:)",
            )
        angle = th1 - th2 - self.geo(rel0)
        if jtype in ("revolute", "fix"):
            self.add_row(f"{name}.x", local[0])
            self.add_row(f"{name}.y", local[1])
            free = angle
        if jtype == "prismatic":
            if "axis" not in spec:
                self.ctx.fail(f"{where}.axis", "a prismatic joint needs 'axis' (world, initial)")
            u = self.unit_vector(spec["axis"], f"{where}.axis", 2)
            u2 = self.world_to_body_dir(b2, u) if b2.kind != "ground" else sp.Matrix(u)
            n2 = [self.geo(-u2[1]), self.geo(u2[0])]
            self.add_row(f"{name}.n", n2[0] * local[0] + n2[1] * local[1])
            free = clean(self.geo(u2[0]) * local[0] + self.geo(u2[1]) * local[1])
        if jtype in ("prismatic", "fix"):
            self.add_row(f"{name}.theta", angle)
        if jtype == "fix":
            self.lock = None
            return None
        # a lock holds the free coordinate (the constant of `angle` plays no part in it)
        what = "theta" if jtype == "revolute" else "translation"
        self.lock = RowGroup(name, entries=[free if jtype != "revolute" else th1 - th2], what=what)
        return free

    def read_drive(self, raw, where, jtype):
        if raw is None:
            return None
        raw = self.ctx.mapping(raw, where)
        self.ctx.unknown_keys(raw, {"angle", "translation", "quaternion"}, where)
        out = {}
        if "angle" in raw:
            if "quaternion" in raw:
                self.ctx.fail(where, "give 'angle' or 'quaternion', not both")
            out["angle"] = self.sym(raw["angle"], f"{where}.angle", allow_t=True)
        if "quaternion" in raw:
            out["quaternion"] = tuple(
                self.vector(
                    raw["quaternion"], f"{where}.quaternion", 4, numeric=False, allow_t=True
                )
            )
        if "translation" in raw:
            out["translation"] = self.vector(
                raw["translation"], f"{where}.translation", 3, numeric=False, allow_t=True
            )
        if not out:
            self.ctx.fail(where, "give 'angle', 'quaternion' or 'translation'")
        return out

    def joint_coordinate(self, name):
        """The joint's free coordinate: the angle about its axis (revolute) or the position along
        it (prismatic), as an expression of x."""
        return self.joints[name].coordinate

    def joint_rate(self, name, spec, where):
        if "rate" not in spec:
            return
        if not self.joints[name].type.has_rate:
            self.ctx.fail(f"{where}.rate", "an initial rate needs a revolute or prismatic joint")
        self.held.append(
            (
                joint_rate_label(name),
                self.joint_coordinate(name),
                self.num(spec["rate"], f"{where}.rate"),
            )
        )

    def place_at_start(self):
        """Move the bodies to the joints' `start:` values (model/placement.py)."""
        place_at_start(self)

    # --- drivers and forces ---------------------------------------------------------------------
    def coordinate(self, name, where):
        for n_, _, s, sd in self.coords:
            if n_ == name:
                return s, sd
        self.ctx.fail(where, f"unknown coordinate '{name}' (coordinates are <body>.x, ...)")

    def build_drivers(self, raw):
        raw = self.ctx.seq(raw or [], "drivers")
        for i, spec in enumerate(raw):
            where = f"drivers[{i}]"
            spec = self.ctx.mapping(spec, where)
            self.ctx.unknown_keys(spec, {"name", "coordinate", "expr"}, where)
            for key in ("name", "coordinate", "expr"):
                if key not in spec:
                    self.ctx.fail(f"{where}.{key}", "missing required field")
            name = self.ctx.declare(spec["name"], f"{where}.name", "driver")
            s, _ = self.coordinate(spec["coordinate"], f"{where}.coordinate")
            self.add_row(name, s - self.sym(spec["expr"], f"{where}.expr", allow_t=True))

    # --- energy and initial state ---------------------------------------------------------------
    def build_dynamics(self, gravity):
        """One Lagrange block per body: its kinetic energy and its weight's potential."""
        body_blocks = []
        self.gravity = gravity
        self.kinetic_total = sp.Integer(0)
        self.potential_total = sp.Integer(0)
        for body in self.order:
            T, subs = body.kinetic(generic=True)
            mass = next(iter(subs))  # the generic mass symbol
            V = body.gravity_potential(gravity, mass) if gravity is not None else sp.Integer(0)
            body_blocks.append((T, V, subs))
            self.kinetic_total += T.xreplace(subs)
            self.potential_total += V.xreplace(subs)
        for T, V in self.blocks:  # force elements
            self.kinetic_total += T
            self.potential_total += V
        self.blocks = body_blocks + self.blocks

    def initial_state(self):
        """Exact initial positions (n) and the held velocity conditions (self.held)."""
        x0 = []
        for body in self.order:
            x0 += list(body.x0)
        n = len(x0)

        def unit_row(i):
            row = [sp.Integer(0)] * n
            row[i] = sp.Integer(1)
            return row

        for body in self.order:
            i0 = body.index0
            if body.v0 is not None:
                for a in range(body.dim):
                    self.held.append((f"{body.name} velocity", unit_row(i0 + a), body.v0[a]))
            if body.w0 is not None:
                if body.kind == "planar":
                    self.held.append(
                        (f"{body.name} angular velocity", unit_row(i0 + 2), body.w0[0])
                    )
                else:
                    E = 2 * E_matrix(sp.Matrix(body.x0[3:7]))
                    for a in range(3):
                        row = [sp.Integer(0)] * n
                        row[i0 + 3 : i0 + 7] = list(E.row(a))
                        self.held.append((f"{body.name} angular velocity", row, body.w0[a]))
        return x0

    def add_row(self, name, expr):
        """A constraint row, with its 40-digit noise removed (exact zeros vanish)."""
        self.constraints.append((name, clean(expr)))
