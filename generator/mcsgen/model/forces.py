"""The `forces:` of a mechanism file -> generalized forces and spring potentials.

A mixin of mechanism.MechanismBuilder (it reads the builder's coordinates, bodies, joints and
values): applied forces and torques on bodies (their virtual work: Q = (dP/dx)^T F, and for a
spatial torque 2 E(e)^T tau), spring-dampers between two body points, and rotational or
translational spring-dampers on a joint's free coordinate. A spring is a Lagrange block of
potential energy; a damper an applied force -c (rate) d(rate)/dv; every element is listed in
energy_elements for energy.py's judgment of what physics says of T + V.
"""

import sympy as sp

from .bodies import E_matrix

FORCE_KEYS = {
    "name",
    "type",
    "body",
    "point",
    "force",
    "torque",
    "body1",
    "body2",
    "point1",
    "point2",
    "stiffness",
    "damping",
    "rest_length",
    "joint",
    "rest_angle",
}
FORCE_TYPES = (
    "force",
    "torque",
    "spring_damper",
    "rotational_spring_damper",
    "translational_spring_damper",
)


class ForceElements:
    """The force elements of MechanismBuilder (see the module)."""

    def add_applied(self, q):
        if self.applied is None:
            self.applied = sp.zeros(len(self.coords), 1)
        self.applied += q

    def build_forces(self, raw):
        raw = self.ctx.seq(raw or [], "forces")
        n = len(self.coords)
        xs = [c[2] for c in self.coords]
        vs = [c[3] for c in self.coords]
        for i, spec in enumerate(raw):
            where = f"forces[{i}]"
            spec = self.ctx.mapping(spec, where)
            self.ctx.unknown_keys(spec, FORCE_KEYS, where)
            ftype = spec.get("type")
            if ftype not in FORCE_TYPES:
                self.ctx.fail(f"{where}.type", f"'{ftype}' is not one of {', '.join(FORCE_TYPES)}")
            dim = 2 if self.kind == "planar" else 3
            if ftype in ("force", "torque"):
                body = self.body_ref(spec.get("body"), f"{where}.body")
                if body.kind == "ground":
                    self.ctx.fail(f"{where}.body", "forces on ground do nothing")
                idx = range(body.index0, body.index0 + len(body.q))
                Q = sp.zeros(n, 1)
                if ftype == "force":
                    F = sp.Matrix(
                        self.vector(
                            spec.get("force"),
                            f"{where}.force",
                            dim,
                            numeric=False,
                            allow_t=True,
                            allow_u=True,
                        )
                    )
                    p = self.vector(spec.get("point", [0] * dim), f"{where}.point", dim)
                    P = body.point(self.geos(p))
                    for k in idx:
                        Q[k] = (sp.Matrix([sp.diff(P[a], xs[k]) for a in range(dim)]).T * F)[0]
                else:
                    if dim == 2:
                        tau = self.sym(
                            spec.get("torque"), f"{where}.torque", allow_t=True, allow_u=True
                        )
                        Q[body.index0 + 2] = tau
                    else:
                        tau = sp.Matrix(
                            self.vector(
                                spec.get("torque"),
                                f"{where}.torque",
                                3,
                                numeric=False,
                                allow_t=True,
                                allow_u=True,
                            )
                        )
                        # virtual work tau . dtheta_world, dtheta_world = 2 E(e) de
                        Qe = 2 * E_matrix(body.q[3:7]).T * tau
                        for a in range(4):
                            Q[body.index0 + 3 + a] = Qe[a]
                self.add_applied(Q)
                self.energy_elements.append((ftype, where, None))
            elif ftype == "spring_damper":
                b1 = self.body_ref(spec.get("body1"), f"{where}.body1")
                b2 = self.body_ref(spec.get("body2"), f"{where}.body2")
                p1 = self.vector(spec.get("point1", [0] * dim), f"{where}.point1", dim)
                p2 = self.vector(spec.get("point2", [0] * dim), f"{where}.point2", dim)
                k = self.sym(spec.get("stiffness", 0), f"{where}.stiffness")
                c = self.num(spec.get("damping", 0), f"{where}.damping")
                L0 = self.sym(spec.get("rest_length", 0), f"{where}.rest_length")
                delta = b1.point(self.geos(p1)) - b2.point(self.geos(p2))
                d = sp.sqrt((delta.T * delta)[0])
                self.blocks.append((sp.Integer(0), k / 2 * (d - L0) ** 2))
                if c != 0:
                    self.add_damping(c, d, xs, vs)
                    self.energy_elements.append(("damper", where, self.approx_value(c)))
            else:  # a spring-damper on a joint's free coordinate
                jname = spec.get("joint")
                if jname not in self.joints:
                    self.ctx.fail(f"{where}.joint", f"unknown joint '{jname}'")
                rotational = ftype == "rotational_spring_damper"
                needed = "revolute" if rotational else "prismatic"
                if self.joints[jname].type.name != needed:
                    self.ctx.fail(
                        f"{where}.joint",
                        f"a {ftype.replace('_', ' ')} needs a {needed} joint",
                    )
                rest = "rest_angle" if rotational else "rest_length"
                if ("rest_length" if rotational else "rest_angle") in spec:
                    self.ctx.fail(
                        f"{where}.{'rest_length' if rotational else 'rest_angle'}",
                        f"a {ftype.replace('_', ' ')} takes '{rest}'",
                    )
                theta = self.joint_coordinate(jname)
                k = self.sym(spec.get("stiffness", 0), f"{where}.stiffness")
                c = self.num(spec.get("damping", 0), f"{where}.damping")
                th0 = self.sym(spec.get(rest, 0), f"{where}.{rest}")
                before = self.applied
                self.joint_springs.append((jname, len(self.blocks), k, c, th0))
                self.blocks.append((sp.Integer(0), k / 2 * (theta - th0) ** 2))
                if c != 0 and rotational:
                    self.add_rate_damping(c, self.axial_rates[jname], vs)
                    self.energy_elements.append(("damper", where, self.approx_value(c)))
                elif c != 0:
                    self.add_damping(c, theta, xs, vs)
                    self.energy_elements.append(("damper", where, self.approx_value(c)))
                # what it added to the applied forces (joint coordinates put its own in place)
                if c != 0:
                    self.joint_damping.append(
                        self.applied - before if before is not None else self.applied
                    )
                else:
                    self.joint_damping.append(None)

    def build_joint_inputs(self):
        """The `joint:` inputs: a torque u about a revolute joint's axis (Q = u d(rate)/dv, the
        axial rate's form, equal and opposite on the two bodies) or a force u along a prismatic
        one's (Q = u d(translation)/dx); their virtual work is u times the coordinate's."""
        xs = [c[2] for c in self.coords]
        vs = [c[3] for c in self.coords]
        for u in self.inputs:
            if u.joint is None:
                continue
            where = f"{u.where}.joint"
            joint = self.joints.get(u.joint)
            if joint is None:
                self.ctx.fail(where, f"unknown joint '{u.joint}'")
            if joint.type.name not in ("revolute", "prismatic"):
                self.ctx.fail(
                    where,
                    f"'{u.joint}' is a {joint.type.name} joint: a joint input needs a revolute or "
                    "prismatic joint (one free coordinate); write other inputs into forces",
                )
            if joint.driven:
                self.ctx.fail(where, f"joint '{u.joint}' is driven: its motion is prescribed")
            if u.joint in self.axial_rates:
                rate = self.axial_rates[u.joint]
                Q = sp.Matrix([u.symbol * sp.diff(rate, v) for v in vs])
            else:
                q = self.joint_coordinate(u.joint)
                Q = sp.Matrix([u.symbol * sp.diff(q, x) for x in xs])
            self.add_applied(Q)
            self.joint_inputs.append((u.joint, Q, u.symbol))
            # no work at u = 0, the descriptor's balance (energy.mechanism_balance)
            self.energy_elements.append(("input", u.where, None))

    def add_damping(self, c, coord, xs, vs):
        """Q = -c (d coord/dt) d coord/dx for a scalar coordinate of x."""
        grad = [sp.diff(coord, x) for x in xs]
        rate = sum((g * v for g, v in zip(grad, vs) if g != 0), sp.Integer(0))
        self.add_applied(sp.Matrix([-c * rate * g for g in grad]))

    def add_rate_damping(self, c, rate, vs):
        """Q = -c rate d rate/dv for a rate linear in v (a revolute joint's axial_rate): the
        damper's torque -c rate about the axis, equal and opposite on the two bodies. Where the
        joint's rows hold it is add_damping of the joint angle, force and power alike (the
        angle's gradient is then a pure axial rotation too); its expressions are polynomials of
        e instead of the angle's rational functions, a small part of the size of K_f and D."""
        self.add_applied(sp.Matrix([-c * rate * sp.diff(rate, v) for v in vs]))
