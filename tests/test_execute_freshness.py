"""``workbook execute`` skips a notebook whose executed twin is fresh: its source, the library
(lib/) and the data files beside it unchanged since it was last executed here, and the twin as
that run wrote it. Kernels are replaced by a stub that logs each execution to a file (the
executions happen in worker processes)."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

import workbook
from workbook.notebooks import nb

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def repo(tmp_path, monkeypatch):
    """A temporary repo root with one chapter notebook source and a one-file library."""
    src = ROOT / "chapters" / "ch28" / "28_3_roofline.md"
    if not src.exists():
        src = sorted((ROOT / "chapters").glob("*/*.md"))[0]
    md = tmp_path / src.relative_to(ROOT)
    md.parent.mkdir(parents=True)
    shutil.copy(src, md)
    (tmp_path / "lib" / "fleetcalc").mkdir(parents=True)
    (tmp_path / "lib" / "fleetcalc" / "units.py").write_text("G = 1e9\n")
    log = tmp_path / "executions.log"

    def stub(notebook, cwd, timeout=300):
        with open(log, "a") as f:
            f.write(f"{cwd}\n")
        return notebook

    monkeypatch.setattr(nb, "execute_notebook", stub)
    with workbook.using_root(tmp_path):   # every tool works on the temporary checkout
        yield md, log


def _runs(log: Path) -> int:
    return len(log.read_text().splitlines()) if log.exists() else 0


def test_a_second_run_skips_the_fresh_notebook(repo, capsys):
    md, log = repo
    assert nb.main(["execute", str(md)]) == 0
    assert _runs(log) == 1
    assert (workbook.repo_root() / "_build" / ".cache" / "executed.json").is_file()
    capsys.readouterr()
    assert nb.main(["execute", str(md)]) == 0
    assert _runs(log) == 1
    assert "1 notebook(s) fresh" in capsys.readouterr().out


@pytest.mark.parametrize("change", ["source", "library", "data beside it", "executed twin"])
def test_a_change_makes_it_run_again(repo, change):
    md, log = repo
    assert nb.main(["execute", str(md)]) == 0
    if change == "source":
        md.write_text(md.read_text(encoding="utf-8") + "\nOne more sentence.\n", encoding="utf-8")
    elif change == "library":
        (workbook.repo_root() / "lib" / "fleetcalc" / "units.py").write_text("G = 1.0e9  # same value, new file\n")
    elif change == "data beside it":
        (md.parent / "measurements.csv").write_text("n,t\n1,2\n")
    else:   # the twin rewritten by someone else (same cells: execute may replace it)
        ipynb = md.with_suffix(".ipynb")
        ipynb.write_text(ipynb.read_text(encoding="utf-8") + "\n", encoding="utf-8")
    assert nb.main(["execute", str(md)]) == 0
    assert _runs(log) == 2


def test_rerun_and_force_execute_a_fresh_notebook(repo):
    md, log = repo
    assert nb.main(["execute", str(md)]) == 0
    assert nb.main(["execute", "--rerun", str(md)]) == 0
    assert nb.main(["execute", "--force", str(md)]) == 0
    assert _runs(log) == 3


def test_a_failed_execution_is_not_recorded(repo, monkeypatch):
    md, log = repo

    def broken(notebook, cwd, timeout=300):
        raise RuntimeError("kernel died")

    monkeypatch.setattr(nb, "execute_notebook", broken)
    assert nb.main(["execute", str(md)]) == 1
    assert not (workbook.repo_root() / "_build" / ".cache" / "executed.json").exists()
