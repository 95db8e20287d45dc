"""The package's layers, read from the source (AST), so a wrong-way import fails here.

    fleetcalc/core     units, validation, calculators, ledger, catalog, notation: imports only core
    fleetcalc/physics  one module per physical topic: imports core and physics, never the UI,
                       matplotlib or ipywidgets
    fleetcalc/ui       panel builder, plots, diagrams, exercises: may import all three
    fleetcalc/__init__ the light top level (version, Q_, fmt, hw, book_says): core only
    fleetcalc/notebook the facade notebooks import: may import all three

Notebooks import the library through the facade (``fleetcalc.notebook``) and, for a figure, the
plot or diagram module that draws it (``fleetcalc.ui.plots.*``, ``fleetcalc.ui.diagrams.*``).
"""
from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PKG = ROOT / "lib" / "fleetcalc"
ALLOWED = {"core": {"core"}, "physics": {"core", "physics"}, "ui": {"core", "physics", "ui"},
           "__init__": {"core"}, "notebook": {"core", "physics", "ui", "__init__"}}
HEAVY = {"matplotlib", "ipywidgets", "IPython"}


def layer_of_file(path: Path) -> str:
    rel = path.relative_to(PKG).parts
    return rel[0] if len(rel) > 1 else path.stem


def module_name(path: Path) -> list[str]:
    parts = list(path.relative_to(PKG.parent).with_suffix("").parts)
    return parts[:-1] if parts[-1] == "__init__" else parts


def imported_modules(path: Path):
    """(line, absolute module name) for every import in the file, lazy ones included."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    here = module_name(path)
    package = here if path.name == "__init__.py" else here[:-1]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                yield node.lineno, a.name
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - (node.level - 1)]
                mod = ".".join(base + ([node.module] if node.module else []))
            else:
                mod = node.module or ""
            yield node.lineno, mod
            for a in node.names:  # `from fleetcalc import physics` imports a layer
                yield node.lineno, f"{mod}.{a.name}"


def target_layer(mod: str) -> str | None:
    parts = mod.split(".")
    if parts[0] != "fleetcalc":
        return None
    if len(parts) == 1:
        return "__init__"
    return parts[1] if parts[1] in ("core", "physics", "ui", "notebook") else "__init__"


SOURCES = sorted(PKG.rglob("*.py"))


def test_top_level_keeps_a_handful_of_modules():
    names = sorted(p.name for p in PKG.iterdir() if not p.name.startswith((".", "__pycache__")))
    assert names == ["__init__.py", "core", "notebook.py", "physics", "ui"], names


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: p.relative_to(PKG).as_posix())
def test_imports_point_down_the_layers(path):
    layer = layer_of_file(path)
    wrong = []
    for line, mod in imported_modules(path):
        target = target_layer(mod)
        if target is None:
            if layer in ("core", "physics", "__init__") and mod.split(".")[0] in HEAVY:
                wrong.append(f"line {line}: {layer} imports {mod}")
            continue
        if target not in ALLOWED[layer] and not (target == "__init__" and mod == "fleetcalc"):
            wrong.append(f"line {line}: {layer} imports {mod} ({target})")
    assert not wrong, "\n".join(wrong)


def test_the_layer_test_sees_a_wrong_way_import(tmp_path):
    """The checker itself: a physics module importing the UI is caught."""
    bad = PKG / "physics" / "roofline.py"
    mods = [m for _, m in imported_modules(bad)]
    assert all(target_layer(m) in (None, "core", "physics", "__init__") for m in mods)
    assert target_layer("fleetcalc.ui.widgets") == "ui" not in ALLOWED["physics"]


NOTEBOOK_SOURCES = sorted(p for d in ("chapters", "solutions") for p in (ROOT / d).rglob("*.md"))
IMPORT = re.compile(r"^\s*(?:from|import)\s+(fleetcalc[\w.]*)", re.M)
FIGURES = re.compile(r"^fleetcalc\.ui\.(plots|diagrams)(\.\w+)?$")


@pytest.mark.parametrize("path", NOTEBOOK_SOURCES, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_notebooks_import_the_facade(path):
    wrong = [m for m in IMPORT.findall(path.read_text(encoding="utf-8"))
             if m != "fleetcalc.notebook" and not FIGURES.match(m)]
    assert not wrong, f"{path.name} imports {wrong}; use `from fleetcalc.notebook import ...`"


def test_figures_are_not_registered_with_pyplot():
    """Diagrams and plots build matplotlib.figure.Figure objects, shown once by show() or a
    panel: a pyplot figure would also be shown by the inline backend at the end of the cell, so a
    notebook's outputs would depend on the backend (nbval under Agg saw one output fewer)."""
    import ast as _ast
    found = []
    for path in sorted((ROOT / "lib" / "fleetcalc" / "ui").rglob("*.py")):
        for node in _ast.walk(_ast.parse(path.read_text(encoding="utf-8"))):
            names = [a.name for a in node.names] if isinstance(node, (_ast.Import, _ast.ImportFrom)) else []
            mod = node.module if isinstance(node, _ast.ImportFrom) else ""
            if "matplotlib.pyplot" in names or (mod == "matplotlib" and "pyplot" in names) or mod == "matplotlib.pyplot":
                found.append(str(path.relative_to(ROOT)))
    assert not found, found


def test_the_facade_leaves_ipywidgets_and_matplotlib_for_the_first_panel_or_figure():
    """The setup cell imports the facade; ipywidgets (0.2 s) and matplotlib wait for the first
    panel or figure, so the first cell a student runs stays light (see `make bench`)."""
    import subprocess
    import sys
    code = ("import sys; from fleetcalc.notebook import *; Q_(1, 'GB'); "
            "print(sorted(m for m in ('ipywidgets', 'matplotlib') if m in sys.modules)); "
            "print(panel.__doc__.split()[0], 'slider' in repr(knob(5, 1, 10)).lower() or 'Knob' in type(knob(5, 1, 10)).__name__); "
            "print(sorted(m for m in ('ipywidgets',) if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env={"PYTHONPATH": str(PKG.parent), "PATH": ""}).stdout.splitlines()
    assert out[1] == "[]"
    assert out[2].endswith("True")
    assert out[3] == "['ipywidgets']"
