"""A parsed URDF robot -> the bodies and joints of an mcsgen mechanism at a given pose.

- The root link is fixed to the ground; links on `fixed` joints are merged into their parent
  (mass, centre of mass and inertia combined by the parallel-axis theorem), so the model gets no
  constraint rows for them; so are links on `revolute` and `prismatic` joints whose limits are
  equal (lower = upper: the joint cannot move), at that position; `floating` children become
  free bodies.
- A body's frame is its URDF link frame (axes and all), its position the centre of mass; the
  inertia is rotated from the inertial frame into the link frame.
- Poses follow URDF: child link frame = parent frame * origin(xyz, rpy) * motion(q), with
  R(rpy) = Rz(yaw) Ry(pitch) Rx(roll); revolute and continuous joints turn about `axis`,
  prismatic ones slide along it.

All arithmetic is mpmath at DIGITS digits on the file's exact numbers: the written model is the
same on every machine (docs/explanation/determinism.md).
"""

from dataclasses import dataclass, field
from fractions import Fraction
from typing import List, Optional

import mpmath

from ..errors import ModelError

DIGITS = 50
MOVING = ("revolute", "continuous", "prismatic", "planar")
# A principal moment below this fraction of the body's largest (or of mass x 1 m^2 when all are
# zero) is raised to it: a rigid body needs a positive definite inertia.
MIN_MOMENT = mpmath.mpf("1e-6")


@dataclass
class Frame:
    """A rigid transform: rotation R (3 x 3 mpmath matrix) and translation p (3 x 1)."""

    R: object
    p: object

    @staticmethod
    def identity():
        return Frame(mpmath.eye(3), mpmath.matrix(3, 1))

    def __mul__(self, other):
        return Frame(self.R * other.R, self.R * other.p + self.p)

    def apply(self, point):
        return self.R * point + self.p


@dataclass
class Body:
    name: str  # mcsgen name
    link: str  # the URDF link whose frame is the body frame
    mass: object = None  # mpf
    com: object = None  # (3 x 1) centre of mass, link frame
    inertia: object = None  # (3 x 3) about the centre of mass, link frame
    merged: List[str] = field(default_factory=list)  # URDF links merged into it
    inertia_check: str = "strict"  # "warn": identified data kept although not a rigid body's
    world: Optional[Frame] = None  # link frame in the world at the pose


@dataclass
class Joint:
    name: str  # mcsgen name
    urdf: object  # read.Joint
    parent: str  # body name or "ground"
    child: str
    frame: Frame = None  # joint frame in the parent body's link frame
    q: object = None  # its coordinate at the pose (mpf), None for planar
    qd: object = None  # its rate (mpf)


def mp(value):
    return mpmath.mpf(value.numerator) / value.denominator


def vec(values):
    return mpmath.matrix([mp(v) for v in values])


def rpy_matrix(rpy):
    r, p, y = (mp(v) for v in rpy)
    cr, sr, cp, sp_, cy, sy = (
        mpmath.cos(r),
        mpmath.sin(r),
        mpmath.cos(p),
        mpmath.sin(p),
        mpmath.cos(y),
        mpmath.sin(y),
    )
    Rx = mpmath.matrix([[1, 0, 0], [0, cr, -sr], [0, sr, cr]])
    Ry = mpmath.matrix([[cp, 0, sp_], [0, 1, 0], [-sp_, 0, cp]])
    Rz = mpmath.matrix([[cy, -sy, 0], [sy, cy, 0], [0, 0, 1]])
    return Rz * Ry * Rx


def axis_rotation(u, angle):
    """Rotation by `angle` about the unit axis u (3 x 1), Rodrigues."""
    c, s = mpmath.cos(angle), mpmath.sin(angle)
    K = mpmath.matrix([[0, -u[2], u[1]], [u[2], 0, -u[0]], [-u[1], u[0], 0]])
    return mpmath.eye(3) + s * K + (1 - c) * K * K


def unit(values):
    v = vec(values)
    return v / mpmath.norm(v)


def inertia_matrix(six):
    ixx, ixy, ixz, iyy, iyz, izz = (mp(v) for v in six)
    return mpmath.matrix([[ixx, ixy, ixz], [ixy, iyy, iyz], [ixz, iyz, izz]])


def motion(j, value):
    """The child link frame in the joint frame of URDF joint j (read.Joint) at coordinate
    `value` (mpf): a turn about `axis` (revolute, continuous), a slide along it (prismatic)."""
    if j.type in ("revolute", "continuous"):
        return Frame(axis_rotation(unit(j.axis), value), mpmath.matrix(3, 1))
    if j.type == "prismatic":
        return Frame(mpmath.eye(3), unit(j.axis) * value)
    return Frame.identity()


def equal_limits(j):
    """The position (Fraction) of a revolute or prismatic URDF joint whose <limit> lower and
    upper are equal (it cannot move), else None."""
    limit = j.limit or {}
    if j.type in ("revolute", "prismatic") and "lower" in limit and "upper" in limit:
        if limit["lower"] == limit["upper"]:
            return limit["lower"]
    return None


def decimal(value):
    """A Fraction's text for a note: 0.3, 1e-05 (15 significant digits at most)."""
    return format(float(value), ".15g")


def steiner(mass, d):
    """Parallel-axis term m (|d|^2 1 - d d^T) (3 x 3)."""
    return mass * ((d.T * d)[0] * mpmath.eye(3) - d * d.T)


class Tree:
    """The mechanism of a Robot at pose q (dict joint name -> Fraction) and rates qd. Build and
    render it inside mpmath.workdps(DIGITS) (urdf.import_urdf does): the global precision, which
    other stages read, is never changed."""

    def __init__(self, path, robot, q=None, qd=None, names=None, coordinates="joint"):
        self.path = path
        self.coordinates = coordinates  # the file's: joint coordinates keep massless carriers
        self.robot = robot
        self.notes = []  # what the import did, one line per item
        self.bodies = {}  # name -> Body, in tree order
        self.joints = []  # [Joint]
        self.free = []  # bodies on floating joints (no joint)
        self.locked = {}  # URDF joint name -> position (Fraction): equal limits, merged as fixed
        self.names = names  # link/joint name -> mcsgen name
        self.root = self._root()
        self._build()
        self._drop_massless()
        self._pose(q or {}, qd or {})

    def fail(self, where, problem):
        raise ModelError(self.path, where, problem)

    # --- structure ------------------------------------------------------------------------------
    def _root(self):
        robot = self.robot
        parent_of = {}
        for j in robot.joints:
            for end in ("parent", "child"):
                link = getattr(j, end)
                if link not in robot.links:
                    self.fail(f"{j.where}/{end}/@link", f"unknown link '{link}'")
            if j.parent == j.child:
                self.fail(
                    f"{j.where}/child/@link", f"the joint connects link '{j.child}' to itself"
                )
            if j.child in parent_of:
                first = parent_of[j.child]
                self.fail(
                    f"{j.where}/child/@link",
                    f"link '{j.child}' already has a parent joint ('{first.name}'): "
                    "a URDF robot is a tree",
                )
            parent_of[j.child] = j
        roots = [name for name in robot.links if name not in parent_of]
        if not roots:
            self.fail("robot", "the joints form a cycle (every link has a parent): no root link")
        if len(roots) > 1:
            self.fail(
                f"robot/link[@name='{roots[1]}']",
                f"more than one root link ({', '.join(roots[:4])}"
                f"{', ...' if len(roots) > 4 else ''}): connect them by joints",
            )
        # every link must be reachable from the root (else the rest forms a cycle)
        children = {}
        for j in robot.joints:
            children.setdefault(j.parent, []).append(j)
        self.children = children
        seen, stack = {roots[0]}, [roots[0]]
        while stack:
            for j in children.get(stack.pop(), []):
                seen.add(j.child)
                stack.append(j.child)
        lost = [name for name in robot.links if name not in seen]
        if lost:
            self.fail(
                robot.links[lost[0]].where,
                f"link '{lost[0]}' is on a cycle of joints, not reachable from the root link "
                f"'{roots[0]}'",
            )
        return roots[0]

    def _build(self):
        """Bodies and joints, merging fixed children; breadth-first from the root."""
        # where each URDF link ended up: (body name or "ground", frame of the link in that body)
        self.place = {self.root: ("ground", Frame.identity())}
        self.notes.append(f"link '{self.root}' (the root) is fixed to the ground")
        queue = [self.root]
        while queue:
            link_name = queue.pop(0)
            owner, T_link = self.place[link_name]
            for j in self.children.get(link_name, []):
                origin = Frame(rpy_matrix(j.rpy), vec(j.xyz))
                if j.mimic is not None:
                    self.fail(
                        f"{j.where}/mimic",
                        f"<mimic> (joint '{j.name}' following '{j.mimic}') is not supported: "
                        "remove the element to import the joint as independent",
                    )
                at = equal_limits(j)
                if j.type == "fixed" or at is not None:
                    # a joint that cannot move is a fixed one at its position
                    T_child = T_link * origin
                    if at is not None:
                        T_child = T_child * motion(j, mp(at))
                        self.locked[j.name] = at
                    self.place[j.child] = (owner, T_child)
                    if owner != "ground":
                        self._add_inertial(self.bodies[owner], j.child, T_child)
                        self.bodies[owner].merged.append(j.child)
                    into = "the ground" if owner == "ground" else repr(owner)
                    if at is None:
                        self.notes.append(
                            f"fixed joint '{j.name}': link '{j.child}' merged into {into}"
                        )
                    else:
                        self.notes.append(
                            f"joint '{j.name}' ({j.type}) has equal limits (lower = upper = "
                            f"{decimal(at)}): imported as fixed at {decimal(at)}, link "
                            f"'{j.child}' merged into {into}"
                        )
                else:
                    body = Body(
                        self.names[j.child],
                        j.child,
                        mpmath.mpf(0),
                        mpmath.matrix(3, 1),
                        mpmath.matrix(3, 3),
                    )
                    self.bodies[body.name] = body
                    self._add_inertial(body, j.child, Frame.identity())
                    self.place[j.child] = (body.name, Frame.identity())
                    if j.type == "floating":
                        self.free.append((body.name, owner, T_link * origin, j))
                        self.notes.append(
                            f"floating joint '{j.name}': link '{j.child}' is a free body "
                            "(no constraint rows)"
                        )
                    else:
                        self.joints.append(
                            Joint(self.names[j.name], j, owner, body.name, T_link * origin)
                        )
                queue.append(j.child)

    def _add_inertial(self, body, link_name, T):
        """Adds a URDF link's inertial to body (T: the link's frame in the body's frame)."""
        inertial = self.robot.links[link_name].inertial
        if inertial is None or inertial.mass == 0:
            return
        m = mp(inertial.mass)
        R_i = T.R * rpy_matrix(inertial.rpy)  # inertia frame in the body frame
        J = R_i * inertia_matrix(inertial.inertia) * R_i.T
        c = T.apply(vec(inertial.xyz))
        total = body.mass + m
        com = (body.mass * body.com + m * c) / total
        body.inertia = body.inertia + steiner(body.mass, body.com - com) + J + steiner(m, c - com)
        body.mass, body.com = total, com

    def _drop_massless(self):
        """A body without mass cannot be simulated: dropped (with its joint) when nothing hangs
        on it, refused when it carries other bodies."""
        for name in reversed(list(self.bodies)):
            body = self.bodies[name]
            if body.mass > 0:
                continue
            carried = [j for j in self.joints if j.parent == name] + [
                f for f in self.free if f[1] == name
            ]
            link = self.robot.links[body.link]
            movable = [j for j in carried if isinstance(j, Joint)]
            if carried and self.coordinates == "joint" and len(movable) == len(carried):
                # joint coordinates: only a subtree's composite inertia enters M (the
                # generator checks that M stays positive definite)
                body.inertia = mpmath.zeros(3, 3)
                self.notes.append(
                    f"link '{body.link}' has no mass and carries joint '{movable[0].urdf.name}': "
                    "kept as a massless link (joint coordinates)"
                )
                continue
            if carried:
                first = carried[0]
                what = first.urdf.name if isinstance(first, Joint) else first[3].name
                self.fail(
                    f"{link.where}/inertial",
                    f"link '{body.link}' has no mass but moves and carries joint '{what}': give "
                    "it an <inertial> (every moving body needs a mass in body coordinates; "
                    "joint coordinates, the default, keep a massless link)",
                )
            self.joints = [j for j in self.joints if j.child != name]
            self.free = [f for f in self.free if f[0] != name]
            del self.bodies[name]
            self.notes.append(
                f"link '{body.link}' has no mass and carries nothing: dropped with its joint"
            )
        if not self.bodies:
            self.fail("robot", "no link with a mass moves: nothing to simulate")
        for body in self.bodies.values():
            if body.mass > 0:
                self._check_inertia(body)

    def _check_inertia(self, body):
        """A rigid body's principal moments are positive and satisfy J1 + J2 >= J3. Identified
        data that violate only the triangle inequality are kept as given, with the body's
        `inertia_check: warn` (the model warns at every generation); moments that are not
        positive (a point mass) make the mass matrix singular: all three are raised by the
        smallest equal amount that makes them valid (MIN_MOMENT of the largest moment, or of
        mass x 1 m^2). Either is said."""
        moments = sorted(mpmath.eigsy(body.inertia)[0])
        was = ", ".join(f"{float(m):.6g}" for m in moments)
        if moments[0] > 0:
            if moments[2] > moments[0] + moments[1]:
                body.inertia_check = "warn"
                self.notes.append(
                    f"link '{body.link}': inertia violates the triangle inequality J1 + J2 >= J3 "
                    f"(principal moments {was}): kept as given with inertia_check: warn (correct "
                    "the inertia to make it a rigid body's)"
                )
            return
        scale = moments[2] if moments[2] > 0 else body.mass * 1  # kg m^2
        raise_by = max(MIN_MOMENT * scale - moments[0], moments[2] - moments[0] - moments[1])
        body.inertia = body.inertia + raise_by * mpmath.eye(3)
        self.notes.append(
            f"link '{body.link}': inertia not positive definite (principal moments {was}); each "
            f"principal moment raised by {float(raise_by):.6g} kg m^2 (edit the body's inertia "
            "to override)"
        )

    # --- pose -----------------------------------------------------------------------------------
    def _pose(self, q, qd):
        known = {j.urdf.name: j for j in self.joints}
        floating = {f[3].name for f in self.free}
        for option, values in (("--q", q), ("--qd", qd)):
            for name, value in values.items():
                where = f"{option} {name}"
                if name in self.locked:
                    self._check_locked(where, name, value, option == "--qd")
                    continue
                if name in floating:
                    self.fail(where, "a floating joint has no single coordinate to set")
                if name not in known:
                    urdf = [j for j in self.robot.joints if j.name == name]
                    problem = (
                        f"joint '{name}' is {urdf[0].type} (merged or dropped): it has no "
                        "coordinate"
                        if urdf
                        else f"no joint named '{name}'"
                    )
                    self.fail(where, problem)
                if known[name].urdf.type == "planar":
                    self.fail(where, "a planar joint has no single coordinate to set")
        # the bodies are written at the joints' zero (the URDF's own frames: rotations of 0 and
        # +-1 where its origins have them, which the joint-coordinate kernels keep short), and
        # each joint's --q becomes its `start:`, from which the generator places them
        for j in self.joints:
            value = mp(q.get(j.urdf.name, 0))
            j.q = None if j.urdf.type == "planar" else value
            j.qd = None if j.urdf.type == "planar" else mp(qd.get(j.urdf.name, 0))
            self._check_limit(j, value)
        # the bodies are in breadth-first order, a body's parent before it, whether it hangs on a
        # joint or is free (a floating base carries the robot: its children are placed from it)
        placed = {j.child: (j.parent, j.frame * motion(j.urdf, 0)) for j in self.joints}
        placed.update({name: (owner, frame) for name, owner, frame, _ in self.free})
        world = {"ground": Frame.identity()}
        for name in self.bodies:
            parent, frame = placed[name]
            world[name] = world[parent] * frame
        ordered = {}
        for name in self.bodies:  # bodies in tree order, with their world frames
            body = self.bodies[name]
            body.world = world[name]
            ordered[name] = body
        self.bodies = ordered

    def _check_locked(self, where, name, value, rate):
        """--q or --qd of a joint imported as fixed (equal limits): only its position, at rest.
        A --q within 1e-15 (relative) of the limit is the limit (--q pi/2 for a 17-digit
        1.5707963267948966)."""
        at = self.locked[name]
        if rate and value != 0:
            self.fail(
                where,
                f"joint '{name}' has equal limits (lower = upper = {decimal(at)}) and is "
                "imported as fixed: it cannot move (leave --qd out)",
            )
        if not rate and abs(value - at) > Fraction(1, 10**15) * max(1, abs(at)):
            self.fail(
                where,
                f"joint '{name}' has equal limits (lower = upper = {decimal(at)}) and is "
                f"imported as fixed at {decimal(at)}, not {decimal(value)} (leave --q out)",
            )

    def _check_limit(self, j, value):
        limit = j.urdf.limit or {}
        if j.urdf.type in ("revolute", "prismatic") and "lower" in limit and "upper" in limit:
            lo, hi = mp(limit["lower"]), mp(limit["upper"])
            if not lo <= value <= hi:
                self.notes.append(
                    f"joint '{j.urdf.name}': the start value {float(value):g} is outside its "
                    f"limits [{float(lo):g}, {float(hi):g}]"
                )

    def moved_inertia(self, j):
        """The smallest inertia joint j (revolute, continuous or prismatic) moves, as mpf: the
        child body alone (its links merged on fixed joints), not the bodies beyond further
        joints, which those joints may let stay behind: about the joint axis for a turning
        joint (m |c_perp|^2 + u^T J u; the axis passes through the child link frame's origin
        along u in that frame), its mass for a sliding one. The stiffness warning divides the
        joint's damping by it."""
        body = self.bodies[j.child]
        if j.urdf.type == "prismatic":
            return body.mass
        u = unit(j.urdf.axis)
        c = body.com
        off_axis = c - (u.T * c)[0] * u
        return (u.T * body.inertia * u)[0] + body.mass * (off_axis.T * off_axis)[0]

    def joint_world(self, j):
        """(point, axis) of a joint in the world at the pose (3 x 1 each)."""
        frame = self.bodies_world(j.parent) * j.frame
        return frame.p, frame.R * unit(j.urdf.axis)

    def bodies_world(self, name):
        return Frame.identity() if name == "ground" else self.bodies[name].world
