"""Figures of statics and modes results (003 Figs. 3 and 5): the equilibrium and each mode shape
drawn on the mechanism, and optional GIF animations.

Models given by bodies in body coordinates draw each body as animate does, segments from its
centre to its joint points (Model.drawing, placed by the body's pose in the state), so that a
four-bar looks like one; planar models in their plane, spatial ones in a side view (x-z) and a
top view (x-y). Without the model (`plot --modes FILE.json` without --model) the bodies' centres
are joined in coordinate order. Models given by coordinates, or in joint coordinates, draw each
mode as a bar chart over the coordinates.
"""

from pathlib import Path

import numpy as np

from .animate import body_segments


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


class _Drawing:
    """A state drawn as polylines in a view's two axes (a, b: 1 for x, 2 for y, 3 for z): the
    mechanism's bodies by their joint points when a model's drawing places them, else the
    bodies' centres joined in coordinate order."""

    def __init__(self, names, bodies, model=None, drawing=None):
        self.names, self.bodies, self.model = names, bodies, model
        self.drawing = drawing if drawing is not None else getattr(model, "drawing", None)
        self.by_joints = (
            bool(self.drawing)
            and getattr(model, "kind", None) in ("planar", "spatial")
            and any(c is not None for _, c, _ in self._segments(np.zeros(len(names))))
        )

    def _segments(self, x):
        run = {f"x.{n}": np.array([v]) for n, v in zip(self.names, x)}
        if getattr(self.model, "kind", None) == "spatial":  # a shape's rotation: unit norms
            for body in self.drawing:
                if f"x.{body}.e0" in run and not any(run[f"x.{body}.e{k}"][0] for k in range(4)):
                    run[f"x.{body}.e0"] = np.array([1.0])
        return body_segments(self.model, run, 0, self.drawing)

    def lines(self, x, a, b):
        """[(k x 2) polyline] of state x in the view (a, b)."""
        if not self.by_joints:
            return [_points(self.bodies, x, a, b)]
        out = []
        for _, centre, pts in self._segments(x):
            if centre is None:  # the ground's joint points: drawn as points
                out += [p[[a - 1, b - 1]].reshape(1, 2) for p in pts]
                continue
            out += [np.vstack([centre, p])[:, [a - 1, b - 1]] for p in pts]
        return out

    def points(self, x, a, b):
        """Every point drawn of state x in the view (k x 2): the figure's extent."""
        return np.vstack(self.lines(x, a, b))


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


def plot_modes(result, out_dir, animate=False, max_modes=6, model=None, drawing=None):
    """PNG of the equilibrium (statics) or of the first mode shapes (modes); with animate, one
    GIF per mode. model: the mechanism's (its bodies drawn by their joint points; drawing: its
    joint points for the run's parameter values, Model.drawing_at). Returns the paths written."""
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
    draw = _Drawing(names, bodies, model, drawing)
    rows = max(len(modes), 1)
    fig, axes = plt.subplots(
        rows, len(views), figsize=(5.5 * len(views), 3.2 * rows), squeeze=False
    )
    for k in range(rows):
        for v, (la, lb, a, b) in enumerate(views):
            ax = axes[k][v]
            for p0 in draw.lines(x, a, b):
                ax.plot(p0[:, 0], p0[:, 1], "-o", color="0.6", ms=2, lw=1)
            if modes:
                shape = np.asarray(modes[k]["shape"])
                s = _scale(result, shape, bodies)
                for sign, style in ((1, "-"), (-1, "--")):
                    for p in draw.lines(x + sign * s * shape, a, b):
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
        written += [
            _animate(result, bodies, draw, views, k, mode, out) for k, mode in enumerate(modes)
        ]
    return written


def _animate(result, bodies, draw, views, k, mode, out):
    import matplotlib.pyplot as plt
    from matplotlib.animation import FuncAnimation, PillowWriter

    x = np.asarray(result["x"])
    shape = np.asarray(mode["shape"])
    s = _scale(result, shape, bodies)
    fig, axes = plt.subplots(1, len(views), figsize=(5 * len(views), 3.2), squeeze=False)
    lines = []
    for v, (la, lb, a, b) in enumerate(views):
        ax = axes[0][v]
        for p0 in draw.lines(x, a, b):
            ax.plot(p0[:, 0], p0[:, 1], "-", color="0.8", lw=1)
        every = np.vstack([draw.points(x - s * shape, a, b), draw.points(x + s * shape, a, b)])
        lo, hi = every.min(axis=0), every.max(axis=0)
        pad = 0.05 * max(float((hi - lo).max()), 1e-9)
        ax.set_xlim(lo[0] - pad, hi[0] + pad)
        ax.set_ylim(lo[1] - pad, hi[1] + pad)
        ax.set_aspect("equal", adjustable="datalim")
        ax.set_title(f"mode {k + 1}: {mode['freq']:.4g} Hz ({la}-{lb})")
        count = len(draw.lines(x, a, b))  # the same polylines in every frame
        lines.append(([ax.plot([], [], "-o", color="C0", ms=2)[0] for _ in range(count)], a, b))

    def frame(i):
        xi = x + s * np.sin(2 * np.pi * i / 24) * shape
        for artists, a, b in lines:
            for line, p in zip(artists, draw.lines(xi, a, b)):
                line.set_data(p[:, 0], p[:, 1])
        return [ln for artists, _, _ in lines for ln in artists]

    anim = FuncAnimation(fig, frame, frames=24, blit=True)
    path = out / f"mode{k + 1}.gif"
    anim.save(path, writer=PillowWriter(fps=12))
    plt.close(fig)
    return path
