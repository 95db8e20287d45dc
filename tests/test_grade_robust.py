"""lib/workbook/classroom/grade.py and sandbox.py: the answer report is parsed strictly, no sandbox means no
grading (unless --trusted), the outputs are written whole, and an interrupted run resumes."""
from __future__ import annotations

import csv
import json
from pathlib import Path

import nbformat
import pytest

from workbook.classroom import grade
from workbook.classroom import sandbox

ROOT = Path(__file__).resolve().parent.parent
SET = "ch28/ex28_08"


@pytest.fixture(scope="module", autouse=True)
def _own_secret(tmp_path_factory):
    """An instructor secret of this module's own (never the machine's)."""
    from workbook.classroom import signing

    with pytest.MonkeyPatch.context() as mp:
        mp.setenv(signing.ENV, str(tmp_path_factory.mktemp("secret") / "secret"))
        yield
NAMES = ["bw_small", "bw_large"]


MIBS = {"mebibyte": 1, "second": -1}


def _report(**over):
    doc = {"v": 2, "values": {"bw_small": {"k": "q", "m": 19.5, "u": MIBS}, "bw_large": {"k": "none"}},
           "errors": [{"cell": 2, "ename": "ZeroDivisionError", "evalue": "division by zero"}], "memory": False}
    doc.update(over)
    return json.dumps(doc).encode()


def test_sandbox_is_available_here():
    ok, why = sandbox.available()
    assert ok, f"grading needs a sandbox and this machine has none: {why}"


def test_a_well_formed_report_is_read():
    values, errors, memory = sandbox.parse_report(_report(), NAMES, 4)
    assert values["bw_small"] == {"k": "q", "m": 19.5, "u": MIBS} and values["bw_large"] == {"k": "none"}
    assert errors[0]["cell"] == 2 and memory is False


@pytest.mark.parametrize("raw", [
    b"not json", b"\xff\xfe", b"[]", _report(v=1), _report(score=2), _report(status="correct"),
    _report(values={"bw_small": {"k": "n", "m": 1}}),                                   # a name missing
    _report(values={"bw_small": {"k": "n", "m": 1}, "bw_large": {"k": "n", "m": 1}, "other": {"k": "none"}}),
    _report(values={"bw_small": {"k": "n", "m": "19.5"}, "bw_large": {"k": "none"}}),  # a string magnitude
    _report(values={"bw_small": {"k": "n", "m": True}, "bw_large": {"k": "none"}}),
    _report(values={"bw_small": {"k": "q", "m": 1, "u": "MiB/s"}, "bw_large": {"k": "none"}}),     # a unit as text
    _report(values={"bw_small": {"k": "q", "m": 1, "u": {"x" * 41: 1}}, "bw_large": {"k": "none"}}),
    _report(values={"bw_small": {"k": "q", "m": 1, "u": {"byte": 9 ** 9}}, "bw_large": {"k": "none"}}),
    _report(values={"bw_small": {"k": "q", "m": 1, "u": {"byte": 0.5}}, "bw_large": {"k": "none"}}),
    _report(values={"bw_small": {"k": "q", "m": 1, "u": {f"u{i}": 1 for i in range(9)}}, "bw_large": {"k": "none"}}),
    _report(values={"bw_small": {"k": "correct"}, "bw_large": {"k": "none"}}),
    _report(values={"bw_small": {"k": "none", "score": 2}, "bw_large": {"k": "none"}}),
    _report(errors=[{"cell": 99, "ename": "E", "evalue": ""}]),
    _report(errors=[{"cell": 1, "ename": "not a name!", "evalue": ""}]),
    _report(memory="no"),
    b'{"v": 2, "values": {"bw_small": {"k": "n", "m": NaN}, "bw_large": {"k": "none"}}, "errors": [], "memory": false}',
    b'{"v": 2, "values": {"bw_small": {"k": "n", "m": Infinity}, "bw_large": {"k": "none"}}, "errors": [], "memory": false}',
    b'{"v": 2, "values": {"bw_small": {"k": "n", "m": 1' + b"0" * 5000 + b'}, "bw_large": {"k": "none"}}, "errors": [], "memory": false}',
    b"[" * 100_000 + b"]" * 100_000,
    b" " * (2 << 20),
])
def test_anything_else_is_refused(raw):
    with pytest.raises(sandbox.BadReport):
        sandbox.parse_report(raw, NAMES, 4)


def _folder(tmp_path, n=2):
    base = nbformat.read(ROOT / "exercises" / f"{SET}.ipynb", as_version=4)
    for i in range(n):
        nb = nbformat.from_dict(base)
        cell = next(c for c in nb.cells if c.cell_type == "code" and "bw_small = ..." in c.source)
        cell.source = 'bw_small = Q_(19.53125, "MiB/s")\nbw_large = Q_(1024, "MiB/s")'
        nbformat.write(nb, tmp_path / f"s{i}.ipynb")
    return tmp_path


def test_no_sandbox_no_grading_unless_trusted(tmp_path, monkeypatch):
    d = _folder(tmp_path, 1)
    monkeypatch.setattr(sandbox, "available", lambda: (False, "bubblewrap (bwrap) is not installed; " + sandbox.HOW_TO))
    with pytest.raises(SystemExit, match="refusing to run submitted notebooks without a sandbox.*--trusted"):
        grade.grade_folder(d, SET, limit=30, log=lambda *a: None)
    assert not (d / "grades.csv").exists()
    rows = grade.grade_folder(d, SET, limit=30, trusted=True, log=lambda *a: None)
    assert {r["status"] for r in rows} == {"correct"}


def test_outputs_elsewhere_and_a_rerun_replaces_every_row(tmp_path):
    (tmp_path / "subs").mkdir()
    d = _folder(tmp_path / "subs")
    out = tmp_path / "out"
    log = []
    grade.grade_folder(d, SET, limit=30, out=out, log=log.append)
    first = (out / "grades.csv").read_text(encoding="utf-8")
    assert not (d / "grades.csv").exists() and (out / "feedback" / "s0.md").is_file()
    assert "all 2 submitted file(s) unchanged (sha256)" in log[-1]
    grade.grade_folder(d, SET, limit=30, out=out, log=log.append)
    assert (out / "grades.csv").read_text(encoding="utf-8") == first
    assert not [p for p in out.iterdir() if p.name.endswith(".tmp")]


def test_an_interrupted_run_resumes_from_its_journal(tmp_path, monkeypatch):
    d = _folder(tmp_path)
    grade.grade_folder(d, SET, limit=30, log=lambda *a: None)          # the journal a finished run leaves: none
    assert not (d / grade.JOURNAL).exists()
    with open(d / "grades.csv", newline="", encoding="utf-8") as f:
        assert len(list(csv.DictReader(f))) == 4
    # a run that stopped after s0: its journal line (authenticated, same settings), then a cut-off line
    seen = {}
    real_journal = grade.Journal

    class Spy(real_journal):
        def __init__(self, *a):
            super().__init__(*a)
            seen["j"] = self
    monkeypatch.setattr(grade, "Journal", Spy)
    monkeypatch.setattr(grade, "execute_submission", lambda *a, **k: (_ for _ in ()).throw(KeyboardInterrupt()))
    with pytest.raises(KeyboardInterrupt):
        grade.grade_folder(d, SET, limit=30, log=lambda *a: None, jobs=1)
    j = seen["j"]
    done = {"rows": [dict(exercise="28.8", part=p, score=0, max_score=1, status="from-journal", message="j")
                     for p in NAMES], "errors": []}
    sha = grade._sha256((d / "s0.ipynb").read_bytes())
    (d / grade.JOURNAL).unlink()
    j.f = None
    j.write("done", "s0.ipynb", sha, done)
    with open(d / grade.JOURNAL, "ab") as f:
        f.write(b'0123 {"settings": "')
    ran = []
    monkeypatch.undo()
    real = grade.execute_submission
    monkeypatch.setattr(grade, "execute_submission", lambda nb, *a, **k: ran.append(1) or real(nb, *a, **k))
    rows = grade.grade_folder(d, SET, limit=30, log=lambda *a: None)
    assert len(ran) == 1                                               # s1 only
    assert {r["submission"]: r["status"] for r in rows if r["part"] == "bw_small"} == {
        "s0.ipynb": "from-journal", "s1.ipynb": "correct"}
    assert not (d / grade.JOURNAL).exists()


def test_a_crash_of_the_grader_on_one_submission_is_its_row(tmp_path, monkeypatch):
    d = _folder(tmp_path)

    def boom(nb, *a, **k):
        raise RuntimeError("grader bug")
    monkeypatch.setattr(grade, "execute_submission", boom)
    rows = grade.grade_folder(d, SET, limit=30, log=lambda *a: None)
    assert [r["status"] for r in rows] == ["grader-error", "grader-error"]
