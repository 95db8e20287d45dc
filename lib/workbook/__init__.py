"""The workbook's own tooling: executing notebooks, generating exercises, building the site,
grading, benchmarks. One command, ``workbook``, runs them all (``workbook --help``).

Every module reads and writes files of one workbook checkout, :func:`repo_root` (found once per
command, never at import):
1. ``workbook --root PATH`` (or the environment variable ``WORKBOOK_ROOT``);
2. else the current working directory or the nearest folder above it that holds a workbook
   (``book.yml`` next to ``solutions/``);
3. else the repository that holds this package (an editable install).
"""
from __future__ import annotations

import contextlib
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


_FOUND: dict[tuple, Path] = {}   # (WORKBOOK_ROOT, working directory) -> the checkout found there
_USING: list[Path] = []          # set by `workbook --root` (and tests) for the length of a command


def repo_root() -> Path:
    """The checkout this command works on: the one :func:`using_root` set, else :func:`find_root`
    (kept per working directory and ``WORKBOOK_ROOT``, so changing either finds it again)."""
    if _USING:
        return _USING[-1]
    key = (os.environ.get(ROOT_ENV), os.getcwd())
    if key not in _FOUND:
        _FOUND[key] = find_root()
    return _FOUND[key]


@contextlib.contextmanager
def using_root(path: Path):
    """``with using_root(path):`` every tool works on the checkout at ``path`` inside the block."""
    _USING.append(Path(path).resolve())
    try:
        yield _USING[-1]
    finally:
        _USING.pop()
