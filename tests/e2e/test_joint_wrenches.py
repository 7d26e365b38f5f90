"""The joints' forces and moments (`--reactions`: Fx.<joint> ... Nz.<joint>; the runtime's
mcs_sim_joint_wrenches) against rigid-body mechanics worked by hand, in both formulations (the
shipped models' agreement between the two: test_joint_coordinates.py)."""

import numpy as np
import pytest

from helpers import simulate

G = 9.81
MASS, LENGTH = 2.0, 0.8
ROD = f"""
name: released_rod_{{coordinates}}
description: a uniform rod hinged at one end, released level and at rest
parameters:
  g: {{{{value: {G}, unit: m/s^2, description: gravity}}}}
gravity: [0, 0, -g]
bodies:
  - name: rod
    type: spatial
    mass: {MASS}
    inertia: [{MASS * LENGTH**2 / 12}, {MASS * LENGTH**2 / 12}, 1.0e-6]
    position: [{LENGTH / 2}, 0, 0]
    orientation: {{{{matrix: [[0, 0, 1], [0, 1, 0], [-1, 0, 0]]}}}}
joints:
  - {{{{name: pin, type: revolute, body1: ground, body2: rod, point: [0, 0, 0], axis: [0, 1, 0]}}}}
coordinates: {{coordinates}}
simulation: {{{{t_end: 0.5, h: 1.0e-3, method: dopri5, rtol: 1.0e-12, atol: 1.0e-14}}}}
"""


@pytest.mark.parametrize("coordinates", ["body", "joint"])
def test_a_released_rod_pulls_its_pin_as_newton_euler_says(tmp_path, coordinates):
    """A rod of mass m and length L hinged at one end, let go level: the pin holds it with m g / 4
    at release (alpha = 3 g / (2 L)), and at every angle theta below the level, from the energy
    (w^2 = 3 g sin(theta) / L) and alpha = 3 g cos(theta) / (2 L), the centre of mass's
    acceleration (L / 2)(alpha t - w^2 r) gives F = m (a - g); a revolute pin exerts no moment
    about its axis, and none at all on a rod whose centre of mass is on the pin's plane."""
    path = tmp_path / f"released_rod_{coordinates}.yaml"
    path.write_text(ROD.format(coordinates=coordinates).replace("{{", "{").replace("}}", "}"))
    _, run = simulate(tmp_path, str(path), reactions=True, dt_out=0.01)
    assert run["Fz.pin"][0] == pytest.approx(MASS * G / 4, rel=1e-10)
    assert abs(run["Fx.pin"][0]) < 1e-10 and abs(run["Fy.pin"][0]) < 1e-10
    theta = np.abs(run["j.pin"])
    w2 = 3 * G * np.sin(theta) / LENGTH
    alpha = 3 * G * np.cos(theta) / (2 * LENGTH)
    r = np.stack([np.cos(theta), -np.sin(theta)])  # pin -> centre of mass, unit (x, z)
    t = np.stack([np.sin(theta), np.cos(theta)])  # its turning direction, downwards
    acc = LENGTH / 2 * (alpha * -t - w2 * r)  # the rod falls: theta grows, t points down
    force = MASS * (acc - np.array([[0.0], [-G]]))
    scale = MASS * G
    assert np.abs(run["Fx.pin"] - force[0]).max() <= 1e-9 * scale
    assert np.abs(run["Fz.pin"] - force[1]).max() <= 1e-9 * scale
    assert np.abs(run["Fy.pin"]).max() <= 1e-9 * scale
    for c in ("Nx.pin", "Ny.pin", "Nz.pin"):
        assert np.abs(run[c]).max() <= 1e-9 * scale * LENGTH, c
    assert theta.max() > 1.5  # through the bottom of the swing
