"""What the audit report says of one model, gathered once (issue 11): identity, the model and
where each constraint row comes from, every derived term with the CSE definitions it uses and
the lines of C that compute it, structure (sparsity, operation counts), verification (the
finite-difference check and an entry-by-entry SymPy evaluation of the compiled kernels) and the
physics at the initial state. The renderers (render.py) only format this."""

import datetime
import hashlib
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, List, Optional, Tuple

import numpy as np
import sympy as sp
import yaml

from ..version import __version__
from ..compiled import CompiledModel
from ..selfcheck import check_model
from ..derive import derive
from ..model import kernel_sets
from ..model.catalogue import audited, kernel
from ..emit.fingerprint import generator_fingerprint
from ..emit.statements import nonzero
from ..model import complete_initial_state
from ..model.exact import approx
from ..model.joints import SPATIAL_JOINTS

# The matrix kernels of the report, in SPEC §5's order (model/catalogue.py): (name, what, row
# kind, column kind); a kind says what indexes that dimension ("row": constraint rows, "x":
# coordinates, "1": none).
_INDEX_KIND = {"nc": "row", "nx": "x", "ny": "y", "1": "1"}
TERMS = [(k.name, k.audit, _INDEX_KIND[k.rows], _INDEX_KIND[k.cols]) for k in audited()]
# 003 Table 1's rows of a spatial joint, and what each constrains
ROW_MEANING = {
    "x": "translation along the frame's x axis (003 Table 1, C_qx)",
    "y": "translation along y (003 Table 1, C_qy)",
    "z": "translation along z (003 Table 1, C_qz)",
    "Rx": "rotation about x: Im(rho_F1(F2))_x (003 Table 1, C_qRx)",
    "Ry": "rotation about y: Im(rho_F1(F2))_y (003 Table 1, C_qRy)",
    "Rz": "rotation about z: Im(rho_F1(F2))_z (003 Table 1, C_qRz)",
    "perp": "universal joint: axis1 . axis2 = 0",
    "d": "distance joint: (|P1 - P2|^2 - d^2) / (2 d)",
    "n": "planar prismatic: offset normal to the axis",
    "theta": "planar: relative angle",
}


@dataclass
class Entry:
    """One nonzero entry of a derived term."""

    row: int
    col: int
    expr: sp.Expr  # in the kernel's CSE temporaries w0, w1, ...
    uses: List[str]  # the temporaries it reads, directly or through other temporaries


@dataclass
class Term:
    name: str
    what: str
    shape: Tuple[int, int]
    row_kind: str
    col_kind: str
    entries: List[Entry]
    definitions: List[Tuple[str, sp.Expr]]  # CSE temporaries (name, expression), in order
    c_lines: Optional[Tuple[int, int]]  # first and last line of the C function(s)
    ops: Dict[str, int]  # adds, multiplies, divisions, function calls after CSE
    pattern: List[Tuple[int, int]]  # nonzero (row, col)


@dataclass
class RowOrigin:
    index: int
    name: str
    source: str  # "joint NAME", "body NAME" (unit Euler parameters) or "model file"
    component: str  # x, y, z, Ry, ..., norm, or "-" for the model file's own rows
    meaning: str
    dependent: bool  # dependent on earlier rows at the initial configuration (pivoted QR)


@dataclass
class Audit:
    model: object
    date: str
    identity: Dict[str, str]
    generated: List[Tuple[str, str]]  # (file, sha256)
    raw: dict  # the model file as read (bodies, joints, forces for the listing)
    rows: List[RowOrigin]
    rank: int
    terms: List[Term]
    check: object  # selfcheck.CheckReport
    check_samples: int
    check_seed: int
    kernel_vs_sympy: List[Tuple[str, float, str]]  # (term, max rel diff, worst entry)
    sympy_tol: float
    initial: Dict[str, float]
    misra: Optional[dict] = None  # misra_summary(): None when not checked
    # a joint-coordinate model: the intermediates the terms read (name, definition), in the order
    # they are computed (each body's pose, rotation and velocities from its parent's)
    intermediates: List[Tuple[str, sp.Expr]] = field(default_factory=list)
    ok: bool = field(default=False)


def _shown_path(path: Path) -> str:
    """The path as the generated banners show it: relative to the repository when inside it."""
    from ..paths import ROOT

    path = path.resolve()
    return path.relative_to(ROOT).as_posix() if path.is_relative_to(ROOT) else str(path)


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def row_origins(model, A0: np.ndarray, rank_tol: float = 1e-9) -> Tuple[List[RowOrigin], int]:
    """Each constraint row's joint and 003 Table 1 row (or "the user's expression"), and which
    rows a pivoted QR of A at the initial state finds dependent on the others."""
    from scipy.linalg import qr

    m = model.m
    dependent = set()
    rank = 0
    if m:
        _, R, piv = qr(A0.T, mode="economic", pivoting=True)
        d = np.abs(np.diag(R))
        rank = int(np.sum(d > rank_tol * d[0])) if d.size and d[0] > 0 else 0
        dependent = set(int(i) for i in piv[rank:])
    owner = {}
    for j in model.joints:
        for i in j.rows:
            owner[i] = j
    bodies = {c.name.split(".")[0] for c in model.coordinates if "." in c.name}
    rows = []
    for i, con in enumerate(model.constraints):
        j = owner.get(i)
        body, _, last = con.name.rpartition(".")
        if j is None and last == "norm" and body in bodies:
            meaning = "unit Euler parameters: e0^2 + e1^2 + e2^2 + e3^2 - 1 = 0 (000 eq. 61)"
            rows.append(RowOrigin(i, con.name, f"body {body}", "norm", meaning, i in dependent))
            continue
        if j is None:
            text = sp.sstr(con.expr)
            text = text if len(text) <= 200 else text[:200] + " ..."
            meaning = f"the model file's row: {text} = 0"
            rows.append(RowOrigin(i, con.name, "model file", "-", meaning, i in dependent))
            continue
        component = con.name.split(".", 1)[1] if "." in con.name else con.name
        meaning = ROW_MEANING.get(component, "drive row")
        if j.type.kind == "spatial" and component in SPATIAL_JOINTS.get(j.type.name, ()):
            meaning = f"{j.type.name}: {meaning}"
        elif j.driven and component in ("x", "y", "z", "Rx", "Ry", "Rz"):
            meaning = f"{j.type.name} with a drive (003 §2.2, rheonomic): {meaning}"
        rows.append(RowOrigin(i, con.name, f"joint {j.name}", component, meaning, i in dependent))
    return rows, rank


def _count_ops(exprs) -> Dict[str, int]:
    """Adds, multiplies, divisions and function calls of a list of expressions, as printed C
    would do them (a subtraction is an add, x**2 a multiply, x**-1 a division)."""
    counts = {"add": 0, "mul": 0, "div": 0, "call": 0}
    for e in exprs:
        for node in sp.preorder_traversal(e):
            if isinstance(node, sp.Add):
                counts["add"] += len(node.args) - 1
            elif isinstance(node, sp.Mul):
                num = [a for a in node.args if not (a.is_Pow and a.exp.is_negative)]
                den = len(node.args) - len(num)
                counts["mul"] += max(len(num) - 1, 0)
                counts["div"] += den
            elif isinstance(node, sp.Pow):
                if node.exp.is_Integer and abs(node.exp) <= 4:
                    counts["mul"] += abs(int(node.exp)) - 1
                    if node.exp < 0:
                        counts["div"] += 1
                else:
                    counts["call"] += 1  # pow, sqrt
            elif isinstance(node, sp.Function):
                counts["call"] += 1
    return counts


def _c_lines(c_text: str, prefix: str, name: str) -> Optional[Tuple[int, int]]:
    """First and last line (1-based) of the kernel's C function, its static parts included."""
    lines = c_text.splitlines()
    pattern = re.compile(rf"^(static )?void {re.escape(prefix)}_{re.escape(name)}(_part\d+)?\(")
    first = last = None
    for i, line in enumerate(lines):
        if pattern.match(line):
            first = i + 1 if first is None else first
            k = i
            while k < len(lines) and lines[k] != "}":
                k += 1
            last = k + 1
    return (first, last) if first else None


def _term(name, what, row_kind, col_kind, mat, c_text, prefix, geometry=None) -> Term:
    """One derived term: its nonzero entries after the same CSE as the emitted C (so w0, w1, ...
    are the C's temporaries), the temporaries each entry reads, its C lines and operations.
    geometry: the model's geometry symbols -> their expressions, put back as the emitter does."""
    if geometry:
        mat = mat.xreplace(geometry)
    rows, cols = mat.shape
    flat = [(i + j * rows, mat[i, j]) for j in range(cols) for i in range(rows)]
    kept = nonzero(flat)
    definitions, reduced = [], []
    if kept:
        temps = sp.numbered_symbols("w")
        definitions, reduced = sp.cse([e for _, e in kept], symbols=temps, order="canonical")
    deps = {}
    for sym, expr in definitions:
        direct = {s for s in expr.free_symbols if s in deps}
        deps[sym] = direct.union(*(deps[s] for s in direct)) if direct else set()
    entries = []
    for (k, _), expr in zip(kept, reduced):
        direct = {s for s in expr.free_symbols if s in deps}
        used = direct.union(*(deps[s] for s in direct)) if direct else set()
        order = sorted(used, key=lambda s: int(str(s)[1:]))
        entries.append(Entry(k % rows, k // rows, expr, [str(s) for s in order]))
    ops = _count_ops([e for _, e in definitions] + list(reduced))
    return Term(
        name=name,
        what=what,
        shape=(rows, cols),
        row_kind=row_kind,
        col_kind=col_kind,
        entries=entries,
        definitions=[(str(s), e) for s, e in definitions],
        c_lines=_c_lines(c_text, prefix, name),
        ops=ops,
        pattern=[(e.row, e.col) for e in entries],
    )


def _derived_term(derived, kernel_name):
    """The derived term a kernel prints (catalogue: outputs prints h)."""
    return getattr(derived, kernel(kernel_name).term)


def kernels_against_sympy(model, derived, cm, rng) -> List[Tuple[str, float, str]]:
    """Each compiled kernel against SymPy's own evaluation of the derived expressions at one
    random state: (term, max relative difference, the worst entry, named)."""
    n, m = model.n, model.m
    x = np.array(model.x0, float) + 0.1 * rng.standard_normal(n)
    v = rng.standard_normal(n)
    lam = rng.standard_normal(m)
    t = float(rng.uniform())
    subs = {s: val for s, val in zip(model.x, x)}
    subs.update({s: val for s, val in zip(model.v, v)})
    subs.update({s: val for s, val in zip(derived.lam, lam)})
    subs.update({s: float(approx(e)) for s, e in model.parameter_values().items()})
    subs[model.time] = t
    u = rng.standard_normal(len(model.inputs))  # the inputs' map at random inputs
    subs.update({i.symbol: val for i, val in zip(model.inputs, u)})
    a, dx = rng.standard_normal(n), rng.standard_normal(n)  # the tangents' accelerations, direction
    arrays = derived.arrays
    subs.update(zip(arrays["a"], a))
    subs.update(zip(arrays["dx"], dx))
    ny = len(model.outputs)  # the outputs' tangent along random dx, dv, du
    dv, du = rng.standard_normal(n), rng.standard_normal(len(model.inputs))
    subs.update(zip(arrays["dv"], dv))
    subs.update(zip(arrays["du"], du))
    compiled = {
        "c": lambda: cm.c(x, t)[:, None],
        "A": lambda: cm.A(x, t),
        "c_t": lambda: cm.c_t(x, t)[:, None],
        "gamma": lambda: cm.gamma(x, v, t)[:, None],
        "A_dot": lambda: cm.A_dot(x, v, t),
        "M": lambda: cm.M(x, t),
        "f": lambda: cm.f(x, v, t)[:, None],
        "K_c": lambda: cm.K_c(x, lam, t),
        "K_f": lambda: cm.K_f(x, v, t),
        "D": lambda: cm.D(x, v, t),
        "f_u": lambda: cm.f_u(x, u, t)[:, None],
        "M_x": lambda: cm.xwt("M_x", x, np.concatenate([a, u, dx]), t, n)[:, None],
        "gamma_x": lambda: cm.xwt("gamma_x", x, np.concatenate([v, a, dx]), t, m)[:, None],
        "outputs": lambda: cm.xwt("outputs", x, np.concatenate([v, u]), t, ny)[:, None],
        "outputs_x": lambda: cm.xwt("outputs_x", x, np.concatenate([v, u, dx, dv, du]), t, ny)[
            :, None
        ],
    }
    inter = model.intermediates

    def value(mat, at=subs):  # SymPy's own numbers: 30 digits, or through the intermediates
        if inter is not None:
            return np.array(inter.evaluate(list(mat.T), at)).reshape(mat.shape[::-1]).T
        return np.array(
            [
                [float(sp.N(mat[i, j].xreplace(at), 30)) for j in range(mat.shape[1])]
                for i in range(mat.shape[0])
            ]
        )

    references = {name: _derived_term(derived, name) for name, _, _, _ in TERMS}
    if derived.f_tangent is not None:  # K_f and D: f's tangent along each unit direction
        dq, dqd = arrays["dq"], arrays["dqd"]
        for name, directions in (("K_f", dq), ("D", dqd)):
            columns = []
            for k in range(n):
                at = dict(subs)
                at.update((s, 0.0) for s in dq + dqd)
                at[directions[k]] = 1.0
                columns.append(value(derived.f_tangent, at)[:, 0])
            references[name] = np.array(columns).T
    if derived.kc_tangent is not None:  # K_c: A^T lam's tangent along each unit direction
        dq = arrays["dq"]
        columns = []
        for k in range(n):
            at = dict(subs)
            at.update((s, 0.0) for s in dq)
            at[dq[k]] = 1.0
            columns.append(value(derived.kc_tangent, at)[:, 0])
        references["K_c"] = np.array(columns).T
    out = []
    for name, _, row_kind, col_kind in TERMS:
        mat = references[name]
        if mat is None or mat.shape[0] == 0:  # f_u without inputs, gamma_x without rows
            continue
        ref = mat if isinstance(mat, np.ndarray) else value(mat)
        got = compiled[name]().reshape(ref.shape)
        scale = max(np.abs(ref).max(), 1e-300)
        diff = np.abs(got - ref)
        i, j = np.unravel_index(int(np.argmax(diff)), diff.shape)
        label = entry_label(model, name, row_kind, col_kind, int(i), int(j))
        out.append((name, float(diff.max() / scale), label))
    return out


def index_names(model, row_kind, col_kind, i, j) -> List[str]:
    """What indexes entry (i, j) of a term: the constraint row's and the coordinate's names (a
    vector term has no column name)."""

    def what(kind, k):
        if kind == "row":
            return model.constraints[k].name
        if kind == "x":
            return model.coordinates[k].name
        if kind == "y":
            return model.outputs[k].name
        return None

    return [n for n in (what(row_kind, i), what(col_kind, j)) if n]


def entry_label(model, term, row_kind, col_kind, i, j) -> str:
    """`A[3, 7] (row hinge.y, crank.x)`: an entry named by what indexes it."""
    names = index_names(model, row_kind, col_kind, i, j)
    if row_kind == "row":
        names[0] = f"row {names[0]}"
    return f"{term}[{i}, {j}] ({', '.join(names)})"


def collect(
    model,
    generated_dir: Path,
    samples: int = 3,
    seed: int = 1,
    tol: float = 1e-6,
    sympy_tol: float = 1e-12,
    misra: bool = False,
) -> Audit:
    """Everything the report shows. generated_dir holds <name>.c and <name>.h (the C audited).
    misra: also run the MISRA C:2012 check of the generated C (Cppcheck, about 10 s)."""
    complete_initial_state(model)
    name = model.name
    c_path, h_path = generated_dir / f"{name}.c", generated_dir / f"{name}.h"
    c_text = c_path.read_text()
    derived = derive(model, _report_sets(h_path.read_text(), name))
    geometry = dict(model.geometry)
    terms = [
        _term(tn, what, rk, ck, _derived_term(derived, tn), c_text, name, geometry)
        for tn, what, rk, ck in TERMS
        if _derived_term(derived, tn) is not None and _derived_term(derived, tn).shape[0] > 0
    ]
    if derived.f_tangent is not None:  # joint coordinates: K_f and D column by column from it
        terms.append(
            _term("f_tangent", TANGENT_WHAT, "x", "1", derived.f_tangent, c_text, name, geometry)
        )
    if derived.kc_tangent is not None:  # and K_c from A^T lam's
        terms.append(
            _term("K_c_tangent", KC_TANGENT_WHAT, "x", "1", derived.kc_tangent, c_text, name,
                  geometry)  # fmt: skip
        )
    cm = CompiledModel(model, generated_dir)
    x0 = np.array(model.x0, float)
    v0 = np.array(model.v0, float)
    A0 = cm.A(x0, 0.0) if model.m else np.zeros((0, model.n))
    rows, rank = row_origins(model, A0)
    check = check_model(model, samples=samples, seed=seed, tol=tol, generated_dir=generated_dir)
    vs = kernels_against_sympy(model, derived, cm, np.random.default_rng(seed))
    kinetic = cm.kinetic(x0, v0, 0.0)
    potential = cm.potential(x0, 0.0)
    initial = {
        "kinetic energy": kinetic,
        "potential energy": potential,
        "total energy": kinetic + potential,
        "constraint residual |c(x0)|_inf": float(np.abs(cm.c(x0, 0.0)).max()) if model.m else 0.0,
        "velocity residual |A v0 + c_t|_inf": float(np.abs(A0 @ v0 + cm.c_t(x0, 0.0)).max())
        if model.m
        else 0.0,
    }
    for key, value in (model.initial_report or {}).items():
        if isinstance(value, (int, float)):
            initial[f"assembly: {key}"] = float(value)
    audit = Audit(
        model=model,
        date=datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        identity={
            "model file": _shown_path(Path(model.path)),
            "model file sha256": model.file_hash,
            "mcsgen version": __version__,
            "generator fingerprint": generator_fingerprint(),
            "SymPy version": sp.__version__,
        },
        generated=[(p.name, sha256(p)) for p in (h_path, c_path)],
        raw=yaml.safe_load(Path(model.path).read_text()) or {},
        rows=rows,
        rank=rank,
        terms=terms,
        check=check,
        check_samples=samples,
        check_seed=seed,
        kernel_vs_sympy=vs,
        sympy_tol=sympy_tol,
        initial=initial,
        misra=misra_summary(generated_dir) if misra else None,
        intermediates=_intermediates(model, terms, geometry),
    )
    audit.ok = check.ok and all(d <= sympy_tol for _, d, _ in vs)
    if audit.misra is not None:
        audit.ok = audit.ok and audit.misra["findings"] == []
    return audit


def _report_sets(header: str, name: str) -> frozenset:
    """The kernel sets whose terms the report shows, of those the generated C carries (its
    header's <NAME>_KERNELS): the audited kernels' (not the joints' wrenches: reactions)."""
    carried = re.search(rf'#define {name.upper()}_KERNELS "([a-z_, ]+)"', header)
    return kernel_sets.from_label(carried.group(1)) & {k.kernel_set for k in audited()}


KC_TANGENT_WHAT = (
    "K_c dq = d(A^T lam)/dx dq along a direction dq: the K_c kernel evaluates it along each unit "
    "direction, one column each"
)
TANGENT_WHAT = (
    "f's tangent K_f dq + D dqd along directions dq, dqd: the K_f and D kernels evaluate it "
    "along each unit direction, one column each"
)


def _intermediates(model, terms, geometry) -> List[Tuple[str, sp.Expr]]:
    """(name, definition) of every intermediate a joint-coordinate model's terms read, in the
    order they are computed; [] for a body-coordinate model."""
    inter = model.intermediates
    if inter is None:
        return []
    exprs = [e.expr for t in terms for e in t.entries]
    exprs += [d for t in terms for _, d in t.definitions]
    return [(str(s), sp.sympify(inter.defs[s]).xreplace(geometry)) for s in inter.needed(exprs)]


def misra_summary(generated_dir: Path) -> dict:
    """The MISRA C:2012 result of a model's generated C, with the deviations that applied and
    their justifications (misra/deviations.txt)."""
    from .. import misra

    deviations = misra.load_deviations()
    result = misra.check_model(generated_dir, deviations)
    used = [d for d in deviations if d.used]
    return {
        "tool": misra.cppcheck_version(),
        "summary": result.summary(),
        "findings": [str(f) for f in result.findings],
        "deviations": [
            {"rule": d.rule, "count": d.used, "files": d.files, "why": d.why,
             "category": "advisory" if d.rule in misra.ADVISORY else "required"}
            for d in used
        ],  # fmt: skip
    }
