"""mcsgen: mechanism files -> specialized, allocation-free C solvers (see README.md and the manual,
docs/)."""

import os as _os

# Same input, same bytes: multithreaded OpenBLAS reductions are not bitwise reproducible, and the
# generator solves for initial velocities numerically (the values are emitted into the C). Pin
# BLAS to one thread before numpy is first imported (the launcher, the Makefile and the tests'
# conftest set it too, for processes that import numpy before mcsgen).
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS"):
    _os.environ.setdefault(_var, "1")
del _var

from .version import __version__  # noqa: E402,F401 (after the BLAS pin; mcsgen.__version__)


def load(path_or_name):
    """A mechanism file, validated, ready to build (the Python API: mcsgen/api.py).

    model = mcsgen.load("models/slider_crank.yaml")
    run = model.build().simulate(t_end=5, method="dopri5", params={"g": 9.0})
    """
    from .api import load as load_mechanism

    return load_mechanism(path_or_name)
