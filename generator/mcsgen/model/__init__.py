"""Stage 1 of the pipeline: mechanism file -> validated `Model` (docs/reference/model-file.md).

- ir.py         the Model the later stages read (coordinates, parameters, rows, initial state)
- loader.py     YAML -> Model: the file's schema, one error message per problem
- expr.py       the safe expression parser (no eval, no sympify of model text)
- exact.py      exact numbers, and rounding to double once (docs/explanation/determinism.md)
- bodies.py     bodies and their kinematics; joint geometry helpers
- mechanism.py  bodies, joints, drivers, forces -> coordinates, constraint rows, Lagrange blocks
- initial.py    the initial velocities a mechanism's given rates imply (multiprecision)
- consistency.py what only the numbers show: constraints without a real solution, a mass matrix
                that is not positive definite on the free motions (checked at generation)
- catalogue.py  the kernels a generated model hands the runtime, once (the later stages read it)
- intermediates.py  named intermediate quantities of joint coordinates, derivatives through them
"""

from .initial import complete_initial_state
from .ir import Constraint, Coordinate, Model, Parameter
from .loader import CONTINUATIONS, METHODS, SIM_DEFAULTS, load_model

__all__ = [
    "complete_initial_state",
    "CONTINUATIONS",
    "METHODS",
    "SIM_DEFAULTS",
    "Constraint",
    "Coordinate",
    "Model",
    "Parameter",
    "load_model",
]
