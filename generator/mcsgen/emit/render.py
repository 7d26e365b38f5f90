"""Derived expressions -> C kernels (CSE + printing) -> generated/<model>/<model>.{h,c}.

Templates hold structure only (guards, prototypes, tables); kernel bodies arrive finished from
`kernel_body`. Output is deterministic: same model file and generator version, same bytes.
"""

import os
import re
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Dict

import jinja2
import sympy as sp

from ..version import __version__
from ..model import complete_initial_state
from ..model import kernel_sets
from ..model.energy import KINDS as ENERGY_KINDS
from ..model.exact import clean
from ..model.reader import PARAM_PREFIX
from ..paths import TEMPLATES, shipped
from .fingerprint import generator_fingerprint
from .structure import givens_qr, kkt_band
from .printer import McsCodePrinter

if TYPE_CHECKING:  # for the hints only
    from ..derive import Derived
    from ..model import Model

# The descriptor layout the templates emit: runtime/include/mcs/mcs_model.h's MCS_MODEL_ABI_VERSION.
MODEL_ABI_VERSION = 9
# Values of mcs_method, mcs_continuation and mcs_joint_coordinate (runtime/include/mcs/).
METHOD_ID = {"rk4": 0, "dopri5": 1, "dop853": 2}
CONT_ID = {"exp": 0, "euler": 1, "none": 2, "off": 3}
JOINT_COORD_ID = {
    "": "MCS_JOINT_COORD_NONE",
    "angle": "MCS_JOINT_COORD_ANGLE",
    "translation": "MCS_JOINT_COORD_TRANSLATION",
}


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
    return names


# A kernel whose entries weigh more than this (expression-tree nodes, a proxy for the C it
# becomes) is emitted as static part functions of at most about this weight each (CSE within a
# part), called in order by the kernel: GCC's optimizer is superlinear in the size of a function
# (the 43-body anchor chain's 11,000-line K_c took two minutes at -O2). The largest kernels in
# models/ (the PUMA 560's gamma, A_dot and K_c, about 37,000) print as one function.
KERNEL_PART_WEIGHT = 40000


def _weight(expr):
    return sum(1 for _ in sp.preorder_traversal(expr))


def _parts(nonzero):
    """nonzero split into consecutive runs of weight at most KERNEL_PART_WEIGHT (a heavier entry
    alone), or [nonzero] when the whole kernel is within it."""
    runs, run, total = [], [], 0
    for k, e in nonzero:
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
    nonzero = _nonzero(entries)
    return _zero_fill(nonzero, length, out) + _assignments(nonzero, names, out)


def _nonzero(entries):
    """The entries that are not exactly zero, as (index, expression) with exact zeros and ones,
    not 1e-40 noise (clean)."""
    cleaned = ((k, clean(e)) for k, e in entries)
    return [(k, e) for k, e in cleaned if e != 0]


def _zero_fill(nonzero, length, out):
    """Statements that zero the entries of out[0..length) not in nonzero."""
    if len(nonzero) == length:
        return []
    if length - len(nonzero) > 4:
        return [f"for (k = 0; k < {length}; ++k) {{ {out}[k] = MCS_R(0.0); }}"]
    done = {k for k, _ in nonzero}
    return [f"{out}[{k}] = MCS_R(0.0);" for k in range(length) if k not in done]


def _assignments(nonzero, names, out):
    """CSE'd temporaries and the assignments of the nonzero entries."""
    if not nonzero:
        return []
    lines = []
    temps = sp.numbered_symbols("w")
    replacements, reduced = sp.cse([e for _, e in nonzero], symbols=temps, order="canonical")
    local = dict(names)
    for sym, _ in replacements:
        local[sym] = str(sym)
    printer = McsCodePrinter(local)
    for sym, expr in replacements:
        lines.append(f"const mcs_real {sym} = {printer.doprint(expr)};")
    for (k, _), expr in zip(nonzero, reduced):
        lines.append(f"{out}[{k}] = {printer.doprint(expr)};")
    return lines


def _column_major(mat):
    rows, cols = mat.shape
    return [(i + j * rows, mat[i, j]) for j in range(cols) for i in range(rows)]


def build_kernels(model, derived, sets=kernel_sets.ALL):
    """The kernels of SPEC §5 as dicts the templates print: those of the kernel sets `sets`.

    A, A_dot and M are emitted as their nonzeros (A_nz, A_dot_nz in A's pattern, M_nz in M's):
    the runtime's sparse products and a firmware's memory use those; the dense A, A_dot and M
    are views that spread them (dense_views)."""
    n, m = model.n, model.m
    names = symbol_names(model, derived.lam)
    a_pat, m_pat = a_pattern(derived), m_pattern(derived)
    outside = [(i, j) for i, j in _pattern(derived.A_dot) if clean(derived.A[i, j]) == 0]
    if outside:  # A_dot = dA/dt along v: a structural zero of A stays one
        raise AssertionError(f"A_dot has nonzeros outside A's pattern: {outside[:4]}")
    specs = [
        # name, kind (xt | xwt), w name, output length, entries, shape comment, what
        ("c", "xt", None, m, _column_major(derived.c), f"({m} x 1)", "constraints c(x, t)"),
        (
            "A_nz",
            "xt",
            None,
            len(a_pat),
            _in_pattern(derived.A, a_pat),
            f"({len(a_pat)} x 1)",
            "the nonzeros of dc/dx, column by column (the descriptor's a_rows, a_cols)",
        ),
        ("c_t", "xt", None, m, _column_major(derived.c_t), f"({m} x 1)", "dc/dt"),
        (
            "gamma",
            "xwt",
            "v",
            m,
            _column_major(derived.gamma),
            f"({m} x 1)",
            "A xdd = gamma(x, v, t)",
        ),
        (
            "A_dot_nz",
            "xwt",
            "v",
            len(a_pat),
            _in_pattern(derived.A_dot, a_pat),
            f"({len(a_pat)} x 1)",
            "dA/dt along v at A's nonzeros (a_rows, a_cols)",
        ),
        (
            "M_nz",
            "xt",
            None,
            len(m_pat),
            _in_pattern(derived.M, m_pat),
            f"({len(m_pat)} x 1)",
            "the nonzeros of the mass matrix, column by column (m_rows, m_cols)",
        ),
        (
            "f",
            "xwt",
            "v",
            n,
            _column_major(derived.f),
            f"({n} x 1)",
            "applied minus quadratic-velocity forces",
        ),
        ("K_c", "xwt", "lam", n * n, _column_major(derived.K_c), f"({n} x {n})", "d(A^T lam)/dx"),
        ("K_f", "xwt", "v", n * n, _column_major(derived.K_f), f"({n} x {n})", "-df/dx"),
        ("D", "xwt", "v", n * n, _column_major(derived.D), f"({n} x {n})", "-df/dv"),
    ]
    if derived.joint_coords is not None:
        nq = derived.joint_coords.shape[0] // 2
        specs.append(
            (
                "joint_coords",
                "xwt",
                "v",
                2 * nq,
                _column_major(derived.joint_coords),
                f"({2 * nq} x 1)",
                "the joints' free coordinates (angle or translation from the initial pose), "
                "then their rates",
            )
        )
    nh = derived.held.shape[0]
    specs += [
        (
            "initial",
            "xt",
            None,
            2 * n,
            _column_major(derived.initial),
            f"({2 * n} x 1)",
            "the mechanism file's initial positions, then velocities, of the parameters",
        ),
        (
            "held",
            "xt",
            None,
            nh * (n + 1),
            _column_major(derived.held),
            f"({nh} x {n + 1})",
            "[H | h]: the held initial velocity conditions H(x) v = h",
        ),
    ]
    for k, (group, terms) in enumerate(zip(model.row_groups, derived.groups)):
        p = len(group.g)
        what = f"row group {k} ({group.name}: {group.what})"
        specs += [
            (f"group_{k}_g", "xt", None, p, _column_major(terms.g), f"({p} x 1)", f"{what}: g(x)"),
            (f"group_{k}_G", "xt", None, p * n, _column_major(terms.G), f"({p} x {n})", "dg/dx"),
            (
                f"group_{k}_gamma",
                "xwt",
                "v",
                p,
                _column_major(terms.gamma),
                f"({p} x 1)",
                "-(dG/dt) v",
            ),
            (
                f"group_{k}_G_dot",
                "xwt",
                "v",
                p * n,
                _column_major(terms.G_dot),
                f"({p} x {n})",
                "dG/dt along v",
            ),
        ]
    specs = [spec for spec in specs if kernel_sets.set_of(spec[0]) in sets]
    # the geometry symbols of a bodies model back to their expressions of the parameters
    geometry = dict(model.geometry)
    kernels = []
    for name, kind, wname, length, entries, shape, what in specs:
        if geometry:
            entries = [(k, e.xreplace(geometry)) for k, e in entries]
        nonzero = _nonzero(entries)
        args = ("x", wname, "t", "p", "out")
        parts = []
        runs = _parts(nonzero)
        if len(runs) > 1:
            for run in runs:
                part = _assignments(run, names, "out")
                used = " ".join(part)
                parts.append(
                    {"body": part, "unused": [a for a in args if a and not _uses(used, a)]}
                )
            body = _zero_fill(nonzero, length, "out")
        else:
            body = _zero_fill(nonzero, length, "out") + _assignments(nonzero, names, "out")
        used = " ".join(body)
        kernels.append(
            {
                "name": name,
                "kind": kind,
                "w": wname,
                "shape": shape,
                "what": what,
                "body": body,
                "parts": parts,  # static functions the kernel calls after its body, in order
                "uses_k": "k = 0" in used,
                # whether the descriptor points to it (the run-time initial state only when it
                # depends on the parameters; the held conditions only when there are some)
                "descriptor": not (
                    (name == "initial" and not derived.initial_depends_on_params)
                    or (name == "held" and not derived.held.shape[0])
                ),
                "unused": [] if parts else [a for a in args if a and not _uses(used, a)],
            }
        )
    scalars = [
        _scalar("kinetic", "xvt", derived.kinetic, names, "kinetic energy T(x, v, t)", geometry)
    ]
    if derived.potential is not None:
        scalars.append(
            _scalar(
                "potential", "xt", derived.potential, names, "potential energy V(x, t)", geometry
            )
        )
    for k, e in enumerate(model.events):  # condition events: g(x, v, t), fires when g crosses 0
        if e.condition is not None and "transitions" in sets:
            scalars.append(
                _scalar(
                    f"event_{k}", "xvt", e.condition, names, f"condition of event {k}", geometry
                )
            )
    return kernels, scalars


def _scalar(name, kind, expr, names, what, geometry=None):
    """A scalar kernel: CSE'd temporaries and a return statement."""
    if geometry:
        expr = sp.sympify(expr).xreplace(geometry)
    replacements, (reduced,) = sp.cse(
        [clean(expr)], symbols=sp.numbered_symbols("w"), order="canonical"
    )
    local = dict(names)
    for sym, _ in replacements:
        local[sym] = str(sym)
    printer = McsCodePrinter(local)
    body = [f"const mcs_real {s} = {printer.doprint(e)};" for s, e in replacements]
    body.append(f"return {printer.doprint(reduced)};")
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


def _pattern(mat):
    """(row, column) of the entries of mat that are not exactly zero, column by column (the
    predicate of the kernels' own zero test, _nonzero)."""
    rows, cols = mat.shape
    return [(i, j) for j in range(cols) for i in range(rows) if clean(mat[i, j]) != 0]


def a_pattern(derived):
    return _pattern(derived.A)


def m_pattern(derived):
    return _pattern(derived.M)


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


def _rows_of(pattern, m):
    """A's pattern row by row (the runtime's sparse products with rows of A): row_start (m + 1)
    and row_nz, the index in `pattern` of each nonzero, rows in turn, columns ascending."""
    order = sorted(range(len(pattern)), key=lambda k: (pattern[k][0], pattern[k][1]))
    start = [0] * (m + 1)
    for i, _ in pattern:
        start[i + 1] += 1
    for i in range(m):
        start[i + 1] += start[i]
    return {"row_start": start, "row_nz": order}


def _in_pattern(mat, pattern):
    """Kernel entries (k, mat[i, j]) for the k-th (i, j) of pattern."""
    return [(k, mat[i, j]) for k, (i, j) in enumerate(pattern)]


# The dense kernels that are views of sparse ones: name -> (its nonzeros' kernel, pattern tables,
# the pattern's rows as a C expression, what)
DENSE_VIEWS = {
    "A": ("A_nz", "a", "NC", "Jacobian dc/dx"),
    "A_dot": ("A_dot_nz", "a", "NC", "dA/dt along v"),
    "M": ("M_nz", "m", "NX", "mass matrix"),
}


def dense_views(model, kernels):
    """The dense A, A_dot and M for the templates: each calls its nonzeros' kernel and spreads
    them in place (one helper of the generated file), when that kernel is emitted."""
    emitted = {k["name"]: k for k in kernels}
    views = []
    for name, (nz, tables, rows, what) in DENSE_VIEWS.items():
        if nz not in emitted:
            continue
        ld = model.m if rows == "NC" else model.n
        views.append(
            {
                "name": name,
                "nz": nz,
                "kind": emitted[nz]["kind"],
                "w": emitted[nz]["w"],
                "tables": tables,
                "ld": ld,
                "shape": f"({ld} x {model.n})",
                "what": what,
                "descriptor": True,
            }
        )
    return views


def render(
    model: "Model",
    derived: "Derived",
    sets: frozenset = kernel_sets.ALL,
    generate_options: str = "",
    band: bool = True,
) -> Dict[str, str]:
    """Return {filename: text} of the generated sources with the kernels of `sets`
    (model/kernel_sets.py; all of them for generated/, fewer for a firmware build).
    generate_options: what the banner's regeneration command adds ('--firmware ').
    band: emit the banded simulator's structure when the model has one (not for firmware)."""
    complete_initial_state(model)  # the emitted v0 needs it (a no-op once generate has done it)
    kernels, scalars = build_kernels(model, derived, sets)
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
    ctx = {
        "version": __version__,
        "fingerprint": generator_fingerprint(),
        "model": model,
        "prefix": model.name,
        "PREFIX": model.name.upper(),
        "source": f"models/{model.path.name}" if shipped(model.path) else _comment_safe(model.path),
        "file_hash": model.file_hash,
        "kernels": kernels,
        # the descriptor's entries of the kernels a subset may omit
        "ref": {
            name: (
                f"{STATIC_PREFIX}d_{name}"
                if any(k["name"] == name for k in kernels + views)
                else "NULL"
            )
            for name in ("A_dot", "A_dot_nz", "K_c", "K_f", "D")
        },
        "views": views,
        "kernel_sets": kernel_sets.label(sets),
        "generate_options": generate_options,
        "firmware_features": _firmware_features(model.firmware),
        # without the transitions set the descriptor has no row groups, switches or events
        "row_groups": model.row_groups if transitions else [],
        "switches": model.switches if transitions else [],
        "events": model.events if transitions else [],
        "scalars": scalars,
        "has_potential": derived.potential is not None,
        "pattern": a_pattern(derived),
        "m_pattern": m_pattern(derived),
        **_rows_of(a_pattern(derived), model.m),
        "band": band_structure(model, derived) if band else None,
        "real": McsCodePrinter({}).value,
        "sim": sim,
        "method_id": METHOD_ID[sim["method"]],
        "cont_id": CONT_ID[sim["continuation"]],
        "c_string": c_string,
        "abi_version": MODEL_ABI_VERSION,
        "joint_coord": JOINT_COORD_ID,
        "max_group_rows": max([g.nrows for g in model.row_groups if transitions] + [1]),
        "njc": njc,
        "joint_coord_index": joint_coord_index,
        "nheld": derived.held.shape[0],
        "initial_depends_on_params": derived.initial_depends_on_params,
        "energy_id": ENERGY_KINDS.index(model.energy.kind),
        "energy": model.energy,
        "comment_safe": _comment_safe,
        "member": param_member,
        "gs": STATIC_PREFIX,
    }
    return {
        f"{model.name}.h": env.get_template("model.h.j2").render(ctx),
        f"{model.name}.c": env.get_template("model.c.j2").render(ctx),
    }


def _firmware_features(firmware):
    """The MCS_MEM_* bits (mcs_sim.h) a run with the file's firmware settings uses."""
    sim = firmware["simulation"]
    bits = [
        name
        for name, on in (
            ("MCS_MEM_DOPRI5", sim["method"] == "dopri5"),
            ("MCS_MEM_DOP853", sim["method"] == "dop853"),
            ("MCS_MEM_EULER", sim["continuation"] == "euler"),
            ("MCS_MEM_EXP", sim["continuation"] == "exp"),
            ("MCS_MEM_EVENTS", firmware["events"]),
            ("MCS_MEM_COMPACT", firmware["compact"]),
        )
        if on
    ]
    return "(" + " | ".join(bits) + ")" if bits else "0U"


def _comment_safe(path):
    """A user's model path as the banner shows it: printable ASCII, no comment terminator."""
    text = "".join(ch if 32 <= ord(ch) < 127 else "?" for ch in str(path))
    return text.replace("*/", "*?/")


def c_string(text):
    """A C string literal (names and units are plain ASCII identifiers and unit text)."""
    out = text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", " ")
    return '"' + "".join(ch if 32 <= ord(ch) < 127 else "?" for ch in out) + '"'


def write_atomically(files: Dict[str, str], directory: "os.PathLike") -> None:
    """Write every file or none: render first, then move complete temp files into place. The
    files get the mode a file created here would (0666 less the umask), not mkstemp's 0600."""
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    umask = os.umask(0)
    os.umask(umask)
    temps = []
    try:
        for name, text in files.items():
            fd, tmp = tempfile.mkstemp(prefix=f".{name}.", dir=directory)
            with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as fh:
                fh.write(text)
                os.fchmod(fh.fileno(), 0o666 & ~umask)
            temps.append((tmp, directory / name))
        for tmp, final in temps:
            os.replace(tmp, final)
    finally:
        for tmp, _ in temps:
            if os.path.exists(tmp):
                os.unlink(tmp)
