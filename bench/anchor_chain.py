"""The anchor chain of paper 003 §4.2 as a mechanism file, for any odd number of bodies.

`anchor_chain_yaml(43)` is models/anchor_chain.yaml (tests/e2e/test_statics_modes.py checks that
the committed file equals it); the benchmark (bench/run.py, "chain statics") generates the family
11, 21, 43, 85 with it.

Usage: bench/anchor_chain.py N [FILE]   (default: print the file for N bodies)

The data are the authors' demonstration model (the paper omits them): bodies of 10 kg with central
inertia diag(10, 10, 10) kg m^2; their centres on the V from A(0, 0, 0) through C(5, 0, -6) to
B(10, 0, 0), N = 2k + 1 bodies, k per leg, so the spacing is 2h with h = |AC| / (2k); each body's
x axis along its leg (the middle one horizontal, so the V does not close at C and statics starts
from an unassembled configuration); consecutive bodies joined by universal joints at +h on body i
and -h on body i+1 (bending about the bodies' z and y axes free, torsion locked); the end bodies
hinged to the ground at their centres about the global y axis.
"""

import sys


def _orientation(leg):
    """Rotation matrix (columns: body axes in the world) for a body on leg -1 (A-C), 0 (at C) or
    +1 (C-B): x along the leg, y = world y, z = x cross y."""
    if leg == 0:
        return None
    s = "-" if leg < 0 else ""
    o = "" if leg < 0 else "-"
    # leg -1: x = (5, 0, -6)/sqrt(61), z = (6, 0, 5)/sqrt(61)
    # leg +1: x = (5, 0, 6)/sqrt(61),  z = (-6, 0, 5)/sqrt(61)
    return [
        ["5/sqrt(61)", "0", f"{o}6/sqrt(61)"],
        ["0", "1", "0"],
        [f"{s}6/sqrt(61)", "0", "5/sqrt(61)"],
    ]


def anchor_chain_yaml(bodies=43, name=None):
    if bodies < 3 or bodies % 2 == 0:
        raise ValueError("the anchor chain needs an odd number of bodies >= 3")
    k = (bodies - 1) // 2
    name = name or ("anchor_chain" if bodies == 43 else f"anchor_chain_{bodies}")
    lines = [
        f"name: {name}",
        "description: |",
        f"  The anchor chain of paper 003, section 4.2: {bodies} spatial rigid bodies"
        " of 10 kg with",
        "  central inertia diag(10, 10, 10) kg m^2 (the authors' demonstration model), joined by",
        "  universal joints (the two bending rotations free, torsion locked) at +h along body i's",
        f"  x axis and -h along body i+1's, h = sqrt(61)/{2 * k} m; the end bodies hinged to the",
        "  ground at their centres about the global y axis at A(0, 0, 0) and B(10, 0, 0).",
        "  Initially the centres lie on the V through C(5, 0, -6), each body's x axis along its",
        "  leg and the middle body horizontal, so the V does not close at C: statics starts from",
        f"  an unassembled configuration. Written by bench/anchor_chain.py ({bodies} bodies).",
        f"  n = {7 * bodies}, m = {bodies + 4 * (bodies - 1) + 10}.",
        'source: "003_39ce6e61d6b91521.txt section 4.2 (data: the authors\' demonstration model)"',
        "parameters:",
        "  g: {value: 9.81, unit: m/s^2}",
        "  mass: {value: 10.0, unit: kg}",
        "  J: {value: 10.0, unit: kg*m^2, description: central moment of inertia of every body}",
        "gravity: [0, 0, -g]",
        "bodies:",
    ]
    for i in range(bodies):
        if i <= k:
            pos = [f"5*{i}/{k}", "0", f"-6*{i}/{k}"]
            leg = -1 if i < k else 0
        else:
            j = i - k
            pos = [f"5 + 5*{j}/{k}", "0", f"-6 + 6*{j}/{k}"]
            leg = 1
        body = f"  - {{name: b{i}, type: spatial, mass: mass, inertia: [J, J, J],"
        body += f" position: [{', '.join(pos)}]"
        rot = _orientation(leg)
        if rot:
            body += (
                ", orientation: {matrix: ["
                + ", ".join("[" + ", ".join(r) + "]" for r in rot)
                + "]}"
            )
        lines.append(body + "}")
    lines.append("joints:")
    lines.append(
        "  - {name: A, type: revolute, body1: b0, body2: ground, point: [0, 0, 0],"
        " axis: [0, 1, 0]}"
    )
    h = f"sqrt(61)/{2 * k}"
    for i in range(bodies - 1):
        # axis1: body i's z axis in the world at the initial pose; axis2: body i+1's y axis
        leg = -1 if i < k else (0 if i == k else 1)
        z = {-1: "[6/sqrt(61), 0, 5/sqrt(61)]", 0: "[0, 0, 1]", 1: "[-6/sqrt(61), 0, 5/sqrt(61)]"}
        lines.append(
            f"  - {{name: U{i}, type: universal, body1: b{i}, body2: b{i + 1},"
            f" point1: [{h}, 0, 0], point2: [-{h}, 0, 0], axis1: {z[leg]}, axis2: [0, 1, 0]}}"
        )
    lines.append(
        f"  - {{name: B, type: revolute, body1: b{bodies - 1}, body2: ground, point: [10, 0, 0],"
        " axis: [0, 1, 0]}"
    )
    lines += [
        "simulation:",
        "  t_end: 30.0",
        "  h: 0.01",
        "  method: dopri5",
        "  rtol: 1.0e-8",
        "  atol: 1.0e-10",
        "  continuation: none",
    ]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 43
    text = anchor_chain_yaml(n)
    if len(sys.argv) > 2:
        with open(sys.argv[2], "w") as fh:
            fh.write(text)
    else:
        sys.stdout.write(text)
