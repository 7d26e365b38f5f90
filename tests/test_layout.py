"""The layout stays navigable (issue 35): no import cycle in the generator package, no include or
call cycle in the runtime, one runtime file that decides the simulator variant, no source file so
long that it must hold several jobs, every file saying its job first, and the README's layout
table names every module."""
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


COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)
STRING = re.compile(r'"(?:\\.|[^"\\])*"|\'(?:\\.|[^\'\\])*\'')
CALL = re.compile(r"\b([A-Za-z_]\w*)\s*\(")
KEYWORDS = {"if", "for", "while", "switch", "return", "sizeof", "defined"}


def c_code(text):
    """C source without comments, string contents and preprocessor lines."""
    text = STRING.sub('""', COMMENT.sub(" ", text))
    return re.sub(r"^\s*#.*$", "", text, flags=re.M)


def c_definitions(text):
    """{name: static?} of the functions a C file defines (a name followed by a parameter list
    and a body at file scope)."""
    found, depth = {}, 0
    for m in re.finditer(r"[{}]|" + CALL.pattern, text):
        if m.group(0) in "{}":
            depth += 1 if m.group(0) == "{" else -1
            continue
        if depth or m.group(1) in KEYWORDS:
            continue
        j, level = m.end(), 1
        while level and j < len(text):
            level += (text[j] == "(") - (text[j] == ")")
            j += 1
        if text[j:].lstrip().startswith("{"):
            head = text[max(text.rfind(";", 0, m.start()), text.rfind("}", 0, m.start())) + 1 :]
            found[m.group(1)] = bool(re.search(r"\bstatic\b", head[: m.start()]))
    return found


def runtime_calls():
    """{file: set(files)} of runtime/src: F -> G when F calls a function G defines (by name; a
    function F defines itself or statically elsewhere is not G's). The two linear-algebra
    backends define the same functions: a call of one reaches both."""
    src = ROOT / "runtime" / "src"
    code = {f.relative_to(src).as_posix(): c_code(f.read_text()) for f in sorted(src.rglob("*.c"))}
    defs = {f: c_definitions(t) for f, t in code.items()}
    where = {}
    for f, names in defs.items():
        for name, static in names.items():
            if not static:
                where.setdefault(name, set()).add(f)
    return {
        f: {g for name in set(CALL.findall(t)) if name not in defs[f] for g in where.get(name, ())}
        for f, t in code.items()
    }


def test_runtime_has_no_call_cycle():
    calls = runtime_calls()
    assert "linalg/mcs_gemm.c" in calls["sim/mcs_chart_common.c"]  # the graph is read at all
    assert calls["sim/mcs_variant.c"] >= {"sim/variant/mcs_dense.c", "sim/variant/mcs_banded.c"}
    cycle = find_cycle(calls)
    assert cycle is None, " calls ".join(cycle)


def test_c_definitions_reads_static_and_external_functions():
    text = c_code("static int a(int x) { return b(x); }\nint b(int y)\n{\n    return y;\n}\n")
    assert c_definitions(text) == {"a": True, "b": False}


# What names a simulator variant in C (the dense output's mcs_dense_state is not the dense variant)
VARIANT_WORDS = {
    "dense": r"\bMCS_VARIANT_DENSE\b|\bmcs_dense_(?!state\b)\w+|\bMCS_WITH_DENSE\b",
    "compact": r"\bMCS_(VARIANT|WITH|MEM)_COMPACT\b|\bmcs_compact_\w+",
    "banded": r"\bMCS_(VARIANT|WITH|MEM)_BANDED\b|\bmcs_banded_\w+",
}


def variants_named(path):
    text = COMMENT.sub(" ", path.read_text())
    return {v for v, words in VARIANT_WORDS.items() if re.search(words, text)}


def test_one_runtime_file_decides_the_variant():
    src = ROOT / "runtime" / "src"
    deciders = [
        f.relative_to(src).as_posix() for f in src.rglob("*.c") if len(variants_named(f)) > 1
    ]
    assert deciders == ["sim/mcs_variant.c"]
    leaves = sorted(f.name for f in (src / "sim" / "variant").glob("*.c"))
    assert all(len(variants_named(src / "sim" / "variant" / f)) == 1 for f in leaves), leaves


@pytest.mark.parametrize(
    "path", sorted((ROOT / "runtime").rglob("*.[ch]")), ids=lambda p: str(p.relative_to(ROOT))
)
def test_runtime_sources_say_their_job_and_hold_one(path):
    # files are split by job, not by size (a 500-line cap made the call circles of issue 35):
    # each says its job first, and one over 800 lines has grown a second
    text = path.read_text()
    assert re.match(rf"/\* {re.escape(path.name)}( -|:) \S", text), f"{path.name}: say its job"
    lines = text.count("\n")
    assert lines <= 800, f"{path.name} has {lines} lines: which of its jobs goes elsewhere?"


@pytest.mark.parametrize(
    "path", sorted(PACKAGE.rglob("*.py")), ids=lambda p: str(p.relative_to(ROOT))
)
def test_generator_modules_say_their_job_and_hold_one(path):
    # modules are split by job, not by size; a module over 800 lines has grown a second one
    text = path.read_text()
    assert path.name == "__init__.py" and not text.strip() or ast.get_docstring(ast.parse(text))
    lines = text.count("\n")
    assert lines <= 800, f"{path.name} has {lines} lines: which of its jobs goes elsewhere?"


def test_readme_layout_names_every_runtime_module():
    readme = (ROOT / "docs" / "develop" / "layout.md").read_text()  # the manual's Layout page
    layout = readme
    missing = [p.name for p in sorted((ROOT / "runtime").rglob("*.[ch]")) if p.name not in layout]
    missing += [
        p.name
        for p in sorted(PACKAGE.rglob("*.py"))
        if p.name not in ("__init__.py", "__main__.py") and p.name not in layout
    ]
    assert not missing, f"README layout table does not mention {missing}"
