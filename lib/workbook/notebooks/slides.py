"""Lecture mode: slide metadata (RISE / jupyterlab-slideshow) from a notebook's structure.

    workbook slides [PATH.ipynb ...]            # default: every executed notebook in chapters/ and solutions/
    workbook slides --check [PATH ...]          # exit 1 if a notebook's slide metadata is missing or stale
    workbook slides --source [PATH.md|DIR ...]  # write the slide metadata into the .md sources too

Where the slide structure lives. JupyterLab with jupytext (``make lab``) takes a paired notebook's
cells, metadata included, from its ``.md``, and writes the ``.md`` and the ``.ipynb`` from that on
every save. Slide metadata only in the ``.ipynb`` is therefore lost: the deck is one long slide and
the first save strips it. ``--source`` writes it into the ``.md`` (MyST cell options
``slideshow: {slide_type: ...}`` on code cells, ``+++ {"slideshow": ...}`` on markdown cells), so
jupytext keeps it, saving keeps it, and ``--check`` stays green. Once a source carries slide
metadata, ``--check`` checks the source as well as its executed twin. To put every chapter's
structure into its sources (the integrator, once): ``workbook slides --source chapters``.

Only ``cell.metadata["slideshow"]`` and the notebook's ``metadata["rise"]`` are written: cell sources,
outputs, tags and ids stay exactly as they were, so nbval and the static site see the same notebook.
Rerunning is a no-op (the metadata is recomputed from scratch, and a file is written only if it
changed). The rules, in order:

* the first cell opens the deck (``slide``);
* a markdown cell with a ``#`` or ``##`` heading starts a ``slide``; with ``###`` a ``subslide``
  (shown below its slide: a panel with its own ``### Panel`` heading sits under its example);
  with only ``####`` or deeper a ``fragment``. A heading counts wherever it is in the cell (MyST
  merges a paragraph and the heading after it into one cell);
* plain prose longer than :data:`NOTES_WORDS` words goes to the speaker ``notes`` (press T in the
  slideshow): the slide keeps the numbers and the panel, the instructor keeps the explanation;
* shorter prose that follows a code cell on the same slide is a ``fragment`` (revealed on the next
  click, together with the code cells after it): ask the question first, then show the answer;
* the setup import cell and generated notes / answer placeholders are ``skip`` (they still run);
* every other cell (compute cells, panels, their outputs) stays on the current slide (``-``,
  written as no ``slideshow`` metadata, which both RISE and jupyterlab-slideshow read that way): a
  panel is shown on its example's slide.

Present: open the executed notebook in JupyterLab (``make lab``), Run > Run All Cells (panels need a
live kernel), then click the deck button of the notebook toolbar (jupyterlab-slideshow: the
notebook itself, one slide at a time, panels live) or press Alt+R (jupyterlab-rise: a reveal.js
deck, where ipywidgets 8 panels show only as text).
"""
from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

import nbformat

from workbook import repo_root
DIRS = ("chapters", "solutions")
NOTES_WORDS = 150
RISE = {"scroll": True, "enable_chalkboard": True}   # long slides scroll; [ and ] draw on a slide
SKIP_TAGS = {"remove-cell", "generated-note", "answer", "solution-only"}
_HEADING = re.compile(r"^(#{1,6})\s+\S")


def heading_level(source: str) -> int:
    """The level of the largest heading in a markdown cell (0 if it has none).

    MyST merges consecutive markdown blocks into one cell, so a ``### Panel`` heading can sit
    below a paragraph: the cell then opens the panel's subslide, paragraph included.
    """
    levels, fenced = [], False
    for line in source.splitlines():
        if line.lstrip().startswith(("```", "~~~")):
            fenced = not fenced
            continue
        m = None if fenced else _HEADING.match(line)
        if m:
            levels.append(len(m.group(1)))
    return min(levels, default=0)


def _words(source: str) -> int:
    text = re.sub(r"\$\$.*?\$\$", " ", source, flags=re.S)   # display math is not prose
    return len(text.split())


def _is_setup(cell) -> bool:
    return cell.cell_type == "code" and cell.source.lstrip().startswith("from fleetcalc.notebook import")


def slide_types(nb) -> list[str]:
    """The RISE ``slide_type`` of each cell of ``nb`` (see the module docstring)."""
    types: list[str] = []
    code_on_slide = False
    for i, cell in enumerate(nb.cells):
        tags = set(cell.get("metadata", {}).get("tags", []))
        if i == 0:
            kind = "slide"
        elif tags & SKIP_TAGS or _is_setup(cell):
            kind = "skip"
        elif cell.cell_type == "markdown":
            level = heading_level(cell.source)
            if level in (1, 2):
                kind = "slide"
            elif level == 3:
                kind = "subslide"
            elif level >= 4:
                kind = "fragment"
            elif _words(cell.source) > NOTES_WORDS:
                kind = "notes"
            elif code_on_slide:
                kind = "fragment"
            else:
                kind = "-"
        else:
            kind = "-"
        if kind in ("slide", "subslide"):
            code_on_slide = False
        if cell.cell_type == "code" and kind != "skip":
            code_on_slide = True
        types.append(kind)
    return types


def add_slide_metadata(nb):
    """Set RISE slide metadata on ``nb`` in place (and return it). Touches nothing but
    ``cell.metadata["slideshow"]`` and ``nb.metadata["rise"]``."""
    for cell, kind in zip(nb.cells, slide_types(nb)):
        meta = cell.setdefault("metadata", {})
        if kind == "-":
            # "stay on this slide" is written as no slide metadata at all: RISE and nbconvert read
            # a missing slide_type as "-", and jupyterlab-slideshow (lecture mode with live
            # panels) knows only the missing form; a literal "-" there hides the cell
            meta.pop("slideshow", None)
        else:
            meta["slideshow"] = {"slide_type": kind}
    nb.metadata["rise"] = dict(RISE)
    return nb


def _executed_notebooks() -> list[Path]:
    out: list[Path] = []
    for d in DIRS:
        out += [p for p in sorted((repo_root() / d).rglob("*.ipynb")) if ".ipynb_checkpoints" not in p.parts]
    return out


def apply(path: Path, check: bool = False) -> bool:
    """Apply to one .ipynb file in place; returns whether it changed (or would change)."""
    before = path.read_text(encoding="utf-8")
    nb = nbformat.reads(before, as_version=4)
    add_slide_metadata(nb)
    after = nbformat.writes(nb)
    if not after.endswith("\n"):   # what nbformat.write (lib/workbook/notebooks/nb.py) does
        after += "\n"
    if after == before:
        return False
    if not check:
        path.write_text(after, encoding="utf-8")
    return True


def _header(text: str) -> str:
    """The front matter of a MyST source (``---`` ... ``---``) and the newlines after it."""
    m = re.match(r"---\n.*?\n---\n\n*", text, re.S)
    return m.group(0) if m else ""


def has_slides(md: Path) -> bool:
    """Whether a .md source carries slide metadata (it then opted in to lecture mode from the source)."""
    text = md.read_text(encoding="utf-8")
    return bool(re.search(r'"slideshow"|^slideshow:|^:slideshow:', text, re.M))


def apply_source(md: Path, check: bool = False) -> bool:
    """Write the slide metadata into the MyST source ``md`` (cells' ``slideshow`` only: sources,
    tags and the front matter stay as they are); returns whether it changed (or would change)."""
    import jupytext

    before = md.read_text(encoding="utf-8")
    nb = jupytext.reads(before, fmt="md:myst")
    add_slide_metadata(nb)
    nb.metadata.pop("rise", None)          # notebook-level settings stay in the .ipynb
    after = jupytext.writes(nb, fmt="md:myst")
    after = _header(before) + after[len(_header(after)):]   # keep the author's front matter byte for byte
    if after == before:
        return False
    if not check:
        md.write_text(after, encoding="utf-8")
        _follow_twin(md, before, after)
    return True


def _follow_twin(md: Path, before: str, after: str) -> None:
    """The executed twin records the hash of the source it was built from (``workbook execute``
    refuses to overwrite a twin edited since); only slide metadata changed, so it still matches."""
    from workbook.notebooks.files import sha

    twin = md.with_suffix(".ipynb")
    if not twin.exists():
        return
    nb = nbformat.read(twin, as_version=4)
    meta = nb.metadata.get("fleetcalc", {})
    if meta.get("source_sha") == sha(before):
        meta["source_sha"] = sha(after)
        nbformat.write(nb, twin)


def _sources(paths: list[str]) -> list[Path]:
    out: list[Path] = []
    for p in map(Path, paths or [repo_root() / d for d in DIRS]):
        p = p if p.is_absolute() else Path.cwd() / p
        if p.is_dir():
            out += [q for q in sorted(p.rglob("*.md")) if q.name != "README.md" and "_build" not in q.parts
                    and ".ipynb_checkpoints" not in q.parts]
        else:
            out.append(p.with_suffix(".md"))
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("paths", nargs="*", help=".ipynb files (default: chapters/ and solutions/)")
    ap.add_argument("--check", action="store_true", help="report notebooks whose slide metadata is stale")
    ap.add_argument("--source", action="store_true",
                    help="also write the slide metadata into the .md sources (PATHs: .md files or folders)")
    a = ap.parse_args(argv)
    if a.source:
        mds = _sources(a.paths)
        changed = [m for m in mds if apply_source(m, check=a.check)]
        twins = [m.with_suffix(".ipynb") for m in mds if m.with_suffix(".ipynb").exists()]
        changed += [p for p in twins if apply(p, check=a.check)]
        for p in changed:
            print(("stale slide metadata: " if a.check else "slides: ") + str(p))
        if a.check:
            return 1 if changed else 0
        print(f"slide metadata in {len(mds)} source(s) and {len(twins)} executed twin(s), {len(changed)} rewritten")
        return 0
    paths = [Path(p) for p in a.paths] if a.paths else _executed_notebooks()
    paths = [p.with_suffix(".ipynb") if p.suffix == ".md" else p for p in paths]
    changed = [p for p in paths if apply(p, check=a.check)]
    if a.check:   # a source that carries slide metadata is checked too (a save from JupyterLab writes it)
        changed += [m for m in (p.with_suffix(".md") for p in paths)
                    if m.exists() and has_slides(m) and apply_source(m, check=True)]
    for p in changed:
        print(("stale slide metadata: " if a.check else "slides: ") + str(p))
    if a.check:
        return 1 if changed else 0
    print(f"slide metadata up to date in {len(paths)} notebook(s), {len(changed)} rewritten")
    return 0


if __name__ == "__main__":
    sys.exit(main())
