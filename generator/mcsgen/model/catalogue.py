"""The kernel catalogue: every kernel a generated model hands the runtime, once.

KERNELS are the function-pointer members of mcs_model (runtime/include/mcs/mcs_model.h) in its
order, ROW_GROUP_KERNELS those of mcs_row_group (a row group's kernels, emitted as
group_<k>_<name>) and EVENT_KERNELS those of mcs_switch_event (a condition event's, emitted as
event_<k>). Each says its C type, its output's shape in the descriptor's counts, the kernel set
that carries it (model/kernel_sets.py), what it computes (the generated header's comment) and,
for the terms of the audit report, the report's title. The emitter (emit/kernels.py,
emit/tables.py, emit/render.py and the templates), the audit (audit/collect.py) and the kernel
sets read it; tests/generator/model/test_catalogue.py holds it to mcs_model.h.
"""

import re
from dataclasses import dataclass
from typing import Dict, Optional, Tuple

# the kernel types of mcs_model.h and the arguments their generated functions take
KIND = {
    "mcs_kernel_xt": "xt",  # (x, t, p, out)
    "mcs_kernel_xwt": "xwt",  # (x, w, t, p, out)
    "mcs_scalar_xt": "xt",  # (x, t, p) -> value
    "mcs_scalar_xvt": "xvt",  # (x, v, t, p) -> value
    "mcs_kernel_Mf": "mf",  # (x, v, t, p, M_out, f_out): emit/fused.fused_kernel
}


@dataclass(frozen=True)
class Kernel:
    name: str  # the struct member, and <model>_<name> in the generated C
    type: str  # its C type (KIND)
    kernel_set: str  # the kernel set that carries it (model/kernel_sets.SETS)
    what: str  # what it computes: the generated header's comment
    rows: str = ""  # its output's rows in the descriptor's counts ("2 nx": twice nx); "": scalar
    cols: str = "1"  # its output's columns ("1": a vector)
    w: str = ""  # what w is for an (x, w, t) kernel: v or lam
    source: str = ""  # the derived term it prints (derive/terms.py Derived), "" for its own name
    pattern: str = ""  # a or m: it prints its source's nonzeros in A's or M's pattern
    view_of: str = ""  # a dense matrix that spreads this kernel's nonzeros (not a CSE'd body)
    audit: str = ""  # its title among the audit report's terms ("": not one of them)
    # the member of mcs_model before it when that is not a kernel ("": the catalogue's kernel
    # before it): the descriptor's initializer prints each run of kernels after that member
    after: str = ""

    @property
    def kind(self) -> str:
        return KIND[self.type]

    @property
    def scalar(self) -> bool:
        return self.type.startswith("mcs_scalar")

    @property
    def term(self) -> str:
        """The derived term it prints (a Derived attribute, or GroupTerms' for a group's)."""
        return self.source or self.name

    def size(self, counts: Dict[str, int]) -> Tuple[int, int]:
        """(rows, columns) of its output, given the descriptor's counts (nc, nx, a_nnz, ...)."""
        return dimension(self.rows, counts), dimension(self.cols, counts)

    def shape(self, counts: Dict[str, int]) -> str:
        """'(r x c)' as the generated header's comments write it."""
        rows, cols = self.size(counts)
        return f"({rows} x {cols})"


_DIMENSION = re.compile(r"(?:(\d+) )?(\w+)(?: \+ (\d+))?$")


def dimension(text: str, counts: Dict[str, int]) -> int:
    """The value of a dimension: '1', 'nc', '2 nx' (twice nx), 'nx + 1'."""
    if text.isdigit():
        return int(text)
    factor, count, offset = _DIMENSION.match(text).groups()
    return int(factor or 1) * counts[count] + int(offset or 0)


# fmt: off
KERNELS = (
    Kernel(
        "c", "mcs_kernel_xt", "motion", "constraints c(x, t)", "nc",
        audit="constraints c(x, t)", after="continuation",
    ),
    Kernel(
        "A", "mcs_kernel_xt", "motion", "Jacobian dc/dx", "nc", "nx", view_of="A_nz",
        audit="Jacobian dc/dx",
    ),
    Kernel("c_t", "mcs_kernel_xt", "motion", "dc/dt", "nc", audit="dc/dt"),
    Kernel(
        "gamma", "mcs_kernel_xwt", "motion", "A xdd = gamma(x, v, t)", "nc", w="v",
        audit="A xdd = gamma(x, v, t)",
    ),
    Kernel(
        "A_dot", "mcs_kernel_xwt", "predictor", "dA/dt along v", "nc", "nx", w="v",
        view_of="A_dot_nz", audit="dA/dt along v",
    ),
    Kernel(
        "M", "mcs_kernel_xt", "motion", "mass matrix", "nx", "nx", view_of="M_nz",
        audit="mass matrix",
    ),
    Kernel(
        "f", "mcs_kernel_xwt", "motion", "applied minus quadratic-velocity forces", "nx", w="v",
        audit="applied minus quadratic-velocity forces",
    ),
    Kernel(
        "K_c", "mcs_kernel_xwt", "stiffness", "d(A^T lam)/dx", "nx", "nx", w="lam",
        audit="tangent stiffness of the constraints d(A^T lam)/dx",
    ),
    Kernel("K_f", "mcs_kernel_xwt", "force_tangents", "-df/dx", "nx", "nx", w="v", audit="-df/dx"),
    Kernel("D", "mcs_kernel_xwt", "force_tangents", "-df/dv", "nx", "nx", w="v", audit="-df/dv"),
    Kernel(
        "A_nz", "mcs_kernel_xt", "motion",
        "the nonzeros of dc/dx, column by column (the descriptor's a_rows, a_cols)", "a_nnz",
        source="A", pattern="a",
    ),
    Kernel(
        "A_dot_nz", "mcs_kernel_xwt", "predictor",
        "dA/dt along v at A's nonzeros (a_rows, a_cols)", "a_nnz", w="v", source="A_dot",
        pattern="a",
    ),
    Kernel(
        "M_nz", "mcs_kernel_xt", "motion",
        "the nonzeros of the mass matrix, column by column (m_rows, m_cols)", "m_nnz",
        source="M", pattern="m",
    ),
    Kernel(
        "M_f", "mcs_kernel_Mf", "motion",
        "M's nonzeros (M_out, m_nnz) and f (f_out, nx) at once, their intermediates shared",
        "m_nnz",
    ),
    Kernel("kinetic", "mcs_scalar_xvt", "motion", "kinetic energy T(x, v, t)"),
    Kernel("potential", "mcs_scalar_xt", "motion", "potential energy V(x, t)"),
    Kernel(
        "joint_coords", "mcs_kernel_xwt", "motion",
        "the joints' free coordinates (angle or translation from the initial pose), then their "
        "rates", "2 njc", w="v", after="njc",
    ),
    Kernel(
        "initial", "mcs_kernel_xt", "motion",
        "the mechanism file's initial positions, then velocities, of the parameters", "2 nx",
    ),
    Kernel(
        "held", "mcs_kernel_xt", "motion",
        "[H | h]: the held initial velocity conditions H(x) v = h", "nheld", "nx + 1",
        after="nheld",
    ),
    Kernel(
        "joint_wrenches", "mcs_kernel_xwt", "reactions",
        "each joint's force and moment on its body 2 (world; the moment about the joint's point "
        "on body 2), w = [v (nx); x'' (nx); lam (nc); nu (nmu): the row groups' multipliers]",
        "nw", w="w", after="nmu",
    ),
    Kernel(
        "f_u", "mcs_kernel_xwt", "motion",
        "the inputs' generalized forces B(x, t) u (f, K_f and D are at u = 0), w = u (nu)", "nx",
        w="u", audit="generalized forces of the inputs B(x, t) u", after="input_limits",
    ),
    Kernel(
        "M_x", "mcs_kernel_xwt", "linearization",
        "d(M a - B u)/dx dx: the tangent along dx of the inertia and input forces, w = [a (nx); "
        "u (nu); dx (nx)]", "nx", w="w",
        audit="tangent of the inertia and input forces d(M a - B u)/dx dx",
    ),
    Kernel(
        "gamma_x", "mcs_kernel_xwt", "linearization",
        "d(A a - gamma)/dx dx: the tangent along dx of the acceleration constraints, w = [v (nx); "
        "a (nx); dx (nx)]", "nc", w="w",
        audit="tangent of the acceleration constraints d(A a - gamma)/dx dx",
    ),
    Kernel(
        "outputs", "mcs_kernel_xwt", "motion",
        "the outputs y = h(x, v, u, t) (the file's outputs:), w = [v (nx); u (nu)]", "ny", w="w",
        source="h", audit="outputs h(x, v, u, t)", after="output_units",
    ),
    Kernel(
        "outputs_x", "mcs_kernel_xwt", "linearization",
        "dh/dx dx + dh/dv dv + dh/du du: the outputs' tangent, w = [v (nx); u (nu); dx (nx); "
        "dv (nx); du (nu)]", "ny", w="w", source="h_x",
        audit="tangent of the outputs dh/dx dx + dh/dv dv + dh/du du",
    ),
)
# fmt: on

ROW_GROUP_KERNELS = (
    Kernel("g", "mcs_kernel_xt", "transitions", "g(x)", "ng"),
    Kernel("G", "mcs_kernel_xt", "transitions", "dg/dx", "ng", "nx"),
    Kernel("gamma", "mcs_kernel_xwt", "transitions", "-(dG/dt) v", "ng", w="v"),
    Kernel("G_dot", "mcs_kernel_xwt", "transitions", "dG/dt along v", "ng", "nx", w="v"),
)

EVENT_KERNELS = (Kernel("condition", "mcs_scalar_xvt", "transitions", "condition"),)

BY_NAME = {k.name: k for k in KERNELS}


def kernel(name: str) -> Optional[Kernel]:
    """The catalogue's entry of a generated kernel's name (group_<k>_<member>, event_<k>
    included), or None."""
    group = re.fullmatch(r"group_\d+_(\w+)", name)
    if group:
        return next((k for k in ROW_GROUP_KERNELS if k.name == group.group(1)), None)
    if re.fullmatch(r"event_\d+", name):
        return EVENT_KERNELS[0]
    return BY_NAME.get(name)


def printed() -> Tuple[Kernel, ...]:
    """The model's kernels with a body of their own (one CSE each), in the generated file's
    order: KERNELS' vectors and matrices, each dense view's place holding the kernel of the
    nonzeros it spreads."""
    out = []
    for k in KERNELS:
        if k.scalar or k.kind == "mf" or any(v.view_of == k.name for v in KERNELS):
            continue
        out.append(BY_NAME[k.view_of] if k.view_of else k)
    return tuple(out)


def views() -> Tuple[Kernel, ...]:
    """The dense matrices that spread a kernel's nonzeros, in KERNELS' order."""
    return tuple(k for k in KERNELS if k.view_of)


def scalars() -> Tuple[Kernel, ...]:
    return tuple(k for k in KERNELS if k.scalar)


def descriptor_runs() -> Dict[str, Tuple[Kernel, ...]]:
    """{member of mcs_model: the kernels that follow it in the descriptor, in order}: KERNELS cut
    where a kernel follows another member (Kernel.after)."""
    runs: Dict[str, list] = {}
    after = ""
    for k in KERNELS:
        after = k.after or after
        runs.setdefault(after, []).append(k)
    return {after: tuple(run) for after, run in runs.items()}


def audited() -> Tuple[Kernel, ...]:
    """The audit report's terms, in KERNELS' order (SPEC §5's)."""
    return tuple(k for k in KERNELS if k.audit)
