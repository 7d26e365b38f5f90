"""Symbolic derivation of every quantity the runtime needs (SPEC §1).

All differentiation is done entry by entry on small expressions (one constraint row, one force
component, one Lagrangian momentum) so SymPy 1.11 stays fast; nothing is simplify()-ed.
"""

from dataclasses import dataclass
from typing import TYPE_CHECKING, Dict, Iterable, List, Optional

import sympy as sp

from ..errors import ModelError
from ..model import kernel_sets
from ..model.exact import numbers_as_coefficients
from ..model.inputs import split_inputs
from .groups import GroupTerms, derive_groups
from .linear_terms import direction_symbols, linear_tangents
from .output_terms import (
    input_direction_symbols,
    output_tangent,
    output_terms,
    velocity_direction_symbols,
)
from .joint_terms import (
    joint_coordinates_of,
    joint_dynamics,
    joint_force_tangent,
    GeometricRows,
    joint_group,
    joint_rows,
    joint_stiffness_tangent,
    tangent_directions,
)
from .rows import _canonical_symbol, row_terms
from .wrenches import acceleration_symbols, joint_wrenches, lock_symbols

if TYPE_CHECKING:  # for the hints only
    from ..model import Model


@dataclass
class Derived:
    """Everything the emitter prints. Shapes in brackets; all matrices are SymPy Matrices."""

    c: sp.Matrix  # (m x 1) constraints c(x, t)
    A: sp.Matrix  # (m x n) dc/dx
    c_t: sp.Matrix  # (m x 1) dc/dt
    gamma: sp.Matrix  # (m x 1) -(d(cdot)/dx v + d(cdot)/dt), so that A xdd = gamma
    A_dot: sp.Matrix  # (m x n) sum_j dA/dx_j v_j + dA/dt
    M: sp.Matrix  # (n x n) mass matrix
    f: sp.Matrix  # (n x 1) applied minus quadratic-velocity forces: M xdd + A^T lam = f
    K_c: sp.Matrix  # (n x n) d(A^T lam)/dx = sum_i lam_i Hess(c_i)
    K_f: sp.Matrix  # (n x n) -df/dx
    D: sp.Matrix  # (n x n) -df/dv
    kinetic: sp.Expr  # T(x, v, t): the model's, or 1/2 v^T M v
    potential: sp.Expr  # V(x, t) or None when the model defines no energy
    lam: list  # (m) multiplier symbols used in K_c
    groups: List[GroupTerms]  # one per model.row_groups entry
    # (2 nq x 1) the free coordinates of the joints that have one (joint order: angle about or
    # translation along the axis, from the initial pose), then their rates d/dt along v
    # joint coordinates (joint_terms.py): K_f and D are None and f_tangent (n x 1) is
    # K_f dq + D dqd for direction symbols dq, dqd (joint_terms.tangent_directions)
    f_tangent: sp.Matrix = None
    # and K_c is None where kc_tangent (n x 1) is K_c dq (joint_terms.joint_stiffness_tangent)
    kc_tangent: sp.Matrix = None
    joint_coords: sp.Matrix = None
    # The initial state as a function of the parameters (SPEC §4): (2n x 1) the file's positions
    # then its velocities (0 where held conditions decide them); (nh x (n + 1)) [H(x) | h], the
    # held velocity conditions H v = h (body velocities, joint rates); whether any of it, or the
    # rows it is assembled onto, depends on a parameter (else the run time uses x0, v0 as solved
    # at generation for every parameter value).
    initial: sp.Matrix = None
    held: sp.Matrix = None
    initial_depends_on_params: bool = False
    # (k nj x 1) the joints' wrenches on their bodies 2 (wrenches.py) as expressions of x, v,
    # the accelerations `accel` (n symbols), lam and `nu`; None without joints or without the
    # reactions kernel set
    joint_wrenches: sp.Matrix = None
    accel: list = None
    nu: list = None  # the row groups' multipliers it reads (wrenches.lock_symbols)
    # (n x 1) the inputs' generalized forces B(x, t) u (model/inputs.py), an expression of the
    # inputs' symbols; f is taken at u = 0. None without inputs
    f_u: sp.Matrix = None
    # (n x 1) d(M a - B u)/dx dx and (m x 1) d(A a - gamma)/dx dx along a direction dx, at
    # accelerations a (linear_terms.py): the linearization's tangents beside K_c, K_f and D;
    # None without the linearization kernel set (only a build with it pays for them)
    M_x: sp.Matrix = None
    gamma_x: sp.Matrix = None
    # (ny x 1) the outputs h(x, v, u, t) and their tangent along (dx, dv, du) (output_terms.py;
    # h_x with the linearization's tangents); None without outputs
    h: sp.Matrix = None
    h_x: sp.Matrix = None
    # the symbols the derivation introduces beside the model's, by the C array a kernel reads
    # them from: a (the accelerations x''), dx, dv, du (the tangents' directions), dq, dqd (f's
    # tangent's in joint coordinates)
    arrays: Dict[str, List[sp.Symbol]] = None
    # the kernel sets the terms were derived for (model/kernel_sets.py): the joints' wrenches
    # with reactions (the 43-body anchor chain's take 35 s), the tangents with linearization
    kernel_sets: frozenset = frozenset()


def derive(model: "Model", sets: Optional[Iterable[str]] = None) -> Derived:
    """Every term the kernel sets `sets` need (model/kernel_sets.py; default a host build's,
    kernel_sets.host), derived before anything is emitted: the joints' wrenches with the
    reactions set, the linearization's tangents (M_x, gamma_x, h_x) with the linearization
    set."""
    sets = kernel_sets.host(model) if sets is None else frozenset(sets)
    joint = model.intermediates is not None
    derived, hessians, local = _derive_joint(model, sets) if joint else _derive_body(model, sets)
    derived.h = output_terms(model)
    derived.arrays = _arrays(model)
    derived.kernel_sets = sets
    # in this order: derivatives through a joint-coordinate model's intermediates define new
    # ones, numbered as they come (their names in the C)
    if "reactions" in sets:
        derived.accel, derived.nu = derived.arrays["a"], lock_symbols(model)
        derived.joint_wrenches = joint_wrenches(
            model, derived.accel, derived.lam, derived.nu, local
        )
    if "linearization" in sets:
        accel = derived.arrays["a"]
        M_x, gamma_x = linear_tangents(
            model, derived.M, derived.f_u, derived.A, derived.gamma, accel, hessians
        )
        derived.M_x, derived.gamma_x = M_x, gamma_x
        derived.h_x = output_tangent(model, derived.h)
    return derived


def _arrays(model):
    """Derived.arrays: the derivation's own symbols by the C array that holds them."""
    n = model.n
    dq, dqd = tangent_directions(n)
    return {
        "a": acceleration_symbols(n),
        "dx": direction_symbols(n),
        "dv": velocity_direction_symbols(n),
        "du": input_direction_symbols(len(model.inputs)),
        "dq": dq,
        "dqd": dqd,
    }


def _derive_body(model: "Model", sets):
    """(Derived, each row's Hessian {(j, k): d2c_i/dx_j dx_k}, None) of a body-coordinate model
    (a Lagrange-block model, or one given by its coordinates). K_c (stiffness) and K_f, D
    (force_tangents) are 0 where the kernel sets do not emit them."""
    x, v, t = model.x, model.v, model.time
    n, m = model.n, model.m
    lam = [sp.Symbol(f"lam_{i}", real=True) for i in range(m)]

    c = sp.Matrix(m, 1, [con.expr for con in model.constraints])
    A = sp.zeros(m, n)
    c_t = sp.zeros(m, 1)
    gamma = sp.zeros(m, 1)
    A_dot = sp.zeros(m, n)
    K_c = sp.zeros(n, n)
    index = {s: i for i, s in enumerate(x)}
    same_rows = {}  # rows equal up to their coordinates are differentiated once
    hessians = []
    for i in range(m):
        row = row_terms(c[i], x, v, t, index, same_rows)
        hessians.append(row.hessian)
        c_t[i] = row.c_t
        gamma[i] = row.gamma
        for j, a in row.A.items():
            A[i, j] = a
        for j, a in row.A_dot.items():
            A_dot[i, j] = a
        if "stiffness" in sets:
            for (j, k), h in row.hessian.items():
                K_c[j, k] += lam[i] * h

    if model.blocks is not None:
        M, f = _lagrange_blocks(model)
    elif model.kinetic is not None:
        M, f = _lagrange(model)
    else:
        M = model.mass_matrix
        f = model.forces
    f, f_u = split_inputs(f, model.inputs)
    K_f = sp.zeros(n, n)
    D = sp.zeros(n, n)
    vindex = {s: i for i, s in enumerate(v)}
    same_forces = {}  # entries equal up to their coordinates are differentiated once
    for i in range(n if "force_tangents" in sets else 0):
        for s, d in _force_gradient(f[i], x, v, index, vindex, same_forces):
            if s in index:
                K_f[i, index[s]] = -d
            else:
                D[i, vindex[s]] = -d
    if model.kinetic is not None:
        kinetic = model.kinetic
    else:
        kinetic = sp.Rational(1, 2) * sum(
            (v[i] * M[i, j] * v[j] for i in range(n) for j in range(n) if M[i, j] != 0),
            sp.Integer(0),
        )
    derived = Derived(
        c=c,
        A=A,
        c_t=c_t,
        gamma=gamma,
        A_dot=A_dot,
        M=M,
        f=f,
        K_c=K_c,
        K_f=K_f,
        D=D,
        f_u=f_u,
        kinetic=kinetic,
        potential=model.potential,
        lam=lam,
        groups=derive_groups(model, same_rows),
        joint_coords=_joint_coordinates(model),
        **_initial_state(model, c),
    )
    return derived, hessians, None


def _force_gradient(fi, x, v, index, vindex, cache):
    """[(s, dfi/ds)] over the coordinates and velocities s that the force entry fi contains.

    The entries of every link of a chain are one function of that link's coordinates and
    velocities: rewritten in canonical symbols (rows.py), each such function is differentiated
    once and its derivatives renamed back (the 43-body anchor chain: 1 376 derivatives, 22 s,
    taken as 49)."""
    own = [s for s in fi.free_symbols if s in index or s in vindex]
    own.sort(key=lambda s: index[s] if s in index else len(x) + vindex[s])
    canonical = [_canonical_symbol("f", k, s) for k, s in enumerate(own)]
    key = fi.xreplace(dict(zip(own, canonical)))
    local = cache.get(key)
    if local is None:
        local = cache[key] = [sp.diff(key, c) for c in canonical]
    back = dict(zip(canonical, own))
    return [(s, d.xreplace(back)) for s, d in zip(own, local)]


def _derive_joint(model: "Model", sets):
    """(Derived, None, local) of a joint-coordinate model: through its intermediates
    (joint_terms.py); local(T, V, xs, vs) a Lagrange block's M_b, f_b, its cache shared with
    the joints' wrenches. The tangents of f and of A^T lam only for the kernel sets that emit
    them (force_tangents, stiffness): the spherical tree joints' model spent 13 s of its 15 on
    f's, which a build that only simulates never reads."""
    lam = [sp.Symbol(f"lam_{i}", real=True) for i in range(model.m)]
    geometric = GeometricRows(model)
    c, A, c_t, gamma, A_dot = joint_rows(model, geometric)
    kc_tangent = joint_stiffness_tangent(model, A, lam) if "stiffness" in sets else None
    cache = {}

    def local(T, V, xs, vs):
        return _local_block(T, V, xs, vs, model, cache)

    M, f, kinetic = joint_dynamics(model, local)
    f, f_u = split_inputs(f, model.inputs)
    derived = Derived(
        c=c,
        A=A,
        c_t=c_t,
        gamma=gamma,
        A_dot=A_dot,
        M=M,
        f=f,
        # K_c column by column from kc_tangent (the stiffness set); 0 without rows
        K_c=sp.zeros(model.n, model.n) if model.m == 0 else None,
        kc_tangent=kc_tangent,  # K_c column by column from it (emit/tangent_kernels.py)
        K_f=None,  # emitted column by column from f_tangent (emit/tangent_kernels.py)
        D=None,
        f_u=f_u,
        f_tangent=joint_force_tangent(model, f) if "force_tangents" in sets else None,
        kinetic=kinetic,
        potential=model.potential,
        lam=lam,
        groups=[joint_group(group, model, geometric) for group in model.row_groups],
        joint_coords=joint_coordinates_of(model),
        **_initial_state(model, c),
    )
    return derived, None, local


def _initial_state(model, c):
    """The Derived fields of the run-time initial state."""
    n = model.n
    xs = model.initial_x if model.initial_x is not None else [sp.Float(a) for a in model.x0]
    vs = model.initial_v if model.initial_v is not None else [sp.Float(a) for a in model.v0]
    initial = sp.Matrix(2 * n, 1, [numbers_as_coefficients(a) for a in list(xs) + list(vs)])
    held = sp.zeros(len(model.held), n + 1)
    for i, (_, row, value) in enumerate(model.held):
        for j, a in enumerate(list(row) + [value]):
            held[i, j] = numbers_as_coefficients(a)
    params = {p.symbol for p in model.parameters} | {g for g, _ in model.geometry}
    used = set().union(initial.free_symbols, held.free_symbols, c.free_symbols)
    return {"initial": initial, "held": held, "initial_depends_on_params": bool(used & params)}


def _joint_coordinates(model):
    """(2 nq x 1): each joint's free coordinate (joints.Joint.coordinate), then its rate
    sum_j d(coordinate)/dx_j v_j; None when no joint has one. The expressions are local to the
    joint's two bodies, so each derivative is small."""
    coords = [j.coordinate for j in model.joints if j.coordinate is not None]
    if not coords:
        return None
    rates = [
        sum(
            (sp.diff(q, x) * v for x, v in zip(model.x, model.v) if x in q.free_symbols),
            sp.Integer(0),
        )
        for q in coords
    ]
    return sp.Matrix(coords + rates)


def _lagrange_blocks(model):
    """M and f assembled from local Lagrange blocks (T_b, V_b), each over its own coordinates
    (one per body, one per force element), plus the applied forces Q."""
    x, v, n = model.x, model.v, model.n
    index = {s: i for i, s in enumerate(x)}
    vindex = {s: i for i, s in enumerate(v)}
    M = sp.zeros(n, n)
    f = sp.zeros(n, 1) if model.forces is None else sp.Matrix(model.forces)
    cache = {}
    for block in model.blocks:
        T, V = block[0], block[1]
        after = block[2] if len(block) > 2 else {}
        free = T.free_symbols | V.free_symbols
        cols = sorted(
            {index[s] for s in free if s in index} | {vindex[s] for s in free if s in vindex}
        )
        xs = [x[i] for i in cols]
        vs = [v[i] for i in cols]
        Mb, fb = _local_block(T, V, xs, vs, model, cache)
        Mb, fb = Mb.xreplace(after), fb.xreplace(after)
        for a, i in enumerate(cols):
            f[i] += fb[a]
            for b, j in enumerate(cols):
                M[i, j] += Mb[a, b]
    return M, f


def _local_block(T, V, xs, vs, model, cache):
    """M_b, f_b of one Lagrange block over its coordinates xs (velocities vs). Blocks that are
    equal up to renaming their coordinates (e.g. identical links) are derived once: the
    derivation runs on canonical symbols and is renamed back."""
    canon_x = [sp.Symbol(f"_x{k}", real=True) for k in range(len(xs))]
    canon_v = [sp.Symbol(f"_v{k}", real=True) for k in range(len(xs))]
    to_canon = dict(zip(list(xs) + list(vs), canon_x + canon_v))
    key = sp.srepr((T.xreplace(to_canon), V.xreplace(to_canon)))
    if key not in cache:
        cache[key] = _lagrange_local(
            T.xreplace(to_canon), V.xreplace(to_canon), canon_x, canon_v, model.time, model
        )
    back = dict(zip(canon_x + canon_v, list(xs) + list(vs)))
    return cache[key][0].xreplace(back), cache[key][1].xreplace(back)


def _lagrange_local(T, V, x, v, t, model):
    """M and f of Lagrange's equations for T(x, v, t), V(x, t) over the coordinates x.

    With p = dT/dv:  d/dt p - dT/dx + dV/dx = Q  and  d/dt p = M vdot + (dp/dx) v + dp/dt,
    so  M = d2T/dv2  and  f = -dV/dx + dT/dx - (dp/dx) v - dp/dt  (Q is added by the caller).
    """
    k = len(x)
    momenta = [sp.diff(T, vi) for vi in v]
    M = sp.zeros(k, k)
    for i in range(k):
        for j in range(i, k):
            M[i, j] = M[j, i] = sp.diff(momenta[i], v[j])
    if any(M[i, j].has(*v) for i in range(k) for j in range(k)):
        raise ModelError(
            model.path,
            "dynamics.kinetic",
            "kinetic energy must be at most quadratic in the velocities "
            "(its second derivative in the velocities depends on them)",
        )
    f = sp.zeros(k, 1)
    for i in range(k):
        fi = sp.diff(T, x[i]) - sp.diff(momenta[i], t) - sp.diff(V, x[i])
        fi -= sum((sp.diff(momenta[i], xk) * v[j] for j, xk in enumerate(x)), sp.Integer(0))
        f[i] = fi
    return M, f


def _lagrange(model):
    """M and f of a coordinate model given by its kinetic energy (one block over all
    coordinates), plus its extra generalized forces Q."""
    V = model.potential if model.potential is not None else sp.Integer(0)
    M, f = _lagrange_local(model.kinetic, V, model.x, model.v, model.time, model)
    if model.forces is not None:
        f += model.forces
    return M, f
