#!/usr/bin/python3
"""Generate mechanism files in a process that rounds differently from every other machine
(perturbed_floats: numpy's, scipy's and math's functions one ulp off).

`make check-generated` generates every shipped model this way and compares the result with the
committed generated/: one generation shows both that generated/ is what the generator makes now
and that no machine floating-point value reaches it (docs/explanation/determinism.md; before, the
second was a pytest test that generated every model once more).

Usage: perturbed_generate.py OUT MODEL_FILE...   (prints how many functions it perturbed)
"""
import math
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parents[1] / "generator"))

import perturbed_floats  # noqa: E402


def probe():
    return (
        math.sin(0.5),
        math.sqrt(2.0),
        float(np.cos(np.pi / 2)),
        float(np.linalg.norm([3.0, 4.0])),
    )


def main(argv):
    if len(argv) < 2:
        sys.exit("usage: perturbed_generate.py OUT MODEL_FILE...")
    out, paths = Path(argv[0]), argv[1:]
    before = probe()
    patched = perturbed_floats.install()
    after = probe()
    if any(a == b for a, b in zip(before, after)):  # the perturbation must be in force
        sys.exit(f"perturbed_generate: the perturbation is not in force ({before} {after})")
    from mcsgen.errors import McsError
    from mcsgen.generate import generate

    for path in paths:
        try:
            generate(path, out_root=out, force=True)
        except McsError as err:
            sys.exit(f"perturbed_generate: {err}")
    print(len(patched))


if __name__ == "__main__":
    main(sys.argv[1:])
