"""`./mcsgen plot SWEEP.csv`: the figures of a sweep (sweep/runner.py writes the CSV and its
JSON summary): each quantity against one parameter (a line per value of a second one), the
histograms of a Monte Carlo study's quantities, and a sensitivity bar chart.

Sensitivity: the standardized regression coefficients (SRC) of each quantity on the parameters,
b_i sd(p_i) / sd(y) from the least-squares fit y ~ b_0 + sum b_i p_i over the runs that
succeeded: the change of y, in its standard deviations, per standard deviation of p_i; their
squares add up to the fit's R^2 when the parameters are independent (random samples), and R^2
near 1 says the linear picture is the whole one (Saltelli et al., Global Sensitivity Analysis,
2008, §1.2.5). The title gives R^2 per quantity.
"""

import csv
import json
import math
from pathlib import Path
from typing import Dict, List, Optional, Sequence

import numpy as np

from ..errors import McsError
from .plot import _figure

SWEEP_HEADER = ("run", "status", "message")


def is_sweep_csv(path) -> bool:
    try:
        with open(path, newline="", encoding="utf-8") as fh:
            first = next(csv.reader(fh), [])
    except (OSError, UnicodeDecodeError):
        return False
    return tuple(first[:3]) == SWEEP_HEADER


def read_sweep(path):
    """(parameters, quantities, columns: name -> (N) of the runs that succeeded, summary)."""
    path = Path(path)
    summary_path = path.with_suffix(".json")
    try:
        summary = json.loads(summary_path.read_text())
        parameters = list(summary["parameters"])
    except (OSError, ValueError, KeyError, TypeError):
        raise McsError(f"plot: {path}: no sweep summary {summary_path.name} next to it") from None
    try:
        with open(path, newline="", encoding="utf-8") as fh:
            rows = list(csv.DictReader(fh))
    except (OSError, UnicodeDecodeError, csv.Error) as exc:
        raise McsError(f"plot: {path}: cannot read ({exc})") from None
    header = list(rows[0]) if rows else []
    quantities = [h for h in header[3:-1] if h not in parameters]
    ok = [r for r in rows if r.get("status") == "ok" and None not in r.values()]
    if not ok:
        raise McsError(f"plot: {path}: no run succeeded")

    def number(text):
        try:
            return float(text)
        except ValueError:  # an empty cell: the run gave no value
            return math.nan

    columns = {h: np.array([number(r[h]) for r in ok]) for h in parameters + quantities}
    return parameters, quantities, columns, summary


def src(columns: Dict[str, np.ndarray], parameters: Sequence[str], quantity: str):
    """(coefficients (k), R^2) of the quantity's standardized regression on the parameters that
    vary (module docstring); NaN where a parameter does not vary."""
    y = columns[quantity]
    keep = np.isfinite(y)
    varying = [p for p in parameters if np.std(columns[p][keep]) > 0]
    coef = {p: math.nan for p in parameters}
    if len(varying) == 0 or keep.sum() <= len(varying) + 1 or np.std(y[keep]) == 0:
        return coef, math.nan
    P = np.column_stack([columns[p][keep] for p in varying])
    Z = (P - P.mean(axis=0)) / P.std(axis=0)
    yz = (y[keep] - y[keep].mean()) / y[keep].std()
    b, *_ = np.linalg.lstsq(np.column_stack([np.ones(len(yz)), Z]), yz, rcond=None)
    fit = np.column_stack([np.ones(len(yz)), Z]) @ b
    r2 = 1.0 - np.sum((yz - fit) ** 2) / np.sum(yz**2)
    coef.update(dict(zip(varying, b[1:])))
    return coef, float(r2)


def plot_sweep(
    path,
    out: Optional[str] = None,
    against: Optional[str] = None,
    quantities: Optional[List[str]] = None,
    hist: bool = False,
    sensitivity: bool = False,
) -> List[Path]:
    """The figures of a sweep's CSV (module docstring). With none of against, hist and
    sensitivity: a random design gets histograms and the sensitivity chart, a grid the
    quantities against its first parameter."""
    import matplotlib.pyplot as plt

    parameters, names, columns, summary = read_sweep(path)
    if quantities:
        unknown = [q for q in quantities if q not in names]
        if unknown:
            raise McsError(
                f"plot --columns: {path} has no quantity '{unknown[0]}' ({', '.join(names)})"
            )
        names = list(quantities)
    if against is not None and against not in parameters:
        raise McsError(
            f"plot --against: {path} has no parameter '{against}' ({', '.join(parameters)})"
        )
    if not (against or hist or sensitivity):
        if "samples" in summary.get("design", ""):
            hist = sensitivity = True
        else:
            against = parameters[0]
    base = Path(path)
    written = []
    figures = []
    if against:
        figures.append(("against", _against_figure(columns, parameters, names, against)))
    if hist:
        figures.append(("hist", _hist_figure(columns, names)))
    if sensitivity:
        figures.append(("sensitivity", _sensitivity_figure(columns, parameters, names)))
    for kind, fig in figures:
        target = Path(out) if out and len(figures) == 1 else None
        if target is None:
            folder = Path(out).parent if out else base.parent
            target = folder / f"{base.stem}_{kind}.png"
        fig.suptitle(f"{summary['model']}: {summary['design']}, {summary['ok']} runs ok")
        fig.tight_layout()
        fig.savefig(target, dpi=110)
        plt.close(fig)
        written.append(target)
    return written


def _against_figure(columns, parameters, names, against):
    plt, fig, axes = _figure(len(names), 1, (8, 2.4 * len(names) + 0.8))
    others = [p for p in parameters if p != against and len(np.unique(columns[p])) > 1]
    groups = np.unique(columns[others[0]]) if others else [None]
    for ax, name in zip(axes[:, 0], names):
        for value in groups:
            rows = np.ones(len(columns[against]), bool)
            if value is not None:
                rows = columns[others[0]] == value
            order = np.argsort(columns[against][rows], kind="stable")
            label = None if value is None else f"{others[0]} = {value:.6g}"
            ax.plot(
                columns[against][rows][order], columns[name][rows][order], "o-", ms=3, label=label
            )
        ax.set_ylabel(name)
        ax.set_xlabel(against)
        ax.grid(True, alpha=0.3)
        if len(groups) > 1 and len(groups) <= 10:
            ax.legend(fontsize="small")
    return fig


def _hist_figure(columns, names):
    plt, fig, axes = _figure(len(names), 1, (8, 2.4 * len(names) + 0.8))
    for ax, name in zip(axes[:, 0], names):
        y = columns[name][np.isfinite(columns[name])]
        ax.hist(y, bins=max(10, min(60, int(np.sqrt(y.size)))), color="C0", alpha=0.8)
        if y.size:
            ax.axvline(y.mean(), color="k", lw=1)
            ax.set_title(f"mean {y.mean():.6g}, sd {y.std():.3g}", fontsize="small")
        ax.set_xlabel(name)
        ax.set_ylabel("runs")
    return fig


def _sensitivity_figure(columns, parameters, names):
    plt, fig, axes = _figure(len(names), 1, (8, 1.0 + 0.45 * len(parameters) * len(names) + 0.8))
    for ax, name in zip(axes[:, 0], names):
        coef, r2 = src(columns, parameters, name)
        values = [coef[p] for p in parameters]
        ax.barh(parameters, [0 if math.isnan(v) else v for v in values], color="C1")
        ax.axvline(0, color="k", lw=0.8)
        ax.set_xlim(-1.05, 1.05)
        ax.set_title(
            f"{name}: standardized regression coefficients, R² = {r2:.3f}", fontsize="small"
        )
        ax.grid(True, axis="x", alpha=0.3)
    return fig
