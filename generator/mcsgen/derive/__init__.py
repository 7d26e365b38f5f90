"""Stage 2: a Model and the kernel sets a build carries -> every term they need, as SymPy
expressions (SPEC §1, §5): derive(model, sets), all of it before anything is emitted.

- terms.py   derive; c, A, c_t, gamma, A_dot, K_c per constraint row; M, f from local Lagrange
             blocks; K_f, D
- rows.py    the derivatives of one row, local to its coordinates
- groups.py  the kernels of switchable row groups (joint locks, explicit switch rows)
"""

from .groups import GroupTerms, derive_groups
from .terms import Derived, derive

__all__ = ["Derived", "GroupTerms", "derive", "derive_groups"]
