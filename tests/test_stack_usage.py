"""scripts/stack-usage (issue 12): the worst-case stack from GCC's call graphs, on small graphs
written here in the format of `-fcallgraph-info=su` (the firmware build makes the real ones)."""

import json
import subprocess

import pytest

from conftest import ROOT

SCRIPT = ROOT / "scripts" / "stack-usage"


def node(title, size, kind="static"):
    name = title.split(":")[-1]
    return f'node: {{ title: "{title}" label: "{name}\\nfile.c:1:1\\n{size} bytes ({kind})" }}\n'


def edge(source, target):
    return f'edge: {{ sourcename: "{source}" targetname: "{target}" label: "file.c:2:3" }}\n'


def graph(tmp_path, text, model="/m/model.c"):
    (tmp_path / "a.ci").write_text('graph: { title: "a.c"\n' + text + "}\n")
    return subprocess.run(
        [str(SCRIPT), str(tmp_path), model, "--json"], capture_output=True, text=True
    )


def test_the_heaviest_path_through_indirect_calls_and_library_leaves(tmp_path):
    """main (100) -> step (40) -> indirect: the heaviest trampoline mcs_gen_d_K (0) ->
    kernel (700) -> memset (library allowance 128): 968; the light branch (mcs_gen_d_c -> 16) is
    not the worst."""
    text = (
        node("main", 100) + node("step", 40) + node("other", 500)
        + node("/m/model.c:mcs_gen_d_c", 0) + node("/m/model.c:mcs_gen_d_K", 0)
        + node("kernel_c", 16) + node("kernel_K", 700)
        + edge("main", "step") + edge("main", "other") + edge("step", "__indirect_call")
        + edge("/m/model.c:mcs_gen_d_c", "kernel_c") + edge("/m/model.c:mcs_gen_d_K", "kernel_K")
        + edge("kernel_K", "memset")
    )  # fmt: skip
    proc = graph(tmp_path, text)
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout)
    assert result["stack"] == 100 + 40 + 0 + 700 + 128
    assert result["path"][:4] == ["main (100)", "step (40)", "mcs_gen_d_K (0)", "kernel_K (700)"]
    assert result["library_calls"] == ["memset"]


@pytest.mark.parametrize(
    "text, problem",
    [
        (node("main", 8) + node("f", 8) + edge("main", "f") + edge("f", "main"), "recursion"),
        (node("main", 8) + node("f", 8, "dynamic") + edge("main", "f"), "dynamic size"),
        (node("f", 8), "no main"),
    ],
    ids=["recursion", "dynamic-frame", "no-entry"],
)
def test_no_bound_is_an_error(tmp_path, text, problem):
    proc = graph(tmp_path, node("/m/model.c:mcs_gen_d_c", 0) + text)
    assert proc.returncode != 0 and problem in proc.stderr
