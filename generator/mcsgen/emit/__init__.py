"""Stage 3: derived terms -> C sources (CSE, printing, templates).

- printer.py      SymPy's C99 printer adapted to mcs_real (MCS_R literals, MCS_FN calls)
- kernels.py      the kernels' bodies: one CSE each, split into parts when heavy
- tables.py       nonzero patterns, the banded simulator's structure, dense views, counts, the
                  firmware settings' memory features
- structure.py    the banded simulator's structure (row and column orders, Givens rotations)
- render.py       the templates' context and Jinja2
- files.py        C string literals; atomic writes
- fingerprint.py  the hash of the generator code that shapes output (in every banner)
"""

from .files import write_atomically
from .render import render

__all__ = ["render", "write_atomically"]
