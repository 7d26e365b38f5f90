"""Stage 3: derived terms -> C sources (CSE, printing, templates).

- printer.py      SymPy's C99 printer adapted to mcs_real (MCS_R literals, MCS_FN calls)
- render.py       kernels (one CSE each) and the Jinja2 templates; atomic writes
- fingerprint.py  the hash of the generator code that shapes output (in every banner)
"""

from .render import render, write_atomically

__all__ = ["render", "write_atomically"]
