"""The tooling (``lib/workbook``) keeps no state fixed at import and uses only the library's public names.

- The checkout a tool works on is found when a command runs (``workbook.repo_root``), never when a
  module is imported: no module-level statement (default arguments included) calls it.
- ``workbook --root`` and tests move every tool at once with ``using_root``; nothing needs patching.
- ``lib/workbook`` never reads a private name of ``fleetcalc`` (the library gives it public hooks:
  ``exercises.collecting``, ``exercises.magnitude_in``).
"""
from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

import workbook

ROOT = Path(__file__).resolve().parent.parent
TOOLS = sorted((ROOT / "lib" / "workbook").rglob("*.py"))
FINDERS = {"repo_root", "find_root"}


def _import_time_nodes(tree: ast.Module):
    """What runs when a module is imported: module-level statements, plus the decorators and
    default arguments of its functions and classes (their bodies run later)."""
    for stmt in tree.body:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
            yield from stmt.decorator_list
            yield from stmt.args.defaults
            yield from (d for d in stmt.args.kw_defaults if d is not None)
        elif isinstance(stmt, ast.ClassDef):
            yield from stmt.decorator_list
            for s in stmt.body:
                if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    yield from s.args.defaults
                elif not isinstance(s, ast.ClassDef):
                    yield s
        elif not (isinstance(stmt, ast.If) and "__main__" in ast.unparse(stmt.test)):
            yield stmt


def _calls(node) -> set[str]:
    return {n.func.id if isinstance(n.func, ast.Name) else getattr(n.func, "attr", "")
            for n in ast.walk(node) if isinstance(n, ast.Call)}


def test_no_tool_finds_the_checkout_at_import():
    found = {}
    for f in TOOLS:
        tree = ast.parse(f.read_text(encoding="utf-8"))
        hits = [ast.unparse(n)[:80] for n in _import_time_nodes(tree) if _calls(n) & FINDERS]
        if hits:
            found[f.name] = hits
    assert not found, f"the checkout found at import time (call repo_root() inside the function): {found}"


def test_the_rule_sees_an_import_time_root():
    bad = ast.parse("from workbook import repo_root\nBUILD = repo_root() / '_build'\n"
                    "def f(out=repo_root()):\n    return out\n")
    good = ast.parse("from workbook import repo_root\ndef f(out=None):\n    return out or repo_root()\n")
    assert sum(bool(_calls(n) & FINDERS) for n in _import_time_nodes(bad)) == 2
    assert not any(_calls(n) & FINDERS for n in _import_time_nodes(good))


def test_no_tool_reads_a_private_name_of_the_library():
    found = []
    for f in TOOLS:
        tree = ast.parse(f.read_text(encoding="utf-8"))
        aliases = set()
        for n in ast.walk(tree):
            if isinstance(n, ast.ImportFrom) and (n.module or "").startswith("fleetcalc"):
                found += [f"{f.name}: from {n.module} import {a.name}" for a in n.names if a.name.startswith("_")]
                aliases |= {a.asname or a.name for a in n.names}
            elif isinstance(n, ast.Import):
                aliases |= {(a.asname or a.name).split(".")[0] for a in n.names if a.name.startswith("fleetcalc")}
        for n in ast.walk(tree):
            if (isinstance(n, ast.Attribute) and n.attr.startswith("_") and not n.attr.startswith("__")
                    and isinstance(n.value, ast.Name) and n.value.id in aliases):
                found.append(f"{f.name}:{n.lineno}: {ast.unparse(n)}")
    assert not found, f"private names of fleetcalc used by the tooling: {found}"


def test_using_root_moves_every_tool_and_restores(tmp_path):
    from workbook.classroom import instructor
    from workbook.notebooks import nb
    from workbook.classroom import exercises as student_nbs
    from workbook.site import build as site

    before = workbook.repo_root()
    with workbook.using_root(tmp_path):
        assert workbook.repo_root() == tmp_path.resolve()
        assert student_nbs.manifest_path() == tmp_path.resolve() / "exercises" / ".generated.json"
        assert site.build_dir() == tmp_path.resolve() / "_build"
        assert instructor.guides_dir() == tmp_path.resolve() / "instructor"
        with workbook.using_root(tmp_path / "inner"):
            assert student_nbs.manifest_path().parent.parent.name == "inner"
        assert workbook.repo_root() == tmp_path.resolve()
    assert workbook.repo_root() == before


def test_the_checkout_follows_the_environment_after_import(tmp_path):
    # a process that imported the tools first and was pointed elsewhere afterwards
    (tmp_path / "book.yml").write_text("title: x\n")
    (tmp_path / "solutions").mkdir()
    code = ("import os, workbook, workbook.classroom.exercises as student_nbs\n"
            "a = workbook.repo_root()\n"
            f"os.environ['WORKBOOK_ROOT'] = {str(tmp_path)!r}\n"
            "print(a != workbook.repo_root(), student_nbs.manifest_path().parent.parent == workbook.repo_root())\n")
    env = {**os.environ, "PYTHONPATH": str(ROOT / "lib")}
    env.pop("WORKBOOK_ROOT", None)
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["True", "True"]
