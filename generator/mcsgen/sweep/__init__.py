"""Parameter sweeps and Monte Carlo studies (docs/reference/sweeps.md): many runs of one solver,
each a `simulate`, `statics` or `modes` for one set of parameter values, reduced on the worker to
the quantities named, on a Dask cluster or serially. One module per job: design.py (the parameter
sets: grid, samples, table), worker.py (one batch of runs on a worker, and the quantities),
runner.py (the cluster, the files, resuming); outputs/sweep_plot.py draws a sweep's CSV.

    result = solver.sweep(grid={"l": "0.9:1.1:21"}, quantities=["max(x.pendulum.y)"])
    result.column("max(x.pendulum.y)")
"""

from typing import Callable, Dict, Optional, Sequence, Union

from .design import Design, DesignError, make_design
from .runner import SweepResult, execute, plan

__all__ = ["Design", "DesignError", "SweepResult", "make_design", "run_sweep"]


def _grid_text(name: str, values) -> str:
    if isinstance(values, str):
        return f"{name}={values}"
    try:
        items = [float(v) for v in values]
    except TypeError:  # one number
        items = [float(values)]
    return f"{name}=" + ",".join(repr(v) for v in items)


def run_sweep(
    solver,
    grid: Optional[Dict[str, Union[str, Sequence[float], float]]] = None,
    samples: Optional[Dict[str, str]] = None,
    count: int = 0,
    seed: int = 0,
    combine: str = "product",
    table: Optional[str] = None,
    run: str = "simulate",
    quantities: Optional[Sequence[str]] = None,
    reduce: Optional[Callable] = None,
    workers: Optional[int] = None,
    scheduler: Optional[str] = None,
    client=None,
    out=None,
    resume: bool = False,
    timeout: Optional[float] = None,
    batch: Optional[int] = None,
    progress: Optional[Callable] = None,
    **options,
) -> SweepResult:
    """Solver.sweep (its docstring)."""
    grid_specs = [_grid_text(k, v) for k, v in (grid or {}).items()]
    sample_specs = [f"{k}={v}" for k, v in (samples or {}).items()]
    design = make_design(grid_specs, sample_specs, count, seed, combine, table)
    sources = {k: "--param" for k in grid or {}}
    sources.update({k: "--sample" for k in samples or {}})
    sources.update({k: f"--table {table}" for k in design.names if table})
    prepared = plan(
        solver,
        design,
        sources,
        kind=run,
        quantities=None if quantities is None else list(quantities),
        reducer=reduce,
        timeout=timeout,
        out=out,
        options=options,
    )
    return execute(
        prepared,
        workers=workers,
        scheduler=scheduler,
        client=client,
        resume=resume,
        batch=batch,
        progress=progress,
    )
