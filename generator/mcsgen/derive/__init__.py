"""Stage 2: a Model -> every term the runtime needs, as SymPy expressions (SPEC §1, §5).

- terms.py  c, A, c_t, gamma, A_dot, K_c per constraint row; M, f from local Lagrange blocks;
            K_f, D
"""

from .terms import Derived, derive

__all__ = ["Derived", "derive"]
