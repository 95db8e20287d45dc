"""Lecture mode that survives the real workflow: the slide structure lives in the .md source
(`workbook slides --source`), so JupyterLab with jupytext (which takes a paired notebook's cells
from its .md) opens the deck with its slides, and a save keeps them.

The save is JupyterLab's own: jupytext's contents manager (what `make lab` runs) loads the pair
and saves the model back, as Ctrl+S or autosave does. Control: the same round trip on a source
without slide metadata loses the slides, the failure this fixes.
"""
from __future__ import annotations

import shutil
from pathlib import Path

import jupytext
import nbformat
import pytest

ROOT = Path(__file__).resolve().parent.parent
from workbook.notebooks import slides  # noqa: E402

MD = ROOT / "chapters" / "ch28" / "28_5_collectives.md"


def _kinds(cells):
    return [c.get("metadata", {}).get("slideshow", {}).get("slide_type", "-") for c in cells]


def test_the_source_carries_the_slide_structure_of_its_executed_twin():
    assert slides.has_slides(MD)
    assert not slides.apply_source(MD, check=True)          # idempotent: nothing left to write
    src = jupytext.read(MD, fmt="md:myst")
    twin = nbformat.read(MD.with_suffix(".ipynb"), as_version=4)
    assert _kinds(src.cells) == _kinds(twin.cells) == slides.slide_types(twin)
    kinds = _kinds(src.cells)
    assert kinds[0] == "slide" and kinds.count("slide") >= 5 and "skip" in kinds   # not one long page


def _lab_round_trip(folder: Path, name: str):
    """Open the paired notebook as JupyterLab with jupytext does, save it back; the saved model's cells."""
    cm_class = pytest.importorskip("jupytext").TextFileContentsManager
    cm = cm_class(root_dir=str(folder))
    model = cm.get(name)
    opened = model["content"]["cells"]
    cm.save(model, name)
    return opened


def test_opening_and_saving_in_the_lab_keeps_the_slides(tmp_path):
    for suffix in (".md", ".ipynb"):
        shutil.copy(MD.with_suffix(suffix), tmp_path / MD.with_suffix(suffix).name)
    opened = _lab_round_trip(tmp_path, MD.with_suffix(".ipynb").name)
    assert _kinds(opened) == slides.slide_types(nbformat.read(MD.with_suffix(".ipynb"), as_version=4))
    saved_md = tmp_path / MD.name
    saved_nb = saved_md.with_suffix(".ipynb")
    assert _kinds(jupytext.read(saved_md, fmt="md:myst").cells) == _kinds(opened)
    assert _kinds(nbformat.read(saved_nb, as_version=4).cells) == _kinds(opened)
    assert not slides.apply(saved_nb, check=True)           # `workbook slides --check` stays green
    assert not slides.apply_source(saved_md, check=True)
    assert slides.main(["--check", str(saved_nb)]) == 0


def test_control_without_the_source_metadata_a_save_loses_the_slides(tmp_path):
    nb = jupytext.read(MD, fmt="md:myst")
    for c in nb.cells:
        c.metadata.pop("slideshow", None)
    (tmp_path / MD.name).write_text(jupytext.writes(nb, fmt="md:myst"), encoding="utf-8")
    shutil.copy(MD.with_suffix(".ipynb"), tmp_path / MD.with_suffix(".ipynb").name)
    opened = _lab_round_trip(tmp_path, MD.with_suffix(".ipynb").name)
    assert set(_kinds(opened)) == {"-"}                      # one long page
    assert slides.apply(tmp_path / MD.with_suffix(".ipynb").name, check=True)   # --check fails


def test_the_command_for_the_other_chapters_adds_only_slide_metadata(tmp_path):
    """`workbook slides --source chapters` (the integrator's one command), on a copy of §28.3's pair:
    every cell's source stays, the slide types match the executed twin's, the twin still matches its
    source's recorded hash, and a second run changes nothing."""
    from workbook.notebooks.nb import cell_sources, sha

    src = ROOT / "chapters" / "ch28" / "28_3_roofline.md"
    for suffix in (".md", ".ipynb"):
        shutil.copy(src.with_suffix(suffix), tmp_path / src.with_suffix(suffix).name)
    md, twin = tmp_path / src.name, tmp_path / src.with_suffix(".ipynb").name
    before = jupytext.read(md, fmt="md:myst")
    assert slides.main(["--source", str(tmp_path)]) == 0
    after = jupytext.read(md, fmt="md:myst")
    assert cell_sources(after) == cell_sources(before)
    def others(cells):   # every metadata key but the slides' own
        return [{k: v for k, v in c.metadata.items() if k != "slideshow"} for c in cells]
    assert others(after.cells) == others(before.cells)
    nb = nbformat.read(twin, as_version=4)
    assert _kinds(after.cells) == slides.slide_types(nb)
    if src.with_suffix(".ipynb").exists() and nbformat.read(src.with_suffix(".ipynb"), as_version=4).metadata.get(
            "fleetcalc", {}).get("source_sha") == sha(src.read_text(encoding="utf-8")):
        assert nb.metadata["fleetcalc"]["source_sha"] == sha(md.read_text(encoding="utf-8"))
    assert slides.main(["--source", "--check", str(tmp_path)]) == 0
