"""MISRA C:2012 check of the runtime and of generated models (Cppcheck's MISRA addon), with the
project's deviations (misra/deviations.txt) applied. `./mcsgen misra`, `make misra`, and
`./mcsgen generate` (unless --no-misra) and `./mcsgen audit` use it; README "MISRA C:2012".

A finding is deviated only by a line of the deviations file that names its rule, a file pattern
that is not "everything" and, optionally, a regular expression the flagged source line must
match; every line carries a justification. Whatever no line covers is a finding.
"""

import fnmatch
import re
import shutil
import subprocess
import tempfile
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from .errors import McsError
from .paths import GENERATED, ROOT, RUNTIME

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

RUNTIME_SOURCES = sorted((RUNTIME / "src").glob("*.c"))
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


def check_runtime(deviations=None):
    """The runtime library (runtime/src, runtime/include) with each linear-algebra backend, and
    the firmware example."""
    return check_all([], runtime=True, deviations=deviations)[0]


def check_all(model_dirs, runtime=True, deviations=None, workers=2):
    """The runtime (optionally) and each generated model directory, `workers` Cppcheck runs at a
    time: one Result per scope, the runtime first."""
    deviations = load_deviations() if deviations is None else deviations
    includes = [RUNTIME / "include", RUNTIME / "src"]
    jobs = [("runtime", None), ("example", [FIRMWARE_EXAMPLE])] if runtime else []
    n_runtime = len(jobs)
    jobs += [("model", Path(d)) for d in model_dirs]

    def run(job):
        kind, what = job
        if kind == "runtime":
            # one build directory for both backend sets: the second pass reuses the analysis
            # of the files they share and analyses only its own backend
            found = set()
            with tempfile.TemporaryDirectory(prefix="mcs-misra-runtime-") as shared:
                for sources in BACKEND_SETS.values():
                    found.update(run_cppcheck(sources, includes, build_dir=shared))
            return sorted(found, key=_finding_key)
        if kind == "example":
            model_dir = GENERATED / FIRMWARE_MODEL
            upper = FIRMWARE_MODEL.upper()
            defines = [f"-DMCS_APP_MODEL={FIRMWARE_MODEL}_model",
                       f"-DMCS_APP_PARAMS={FIRMWARE_MODEL}_default_params",
                       f"-DMCS_APP_NX={upper}_NX",
                       f"-DMCS_APP_SIM_MEMORY={upper}_SIM_MEMORY",
                       f"-DMCS_APP_MAX_DOF={upper}_FIRMWARE_MAX_DOF",
                       f"-DMCS_APP_FEATURES={upper}_FIRMWARE_FEATURES",
                       f"--include={model_dir / (FIRMWARE_MODEL + '.h')}"]  # fmt: skip
            found = run_cppcheck(what, [RUNTIME / "include", model_dir], extra=defines)
            return [f for f in found if f.path.startswith("runtime/")]
        return _model_findings(what)

    with ThreadPoolExecutor(max_workers=workers) as pool:
        outputs = list(pool.map(run, jobs))
    results = []
    if runtime:
        found = sorted(set().union(*outputs[:n_runtime]), key=_finding_key)
        results.append(apply_deviations("runtime", found, deviations))
        outputs = outputs[n_runtime:]
    for d, own in zip(model_dirs, outputs):
        results.append(apply_deviations(Path(d).name, own, deviations, base=Path(d)))
    return results


def check_model(model_dir, deviations=None):
    """One generated model (<dir>/<name>.c with its header), on its own as firmware links it."""
    return check_all([model_dir], runtime=False, deviations=deviations)[0]


def _model_findings(model_dir):
    model_dir = Path(model_dir)
    sources = sorted(model_dir.glob("*.c"))
    if not sources:
        raise McsError(f"{model_dir}: no generated C to check")
    found = run_cppcheck(sources, [RUNTIME / "include", model_dir], all_configs=False)
    # the runtime headers it includes are the runtime's findings, counted there; the model's own
    # files are named generated/<model>/<file> wherever they were written
    own = []
    for f in found:
        p = Path(f.path) if Path(f.path).is_absolute() else ROOT / f.path
        if p.resolve().parent == model_dir.resolve():
            own.append(Finding(f"generated/{model_dir.name}/{p.name}", f.line, f.column, f.rule))
    return own


def _finding_key(f):
    return (f.path, f.line, f.column, f.rule)
