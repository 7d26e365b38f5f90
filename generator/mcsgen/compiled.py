"""A generated model's kernels called from Python: its C compiled as a shared library (double)
and each kernel through ctypes, in the shapes the runtime reads (column-major matrices as NumPy
arrays). The self-check (selfcheck.py), the audit and the tests evaluate the C with it.
"""

import ctypes

import numpy as np

from .build import build_shared, generated_dir_of

DP = ctypes.POINTER(ctypes.c_double)


def _ptr(a):
    return a.ctypes.data_as(DP)


class CompiledModel:
    """ctypes view of the model's generated C (build.generated_dir_of, or gdir/<name>.c)
    compiled as a shared library (double)."""

    def __init__(self, model, gdir=None):
        self.model = model
        self.n, self.m = model.n, model.m
        gdir = gdir if gdir is not None else generated_dir_of(model)  # its file's own C
        self.lib = ctypes.CDLL(str(build_shared(model.name, gdir)))
        self.params = np.array([p.value for p in model.parameters] or [0.0], dtype=float)
        self.has_potential = model.potential is not None

    def carries(self, kernel):
        """Whether the generated C has this kernel (a kernel set left out has none)."""
        return hasattr(self.lib, f"{self.model.name}_{kernel}")

    def _fn(self, name, restype=None):
        fn = getattr(self.lib, f"{self.model.name}_{name}")
        fn.restype = restype
        return fn

    def xt(self, name, x, t, size, shape=None):
        if size == 0:  # a kernel with no outputs is not generated (emit/kernels.py)
            return _shape(np.zeros(0), shape)
        out = np.zeros(max(size, 1))
        x = np.ascontiguousarray(x, dtype=float)
        self._fn(name)(_ptr(x), ctypes.c_double(t), _ptr(self.params), _ptr(out))
        return _shape(out[:size], shape)

    def xwt(self, name, x, w, t, size, shape=None):
        if size == 0:
            return _shape(np.zeros(0), shape)
        out = np.zeros(max(size, 1))
        x = np.ascontiguousarray(x, dtype=float)
        w = np.ascontiguousarray(w if len(w) else np.zeros(1), dtype=float)
        self._fn(name)(_ptr(x), _ptr(w), ctypes.c_double(t), _ptr(self.params), _ptr(out))
        return _shape(out[:size], shape)

    # the kernels, shaped
    def c(self, x, t):
        return self.xt("c", x, t, self.m)

    def A(self, x, t):
        return self.xt("A", x, t, self.m * self.n, (self.m, self.n))

    def c_t(self, x, t):
        return self.xt("c_t", x, t, self.m)

    def gamma(self, x, v, t):
        return self.xwt("gamma", x, v, t, self.m)

    def A_dot(self, x, v, t):
        return self.xwt("A_dot", x, v, t, self.m * self.n, (self.m, self.n))

    def M(self, x, t):
        return self.xt("M", x, t, self.n * self.n, (self.n, self.n))

    def f(self, x, v, t):
        return self.xwt("f", x, v, t, self.n)

    def f_u(self, x, u, t):
        return self.xwt("f_u", x, u, t, self.n)

    def K_c(self, x, lam, t):
        return self.xwt("K_c", x, lam, t, self.n * self.n, (self.n, self.n))

    def K_f(self, x, v, t):
        return self.xwt("K_f", x, v, t, self.n * self.n, (self.n, self.n))

    def D(self, x, v, t):
        return self.xwt("D", x, v, t, self.n * self.n, (self.n, self.n))

    def group(self, k, kernel, x, v=None, t=0.0):
        """Kernel `kernel` (g, G, gamma, G_dot) of row group k, shaped."""
        group = self.model.row_groups[k]
        p = len(group.g)
        size, shape = (p * self.n, (p, self.n)) if kernel in ("G", "G_dot") else (p, None)
        coords = group.held_coordinates(self.model.x)
        if coords is not None:  # no kernels: what the runtime forms (mcs_rows.c)
            if kernel == "g":
                return np.asarray(x, dtype=float)[coords].copy()
            out = np.zeros(size if shape is None else shape)
            if kernel == "G":
                out[np.arange(p), coords] = 1.0
            return out
        if v is None:
            return self.xt(f"group_{k}_{kernel}", x, t, size, shape)
        return self.xwt(f"group_{k}_{kernel}", x, v, t, size, shape)

    def kinetic(self, x, v, t):
        fn = self._fn("kinetic", ctypes.c_double)
        x = np.ascontiguousarray(x, dtype=float)
        v = np.ascontiguousarray(v, dtype=float)
        return fn(_ptr(x), _ptr(v), ctypes.c_double(t), _ptr(self.params))

    def potential(self, x, t):
        if not self.has_potential:
            return 0.0
        fn = self._fn("potential", ctypes.c_double)
        x = np.ascontiguousarray(x, dtype=float)
        return fn(_ptr(x), ctypes.c_double(t), _ptr(self.params))


def _shape(flat, shape):
    if shape is None:
        return flat
    return flat.reshape(shape[1], shape[0]).T  # column-major -> (rows x cols)
