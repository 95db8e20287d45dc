"""instructor/README.md's semester workflow, run as written: its roster, its `workbook variants` and
`workbook grade` commands (in a scratch folder, with the issued notebooks handed back unanswered: 0
points each, by hand), and its example gradebooks compared line by line with what the commands wrote."""
from __future__ import annotations

import json
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "instructor" / "README.md").read_text(encoding="utf-8")
SECTION = README[README.index("## A semester with the workbook"):README.index("## Checking the live experience")]


def _blocks(text: str) -> list[list[str]]:
    """The indented code blocks (4 or 6 spaces) of ``text``, as lists of lines without the indent."""
    out, cur, ind = [], [], None
    for line in text.split("\n") + [""]:
        m = re.match(r"^( {4,})(\S.*)$", line)
        if m and ind is None and len(m.group(1)) in (4, 6):
            ind = len(m.group(1))
            cur.append(m.group(2))
        elif m and ind is not None and len(m.group(1)) >= ind:
            cur.append(line[ind:])
        else:
            if cur:
                out.append(cur)
            cur, ind = [], None
    return out


def _run(cmd: str, cwd: Path) -> subprocess.CompletedProcess:
    argv = shlex.split(cmd)
    assert argv[0] == ".venv/bin/workbook", cmd
    return subprocess.run([sys.executable, "-m", "workbook.cli", "--root", str(ROOT), *argv[1:]], cwd=cwd,
                          capture_output=True, text=True, timeout=600, env={"PYTHONPATH": str(ROOT / "lib"),
                                                                           "PATH": "/usr/bin:/bin", "HOME": str(cwd)})


@pytest.mark.slow
def test_the_readme_commands_run_and_write_what_it_shows(tmp_path):
    blocks = _blocks(SECTION)
    roster = next(b for b in blocks if b[0].startswith("id,"))
    (tmp_path / "class.csv").write_text("\n".join(roster) + "\n", encoding="utf-8")
    commands = [b[0] for b in blocks if b[0].startswith(".venv/bin/workbook")]
    assert [c.split()[1] for c in commands] == ["variants", "grade"]
    issued = _run(commands[0], tmp_path)
    assert issued.returncode == 0, issued.stderr[-2000:]
    out = tmp_path / "_build" / "variants"
    nbs = sorted((out / "ch28" / "ex28_08").glob("*.ipynb"))
    assert [p.name for p in nbs] == ["s001__ex28_08.ipynb", "s002__ex28_08.ipynb"]
    assert (out / "answer_key.csv").is_file() and (out / "answer_key.md").is_file()
    subs = tmp_path / "submissions"
    subs.mkdir()
    for p in nbs:                                        # handed back as issued: unanswered
        shutil.copy(p, subs / p.name)
    graded = _run(commands[1], tmp_path)
    assert graded.returncode == 0, graded.stderr[-2000:]
    # the console: one line per submission and a summary, no kernel or library noise
    noise = [line for line in (graded.stdout + graded.stderr).splitlines()
             if not re.match(r"^(s00[12]__ex28_08\.ipynb: 0/2 \(unanswered\)|graded 2 submission\(s\) of ch28/ex28_08 .*)$", line)]
    assert noise == [], noise
    for name, shown in (("gradebook_canvas.csv", next(b for b in blocks if b[0].startswith("Student,"))),
                        ("gradebook_moodle.csv", next(b for b in blocks if b[0].startswith("ID number,")))):
        assert (subs / name).read_text(encoding="utf-8").splitlines() == shown, name
    gs = json.loads((subs / "gradescope" / "s001__ex28_08.json").read_text(encoding="utf-8"))
    example = next(b for b in blocks if b[0].startswith('{"score"'))
    assert gs["score"] == 0 and gs["output"] == "Exercise set ch28/ex28_08, student s001"
    for key in ("score", "output", "visibility", "stdout_visibility", "tests", "name", "number", "max_score", "status"):
        assert f'"{key}"' in "\n".join(example) and (key in gs or key in gs["tests"][0])
    assert gs["tests"][0]["name"] == "Exercise 28.8, bw_small" and gs["tests"][0]["status"] == "failed"
    assert (subs / "grades.csv").is_file() and (subs / "feedback" / "s002__ex28_08.md").is_file()


def test_the_readme_names_no_command_that_does_not_exist():
    assert "--n 5" not in README and "_v<k>.ipynb" not in README
    from workbook import cli
    for cmd in re.findall(r"\.venv/bin/workbook (\w[\w-]*)", README):
        assert cmd in cli.COMMANDS, cmd
