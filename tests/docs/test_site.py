"""The manual's site as a reader gets it: `mkdocs build --strict` succeeds (a warning fails it),
every internal link, anchor and image of every page resolves, and headless Chromium renders the
tutorial and the C API page with its images loaded and the method page's equations typeset by
the site's own MathJax (no network)."""

import re
import shutil
import subprocess
from html.parser import HTMLParser
from urllib.parse import unquote, urlsplit

import pytest

from mcsgen.paths import ROOT


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    out = tmp_path_factory.mktemp("site")
    run = subprocess.run(
        ["mkdocs", "build", "--strict", "--site-dir", str(out)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    # issue 60: the theme's Jinja string printed a DeprecationWarning traceback at every build
    assert "Warning" not in run.stderr and "Traceback" not in run.stderr, run.stderr[-3000:]
    return out


class _Links(HTMLParser):
    def __init__(self):
        super().__init__()
        self.links, self.ids = [], set()

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if "id" in attrs:
            self.ids.add(attrs["id"])
        for key in ("href", "src"):
            if attrs.get(key):
                self.links.append((tag, attrs[key]))


def _parse(path):
    parser = _Links()
    parser.feed(path.read_text(errors="replace"))
    return parser


def test_every_internal_link_anchor_and_image_resolves(site):
    # 404.html links from the server's root, where a web server puts it
    pages = sorted(p for p in site.rglob("*.html") if p.name != "404.html")
    assert len(pages) > 40
    parsed = {p: _parse(p) for p in pages}
    broken = []
    for page, parser in parsed.items():
        for tag, link in parser.links:
            parts = urlsplit(link)
            if parts.scheme or link.startswith("//") or link.startswith("mailto:"):
                continue
            target = (page.parent / unquote(parts.path)).resolve() if parts.path else page
            if target.is_dir():
                target = target / "index.html"
            if not target.exists():
                broken.append(f"{page.relative_to(site)}: {link}")
                continue
            if parts.fragment and target.suffix == ".html":
                ids = parsed[target].ids if target in parsed else _parse(target).ids
                if parts.fragment not in ids:
                    broken.append(f"{page.relative_to(site)}: {link} (no such anchor)")
    assert not broken, broken[:20]


def test_the_reference_names_every_verb_option_and_field(site):
    """Generated from the parser and the loader, the reference pages must still hold each verb,
    each option and each field the code has (a page built from a stale copy would not)."""
    from mcsgen.cli.parser import build_parser
    from mcsgen.manual.reference import _verbs

    cli = (site / "reference" / "cli.html").read_text()
    for verb, _, sub in _verbs(build_parser()):
        assert f'id="{verb}"' in cli, verb
        for action in sub._actions:
            for option in action.option_strings:
                assert option in cli, (verb, option)
    schema = (site / "reference" / "schema.html").read_text()
    model = ROOT / "generator" / "mcsgen" / "model"
    fields = set()
    for source in model.glob("*.py"):
        text = source.read_text()
        for block in re.findall(r"^[A-Z_]*KEYS = [^{]*\{(.*?)\}", text, re.M | re.S):
            fields |= set(re.findall(r'"(\w+)"', block))
        for block in re.findall(r"unknown_keys\(\s*\w+,\s*\{([^}]*)\}", text):
            fields |= set(re.findall(r'"(\w+)"', block))
    assert len(fields) > 40
    missing = sorted(f for f in fields if f"<code>{f}</code>" not in schema)
    assert not missing, missing


MEASURE = """<script>
window.addEventListener('load', function () {
  function report() {
    var broken = Array.prototype.filter.call(document.images, function (i) {
      return !i.complete || i.naturalWidth === 0; }).map(function (i) { return i.src; });
    var math = document.querySelectorAll('.MJXc-display, .mjx-chtml');
    var sized = Array.prototype.filter.call(math, function (m) {
      var r = m.getBoundingClientRect(); return r.width > 5 && r.height > 5; });
    document.body.setAttribute('data-probe', JSON.stringify({
      images: document.images.length, broken: broken, math: math.length, sized: sized.length,
      raw: (document.body.innerText.match(/\\\\\\(|\\\\\\[/g) || []).length }));
  }
  if (window.MathJax && MathJax.Hub) { MathJax.Hub.Queue(report); } else { report(); }
});
</script>"""


def _probe(page):
    """The page rendered by headless Chromium with MEASURE added: what it reports."""
    import json

    exe = shutil.which("chromium")
    assert exe, "chromium is missing: `make deps` installs it (scripts/install-deps)"
    probe = page.with_name("probe-" + page.name)
    probe.write_text(page.read_text().replace("</body>", MEASURE + "</body>"))
    run = subprocess.run(
        [
            exe,
            "--headless=new",
            "--no-sandbox",
            "--disable-gpu",
            "--allow-file-access-from-files",
            "--virtual-time-budget=20000",
            "--dump-dom",
            probe.as_uri(),
        ],
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert run.returncode == 0, run.stderr[-2000:]
    found = re.search(r"data-probe=\"([^\"]*)\"", run.stdout)
    assert found, run.stdout[:1000]
    return json.loads(found.group(1).replace("&quot;", '"'))


@pytest.mark.parametrize("page", ["tutorial.html", "reference/c-api.html"])
def test_chromium_renders_the_page_with_its_images(site, page):
    seen = _probe(site / page)
    assert not seen["broken"], seen
    if page == "tutorial.html":
        assert seen["images"] >= 2, seen


def test_chromium_typesets_the_equations_with_the_sites_mathjax(site):
    seen = _probe(site / "explanation" / "method.html")
    assert seen["math"] >= 10 and seen["sized"] == seen["math"], seen
    assert seen["raw"] == 0, seen  # no \( or \[ left as text
