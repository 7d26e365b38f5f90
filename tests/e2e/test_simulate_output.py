"""What `./mcsgen simulate` reports about a run (issue 34): whole turns of the joint columns with
sparse output rows, ..."""

import csv
import math

SPINNER = """\
name: spinner
description: a planar disc turning about its centre on a revolute joint, no gravity
parameters:
  m: {value: 1.0, unit: kg, description: mass}
  J: {value: 0.5, unit: kg m^2, description: inertia about the centre}
gravity: [0, 0]
bodies:
  - {name: disc, type: planar, mass: m, inertia: J, angle: 0, position: [0, 0]}
joints:
  - {name: hub, type: revolute, body1: disc, body2: ground, point: [0, 0], rate: RATE}
simulation:
  t_end: 1.0
  h: 1.0e-3
  method: rk4
"""


def read_csv(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def test_joint_angles_count_whole_turns_between_sparse_rows(cli, write_model, tmp_path):
    """A disc turning at 2.5 turns/s, rows every 0.3 s (0.75 of a turn apart, more than half a
    turn): j.hub is the angle turned, 5 pi t, not the angle less the turns between rows."""
    for rate in ("5*pi", "-5*pi"):
        model = write_model(SPINNER.replace("RATE", rate), "spinner")
        out = tmp_path / "spin.csv"
        proc = cli("simulate", model, "--dt-out", "0.3", "--out", out)
        assert proc.returncode == 0, proc.stderr
        rows = read_csv(out)
        assert len(rows) == 4
        sign = -1 if rate.startswith("-") else 1
        for row in rows:
            turned = sign * 5 * math.pi * float(row["t"])
            assert abs(float(row["j.hub"]) - turned) < 1e-9, (row["t"], row["j.hub"])
            assert abs(float(row["jd.hub"]) - sign * 5 * math.pi) < 1e-9
