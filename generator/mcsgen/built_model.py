"""A built model as plain Python: what `simulate`, `statics`, `modes` and `sweep` need of a
mechanism file whose C is up to date, read back without SymPy (issue 60: a command on a built
model spent most of its overhead importing SymPy and unpickling the model's expressions).

generate() keeps a BuiltModel for a host build it found or made (keep), keyed as model_cache's
loaded models are (model_cache.entry_key: the file's bytes and resolved path, this generator's
fingerprint and version, and the SymPy and Python versions). load() gives it back when its key
matches and the generated C it names is still what this generator makes from these bytes (its
banner); otherwise None, and the caller generates as before. Nothing here imports SymPy or the
model package.
"""

import pickle
from dataclasses import dataclass
from pathlib import Path
from typing import Optional, Tuple

from .model_cache import entry_key, write_entry
from .paths import BUILD, PathLike

RECORDS = BUILD / "built"


@dataclass(frozen=True)
class Named:
    """A coordinate, input, output or row group: its name is all a run needs of it."""

    name: str


@dataclass(frozen=True)
class BuiltParameter:
    name: str
    value: float  # the default, as the double the generated C initializes it to
    exact: float  # the default as written, rounded once (what --param values are checked with)


@dataclass(frozen=True)
class BuiltJoint:
    name: str
    coordinate: Optional[str]  # its free coordinate, as text; None when it has none


@dataclass(frozen=True)
class BuiltModel:
    """The part of model.ir.Model a run reads, under the same names (api.Mechanism, the
    command line, the sweep planner take either)."""

    path: Path
    name: str
    file_hash: str
    n: int
    m: int
    coordinates: Tuple[Named, ...]
    parameters: Tuple[BuiltParameter, ...]
    frozen_parameters: dict  # name -> the field that froze it
    parameter_checks: tuple  # (parameter_rules.ParameterCheck): plain text, no SymPy
    inputs: Tuple[Named, ...]
    outputs: Tuple[Named, ...]
    joints: Tuple[BuiltJoint, ...]
    row_groups: Tuple[Named, ...]
    simulation: dict
    initial_report: Optional[dict]
    warnings: Tuple[str, ...]
    out_dir: Path  # the generated C of its host build
    kernels: str  # that build's kernel sets, as its banner names them

    @classmethod
    def of(cls, model, out_dir: PathLike, kernels: str) -> "BuiltModel":
        """The record of a loaded model (model.ir.Model) whose host build is in out_dir."""
        return cls(
            path=Path(model.path),
            name=model.name,
            file_hash=model.file_hash,
            n=len(model.coordinates),
            m=len(model.constraints),
            coordinates=tuple(Named(c.name) for c in model.coordinates),
            parameters=tuple(
                BuiltParameter(
                    p.name, float(p.value), float(p.exact if p.exact is not None else p.value)
                )
                for p in model.parameters
            ),
            frozen_parameters={str(k): str(v) for k, v in model.frozen_parameters.items()},
            parameter_checks=tuple(model.parameter_checks),
            inputs=tuple(Named(u.name) for u in model.inputs),
            outputs=tuple(Named(y.name) for y in model.outputs),
            joints=tuple(
                BuiltJoint(j.name, None if j.coordinate is None else str(j.coordinate))
                for j in model.joints
            ),
            row_groups=tuple(Named(g.name) for g in model.row_groups),
            simulation=dict(model.simulation),
            initial_report=model.initial_report,
            warnings=tuple(model.warnings),
            out_dir=Path(out_dir),
            kernels=kernels,
        )


def _entry(path: Path) -> Optional[Path]:
    try:
        raw = path.read_bytes()
    except OSError:
        return None
    return RECORDS / f"{entry_key(path, raw)}.pickle"


def load(path: PathLike) -> Optional[BuiltModel]:
    """The record of the mechanism file at `path` when generate() kept one for these bytes and
    this generator, and its generated C is still in place and current; else None."""
    from .emit.fingerprint import banner_matches

    path = Path(path)
    entry = _entry(path)
    if entry is None:
        return None
    try:
        with open(entry, "rb") as f:
            record = pickle.load(f)
    except Exception:  # noqa: BLE001 - none yet, or torn: the caller generates
        return None
    if not isinstance(record, BuiltModel):
        return None
    header = record.out_dir / f"{record.name}.h"
    if not (record.out_dir / f"{record.name}.c").exists():
        return None
    if not banner_matches(header, record.file_hash, record.kernels):
        return None
    return BuiltModel(**{**record.__dict__, "path": path})  # as the caller named it


def keep(model, out_dir: PathLike, kernels: str) -> None:
    """Keeps the record of a model whose host build generate() found or wrote in out_dir
    (model_cache.write_entry: atomically, or not at all)."""
    entry = _entry(Path(model.path))
    if entry is None or entry.exists():
        return
    try:
        data = pickle.dumps(BuiltModel.of(model, out_dir, kernels), pickle.HIGHEST_PROTOCOL)
    except pickle.PicklingError:
        return
    write_entry(entry, data)
