"""Exercises survive Run All: every exercise notebook is run top to bottom, then each exercise's
model solution (its ``# BEGIN SOLUTION`` region, i.e. the hint's formula written out) is run against
the variables as they stand, and every part must pass. A later exercise that rebinds an earlier
one's inputs (``alpha``, ``ex``) fails this: the earlier exercise's solution would then compute
with the later one's numbers.

In the student notebooks, answering also opens each exercise's panel (its parts now pass), and
opening it must change none of the student's variables.
"""
from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import jupytext
import pytest

ROOT = Path(__file__).resolve().parent.parent

from workbook.classroom import answer_key
from workbook.notebooks.exercise_ids import ids_in_code
from workbook.classroom.exercises import BEGIN, END

SETS = answer_key.load()


def regions(set_name: str) -> list[dict]:
    """Each solution region of a set: its exercise (the check calls of its cell), code and graded parts."""
    nb = jupytext.read(ROOT / "solutions" / f"{set_name}.md", fmt="md:myst")
    out = []
    for cell in nb.cells:
        if cell.cell_type != "code" or BEGIN not in cell.source:
            continue
        ids = ids_in_code(cell.source, calls=("check",))
        assert ids, f"{set_name}: a solution region without a check call:\n{cell.source}"
        m = re.search(re.escape(BEGIN) + r"\n(.*?)\n[ \t]*" + re.escape(END), cell.source, re.S)
        code = m.group(1)
        for ex_id in dict.fromkeys(ids):
            parts = [p for p in SETS[set_name][ex_id].answers if re.search(rf"^\s*{re.escape(p)}\s*=", code, re.M)]
            out.append({"ex_id": ex_id, "code": code, "parts": parts})
    return out


def _run(mode: str, tmp_path) -> list[dict]:
    folder = "exercises" if mode == "student" else "solutions"
    cfg = {"mode": mode, "notebooks": [{"path": str(ROOT / folder / f"{s}.md"), "regions": regions(s)}
                                        for s in SETS if any(ex.answers for ex in SETS[s].values())]}
    (tmp_path / "cfg.json").write_text(json.dumps(cfg))
    proc = subprocess.run([sys.executable, str(ROOT / "tests" / "run_all_harness.py"), str(tmp_path / "cfg.json"),
                           str(tmp_path / "out.json")], capture_output=True, text=True, timeout=1200,
                          env={"PYTHONPATH": str(ROOT / "lib"), "PATH": "/usr/bin:/bin", "HOME": str(tmp_path)})
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads((tmp_path / "out.json").read_text())


def _problems(report, mode) -> list[str]:
    bad = []
    for nb in report:
        name = Path(nb["path"]).relative_to(ROOT).as_posix()
        bad += [f"{name}: Run All: {e}" for e in nb["errors"]]
        bad += [f"{name}: {k} after Run All: {v}" for k, v in nb["parts"].items() if v != "correct"]
        for ex_id, o in nb.get("opened", {}).items():
            if o["error"]:
                bad.append(f"{name}: {ex_id}: opening its panel raised {o['error']}")
            if o["changed"]:
                bad.append(f"{name}: {ex_id}: opening its panel changed {o['changed']}")
    return bad


def test_every_solution_region_is_found():
    total = sum(len(r["parts"]) for s in SETS for r in regions(s))
    graded = sum(len(ex.answers) for exs in SETS.values() for ex in exs.values())
    assert total == graded


@pytest.mark.slow
def test_student_notebooks_survive_run_all(tmp_path):
    report = _run("student", tmp_path)
    assert not _problems(report, "student"), "\n".join(_problems(report, "student"))
    # answering opened every exercise's panel (its parts pass): at least one panel per exercise with one
    opened = [ex_id for nb in report for ex_id, o in nb["opened"].items() if o["panels"]]
    assert len(opened) >= 30


@pytest.mark.slow
def test_solution_notebooks_survive_run_all(tmp_path):
    report = _run("solution", tmp_path)
    assert not _problems(report, "solution"), "\n".join(_problems(report, "solution"))
