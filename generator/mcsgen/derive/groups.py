"""The kernels of switchable row groups (joint locks, explicit switch rows; model/switches.py).

A group's quantities g(x) (no t) get what the runtime needs to form its rows at any state:
g, G = dg/dx, gamma_g = -(dG/dt) v (so that G xdd = gamma_g + d2g/dt2) and G_dot = dG/dt. The
runtime multiplies them by the constant weights it captures at the activation (mcs_rows.c).
"""

from dataclasses import dataclass
from typing import TYPE_CHECKING, List

import sympy as sp

from .rows import row_terms

if TYPE_CHECKING:  # for the hints only
    from ..model import Model
    from ..model.switches import RowGroup


@dataclass
class GroupTerms:
    """Shapes in brackets (p = len(group.g))."""

    g: sp.Matrix  # (p x 1)
    G: sp.Matrix  # (p x n) dg/dx
    gamma: sp.Matrix  # (p x 1) -(dG/dt) v
    G_dot: sp.Matrix  # (p x n) dG/dt along v


def derive_group(group: "RowGroup", model: "Model", cache=None, terms_of=None) -> GroupTerms:
    """The kernels of one row group; cache: row_terms' memo of rows equal up to coordinates;
    terms_of: another way to differentiate a row (gi -> RowTerms: joint coordinates take
    theirs through the intermediates)."""
    x, v, t, n = model.x, model.v, model.time, model.n
    index = {s: i for i, s in enumerate(x)}
    g = group.g
    p = len(g)
    G, G_dot, gamma = sp.zeros(p, n), sp.zeros(p, n), sp.zeros(p, 1)
    for i, gi in enumerate(g):
        row = terms_of(gi) if terms_of else row_terms(gi, x, v, t, index, cache)
        gamma[i] = row.gamma
        for j, a in row.A.items():
            G[i, j] = a
        for j, a in row.A_dot.items():
            G_dot[i, j] = a
    return GroupTerms(sp.Matrix(p, 1, g), G, gamma, G_dot)


def derive_groups(model: "Model", cache=None) -> List[GroupTerms]:
    cache = {} if cache is None else cache
    return [derive_group(group, model, cache) for group in model.row_groups]
