"""Reading a parsed mechanism file: typed values, names and expressions, with one error message
naming the file and the field for the first problem (docs/reference/model-file.md). The
loader's schema and mechanism.py's builder both read through a `Reader`."""

import keyword
import math
import re

from ..errors import ModelError
from .expr import CONSTANTS, FUNCTIONS, ExprError, parse_expr
from .expr import shorten

C_KEYWORDS = frozenset(
    """
auto break case char const continue default do double else enum extern float for goto if inline
int long register restrict return short signed sizeof static struct switch typedef union unsigned
void volatile while _Bool _Complex _Imaginary bool true false NULL main
""".split()
)
# Names the expression language already uses (t is time).
RESERVED = frozenset({"t"}) | set(FUNCTIONS) | set(CONSTANTS)
# The runtime's and generated code's own identifiers: mcs_*, MCS_* (mcs_sin, MCS_R, mcs_real, ...).
# User names reach C only behind them, so no header can replace one (emit/statements.py, render.py):
# a parameter is the struct member mcs_p_<name>, the generated file's statics are mcs_gen_*, and
# a model's name prefixes its API (<model>_c, <MODEL>_NX), which cannot spell those. Bodies,
# joints, coordinates and rows reach C as strings only.
RUNTIME_PREFIXES = ("mcs_", "MCS_")
PARAM_PREFIX = "mcs_p_"
IDENT = re.compile(r"^[A-Za-z][A-Za-z0-9_]*$")
MAX_NAME = 63  # characters of a name: C99 keeps 63 significant in an identifier
MAX_PARAM_NAME = MAX_NAME - len(PARAM_PREFIX)  # a parameter's C member is mcs_p_<name>
NUMERAL = re.compile(r"^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$")


class Reader:
    """Reads typed values out of a parsed mechanism file and reports the first problem as one
    ModelError naming the file and the field. Also keeps the model's namespace (every declared
    name and what it is)."""

    def __init__(self, path):
        self.path = path
        self.names = {}  # every name in the model's namespace -> what it is
        # parameters the file's `freeze:` list makes constants: Symbol -> exact value, put in
        # every expression read after the list
        self.frozen_values = {}

    def fail(self, field_path, problem):
        raise ModelError(self.path, field_path, problem)

    # --- small typed readers -------------------------------------------------------------------
    def mapping(self, value, where):
        if not isinstance(value, dict):
            self.fail(where, f"expected a mapping, got {_kind(value)}")
        return value

    def seq(self, value, where):
        if not isinstance(value, list):
            self.fail(where, f"expected a list, got {_kind(value)}")
        return value

    def text(self, value, where):
        if not isinstance(value, str):
            self.fail(where, f"expected text, got {_kind(value)}")
        return value

    def number(self, value, where, positive=False):
        if isinstance(value, str) and NUMERAL.match(value.strip()):
            value = float(value)  # YAML 1.1 reads 1e5 (no '.') as text: take it as the number
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            self.fail(where, f"expected a number, got {_kind(value)}")
        if isinstance(value, int) and abs(value) > 1e300:  # float() of a 400-digit integer fails
            self.fail(where, f"number {shorten(str(value))} is outside the range of double")
        if not math.isfinite(value):
            self.fail(where, f"number is not finite ({value})")
        if positive and value <= 0:
            self.fail(where, f"must be positive, got {value}")
        return float(value)

    def unknown_keys(self, mapping, allowed, where):
        extra = sorted(set(map(str, mapping)) - allowed)
        if extra:
            prefix = f"{where}." if where else ""
            self.fail(prefix + extra[0], f"unknown field (allowed: {', '.join(sorted(allowed))})")

    def identifier(self, name, where, kind):
        if name is None or isinstance(name, bool):
            self.fail(
                where,
                f"{kind} name must be text, got {_kind(name)} (YAML reads null, NULL, ~, yes, "
                "no, true, false, on and off as values: quote the name)",
            )
        if not isinstance(name, str):
            self.fail(where, f"{kind} name must be text, got {_kind(name)}")
        if len(name) > MAX_NAME:
            self.fail(
                where,
                f"{kind} name '{shorten(name)}' is {len(name)} characters long: at most "
                f"{MAX_NAME} (it names C identifiers and, for a model, its files)",
            )
        if not IDENT.match(name):
            self.fail(
                where,
                f"{kind} name '{shorten(name)}' is not a valid C identifier "
                "(letters, digits and '_', starting with a letter)",
            )
        if name == "main":
            self.fail(where, f"{kind} name 'main' is reserved (the C program's entry point)")
        if name in C_KEYWORDS:
            self.fail(where, f"{kind} name '{name}' is a C keyword")
        if name.startswith(RUNTIME_PREFIXES) or name in ("mcs", "MCS"):
            self.fail(where, f"{kind} name '{name}' is reserved for the runtime (mcs_, MCS_)")
        if "__" in name:
            self.fail(where, f"{kind} name '{name}' contains '__' (reserved in C)")
        if kind == "model":
            clash = _api_clash(name)
            if clash:
                self.fail(where, clash)
        return name

    def declare(self, name, where, kind):
        self.identifier(name, where, kind)
        if kind == "parameter" and len(name) > MAX_PARAM_NAME:
            self.fail(
                where,
                f"parameter name '{shorten(name)}' is {len(name)} characters long: at most "
                f"{MAX_PARAM_NAME} (its C member is {PARAM_PREFIX}<name>, and C keeps {MAX_NAME} "
                "characters of an identifier)",
            )
        if name in RESERVED:
            self.fail(
                where,
                f"{kind} name '{name}' is reserved (used by the expression language "
                "or the generated code)",
            )
        if keyword.iskeyword(name):
            self.fail(
                where,
                f"{kind} name '{name}' is a Python keyword (the expression language would read "
                "it as one)",
            )
        if name in self.names:
            self.fail(where, f"duplicate name '{name}' (already a {self.names[name]})")
        if kind == "joint":  # an expression's J_dot is joint J's rate (outputs, j.<joint>)
            stem = name[: -len("_dot")] if name.endswith("_dot") else None
            if self.names.get(stem) == "joint" or self.names.get(name + "_dot") == "joint":
                other = stem if self.names.get(stem) == "joint" else name + "_dot"
                long, short = max(name, other, key=len), min(name, other, key=len)
                self.fail(
                    where,
                    f"joint name '{name}' beside joint '{other}': in an expression, {long} "
                    f"would be both joint {long}'s angle and joint {short}'s rate: rename one",
                )
        self.names[name] = kind
        return name

    def expr(self, value, where, symbols):
        try:
            e = parse_expr(value, symbols)
            return e.xreplace(self.frozen_values) if self.frozen_values else e
        except ExprError as exc:
            message = str(exc)
            if "unknown symbol" in message and symbols is not None:
                name = message.split("'")[1]
                if self.names.get(name) in ("velocity", "definition"):
                    message += " (velocities, and definitions that use them, are not allowed here)"
            self.fail(where, message)


def _kind(value):
    if value is None:
        return "nothing"
    return {
        dict: "a mapping",
        list: "a list",
        str: "text",
        bool: "a boolean",
        int: "a number",
        float: "a number",
    }.get(type(value), type(value).__name__)


def key_text(key):
    """A mapping key as a field name in messages: YAML's null and booleans as written."""
    if key is None:
        return "null"
    if isinstance(key, bool):
        return "true" if key else "false"
    return str(key)


def _api_clash(model: str) -> str:
    """Why a model's name cannot prefix its C API, or "": its kernel <model>_<kernel> would
    spell a member of mcs_model (a model M's f is M_f, the descriptor's M and f kernel: MISRA
    C:2012 rule 5.8, one name for two things)."""
    from .catalogue import EVENT_KERNELS, KERNELS, ROW_GROUP_KERNELS

    members = {k.name for k in (*KERNELS, *ROW_GROUP_KERNELS, *EVENT_KERNELS)}
    for k in (*KERNELS, *ROW_GROUP_KERNELS, *EVENT_KERNELS):
        if f"{model}_{k.name}" in members:
            return (
                f"model name '{model}' would call its kernel {k.name} {model}_{k.name}, the "
                f"name of the runtime descriptor's member {model}_{k.name} (MISRA C:2012 rule "
                "5.8): give the model another name"
            )
    return ""
