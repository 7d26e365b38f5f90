"""Figures of runs (issue 14): ./mcsgen animate, the mechanism drawn over time, planar and
spatial; ./mcsgen plot --columns, any columns with their units."""

import numpy as np
import pytest
from PIL import Image, ImageChops

from conftest import ROOT
from helpers import simulate


@pytest.fixture(scope="module")
def bodies_csv(tmp_path_factory):
    """A short run of the 3R pendulum of bodies and joints (revolute joints J1..J3)."""
    tmp = tmp_path_factory.mktemp("bodies")
    simulate(tmp, "pendulum_3r_bodies", t_end=0.3)
    (csv,) = tmp.glob("*.csv")
    return csv


@pytest.fixture(scope="module")
def unconstrained_csv(tmp_path_factory):
    """A short run of the 3R pendulum in its joint angles: no constraint rows (m = 0)."""
    tmp = tmp_path_factory.mktemp("pendulum_3r")
    simulate(tmp, "pendulum_3r", t_end=0.3)
    (csv,) = tmp.glob("*.csv")
    return csv


def _event_lines(ax):
    """The dashed vertical lines on a panel (mark_events): their times."""
    return sorted(
        line.get_xdata()[0]
        for line in ax.lines
        if line.get_linestyle() == "--" and len(set(line.get_xdata())) == 1
    )


def _close(fig):
    import matplotlib.pyplot as plt

    plt.close(fig)


@pytest.mark.parametrize(
    "model, options",
    [
        ("pendulum_3r_bodies", {"t_end": 0.6, "dt_out": 0.01}),  # planar, three links
        ("slider_crank", {"t_end": 0.3, "dt_out": 0.005}),  # spatial, with a slider
    ],
)
def test_animate_draws_every_frame_and_the_mechanism_moves(model, options, tmp_path, cli):
    simulate(tmp_path, model, **options)
    (csv,) = tmp_path.glob("*.csv")
    gif = tmp_path / "movie.gif"
    proc = cli("animate", csv, "--model", model, "--frames", 12, "--out", gif)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == str(gif)
    im = Image.open(gif)
    assert im.n_frames == 12
    frames = []
    for k in range(im.n_frames):
        im.seek(k)
        frames.append(im.convert("RGB"))
    for a, b in zip(frames, frames[1:]):  # the bodies move (and the time in the corner)
        assert ImageChops.difference(a, b).getbbox() is not None
    # something is drawn in the dark colour of the links in every frame
    dark = [np.sum(np.asarray(f).sum(axis=2) < 200) for f in frames]
    assert min(dark) > 100


def test_animate_refuses_a_model_without_bodies(tmp_path, cli):
    simulate(tmp_path, "planar_pendulum", t_end=0.05)
    (csv,) = tmp_path.glob("*.csv")
    proc = cli("animate", csv, "--model", "planar_pendulum")
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1
    assert "given by coordinates" in proc.stderr and not list(tmp_path.glob("*.gif"))


def test_plot_columns_draws_any_columns_with_their_units(bodies_csv, tmp_path, cli):
    from mcsgen.model import load_model
    from mcsgen.outputs.plot import column_unit

    csv = bodies_csv
    png = tmp_path / "cols.png"
    proc = cli("plot", csv, "--columns", "x.link1.theta,v.link1.theta,energy", "--model",
               "pendulum_3r_bodies", "--out", png)  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert png.read_bytes()[:4] == b"\x89PNG" and png.stat().st_size > 20000
    model = load_model(ROOT / "models" / "pendulum_3r_bodies.yaml")
    units = [column_unit(c, model) for c in ("t", "x.link1.x", "v.link1.theta", "energy", "q1")]
    assert units == ["s", "m", "rad/s", "J", ""]
    proc = cli("plot", csv, "--columns", "x.link1.phi")
    assert proc.returncode == 2 and "no column 'x.link1.phi'" in proc.stderr


def test_the_q_panels_carry_units():
    """q = accumulated T^T-chart coordinates combine the coordinates: their one unit when they
    share it (the spatial pendulum: m), else the units mixed (the 3R bodies: m, rad)."""
    from mcsgen.model import load_model
    from mcsgen.outputs.plot import minimal_unit

    assert minimal_unit(load_model(ROOT / "models" / "spatial_pendulum.yaml")) == "m"
    assert minimal_unit(load_model(ROOT / "models" / "pendulum_3r.yaml")) == "rad"
    bodies = load_model(ROOT / "models" / "pendulum_3r_bodies.yaml")
    assert minimal_unit(bodies) == "mixed: m, rad" and minimal_unit() == "coordinate units"


def test_joint_columns_carry_their_units(bodies_csv):
    """j.<joint> and jd.<joint>: a revolute joint's angle in rad (rad/s), a prismatic joint's
    displacement in m (m/s); a joint without a free coordinate, or an unknown one: no unit."""
    from mcsgen.model import load_model
    from mcsgen.outputs.plot import column_unit, columns_figure

    bodies = load_model(ROOT / "models" / "pendulum_3r_bodies.yaml")
    slider = load_model(ROOT / "models" / "slider_crank.yaml")  # A revolute, D prismatic
    assert [column_unit(c, bodies) for c in ("j.J1", "jd.J3")] == ["rad", "rad/s"]
    units = [column_unit(c, slider) for c in ("j.A", "jd.A", "j.D", "jd.D", "j.B", "j.Z")]
    assert units == ["rad", "rad/s", "m", "m/s", "", ""]
    assert column_unit("j.J1") == ""  # without the model
    fig = columns_figure([bodies_csv], ["j.J2", "jd.J2"], model=bodies)
    try:
        assert [ax.get_ylabel() for ax in fig.axes] == ["j.J2 [rad]", "jd.J2 [rad/s]"]
    finally:
        _close(fig)


def test_event_lines_only_on_panels_with_data(tmp_path):
    """The event times are marked on the panels that show data, not on an empty or a hidden one
    (the spare panel next to an odd number of momenta)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from mcsgen.outputs.plot import mark_events, runs_figure

    fig, (full, empty, off) = plt.subplots(1, 3)
    full.plot([0, 1], [0, 1])
    off.axis("off")
    mark_events([full, empty, off], [0.25, 0.5])
    assert [_event_lines(ax) for ax in (full, empty, off)] == [[0.25, 0.5], [], []]
    plt.close(fig)

    # three momenta (p1..p3), two locks: the fourth momentum panel is hidden
    simulate(tmp_path, "pendulum_3r_locking", momenta=True, dt_out=0.05, t_end=1.5)
    (csv,) = tmp_path.glob("*.csv")
    fig = runs_figure([csv], momenta=True)
    try:
        hidden = [ax for ax in fig.axes if not ax.axison]
        shown = [ax for ax in fig.axes if ax.axison]
        assert len(hidden) == 1 and len(shown) >= 2 * 3 + 1 + 3
        assert _event_lines(hidden[0]) == []
        assert all(_event_lines(ax) == [0.8, 1.3] for ax in shown)
    finally:
        _close(fig)


def test_no_constraint_panel_without_constraints(unconstrained_csv, bodies_csv):
    """A model without constraint rows (pendulum_3r: c_norm all 0) gets no |c| panel, with or
    without --model; the energy panel takes its row. A constrained model keeps it, and so does a
    run whose locks (simulate --lock) add rows with a residual."""
    from mcsgen.model import load_model
    from mcsgen.outputs.plot import has_constraints, runs_figure

    model = load_model(ROOT / "models" / "pendulum_3r.yaml")
    bodies = load_model(ROOT / "models" / "pendulum_3r_bodies.yaml")
    assert model.m == 0 and bodies.m > 0
    zeros, locked = {"c_norm": np.zeros(3)}, {"c_norm": np.array([0, 0, 1e-15])}
    assert not has_constraints([zeros]) and not has_constraints([zeros], model)
    assert has_constraints([zeros, locked]) and has_constraints([locked], model)
    assert has_constraints([zeros], bodies)
    for kwargs in ({}, {"model": model}):
        fig = runs_figure([unconstrained_csv], **kwargs)
        try:
            labels = [ax.get_ylabel() for ax in fig.axes]
            assert not any("|c|" in label for label in labels), labels
            assert len(fig.axes) == 2 * 3 + 1  # q, qdot, and the energy
            (energy,) = [ax for ax in fig.axes if ax.get_ylabel().startswith("$E - E_0$")]
            q1 = fig.axes[0].get_position()
            qd1 = fig.axes[1].get_position()
            width = energy.get_position()
            assert width.x0 <= q1.x0 + 1e-9 and width.x1 >= qd1.x1 - 1e-9  # the whole row
            assert energy.get_xlabel() == "t [s]" and len(energy.lines) == 1
        finally:
            _close(fig)
    fig = runs_figure([bodies_csv])
    try:
        (c_panel,) = [ax for ax in fig.axes if "|c|" in ax.get_ylabel()]
        assert len(c_panel.lines) == 1
    finally:
        _close(fig)
