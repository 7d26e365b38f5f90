"""End stops: limits of a coordinate or of a joint's free coordinate (docs/explanation/stops.md).

    stops:
      - {coordinate: q1, lower: -0.5, restitution: 0.5}   # a model given by coordinates
      - {joint: J2, lower: -1.2, upper: 1.2}   # a revolute or prismatic joint of a bodies model
                                               # (its angle or position, `J2` in conditions)

A stop is a unilateral constraint the runtime switches (runtime/src/sim/mcs_stops.c): when the
coordinate reaches a limit, an impact (Newton's restitution law with coefficient e along the
stop, paper 004's momentum-consistent projection in every other direction); for e = 0, or when
the rebounds accumulate, the limit is then held as a lock until its reaction would pull. What
holds it is the coordinate's lock (a coordinate) or the joint's (its row group), so a stop needs
the transitions kernel set, which a model with stops always carries.
"""

from dataclasses import dataclass
from typing import List

from .energy import CONSERVED, DISSIPATED, EnergyBalance

STOP_KEYS = {"coordinate", "joint", "lower", "upper", "restitution"}
LOWER, UPPER = 1, 2  # mcs_stop.sides bits


@dataclass
class Stop:
    name: str  # the coordinate's or the joint's
    coordinate: int = -1  # the coordinate it limits (a model given by coordinates), or -1
    joint: int = -1  # else the joint whose free coordinate it limits
    sides: int = 0  # LOWER | UPPER
    lower: float = 0.0  # 0 where the side is absent
    upper: float = 0.0
    restitution: float = 0.0

    def describe(self) -> str:
        """'-0.5 <= q1 <= 0.5, e = 0.5', for comments and the audit."""
        low = f"{self.lower:.17g} <= " if self.sides & LOWER else ""
        high = f" <= {self.upper:.17g}" if self.sides & UPPER else ""
        return f"{low}{self.name}{high}, e = {self.restitution:g}"


def read_stops(reader, raw, model) -> List[Stop]:
    """The `stops:` list, against the model's coordinates (a model given by coordinates) or its
    joints (a bodies-and-joints model: a revolute or prismatic joint that is not driven)."""
    raw = reader.seq(raw or [], "stops")
    coordinates = [c.name for c in model.coordinates]
    joints = {j.name: k for k, j in enumerate(model.joints)}
    out, seen = [], set()
    for i, spec in enumerate(raw):
        where = f"stops[{i}]"
        spec = reader.mapping(spec, where)
        reader.unknown_keys(spec, STOP_KEYS, where)
        key = "joint" if model.joints else "coordinate"
        other = "coordinate" if model.joints else "joint"
        if other in spec:
            what = "a bodies-and-joints model" if model.joints else "a model given by coordinates"
            reader.fail(f"{where}.{other}", f"{what} limits a {key}: give '{key}'")
        if key not in spec:
            reader.fail(f"{where}.{key}", f"missing required field (the {key} it limits)")
        target = spec[key]
        where_target = f"{where}.{key}"
        if not isinstance(target, str):
            reader.fail(where_target, f"expected a {key} name, got {target!r}")
        if target in seen:
            reader.fail(where_target, f"'{target}' has a stop already: give both limits in one")
        stop = Stop(target)
        if model.joints:
            if target not in joints:
                reader.fail(where_target, f"unknown joint '{target}'")
            joint = model.joints[joints[target]]
            if not joint.type.coordinate or joint.lock is None:
                why = "it is driven" if joint.driven else f"a {joint.type.name} joint"
                reader.fail(
                    where_target,
                    f"'{target}' has no free angle or position to limit ({why}): a stop "
                    "needs a revolute or prismatic joint",
                )
            stop.joint = joints[target]
        else:
            if target not in coordinates:
                reader.fail(where_target, f"unknown coordinate '{target}'")
            stop.coordinate = coordinates.index(target)
        for side, bit in (("lower", LOWER), ("upper", UPPER)):
            if side in spec:
                setattr(stop, side, reader.number(spec[side], f"{where}.{side}"))
                stop.sides |= bit
        if not stop.sides:
            reader.fail(where, "give 'lower', 'upper' or both")
        if stop.sides == LOWER | UPPER and not stop.lower < stop.upper:
            reader.fail(
                f"{where}.upper", f"{stop.upper:g} is not above the lower limit {stop.lower:g}"
            )
        if "restitution" in spec:
            e = reader.number(spec["restitution"], f"{where}.restitution")
            if not 0 <= e <= 1:
                reader.fail(f"{where}.restitution", f"must be within 0 .. 1, got {e:g}")
            stop.restitution = e
        if stop.coordinate >= 0 and model.x0 is not None:
            _check_start(reader, where, stop, model.x0[stop.coordinate])
        seen.add(target)
        out.append(stop)
    return out


def _check_start(reader, where, stop, value):
    """A coordinate must start within its limits (a joint's start is checked at run time, where
    its angle is known)."""
    if stop.sides & LOWER and value < stop.lower:
        reader.fail(f"{where}.lower", f"the initial {stop.name} = {value:g} is below it")
    if stop.sides & UPPER and value > stop.upper:
        reader.fail(f"{where}.upper", f"the initial {stop.name} = {value:g} is above it")


FRICTION_KEYS = {"coordinate", "joint", "kinetic", "static"}


@dataclass
class Friction:
    """Coulomb friction on a coordinate, or on a tree joint's coordinate in joint coordinates:
    -kinetic sign(rate) while it slides, and a lock while it sticks (|holding force| <= static)."""

    name: str  # the coordinate's or the joint's
    coordinate: int = -1  # the coordinate it acts on (a model by coordinates), or -1
    joint: int = -1  # else the joint (its coordinate: joint_coordinate(model))
    kinetic: float = 0.0
    static: float = 0.0

    def coordinate_index(self, model) -> int:
        """The coordinate of x the force acts along (a tree joint's own in joint coordinates)."""
        if self.coordinate >= 0:
            return self.coordinate
        return list(model.x).index(model.joints[self.joint].coordinate)

    def describe(self) -> str:
        return f"{self.name}: kinetic {self.kinetic:g}, static {self.static:g}"


def read_friction(reader, raw, model, formulation) -> List[Friction]:
    """The `friction:` list: a coordinate of a model given by coordinates, or a revolute or
    prismatic joint of a bodies model in joint coordinates (formulation "joint")."""
    raw = reader.seq(raw or [], "friction")
    coordinates = [c.name for c in model.coordinates]
    joints = {j.name: k for k, j in enumerate(model.joints)}
    out, seen = [], set()
    for i, spec in enumerate(raw):
        where = f"friction[{i}]"
        spec = reader.mapping(spec, where)
        reader.unknown_keys(spec, FRICTION_KEYS, where)
        key = "joint" if model.joints else "coordinate"
        other = "coordinate" if model.joints else "joint"
        if other in spec:
            what = "a bodies-and-joints model" if model.joints else "a model given by coordinates"
            reader.fail(f"{where}.{other}", f"{what} has friction on a {key}: give '{key}'")
        if key not in spec:
            reader.fail(f"{where}.{key}", f"missing required field (the {key} it acts on)")
        target = spec[key]
        where_target = f"{where}.{key}"
        if not isinstance(target, str):
            reader.fail(where_target, f"expected a {key} name, got {target!r}")
        if target in seen:
            reader.fail(where_target, f"'{target}' has friction already")
        item = Friction(target)
        if model.joints:
            if target not in joints:
                reader.fail(where_target, f"unknown joint '{target}'")
            joint = model.joints[joints[target]]
            if not joint.type.coordinate or joint.lock is None:
                why = "it is driven" if joint.driven else f"a {joint.type.name} joint"
                reader.fail(
                    where_target,
                    f"'{target}' has no free angle or position to rub ({why}): friction "
                    "needs a revolute or prismatic joint",
                )
            if formulation != "joint":
                reader.fail(
                    where_target,
                    "friction on a joint needs `coordinates: joint` (in body coordinates the "
                    "direction of a joint's friction force is not generated yet)",
                )
            item.joint = joints[target]
        else:
            if target not in coordinates:
                reader.fail(where_target, f"unknown coordinate '{target}'")
            item.coordinate = coordinates.index(target)
        if "kinetic" not in spec:
            reader.fail(f"{where}.kinetic", "missing required field (the sliding level)")
        item.kinetic = reader.number(spec["kinetic"], f"{where}.kinetic")
        if item.kinetic < 0:
            reader.fail(f"{where}.kinetic", f"must be >= 0, got {item.kinetic:g}")
        item.static = item.kinetic
        if "static" in spec:
            item.static = reader.number(spec["static"], f"{where}.static")
            if item.static < item.kinetic:
                reader.fail(
                    f"{where}.static",
                    f"{item.static:g} is below the kinetic level {item.kinetic:g} (static >= "
                    "kinetic)",
                )
        seen.add(target)
        out.append(item)
    return out


def friction_balance(energy, friction):
    """What friction does to the energy balance: a conserved model only dissipates with it."""
    if friction and energy is not None and energy.kind == CONSERVED:
        names = ", ".join(f.name for f in friction[:3]) + (" ..." if len(friction) > 3 else "")
        return EnergyBalance(DISSIPATED, f"friction ({names}) only takes energy out")
    return energy
