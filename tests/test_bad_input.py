"""Bad input, in one place (issue 14): every case gets exit status 2, one line on stderr naming
the file and the field (or the option), no traceback, nothing written, in well under 10 s.

The cases are one-line changes to small shipped models (a planar pendulum in coordinates, a
3R planar mechanism and a spatial pendulum of bodies and joints), hostile command lines and
impossible output paths. They run the command line in-process (`mcsgen.cli.main`): an exception
that escaped it would fail the test with its traceback; tests/e2e cover the launcher itself.
"""

import time
from pathlib import Path

import pytest

from mcsgen.cli import main

ROOT = Path(__file__).resolve().parents[1]
PENDULUM = (ROOT / "models" / "planar_pendulum.yaml").read_text()
MECHANISM = (ROOT / "models" / "pendulum_3r_bodies.yaml").read_text()
SPATIAL = (ROOT / "models" / "pendulum_torsion.yaml").read_text()
BASES = {"pend": PENDULUM, "mech": MECHANISM, "spat": SPATIAL}
NAMES = {"pend": "planar_pendulum", "mech": "pendulum_3r_bodies", "spat": "pendulum_torsion"}
LONG = "x" + " + x" * 5000  # an 20 KB expression

# (id, base, text replaced, replacement, what the message must name). The replaced text must
# occur in the base; the file is written as <name>.yaml with the model's name.
MODEL_CASES = [
    # names the C side or the expression language cannot take (a name the C library's headers
    # define is fine: user names reach C behind the runtime's prefixes, tests/generator/
    # test_emit.py::test_c_library_names_compile)
    ("model-named-mcs", "pend", "name: planar_pendulum", "name: mcs", "name"),
    ("model-named-main", "pend", "name: planar_pendulum", "name: main", "name"),
    ("model-named-keyword", "pend", "name: planar_pendulum", "name: for", "name"),
    ("model-name-digit", "pend", "name: planar_pendulum", "name: 3pend", "name"),
    ("model-name-prefix", "pend", "name: planar_pendulum", "name: mcs_pend", "name"),
    ("model-name-null", "pend", "name: planar_pendulum", "name: null", "name"),
    ("model-name-list", "pend", "name: planar_pendulum", "name: [a, b]", "name"),
    ("model-name-250", "pend", "name: planar_pendulum", "name: " + "p" * 250, "name"),
    ("model-name-missing", "pend", "name: planar_pendulum\n", "", "name"),
    # issue 60: names that generated C the checks did not expect
    ("model-named-M", "pend", "name: planar_pendulum", "name: M", "name"),
    ("model-named-K", "pend", "name: planar_pendulum", "name: K", "name"),
    ("freeze-unknown", "pend", "parameters:", "freeze: [nope]\nparameters:", "freeze[0]"),
    ("freeze-twice", "pend", "parameters:", "freeze: [g, g]\nparameters:", "freeze[1]"),
    ("freeze-not-list", "pend", "parameters:", "freeze: g\nparameters:", "freeze"),
    ("freeze-number", "mech", "parameters:", "freeze: [1]\nparameters:", "freeze[0]"),
    ("param-NULL", "pend", "  M: {value", "  NULL: {value", "parameters"),
    ("param-int", "pend", "  l: {value", "  int: {value", "parameters.int"),
    ("param-sin", "pend", "  l: {value", "  sin: {value", "parameters.sin"),
    ("param-lambda", "pend", "  l: {value", "  lambda: {value", "parameters.lambda"),
    ("param-None", "pend", "  l: {value", "  None: {value", "parameters.None"),
    ("joint-dot-of-joint", "mech", "{name: J2, type", "{name: J1_dot, type", "joints[1].name"),
    ("param-pi", "pend", "  l: {value", "  pi: {value", "parameters.pi"),
    ("param-t", "pend", "  l: {value", "  t: {value", "parameters.t"),
    ("param-mcs", "pend", "  l: {value", "  mcs_l: {value", "parameters.mcs_l"),
    ("param-MCS", "pend", "  l: {value", "  MCS_L: {value", "parameters.MCS_L"),
    ("param-yes", "pend", "  l: {value", "  yes: {value", "parameters"),
    ("param-58-long", "pend", "  l: {value", "  " + "q" * 58 + ": {value", "parameters.qqq"),
    (
        "coord-double",
        "pend",
        "  - {name: z, unit: m}",
        "  - {name: double, unit: m}",
        "coordinates",
    ),
    ("coord-space", "pend", "  - {name: z, unit: m}", "  - {name: 'z y', unit: m}", "coordinates"),
    # inputs: linear in the forces, coefficients free of velocities; their fields
    (
        "input-squared",
        "pend",
        '  forces: ["0", "-M*g"]\n  potential: "M*g*z"\n',
        '  forces: ["u**2", "-M*g"]\n  potential: "M*g*z"\ninputs: [{name: u}]\n',
        "dynamics.forces[0]",
    ),
    (
        "input-times-velocity",
        "pend",
        '  forces: ["0", "-M*g"]\n  potential: "M*g*z"\n',
        '  forces: ["u*x_dot", "-M*g"]\n  potential: "M*g*z"\ninputs: [{name: u}]\n',
        "dynamics.forces[0]",
    ),
    (
        "input-times-input",
        "pend",
        '  forces: ["0", "-M*g"]\n  potential: "M*g*z"\n',
        '  forces: ["u*w", "-M*g"]\n  potential: "M*g*z"\ninputs: [{name: u}, {name: w}]\n',
        "dynamics.forces[0]",
    ),
    (
        "input-joint-in-coordinates",
        "pend",
        '  forces: ["0", "-M*g"]\n  potential: "M*g*z"\n',
        '  forces: ["u", "-M*g"]\n  potential: "M*g*z"\ninputs: [{name: u, joint: j}]\n',
        "inputs[0].joint",
    ),
    (
        "input-limits-order",
        "pend",
        '  forces: ["0", "-M*g"]\n  potential: "M*g*z"\n',
        '  forces: ["u", "-M*g"]\n  potential: "M*g*z"\ninputs: [{name: u, limits: [1, -1]}]\n',
        "inputs[0].limits",
    ),
    (
        "input-limits-one",
        "pend",
        '  forces: ["0", "-M*g"]\n  potential: "M*g*z"\n',
        '  forces: ["u", "-M*g"]\n  potential: "M*g*z"\ninputs: [{name: u, limits: [1]}]\n',
        "inputs[0].limits",
    ),
    (
        "input-named-M",
        "pend",
        '  forces: ["0", "-M*g"]\n  potential: "M*g*z"\n',
        '  forces: ["M", "-M*g"]\n  potential: "M*g*z"\ninputs: [{name: M}]\n',
        "inputs[0].name",
    ),
    (
        "input-unknown-key",
        "pend",
        '  forces: ["0", "-M*g"]\n  potential: "M*g*z"\n',
        '  forces: ["u", "-M*g"]\n  potential: "M*g*z"\ninputs: [{name: u, gain: 2}]\n',
        "inputs[0]",
    ),
    (
        "input-not-a-list",
        "pend",
        '  forces: ["0", "-M*g"]\n  potential: "M*g*z"\n',
        '  forces: ["0", "-M*g"]\n  potential: "M*g*z"\ninputs: u\n',
        "inputs",
    ),
    (
        "input-unknown-joint",
        "mech",
        "simulation:",
        "inputs: [{name: u, joint: J9}]\nsimulation:",
        "inputs[0].joint",
    ),
    (
        "input-squared-in-a-torque",
        "spat",
        "forces:\n",
        "inputs: [{name: u}]\nforces:\n  - {type: torque, body: bob, torque: [0, u*u, 0]}\n",
        "forces[0].torque[1]",
    ),
    # outputs: one kind each, names once, bodies and points that exist
    *[
        (f"output-{key}", base, "simulation:", f"outputs: [{spec}]\nsimulation:", field)
        for key, base, spec, field in [
            ("unknown-name", "pend", "{name: y1, expr: 'x + nope'}", "outputs[0].expr"),
            ("no-kind", "pend", "{name: y1}", "outputs[0]"),
            ("two-kinds", "mech", "{name: y1, expr: J1, position: {body: link1}}", "outputs[0]"),
            ("point-in-coordinates", "pend", "{name: y1, position: {body: a}}", "outputs[0]"),
            ("unknown-body", "mech", "{name: y1, position: {body: link9}}", "outputs[0].position"),
            ("ground", "mech", "{name: y1, velocity: {body: ground}}", "outputs[0].velocity"),
            ("point-length", "mech", "{name: y1, position: {body: link1, point: [1]}}", "point"),
            ("distance-body", "mech", "{name: y1, distance: {body1: link1}}", "body2"),
            ("dup", "pend", "{name: y1, expr: x}, {name: y1, expr: z}", "outputs[1].name"),
            ("bad-name", "pend", "{name: 'y 1', expr: x}", "outputs[0].name"),
            ("extra-key", "pend", "{name: y1, expr: x, gain: 2}", "outputs[0]"),
        ]
    ],
    ("output-not-a-list", "pend", "simulation:", "outputs: {name: y1}\nsimulation:", "outputs"),
    ("file-kernels-unknown", "pend", "simulation:", "kernels: [linear]\nsimulation:", "kernels[0]"),
    ("coord-dup", "pend", "  - {name: z, unit: m}", "  - {name: x, unit: m}", "coordinates[1]"),
    ("coord-param", "pend", "  - {name: z, unit: m}", "  - {name: M, unit: m}", "coordinates[1]"),
    ("coord-mcs", "pend", "  - {name: z, unit: m}", "  - {name: mcs_z, unit: m}", "coordinates"),
    ("body-ground", "mech", "{name: link3,", "{name: ground,", "bodies[2]"),
    ("joint-keyword", "mech", "{name: J3,", "{name: while,", "joints[2]"),
    ("joint-dup", "mech", "{name: J3,", "{name: J2,", "joints[2]"),
    # constants that fold to something that is not a finite real double
    ("const-log0", "pend", '"-M*g"]', '"-M*g*log(0)"]', "dynamics.forces[1]"),
    ("const-0pow-1", "pend", '"-M*g"]', '"-M*g + 0**-1"]', "dynamics.forces[1]"),
    ("const-tan-pi2", "pend", '"-M*g"]', '"-M*g*tan(pi/2)"]', "dynamics.forces[1]"),
    ("const-sqrt-1", "pend", '"-M*g"]', '"-M*g*sqrt(-1)"]', "dynamics.forces[1]"),
    ("const-pow-half", "pend", '"-M*g"]', '"-M*g*(-1)**0.5"]', "dynamics.forces[1]"),
    ("const-log-1", "pend", '"-M*g"]', '"-M*g*log(-1)"]', "dynamics.forces[1]"),
    ("const-2pow3000", "pend", '"-M*g"]', '"-M*g*2**3000"]', "dynamics.forces[1]"),
    ("const-10pow400", "pend", '"-M*g"]', '"-M*g*10.0**400"]', "dynamics.forces[1]"),
    ("const-acos2", "pend", '"-M*g"]', '"-M*g*acos(2)"]', "dynamics.forces[1]"),
    ("const-exp1000", "pend", '"-M*g"]', '"-M*g*exp(1000)"]', "dynamics.forces[1]"),
    ("const-sinh1000", "pend", '"-M*g"]', '"-M*g*sinh(1000)"]', "dynamics.forces[1]"),
    ("const-huge-power", "pend", '"-M*g"]', '"-M*g*10**99999999"]', "dynamics.forces[1]"),
    ("const-tower", "pend", '"-M*g"]', '"-M*g*9**9**9**9"]', "dynamics.forces[1]"),
    ("const-400-digits", "pend", '"-M*g"]', '"-M*g*' + "7" * 400 + '"]', "dynamics.forces[1]"),
    ("const-1e999", "pend", '"-M*g"]', '"-M*g*1e999"]', "dynamics.forces[1]"),
    ("const-1e-400", "pend", '"-M*g"]', '"-M*g*1e-400"]', "dynamics.forces[1]"),
    ("const-underflow-power", "pend", '"-M*g"]', '"-M*g*2.0**-2000"]', "dynamics.forces[1]"),
    ("const-div0", "pend", '"-M*g"]', '"-M*g*(1/0)"]', "dynamics.forces[1]"),
    ("const-cos-huge", "pend", '"-M*g"]', '"-M*g*cos(10**400)"]', "dynamics.forces[1]"),
    ("const-in-potential", "pend", 'potential: "M*g*z"', 'potential: "M*g*log(0)"', "potential"),
    ("const-in-initial", "pend", "x: {x: l, z: 0}", "x: {x: l, z: log(0)}", "initial.x.z"),
    (
        "const-in-point",
        "mech",
        'point: ["sin(pi/6)", "-cos(pi/6)"]',
        'point: ["sqrt(-1)", 0]',
        "joints[1].point",
    ),  # fmt: skip
    # the expression sandbox: nothing in a file runs code
    ("expr-import", "pend", '"-M*g"]', "\"__import__('os').system('true')\"]", "forces[1]"),
    ("expr-attribute", "pend", '"-M*g"]', '"x.__class__"]', "dynamics.forces[1]"),
    ("expr-lambda", "pend", '"-M*g"]', '"lambda: 1"]', "dynamics.forces[1]"),
    ("expr-list", "pend", '"-M*g"]', '"[1, 2]"]', "dynamics.forces[1]"),
    ("expr-ifexp", "pend", '"-M*g"]', '"1 if x else 0"]', "dynamics.forces[1]"),
    ("expr-subscript", "pend", '"-M*g"]', '"x[0]"]', "dynamics.forces[1]"),
    ("expr-open", "pend", '"-M*g"]', "\"open('f')\"]", "dynamics.forces[1]"),
    ("expr-Symbol", "pend", '"-M*g"]', "\"Symbol('a')\"]", "dynamics.forces[1]"),
    ("expr-eval", "pend", '"-M*g"]', "\"eval('1')\"]", "dynamics.forces[1]"),
    ("expr-sympify", "pend", '"-M*g"]', "\"sympify('1')\"]", "dynamics.forces[1]"),
    ("expr-walrus", "pend", '"-M*g"]', '"(a := 1)"]', "dynamics.forces[1]"),
    ("expr-string", "pend", '"-M*g"]', "\"'text'\"]", "dynamics.forces[1]"),
    ("expr-keyword-arg", "pend", '"-M*g"]', '"sin(x=1)"]', "dynamics.forces[1]"),
    ("expr-unclosed", "pend", '"-M*g"]', '"(-M*g"]', "dynamics.forces[1]"),
    ("expr-empty", "pend", '"-M*g"]', '""]', "dynamics.forces[1]"),
    ("expr-arity", "pend", '"-M*g"]', '"sin(x, z)"]', "dynamics.forces[1]"),
    ("expr-unknown-fn", "pend", '"-M*g"]', '"factorial(100)"]', "dynamics.forces[1]"),
    ("expr-unknown-symbol", "pend", '"-M*g"]', '"-M*G"]', "dynamics.forces[1]"),
    ("expr-I", "pend", '"-M*g"]', '"-M*g*I"]', "dynamics.forces[1]"),
    ("expr-zoo", "pend", '"-M*g"]', '"-M*g*zoo"]', "dynamics.forces[1]"),
    ("expr-oo", "pend", '"-M*g"]', '"-M*g*oo"]', "dynamics.forces[1]"),
    ("expr-nan", "pend", '"-M*g"]', '"-M*g*nan"]', "dynamics.forces[1]"),
    ("expr-long", "pend", '"-M*g"]', f'"{LONG} + q"]', "dynamics.forces[1]"),
    ("expr-velocity-in-constraint", "pend", '"x**2 + z**2 - l**2"', '"x_dot"', "constraints[0]"),
    (
        "expr-velocity-in-potential",
        "pend",
        'potential: "M*g*z"',
        'potential: "z*x_dot"',
        "dynamics.potential",
    ),  # fmt: skip
    # numbers
    ("num-text", "pend", "M: {value: 1.0,", "M: {value: heavy,", "parameters.M.value"),
    ("num-list", "pend", "M: {value: 1.0,", "M: {value: [1.0],", "parameters.M.value"),
    ("num-inf", "pend", "M: {value: 1.0,", "M: {value: .inf,", "parameters.M.value"),
    ("num-nan", "pend", "M: {value: 1.0,", "M: {value: .nan,", "parameters.M.value"),
    ("num-1e999", "pend", "M: {value: 1.0,", "M: {value: 1e999,", "parameters.M.value"),
    (
        "num-huge-literal",
        "pend",
        "M: {value: 1.0,",
        "M: {value: " + "9" * 400 + ",",
        "parameters.M.value",
    ),  # fmt: skip
    ("num-missing", "pend", "M: {value: 1.0, ", "M: {", "parameters.M.value"),
    ("num-t-end-negative", "pend", "t_end: 4.0", "t_end: -4.0", "simulation.t_end"),
    ("num-t-end-nan", "pend", "t_end: 4.0", "t_end: .nan", "simulation.t_end"),
    ("num-h-zero", "pend", "h: 1.0e-3", "h: 0", "simulation.h"),
    ("num-method", "pend", "method: rk4", "method: euler", "simulation.method"),
    ("num-continuation", "pend", "continuation: exp", "continuation: yes", "continuation"),
    ("num-initial-unknown", "pend", "x: {x: l, z: 0}", "x: {x: l, y: 0}", "initial.x.y"),
    ("num-initial-inf", "pend", "x: {x: l, z: 0}", "x: {x: l, z: 1e999}", "initial.x.z"),
    ("num-initial-text", "pend", "v: {x: 0, z: 0}", "v: {x: 0, z: nope}", "initial.v.z"),
    (
        "mass-zero",
        "mech",
        "{name: link1, type: planar, mass: m,",
        "{name: link1, type: planar, " "mass: 0,",
        "bodies[0].mass",
    ),  # fmt: skip
    ("mass-negative", "spat", "mass: mass,", "mass: -mass,", "bodies[0].mass"),
    ("inertia-negative", "spat", "inertia: [J, J, J]", "inertia: [J, -J, J]", "bodies[0].inertia"),
    ("inertia-triangle", "spat", "inertia: [J, J, J]", "inertia: [J, J, 3*J]", "bodies[0].inertia"),
    # the structure of the file
    ("yaml-syntax", "pend", "coordinates:", "coordinates: [", "line"),
    ("yaml-tab", "pend", "name: planar_pendulum\n", "name: planar_pendulum\n\tx: 1\n", "line"),
    ("yaml-top-list", "pend", PENDULUM, "- a\n- b\n", "top level"),
    ("yaml-empty", "pend", PENDULUM, "", "empty"),
    ("unknown-top-key", "pend", "dynamics:", "dynamic:", "dynamic"),
    ("unknown-param-key", "pend", "M: {value: 1.0,", "M: {vale: 1.0,", "parameters.M.vale"),
    ("dup-top-key", "pend", "name: planar_pendulum\n", "name: planar_pendulum\nname: x\n", "name"),
    (
        "dup-nested-key",
        "pend",
        "M: {value: 1.0,",
        "M: {value: 1.0, value: 2.0,",
        "parameters.M.value",
    ),  # fmt: skip
    ("dup-sim-key", "pend", "t_end: 4.0", "t_end: 4.0\n  t_end: 2.0", "simulation.t_end"),
    # the firmware section (issue 12): the simulation's fields and kernel sets
    ("fw-not-map", "pend", "parameters:", "firmware: rk4\nparameters:", "firmware"),
    (
        "fw-method",
        "pend",
        "parameters:",
        "firmware: {method: euler}\nparameters:",
        "firmware.method",
    ),
    ("fw-h", "pend", "parameters:", "firmware: {h: -1}\nparameters:", "firmware.h"),
    ("fw-unknown", "pend", "parameters:", "firmware: {flash: 48}\nparameters:", "firmware.flash"),
    ("fw-kernel", "mech", "parameters:", "firmware: {kernels: [K_c]}\nparameters:", "kernels[0]"),
    ("fw-kernels-text", "pend", "parameters:", "firmware: {kernels: all}\nparameters:", "kernels"),
    ("fw-max-dof", "pend", "parameters:", "firmware: {max_dof: 3}\nparameters:", "max_dof"),
    ("fw-max-dof-real", "mech", "parameters:", "firmware: {max_dof: 1.5}\nparameters:", "max_dof"),
    ("fw-events", "pend", "parameters:", "firmware: {events: maybe}\nparameters:", "events"),
    ("fw-compact", "pend", "parameters:", "firmware: {compact: 1}\nparameters:", "compact"),
    (
        "fw-compact-events",
        "pend",
        "parameters:",
        "firmware: {compact: true}\nparameters:",
        "firmware.compact",
    ),
    ("forces-count", "pend", 'forces: ["0", "-M*g"]', 'forces: ["0"]', "dynamics.forces"),
    ("forces-text", "pend", 'forces: ["0", "-M*g"]', 'forces: "0"', "dynamics.forces"),
    ("mass-count", "pend", "{diagonal: [M, M]}", "{diagonal: [M]}", "mass_matrix.diagonal"),
    ("mass-text", "pend", "{diagonal: [M, M]}", "{diagonal: M}", "mass_matrix.diagonal"),
    ("mass-full", "pend", "{diagonal: [M, M]}", "{full: [[M, 0], [0, M]]}", "mass_matrix.full"),
    (
        "constraint-no-expr",
        "pend",
        '{name: length, expr: "x**2 + z**2 - l**2"}',
        "{name: length}",
        "constraints[0].expr",
    ),  # fmt: skip
    (
        "constraint-dup-name",
        "pend",
        '  - {name: length, expr: "x**2 + z**2 - l**2"}',
        '  - {name: length, expr: "x**2 + z**2 - l**2"}\n  - {name: length, expr: "x - l"}',
        "constraints[1].name",
    ),  # fmt: skip
    ("joint-type", "mech", "{name: J3, type: revolute,", "{name: J3, type: hinge,", "joints[2]"),
    ("joint-body", "mech", "body1: link3, body2: link2", "body1: link9, body2: link2", "joints[2]"),
    ("joint-point-size", "spat", "point: [0, 0, 0]", "point: [0, 0]", "joints[0].point"),
    ("joint-axis-zero", "spat", "axis: [0, 1, 0]", "axis: [0, 0, 0]", "joints[0].axis"),
    ("gravity-size", "mech", "gravity: [0, -g]", "gravity: [0, -g, 0]", "gravity"),
    ("body-type", "mech", "{name: link3, type: planar,", "{name: link3, type: flat,", "bodies[2]"),
    (
        "planar-orientation",
        "mech",
        "angle: -pi/3,",
        "orientation: {angle: 0},",
        "bodies[0].orientation",
    ),  # fmt: skip
    # end stops (issue 61)
    (
        "stop-unknown-coordinate",
        "pend",
        "simulation:",
        "stops: [{coordinate: y, lower: 0}]\nsimulation:",
        "stops[0].coordinate",
    ),
    (
        "stop-joint-in-coordinates",
        "pend",
        "simulation:",
        "stops: [{joint: x, lower: 0}]\nsimulation:",
        "stops[0].joint",
    ),
    ("stop-no-limit", "pend", "simulation:", "stops: [{coordinate: x}]\nsimulation:", "stops[0]"),
    (
        "stop-limits-crossed",
        "pend",
        "simulation:",
        "stops: [{coordinate: z, lower: 1, upper: -1}]\nsimulation:",
        "stops[0].upper",
    ),
    (
        "stop-restitution-above-1",
        "pend",
        "simulation:",
        "stops: [{coordinate: z, lower: -2, restitution: 1.5}]\nsimulation:",
        "stops[0].restitution",
    ),
    (
        "stop-starts-beyond",
        "pend",
        "simulation:",
        "stops: [{coordinate: z, lower: 0.5}]\nsimulation:",
        "stops[0].lower",
    ),
    (
        "stop-twice",
        "pend",
        "simulation:",
        "stops: [{coordinate: z, lower: -2}, {coordinate: z, upper: 2}]\nsimulation:",
        "stops[1].coordinate",
    ),
    (
        "stop-unknown-field",
        "pend",
        "simulation:",
        "stops: [{coordinate: z, lower: -2, bounce: 1}]\nsimulation:",
        "stops[0].bounce",
    ),
    (
        "stop-unknown-joint",
        "mech",
        "simulation:",
        "stops: [{joint: J9, lower: 0}]\nsimulation:",
        "stops[0].joint",
    ),
    (
        "stop-coordinate-in-bodies",
        "mech",
        "simulation:",
        "stops: [{coordinate: J1, lower: 0}]\nsimulation:",
        "stops[0].coordinate",
    ),
    (
        "friction-unknown-coordinate",
        "pend",
        "simulation:",
        "friction: [{coordinate: y, kinetic: 1}]\nsimulation:",
        "friction[0].coordinate",
    ),
    (
        "friction-no-kinetic",
        "pend",
        "simulation:",
        "friction: [{coordinate: x, static: 1}]\nsimulation:",
        "friction[0].kinetic",
    ),
    (
        "friction-negative",
        "pend",
        "simulation:",
        "friction: [{coordinate: x, kinetic: -1}]\nsimulation:",
        "friction[0].kinetic",
    ),
    (
        "friction-static-below-kinetic",
        "pend",
        "simulation:",
        "friction: [{coordinate: x, kinetic: 2, static: 1}]\nsimulation:",
        "friction[0].static",
    ),
    (
        "friction-twice",
        "pend",
        "simulation:",
        "friction: [{coordinate: x, kinetic: 1}, {coordinate: x, kinetic: 2}]\nsimulation:",
        "friction[1].coordinate",
    ),
    (
        "friction-body-coordinates",
        "mech",
        "simulation:",
        "friction: [{joint: J1, kinetic: 1}]\nsimulation:",
        "friction[0].joint",
    ),
    (
        "friction-unknown-field",
        "pend",
        "simulation:",
        "friction: [{coordinate: x, kinetic: 1, viscous: 2}]\nsimulation:",
        "friction[0].viscous",
    ),
    ("switch-unknown-joint", "mech", "lock: J3}", "lock: J9}", "switches[1]"),
    ("event-unknown-switch", "mech", "activate: lock_joint3}", "activate: nothing}", "events[1]"),
    ("event-negative-time", "mech", "{at: 1.3,", "{at: -1.3,", "events[1]"),
    (
        "force-unknown-joint",
        "spat",
        "joint: hinge, stiffness",
        "joint: knee, stiffness",
        "forces[0]",
    ),
    ("force-type", "spat", "{type: rotational_spring_damper,", "{type: magic,", "forces[0]"),
    # what only the numbers show: checked at generation, before anything is written
    ("no-real-solution", "pend", '"x**2 + z**2 - l**2"', '"x**2 + z**2 + 1"', "constraints[0]"),
    ("constant-constraint", "pend", '"x**2 + z**2 - l**2"', '"1"', "constraints[0]"),
    # a row that holds no condition (issue 60: it generated, then simulate failed at init)
    ("zero-constraint", "pend", '"x**2 + z**2 - l**2"', '"0"', "constraints[0].expr"),
    ("zero-cancels", "pend", '"x**2 + z**2 - l**2"', '"x*z - z*x"', "constraints[0].expr"),
    (
        "zero-identity",
        "pend",
        '"x**2 + z**2 - l**2"',
        '"sin(x)**2 + cos(x)**2 - 1"',
        "constraints[0].expr",
    ),
    ("unreachable-constraint", "pend", '"x**2 + z**2 - l**2"', '"exp(x) + 2"', "constraints[0]"),
    ("mass-singular", "pend", "{diagonal: [M, M]}", "{diagonal: [M, 0]}", "dynamics.mass_matrix"),
    ("mass-indefinite", "pend", "{diagonal: [M, M]}", "{diagonal: [M, -M]}", "mass_matrix"),
    ("mass-negative-param", "pend", "M: {value: 1.0,", "M: {value: -1.0,", "mass_matrix"),
    ("mass-cancels", "pend", "{diagonal: [M, M]}", "{diagonal: [M, M - M]}", "mass_matrix"),
    # constraints that are not real numbers near the initial configuration (issue 34)
    ("complex-sqrt", "pend", '"x**2 + z**2 - l**2"', '"sqrt(x - 5) + z"', "constraints[0].expr"),
    ("complex-log", "pend", '"x**2 + z**2 - l**2"', '"log(z - 1) + x"', "constraints[0].expr"),
    ("complex-pow", "pend", '"x**2 + z**2 - l**2"', '"(x - 3)**0.5 + z"', "constraints[0].expr"),
    # a planar body whose joint lets it turn about its centre of mass, without inertia (issue 34)
    (
        "planar-free-turn-no-inertia",
        "mech",
        "joints:\n  - {name: J1,",
        "  - {name: spin, type: planar, mass: 1, inertia: 0, angle: 0, position: [5, 0]}\n"
        "joints:\n  - {name: J0, type: revolute, body1: spin, body2: ground, point: [5, 0]}\n"
        "  - {name: J1,",
        "bodies",
    ),
]

# Command lines: (id, arguments after `./mcsgen`, what the message must name). {csv} is a
# valid CSV of a planar-pendulum run, {tmp} the test's directory.
CLI_CASES = [
    ("sim-h-zero", ["simulate", "planar_pendulum", "--h", "0"], "--h"),
    ("sim-h-negative", ["simulate", "planar_pendulum", "--h", "-1e-3"], "--h"),
    ("sim-h-nan", ["simulate", "planar_pendulum", "--h", "nan"], "--h"),
    ("sim-h-inf", ["simulate", "planar_pendulum", "--h", "inf"], "--h"),
    ("sim-h-text", ["simulate", "planar_pendulum", "--h", "small"], "--h"),
    ("sim-h-tiny", ["simulate", "planar_pendulum", "--h", "1e-300"], "--max-steps"),
    ("sim-t-end-huge", ["simulate", "planar_pendulum", "--t-end", "1e12"], "--max-steps"),
    ("sim-dt-out-tiny", ["simulate", "planar_pendulum", "--dt-out", "1e-300"], "--max-steps"),
    ("sim-max-steps", ["simulate", "planar_pendulum", "--max-steps", "10"], "--max-steps"),
    ("sim-max-steps-zero", ["simulate", "planar_pendulum", "--max-steps", "0"], "--max-steps"),
    ("sim-t-end-zero", ["simulate", "planar_pendulum", "--t-end", "0"], "--t-end"),
    ("sim-rtol-negative", ["simulate", "planar_pendulum", "--rtol", "-1"], "--rtol"),
    ("sim-rtol-one", ["simulate", "planar_pendulum", "--rtol", "1"], "--rtol"),
    ("sim-atol-zero", ["simulate", "planar_pendulum", "--atol", "0"], "--atol"),
    ("sim-rank-tol", ["simulate", "planar_pendulum", "--rank-tol", "-1"], "--rank-tol"),
    ("sim-rank-tol-big", ["simulate", "planar_pendulum", "--rank-tol", "1.5"], "--rank-tol"),
    ("sim-sing-tol", ["simulate", "planar_pendulum", "--sing-tol", "nan"], "--sing-tol"),
    ("sim-newton-iter", ["simulate", "planar_pendulum", "--newton-max-iter", "2.5"], "newton"),
    ("sim-dt-out", ["simulate", "planar_pendulum", "--dt-out", "-1"], "--dt-out"),
    ("sim-method", ["simulate", "planar_pendulum", "--method", "euler"], "--method"),
    ("sim-continuation", ["simulate", "planar_pendulum", "--continuation", "x"], "continuation"),
    ("sim-inputs-none", ["simulate", "planar_pendulum", "--inputs", "u.csv"], "--inputs"),
    ("sim-param-unknown", ["simulate", "planar_pendulum", "--param", "Q=1"], "Q"),
    ("sim-param-no-value", ["simulate", "planar_pendulum", "--param", "M"], "--param"),
    ("sim-param-text", ["simulate", "planar_pendulum", "--param", "M=heavy"], "M"),
    ("sim-param-nan", ["simulate", "planar_pendulum", "--param", "M=nan"], "M"),
    # run-time values keep the file's rules on masses and inertias (issue 60: a negative mass ran)
    ("sim-param-mass", ["simulate", "pendulum_3r_bodies", "--param", "m=-1"], "bodies[0].mass"),
    # an initial state's coordinate (issue 60: Monte Carlo over initial states)
    ("sim-x0-unknown", ["simulate", "planar_pendulum", "--x0", "y=0.5"], "unknown coordinate"),
    ("sim-x0-nan", ["simulate", "planar_pendulum", "--x0", "x=nan"], "finite number"),
    ("sim-v0-twice", ["simulate", "planar_pendulum", "--v0", "x=1", "--v0", "x=2"], "given twice"),
    ("sim-v0-form", ["simulate", "planar_pendulum", "--v0", "x"], "COORDINATE=VALUE"),
    (
        "sim-param-inertia",
        ["simulate", "pendulum_3r_bodies", "--param", "J=-2"],
        "bodies[0].inertia",
    ),
    ("statics-param-mass", ["statics", "pendulum_3r_bodies", "--param", "m=0"], "bodies[0].mass"),
    ("modes-param-mass", ["modes", "pendulum_3r_bodies", "--param", "m=-1"], "--param m=-1"),
    (
        "sweep-param-mass",
        ["sweep", "pendulum_3r_bodies", "--param", "m=1,-1", "--workers", "0"],
        "run 2 (m=-1)",
    ),  # fmt: skip
    ("sim-lock-unknown", ["simulate", "planar_pendulum", "--lock", "y@1"], "y"),
    ("sim-lock-format", ["simulate", "planar_pendulum", "--lock", "x"], "--lock"),
    ("sim-lock-time", ["simulate", "planar_pendulum", "--lock", "x@later"], "--lock"),
    ("sim-unlock-free", ["simulate", "planar_pendulum", "--unlock", "x@1"], "x"),
    ("sim-missing-value", ["simulate", "planar_pendulum", "--h"], "--h"),
    ("sim-unknown-option", ["simulate", "planar_pendulum", "--speed", "2"], "--speed"),
    ("sim-no-model", ["simulate", "no_such_model"], "no_such_model"),
    ("sim-out-proc", ["simulate", "planar_pendulum", "--out", "/proc/x.csv"], "/proc/x.csv"),
    (
        "sim-events-proc",
        ["simulate", "planar_pendulum", "--out", "{tmp}/r.csv", "--events", "/proc/x.json"],
        "/proc/x.json",
    ),  # fmt: skip
    ("check-tol-nan", ["check", "planar_pendulum", "--tol", "nan"], "--tol"),
    ("check-tol-negative", ["check", "planar_pendulum", "--tol", "-1"], "--tol"),
    ("check-samples", ["check", "planar_pendulum", "--samples", "0"], "--samples"),
    ("audit-samples", ["audit", "planar_pendulum", "--samples", "-2"], "--samples"),
    ("statics-iter", ["statics", "planar_pendulum", "--max-iter", "0"], "--max-iter"),
    ("modes-count", ["modes", "planar_pendulum", "--count", "0"], "--count"),
    ("generate-missing", ["generate", "{tmp}/nothing.yaml"], "nothing.yaml"),
    # a folder given for a model (issue 60: "DIR.yaml: cannot read file")
    ("generate-folder", ["generate", "{tmp}"], "a folder, not a mechanism file"),
    ("simulate-folder", ["simulate", "{tmp}/"], "a folder, not a mechanism file"),
    ("kernels-unknown", ["generate", "planar_pendulum", "--kernels", "K_c"], "--kernels"),
    ("kernels-too-few", ["generate", "double_four_bar", "--kernels", "stiffness"], "predictor"),
    (
        "kernels-no-events",
        ["generate", "pendulum_3r_locking", "--kernels", "predictor"],
        "transitions",
    ),
    ("generate-out-proc", ["generate", "planar_pendulum", "--force", "--out", "/proc/x"], "/proc"),
    ("plot-out-proc", ["plot", "{csv}", "--out", "/proc/x.png"], "/proc/x.png"),
    ("plot-missing-csv", ["plot", "{tmp}/none.csv"], "none.csv"),
    ("plot-not-csv", ["plot", "{tmp}/notes.csv"], "notes.csv"),
    ("plot-columns-missing", ["plot", "{csv}", "--columns", "x.nope"], "x.nope"),
    ("animate-no-bodies", ["animate", "{csv}", "--model", "planar_pendulum"], "planar_pendulum"),
    ("animate-no-model", ["animate", "{csv}"], "--model"),
    (
        "animate-frames",
        ["animate", "{csv}", "--model", "planar_pendulum", "--frames", "0"],
        "--frames",
    ),  # fmt: skip
    (
        "animate-missing-csv",
        ["animate", "{tmp}/none.csv", "--model", "pendulum_3r_bodies"],
        "none.csv",
    ),  # fmt: skip
    (
        "animate-png",
        ["animate", "{csv}", "--model", "pendulum_3r_bodies", "--out", "{tmp}/a.png"],
        "a.png",
    ),  # fmt: skip
    ("unknown-verb", ["fly", "planar_pendulum"], "fly"),
    ("urdf-missing", ["import-urdf", "{tmp}/robot.urdf"], "robot.urdf"),
    ("urdf-gravity", ["import-urdf", "{tmp}/robot.urdf", "--gravity", "0,0"], "--gravity"),
]


def run(argv, capsys):
    """The command line in-process: (exit status, stderr)."""
    capsys.readouterr()
    try:
        status = main([str(a) for a in argv])
    except SystemExit as exc:  # argparse
        status = exc.code
    return status, capsys.readouterr().err


def listing(*folders):
    return {p for f in folders if f.exists() for p in f.rglob("*")}


@pytest.fixture
def quiet_dirs(tmp_path, monkeypatch):
    """The directories a refused command must leave as they were (the test's own, holding
    the inputs below, and the repository's output folders), and what they hold."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "notes.csv").write_text("this is not, a run\n1,2,3\n")
    (tmp_path / "robot.urdf").write_text("<robot name='r'><link name='a'/></robot>")
    watched = [tmp_path, ROOT / "out", ROOT / "build" / "generated"]
    return watched, listing(*watched)


def assert_refused(status, err, names, watched, before, models=None):
    """A one-line refusal naming `names` that wrote nothing. `models`: the model names the
    command was given; then build/generated/ is only watched under them (the other pytest
    worker may be generating other user models there meanwhile)."""
    assert status == 2, err
    assert err.count("\n") == 1 and err.startswith("mcsgen"), err
    assert "Traceback" not in err
    for name in names:
        assert name in err, (name, err)
    assert len(err) < 600, err  # long input is cut in messages
    user = ROOT / "build" / "generated"

    def ours(path):
        return (
            models is None
            or not path.is_relative_to(user)
            or (path == user or path.relative_to(user).parts[0] in models)
        )

    after = listing(*watched)
    assert {p for p in after if ours(p)} == {p for p in before if ours(p)}  # nothing written


def test_the_suite_is_large():
    assert len(MODEL_CASES) + len(CLI_CASES) > 100
    assert len({c[0] for c in MODEL_CASES + CLI_CASES}) == len(MODEL_CASES) + len(CLI_CASES)


@pytest.mark.parametrize("case", MODEL_CASES, ids=[c[0] for c in MODEL_CASES])
def test_a_broken_model_file(case, tmp_path, capsys, quiet_dirs):
    _, base, old, new, field = case
    assert old in BASES[base], old
    text = BASES[base].replace(old, new, 1)
    name = NAMES[base]
    for line in new.splitlines():
        if line.startswith("name: ") and line[6:].strip().isidentifier():
            name = line[6:].strip()
    path = tmp_path / f"{name}.yaml"
    path.write_text(text)
    watched, before = quiet_dirs
    before = before | {path}
    start = time.monotonic()
    status, err = run(["generate", path, "--out", tmp_path / "gen", "--no-misra"], capsys)
    assert time.monotonic() - start < 10
    # build/generated/ watched under this model's name only: the other pytest worker may be
    # building user models there meanwhile (a race seen once: another model's C appeared)
    assert_refused(status, err, [str(path), field], watched, before, models=[name])


@pytest.fixture(scope="module")
def pendulum_csv(tmp_path_factory):
    from helpers import run_simulation

    import mcsgen

    out = tmp_path_factory.mktemp("run") / "pend.csv"
    run_simulation("planar_pendulum", {"t_end": 0.05}, out_csv=out)
    mcsgen.load("planar_pendulum").build()  # the in-process solver `simulate` runs: compiled
    return out


@pytest.mark.parametrize("case", CLI_CASES, ids=[c[0] for c in CLI_CASES])
def test_a_bad_command_line(case, tmp_path, capsys, quiet_dirs, pendulum_csv):
    _, argv, names = case
    argv = [a.format(tmp=tmp_path, csv=pendulum_csv) for a in argv]
    if argv[0] == "simulate" and "--out" not in argv:
        argv += ["--out", str(tmp_path / "run.csv")]
    watched, before = quiet_dirs
    start = time.monotonic()
    status, err = run(argv, capsys)
    assert time.monotonic() - start < 10
    models = {Path(a).stem for a in argv if not a.startswith("-")}
    assert_refused(status, err, [names], watched, before, models)


def test_more_held_initial_velocities_than_coordinates_are_refused(tmp_path, capsys):
    """A planar body's velocity (2) and angular velocity (1) hold all of its 3 coordinates; a
    joint rate on top makes 4: refused at generation, before the run-time start meets them."""
    path = tmp_path / "held_many.yaml"
    path.write_text(
        "name: held_many\n"
        "bodies:\n"
        "  - {name: b, type: planar, mass: 1, inertia: 1, position: [1, 0],\n"
        "     velocity: [0, 1], angular_velocity: 1}\n"
        "joints:\n"
        "  - {name: J, type: revolute, body1: b, body2: ground, point: [0, 0], rate: 1}\n"
    )
    status, err = run(["generate", str(path), "--out", str(tmp_path / "out")], capsys)
    assert status == 2 and err.count("\n") == 1 and not (tmp_path / "out").exists(), err
    assert f"{path}: bodies: 4 initial velocity conditions" in err and "at most 3" in err
