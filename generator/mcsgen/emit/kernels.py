"""Derived expressions -> the bodies of the generated kernels: one CSE per kernel, printed C.

The kernels are the catalogue's (model/catalogue.py), in its order; a heavy one is split into
static parts. Output is deterministic: same model file and generator version, same statements.
"""

import heapq
import re
from dataclasses import dataclass
from typing import Tuple

import sympy as sp

from ..model.catalogue import EVENT_KERNELS, KERNELS, ROW_GROUP_KERNELS, printed, scalars
from ..model import kernel_sets
from ..model.exact import clean
from ..model.reader import PARAM_PREFIX
from .printer import McsCodePrinter
from .tables import a_pattern, counts, m_pattern


# User names reach C only behind prefixes the runtime reserves (model names may not start with
# mcs_, model/reader.py): a parameter is the struct member mcs_p_<name>, so no macro of a header
# a firmware includes (stdio.h's EOF, complex.h's I, ...) can replace it; the generated file's
# own statics are mcs_gen_<name>, which no model prefix <model>_ can spell. Nothing in the
# runtime starts with either (tests/generator/test_emit.py).
STATIC_PREFIX = "mcs_gen_"


def param_member(name):
    """The C member of parameter `name` in the model's parameter struct."""
    return PARAM_PREFIX + name


def symbol_names(model, lam):
    """C text for every symbol a kernel may read."""
    names = {model.time: "t"}
    for i, c in enumerate(model.coordinates):
        names[c.symbol] = f"x[{i}]"
        names[c.velocity] = f"v[{i}]"
    for p in model.parameters:
        names[p.symbol] = f"p->{param_member(p.name)}"
    for i, s in enumerate(lam):
        names[s] = f"lam[{i}]"
    for i, u in enumerate(model.inputs):  # f_u's w; the end of joint_wrenches' (_stacked)
        names[u.symbol] = f"u[{i}]"
    if model.intermediates is not None:  # joint coordinates: the bodies' poses and more
        for k, s in enumerate(model.intermediates.defs):
            names[s] = f"s{k}"
    return names


# A kernel whose entries weigh more than this (expression-tree nodes, a proxy for the C it
# becomes) is emitted as static part functions of at most about this weight each (CSE within a
# part), called in order by the kernel: GCC's optimizer is superlinear in the size of a function
# (the 43-body anchor chain's 11,000-line K_c took two minutes at -O2). The largest kernels in
# models/ (the PUMA 560's gamma, A_dot and K_c, about 37,000) print as one function.
KERNEL_PART_WEIGHT = 40000


def _weight(expr):
    return sum(1 for _ in sp.preorder_traversal(expr))


def _parts(nonzero_entries):
    """The entries split into consecutive runs of weight at most KERNEL_PART_WEIGHT (a heavier
    entry alone), or [entries] when the whole kernel is within it."""
    runs, run, total = [], [], 0
    for k, e in nonzero_entries:
        w = _weight(e)
        if run and total + w > KERNEL_PART_WEIGHT:
            runs.append(run)
            run, total = [], 0
        run.append((k, e))
        total += w
    return runs + [run] if run else runs


def kernel_body(entries, length, names, out="out"):
    """C statements that write `out[0..length)` from entries: list of (flat index, expression).

    Every output entry is written (zeros included). Common subexpressions of all entries are
    shared (one sympy.cse per kernel) and named w0, w1, ...
    """
    entries = nonzero(entries)
    return _zero_fill(entries, length, out) + _assignments(entries, names, out)


def nonzero(entries):
    """The entries that are not exactly zero, as (index, expression) with exact zeros and ones,
    not 1e-40 noise (clean)."""
    cleaned = ((k, clean(e)) for k, e in entries)
    return [(k, e) for k, e in cleaned if e != 0]


def _zero_fill(entries, length, out):
    """Statements that zero the entries of out[0..length) not in entries (the nonzero ones)."""
    if len(entries) == length:
        return []
    if length - len(entries) > 4:
        return [f"for (k = 0; k < {length}; ++k) {{ {out}[k] = MCS_R(0.0); }}"]
    done = {k for k, _ in entries}
    return [f"{out}[{k}] = MCS_R(0.0);" for k in range(length) if k not in done]


def _assignments(entries, names, out, inter=None):
    """CSE'd temporaries and the assignments of the nonzero entries. inter: the model's
    intermediates (_Inline, joint coordinates): those the entries read are statements too,
    before what reads them."""
    if not entries:
        return []
    lines = []
    temps = sp.numbered_symbols("w")
    outputs = [e for _, e in entries]
    if inter is not None and inter.alias:
        outputs = [e.xreplace(inter.alias) for e in outputs]
    needed = inter.needed(outputs) if inter else []
    exprs = [inter.defs[s] for s in needed] + outputs
    replacements, reduced = sp.cse(exprs, symbols=temps, order="canonical")
    statements = replacements
    results = reduced[len(needed) :]
    if needed:
        statements = _in_dependency_order(replacements + list(zip(needed, reduced[: len(needed)])))
        statements, results = _without_copies(statements, results)
    local = dict(names)
    for sym, _ in replacements:
        local[sym] = str(sym)
    printer = McsCodePrinter(local)
    for sym, expr in statements:
        lines.append(f"const mcs_real {local[sym]} = {printer.doprint(expr)};")
    for (k, _), expr in zip(entries, results):
        lines.append(f"{out}[{k}] = {printer.doprint(expr)};")
    return lines


def _without_copies(statements, results):
    """Statements that only copy another name, its negative or a number (an intermediate that
    CSE reduced to a temporary, a rotation's -sin) written in place of their name instead, and
    those nothing reads dropped."""
    copies, kept = {}, []
    for sym, expr in statements:
        expr = expr.xreplace(copies) if copies else expr
        if expr.is_Symbol or expr.is_number or (-expr).is_Symbol:
            copies[sym] = expr
        else:
            kept.append((sym, expr))
    results = [e.xreplace(copies) if copies else e for e in results]
    # and none that nothing reads (a temporary whose only reader was such a copy's name)
    used = set().union(*(e.free_symbols for e in results)) if results else set()
    live = []
    for sym, expr in reversed(kept):
        if sym in used:
            live.append((sym, expr))
            used |= expr.free_symbols
    return live[::-1], results


def _in_dependency_order(statements):
    """[(symbol, expression)] reordered so that each comes after the statements it reads: CSE's
    temporaries and the intermediates interleave (a temporary may read an intermediate and an
    intermediate a temporary). Among the ready ones the earliest in the given order goes
    first, so the order is deterministic."""
    defined = {sym: k for k, (sym, _) in enumerate(statements)}
    waiting_on = {}
    readers = {}
    for k, (_, expr) in enumerate(statements):
        deps = {defined[s] for s in expr.free_symbols if s in defined}
        waiting_on[k] = len(deps)
        for d in deps:
            readers.setdefault(d, []).append(k)
    ready = [k for k, count in waiting_on.items() if count == 0]
    heapq.heapify(ready)
    out = []
    while ready:
        k = heapq.heappop(ready)
        out.append(statements[k])
        for r in readers.get(k, ()):
            waiting_on[r] -= 1
            if waiting_on[r] == 0:
                heapq.heappush(ready, r)
    if len(out) != len(statements):
        raise AssertionError("intermediates read each other in a cycle")
    return out


def _column_major(mat):
    rows, cols = mat.shape
    return [(i + j * rows, mat[i, j]) for j in range(cols) for i in range(rows)]


# A model without constraint rows (nc = 0, a tree in joint coordinates) has nothing for the
# kernels of these output sizes to write: they are not emitted, and the descriptor's members
# (which the runtime calls whatever nc is) point to one no-op function of each kind
NO_ROWS_DIMENSIONS = ("nc", "a_nnz")


def no_rows_kernels(model, derived, sets=kernel_sets.ALL):
    """{descriptor member: its kind (xt, xwt)} of the kernels of the kernel sets `sets` that
    have no output for this model (NO_ROWS_DIMENSIONS)."""
    sizes = counts(model, derived)
    return {
        k.name: k.kind
        for k in KERNELS
        if k.rows in NO_ROWS_DIMENSIONS and k.kernel_set in sets and 0 in k.size(sizes)
    }


def _in_pattern(mat, pattern):
    """Kernel entries (k, mat[i, j]) for the k-th (i, j) of pattern."""
    return [(k, mat[i, j]) for k, (i, j) in enumerate(pattern)]


def _specs(model, derived):
    """(name, catalogue entry, output length, entries, shape comment, what) of every kernel the
    model has, in the generated file's order (model/catalogue.py: printed, then the row groups').
    """
    patterns = {"a": a_pattern(derived), "m": m_pattern(derived)}
    sizes = counts(model, derived)
    specs = []
    for k in printed():
        mat = getattr(derived, k.term)
        tangent = TANGENT_KERNELS.get(k.term)
        if mat is None and tangent and getattr(derived, tangent.field) is not None:
            entries = None  # joint coordinates: column by column from a tangent
        elif mat is None:  # joint_coords, when no joint has a free coordinate
            continue
        else:
            entries = _in_pattern(mat, patterns[k.pattern]) if k.pattern else _column_major(mat)
        rows, cols = k.size(sizes)
        if rows * cols == 0 and k.rows in NO_ROWS_DIMENSIONS:
            continue  # nc = 0: the descriptor points to a shared no-op (no_rows_kernels)
        specs.append((k.name, k, rows * cols, entries, k.shape(sizes), k.what))
    for g, (group, terms) in enumerate(zip(model.row_groups, derived.groups)):
        if group.held_coordinates(model.x) is not None:
            continue  # the runtime forms a coordinate lock's rows (mcs_row_group.coords)
        group_sizes = dict(sizes, ng=len(group.g))
        what = f"row group {g} ({group.name}: {group.what})"
        for i, k in enumerate(ROW_GROUP_KERNELS):
            rows, cols = k.size(group_sizes)
            specs.append(
                (
                    f"group_{g}_{k.name}",
                    k,
                    rows * cols,
                    _column_major(getattr(terms, k.term)),
                    k.shape(group_sizes),
                    f"{what}: {k.what}" if i == 0 else k.what,
                )
            )
    return specs


def build_kernels(model, derived, sets=kernel_sets.ALL):
    """The kernels of SPEC §5 as dicts the templates print: those of the kernel sets `sets`,
    the scalars, and the fused M_f (fused_kernel) or None.

    A, A_dot and M are emitted as their nonzeros (A_nz, A_dot_nz in A's pattern, M_nz in M's):
    the runtime's sparse products and a firmware's memory use those; the dense A, A_dot and M
    are views that spread them (tables.dense_views)."""
    names = symbol_names(model, derived.lam)
    in_a = set(a_pattern(derived))
    rows, cols = derived.A_dot.shape
    outside = [
        (i, j)
        for j in range(cols)
        for i in range(rows)
        if (i, j) not in in_a and clean(derived.A_dot[i, j]) != 0
    ]
    if outside:  # A_dot = dA/dt along v: a structural zero of A stays one
        raise AssertionError(f"A_dot has nonzeros outside A's pattern: {outside[:4]}")
    # the geometry symbols of a bodies model back to their expressions of the parameters
    geometry = dict(model.geometry)
    inter = intermediates_of(model, geometry)
    kernels = []
    helpers_done = set()
    fused = fused_kernel(model, derived, names, sets)
    # the kernels that read M_f's Newton-Euler pass, and the pass (fused_kernel), or None
    readers = shared_pass_users(model, derived, sets) if fused and fused["exports"] else set()
    stage = fused if readers else None
    for name, spec, length, entries, shape, what in _specs(model, derived):
        if spec.kernel_set not in sets:
            continue
        if fused is not None and name in ("M_nz", "f"):  # calls M_f
            kernels.append(
                _kernel_entry(name, spec, shape, what, body=fused[name], uses_k=name == "M_nz")
            )
            continue
        if entries is None:
            kernels.append(
                _tangent_kernel(
                    model,
                    derived,
                    spec,
                    name,
                    shape,
                    what,
                    names,
                    inter,
                    helpers_done,
                    stage if F_TANGENT.function in readers else None,
                )
            )
            continue
        if geometry:
            entries = [(k, e.xreplace(geometry)) for k, e in entries]
        entries = nonzero(entries)
        args = ("x", spec.w, "t", "p", "out")
        parts = []
        runs = _parts(entries)
        local = names
        if spec.w == "w":  # several arrays stacked in w (W_LAYOUT)
            local = dict(names)
            arrays = dict(derived.arrays, nu=derived.nu or ())
            for array in ("a", "nu", "dx", "dv", "du"):
                local.update((s, f"{array}[{i}]") for i, s in enumerate(arrays[array]))
        prologue, kernel_inter = [], inter
        if stage is not None and len(runs) == 1 and name in readers:
            prologue, local, kernel_inter = _reading_stage(stage, entries, local, inter)
        if len(runs) > 1:
            for run in runs:
                part = _assignments(run, local, "out", inter)
                if spec.w == "w":
                    part = _stacked(part, model, name)
                used = " ".join(part)
                parts.append(
                    {"body": part, "unused": [a for a in args if a and not _uses(used, a)]}
                )
            body = _zero_fill(entries, length, "out")
        else:
            body = (
                prologue
                + _zero_fill(entries, length, "out")
                + _assignments(entries, local, "out", kernel_inter)
            )
            if spec.w == "w":
                body = _stacked(body, model, name)
        used = " ".join(body)
        kernels.append(
            _kernel_entry(
                name,
                spec,
                shape,
                what,
                body=body,
                parts=parts,
                uses_k="k = 0" in used,
                # the descriptor points to the run-time initial state only when it depends on
                # the parameters, to the held conditions only when there are some
                descriptor=not (
                    (name == "initial" and not derived.initial_depends_on_params)
                    or (name == "held" and not derived.held.shape[0])
                ),
                unused=[] if parts else [a for a in args if a and not _uses(used, a)],
            )
        )
    values = {"kinetic": derived.kinetic, "potential": derived.potential}
    out = [
        _scalar(k.name, k.kind, values[k.name], names, k.what, geometry, inter)
        for k in scalars()
        if values[k.name] is not None and k.kernel_set in sets
    ]
    (event,) = EVENT_KERNELS
    for k, e in enumerate(model.events):  # condition events: g(x, v, t), fires when g crosses 0
        if e.condition is not None and event.kernel_set in sets:
            what = f"{event.what} of event {k}"
            out.append(_scalar(f"event_{k}", event.kind, e.condition, names, what, geometry, inter))
    return kernels, out, fused


# what the w of a kernel with w = "w" stacks (model/catalogue.py), in order, each array's
# length in the descriptor's counts ("nx", "nc", "nmu", "nu")
W_LAYOUT = {
    "joint_wrenches": (("v", "nx"), ("a", "nx"), ("lam", "nc"), ("nu", "nmu"), ("u", "nu")),
    "M_x": (("a", "nx"), ("u", "nu"), ("dx", "nx")),
    "gamma_x": (("v", "nx"), ("a", "nx"), ("dx", "nx")),
    "outputs": (("v", "nx"), ("u", "nu")),
    "outputs_x": (("v", "nx"), ("u", "nu"), ("dx", "nx"), ("dv", "nx"), ("du", "nu")),
}


def _stacked(lines, model, kernel):
    """A body of a kernel with w = "w" with its views of the arrays stacked in w (W_LAYOUT)
    first (those it reads)."""
    used = " ".join(lines)
    sizes = {
        "nx": model.n,
        "nc": model.m,
        "nmu": sum(len(group.g) for group in model.row_groups),
        "nu": len(model.inputs),
    }
    views, at = [], 0
    for name, count in W_LAYOUT[kernel]:
        if _uses(used, name) or f", {name}," in used:
            views.append(f"const mcs_real *{name} = &w[{at}];")
        at += sizes[count]
    return views + lines


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
    m_entries = _in_pattern(derived.M, m_pattern(derived))
    n = model.n
    if model.intermediates is None or "motion" not in sets or len(m_entries) + n > FUSE_MAX:
        return None
    geometry = dict(model.geometry)
    inter = intermediates_of(model, geometry)
    f_entries = _column_major(derived.f)
    entries = [(k, e) for k, e in m_entries] + [(len(m_entries) + k, e) for k, e in f_entries]
    if geometry:
        entries = [(k, e.xreplace(geometry)) for k, e in entries]
    entries = nonzero(entries)
    nnz = len(m_entries)
    exports = _pass_exports(model, derived, inter, entries, sets)
    copies = []
    if exports:  # the inputs as locals, which no store into the array can change (MISRA
        names, copies = _inputs_as_locals(model, names)  # rule 8.14 forbids `restrict`)
    lines = _assignments(
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
        "unused": [a for a in ("x", "v", "t", "p") if not _uses(used, a)],
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
        users.add(F_TANGENT.function)
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
    if "joint_wrenches" in users:
        yield list(derived.joint_wrenches)
    if F_TANGENT.function in users:
        yield list(derived.f_tangent)


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


def _reading_stage(fused, entries, names, inter):
    """(prologue, names, inter) for a kernel that reads M_f's Newton-Euler pass: the statements
    that run it into scratch arrays, its values named by their entries in the array, and the
    intermediates with those taken as inputs; unchanged when the entries need none of them."""
    symbols = fused["exports"]
    outputs = [e.xreplace(inter.alias) if inter.alias else e for _, e in entries]
    if not set(inter.needed(outputs)) & set(symbols):
        return [], names, inter
    local = dict(names)
    local.update((sym, f"{STAGE_ARRAY}[{k}]") for k, sym in enumerate(symbols))
    return _pass_call(fused), local, inter.reading(set(symbols))


def _pass_call(fused):
    """The statements that run M_f's pass for its values (fused_kernel)."""
    return [
        f"mcs_real {STAGE_ARRAY}[{len(fused['exports'])}];",
        f"mcs_real M_scratch[{fused['nnz']}];",
        f"mcs_real f_scratch[{fused['n']}];",
        f"{STATIC_PREFIX}M_f_pass(x, v, t, p, M_scratch, f_scratch, {STAGE_ARRAY});",
    ]


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


def _tangent_kernel(model, derived, spec, name, shape, what, names, inter, helpers_done, stage):
    """K_f, D or K_c of a joint-coordinate model: a loop over the unit directions calling its
    tangent's static function (its body here, with the first kernel that calls it). stage: the
    fused M_f whose Newton-Euler pass f's tangent reads (fused_kernel), or None: the kernel
    runs the pass once for its 2n calls."""
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
        entries = _column_major(getattr(derived, tangent.field))
        if geometry:
            entries = [(k, e.xreplace(geometry)) for k, e in entries]
        entries = nonzero(entries)
        helper_inter = inter
        if reads_stage:  # the pass's values from the array its caller filled once
            _, local, helper_inter = _reading_stage(stage, entries, local, inter)
        body = _zero_fill(entries, model.n, "out") + _assignments(
            entries, local, "out", helper_inter
        )
        used = " ".join(body)
        arguments = ("x",) + params + ("t", "p")
        helper = {
            "function": tangent.function,
            "comment": tangent.comment,
            "params": ", ".join(f"const mcs_real *{a}" for a in ("x",) + params),
            "body": body,
            "unused": [a for a in arguments if not _uses(used, a)],
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
        body = _pass_call(stage)
    return _kernel_entry(
        name, spec, shape, what, body=body, helper=helper, tangent=call, uses_k=True
    )


def _kernel_entry(
    name,
    spec,
    shape,
    what,
    *,
    body=(),
    parts=(),
    helper=None,
    tangent=None,
    uses_k=False,
    descriptor=True,
    unused=(),
):
    """One kernel as the templates print it: `body` its statements, `parts` static functions it
    calls after them in order, `helper` its tangent's static function (a tangent kernel's,
    `tangent` how it calls it along each unit direction), `descriptor` whether the model
    descriptor points to it and `unused` the arguments it does not read."""
    return {
        "name": name,
        "kind": spec.kind,
        "w": spec.w or None,
        "shape": shape,
        "what": what,
        "body": list(body),
        "parts": list(parts),
        "helper": helper,
        "tangent": tangent,
        "uses_k": uses_k,
        "descriptor": descriptor,
        "unused": list(unused),
    }


def intermediates_of(model, geometry):
    """(Intermediates, {symbol: definition with the geometry symbols put back}) of a
    joint-coordinate model, None otherwise: what _assignments takes."""
    if model.intermediates is None:
        return None
    defs = model.intermediates.defs
    if geometry:
        defs = {s: e.xreplace(geometry) for s, e in defs.items()}
    # an intermediate that is a number or another symbol is written in place of its name
    alias = {}
    for s, e in defs.items():
        if e.is_number or e.is_Symbol:
            alias[s] = alias.get(e, e)
    defs = {s: e.xreplace(alias) for s, e in defs.items() if s not in alias}
    return _Inline(defs, alias)


class _Inline:
    """The intermediates as the emitter writes them: defs {symbol: definition}, in definition
    order, and alias {symbol: number or symbol} written in place."""

    def __init__(self, defs, alias):
        self.defs, self.alias = defs, alias
        self.order = {s: k for k, s in enumerate(defs)}

    def reading(self, symbols):
        """The same intermediates with `symbols` taken as inputs (M_f's pass's values, read
        from its array): what they are computed from is no longer needed for them."""
        return _Inline({s: e for s, e in self.defs.items() if s not in symbols}, self.alias)

    def needed(self, exprs):
        seen, stack = set(), []
        for e in exprs:
            stack.extend(s for s in e.free_symbols if s in self.defs)
        while stack:
            s = stack.pop()
            if s not in seen:
                seen.add(s)
                stack.extend(r for r in self.defs[s].free_symbols if r in self.defs)
        return sorted(seen, key=self.order.__getitem__)


def _scalar(name, kind, expr, names, what, geometry=None, inter=None):
    """A scalar kernel: CSE'd temporaries (and the intermediates it reads) and a return
    statement."""
    if geometry:
        expr = sp.sympify(expr).xreplace(geometry)
    lines = _assignments([(0, clean(expr))], names, "@", inter)
    body = lines[:-1] + ["return " + lines[-1].split(" = ", 1)[1]]
    used = " ".join(body)
    args = ("x", "v", "t", "p") if kind == "xvt" else ("x", "t", "p")
    return {
        "name": name,
        "kind": kind,
        "what": what,
        "body": body,
        "unused": [a for a in args if not _uses(used, a)],
    }


def _uses(code, arg):
    """Whether C code reads argument `arg` (x[..], v[..], lam[..], t, p->.., out[..])."""
    if arg == "t":
        return re.search(r"(?<![A-Za-z0-9_>.\[])t(?![A-Za-z0-9_\[])", code) is not None
    if arg == "p":
        return "p->" in code
    return re.search(rf"(?<![A-Za-z0-9_]){arg}\[", code) is not None
