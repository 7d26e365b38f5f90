"""The joint library (paper 003 §2, Table 1): one entry per joint type, and the joints of a model.

A joint connects frame F1 on body1 to frame F2 on body2. Its constraint rows are chosen from the
translation of F1's origin in F2's basis (x, y, z) and the imaginary part of the relative
rotation (Rx, Ry, Rz); the joint axis is the frames' x axis. mechanism.py builds the rows; this
module says which rows, which fields and which free coordinate, and what a lock of it holds.
"""

from dataclasses import dataclass
from typing import Optional

import sympy as sp

from .switches import ROTATION_BITS, RowGroup

COMMON_KEYS = frozenset({"name", "type", "body1", "body2"})
SPATIAL_KEYS = COMMON_KEYS | {
    "point",
    "point1",
    "point2",
    "axis",
    "axis1",
    "axis2",
    "rate",
    "initial",
    "start",
    "drive",
    "cut",
}
PLANAR_KEYS = COMMON_KEYS | {
    "point",
    "point1",
    "point2",
    "axis",
    "rate",
    "initial",
    "start",
    "drive",
    "cut",
}


@dataclass(frozen=True)
class JointType:
    name: str
    kind: str  # "spatial" | "planar"
    rows: tuple  # row names, in order: 003 Table 1 (spatial) or the planar rows
    keys: frozenset  # fields of its mechanism-file entry
    coordinate: str = ""  # the free coordinate a `rate` refers to: "angle", "translation" or ""
    what: str = ""  # what the rows leave free, for messages and the manual
    # as a tree joint of joint coordinates (model/joint_coordinates.py): the coordinates of its
    # motion, (name after the joint's and a dot, or "" for the joint's own name; unit), or
    # None: never a tree joint (its rows, between its bodies' poses: a cut joint)
    tree: Optional[tuple] = None

    @property
    def has_rate(self):
        return bool(self.coordinate)

    @property
    def dof(self):
        """The degrees of freedom it leaves (the tree takes joints of fewer first)."""
        return (6 if self.kind == "spatial" else 3) - len(self.rows)


def _spatial(name, rows, coordinate="", extra=(), what="", tree=None):
    keys = SPATIAL_KEYS | set(extra)
    return JointType(name, "spatial", rows, frozenset(keys), coordinate, what, tree)


def _planar(name, rows, coordinate="", extra=(), what="", tree=None):
    return JointType(name, "planar", rows, PLANAR_KEYS | set(extra), coordinate, what, tree)


ANGLE, LENGTH = (("", "rad"),), (("", "m"),)


# rows of each spatial joint type: translational x y z, rotational Rx Ry Rz (003 Table 1); the
# universal joint adds `perp` (axis1 . axis2 = 0) and the distance joint `d`
SPATIAL_TYPES = {
    t.name: t
    for t in (
        _spatial("fix", ("x", "y", "z", "Rx", "Ry", "Rz"), what="nothing", tree=()),
        _spatial(
            "revolute",
            ("x", "y", "z", "Ry", "Rz"),
            "angle",
            extra=("rotor_inertia",),
            what="rotation about the axis",
            tree=ANGLE,
        ),
        _spatial(
            "prismatic",
            ("y", "z", "Rx", "Ry", "Rz"),
            "translation",
            what="translation along the axis",
            tree=LENGTH,
        ),
        _spatial(
            "cylindrical",
            ("y", "z", "Ry", "Rz"),
            what="rotation about and translation " "along the axis",
            tree=(("translation", "m"), ("angle", "rad")),
        ),
        _spatial(
            "spherical",
            ("x", "y", "z"),
            what="every rotation about the point",
            # the relative rotation's Euler parameters, with their norm row (as a body's)
            tree=tuple((f"e{k}", "1") for k in range(4)),
        ),
        _spatial(
            "planar",
            ("x", "Ry", "Rz"),
            what="motion in the plane normal to the axis",
            tree=(("y", "m"), ("z", "m"), ("angle", "rad")),
        ),
        _spatial(
            "parallel",
            ("Ry", "Rz"),
            what="translations, rotation about the axis",
            tree=(("x", "m"), ("y", "m"), ("z", "m"), ("angle", "rad")),
        ),
        _spatial("orthogonal", ("Rx",), what="everything but the twist about the axis"),
        _spatial(
            "distance_along_axis",
            ("x",),
            extra=("distance",),
            what="all but the offset along the axis",
        ),
        _spatial(
            "universal",
            ("x", "y", "z", "perp"),
            what="the rotations about axis1 (on body1) and axis2 (on body2)",
            tree=(("angle1", "rad"), ("angle2", "rad")),
        ),
        _spatial("distance", ("d",), extra=("distance",), what="all but the distance"),
    )
}
PLANAR_TYPES = {
    t.name: t
    for t in (
        _planar(
            "revolute", ("x", "y"), "angle", extra=("rotor_inertia",), what="rotation", tree=ANGLE
        ),
        _planar(
            "prismatic",
            ("n", "theta"),
            "translation",
            what="translation along the axis",
            tree=LENGTH,
        ),
        _planar("fix", ("x", "y", "theta"), what="nothing", tree=()),
    )
}
# the types a tree joint may have, with the degrees of freedom each leaves (model/tree.py)
TREE_TYPES = {
    t.name: t.dof for t in (*SPATIAL_TYPES.values(), *PLANAR_TYPES.values()) if t.tree is not None
}
# 003 Table 1's rows per spatial type (without the universal and distance extras)
SPATIAL_JOINTS = {
    name: tuple(r for r in t.rows if r in ("x", "y", "z", "Rx", "Ry", "Rz"))
    for name, t in SPATIAL_TYPES.items()
}


def joint_rate_label(joint):
    """What a joint's held initial rate is called (Model.held, the initial-velocity report)."""
    return f"joint {joint} rate"


def joint_types(kind):
    """The joint types of a kind of body ("spatial" or "planar"), by name."""
    return PLANAR_TYPES if kind == "planar" else SPATIAL_TYPES


@dataclass
class Joint:
    """One joint of a model, as the descriptor and later stages see it."""

    name: str
    type: JointType
    body1: str
    body2: str
    first_row: int  # index of its first constraint row in the model
    nrows: int  # its rows are first_row .. first_row + nrows - 1 (drive rows included)
    coordinate: Optional[sp.Expr] = None  # its free coordinate as an expression of x, if any
    driven: bool = False
    lock: Optional[RowGroup] = None  # the rows that make it a fixed joint (None: nothing to lock)
    lock_group: int = -1  # index of `lock` in the model's row groups

    @property
    def rows(self):
        return range(self.first_row, self.first_row + self.nrows)


def spatial_lock(name, jtype, translation, rotation):
    """The lock of a spatial joint: the components of the fixed joint's rows (x, y, z, Rx, Ry, Rz)
    that the type does not have. translation (3): F1's origin in F2's basis; rotation (4): the
    relative rotation conj(rho_F2) rho_F1, both without drives. None for a fixed joint."""
    free = [r for r in ("x", "y", "z", "Rx", "Ry", "Rz") if r not in SPATIAL_JOINTS[jtype]]
    if not free:
        return None
    bits = sum(ROTATION_BITS[r] for r in free if r in ROTATION_BITS)
    entries = [translation["xyz".index(r)] for r in free if r in ("x", "y", "z")]
    return RowGroup(
        name,
        rotation=tuple(rotation) if bits else None,
        rotation_rows=bits,
        entries=entries,
        what=" ".join(free),
    )
