"""The layout stays navigable: no import cycle in the generator package, no include cycle in the
runtime, no runtime source over 400 lines, and the README's layout table names every module."""
import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "generator" / "mcsgen"


def find_cycle(graph):
    """A cycle of the directed graph {node: set(successors)} as a list of nodes, or None."""
    state = {}

    def visit(node, path):
        state[node] = "open"
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == "open":
                return path[path.index(nxt) :] + [nxt]
            if nxt not in state:
                found = visit(nxt, path + [nxt])
                if found:
                    return found
        state[node] = "done"
        return None

    for node in sorted(graph):
        if node not in state:
            found = visit(node, [node])
            if found:
                return found
    return None


def module_name(path):
    rel = path.relative_to(PACKAGE.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def package_imports():
    """{module: set(modules of the package it imports)}, imports anywhere in the module (also
    inside functions: a deferred import is still a dependency)."""
    modules = {module_name(p): p for p in PACKAGE.rglob("*.py")}
    graph = {}
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        deps = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
                candidates = [target] + [f"{target}.{a.name}" for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                candidates = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
            elif isinstance(node, ast.Import):
                candidates = [a.name for a in node.names]
            else:
                continue
            deps |= {c for c in candidates if c in modules and c != name}
        graph[name] = deps
    return graph


def test_generator_has_no_import_cycle():
    cycle = find_cycle(package_imports())
    assert cycle is None, " -> ".join(cycle)


def runtime_includes():
    src = ROOT / "runtime" / "src"
    files = list((ROOT / "runtime" / "include" / "mcs").glob("*.h")) + list(src.rglob("*.[ch]"))
    by_name = {}
    for f in files:  # as they are included: "mcs/<name>" or by their path under runtime/src
        key = f"mcs/{f.name}" if f.parent.name == "mcs" else f.relative_to(src).as_posix()
        by_name[key] = f
    graph = {}
    for key, f in by_name.items():
        incs = set(re.findall(r'^#include "([^"]+)"', f.read_text(), re.M))
        graph[key] = {i if i in by_name else f"mcs/{i}" for i in incs} & set(by_name)
    return graph


def test_runtime_has_no_include_cycle():
    cycle = find_cycle(runtime_includes())
    assert cycle is None, " -> ".join(cycle)


def test_find_cycle_finds_one():
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) is None


@pytest.mark.parametrize(
    "path", sorted((ROOT / "runtime").rglob("*.[ch]")), ids=lambda p: str(p.relative_to(ROOT))
)
def test_runtime_sources_stay_small(path):
    # 500: MISRA C:2012's braces on every body and one declaration per line added ~15 %
    lines = path.read_text().count("\n")
    assert lines <= 500, f"{path.name} has {lines} lines: split it by job"


def test_readme_layout_names_every_runtime_module():
    readme = (ROOT / "README.md").read_text()
    layout = readme[readme.index("## Layout") :]
    layout = layout[: layout.index("\n## ", 5)]
    missing = [p.name for p in sorted((ROOT / "runtime").rglob("*.[ch]")) if p.name not in layout]
    missing += [
        p.name
        for p in sorted(PACKAGE.rglob("*.py"))
        if p.name not in ("__init__.py", "__main__.py") and p.name not in layout
    ]
    assert not missing, f"README layout table does not mention {missing}"
