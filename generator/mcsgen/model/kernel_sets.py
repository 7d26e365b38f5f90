"""Which kernels a generated model carries (issue 12: only what the run needs is linked).

The kernels fall into sets by what uses them in the runtime:

- motion       c, A, c_t, gamma, M, f, the energies, the joints' coordinates and the initial
               state: every simulation needs them (always emitted)
- predictor    A_dot: the euler and exp continuation predictors (SPEC §3) and the prediction of
               the singular-configuration search with them
- force_tangents  K_f, D: the applied forces' tangents (stiffness and damping), what the
               implicit methods (ros34pw2, ros34pw2_fixed) factor
- stiffness    K_c, the constraints' tangent stiffness: statics and vibration modes (SPEC §8)
               with force_tangents, which it implies (asking for stiffness gives both), and the
               dense simulator's implicit Jacobian when present
- transitions  the row groups (joint locks, switch rows), switches and events (004)
- reactions    joint_wrenches: each joint's force and moment (mcs_sim_joint_wrenches, the
               CSV's --reactions columns, statics)
- linearization  M_x, gamma_x: the tangents the exact linearization and the step's Jacobian
               add to the stiffness set's (mcs_sim_linearize, mcs_sim_step_jacobian); the
               largest kernels of a closed loop in body coordinates (the third derivatives of
               its rows), so a build that does not linearize leaves them out

A host build (generated/, the command line's and the Python API's solvers) carries DEFAULT,
every set but linearization, plus the sets the file's top-level `kernels:` names
([linearization] for a model a controller linearizes); `--kernels all` or the API's
`build(kernels="all")` adds them to one build. A firmware build (`mcsgen generate --firmware`,
or `--kernels`) carries motion and the sets its settings need: a predictor for euler/exp,
transitions when the file has events or stops (they are part of its motion), plus whatever the
file's `firmware: kernels:` or --kernels add. An omitted kernel is not emitted; its descriptor
entry is NULL and the runtime answers MCS_ERR_UNSUPPORTED when options would need it.
"""

from typing import Iterable, Tuple

from ..enums import method_is
from .catalogue import KERNELS, kernel

SETS = (
    "motion",
    "predictor",
    "force_tangents",
    "stiffness",
    "transitions",
    "reactions",
    "linearization",
)
# a set asked for brings these with it (statics and modes need K_f and D with K_c)
IMPLIES = {"stiffness": frozenset({"force_tangents"})}
ALL = frozenset(SETS)
# a host build's sets: linearization only where asked for (the file's `kernels:`, --kernels):
# the third derivatives of a closed loop's rows in body coordinates are 40 % of its C
DEFAULT = ALL - {"linearization"}

# the descriptor's kernel -> the set it belongs to (model/catalogue.py; a row group's and a
# condition event's kernels: "transitions")
KERNEL_SET = {k.name: k.kernel_set for k in KERNELS}


def set_of(kernel_name: str) -> str:
    """The set of a generated kernel (group_<k>_<member> and event_<k> included)."""
    return kernel(kernel_name).kernel_set


def needed(simulation: dict, has_events: bool) -> frozenset:
    """The sets a run with these settings needs."""
    sets = {"motion"}
    if simulation["continuation"] in ("euler", "exp"):
        sets.add("predictor")
    if has_events:
        sets.add("transitions")
    if method_is(simulation["method"], "implicit"):  # it factors the chart Jacobian
        sets.add("force_tangents")
    return frozenset(sets)


def expand(sets: Iterable[str]) -> frozenset:
    """The sets with those they imply (IMPLIES)."""
    out = set(sets)
    for name in list(out):
        out |= IMPLIES.get(name, frozenset())
    return frozenset(out)


def why_needed(name: str, simulation: dict) -> str:
    if name == "force_tangents":
        return f"method {simulation['method']} factors the Jacobian of K_f and D (force_tangents)"
    if name == "predictor":
        return f"continuation {simulation['continuation']} needs A_dot (the predictor set)"
    return "the file's events or stops switch its rows (the transitions set)"


def host(model) -> frozenset:
    """The sets a host build of `model` carries: DEFAULT and its file's `kernels:`."""
    return DEFAULT | model.kernels


def parse(text: str) -> Tuple[frozenset, str]:
    """A --kernels value 'predictor,stiffness' (or 'all': every set) -> (sets, error or '')."""
    names = [t.strip() for t in text.split(",") if t.strip()]
    for name in names:
        if name not in SETS and name != "all":
            return frozenset(), f"'{name}' is not a kernel set ({', '.join(SETS)}, or all)"
    if "all" in names:
        return ALL, ""
    return expand(names) | {"motion"}, ""


def label(sets: Iterable[str]) -> str:
    """The banner's and the header's name of a choice: 'all' or the sets in SETS order."""
    sets = frozenset(sets)
    return "all" if sets == ALL else ", ".join(s for s in SETS if s in sets)


def from_label(text: str) -> frozenset:
    """The sets a banner's or a header's label names (label's inverse)."""
    return ALL if text == "all" else frozenset(text.split(", "))
