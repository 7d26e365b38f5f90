"""The enumerations shared with the C runtime (generator/mcsgen/enums.py) are the C enums of
runtime/include/mcs/, names and order, and every Python list of them is the one in enums.py."""

import re
import subprocess
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


@pytest.fixture(scope="module")
def method_table(tmp_path_factory):
    """{method: (flags, near_singular, memory bit)} of the runtime's own table, from a program
    built against the runtime that prints it (runtime/src/sim/mcs_method_table.c)."""
    from mcsgen import build

    tmp = tmp_path_factory.mktemp("method_table")
    probe = tmp / "probe.c"
    probe.write_text(
        '#include <stdio.h>\n#include "sim/mcs_core.h"\n'
        "int main(void) {\n  int m;\n  for (m = 0; m < MCS_METHOD_COUNT; ++m)\n"
        '    printf("%s %u %s %u\\n", mcs_method_name((mcs_method)m),'
        " mcs_method_flags((mcs_method)m),\n"
        "           mcs_method_name(mcs_methods[m].near_singular), mcs_methods[m].memory);\n"
        "  return 0;\n}\n"
    )
    exe = tmp / "probe"
    _, libs = build.backend_flags("portable")
    subprocess.run(
        [build.compiler(), "-std=c99", f"-I{INCLUDE}", f"-I{ROOT / 'runtime' / 'src'}"]
        + [str(probe), *map(str, build.runtime_objects("portable")), "-o", str(exe), *libs],
        check=True,
    )
    rows = subprocess.run([str(exe)], check=True, capture_output=True, text=True).stdout
    return {
        name: (int(f), near, int(mem)) for name, f, near, mem in map(str.split, rows.splitlines())
    }


def c_macros(header):
    """{name: value} of the `#define NAME <number>U` lines of a public header."""
    text = (INCLUDE / header).read_text()
    return {k: int(v, 0) for k, v in re.findall(r"^#define (\w+) (0x[0-9A-F]+|\d+)U\b", text, re.M)}


@pytest.mark.parametrize("flags", enums.FLAGS, ids=lambda f: f.values[0][1])
def test_each_set_of_flags_is_its_c_macros_in_order(flags):
    macros = c_macros(flags.header)
    assert [macros.get(c) for _, c in flags.values] == [1 << k for k in range(len(flags.values))]
    prefix = flags.values[0][1].rsplit("_", 1)[0] + "_"  # no macro of the family left out
    assert {k for k in macros if k.startswith(prefix)} == {c for _, c in flags.values}


def test_the_method_flags_are_the_runtimes_table(method_table):
    """What the generator and the command line read of a method (fixed or adaptive steps,
    implicit, the method near singular configurations, its memory bit) is what the runtime's
    table says: enums.py's METHOD_FLAGS, METHOD_NEAR_SINGULAR and METHOD_MEMORY against it."""
    assert list(method_table) == list(enums.METHOD.names)
    memory = c_macros("mcs/mcs_sim_memory.h")
    for name, (flags, near, bit) in method_table.items():
        assert enums.METHOD_FLAG.of(flags) == enums.METHOD_FLAGS[name], name
        assert enums.METHOD_NEAR_SINGULAR.get(name, name) == near, name
        assert bit == (memory[enums.METHOD_MEMORY[name]] if enums.METHOD_MEMORY[name] else 0), name
    assert set(enums.METHOD_FLAGS) == set(enums.METHOD.names)


def test_method_is_refuses_a_flag_that_is_not_one():
    assert enums.method_is("ros34pw2_fixed", "implicit")
    assert not enums.method_is("ros34pw2_fixed", "adaptive")
    with pytest.raises(KeyError):
        enums.method_is("rk4", "stiff")


def test_continuation_memory_bits_are_the_headers():
    """A firmware header's memory features (emit/tables.py) take each continuation's bit from
    mcs_sim_memory.h's comments."""
    memory = (INCLUDE / "mcs" / "mcs_sim_memory.h").read_text()
    said = dict(re.findall(r"#define (MCS_MEM_\w+) \d+U +/\* continuation (\w+):", memory))
    assert {v: k for k, v in said.items()} == {
        k: v for k, v in enums.CONTINUATION_MEMORY.items() if v
    }
    assert set(enums.METHOD_MEMORY) == set(enums.METHOD.names)
    assert set(enums.CONTINUATION_MEMORY) == set(enums.CONTINUATION.names)


def test_the_method_table_points_to_enums_py():
    """runtime/src/sim/mcs_method_table.c says where a new method is added to the generator's
    list."""
    text = (ROOT / "runtime" / "src" / "sim" / "mcs_method_table.c").read_text()
    (path,) = re.findall(r"the options' list \((generator/mcsgen/[\w/]+\.py)\)", text)
    assert (ROOT / path).resolve() == Path(enums.__file__).resolve()
