"""Every command, file and script of the manual's tutorial and how-to pages, run as a reader runs
them: in an empty folder, with the checkout's `mcsgen` on PATH and $MCSGEN the checkout
(docs/setup.md), each page's steps in order; the lines the page shows as output must be printed
(generator/mcsgen/manual/examples.py says how a page is read)."""

import os
import subprocess

import pytest

from mcsgen.paths import ROOT


from mcsgen.manual import examples

PAGES = examples.pages()


def _run(step, cwd, env, page):
    if step.kind == "sh":
        argv = ["bash", "-e", "-o", "pipefail", "-c", step.text]
    else:
        argv = ["/usr/bin/python3", "-c", step.text]
    proc = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=600)
    where = f"docs/{page}:{step.line}"
    output = proc.stdout + proc.stderr
    assert proc.returncode == 0, f"{where} exited {proc.returncode}:\n{output[-3000:]}"
    missing = examples.missing_lines(step.expect, output)
    assert not missing, f"{where}: not printed: {missing}\n--- printed:\n{output[-3000:]}"


def _run_page(steps, rel, tmp_path):
    assert any(s.kind in ("sh", "python") for s in steps), "a page with nothing to run"
    env = dict(os.environ)
    env["PATH"] = f"{ROOT}:{env.get('PATH', '')}"
    env["MCSGEN"] = str(ROOT)
    env["MPLBACKEND"] = "Agg"
    env["PYTHONPATH"] = str(ROOT / "generator")  # what `make develop` gives (docs/setup.md)
    for step in steps:
        if step.kind == "file":
            (tmp_path / step.name).write_text(step.text)
        else:
            _run(step, tmp_path, env, rel)


# make test-slow: the how-tos whose ground make test covers elsewhere (test_firmware*.py: the
# script on a shipped model and on a file; test_sweep.py: the sweep verb, a scheduler and its
# workers); make test runs the tutorial and the other how-tos
SLOW_PAGES = ("howto/firmware.md", "howto/sweep.md")


def _page_param(page):
    rel = str(page.relative_to(examples.DOCS))
    return pytest.param(page, id=rel, marks=(pytest.mark.slow,) if rel in SLOW_PAGES else ())


@pytest.mark.parametrize("page", [_page_param(p) for p in PAGES])
def test_the_pages_examples_run_and_print_what_they_show(page, tmp_path):
    _run_page(examples.steps(page), page.relative_to(examples.DOCS), tmp_path)


def test_the_readmes_tour_runs(tmp_path):
    """The README's three-minute tour, as a reader runs it (its commands' comments say what
    they print: the MISRA result, the frequency, the firmware's budget)."""
    readme = examples.ROOT / "README.md"
    _run_page(examples.steps(readme, examples.readme_tour()), "../README.md", tmp_path)


def test_the_rules_refuse_what_would_not_run(tmp_path):
    page = tmp_path / "page.md"
    page.write_text("```c\nint main(void) { return 0; }\n```\n")
    with pytest.raises(ValueError, match="must be a file"):
        examples.steps(page)


def test_expected_lines_match_with_the_ellipsis_only():
    assert examples.line_matches("steps … wall …", "steps 12, wall 3 ms")
    assert not examples.line_matches("steps 13", "steps 12")
    assert examples.missing_lines(["a … c"], "x\na b c\n") == []
    assert examples.missing_lines(["a d"], "a b c") == ["a d"]
