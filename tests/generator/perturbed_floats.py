"""Make this process round differently from every other machine: numpy's, scipy's and math's
trigonometric, exponential and linear-algebra functions return results moved by one unit in the
last place (towards +inf). Used by test_determinism.py to show that no machine floating-point
value reaches the generated C: output generated under this perturbation must equal the
committed bytes.

`install()` patches the modules in place and returns the names it patched; call it before
importing mcsgen (which looks functions up at call time anyway).
"""
import math

import numpy as np
import scipy.linalg

MATH = (
    "sin",
    "cos",
    "tan",
    "asin",
    "acos",
    "atan",
    "atan2",
    "sinh",
    "cosh",
    "tanh",
    "sqrt",
    "exp",
    "log",
    "hypot",
    "pow",
    "fsum",
)
NUMPY = (
    "sin",
    "cos",
    "tan",
    "arcsin",
    "arccos",
    "arctan",
    "arctan2",
    "sinh",
    "cosh",
    "tanh",
    "sqrt",
    "exp",
    "log",
    "hypot",
    "dot",
    "matmul",
    "cross",
    "inner",
    "outer",
    "einsum",
    "trace",
)
NUMPY_LINALG = (
    "norm",
    "solve",
    "lstsq",
    "qr",
    "eigvalsh",
    "eigh",
    "eig",
    "det",
    "inv",
    "svd",
    "pinv",
    "cholesky",
)
SCIPY_LINALG = (
    "qr",
    "lu_factor",
    "lu_solve",
    "solve",
    "cho_factor",
    "cho_solve",
    "svd",
    "lstsq",
    "eigh",
    "eigvalsh",
)


def one_ulp_up(value):
    """Every float in value (array, scalar, or nested tuple/list of them) one ulp larger."""
    if isinstance(value, np.ndarray):
        if np.issubdtype(value.dtype, np.floating):
            return np.nextafter(value, np.inf)
        if np.issubdtype(value.dtype, np.complexfloating):
            return np.nextafter(value.real, np.inf) + 1j * value.imag
        return value
    if isinstance(value, (float, np.floating)):
        return type(value)(np.nextafter(value, np.inf))
    if isinstance(value, tuple) and hasattr(value, "_fields"):  # named tuples (eigh, qr)
        return type(value)(*[one_ulp_up(v) for v in value])
    if isinstance(value, (tuple, list)):
        return type(value)(one_ulp_up(v) for v in value)
    return value


def _wrap(fn):
    def perturbed(*args, **kwargs):
        return one_ulp_up(fn(*args, **kwargs))

    perturbed.__name__ = getattr(fn, "__name__", "perturbed")
    perturbed.__wrapped__ = fn
    return perturbed


def install():
    patched = []
    for module, names, label in (
        (math, MATH, "math"),
        (np, NUMPY, "numpy"),
        (np.linalg, NUMPY_LINALG, "numpy.linalg"),
        (scipy.linalg, SCIPY_LINALG, "scipy.linalg"),
    ):
        for name in names:
            if hasattr(module, name):
                setattr(module, name, _wrap(getattr(module, name)))
                patched.append(f"{label}.{name}")
    return patched
