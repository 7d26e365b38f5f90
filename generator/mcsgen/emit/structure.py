"""The sparsity structure the banded simulator needs, analysed once at generation time (issue 13).

Two factorizations are laid out here, so that the runtime's are loops over fixed tables with
compile-time sizes (no allocation, no run-time symbolic work):

- the QR factorization of Aᵀ by rows and Givens rotations (George and Heath): the constraints
  (Aᵀ's columns) in a reverse Cuthill-McKee order of A Aᵀ's graph, so that R (m x m) is banded;
  the coordinates (Aᵀ's rows) by their first nonzero column. Each coordinate's row is rotated
  into R column after column until it either becomes a new row of R or is annihilated: the
  annihilated ones are the tangent directions (Q's columns r.. of SPEC §2), the others span
  range(Aᵀ). Every rotation's partner is known here; the runtime computes only its cosine and
  sine. The cost of a factorization and of an application of Q is O(n w), w R's band.
- the KKT matrix [[M, Aᵀ], [A, 0]] (n + m) in a reverse Cuthill-McKee order of its graph, for a
  banded LU with partial pivoting (its lower and upper bandwidths kl, ku).

Everything is integer work on the patterns of A and M: deterministic, the same on every machine.
"""

from collections import deque
from typing import Dict, List, Optional, Sequence, Set, Tuple


def _rcm(adjacency: Sequence[Set[int]]) -> List[int]:
    """Reverse Cuthill-McKee order of an undirected graph (every component), deterministic: each
    component from a pseudo-peripheral node (George and Liu), neighbours by degree then index."""
    n = len(adjacency)
    degree = [len(a) for a in adjacency]
    seen = [False] * n
    order: List[int] = []

    def bfs_levels(start, allowed):
        level = {start: 0}
        queue = deque([start])
        while queue:
            u = queue.popleft()
            for w in adjacency[u]:
                if w in allowed and w not in level:
                    level[w] = level[u] + 1
                    queue.append(w)
        return level

    for root in sorted(range(n), key=lambda v: (degree[v], v)):
        if seen[root]:
            continue
        component = set(bfs_levels(root, set(range(n))))
        start = root
        eccentricity = -1
        while True:  # pseudo-peripheral node
            level = bfs_levels(start, component)
            depth = max(level.values())
            if depth <= eccentricity:
                break
            eccentricity = depth
            last = [v for v, lv in level.items() if lv == depth]
            start = min(last, key=lambda v: (degree[v], v))
        queue = deque([start])
        seen[start] = True
        block = []
        while queue:
            u = queue.popleft()
            block.append(u)
            for w in sorted(adjacency[u], key=lambda v: (degree[v], v)):
                if not seen[w]:
                    seen[w] = True
                    queue.append(w)
        order += block
    return order[::-1]


def givens_qr(pattern: Sequence[Tuple[int, int]], m: int, n: int) -> Optional[Dict]:
    """The row-Givens QR of Aᵀ (n x m) for A's pattern [(row, column)]: None when A's structural
    rank is below m (a row of R would be structurally 0: the banded simulator cannot take it).

    Returns the tables the template prints:
      c_order (m)      constraint at each column of R (A's rows in RCM order)
      x_order (n)      coordinate in each row slot, by its first nonzero column
      rot_start (n+1)  slot k's rotations are rot_col[rot_start[k] .. rot_start[k + 1])
      rot_col          the column of R each rotation annihilates the slot's entry in
      place (n)        the column of R slot k becomes (its row of R), or -1: a tangent slot
      owner (m)        the slot that holds row c of R
      width            R's band: row c has its nonzeros in columns c .. c + width - 1
      row_width (n)    a slot's entries, from its first column on, before rotations
    """
    if m == 0:
        return None
    rows_of = [set() for _ in range(n)]  # coordinate j -> constraints touching it
    cols_of = [set() for _ in range(m)]  # constraint i -> coordinates
    for i, j in pattern:
        rows_of[j].add(i)
        cols_of[i].add(j)
    adjacency = [set() for _ in range(m)]
    for j in range(n):
        for a in rows_of[j]:
            adjacency[a] |= rows_of[j] - {a}
    c_order = _rcm(adjacency)
    position = {c: k for k, c in enumerate(c_order)}
    span = []  # each coordinate's first and last column in that order
    for j in range(n):
        cols = sorted(position[i] for i in rows_of[j])
        span.append((cols[0], cols[-1]) if cols else (m, -1))
    x_order = sorted(range(n), key=lambda j: (span[j][0], span[j][1], j))
    end = [-1] * m  # R row c's last column (-1: not created yet)
    rot_start, rot_col, place, owner = [0], [], [], [-1] * m
    row_width = []
    for slot, j in enumerate(x_order):
        first, last = span[j]
        row_width.append(max(last - first + 1, 0))
        c = first
        placed = -1
        while c <= last:
            if end[c] < 0:  # a new row of R: the slot's row from column c on
                end[c] = last
                owner[c] = slot
                placed = c
                break
            rot_col.append(c)  # rotated with R's row c: both span c .. max(end)
            last = max(last, end[c])
            end[c] = last
            c += 1
        place.append(placed)
        rot_start.append(len(rot_col))
    if any(e < 0 for e in end):
        return None  # a column of Aᵀ no row reaches: structurally rank deficient
    width = max(e - c + 1 for c, e in enumerate(end))
    return {
        "c_order": c_order,
        "x_order": x_order,
        "rot_start": rot_start,
        "rot_col": rot_col,
        "place": place,
        "owner": owner,
        "width": width,
        "row_width": row_width,
    }


def kkt_band(
    pattern: Sequence[Tuple[int, int]], m_pattern: Sequence[Tuple[int, int]], m: int, n: int
) -> Dict:
    """The KKT matrix's variables (coordinates 0..n-1, then multipliers n..n+m-1) in RCM order and
    its bandwidth b in that order (kl = ku = b: the pattern is symmetric)."""
    size = n + m
    adjacency = [set() for _ in range(size)]
    for i, j in m_pattern:
        if i != j:
            adjacency[i].add(j)
            adjacency[j].add(i)
    for i, j in pattern:
        adjacency[n + i].add(j)
        adjacency[j].add(n + i)
    order = _rcm(adjacency)
    position = {v: k for k, v in enumerate(order)}
    band = 0
    for v in range(size):
        for w in adjacency[v]:
            band = max(band, abs(position[v] - position[w]))
    return {"order": order, "band": band}
