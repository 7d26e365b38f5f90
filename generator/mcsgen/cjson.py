"""The JSON the C programs print (the simulator's summary and event log, the analyzer's result),
read and written back.

The C side prints its numbers with printf's %.17g, which writes an overflowed or undefined
value as `inf`, `-inf`, `nan` or `-nan`: not JSON. An unstable run whose energy overflows has
such a summary, and reading it must not fail (it did: a JSONDecodeError traceback). `loads`
reads those words outside strings as the floats they are; `dumps` writes what is read for a
person or another program as strict JSON, a non-finite number as null (JSON has none).
"""

import json
import math
import re

# a JSON string (left as it is), or printf's non-finite words standing as values
_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|(?<![\w.])(-?)(inf|nan)(?![\w.])', re.IGNORECASE)


def _as_json(match):
    if match.group(2) is None:
        return match.group(0)
    if match.group(2).lower() == "nan":
        return "NaN"  # the sign of a NaN says nothing
    return f"{match.group(1)}Infinity"


def loads(text: str):
    """The value of a C program's JSON text; inf and nan among its numbers become floats."""
    return json.loads(_TOKEN.sub(_as_json, text))


def _finite(value):
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(v) for v in value]
    return value


def dumps(value, **kw) -> str:
    """Strict JSON of value (json.dumps' keywords): a non-finite number is null."""
    return json.dumps(_finite(value), allow_nan=False, **kw)
