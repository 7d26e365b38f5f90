"""Stage 2: a Model -> every term the runtime needs, as SymPy expressions (SPEC §1, §5).

- terms.py   c, A, c_t, gamma, A_dot, K_c per constraint row; M, f from local Lagrange blocks;
             K_f, D
- rows.py    the derivatives of one row, local to its coordinates
- groups.py  the kernels of switchable row groups (joint locks, explicit switch rows)
"""

from .groups import GroupTerms, derive_groups
from .terms import Derived, derive

__all__ = ["Derived", "GroupTerms", "derive", "derive_groups"]
