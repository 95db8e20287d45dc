"""What `pip install .` gives: the calculators alone, and `workbook` with the tooling extra.

A clean virtual environment is simulated in a subprocess: every installed distribution that the
base install of fleetcalc would not bring (by the Requires-Dist of pyproject.toml, followed
transitively through the installed metadata) is made unimportable. This is how a user who ran
`pip install fleetcalc` sees the package, without downloading anything.
"""
from __future__ import annotations

import ast
import re
import subprocess
import sys
import tempfile
import tomllib
from importlib import metadata
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]


def _name(req: str) -> str:
    return re.split(r"[<>=!~\[; ]", req, maxsplit=1)[0].lower().replace("_", "-")


def _closure(reqs) -> set[str]:
    """Distribution names the requirements pull in, transitively (environment markers without extras)."""
    seen, todo = set(), [r for r in reqs if "extra ==" not in r]
    while todo:
        req = todo.pop()
        name = _name(req)
        if name in seen:
            continue
        seen.add(name)
        try:
            dist = metadata.distribution(name)
        except metadata.PackageNotFoundError:
            continue
        for sub in dist.requires or []:
            if "extra ==" in sub:
                continue
            if ";" in sub:
                from packaging.markers import Marker  # noqa: PLC0415 (pip's vendored copy is not public)
                if not Marker(sub.split(";", 1)[1]).evaluate():
                    continue
            todo.append(sub)
    return seen


def _blocked_modules(allowed_dists: set[str]) -> list[str]:
    """Top-level modules of installed distributions outside ``allowed_dists``."""
    blocked = set()
    for module, dists in metadata.packages_distributions().items():
        norm = {d.lower().replace("_", "-") for d in dists}
        if not norm & allowed_dists and not module.startswith("_"):
            blocked.add(module)
    return sorted(blocked - {"fleetcalc", "workbook"})


BLOCKER = """
import sys
BLOCKED = set({blocked!r})
class _Block:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in BLOCKED:
            raise ModuleNotFoundError(f"No module named {{name!r}}", name=name)
        return None
sys.meta_path.insert(0, _Block())
"""


def _run_clean(code: str, extras: tuple[str, ...] = ()) -> subprocess.CompletedProcess:
    reqs = list(PYPROJECT["dependencies"])
    for extra in extras:
        reqs += PYPROJECT["optional-dependencies"][extra]
    blocked = _blocked_modules(_closure(reqs) | {"pip", "setuptools"})
    prelude = BLOCKER.format(blocked=blocked)
    with tempfile.TemporaryDirectory() as home:   # caches (pint's, matplotlib's) go there, not into the checkout
        env = {"PYTHONPATH": str(ROOT / "lib"), "PATH": "", "HOME": home, "MPLBACKEND": "Agg"}
        return subprocess.run([sys.executable, "-c", prelude + code], capture_output=True, text=True, cwd=ROOT, env=env)


def test_base_install_runs_a_notebook_cell():
    r = _run_clean("from fleetcalc.notebook import *\n"
                   "print(fmt(links.transfer_time(Q_(1, 'GB'), Q_(25, 'GB/s')), 'ms'))\n"
                   "print(type(panel(lambda x: {'x': x}, {'x': knob(1, 1, 4, 1)})).__name__)")
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines()[-2:] == ["40.000 ms", "Panel"]  # 1 GB / 25 GB/s = 40 ms by hand


def test_base_install_workbook_help_works_and_a_tool_names_the_extra():
    r = _run_clean("from workbook.cli import main; main(['--help'])")
    assert r.returncode == 0, r.stderr
    assert "execute" in r.stdout and "grade" in r.stdout
    r = _run_clean("from workbook.cli import main; main(['execute', '--help'])")
    assert r.returncode == 1
    assert 'pip install "fleetcalc[tools]"' in r.stderr


def test_the_tools_extra_is_enough_for_every_tool():
    r = _run_clean("import importlib, workbook.cli as c\n"
                   "for m, _, _ in c.COMMANDS.values(): importlib.import_module('workbook.' + m)\n"
                   "print('ok')", extras=("tools",))
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip().endswith("ok")


def test_workbook_imports_only_declared_packages():
    """Every third-party module lib/workbook imports at module level is declared by the base install or `tools`."""
    declared = _closure(list(PYPROJECT["dependencies"]) + PYPROJECT["optional-dependencies"]["tools"])
    provided = {m for m, ds in metadata.packages_distributions().items()
                if {d.lower().replace("_", "-") for d in ds} & declared}
    for path in (ROOT / "lib" / "workbook").glob("*.py"):
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            names = ([a.name for a in node.names] if isinstance(node, ast.Import) else
                     [node.module] if isinstance(node, ast.ImportFrom) and node.level == 0 else [])
            for name in names:
                top = name.split(".")[0]
                if top in sys.stdlib_module_names or top in {"fleetcalc", "workbook", "__future__"}:
                    continue
                assert top in provided, f"{path.name} imports {top} at module level, which no declared dependency provides"


@pytest.mark.parametrize("name", ["LICENSE", "LICENSE-CONTENT.md"])
def test_licences_are_stated(name):
    text = (ROOT / name).read_text(encoding="utf-8")
    assert ("MIT License" in text) if name == "LICENSE" else ("CC BY-SA 4.0" in text and "CC BY-NC-SA 4.0" in text)
    assert name in (ROOT / "README.md").read_text(encoding="utf-8")
