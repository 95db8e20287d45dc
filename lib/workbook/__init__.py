"""The workbook's own tooling: executing notebooks, generating exercises, building the site,
grading, benchmarks. One command, ``workbook``, runs them all (``workbook --help``).

Every module reads and writes files of one workbook checkout, ``ROOT``:
1. ``workbook --root PATH`` (or the environment variable ``WORKBOOK_ROOT``);
2. else the current working directory or the nearest folder above it that holds a workbook
   (``book.yml`` next to ``solutions/``);
3. else the repository that holds this package (an editable install).
"""
from __future__ import annotations

import os
from pathlib import Path

ROOT_ENV = "WORKBOOK_ROOT"


def is_workbook(path: Path) -> bool:
    """Whether ``path`` is the root of a workbook checkout (book.yml next to solutions/)."""
    return (path / "book.yml").is_file() and (path / "solutions").is_dir()


def find_root(start: Path | None = None) -> Path:
    """The workbook checkout the tools work on (see the module docstring for the order)."""
    given = os.environ.get(ROOT_ENV)
    if given:
        return Path(given).resolve()
    here = Path(start or Path.cwd()).resolve()
    for p in (here, *here.parents):
        if is_workbook(p):
            return p
    return Path(__file__).resolve().parents[2]


ROOT = find_root()
