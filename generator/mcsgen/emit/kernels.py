"""The kernels a generated model carries, as the templates print them: the catalogue
(model/catalogue.py) walked in the generated file's order, each kernel of the build's kernel
sets with its body (statements.py), a heavy one split into static parts, the scalars and the
condition events, M_nz and f through M_f where a model fuses them (fused.py), K_f, D and K_c of
joint coordinates column by column (tangent_kernels.py).
"""

import sympy as sp

from ..model import kernel_sets
from ..model.catalogue import EVENT_KERNELS, ROW_GROUP_KERNELS, KERNELS, printed, scalars
from ..model.exact import clean
from .fused import fused_kernel, reading_stage, shared_pass_users
from .statements import (
    assignments,
    column_major,
    in_pattern,
    intermediates_of,
    nonzero,
    symbol_names,
    uses,
    zero_fill,
)
from .tables import a_pattern, counts, m_pattern
from .tangent_kernels import TANGENT_KERNELS, tangent_kernel


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
            entries = in_pattern(mat, patterns[k.pattern]) if k.pattern else column_major(mat)
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
                    column_major(getattr(terms, k.term)),
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
                kernel_entry(name, spec, shape, what, body=fused[name], uses_k=name == "M_nz")
            )
            continue
        if entries is None:
            stage_of_f = stage if "f_tangent" in readers else None
            loop = tangent_kernel(model, derived, spec, names, inter, helpers_done, stage_of_f)
            kernels.append(kernel_entry(name, spec, shape, what, **loop, uses_k=True))
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
        if stage is not None and len(runs) == 1 and spec.term in readers:
            prologue, local, kernel_inter = reading_stage(stage, entries, local, inter)
        if len(runs) > 1:
            for run in runs:
                part = assignments(run, local, "out", inter)
                if spec.w == "w":
                    part = _stacked(part, model, name)
                used = " ".join(part)
                parts.append({"body": part, "unused": [a for a in args if a and not uses(used, a)]})
            body = zero_fill(entries, length, "out")
        else:
            body = (
                prologue
                + zero_fill(entries, length, "out")
                + assignments(entries, local, "out", kernel_inter)
            )
            if spec.w == "w":
                body = _stacked(body, model, name)
        used = " ".join(body)
        kernels.append(
            kernel_entry(
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
                unused=[] if parts else [a for a in args if a and not uses(used, a)],
            )
        )
    values = {"kinetic": derived.kinetic, "potential": derived.potential}
    out = [
        _scalar(k.name, k, values[k.name], names, k.what, geometry, inter)
        for k in scalars()
        if values[k.name] is not None and k.kernel_set in sets
    ]
    (event,) = EVENT_KERNELS
    for k, e in enumerate(model.events):  # condition events: g(x, v, t), fires when g crosses 0
        if e.condition is not None and event.kernel_set in sets:
            what = f"{event.what} of event {k}"
            out.append(_scalar(f"event_{k}", event, e.condition, names, what, geometry, inter))
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
        if uses(used, name) or f", {name}," in used:
            views.append(f"const mcs_real *{name} = &w[{at}];")
        at += sizes[count]
    return views + lines


def kernel_entry(
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
        "type": spec.type,
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


def _scalar(name, spec, expr, names, what, geometry=None, inter=None):
    """A scalar kernel of the catalogue's entry `spec`: CSE'd temporaries (and the intermediates
    it reads) and a return statement."""
    if geometry:
        expr = sp.sympify(expr).xreplace(geometry)
    lines = assignments([(0, clean(expr))], names, "@", inter)
    body = lines[:-1] + ["return " + lines[-1].split(" = ", 1)[1]]
    used = " ".join(body)
    args = ("x", "v", "t", "p") if spec.kind == "xvt" else ("x", "t", "p")
    return {
        "name": name,
        "kind": spec.kind,
        "type": spec.type,
        "what": what,
        "body": body,
        "unused": [a for a in args if not uses(used, a)],
    }
