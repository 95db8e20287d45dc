"""lib/workbook/classroom/grade.py: a folder of submissions, honest and hostile, graded by the grader's own key.

Exercise 28.8 (Ch. 28; solutions/ch28/ex28_08.md): link roof 1 GiB/s, 5000 IOPS. By hand,
4 KiB requests reach 5000 x 4 KiB/s = 19.53125 MiB/s (the IOPS roof binds) and 1 MiB requests
would reach 5000 MiB/s, so the 1 GiB/s = 1024 MiB/s link binds.
"""
from __future__ import annotations

import csv
import shutil
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parent.parent

from workbook.classroom import grade

SET = "ch28/ex28_08"


@pytest.fixture(scope="module", autouse=True)
def _own_secret(tmp_path_factory):
    """An instructor secret of this module's own (never the machine's)."""
    from workbook.classroom import signing

    with pytest.MonkeyPatch.context() as mp:
        mp.setenv(signing.ENV, str(tmp_path_factory.mktemp("secret") / "secret"))
        yield
BW_SMALL, BW_LARGE = 19.53125, 1024.0      # MiB/s, by hand (module docstring)


def _student() -> nbformat.NotebookNode:
    return nbformat.read(ROOT / "exercises" / f"{SET}.ipynb", as_version=4)


def _answer_cell(nb):
    return next(c for c in nb.cells if c.cell_type == "code" and "bw_small = ..." in c.source)


def _with(nb, *, answer: str | None = None, before: str | None = None):
    nb = nbformat.from_dict(nb)
    if answer is not None:
        _answer_cell(nb).source = answer
    if before is not None:
        k = next(i for i, c in enumerate(nb.cells) if c.cell_type == "code") + 1
        nb.cells.insert(k, nbformat.v4.new_code_cell(before))
    return nb


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    d = tmp_path_factory.mktemp("submissions")
    shutil.copy(ROOT / "solutions" / f"{SET}.ipynb", d / "solution_as_is.ipynb")
    base = _student()
    nbformat.write(base, d / "unanswered.ipynb")
    right = f'bw_small = Q_({BW_SMALL}, "MiB/s")\nbw_large = Q_({BW_LARGE / 1024}, "GiB/s")'
    nbformat.write(_with(base, answer=right), d / "honest.ipynb")
    nbformat.write(_with(base, before='def check(*a, **k):\n    print("✓ correct")',
                         answer='bw_small = 1\nbw_large = 2\ncheck("28.8", "bw_small", bw_small)'),
                   d / "redefines_check.ipynb")
    nbformat.write(_with(base, before='print("✓ Exercise 28.8, bound at 4 KiB: correct.")'), d / "prints_tick.ipynb")
    nbformat.write(_with(base, before=(
        "import fleetcalc.physics.storage, fleetcalc.ui.exercises\n"
        "fleetcalc.physics.storage.effective_bandwidth = lambda *a, **k: Q_(3, 'MiB/s')\n"
        "fleetcalc.ui.exercises.judge = lambda *a, **k: fleetcalc.ui.exercises.Result('correct', '✓')"),
        answer='bw_small = Q_(3, "MiB/s")\nbw_large = Q_(3, "MiB/s")'), d / "monkeypatches.ipynb")
    nbformat.write(_with(base, answer=f'bw_small = Q_({BW_SMALL}, "MiB/s")\n1 / 0\nbw_large = 1024'),
                   d / "raises.ipynb")
    nbformat.write(_with(base, before="while True:\n    pass"), d / "loops.ipynb")
    nbformat.write(_with(base, before="import os\nos._exit(3)"), d / "kills_its_kernel.ipynb")
    (d / "not_json.ipynb").write_text("{this is not json", encoding="utf-8")
    nbformat.write(nbformat.v4.new_notebook(), d / "empty.ipynb")
    shutil.copy(ROOT / "exercises" / "ch28" / "ex28_09_10.ipynb", d / "other_set.ipynb")
    grade.grade_folder(d, SET, limit=25, jobs=2, log=lambda *a: None)
    with open(d / "grades.csv", newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    return d, rows


def _by(rows, name):
    return {r["part"]: r for r in rows if r["submission"] == name}


def _score(rows, name):
    return sum(float(r["score"]) for r in rows if r["submission"] == name)


def test_columns_are_exactly_the_documented_ones(graded):
    d, _ = graded
    header = (d / "grades.csv").read_text(encoding="utf-8").splitlines()[0]
    assert header == "submission,exercise,part,score,max_score,status"


def test_solution_scores_full_and_unanswered_scores_zero(graded):
    _, rows = graded
    assert _score(rows, "solution_as_is.ipynb") == 2
    assert {r["status"] for r in _by(rows, "solution_as_is.ipynb").values()} == {"correct"}
    assert _score(rows, "unanswered.ipynb") == 0
    assert {r["status"] for r in _by(rows, "unanswered.ipynb").values()} == {"unanswered"}
    assert _score(rows, "honest.ipynb") == 2          # another unit (GiB/s) is converted, not refused


@pytest.mark.parametrize("name", ["redefines_check.ipynb", "prints_tick.ipynb", "monkeypatches.ipynb"])
def test_tricks_gain_nothing(graded, name):
    _, rows = graded
    assert _score(rows, name) == 0
    assert set(_by(rows, name)) == {"bw_small", "bw_large"}


def test_a_raising_cell_keeps_what_was_answered(graded):
    _, rows = graded
    r = _by(rows, "raises.ipynb")
    assert r["bw_small"]["status"] == "correct"
    assert r["bw_large"]["status"].startswith("error: ZeroDivisionError in cell")


@pytest.mark.parametrize("name,status", [("loops.ipynb", "timeout"), ("not_json.ipynb", "invalid-json"),
                                         ("kills_its_kernel.ipynb", "kernel-failed"),
                                         ("empty.ipynb", "empty"),
                                         ("other_set.ipynb", "other-exercise-set (ch28/ex28_09_10)")])
def test_broken_submissions_get_one_row_with_a_clear_status(graded, name, status):
    _, rows = graded
    mine = [r for r in rows if r["submission"] == name]
    assert len(mine) == 1 and mine[0]["status"] == status and mine[0]["score"] == "0"
    assert mine[0]["max_score"] == "2"


def test_every_submission_has_rows_and_feedback(graded):
    d, rows = graded
    names = sorted(p.name for p in d.glob("*.ipynb"))
    assert sorted({r["submission"] for r in rows}) == names
    fb = (d / "feedback" / "redefines_check.md").read_text(encoding="utf-8")
    assert "Score: **0 / 2**" in fb and "Revisit" in fb           # the hint check() gives
    assert "ZeroDivisionError" in (d / "feedback" / "raises.md").read_text(encoding="utf-8")
    # the endless loop was inserted as the second code cell: the timeout names it
    assert "still running code cell 2 of" in (d / "feedback" / "loops.md").read_text(encoding="utf-8")


def test_roster_ids_and_bad_rosters(tmp_path):
    (tmp_path / "r.csv").write_text("id,name\ns001,A\ns002,B\n", encoding="utf-8")
    assert grade.read_roster(tmp_path / "r.csv") == ["s001", "s002"]
    (tmp_path / "dup.csv").write_text("id\ns001\ns001\n", encoding="utf-8")
    with pytest.raises(ValueError, match="twice"):
        grade.read_roster(tmp_path / "dup.csv")


def test_a_file_name_never_picks_the_student(tmp_path):
    """The student comes from the LMS's uploader or from the signed metadata the notebook was issued
    with; a name the student typed can only refuse (identity-conflict), never choose."""
    ids = grade.Identities(["s001", "s002"], {"s001": {"canvas_id": "4242"}, "s002": {"canvas_id": "77"}})
    sub = grade.Submission("s002__ex28_08.ipynb", tmp_path / "x")
    assert grade._identity(sub, {}, False, ids, ids.ids)[2][0] == "unknown-student"
    assert grade._identity(sub, {"student": "s001"}, True, ids, ids.ids)[2][0] == "identity-conflict"
    sub = grade.Submission("smith_s001_attempt.ipynb", tmp_path / "x")
    assert grade._identity(sub, {}, False, ids, ids.ids)[2][0] == "unknown-student"
    assert grade._identity(sub, {"student": "s002"}, True, ids, ids.ids) == ("s002", "issued", None)
    # a Canvas download: the user id Canvas put in the name is the uploader, whatever the student called the file
    sub = grade.Submission("lovelaceada_4242_991_s002__ex28_08.ipynb", tmp_path / "x", canvas="4242")
    assert grade._identity(sub, {}, False, ids, ids.ids) == ("s001", "lms", None)
    assert grade.canvas_user("lovelaceada_late_4242_991_s002__ex28_08.ipynb") == "4242"
    assert grade.canvas_user("s002__ex28_08.ipynb") is None


def test_bad_options_are_refused(tmp_path):
    with pytest.raises(SystemExit, match="not a folder"):
        grade.grade_folder(tmp_path / "nope")
    with pytest.raises(SystemExit, match="timeout"):
        grade.grade_folder(tmp_path, limit=0)
    with pytest.raises(SystemExit, match="not an exercise set"):
        grade.grade_folder(tmp_path, "ch28/nope")
