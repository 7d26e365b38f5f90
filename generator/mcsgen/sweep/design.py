"""The parameter sets of a sweep (its design): a grid, random samples, or a table from a CSV.

    --param L=0.9:1.1:21        21 values from 0.9 to 1.1, both included
    --param L=0.9,1.0,1.1       the values listed (one value: a constant of the sweep)
    --combine product | zip     several --param: every combination, or the k-th of each
    --sample 'L=normal(1.0,0.005)' --samples 10000 --seed 7
                                uniform(LO,HI), normal(MU,SIGMA), truncnormal(MU,SIGMA,LO,HI)
    --table FILE.csv            a header of parameter names, a row per run

A grid and samples together give every grid point with every sample. The samples are drawn on
the client, all before the first run, from NumPy's PCG64 seeded with --seed, parameter after
parameter in the order given: the same seed gives the same sets whatever the number of workers.
Every problem is a DesignError naming the option and the text.
"""

import csv
import math
import re
from fractions import Fraction
from dataclasses import dataclass
from typing import Dict, List, Sequence

import numpy as np

from ..errors import McsError

DISTRIBUTIONS = {"uniform": 2, "normal": 2, "truncnormal": 4}  # name -> its argument count
MAX_RUNS = 10_000_000  # a design larger than this is a typo (a CSV row each)


class DesignError(McsError):
    pass


@dataclass
class Design:
    """names (k) and the runs' values (N x k), row i the parameters of run i."""

    names: List[str]
    values: np.ndarray
    description: str  # for the summary: how the sets were made

    def __len__(self) -> int:
        return self.values.shape[0]

    def run(self, i: int) -> Dict[str, float]:
        return {name: float(v) for name, v in zip(self.names, self.values[i])}


def _number(text: str, option: str, spec: str) -> float:
    try:
        value = float(text.strip())
    except ValueError:
        raise DesignError(f"{option} {spec}: '{text.strip()}' is not a number") from None
    if not math.isfinite(value):
        raise DesignError(f"{option} {spec}: '{text.strip()}' is not a finite number")
    return value


def _exact(text: str, spec: str) -> Fraction:
    """A range's end as the exact rational its decimal text means."""
    _number(text, "--param", spec)  # finite, or the error
    try:
        return Fraction(text.strip())
    except ValueError:  # what float() reads and Fraction does not
        raise DesignError(f"--param {spec}: '{text.strip()}' is not a decimal number") from None


def _split(spec: str, option: str):
    name, sep, rest = spec.partition("=")
    name = name.strip()
    if not sep or not name or not rest.strip():
        raise DesignError(f"{option} {spec}: expected NAME=VALUES")
    return name, rest.strip()


def grid_values(spec: str) -> tuple:
    """(name, values) of one --param: LO:HI:N or V1,V2,..."""
    name, rest = _split(spec, "--param")
    if ":" in rest:
        parts = rest.split(":")
        if len(parts) != 3:
            raise DesignError(f"--param {spec}: a range is LO:HI:N")
        lo, hi = (_exact(p, spec) for p in parts[:2])
        count = parts[2].strip()
        if not re.fullmatch(r"[0-9]+", count):
            raise DesignError(f"--param {spec}: the count N of LO:HI:N is a whole number")
        n = int(count)
        if n > MAX_RUNS:
            raise DesignError(f"--param {spec}: more than {MAX_RUNS} values")
        if n < 1:
            raise DesignError(f"--param {spec}: empty range (N = 0)")
        if n > 1 and lo == hi:
            raise DesignError(f"--param {spec}: empty range (LO = HI with N > 1)")
        # each point in exact arithmetic, then rounded once: 0.02:0.2:10 gives 0.04, not the
        # 0.04000000000000001 of a floating-point linspace
        return name, np.array(
            [float(lo + (hi - lo) * Fraction(k, max(n - 1, 1))) for k in range(n)]
        )
    items = [p for p in rest.split(",")]
    if any(not p.strip() for p in items):
        raise DesignError(f"--param {spec}: an empty value in the list")
    return name, np.array([_number(p, "--param", spec) for p in items])


def sample_values(spec: str, count: int, rng: np.random.Generator) -> tuple:
    """(name, count values) of one --sample NAME=DIST(ARGS), drawn from rng."""
    from scipy.special import ndtr, ndtri

    name, rest = _split(spec, "--sample")
    head, paren, tail = rest.partition("(")
    dist = head.strip()
    if not paren or not tail.endswith(")") or dist not in DISTRIBUTIONS:
        raise DesignError(
            f"--sample {spec}: expected uniform(LO,HI), normal(MU,SIGMA) or "
            "truncnormal(MU,SIGMA,LO,HI)"
        )
    args = [_number(a, "--sample", spec) for a in tail[:-1].split(",")]
    if len(args) != DISTRIBUTIONS[dist]:
        raise DesignError(f"--sample {spec}: {dist} takes {DISTRIBUTIONS[dist]} numbers")
    if dist == "uniform":
        lo, hi = args
        if not lo < hi:
            raise DesignError(f"--sample {spec}: uniform needs LO < HI")
        return name, rng.uniform(lo, hi, count)
    mu, sigma = args[:2]
    if not sigma > 0:
        raise DesignError(f"--sample {spec}: {dist} needs SIGMA > 0")
    if dist == "normal":
        return name, rng.normal(mu, sigma, count)
    lo, hi = args[2:]
    if not lo < hi:
        raise DesignError(f"--sample {spec}: truncnormal needs LO < HI")
    # by the inverse of the normal distribution on the uniform draws of [Phi(a), Phi(b)]
    a, b = ndtr((lo - mu) / sigma), ndtr((hi - mu) / sigma)
    if not b > a:
        raise DesignError(f"--sample {spec}: [LO, HI] holds no probability of the normal")
    return name, np.clip(mu + sigma * ndtri(rng.uniform(a, b, count)), lo, hi)


def read_table(path: str) -> tuple:
    """(names, rows) of a --table CSV: a header of names, a row of numbers per run."""
    try:  # utf-8-sig: a spreadsheet's byte-order mark is not part of the first name
        with open(path, newline="", encoding="utf-8-sig") as fh:
            rows = [r for r in csv.reader(fh, strict=True) if r and any(c.strip() for c in r)]
    except OSError as exc:
        raise DesignError(f"--table {path}: cannot read ({exc.strerror})") from None
    except (UnicodeDecodeError, csv.Error) as exc:
        raise DesignError(f"--table {path}: not a CSV of text ({exc})") from None
    if len(rows) - 1 > MAX_RUNS:
        raise DesignError(f"--table {path}: more than {MAX_RUNS} rows")
    if len(rows) < 2:
        raise DesignError(f"--table {path}: a header of parameter names and at least one row")
    names = [c.strip() for c in rows[0]]
    values = []
    for line, row in enumerate(rows[1:], start=2):
        if len(row) != len(names):
            raise DesignError(
                f"--table {path}, line {line}: {len(row)} values for {len(names)} names"
            )
        values.append([_number(c, f"--table {path}, line {line}:", "") for c in row])
    return names, np.array(values, dtype=float)


def make_design(
    params: Sequence[str] = (),
    samples: Sequence[str] = (),
    count: int = 0,
    seed: int = 0,
    combine: str = "product",
    table: str = None,
) -> Design:
    """The design from the options (module docstring)."""
    if table is not None:
        if params or samples:
            raise DesignError("--table: give the parameter sets as a table or as --param/--sample")
        names, values = read_table(table)
        return _checked(Design(names, values, f"table {table}"))
    if not params and not samples:
        raise DesignError("sweep: give --param, --sample or --table")
    if combine not in ("product", "zip"):
        raise DesignError(f"--combine: 'product' or 'zip', not '{combine}'")
    if not (isinstance(seed, int) and 0 <= seed < 2**63):
        raise DesignError(f"--seed: a whole number >= 0, got {seed}")
    if not (isinstance(count, int) and 0 <= count <= MAX_RUNS):
        raise DesignError(f"--samples: a whole number of samples up to {MAX_RUNS}, got {count}")
    grid = [grid_values(p) for p in params]
    if combine == "product" and math.prod(len(v) for _, v in grid) * max(count, 1) > MAX_RUNS:
        raise DesignError(f"sweep: more than {MAX_RUNS} runs")
    if grid and combine == "zip":
        lengths = {len(v) for _, v in grid if len(v) > 1}
        if len(lengths) > 1:
            raise DesignError(
                f"--combine zip: the --param lists differ in length ({sorted(lengths)})"
            )
        k = lengths.pop() if lengths else 1
        g_names = [n for n, _ in grid]
        g_values = np.column_stack(
            [np.broadcast_to(v, (k,)) if len(v) == 1 else v for _, v in grid]
        )
    elif grid:
        g_names = [n for n, _ in grid]
        mesh = np.meshgrid(*[v for _, v in grid], indexing="ij")
        g_values = np.column_stack([m.reshape(-1) for m in mesh])
    else:
        g_names, g_values = [], np.zeros((1, 0))
    if samples:
        if count < 1:
            raise DesignError("--samples: a whole number >= 1 of samples to draw")
        rng = np.random.Generator(np.random.PCG64(seed))
        drawn = [sample_values(s, count, rng) for s in samples]
        s_names = [n for n, _ in drawn]
        s_values = np.column_stack([v for _, v in drawn])
    else:
        if count:
            raise DesignError("--samples: goes with --sample")
        s_names, s_values = [], np.zeros((1, 0))
    names = g_names + s_names
    if len(g_values) * len(s_values) > MAX_RUNS:
        raise DesignError(f"sweep: {len(g_values) * len(s_values)} runs, more than {MAX_RUNS}")
    values = np.column_stack(
        [np.repeat(g_values, len(s_values), axis=0), np.tile(s_values, (len(g_values), 1))]
    )
    parts = [f"grid ({combine}) of {len(g_values)}" if grid else ""]
    parts.append(f"{len(s_values)} samples, seed {seed}" if samples else "")
    return _checked(Design(names, values, " x ".join(p for p in parts if p)))


def _checked(design: Design) -> Design:
    seen = set()
    for name in design.names:
        if name in seen:
            raise DesignError(f"sweep: parameter '{name}' is given twice")
        seen.add(name)
    return design
