"""`./mcsgen plot`: PNG figures from simulation CSVs (q and qdot side by side, as in the papers)."""

import csv
from pathlib import Path

import numpy as np

from ..errors import McsError


def read_run(path) -> dict:
    """A CSV written by the simulator (a path, or a text stream) -> dict column -> array (empty
    cells become NaN)."""
    if hasattr(path, "read"):
        rows = list(csv.reader(path))
        path = "(the run)"
    else:
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
    cols = sorted(
        (k for k in run if k.startswith(prefix) and k[len(prefix) :].isdigit()),
        key=lambda k: int(k[len(prefix) :]),
    )
    return [k for k in cols if not np.all(np.isnan(run[k]))]


def event_times(csv_path):
    """Times of the transitions and singular configurations in the event log next to a CSV
    (`<name>.events.json`, as `simulate` writes it), or [] when there is none."""
    import json

    path = Path(csv_path).with_suffix(".events.json")
    try:
        events = json.loads(path.read_text())
    except (OSError, ValueError):
        return []
    return sorted({float(e["t"]) for e in events if "t" in e})


def minimal_unit(model=None):
    """The unit of the minimal coordinates q: T combines the coordinates, so the one unit they
    all have, else the units it mixes (without the model: "coordinate units")."""
    if model is None:
        return "coordinate units"
    units = sorted({c.unit or "1" for c in model.coordinates})
    return units[0] if len(units) == 1 else "mixed: " + ", ".join(units)


def shows_data(ax):
    """Whether a panel shows data: it is not turned off and something is plotted on it."""
    return ax.axison and bool(ax.lines)


def mark_events(axes, times):
    """Dashed vertical lines at the event times on the panels that show data (not on an empty
    or a hidden one)."""
    for ax in [ax for ax in axes if shows_data(ax)]:
        for te in times:
            ax.axvline(te, color="0.5", ls="--", lw=0.8)


def has_constraints(runs, model=None):
    """Whether the runs have constraint rows (the |c| panel): the model's rows when it is given
    and has some; else (no model, or one without rows that `simulate --lock` or its switches may
    still lock) a column c_norm that is not all exactly 0 (the simulator writes 0 there when the
    run has no rows)."""
    if model is not None and model.m > 0:
        return True
    return any("c_norm" in run and np.any(run["c_norm"] != 0) for run in runs)


def plot_runs(csv_paths, out=None, labels=None, momenta=False, model=None):
    """q_i and qd_i of several runs side by side, |c| (when the runs have constraint rows) and
    E - E0; with momenta, the generalized momenta P = T'Mv (columns p<i>, `simulate --momenta`;
    004 Fig. 4a). Event times (from the event logs next to the CSVs) are marked on every panel
    that shows data. model: the runs' model, for the units of q (minimal_unit) and whether they
    have constraint rows (has_constraints)."""
    import matplotlib.pyplot as plt

    fig = runs_figure(csv_paths, labels, momenta, model)
    out = Path(out) if out else Path(csv_paths[0]).with_suffix(".png")
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=110)
    plt.close(fig)
    return [out]


def runs_figure(csv_paths, labels=None, momenta=False, model=None):
    """The figure plot_runs saves (a matplotlib Figure; close it with plt.close)."""
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
    p_cols = max((_minimal_columns(r, "p") for r in runs), key=len) if momenta else []
    if momenta and not p_cols:
        raise McsError("plot --momenta: the CSV has no momenta (run simulate --momenta)")
    extra = (len(p_cols) + 1) // 2
    fig, axes = plt.subplots(
        nrows + 1 + extra, 2, figsize=(11, 2.4 * (nrows + 1 + extra)), squeeze=False, sharex=True
    )
    c_ax, e_ax = axes[nrows]
    bottom = list(axes[-1])  # the panels that carry the time axis
    if not has_constraints(runs, model):  # no |c| panel: the energy panel takes the row
        grid = c_ax.get_subplotspec().get_gridspec()
        c_ax.remove()
        e_ax.remove()
        c_ax, e_ax = None, fig.add_subplot(grid[nrows, :], sharex=axes[0, 0])
        bottom = [e_ax] + (bottom if extra else [])  # its own time axis: it is twice as wide
    for run, label in zip(runs, labels):
        t = run["t"]
        for i, (qc, qdc) in enumerate(zip(q_cols, qd_cols)):
            if qc in run:
                axes[i, 0].plot(t, run[qc], label=label, lw=1.2)
            if qdc in run:
                axes[i, 1].plot(t, run[qdc], label=label, lw=1.2)
        if c_ax is not None:
            c_ax.semilogy(t, np.maximum(run["c_norm"], 1e-20), label=label, lw=1.0)
        if "energy" in run:
            e_ax.plot(t, run["energy"] - run["energy"][0], label=label, lw=1.0)
        for k, pc in enumerate(p_cols):
            if pc in run:
                axes[nrows + 1 + k // 2, k % 2].plot(t, run[pc], label=label, lw=1.2)
    for k, pc in enumerate(p_cols):
        axes[nrows + 1 + k // 2, k % 2].set_ylabel(f"$P_{{{pc[1:]}}}$ [momentum units]")
    if len(p_cols) % 2:
        axes[-1, 1].axis("off")  # an odd number of momenta leaves one panel empty
    mark_events(fig.axes, sorted({te for p in csv_paths for te in event_times(p)}))
    unit = minimal_unit(model)
    if unit.startswith(("mixed", "coordinate")):
        rate = f"{unit}, per s"
    else:
        rate = "1/s" if unit == "1" else f"{unit}/s"
    for i, (qc, qdc) in enumerate(zip(q_cols, qd_cols)):
        axes[i, 0].set_ylabel(f"$q_{{{qc[1:]}}}$ [{unit}]")
        axes[i, 1].set_ylabel(f"$\\dot q_{{{qdc[2:]}}}$ [{rate}]")
    if c_ax is not None:
        c_ax.set_ylabel("$|c|_\\infty$ [row units]")
    e_ax.set_ylabel("$E - E_0$ [J]" if has_energy else "(no energy)")
    for ax in bottom:
        ax.set_xlabel("t [s]")
    for ax in fig.axes:
        ax.grid(True, alpha=0.3)
    axes[0, 0].legend(loc="best", fontsize="small")
    axes[0, 0].set_title("minimal coordinates $q$ (accumulated)")
    axes[0, 1].set_title("their rates $\\dot q = T^T v$")
    fig.tight_layout()
    return fig


def _figure(nrows, ncols, size):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(nrows, ncols, figsize=size, squeeze=False)
    return plt, fig, axes


def _labels(csv_paths, labels):
    labels = list(labels or [])
    if labels and len(labels) != len(csv_paths):
        raise McsError("plot: give one --label per CSV file")
    return labels or [Path(p).stem for p in csv_paths]


# the unit of a joint's free coordinate (joints.JointType.coordinate): the angle about its axis
# (revolute) in rad, the position along it (prismatic) in m, as the bodies' coordinates
JOINT_COORDINATE_UNITS = {"angle": "rad", "translation": "m"}


def column_unit(column, model=None):
    """The unit of a CSV column ("" when unknown): t in s, the energy in J, and with the model
    its coordinates' positions x.<name> and rates v.<name>, its joints' free coordinates
    j.<joint> (a revolute joint's angle in rad, a prismatic joint's displacement in m) and their
    rates jd.<joint>."""
    if column == "t":
        return "s"
    if column == "energy":
        return "J"
    if column in ("c_norm", "rank") or model is None:
        return ""
    kind, _, name = column.partition(".")
    if kind in ("x", "v"):
        units = {c.name: c.unit or "" for c in model.coordinates}
    elif kind in ("j", "jd"):
        units = {
            j.name: JOINT_COORDINATE_UNITS.get(j.type.coordinate, "")
            for j in model.joints
            if j.coordinate is not None
        }
    else:
        return ""
    if name not in units:
        return ""
    if kind in ("x", "j"):
        return units[name]
    return f"{units[name]}/s" if units[name] else "1/s"


def plot_columns(csv_paths, columns, out=None, labels=None, model=None):
    """Any CSV columns over time, one panel each, the runs overlaid; units from the model's
    coordinates and joints when it is given."""
    import matplotlib.pyplot as plt

    fig = columns_figure(csv_paths, columns, labels, model)
    out = Path(out) if out else Path(csv_paths[0]).with_name(Path(csv_paths[0]).stem + "_cols.png")
    fig.savefig(out, dpi=110)
    plt.close(fig)
    return [out]


def columns_figure(csv_paths, columns, labels=None, model=None):
    """The figure plot_columns saves (a matplotlib Figure; close it with plt.close)."""
    runs = [read_run(p) for p in csv_paths]
    labels = _labels(csv_paths, labels)
    for run, path in zip(runs, csv_paths):
        missing = [c for c in columns if c not in run]
        if missing:
            raise McsError(
                f"plot --columns: {path} has no column '{missing[0]}' (it has: "
                f"{', '.join(list(run)[:12])}{', ...' if len(run) > 12 else ''})"
            )
    plt, fig, axes = _figure(len(columns), 1, (9, 2.4 * len(columns) + 0.6))
    for ax, col in zip(axes[:, 0], columns):
        for run, label in zip(runs, labels):
            ax.plot(run["t"], run[col], lw=1.0, label=label)
        unit = column_unit(col, model)
        ax.set_ylabel(f"{col} [{unit}]" if unit else col)
        ax.set_xlabel("t [s]")
        ax.grid(True, alpha=0.3)
        if len(runs) > 1:
            ax.legend(loc="best", fontsize="small")
    axes[0, 0].set_title(", ".join(labels) + (f" ({model.name})" if model is not None else ""))
    fig.tight_layout()
    return fig


def plot_rdiag(csv_paths, out=None, labels=None):
    """|R_ii| over time, one panel per run (002 Figs. 2, 5, 8, 14)."""
    runs = [read_run(p) for p in csv_paths]
    labels = _labels(csv_paths, labels)
    plt, fig, axes = _figure(len(runs), 1, (9, 3.2 * len(runs)))
    for ax, run, label in zip(axes[:, 0], runs, labels):
        cols = sorted((k for k in run if k.startswith("rdiag")), key=lambda k: int(k[5:]))
        if not cols:
            raise McsError(
                f"plot --rdiag: {label} has no rdiag columns (a model without " "constraints?)"
            )
        for k in cols:
            ax.semilogy(run["t"], np.maximum(run[k], 1e-300), lw=1.0, label=f"$|R_{{{k[5:]}}}|$")
        ax.set_title(f"diagonal of R ({label})")
        ax.set_xlabel("t [s]")
        ax.grid(True, alpha=0.3)
        if len(cols) <= 16:
            ax.legend(loc="center left", bbox_to_anchor=(1.0, 0.5), fontsize="x-small")
    fig.tight_layout()
    out = Path(out) if out else Path(csv_paths[0]).with_name(Path(csv_paths[0]).stem + "_rdiag.png")
    fig.savefig(out, dpi=110)
    plt.close(fig)
    return [out]


def plot_basis(csv_paths, body, out=None, labels=None):
    """Components of the tangent basis T for one body's coordinates, runs side by side
    (002 Figs. 10-11: traditional vs continued)."""
    runs = [read_run(p) for p in csv_paths]
    labels = _labels(csv_paths, labels)
    prefix = f".{body}."
    cols = [k for k in runs[0] if k.startswith("T1" + prefix)]
    if not cols:
        raise McsError(
            f"plot --basis: no columns T1.{body}.* (simulate with --basis, and check "
            "the body name)"
        )
    coords = [k.split(prefix, 1)[1] for k in cols]
    nbasis = max(
        int(k.split(".")[0][1:])
        for k in runs[0]
        if k.startswith("T") and k.split(".")[0][1:].isdigit() and not np.all(np.isnan(runs[0][k]))
    )
    plt, fig, axes = _figure(nbasis, len(runs), (5.5 * len(runs), 2.6 * nbasis))
    for c, (run, label) in enumerate(zip(runs, labels)):
        for j in range(nbasis):
            ax = axes[j, c]
            for coord in coords:
                key = f"T{j + 1}{prefix}{coord}"
                if key in run:
                    ax.plot(run["t"], run[key], lw=1.0, label=coord)
            ax.set_ylabel(f"column {j + 1} of T")
            ax.grid(True, alpha=0.3)
        axes[0, c].set_title(f"{label}: components of T for {body}")
        axes[-1, c].set_xlabel("t [s]")
    axes[0, 0].legend(fontsize="small")
    fig.tight_layout()
    out = (
        Path(out)
        if out
        else Path(csv_paths[0]).with_name(Path(csv_paths[0]).stem + f"_basis_{body}.png")
    )
    fig.savefig(out, dpi=110)
    plt.close(fig)
    return [out]


def plot_events(events_path, model, out=None):
    """The mechanism at each singular configuration with the continued and the new admissible
    motions drawn as arrows at the joint points (planar mechanisms; 002 Figs. 3, 6, 9)."""
    import json

    try:
        events = json.loads(Path(events_path).read_text())
    except (OSError, ValueError) as exc:
        raise McsError(f"{events_path}: cannot read the event log ({exc})") from None
    events = [e for e in events if e.get("kind", "singular") == "singular"]
    if not events:
        raise McsError(f"{events_path}: no singular configurations to draw")
    if model.kind != "planar" or not model.drawing:
        raise McsError("plot --events draws planar mechanisms described by bodies and joints")
    shown = events[:4]
    nmot = max(len(e["continued"]) + len(e["motions"]) for e in shown)
    plt, fig, axes = _figure(len(shown), nmot, (4.2 * nmot, 3.4 * len(shown)))
    for row, ev in enumerate(shown):
        vectors = [("continued", m) for m in ev["continued"]] + [("new", m) for m in ev["motions"]]
        for col in range(nmot):
            ax = axes[row, col]
            ax.set_aspect("equal")
            ax.set_xticks([])
            ax.set_yticks([])
            if col >= len(vectors):
                continue
            kind, motion = vectors[col]
            extent, arrows = [], []
            for body, points in sorted(model.drawing.items()):
                if body == "ground":
                    continue
                x, y, th = (ev["x"][f"{body}.{c}"] for c in ("x", "y", "theta"))
                dx, dy, dth = (motion[f"{body}.{c}"] for c in ("x", "y", "theta"))
                c, s = np.cos(th), np.sin(th)
                world = sorted((x + c * px - s * py, y + s * px + c * py) for px, py in points)
                xs, ys = zip(*world)
                ax.plot(xs, ys, "-o", color="0.3", lw=3, ms=4, alpha=0.6)
                extent += world
                for wx, wy in world:
                    # velocity of the point under the motion: dr + dtheta x (R p)
                    arrows.append((wx, wy, dx - dth * (wy - y), dy + dth * (wx - x)))
            ex, ey = zip(*extent)
            span = max(max(ex) - min(ex), max(ey) - min(ey), 1e-3)
            longest = max(np.hypot(a[2], a[3]) for a in arrows) or 1.0
            scale = 0.25 * span / longest
            for wx, wy, vx, vy in arrows:
                if np.hypot(vx, vy) < 1e-9 * longest:
                    continue
                ax.annotate(
                    "",
                    xy=(wx + scale * vx, wy + scale * vy),
                    xytext=(wx, wy),
                    arrowprops=dict(
                        arrowstyle="->",
                        lw=1.5,
                        color="tab:blue" if kind == "continued" else "tab:red",
                    ),
                )
                extent.append((wx + scale * vx, wy + scale * vy))
            ex, ey = zip(*extent)
            span = max(max(ex) - min(ex), max(ey) - min(ey), 1e-3)
            cx, cy = (max(ex) + min(ex)) / 2, (max(ey) + min(ey)) / 2
            ax.set_xlim(cx - 0.6 * span, cx + 0.6 * span)
            ax.set_ylim(cy - 0.6 * span, cy + 0.6 * span)
            ax.set_title(f"t = {ev['t']:.4f} s: {kind} motion", fontsize="small")
    fig.suptitle(
        f"{model.name}: admissible motions at singular configurations "
        f"(rank {shown[0]['rank_before']} -> {shown[0]['rank_after']})"
    )
    fig.tight_layout()
    out = Path(out) if out else Path(events_path).with_suffix(".png")
    fig.savefig(out, dpi=110)
    plt.close(fig)
    return [out]
