"""MISRA C:2012 check of the runtime and of generated models (Cppcheck's MISRA addon), with the
project's deviations (misra/deviations.txt) applied. `./mcsgen misra`, `make misra`, and
`./mcsgen generate` (unless --no-misra) and `./mcsgen audit` use it; docs/reference/misra.md.

A finding is deviated only by a line of the deviations file that names its rule, a file pattern
that is not "everything" and, optionally, a regular expression the flagged source line must
match; every line carries a justification. Whatever no line covers is a finding.
"""

import fnmatch
import os
import re
import shutil
import subprocess
import sys
import tempfile
from bisect import bisect_right
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

from .errors import McsError
from .paths import GENERATED, ROOT, RUNTIME, RUNTIME_SRC, runtime_c_files

DEVIATIONS = ROOT / "misra" / "deviations.txt"

# MISRA C:2012 (Amendment 1) categories of the rules a deviation may name: advisory rules may be
# deviated with a justification; required ones only where following them makes the code worse,
# which the justification must argue. Mandatory rules are never deviated.
ADVISORY = {
    "1.2", "2.3", "2.4", "2.5", "2.6", "2.7", "4.2", "5.9", "8.7", "8.9", "8.11", "8.13",
    "10.5", "11.4", "11.5", "12.1", "12.3", "12.4", "13.3", "13.4", "15.1", "15.4", "15.5",
    "17.5", "17.8", "18.4", "18.5", "19.2", "20.1", "20.5", "20.10", "21.12",
}  # fmt: skip
MANDATORY = {"9.1", "12.5", "13.6", "17.3", "17.4", "17.6", "19.1", "21.13", "21.17", "21.18",
             "21.19", "21.20", "22.2", "22.4", "22.5", "22.6"}  # fmt: skip

RUNTIME_SOURCES = runtime_c_files()
# the two linear-algebra backends define the same functions: exactly one is linked, so each is
# checked in a set of its own (rule 8.6 holds in each)
BACKEND_SETS = {
    "lapack": [p for p in RUNTIME_SOURCES if p.name != "mcs_linalg_portable.c"],
    "portable": [p for p in RUNTIME_SOURCES if p.name != "mcs_linalg_lapack.c"],
}


@dataclass(frozen=True)
class Finding:
    path: str  # relative to the checkout when inside it
    line: int
    column: int
    rule: str  # "15.5"

    def __str__(self):
        return f"{self.path}:{self.line}:{self.column}: MISRA C:2012 rule {self.rule}"


@dataclass
class Deviation:
    rule: str
    files: str  # fnmatch pattern, relative to the checkout
    where: str  # regular expression on the flagged line, or "*"
    why: str
    lineno: int
    used: int = 0

    def covers(self, finding, source_line):
        if finding.rule != self.rule or not fnmatch.fnmatch(finding.path, self.files):
            return False
        return self.where == "*" or re.search(self.where, source_line) is not None


@dataclass
class Result:
    scope: str  # "runtime" or a model name
    findings: list = field(default_factory=list)  # not deviated
    deviated: dict = field(default_factory=dict)  # rule -> count
    pieces: int = 1  # Cppcheck runs its C was checked in (a large model's: see split_source)

    def summary(self):
        rules = ", ".join(f"{r} ({n})" for r, n in sorted(self.deviated.items(), key=_rule_key))
        dev = sum(self.deviated.values())
        text = f"MISRA C:2012: findings: {len(self.findings)}, deviations: {dev}"
        return text + (f" (rules {rules})" if rules else "")


def _rule_key(item):
    return tuple(int(p) for p in item[0].split("."))


def load_deviations(path=DEVIATIONS):
    """The deviations file: `rule | files | where | justification` per line (fields separated by
    " | ", so a pattern may use "|" without spaces), # comments."""
    out = []
    for lineno, raw in enumerate(Path(path).read_text().splitlines(), 1):
        text = raw.strip()
        if not text or text.startswith("#"):
            continue
        parts = [p.strip() for p in re.split(r"\s\|\s", text, maxsplit=3)]
        where = f"{path}:{lineno}"
        if len(parts) != 4 or not all(parts):
            raise McsError(f"{where}: expected 'rule | files | where | justification'")
        rule, files, pattern, why = parts
        if not re.fullmatch(r"\d+\.\d+", rule):
            raise McsError(f"{where}: '{rule}' is not a MISRA C:2012 rule number")
        if rule in MANDATORY:
            raise McsError(f"{where}: rule {rule} is mandatory and cannot be deviated")
        if files in ("*", "**", "*.c", "*.h", "**/*") or files.endswith("/**"):
            raise McsError(f"{where}: '{files}' is a blanket file scope; name the files")
        if len(why.split()) < 6:
            raise McsError(f"{where}: the justification must be a sentence")
        if pattern != "*":
            try:
                re.compile(pattern)
            except re.error as exc:
                raise McsError(f"{where}: bad pattern {pattern!r}: {exc}") from None
        out.append(Deviation(rule, files, pattern, why, lineno))
    return out


def cppcheck_version():
    exe = shutil.which("cppcheck")
    if exe is None:
        raise McsError("cppcheck is not installed (make deps installs it)")
    return subprocess.run([exe, "--version"], capture_output=True, text=True).stdout.strip()


_FINDING = re.compile(r"^(.*?):(\d+):(\d+):.*\[misra-c2012-(\d+\.\d+)\]$")


# the firmware example (runtime/app; the host programs there print, and are not firmware) with
# the slider-crank as its model, as `make firmware` builds it
FIRMWARE_EXAMPLE = RUNTIME / "app" / "mcs_firmware_example.c"
FIRMWARE_MODEL = "slider_crank"


def run_cppcheck(sources, includes, jobs=1, all_configs=True, extra=(), build_dir=None):
    """Cppcheck with the MISRA addon over `sources` (checked together, C99): the findings.
    all_configs=False checks only the default configuration (double, LAPACK): what generated
    models need, since their float build differs only in mcs_config.h's macros, which the
    runtime's check covers in every configuration."""
    cppcheck_version()
    with tempfile.TemporaryDirectory(prefix="mcs-misra-") as tmp:
        cmd = ["cppcheck", "--addon=misra", "--std=c99", "--quiet", f"-j{jobs}"]
        # the addon (Python, half of the time) on the interpreter mcsgen runs on, not the first
        # python3 on PATH: Debian's is built with profile-guided optimization, the addon ran
        # about 15 % faster on it than on a pyenv build
        cmd += [f"--addon-python={sys.executable}"] if sys.executable else []
        cmd += [f"--cppcheck-build-dir={build_dir or tmp}"]
        cmd += ["--template={file}:{line}:{column}: [{id}]"]
        if not all_configs:
            cmd.append("--max-configs=1")
        cmd += list(extra)
        cmd += [f"-I{p}" for p in includes] + [str(s) for s in sources]
        proc = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT)
    if proc.returncode != 0:
        raise McsError(f"cppcheck failed: {proc.stderr.strip()[:400]}")
    found = set()
    for line in proc.stderr.splitlines():
        m = _FINDING.match(line.strip())
        if m:
            path = Path(m.group(1))
            path = path.resolve().relative_to(ROOT) if path.resolve().is_relative_to(ROOT) else path
            found.add(Finding(str(path), int(m.group(2)), int(m.group(3)), m.group(4)))
    return sorted(found, key=lambda f: (f.path, f.line, f.column, f.rule))


def preprocesses(source, includes, extra=()):
    """Raise when `source` reaches an #error: Cppcheck 2.10 then skips the configuration without
    a word, and the check would pass having checked nothing (a model generated for another
    runtime ABI). The system C compiler's preprocessor decides; without one, nothing is said."""
    cc = shutil.which("cc")
    if cc is None:
        return
    cmd = [cc, "-E", "-std=c99", "-o", os.devnull] + [f"-I{p}" for p in includes]
    for arg in extra:
        cmd += ["-include", arg.split("=", 1)[1]] if arg.startswith("--include=") else [arg]
    proc = subprocess.run(cmd + [str(source)], capture_output=True, text=True, cwd=ROOT)
    errors = [line.strip() for line in proc.stderr.splitlines() if "#error" in line]
    if proc.returncode != 0 and errors:
        raise McsError(f"MISRA check: {errors[0]} (Cppcheck would skip the file and check nothing)")


def apply_deviations(scope, findings, deviations, base=None):
    """Split findings into deviated (counted by rule) and not. base: the directory that holds
    files named generated/<model>/<file> (a model written elsewhere)."""
    result = Result(scope)
    lines = {}
    for f in findings:
        if f.path not in lines:
            p = Path(f.path) if Path(f.path).is_absolute() else ROOT / f.path
            if base is not None:
                p = Path(base) / Path(f.path).name
            lines[f.path] = p.read_text().splitlines() if p.exists() else []
        text = lines[f.path][f.line - 1] if 0 < f.line <= len(lines[f.path]) else ""
        dev = next((d for d in deviations if d.covers(f, text)), None)
        if dev is None:
            result.findings.append(f)
        else:
            dev.used += 1
            result.deviated[f.rule] = result.deviated.get(f.rule, 0) + 1
    return result


def check_all(model_dirs, runtime=True, deviations=None, workers=None, piece_bytes=None):
    """The runtime (optionally) and each generated model directory, `workers` Cppcheck runs at a
    time (default: one per core): one Result per scope, the runtime first. A model's .c larger
    than piece_bytes (default PIECE_BYTES) is checked in pieces (split_source), every piece a
    run of its own; 0 checks every model whole."""
    deviations = load_deviations() if deviations is None else deviations
    workers = WORKERS if workers is None else workers
    # Cppcheck runs in the checkout (cwd=ROOT): a directory given relative to the caller's
    # working directory (`generate --out gen`) must not be read relative to it
    model_dirs = [Path(d).resolve() for d in model_dirs]
    piece_bytes = PIECE_BYTES if piece_bytes is None else piece_bytes
    includes = [RUNTIME / "include", RUNTIME_SRC]
    runs = []  # (scope index, work estimate (bytes squared), function of no arguments -> findings)
    merges = []  # per scope: function of its runs' findings -> findings

    if runtime:

        def runtime_run():
            # one build directory for both backend sets: the second pass reuses the analysis
            # of the files they share and analyses only its own backend. The runtime is the
            # longest run (100 s of one core, every configuration): its files on every core
            # (-j), the same findings (its whole-program rules read the build directory)
            found = set()
            with tempfile.TemporaryDirectory(prefix="mcs-misra-runtime-") as shared:
                for sources in BACKEND_SETS.values():
                    found.update(run_cppcheck(sources, includes, jobs=workers, build_dir=shared))
            return sorted(found, key=_finding_key)

        def example_run():
            model_dir = GENERATED / FIRMWARE_MODEL
            upper = FIRMWARE_MODEL.upper()
            defines = [f"-DMCS_APP_MODEL={FIRMWARE_MODEL}_model",
                       f"-DMCS_APP_PARAMS={FIRMWARE_MODEL}_default_params",
                       f"-DMCS_APP_NX={upper}_NX",
                       f"-DMCS_APP_SIM_MEMORY={upper}_SIM_MEMORY",
                       f"-DMCS_APP_MAX_DOF={upper}_FIRMWARE_MAX_DOF",
                       f"-DMCS_APP_FEATURES={upper}_FIRMWARE_FEATURES",
                       f"--include={model_dir / (FIRMWARE_MODEL + '.h')}"]  # fmt: skip
            preprocesses(FIRMWARE_EXAMPLE, [RUNTIME / "include", model_dir], defines)
            found = run_cppcheck([FIRMWARE_EXAMPLE], [RUNTIME / "include", model_dir],
                                 extra=defines)  # fmt: skip
            return [f for f in found if f.path.startswith("runtime/")]

        size = sum(p.stat().st_size for p in RUNTIME_SOURCES)
        runs += [(0, size**2, runtime_run), (0, 0, example_run)]
        merges.append(lambda outputs: sorted(set().union(*outputs), key=_finding_key))
    pieces = []
    for d in model_dirs:
        model_runs, merge = _model_plan(Path(d), piece_bytes)
        runs += [(len(merges), size, run) for size, run in model_runs]
        merges.append(merge)
        pieces.append(len(model_runs))

    # the largest runs first, so that the last to finish are short ones
    order = sorted(range(len(runs)), key=lambda i: -runs[i][1])
    with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
        futures = {i: pool.submit(runs[i][2]) for i in order}
        outputs = [futures[i].result() for i in range(len(runs))]
    per_scope = [[] for _ in merges]
    for (scope, _, _), found in zip(runs, outputs):
        per_scope[scope].append(found)
    findings = [merge(found) for merge, found in zip(merges, per_scope)]
    results = []
    if runtime:
        results.append(apply_deviations("runtime", findings.pop(0), deviations))
    for d, own, n in zip(model_dirs, findings, pieces):
        result = apply_deviations(Path(d).name, own, deviations, base=Path(d))
        result.pieces = n
        results.append(result)
    return results


def check_model(model_dir, deviations=None, piece_bytes=None):
    """One generated model (<dir>/<name>.c with its header), on its own as firmware links it."""
    return check_all([model_dir], runtime=False, deviations=deviations,
                     piece_bytes=piece_bytes)[0]  # fmt: skip


def _result_key(model_dir) -> str:
    """What a model's result depends on: its C and headers, the runtime's public headers it
    includes, the deviations and Cppcheck's version."""
    import hashlib

    h = hashlib.sha256(cppcheck_version().encode())
    files = [DEVIATIONS, *sorted((RUNTIME / "include").rglob("*.h"))]
    files += sorted(Path(model_dir).glob("*.[ch]"))
    for f in files:
        h.update(f.name.encode() + b"\0" + f.read_bytes())
    return h.hexdigest()[:24]


def _result_file(model_dir) -> Path:
    from .paths import BUILD

    return BUILD / "misra" / f"{_result_key(model_dir)}.json"


def known_result(model_dir) -> Optional[Result]:
    """The result of an earlier check of these very bytes (check_model_once), or None."""
    import json

    try:
        kept = json.loads(_result_file(model_dir).read_text())
        findings = [Finding(**f) for f in kept["findings"]]
        return Result(kept["scope"], findings, kept["deviated"], kept["pieces"])
    except (OSError, ValueError, KeyError, TypeError):
        return None


def check_model_once(model_dir) -> Result:
    """check_model with the deviations file's rules, kept per generated file: the same bytes
    (and headers, deviations, Cppcheck) are checked once (a Stewart platform's C took 11
    minutes), their result read back after."""
    import json

    known = known_result(model_dir)
    if known is not None:
        return known
    result = check_model(model_dir)
    try:
        path = _result_file(model_dir)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        kept = dict(result.__dict__, findings=[f.__dict__ for f in result.findings])
        tmp.write_text(json.dumps(kept))
        os.replace(tmp, path)
    except OSError:
        pass  # not kept: checked again next time
    return result


def _model_plan(model_dir, piece_bytes):
    """The Cppcheck runs that check one model, as (work estimate, function of no arguments that
    returns its findings), and the function that makes the model's own findings of their
    results: one run of its files, or one per piece of a large .c (split_source)."""
    sources = sorted(model_dir.glob("*.c"))
    if not sources:
        raise McsError(f"{model_dir}: no generated C to check")
    includes = [RUNTIME / "include", model_dir]
    for source in sources:
        preprocesses(source, includes)
    text = sources[0].read_text() if len(sources) == 1 else ""
    split = None
    if piece_bytes and len(text) > piece_bytes:
        header = "\n".join(p.read_text() for p in sorted(model_dir.glob("*.h")))
        split = split_source(text, piece_bytes, header)
    if split is None:
        size = sum(p.stat().st_size for p in sources)

        def whole():
            return run_cppcheck(sources, includes, all_configs=False)

        return [(size**2, whole)], lambda outputs: _own(model_dir, outputs[0])

    source = sources[0].resolve()
    headers = {p.resolve() for p in model_dir.glob("*.h")}

    def piece_run(piece):
        def run():
            with tempfile.TemporaryDirectory(prefix="mcs-misra-piece-") as tmp:
                path = Path(tmp) / source.name
                path.write_text(piece.text)
                found = run_cppcheck([path], includes, all_configs=False)
                here = path.resolve()
            out = []
            for f in found:
                p = Path(f.path) if Path(f.path).is_absolute() else ROOT / f.path
                if p.resolve() == here:
                    if f.line in piece.owned:  # its own lines only (not its prototypes')
                        out.append(Finding(str(source), f.line, f.column, f.rule))
                else:
                    out.append(f)
            return out

        return run

    def merge(outputs):
        # a finding on a line every piece holds (the header, the .c's shared part) is a finding
        # of the whole file when one piece reports it, except for the rules that say something
        # is not used anywhere (2.3, 2.4, 2.5): those when every piece reports it
        count = {}
        for found in outputs:
            for f in set(found):
                count[f] = count.get(f, 0) + 1
        kept = []
        for f, n in count.items():
            p = Path(f.path) if Path(f.path).is_absolute() else ROOT / f.path
            everywhere = p.resolve() in headers or (
                p.resolve() == source and f.line in split.shared
            )
            if f.rule not in UNUSED_RULES or not everywhere or n == len(outputs):
                kept.append(f)
        return _own(model_dir, kept)

    return [(piece.work, piece_run(piece)) for piece in split.pieces], merge


def _own(model_dir, found):
    """The findings in the model's own files, named generated/<model>/<file> wherever they were
    written; the runtime headers it includes are the runtime's findings, counted there."""
    own = set()
    for f in found:
        p = Path(f.path) if Path(f.path).is_absolute() else ROOT / f.path
        if p.resolve().parent == model_dir.resolve():
            own.add(Finding(f"generated/{model_dir.name}/{p.name}", f.line, f.column, f.rule))
    return sorted(own, key=_finding_key)


def _finding_key(f):
    return (f.path, f.line, f.column, f.rule)


# ---- a large model in pieces ------------------------------------------------------------------
# One Cppcheck run takes time that grows faster than the size of a file (the addon's rule 8.2
# walks the file's whole token list once for every pointer variable) and of each function (value
# flow through a kernel of a thousand straight lines), on one core: 340 s and 1.7 GB for a 7-DOF
# arm's 1.9 MB of C. A model's .c above PIECE_BYTES is therefore checked in pieces of about that
# size, each a Cppcheck run of its own, WORKERS at a time (129 s for the arm on 2 cores). A piece
# is the whole file with the functions of the other pieces blanked out: every line keeps its
# number and column, so findings need no mapping (split_source says what goes where).

PIECE_BYTES = 100_000
# the cores this process may run on (a container's, not the machine's), at most 8
_CORES = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
WORKERS = max(1, min(_CORES or 1, 8))
# rules that report something as not used anywhere in the file: a piece reports it when its own
# functions do not use it, so on a line every piece holds it is a finding when all pieces say so
UNUSED_RULES = {"2.3", "2.4", "2.5"}

_TOKEN = re.compile(
    r"(?P<comment>/\*.*?\*/|//[^\n]*)"
    r"|(?P<directive>^[ \t]*#(?:\\\n|[^\n])*)"  # preprocessor lines, continued or not
    r"|\"(?:\\.|[^\"\\\n])*\"|'(?:\\.|[^'\\\n])*'"  # string and character literals
    r"|[A-Za-z_]\w*|\.?\d(?:[eEpP][+-]|[\w.])*|\S",
    re.S | re.M,
)


@dataclass
class _Item:
    """A top-level item of a C file: a function definition, a declaration or a directive."""

    first: int  # its lines, 1-based, inclusive
    last: int
    names: set  # the identifiers it uses (not in comments or literals)
    function: Optional[str] = None  # the function it defines
    static: bool = False
    returns_void: bool = False
    signature: str = ""  # a definition's text before its body
    params: tuple = ()  # a definition's parameter names
    tokens: tuple = ()  # a definition's tokens
    declares: set = field(default_factory=set)  # what a declaration declares


@dataclass
class Piece:
    text: str  # the source: the original's lines, or empty ones, or prototypes
    owned: set  # the lines whose findings are the piece's to report
    work: int = 0  # an estimate of its cost: Cppcheck's grows as the square of a function's size


@dataclass
class Split:
    pieces: list  # of Piece
    shared: set  # the lines every piece holds


def _top_level_items(text):
    """The top-level items of generated C, or None where the file is not as plain as the
    generator writes it (two items on one line, an unterminated item)."""
    starts = [0] + [m.end() for m in re.finditer("\n", text)]

    def line(offset):
        return bisect_right(starts, offset)

    items, tokens = [], []  # tokens of the item being read: (text, offset)
    depth = paren = 0
    end = 0  # where the item being read ends so far
    body = None  # offset of a function body's "{"
    for m in _TOKEN.finditer(text):
        kind = m.lastgroup
        if kind == "comment":
            end = m.end() if tokens else end
            continue
        tok = m.group()
        if kind == "directive" and not tokens:
            items.append(_Item(line(m.start()), line(m.end() - 1), set(_IDENT.findall(tok))))
            continue
        tokens.append((tok, m.start()))
        end = m.end()
        if tok == "(":
            paren += 1
        elif tok == ")":
            paren -= 1
        elif tok == "{":
            if depth == 0 and paren == 0 and len(tokens) > 1 and tokens[-2][0] == ")":
                body = m.start()
            depth += 1
        elif tok == "}":
            depth -= 1
        if depth < 0 or paren < 0:
            return None
        if depth == 0 and paren == 0 and (tok == ";" or (tok == "}" and body is not None)):
            first, last = line(tokens[0][1]), line(end - 1)
            items.append(_make_item(text, tokens, first, last, body))
            tokens, body = [], None
    if tokens:
        return None
    for a, b in zip(items, items[1:]):
        if b.first <= a.last:
            return None
    return items


_IDENT = re.compile(r"\b[A-Za-z_]\w*")


def _make_item(text, tokens, first, last, body):
    names = {t for t, _ in tokens if _IDENT.fullmatch(t)}
    item = _Item(first, last, names)
    head = [t for t, off in tokens if body is None or off < body]
    if body is not None:  # a function definition: its name is the identifier before the "("
        k = head.index("(")
        item.function = head[k - 1]
        item.static = "static" in head[: k - 1]
        item.returns_void = [t for t in head[: k - 1] if t not in ("static", "inline")] == ["void"]
        item.signature = text[tokens[0][1] : body].rstrip()
        item.tokens = tuple(t for t, _ in tokens)
        item.params = tuple(arg[-1] for arg in _arguments(head, k) if _IDENT.fullmatch(arg[-1]))
        return item
    # a declaration: the object it declares is the name before its initializer or bounds (a
    # function's prototype names the function, which the item then uses)
    level, before, stop = 0, [], None
    for t in head:
        if level == 0 and t in ("=", ";", ","):
            stop = t
            break
        level += t in ("(", "{", "[")
        level -= t in (")", "}", "]")
        before.append(t)
    cut = next((i for i, t in enumerate(before) if t in ("[", "(")), len(before))
    if before[cut : cut + 2] == ["(", "*"]:  # a function pointer: "void (*name)(...)"
        cut = next((i for i in range(cut + 2, len(before)) if before[i] == ")"), cut)
    declared = [t for t in before[:cut] if _IDENT.fullmatch(t)]
    if stop == "," or not declared:  # several declarators: any name may be one
        item.declares = {t for t in head if _IDENT.fullmatch(t)} - _KEYWORDS
    else:
        item.declares = {declared[-1]}
    return item


def _arguments(tokens, k):
    """The comma-separated token lists between tokens[k] == "(" and its ")"."""
    args, current, level = [], [], 0
    for t in tokens[k + 1 :]:
        if level == 0 and t in (",", ")"):
            if current:
                args.append(current)
            if t == ")":
                break
            current = []
            continue
        level += t in ("(", "{", "[")
        level -= t in (")", "}", "]")
        current.append(t)
    return args


def _plain_calls(caller, callee):
    """Whether every use of callee in caller is a call that passes the caller's own parameters,
    unchanged (what is known of them at the call is then what the callee's piece knows)."""
    toks = caller.tokens
    for i, t in enumerate(toks):
        if t != callee:
            continue
        if i + 1 >= len(toks) or toks[i + 1] != "(":
            return False
        for arg in _arguments(toks, i + 1):
            if len(arg) != 1 or arg[0] not in caller.params:
                return False
    return True


_KEYWORDS = {
    "auto", "char", "const", "double", "enum", "extern", "float", "inline", "int", "long",
    "register", "restrict", "short", "signed", "sizeof", "static", "struct", "typedef", "union",
    "unsigned", "void", "volatile",
}  # fmt: skip


class _Classes:
    """Union-find over function names and "shared" (in every piece)."""

    def __init__(self):
        self.parent = {}

    def find(self, a):
        self.parent.setdefault(a, a)
        while self.parent[a] != a:
            self.parent[a] = self.parent[self.parent[a]]
            a = self.parent[a]
        return a

    def union(self, a, b):
        self.parent[self.find(a)] = self.find(b)


_SHARED = None  # the class of what every piece holds


def split_source(text, piece_bytes, header_text=None):
    """The pieces to check a generated .c in, each about piece_bytes, or None to check it whole
    (it is small, not as plain as the generator writes it, or does not split).

    A piece holds every line that is not a function definition (includes, macros, objects, the
    descriptor), the functions those use, and a share of the other functions; the lines of the
    rest are left empty, so every line has its number. Functions go to a piece in classes that
    keep together what a whole-file rule looks at across functions: a function and the
    functions it uses, unless the user is in every piece or the used one is a `static void`
    function that uses no other (its prototype, on its own lines, stands in for it elsewhere:
    the generator's kernel parts); and the functions that use one file-scope object (rule 8.9
    counts them). A piece's findings are those on its own lines: its functions' and the shared
    ones. UNUSED_RULES on a shared line count when every piece reports them."""
    items = _top_level_items(text)
    if items is None:
        return None
    functions = {it.function: it for it in items if it.function}
    if len(functions) != sum(1 for it in items if it.function):
        return None  # a name defined twice: not the generator's C
    # static file-scope objects (rule 8.9 counts the functions that use each), of the .c and of
    # the model's header (a static object there is one of each file that includes it)
    header_items = _top_level_items(header_text or "")
    if header_items is None:
        return None
    objects = set()
    for it in items + header_items:
        if not it.function and "static" in it.names and "typedef" not in it.names:
            objects |= it.declares
    defined = set(functions)
    objects -= defined
    uses = {name: (it.names & defined) - {name} for name, it in functions.items()}
    leaves = {
        name
        for name, it in functions.items()
        if it.static
        and it.returns_void
        and not uses[name]
        and all(_plain_calls(functions[f], name) for f in functions if name in uses[f])
    }
    classes = _Classes()
    for name in functions:
        classes.find(name)
    for it in items:
        if not it.function:  # a declaration or directive that names a function holds it
            for name in it.names & defined:
                classes.union(name, _SHARED)
    for obj in objects:
        users = [name for name, it in functions.items() if obj in it.names]
        for a, b in zip(users, users[1:]):
            classes.union(a, b)
    for name in functions:
        for used in uses[name]:
            if used not in leaves and functions[used].static:
                classes.union(name, used)
    for name in functions:
        for used in uses[name]:
            if used in leaves or functions[used].static:
                continue
            # a public function: declared in the header, so any piece may call it; but rule
            # 8.7 counts its uses, so its users go with it unless they are in every piece
            declared = header_text is not None and re.search(rf"\b{used}\s*\(", header_text)
            if not declared or classes.find(name) != classes.find(_SHARED):
                classes.union(name, used)

    lines = text.split("\n")
    shared_lines = set(range(1, len(lines) + 1))
    groups = {}  # class -> its functions, in file order
    for it in items:
        if it.function and classes.find(it.function) != classes.find(_SHARED):
            groups.setdefault(classes.find(it.function), []).append(it)
            shared_lines -= set(range(it.first, it.last + 1))

    def size(group):
        return sum(sum(len(ln) + 1 for ln in lines[it.first - 1 : it.last]) for it in group)

    # pack the classes into pieces in file order, a new piece when one is full
    bins, current, filled = [], [], 0
    for group in groups.values():
        if current and filled + size(group) > piece_bytes:
            bins.append(current)
            current, filled = [], 0
        current += group
        filled += size(group)
    if current:
        bins.append(current)
    if len(bins) < 2:
        return None
    pieces = []
    for held in bins:
        owned = set(shared_lines)
        for it in held:
            owned |= set(range(it.first, it.last + 1))
        out = [ln if i + 1 in owned else "" for i, ln in enumerate(lines)]
        # prototypes of the leaves its functions (and the shared ones) call but it does not hold
        calls = set()
        for it in items:
            if it.function and it.first in owned:
                calls |= it.names & leaves
        for name in sorted(calls):
            leaf = functions[name]
            if leaf.first in owned:
                continue
            proto = (leaf.signature + ";").split("\n")
            out[leaf.first - 1 : leaf.first - 1 + len(proto)] = proto
        work = sum(size([it]) ** 2 for it in held)
        pieces.append(Piece("\n".join(out), owned, work))
    return Split(pieces, shared_lines)
