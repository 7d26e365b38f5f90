"""Kernels and tables -> generated/<model>/<model>.{h,c}: the templates' context, and Jinja2.

Templates hold structure only (guards, prototypes, tables); kernel bodies arrive finished from
kernels.py, tables from tables.py. Output is deterministic: same model file and generator
version, same bytes.
"""

import math
from typing import TYPE_CHECKING, Dict

import jinja2

from ..model.catalogue import KERNELS, ROW_GROUP_KERNELS, descriptor_runs
from ..enums import CONTINUATION, ENERGY_BALANCE, JOINT_COORDINATE, METHOD
from ..model import kernel_sets
from ..paths import TEMPLATES, shipped
from ..version import __version__
from .files import c_string
from .fingerprint import generator_fingerprint
from .kernels import build_kernels, no_rows_kernels
from .statements import STATIC_PREFIX, param_member
from .printer import McsCodePrinter
from .tables import (
    a_pattern,
    band_structure,
    dense_views,
    firmware_features,
    m_pattern,
    rows_of,
    wrench_count,
)

if TYPE_CHECKING:  # for the hints only
    from ..derive import Derived
    from ..model import Model

# The descriptor layout the templates emit: runtime/include/mcs/mcs_model.h's MCS_MODEL_ABI_VERSION.
MODEL_ABI_VERSION = 16


def _held_coordinates(groups, x):
    """{"coords": the coordinates that the row groups holding coordinates hold, one list;
    "first": each group's first entry in it, or None for a group with kernels}."""
    values, first = [], []
    for group in groups:
        coords = group.held_coordinates(x)
        first.append(len(values) if coords is not None else None)
        values += coords or []
    return {"coords": values, "first": first}


def render(
    model: "Model",
    derived: "Derived",
    generate_options: str = "",
    band: bool = True,
) -> Dict[str, str]:
    """Return {filename: text} of the generated sources with the kernels of the kernel sets
    the terms were derived for (derive(model, sets); model/kernel_sets.py): rendering prints
    them, it derives nothing.
    The model's initial state is complete (model.complete_initial_state: generate.py solves it).
    generate_options: what the banner's regeneration command adds ('--firmware ').
    band: emit the banded simulator's structure when the model has one (not for firmware)."""
    if model.pending_initial is not None:
        raise ValueError(
            f"{model.name}: the initial velocities are not solved yet "
            "(model.complete_initial_state before render)"
        )
    sets = derived.kernel_sets
    kernels, scalars, fused = build_kernels(model, derived, sets)
    no_rows = no_rows_kernels(model, derived, sets)
    views = dense_views(model, kernels)
    transitions = "transitions" in sets
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(TEMPLATES)),
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    sim = model.simulation
    njc, joint_coord_index = 0, []  # index of each joint's coordinate in joint_coords, or -1
    for joint in model.joints:
        joint_coord_index.append(njc if joint.coordinate is not None else -1)
        njc += joint.coordinate is not None
    # the descriptor's kernel members (model/catalogue.py): its trampoline, or NULL for a kernel
    # the model lacks (no potential, ...) or a kernel set leaves out
    trampolines = {k["name"] for k in kernels + views if k["descriptor"]} | {
        k["name"] for k in scalars
    }
    if fused is not None:
        trampolines.add("M_f")
    ctx = {
        "version": __version__,
        "fingerprint": generator_fingerprint(),
        "model": model,
        "prefix": model.name,
        "PREFIX": model.name.upper(),
        "source": f"models/{model.path.name}" if shipped(model.path) else _comment_safe(model.path),
        "file_hash": model.file_hash,
        "kernels": kernels,
        "fused": fused,
        "fn": {
            k.name: (
                f"{STATIC_PREFIX}d_{k.name}"
                if k.name in trampolines
                else f"{STATIC_PREFIX}no_rows_{no_rows[k.name]}"
                if k.name in no_rows
                else "NULL"
            )
            for k in KERNELS
        },
        "no_rows": sorted(set(no_rows.values())),
        # the descriptor's kernel members, in runs after other members (the last run ends it)
        "descriptor_runs": descriptor_runs(),
        "last_run": list(descriptor_runs())[-1],
        "row_group_kernels": ROW_GROUP_KERNELS,  # mcs_row_group's kernel members, in order
        "views": views,
        "kernel_sets": kernel_sets.label(sets),
        "generate_options": generate_options,
        "firmware_features": firmware_features(model.firmware),
        # without the transitions set the descriptor has no row groups, switches or events
        "row_groups": model.row_groups if transitions else [],
        "held_coords": _held_coordinates(model.row_groups if transitions else [], model.x),
        "switches": model.switches if transitions else [],
        "events": model.events if transitions else [],
        "stops": model.stops if transitions else [],
        "friction": [
            (f, f.coordinate_index(model)) for f in (model.friction if transitions else [])
        ],
        "scalars": scalars,
        "has_potential": derived.potential is not None,
        "pattern": a_pattern(derived),
        "m_pattern": m_pattern(derived),
        **rows_of(a_pattern(derived), model.m),
        "band": band_structure(model, derived) if band else None,
        "real": McsCodePrinter({}).value,
        "sim": sim,
        "method": METHOD.c_name(sim["method"]),
        "continuation": CONTINUATION.c_name(sim["continuation"]),
        "c_string": c_string,
        "abi_version": MODEL_ABI_VERSION,
        "joint_coord": dict(JOINT_COORDINATE.values),
        "max_group_rows": max([g.nrows for g in model.row_groups if transitions] + [1]),
        "njc": njc,
        "joint_coord_index": joint_coord_index,
        "nheld": derived.held.shape[0],
        "nw": wrench_count(derived),
        "nmu": len(derived.nu or ()),
        "energy_balance": ENERGY_BALANCE.c_name(model.energy.kind),
        "energy": model.energy,
        "comment_safe": _comment_safe,
        "member": param_member,
        "input_limits": lambda u: _input_limits(u, McsCodePrinter({}).value),
        "gs": STATIC_PREFIX,
    }
    return {
        f"{model.name}.h": env.get_template("model.h.j2").render(ctx),
        f"{model.name}.c": env.get_template("model.c.j2").render(ctx),
    }


def _input_limits(u, real):
    """An input's [lower, upper] as the descriptor's C initializers: 0, 0 when it has none (an
    infinite limit has no literal in C99's float and double alike)."""
    if u.lower == -math.inf and u.upper == math.inf:
        return f"{real(0.0)}, {real(0.0)}"
    lower = u.lower if u.lower != -math.inf else -3.4028234663852886e38
    upper = u.upper if u.upper != math.inf else 3.4028234663852886e38
    return f"{real(lower)}, {real(upper)}"


def _comment_safe(path):
    """A user's model path as the banner shows it: printable ASCII, no comment terminator."""
    text = "".join(ch if 32 <= ord(ch) < 127 else "?" for ch in str(path))
    return text.replace("*/", "*?/")
