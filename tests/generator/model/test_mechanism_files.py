"""Validation of mechanism files with bodies and joints: one clear message per problem."""
import pytest

from mcsgen.errors import ModelError
from mcsgen.model import complete_initial_state, load_model

GOOD = """\
name: m
gravity: [0, 0, -9.81]
bodies:
  - {name: a, type: spatial, mass: 1.0, inertia: [1, 1, 1], position: [0, 0, -1]}
  - {name: b, type: spatial, mass: 1.0, inertia: [1, 2, 2], position: [0, 0, -2]}
joints:
  - {name: J1, type: revolute, body1: a, body2: ground, point: [0, 0, 0], axis: [1, 0, 0],
     rate: 1.0}
  - {name: J2, type: spherical, body1: b, body2: a, point: [0, 0, -1.5]}
"""

BAD = [
    (("body2: ground", "body2: nowhere"), "joints[0].body2", "unknown body 'nowhere'"),
    (("body1: b, body2: a", "body1: b, body2: b"), "joints[1].body2", "two different bodies"),
    (
        ("mass: 1.0, inertia: [1, 1, 1]", "mass: 0, inertia: [1, 1, 1]"),
        "bodies[0].mass",
        "must be positive",
    ),
    (
        ("mass: 1.0, inertia: [1, 1, 1]", "mass: -2, inertia: [1, 1, 1]"),
        "bodies[0].mass",
        "must be positive",
    ),
    (("inertia: [1, 1, 1]", "inertia: [1, -1, 1]"), "bodies[0].inertia", "positive definite"),
    (("inertia: [1, 1, 1]", "inertia: [1, 1, 5]"), "bodies[0].inertia", "triangle inequality"),
    (
        ("inertia: [1, 1, 1]", "inertia: [[1, 2, 0], [0, 1, 0], [0, 0, 1]]"),
        "bodies[0].inertia",
        "symmetric",
    ),
    (("axis: [1, 0, 0]", "axis: [0, 0, 0]"), "joints[0].axis", "zero length"),
    (("name: b, type", "name: a, type"), "bodies[1].name", "duplicate name 'a'"),
    (("name: J2,", "name: J1,"), "joints[1].name", "duplicate name 'J1'"),
    (("name: J2,", "name: a,"), "joints[1].name", "duplicate name 'a'"),
    (("name: a, type", "name: ground, type"), "bodies[0].name", "predefined"),
    (("type: revolute", "type: hinge"), "joints[0].type", "not a spatial joint type"),
    (
        (
            "type: spatial, mass: 1.0, inertia: [1, 1, 1]",
            "type: solid, mass: 1.0, inertia: [1, 1, 1]",
        ),
        "bodies[0].type",
        "not one of spatial, planar",
    ),
    (("position: [0, 0, -1]", "position: [0, 0]"), "bodies[0].position", "expected 3"),
    (("position: [0, 0, -1]", "position: [0, .inf, -1]"), "bodies[0].position[1]", "finite"),
    (
        ("position: [0, 0, -1]}", "position: [0, 0, -1], colour: red}"),
        "bodies[0].colour",
        "unknown field",
    ),
    (("rate: 1.0}", "rate: 1.0, drive: {speed: 1}}"), "joints[0].drive.speed", "unknown field"),
    (
        ("type: spherical, body1: b", "type: spherical, rate: 2, body1: b"),
        "joints[1].rate",
        "revolute or prismatic",
    ),
    (("a, type: spatial", "a b, type: spatial"), "bodies[0].name", "not a valid C identifier"),
    (
        ("a, type: spatial", "a, type: spatial, orientation: {axis: [1, 0, 0], angle: x}"),
        "bodies[0].orientation.angle",
        "unknown symbol 'x'",
    ),
    (
        ("a, type: spatial", "a, type: spatial, orientation: {euler_parameters: [1, 1, 0, 0]}"),
        "bodies[0].orientation.euler_parameters",
        "unit norm",
    ),
]


def _mutate(old, new):
    assert old in GOOD, old
    return GOOD.replace(old, new, 1)


def test_good_mechanism_loads(write_model):
    model = load_model(write_model(GOOD))
    assert model.n == 14 and model.m == 2 + 5 + 3
    assert model.v0 is None and model.pending_initial is not None  # loading only loads
    complete_initial_state(model)
    assert [c.name for c in model.coordinates][:4] == ["a.x", "a.y", "a.z", "a.e0"]
    assert model.initial_report["held"] == ["joint J1 rate"]


@pytest.mark.parametrize("change, field, words", BAD, ids=[b[1] + ":" + b[2] for b in BAD])
def test_bad_mechanism_message(write_model, change, field, words):
    path = write_model(_mutate(*change))
    with pytest.raises(ModelError) as info:
        load_model(path)
    message = str(info.value)
    assert message.startswith(str(path)) and field in message and words in message, message


def test_contradictory_initial_velocities(write_model):
    text = GOOD.replace("position: [0, 0, -1]}", "position: [0, 0, -1], velocity: [0, 0, 3]}")
    model = load_model(write_model(text))  # found when the velocities are solved (generation)
    with pytest.raises(ModelError, match="contradict the velocity constraints"):
        complete_initial_state(model)


def test_cli_mechanism_error_is_one_line(cli, write_model, tmp_path):
    path = write_model(_mutate("body2: ground", "body2: nowhere"))
    proc = cli("generate", path, "--out", tmp_path / "gen")
    assert proc.returncode == 2 and len(proc.stderr.strip().splitlines()) == 1
    assert "Traceback" not in proc.stderr and "unknown body 'nowhere'" in proc.stderr


def test_spatial_joint_locks_and_conditions_on_joint_rates_load(write_model):
    text = GOOD + (
        "switches:\n  - {name: brake, lock: J1}\n  - {name: ball, lock: J2}\n"
        "  - {name: hold, lock: a.x}\n"
        "events:\n  - {when: J1_dot, direction: falling, activate: brake}\n"
    )
    model = load_model(write_model(text))
    assert [(s.name, s.coordinate, s.group) for s in model.switches] == [
        ("brake", -1, 0),
        ("ball", -1, 1),
        ("hold", 0, -1),
    ]
    # a revolute joint's lock holds its angle (one rotation row), a spherical one all three
    assert [(g.name, g.rotation_rows, g.nrows) for g in model.row_groups] == [
        ("J1", 1, 1),
        ("J2", 7, 3),
    ]
    (event,) = model.events
    assert event.condition.has(model.v[3])  # J1's rate reads a's Euler-parameter rates


@pytest.mark.parametrize(
    "change, field, words",
    [
        (
            ("type: spherical,", "type: fix,"),
            "switches[0].lock",
            "'J2' has nothing to lock (a fix joint)",
        ),
        (("rate: 1.0}", "rate: 1.0, rotor_inertia: -1}"), "joints[0].rotor_inertia", "negative"),
        (
            ("point: [0, 0, -1.5]}", "point: [0, 0, -1.5], rotor_inertia: 1}"),
            "joints[1].rotor_inertia",
            "unknown field",
        ),
    ],
)
def test_bad_locks_and_rotors(write_model, change, field, words):
    text = GOOD.replace(*change) + "switches:\n  - {name: brake, lock: J2}\n"
    assert text != GOOD + "switches:\n  - {name: brake, lock: J2}\n"
    path = write_model(text)
    with pytest.raises(ModelError) as info:
        load_model(path)
    assert f"{field}: " in str(info.value) and words in str(info.value), str(info.value)


def test_identified_inertia_is_accepted_only_when_asked_and_loudly(write_model, cli, tmp_path):
    """A triangle-inequality violation (identified data, docs/data/puma560.md note 2) is an
    error that names the per-body override; with `inertia_check: warn` it loads with a warning
    that generate prints; positive definiteness is still required."""
    bad = "mass: 1.0, inertia: [1, 1, 5]"
    with pytest.raises(ModelError, match=r"bodies\[0\].inertia: .*inertia_check: warn"):
        load_model(write_model(_mutate("mass: 1.0, inertia: [1, 1, 1]", bad)))
    path = write_model(_mutate("mass: 1.0, inertia: [1, 1, 1]", bad + ", inertia_check: warn"))
    (warning,) = load_model(path).warnings
    assert warning.startswith(f"{path}: bodies[0].inertia: inertia tensor violates the triangle")
    proc = cli("generate", path, "--out", tmp_path / "gen")
    assert proc.returncode == 0 and f"mcsgen: warning: {warning}" in proc.stderr
    for value, words in (
        ("[1, -1, 1], inertia_check: warn", "positive definite"),
        ("[1, 1, 1], inertia_check: loose", "not one of strict, warn"),
    ):
        text = _mutate("mass: 1.0, inertia: [1, 1, 1]", f"mass: 1.0, inertia: {value}")
        with pytest.raises(ModelError, match=words):
            load_model(write_model(text))
