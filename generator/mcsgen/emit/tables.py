"""The generated file's tables: the nonzero patterns of A and M (column by column, and A's row by
row), the banded simulator's structure, the dense views that spread a kernel's nonzeros, the
descriptor's counts, and the memory features of the file's firmware settings."""

from ..model.catalogue import BY_NAME, views
from ..enums import CONTINUATION_MEMORY, METHOD_MEMORY
from ..model.exact import clean
from .structure import givens_qr, kkt_band


def _pattern(mat):
    """(row, column) of the entries of mat that are not exactly zero, column by column (the
    predicate of the kernels' own zero test, statements.nonzero)."""
    rows, cols = mat.shape
    return [(i, j) for j in range(cols) for i in range(rows) if clean(mat[i, j]) != 0]


def a_pattern(derived):
    return _pattern(derived.A)


def m_pattern(derived):
    return _pattern(derived.M)


def counts(model, derived):
    """The descriptor's counts that size the kernels' outputs (model/catalogue.py's rows and
    cols): nx, nc, a_nnz, m_nnz, njc, nheld, nw, nmu, nu, ny."""
    jc = derived.joint_coords
    return {
        "nx": model.n,
        "nc": model.m,
        "a_nnz": len(a_pattern(derived)),
        "m_nnz": len(m_pattern(derived)),
        "njc": 0 if jc is None else jc.shape[0] // 2,
        "nheld": derived.held.shape[0],
        "nw": wrench_count(derived),
        "nmu": len(derived.nu or ()),
        "nu": len(model.inputs),
        "ny": len(model.outputs),
    }


def wrench_count(derived):
    """The joint_wrenches kernel's entries (3 or 6 per joint), 0 without one."""
    return 0 if derived.joint_wrenches is None else derived.joint_wrenches.shape[0]


def band_structure(model, derived):
    """The banded simulator's tables (emit/structure.py), or None when A has no rows or is
    structurally rank deficient."""
    pattern = a_pattern(derived)
    qr = givens_qr(pattern, model.m, model.n)
    if qr is None:
        return None
    kkt = kkt_band(pattern, m_pattern(derived), model.m, model.n)
    position = {c: k for k, c in enumerate(qr["c_order"])}
    first = []
    for j in qr["x_order"]:
        cols = [position[i] for i, jj in pattern if jj == j]
        first.append(min(cols) if cols else model.m)
    col_start = [0] * (model.n + 1)
    for _, j in pattern:
        col_start[j + 1] += 1
    for j in range(model.n):
        col_start[j + 1] += col_start[j]
    kkt_pos = [0] * (model.n + model.m)
    for k, v in enumerate(kkt["order"]):
        kkt_pos[v] = k
    return dict(
        qr,
        c_pos=[position[i] for i in range(model.m)],
        first=first,
        a_col_start=col_start,
        kkt_band=kkt["band"],
        kkt_pos=kkt_pos,
    )


def rows_of(pattern, m):
    """A's pattern row by row (the runtime's sparse products with rows of A): row_start (m + 1)
    and row_nz, the index in `pattern` of each nonzero, rows in turn, columns ascending."""
    order = sorted(range(len(pattern)), key=lambda k: (pattern[k][0], pattern[k][1]))
    start = [0] * (m + 1)
    for i, _ in pattern:
        start[i + 1] += 1
    for i in range(m):
        start[i + 1] += start[i]
    return {"row_start": start, "row_nz": order}


def dense_views(model, kernels):
    """The dense A, A_dot and M for the templates (model/catalogue.py's views): each calls its
    nonzeros' kernel and spreads them in place (one helper of the generated file), when that
    kernel is emitted."""
    emitted = {k["name"]: k for k in kernels}
    sizes = {"nx": model.n, "nc": model.m}
    out = []
    for view in views():
        nz = BY_NAME[view.view_of]
        if nz.name not in emitted:
            continue
        ld, _ = view.size(sizes)
        out.append(
            {
                "name": view.name,
                "nz": nz.name,
                "kind": emitted[nz.name]["kind"],
                "type": emitted[nz.name]["type"],
                "w": emitted[nz.name]["w"],
                "tables": nz.pattern,
                "ld": ld,
                "shape": view.shape(sizes),
                "what": view.what,
                "descriptor": True,
            }
        )
    return out


def firmware_features(firmware):
    """The MCS_MEM_* bits (mcs_sim_memory.h) a run with the file's firmware settings uses."""
    sim = firmware["simulation"]
    bits = [
        METHOD_MEMORY[sim["method"]],
        CONTINUATION_MEMORY[sim["continuation"]],
        "MCS_MEM_EVENTS" if firmware["events"] else "",
        "MCS_MEM_COMPACT" if firmware["compact"] else "",
    ]
    bits = [b for b in bits if b]
    return "(" + " | ".join(bits) + ")" if bits else "0U"
