"""One formula, one place: notebooks, solutions and the UI/tooling layers never retype a formula
the library declares.

Every calculator declares its formula as a Python expression (``equation=eq(...)``). Here each
declared formula becomes a *shape*: its expression with the names renamed in order of first
appearance (``2*(p-1)/p`` and ``2*(N-1)/N`` are both ``2*(v0-1)/v0``), unit conversions and
number casts stripped, constants kept. Every arithmetic sub-expression of the notebooks' code
cells (chapters/, solutions/, read with jupytext) and of ``lib/fleetcalc/ui`` and ``lib/workbook``
is shaped the same way; one that has the shape of a declared formula is a retyped formula: call the
calculator instead. Only distinctive shapes are checked: two operators with a constant other than
0 and 1, or three operators that are not a plain sum (``a/b``, ``2*x``, ``a*b/c``, ``a+b+c+d`` and a
relative change are everyday arithmetic, not a formula).

``ALLOWED`` lists the places where the match is not a retyped formula, each with its reason.
"""
from __future__ import annotations

import ast
import importlib
import pkgutil
from pathlib import Path

import jupytext
import pytest

import fleetcalc.physics
from fleetcalc.core.calculator import calculators_in
from fleetcalc.core.equation import Equation

ROOT = Path(__file__).resolve().parents[1]

#: (file, calculator) pairs that match a declared formula's shape but are not a retyped formula.
ALLOWED: dict[tuple[str, str], str] = {
    ("chapters/ch28/28_5_collectives.md", "collectives.alltoall_cut_time"):
        "a burst's mean rate over a step (senders x port x burst / step), not an all-to-all across a cut",
    ("lib/fleetcalc/ui/diagrams/collectives.py", "fabric.switch_traversals"):
        "the reduction tree's layout: a parent sits midway over its 2*stride children (a position, not a hop count)",
    ("lib/fleetcalc/ui/diagrams/scheduler.py", "inference.decode_step_bytes"):
        "the Gantt chart's row offset y0 + node * per_node * row height (a layout, not bytes)",
}

_CASTS = {"int", "float", "round", "abs"}
_STRIP_ATTRS = {"magnitude", "m"}
_STRIP_METHODS = {"to", "m_as", "to_base_units", "item"}


class _Shape(ast.NodeTransformer):
    """Rename names in order of first appearance; strip casts and unit conversions."""

    def __init__(self):
        self.names: dict[str, str] = {}

    def _leaf(self, key: str) -> ast.Name:
        return ast.Name(self.names.setdefault(key, f"v{len(self.names)}"), ast.Load())

    def visit_Name(self, node):
        return self._leaf(node.id)

    def visit_Attribute(self, node):
        if node.attr in _STRIP_ATTRS:
            return self.visit(node.value)
        return self._leaf(ast.unparse(node))

    def visit_Subscript(self, node):
        return self._leaf(ast.unparse(node))

    def visit_Call(self, node):
        f = node.func
        if isinstance(f, ast.Name) and f.id in _CASTS and len(node.args) == 1:
            return self.visit(node.args[0])
        if isinstance(f, ast.Attribute) and f.attr in _STRIP_METHODS:
            return self.visit(f.value)
        if isinstance(f, ast.Name) and f.id in {"sqrt", "log", "log2", "log10", "exp", "ceil", "ceil_count", "floor", "expm1", "min", "max", "sum"}:
            return ast.Call(ast.Name(f.id, ast.Load()), [self.visit(a) for a in node.args], [])
        return self._leaf(ast.unparse(node))  # any other call is a value (e.g. a calculator's result)


def shape(node: ast.AST) -> str:
    return ast.dump(_Shape().visit(ast.parse(ast.unparse(node), mode="eval").body))


def _ops(node: ast.AST) -> int:
    return sum(isinstance(n, ast.BinOp) for n in ast.walk(node))


#: Shapes every comparison has (a relative change, a share): not a formula worth a calculator.
GENERIC = {"1 - a / b", "a / b - 1", "(a - b) / b", "a * (1 - b)", "a / (a + b)", "(a - b) / a"}


def _distinctive(tree: ast.AST) -> bool:
    """Two operators and a constant other than 0 and 1 (``2*(p-1)/p``), or three operators; shapes
    of two operators over names only (``a*b/c``, ``a-b-c``) are everyday arithmetic."""
    consts = {n.value for n in ast.walk(tree) if isinstance(n, ast.Constant)} - {0, 1}
    if all(isinstance(n.op, ast.Add) for n in ast.walk(tree) if isinstance(n, ast.BinOp)) and not consts:
        return False   # a plain sum of terms (a + b + c + d) is how every total is written
    return _ops(tree) >= 3 or (_ops(tree) >= 2 and bool(consts))


def declared_shapes() -> dict[str, str]:
    """shape -> calculator name, for every declared formula distinctive enough to recognise."""
    generic = {shape(ast.parse(g, mode="eval").body) for g in GENERIC}
    out = {}
    for mod in pkgutil.iter_modules(fleetcalc.physics.__path__):
        module = importlib.import_module(f"fleetcalc.physics.{mod.name}")
        for name, calc in calculators_in(module).items():
            eqs = calc.equation if isinstance(calc.equation, tuple) else (calc.equation,)
            for e in eqs:
                if not isinstance(e, Equation):
                    continue
                for text in {e.expr, e.inlined}:
                    tree = ast.parse(text, mode="eval").body
                    shaped = _Shape().visit(ast.parse(ast.unparse(tree), mode="eval").body)
                    if _distinctive(shaped) and shape(tree) not in generic:
                        out.setdefault(shape(tree), f"{mod.name}.{name}")
    return out


def sources() -> list[tuple[str, str]]:
    """(label, Python source) for every code cell and UI/tooling module the rule covers."""
    out = []
    for folder in ("chapters", "solutions"):
        for md in sorted((ROOT / folder).rglob("*.md")):
            try:
                nb = jupytext.read(md)
            except Exception:  # noqa: BLE001 (not a notebook: a plain page)
                continue
            if nb.metadata.get("jupytext", {}).get("text_representation", {}).get("format_name") != "myst":
                continue
            for i, cell in enumerate(nb.cells):
                if cell.cell_type == "code":
                    src = "\n".join(l for l in cell.source.splitlines() if not l.lstrip().startswith(("%", "!")))
                    out.append((f"{md.relative_to(ROOT)} cell {i}", src))
    for folder in ("lib/fleetcalc/ui", "lib/workbook"):
        for py in sorted((ROOT / folder).rglob("*.py")):
            out.append((str(py.relative_to(ROOT)), py.read_text(encoding="utf-8")))
    return out


def retyped() -> list[tuple[str, str, str]]:
    shapes = declared_shapes()
    hits = []
    for label, src in sources():
        try:
            tree = ast.parse(src)
        except SyntaxError:
            continue
        seen = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.BinOp) and _ops(node) >= 2:  # cheap filter; shapes decide
                calc = shapes.get(shape(node))
                if calc and (label.split(" cell ")[0], calc) not in ALLOWED and id(node) not in seen:
                    seen.update(id(n) for n in ast.walk(node))
                    hits.append((label, calc, ast.unparse(node)))
    return hits


def test_the_rule_finds_a_retyped_formula():
    """The check is live: a ring all-reduce factor typed by hand is caught, whatever its names."""
    shapes = declared_shapes()
    assert len(shapes) > 30
    for typed, calc in (("2 * (N - 1)", "collectives.ring_steps"), ("n * (n - 1) / 2", "node.full_mesh_links"),
                        ("m * (m - 1) / 2", "node.full_mesh_links")):
        assert shapes.get(shape(ast.parse(typed, mode="eval").body)) == calc, typed


def test_no_notebook_or_ui_module_retypes_a_library_formula():
    hits = retyped()
    assert not hits, "retyped library formulas (call the calculator; or allow-list with a reason):\n" + \
        "\n".join(f"  {label}: {code}  -> {calc}" for label, calc, code in hits)
