"""The enumerations shared with the C runtime (generator/mcsgen/enums.py) are the C enums of
runtime/include/mcs/, names and order, and every Python list of them is the one in enums.py."""

import re
from pathlib import Path

import pytest

from mcsgen import enums, options
from mcsgen.analyze import KINDS as MODE_KINDS
from mcsgen.model import CONTINUATIONS, METHODS
from mcsgen.model import energy
from mcsgen.model.joints import joint_types

ROOT = Path(__file__).resolve().parents[2]
INCLUDE = ROOT / "runtime" / "include"


def c_enum(header, c_type):
    """[(enumerator, value)] of `typedef enum c_type { ... } c_type;` in a header."""
    text = re.sub(r"/\*.*?\*/", " ", (INCLUDE / header).read_text(), flags=re.S)
    body = re.search(rf"typedef enum {c_type}\s*\{{(.*?)\}}\s*{c_type}\s*;", text, re.S)
    assert body, f"{c_type} is not declared in {header}"
    out, value = [], 0
    for item in body.group(1).split(","):
        m = re.fullmatch(r"\s*(\w+)\s*(?:=\s*(\d+)\s*)?", item)
        assert m, item
        value = int(m.group(2)) if m.group(2) else value
        out.append((m.group(1), value))
        value += 1
    return out


def test_c_enum_reads_values_given_or_implicit():
    assert c_enum("mcs/mcs_status.h", "mcs_status")[0] == ("MCS_OK", 0)


@pytest.mark.parametrize("enum", enums.ENUMS, ids=lambda e: e.c_type)
def test_each_enum_is_its_c_enum_in_order(enum):
    expected = [(c, k) for k, c in enumerate(enum.enumerators)]
    assert c_enum(enum.header, enum.c_type) == expected
    assert len(set(enum.names)) == len(enum.names)


def test_every_list_of_an_enum_is_the_one_in_enums_py():
    assert METHODS == enums.METHOD.names
    assert CONTINUATIONS == enums.CONTINUATION.names
    assert options.by_name("method").choices == enums.METHOD.names
    assert options.by_name("continuation").choices == enums.CONTINUATION.names
    # the simulator takes --transition's index in its choices as an mcs_jump_method
    assert options.by_name("transition").choices == enums.JUMP_METHOD.names
    assert energy.KINDS == enums.ENERGY_BALANCE.names
    assert {energy.UNDEFINED, energy.CONSERVED, energy.DISSIPATED, energy.EXCHANGED} == set(
        energy.KINDS
    )
    assert tuple(MODE_KINDS) == enums.MODE_KIND.names
    coordinates = {t.coordinate for k in ("spatial", "planar") for t in joint_types(k).values()}
    assert coordinates <= set(enums.JOINT_COORDINATE.names), coordinates


def test_memory_bits_are_the_runtimes():
    """A firmware header's memory features (emit/tables.py) take each method's bit from
    runtime/src/sim/mcs_method.c's table (its last field, in mcs_method's order) and each
    continuation's from mcs_sim_memory.h's comments."""
    table = (ROOT / "runtime" / "src" / "sim" / "mcs_method.c").read_text()
    table = table[table.index("mcs_methods[MCS_METHOD_COUNT] = {") :]
    table = re.sub(r"/\*.*?\*/", " ", table[: table.index("\n};")], flags=re.S)
    rows = re.findall(r"\{([^{}]*)\}", table)
    bits = [row.split(",")[-1].strip() for row in rows]
    assert bits == [enums.METHOD_MEMORY[m] or "0U" for m in enums.METHOD.names]
    memory = (INCLUDE / "mcs" / "mcs_sim_memory.h").read_text()
    said = dict(re.findall(r"#define (MCS_MEM_\w+) \d+U +/\* continuation (\w+):", memory))
    assert {v: k for k, v in said.items()} == {
        k: v for k, v in enums.CONTINUATION_MEMORY.items() if v
    }
    assert set(enums.METHOD_MEMORY) == set(enums.METHOD.names)
    assert set(enums.CONTINUATION_MEMORY) == set(enums.CONTINUATION.names)


def test_the_method_table_points_to_enums_py():
    """runtime/src/sim/mcs_method.c says where a new method is added to the generator's list."""
    text = (ROOT / "runtime" / "src" / "sim" / "mcs_method.c").read_text()
    (path,) = re.findall(r"the options' list \((generator/mcsgen/[\w/]+\.py)\)", text)
    assert (ROOT / path).resolve() == Path(enums.__file__).resolve()
