"""Regenerating never overwrites a student's work (``workbook exercises`` and ``workbook execute``).

Each test builds a small copy of the repository layout in a temporary folder and points
the tools at it (``workbook.using_root``), so the repo's own notebooks are never
touched. Kernel execution is replaced by a no-op (the refusal logic runs before execution and
does not depend on outputs), which keeps these tests fast. A student edit, then a regeneration:
the command must exit non-zero, say how to proceed (rename/move, or --force), and leave the
edited file byte-for-byte unchanged.
"""
from __future__ import annotations

import shutil
from pathlib import Path
from types import SimpleNamespace

import nbformat
import pytest

ROOT = Path(__file__).resolve().parent.parent
import workbook
from workbook.notebooks import nb
from workbook.classroom import exercises as student_nbs


def _pick(pattern: str) -> Path:
    found = sorted(ROOT.glob(pattern))
    if not found:
        pytest.skip(f"no {pattern} in this checkout yet")
    return found[0]


@pytest.fixture
def repo(tmp_path, monkeypatch):
    """A temporary repo root with one solution and one chapter notebook source."""
    sol = _pick("solutions/ch28/ex28_02_03.md") if (ROOT / "solutions/ch28/ex28_02_03.md").exists() \
        else _pick("solutions/*/*.md")
    chap = _pick("chapters/ch28/28_3_roofline.md") if (ROOT / "chapters/ch28/28_3_roofline.md").exists() \
        else _pick("chapters/*/*.md")
    for src in (sol, chap):
        dest = tmp_path / src.relative_to(ROOT)
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(src, dest)
    monkeypatch.setattr(nb, "execute_notebook", lambda notebook, cwd, timeout=300: notebook)
    with workbook.using_root(tmp_path):   # every tool works on the temporary checkout
        yield SimpleNamespace(root=tmp_path, solution=tmp_path / sol.relative_to(ROOT),
                              chapter=tmp_path / chap.relative_to(ROOT),
                              exercise=tmp_path / "exercises" / sol.relative_to(ROOT / "solutions"))


def _generate(capsys):
    rc = student_nbs.generate_exercises(jobs=1)
    return rc, capsys.readouterr().err


def _student_edits_ipynb(path: Path):
    book = nbformat.read(path, as_version=4)
    cell = next(c for c in book.cells if c.cell_type == "code")
    cell.source += "\nmy_answer = 42  # typed by the student"
    nbformat.write(book, path)


def _change_solution(path: Path):
    path.write_text(path.read_text(encoding="utf-8") + "\nOne more sentence from the instructor.\n",
                    encoding="utf-8")


def test_generation_writes_both_files(repo, capsys):
    rc, err = _generate(capsys)
    assert rc == 0, err
    assert repo.exercise.exists() and repo.exercise.with_suffix(".ipynb").exists()
    assert student_nbs.manifest_path().exists()


def test_edited_exercise_md_is_not_overwritten(repo, capsys):
    assert _generate(capsys)[0] == 0
    repo.exercise.write_text(repo.exercise.read_text(encoding="utf-8") + "\nMy notes.\n", encoding="utf-8")
    before = repo.exercise.read_bytes()
    rc, err = _generate(capsys)
    assert rc != 0
    assert repo.exercise.name in err and ("Rename or move" in err or "--force" in err), err
    assert repo.exercise.read_bytes() == before


def test_edited_exercise_ipynb_survives_a_changed_solution(repo, capsys):
    assert _generate(capsys)[0] == 0
    ipynb = repo.exercise.with_suffix(".ipynb")
    _student_edits_ipynb(ipynb)
    before_nb, before_md = ipynb.read_bytes(), repo.exercise.read_bytes()
    _change_solution(repo.solution)
    rc, err = _generate(capsys)
    assert rc != 0
    assert ipynb.name in err and "--force" in err, err
    assert ipynb.read_bytes() == before_nb
    assert repo.exercise.read_bytes() == before_md, "nothing is written while any file is refused"


def test_unedited_exercise_follows_the_solution(repo, capsys):
    """The refusal is specific: without a student edit a changed solution regenerates."""
    assert _generate(capsys)[0] == 0
    _change_solution(repo.solution)
    rc, err = _generate(capsys)
    assert rc == 0, err
    assert "One more sentence from the instructor." in repo.exercise.read_text(encoding="utf-8")


def test_execute_refuses_an_edited_ipynb(repo, capsys):
    md = repo.chapter
    assert nb.main(["execute", str(md)]) == 0, capsys.readouterr().err
    ipynb = md.with_suffix(".ipynb")
    _student_edits_ipynb(ipynb)
    before = ipynb.read_bytes()
    capsys.readouterr()
    rc = nb.main(["execute", str(md)])
    err = capsys.readouterr().err
    assert rc != 0
    assert "edited" in err and "--force" in err, err
    assert ipynb.read_bytes() == before


def test_execute_force_overwrites(repo, capsys):
    """--force is the documented way through: it does overwrite."""
    md = repo.chapter
    assert nb.main(["execute", str(md)]) == 0
    ipynb = md.with_suffix(".ipynb")
    _student_edits_ipynb(ipynb)
    assert nb.main(["execute", "--force", str(md)]) == 0
    assert "typed by the student" not in ipynb.read_text(encoding="utf-8")
