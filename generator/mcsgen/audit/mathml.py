"""Expressions as MathML Core, which browsers render natively (Chromium since 109, Firefox).

SymPy's presentation printer writes `<mfenced>`, which MathML Core dropped (browsers show its
children without the brackets): every mfenced is rewritten as an `<mrow>` with explicit `<mo>`
brackets and separators. Nothing else of SymPy's output is changed."""

from xml.dom import minidom

import sympy as sp
from sympy.printing.mathml import MathMLPresentationPrinter


def _unfence(doc, node):
    for child in list(node.childNodes):
        _unfence(doc, child)
    if getattr(node, "tagName", None) != "mfenced":
        return
    open_ = node.getAttribute("open") if node.hasAttribute("open") else "("
    close = node.getAttribute("close") if node.hasAttribute("close") else ")"
    seps = node.getAttribute("separators") if node.hasAttribute("separators") else ","
    seps = seps.replace(" ", "")
    row = doc.createElement("mrow")

    def mo(text):
        el = doc.createElement("mo")
        el.appendChild(doc.createTextNode(text))
        return el

    if open_:
        row.appendChild(mo(open_))
    children = [c for c in node.childNodes if c.nodeType == c.ELEMENT_NODE]
    for k, child in enumerate(children):
        if k and seps:
            row.appendChild(mo(seps[min(k - 1, len(seps) - 1)]))
        row.appendChild(child)
    if close:
        row.appendChild(mo(close))
    node.parentNode.replaceChild(row, node)


def to_mathml(expr: sp.Expr, display: bool = False) -> str:
    """`<math>...</math>` for one expression (inline, or a block with display)."""
    printer = MathMLPresentationPrinter({"mul_symbol": "dot"})  # names have several letters
    doc = minidom.Document()
    math = doc.createElement("math")
    if display:
        math.setAttribute("display", "block")
    doc.appendChild(math)
    math.appendChild(printer._print(sp.sympify(expr)))
    _unfence(doc, math)
    # SymPy writes entities (&InvisibleTimes;) as text; HTML reads them as written
    return math.toxml().replace("&amp;", "&")
