"""Every chapter notebook reads as a lesson: a path in, diagrams, prompts on panels, a way out.

Conventions (CONTRIBUTING.md, "A section notebook"): the opening cell names learning objectives,
what to know first and the time it takes; a section closes with takeaways and 2-3 self-check
questions whose answers open on click (``<details>``); every panel opens with a prediction
prompt; arithmetic-only checks sit in folded ``numbers-checked`` cells; links between notebooks
resolve; Chapter 28 and Vol. 2 link to each other where they teach the same idea.
"""
from __future__ import annotations

import ast
import re
from pathlib import Path

import jupytext
import pytest

ROOT = Path(__file__).resolve().parent.parent
CHAPTERS = sorted(p for p in (ROOT / "chapters").rglob("*.md") if p.parent != ROOT / "chapters")
SECTIONS = [p for p in CHAPTERS if not p.name.startswith("00_")]
def _generated_pages():
    from workbook.site.reference_pages import PAGES
    return set(PAGES)


GENERATED_PAGES = _generated_pages()
LINK = re.compile(r"\]\(([^)#\s]+\.(?:ipynb|md))(?:#[^)]*)?\)")


def _nb(path):
    return jupytext.read(path)


def _markdown(nb):
    return [c.source for c in nb.cells if c.cell_type == "markdown"]


def _code(nb):
    return [c for c in nb.cells if c.cell_type == "code"]


def _id(p):
    return str(p.relative_to(ROOT))


INTROS = [p for p in CHAPTERS if p.name.startswith("00_")]


@pytest.mark.parametrize("path", INTROS, ids=_id)
def test_chapter_intro_maps_every_section(path):
    text = "\n".join(_markdown(_nb(path)))
    linked = {Path(t).stem for t in LINK.findall(text)}
    sections = {p.stem for p in path.parent.glob("*.md") if not p.name.startswith("00_")}
    assert sections <= linked, f"{_id(path)}: the chapter map misses {sorted(sections - linked)}"


@pytest.mark.parametrize("path", SECTIONS, ids=_id)
def test_opening_names_objectives_prerequisites_and_time(path):
    opening = "\n".join(_markdown(_nb(path))[:2])
    for lead in ("**Learning objectives.**", "**Before you start:**", "**Time:**"):
        assert lead in opening, f"{_id(path)}: the opening lacks {lead}"
    assert re.search(r"\*\*Time:\*\* about \d+", opening), f"{_id(path)}: say the time in minutes"


@pytest.mark.parametrize("path", SECTIONS, ids=_id)
def test_closes_with_takeaways_and_self_check(path):
    text = "\n".join(_markdown(_nb(path)))
    assert "## Takeaways" in text, f"{_id(path)}: no takeaways"
    assert "## Self-check" in text, f"{_id(path)}: no self-check"
    tail = text[text.index("## Self-check"):]
    n = tail.count("<details>")
    assert 2 <= n <= 4, f"{_id(path)}: {n} self-check answers (want 2-3)"
    assert tail.count("</details>") == n and tail.count("<summary>") == n


def _panel_calls(source):
    src = "\n".join(l for l in source.splitlines() if not l.lstrip().startswith(("%", "!")))
    tree = ast.parse(src)
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "panel":
            yield node


@pytest.mark.parametrize("path", CHAPTERS, ids=_id)
def test_every_panel_opens_with_a_prediction_prompt(path):
    for cell in _code(_nb(path)):
        for call in _panel_calls(cell.source):
            kw = {k.arg for k in call.keywords}
            assert "prompt" in kw, f"{_id(path)}: a panel without prompt= (line {call.lineno} of its cell)"


def test_at_least_fifteen_diagrams_drawn_by_the_library():
    cells = [(p, c) for p in CHAPTERS for c in _code(_nb(p)) if "diagram" in c.metadata.get("tags", [])]
    assert len(cells) >= 15, f"{len(cells)} diagram cells"
    for p, c in cells:
        assert "show(" in c.source, f"{_id(p)}: a diagram cell that does not show a figure"


@pytest.mark.parametrize("path", CHAPTERS, ids=_id)
def test_folded_check_cells_hold_checks(path):
    for cell in _code(_nb(path)):
        tags = cell.metadata.get("tags", [])
        if "numbers-checked" in tags:
            assert "book_says" in cell.source, f"{_id(path)}: a numbers-checked cell without book_says"
            assert "hide-input" in tags and "hide-output" in tags, f"{_id(path)}: fold it on the site"


@pytest.mark.parametrize("path", CHAPTERS, ids=_id)
def test_links_between_notebooks_resolve(path):
    for md in _markdown(_nb(path)):
        for target in LINK.findall(md):
            if target.startswith(("http:", "https:")):
                continue
            t = (path.parent / target).resolve()
            if t.relative_to(ROOT).as_posix() in GENERATED_PAGES:
                continue                      # a site page the site build writes (reference/formulas-<ch>.md)
            assert t.exists() or t.with_suffix(".md").exists(), f"{_id(path)}: broken link {target}"


# Chapter 28 and Vol. 2 teach these ideas twice; each side links to the other.
PAIRS = [
    ("ch28/28_3_roofline", "v2_ch2/2_3_roofline_tensor_cores"),
    ("ch28/28_5_collectives", "v2_ch3/3_4_transport_alpha_beta"),
    ("ch28/28_9_reliability_power_cost", "v2_ch1/1_6_reliability_gap"),
    ("ch28/28_4_host_pipeline", "v2_ch2/2_5_node_bandwidth"),
    ("ch28/28_5_collectives", "v2_ch3/3_5_switches_topology"),
    ("ch28/28_2_accelerator", "v2_ch2/2_1_accelerator_spectrum"),
]


@pytest.mark.parametrize("a,b", PAIRS)
def test_cross_links_both_ways(a, b):
    def links(name):
        nb = _nb(ROOT / "chapters" / f"{name}.md")
        return {(ROOT / "chapters" / name).parent.joinpath(t).resolve().with_suffix("")
                for md in _markdown(nb) for t in LINK.findall(md)}
    assert (ROOT / "chapters" / b).resolve() in links(a), f"{a} does not link to {b}"
    assert (ROOT / "chapters" / a).resolve() in links(b), f"{b} does not link to {a}"
