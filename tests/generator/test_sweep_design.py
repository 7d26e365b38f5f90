"""The parameter sets of a sweep (mcsgen/sweep/design.py) and the quantities' grammar
(sweep/worker.py): grids, their combinations, seeded samples that do not depend on anything but
the seed, tables, and one-line errors naming the option."""

import numpy as np
import pytest
from scipy.special import ndtr, ndtri

from mcsgen.sweep.design import DesignError, make_design
from mcsgen.sweep.worker import parse_quantity


def test_grid_ranges_lists_and_their_product_and_zip():
    d = make_design(["L=0.9:1.1:3", "m=1,2"])
    assert d.names == ["L", "m"]
    np.testing.assert_array_equal(
        d.values, [[0.9, 1], [0.9, 2], [1.0, 1], [1.0, 2], [1.1, 1], [1.1, 2]]
    )
    z = make_design(["L=0.9:1.1:3", "m=1,2,3", "g=9.81"], combine="zip")
    np.testing.assert_array_equal(z.values, [[0.9, 1, 9.81], [1.0, 2, 9.81], [1.1, 3, 9.81]])
    assert len(make_design(["L=2:2:1"])) == 1


def test_samples_depend_on_the_seed_alone_and_follow_their_distributions():
    a = make_design([], ["L=normal(1.0,0.005)", "m=uniform(2,3)"], count=20000, seed=7)
    b = make_design([], ["L=normal(1.0,0.005)", "m=uniform(2,3)"], count=20000, seed=7)
    np.testing.assert_array_equal(a.values, b.values)
    # the draw is PCG64(seed), parameter after parameter: reproducible by anyone from the seed
    rng = np.random.Generator(np.random.PCG64(7))
    np.testing.assert_array_equal(a.values[:, 0], rng.normal(1.0, 0.005, 20000))
    np.testing.assert_array_equal(a.values[:, 1], rng.uniform(2, 3, 20000))
    assert abs(a.values[:, 0].mean() - 1.0) < 4 * 0.005 / np.sqrt(20000)
    assert abs(a.values[:, 0].std() / 0.005 - 1) < 0.02
    assert 2 <= a.values[:, 1].min() and a.values[:, 1].max() < 3
    c = make_design([], ["L=normal(1.0,0.005)"], count=5, seed=8)
    assert not np.array_equal(c.values[:, 0], a.values[:5, 0])


def test_truncated_normal_stays_inside_and_has_the_truncated_mean():
    d = make_design([], ["L=truncnormal(0,1,-0.5,2)"], count=40000, seed=3)
    v = d.values[:, 0]
    assert v.min() >= -0.5 and v.max() <= 2
    # the mean of N(0,1) truncated to [a, b]: (phi(a) - phi(b)) / (Phi(b) - Phi(a))
    phi = lambda x: np.exp(-x * x / 2) / np.sqrt(2 * np.pi)  # noqa: E731
    mean = (phi(-0.5) - phi(2)) / (ndtr(2) - ndtr(-0.5))
    assert abs(v.mean() - mean) < 4 * v.std() / np.sqrt(v.size)
    assert ndtri(0.5) == 0


def test_grid_times_samples():
    d = make_design(["g=9,10"], ["L=uniform(1,2)"], count=3, seed=1)
    assert d.names == ["g", "L"] and len(d) == 6
    np.testing.assert_array_equal(d.values[:3, 1], d.values[3:, 1])


def test_table(tmp_path):
    path = tmp_path / "sets.csv"
    path.write_text("L,m\n1.0,2\n1.5, 3\n\n")
    d = make_design(table=str(path))
    assert d.names == ["L", "m"]
    np.testing.assert_array_equal(d.values, [[1.0, 2], [1.5, 3]])
    path.write_text("L,m\n1.0\n")
    with pytest.raises(DesignError, match=r"--table .*sets.csv, line 2: 1 values for 2 names"):
        make_design(table=str(path))


@pytest.mark.parametrize(
    "params, samples, count, message",
    [
        (["L=1:2:0"], [], 0, r"^--param L=1:2:0: empty range \(N = 0\)$"),
        (["L=1:1:4"], [], 0, "empty range"),
        (["L="], [], 0, "expected NAME=VALUES"),
        (["L=1,,2"], [], 0, "an empty value"),
        (["L=1:2"], [], 0, "a range is LO:HI:N"),
        (["L=1:2:x"], [], 0, "whole number"),
        (["L=nan"], [], 0, "not a finite number"),
        (["L=1,2", "m=1,2,3"], [], 0, None),
        ([], ["L=gauss(1,2)"], 5, r"^--sample L=gauss\(1,2\): expected uniform"),
        ([], ["L=normal(1)"], 5, "normal takes 2 numbers"),
        ([], ["L=normal(1,0)"], 5, "SIGMA > 0"),
        ([], ["L=uniform(2,1)"], 5, "LO < HI"),
        ([], ["L=truncnormal(0,1,50,60)"], 5, "no probability"),
        ([], ["L=normal(1,1)"], 0, "--samples"),
        (["L=1,2"], ["L=normal(1,1)"], 5, "given twice"),
        ([], [], 0, "give --param, --sample or --table"),
        (["L=0:1:\u00b2"], [], 0, "whole number"),  # isdigit() says yes, int() no
        (["L=0:1:100000000000"], [], 0, "more than 10000000 values"),  # at once, not a hang
        (["L=0:1:10000", "m=0:1:10000"], [], 0, "more than 10000000 runs"),
    ],
)
def test_bad_designs_are_one_line_naming_the_option(params, samples, count, message):
    combine = "zip" if message is None else "product"
    with pytest.raises(DesignError) as exc:
        make_design(params, samples, count, 0, combine)
    text = str(exc.value)
    assert "\n" not in text
    assert text.startswith(("--param", "--sample", "--samples", "--combine", "sweep:"))
    if message is None:
        assert "differ in length" in text
    else:
        assert __import__("re").search(message, text), text


def test_seed_and_sample_count_are_checked_before_drawing():
    with pytest.raises(DesignError, match="--seed: a whole number >= 0, got -1"):
        make_design([], ["L=normal(1,1)"], 5, -1)
    with pytest.raises(DesignError, match="--samples: a whole number of samples up to"):
        make_design([], ["L=normal(1,1)"], 10**10, 0)


def test_a_spreadsheets_table(tmp_path):
    path = tmp_path / "sets.csv"
    path.write_bytes("\ufeffL,m\r\n1.0,2\r\n".encode())  # a byte-order mark, CRLF
    assert make_design(table=str(path)).names == ["L", "m"]
    path.write_bytes(b'L,m\n"1.0,2\n')  # a quote left open
    with pytest.raises(DesignError, match="--table .*: not a CSV of text"):
        make_design(table=str(path))
    path.write_bytes(b"\xff\xfeL\n")
    with pytest.raises(DesignError, match="not a CSV of text"):
        make_design(table=str(path))


def test_quantities_grammar():
    assert parse_quantity("simulate", "final(x.slider.x)") == ("final", "x.slider.x")
    assert parse_quantity("simulate", "energy_lost(2)") == ("energy_lost", 2)
    assert parse_quantity("modes", "freq(1)") == ("freq", 1)
    assert parse_quantity("statics", "iterations") == ("iterations", None)
    for kind, text, message in [
        ("simulate", "freq(1)", "unknown function 'freq'"),
        ("simulate", "t_event(0)", "K >= 1"),
        ("simulate", "nothing", "unknown quantity"),
        ("statics", "final(x)", "unknown function"),
        ("simulate", "max(a)(b)", "is not NAME or FUNC"),
    ]:
        with pytest.raises(ValueError, match=message):
            parse_quantity(kind, text)
