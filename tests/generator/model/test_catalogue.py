"""The kernel catalogue (generator/mcsgen/model/catalogue.py) is the hand-written descriptor's:
its kernels are the function-pointer members of mcs_model (mcs_row_group's, mcs_switch_event's)
in runtime/include/mcs/mcs_model.h, in order, of the same types and shapes, each after the
member it says; the kernel sets, the audit and the generated files (their descriptor's kernel
members too) take their kernels from it; and every generated descriptor initializes each member
of mcs_model by name, in order, its enumerations by their C names."""

import re
from pathlib import Path

import pytest

from mcsgen.audit.collect import TERMS
from mcsgen.model import catalogue
from mcsgen.enums import CONTINUATION, ENERGY_BALANCE, METHOD
from mcsgen.model import kernel_sets

ROOT = Path(__file__).resolve().parents[3]
MODEL_H = (ROOT / "runtime" / "include" / "mcs" / "mcs_model.h").read_text()
GENERATED = sorted(p for p in (ROOT / "generated").iterdir() if p.is_dir())


def members(struct, text=MODEL_H):
    """[(name, type, comment)] of `typedef struct struct { ... } struct;`: a function pointer
    written out has the type "fn"; comment is the one after the member, or ''."""
    body = re.search(rf"typedef struct {struct} \{{(.*?)\n\}} {struct};", text, re.S).group(1)
    body = re.sub(r"/\*.*?\*/", lambda c: c.group().replace(";", ","), body, flags=re.S)
    body = re.sub(r";([ \t]*/\*.*?\*/)", r"\1;", body, flags=re.S)  # the comment before the ;
    out = []
    for decl in body.split(";")[:-1]:
        after = re.search(r"\w\s*/\*(.*?)\*/\s*$", decl, re.S)
        code = " ".join(re.sub(r"/\*.*?\*/", " ", decl, flags=re.S).split())
        pointer = re.search(r"\(\*(\w+)\)", code)
        if pointer:
            out.append((pointer.group(1), "fn", ""))
            continue
        name = re.search(r"(\w+)$", code).group(1)
        kind = code[: -len(name)].strip()
        out.append((name, kind, " ".join(after.group(1).split()) if after else ""))
    return out


def kernel_members(struct):
    return [
        (name, kind, comment)
        for name, kind, comment in members(struct)
        if kind in catalogue.KIND or kind == "fn"
    ]


def test_members_reads_the_descriptor():
    names = [name for name, _, _ in members("mcs_model")]
    assert names[:4] == ["abi_version", "name", "source_hash", "nx"]
    assert names[-1] == "outputs_x" and "a_col_start" not in names
    assert ("condition", "fn", "") in members("mcs_switch_event")
    assert ("c", "mcs_kernel_xt", "(nc) c(x, t)") in members("mcs_model")
    assert ("joint_coords", "mcs_kernel_xwt", "") in members("mcs_model")


def shape_in_comment(kernel):
    """A kernel's output as mcs_model.h's comments write it: '(nc x nx)', '(nc)', '(nheld x (nx
    + 1))'."""
    cols = f"({kernel.cols})" if " " in kernel.cols else kernel.cols
    return f"({kernel.rows})" if kernel.cols == "1" else f"({kernel.rows} x {cols})"


@pytest.mark.parametrize(
    "struct, kernels",
    [
        ("mcs_model", catalogue.KERNELS),
        ("mcs_row_group", catalogue.ROW_GROUP_KERNELS),
        ("mcs_switch_event", catalogue.EVENT_KERNELS),
    ],
)
def test_the_catalogue_is_the_descriptors_kernels_in_order(struct, kernels):
    found = kernel_members(struct)
    assert [name for name, _, _ in found] == [k.name for k in kernels]
    for (name, kind, comment), k in zip(found, kernels):
        assert kind in (k.type, "fn"), name
        if comment.startswith("("):  # the shape the header gives on the member's line
            assert comment.startswith(shape_in_comment(k)), (name, comment)
        assert k.kernel_set in kernel_sets.SETS
        assert (k.w != "") == (k.kind == "xwt"), name
        assert k.scalar == (k.rows == ""), name


def test_each_kernel_follows_the_member_the_catalogue_says():
    """The descriptor's initializer prints the catalogue's kernels in runs after other members
    (Kernel.after; templates/model.c.j2 kernel_members): in mcs_model each kernel follows that
    member, or the catalogue's kernel before it, and the last run ends the struct."""
    names = [name for name, _, _ in members("mcs_model")]
    previous = None
    for k in catalogue.KERNELS:
        before = names[names.index(k.name) - 1]
        assert before == (k.after or previous), k.name
        assert k.after not in catalogue.BY_NAME, k.name
        previous = k.name
    runs = catalogue.descriptor_runs()
    assert [k for run in runs.values() for k in run] == list(catalogue.KERNELS)
    assert list(runs.values())[-1][-1].name == names[-1]


def test_views_sources_and_audit_terms_are_consistent():
    by_name = catalogue.BY_NAME
    for view in catalogue.views():
        nz = by_name[view.view_of]
        assert nz.source == view.name and nz.pattern and nz.kernel_set == view.kernel_set
        assert (nz.type, nz.w) == (view.type, view.w)
    printed = [k.name for k in catalogue.printed()]
    assert len(set(printed)) == len(printed)
    assert not {k.name for k in catalogue.views()} & set(printed)
    assert [t[:2] for t in TERMS] == [(k.name, k.audit) for k in catalogue.audited()]
    assert kernel_sets.KERNEL_SET["K_c"] == "stiffness"
    assert kernel_sets.set_of("A_dot_nz") == "predictor"
    assert kernel_sets.set_of("group_2_G_dot") == kernel_sets.set_of("event_0") == "transitions"


@pytest.mark.parametrize("gdir", GENERATED, ids=lambda p: p.name)
def test_the_generated_descriptor_names_each_member_in_order(gdir):
    text = (gdir / f"{gdir.name}.c").read_text()
    init = text[text.index(f"const mcs_model {gdir.name}_model = {{") :]
    init = init[: init.index("\n};")]
    designators = re.findall(r"^    \.(\w+) = (.*?),?(?: /\*.*\*/)?$", init, re.M)
    assert len(designators) == len(init.splitlines()) - 1  # one member a line
    assert [d for d, _ in designators] == [name for name, _, _ in members("mcs_model")]
    values = dict(designators)
    assert values["method"] in METHOD.enumerators
    assert values["continuation"] in CONTINUATION.enumerators
    assert values["energy_balance"] in ENERGY_BALANCE.enumerators
    no_rows = re.search(r"#define \w+_NC 0\b", (gdir / f"{gdir.name}.h").read_text())
    carried = re.search(r'#define \w+_KERNELS "([a-z_, ]+)"', (gdir / f"{gdir.name}.h").read_text())
    carried = kernel_sets.ALL if carried[1] == "all" else set(carried[1].split(", "))
    for k in catalogue.KERNELS:  # a trampoline of the generated file, or NULL
        if k.kernel_set not in carried:  # a set the build left out (linearization by default)
            assert values[k.name] == "NULL", k.name
            continue
        if no_rows and k.rows in ("nc", "a_nnz"):  # nc = 0: nothing to write, one no-op
            assert values[k.name] == f"mcs_gen_no_rows_{k.kind}", k.name
            continue
        assert values[k.name] in (f"mcs_gen_d_{k.name}", "NULL"), k.name
    header = (gdir / f"{gdir.name}.h").read_text()
    for k in catalogue.printed():  # every kernel the descriptor points to is declared
        if values.get(k.name, "NULL") not in ("NULL", f"mcs_gen_no_rows_{k.kind}"):
            assert f"void {gdir.name}_{k.name}(" in header
