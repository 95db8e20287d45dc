"""Collect every panel in the book without a kernel.

For each chapter, solution and exercise notebook source (MyST ``.md``, read with jupytext) the
harness executes the code cells in order, in a fresh namespace, in this process (IPython's
``display`` is a no-op, matplotlib uses Agg), and returns the :class:`fleetcalc.ui.widgets.Panel`
objects each cell created (gathered with ``fleetcalc.ui.widgets.collect_panels``; the result holds
the only references), with the notebook path and the cell index (the same index as in the executed ``.ipynb`` twin).

A cell that raises is reported (:class:`CellFailure`), never hidden; later cells still run, so
one broken cell does not hide the panels after it (a failure that follows an earlier one is
marked ``after_failure``). Cells tagged ``raises-exception`` may raise.

    workbook panels [PATH.md ...]                    # list panels and failing cells (rc 1 on failures)

    from workbook.site.panel_harness import collect, collect_all, notebook_sources
    for res in collect_all():
        for rec in res.panels: rec.panel.compute_at(B=4)
"""
from __future__ import annotations

import builtins
import contextlib
import io
import os
import sys
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path

from workbook import repo_root

NOTEBOOK_DIRS = ("chapters", "solutions", "exercises")

os.environ.setdefault("MPLBACKEND", "Agg")

@dataclass
class PanelRecord:
    path: str          # notebook source, relative to the repo root (e.g. chapters/ch28/28_3_roofline.md)
    cell: int          # cell index (markdown cells count; same as in the .ipynb twin)
    panel: object      # the fleetcalc.ui.widgets.Panel
    n: int = 0         # the n-th panel of that cell (a cell may build more than one)

    @property
    def id(self) -> str:
        return f"{self.path}#cell{self.cell}" + (f".{self.n}" if self.n else "")

    @property
    def title(self) -> str:
        return self.panel.title


@dataclass
class CellFailure:
    path: str
    cell: int
    error: str          # "ExcType: message"
    traceback: str
    after_failure: bool  # an earlier cell of the same notebook had already failed

    def __str__(self) -> str:
        tail = " (after an earlier failure)" if self.after_failure else ""
        return f"{self.path} cell {self.cell}{tail}: {self.error}"


@dataclass
class NotebookResult:
    path: str
    panels: list[PanelRecord] = field(default_factory=list)
    failures: list[CellFailure] = field(default_factory=list)
    seconds: float = 0.0
    n_code_cells: int = 0
    stdout: str = ""


def notebook_sources(dirs=NOTEBOOK_DIRS, root: Path | None = None) -> list[Path]:
    """Every notebook source (.md with a jupytext header) under ``dirs``, in site order."""
    root = root if root is not None else repo_root()
    out: list[Path] = []
    for d in dirs:
        base = root / d
        if not base.exists():
            continue
        for p in sorted(base.rglob("*.md")):
            if p.name == "README.md" or "_build" in p.parts or ".ipynb_checkpoints" in p.parts:
                continue
            with p.open(encoding="utf-8") as fh:
                head = fh.read(400)
            if head.startswith("---") and "jupytext" in head:
                out.append(p)
    return out


class _FakeShell:
    """Enough of get_ipython() for cells that call magics: they are ignored (and counted)."""

    def __init__(self):
        self.ignored: list[str] = []

    def run_line_magic(self, name, line, *a, **k):
        self.ignored.append(f"%{name} {line}")

    def run_cell_magic(self, name, line, cell, *a, **k):
        self.ignored.append(f"%%{name} {line}")

    def system(self, cmd, *a, **k):
        self.ignored.append(f"!{cmd}")

    getoutput = system


def _noop_display(*objs, **kw):
    return None


@contextlib.contextmanager
def _sandbox(cwd: Path):
    """Agg backend, display() as a no-op, cwd = the notebook's folder, pyplot figures closed after."""
    import matplotlib

    matplotlib.use("Agg", force=True)
    import IPython.display as ipd
    import matplotlib.pyplot as plt

    saved = (ipd.display, getattr(builtins, "display", None), os.getcwd())
    ipd.display = _noop_display
    builtins.display = _noop_display
    os.chdir(cwd)
    try:
        yield
    finally:
        ipd.display = saved[0]
        if saved[1] is None:
            del builtins.display
        else:
            builtins.display = saved[1]
        os.chdir(saved[2])
        plt.close("all")


def _in_session(compute, sess):
    """``compute`` run inside the notebook's exercise session (a kernel keeps its own for as long
    as it runs; the harness's notebook ends with its block, so its panels carry it)."""
    from fleetcalc.ui import exercises

    def run(**inputs):
        with exercises.session(sess):
            return compute(**inputs)
    return run


def _to_python(source: str) -> str:
    if not any(line.lstrip().startswith(("%", "!")) for line in source.splitlines()):
        return source
    from IPython.core.inputtransformer2 import TransformerManager

    return TransformerManager().transform_cell(source)


def collect(path: Path | str, quiet: bool = True, draw: bool = True) -> NotebookResult:
    """Execute one notebook source in-process and return its panels and failing cells.

    ``draw=False`` skips the panels' plots (they are built with ``Panel.drawing`` off, see
    ``fleetcalc.ui.widgets.collect_panels``): enough for tests that only call ``compute_at``, and
    several times faster.
    """
    import jupytext
    from fleetcalc.ui import exercises, widgets

    path = Path(path).resolve()
    try:
        rel = path.relative_to(repo_root()).as_posix()
    except ValueError:
        rel = str(path)
    res = NotebookResult(rel)
    nb = jupytext.read(path, fmt="md:myst")
    shell = _FakeShell()
    ns = {"__name__": "__main__", "__file__": str(path), "get_ipython": lambda: shell,
          "display": _noop_display}
    out = io.StringIO()
    t0 = time.perf_counter()
    with _sandbox(path.parent), contextlib.redirect_stdout(out if quiet else sys.stdout), \
            widgets.collect_panels(draw=draw) as made, exercises.session() as sess:   # its exercises, as in a kernel of its own
        for i, cell in enumerate(nb.cells):
            if cell.cell_type != "code" or not cell.source.strip():
                continue
            res.n_code_cells += 1
            tags = cell.metadata.get("tags", [])
            before = len(made)
            try:
                code = compile(_to_python(cell.source), f"<{rel} cell {i}>", "exec")
                exec(code, ns)
            except BaseException as exc:  # noqa: BLE001 - report every failure, keep going
                if isinstance(exc, KeyboardInterrupt):
                    raise
                if "raises-exception" not in tags:
                    res.failures.append(CellFailure(rel, i, f"{type(exc).__name__}: {exc}",
                                                    traceback.format_exc(limit=-6), bool(res.failures)))
            for n, p in enumerate(made[before:]):
                p.compute = _in_session(p.compute, sess)   # a later move still sees this notebook's exercises
                res.panels.append(PanelRecord(rel, i, p, n))
    res.seconds = time.perf_counter() - t0
    res.stdout = out.getvalue() if quiet else ""
    return res


_CACHE: dict[tuple[str, float, bool], NotebookResult] = {}


def collect_cached(path: Path | str, draw: bool = True) -> NotebookResult:
    """:func:`collect`, once per process per notebook version (tests share the panels; an edited
    source is collected again)."""
    path = Path(path).resolve()
    key = (str(path), path.stat().st_mtime, draw)
    if key not in _CACHE:
        _CACHE[key] = collect(path, draw=draw)
    return _CACHE[key]


def collect_all(paths=None, cached: bool = True, draw: bool = True) -> list[NotebookResult]:
    paths = notebook_sources() if paths is None else [Path(p) for p in paths]
    if cached:
        return [collect_cached(p, draw=draw) for p in paths]
    return [collect(p, draw=draw) for p in paths]


def main(argv=None) -> int:
    import argparse

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("paths", nargs="*", help="notebook sources (default: every chapter, solution and exercise)")
    ap.add_argument("-v", "--verbose", action="store_true", help="print tracebacks of failing cells")
    a = ap.parse_args(argv)
    n_panels = n_fail = 0
    for res in collect_all(a.paths or None, cached=False):
        print(f"{res.path}: {len(res.panels)} panel(s), {res.n_code_cells} code cells, {res.seconds:.2f} s")
        for rec in res.panels:
            print(f"    cell {rec.cell}: {rec.title or '(untitled)'} knobs={list(rec.panel.knob_specs)}")
        for f in res.failures:
            print(f"    FAILED {f}")
            if a.verbose:
                print("      " + f.traceback.replace("\n", "\n      "))
        n_panels += len(res.panels)
        n_fail += len(res.failures)
    print(f"{n_panels} panels, {n_fail} failing cells")
    return 1 if n_fail else 0


if __name__ == "__main__":
    sys.exit(main())
