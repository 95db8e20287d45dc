"""The ``workbook`` command (lib/workbook/cli.py): one console script whose subcommands forward to
each tool module's own ``main``, and a tree where no module or test edits ``sys.path``."""
from __future__ import annotations

import ast
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

import workbook
from workbook import cli

ROOT = Path(__file__).resolve().parent.parent


def test_console_script_is_declared():
    with open(ROOT / "pyproject.toml", "rb") as f:
        scripts = tomllib.load(f)["project"]["scripts"]
    assert scripts == {"workbook": "workbook.cli:main"}


def test_help_lists_every_subcommand():
    run = subprocess.run([sys.executable, "-m", "workbook.cli", "--help"], capture_output=True, text=True,
                         cwd=ROOT, timeout=120)
    assert run.returncode == 0, run.stderr
    listed = re.findall(r"^  (\S+)\s{2,}\S", run.stdout.split("commands:", 1)[1], flags=re.M)
    assert listed == list(cli.COMMANDS)
    for name in ("execute", "exercises", "site", "grade", "variants", "instructor", "slides", "bench",
                 "reference-pages"):
        assert name in listed


def test_every_tool_module_with_a_main_has_a_command():
    """A tool module with ``def main`` that no command reaches would be a tool nobody can run."""
    with_main = set()
    top = ROOT / "lib" / "workbook"
    for path in top.rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        if any(isinstance(n, ast.FunctionDef) and n.name == "main" for n in tree.body) and path.stem != "cli":
            with_main.add(".".join(path.relative_to(top).with_suffix("").parts))
    assert with_main == {module for module, _, _ in cli.COMMANDS.values()}


@pytest.mark.parametrize("command", list(cli.COMMANDS))
def test_each_subcommand_help_exits_0(command, capsys):
    with pytest.raises(SystemExit) as exc:
        cli.main([command, "--help"])
    assert exc.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith(f"usage: workbook {command} "), out[:200]


def test_no_command_prints_the_help_and_exits_2(capsys):
    assert cli.main([]) == 2
    assert "commands:" in capsys.readouterr().out


def test_unknown_command_is_refused(capsys):
    with pytest.raises(SystemExit) as exc:
        cli.main(["no-such-command"])
    assert exc.value.code == 2
    assert "no-such-command" in capsys.readouterr().err


def test_root_must_be_a_workbook(tmp_path):
    with pytest.raises(SystemExit) as exc:
        cli.main(["--root", str(tmp_path), "pairs"])
    assert str(tmp_path) in str(exc.value) and "book.yml" in str(exc.value)


def test_root_is_found_from_the_environment_then_the_working_directory(tmp_path, monkeypatch):
    monkeypatch.delenv(workbook.ROOT_ENV, raising=False)
    assert workbook.find_root(ROOT / "chapters" / "ch28") == ROOT   # a folder inside the checkout
    (tmp_path / "book.yml").write_text("title: t\n")
    (tmp_path / "solutions").mkdir()
    assert workbook.find_root(tmp_path / "solutions") == tmp_path
    monkeypatch.setenv(workbook.ROOT_ENV, str(ROOT))
    assert workbook.find_root(tmp_path) == ROOT


def test_nothing_edits_sys_path():
    needles = ("sys.path." + "insert", "sys.path." + "append")
    found = [f"{p.relative_to(ROOT)}: {n}" for d in ("lib", "tests", "tools") for p in sorted((ROOT / d).rglob("*"))
             if p.is_file() and p.suffix in (".py", ".sh", ".md") and "__pycache__" not in p.parts
             for n in needles if n in p.read_text(encoding="utf-8", errors="replace")]
    assert found == []
