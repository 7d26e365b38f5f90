"""The audit report as one self-contained HTML file (MathML, inline SVG, no script, no network) or
as Markdown (plain-text expressions), from collect.Audit."""

from collections import OrderedDict
from pathlib import Path

import jinja2
from markupsafe import Markup

import sympy as sp
import yaml

from ..paths import TEMPLATES
from .collect import index_names
from .mathml import to_mathml

# entries whose MathML is longer than this are folded (details/summary), not left out
FOLD_CHARS = 4000
CELL = 6  # pixels per matrix entry in the sparsity pictures (at most 600 px wide)


def sparsity_svg(shape, pattern) -> str:
    """The nonzero pattern of a (rows x cols) matrix as an inline SVG, one square per entry."""
    rows, cols = shape
    cell = max(1, min(CELL, 600 // max(cols, 1)))
    width, height = cols * cell + 2, rows * cell + 2
    squares = "".join(
        f'<rect x="{1 + j * cell}" y="{1 + i * cell}" width="{cell}" height="{cell}"/>'
        for i, j in pattern
    )
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" role="img" aria-label="nonzero pattern {rows} x {cols}">'
        f'<rect x="0.5" y="0.5" width="{width - 1}" height="{height - 1}" fill="none" '
        f'stroke="#888"/><g fill="#1f4e79">{squares}</g></svg>'
    )


def _group_of(audit, term, entry):
    """What an entry belongs to: its row's source (a joint, a body's Euler parameters, the model
    file) for row-indexed terms, the body (the coordinate's prefix) for coordinate-indexed ones."""
    if term.row_kind == "row":
        return audit.rows[entry.row].source
    if term.row_kind == "y":  # an output: its entry of the file's outputs:
        return "outputs"
    coord = audit.model.coordinates[entry.row].name
    if "." in coord:
        return f"body {coord.split('.')[0]}"
    if any(j.name == coord for j in audit.model.joints):  # a tree joint's coordinate
        return f"joint {coord}"
    return "coordinates"


def _label(model, term, entry):
    """(`A[3, 7]`, `hinge.y / crank.x`) of an entry."""
    names = index_names(model, term.row_kind, term.col_kind, entry.row, entry.col)
    return f"{term.name}[{entry.row}, {entry.col}]", " / ".join(names)


def _groups(audit, term, math):
    """OrderedDict group -> list of entries (label, where, rendered, folded) and the temporaries
    the group's entries use, in order, rendered."""
    model = audit.model
    defs = dict(term.definitions)
    rendered = {}  # a temporary used by several groups is printed once
    groups = OrderedDict()
    for e in term.entries:
        g = groups.setdefault(_group_of(audit, term, e), {"entries": [], "uses": []})
        label, where = _label(model, term, e)
        text = math(e.expr)
        g["entries"].append(
            {"label": label, "where": where, "math": text, "folded": len(str(text)) > FOLD_CHARS}
        )
        for w in e.uses:
            if w not in g["uses"]:
                g["uses"].append(w)
    for g in groups.values():
        g["uses"].sort(key=lambda w: int(w[1:]))
        for w in g["uses"]:
            if w not in rendered:
                rendered[w] = math(defs[w])
        g["definitions"] = [{"name": w, "math": rendered[w]} for w in g["uses"]]
    return groups


def _context(audit, fmt):
    if fmt == "html":

        def math(expr):
            return Markup(to_mathml(expr))

    else:

        def math(expr):
            return sp.sstr(expr)

    terms = []
    for term in audit.terms:
        terms.append(
            {
                "t": term,
                "groups": _groups(audit, term, math),
                "svg": Markup(sparsity_svg(term.shape, term.pattern))
                if term.name in ("A", "M", "K_c")
                else None,
                "nnz": len(term.entries),
            }
        )
    model = audit.model
    return {
        "a": audit,
        "model": model,
        "terms": terms,
        "dof": model.n - audit.rank,
        "check_rows": [
            {"term": q, "ref": r, "err": e, "ok": e <= audit.check.tol}
            for q, r, e in audit.check.rows
        ],
        "sympy_rows": [
            {"term": t, "diff": d, "where": w, "ok": d <= audit.sympy_tol}
            for t, d, w in audit.kernel_vs_sympy
        ],
        "raw_list": {
            key: [_flow(item) for item in audit.raw.get(key) or []]
            for key in ("bodies", "joints", "forces", "drivers")
        },
        "intermediates": [{"name": n, "math": math(e)} for n, e in audit.intermediates],
        "fmt": fmt,
    }


def _flow(item) -> str:
    """One entry of the model file as YAML flow text, as a user would write it."""
    return yaml.safe_dump(item, default_flow_style=True, sort_keys=False, width=10**6).strip()


def render(audit, fmt: str = "html") -> str:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(TEMPLATES / "audit")),
        autoescape=(fmt == "html"),
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    env.filters["g"] = lambda v: f"{v:.3g}" if isinstance(v, float) else v
    env.filters["sci"] = lambda v: f"{v:.2e}"
    template = env.get_template("report.html.j2" if fmt == "html" else "report.md.j2")
    return template.render(**_context(audit, fmt))


def write_report(audit, out: Path, fmt: str = "html") -> Path:
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(render(audit, fmt))
    return out
