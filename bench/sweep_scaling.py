"""make bench, section "sweep" (issue 39): the throughput of a 1 000-run sweep of the slider-crank
(models/slider_crank.yaml, 1 s of DOPRI5 at the file's tolerances, g over 9.7 .. 9.9, each run
reduced to the slider's final position and the largest |energy| drift), run serially in this
process and on a LocalCluster of 1 and 2 worker processes, in one run; and what a run costs
beyond its integration:

- integration: the simulator's own wall time per run (its summary's wall_s), the same anywhere;
- run: the worker's time per run (the sweep CSV's seconds column): the integration plus the
  simulator writing its CSV text and the worker reading and reducing it;
- cluster overhead per run: (sweep time on 1 worker - the sum of the runs' times) / runs, the
  scheduling, serialization and transfer Dask adds (and with --batch 1, per task).

Each is the faster of two interleaved sweeps. The sweep time excludes the cluster's start
(reported apart: it is paid once per sweep). The numbers for N machines follow from these
(docs/reference/sweeps.md): W workers finish runs at about W / (run + overhead) per second while the
scheduler keeps up, and it handles a few thousand tasks a second, a batch of runs per task.
"""

import time

import numpy as np

RUNS = 1000
ROUNDS = 2
OPTIONS = dict(t_end=1.0)
QUANTITIES = ["final(x.slider.x)", "maxabs(energy)"]


def _sweep(solver, workers, batch=None):
    started = time.monotonic()
    result = solver.sweep(
        grid={"g": f"9.7:9.9:{RUNS}"},
        quantities=QUANTITIES,
        workers=workers,
        batch=batch,
        **OPTIONS,
    )
    total = time.monotonic() - started
    assert all(result.ok), result.failed[:3]
    return result, total


def measure(root):
    import mcsgen

    solver = mcsgen.load(root / "models" / "slider_crank.yaml").build()
    wall = [solver.simulate(params={"g": 9.8}, **OPTIONS).summary["wall_s"] for _ in range(5)]
    integration = float(np.median(wall))
    rows = {}
    reference = None
    configs = (
        ("serial (this process)", 0, None),
        ("LocalCluster, 1 worker", 1, None),
        ("LocalCluster, 2 workers", 2, None),
        ("LocalCluster, 2 workers, batch 1", 2, 1),
    )
    best = {}  # the faster of ROUNDS interleaved sweeps of each kind (the machine is shared)
    for _ in range(ROUNDS):
        for label, workers, batch in configs:
            result, total = _sweep(solver, workers, batch)
            if label not in best or result.summary["seconds"] < best[label][0].summary["seconds"]:
                best[label] = (result, total)
    for label, workers, batch in configs:
        result, total = best[label]
        values = result.column(QUANTITIES[0])
        if reference is None:
            reference = values
        same = bool(np.array_equal(values, reference))
        seconds = result.column("seconds")
        s = result.summary
        rows[label] = {
            "workers": workers,
            "batch": s["batch"],
            "sweep_s": s["seconds"],
            "start_s": total - s["seconds"],
            "runs_per_s": RUNS / s["seconds"],
            "run_ms": float(seconds.mean() * 1e3),
            "overhead_ms": float((s["seconds"] * max(workers, 1) - seconds.sum()) / RUNS * 1e3),
            "same_as_serial": same,
        }
    serial = rows["serial (this process)"]["runs_per_s"]
    print(f"  {RUNS} runs of 1 s each; integration alone {integration * 1e3:.1f} ms a run")
    for label, r in rows.items():
        r["speedup"] = r["runs_per_s"] / serial
        print(
            f"  {label:<34} {r['runs_per_s']:7.1f} runs/s ({r['speedup']:.2f}x serial), "
            f"run {r['run_ms']:.1f} ms, overhead {r['overhead_ms']:+.2f} ms a run, "
            f"batch {r['batch']}, start {r['start_s']:.1f} s, bit-identical: {r['same_as_serial']}"
        )
    return {"runs": RUNS, "integration_ms": integration * 1e3, "rows": rows}
