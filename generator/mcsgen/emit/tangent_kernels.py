"""How a joint-coordinate model's K_f, D and K_c are printed: column by column, each kernel a loop
over the unit directions calling one static function that evaluates a derived tangent (f's for
K_f and D, A^T lam's for K_c: Derived.f_tangent, Derived.kc_tangent) along a direction.

Printing, not derivation: the tangents are derived (derive/joint_terms.py); here they become a
static function and the loops that call it (templates/model.c.j2).
"""

from dataclasses import dataclass
from typing import Tuple

from .fused import STAGE_ARRAY, pass_call, reading_stage
from .statements import assignments, column_major, nonzero, uses, zero_fill


@dataclass(frozen=True)
class Tangent:
    """A tangent a joint-coordinate model's kernel evaluates along each unit direction (one
    column each, templates/model.c.j2): the Derived field, its static C function's name,
    parameters (after x; then t, p, out), the direction arrays it reads, and its comment."""

    field: str
    function: str
    params: Tuple[str, ...]
    directions: Tuple[str, ...]
    comment: str


F_TANGENT = Tangent(
    "f_tangent",
    "f_tangent",
    ("v", "dq", "dqd"),
    ("dq", "dqd"),
    "K_f dq + D dqd = -(df/dx dq + df/dv dqd): the tangent of f along (dq, dqd), through its\n"
    " * intermediates; K_f and D call it along each unit direction (one column each)",
)
KC_TANGENT = Tangent(
    "kc_tangent",
    "K_c_tangent",
    ("lam", "dq"),
    ("dq",),
    "K_c dq = d(A^T lam)/dx dq: the tangent of A^T lam along dq, through its intermediates;\n"
    " * K_c calls it along each unit direction (one column each)",
)
# the kernels a joint-coordinate model computes column by column from a tangent, with the
# direction array each sets to a unit vector
TANGENT_KERNELS = {"K_f": F_TANGENT, "D": F_TANGENT, "K_c": KC_TANGENT}
TANGENT_UNIT = {"K_f": "dq", "D": "dqd", "K_c": "dq"}


def tangent_kernel(model, derived, spec, names, inter, helpers_done, stage):
    """K_f, D or K_c of a joint-coordinate model: a loop over the unit directions calling its
    tangent's static function (its body here, with the first kernel that calls it), as
    {"body", "helper", "tangent"} of the kernel's entry (kernels.kernel_entry). stage: the
    fused M_f whose Newton-Euler pass f's tangent reads (fused.fused_kernel), or None: the
    kernel runs the pass once for its 2n calls."""
    tangent = TANGENT_KERNELS[spec.term]
    helper = None
    reads_stage = stage is not None and tangent is F_TANGENT
    params = tangent.params + ((STAGE_ARRAY,) if reads_stage else ())
    if tangent.function not in helpers_done:
        helpers_done.add(tangent.function)
        local = dict(names)
        for array in ("dq", "dqd"):
            local.update((s, f"{array}[{i}]") for i, s in enumerate(derived.arrays[array]))
        geometry = dict(model.geometry)
        entries = column_major(getattr(derived, tangent.field))
        if geometry:
            entries = [(k, e.xreplace(geometry)) for k, e in entries]
        entries = nonzero(entries)
        helper_inter = inter
        if reads_stage:  # the pass's values from the array its caller filled once
            _, local, helper_inter = reading_stage(stage, entries, local, inter)
        body = zero_fill(entries, model.n, "out") + assignments(entries, local, "out", helper_inter)
        used = " ".join(body)
        arguments = ("x",) + params + ("t", "p")
        helper = {
            "function": tangent.function,
            "comment": tangent.comment,
            "arrays": params,  # after x (templates/signatures.j2)
            "body": body,
            "unused": [a for a in arguments if not uses(used, a)],
        }
        if "k = 0" in used:
            helper["body"] = ["int k;"] + body
    call = {
        "function": tangent.function,
        "arrays": tangent.directions,
        "unit": TANGENT_UNIT[spec.term],
        "args": ", ".join(("x",) + params + ("t", "p")),
    }
    body = []
    if reads_stage:  # the pass once, for the 2n calls
        body = pass_call(stage)
    return {"body": body, "helper": helper, "tangent": call}
