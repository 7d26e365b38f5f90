"""Helpers shared by the end-to-end tests (tests/ is on sys.path through conftest.py)."""
import json
import re
import subprocess

import numpy as np
import pytest
import sympy as sp

import mcsgen
from mcsgen.build import build_simulator
from mcsgen.errors import McsError
from mcsgen.options import option_arguments
from mcsgen.outputs.plot import read_run

_solvers = {}  # model -> its in-process solver (mcsgen.api), built once per test process


def simulate(tmp_path, model, with_events=False, **options):
    """Run a model with the given simulate options, in-process through the Python API (the
    program `./mcsgen simulate` runs; tests/test_api.py shows it equals the standalone
    executable to the last bit, and building one library per model instead of a library and an
    executable saves the suite's time); returns (summary, run) or, with_events, (summary, run,
    events). Fails the test when the run does not succeed."""
    tag = "_".join(f"{k}{v}" for k, v in sorted(options.items()))
    out = tmp_path / f"{model}_{tag}.csv"
    events = tmp_path / f"{model}_{tag}.events.json"
    if model not in _solvers:
        _solvers[model] = mcsgen.load(model).build()
    summary = _solvers[model].simulate_to_files(out, events, **options)
    assert summary["ok"], summary
    if with_events:
        # no log when nothing happened (no singular configuration, no transition)
        return summary, read_run(out), json.loads(events.read_text()) if events.exists() else []
    return summary, read_run(out)


def run_simulation(model_name, options, out_csv=None):
    """Build and run the standalone simulator executable of a generated model (what
    tests/test_api.py holds the in-process library to); returns its JSON summary as a dict. A
    refused option (exit status 2) raises McsError naming it."""
    cmd = [str(build_simulator(model_name))] + option_arguments(options)
    if out_csv:
        cmd += ["--out", str(out_csv)]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    # 0: done, 1: stopped by a failure (the summary says which)
    if proc.returncode not in (0, 1) or not proc.stdout.strip():
        err = proc.stderr.strip() or f"exit code {proc.returncode}"
        if proc.returncode == 2:  # the simulator refused its arguments (it names the option)
            raise McsError(f"simulate {model_name}: {err.removeprefix('simulate: ')}")
        raise McsError(f"simulation of {model_name} failed: {err}")
    return json.loads(proc.stdout)


def quaternion_matrix(e):
    """R(e) (3 x 3, numpy) of Euler parameters e; a rotation when |e| = 1."""
    e0, e1, e2, e3 = e
    return np.array(
        [
            [
                e0**2 + e1**2 - e2**2 - e3**2,
                2 * (e1 * e2 - e0 * e3),
                2 * (e1 * e3 + e0 * e2),
            ],
            [
                2 * (e1 * e2 + e0 * e3),
                e0**2 - e1**2 + e2**2 - e3**2,
                2 * (e2 * e3 - e0 * e1),
            ],
            [
                2 * (e1 * e3 - e0 * e2),
                2 * (e2 * e3 + e0 * e1),
                e0**2 - e1**2 - e2**2 + e3**2,
            ],
        ]
    )


# --- the same mechanism in body and in joint coordinates (issue 36) ---------------------------


def world_poses(model, x):
    """{body: (position (3 or 2), rotation matrix)} of a joint-coordinate model at x (n)."""
    inter = model.intermediates
    topo = model.topology
    values = dict(model.parameter_values())
    values.update(zip(model.x, (sp.Float(a, 20) for a in x)))
    values[model.time] = sp.Integer(0)
    poses = {}
    for body in topo.bodies:
        coords = (
            inter.evaluate(body.q, values)
            if body.q[0] in inter
            else list(x[model.x.index(body.q[0]) : model.x.index(body.q[0]) + len(body.q)])
        )
        poses[body.name] = body_pose(body.kind, coords)
    return poses


def body_pose(kind, coords):
    if kind == "planar":
        th = coords[2]
        return np.array(coords[:2]), np.array([[np.cos(th), -np.sin(th)], [np.sin(th), np.cos(th)]])
    return np.array(coords[:3]), quaternion_matrix(coords[3:7])


def assert_same_physics(joint_model, body_model, joint_run, body_run):
    """The same motion in both formulations (runs: (summary, run, events))."""
    (_, rj, ej), (sb, rb, eb) = joint_run, body_run
    # fewer coordinates and rows (a body that only a joint the tree cannot carry joins to the
    # rest keeps its own: Haug's spin top on its distance joint)
    assert joint_model.n <= body_model.n and joint_model.m <= body_model.m
    # the joints' free coordinates and rates (j.<joint>, jd.<joint>)
    columns = [c for c in rb if c.startswith(("j.", "jd."))]
    for c in columns:
        scale = max(1.0, np.abs(rb[c]).max())
        assert np.abs(rj[c] - rb[c]).max() <= 1e-8 * scale, c
    # the energy
    if "energy" in rb:
        scale = max(abs(rb["energy"][0]), np.abs(rb["energy"]).max())
        assert np.abs(rj["energy"] - rb["energy"]).max() <= 1e-9 * scale
    # the same transitions, each taking the same kinetic energy
    locks = [(e["t"], e["target"], e["kinetic_after"] - e["kinetic_before"]) for e in eb
             if e["kind"] in ("lock", "unlock")]  # fmt: skip
    locks_j = [(e["t"], e["target"], e["kinetic_after"] - e["kinetic_before"]) for e in ej
               if e["kind"] in ("lock", "unlock")]  # fmt: skip
    assert [(t, w) for t, w, _ in locks_j] == [(t, w) for t, w, _ in locks]
    for (_, _, dE_j), (_, _, dE_b) in zip(locks_j, locks):
        assert dE_j == pytest.approx(dE_b, abs=1e-9)
    # each joint's force and moment on its body 2 (Fx.<joint> ... Nz.<joint>), a locked joint's
    # with the torque that holds it (the PUMA's brakes); a redundant mechanism's load split is
    # the minimum-norm multipliers' in each formulation's own coordinates, so not the same
    wrenches = [c for c in rb if re.match(r"[FN][xyz]\.", c)]
    assert len(wrenches) == len(body_model.joints) * (3 if body_model.kind == "planar" else 6)
    if np.all(rb["rank"] >= body_model.m) and not sb["dependent_rows"]:
        force_scale = max(np.abs(rb[c]).max() for c in wrenches if c[0] == "F")
        for c in wrenches:  # 1e-6 relative to the column, or to the largest force
            scale = max(np.abs(rb[c]).max(), 1e-3 * force_scale)
            assert np.abs(rj[c] - rb[c]).max() <= 1e-6 * scale, c
    # each body's centre of mass and rotation
    for row in (len(rb["t"]) // 2, len(rb["t"]) - 1):
        x = [rj[f"x.{c.name}"][row] for c in joint_model.coordinates]
        poses = world_poses(joint_model, x)
        for body in joint_model.topology.bodies:
            coords = [rb[f"x.{c}"][row] for c in body.coord_names]
            r_b, R_b = body_pose(body.kind, coords)
            r_j, R_j = poses[body.name]
            assert np.abs(r_j - r_b).max() <= 1e-8, body.name
            assert np.abs(R_j - R_b).max() <= 1e-8, body.name


def written_both_ways(tmp_path, stem, texts, **options):
    """{formulation: (summary, run, events, model)} of a mechanism written in each formulation
    (texts: {"body": file text, "joint": file text}, as <stem>_<formulation>.yaml), run with
    the joints' wrenches."""
    out = {}
    for formulation, text in texts.items():
        path = tmp_path / f"{stem}_{formulation}.yaml"
        path.write_text(text)
        run = simulate(tmp_path, str(path), with_events=True, reactions=True, **options)
        out[formulation] = run + (_solvers[str(path)].mechanism.model,)
    return out
