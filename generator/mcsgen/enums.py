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


@dataclass(frozen=True)
class CFlags:
    """Bits the C runtime defines as macros, `#define <C name> <1 << index>U`, in this order."""

    header: str  # the public header that defines them, under runtime/include/
    values: Tuple[Tuple[str, str], ...]  # (name, C macro), bit 1 << index

    @property
    def names(self) -> Tuple[str, ...]:
        return tuple(name for name, _ in self.values)

    def bit(self, name: str) -> int:
        return 1 << self.names.index(name)

    def of(self, bits: int) -> Tuple[str, ...]:
        """The names of the bits set in `bits`, in order."""
        return tuple(name for k, name in enumerate(self.names) if bits >> k & 1)


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

# the simulator's variants (options.variant; the command line's --simulator takes dense and
# banded, or auto)
VARIANT = CEnum(
    "mcs_variant",
    "mcs/mcs_sim.h",
    (
        ("dense", "MCS_VARIANT_DENSE"),
        ("compact", "MCS_VARIANT_COMPACT"),
        ("banded", "MCS_VARIANT_BANDED"),
    ),
)

ENUMS = (METHOD, CONTINUATION, JUMP_METHOD, JOINT_COORDINATE, ENERGY_BALANCE, MODE_KIND, VARIANT)

# What a method is (mcs_method_flags): the flags of runtime/src/sim/mcs_method_table.c's entries,
# which tests/generator/test_enums.py reads from a build of the runtime
METHOD_FLAG = CFlags(
    "mcs/mcs_sim.h",
    (
        ("adaptive", "MCS_METHOD_FLAG_ADAPTIVE"),  # error control (else fixed steps: t_end / h)
        ("fsal", "MCS_METHOD_FLAG_FSAL"),
        ("implicit", "MCS_METHOD_FLAG_IMPLICIT"),  # factors the chart Jacobian: K_f and D
        ("step_jacobian", "MCS_METHOD_FLAG_STEP_JACOBIAN"),
        ("lazy_stages", "MCS_METHOD_FLAG_LAZY_STAGES"),
        ("stiffness_test", "MCS_METHOD_FLAG_STIFFNESS_TEST"),
    ),
)
METHOD_FLAGS = {
    "rk4": ("step_jacobian",),
    "dopri5": ("adaptive", "fsal", "stiffness_test"),
    "dop853": ("adaptive", "fsal", "lazy_stages"),
    "ros34pw2": ("adaptive", "implicit"),
    "ros34pw2_fixed": ("implicit",),
}
# the method that takes a method's steps near a singular configuration, where it is another
METHOD_NEAR_SINGULAR = {"dop853": "dopri5"}


def method_is(method: str, flag: str) -> bool:
    """Whether the method (a METHOD name) has the flag (a METHOD_FLAG name)."""
    if flag not in METHOD_FLAG.names:
        raise KeyError(flag)
    return flag in METHOD_FLAGS[method]


def methods_that_are(flag: str) -> Tuple[str, ...]:
    """The methods with the flag, in METHOD's order."""
    return tuple(m for m in METHOD.names if method_is(m, flag))


# Why a model and options cannot run (mcs_sim_refusals; MCS_REFUSE_* of mcs_sim.h)
REFUSAL = CFlags(
    "mcs/mcs_sim.h",
    (
        ("invalid", "MCS_REFUSE_INVALID"),
        ("not_compiled", "MCS_REFUSE_NOT_COMPILED"),
        ("needs_a_dot", "MCS_REFUSE_NEEDS_A_DOT"),
        ("needs_force_tangents", "MCS_REFUSE_NEEDS_FORCE_TANGENTS"),
        ("no_band", "MCS_REFUSE_NO_BAND"),
        ("dense_output", "MCS_REFUSE_DENSE_OUTPUT"),
        ("events", "MCS_REFUSE_EVENTS"),
        ("locks", "MCS_REFUSE_LOCKS"),
        ("implicit", "MCS_REFUSE_IMPLICIT"),
        ("continuation", "MCS_REFUSE_CONTINUATION"),
    ),
)
FLAGS = (METHOD_FLAG, REFUSAL)

# The MCS_MEM_* bit (mcs/mcs_sim_memory.h) a run's memory block needs for its method (the memory
# field of each runtime/src/sim/mcs_method_table.c entry) and for its continuation ("": none)
METHOD_MEMORY = {
    "rk4": "",
    "dopri5": "MCS_MEM_DOPRI5",
    "dop853": "MCS_MEM_DOP853",
    "ros34pw2": "MCS_MEM_IMPLICIT",
    "ros34pw2_fixed": "MCS_MEM_IMPLICIT",
}
CONTINUATION_MEMORY = {"exp": "MCS_MEM_EXP", "euler": "MCS_MEM_EULER", "none": "", "off": ""}
