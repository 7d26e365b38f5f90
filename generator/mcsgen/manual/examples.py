"""The runnable examples of the manual's tutorial and how-to pages, for the tests to run.

A page is read as a sequence of steps, in order:

- a ```` ```sh ```` block is commands, run by bash (`set -e`) in the page's folder;
- a ```` ```text ```` block right after it is what those commands print: each of its lines must be
  one of the printed lines, `…` standing for any text (so volatile parts such as wall times are
  left out);
- a ```` ```yaml ```` or ```` ```python ```` block whose content is `--8<-- "examples/NAME"` (the
  snippet syntax the site expands) is the file docs/examples/NAME, saved as NAME; a block whose
  first line is `# file: NAME` is saved as NAME;
- a ```` ```python ```` block otherwise is a script, run by /usr/bin/python3;
- a ```` ```c ```` or ```` ```cmake ```` block must be saved (`// file: NAME`, `# file: NAME`).

Other blocks (```` ```text ```` not after commands, ```` ```console ````) are prose. A block the
steps cannot take (a `c` block with no file name) is an error, so a page cannot hold an example
the tests skip.
"""

import re
from dataclasses import dataclass, field
from pathlib import Path

from ..paths import ROOT

DOCS = ROOT / "docs"
# the pages whose every example runs
RUNNABLE = ("tutorial.md", "howto/*.md")
_FENCE = re.compile(r"^```(\w*)[^\n]*\n(.*?)^```\s*$", re.M | re.S)
_SNIPPET = re.compile(r'^--8<-- "([^"]+)"\s*$')
_FILE = re.compile(r"^(?:#|//) file: (\S+)\s*$")


@dataclass
class Step:
    kind: str  # "sh", "python" (a script), "file"
    text: str  # the commands, the script or the file's content
    line: int  # where the block starts in the page (1-based)
    name: str = ""  # a file's name
    expect: list = field(default_factory=list)  # printed lines, for "sh" and "python"


def pages():
    found = []
    for pattern in RUNNABLE:
        found += sorted(DOCS.glob(pattern))
    return found


def _file_step(lang, body, line):
    snippet = _SNIPPET.match(body.strip())
    if snippet:
        source = DOCS / snippet.group(1)
        return Step("file", source.read_text(), line, name=Path(snippet.group(1)).name)
    first = body.split("\n", 1)[0]
    named = _FILE.match(first)
    if named:  # the marker line is the page's, not the file's
        return Step("file", body.split("\n", 1)[1], line, name=named.group(1))
    return None


def _where(page: Path) -> str:
    return str(page.relative_to(ROOT)) if page.is_relative_to(ROOT) else str(page)


def readme_tour():
    """The README's "A three-minute tour" section: run as a page is (the README's set-up block,
    `make demo` and `make test`, is not)."""
    text = (ROOT / "README.md").read_text()
    start = text.index("\n## A three-minute tour")
    end = text.index("\n## ", start + 1)
    return text[start:end]


def steps(page: Path, text: str = None):
    """The steps of a page (see the module), or of `text` read as that page; ValueError for a
    block no step can take."""
    text = page.read_text() if text is None else text
    out = []
    previous_end = None
    for m in _FENCE.finditer(text):
        lang, body = m.group(1), m.group(2)
        line = text.count("\n", 0, m.start()) + 1
        between = text[previous_end : m.start()] if previous_end is not None else None
        previous_end = m.end()
        if lang == "sh":
            out.append(Step("sh", body, line))
        elif lang == "text":
            if (
                out
                and out[-1].kind in ("sh", "python")
                and between is not None
                and not between.strip()
            ):
                out[-1].expect = [s for s in body.split("\n") if s.strip()]
        elif lang in ("yaml", "python", "c", "cmake", "csv"):
            step = _file_step(lang, body, line)
            if step is None and lang == "python":
                step = Step("python", body, line)
            if step is None:
                raise ValueError(
                    f"{_where(page)}:{line}: a ```{lang} block must be a file "
                    "(first line `# file: NAME` or `// file: NAME`) to be run"
                )
            out.append(step)
        elif lang in ("", "console", "text", "json"):
            continue
        else:
            raise ValueError(f"{_where(page)}:{line}: ```{lang} blocks cannot run")
    return out


def line_matches(expected: str, printed: str) -> bool:
    """An expected line against a printed one: equal, `…` matching any text."""
    parts = [re.escape(p) for p in expected.rstrip().split("…")]
    return re.fullmatch(".*".join(parts), printed.rstrip()) is not None


def missing_lines(expect, output):
    """The expected lines no printed line matches."""
    printed = output.split("\n")
    return [e for e in expect if not any(line_matches(e, p) for p in printed)]
