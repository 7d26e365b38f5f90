"""Reading a URDF file into plain records, safely (docs/reference/urdf.md).

The XML is parsed by defusedxml with document type declarations refused: no entity expansion
(billion laughs), no external entities, no network. Every number is read from its decimal text
as an exact fraction (never `eval`, never `float` of untrusted text first), so the imported
model's numbers are the file's digits. A problem is one ImportError_ naming the file and the
element path (`robot/joint[@name='elbow']/origin/@rpy`) and what is wrong.
"""

import re
from dataclasses import dataclass, field
from fractions import Fraction
from typing import List, Optional

import defusedxml
import defusedxml.ElementTree as SafeET

from ..errors import ModelError

MAX_BYTES = 50 * 1024 * 1024  # larger files are not robot descriptions
NUMBER = re.compile(r"^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d{1,3})?$")
JOINT_TYPES = ("revolute", "continuous", "prismatic", "fixed", "floating", "planar")
ZERO3 = (Fraction(0),) * 3
MAX_MAGNITUDE = 10**12  # larger is no length, mass or inertia of a robot (and overflows later)


@dataclass
class Inertial:
    mass: Fraction
    xyz: tuple  # (3) centre of mass in the link frame
    rpy: tuple  # (3) orientation of the inertia frame in the link frame
    inertia: tuple  # (ixx, ixy, ixz, iyy, iyz, izz) about the centre of mass, inertia frame


@dataclass
class Link:
    name: str
    where: str
    inertial: Optional[Inertial] = None


@dataclass
class Joint:
    name: str
    where: str
    type: str
    parent: str
    child: str
    xyz: tuple = ZERO3  # origin of the joint frame in the parent link frame
    rpy: tuple = ZERO3
    axis: tuple = (Fraction(1), Fraction(0), Fraction(0))  # in the joint frame
    damping: Fraction = Fraction(0)
    friction: Fraction = Fraction(0)
    limit: Optional[dict] = None  # lower, upper, effort, velocity (as given)
    mimic: Optional[str] = None


@dataclass
class Robot:
    name: str
    links: dict  # name -> Link, file order
    joints: List[Joint]
    ignored: dict = field(default_factory=dict)  # element tag -> count (materials, gazebo, ...)


def fail(path, where, problem):
    raise ModelError(path, where, problem)


def numbers(path, element, attr, where, count, default=None):
    """The `count` numbers of an attribute (exact fractions), or `default` when it is absent."""
    text = element.get(attr)
    if text is None:
        if default is None:
            fail(path, f"{where}/@{attr}", "missing attribute")
        return default
    tokens = text.split()
    if len(tokens) != count:
        shown = text if len(text) <= 40 else text[:37] + "..."
        fail(path, f"{where}/@{attr}", f"expected {count} number(s), got '{shown}'")
    values = []
    for tok in tokens:
        if "${" in tok or "$(" in tok:
            fail(path, f"{where}/@{attr}", f"'{tok}' is a xacro expression: run xacro first")
        if not NUMBER.match(tok):
            shown = tok if len(tok) <= 40 else tok[:37] + "..."
            fail(path, f"{where}/@{attr}", f"'{shown}' is not a finite decimal number")
        value = Fraction(tok)
        if abs(value) > MAX_MAGNITUDE:
            fail(
                path,
                f"{where}/@{attr}",
                f"'{tok}' is not a finite decimal number of a robot "
                f"(magnitude above {MAX_MAGNITUDE:.0e})",
            )
        values.append(value)
    return tuple(values)


def number(path, element, attr, where, default=None):
    values = numbers(path, element, attr, where, 1, None if default is None else (default,))
    return values[0]


def parse(path):
    """The Robot of a URDF file; ModelError on anything malformed or hostile."""
    try:
        with open(path, "rb") as fh:
            data = fh.read(MAX_BYTES + 1)
    except OSError as exc:
        fail(path, "", f"cannot read ({exc.strerror or exc})")
    if len(data) > MAX_BYTES:
        fail(path, "", f"larger than {MAX_BYTES // (1024 * 1024)} MiB: not a robot description")
    try:
        root = SafeET.fromstring(data, forbid_dtd=True)
    except defusedxml.DTDForbidden:
        fail(path, "<!DOCTYPE>", "document type declarations are refused (no entities, no DTDs)")
    except (defusedxml.EntitiesForbidden, defusedxml.ExternalReferenceForbidden):
        fail(path, "<!ENTITY>", "entities are refused (no expansion, no external references)")
    except SafeET.ParseError as exc:
        line, col = getattr(exc, "position", (0, 0))
        reason = str(exc).split(":")[0]
        fail(path, f"line {line}, column {col + 1}", f"not well-formed XML ({reason})")
    except (ValueError, UnicodeError) as exc:
        fail(path, "", f"not a readable XML document ({exc})")
    if _tag(root) != "robot":
        fail(path, f"<{_tag(root)}>", "the root element of a URDF file must be <robot>")
    robot = Robot(name=root.get("name") or "", links={}, joints=[])
    seen_joints = set()
    for element in root:
        tag = _tag(element)
        if not isinstance(element.tag, str):
            continue  # comments, processing instructions
        if tag == "link":
            link = _link(path, element)
            if link.name in robot.links:
                fail(path, link.where, f"duplicate link name '{link.name}'")
            robot.links[link.name] = link
        elif tag == "joint":
            joint = _joint(path, element)
            if joint.name in seen_joints:
                fail(path, joint.where, f"duplicate joint name '{joint.name}'")
            seen_joints.add(joint.name)
            robot.joints.append(joint)
        else:  # material, transmission, gazebo, xacro leftovers: nothing to simulate
            robot.ignored[tag] = robot.ignored.get(tag, 0) + 1
    if not robot.links:
        fail(path, "robot", "no <link> elements")
    return robot


def _tag(element):
    tag = element.tag if isinstance(element.tag, str) else ""
    if tag.startswith("{"):  # a namespaced leftover, e.g. {http://.../xacro}macro
        uri, local = tag[1:].split("}", 1)
        return f"{'xacro' if 'xacro' in uri else uri}:{local}"
    return tag


def _name(path, element, kind):
    name = element.get("name")
    if not name or not name.strip():
        fail(path, f"robot/{kind}", "missing attribute 'name'")
    if len(name) > 200:
        fail(path, f"robot/{kind}", f"name longer than 200 characters ('{name[:40]}...')")
    return name


def _one(path, element, tag, where, required=False):
    found = [c for c in element if _tag(c) == tag]
    if len(found) > 1:
        fail(path, f"{where}/{tag}", f"more than one <{tag}>")
    if not found and required:
        fail(path, f"{where}/{tag}", "missing element")
    return found[0] if found else None


def _origin(path, element, where):
    origin = _one(path, element, "origin", where)
    if origin is None:
        return ZERO3, ZERO3
    w = f"{where}/origin"
    return numbers(path, origin, "xyz", w, 3, ZERO3), numbers(path, origin, "rpy", w, 3, ZERO3)


def _link(path, element):
    name = _name(path, element, "link")
    where = f"robot/link[@name='{name}']"
    link = Link(name=name, where=where)
    inertial = _one(path, element, "inertial", where)
    if inertial is not None:
        w = f"{where}/inertial"
        xyz, rpy = _origin(path, inertial, w)
        mass_el = _one(path, inertial, "mass", w, required=True)
        mass = number(path, mass_el, "value", f"{w}/mass")
        if mass < 0:
            fail(path, f"{w}/mass/@value", f"mass must not be negative, got {float(mass):g}")
        inertia_el = _one(path, inertial, "inertia", w)
        keys = ("ixx", "ixy", "ixz", "iyy", "iyz", "izz")
        if inertia_el is None:
            inertia = (Fraction(0),) * 6
        else:
            inertia = tuple(number(path, inertia_el, k, f"{w}/inertia", Fraction(0)) for k in keys)
        link.inertial = Inertial(mass=mass, xyz=xyz, rpy=rpy, inertia=inertia)
    return link


def _joint(path, element):
    name = _name(path, element, "joint")
    where = f"robot/joint[@name='{name}']"
    jtype = element.get("type")
    if jtype is None:
        fail(path, f"{where}/@type", "missing attribute")
    if jtype not in JOINT_TYPES:
        fail(
            path, f"{where}/@type", f"'{jtype}' is not a URDF joint type ({', '.join(JOINT_TYPES)})"
        )
    ends = {}
    for tag in ("parent", "child"):
        el = _one(path, element, tag, where, required=True)
        link = el.get("link")
        if not link:
            fail(path, f"{where}/{tag}/@link", "missing attribute")
        ends[tag] = link
    xyz, rpy = _origin(path, element, where)
    joint = Joint(name, where, jtype, ends["parent"], ends["child"], xyz, rpy)
    axis = _one(path, element, "axis", where)
    if axis is not None:
        joint.axis = numbers(path, axis, "xyz", f"{where}/axis", 3)
        if not any(joint.axis) and jtype not in ("fixed", "floating"):
            fail(path, f"{where}/axis/@xyz", "the axis has zero length")
    dynamics = _one(path, element, "dynamics", where)
    if dynamics is not None:
        w = f"{where}/dynamics"
        joint.damping = number(path, dynamics, "damping", w, Fraction(0))
        joint.friction = number(path, dynamics, "friction", w, Fraction(0))
        if joint.damping < 0:
            fail(
                path, f"{w}/@damping", f"damping must not be negative, got {float(joint.damping):g}"
            )
    limit = _one(path, element, "limit", where)
    if limit is not None:
        joint.limit = {
            k: number(path, limit, k, f"{where}/limit")
            for k in ("lower", "upper", "effort", "velocity")
            if limit.get(k) is not None
        }
    mimic = _one(path, element, "mimic", where)
    if mimic is not None:
        joint.mimic = mimic.get("joint") or "?"
    return joint
