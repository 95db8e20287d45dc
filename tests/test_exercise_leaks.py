"""Student notebooks hold no graded value, and every question of a solution reaches its student.

The leak scan computes every graded part of every exercise set from the answer key (the solution
notebooks' ``answer-key`` cells, run by ``lib/workbook/classroom/answer_key.py``) and looks for it in the student
notebook's sources, outputs and saved widget state: in the part's unit and the other common units
of its dimension, at 3 to 6 significant digits, as a token (not as digits inside a longer number).
A value that the question itself must state (it appears in the solution's visible question text,
e.g. "step 100 commits cleanly", or among the exercise's inputs, e.g. MACs per token = N) is not a
leak and is skipped.
"""
from __future__ import annotations

import json
import re
from pathlib import Path

import jupytext
import nbformat
import pytest

ROOT = Path(__file__).resolve().parent.parent

from workbook.classroom import answer_key
from fleetcalc.ui.exercises import magnitude_in
from fleetcalc.core.units import Q_

SETS = answer_key.load()

# Common units per dimensionality: a value must not appear converted either (17.57 ms = 0.01757 s).
FAMILIES = [
    ["s", "ms", "us", "ns", "min", "hour", "day"],
    ["byte", "kB", "MB", "GB", "TB", "KiB", "MiB", "GiB", "TiB", "bit", "Gb", "Tb"],
    ["byte/s", "kB/s", "MB/s", "GB/s", "TB/s", "KiB/s", "MiB/s", "GiB/s", "TiB/s", "Gb/s", "Tb/s"],
    ["W", "kW", "MW", "GW"], ["J", "kJ", "MJ", "kWh", "MWh", "pJ", "nJ"],
    ["FLOP", "GFLOP", "TFLOP", "PFLOP", "EFLOP"], ["FLOP/s", "GFLOP/s", "TFLOP/s", "PFLOP/s", "EFLOP/s"],
    ["m", "km", "cm"],
]


def _spellings(x: float) -> set[str]:
    out = set()
    for sig in range(3, 7):
        s = f"{x:.{sig}g}"
        if "e" in s:
            mant, exp = s.split("e")
            out |= {f"{mant}e{int(exp)}", f"{mant}e{exp}", f"{mant}×10^{int(exp)}"}
        out.add(s)
        if "." in s:
            out.add(s.rstrip("0").rstrip("."))
        f = f"{x:,.{max(0, sig - len(str(int(abs(x)))))}f}" if abs(x) >= 1000 else None
        if f:
            out.add(f)
    return {s for s in out if len(s.replace(".", "").replace("-", "").lstrip("0")) >= 2 or "." in s}


def graded_values(set_name: str) -> dict[str, set[str]]:
    """part label -> every spelling of its answer, in its unit and the common units of its kind."""
    found = {}
    for ex_id, ex in SETS[set_name].items():
        for part, a in ex.answers.items():
            q = ex.expected(part)
            values = {magnitude_in(q, a.unit)}
            unit_q = Q_(1, a.unit or "dimensionless")
            for fam in FAMILIES:
                if unit_q.dimensionality == Q_(1, fam[0]).dimensionality:
                    values |= {float(Q_(magnitude_in(q, a.unit), a.unit).m_as(u)) for u in fam}
            if not a.unit:
                values.add(100 * values.copy().pop())           # a share printed as a percentage
            spell = set()
            for v in values:
                if v != 0 and abs(v) not in (1.0,):
                    spell |= _spellings(v)
            found[f"{ex_id}:{part}"] = spell
    return found


def _question_text(set_name: str) -> str:
    nb = jupytext.read(ROOT / "solutions" / f"{set_name}.md", fmt="md:myst")
    return "\n".join(c.source for c in nb.cells if c.cell_type == "markdown"
                     and not set(c.metadata.get("tags", [])) & {"solution", "rubric"})


def _student_text(path: Path) -> str:
    nb = nbformat.read(path, as_version=4)
    parts = [json.dumps(nb.metadata.get("widgets", {}))]
    for c in nb.cells:
        parts.append(c.source)
        for o in c.get("outputs", []):
            parts.append(json.dumps(o.get("data", {})) + o.get("text", "") + str(o.get("evalue", "")))
    return "\n".join(parts)


def _hits(text: str, spellings: set[str]) -> list[str]:
    hits = []
    for s in spellings:
        if re.search(rf"(?<![\w.])(?<!\d,){re.escape(s)}(?![\w]|[.,]\d)", text):
            hits.append(s)
    return hits


STUDENT = sorted((ROOT / "exercises").rglob("*.ipynb"))


def _set_of(path: Path) -> str:
    return path.relative_to(ROOT / "exercises").with_suffix("").as_posix()


@pytest.mark.parametrize("path", STUDENT, ids=lambda p: _set_of(p))
def test_no_graded_value_in_a_student_notebook(path):
    s = _set_of(path)
    text = _student_text(path) + "\n" + path.with_suffix(".md").read_text(encoding="utf-8")
    # the question's own text and the exercise's inputs are public by design
    allowed = _question_text(s) + "\n".join(re.findall(r"inputs=\{[^\n]*\}", text))
    public = set()
    for ex in SETS[s].values():
        for v in ex.inputs.values():
            m = getattr(v, "magnitude", v)
            if isinstance(m, (int, float)) and not isinstance(m, bool) and m:
                public |= _spellings(float(m))
    leaks = {}
    for part, spellings in graded_values(s).items():
        hits = [h for h in _hits(text, spellings) if not _hits(allowed, {h}) and h not in public]
        if hits:
            leaks[part] = sorted(hits)
    assert not leaks, f"{path.relative_to(ROOT)} shows graded answers: {leaks}"


def test_the_scan_finds_a_planted_leak():
    # Exercise 28.9's cluster bandwidth, 2 TiB over 90 s = 22.756 GiB/s (book's reference solution),
    # planted as seconds-per-byte-free spellings in other units: it must be found.
    spell = graded_values("ch28/ex28_09_10")["28.9:beta_cluster"]
    assert _hits("the cluster needs 22.76 GiB/s", spell)
    assert _hits("that is 24.43 GB/s", spell)            # 22.756 GiB/s in GB/s
    assert not _hits("a 22.7 kW rack and 122.756 m", spell)


def test_no_answer_key_in_the_student_namespace():
    import fleetcalc.notebook as facade

    assert "expected" not in facade.__all__ and not hasattr(facade, "expected")
    with pytest.raises(ImportError):
        __import__("fleetcalc.exercise_bank")
    for path in STUDENT:
        text = path.with_suffix(".md").read_text(encoding="utf-8")
        assert "answer-key" not in text and "register(" not in text and "Answer(" not in text, path


# ----------------------------------------------------------------------------- every prompt present

def _solution_prompts(set_name: str) -> list[str]:
    """Headings and question paragraphs of a solution: visible text, and headings that share a
    markdown cell with a model answer (the next question's heading)."""
    nb = jupytext.read(ROOT / "solutions" / f"{set_name}.md", fmt="md:myst")
    out = []
    for c in nb.cells:
        if c.cell_type != "markdown":
            continue
        tags = set(c.metadata.get("tags", []))
        if tags & {"rubric"}:
            continue
        text = c.source
        if "solution" in tags:
            m = re.search(r"^#{1,6} ", text, re.M)
            if not m:
                continue
            text = text[m.start():]
        out += [p.strip() for p in re.split(r"\n\s*\n", text) if p.strip()]
    return out


@pytest.mark.parametrize("path", STUDENT, ids=lambda p: _set_of(p))
def test_every_question_of_the_solution_is_in_the_student_notebook(path):
    student = "\n".join(c.source for c in nbformat.read(path, as_version=4).cells if c.cell_type == "markdown")
    missing = [p[:80] for p in _solution_prompts(_set_of(path)) if p not in student]
    assert not missing, f"{path.relative_to(ROOT)} lacks: {missing}"


def test_a_heading_sharing_a_cell_with_a_model_answer_survives():
    # solutions/v2_ch1/ex_v2_1_04_questions.md has five questions (Q1-Q5), each heading at the end of
    # the previous model answer's cell.
    text = (ROOT / "exercises/v2_ch1/ex_v2_1_04_questions.md").read_text(encoding="utf-8")
    assert len(re.findall(r"^## Q\d\.", text, re.M)) == 5


@pytest.mark.parametrize("path", STUDENT, ids=lambda p: _set_of(p))
def test_panels_are_closed_and_come_after_their_checks(path):
    cells = nbformat.read(path, as_version=4).cells
    for i, c in enumerate(cells):
        if c.cell_type != "code":
            continue
        assert not re.search(r"(?<![\w.])panel\(", c.source), f"an open panel in {path.name}: {c.source[:60]}"
        if "answer_first(" in c.source:
            assert "prompt=''" not in c.source, f"{path.name}: a panel without its prediction prompt"
        m = re.search(r"answer_first\('([^']+)'", c.source)
        if m:
            later = [k for k, d in enumerate(cells) if f'check("{m.group(1)}"' in d.source and k > i]
            assert not later, f"{path.name}: the panel of {m.group(1)} comes before its check cell"



def test_every_exercise_panel_opens_with_a_prompt_and_a_main_knob():
    for md in answer_key.solution_sources():
        text = md.read_text(encoding="utf-8")
        for m in re.finditer(r"(?<![\w.])panel\((.*?)\n```", text, re.S):
            assert "prompt=" in m.group(1) and "main=" in m.group(1), f"{md.name}: {m.group(1)[:60]}"


@pytest.mark.parametrize("path", STUDENT, ids=lambda p: _set_of(p))
def test_saved_widget_state_holds_only_the_closed_panels(path):
    nb = json.loads(path.read_text(encoding="utf-8"))
    state = nb["metadata"].get("widgets", {}).get("application/vnd.jupyter.widget-state+json", {}).get("state", {})
    models = {v["model_name"] for v in state.values()}
    allowed = {"LayoutModel", "VBoxModel", "ButtonStyleModel", "ButtonModel", "HTMLModel", "HTMLStyleModel",
               "OutputModel"}
    assert models <= allowed, f"{path.name}: saved widget state beyond the closed panels: {models - allowed}"


def test_every_graded_part_is_asked_and_checked():
    """Each graded part is assigned in a solution region of its set and has a check() cell in the
    student notebook, with a `name = ...` stub to fill in."""
    for s, exs in SETS.items():
        sol = (ROOT / "solutions" / f"{s}.md").read_text(encoding="utf-8")
        regions = "\n".join(re.findall(r"# BEGIN SOLUTION\n(.*?)# END SOLUTION", sol, re.S))
        student = (ROOT / "exercises" / f"{s}.md").read_text(encoding="utf-8")
        for ex_id, ex in exs.items():
            for part in ex.answers:
                assert re.search(rf"^\s*{part}\s*=", regions, re.M), f"{s}: {ex_id} {part} not in a solution region"
                assert f'check("{ex_id}", "{part}", {part})' in student, f"{s}: no check of {ex_id} {part}"
                assert re.search(rf"^\s*{part} = \.\.\.  # your answer", student, re.M), f"{s}: no stub for {part}"
