"""``workbook``: one command for the workbook's tooling. Each subcommand forwards its arguments to
one module's own ``main`` (``workbook <command> --help`` shows that module's options).

    workbook [--root PATH] <command> [options]
"""
from __future__ import annotations

import argparse
import importlib
import os
import sys
from pathlib import Path

import workbook

# command: (module, arguments put in front of the user's, one line for --help)
COMMANDS: dict[str, tuple[str, tuple[str, ...], str]] = {
    "execute": ("notebooks.nb", ("execute",), "execute notebooks from their .md sources into .ipynb twins (skips fresh ones; --rerun)"),
    "exercises": ("classroom.exercises", (), "regenerate exercises/ from solutions/ (never overwrites a student's edits)"),
    "pairs": ("notebooks.nb", ("pairs",), "report .md/.ipynb pairs whose cells differ"),
    "site": ("site.build", (), "the static sites and the JupyterLite build: site build|stage|lite"),
    "grade": ("classroom.grade", (), "grade a folder of submitted notebooks (grades.csv + feedback/)"),
    "variants": ("classroom.variants", (), "a seeded variant per student of a roster, and its answer key"),
    "instructor": ("classroom.instructor", (), "refresh the instructor guides' generated blocks (--check: stale?)"),
    "slides": ("notebooks.slides", (), "RISE slide metadata of the executed notebooks (--check: stale?)"),
    "bench": ("bench.run", (), "the performance benchmark (bench/results.md)"),
    "reference-pages": ("site.reference_pages", (), "glossary and cited source lines of the reference pages"),
    "scrub": ("site.scrub", (), "render the site's static panel frames (render|stats)"),
    "panels": ("site.panel_harness", (), "list every panel of the notebooks and the cells that fail"),
}


def _parser() -> argparse.ArgumentParser:
    width = max(map(len, COMMANDS))
    listing = "\n".join(f"  {name:<{width}}  {line}" for name, (_, _, line) in COMMANDS.items())
    ap = argparse.ArgumentParser(
        prog="workbook", description=workbook.__doc__.split("\n\n")[0],
        epilog=f"commands:\n{listing}\n\nworkbook <command> --help shows the options of one command.",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--root", help="the workbook checkout to work on (default: the current directory's, "
                                   "else the one holding this package)")
    ap.add_argument("command", nargs="?", choices=list(COMMANDS), metavar="command", help="one of the commands below")
    return ap


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    # the options before the command are workbook's; everything after it belongs to the command
    i = 0
    while i < len(argv) and argv[i].startswith("-"):
        i += 2 if argv[i] == "--root" else 1
    a = _parser().parse_args(argv[:i + 1])
    if a.command is None:
        _parser().print_help()
        return 2
    root = workbook.find_root()                     # once per command; every tool reads repo_root()
    if a.root:
        root = Path(a.root).resolve()
        if not workbook.is_workbook(root):
            raise SystemExit(f"workbook: --root {a.root} is not a workbook (no book.yml next to solutions/)")
        os.environ[workbook.ROOT_ENV] = str(root)   # for the processes the tools start
    module_name, front, _ = COMMANDS[a.command]
    try:
        module = importlib.import_module(f"workbook.{module_name}")
    except ModuleNotFoundError as e:
        if (e.name or "").split(".")[0] in ("workbook", "fleetcalc"):
            raise
        raise SystemExit(f"workbook {a.command}: needs the package {e.name!r}, which the tooling extra installs: "
                         f'pip install "fleetcalc[tools]" (make venv installs everything)') from None
    saved = sys.argv[0]
    sys.argv[0] = "workbook" if front else f"workbook {a.command}"   # argparse's prog in usage lines
    try:
        with workbook.using_root(root):
            return module.main([*front, *argv[i + 1:]]) or 0
    finally:
        sys.argv[0] = saved


if __name__ == "__main__":
    sys.exit(main())
