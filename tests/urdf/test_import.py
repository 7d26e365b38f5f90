"""The URDF importer (generator/mcsgen/urdf): what it writes, and one clear line for every bad or
hostile file with nothing written. Fast: nothing here generates C."""

import math
import re
from fractions import Fraction

import numpy as np
import pytest
import yaml

import mcsgen

from mcsgen.errors import ModelError
from mcsgen.model import load_model
from mcsgen.paths import MODELS
from mcsgen.urdf import import_urdf
from mcsgen.urdf.tree import rpy_matrix

URDF = MODELS / "urdf"

PENDULUM = """<?xml version="1.0"?>
<robot name="bar">
  <link name="base"/>
  <link name="bar">
    <inertial>
      <origin xyz="{com}" rpy="{irpy}"/>
      <mass value="2"/>
      <inertia ixx="{ixx}" ixy="0" ixz="0" iyy="0.2" iyz="0" izz="0.01"/>
    </inertial>
  </link>
  <joint name="hinge" type="{jtype}">
    <parent link="base"/><child link="bar"/>
    <origin xyz="0 0 1" rpy="{rpy}"/>
    <axis xyz="{axis}"/>
    {extra}
  </joint>
</robot>
"""


def pendulum(**changes):
    fields = dict(
        com="0 0 -0.5",
        irpy="0 0 0",
        ixx="0.2",
        jtype="revolute",
        rpy="0 0 0",
        axis="1 0 0",
        extra="",
    )
    fields.update(changes)
    return PENDULUM.format(**fields)


def run_import(tmp_path, text, **kw):
    src = tmp_path / "robot.urdf"
    src.write_text(text)
    out = tmp_path / "out"
    out.mkdir(exist_ok=True)
    return import_urdf(src, out / f"{kw.pop('name', 'robot')}.yaml", **kw)


def test_the_written_file_is_an_ordinary_commented_model(tmp_path):
    path, notes = run_import(tmp_path, pendulum(), q={"hinge": Fraction(1, 2)}, coordinates="body")
    text = path.read_text()
    assert "# link \"bar\" (robot/link[@name='bar'])" in text
    assert '# joint "hinge" (revolute): link "base" -> link "bar"' in text
    doc = yaml.safe_load(text)
    (joint,) = doc["joints"]
    assert joint["start"] == 0.5 and joint["rate"] == 0 and "initial" not in joint
    assert joint["point"] == [0, 0, 1] and joint["axis"] == [1, 0, 0]
    (body,) = doc["bodies"]
    # written at the joint's zero, in the URDF's frames: hanging straight down from (0, 0, 1)
    assert body["position"] == [0, 0, 0.5] and "orientation" not in body
    assert any("root" in n for n in notes)
    # placed by start: (the generator): turned by 0.5 rad about x, its centre of mass follows
    x0 = load_model(path).x0
    assert x0[:3] == pytest.approx([0, 0.5 * math.sin(0.5), 1 - 0.5 * math.cos(0.5)], abs=1e-15)
    assert x0[3:] == pytest.approx([math.cos(0.25), math.sin(0.25), 0, 0], abs=1e-15)


def test_same_file_same_bytes(tmp_path):
    a, _ = run_import(tmp_path, pendulum(rpy="0.3 -0.2 1.1", axis="0 0.6 0.8"))
    first = a.read_bytes()
    b, _ = run_import(tmp_path, pendulum(rpy="0.3 -0.2 1.1", axis="0 0.6 0.8"))
    assert b.read_bytes() == first


def test_rpy_is_urdf_fixed_axis_roll_pitch_yaw():
    """R(rpy) = Rz(yaw) Ry(pitch) Rx(roll) (the URDF specification)."""
    r, p, y = 0.3, -0.2, 1.1
    R = np.array(rpy_matrix([Fraction(str(v)) for v in (r, p, y)]).tolist(), dtype=float)
    cx, sx, cy, sy, cz, sz = (
        math.cos(r),
        math.sin(r),
        math.cos(p),
        math.sin(p),
        math.cos(y),
        math.sin(y),
    )
    Rx = np.array([[1, 0, 0], [0, cx, -sx], [0, sx, cx]])
    Ry = np.array([[cy, 0, sy], [0, 1, 0], [-sy, 0, cy]])
    Rz = np.array([[cz, -sz, 0], [sz, cz, 0], [0, 0, 1]])
    assert np.abs(R - Rz @ Ry @ Rx).max() < 1e-15


def test_inertial_frame_rotation_and_fixed_merge_combine_inertia(tmp_path):
    """A child on a fixed joint merges into its parent: masses add, the centre of mass is the
    weighted mean and the inertia follows the parallel-axis theorem; the inertial rpy rotates
    the tensor into the link frame."""
    text = """<robot name="r"><link name="a"/>
      <link name="b"><inertial><origin xyz="0 0 -1" rpy="0 0 1.5707963267948966"/>
        <mass value="1"/><inertia ixx="0.1" iyy="0.3" izz="0.2" ixy="0" ixz="0" iyz="0"/>
      </inertial></link>
      <link name="c"><inertial><origin xyz="0 0 0"/><mass value="3"/>
        <inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial></link>
      <joint name="j" type="revolute"><parent link="a"/><child link="b"/><axis xyz="1 0 0"/>
      </joint>
      <joint name="weld" type="fixed"><parent link="b"/><child link="c"/>
        <origin xyz="0 0 -2"/></joint></robot>"""
    path, notes = run_import(tmp_path, text)
    (body,) = yaml.safe_load(path.read_text())["bodies"]
    assert body["mass"] == 4
    assert body["position"] == pytest.approx([0, 0, (1 * -1 + 3 * -2) / 4])
    # about the common centre (z = -1.75): b's yaw-turned tensor (0.3, 0.1, 0.2) + 1 * 0.75^2,
    # c's 0.01 + 3 * 0.25^2 on x and y
    d = 1 * 0.75**2 + 3 * 0.25**2
    assert body["inertia"] == pytest.approx([0.3 + 0.01 + d, 0.1 + 0.01 + d, 0.2 + 0.01])
    assert any("fixed joint 'weld': link 'c' merged into 'b'" in n for n in notes)


def test_messy_but_sensible_files_import_with_notes(tmp_path):
    """Massless links are merged or dropped, a point mass gets a small inertia, a triangle
    violation is kept with a warning, out-of-limit start values are noted, xacro leftovers and
    unknown elements are ignored, names that are not C identifiers are renamed: each said
    once."""
    text = """<?xml version="1.0"?>
    <!-- exported by a CAD plug-in -->
    <robot name="messy robot" xmlns:xacro="http://www.ros.org/wiki/xacro">
      <xacro:property name="len" value="1"/>
      <gazebo reference="arm-1"/>
      <link name="world"/>
      <link name="arm-1"><inertial><mass value="1"/>
        <inertia ixx="0.066" iyy="0.086" izz="0.0125" ixy="0" ixz="0" iyz="0"/></inertial></link>
      <link name="2nd"><inertial><origin xyz="0 0 -1"/><mass value="0.5"/>
        <inertia ixx="0" iyy="0" izz="0" ixy="0" ixz="0" iyz="0"/></inertial></link>
      <link name="sensor"/>
      <link name="tip"><inertial><mass value="1e-5"/>
        <inertia ixx="1e-12" iyy="1e-12" izz="1e-12" ixy="0" ixz="0" iyz="0"/></inertial></link>
      <joint name="j-1" type="revolute"><parent link="world"/><child link="arm-1"/>
        <axis xyz="0 1 0"/><limit lower="0.2" upper="0.3" effort="1" velocity="1"/></joint>
      <joint name="j2" type="continuous"><parent link="arm-1"/><child link="2nd"/>
        <origin xyz="0 0 -1"/><axis xyz="0 1 0"/></joint>
      <joint name="j3" type="revolute"><parent link="2nd"/><child link="sensor"/>
        <axis xyz="1 0 0"/></joint>
      <joint name="j4" type="fixed"><parent link="arm-1"/><child link="tip"/></joint>
    </robot>"""
    path, notes = run_import(tmp_path, text, name="messy")
    said = "\n".join(notes)
    assert "link 'arm-1' is named arm_1" in said and "joint 'j-1' is named j_1" in said
    assert "link '2nd' is named n2nd" in said
    assert "link 'sensor' has no mass and carries nothing: dropped with its joint" in said
    assert "link 'arm-1': inertia violates the triangle inequality" in said
    assert "kept as given with inertia_check: warn" in said
    assert "link '2nd': inertia not positive definite" in said
    assert "joint 'j-1': the start value 0 is outside its limits [0.2, 0.3]" in said
    assert "<limit> of j-1 kept as a comment, not an end stop: the joint starts outside" in said
    assert "<xacro:property> x1" in said and "<gazebo> x1" in said
    for note in notes:  # once per item
        assert notes.count(note) == 1
    model = load_model(path)
    assert [j.name for j in model.joints] == ["j_1", "j2"]
    (warning,) = model.warnings  # the identified inertia is accepted, loudly
    assert "bodies[0].inertia: inertia tensor violates the triangle inequality" in warning
    assert "accepted as given (inertia_check: warn)" in warning


@pytest.mark.parametrize(
    "text, where, problem",
    [
        (
            '<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 '
            '"&lol;&lol;&lol;&lol;">]><robot name="r"><link name="&lol2;"/></robot>',
            "<!DOCTYPE>",
            "document type declarations are refused",
        ),
        (
            '<?xml version="1.0"?><!DOCTYPE r [<!ENTITY ext SYSTEM "file:///etc/passwd">]>'
            '<robot name="r"><link name="&ext;"/></robot>',
            "<!DOCTYPE>",
            "refused",
        ),
        ("<robot name='r'><link name='a'>", "line 1", "not well-formed XML"),
        ("<sdf version='1.6'/>", "<sdf>", "must be <robot>"),
        ("<robot name='r'/>", "robot", "no <link> elements"),
        (pendulum(jtype="screw"), "robot/joint[@name='hinge']/@type", "'screw' is not a URDF"),
        (
            pendulum().replace('<parent link="base"/>', '<parent link="basis"/>'),
            "robot/joint[@name='hinge']/parent/@link",
            "unknown link 'basis'",
        ),
        (pendulum(ixx="nan"), "inertia/@ixx", "'nan' is not a finite decimal number"),
        (pendulum(ixx="1e999"), "inertia/@ixx", "is not a finite decimal number"),
        (pendulum(com="0 0"), "origin/@xyz", "expected 3 number(s)"),
        (pendulum(com="${l/2} 0 0"), "origin/@xyz", "xacro expression: run xacro first"),
        (pendulum(axis="0 0 0"), "axis/@xyz", "the axis has zero length"),
        (pendulum().replace('value="2"', 'value="-2"'), "mass/@value", "must not be negative"),
        (
            pendulum(extra='<mimic joint="other" multiplier="2"/>'),
            "robot/joint[@name='hinge']/mimic",
            "<mimic>",
        ),
        (
            pendulum(extra='<dynamics damping="-1"/>'),
            "dynamics/@damping",
            "must not be negative",
        ),
        (
            pendulum().replace(
                "</robot>",
                '<joint name="back" type="fixed"><parent link="bar"/>'
                '<child link="base"/></joint></robot>',
            ),
            "robot",
            "cycle",
        ),
        (
            pendulum().replace(
                "</robot>",
                '<link name="other"/><joint name="two" type="fixed">'
                '<parent link="other"/><child link="bar"/></joint></robot>',
            ),
            "robot/joint[@name='two']/child/@link",
            "already has a parent joint ('hinge')",
        ),
        (
            pendulum().replace("</robot>", '<link name="stray"/></robot>'),
            "robot/link[@name='stray']",
            "more than one root link",
        ),
        (
            pendulum().replace(
                "</robot>",
                '<joint name="hinge" type="fixed"><parent link="bar"/>'
                '<child link="bar"/></joint></robot>',
            ),
            "robot/joint[@name='hinge']",
            "duplicate joint name",
        ),
        (
            pendulum().replace('<link name="base"/>', ""),
            "robot/joint[@name='hinge']/parent/@link",
            "unknown link 'base'",
        ),
        (
            pendulum().replace('<mass value="2"/>', '<mass value="0"/>'),
            "robot",
            "no link with a mass moves",
        ),
    ],
    ids=[
        "entity-bomb",
        "external-entity",
        "malformed",
        "not-urdf",
        "no-links",
        "unknown-type",
        "missing-parent",
        "nan-inertia",
        "huge-number",
        "short-vector",
        "xacro",
        "zero-axis",
        "negative-mass",
        "mimic",
        "negative-damping",
        "cycle",
        "two-parents",
        "two-roots",
        "duplicate-joint",
        "missing-link",
        "nothing-moves",
    ],
)
def test_bad_and_hostile_files_get_one_line_and_nothing_written(tmp_path, text, where, problem):
    with pytest.raises(ModelError) as err:
        run_import(tmp_path, text)
    message = str(err.value)
    assert message.startswith(str(tmp_path / "robot.urdf") + ": ")
    assert where in message and problem in message, message
    assert "\n" not in message
    assert list((tmp_path / "out").iterdir()) == []  # nothing written, not even a temporary


def test_pose_options_are_checked(tmp_path):
    cases = [  # name: the --out file's (run_import)
        (dict(q={"elbow": Fraction(1)}), "--q elbow", "no joint named 'elbow'"),
        (dict(qd={"elbow": Fraction(1)}), "--qd elbow", "no joint named 'elbow'"),
        (dict(name="int"), "--out", "model name 'int' is a C keyword: write to"),
        (dict(name="a-b"), "--out", "model name 'a-b' is not a valid C identifier"),
    ]
    for kw, where, problem in cases:
        with pytest.raises(ModelError, match=re.escape(where) + ".*" + re.escape(problem)):
            run_import(tmp_path, pendulum(), **kw)
    src = tmp_path / "robot.urdf"
    with pytest.raises(ModelError, match="expected robot.yaml, got other.yaml"):
        import_urdf(src, tmp_path / "other.yaml", name="robot")
    with pytest.raises(ModelError, match="--out: '.*nowhere' is not a directory"):
        import_urdf(src, tmp_path / "nowhere" / "robot.yaml")


def test_cli_import_and_errors(cli, tmp_path):
    out = tmp_path / "puma560.yaml"
    proc = cli(
        "import-urdf",
        URDF / "puma560.urdf",
        "--out",
        out,
        "--q",
        "J2=pi/4",
        "--qd",
        "J1=1.5",
        "--gravity",
        "-9.80665,0,0",  # a value that starts with '-' is still the option's value
    )
    assert proc.returncode == 0, proc.stderr
    assert "fixed joint 'flange': link 'tool0' merged into 'link6'" in proc.stdout
    doc = yaml.safe_load(out.read_text())
    assert doc["gravity"] == [-9.80665, 0, 0] and "parameters" not in doc
    joints = {j["name"]: j for j in doc["joints"]}
    assert joints["J2"]["start"] == pytest.approx(math.pi / 4, abs=1e-16)
    assert joints["J1"]["rate"] == 1.5
    for args, problem in [
        (("--q", "J2"), "--q J2: expected JOINT=VALUE"),
        (("--q", "J2=__import__('os')"), "is not a finite number"),
        (("--q", "J2=1e999"), "is not a finite number"),
        (("--gravity", "0,0"), "--gravity: expected X,Y,Z"),
        (("--q", "flange=1"), "joint 'flange' is fixed (merged or dropped)"),
    ]:
        bad = tmp_path / "bad"
        bad.mkdir(exist_ok=True)
        proc = cli("import-urdf", URDF / "puma560.urdf", "--out", bad / "puma560.yaml", *args)
        assert proc.returncode == 2 and problem in proc.stderr, proc.stderr
        assert len(proc.stderr.strip().splitlines()) == 1 and "Traceback" not in proc.stderr
        assert list(bad.iterdir()) == []


def test_floating_and_planar_joints(tmp_path):
    """A floating child is a free body (no rows, at rest); a planar joint is mcsgen's spatial
    planar joint with the plane's normal as its axis; neither takes --q."""
    text = """<robot name="r"><link name="world"/>
      <link name="puck"><inertial><mass value="1"/>
        <inertia ixx="0.1" iyy="0.1" izz="0.1" ixy="0" ixz="0" iyz="0"/></inertial></link>
      <link name="drone"><inertial><mass value="2"/>
        <inertia ixx="0.1" iyy="0.1" izz="0.15" ixy="0" ixz="0" iyz="0"/></inertial></link>
      <joint name="table" type="planar"><parent link="world"/><child link="puck"/>
        <axis xyz="0 0 1"/></joint>
      <joint name="air" type="floating"><parent link="world"/><child link="drone"/>
        <origin xyz="0 0 3"/></joint></robot>"""
    path, notes = run_import(tmp_path, text)
    doc = yaml.safe_load(path.read_text())
    assert [j["type"] for j in doc["joints"]] == ["planar"]
    drone = doc["bodies"][1]
    assert drone["position"] == [0, 0, 3] and drone["velocity"] == [0, 0, 0]
    assert any("floating joint 'air': link 'drone' is a free body" in n for n in notes)
    model = load_model(path)
    # in joint coordinates (import-urdf's) the planar joint is a tree joint (y, z and its angle)
    # and the drone a floating body (its pose, with its norm row)
    assert [c.name for c in model.coordinates][:3] == ["drone.x", "drone.y", "drone.z"]
    assert [c.name for c in model.coordinates][7:] == ["table.y", "table.z", "table.angle"]
    assert [c.name for c in model.constraints] == ["drone.norm"]
    for option in ("table", "air"):
        with pytest.raises(ModelError, match="has no single coordinate to set"):
            run_import(tmp_path, text, q={option: Fraction(1)})


FLOATING_BASE = """<robot name="fb"><link name="world"/>
  <link name="base"><inertial><mass value="2"/>
    <inertia ixx="0.1" iyy="0.2" izz="0.3" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <link name="arm"><inertial><mass value="1"/><origin xyz="0 0 0.25"/>
    <inertia ixx="0.02" iyy="0.02" izz="0.001" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <joint name="free" type="floating"><parent link="world"/><child link="base"/>
    <origin xyz="0 0 1" rpy="0 0 1.5707963267948966"/></joint>
  <joint name="shoulder" type="revolute"><parent link="base"/><child link="arm"/>
    <origin xyz="0.1 0 0"/><axis xyz="0 1 0"/></joint></robot>"""


def test_a_floating_base_carries_its_robot(tmp_path):
    """Issue 60: a floating joint from the world to a link that carries the rest of the robot (a
    floating base) failed with KeyError: 'base' (the joints were placed before the free bodies
    they hang on). The base's frame (turned 90 degrees about z, 1 m up) places its children: the
    shoulder 0.1 m along the base's x is at world y = 0.1, its axis the base's y is world -x; in
    free fall nothing turns the arm about it."""
    path, notes = run_import(tmp_path, FLOATING_BASE, q={"shoulder": Fraction(1, 2)})
    assert any("floating joint 'free': link 'base' is a free body" in n for n in notes)
    doc = yaml.safe_load(path.read_text())
    base, arm = doc["bodies"]
    (shoulder,) = doc["joints"]
    assert base["position"] == [0, 0, 1] and arm["position"] == [0, 0.1, 1.25]
    assert shoulder["point"] == [0, 0.1, 1] and shoulder["axis"] == [-1, 0, 0]
    assert (shoulder["body1"], shoulder["body2"], shoulder["start"]) == ("arm", "base", 0.5)
    run = mcsgen.load(path).build().simulate(t_end=0.5, method="dopri5", dt_out=0.05)
    assert run.ok, run.summary
    column = run.columns
    assert np.abs(np.array(column["j.shoulder"]) - 0.5).max() < 1e-9
    # the centre of mass falls freely: the base's height against its start less g t^2 / 2 (the
    # arm does not move relative to it)
    t = np.array(run.t)
    assert np.abs(np.array(column["x.base.z"]) - (1 - 9.81 * t**2 / 2)).max() < 1e-9


def test_import_leaves_the_global_precision_alone(tmp_path):
    """The importer computes at 50 digits locally: model/initial.py derives its working precision
    from mpmath's global one, so a changed global would change generated bytes later in the same
    process."""
    import mpmath

    before = mpmath.mp.dps
    run_import(tmp_path, pendulum(rpy="0.3 -0.2 1.1"))
    assert mpmath.mp.dps == before


def test_model_names_are_made_valid_and_said(tmp_path, cli):
    """The model is named after --name, else --out's file, else the robot, else the URDF file:
    a derived name is made a valid one as links and joints are (invalid characters to '_', a
    letter before a digit) and the note says from what; --name and --out, which name the file
    to write, are checked by the generator's rule and words instead."""
    robot = pendulum()
    for robot_name, file_name, expected, note in [
        ("", "my-robot", "my_robot", "after the file name 'my-robot'"),
        ("", "2-link arm", "n2_link_arm", "after the file name '2-link arm'"),
        ("my robot!", "other", "my_robot", "after the robot name 'my robot!'"),
        ("mcs-arm", "other", "nmcs_arm", "after the robot name 'mcs-arm'"),
        ("bar", "my-robot", "bar", None),
    ]:
        work = tmp_path / expected
        work.mkdir(exist_ok=True)
        src = work / f"{file_name}.urdf"
        src.write_text(robot.replace('<robot name="bar">', f'<robot name="{robot_name}">'))
        proc = cli("import-urdf", src, cwd=work)
        assert proc.returncode == 0, proc.stderr
        model = load_model(work / f"{expected}.yaml")
        assert model.name == expected
        renamed = [line for line in proc.stdout.splitlines() if "the model is named" in line]
        if note is None:
            assert renamed == []
        else:
            assert renamed == [f"  the model is named {expected} {note} (not a valid name)"]
            assert note in " ".join(model.description.split())
    # --out names the file: refused, with the name to use
    proc = cli("import-urdf", src, "--out", tmp_path / "my-robot.yaml")
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    (line,) = proc.stderr.strip().splitlines()
    assert f"{src}: --out: the model is named after the file, and model name 'my-robot' is " in line
    assert f"write to {tmp_path / 'my_robot.yaml'}" in line
    assert not (tmp_path / "my-robot.yaml").exists()


def test_name_lengths_follow_the_generator(tmp_path):
    """Names are at most reader.MAX_NAME (63) characters, as the generator says; a damped joint's
    name leaves room for its parameter damping_<joint> (a parameter: MAX_PARAM_NAME, 57)."""
    from mcsgen.model.reader import MAX_NAME, MAX_PARAM_NAME

    src = tmp_path / "robot.urdf"
    long_joint = "a_very_long_joint_name_" * 4  # 92 characters, damped
    src.write_text(
        pendulum(extra='<dynamics damping="0.1"/>')
        .replace('name="hinge"', f'name="{long_joint}"')
        .replace('<link name="bar">', f'<link name="{"b" * 70}">')
        .replace('<child link="bar"/>', f'<child link="{"b" * 70}"/>')
    )
    name = "m" * MAX_NAME
    path, notes = import_urdf(src, tmp_path / f"{name}.yaml", name=name)
    model = load_model(path)
    assert model.name == name
    (param,) = [p for p in yaml.safe_load(path.read_text())["parameters"] if p != "g"]
    assert param.startswith("damping_a_very_long") and len(param) == MAX_PARAM_NAME
    assert any(f"link '{'b' * 70}' is named {'b' * MAX_NAME} in the model" in n for n in notes)
    too_long = "m" * (MAX_NAME + 1)
    for kw in (dict(name=too_long), dict()):
        option = "--name" if kw else "--out"
        with pytest.raises(ModelError) as err:
            import_urdf(src, tmp_path / f"{too_long}.yaml", **kw)
        assert f": {option}: " in str(err.value)
        assert f"is {MAX_NAME + 1} characters long: at most {MAX_NAME} (it names C identifiers" in (
            str(err.value)
        )


EQUAL = """<robot name="r"><link name="base"/>
  <link name="upper"><inertial><origin xyz="0 0 -0.5"/><mass value="1"/>
    <inertia ixx="0.1" iyy="0.1" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <link name="lower"><inertial><origin xyz="0 0 -0.5"/><mass value="2"/>
    <inertia ixx="0.2" iyy="0.2" izz="0.02" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <link name="tool"/>
  <link name="tip"><inertial><mass value="0.5"/>
    <inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <joint name="shoulder" type="revolute"><parent link="base"/><child link="upper"/>
    <axis xyz="1 0 0"/><limit lower="-1" upper="1" effort="1" velocity="1"/></joint>
  <joint name="elbow" type="revolute"><parent link="upper"/><child link="lower"/>
    <origin xyz="0 0 -1"/><axis xyz="1 0 0"/>
    <limit lower="0.3" upper="0.3" effort="1" velocity="1"/></joint>
  <joint name="extend" type="prismatic"><parent link="lower"/><child link="tool"/>
    <origin xyz="0 0 -1"/><axis xyz="0 0 -1"/><limit lower="0.25" upper="0.25"/></joint>
  <joint name="wrist" type="revolute"><parent link="tool"/><child link="tip"/>
    <axis xyz="1 0 0"/></joint>
</robot>"""


def test_equal_limits_import_as_fixed_at_the_limit(tmp_path):
    """A revolute or prismatic joint whose lower and upper limits are equal cannot move: its
    child is merged into the parent as on a fixed joint, at the limit position (not at 0); a
    --q other than that position, or a --qd, is refused."""
    path, notes = run_import(tmp_path, EQUAL, q={"shoulder": Fraction(1, 2)}, coordinates="body")
    said = "\n".join(notes)
    assert (
        "joint 'elbow' (revolute) has equal limits (lower = upper = 0.3): imported as fixed at "
        "0.3, link 'lower' merged into 'upper'" in said
    )
    assert "joint 'extend' (prismatic) has equal limits (lower = upper = 0.25)" in said
    assert "<limit lower upper> of shoulder as end stops" in said  # the fixed ones have no joint
    doc = yaml.safe_load(path.read_text())
    assert [j["name"] for j in doc["joints"]] == ["shoulder", "wrist"]
    upper, tip = doc["bodies"]
    assert upper["mass"] == 3
    # in upper's frame: lower's centre of mass 0.5 from the elbow (0, 0, -1) turned by 0.3 rad
    # about x; the wrist slid 0.25 further along lower's -z
    lower_com = np.array([0, 0.5 * math.sin(0.3), -1 - 0.5 * math.cos(0.3)])
    com = (np.array([0, 0, -0.5]) * 1 + lower_com * 2) / 3
    # written at the shoulder's zero; its --q 0.5 is its start:, where the generator turns it
    assert upper["position"] == pytest.approx(com, abs=1e-15)
    wrist = np.array([0, 1.25 * math.sin(0.3), -1 - 1.25 * math.cos(0.3)])
    assert tip["position"] == pytest.approx(wrist, abs=1e-15)
    assert doc["joints"][1]["point"] == pytest.approx(wrist, abs=1e-15)
    assert doc["joints"][0]["start"] == 0.5
    c, s = math.cos(0.5), math.sin(0.5)
    R = np.array([[1, 0, 0], [0, c, -s], [0, s, c]])
    x0 = load_model(path).x0  # upper's pose, then tip's
    assert x0[0:3] == pytest.approx(R @ com, abs=1e-15)
    assert x0[7:10] == pytest.approx(R @ wrist, abs=1e-15)
    # its --q may only repeat the limit (to 1e-15), and it has no rate
    path, _ = run_import(tmp_path, EQUAL, q={"elbow": Fraction(3, 10) + Fraction(1, 10**17)})
    assert yaml.safe_load(path.read_text())["bodies"][0]["mass"] == 3
    for kw, where, problem in [
        (
            dict(q={"elbow": Fraction(1, 2)}),
            "--q elbow",
            "joint 'elbow' has equal limits (lower = upper = 0.3) and is imported as fixed at "
            "0.3, not 0.5 (leave --q out)",
        ),
        (
            dict(qd={"extend": Fraction(1)}),
            "--qd extend",
            "joint 'extend' has equal limits (lower = upper = 0.25) and is imported as fixed: "
            "it cannot move (leave --qd out)",
        ),
    ]:
        with pytest.raises(ModelError) as err:
            run_import(tmp_path, EQUAL, **kw)
        assert str(err.value) == f"{tmp_path / 'robot.urdf'}: {where}: {problem}"


STIFF = """<robot name="light"><link name="base"/>
  <link name="flap"><inertial><mass value="0.01"/>
    <inertia ixx="1e-6" iyy="1e-6" izz="1e-6" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <link name="slide"><inertial><mass value="0.01"/>
    <inertia ixx="1e-6" iyy="1e-6" izz="1e-6" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <joint name="hinge" type="revolute"><parent link="base"/><child link="flap"/>
    <axis xyz="0 1 0"/><dynamics damping="1"/></joint>
  <joint name="rail" type="prismatic"><parent link="base"/><child link="slide"/>
    <axis xyz="1 0 0"/><dynamics damping="{rail}"/></joint>
</robot>"""


def test_stiff_damping_is_warned(tmp_path):
    """Damping 1 N m s/rad on a 1e-6 kg m^2 link decays at 1e6 1/s: far beyond RK4 at the default
    step 1e-3 s. Warned once per joint (h d / I > 1), in the notes and in the description."""
    path, notes = run_import(tmp_path, STIFF.format(rail="20"))
    warnings = [n for n in notes if n.startswith("warning:")]
    assert len(warnings) == 2 and notes[-2:] == warnings  # last, one line per joint
    hinge, rail = warnings
    assert hinge.startswith("warning: joint 'hinge': damping 1 N m s/rad on 1e-06 kg m^2")
    assert "at 1e+06 1/s, too fast for RK4 at the default step h = 0.001 s" in hinge
    assert hinge.endswith("a step below 1e-06 s (--h), or method dopri5")
    # 20 N s/m on 0.01 kg: 2000 1/s; a step below 1 / 2000 s
    assert rail.startswith("warning: joint 'rail': damping 20 N s/m on 0.01 kg")
    assert "at 2e+03 1/s" in rail and rail.endswith("below 0.0005 s (--h), or method dopri5")
    description = " ".join(load_model(path).description.split())
    for warning in warnings:
        assert warning in description
    # 0.1 N s/m on 0.01 kg: 10 1/s, h * 10 = 0.01: no warning for the rail
    _, notes = run_import(tmp_path, STIFF.format(rail="0.1"))
    assert [n.split(":")[1] for n in notes if n.startswith("warning:")] == [" joint 'hinge'"]


@pytest.mark.parametrize("urdf", ["puma560.urdf", "double_pendulum.urdf", "cart_pole.urdf"])
def test_shipped_robots_are_not_stiff(tmp_path, urdf):
    """The shipped robots (the cart-pole damped: 0.3 / 1 kg and 0.01 / 0.0167 kg m^2) get no
    stiffness warning."""
    _, notes = import_urdf(URDF / urdf, tmp_path / urdf.replace(".urdf", ".yaml"))
    assert not [n for n in notes if "warning" in n]


MASSLESS_ARM = """<robot name="arm">
  <link name="base"/>
  <link name="yaw_frame"/>
  <link name="upper"><inertial><origin xyz="0 0 -0.5"/><mass value="2"/>
    <inertia ixx="0.2" iyy="0.2" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <link name="lower"><inertial><origin xyz="0 0 -0.4"/><mass value="1"/>
    <inertia ixx="0.05" iyy="0.05" izz="0.005" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <link name="slider"><inertial><mass value="0.5"/>
    <inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <joint name="yaw" type="revolute"><parent link="base"/><child link="yaw_frame"/>
    <axis xyz="0 0 1"/><limit effort="80" velocity="2" lower="-3" upper="3"/></joint>
  <joint name="pitch" type="revolute"><parent link="yaw_frame"/><child link="upper"/>
    <axis xyz="0 1 0"/><limit effort="60.5" velocity="2" lower="-2" upper="2"/></joint>
  <joint name="elbow" type="continuous"><parent link="upper"/><child link="lower"/>
    <origin xyz="0 0 -1"/><axis xyz="0 1 0"/></joint>
  <joint name="tau_slide" type="prismatic"><parent link="lower"/><child link="slider"/>
    <origin xyz="0 0 -0.8"/><axis xyz="0 0 1"/><limit effort="200" velocity="1" lower="-0.1"
    upper="0.1"/></joint>
</robot>
"""


def test_actuated_joints_get_inputs_with_their_effort_limits(tmp_path):
    """Issue 60: an input per revolute, continuous and prismatic joint (a torque or a force on
    it), limited by the URDF <limit effort> where there is one; a name a joint already has is
    not taken again."""
    path, _ = run_import(tmp_path, MASSLESS_ARM, name="arm", q={"pitch": Fraction(2, 5)})
    doc = yaml.safe_load(path.read_text())
    assert doc["inputs"] == [
        {"name": "tau_yaw", "unit": "N m", "joint": "yaw", "limits": [-80, 80]},
        {"name": "tau_pitch", "unit": "N m", "joint": "pitch", "limits": [-60.5, 60.5]},
        {"name": "tau_elbow", "unit": "N m", "joint": "elbow"},
        {"name": "force_tau_slide", "unit": "N", "joint": "tau_slide", "limits": [-200, 200]},
    ]
    model = load_model(path)
    assert [(u.name, u.joint, u.lower, u.upper) for u in model.inputs][:2] == [
        ("tau_yaw", "yaw", -80.0, 80.0),
        ("tau_pitch", "pitch", -60.5, 60.5),
    ]


def test_a_massless_link_that_carries_a_joint_is_kept_in_joint_coordinates(tmp_path):
    """Issue 60: real URDFs have massless frames between two joints (a yaw frame, here). In
    joint coordinates only a subtree's composite inertia enters M: the link is kept with mass 0
    and said; in body coordinates every moving body needs a mass, and the message says where a
    massless link is accepted. The loader holds the same rule for a written file."""
    path, _ = run_import(tmp_path, MASSLESS_ARM, name="arm")
    said = path.read_text()
    assert "'yaw_frame' has no mass and carries joint 'pitch': kept as a massless link" in said
    body = next(b for b in yaml.safe_load(said)["bodies"] if b["name"] == "yaw_frame")
    assert body["mass"] == 0 and body["inertia"] == [0, 0, 0]
    assert load_model(path).n == 4
    with pytest.raises(ModelError, match="joint coordinates, the default, keep a massless link"):
        run_import(tmp_path, MASSLESS_ARM, name="arm", coordinates="body")
    as_bodies = tmp_path / "out" / "arm_bodies.yaml"
    text = said.replace("coordinates: joint", "coordinates: body").replace(
        "name: arm", "name: arm_bodies"
    )
    as_bodies.write_text(text)
    with pytest.raises(ModelError, match=r"mass: mass must be positive, got 0 \(a massless link"):
        load_model(as_bodies)
    bad = tmp_path / "out" / "arm.yaml"
    bad.write_text(said.replace("inertia: [0, 0, 0]", "inertia: [0.1, 0, 0]", 1))
    with pytest.raises(ModelError, match="a massless link's inertia is 0"):
        load_model(bad)
