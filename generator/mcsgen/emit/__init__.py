"""Stage 3: derived terms -> C sources (CSE, printing, templates).

- printer.py      SymPy's C99 printer adapted to mcs_real (MCS_R literals, MCS_FN calls)
- kernels.py      the kernels the catalogue lists, of the build's kernel sets, as the templates
                  print them; heavy ones split into parts
- statements.py   a kernel's body: one CSE, the intermediates it reads in dependency order
- fused.py        M_f (M and f at once) and the Newton-Euler pass other kernels read
- tangent_kernels.py  K_f, D, K_c of joint coordinates: column by column from a tangent
- tables.py       nonzero patterns, the banded simulator's structure, dense views, counts, the
                  firmware settings' memory features
- structure.py    the banded simulator's structure (row and column orders, Givens rotations)
- render.py       the templates' context and Jinja2
- files.py        C string literals; atomic writes
- fingerprint.py  the hash of the generator code that shapes output (in every banner)

Nothing is imported here: a command on a built model reads the fingerprint and never renders
(it imports neither Jinja2 nor SymPy's printers). The pipeline imports render.render and
files.write_atomically.
"""
