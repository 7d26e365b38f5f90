"""The banded simulator's structure (generator/mcsgen/emit/structure.py): the row-Givens QR of Aᵀ
that its tables describe, carried out in floating point on random values with A's pattern, is a
QR factorization (Q orthogonal, R banded of the announced width, the tangent slots annihilated);
the KKT order's band is what it says; and neither band grows with the length of a chain (the
O(n) cost of a step)."""

import numpy as np
import pytest

from mcsgen.emit import structure


def point_chain(masses):
    """Rods between planar point masses (x_i, z_i), the first hinged at the origin."""
    pattern = []
    for i in range(masses):
        pattern += [(i, 2 * i), (i, 2 * i + 1)]
        if i > 0:
            pattern += [(i, 2 * i - 2), (i, 2 * i - 1)]
    return pattern, masses, 2 * masses


def spatial_chain(bodies):
    """Bodies with Euler parameters (7 coordinates each) joined by spherical joints (3 rows on
    both bodies' positions and parameters), a unit-norm row per body, the first one to ground."""
    pattern, row = [], 0
    for b in range(bodies):
        own = range(7 * b, 7 * b + 7)
        other = range(7 * (b - 1), 7 * b) if b > 0 else range(0)
        for _ in range(3):
            pattern += [(row, j) for j in own] + [(row, j) for j in other]
            row += 1
        pattern += [(row, j) for j in range(7 * b + 3, 7 * b + 7)]
        row += 1
    return pattern, row, 7 * bodies


def ladder(rungs):
    """A closed chain of loops: two rails of point masses joined by rungs (many loops, the
    pattern of a four-bar repeated)."""
    pattern, row = [], 0
    for k in range(rungs):
        a, b = 4 * k, 4 * k + 2  # (x, z) of the left and right masses of rung k
        for p, q in ((a, b),) + (((a - 4, a), (b - 4, b)) if k > 0 else ()):
            pattern += [(row, p), (row, p + 1), (row, q), (row, q + 1)]
            row += 1
    pattern += [(row, 0), (row, 1)]  # the first left mass hinged
    return pattern, row + 1, 4 * rungs


def givens_factor(tables, A):
    """Aᵀ (n x m) rotated as the tables say, in floating point: (Qᵀ (n x n) with rows by slot, the
    rotated matrix (n x m, rows by slot, columns in c_order))."""
    m, n = A.shape
    rows = A.T[tables["x_order"]][:, tables["c_order"]].copy()
    Qt = np.eye(n)[tables["x_order"]]
    R = {}  # column c of R -> the slot that holds it
    for slot in range(n):
        for rot in range(tables["rot_start"][slot], tables["rot_start"][slot + 1]):
            c = tables["rot_col"][rot]
            p = R[c]
            a, b = rows[p, c], rows[slot, c]
            r = np.hypot(a, b)
            co, si = (a / r, b / r) if r > 0 else (1.0, 0.0)
            rows[[p, slot]] = [co * rows[p] + si * rows[slot], co * rows[slot] - si * rows[p]]
            Qt[[p, slot]] = [co * Qt[p] + si * Qt[slot], co * Qt[slot] - si * Qt[p]]
        if tables["place"][slot] >= 0:
            R[tables["place"][slot]] = slot
    return Qt, rows


@pytest.mark.parametrize(
    "case", [point_chain(12), spatial_chain(6), ladder(5)], ids=["points", "spatial", "ladder"]
)
def test_the_tables_are_a_qr_factorization(case):
    pattern, m, n = case
    tables = structure.givens_qr(pattern, m, n)
    assert tables is not None
    rng = np.random.default_rng(7)
    A = np.zeros((m, n))
    for i, j in pattern:
        A[i, j] = rng.standard_normal()
    Qt, rows = givens_factor(tables, A)
    assert np.abs(Qt @ Qt.T - np.eye(n)).max() < 1e-13
    # Qᵀ Aᵀ: R's rows at their owners (upper triangular, nonzeros within the band), the
    # tangent slots' rows zero
    AT = A.T[:, tables["c_order"]]
    assert np.abs(Qt @ AT - rows).max() < 1e-12
    w = tables["width"]
    for c in range(m):
        row = rows[tables["owner"][c]]
        assert tables["place"][tables["owner"][c]] == c
        assert np.all(np.abs(row[:c]) < 1e-13) and abs(row[c]) > 1e-3
        assert np.all(np.abs(row[c + w :]) < 1e-13)
    tangent = [k for k in range(n) if tables["place"][k] < 0]
    assert len(tangent) == n - m
    assert np.abs(rows[tangent]).max() < 1e-12
    # the tangent slots' rows of Qᵀ span A's null space
    assert np.abs(A @ Qt[tangent].T).max() < 1e-12


@pytest.mark.parametrize("make, sizes", [(point_chain, (5, 40, 300)), (spatial_chain, (3, 12, 40))])
def test_the_bands_do_not_grow_with_the_chain(make, sizes):
    widths, kkts = set(), set()
    for size in sizes:
        pattern, m, n = make(size)
        m_pattern = [(j, j) for j in range(n)]
        widths.add(structure.givens_qr(pattern, m, n)["width"])
        kkts.add(structure.kkt_band(pattern, m_pattern, m, n)["band"])
        assert len(structure.givens_qr(pattern, m, n)["rot_col"]) <= 20 * n
    assert len(widths) == 1 and len(kkts) == 1, (widths, kkts)


def test_the_kkt_band_is_the_orders_bandwidth():
    pattern, m, n = spatial_chain(4)
    m_pattern = [
        (j, k) for b in range(4) for j in range(7 * b, 7 * b + 7) for k in range(7 * b, 7 * b + 7)
    ]
    kkt = structure.kkt_band(pattern, m_pattern, m, n)
    position = {v: k for k, v in enumerate(kkt["order"])}
    assert sorted(kkt["order"]) == list(range(n + m))
    entries = [(i, j) for i, j in m_pattern] + [(n + i, j) for i, j in pattern]
    assert max(abs(position[i] - position[j]) for i, j in entries) == kkt["band"]


def test_rows_no_coordinate_reaches_have_no_structure():
    # two rows on one coordinate: structurally rank 1
    assert structure.givens_qr([(0, 0), (1, 0)], 2, 3) is None
    assert structure.givens_qr([], 0, 3) is None
    # a row with no coordinate at all
    assert structure.givens_qr([(0, 0)], 2, 2) is None


def test_the_structure_is_deterministic():
    pattern, m, n = ladder(6)
    assert structure.givens_qr(pattern, m, n) == structure.givens_qr(list(reversed(pattern)), m, n)
