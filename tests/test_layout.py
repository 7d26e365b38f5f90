"""The layout stays navigable (issue 35): no import cycle in the generator package, its stages
(model/, derive/, emit/) importing only earlier ones, no include or call cycle in the runtime,
one runtime file that decides the simulator variant, no source file so long that it must hold
several jobs, every file saying its job first, and the README's layout table names every
module."""
import ast
import re
import shutil
import subprocess
from concurrent.futures import ThreadPoolExecutor
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


def module_name(path, package=PACKAGE):
    rel = path.relative_to(package.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def imported_modules(name, path, node, modules):
    """The package's modules (of `modules`) an import statement of module `name` names."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    if isinstance(node, ast.ImportFrom):
        if node.level:
            base = package.split(".")
            base = base[: len(base) - node.level + 1]
            target = ".".join(base + ([node.module] if node.module else []))
        else:
            target = node.module
        # `from P import m` of a module m depends on P.m; of a name, on P (its parent
        # package, always imported first, is no dependency of P.m)
        candidates = [
            f"{target}.{a.name}" if f"{target}.{a.name}" in modules else target for a in node.names
        ]
    elif isinstance(node, ast.Import):
        candidates = [a.name for a in node.names]
    else:
        return set()
    return {c for c in candidates if c in modules and c != name}


def package_imports():
    """{module: set(modules of the package it imports)}, imports anywhere in the module (also
    inside functions: a deferred import is still a dependency)."""
    modules = {module_name(p): p for p in PACKAGE.rglob("*.py")}
    graph = {}
    for name, path in modules.items():
        deps = set()
        for node in ast.walk(ast.parse(path.read_text())):
            deps |= imported_modules(name, path, node, modules)
        graph[name] = deps
    return graph


def test_generator_has_no_import_cycle():
    cycle = find_cycle(package_imports())
    assert cycle is None, " -> ".join(cycle)


# The generator's stages in the order data flows (DEVELOPING.md): a stage imports none after it.
# emit/ may name derive/'s types in hints (`if TYPE_CHECKING:`) but imports nothing of it at run
# time, and differentiates nothing: the emitter prints what derive(model, sets) derived.
STAGES = ("mcsgen.model", "mcsgen.derive", "mcsgen.emit")
DERIVING_CALLS = {"diff", "jacobian", "hessian", "Derivative", "fdiff", "tangent", "dot"}


def stage_of(module):
    return next(
        (k for k, stage in enumerate(STAGES) if module.split(".")[:2] == stage.split(".")), None
    )


def imports_with_hints(tree):
    """[(import statement, whether it is under `if TYPE_CHECKING:`)] of a module's tree, those
    inside functions too."""
    found = []

    def visit(node, hint):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.Import, ast.ImportFrom)):
                found.append((child, hint))
            elif isinstance(child, ast.If) and ast.unparse(child.test) in TYPE_CHECKING_TESTS:
                for stmt in child.body:
                    visit(ast.Module(body=[stmt], type_ignores=[]), True)
                for stmt in child.orelse:
                    visit(ast.Module(body=[stmt], type_ignores=[]), hint)
            else:
                visit(child, hint)

    visit(tree, False)
    return found


TYPE_CHECKING_TESTS = ("TYPE_CHECKING", "typing.TYPE_CHECKING")


def stage_violations(package=PACKAGE):
    """Imports of a later stage by an earlier one, run-time imports of derive/ by emit/ (its
    hints under TYPE_CHECKING are fine), and calls in emit/ of what differentiates
    (DERIVING_CALLS)."""
    modules = {module_name(p, package): p for p in package.rglob("*.py")}
    problems = []
    for name, path in sorted(modules.items()):
        stage = stage_of(name)
        if stage is None:
            continue
        tree = ast.parse(path.read_text())
        for node, hint in imports_with_hints(tree):
            for target in sorted(imported_modules(name, path, node, modules)):
                other = stage_of(target)
                if other is not None and other > stage:
                    problems.append(f"{name} (line {node.lineno}) imports {target}: a later stage")
                elif STAGES[stage] == "mcsgen.emit" and other == stage - 1 and not hint:
                    problems.append(
                        f"{name} (line {node.lineno}) imports {target}: emit/ only prints what "
                        "derive/ derived (its types, for hints, under TYPE_CHECKING)"
                    )
        if STAGES[stage] == "mcsgen.emit":
            for node in ast.walk(tree):
                if isinstance(node, ast.Call):
                    func = node.func
                    called = (
                        func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
                    )
                    if called in DERIVING_CALLS:
                        problems.append(
                            f"{name} (line {node.lineno}) calls {called}: emit/ derives"
                        )
    return problems


def test_the_stages_import_only_earlier_ones():
    """model/ imports nothing of derive/ or emit/, derive/ nothing of emit/, and emit/ only the
    Derived type of derive/ for its hints: the pipeline flows one way (DEVELOPING.md), and the
    emitter prints, derives nothing."""
    problems = stage_violations()
    assert not problems, "\n".join(problems)


def test_the_stage_check_finds_a_later_import_and_a_derivation(tmp_path):
    """A model/ module importing derive/, a derive/ one importing emit/ deferred, an emit/ one
    importing derive/ at run time and one differentiating: each is found; emit/'s hint is not."""
    root = tmp_path / "mcsgen"
    files = {
        "__init__.py": "",
        "model/__init__.py": "",
        "model/a.py": "from ..derive import b\n",
        "derive/__init__.py": "",
        "derive/b.py": "def f():\n    from ..emit import c\n",
        "emit/__init__.py": "",
        "emit/c.py": (
            "from typing import TYPE_CHECKING\n"
            "if TYPE_CHECKING:\n    from ..derive import b\n"
            "import sympy as sp\n"
            "def g(e, x):\n    return sp.diff(e, x)\n"
        ),
        "emit/d.py": "from ..derive.b import f\n",
    }
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    assert stage_violations(root) == [
        "mcsgen.derive.b (line 2) imports mcsgen.emit.c: a later stage",
        "mcsgen.emit.c (line 6) calls diff: emit/ derives",
        "mcsgen.emit.d (line 1) imports mcsgen.derive.b: emit/ only prints what derive/ derived "
        "(its types, for hints, under TYPE_CHECKING)",
        "mcsgen.model.a (line 1) imports mcsgen.derive.b: a later stage",
    ]


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

# The runtime's tiers, bottom to top, as DEVELOPING.md draws them (the block after its
# "runtime tiers" marker): each line `tier: path ...` (paths under runtime/src/, wrapped lines
# indented), a tier's files calling and including only files of its own tier and those below.
TIERS_MARKER = "<!-- runtime tiers: tests/test_layout.py reads this block -->"


def read_tiers(text):
    """[(tier, [paths])], bottom tier first, from DEVELOPING.md's block (drawn top first)."""
    block = text[text.index(TIERS_MARKER) :].split("```")[1]
    tiers = []
    for line in block.splitlines()[1:]:
        if not line.strip():
            continue
        if line[0].isspace():
            tiers[-1][1].extend(line.split())
        else:
            name, _, paths = line.partition(":")
            tiers.append((name.strip(), paths.split()))
    return tiers[::-1]


def callgraph_objects(src, out, jobs=2):
    """Compiles every file of src (a runtime/src tree) with GCC's -fcallgraph-info into out:
    {file: .ci text}. At -O0, so that no call is folded away; the LAPACK backend's files with the
    default flags, the portable backend's with MCS_LINALG_PORTABLE (they define the same names)."""
    files = sorted(p.relative_to(src).as_posix() for p in src.rglob("*.c"))
    include = src.parent / "include"

    def compile_one(rel):
        obj = out / (rel.replace("/", "__") + ".o")
        flags = ["-DMCS_LINALG_PORTABLE"] if rel == "linalg/mcs_linalg_portable.c" else []
        subprocess.run(
            ["gcc", "-std=c99", "-O0", "-fcallgraph-info", *flags, f"-I{include}", f"-I{src}"]
            + ["-c", str(src / rel), "-o", str(obj)],
            check=True,
            capture_output=True,
        )
        return rel, obj.with_suffix(".ci").read_text()

    with ThreadPoolExecutor(jobs) as pool:
        return dict(pool.map(compile_one, files))


CI_NODE = re.compile(r'node: \{ title: "([^"]+)" label: "[^"]*"( shape : ellipse)?')
CI_EDGE = re.compile(r'edge: \{ sourcename: "([^"]+)" targetname: "([^"]+)"')


def file_call_graph(graphs):
    """{file: set(files it calls)} from the compiler's call graphs ({file: .ci text}): F -> G when
    a function F's translation unit compiles calls a function G defines with external linkage (a
    static function's node is titled `file:name`, a call to it stays in its file). The two
    linear-algebra backends define the same functions: a call of one reaches both."""
    where = {}
    for rel, text in graphs.items():
        for title, external in CI_NODE.findall(text):
            if not external and ":" not in title:
                where.setdefault(title, set()).add(rel)
    return {
        rel: {g for _, callee in CI_EDGE.findall(text) for g in where.get(callee, ()) if g != rel}
        for rel, text in graphs.items()
    }


@pytest.fixture(scope="module")
def runtime_calls(tmp_path_factory):
    src = ROOT / "runtime" / "src"
    return file_call_graph(callgraph_objects(src, tmp_path_factory.mktemp("callgraph")))


def test_runtime_has_no_call_cycle(runtime_calls):
    calls = runtime_calls
    assert "linalg/mcs_gemm.c" in calls["sim/mcs_chart_common.c"]  # the graph is read at all
    assert calls["sim/mcs_variant.c"] >= {"sim/variant/mcs_dense.c", "sim/variant/mcs_banded.c"}
    cycle = find_cycle(calls)
    assert cycle is None, " calls ".join(cycle)


def tier_violations(tiers, calls, includes):
    """The calls and includes that go up a tier ([(kind, from, to)]); files of runtime/src not in
    exactly one tier, as ("untiered", path, "")."""
    level = {}
    out = []
    for k, (_, paths) in enumerate(tiers):
        for path in paths:
            if path in level:
                out.append(("twice", path, ""))
            level[path] = k
    src = ROOT / "runtime" / "src"
    for path in sorted(p.relative_to(src).as_posix() for p in src.rglob("*.[ch]")):
        if path not in level:
            out.append(("untiered", path, ""))
    for kind, graph in (("calls", calls), ("includes", includes)):
        for f, targets in sorted(graph.items()):
            for g in sorted(targets):
                if f in level and g in level and level[g] > level[f]:
                    out.append((kind, f, g))
    return out


def test_runtime_calls_and_includes_keep_to_the_tiers_developing_md_draws(runtime_calls):
    tiers = read_tiers((ROOT / "DEVELOPING.md").read_text())
    includes = {
        k: {i for i in v if not i.startswith("mcs/")}
        for k, v in runtime_includes().items()
        if not k.startswith("mcs/")
    }
    assert [name for name, _ in tiers][:3] == ["status", "linalg", "basis"]  # read at all
    violations = tier_violations(tiers, runtime_calls, includes)
    assert not violations, "\n".join(f"{f} {kind} {g}" for kind, f, g in violations)


def test_each_sim_file_sees_its_own_tier_header():
    """One internal header per tier of the simulator (mcs_core.h draws them): each sim/ file
    includes its tier's header (the top tier's: the stages'), and the headers include one
    another down the tiers, so the include graph is the diagram."""
    tiers = dict(read_tiers((ROOT / "DEVELOPING.md").read_text()))
    includes = runtime_includes()
    sim_tiers = [name for name in tiers if name.startswith("sim")]
    headers = {name: [p for p in tiers[name] if p.endswith(".h")] for name in sim_tiers}
    for name in sim_tiers:
        own = headers[name] or headers["sim stages"]  # the top tier has no header of its own
        for path in tiers[name]:
            if path.endswith(".c"):
                seen = {i for i in includes[path] if i.startswith("sim/")}
                assert own[0] in seen, f"{path} does not include {own[0]}"
    chain = [headers[name][0] for name in sim_tiers if headers[name]]
    for lower, upper in zip(chain, chain[1:]):
        expected = {"sim/mcs_core.h"} if upper == "sim/mcs_operations.h" else {lower}
        assert {i for i in includes[upper] if i.startswith("sim/")} == expected, upper


def test_the_call_graph_test_fails_on_an_upward_call(tmp_path):
    """The check can fail: a copy of the runtime with one call from the core up to the step (what
    the chart Jacobian's call of mcs_sim_step through the linearization was) has a cycle and a call
    up the tiers."""
    src = tmp_path / "src"
    shutil.copytree(ROOT / "runtime" / "src", src)
    shutil.copytree(ROOT / "runtime" / "include", tmp_path / "include")
    rows = src / "sim" / "mcs_rows.c"
    rows.write_text(
        rows.read_text()
        + "\nint mcs_rows_upward(mcs_sim *s);\n"
        + "int mcs_rows_upward(mcs_sim *s) { return (int)mcs_sim_step(s, 1.0); }\n"
    )
    calls = file_call_graph(callgraph_objects(src, tmp_path))
    assert "sim/mcs_step.c" in calls["sim/mcs_rows.c"]
    assert find_cycle(calls) is not None
    tiers = read_tiers((ROOT / "DEVELOPING.md").read_text())
    assert ("calls", "sim/mcs_rows.c", "sim/mcs_step.c") in tier_violations(tiers, calls, {})


def test_file_call_graph_reads_static_and_external_functions():
    a = (
        'node: { title: "a.c:helper" label: "helper\\na.c:1:12" }\n'
        'node: { title: "run" label: "run\\na.c:3:5" }\n'
        'node: { title: "step" label: "step\\nb.h:2:5" shape : ellipse }\n'
        'edge: { sourcename: "run" targetname: "a.c:helper" label: "a.c:4:5" }\n'
        'edge: { sourcename: "a.c:helper" targetname: "step" label: "a.c:2:5" }\n'
    )
    b = 'node: { title: "step" label: "step\\nb.c:1:5" }\n'
    assert file_call_graph({"a.c": a, "b.c": b}) == {"a.c": {"b.c"}, "b.c": set()}


SIZE_MACRO = re.compile(r"^#define (MCS_\w+(?:SIZE|REALS))\(([^)]*)\)", re.M)


@pytest.mark.parametrize(
    "header", sorted((ROOT / "runtime" / "include" / "mcs").glob("*.h")), ids=lambda p: p.name
)
def test_every_public_header_compiles_alone_with_its_sizes(header, tmp_path):
    """A public header is self-contained: a translation unit that includes it alone compiles
    strictly, and every size macro it defines (MCS_*_SIZE, MCS_*_REALS) expands there to a
    constant (the memory header's sizes once needed mcs_sim.h's)."""
    uses = [
        f"static const size_t use_{k} = (size_t)({name}({', '.join('2' * len(args.split(',')))}));"
        for k, (name, args) in enumerate(SIZE_MACRO.findall(header.read_text()))
    ]
    tu = tmp_path / "alone.c"
    tu.write_text(
        f'#include "mcs/{header.name}"\n'
        + "\n".join(uses)
        + "\nint use_all(void);\nint use_all(void) { return (int)(0"
        + "".join(f" + use_{k}" for k in range(len(uses)))
        + "); }\n"
    )
    flags = ["-std=c99", "-pedantic", "-Wall", "-Wextra", "-Werror"]
    built = subprocess.run(
        [
            "gcc",
            *flags,
            f"-I{ROOT / 'runtime' / 'include'}",
            "-c",
            str(tu),
            "-o",
            str(tmp_path / "a.o"),
        ],
        capture_output=True,
        text=True,
    )
    assert built.returncode == 0, built.stderr
    if header.name == "mcs_sim_memory.h":
        assert len(uses) >= 5, uses  # MEMORY_REALS, WORK, IWORK, LINEARIZE, STEP_JACOBIAN


# What names a simulator variant in C (dense output's functions are the interpolation's: no
# mcs_dense_ name is dense output's)
VARIANT_WORDS = {
    "dense": r"\bMCS_VARIANT_DENSE\b|\bmcs_dense_\w+|\bMCS_WITH_DENSE\b",
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


# Where a method or variant may be named (its C enumerator, comments aside): the options unit, the
# method table and its switches, a method's own file (itself), the variants' switch and leaves
# (each its own), and the programs that choose one (the command line's --simulator, the firmware
# example). Everywhere else a rule reads the tables: mcs_method_flags, mcs_sim_refusals.
ENUMERATOR = re.compile(
    r"\bMCS_(METHOD|VARIANT)_(RK4|DOPRI5|DOP853|ROS34PW2_FIXED|ROS34PW2|DENSE|COMPACT|BANDED)\b"
)
NAMED_IN = {
    "runtime/src/sim/mcs_options.c": "*",
    "runtime/src/sim/mcs_method_table.c": "*",
    "runtime/src/sim/mcs_method.c": "*",
    "runtime/src/sim/mcs_variant.c": "*",
    "runtime/src/sim/mcs_rk4.c": {"RK4"},
    "runtime/src/sim/mcs_rosenbrock.c": {"ROS34PW2", "ROS34PW2_FIXED"},
    "runtime/src/sim/variant/mcs_dense.c": {"DENSE"},
    "runtime/src/sim/variant/mcs_compact.c": {"COMPACT"},
    "runtime/src/sim/variant/mcs_compact_chart.c": {"COMPACT"},
    "runtime/src/sim/variant/mcs_banded.c": {"BANDED"},
    "runtime/src/sim/variant/mcs_banded_chart.c": {"BANDED"},
    "runtime/app/mcs_simulate_setup.c": {"BANDED"},
    "runtime/app/mcs_firmware_example.c": {"COMPACT"},
}
# a Python rule that names methods: a comparison with a method's name, or a list of them
PY_METHOD = r"[\"'](rk4|dopri5|dop853|ros34pw2|ros34pw2_fixed)[\"']"
PY_RULE = re.compile(rf"(==|!=|\bin)\s*\(?\s*{PY_METHOD}|\(\s*{PY_METHOD}\s*,")


def named_methods_and_variants():
    """{file: set of method and variant names its code (not its comments) uses}."""
    out = {}
    for path in sorted((ROOT / "runtime" / "src").rglob("*.[ch]")) + sorted(
        (ROOT / "runtime" / "app").glob("*.[ch]")
    ):
        names = {m.group(2) for m in ENUMERATOR.finditer(COMMENT.sub(" ", path.read_text()))}
        if names:
            out[path.relative_to(ROOT).as_posix()] = names
    return out


def test_methods_and_variants_are_named_only_where_their_rules_are():
    wrong = {
        f: names
        for f, names in named_methods_and_variants().items()
        if NAMED_IN.get(f) != "*" and not names <= NAMED_IN.get(f, set())
    }
    assert not wrong, wrong
    rules = [
        f"{p.relative_to(ROOT)}:{k + 1}: {line.strip()}"
        for p in sorted(PACKAGE.rglob("*.py"))
        if p.name not in ("enums.py",)
        for k, line in enumerate(p.read_text().splitlines())
        if PY_RULE.search(line)
    ]
    assert not rules, "\n".join(rules)


def test_the_naming_check_finds_a_rule_that_names_a_method():
    assert PY_RULE.search('    elif sim["method"] in ("rk4", "ros34pw2_fixed"):')
    assert PY_RULE.search('IMPLICIT_METHODS = ("ros34pw2", "ros34pw2_fixed")')
    assert not PY_RULE.search('    "method": "rk4",')
    code = "if (opt->method == MCS_METHOD_RK4) /* MCS_VARIANT_DENSE */"
    assert {m.group(2) for m in ENUMERATOR.finditer(COMMENT.sub(" ", code))} == {"RK4"}


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
