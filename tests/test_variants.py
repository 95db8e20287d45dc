"""lib/workbook/classroom/variants.py: a seeded variant per student of a roster, graded against that student's inputs.

The expected answers come from the answer key (the solution notebooks); what is tested here is
that each student's inputs stay inside the exercise's declared ranges and valid region, differ
between students and from the book, are reproducible from the roster and the seed, that the
student's notebook carries the student's inputs and no answer, and that the grader grades each
submission against its own student's variant.
"""
from __future__ import annotations

import csv
import math
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parent.parent

from workbook.classroom import answer_key
from workbook.classroom import grade
from workbook.classroom import variants
from fleetcalc.core.units import Q_

ROSTER = ["s001", "s002", "s003"]
SET, SEED = "ch28/ex28_08", 7


@pytest.fixture(scope="module")
def issued(tmp_path_factory):
    a = tmp_path_factory.mktemp("variants_a")
    b = tmp_path_factory.mktemp("variants_b")
    rows = variants.issue(ROSTER, SEED, [SET, "ch28/ex28_09_10"], a)
    variants.issue(ROSTER, SEED, [SET, "ch28/ex28_09_10"], b)
    return a, b, rows


def _files(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_same_roster_and_seed_give_byte_identical_files(issued):
    a, b, _ = issued
    assert _files(a) == _files(b)
    assert (a / SET / "s002__ex28_08.ipynb").exists()


def test_each_student_gets_valid_inputs_of_their_own():
    for ex in answer_key.all_exercises().values():
        if not (ex.ranges and ex.answers):
            continue
        seen = set()
        for student in ROSTER:
            inputs = variants.student_inputs(ex, student, SEED)
            assert inputs, f"{ex.id}: no valid variant for {student}"
            for name, v in inputs.items():
                assert variants.in_range(v, ex.ranges[name]), (ex.id, name, v)
            full = {**ex.inputs, **inputs}
            assert variants.acceptable(ex, full)
            assert variants.variant_key(ex, full) != variants.variant_key(ex, ex.inputs)        # not the book's
            seen.add(variants.variant_key(ex, full))
        assert len(seen) >= 2, f"{ex.id}: every student got the same variant"
    assert variants.student_inputs(answer_key.all_exercises()["28.8"], "s001", SEED) != \
        variants.student_inputs(answer_key.all_exercises()["28.8"], "s001", SEED + 1)


def test_the_key_lists_each_students_answers_and_the_notebooks_hold_none(issued):
    a, _, rows = issued
    with open(a / "answer_key.csv", newline="", encoding="utf-8") as f:
        key = list(csv.DictReader(f))
    assert key == [{k: str(v) for k, v in r.items()} for r in rows]
    ex = answer_key.all_exercises()["28.8"]
    for student in ROSTER:
        mine = variants.student_inputs(ex, student, SEED)
        iops, link = mine["iops"].m_as("request/s"), mine["beta_io"].m_as("MiB/s")
        # by hand (Eq. 28.16): min(the student's link, IOPS x 4 KiB) in MiB/s
        small = min(link, iops * 4 / 1024)
        row = next(r for r in key if r["student"] == student and r["part"] == "bw_small")
        assert float(row["answer"]) == pytest.approx(small, rel=1e-9)
        nb = nbformat.read(a / SET / f"{student}__ex28_08.ipynb", as_version=4)
        text = "\n".join(c.source for c in nb.cells)
        assert f"{iops:g}" in text                                  # the student's own input
        assert f"{small:.4g}" not in text and "register(" not in text
        assert nb.metadata["fleetcalc"]["student"] == student


def test_ranges_helpers():
    assert variants.in_range(Q_(30, "s"), (10, 60, 10)) and not variants.in_range(Q_(35, "s"), (10, 60, 10))
    assert not variants.in_range(5, (10, 60))
    with pytest.raises(ValueError, match="lo, hi"):
        variants.parse_range((1,))


def test_grading_uses_each_students_own_variant(issued, tmp_path):
    a, _, _ = issued
    ex = answer_key.all_exercises()["28.8"]
    mine = variants.student_inputs(ex, "s001", SEED)
    iops, link = mine["iops"].m_as("request/s"), mine["beta_io"].m_as("MiB/s")
    small, large = min(link, iops * 4 / 1024), min(link, iops * 1.0)
    nb = nbformat.read(a / SET / "s001__ex28_08.ipynb", as_version=4)
    cell = next(c for c in nb.cells if c.cell_type == "code" and "bw_small = ..." in c.source)
    cell.source = f'bw_small = Q_({small!r}, "MiB/s")\nbw_large = Q_({large!r}, "MiB/s")'
    sub = tmp_path / "subs"
    sub.mkdir()
    nbformat.write(nb, sub / "s001__ex28_08.ipynb")
    nbformat.write(nb, sub / "s002__ex28_08.ipynb")          # s001's answers handed in as s002's
    nbformat.write(nb, sub / "renamed.ipynb")                # no id in the name: the metadata says s001
    del nb.metadata["fleetcalc"]["student"]
    nbformat.write(nb, sub / "nobody.ipynb")
    grade.grade_folder(sub, SET, limit=60, jobs=2, roster=ROSTER, seed=SEED, log=lambda *a: None)
    with open(sub / "grades.csv", newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    score = {n: sum(float(r["score"]) for r in rows if r["submission"] == n) for n in
             ("s001__ex28_08.ipynb", "s002__ex28_08.ipynb", "renamed.ipynb", "nobody.ipynb")}
    other = variants.student_inputs(ex, "s002", SEED)["iops"].m_as("request/s")
    assert score["s001__ex28_08.ipynb"] == 2 and score["renamed.ipynb"] == 2
    assert score["s002__ex28_08.ipynb"] < 2 or math.isclose(other, iops)
    assert [r["status"] for r in rows if r["submission"] == "nobody.ipynb"] == ["unknown-student"]
