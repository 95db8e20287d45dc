"""The import graph of ``lib/``, read from the source (AST, lazy imports included): no circles
anywhere, and the tooling's rooms import one way.

    workbook/notebooks  the notebook pipeline          imports workbook (the root) only
    workbook/classroom  key, variants, grading, guides  imports notebooks
    workbook/site       site build, reference pages     imports notebooks
    workbook/bench      the benchmark                   imports any of them; nothing imports it
    fleetcalc           the calculators                 never imports workbook

(The layers inside ``fleetcalc`` are ``tests/test_layers.py``'s.)
"""
from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

import pytest

LIB = Path(__file__).resolve().parents[1] / "lib"
ROOMS = {"notebooks": set(), "classroom": {"notebooks"}, "site": {"notebooks"},
         "bench": {"notebooks", "classroom", "site"}}


def modules() -> dict[str, Path]:
    out = {}
    for p in sorted(LIB.rglob("*.py")):
        parts = list(p.relative_to(LIB).with_suffix("").parts)
        out[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = p
    return out


def _resolve(name: str, known: dict) -> str | None:
    while name and name not in known:
        name = name.rpartition(".")[0]
    return name or None


def graph(known: dict[str, Path]) -> dict[str, set[str]]:
    """{module: the lib modules it imports}; ``from a import b`` counts as importing ``a.b`` when
    that is a module, else ``a``."""
    edges: dict[str, set[str]] = defaultdict(set)
    for name, path in known.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            targets = []
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    up = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                    base = ".".join(up + ([base] if base else []))
                targets = [f"{base}.{a.name}" for a in node.names]
            for t in targets:
                hit = _resolve(t, known)
                if hit and hit != name and not name.startswith(hit + "."):   # a package's own __init__
                    edges[name].add(hit)
    return edges


def circles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan, iterative)."""
    index, low, on, stack, out, counter = {}, {}, set(), [], [], [0]
    for root in sorted(set(edges) | {t for ts in edges.values() for t in ts}):
        if root in index:
            continue
        work = [(root, iter(sorted(edges.get(root, ()))))]
        index[root] = low[root] = counter[0]; counter[0] += 1; stack.append(root); on.add(root)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is None:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[v])
                if low[v] == index[v]:
                    comp = []
                    while True:
                        x = stack.pop(); on.discard(x); comp.append(x)
                        if x == v:
                            break
                    if len(comp) > 1:
                        out.append(sorted(comp))
            elif w not in index:
                index[w] = low[w] = counter[0]; counter[0] += 1; stack.append(w); on.add(w)
                work.append((w, iter(sorted(edges.get(w, ())))))
            elif w in on:
                low[v] = min(low[v], index[w])
    return out


KNOWN = modules()
EDGES = graph(KNOWN)


def test_the_detector_finds_a_circle_and_passes_a_chain():
    assert circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert circles({"a": {"b"}, "b": {"c"}}) == []


def test_the_graph_sees_lazy_and_relative_imports():
    # workbook.classroom.grade imports the answer key inside a function; bench imports the site lazily
    assert "workbook.classroom.answer_key" in EDGES["workbook.classroom.grade"]
    assert "workbook.notebooks.nb" in EDGES["workbook.bench.run"]


def test_no_import_circles_in_lib():
    assert circles(EDGES) == []


def room(mod: str) -> str | None:
    parts = mod.split(".")
    return parts[1] if parts[0] == "workbook" and len(parts) > 2 and parts[1] in ROOMS else None


@pytest.mark.parametrize("name", sorted(n for n in KNOWN if room(n)))
def test_each_room_imports_only_the_rooms_below_it(name):
    mine = room(name)
    wrong = sorted(t for t in EDGES.get(name, ()) if room(t) not in (None, mine) and room(t) not in ROOMS[mine])
    assert not wrong, f"{name} ({mine}) imports {wrong}; {mine} may import {sorted(ROOMS[mine]) or 'no other room'}"


def test_the_calculators_never_import_the_tooling():
    wrong = sorted((n, t) for n, ts in EDGES.items() if n.startswith("fleetcalc") for t in ts if t.startswith("workbook"))
    assert not wrong


def test_each_room_says_what_it_owns_and_may_import():
    for r in ROOMS:
        doc = ast.get_docstring(ast.parse((LIB / "workbook" / r / "__init__.py").read_text(encoding="utf-8"))) or ""
        assert "Imports:" in doc and len(doc) > 150, r


def test_the_tooling_top_level_holds_only_the_root_finder_and_the_command():
    top = sorted(p.name for p in (LIB / "workbook").iterdir() if p.suffix == ".py")
    assert top == ["__init__.py", "cli.py"], top
