"""Variants worth issuing (lib/workbook/classroom/variants.py) and graded without a roster (lib/workbook/classroom/grade.py).

By hand: Exercise 28.8 (Eq. 28.16): a 4 KiB request stream reaches min(link, IOPS x 4 KiB); the
book's link is 1 GiB/s = 1024 MiB/s and 5000 IOPS give 5000 x 4 KiB/s = 19.53125 MiB/s.
"""
from __future__ import annotations

import csv
import json
from pathlib import Path

import nbformat
import pytest

import workbook
from workbook.classroom import answer_key
from workbook.classroom import grade
from workbook.classroom import variants
from fleetcalc.core.units import Q_

KEY = answer_key.all_exercises()
ROSTER200 = [f"u{i:03d}" for i in range(200)]


def test_every_numeric_exercise_is_varied():
    numeric = [ex.id for ex in KEY.values() if ex.answers]
    assert len(numeric) >= 41
    assert [i for i in numeric if not KEY[i].ranges] == []


def test_a_roster_of_200_gets_200_different_input_sets_for_every_exercise():
    for ex in variants.exercises_with_ranges():
        plan = variants.assign(ex, ROSTER200, 2027)
        keys = {variants.variant_key(ex, {**ex.inputs, **inputs}) for inputs, _ in plan.values()}
        assert len(keys) == 200, ex.id
        assert variants.variant_key(ex, ex.inputs) not in keys
        for inputs, skip in list(plan.values())[:20]:
            assert all(variants.in_range(v, ex.ranges[n]) for n, v in inputs.items())
            assert variants.student_inputs(ex, "x", 2027, 0) is not None
    # a student's draw depends only on the students before them: appending keeps every variant
    ex = KEY["28.9"]
    assert variants.assign(ex, ROSTER200[:50], 2027) == dict(list(variants.assign(ex, ROSTER200, 2027).items())[:50])


def test_a_collision_is_redrawn_and_the_skip_recomputes_it():
    ex = KEY["28.11"]
    plan = variants.assign(ex, ROSTER200, 5)
    redrawn = [(s, inp, k) for s, (inp, k) in plan.items() if k]
    assert redrawn, "with 200 students some first draws collide"
    s, inputs, k = redrawn[0]
    assert variants.student_inputs(ex, s, 5, k) == inputs


def test_the_question_text_quotes_the_students_numbers():
    text = "Shrink Example 27.2's checkpoint window from 120 s to 90 s. The 2,048-GPU cluster (NDR, 1.5 μs)."
    out = variants.restate(text, {"window": Q_(90, "s"), "p": 2048, "alpha_ndr": Q_(1.5, "us")},
                           {"window": Q_(540, "s"), "p": 4096, "alpha_ndr": Q_(2.5, "us")})
    assert out == "Shrink Example 27.2's checkpoint window from 120 s to 540 s. The 4,096-GPU cluster (NDR, 2.5 μs)."
    assert variants.restate("a 13B model (13 billion parameters)", {"N": 13e9}, {"N": 5.19e9}) == \
        "a 5.19B model (5.19 billion parameters)"


def test_a_variant_notebook_shows_the_students_numbers_in_question_card_and_panel():
    ex = KEY["28.9"]
    nb, _, overrides = variants.student_notebook("ch28/ex28_09_10", "s001", 7)
    window = overrides["28.9"]["window"].m_as("s")
    assert window != 90
    text = "\n".join(c.source for c in nb.cells if c.cell_type == "markdown")
    assert f"from 120 s to {window:g} s" in text and "to 90 s" not in text
    card = next(c for c in nb.cells if "exercise-card" in c.metadata.get("tags", []))
    assert f"'window': Q_({window:g}" in card.source.replace(".0,", ",") or f"Q_({window!r}" in card.source
    assert card.metadata["jupyter"]["source_hidden"] is True               # the seals stay collapsed
    assert nb.metadata["fleetcalc"]["student"] == "s001" and nb.metadata["fleetcalc"]["seed"] == 7
    # the panel's window knob starts at the exercise's own input (its code reads `window`)
    sol = (workbook.repo_root() / "solutions/ch28/ex28_09_10.md").read_text()
    assert 'knob(window, 10, 900' in sol and 'knob(90,' not in sol


@pytest.fixture(scope="module")
def issued(tmp_path_factory):
    out = tmp_path_factory.mktemp("issued")
    variants.issue(["s001", "s002"], 7, ["ch28/ex28_08"], out)
    return out


def _answered(nb, small, large):
    nb = nbformat.from_dict(nb)
    cell = next(c for c in nb.cells if c.cell_type == "code" and "bw_small = ..." in c.source)
    cell.source = f'bw_small = Q_({small!r}, "MiB/s")\nbw_large = Q_({large!r}, "MiB/s")'
    return nb


@pytest.mark.slow
def test_without_a_roster_variants_are_graded_from_their_notebook_and_it_says_so(issued, tmp_path):
    ex = KEY["28.8"]
    mine = variants.student_inputs(ex, "s001", 7)
    iops, link = mine["iops"].m_as("request/s"), mine["beta_io"].m_as("MiB/s")
    small, large = min(link, iops * 4 / 1024), min(link, iops * 1.0)
    base = nbformat.read(issued / "ch28/ex28_08" / "s001__ex28_08.ipynb", as_version=4)
    sub = tmp_path / "subs"
    sub.mkdir()
    nbformat.write(_answered(base, small, large), sub / "s001__ex28_08.ipynb")
    nbformat.write(_answered(base, 19.53125, 1024.0), sub / "book__ex28_08.ipynb")   # the book's answers
    log = []
    grade.grade_folder(sub, "ch28/ex28_08", limit=60, jobs=2, log=log.append)
    rows = list(csv.DictReader(open(sub / "grades.csv", encoding="utf-8")))
    got = {(r["submission"], r["part"]): r["status"] for r in rows}
    assert got[("s001__ex28_08.ipynb", "bw_small")] == "correct" and got[("s001__ex28_08.ipynb", "bw_large")] == "correct"
    book = {"bw_small": 19.53125, "bw_large": 1024.0}
    differs = [p for p, v in (("bw_small", small), ("bw_large", large)) if abs(v - book[p]) > 1e-3 * book[p]]
    assert differs
    for p in ("bw_small", "bw_large"):
        assert got[("book__ex28_08.ipynb", p)] == ("book-inputs" if p in differs else "correct")
    assert any("no ROSTER= given" in line for line in log)
    fb = (sub / "feedback" / "book__ex28_08.md").read_text(encoding="utf-8")
    assert "no roster was given" in fb and "not your variant's" in fb
    # with the roster and the wrong seed: refused, not graded against other inputs
    grade.grade_folder(sub, "ch28/ex28_08", limit=60, jobs=2, roster=["s001", "s002"], seed=8, log=lambda *a: None,
                       fresh=True)
    rows = list(csv.DictReader(open(sub / "grades.csv", encoding="utf-8")))
    assert {r["status"] for r in rows} == {"variant-mismatch (notebook seed 7, SEED=8)"}


@pytest.mark.slow
def test_gradebooks_canvas_moodle_gradescope(issued, tmp_path):
    ex = KEY["28.8"]
    mine = variants.student_inputs(ex, "s001", 7)
    iops, link = mine["iops"].m_as("request/s"), mine["beta_io"].m_as("MiB/s")
    base = nbformat.read(issued / "ch28/ex28_08" / "s001__ex28_08.ipynb", as_version=4)
    sub = tmp_path / "subs"
    sub.mkdir()
    nbformat.write(_answered(base, min(link, iops * 4 / 1024), 0.5), sub / "s001__ex28_08.ipynb")   # 1 of 2
    roster = tmp_path / "class.csv"
    roster.write_text("id,name,email\ns001,Ada Lovelace,ada@uni.edu\ns002,Alan Turing,alan@uni.edu\n", encoding="utf-8")
    grade.main([str(sub), "--set", "ch28/ex28_08", "--roster", str(roster), "--seed", "7"])
    canvas = list(csv.reader(open(sub / "gradebook_canvas.csv", encoding="utf-8")))
    assert canvas[0] == ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", "ch28/ex28_08 28.8", "ch28/ex28_08 total"]
    assert canvas[1] == ["Points Possible", "", "", "", "", "2", "2"]
    assert canvas[2] == ["Ada Lovelace", "", "s001", "ada@uni.edu", "", "1", "1"]
    assert canvas[3] == ["Alan Turing", "", "s002", "alan@uni.edu", "", "", ""]        # nothing handed in
    moodle = list(csv.reader(open(sub / "gradebook_moodle.csv", encoding="utf-8")))
    assert moodle[0] == ["ID number", "Email address", "Full name", "ch28/ex28_08 28.8", "ch28/ex28_08 total"]
    assert moodle[1] == ["s001", "ada@uni.edu", "Ada Lovelace", "1", "1"]
    gs = json.loads((sub / "gradescope" / "s001__ex28_08.json").read_text(encoding="utf-8"))
    assert gs["score"] == 1 and len(gs["tests"]) == 2
    assert {t["status"] for t in gs["tests"]} == {"passed", "failed"}
    assert all(set(t) >= {"name", "score", "max_score", "status", "output"} for t in gs["tests"])
