"""Switchable constraints and the events that switch them (README, "Transitions"; paper 004).

    switches:                     # named groups of rows, inactive until an event activates them
      - {name: lock2, lock: q2}   # lock a coordinate: the row q2 - q2(t_event) = 0
      - {name: brake, lock: J2}   # lock a joint whose free coordinate is linear in x (a planar
                                  # revolute joint: its relative angle theta1 - theta2)
    events:                       # in time order
      - {at: 0.8, activate: lock2}
      - {at: 1.5, deactivate: lock2}
      - {when: q3_dot, direction: falling, activate: lock3}   # when q3_dot crosses 0 downwards

A lock's reference value is captured when it is activated (runtime data, not regenerated); the
velocities jump as paper 004 demands (the simulator's --transition). A condition event fires
once, at the first crossing of zero in its direction (rising, falling or both), located on the
dense output; its expression may use coordinates, their velocities (`<name>_dot`), parameters
and t (models given by coordinates). Locks of joints whose free coordinate is not linear in x
(spatial joints, planar prismatic joints) and groups of explicit rows (`constraints:`) are not
supported yet and are refused with a message.
"""

from dataclasses import dataclass
from typing import List, Optional

import sympy as sp

SWITCH_KEYS = {"name", "lock", "constraints"}
EVENT_KEYS = {"at", "when", "direction", "activate", "deactivate"}


@dataclass
class Switch:
    name: str
    coordinate: int  # index of the locked coordinate, or -1 for a joint's row
    row: Optional[List[sp.Expr]] = None  # (n) the constant row a of a joint lock: a'x = const


DIRECTIONS = {"rising": 1, "falling": -1, "both": 0}


@dataclass
class TimedEvent:
    t: Optional[float]  # the time, or None for a condition event
    switch: int  # index into the model's switches
    activate: bool
    condition: Optional[sp.Expr] = None  # fires when this crosses 0 ...
    direction: int = 0  # ... upwards (1), downwards (-1) or either way (0)


def read_switches(reader, raw, model) -> List[Switch]:
    """The `switches:` list: coordinate locks, and locks of joints whose free coordinate is
    linear in x (its gradient is the lock's constant row)."""
    raw = reader.seq(raw or [], "switches")
    coordinates = [c.name for c in model.coordinates]
    joints = {j.name: j for j in model.joints}
    out = []
    for i, spec in enumerate(raw):
        where = f"switches[{i}]"
        spec = reader.mapping(spec, where)
        reader.unknown_keys(spec, SWITCH_KEYS, where)
        if "name" not in spec:
            reader.fail(f"{where}.name", "missing required field")
        name = reader.declare(spec["name"], f"{where}.name", "switch")
        if "constraints" in spec:
            reader.fail(
                f"{where}.constraints",
                "groups of explicit rows are not supported yet; lock a coordinate or a joint",
            )
        if "lock" not in spec:
            reader.fail(f"{where}.lock", "missing required field (the coordinate or joint)")
        target = spec["lock"]
        if target in joints:
            row = _joint_row(reader, f"{where}.lock", joints[target], model)
            out.append(Switch(name, -1, row))
            continue
        if target not in coordinates:
            reader.fail(f"{where}.lock", f"unknown coordinate or joint '{target}'")
        out.append(Switch(name, coordinates.index(target)))
    return out


def _joint_row(reader, where, joint, model):
    """The constant gradient of a joint's free coordinate (a planar revolute joint's relative
    angle theta1 - theta2 - const), or a message why that joint cannot be locked yet."""
    if not joint.type.lockable:
        reader.fail(where, f"'{joint.name}' is a {joint.type.name} joint: nothing to lock")
    coordinate = joint.coordinate
    row = [sp.diff(coordinate, x) for x in model.x] if coordinate is not None else None
    if row is None or any(a.free_symbols for a in row) or joint.type.kind != "planar":
        reader.fail(
            where,
            f"locking a {joint.type.kind} {joint.type.name} joint is not supported yet (only "
            "planar revolute joints, and coordinates)",
        )
    return row


def read_events(reader, raw, switches, symbols=None) -> List[TimedEvent]:
    """The `events:` list, checked against the switches: timed events in time order (stable),
    then the condition events in file order. symbols: the names a condition may use (None: the
    model has no expression namespace for them, i.e. it is made of bodies and joints)."""
    raw = reader.seq(raw or [], "events")
    names = [s.name for s in switches]
    out = []
    for i, spec in enumerate(raw):
        where = f"events[{i}]"
        spec = reader.mapping(spec, where)
        reader.unknown_keys(spec, EVENT_KEYS, where)
        condition, direction, t = None, 0, None
        if ("at" in spec) == ("when" in spec):
            reader.fail(where, "give 'at' (a time) or 'when' (a condition)")
        if "direction" in spec and "when" not in spec:
            reader.fail(f"{where}.direction", "'direction' goes with 'when'")
        if "when" in spec:
            if symbols is None:
                reader.fail(
                    f"{where}.when",
                    "condition events of bodies-and-joints models are not supported yet",
                )
            condition = reader.expr(spec["when"], f"{where}.when", symbols)
            direction = spec.get("direction", "both")
            if direction not in DIRECTIONS:
                reader.fail(
                    f"{where}.direction", f"'{direction}' is not one of rising, falling, both"
                )
            direction = DIRECTIONS[direction]
        else:
            t = reader.number(spec["at"], f"{where}.at")
            if not t > 0:
                reader.fail(f"{where}.at", f"an event must come after the start (t = 0), got {t:g}")
        if ("activate" in spec) == ("deactivate" in spec):
            reader.fail(where, "give 'activate' or 'deactivate' (one switch)")
        key = "activate" if "activate" in spec else "deactivate"
        if spec[key] not in names:
            reader.fail(f"{where}.{key}", f"unknown switch '{spec[key]}'")
        out.append(TimedEvent(t, names.index(spec[key]), key == "activate", condition, direction))
    timed = sorted((e for e in out if e.t is not None), key=lambda e: e.t)
    out = timed + [e for e in out if e.t is None]
    active = [False] * len(switches)
    for e in timed:  # conditions fire when they fire: only the timed ones are checked here
        if not e.activate and not active[e.switch]:
            reader.fail(
                "events",
                f"switch '{names[e.switch]}' is deactivated at t = {e.t:g} "
                "but is not active then",
            )
        if e.activate and active[e.switch]:
            reader.fail(
                "events",
                f"switch '{names[e.switch]}' is activated at t = {e.t:g} " "while already active",
            )
        active[e.switch] = e.activate
    return out
