"""A namespace a notebook cannot trip over: no chapter or solution notebook rebinds a facade name.

``from fleetcalc.notebook import *`` brings the physics topic modules by their names (``energy``,
``devices``, ``capacity``, ...). A cell that writes ``energy = ...`` replaces the module for every
later cell, and the next ``energy.flops_per_watt(...)`` fails far from the cause. Module-level
bindings (assignments, loop targets, imports, function and class names) of a facade name fail here;
a function's own parameters are local and allowed.
"""
from __future__ import annotations

import ast
from pathlib import Path

import jupytext

import fleetcalc.notebook as facade

ROOT = Path(__file__).resolve().parents[1]
FACADE = set(facade.__all__)


def _bound_at_top(tree: ast.Module):
    """(line, name) of every name a cell binds in the notebook's global scope."""
    def targets(node):
        for m in ast.walk(node):
            if isinstance(m, ast.Name) and isinstance(m.ctx, ast.Store):
                yield m.id

    for node in tree.body:
        stack = [node]
        while stack:
            n = stack.pop()
            if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                yield n.lineno, n.name
                continue                      # its body is its own scope
            if isinstance(n, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
                for t in (n.targets if isinstance(n, ast.Assign) else [n.target]):
                    yield from ((n.lineno, x) for x in targets(t))
            elif isinstance(n, (ast.For, ast.With)):
                for t in ([n.target] if isinstance(n, ast.For) else [i.optional_vars for i in n.items if i.optional_vars]):
                    yield from ((n.lineno, x) for x in targets(t))
            elif isinstance(n, (ast.Import, ast.ImportFrom)):
                for a in n.names:
                    name = (a.asname or a.name).split(".")[0]
                    if (a.name != name or a.asname) and (a.name, a.asname) != ("numpy", "np"):   # the same objects
                        yield n.lineno, name
            elif isinstance(n, ast.NamedExpr):
                yield n.lineno, n.target.id
            stack.extend(c for c in ast.iter_child_nodes(n) if not isinstance(c, (ast.expr_context,)))


def shadowings():
    found = []
    for folder in ("chapters", "solutions"):
        for md in sorted((ROOT / folder).rglob("*.md")):
            try:
                nb = jupytext.read(md)
            except Exception:  # noqa: BLE001 (a plain page)
                continue
            for i, cell in enumerate(nb.cells):
                if cell.cell_type != "code":
                    continue
                src = "\n".join(l for l in cell.source.splitlines() if not l.lstrip().startswith(("%", "!")))
                try:
                    tree = ast.parse(src)
                except SyntaxError:
                    continue
                for line, name in _bound_at_top(tree):
                    if name in FACADE and not (isinstance(tree.body[0], ast.ImportFrom) and name in {"show"}):
                        found.append(f"{md.relative_to(ROOT)} cell {i} line {line}: {name}")
    return found


def test_the_rule_sees_a_shadowing():
    tree = ast.parse("energy = 3\nfor devices in range(2): pass\ndef f(capacity):\n    storage = 1\n")
    assert [n for _, n in _bound_at_top(tree)] == ["energy", "devices", "f"]


def test_no_notebook_rebinds_a_facade_name():
    found = shadowings()
    assert not found, "these cells rebind a name the facade gives (rename the variable):\n  " + "\n  ".join(found)
