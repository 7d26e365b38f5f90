"""The enumerations shared with the C runtime, each once: the names the mechanism file, the
command line and the reports use, in the order of the C enum's values (the value is the index),
with its C enumerators. The loader, the simulate options (options.py), the emitter and the
analyzer's output read them; tests/generator/test_enums.py holds each to its C enum in
runtime/include/mcs/."""

from dataclasses import dataclass
from typing import Tuple


@dataclass(frozen=True)
class CEnum:
    c_type: str  # the C enum's typedef name
    header: str  # the public header that declares it, under runtime/include/
    values: Tuple[Tuple[str, str], ...]  # (name, C enumerator), in the C enum's order

    @property
    def names(self) -> Tuple[str, ...]:
        return tuple(name for name, _ in self.values)

    @property
    def enumerators(self) -> Tuple[str, ...]:
        return tuple(c for _, c in self.values)

    def c_name(self, name: str) -> str:
        """The C enumerator of `name` (KeyError for a name the enum does not have)."""
        return dict(self.values)[name]


# the integrators (options.method, the file's simulation: method)
METHOD = CEnum(
    "mcs_method",
    "mcs/mcs_sim.h",
    (
        ("rk4", "MCS_METHOD_RK4"),
        ("dopri5", "MCS_METHOD_DOPRI5"),
        ("dop853", "MCS_METHOD_DOP853"),
        ("ros34pw2", "MCS_METHOD_ROS34PW2"),
        ("ros34pw2_fixed", "MCS_METHOD_ROS34PW2_FIXED"),
    ),
)
# the tangent basis' continuation (options.continuation, the file's simulation: continuation)
CONTINUATION = CEnum(
    "mcs_continuation",
    "mcs/mcs_basis.h",
    (
        ("exp", "MCS_CONT_EXP"),
        ("euler", "MCS_CONT_EULER"),
        ("none", "MCS_CONT_NONE"),
        ("off", "MCS_CONT_OFF"),
    ),
)
# the velocity jump at a lock (simulate --transition)
JUMP_METHOD = CEnum(
    "mcs_jump_method",
    "mcs/mcs_transition.h",
    (
        ("minimal", "MCS_JUMP_MINIMAL"),
        ("full", "MCS_JUMP_FULL"),
        ("projected", "MCS_JUMP_PROJECTED"),
        ("naive", "MCS_JUMP_NAIVE"),
    ),
)
# what a joint's `rate` refers to (model/joints.py: JointType.coordinate; the descriptor's joints)
JOINT_COORDINATE = CEnum(
    "mcs_joint_coordinate",
    "mcs/mcs_model.h",
    (
        ("", "MCS_JOINT_COORD_NONE"),
        ("angle", "MCS_JOINT_COORD_ANGLE"),
        ("translation", "MCS_JOINT_COORD_TRANSLATION"),
    ),
)
# what physics says of T + V (model/energy.py; the descriptor's energy_balance)
ENERGY_BALANCE = CEnum(
    "mcs_energy_balance",
    "mcs/mcs_model.h",
    (
        ("undefined", "MCS_ENERGY_UNDEFINED"),
        ("conserved", "MCS_ENERGY_CONSERVED"),
        ("dissipated", "MCS_ENERGY_DISSIPATED"),
        ("exchanged", "MCS_ENERGY_EXCHANGED"),
    ),
)
# a vibration mode's kind (the analyzer's JSON: analyze.py)
MODE_KIND = CEnum(
    "mcs_mode_kind",
    "mcs/mcs_modes.h",
    (
        ("oscillating", "MCS_MODE_OSCILLATING"),
        ("unstable", "MCS_MODE_UNSTABLE"),
        ("decaying", "MCS_MODE_DECAYING"),
        ("rigid", "MCS_MODE_RIGID"),
    ),
)

ENUMS = (METHOD, CONTINUATION, JUMP_METHOD, JOINT_COORDINATE, ENERGY_BALANCE, MODE_KIND)

# The MCS_MEM_* bit (mcs/mcs_sim_memory.h) a run's memory block needs for its method (the last
# field of each runtime/src/sim/mcs_method.c entry) and for its continuation ("": none)
METHOD_MEMORY = {
    "rk4": "",
    "dopri5": "MCS_MEM_DOPRI5",
    "dop853": "MCS_MEM_DOP853",
    "ros34pw2": "MCS_MEM_IMPLICIT",
    "ros34pw2_fixed": "MCS_MEM_IMPLICIT",
}
CONTINUATION_MEMORY = {"exp": "MCS_MEM_EXP", "euler": "MCS_MEM_EULER", "none": "", "off": ""}
