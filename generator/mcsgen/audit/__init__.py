"""`./mcsgen audit`: a self-contained report that traces every generated term from its joint to
its lines of C and verifies it (issue 11). collect.py gathers, render.py formats (HTML with
MathML and inline SVG, or Markdown), mathml.py prints expressions as MathML Core."""

from .collect import Audit, collect
from .render import render, write_report

__all__ = ["Audit", "collect", "render", "write_report"]
