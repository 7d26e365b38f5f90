"""URDF import: a robot description -> an ordinary mechanism file (docs/reference/urdf.md).

- read.py   the XML, parsed safely (defusedxml, no DTDs or entities) into exact records
- tree.py   links and joints -> bodies and joints: fixed joints merged, poses at q (mpmath)
- write.py  the mechanism file's YAML text, with a comment per body and joint
"""

import os
import re
import shutil
import tempfile
from decimal import Decimal
from pathlib import Path

import mpmath

from ..errors import ModelError
from ..model.loader import SIM_DEFAULTS
from ..model.reader import C_KEYWORDS, MAX_NAME, MAX_PARAM_NAME, RESERVED, RUNTIME_PREFIXES
from ..model.reader import Reader
from .read import parse
from .tree import DIGITS, Tree, mp
from .write import render, stopped_joints

IDENT = re.compile(r"[^A-Za-z0-9_]+")
DAMPING = "damping_"  # the prefix of a damped joint's parameter (write.py)
# names the generator refuses by their start (model/reader.py, Reader.identifier)
REFUSED_PREFIXES = RUNTIME_PREFIXES
REFUSED = C_KEYWORDS | RESERVED | {"ground", "main"}


def c_name(text, taken, longest=MAX_NAME):
    """A model name for a URDF name: letters, digits and '_' (runs of others become one '_'),
    starting with a letter (else prefixed 'n'), no '__', at most `longest` characters, none the
    generator refuses (C keywords, reserved names, the runtime's mcs_ and MCS_), not
    taken (then _2, _3, ...)."""
    base = IDENT.sub("_", text).strip("_")
    base = re.sub("_+", "_", base) or "x"
    if not base[0].isalpha() or base.startswith(REFUSED_PREFIXES) or base in ("mcs", "MCS"):
        base = "n" + base
    name, k = base[:longest], 2
    while name in taken or name in REFUSED:
        suffix = f"_{k}"
        name, k = base[: longest - len(suffix)].rstrip("_") + suffix, k + 1
    taken.add(name)
    return name


def model_names(robot):
    """mcsgen names for every link and joint (one namespace), and the notes of the renamed. A
    damped joint's name leaves room for its parameter's prefix (damping_<joint>)."""
    taken, names, notes = {"g"}, {}, []
    damped = {j.name for j in robot.joints if j.damping > 0}
    for what, items in (("link", robot.links), ("joint", [j.name for j in robot.joints])):
        for original in items:
            damper = what == "joint" and original in damped
            longest = MAX_PARAM_NAME - len(DAMPING) if damper else MAX_NAME
            name = c_name(original, taken, longest)
            names[original] = name
            if name != original:
                notes.append(f"{what} '{original}' is named {name} in the model")
    # damping parameters share the namespace
    for j in robot.joints:
        taken.add(f"{DAMPING}{names[j.name]}")
    return names, notes


def check_name(path, name, option):
    """A model name of --name (or of --out's file name) as the generator reads it: the same rule
    and words (model/reader.py), and not a name of the expression language."""
    Reader(path).identifier(name, option, "model")
    if name in RESERVED:
        raise ModelError(path, option, f"'{name}' is reserved and cannot be a model name")


def model_name(path, robot, out, name):
    """The model's name and the note that says where it comes from if it was renamed: --name,
    else --out's file name (which must be one: a mechanism file is <model>.yaml), else the
    robot's name, else the URDF file's, made a valid name as links and joints are."""
    if name is not None:
        check_name(path, name, "--name")
        return name, []
    if out is not None:
        stem = Path(out).stem
        try:
            check_name(path, stem, "--out")
        except ModelError as exc:
            valid = Path(out).with_name(c_name(stem, set()) + Path(out).suffix)
            raise ModelError(
                path,
                "--out",
                f"the model is named after the file, and {exc.problem}: write to {valid}",
            ) from None
        return stem, []
    what, source = "robot name", robot.name.strip()
    if not source:
        what, source = "file name", path.stem
    name = c_name(source, set())
    if name == source:
        return name, []
    return name, [f"the model is named {name} after the {what} '{source}' (not a valid name)"]


def step_below(rate):
    """1 / rate (mpf, 1/s) rounded down to 1 significant digit, as text: a step in s."""
    x = Decimal(mpmath.nstr(1 / rate, 30))
    e = x.adjusted()
    return format(float(Decimal(int(x.scaleb(-e))).scaleb(e)), "g")


def stiffness_notes(tree):
    """A warning for each joint whose damping decays motion too fast for the written model's
    default integrator (RK4 at SIM_DEFAULTS' step: the file sets none): RK4 is stable for
    exp(-k t) while h k < 2.785, and inaccurate well before, so h d / I > 1 warns, with I the
    smallest inertia the joint moves (Tree.moved_inertia: the child body alone)."""
    h = SIM_DEFAULTS["h"]
    notes = []
    for j in tree.joints:
        if j.urdf.damping == 0 or j.urdf.type == "planar":  # planar: no damper (write.py)
            continue
        inertia = tree.moved_inertia(j)
        if inertia == 0:  # a massless link: what the joint moves is beyond further joints
            continue
        rate = mp(j.urdf.damping) / inertia
        if mpmath.mpf(h) * rate <= 1:
            continue
        units = ("N s/m", "kg") if j.urdf.type == "prismatic" else ("N m s/rad", "kg m^2")
        notes.append(
            f"warning: joint '{j.urdf.name}': damping {float(j.urdf.damping):g} {units[0]} on "
            f"{float(inertia):.3g} {units[1]} (link '{tree.bodies[j.child].link}') decays "
            f"motion at {float(rate):.3g} 1/s, too fast for RK4 at the default step h = {h:g} s:"
            f" simulate with method ros34pw2 (implicit; ros34pw2_fixed keeps h), a step below"
            f" {step_below(rate)} s (--h), or method dopri5"
        )
    return notes


def _render(tree, robot, renamed, name, path, gravity, coordinates="joint"):
    """The notes of what the import did, then the mechanism file's text."""
    tree.notes = renamed + tree.notes
    stopped = stopped_joints(tree)
    if stopped:
        tree.notes.append(
            f"<limit lower upper> of {', '.join(j.urdf.name for j in stopped)} as end stops "
            "(plastic: restitution 0)"
        )
    for j in tree.joints:
        limit = j.urdf.limit or {}
        if j in stopped or not {"lower", "upper"} <= set(limit):
            continue
        if j.urdf.type not in ("revolute", "prismatic"):
            continue
        if not tree.stops_from_limits:
            tree.notes.append(f"<limit> of {j.urdf.name} kept as a comment (--limits comments)")
            continue
        tree.notes.append(
            f"<limit> of {j.urdf.name} kept as a comment, not an end stop: the joint starts "
            f"outside it (--q {j.name}=VALUE within it makes it one)"
        )
    for j in tree.joints:
        if j.urdf.friction > 0 and coordinates != "joint":
            tree.notes.append(
                f"joint '{j.urdf.name}': <dynamics friction> {float(j.urdf.friction):g} is not "
                "modelled in body coordinates (import with --coordinates joint)"
            )
    ignored = ", ".join(f"<{tag}> x{count}" for tag, count in robot.ignored.items())
    if ignored:
        tree.notes.append(f"ignored (nothing to simulate): {ignored}")
    tree.notes += stiffness_notes(tree)  # last: the warnings
    return render(tree, name, path.name, gravity, coordinates)


def import_urdf(
    path,
    out=None,
    name=None,
    q=None,
    qd=None,
    gravity=None,
    coordinates="joint",
    limits="stops",
):
    """Reads URDF `path`, writes the mechanism file `out` (default: <model name>.yaml in the
    current directory) and returns (out path, notes). q, qd: dicts
    joint name -> Fraction; gravity: 3 Fractions or None (9.81 along -z); coordinates: the
    file's `coordinates:` (joint, or body for each body's pose); limits: the joints' <limit
    lower upper> as end stops ("stops") or as comments ("comments"). Nothing is written unless
    the written file loads as a valid model."""
    if limits not in ("stops", "comments"):
        raise ModelError(path, "--limits", f"'{limits}' is not one of stops, comments")
    from ..model import load_model

    path = Path(path)
    robot = parse(path)
    names, renamed = model_names(robot)
    name, named = model_name(path, robot, out, name)
    renamed = named + renamed
    out = Path(out) if out else Path(f"{name}.yaml")
    if out.suffix not in (".yaml", ".yml") or out.stem != name:
        raise ModelError(
            path,
            "--out",
            f"a mechanism file is named <model>.yaml: expected {name}.yaml, got {out.name}",
        )
    with mpmath.workdps(DIGITS):  # a local precision: model/initial.py reads the global one
        tree = Tree(path, robot, q, qd, names, coordinates)
        tree.stops_from_limits = limits == "stops"
        text = _render(tree, robot, renamed, name, path, gravity, coordinates)
    directory = out.parent
    if not directory.is_dir():
        raise ModelError(path, "--out", f"'{directory}' is not a directory")
    try:
        scratch = tempfile.mkdtemp(prefix=".import-urdf.", dir=directory)
    except OSError as exc:
        raise ModelError(path, "--out", f"cannot write in '{directory}' ({exc.strerror})") from None
    try:
        tmp = Path(scratch) / out.name
        tmp.write_text(text, encoding="utf-8")
        try:
            load_model(tmp)
        except ModelError as exc:  # an importer bug: say so, write nothing
            raise ModelError(
                path, "", f"the imported model is not valid ({exc.field}: {exc.problem})"
            ) from None
        try:
            os.replace(tmp, out)
        except OSError as exc:
            raise ModelError(path, "--out", f"cannot write '{out}' ({exc.strerror})") from None
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return out, tree.notes
