"""Figures of statics and modes results (003 Figs. 3 and 5): the equilibrium and each mode shape
drawn on the mechanism (bodies' centres joined in file order), and optional GIF animations.

Models given by bodies draw their bodies' positions (`<body>.x`, `.y`, `.z`); planar models in
their plane, spatial ones in a side view (x-z) and a top view (x-y). Models given by coordinates
draw each mode as a bar chart over the coordinates.
"""

from pathlib import Path

import numpy as np


def _body_positions(names):
    """[(body, index of .x, index of .y, index of .z or None)] in coordinate order."""
    index = {n: i for i, n in enumerate(names)}
    bodies = []
    for n in names:
        if n.endswith(".x"):
            b = n[:-2]
            if f"{b}.y" in index:
                bodies.append((b, index[n], index[f"{b}.y"], index.get(f"{b}.z")))
    return bodies


def _views(bodies):
    spatial = any(z is not None for _, _, _, z in bodies)
    if spatial:
        return [("x", "z", 1, 3), ("x", "y", 1, 2)]
    return [("x", "y", 1, 2)]


def _points(bodies, x, a, b):
    return np.array([[x[t[a]], x[t[b]]] for t in bodies])


def _scale(result, shape, bodies):
    x = np.asarray(result["x"])
    pts = np.array([[x[t[1]], x[t[2]]] + ([x[t[3]]] if t[3] is not None else []) for t in bodies])
    size = float(np.ptp(pts, axis=0).max()) if len(pts) > 1 else 1.0
    disp = max(
        float(
            np.linalg.norm([shape[t[1]], shape[t[2]]] + ([shape[t[3]]] if t[3] is not None else []))
        )
        for t in bodies
    )
    return 0.12 * max(size, 1e-9) / max(disp, 1e-300)


def plot_modes(result, out_dir, animate=False, max_modes=6):
    """PNG of the equilibrium (statics) or of the first mode shapes (modes); with animate, one
    GIF per mode. Returns the paths written."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    names, x = result["coordinates"], np.asarray(result["x"])
    bodies = _body_positions(names)
    modes = (result.get("modes") or {}).get("list", [])[:max_modes]
    written = []
    if not bodies:  # a model given by coordinates: bar charts
        fig, axes = plt.subplots(
            len(modes) + 1, 1, figsize=(8, 2 + 1.6 * len(modes)), squeeze=False
        )
        axes[0][0].bar(range(len(x)), x)
        axes[0][0].set_title("equilibrium")
        for k, mode in enumerate(modes):
            axes[k + 1][0].bar(range(len(x)), mode["shape"])
            axes[k + 1][0].set_title(f"mode {k + 1}: {mode['freq']:.4g} Hz")
        for ax in axes[:, 0]:
            ax.set_xticks(range(len(x)), names, rotation=90, fontsize=6)
        fig.tight_layout()
        path = out / ("modes.png" if modes else "equilibrium.png")
        fig.savefig(path, dpi=110)
        plt.close(fig)
        return [path]
    views = _views(bodies)
    rows = max(len(modes), 1)
    fig, axes = plt.subplots(
        rows, len(views), figsize=(5.5 * len(views), 3.2 * rows), squeeze=False
    )
    for k in range(rows):
        for v, (la, lb, a, b) in enumerate(views):
            ax = axes[k][v]
            p0 = _points(bodies, x, a, b)
            ax.plot(p0[:, 0], p0[:, 1], "-o", color="0.6", ms=2, lw=1, label="equilibrium")
            if modes:
                shape = np.asarray(modes[k]["shape"])
                s = _scale(result, shape, bodies)
                for sign, style in ((1, "-"), (-1, "--")):
                    p = _points(bodies, x + sign * s * shape, a, b)
                    ax.plot(p[:, 0], p[:, 1], style, color="C0", lw=1.2)
                ax.set_title(f"mode {k + 1}: {modes[k]['freq']:.4g} Hz ({la}-{lb} view)")
            else:
                ax.set_title(f"equilibrium ({la}-{lb} view)")
            ax.set_xlabel(la)
            ax.set_ylabel(lb)
            ax.set_aspect("equal", adjustable="datalim")
            ax.grid(True, lw=0.3)
    fig.tight_layout()
    path = out / ("modes.png" if modes else "equilibrium.png")
    fig.savefig(path, dpi=110)
    plt.close(fig)
    written.append(path)
    if animate:
        written += [_animate(result, bodies, views, k, mode, out) for k, mode in enumerate(modes)]
    return written


def _animate(result, bodies, views, k, mode, out):
    import matplotlib.pyplot as plt
    from matplotlib.animation import FuncAnimation, PillowWriter

    x = np.asarray(result["x"])
    shape = np.asarray(mode["shape"])
    s = _scale(result, shape, bodies)
    fig, axes = plt.subplots(1, len(views), figsize=(5 * len(views), 3.2), squeeze=False)
    lines = []
    for v, (la, lb, a, b) in enumerate(views):
        ax = axes[0][v]
        p0 = _points(bodies, x, a, b)
        ax.plot(p0[:, 0], p0[:, 1], "-", color="0.8", lw=1)
        lo = np.minimum(_points(bodies, x - s * shape, a, b), _points(bodies, x + s * shape, a, b))
        hi = np.maximum(_points(bodies, x - s * shape, a, b), _points(bodies, x + s * shape, a, b))
        pad = 0.05 * max(float((hi - lo).max()), 1e-9)
        ax.set_xlim(lo[:, 0].min() - pad, hi[:, 0].max() + pad)
        ax.set_ylim(lo[:, 1].min() - pad, hi[:, 1].max() + pad)
        ax.set_aspect("equal", adjustable="datalim")
        ax.set_title(f"mode {k + 1}: {mode['freq']:.4g} Hz ({la}-{lb})")
        (line,) = ax.plot([], [], "-o", color="C0", ms=2)
        lines.append((line, a, b))

    def frame(i):
        xi = x + s * np.sin(2 * np.pi * i / 24) * shape
        for line, a, b in lines:
            p = _points(bodies, xi, a, b)
            line.set_data(p[:, 0], p[:, 1])
        return [ln for ln, _, _ in lines]

    anim = FuncAnimation(fig, frame, frames=24, blit=True)
    path = out / f"mode{k + 1}.gif"
    anim.save(path, writer=PillowWriter(fps=12))
    plt.close(fig)
    return path
