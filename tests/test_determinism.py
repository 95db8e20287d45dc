"""Executing a notebook twice gives identical outputs where nbval compares them.

Two or three representative notebooks (the roofline exemplar, one solution notebook, one Vol. 2
chapter) are read from their MyST sources and executed twice in fresh kernels (in memory: the
repo's .ipynb files are never written). For every code cell not tagged ``nbval-ignore-output``
/ ``nbval-skip``, the outputs nbval compares (stream text, ``text/plain``, ``text/html`` and
other non-image MIME types; widget views and PNGs are skipped as nbval skips them) must be
identical: no timestamps, memory addresses, timings or unseeded randomness.
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
from workbook.notebooks import nb

SKIP_TAGS = {"nbval-ignore-output", "nbval-skip", "raises-exception"}
SKIP_MIME = {"image/png", "image/jpeg", "application/vnd.jupyter.widget-view+json"}


def representatives() -> list[Path]:
    picks = []
    for pattern in ("chapters/ch28/28_3_roofline.md", "solutions/ch28/ex28_02_03.md", "chapters/v2_ch1/*.md",
                    "chapters/v2_ch2/*.md"):
        found = sorted(p for p in ROOT.glob(pattern) if p.name != "00_intro.md")
        if found and len(picks) < 3:
            picks.append(found[0])
    return picks


def compared_outputs(book) -> list[tuple[int, list]]:
    """(cell index, outputs as nbval sees them) for every cell nbval compares."""
    cells = []
    for i, cell in enumerate(book.cells):
        if cell.cell_type != "code" or SKIP_TAGS & set(cell.metadata.get("tags", [])):
            continue
        if re.search(r"#\s*NBVAL_(IGNORE_OUTPUT|SKIP)", cell.source):
            continue
        outs = []
        for o in cell.get("outputs", []):
            if o.output_type == "stream":  # nbval coalesces consecutive stream chunks: so do we
                if outs and outs[-1][0] == o.name:
                    outs[-1] = (o.name, outs[-1][1] + o.text)
                else:
                    outs.append((o.name, o.text))
            elif o.output_type in ("execute_result", "display_data"):
                outs.append(tuple(sorted((k, str(v)) for k, v in o.data.items() if k not in SKIP_MIME)))
            elif o.output_type == "error":
                outs.append(("error", o.ename, o.evalue))
        cells.append((i, outs))
    return cells


@pytest.mark.parametrize("source", representatives(), ids=lambda p: p.relative_to(ROOT).as_posix())
def test_two_executions_give_identical_outputs(source):
    runs = []
    for _ in range(2):
        book = nb.read_md(source)
        nb.execute_notebook(book, source.parent, timeout=300)
        runs.append(compared_outputs(book))
    first, second = runs
    assert [i for i, _ in first] == [i for i, _ in second]
    diffs = [f"cell {i}:\n  run 1: {a!r}\n  run 2: {b!r}" for (i, a), (_, b) in zip(first, second) if a != b]
    assert not diffs, "outputs differ between two executions:\n" + "\n".join(diffs)
    assert any(outs for _, outs in first), "no compared output at all: is the notebook tagged wholesale?"
