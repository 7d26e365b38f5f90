"""mcsgen.model: validation of mechanism files. Every bad file gets one message naming the file,
the field and the problem; the CLI exits non-zero, prints no traceback and writes nothing."""
import pytest

from mcsgen.errors import ModelError
from mcsgen.model import load_model

GOOD = """\
name: m
coordinates: [x, z]
parameters:
  M: {value: 1.0, unit: kg}
  l: 1.0
  g: 9.81
constraints:
  - {name: length, expr: "x**2 + z**2 - l**2"}
dynamics:
  mass_matrix: {diagonal: [M, M]}
  forces: ["0", "-M*g"]
  potential: "M*g*z"
initial:
  x: {x: l, z: 0}
  v: {x: 0, z: 0}
"""

# (replace this, with this) -> (field named in the message, words in the message)
BAD = [
    (("name: m\n", ""), "name", "missing required field"),
    (("name: m", "name: other"), "name", "must match the file name"),
    (("coordinates: [x, z]", "coordinates: x"), "coordinates", "expected a list"),
    (("coordinates: [x, z]", "coordinates: []"), "coordinates", "at least one coordinate"),
    (("coordinates: [x, z]", "coordinates: [x, 2z]"), "coordinates[1]", "not a valid C identifier"),
    (("coordinates: [x, z]", "coordinates: [x, int]"), "coordinates[1]", "C keyword"),
    (("coordinates: [x, z]", "coordinates: [x, x]"), "coordinates[1]", "duplicate name 'x'"),
    (("coordinates: [x, z]", "coordinates: [x, t]"), "coordinates[1]", "reserved"),
    (("coordinates: [x, z]", "coordinates: [x, a__b]"), "coordinates[1]", "'__'"),
    # the runtime's own names (issue 14; a C header's macros are fine since issue 34: user names
    # reach C behind the runtime's prefixes, test_emit.py::test_c_library_names_compile)
    (("  l: 1.0", "  mcs_sin: 1.0"), "parameters.mcs_sin", "reserved for the runtime"),
    (("  l: 1.0", "  MCS_R: 1.0"), "parameters.MCS_R", "reserved for the runtime"),
    # constants that fold to non-finite, non-real or out-of-range values (issue 14)
    (("- l**2", "- l**2 + log(0)"), "constraints[0].expr", "'zoo' is not finite"),
    (("- l**2", "- l**2 + 0**-1"), "constraints[0].expr", "is not finite"),
    (("- l**2", "- l**2 + tan(pi/2)"), "constraints[0].expr", "is not finite"),
    (("- l**2", "- l**2 + sqrt(-1)"), "constraints[0].expr", "not a real number"),
    (("- l**2", "- l**2 + (-1)**0.5"), "constraints[0].expr", "not a real number"),
    (("- l**2", "- l**2 + log(-1)"), "constraints[0].expr", "not a real number"),
    (("- l**2", "- l**2 + acos(2)"), "constraints[0].expr", "not a real number"),
    (("- l**2", "- l**2 + exp(1000)"), "constraints[0].expr", "outside the range of float"),
    (("- l**2", "- l**2 + 10.0**400"), "constraints[0].expr", "outside the range of float"),
    (("- l**2", "- l**2 + 2**3000"), "constraints[0].expr", "out of range"),
    (("- l**2", "- l**2 + 10**99999999"), "constraints[0].expr", "out of range"),
    (("- l**2", "- l**2 + 9**9**9**9"), "constraints[0].expr", "out of range"),
    (("- l**2", "- l**2 + 1" + "0" * 400), "constraints[0].expr", "outside the range of float"),
    (("- l**2", "- l**2 + 1e-50*x"), "constraints[0].expr", "outside the range of float"),
    (("  l: 1.0", "  NULL: 1.0"), "parameters.null", "got nothing (YAML reads null"),
    (("  l: 1.0", "  yes: 1.0"), "parameters.true", "quote the name"),
    (("coordinates: [x, z]", "coordinates: [x, main]"), "coordinates[1]", "entry point"),
    (("  l: 1.0", "  l: 1e999"), "parameters.l", "not finite"),
    (("  l: 1.0", "  l: .inf"), "parameters.l", "not finite"),
    (("  l: 1.0", "  l: .nan"), "parameters.l", "not finite"),
    (("  l: 1.0", "  l: one"), "parameters.l", "expected a number"),
    (("  l: 1.0", "  x: 1.0"), "coordinates[0]", "duplicate name 'x' (already a parameter)"),
    (("  M: {value: 1.0, unit: kg}", "  M: {unit: kg}"), "parameters.M.value", "missing"),
    (("x**2 + z**2 - l**2", "x**2 + q**2"), "constraints[0].expr", "unknown symbol 'q'"),
    (("x**2 + z**2 - l**2", "x**2 +* z"), "constraints[0].expr", "syntax error"),
    (("x**2 + z**2 - l**2", "x_dot * x"), "constraints[0].expr", "velocities"),
    (
        ("x**2 + z**2 - l**2", "__import__('os').system('touch /tmp/mcsgen_pwned')"),
        "constraints[0].expr",
        "only plain function calls",
    ),
    (("{name: length, ", "{nom: length, "), "constraints[0].nom", "unknown field"),
    (('forces: ["0", "-M*g"]', 'forces: ["0"]'), "dynamics.forces", "expected 2 entries"),
    (
        ("{diagonal: [M, M]}", "{diagonal: [M]}"),
        "dynamics.mass_matrix.diagonal",
        "expected 2 entries",
    ),
    (("{diagonal: [M, M]}", "[[M, 0], [0]]"), "dynamics.mass_matrix[1]", "expected 2 entries"),
    (("{diagonal: [M, M]}", "[[M, 1], [0, M]]"), "dynamics.mass_matrix", "symmetric"),
    (('  forces: ["0", "-M*g"]\n', ""), "dynamics.forces", "missing required field"),
    (("  mass_matrix:", "  kinetic: x_dot**2\n  mass_matrix:"), "dynamics", "not both"),
    (("  x: {x: l, z: 0}", "  x: {x: l}"), "initial.x.z", "missing initial position"),
    (("  x: {x: l, z: 0}", "  x: {x: l, z: 0, y: 1}"), "initial.x.y", "not a coordinate"),
    (("  v: {x: 0, z: 0}", "  v: {x: 0, z: x}"), "initial.v.z", "unknown symbol 'x'"),
    (("  v: {x: 0, z: 0}", "  v: {x: 0, z: 1e999}"), "initial.v.z", "non-finite"),
    (
        ("initial:", "simulation: {method: euler}\ninitial:"),
        "simulation.method",
        "not one of rk4, dopri5",
    ),
    (("initial:", "simulation: {h: -1}\ninitial:"), "simulation.h", "must be positive"),
    (("initial:", "bodies: []\ninitial:"), "bodies", "unknown field"),
    (("  g: 9.81", "  g: 9.81\n  g: 9.80"), "parameters.g", "duplicate key"),
    (("name: m\n", "name: m\n  bad indent: [\n"), "", "YAML syntax error"),
]


def _mutate(old, new):
    assert old in GOOD, old
    return GOOD.replace(old, new, 1)


def test_good_model_loads(write_model):
    model = load_model(write_model(GOOD))
    assert (model.n, model.m) == (2, 1)
    assert model.x0 == [1.0, 0.0]
    assert [p.value for p in model.parameters] == [1.0, 1.0, 9.81]


@pytest.mark.parametrize("change, field, words", BAD, ids=[b[1] + ":" + b[2] for b in BAD])
def test_bad_model_message(write_model, change, field, words):
    path = write_model(_mutate(*change))
    with pytest.raises(ModelError) as info:
        load_model(path)
    message = str(info.value)
    assert message.startswith(str(path)), message
    assert field in message and words in message, message


def test_numbers_yaml_reads_as_text_are_numbers_and_long_expressions_are_cut(write_model):
    # YAML 1.1 reads 1e0 (no '.') as text; a parameter value takes it as the number
    model = load_model(write_model(_mutate("  l: 1.0", "  l: 1e0")))
    assert [p.value for p in model.parameters if p.name == "l"] == [1]
    long = " + ".join(["x"] * 3000) + " + nope"  # 12 KB; the message stays one short line
    with pytest.raises(ModelError) as err:
        load_model(write_model(_mutate("x**2 + z**2 - l**2", long)))
    message = str(err.value)
    assert "constraints[0].expr" in message and len(message) < 300 and "\n" not in message


def test_kinetic_energy_must_be_quadratic(write_model):
    text = GOOD.replace(
        '  mass_matrix: {diagonal: [M, M]}\n  forces: ["0", "-M*g"]\n',
        '  kinetic: "x_dot**4 + z_dot**2"\n',
    )
    with pytest.raises(ModelError, match="at most quadratic"):
        from mcsgen.derive import derive

        derive(load_model(write_model(text)))


@pytest.mark.parametrize(
    "text, words",
    [
        ("", "file is empty"),
        ("- just a list", "expected a mapping"),
        ("\xff\xfe", "not UTF-8"),
    ],
)
def test_unreadable_files(tmp_path, text, words):
    path = tmp_path / "m.yaml"
    path.write_bytes(text.encode("latin-1"))
    with pytest.raises(ModelError, match=words):
        load_model(path)


def test_missing_file(tmp_path):
    with pytest.raises(ModelError, match="cannot read file"):
        load_model(tmp_path / "nope.yaml")


@pytest.mark.parametrize("change, field, words", BAD[::4], ids=[b[1] for b in BAD[::4]])
def test_cli_reports_one_line_and_writes_nothing(cli, write_model, tmp_path, change, field, words):
    path = write_model(_mutate(*change))
    out = tmp_path / "gen"
    proc = cli("generate", path, "--out", out)
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert "Traceback" not in proc.stderr and str(path) in lines[0] and words in lines[0]
    assert proc.stdout == ""
    assert not out.exists() or not any(out.rglob("*"))


def test_cli_injection_runs_nothing(cli, write_model, tmp_path):
    target = tmp_path / "pwned"
    path = write_model(
        GOOD.replace("x**2 + z**2 - l**2", f"__import__('os').system('touch {target}')")
    )
    proc = cli("generate", path, "--out", tmp_path / "gen")
    assert proc.returncode == 2 and "constraints[0].expr" in proc.stderr
    assert not target.exists()
    assert not (tmp_path / "gen").exists()


def test_definitions_substitute_and_scope(write_model):
    text = GOOD.replace(
        "constraints:", 'definitions:\n  r2: "x**2 + z**2"\n  ke: "M*x_dot**2"\n' "constraints:"
    ).replace("x**2 + z**2 - l**2", "r2 - l**2")
    model = load_model(write_model(text))
    assert str(model.constraints[0].expr) == "-l**2 + x**2 + z**2"
    bad = text.replace("r2 - l**2", "ke")
    with pytest.raises(ModelError, match="velocities"):
        load_model(write_model(bad))


SWITCHED = """\
name: m
coordinates: [q1, q2]
dynamics:
  mass_matrix: {diagonal: [1, 1]}
  forces: ["0", "0"]
initial:
  x: {q1: 0, q2: 0}
switches:
  - {name: hold, lock: q2}
events:
  - {at: 0.5, activate: hold}
  - {at: 1.0, deactivate: hold}
"""


def test_switches_and_events_load(write_model):
    model = load_model(write_model(SWITCHED))
    assert [(s.name, s.coordinate) for s in model.switches] == [("hold", 1)]
    assert [(e.t, e.switch, e.activate) for e in model.events] == [(0.5, 0, True), (1.0, 0, False)]


def test_explicit_switch_rows_load_as_a_row_group(write_model):
    text = SWITCHED.replace("{name: hold, lock: q2}", "{name: hold, constraints: [q1 - 2*q2]}")
    model = load_model(write_model(text))
    (switch,) = model.switches
    (group,) = model.row_groups
    q1, q2 = model.x
    assert switch.coordinate == -1 and switch.group == 0
    assert group.entries == [q1 - 2 * q2] and not group.capture and group.nrows == 1


def test_condition_events_load(write_model):
    text = SWITCHED.replace(
        "  - {at: 1.0, deactivate: hold}\n",
        "  - {when: q1_dot - 2*t, direction: falling, deactivate: hold}\n",
    )
    model = load_model(write_model(text))
    timed, cond = model.events
    assert timed.t == 0.5 and cond.t is None and cond.direction == -1 and not cond.activate
    t, q1_dot = model.time, model.coordinates[0].velocity
    assert cond.condition == q1_dot - 2 * t


@pytest.mark.parametrize(
    "change, field, words",
    [
        (("lock: q2", "lock: q9"), "switches[0].lock", "unknown coordinate or joint 'q9'"),
        (("at: 0.5,", "at: 0,"), "events[0].at", "after the start"),
        (
            ("activate: hold}\n  - {at: 1.0", "activate: nope}\n  - {at: 1.0"),
            "events[0].activate",
            "unknown switch 'nope'",
        ),
        (("at: 0.5,", "at: 1.5,"), "events", "not active"),
        (
            ("at: 0.5, activate: hold", "at: 0.5, direction: rising, activate: hold"),
            "events[0].direction",
            "goes with 'when'",
        ),
        (
            ("at: 0.5, activate: hold", "when: q2_dot, direction: up, activate: hold"),
            "events[0].direction",
            "not one of rising",
        ),
        (("at: 0.5, activate: hold", "at: 0.5, when: q2, activate: hold"), "events[0]", "'when'"),
        (
            ("at: 0.5, activate: hold", "when: q2 + zz, activate: hold"),
            "events[0].when",
            "unknown symbol 'zz'",
        ),
        (
            ("{name: hold, lock: q2}", "{name: hold, constraints: []}"),
            "switches[0].constraints",
            "at least one row",
        ),
        (
            ("{name: hold, lock: q2}", "{name: hold, constraints: [q1 - t]}"),
            "switches[0].constraints[0]",
            "may not depend on t",
        ),
        (
            ("{name: hold, lock: q2}", "{name: hold, constraints: [q1_dot]}"),
            "switches[0].constraints[0]",
            "velocities",
        ),
        (
            ("{name: hold, lock: q2}", "{name: hold, lock: q2, constraints: [q1]}"),
            "switches[0]",
            "give 'lock'",
        ),
        (
            ("{at: 0.5, activate: hold}", "{at: 0.5, activate: hold, deactivate: hold}"),
            "events[0]",
            "one switch",
        ),
    ],
)
def test_bad_switches_and_events(write_model, change, field, words):
    text = SWITCHED.replace(*change)
    assert text != SWITCHED
    path = write_model(text)
    with pytest.raises(ModelError) as info:
        load_model(path)
    message = str(info.value)
    assert f"{path}: {field}: " in message and words in message, message
