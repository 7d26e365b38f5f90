"""MkDocs hooks of the manual (mkdocs.yml `hooks:`): the generated reference pages join the
site's files, and the MathJax of Debian's libjs-mathjax is copied into the site, so the pages
render their equations with no network (the site works from a file:// URL or an intranet)."""

import shutil
import sys
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # generator/, for `mcsgen`

from mcsgen.manual import reference  # noqa: E402

# Debian's mkdocs-material writes the search separator "[\s\-]+" in a Jinja string literal
# (partials/languages/en.html), which Jinja decodes as Python escapes: every build printed a
# DeprecationWarning with a traceback into `make docs`. The theme's, not ours: not shown.
warnings.filterwarnings("ignore", r"invalid escape sequence '\\s'", DeprecationWarning)

MATHJAX = Path("/usr/share/javascript/mathjax")
# what TeX input with CommonHTML output needs (1.5 MB of the package's 54 MB)
MATHJAX_PARTS = (
    "MathJax.js",
    "config/TeX-AMS_CHTML.js",
    "jax/input/TeX",
    "jax/output/CommonHTML",
    "jax/element",
    "extensions",
    "fonts/HTML-CSS/TeX/woff",
)


def on_files(files, config):
    from mkdocs.structure.files import File

    root = Path(config["site_dir"]).parent / "docs-generated"
    for path, text in reference.pages().items():
        target = root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        if not target.exists() or target.read_text() != text:
            target.write_text(text)
        files.append(File(path, str(root), config["site_dir"], config["use_directory_urls"]))
    return files


def on_post_build(config):
    if not (MATHJAX / "MathJax.js").exists():
        raise SystemExit(
            "mkdocs: /usr/share/javascript/mathjax/MathJax.js is missing: install libjs-mathjax "
            "(make deps)"
        )
    target = Path(config["site_dir"]) / "assets" / "mathjax"
    for part in MATHJAX_PARTS:
        source, dest = MATHJAX / part, target / part
        dest.parent.mkdir(parents=True, exist_ok=True)
        if source.is_dir():
            shutil.copytree(source, dest, dirs_exist_ok=True)
        else:
            shutil.copyfile(source, dest)
