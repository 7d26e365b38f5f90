"""`./mcsgen animate`: the bodies and joints of a run drawn over time, as a GIF (or an MP4 when
ffmpeg is installed), with the time and the energy in a corner.

A body is drawn as segments from its centre to its joint points (the points its joints use, in
body coordinates: `Model.drawing`), placed with the body's pose in each CSV row: planar bodies
by `<body>.x`, `.y`, `.theta`; spatial ones by `<body>.x`, `.y`, `.z` and the Euler parameters
`.e0..e3`, in a 3D line drawing. The ground's joint points are drawn fixed. Frames are taken at
equal times through the run (the nearest row), so a run written with one row per step and one
written every `--dt-out` look the same.
"""

from pathlib import Path

import numpy as np

from ..errors import McsError
from .plot import read_run

MAX_FRAMES = 2000  # a GIF of more frames is too large to be useful


def rotation_planar(theta):
    """R(theta) (2 x 2)."""
    c, s = np.cos(theta), np.sin(theta)
    return np.array([[c, -s], [s, c]])


def rotation_quaternion(e):
    """R(e) (3 x 3) of Euler parameters e = (e0, e1, e2, e3), normalized first (a CSV row holds
    them to the integration's accuracy): the model's own formula (model/bodies.py)."""
    from ..model.bodies import rotation_from_euler

    e = np.asarray(e, dtype=float) / np.linalg.norm(e)
    return np.array(rotation_from_euler([float(c) for c in e]).tolist(), dtype=float)


def body_segments(model, run, i, drawing=None):
    """[(body, centre (d), joint points in the world (k x d))] at row i; the ground's points
    as the body "ground" with centre None. drawing: the joint points in body coordinates
    (default: model.drawing, the default parameter values; Model.drawing_at for others)."""
    out = []
    for body, points in sorted((drawing or model.drawing).items()):
        pts = np.asarray(points, dtype=float).reshape(len(points), -1)
        if body == "ground":
            out.append((body, None, pts))
            continue
        if model.kind == "planar":
            if f"x.{body}.theta" not in run:
                continue
            centre = np.array([run[f"x.{body}.x"][i], run[f"x.{body}.y"][i]])
            R = rotation_planar(run[f"x.{body}.theta"][i])
        else:
            if f"x.{body}.e0" not in run:
                continue
            centre = np.array([run[f"x.{body}.{c}"][i] for c in ("x", "y", "z")])
            R = rotation_quaternion([run[f"x.{body}.e{k}"][i] for k in range(4)])
        out.append((body, centre, centre + pts @ R.T))
    return out


def frame_rows(t, frames):
    """Row indices at `frames` equal times from t[0] to t[-1] (the nearest row each)."""
    targets = np.linspace(t[0], t[-1], frames)
    idx = np.clip(np.searchsorted(t, targets), 0, len(t) - 1)
    prev = np.clip(idx - 1, 0, len(t) - 1)
    closer = np.abs(t[prev] - targets) < np.abs(t[idx] - targets)
    return np.where(closer, prev, idx)


def animate_run(csv_path, model, out=None, frames=100, fps=20, params=None):
    """Write the animation of the run in csv_path of `model` (a loaded mechanism model) to out
    (default: next to the CSV, .gif); returns the path written. params: the parameter values
    the run was simulated with ({name: float}), so that the joint points drawn are its own."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.animation import FFMpegWriter, FuncAnimation, PillowWriter

    if model.kind not in ("planar", "spatial") or not model.drawing:
        raise McsError(
            f"animate: {model.name} is given by coordinates, not by bodies and joints: there is "
            "no mechanism to draw (plot draws its coordinates)"
        )
    if not 2 <= frames <= MAX_FRAMES:
        raise McsError(f"animate: --frames takes 2 to {MAX_FRAMES}, got {frames}")
    out = Path(out) if out else Path(csv_path).with_suffix(".gif")
    if out.suffix not in (".gif", ".mp4"):
        raise McsError(f"animate: {out}: write a .gif or an .mp4")
    if out.suffix == ".mp4" and not FFMpegWriter.isAvailable():
        raise McsError("animate: an .mp4 needs ffmpeg (apt-get install ffmpeg); a .gif does not")
    drawing = model.drawing_at(params or {})
    run = read_run(csv_path)
    if not any(c is not None for _, c, _ in body_segments(model, run, 0, drawing)):
        raise McsError(f"animate: {csv_path} is not a run of {model.name} (no body columns)")
    t = run["t"]
    rows = frame_rows(t, min(frames, len(t)) if len(t) > 1 else 1)
    spatial = model.kind == "spatial"
    # the extent of the whole run, so that the view stays still
    every = np.vstack(
        [np.vstack([p] + ([c] if c is not None else [])) for i in rows for _, c, p in
         body_segments(model, run, i, drawing)]  # fmt: skip
    )
    lo, hi = every.min(axis=0), every.max(axis=0)
    half = 0.55 * max(float((hi - lo).max()), 1e-6)
    mid = (lo + hi) / 2
    fig = plt.figure(figsize=(6.4, 5.2))
    ax = fig.add_subplot(projection="3d") if spatial else fig.add_subplot()
    axes_names = ("x", "y", "z")[: every.shape[1]]
    for k, name in enumerate(axes_names):
        getattr(ax, f"set_{name}lim")(mid[k] - half, mid[k] + half)
        getattr(ax, f"set_{name}label")(f"{name} [m]")
    if spatial:
        ax.set_box_aspect((1, 1, 1))
    else:
        ax.set_aspect("equal")
        ax.grid(True, lw=0.3)
    ax.set_title(f"{model.name} ({Path(csv_path).name})")
    energy = run.get("energy")
    corner = (
        fig.text(0.02, 0.03, "", family="monospace")  # clear of the 3D box and the title
        if spatial
        else ax.text(0.02, 0.95, "", transform=ax.transAxes, family="monospace", va="top")
    )
    artists = []

    def draw(k):
        for a in artists:
            a.remove()
        artists.clear()
        i = rows[k]
        for body, centre, pts in body_segments(model, run, i, drawing):
            if centre is None:  # the ground's joint points
                artists.extend(ax.plot(*pts.T, "k^", ms=7))
                continue
            for p in pts:
                seg = np.vstack([centre, p]).T
                artists.extend(ax.plot(*seg, "-", color="0.25", lw=3, solid_capstyle="round"))
            artists.extend(ax.plot(*pts.T, "o", color="tab:blue", ms=5))
            artists.extend(ax.plot(*centre.reshape(-1, 1), "s", color="tab:red", ms=4))
        text = f"t = {t[i]:8.4f} s"
        if energy is not None:
            text += f"\nE = {energy[i]:.6g} J"
        corner.set_text(text)
        return artists + [corner]

    anim = FuncAnimation(fig, draw, frames=len(rows), blit=False)
    out.parent.mkdir(parents=True, exist_ok=True)
    writer = PillowWriter(fps=fps) if out.suffix == ".gif" else FFMpegWriter(fps=fps)
    anim.save(out, writer=writer, dpi=80)
    plt.close(fig)
    return out
