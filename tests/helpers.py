"""Helpers shared by the end-to-end tests (tests/ is on sys.path through conftest.py)."""
import json

import numpy as np

import mcsgen
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
