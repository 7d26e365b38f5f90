"""Switchable constraints and the events that switch them (docs/explanation/transitions.md; paper
004).

    switches:                     # named groups of rows, inactive until an event activates them
      - {name: lock2, lock: q2}   # lock a coordinate: the row q2 - q2(t_event) = 0
      - {name: brake, lock: J2}   # lock a joint: it becomes a fixed joint at its pose then
      - name: latch               # explicit rows h(x) = 0 (of the coordinates, or of the joints'
        constraints: [q1 - q2]    # free coordinates in a bodies model)
    events:                       # in time order
      - {at: 0.8, activate: lock2}
      - {at: 1.5, deactivate: lock2}
      - {when: q3_dot, direction: falling, activate: lock3}   # when q3_dot crosses 0 downwards

A lock's reference value is captured when it is activated (runtime data, not regenerated); the
velocities jump as paper 004 demands (the simulator's --transition). A condition event fires
once, at the first crossing of zero in its direction (rising, falling or both), located on the
dense output; its expression may use coordinates and their velocities (`<name>_dot`), or in a
bodies model the joints' free coordinates by joint name and their rates (`<joint>_dot`), and
parameters and t.

Rows other than a coordinate lock are a RowGroup: generated kernels of quantities g(x) from
which the runtime forms the rows (mcs_model.h, mcs_row_group), or, where every g is a coordinate
(held_coordinates: a tree joint's lock in joint coordinates), no kernels: the descriptor lists
the coordinates and the runtime forms their unit rows. A joint's lock holds the relative
pose components its type leaves free (paper 003 Table 1's rows the joint does not have): the
translations of F1 in F2's basis as g - g(t_event), the rotations as the imaginary parts of
rho_rel conj(rho_rel(t_event)) for a rotation quaternion rho_rel among g.
"""

from dataclasses import dataclass, field
from typing import Dict, List, Optional, Tuple

import sympy as sp

SWITCH_KEYS = {"name", "lock", "constraints"}
EVENT_KEYS = {"at", "when", "direction", "activate", "deactivate"}
ROTATION_BITS = {"Rx": 1, "Ry": 2, "Rz": 4}


@dataclass
class RowGroup:
    """Rows the runtime adds at an activation, from generated quantities g(x) (no t)."""

    name: str  # the joint's (its lock) or the switch's (explicit rows)
    rotation: Optional[Tuple[sp.Expr, ...]] = None  # (4) a relative rotation quaternion, or None
    rotation_rows: int = 0  # bits 1, 2, 4: the Im x, y, z rows of rotation conj(at the event)
    entries: List[sp.Expr] = field(default_factory=list)  # rows entry - entry(t_event), or = 0
    capture: bool = True  # rows relative to the activation's values (a lock), else g(x) = 0
    what: str = ""  # which components, for comments and the audit

    @property
    def g(self) -> List[sp.Expr]:
        return list(self.rotation or ()) + list(self.entries)

    @property
    def nrows(self) -> int:
        return bin(self.rotation_rows).count("1") + len(self.entries)

    def held_coordinates(self, x) -> Optional[List[int]]:
        """The indices in x of the coordinates this group holds when every entry is one (a tree
        joint's lock in joint coordinates): the runtime forms such rows itself, with no kernels
        (mcs_row_group.coords); else None."""
        if self.rotation is not None or not self.capture or not self.entries:
            return None
        index = {s: k for k, s in enumerate(x)}
        if not all(e in index for e in self.entries):
            return None
        return [index[e] for e in self.entries]


@dataclass
class Switch:
    name: str
    coordinate: int = -1  # index of the locked coordinate, or -1
    group: int = -1  # index into the model's row groups (a joint lock or explicit rows), or -1


DIRECTIONS = {"rising": 1, "falling": -1, "both": 0}


@dataclass
class TimedEvent:
    t: Optional[float]  # the time, or None for a condition event
    switch: int  # index into the model's switches
    activate: bool
    condition: Optional[sp.Expr] = None  # fires when this crosses 0 ...
    direction: int = 0  # ... upwards (1), downwards (-1) or either way (0)


def row_groups_of_joints(model) -> List[RowGroup]:
    """The lock of every lockable joint, in joint order; joint.lock_group indexes this list."""
    groups = []
    for joint in model.joints:
        joint.lock_group = -1
        if joint.lock is not None:
            joint.lock_group = len(groups)
            groups.append(joint.lock)
    return groups


def read_switches(reader, raw, model, symbols: Optional[Dict[str, sp.Expr]]) -> List[Switch]:
    """The `switches:` list: coordinate locks, joint locks and groups of explicit rows (these
    appended to model.row_groups). symbols: what explicit rows may use (positions only)."""
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
        if ("lock" in spec) == ("constraints" in spec):
            reader.fail(where, "give 'lock' (a coordinate or joint) or 'constraints' (rows)")
        if "constraints" in spec:
            out.append(
                Switch(name, group=_explicit_group(reader, where, spec, name, model, symbols))
            )
            continue
        target = spec["lock"]
        if target in joints:
            joint = joints[target]
            if joint.lock is None:
                why = "it is driven" if joint.driven else f"a {joint.type.name} joint"
                reader.fail(f"{where}.lock", f"'{joint.name}' has nothing to lock ({why})")
            out.append(Switch(name, group=joint.lock_group))
            continue
        if not isinstance(target, str) or target not in coordinates:
            reader.fail(f"{where}.lock", f"unknown coordinate or joint '{target}'")
        out.append(Switch(name, coordinate=coordinates.index(target)))
    return out


def _explicit_group(reader, where, spec, name, model, symbols):
    rows = reader.seq(spec["constraints"], f"{where}.constraints")
    if not rows:
        reader.fail(f"{where}.constraints", "give at least one row")
    entries = []
    for k, text in enumerate(rows):
        expr = reader.expr(text, f"{where}.constraints[{k}]", symbols)
        if model.time in expr.free_symbols:
            reader.fail(f"{where}.constraints[{k}]", "switched rows may not depend on t")
        if not any(s in expr.free_symbols for s in model.x):
            reader.fail(f"{where}.constraints[{k}]", "a row must depend on the coordinates")
        entries.append(expr)
    model.row_groups.append(RowGroup(name, entries=entries, capture=False, what="explicit rows"))
    return len(model.row_groups) - 1


def read_events(reader, raw, switches, symbols) -> List[TimedEvent]:
    """The `events:` list, checked against the switches: timed events in time order (stable),
    then the condition events in file order. symbols: the names a condition may use."""
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
