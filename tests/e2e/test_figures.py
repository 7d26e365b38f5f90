"""Figures of runs (issue 14): ./mcsgen animate, the mechanism drawn over time, planar and
spatial; ./mcsgen plot --columns, any columns with their units."""

import numpy as np
import pytest
from PIL import Image, ImageChops

from conftest import ROOT
from helpers import simulate


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


def test_plot_columns_draws_any_columns_with_their_units(tmp_path, cli):
    from mcsgen.model import load_model
    from mcsgen.outputs.plot import column_unit

    simulate(tmp_path, "pendulum_3r_bodies", t_end=0.3)
    (csv,) = tmp_path.glob("*.csv")
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
