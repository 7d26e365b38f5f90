"""Safe parsing of model expressions into SymPy.

Model text is never handed to `eval` or `sympify`. Python's `ast.parse` only builds a syntax tree
(it runs nothing); we walk that tree and accept a small whitelist of node types, names and
functions, building the SymPy expression ourselves. Anything else (attributes, subscripts,
lambdas, strings, keyword arguments, dunder names, ...) is rejected with a message saying why.
"""

import ast
import math

import sympy as sp

from .exact import NotANumber, approx, from_literal

# Functions a model may call, with their arity. Each maps to a SymPy function that the C printer
# knows; the generated C calls the <math.h> function of the same name (float variant in float
# builds, through MCS_FN).
FUNCTIONS = {
    "sin": (sp.sin, 1),
    "cos": (sp.cos, 1),
    "tan": (sp.tan, 1),
    "asin": (sp.asin, 1),
    "acos": (sp.acos, 1),
    "atan": (sp.atan, 1),
    "atan2": (sp.atan2, 2),
    "sinh": (sp.sinh, 1),
    "cosh": (sp.cosh, 1),
    "tanh": (sp.tanh, 1),
    "exp": (sp.exp, 1),
    "log": (sp.log, 1),
    "sqrt": (sp.sqrt, 1),
    "abs": (sp.Abs, 1),
}
CONSTANTS = {"pi": sp.pi}
# the operators whose chains (a + b - c ..., a * b / c ...) are built as one level (_chain)
CHAINS = {ast.Add: "sum", ast.Sub: "sum", ast.Mult: "product", ast.Div: "product"}

MAX_LENGTH = 20000  # characters; a guard against pathological input, far above any real model
MAX_DEPTH = 200  # syntax tree depth
# Every constant must be a real number a float build can hold (the same C serves both): beyond
# FLT_MAX the literal does not compile in float, below FLT_MIN it would vanish.
CONST_MAX = sp.Float("3.4028234663852886e38")
CONST_MIN = sp.Float("1.1754943508222875e-38")


class ExprError(ValueError):
    """The text is not an acceptable expression; the message says what is wrong."""


def parse_expr(text, symbols):
    """Parse `text` into a SymPy expression.

    symbols: dict name -> sympy.Symbol of every name the expression may use.
    Numbers may be given as YAML numbers (int/float) as well as text. A number is exact: the
    rational its decimal digits say (`0.08` is 8/100), never a binary float (exact.py).
    """
    if isinstance(text, bool):
        raise ExprError("expected an expression, got a boolean")
    if isinstance(text, (int, float)):
        if not math.isfinite(text):
            raise ExprError(f"number is not finite: {text}")
        return from_literal(text)
    if not isinstance(text, str):
        raise ExprError(f"expected an expression (text or number), got {type(text).__name__}")
    if not text.strip():
        raise ExprError("expression is empty")
    if len(text) > MAX_LENGTH:
        raise ExprError(f"expression longer than {MAX_LENGTH} characters")
    if "^" in text:
        raise ExprError("'^' is not a power here; write x**2")
    try:
        tree = ast.parse(text.strip(), mode="eval")
    except SyntaxError as exc:
        raise ExprError(f"syntax error in '{shorten(text.strip(), 80)}': {exc.msg}") from None
    except (ValueError, RecursionError, MemoryError):
        raise ExprError(f"cannot parse '{shorten(text.strip(), 80)}'") from None
    return _Builder(symbols, text.strip()).build(tree.body, 0)


class _Builder:
    def __init__(self, symbols, text):
        self.symbols = symbols
        self.text = text

    def fail(self, what):
        raise ExprError(f"{what} in '{shorten(self.text, 80)}'")

    def build(self, node, depth):
        value = self._build(node, depth)
        if value.is_number:
            self._check_constant(value)
        return value

    def _check_constant(self, value):
        """A constant (sub-)expression must be a finite real within float's range: log(0),
        tan(pi/2), 0**-1 (zoo), sqrt(-1), acos(2), exp(1000), 2**3000 are refused here."""
        if value.has(sp.zoo, sp.oo, -sp.oo, sp.nan):
            self.fail(f"constant '{shorten(value)}' is not finite")
        try:
            magnitude = abs(approx(value, 30))
        except NotANumber:
            self.fail(f"constant '{shorten(value)}' is not a real number")
        if magnitude > CONST_MAX or (0 < magnitude < CONST_MIN):
            self.fail(
                f"constant '{shorten(value)}' is outside the range of float (1.2e-38 to 3.4e38)"
            )

    def _power(self, base, exponent):
        """base**exponent, refusing constant powers too large to evaluate (10**99999999,
        9**9**9**9 would run for ever) before SymPy tries."""
        if base.is_number and exponent.is_number and exponent.is_real:
            b = abs(approx(base, 30))
            if b not in (0, 1) and abs(approx(exponent, 30)) * abs(sp.log(b, 10).evalf(30)) > 400:
                self.fail(f"constant power '{shorten(base)}**{shorten(exponent)}' is out of range")
        return base**exponent

    def _chain(self, node, depth):
        """a + b - c + ... or a * b / c * ...: Python's tree of such a chain is as deep as it is
        long (a sum over the 300 masses of a chain's potential); walk its left spine instead of
        recursing, so the chain is one level deep. The same expression as term by term."""
        family = CHAINS[type(node.op)]
        rights = []
        while isinstance(node, ast.BinOp) and CHAINS.get(type(node.op)) == family:
            rights.append((type(node.op), node.right))
            node = node.left
        terms = [self.build(node, depth)]
        for op, right in reversed(rights):
            value = self.build(right, depth)
            if op is ast.Div and value == 0:
                self.fail("division by zero")
            terms.append(-value if op is ast.Sub else 1 / value if op is ast.Div else value)
        return sp.Add(*terms) if family == "sum" else sp.Mul(*terms)

    def _build(self, node, depth):
        if depth > MAX_DEPTH:
            self.fail("expression nested too deeply")
        d = depth + 1
        if isinstance(node, ast.Constant):
            value = node.value
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                self.fail(f"unsupported constant {value!r}")
            if isinstance(value, int):
                return sp.Integer(value)  # its range is checked as a constant
            if not math.isfinite(value):
                self.fail("non-finite number")
            # the digits as written (ast keeps the source text), not the binary float
            return from_literal(ast.get_source_segment(self.text, node) or value)
        if isinstance(node, ast.Name):
            if node.id in self.symbols:
                return self.symbols[node.id]
            if node.id in CONSTANTS:
                return CONSTANTS[node.id]
            if node.id in FUNCTIONS:
                self.fail(f"function '{node.id}' used without arguments")
            self.fail(f"unknown symbol '{node.id}'")
        if isinstance(node, ast.BinOp) and type(node.op) in CHAINS:
            return self._chain(node, d)
        if isinstance(node, ast.BinOp):
            left, right = self.build(node.left, d), self.build(node.right, d)
            op = type(node.op)
            if op is ast.Add:
                return left + right
            if op is ast.Sub:
                return left - right
            if op is ast.Mult:
                return left * right
            if op is ast.Div:
                if right == 0:
                    self.fail("division by zero")
                return left / right
            if op is ast.Pow:
                return self._power(left, right)
            self.fail(f"operator '{type(node.op).__name__}' is not allowed")
        if isinstance(node, ast.UnaryOp):
            operand = self.build(node.operand, d)
            if isinstance(node.op, ast.USub):
                return -operand
            if isinstance(node.op, ast.UAdd):
                return operand
            self.fail(f"operator '{type(node.op).__name__}' is not allowed")
        if isinstance(node, ast.Call):
            if not isinstance(node.func, ast.Name):
                self.fail("only plain function calls such as sin(x) are allowed")
            name = node.func.id
            if name not in FUNCTIONS:
                self.fail(f"unknown function '{name}'")
            if node.keywords:
                self.fail(f"keyword arguments are not allowed in '{name}(...)'")
            func, arity = FUNCTIONS[name]
            if len(node.args) != arity:
                self.fail(f"'{name}' takes {arity} argument(s), got {len(node.args)}")
            return func(*[self.build(a, d) for a in node.args])
        kind = type(node).__name__
        if isinstance(node, ast.Attribute):
            self.fail(f"attribute access '.{node.attr}' is not allowed")
        self.fail(f"'{kind}' is not allowed (only numbers, names, + - * / **, and functions)")


def shorten(value, limit=40):
    """A constant or an expression as text for a message (one line), cut to `limit` characters."""
    text = str(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."
