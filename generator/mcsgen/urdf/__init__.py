"""URDF import: a robot description -> an ordinary mechanism file (README, "Importing URDF").

- read.py   the XML, parsed safely (defusedxml, no DTDs or entities) into exact records
- tree.py   links and joints -> bodies and joints: fixed joints merged, poses at q (mpmath)
- write.py  the mechanism file's YAML text, with a comment per body and joint
"""

import os
import re
import shutil
import tempfile
from pathlib import Path

import mpmath

from ..errors import ModelError
from ..model.reader import C_KEYWORDS, RESERVED
from .read import parse
from .tree import DIGITS, Tree
from .write import render

IDENT = re.compile(r"[^A-Za-z0-9_]+")


def c_name(text, taken):
    """A model name for a URDF name: letters, digits and '_' (runs of others become one '_'),
    starting with a letter, no '__', not reserved, not taken (then _2, _3, ...)."""
    base = IDENT.sub("_", text).strip("_")
    base = re.sub("_+", "_", base) or "x"
    if not base[0].isalpha():
        base = "n" + base
    base = base[:60]
    name, k = base, 2
    while name in taken or name in C_KEYWORDS or name in RESERVED or name == "ground":
        name, k = f"{base}_{k}", k + 1
    taken.add(name)
    return name


def model_names(robot):
    """mcsgen names for every link and joint (one namespace), and the notes of the renamed."""
    taken, names, notes = {"g"}, {}, []
    for what, items in (("link", robot.links), ("joint", [j.name for j in robot.joints])):
        for original in items:
            name = c_name(original, taken)
            names[original] = name
            if name != original:
                notes.append(f"{what} '{original}' is named {name} in the model")
    # damping parameters share the namespace
    for j in robot.joints:
        taken.add(f"damping_{names[j.name]}")
    return names, notes


def _render(tree, robot, renamed, name, path, gravity):
    """The notes of what the import did, then the mechanism file's text."""
    tree.notes = renamed + tree.notes
    limited = [j.urdf.name for j in tree.joints if j.urdf.limit]
    if limited:
        tree.notes.append(
            f"<limit> of {', '.join(limited)} kept as comments: mcsgen has no limit stops or "
            "contact"
        )
    for j in tree.joints:
        if j.urdf.friction > 0:
            tree.notes.append(
                f"joint '{j.urdf.name}': <dynamics friction> {float(j.urdf.friction):g} is not "
                "modelled"
            )
    ignored = ", ".join(f"<{tag}> x{count}" for tag, count in robot.ignored.items())
    if ignored:
        tree.notes.append(f"ignored (nothing to simulate): {ignored}")
    return render(tree, name, path.name, gravity)


def import_urdf(path, out=None, name=None, q=None, qd=None, gravity=None):
    """Reads URDF `path`, writes the mechanism file `out` (default: <model name>.yaml in the
    current directory) and returns (out path, notes). q, qd: dicts
    joint name -> Fraction; gravity: 3 Fractions or None (9.81 along -z). Nothing is written
    unless the written file loads as a valid model."""
    from ..model import load_model

    path = Path(path)
    robot = parse(path)
    names, renamed = model_names(robot)
    if name is None:  # the file's name, else the robot's
        name = Path(out).stem if out else c_name(robot.name or path.stem, set())
    if not re.fullmatch(r"[A-Za-z][A-Za-z0-9_]*", name) or "__" in name or len(name) > 60:
        raise ModelError(
            path, "--name", f"'{name[:60]}' is not a valid model name (a C identifier, at most 60)"
        )
    if name in C_KEYWORDS or name in RESERVED:
        raise ModelError(path, "--name", f"'{name}' is reserved and cannot be a model name")
    out = Path(out) if out else Path(f"{name}.yaml")
    if out.suffix not in (".yaml", ".yml") or out.stem != name:
        raise ModelError(
            path,
            "--out",
            f"a mechanism file is named <model>.yaml: expected {name}.yaml, got {out.name}",
        )
    with mpmath.workdps(DIGITS):  # a local precision: model/initial.py reads the global one
        tree = Tree(path, robot, q, qd, names)
        text = _render(tree, robot, renamed, name, path, gravity)
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
