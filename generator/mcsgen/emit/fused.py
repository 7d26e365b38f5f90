"""M_f: a joint-coordinate model's M (its nonzeros) and f in one kernel, their intermediates
shared, and the recursive Newton-Euler pass it computes, whose values the joints' wrenches and
f's tangent (K_f, D) read from an array instead of computing them again.

The kernels that read the pass (shared_pass_users) are the Derived terms joint_wrenches and
f_tangent; kernels.py and tangent_kernels.py put the pass's call before them (reading_stage,
pass_call).
"""

import re

from ..model import kernel_sets
from .statements import (
    STATIC_PREFIX,
    assignments,
    column_major,
    in_pattern,
    intermediates_of,
    nonzero,
    uses,
)
from .tables import m_pattern


# A joint-coordinate model whose M has at most this many nonzeros (plus f's n) computes M and f in
# one kernel, M_f, that the runtime calls once per stage, its intermediates (the bodies'
# rotations and their sines and cosines) shared; M_nz and f call it with a scratch array on the
# stack for the other output, so larger models keep them separate
FUSE_MAX = 256


def fused_kernel(model, derived, names, sets=kernel_sets.ALL):
    """M_f of a joint-coordinate model ({"body", "unused", "M_nz", "f", "exports"}: its
    statements, the bodies of the M_nz and f that call it, and what it hands the other kernels),
    or None when the model does not take one.

    A spatial tree on the ground computes f by the recursive Newton-Euler pass, which the joints'
    wrenches and f's tangent (K_f, D) build on: then M_f's statements are a static function,
    `mcs_gen_M_f_pass`, that also writes the pass's values the others read (`exports`, in
    order) into an array when given one; the public M_f calls it without (no stores on the
    simulators' path), the others with their scratch arrays (shared_pass_users)."""
    m_entries = in_pattern(derived.M, m_pattern(derived))
    n = model.n
    if model.intermediates is None or "motion" not in sets or len(m_entries) + n > FUSE_MAX:
        return None
    geometry = dict(model.geometry)
    inter = intermediates_of(model, geometry)
    f_entries = column_major(derived.f)
    entries = [(k, e) for k, e in m_entries] + [(len(m_entries) + k, e) for k, e in f_entries]
    if geometry:
        entries = [(k, e.xreplace(geometry)) for k, e in entries]
    entries = nonzero(entries)
    nnz = len(m_entries)
    exports = _pass_exports(model, derived, inter, entries, sets)
    copies = []
    if exports:  # the inputs as locals, which no store into the array can change (MISRA
        names, copies = _inputs_as_locals(model, names)  # rule 8.14 forbids `restrict`)
    lines = assignments(
        entries + [(nnz + n + k, sym) for k, sym in enumerate(exports)], names, "@out", inter
    )

    def output(match):
        k = int(match.group(1))
        if k >= nnz + n:
            return f"{STAGE_ARRAY}[{k - nnz - n}]"
        return f"M_out[{k}]" if k < nnz else f"f_out[{k - nnz}]"

    lines = [re.sub(r"@out\[(\d+)\]", output, line) for line in lines]
    if exports:
        lines = _stored_where_defined(lines, STAGE_ARRAY)
        text = " ".join(lines)
        lines = [c for name, c in copies if re.search(rf"\b{name}\b", text)] + lines
    done = {k for k, _ in entries}
    zeros = [output_zero for output_zero in range(nnz + n) if output_zero not in done]
    lines = [f"{'M_out' if k < nnz else 'f_out'}[{k if k < nnz else k - nnz}] = MCS_R(0.0);"
             for k in zeros] + lines  # fmt: skip
    used = " ".join(lines)
    prefix = model.name
    return {
        "body": lines,
        "unused": [a for a in ("x", "v", "t", "p") if not uses(used, a)],
        "M_nz": [
            f"mcs_real f_unused[{n}];",
            f"mcs_real v_zero[{n}];",
            f"for (k = 0; k < {n}; ++k) {{ v_zero[k] = MCS_R(0.0); }}",
            f"{prefix}_M_f(x, v_zero, t, p, out, f_unused);",
        ],
        "f": [f"mcs_real M_unused[{nnz}];", f"{prefix}_M_f(x, v, t, p, M_unused, out);"],
        "exports": exports,
        "nnz": nnz,
        "n": n,
        "comment": "M's nonzeros and f, and, when ne is not NULL, the Newton-Euler pass's "
        "values the joints'\n * wrenches and f's tangent read: each tree step's w, alpha, acc "
        "and its subtree's totals\n * F*, N* (its own frame), then what else they share "
        f"(the joints' sines and cosines, ...): ne ({len(exports)})",
    }


# The array the kernels that build on M_f's Newton-Euler pass read its values from
STAGE_ARRAY = "ne"


def shared_pass_users(model, derived, sets=kernel_sets.ALL):
    """The kernels that read M_f's Newton-Euler pass (fused_kernel) when the model has one: a
    spatial tree on the ground in joint coordinates."""
    topo = model.topology
    if model.intermediates is None or getattr(topo, "newton_euler", None) is None:
        return set()
    users = set()
    if "reactions" in sets and derived.joint_wrenches is not None:
        users.add("joint_wrenches")
    if "force_tangents" in sets and derived.f_tangent is not None:
        users.add("f_tangent")
    return users


def _pass_exports(model, derived, inter, entries, sets):
    """The intermediates M_f hands the users of its Newton-Euler pass (shared_pass_users):
    each step's w, alpha, acc and its subtree's totals, then whatever else of M_f's they need
    (the joints' sines and cosines, the rotations), in the intermediates' order; [] when none."""
    users = shared_pass_users(model, derived, sets)
    if not users:
        return []
    outputs = [e.xreplace(inter.alias) if inter.alias else e for _, e in entries]
    computed = set(inter.needed(outputs))
    state, totals = model.topology.newton_euler
    vectors = [vec for child in state if child != "ground" for vec in state[child]]
    vectors += [vec for child in totals for vec in totals[child]]
    core = list(dict.fromkeys(s for vec in vectors for s in vec if s in computed))
    reader = inter.reading(set(core))
    shared = set()
    for user in _pass_users_entries(derived, users):
        shared |= set(reader.needed([e.xreplace(inter.alias) for e in user])) & computed
    return core + sorted(shared - set(core), key=inter.order.__getitem__)


def _pass_users_entries(derived, users):
    """The expressions each user of the Newton-Euler pass writes."""
    for term in ("joint_wrenches", "f_tangent"):
        if term in users:
            yield list(getattr(derived, term))


# M_f hands its pass's values on in blocks of this many stores, each under one test of the
# array, soon after they are computed: the simulators' M_f (no array) skips them at a branch a
# block, and no value stays live across the kernel only to be stored
STORE_BLOCK = 8


def _inputs_as_locals(model, names):
    """(names, copies): the coordinates, rates and parameters renamed to locals (q0, qd0,
    par0, ...), and the statements that copy them, (local, statement) each."""
    local, copies = dict(names), []
    for i, c in enumerate(model.coordinates):
        for sym, name in ((c.symbol, f"q{i}"), (c.velocity, f"qd{i}")):
            copies.append((name, f"const mcs_real {name} = {names[sym]};"))
            local[sym] = name
    for k, par in enumerate(model.parameters):
        name = f"par{k}"
        copies.append((name, f"const mcs_real {name} = {names[par.symbol]};"))
        local[par.symbol] = name
    return local, copies


def _stored_where_defined(lines, array):
    """Statements with the stores of named values into `array` (`ne[k] = s12;`) moved to soon
    after the statements that define them, in blocks of STORE_BLOCK under `if (array !=
    NULL)`."""
    stores, rest, other = {}, [], []
    pattern = re.compile(rf"{array}\[\d+\] = -?(\w+);")
    for line in lines:
        match = pattern.fullmatch(line)
        if match:
            stores.setdefault(match.group(1), []).append(line)
        elif line.startswith(f"{array}["):
            other.append(line)  # any other value: with the last block
        else:
            rest.append(line)
    out, pending = [], []

    def flush():
        if pending:
            out.extend([f"if ({array} != NULL) {{"] + [f"    {s}" for s in pending] + ["}"])
            pending.clear()

    for line in rest:
        out.append(line)
        match = re.match(r"const mcs_real (\w+) = ", line)
        if match:
            pending.extend(stores.pop(match.group(1), []))
            if len(pending) >= STORE_BLOCK:
                flush()
    pending.extend(s for group in stores.values() for s in group)  # inputs' own (x[k], ...)
    pending.extend(other)
    flush()
    return out


def reading_stage(fused, entries, names, inter):
    """(prologue, names, inter) for a kernel that reads M_f's Newton-Euler pass: the statements
    that run it into scratch arrays, its values named by their entries in the array, and the
    intermediates with those taken as inputs; unchanged when the entries need none of them."""
    symbols = fused["exports"]
    outputs = [e.xreplace(inter.alias) if inter.alias else e for _, e in entries]
    if not set(inter.needed(outputs)) & set(symbols):
        return [], names, inter
    local = dict(names)
    local.update((sym, f"{STAGE_ARRAY}[{k}]") for k, sym in enumerate(symbols))
    return pass_call(fused), local, inter.reading(set(symbols))


def pass_call(fused):
    """The statements that run M_f's pass for its values (fused_kernel)."""
    return [
        f"mcs_real {STAGE_ARRAY}[{len(fused['exports'])}];",
        f"mcs_real M_scratch[{fused['nnz']}];",
        f"mcs_real f_scratch[{fused['n']}];",
        f"{STATIC_PREFIX}M_f_pass(x, v, t, p, M_scratch, f_scratch, {STAGE_ARRAY});",
    ]
