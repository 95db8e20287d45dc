"""lib/workbook/classroom/instructor.py and instructor/*.md: generated blocks read from the executed notebooks."""
from __future__ import annotations

import re
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parent.parent
from workbook.classroom import instructor  # noqa: E402

HAND_SECTIONS = ("## Learning objectives", "## Suggested lecture flow", "## Misconceptions to target")


def test_erratum_from_its_record():
    # the record fleetcalc.core.book.book_says makes for an erratum
    from fleetcalc.core.ledger import Record
    r = Record("erratum", "line 1541: '1.6x more HBM capacity'", "H200/H100 capacity", "1.8", "1.6",
               reason="with 141 GB the ratio is 1.76 (1.6x would need 128 GB)")
    e = instructor.finding(r)
    assert e.where == "line 1541: '1.6x more HBM capacity'"
    assert e.value == "H200/H100 capacity = 1.8" and e.book == "1.6"
    assert e.cause == "with 141 GB the ratio is 1.76 (1.6x would need 128 GB)"


def test_render_replaces_only_the_blocks():
    text = instructor.skeleton("ch28").replace("_To be written._", "Hand-written words.", 1)
    out = instructor.render(text, {"errata": "- one erratum", "overview": "x", "exercises": "y"})
    assert "Hand-written words." in out and "- one erratum" in out
    again = instructor.render(out, {"errata": "- one erratum", "overview": "x", "exercises": "y"})
    assert again == out
    changed = instructor.render(out, {"errata": "- another", "overview": "x", "exercises": "y"})
    assert "- another" in changed and "- one erratum" not in changed
    assert changed.replace("- another", "- one erratum") == out
    # a guide that lost a block gets it back at the end
    cut = re.sub(r"<!-- BEGIN GENERATED exercises.*?END GENERATED exercises -->", "", out, flags=re.S)
    assert "END GENERATED exercises" in instructor.render(cut, {"exercises": "y"})


@pytest.mark.parametrize("chapter", instructor.CHAPTERS)
def test_guides_exist_and_are_current(chapter):
    path = instructor.guide_path(chapter)
    assert path.exists(), f"{path} is missing: run workbook instructor"
    text = path.read_text(encoding="utf-8")
    for name in instructor.BLOCKS:
        assert text.count(f"BEGIN GENERATED {name} ") == 1 and text.count(f"END GENERATED {name} ") == 1
    for heading in HAND_SECTIONS:
        assert heading in text
    # the errata block must match the executed notebooks (the overview's counts and the exercise
    # map may lag a re-execution harmlessly; `workbook instructor --check` checks all blocks)
    want = instructor._wrap("errata", instructor.blocks_for(chapter)["errata"])
    assert want in text, (f"instructor/{chapter}.md lists other errata or assumptions than the "
                          "executed notebooks print: run workbook instructor")


@pytest.mark.parametrize("chapter", instructor.CHAPTERS)
def test_every_erratum_in_the_notebooks_is_in_the_guide(chapter):
    """Independent of the generator's parser: scan the outputs for '[erratum]' and look for the
    printed book value and the location of each one in the guide's errata block."""
    text = instructor.guide_path(chapter).read_text(encoding="utf-8")
    block = re.search(r"BEGIN GENERATED errata.*?END GENERATED errata", text, flags=re.S).group(0)
    n = 0
    for nb_path in sorted((ROOT / "chapters" / chapter).glob("*.ipynb")):
        nb = nbformat.read(nb_path, as_version=4)
        for cell in nb.cells:
            for out in cell.get("outputs", []):
                for line in (out.get("text") or out.get("data", {}).get("text/plain", "")).splitlines():
                    if line.startswith("[erratum]"):
                        n += 1
                        where, _, book = line[len("[erratum]"):].split(" | ")[:3]
                        assert where.strip() in block, line
                        assert f"the book prints **{book[len(' book:'):].strip()}**" in block, line
    assert (n == 0) == ("record no erratum" in block)
