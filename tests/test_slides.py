"""lib/workbook/notebooks/slides.py: RISE slide metadata that leaves everything nbval and the site read unchanged."""
from __future__ import annotations

import copy
import json
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parent.parent
from workbook.notebooks import slides  # noqa: E402

EXEMPLAR = ROOT / "chapters" / "ch28" / "28_3_roofline.ipynb"


def _strip(nb_json: dict) -> dict:
    """The notebook without what slides.py may write (slideshow per cell, rise per notebook)."""
    nb = copy.deepcopy(nb_json)
    nb["metadata"].pop("rise", None)
    for cell in nb["cells"]:
        cell["metadata"].pop("slideshow", None)
    return nb


def _nb(*cells):
    out = []
    for kind, src, *tags in cells:
        meta = {"tags": tags[0]} if tags else {}
        make = nbformat.v4.new_markdown_cell if kind == "md" else nbformat.v4.new_code_cell
        out.append(make(src, metadata=meta))
    return nbformat.v4.new_notebook(cells=out)


def test_rules_on_a_small_notebook():
    long_prose = " ".join(["word"] * (slides.NOTES_WORDS + 1))
    nb = _nb(("md", "# 9.9 A section\n\nIntro."),
             ("code", "from fleetcalc.notebook import *"),
             ("md", "## Example 1\n\nWhat is asked."),
             ("code", "x = 1"),
             ("md", "Short prose after code: a question before the next number."),
             ("code", "y = 2"),
             ("md", long_prose),
             ("md", "A paragraph MyST merged with the heading below it.\n\n### Panel: move it"),
             ("code", "panel(...)", ["nbval-ignore-output"]),
             ("md", "```python\n## not a heading inside a fence\n```\n\nprose"),
             ("md", "#### A minor heading"),
             ("md", "> generated note", ["generated-note"]),
             ("md", "## What to take away\n\n- one"))
    assert slides.slide_types(nb) == ["slide", "skip", "slide", "-", "fragment", "-", "notes", "subslide",
                                      "-", "fragment", "fragment", "skip", "slide"]


def test_heading_level():
    assert slides.heading_level("## Two lower bounds (Eq. 28.2)\n\ntext") == 2
    assert slides.heading_level("text\n\n### Panel: x") == 3
    assert slides.heading_level("#hashtag is not a heading") == 0
    assert slides.heading_level("$$ x $$") == 0


def test_exemplar_metadata_and_nothing_else_changes(tmp_path):
    path = tmp_path / EXEMPLAR.name
    shutil.copy(EXEMPLAR, path)
    original = json.loads(EXEMPLAR.read_text(encoding="utf-8"))
    assert slides.main([str(path)]) == 0
    changed = json.loads(path.read_text(encoding="utf-8"))

    # nbval-relevant content (sources, outputs, tags, ids, kernelspec, widget state) is untouched
    assert _strip(changed) == _strip(original)
    for a, b in zip(original["cells"], changed["cells"]):
        assert a["source"] == b["source"] and a.get("outputs") == b.get("outputs")
        assert a["metadata"].get("tags") == b["metadata"].get("tags")

    # "-" (stay on this slide) is written as no slideshow metadata (jupyterlab-slideshow hides a literal "-")
    kinds = [c["metadata"].get("slideshow", {}).get("slide_type", "-") for c in changed["cells"]]
    assert all(c["metadata"].get("slideshow", {}).get("slide_type") != "-" for c in changed["cells"])
    srcs = ["".join(c["source"]) for c in changed["cells"]]
    assert kinds[0] == "slide" and srcs[0].startswith("# 28.3")
    assert kinds[srcs.index(next(s for s in srcs if s.startswith("from fleetcalc.notebook")))] == "skip"
    assert kinds[srcs.index(next(s for s in srcs if s.startswith("## Two lower bounds")))] == "slide"
    assert kinds[srcs.index(next(s for s in srcs if "## Example 27.1" in s))] == "slide"
    panel_heading = srcs.index(next(s for s in srcs if "### Panel" in s))
    assert kinds[panel_heading] == "subslide"
    panel_cell = next(i for i, s in enumerate(srcs) if "panel(" in s and "Example 27.1" in s)
    assert panel_cell == panel_heading + 1 and kinds[panel_cell] == "-"   # on its example's (sub)slide
    assert set(kinds) <= {"slide", "subslide", "fragment", "-", "skip", "notes"}
    assert changed["metadata"]["rise"]["scroll"] is True

    # rerunning is a no-op, and --check agrees
    before = path.read_bytes()
    assert slides.main([str(path)]) == 0 and path.read_bytes() == before
    assert slides.main(["--check", str(path)]) == 0
    shutil.copy(EXEMPLAR, tmp_path / "fresh.ipynb")
    if "slideshow" not in original["cells"][0]["metadata"]:
        assert slides.main(["--check", str(tmp_path / "fresh.ipynb")]) == 1


def test_nbval_still_passes_on_the_slide_notebook(tmp_path):
    path = tmp_path / EXEMPLAR.name
    shutil.copy(EXEMPLAR, path)
    slides.main([str(path)])
    run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:randomly", "--nbval",
                          "--nbval-current-env", str(path)], cwd=tmp_path, capture_output=True, text=True,
                         timeout=300)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-2000:]
