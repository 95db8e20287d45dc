"""environment.yml (conda/Binder) lists exactly the dependencies of pyproject.toml."""
import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _norm(req: str) -> str:
    return re.sub(r"\s+", "", req).lower().replace("_", "-")


def test_environment_matches_pyproject():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    wanted = set(map(_norm, project["dependencies"]))
    for extra in project["optional-dependencies"].values():
        wanted |= {_norm(r) for r in extra if not r.startswith("fleetcalc[")}  # an extra naming another
    env = (ROOT / "environment.yml").read_text()
    pip_lines = re.findall(r"^\s+- ([^#\n]+?)\s*$", env.split("- pip:")[1], flags=re.M)
    listed = {_norm(x) for x in pip_lines}
    assert listed == wanted, f"only in environment.yml: {listed - wanted}; only in pyproject: {wanted - listed}"
    post = (ROOT / "postBuild").read_text()
    assert "pip install" in post and "-e ." in post, "postBuild must install the workbook's own package"
    assert re.search(r"python=3\.11", env)


def test_required_packages_present():
    # the product brief requires these
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    allreqs = " ".join(project["dependencies"] + sum(project["optional-dependencies"].values(), []))
    for pkg in ("jupyterlab", "ipywidgets", "numpy", "matplotlib", "nbval", "jupytext"):
        assert pkg in allreqs
