"""Switchable constraints and the events that switch them (README, "Transitions"; paper 004).

    switches:                     # named groups of rows, inactive until an event activates them
      - {name: lock2, lock: q2}   # lock a coordinate: the row q2 - q2(t_event) = 0
    events:                       # in time order
      - {at: 0.8, activate: lock2}
      - {at: 1.5, deactivate: lock2}

A lock's reference value is captured when it is activated (runtime data, not regenerated); the
velocities jump as paper 004 demands (the simulator's --transition). Groups of joints of
bodies-and-joints models (`lock: JOINT`), groups of explicit rows (`constraints:`) and
condition-triggered events (`when:`) are not supported yet and are refused with a message.
"""

from dataclasses import dataclass
from typing import List

SWITCH_KEYS = {"name", "lock", "constraints"}
EVENT_KEYS = {"at", "when", "direction", "activate", "deactivate"}


@dataclass
class Switch:
    name: str
    coordinate: int  # index of the locked coordinate


@dataclass
class TimedEvent:
    t: float
    switch: int  # index into the model's switches
    activate: bool


def read_switches(reader, raw, coordinates, joints) -> List[Switch]:
    """The `switches:` list. coordinates: the model's coordinate names; joints: joint names."""
    raw = reader.seq(raw or [], "switches")
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
                "groups of explicit rows are not supported yet; lock a coordinate",
            )
        if "lock" not in spec:
            reader.fail(f"{where}.lock", "missing required field (the coordinate to lock)")
        target = spec["lock"]
        if target in joints:
            reader.fail(
                f"{where}.lock",
                f"'{target}' is a joint: locking joints is not supported yet; lock one of its "
                "body coordinates instead",
            )
        if target not in coordinates:
            reader.fail(f"{where}.lock", f"unknown coordinate '{target}'")
        out.append(Switch(name, coordinates.index(target)))
    return out


def read_events(reader, raw, switches) -> List[TimedEvent]:
    """The `events:` list, checked against the switches and put in time order (stable)."""
    raw = reader.seq(raw or [], "events")
    names = [s.name for s in switches]
    out = []
    for i, spec in enumerate(raw):
        where = f"events[{i}]"
        spec = reader.mapping(spec, where)
        reader.unknown_keys(spec, EVENT_KEYS, where)
        if "when" in spec or "direction" in spec:
            reader.fail(
                f"{where}.{'when' if 'when' in spec else 'direction'}",
                "condition events are not supported yet; give the time with 'at'",
            )
        if "at" not in spec:
            reader.fail(f"{where}.at", "missing required field (the event time)")
        t = reader.number(spec["at"], f"{where}.at")
        if not t > 0:
            reader.fail(f"{where}.at", f"an event must come after the start (t = 0), got {t:g}")
        if ("activate" in spec) == ("deactivate" in spec):
            reader.fail(where, "give 'activate' or 'deactivate' (one switch)")
        key = "activate" if "activate" in spec else "deactivate"
        if spec[key] not in names:
            reader.fail(f"{where}.{key}", f"unknown switch '{spec[key]}'")
        out.append(TimedEvent(t, names.index(spec[key]), key == "activate"))
    out.sort(key=lambda e: e.t)
    active = [False] * len(switches)
    for e in out:
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
