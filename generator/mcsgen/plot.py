"""`./mcsgen plot`: PNG figures from simulation CSVs (q and qdot side by side, as in the papers)."""

import csv
from pathlib import Path

import numpy as np

from .errors import McsError


def read_run(path):
    """A CSV written by the simulator -> dict column -> array (empty cells become NaN)."""
    path = Path(path)
    try:
        with path.open(newline="") as fh:
            rows = list(csv.reader(fh))
    except OSError as exc:
        raise McsError(f"{path}: cannot read ({exc.strerror})") from None
    if len(rows) < 2 or not rows[0] or rows[0][0] != "t":
        raise McsError(f"{path}: not a simulation CSV (expected a header starting with 't')")
    header = rows[0]
    try:
        data = np.array([[float(v) if v != "" else np.nan for v in r] for r in rows[1:]])
    except ValueError:
        raise McsError(f"{path}: non-numeric value in the data rows") from None
    if data.shape[1] != len(header):
        raise McsError(f"{path}: rows do not match the header")
    return {name: data[:, i] for i, name in enumerate(header)}


def _minimal_columns(run, prefix):
    cols = sorted((k for k in run if k.startswith(prefix) and k[len(prefix):].isdigit()),
                  key=lambda k: int(k[len(prefix):]))
    return [k for k in cols if not np.all(np.isnan(run[k]))]


def plot_runs(csv_paths, out=None, labels=None):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    runs = [read_run(p) for p in csv_paths]
    labels = list(labels or [])
    if labels and len(labels) != len(runs):
        raise McsError("plot: give one --label per CSV file")
    labels = labels or [Path(p).stem for p in csv_paths]
    q_cols = max((_minimal_columns(r, "q") for r in runs), key=len)
    qd_cols = max((_minimal_columns(r, "qd") for r in runs), key=len)
    if not q_cols:
        raise McsError("plot: the CSV has no minimal coordinates (q1, qd1, ...)")
    nrows = len(q_cols)
    has_energy = any("energy" in r for r in runs)
    fig, axes = plt.subplots(nrows + 1, 2, figsize=(11, 2.4 * (nrows + 1)), squeeze=False,
                             sharex=True)
    for run, label in zip(runs, labels):
        t = run["t"]
        for i, (qc, qdc) in enumerate(zip(q_cols, qd_cols)):
            if qc in run:
                axes[i, 0].plot(t, run[qc], label=label, lw=1.2)
            if qdc in run:
                axes[i, 1].plot(t, run[qdc], label=label, lw=1.2)
        axes[nrows, 0].semilogy(t, np.maximum(run["c_norm"], 1e-300), label=label, lw=1.0)
        if "energy" in run:
            axes[nrows, 1].plot(t, run["energy"] - run["energy"][0], label=label, lw=1.0)
    for i, (qc, qdc) in enumerate(zip(q_cols, qd_cols)):
        axes[i, 0].set_ylabel(f"$q_{{{qc[1:]}}}$")
        axes[i, 1].set_ylabel(f"$\\dot q_{{{qdc[2:]}}}$")
    axes[nrows, 0].set_ylabel("$|c|_\\infty$")
    axes[nrows, 1].set_ylabel("$E - E_0$" if has_energy else "(no energy)")
    for ax in axes[-1]:
        ax.set_xlabel("t [s]")
    for ax in axes.flat:
        ax.grid(True, alpha=0.3)
    axes[0, 0].legend(loc="best", fontsize="small")
    axes[0, 0].set_title("minimal coordinates $q = T^T x$")
    axes[0, 1].set_title("projected velocities $\\dot q = T^T v$")
    fig.tight_layout()
    out = Path(out) if out else Path(csv_paths[0]).with_suffix(".png")
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=110)
    plt.close(fig)
    return [out]
