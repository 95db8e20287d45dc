"""Book-consistency checks over the notebook sources: pairs, generated exercises, conventions."""
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
from workbook.notebooks import nb as nbtool
from workbook.classroom import exercises as student_nbs

from fleetcalc.core.catalog import entries  # noqa: E402

SOURCES = [p for d in ("chapters", "solutions", "exercises") for p in sorted((ROOT / d).rglob("*.md"))
           if p.name != "README.md"]
IDS = [str(p.relative_to(ROOT)) for p in SOURCES]


def test_every_source_has_a_matching_executed_twin():
    assert nbtool.pair_problems() == []


def test_exercises_are_what_solutions_generate():
    assert student_nbs.generate_exercises(check=True) == 0


@pytest.mark.parametrize("path", SOURCES, ids=IDS)
def test_notebook_conventions(path):
    nb = nbtool.read_md(path)
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert nb.cells and nb.cells[0].cell_type == "markdown" and nb.cells[0].source.startswith("# "), \
        "a notebook opens with a '# ' title"
    if code:
        assert "from fleetcalc.notebook import *" in code[0].source, "first code cell is the setup import"
    for c in code:
        src = c.source
        if re.search(r"^\s*panel\(", src, flags=re.M):
            assert "nbval-ignore-output" in c.metadata.get("tags", []), "panel cells carry nbval-ignore-output"
        for num in re.findall(r"book_says\([^\n]*", src):
            assert "where=" in src, "every book_says names where the number is printed"


@pytest.mark.parametrize("path", SOURCES, ids=IDS)
def test_catalog_paths_used_by_notebooks_resolve(path):
    used = re.findall(r"""\bhw\(\s*["']([\w.]+)["']\s*[,)]""", path.read_text(encoding="utf-8"))
    missing = [u for u in used if u not in entries()]
    assert not missing, f"catalog entries used but not defined: {missing}"


def test_solutions_keep_their_checks_outside_the_solution_region():
    for path in sorted((ROOT / "solutions").rglob("*.md")):
        for cell in nbtool.read_md(path).cells:
            src = cell.source
            if student_nbs.BEGIN in src:
                region = src.split(student_nbs.BEGIN, 1)[1].split(student_nbs.END, 1)[0]
                assert "check(" not in region, f"{path.name}: check() must follow the solution region"


def test_strip_solution_code_makes_stubs():
    src = "x = 1\n# BEGIN SOLUTION\na = f(x)\nb, c = a, 2\n# END SOLUTION\ncheck('1', 'a', a)"
    assert student_nbs.strip_solution_code(src) == "x = 1\na = ...  # your answer\nb = ...  # your answer\nc = ...  # your answer\ncheck('1', 'a', a)"
    with pytest.raises(ValueError, match="unclosed"):
        student_nbs.strip_solution_code("# BEGIN SOLUTION\na = 1")
