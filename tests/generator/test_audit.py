"""mcsgen.audit: the report of every shipped model is well-formed, self-contained HTML in under
60 s, attributes every joint row to its joint, and fails, naming the entry, when a generated
kernel is wrong (issue 11)."""

import re
import time
from html.parser import HTMLParser
from pathlib import Path

import pytest

from conftest import over_models
from mcsgen.audit import collect, render
from mcsgen.derive import derive
from mcsgen.emit.tables import a_pattern
from mcsgen.model import load_model

ROOT = Path(__file__).resolve().parents[2]
MODEL_FILES = sorted((ROOT / "models").glob("*.yaml"))
VOID = {"meta", "br", "hr", "img", "input", "link", "col", "area", "base", "source", "wbr"}


class StrictStructure(HTMLParser):
    """Every element closed in order (HTML void elements and self-closed SVG excepted), no
    script, no external reference; collects the text of the rows table."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack, self.errors, self.cells, self._cell = [], [], [], None
        self.rows, self.mathml = [], 0

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "script" or any(
            str(v).startswith(("http:", "https:", "//")) for k, v in attrs.items() if k != "xmlns"
        ):
            self.errors.append(f"external or script: <{tag} {attrs}>")
        if tag == "math":
            self.mathml += 1
        if tag == "tr" and attrs.get("class") == "row-origin":
            self.rows.append([])
            self._cell = self.rows[-1]
        if tag not in VOID:
            self.stack.append(tag)

    def handle_startendtag(self, tag, attrs):
        pass  # <rect .../> in SVG

    def handle_endtag(self, tag):
        if tag in VOID:
            return
        if not self.stack or self.stack[-1] != tag:
            self.errors.append(f"</{tag}> closes <{self.stack[-1] if self.stack else None}>")
            return
        self.stack.pop()
        if tag == "tr":
            self._cell = None

    def handle_data(self, data):
        if self._cell is not None and self.stack and self.stack[-1] == "td":
            self._cell.append(data)


def parse(html):
    p = StrictStructure()
    p.feed(html)
    p.close()
    assert not p.errors, p.errors[:5]
    assert p.stack == [], p.stack
    return p


# the PUMA 560 in make test too: its audit is the only comparison of its kernels with SymPy's
# evaluation (test_emit.py leaves it out)
@pytest.mark.parametrize("path", over_models(MODEL_FILES, keep=("puma560_estop",)))
def test_report_of_every_model_is_valid_and_passes(path):
    start = time.perf_counter()
    model = load_model(path)
    audit = collect(model, ROOT / "generated" / path.stem, samples=2)
    html = render(audit, "html")
    took = time.perf_counter() - start
    assert took < 60, took
    assert audit.ok, [r for r in audit.check.rows] + audit.kernel_vs_sympy
    p = parse(html)
    assert p.mathml > 0
    assert len(p.rows) == model.m
    md = render(audit, "md")
    assert md.startswith(f"# Audit of `{model.name}`") and "Verification: PASS" in md


@pytest.mark.parametrize("name", ["slider_crank", "double_four_bar"])
def test_every_row_is_attributed_to_its_joint(name):
    model = load_model(ROOT / "models" / f"{name}.yaml")
    p = parse(render(collect(model, ROOT / "generated" / name, samples=1), "html"))
    joints = {j.name: j for j in model.joints}
    assert len(p.rows) == model.m
    for k, cells in enumerate(p.rows):
        index, row_name, source = cells[0], cells[1], cells[2]
        assert int(index) == k and row_name == model.constraints[k].name
        kind, _, owner = source.partition(" ")
        if kind == "body":  # a spatial body's unit Euler parameters
            assert row_name == f"{owner}.norm"
        else:  # every other row of these models is a joint's (none from the model file)
            assert kind == "joint" and k in joints[owner].rows, (k, row_name, source)


def test_a_corrupted_kernel_fails_the_report_with_the_entry_named(tmp_path, monkeypatch):
    import mcsgen.build as build

    src = ROOT / "generated" / "slider_crank"
    dst = tmp_path / "slider_crank"
    dst.mkdir()
    (dst / "slider_crank.h").write_bytes((src / "slider_crank.h").read_bytes())
    text = (src / "slider_crank.c").read_text()
    start = text.index("void slider_crank_A_nz(")  # A's nonzeros, which the dense A spreads
    stmt = text.index("\n    out[", start) + 5  # the first entry it writes
    index = int(text[stmt + 4 : text.index("]", stmt)])
    eq = text.index(" = ", stmt) + 3
    text = text[:eq] + "MCS_R(1.001)*" + text[eq:]  # one entry of A, 0.1 % off
    (dst / "slider_crank.c").write_text(text)
    monkeypatch.setattr(build, "BUILD", tmp_path / "build")  # not the good library's path
    model = load_model(ROOT / "models" / "slider_crank.yaml")
    audit = collect(model, dst, samples=1)
    assert not audit.ok
    rows = {t: (d, where) for t, d, where in audit.kernel_vs_sympy}
    i, j = a_pattern(derive(model))[index]
    assert rows["A"][0] > 1e-5 and rows["A"][1].startswith(f"A[{i}, {j}] (row ")
    assert all(d < 1e-12 for t, (d, _) in rows.items() if t != "A")
    failed = [q for q, _, err in audit.check.rows if err > audit.check.tol]
    assert "A" in failed
    html = render(audit, "html")
    assert "Verification: FAIL" in html and f"A[{i}, {j}]" in html


MEASURE = """<script>
document.querySelectorAll('details').forEach(function (d) { d.open = true; });
var m = document.querySelector('#term-A .entry math');
var r = m ? m.getBoundingClientRect() : {width: 0, height: 0};
document.body.setAttribute('data-jacobian-math', r.width + 'x' + r.height);
</script>"""


def chromium(*args, timeout=120):
    import shutil
    import subprocess

    exe = shutil.which("chromium")
    assert exe, "chromium is missing: `make deps` installs it (scripts/install-deps)"
    flags = ["--headless=new", "--no-sandbox", "--disable-gpu", "--enable-logging=stderr"]
    return subprocess.run(
        [exe, *flags, "--v=0", *args], capture_output=True, text=True, timeout=timeout
    )


@pytest.mark.slow  # make test-slow: make test counts the report's MathML and checks its nesting
def test_a_browser_renders_the_mathml_without_console_errors(tmp_path):
    """Headless Chromium loads the slider-crank's report: the first Jacobian entry's MathML has a
    rendered size, nothing is logged to the console, and a screenshot is taken."""
    model = load_model(ROOT / "models" / "slider_crank.yaml")
    html = render(collect(model, ROOT / "generated" / "slider_crank", samples=1), "html")
    page = tmp_path / "audit.html"
    page.write_text(html)
    shot = chromium(
        f"--screenshot={tmp_path / 'audit.png'}", "--window-size=1200,900", page.as_uri()
    )
    assert shot.returncode == 0, shot.stderr[-2000:]
    assert (tmp_path / "audit.png").stat().st_size > 10000
    assert "CONSOLE" not in shot.stderr, [s for s in shot.stderr.splitlines() if "CONSOLE" in s]
    # the same page with a measuring script (the report itself has none)
    probe = tmp_path / "probe.html"
    probe.write_text(html.replace("</body>", MEASURE + "\n</body>"))
    dom = chromium("--dump-dom", probe.as_uri())
    assert dom.returncode == 0, dom.stderr[-2000:]
    assert "CONSOLE" not in dom.stderr, [s for s in dom.stderr.splitlines() if "CONSOLE" in s]
    size = re.search(r'data-jacobian-math="([0-9.]+)x([0-9.]+)"', dom.stdout)
    assert size, dom.stdout[:500]
    width, height = float(size.group(1)), float(size.group(2))
    assert width > 5 and height > 5, (width, height)


def test_cli_writes_the_report_and_refuses_bad_options(tmp_path):
    import subprocess

    run = subprocess.run(
        [str(ROOT / "mcsgen"), "audit", "spatial_pendulum", "--out", str(tmp_path)],
        capture_output=True,
        text=True,
    )
    assert run.returncode == 0, run.stderr
    assert "verification PASS" in run.stdout
    parse((tmp_path / "audit.html").read_text())
    md = tmp_path / "sp.md"
    run = subprocess.run(
        [str(ROOT / "mcsgen"), "audit", "spatial_pendulum", "--format", "md", "--out", str(md)],
        capture_output=True,
        text=True,
    )
    assert run.returncode == 0 and md.read_text().startswith("# Audit of `spatial_pendulum`")
    bad = subprocess.run(
        [str(ROOT / "mcsgen"), "audit", "spatial_pendulum", "--format", "pdf"],
        capture_output=True,
        text=True,
    )
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1 and "--format" in bad.stderr


def test_the_report_shows_the_stops_and_friction(tmp_path):
    """A model's end stops and friction are in the report's Model section, as the file gives
    them (they are switched by the motion, not derived)."""
    from mcsgen.generate import generate

    model = load_model(ROOT / "models" / "pendulum_stop.yaml")
    audit = collect(model, ROOT / "generated" / "pendulum_stop", samples=1)
    html = render(audit, "html")
    parse(html)
    assert 'id="stops"' in html
    assert '<td class="mono">q</td><td>0.3</td><td>none</td><td>0.5</td>' in html
    assert "| `q` | 0.3 | none | 0.5 |" in render(audit, "md")
    path = ROOT / "docs" / "examples" / "servo_axis.yaml"
    generate(path, out_root=tmp_path)
    servo = load_model(path)
    html = render(collect(servo, tmp_path / "servo_axis", samples=1), "html")
    assert '<td class="mono">phi</td><td>-1</td><td>1</td><td>0.3</td>' in html
    assert '<td class="mono">phi</td><td>0.05</td><td>0.08</td>' in html
