"""The manual's facts (README.md and the pages of docs/) against the files they come from (issue
34, item 10: a new user found the introduction saying statics were not in this release,
references to files outside the repository, a package list short of what `make deps` installs,
two sizes of the firmware toolchain and "1 s of each under QEMU" while one model runs 2 s). Each
test reads the README and the repository's own files (Makefile, scripts/install-deps, the model
files, the generated headers, the CLI's parser, docs/SPEC.md); none runs a build. Other tests
pin more of it: the layout table's modules (test_layout.py), the options table
(test_options.py), the MISRA deviations (generator/test_misra.py), the firmware sizes
(e2e/test_firmware_qemu.py)."""

import argparse
import ast
import re
import shutil
import subprocess

import pytest
import yaml

from conftest import ROOT

# the manual: the README and every hand-written page of docs/ (the reference pages generated from
# the code are built, not stored); the old README's sections are pages now (SECTION_PAGES)
PAGES = sorted(
    p for p in (ROOT / "docs").rglob("*.md") if p.name != "SPEC.md" and "data" not in p.parts
)
SECTION_PAGES = {
    "Quick start": ["setup.md"],
    "Layout": ["develop/layout.md"],
    "CLI reference": ["reference/commands.md"],
    "Python API": ["reference/python-api.md"],
    "Model-file reference": ["reference/model-file.md", "explanation/integrators.md"],
    "Generated code": ["reference/generated-code.md"],
    "Large models": ["explanation/large-models.md"],
    "Transitions": ["explanation/transitions.md"],
    "Importing URDF": ["reference/urdf.md"],
    "Statics and vibration modes": ["explanation/statics-modes.md"],
    "Inputs, forward and inverse dynamics": ["reference/inputs-outputs.md"],
    "Sweeps": ["reference/sweeps.md"],
    "Auditing a model": ["reference/audit.md"],
    "Redundant constraints and singular configurations": ["explanation/singular.md"],
    "Output formats": ["reference/outputs.md"],
    "Models": ["reference/models.md"],
    "Deterministic output": ["explanation/determinism.md"],
    "Firmware": ["reference/firmware.md", "reference/cmake.md"],
    "MISRA C:2012": ["reference/misra.md"],
    "Fuzzing": ["develop/fuzzing.md"],
    "Tests": ["develop/tests.md"],
    "make bench": ["explanation/performance.md"],
}
README = "\n\n".join([(ROOT / "README.md").read_text()] + [p.read_text() for p in PAGES])
MAKEFILE = (ROOT / "Makefile").read_text()
SPEC = ROOT / "docs" / "SPEC.md"

# the README's names of the models `make firmware` builds (as in e2e/test_firmware_qemu.py)
FIRMWARE_NAMES = {
    "spatial pendulum": "spatial_pendulum",
    "3R pendulum": "pendulum_3r",
    "double four-bar": "double_four_bar",
    "slider-crank": "slider_crank",
}
# the files `make bench` and the firmware test take their problems and bounds from
BENCH_RUN = ROOT / "bench" / "run.py"
FIRMWARE_TEST = ROOT / "tests" / "e2e" / "test_firmware_qemu.py"
WORDS = dict(enumerate("zero one two three four five six seven eight nine ten".split()))


def flat(text):
    """Whitespace (line breaks of the wrapped text) as single spaces."""
    return re.sub(r"\s+", " ", text)


def section(title, text=None):
    """The text of the old README's section `title`: its pages (SECTION_PAGES), their own
    headings one level down (`# Page` as `## Page`, `## Part` as `### Part`), so that the text
    reads as the section did; or, in `text`, `## title...` up to the next `## ` heading."""
    if text is None:
        (key,) = [k for k in SECTION_PAGES if title.startswith(k) or k.startswith(title)][:1]
        body = "\n\n".join((ROOT / "docs" / p).read_text() for p in SECTION_PAGES[key])
        body = re.sub(r"^(#+) ", lambda m: "#" + m.group(1) + " ", body, flags=re.M)
        return f"\n## {title}\n\n" + re.sub(r"^## ", "### ", body, flags=re.M)
    start = text.index(f"\n## {title}")
    end = text.find("\n## ", start + 4)
    return text[start : end if end >= 0 else len(text)]


def table_rows(text):
    """The cells of a Markdown table's body rows (header and rule left out)."""
    rows = [ln for ln in text.splitlines() if ln.startswith("| ")]
    return [[c.strip() for c in re.split(r"(?<!\\)\|", ln)[1:-1]] for ln in rows[1:]]


def code_spans(text):
    """The text of every `code span`, fenced blocks left out (their ``` would pair wrongly)."""
    return re.findall(r"`([^`]+)`", re.sub(r"```.*?```", "", text, flags=re.S))


def leading_int(cell):
    return int(re.match(r"\d+", cell).group())


def spec_sections():
    """docs/SPEC.md: section number -> its text."""
    text = SPEC.read_text()
    parts = re.split(r"^## (\d+)\. ", text, flags=re.M)
    return {int(parts[i]): parts[i + 1] for i in range(1, len(parts), 2)}


def makefile_var(name):
    """A Makefile variable's words (continuation lines joined)."""
    m = re.search(rf"^{name} :?= ((?:.*\\\n)*.*)$", MAKEFILE, re.M)
    return m.group(1).replace("\\\n", " ").split()


def makefile_comment_before(target):
    """The comment lines just above a Makefile rule."""
    lines = MAKEFILE[: MAKEFILE.index(f"\n{target}:")].splitlines()
    comment = []
    for line in reversed(lines):
        if not line.startswith("#"):
            break
        comment.insert(0, line.lstrip("# "))
    return " ".join(comment)


def install_deps_packages():
    """scripts/install-deps: the packages it installs, and those of its other lists
    (`install-deps fuzz`, `install-deps mujoco`)."""
    text = (ROOT / "scripts" / "install-deps").read_text()
    found = re.findall(r'PKGS="([^"]*)"', text)
    assert len(found) == 3, "install-deps: expected PKGS=, the fuzz list and the mujoco list"
    return set(found[0].split()), set(found[1].split()) | set(found[2].split())


def model_file(name):
    return yaml.safe_load((ROOT / "models" / f"{name}.yaml").read_text())


def loader_defaults():
    """generator/mcsgen/model/loader.py's SIM_DEFAULTS (t_end, h) and a firmware build's method
    and continuation, read from its source (importing it loads SymPy: seconds)."""
    source = (ROOT / "generator" / "mcsgen" / "model" / "loader.py").read_text()
    block = source[source.index("SIM_DEFAULTS = {") :]
    block = block[: block.index("}")]
    sim = {k: float(v) for k, v in re.findall(r'"(t_end|h)": ([\d.e+-]+)', block)}
    base = re.search(r'base = dict\(simulation, method="(\w+)", continuation="(\w+)"\)', source)
    return sim, base.group(1), base.group(2)


def firmware_settings(name):
    """A model's firmware build settings, as loader.Loader.firmware makes them: `firmware:`
    over `simulation:` over the defaults, method and continuation rk4 and none unless given."""
    sim_defaults, method, continuation = loader_defaults()
    doc = model_file(name)
    fw, sim = doc.get("firmware") or {}, doc.get("simulation") or {}
    settings = dict(sim_defaults, method=method, continuation=continuation)
    settings.update({k: float(sim[k]) for k in ("t_end", "h") if k in sim})
    settings.update({k: v for k, v in fw.items() if k not in ("t_end", "h")})
    settings.update({k: float(fw[k]) for k in ("t_end", "h") if k in fw})
    source = (ROOT / "generator" / "mcsgen" / "model" / "loader.py").read_text()
    for key in ("max_dof", "events", "compact"):  # raw.get("events", True): the loader's defaults
        default = re.search(rf'raw\.get\("{key}", (\w+)\)', source).group(1)
        settings.setdefault(key, ast.literal_eval(default))
    return settings


def header_sizes(name):
    """n and m of a shipped model, from its generated header's macros."""
    header = (ROOT / "generated" / name / f"{name}.h").read_text()
    upper = name.upper()
    n = re.search(rf"#define {upper}_NX (\d+)", header)
    m = re.search(rf"#define {upper}_NC (\d+)", header)
    return int(n.group(1)), int(m.group(1))


# ---- issue 34, item 10 -------------------------------------------------------------------------


def test_the_introduction_claims_every_section_of_the_spec():
    """The introduction said "Statics and eigenanalysis are not in this release yet" and
    "sections 1-5 and 10 are implemented" while statics and modes (SPEC §8) and transitions (§7)
    were: it names every section of docs/SPEC.md now, and nothing as missing."""
    method = (ROOT / "docs" / "explanation" / "method.md").read_text()
    intro = flat(method[method.index("\n## What is implemented") :])
    assert not re.search(r"not in this release|not yet|not implemented", intro), intro
    cited = {int(n) for n in re.findall(r"(?<!\d{3} )§(\d+)", intro)}
    assert set(spec_sections()) <= cited, sorted(set(spec_sections()) - cited)
    assert "every section" in intro
    # the §8 part: the verbs and the README section that document it
    assert "`./mcsgen statics`" in intro and "`./mcsgen modes`" in intro
    assert "# Statics and vibration modes" in section("Statics and vibration modes")


def test_the_spec_and_the_data_sheet_are_the_repositorys_own():
    """README cited ../shared/SPEC.md, ../shared/TARGETS.md and ../shared/data/puma560.md, which a
    user of the repository does not have: the specification and the data sheet are in docs/,
    the targets are stated in the README, and no path leaves the repository."""
    readme = (ROOT / "README.md").read_text()  # the pages link each other by ../
    assert not re.search(r"(?<![.\w])\.\./", readme), re.findall(
        r".{40}(?<![.\w])\.\./.{30}", readme
    )
    assert "shared/" not in README
    assert "`docs/SPEC.md`" in README and "`docs/data/puma560.md`" in README
    spec = SPEC.read_text()
    first = spec.splitlines()[0]
    assert "specification" in first and "mathematics" in first and "kept with the code" in first
    assert not re.search(r"(?<![.\w])\.\./", spec)
    sheet = (ROOT / "docs" / "data" / "puma560.md").read_text()
    assert "PUMA 560" in sheet and "Corke" in sheet  # it cites its sources


def test_every_spec_citation_names_a_section_of_docs_spec():
    """`SPEC §N`, `§N.k` (an item of section N's numbered list) and ranges such as `§2–§4` and
    `§3.1–4` point at what docs/SPEC.md has."""
    sections = spec_sections()
    items = {
        n: {int(k) for k in re.findall(r"^(\d+)\. ", body, re.M)} for n, body in sections.items()
    }
    cites = list(re.finditer(r"SPEC §(\d+)(?:\.(\d+))?(?:–§?(\d+))?", README))
    assert len(cites) >= 10
    for m in cites:
        sec = int(m.group(1))
        assert sec in sections, m.group()
        if m.group(2):
            assert int(m.group(2)) in items[sec], m.group()
        if m.group(3):
            assert int(m.group(3)) in (items[sec] if m.group(2) else sections), m.group()


def test_the_quick_start_lists_exactly_what_install_deps_installs():
    """The list left out chromium, cppcheck, the ARM toolchain, QEMU, CMake, defusedxml and
    pytest-xdist: every package of scripts/install-deps (and of `install-deps fuzz` and
    `install-deps mujoco`) is named in the Quick start's list, and it names no other."""
    pkgs, fuzz = install_deps_packages()
    quick = section("Quick start")
    named = {w for span in code_spans(quick) for w in span.split()}
    assert not (pkgs | fuzz) - named, sorted((pkgs | fuzz) - named)
    start = quick.find("by what needs them:")
    assert start >= 0, "Quick start: no package list"
    listing = quick[start : quick.index("Everything uses", start)]
    listed = {
        w
        for span in code_spans(listing)
        if not span.startswith("make ") and "/" not in span
        for w in span.split()
    }
    assert listed == pkgs | fuzz, (sorted(listed - pkgs - fuzz), sorted(pkgs | fuzz - listed))
    fw = [ln for ln in listing.split("\n- ") if "gcc-arm-none-eabi" in ln]
    assert len(fw) == 1 and "qemu-system-arm" in fw[0] and "libnewlib-arm-none-eabi" in fw[0]
    assert "`scripts/install-deps fuzz`" in listing


FIRMWARE_PACKAGES = ("gcc-arm-none-eabi", "libnewlib-arm-none-eabi", "qemu-system-arm")


def installed_size_kib(roots, others):
    """KiB of `roots` and of the installed packages they pull in (Depends, Pre-Depends, the first
    installed alternative or provider) that `others` do not: what installing them takes on a
    system that has the others. dpkg's graph of what is installed, read in one call (apt-cache
    would rebuild its cache for each call: seconds). None when a root is not installed."""
    fmt = (
        "${Package}\t${db:Status-Abbrev}\t${Installed-Size}\t"
        "${Pre-Depends}, ${Depends}\t${Provides}\n"
    )
    out = subprocess.run(
        ["dpkg-query", "-W", f"-f={fmt}"], capture_output=True, text=True, check=True
    ).stdout
    size, deps, providers = {}, {}, {}
    bare = re.compile(r"[^\s(:]+")
    for line in out.splitlines():
        name, status, kib, depends, provides = line.split("\t")
        if not status.startswith("ii"):
            continue
        size[name] = int(kib or 0)
        deps[name] = [
            [bare.match(alt.strip()).group() for alt in group.split("|")]
            for group in depends.split(",")
            if group.strip()
        ]
        for p in provides.split(","):
            if p.strip():
                providers.setdefault(bare.match(p.strip()).group(), []).append(name)
    if not all(r in size for r in roots):
        return None

    def closure(names):
        seen, todo = set(), [n for n in names if n in size]
        while todo:
            p = todo.pop()
            if p not in seen:
                seen.add(p)
                for group in deps[p]:
                    for alt in group:
                        found = [alt] if alt in size else providers.get(alt, [])
                        if found:
                            todo.append(found[0])
                            break
        return seen

    return sum(size[p] for p in closure(roots) - closure(others))


def test_the_firmware_toolchain_size_is_one_measured_figure():
    """The Makefile said "about 450 MB", the README "about 900 MB": one figure in both now, and
    where the toolchain is installed, within 30 % of what dpkg says it and what it pulls in
    take."""

    def figures(text):
        return {
            int(m.group(1).replace(" ", ""))
            for m in re.finditer(r"about (\d[\d ]*) MB", text)
            if re.search(r"QEMU|toolchain", text[max(0, m.start() - 300) : m.start()])
        }

    in_readme = figures(flat(README))
    in_makefile = figures(makefile_comment_before("firmware"))
    assert len(in_readme) == 1 and in_readme == in_makefile, (in_readme, in_makefile)
    if not shutil.which("dpkg-query"):
        pytest.skip("no dpkg-query: the figure is not recounted")
    pkgs, _ = install_deps_packages()
    assert set(FIRMWARE_PACKAGES) <= pkgs
    kib = installed_size_kib(FIRMWARE_PACKAGES, pkgs - set(FIRMWARE_PACKAGES))
    if kib is None:
        pytest.skip("the firmware toolchain is not installed: the figure is not recounted")
    measured = kib * 1024 / 1e6
    (stated,) = in_readme
    assert abs(stated - measured) <= 0.3 * measured, (stated, measured)


def test_the_firmware_run_lengths_are_the_model_files():
    """The README said "1 s of each" while the 3R pendulum, which has no firmware: section, runs
    its simulation's 2 s: it gives each model's run length and step as its file does now, and
    the models it names are those `make firmware` builds."""
    built = re.search(r"^firmware:.*\n\t@for m in ([\w ]+); do", MAKEFILE, re.M).group(1).split()
    assert sorted(FIRMWARE_NAMES.values()) == sorted(built)
    settings = {label: firmware_settings(name) for label, name in FIRMWARE_NAMES.items()}
    quick = flat(section("Quick start"))

    assert f"`make firmware` builds the solvers of {WORDS[len(built)]} models" in quick
    # Quick start: "(... 1 s; 2 s for the 3R pendulum)"
    m = re.search(r"firmware: t_end`[^)]*?([\d.]+) s; ([\d.]+) s for the ([\w -]+?)\)", quick)
    assert m, "Quick start: the firmware run lengths"
    usual, other, label = float(m.group(1)), float(m.group(2)), m.group(3)
    assert settings[label]["t_end"] == other
    assert all(s["t_end"] == usual for lab, s in settings.items() if lab != label)
    # Firmware: "the spatial pendulum 1 s at h = 0.5 ms, ..."
    firmware = flat(section("Firmware"))
    for label, s in settings.items():
        m = re.search(rf"the {label} ([\d.]+) s at h = ([\d.]+) ms", firmware)
        assert m, f"README Firmware: no run length for the {label}"
        assert float(m.group(1)) == s["t_end"], (label, m.group(), s)
        assert float(m.group(2)) * 1e-3 == pytest.approx(s["h"], rel=1e-12), (label, s)
        assert s["method"] == "rk4"
    assert "1 s of each" not in firmware


def test_the_firmware_tables_are_the_model_files():
    """The sizes table's n, m and firmware settings are the files' and headers'; the QEMU table
    lists the models e2e/test_firmware_qemu.py compares, "(compact)" where the file says so."""
    firmware = section("Firmware")
    sizes = [r for r in table_rows(firmware) if len(r) == 6 and r[0] in FIRMWARE_NAMES]
    assert sorted(r[0] for r in sizes) == sorted(FIRMWARE_NAMES)
    for label, nm, cell, *_ in sizes:
        name = FIRMWARE_NAMES[label]
        assert nm == "%d, %d" % header_sizes(name), (label, nm)
        s = firmware_settings(name)
        method = s["method"].upper() + ("" if s["h"] == 1e-3 else f" h = {s['h'] * 1e3:g} ms")
        expected = [method, s["continuation"]]
        expected += [f"max_dof {s['max_dof']}"] if s["max_dof"] else []
        expected += ["events" if s["events"] else "no events"]
        expected += ["compact"] if s["compact"] else []
        assert cell == ", ".join(expected), (label, cell)
    compared = re.search(r"^MODELS = \(([^)]*)\)", FIRMWARE_TEST.read_text(), re.M).group(1)
    compared = re.findall(r'"(\w+)"', compared)
    runs = [r for r in table_rows(firmware) if len(r) == 3 and "under QEMU" not in r[1]]
    runs = [r for r in runs if r[0].replace(" (compact)", "") in FIRMWARE_NAMES]
    assert sorted(FIRMWARE_NAMES[r[0].replace(" (compact)", "")] for r in runs) == sorted(compared)
    for label, *_ in runs:
        name = FIRMWARE_NAMES[label.replace(" (compact)", "")]
        assert label.endswith("(compact)") == firmware_settings(name)["compact"], label


def test_make_test_takes_the_same_time_in_the_readme_and_the_makefile():
    """The README said "about 12 minutes", the Makefile's comment "under 10 minutes"."""
    readme = re.findall(r"make test .*?about (\d+) minutes on 2 cores", README)
    makefile = re.findall(r"about (\d+) minutes on 2 cores", makefile_comment_before("test"))
    assert readme and set(readme) == set(makefile) and len(makefile) == 1, (readme, makefile)


# ---- the rest of the README ----------------------------------------------------------------


def test_the_models_table_is_the_shipped_models():
    """Every models/*.yaml (the squeezer was missing) and the anchor chain, with the n and m of
    the generated headers and DOF = n - rank; every reference case of SPEC §9 is among them."""
    rows = table_rows(section("Models"))
    names = {re.match(r"`(\w+)`", r[0]).group(1) for r in rows}
    shipped = {p.stem for p in (ROOT / "models").glob("*.yaml")}
    assert names == shipped | {"anchor_chain"}, (sorted(shipped - names), sorted(names - shipped))
    for name, source, n, m, rank, dof in rows:
        name = re.match(r"`(\w+)`", name).group(1)
        assert leading_int(dof) == leading_int(n) - leading_int(rank), name
        if name in shipped:
            assert (leading_int(n), leading_int(m)) == header_sizes(name), name
    chain = yaml.safe_load((ROOT / "bench" / "models" / "anchor_chain.yaml").read_text())
    bodies = chain["bodies"]
    (row,) = [r for r in rows if r[0].startswith("`anchor_chain`")]
    n = sum(7 if b.get("type") == "spatial" else 3 for b in bodies)
    assert leading_int(row[2]) == n and f"{len(bodies)} bodies" in row[1]
    assert f"`bench/models/anchor_chain.yaml` is its {len(bodies)}-body output" in README
    sources = [r[1] for r in rows]
    for case in table_rows(spec_sections()[9]):
        ref = re.match(r"\d{3} §[\d.]+", case[1]).group()
        assert any(s.startswith(ref) for s in sources), (case[0], ref)


def test_the_misra_table_counts_the_generated_models():
    """The MISRA table said "each generated model (15 in `generated/`)" after the squeezer made
    16."""
    count = re.search(r"each generated model \((\d+) in `generated/`\)", README)
    generated = [p for p in (ROOT / "generated").iterdir() if (p / f"{p.name}.h").exists()]
    assert count and int(count.group(1)) == len(generated)


def test_the_cli_reference_documents_every_verb_and_option():
    """Each verb of `./mcsgen` has its entry under "CLI reference", naming every option of its
    parser (generate's --firmware and --kernels and statics' --max-iter were not)."""
    from mcsgen.cli import build_parser

    (sub,) = [a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction)]
    cli = section("CLI reference")
    entries = re.split(r"\n(?=- `\./mcsgen )", cli)[1:]
    described = {re.match(r"- `\./mcsgen ([\w-]+)", e).group(1) for e in entries}
    described |= {v for e in entries for v in re.findall(r" and `\./mcsgen ([\w-]+) MODEL", e)}
    assert described == set(sub.choices), (described, set(sub.choices))
    for verb, parser in sub.choices.items():
        text = "".join(e for e in entries if f"`./mcsgen {verb} " in e)
        options = {o for a in parser._actions for o in a.option_strings if o.startswith("--")}
        missing = [o for o in sorted(options - {"--help"}) if not re.search(rf"{o}(?![\w-])", text)]
        assert not missing, f"README CLI reference, {verb}: {missing}"
    # the defaults the entries quote
    for verb, option, words in (
        ("check", "--tol", "exits 1 above the tolerance (default {})"),
        ("animate", "--frames", "`N` frames (default {})"),
    ):
        (action,) = [a for a in sub.choices[verb]._actions if option in a.option_strings]
        default = re.sub(r"e([+-])0*(\d)", r"e\1\2", f"{action.default:g}").replace("e+", "e")
        text = flat("".join(e for e in entries if e.startswith(f"- `./mcsgen {verb} ")))
        assert words.format(default) in text, (verb, option, default)


def test_the_make_targets_the_readme_names_exist():
    targets = set(re.findall(r"^([\w-]+):", MAKEFILE, re.M))
    named = set(re.findall(r"`make ([a-z][\w-]*)", README))
    named |= set(re.findall(r"^make ([a-z][\w-]*)", README, re.M))  # the Quick start's sh block
    assert {"demo", "test", "firmware", "bench", "deps", "fuzz"} <= named
    assert named <= targets, sorted(named - targets)


def test_make_test_runs_what_the_tests_section_says():
    """The Tests section listed three of the nine C test programs and left out tests/urdf/."""
    tests = flat(section("Tests"))
    prerequisites = re.search(r"^test: (.*)$", MAKEFILE, re.M).group(1).split()
    said = {
        "deps": None,
        "c-binaries": None,
        "lint": "`lint`",
        "check-generated": "`check-generated`",
        "misra": "`make misra`",
        "test-c": "the CMocka runtime tests",
        "test-sanitize": "AddressSanitizer and UndefinedBehaviorSanitizer",
        "test-fuzz-replay": "the replay of the fuzz corpus",
        "test-configs": "every configuration of the runtime",
        "test-py": "pytest",
    }
    assert set(prerequisites) <= set(said), sorted(set(prerequisites) - set(said))
    for p in prerequisites:
        assert said[p] is None or said[p] in tests, p
    c_tests = makefile_var("C_TESTS")
    assert sorted(c_tests) == sorted(p.stem for p in (ROOT / "tests" / "runtime").glob("test_*.c"))
    missing = [t for t in c_tests if f"`{t}`" not in tests]
    assert not missing, f"README Tests: {missing}"
    folders = sorted(
        p.name for p in (ROOT / "tests").iterdir() if p.is_dir() and any(p.glob("test_*.py"))
    )
    assert all(f"`tests/{d}/`" in tests for d in folders), folders
    assert "`tests/test_*.py`" in tests and "`tests/test_readme.py`" in tests


def expand_braces(path):
    m = re.search(r"\{([^{}]*)\}", path)
    if not m:
        return [path]
    return [
        p
        for alt in m.group(1).split(",")
        for p in expand_braces(path[: m.start()] + alt + path[m.end() :])
    ]


TOP = "bench|cmake|docs|firmware|generated|generator|misra|models|runtime|scripts|templates|tests"


def test_the_paths_the_readme_names_exist():
    """Every repository path in a code span or a link (placeholders such as <model> left out),
    and every source file named by its bare name (the layout table's `mcs_band.c`)."""
    paths = set()
    for span in re.findall(r"`([^`\n]+)`", README):
        paths.update(w.rstrip(",;:)") for w in span.split() if re.match(rf"({TOP})/", w))
    paths.update(re.findall(rf"\]\(((?:{TOP})/[^)]+)\)", README))
    checked = [p for p in sorted(paths) if "<" not in p and "..." not in p]
    assert len(checked) > 100
    missing = [p for p in checked if not any(list(ROOT.glob(e)) for e in expand_braces(p))]
    assert not missing, missing
    files = {
        p.name
        for p in ROOT.rglob("*")
        if p.is_file() and not p.relative_to(ROOT).parts[0] in ("build", "out", ".git")
    }
    bare = set(re.findall(r"`([A-Za-z0-9_]+\.(?:c|h|py|S|ld|cmake))`", README))
    assert not bare - files, sorted(bare - files)


def test_the_layout_table_names_every_file_of_its_folders():
    """The rows of scripts/, firmware/, bench/, cmake/, docs/ (its texts), models/urdf/ and
    tests/ name each of their files (bench_step.c, gen_chain.py, board_io.h, the specification
    and the data sheet were not named)."""
    layout = section("Layout")
    rows = {r[0]: r[1] for r in table_rows(layout)}
    expected = {
        "`scripts/`": [p.name for p in (ROOT / "scripts").iterdir() if p.is_file()],
        "`firmware/`": [p.name for p in (ROOT / "firmware").iterdir() if p.is_file()],
        "`bench/`": [p.name for p in (ROOT / "bench").glob("*.[pc]*") if p.is_file()],
        "`cmake/`": [p.name for p in (ROOT / "cmake").iterdir() if p.is_file()],
        "`docs/`": [  # the files at its top and its folders
            p.name + "/" if p.is_dir() else p.name
            for p in (ROOT / "docs").iterdir()
            if p.suffix == ".md" or (p.is_dir() and p.name != "data")
        ]
        + ["data/puma560.md"],
        "`models/*.yaml`": [p.name for p in (ROOT / "models" / "urdf").glob("*.urdf")],
        "`tests/`": [
            p.name + "/"
            for p in (ROOT / "tests").iterdir()
            if p.is_dir() and not p.name.startswith((".", "_"))
        ],
    }
    for row, names in expected.items():
        assert names, row
        missing = sorted(n for n in names if f"`{n}`" not in rows[row])
        assert not missing, f"README layout, {row}: {missing}"


def test_the_benchmark_problems_are_what_make_bench_runs():
    """The targets the README relies on (they were a file outside the repository): P1, P2a and P3
    are bench/run.py's models and durations, P2b its locks and P4 the anchor chain; the
    firmware target is the bound e2e/test_firmware_qemu.py checks."""
    bench = BENCH_RUN.read_text()
    quick = section("make bench")
    lines = {
        m.group(1): flat(m.group(2))
        for m in re.finditer(r"^- (P\w+): (.*(?:\n  .*)*)", quick, re.M)
    }
    assert sorted(lines) == ["P1", "P2a", "P2b", "P3", "P4"], sorted(lines)
    problems = re.findall(r'\(\s*"(P\w+)",\s*"(\w+)",\s*([\d.]+),', bench)
    assert sorted(p for p, _, _ in problems) == ["P1", "P2a", "P3"]
    for problem, model, t_end in problems:
        assert f"(`{model}`" in lines[problem] and f", {float(t_end):g} s" in lines[problem]
    # the targets bench/run.py prints (P2a: it prints the target before it was met, 2.4 ms)
    for problem in ("P1", "P2b", "P3"):
        printed = re.search(rf'print\("TARGETS {problem} .*?\(target ([^"]*)', bench).group(1)
        for number in re.findall(r"\d[\d.e-]*", printed):
            assert number in lines[problem], (problem, number, lines[problem])
    locks = re.search(r'"locks", method, .*? "(q2@[\d.]+)", "(q3@[\d.]+)"', bench).groups()
    assert all(f"`{lock}`" in lines["P2b"] for lock in locks)
    assert "`bench/models/anchor_chain.yaml`" in lines["P4"] and "60 s" in lines["P4"]
    assert "anchor_chain_60s" in bench and "chain_modes" in bench
    test = FIRMWARE_TEST.read_text()
    flash = re.search(r'assert s\["flash"\] <= (\d+) \* KIB', test).group(1)
    ram = re.search(r'assert s\["ram"\] <= (\d+) \* KIB', test).group(1)
    assert f"{flash} KiB of flash and {ram} KiB of RAM" in flat(quick)
    assert f"within the {flash} KiB and {ram} KiB of the target" in flat(section("Firmware"))


def test_the_cppcheck_version_is_debians():
    m = re.search(r"Debian's `cppcheck` ([\d.]+)", README)
    assert m
    if not shutil.which("dpkg-query"):
        pytest.skip("no dpkg-query")
    version = subprocess.run(
        ["dpkg-query", "-W", "-f=${Version}", "cppcheck"], capture_output=True, text=True
    )
    if version.returncode != 0 or not version.stdout:
        pytest.skip("cppcheck is not installed")
    assert version.stdout.split(":")[-1].startswith(m.group(1) + "-"), version.stdout


def test_the_generated_header_declares_what_the_readme_says():
    """The sections "Generated code" and "Firmware" name the header's kernels and macros
    (`m_K_c`, `M_NX`, `<NAME>_SIM_MEMORY`, ...): the slider-crank's header declares each; the
    descriptor ABI is the runtime's (the README said 8 after it became 9); the slider-crank's
    nonzero counts. The kernels of the linearization set and of outputs, which the slider-crank's
    generated/ leaves out (it has no outputs:, no kernels: [linearization]), are the spatial
    pendulum's."""
    header = (ROOT / "generated" / "slider_crank" / "slider_crank.h").read_text()
    pendulum = (ROOT / "generated" / "spatial_pendulum" / "spatial_pendulum.h").read_text()
    generated = section("Generated code")
    names = [
        m.group(1) for s in code_spans(generated) for m in [re.match(r"m_(\w+)(?:\(|$)", s)] if m
    ]
    names = [n for n in names if n not in ("rows", "cols")]  # the descriptor's m_rows, m_cols
    assert len(names) > 15
    missing = [
        n
        for n in names
        if not re.search(rf"\bslider_crank_{n}\b", header)
        and not (
            n in ("M_x", "gamma_x", "outputs", "outputs_x")
            and re.search(rf"\bspatial_pendulum_{n}\b", pendulum)
        )
    ]
    assert not missing, missing
    macros = [
        m.group(1) for s in code_spans(generated) for m in [re.match(r"M_([A-Z_]+)$", s)] if m
    ]
    macros += re.findall(r"<NAME>_([A-Z][A-Z_]*)", README)
    assert len(set(macros)) > 8
    missing = [
        m for m in sorted(set(macros)) if not re.search(rf"#define SLIDER_CRANK_{m}\b", header)
    ]
    assert not missing, missing
    abi = re.search(
        r"#define MCS_MODEL_ABI_VERSION (\d+)",
        (ROOT / "runtime" / "include" / "mcs" / "mcs_model.h").read_text(),
    ).group(1)
    assert re.findall(r"descriptor ABI (\d+)", README) == [abi]
    a_nnz = re.search(r"#define SLIDER_CRANK_A_NNZ (\d+)", header).group(1)
    m_nnz = re.search(r"#define SLIDER_CRANK_M_NNZ (\d+)", header).group(1)
    n, m = header_sizes("slider_crank")
    text = flat(README)
    assert f"the slider-crank: {a_nnz} of A's {n * m} entries, {m_nnz} of M's {n * n}" in text
    assert f"`M_nz`: {a_nnz} and {m_nnz} of {n * m} and {n * n} entries" in text


def source_constant(path, pattern):
    return re.search(pattern, (ROOT / path).read_text(), re.M).group(1)


def test_the_limits_the_readme_quotes_are_the_codes():
    """The expression language's functions, the longest names (a damped URDF joint's was 55 after
    parameters were limited to 57), the size from which a simulator is built with LAPACK, the
    products handed to the BLAS, and the runtime's call bounds."""
    text = flat(README)
    expr = (ROOT / "generator" / "mcsgen" / "model" / "expr.py").read_text()
    functions = re.findall(r'^    "(\w+)": \(sp\.', expr, re.M)
    quoted = re.search(r"the functions `([a-z0-9 ]+)`, and `pi`", text).group(1).split()
    assert quoted == functions and 'CONSTANTS = {"pi": sp.pi}' in expr
    reader = "generator/mcsgen/model/reader.py"
    longest = int(source_constant(reader, r"^MAX_NAME = (\d+)"))
    parameter = longest - len(source_constant(reader, r'^PARAM_PREFIX = "(\w+)"'))
    damping = source_constant("generator/mcsgen/urdf/__init__.py", r'^DAMPING = "(\w+)"')
    assert f"longer than {longest} characters (a parameter: {parameter})" in text
    assert f"not be longer than {parameter} characters (its member's {longest})" in text
    assert (
        f"a name is cut to {longest} characters (the generator's limit; "
        f"{parameter - len(damping)} for a damped joint, whose parameter `{damping}<joint>` "
        f"may have {parameter})"
    ) in text
    below = source_constant("generator/mcsgen/build.py", r"^PORTABLE_BELOW = (\d+)")
    assert f"a model with fewer than {below} coordinates with the portable backend" in text
    gemm = source_constant("runtime/src/linalg/mcs_linalg.h", r"^#define MCS_LA_GEMM_MIN (\d+)\.0")
    assert f"products of at least {gemm} multiply-adds" in text
    sim = "runtime/src/sim/mcs_options.c"  # the options' defaults
    steps = int(source_constant(sim, r"opt->max_steps = (\d+)L;"))
    attempts = source_constant(sim, r"opt->max_attempts = (\d+);")
    exponent = "⁰¹²³⁴⁵⁶⁷⁸⁹"[len(str(steps)) - 1]
    assert steps == 10 ** (len(str(steps)) - 1)
    assert f"`mcs_sim_advance`, default 10{exponent})" in text
    assert f"rejected ones included, default {attempts})" in text


def python_set(source, name):
    """The quoted strings of `NAME = {...}` or `NAME = (...)` in a module's source."""
    block = re.search(rf"^{name} = [{{(](.*?)[}})]\n", source, re.M | re.S).group(1)
    return re.findall(r'"(\w+)"', block)


def yaml_keys(block, indent=""):
    return re.findall(rf"^{indent}(\w+):", block, re.M)


def test_the_model_file_schema_is_the_loaders():
    """The model-file examples' keys, the joint table and the force types, the simulation and
    firmware settings and the kernel sets are the loader's (model/loader.py, joints.py,
    forces.py, kernel_sets.py)."""
    model = ROOT / "generator" / "mcsgen" / "model"
    loader = (model / "loader.py").read_text()
    reference = section("Model-file reference")
    example = re.search(r"```yaml\n(.*?)```", reference, re.S).group(1)
    assert set(yaml_keys(example)) | {"firmware"} == set(python_set(loader, "TOP_KEYS"))
    simulation = example[example.index("\nsimulation:") : example.index("\nswitches:")]
    sim_block = loader[loader.index("SIM_DEFAULTS = {") :]
    sim_keys = set(re.findall(r'^    "(\w+)":', sim_block[: sim_block.index("}")], re.M))
    assert set(yaml_keys(simulation, "  ")) == sim_keys
    bodies = reference[reference.index("### Bodies and joints") :]
    body_example = re.search(r"```yaml\n(.*?)```", bodies, re.S).group(1)
    assert set(yaml_keys(body_example)) <= set(python_set(loader, "BODY_TOP_KEYS"))
    forces = set(re.findall(r"\{type: (\w+),", body_example))
    assert forces == set(python_set((model / "forces.py").read_text(), "FORCE_TYPES"))
    # the joint table: every spatial type with 003 Table 1's rows, and the planar types
    joints = (model / "joints.py").read_text()
    spatial = re.findall(r'_spatial\(\s*"(\w+)",\s*\(([^)]*)\)', joints)
    planar = re.findall(r'_planar\(\s*"(\w+)"', joints)
    rows = {r[0]: r[1] for r in table_rows(bodies[bodies.index("| joint type") :].split("\n\n")[0])}
    assert [k.strip("`") for k in rows if not k.startswith("planar")] == [n for n, _ in spatial]
    for name, table1 in spatial:
        table1 = [
            r for r in re.findall(r'"(\w+)"', table1) if r in ("x", "y", "z", "Rx", "Ry", "Rz")
        ]
        assert rows[f"`{name}`"].startswith(" ".join(table1)), name
    (planar_row,) = [k for k in rows if k.startswith("planar")]
    assert re.findall(r"`(\w+)`", planar_row) == planar
    # firmware: settings and kernel sets
    firmware = section("Firmware")
    fw_example = re.search(r"```yaml\n(firmware:.*?)```", firmware, re.S).group(1)
    fw_keys = set(yaml_keys(fw_example, "  "))
    extra = set(
        re.search(r"firmware_keys = \{([^}]*)\}", loader).group(1).replace('"', "").split(", ")
    )
    assert extra <= fw_keys <= sim_keys | extra, (fw_keys, extra)
    sets = python_set((model / "kernel_sets.py").read_text(), "SETS")
    quoted = re.search(
        r"The sets \(`generator/mcsgen/model/kernel_sets.py`\): (.*?)\. ", flat(firmware)
    )
    assert re.findall(r"`(\w+)` \(", quoted.group(1)) == sets


def test_the_summary_fields_are_the_simulators():
    """The section "Output formats" lists the fields of `simulate --json`'s summary: each is a
    key the simulator writes (runtime/app/mcs_simulate_summary.c), as are those named
    elsewhere."""
    source = (ROOT / "runtime" / "app" / "mcs_simulate_summary.c").read_text()
    written = set(re.findall(r'\\"(\w+)\\":', source))
    listed = re.search(r"The summary of `simulate --json` is a JSON object with `([^`]*)`", README)
    fields = [re.match(r"\w+", f.strip()).group() for f in listed.group(1).split(",")]
    assert len(fields) > 15
    fields += ["steps_by_method", "simulator"]  # "Integrators ...", "Large models"
    assert not set(fields) - written, sorted(set(fields) - written)


def test_every_status_and_compile_time_part_is_documented():
    """Every `MCS_ERR_*` of mcs_status.h is in README's table of what a controller does with each
    or the sentence below it (MCS_ERR_NO_DENSE was in neither), every `MCS_WITH_*` of
    mcs_config.h is explained, and the README names no status or part the runtime does not
    have."""
    include = ROOT / "runtime" / "include" / "mcs"
    statuses = set(re.findall(r"^\s+(MCS_ERR_\w+)", (include / "mcs_status.h").read_text(), re.M))
    parts = set(re.findall(r"#ifndef (MCS_WITH_\w+)", (include / "mcs_config.h").read_text()))
    assert len(statuses) > 10 and len(parts) > 5
    firmware = section("Firmware")
    table, after = firmware[firmware.index("| status | meaning") :].split("\n\n")[:2]
    tabled = {s for row in table_rows(table) for s in re.findall(r"MCS_ERR_\w+", row[0])}
    # "Statics and modes (...) add MCS_ERR_SINGULAR_JACOBIAN, ...", below the table
    tabled |= set(re.findall(r"MCS_ERR_\w+", re.split(r"\.\s", after)[0]))
    assert statuses == tabled, (sorted(statuses - tabled), sorted(tabled - statuses))
    assert set(re.findall(r"MCS_ERR_\w+", README)) <= statuses
    named = set(re.findall(r"MCS_WITH_[A-Z0-9_]+", README))
    assert named == parts, (sorted(parts - named), sorted(named - parts))


def test_the_python_api_names_are_the_packages():
    """The attributes "Python API" uses (`run.qd`, `eq.reactions`, `modes.zeta`,
    `model.parameters`, `solver.statics`, `mcsgen.load`, ...) exist in generator/mcsgen/api.py
    and the package's __init__."""
    tree = ast.parse((ROOT / "generator" / "mcsgen" / "api.py").read_text())
    members = {}
    for node in tree.body:
        if isinstance(node, ast.ClassDef):
            members[node.name] = {
                getattr(item, "name", None) or getattr(getattr(item, "target", None), "id", None)
                for item in node.body
            }
    package = (ROOT / "generator" / "mcsgen" / "__init__.py").read_text()
    classes = {
        "run": "Run",
        "e": "Event",
        "eq": "Statics",
        "modes": "Modes",
        "model": "Mechanism",
        "solver": "Solver",
    }
    api = section("Python API")
    used = re.findall(r"\b(run|e|eq|modes|model|solver|mcsgen)\.([a-z_]+)\b", api)
    assert len(used) > 30
    for obj, name in used:
        if obj == "mcsgen":
            assert name == "pth" or re.search(rf"\b{name}\b", package), name
        else:
            assert name in members[classes[obj]], f"{obj}.{name}"


def test_the_defaults_quoted_in_the_text_are_the_options_tables():
    """`--sing-watch` (default 0.05), `rank_tol` (τ_rank, default 1e-9 ...): the prose quotes the
    defaults of the options table (which test_options.py checks against the runtime)."""
    block = README[README.index("<!-- simulate options") : README.index("<!-- end of simulate")]
    table = {re.match(r"`--([\w-]+)", r[0]).group(1): r[1] for r in table_rows(block)}
    text = flat(README)
    quoted = re.findall(r"`--([\w-]+)` \((?:[^()]*?, )?default ([\d.e+-]+)", text)
    quoted += [
        (name.replace("_", "-"), value)
        for name, value in re.findall(r"`(\w+)` \((?:[^()`]*?, )?default ([\d.e+-]+)", text)
        if name.replace("_", "-") in table
    ]
    assert len(quoted) >= 6
    for name, value in quoted:
        assert table[name].split()[0] == value, (name, value, table[name])


def test_the_fuzzing_section_is_the_makefiles_and_the_harness():
    """The section "Fuzzing": the defaults of `make fuzz`, its variants, the harness's models
    and its number of calls are the Makefile's and tests/fuzz/fuzz_runtime.c's."""
    fuzzing = flat(section("Fuzzing"))
    seconds = re.search(r"^FUZZ_SECONDS \?= (\d+)", MAKEFILE, re.M).group(1)
    jobs = re.search(r"^FUZZ_JOBS \?= (\d+)", MAKEFILE, re.M).group(1)
    assert f"`make fuzz [FUZZ_SECONDS={seconds}] [FUZZ_JOBS={jobs}]`" in fuzzing
    timeout = re.search(r"-timeout=(\d+)", MAKEFILE).group(1)
    assert f"`-timeout={timeout}`" in fuzzing
    variants = makefile_var("FUZZ_VARIANTS")

    assert f"for all {WORDS[len(variants)]} variants" in fuzzing
    harness = (ROOT / "tests" / "fuzz" / "fuzz_runtime.c").read_text()
    ops = int(re.search(r"#define MAX_OPS (\d+)", harness).group(1))
    assert f"then up to {WORDS[ops]} calls" in fuzzing
    models = re.findall(r"&(\w+)_model", harness[harness.index("models[NMODELS]") :][:300])
    assert sorted(models) == sorted(makefile_var("FUZZ_MODELS"))
    names = {"spatial_pendulum": "spatial pendulum", "slider_crank": "slider-crank"}
    names["double_four_bar"] = "double four-bar"
    listed = re.search(r"into a model \(([^)]*)\)", fuzzing).group(1)
    assert listed == ", ".join(names[m] for m in models)


def test_the_slow_tier_is_what_the_tests_page_says():
    """docs/develop/tests.md, "The slow tier": its count of the tests make test leaves to make
    test-slow is pytest's (marked `slow`, directly or through conftest.over_models), and the two
    targets select them so."""
    page = (ROOT / "docs" / "develop" / "tests.md").read_text()
    said = re.search(r"`make test` leaves (\d+) of the ([\d ]+) Python tests", page)
    assert said, "docs/develop/tests.md: the slow tier's count"

    def collected(marks):
        proc = subprocess.run(
            ["/usr/bin/python3", "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider",
             "-m", marks, "tests"],
            cwd=ROOT, capture_output=True, text=True,
        )  # fmt: skip
        found = re.search(r"^(\d+)/(\d+) tests collected", proc.stdout, re.M)
        assert found, proc.stdout[-2000:] + proc.stderr[-2000:]
        return int(found.group(1)), int(found.group(2))

    slow, total = collected("slow")
    assert (slow, total) == (int(said.group(1)), int(said.group(2).replace(" ", ""))), (slow, total)
    assert collected("not slow")[0] == total - slow
    rule = lambda target: MAKEFILE[MAKEFILE.index(f"\n{target}:") :].split("\n\n")[0]  # noqa: E731
    assert '-m "not slow" tests' in rule("test-py") and "-m slow tests" in rule("test-slow")
    assert "test-configs-edges" in rule("test-slow")
