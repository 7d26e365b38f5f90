"""A kernel's body as C statements: one CSE over its entries, the intermediates it reads written
before what reads them, the zeros it writes, and the C names of the symbols it reads.

Every kernel module of emit/ builds its bodies here (kernels.py, fused.py, tangent_kernels.py).
Output is deterministic: same entries and names, same statements.
"""

import heapq
import re

import sympy as sp

from ..model.exact import clean
from ..model.reader import PARAM_PREFIX
from .printer import McsCodePrinter


# User names reach C only behind prefixes the runtime reserves (model names may not start with
# mcs_, model/reader.py): a parameter is the struct member mcs_p_<name>, so no macro of a header
# a firmware includes (stdio.h's EOF, complex.h's I, ...) can replace it; the generated file's
# own statics are mcs_gen_<name>, which no model prefix <model>_ can spell. Nothing in the
# runtime starts with either (tests/generator/emit/test_emit.py).
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
    for i, u in enumerate(model.inputs):  # f_u's w; the end of joint_wrenches' (kernels._stacked)
        names[u.symbol] = f"u[{i}]"
    if model.intermediates is not None:  # joint coordinates: the bodies' poses and more
        for k, s in enumerate(model.intermediates.defs):
            names[s] = f"s{k}"
    return names


def nonzero(entries):
    """The entries that are not exactly zero, as (index, expression) with exact zeros and ones,
    not 1e-40 noise (clean)."""
    cleaned = ((k, clean(e)) for k, e in entries)
    return [(k, e) for k, e in cleaned if e != 0]


def zero_fill(entries, length, out):
    """Statements that zero the entries of out[0..length) not in entries (the nonzero ones)."""
    if len(entries) == length:
        return []
    if length - len(entries) > 4:
        return [f"for (k = 0; k < {length}; ++k) {{ {out}[k] = MCS_R(0.0); }}"]
    done = {k for k, _ in entries}
    return [f"{out}[{k}] = MCS_R(0.0);" for k in range(length) if k not in done]


def assignments(entries, names, out, inter=None):
    """CSE'd temporaries and the assignments of the nonzero entries. inter: the model's
    intermediates (Inline, joint coordinates): those the entries read are statements too,
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


def column_major(mat):
    rows, cols = mat.shape
    return [(i + j * rows, mat[i, j]) for j in range(cols) for i in range(rows)]


def in_pattern(mat, pattern):
    """Kernel entries (k, mat[i, j]) for the k-th (i, j) of pattern."""
    return [(k, mat[i, j]) for k, (i, j) in enumerate(pattern)]


def intermediates_of(model, geometry):
    """(Intermediates, {symbol: definition with the geometry symbols put back}) of a
    joint-coordinate model, None otherwise: what assignments takes."""
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
    return Inline(defs, alias)


class Inline:
    """The intermediates as the emitter writes them: defs {symbol: definition}, in definition
    order, and alias {symbol: number or symbol} written in place."""

    def __init__(self, defs, alias):
        self.defs, self.alias = defs, alias
        self.order = {s: k for k, s in enumerate(defs)}

    def reading(self, symbols):
        """The same intermediates with `symbols` taken as inputs (M_f's pass's values, read
        from its array): what they are computed from is no longer needed for them."""
        return Inline({s: e for s, e in self.defs.items() if s not in symbols}, self.alias)

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


def uses(code, arg):
    """Whether C code reads argument `arg` (x[..], v[..], lam[..], t, p->.., out[..])."""
    if arg == "t":
        return re.search(r"(?<![A-Za-z0-9_>.\[])t(?![A-Za-z0-9_\[])", code) is not None
    if arg == "p":
        return "p->" in code
    return re.search(rf"(?<![A-Za-z0-9_]){arg}\[", code) is not None
