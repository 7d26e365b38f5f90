"""The figures of a sweep (mcsgen/outputs/sweep_plot.py): the sensitivity measure against a
function whose answer is known, and each kind of figure written from a sweep's files."""

import json

import numpy as np
import pytest

from mcsgen.errors import McsError
from mcsgen.outputs.sweep_plot import is_sweep_csv, plot_sweep, src


def test_standardized_regression_coefficients_of_a_known_linear_function():
    rng = np.random.Generator(np.random.PCG64(5))
    a, b, c = rng.normal(0, 2, 4000), rng.uniform(0, 1, 4000), np.full(4000, 3.0)
    y = 2 * a - 5 * b
    coef, r2 = src({"a": a, "b": b, "c": c, "y": y}, ["a", "b", "c"], "y")
    sd = np.std(y)
    assert coef["a"] == pytest.approx(2 * np.std(a) / sd, rel=1e-12)
    assert coef["b"] == pytest.approx(-5 * np.std(b) / sd, rel=1e-12)
    assert np.isnan(coef["c"])  # does not vary
    assert r2 == pytest.approx(1.0, abs=1e-12)
    assert coef["a"] ** 2 + coef["b"] ** 2 == pytest.approx(1.0, abs=0.02)  # independent
    noisy = y + rng.normal(0, sd, 4000)  # half the variance not explained
    _, r2 = src({"a": a, "b": b, "c": c, "y": noisy}, ["a", "b", "c"], "y")
    assert r2 == pytest.approx(0.5, abs=0.03)


def write_sweep(folder, design):
    rng = np.random.Generator(np.random.PCG64(1))
    L, m = rng.normal(1, 0.01, 50), rng.uniform(1, 2, 50)
    lines = ["run,status,message,L,m,final(x.q1),seconds"]
    for i in range(50):
        status = "failed" if i == 7 else "ok"
        value = "" if i == 7 else repr(3 * L[i] + m[i])
        lines.append(f"{i},{status},{status},{L[i]!r},{m[i]!r},{value},0.01")
    (folder / "s.csv").write_text("\n".join(lines) + "\n")
    summary = {"model": "m", "design": design, "ok": 49, "parameters": ["L", "m"]}
    (folder / "s.json").write_text(json.dumps(summary))
    return folder / "s.csv"


def test_each_figure_of_a_sweep(tmp_path):
    path = write_sweep(tmp_path, "50 samples, seed 1")
    assert is_sweep_csv(path)
    written = plot_sweep(path)
    assert [p.name for p in written] == ["s_hist.png", "s_sensitivity.png"]
    written = plot_sweep(path, against="m", out=str(tmp_path / "a.png"))
    assert written == [tmp_path / "a.png"] and written[0].stat().st_size > 10_000
    with pytest.raises(McsError, match="no parameter 'x'"):
        plot_sweep(path, against="x")
    with pytest.raises(McsError, match="no quantity 'max"):
        plot_sweep(path, quantities=["max(energy)"])
    (tmp_path / "s.json").unlink()
    with pytest.raises(McsError, match="no sweep summary s.json"):
        plot_sweep(path)
