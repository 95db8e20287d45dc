"""Instructor guides: the generated parts of ``instructor/<chapter>.md``.

    workbook instructor            # refresh every guide's generated blocks (rerunnable)
    workbook instructor --check    # exit 1 if a guide's generated blocks are stale

A guide mixes hand-written teaching notes (objectives, lecture flow, misconceptions) with three
blocks this tool writes between markers, read from the executed notebooks so they are never typed:

* ``overview``: each section notebook, its ``book_says`` checks / errata / assumptions, and its panels
  (the ``title=`` of every ``panel(...)`` call, with its sliders);
* ``errata``: every erratum the notebooks record (the book's value, the recomputed one and the
  cause; read with ``fleetcalc.core.ledger.read_ledger``), grouped by notebook: what to warn
  students about;
* ``exercises``: every exercise of the chapter (registered in the exercise bank or cited in the
  chapter text), the sections that cite it ("Exercises for this section: **id**"; failing that, the
  section notebooks its exercise notebook names), its student notebook, and whether it has seeded
  variants.

Only the text between ``<!-- BEGIN GENERATED <name> ... -->`` and ``<!-- END GENERATED <name> -->``
changes; a guide without a block gets it appended, and a chapter without a guide gets a skeleton.
"""
from __future__ import annotations

import argparse
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

import jupytext
import nbformat

from fleetcalc.core.ledger import Record, by_kind, read_ledger
from workbook import repo_root
from workbook.notebooks.exercise_ids import ids_in_code, ids_in_headings
from workbook.notebooks.files import saved_panels
CHAPTERS = ("ch28", "v2_notation", "v2_ch1", "v2_ch2", "v2_ch3", "capstone")
def guides_dir() -> Path:
    """The instructor guides' folder."""
    return repo_root() / "instructor"

BLOCKS = ("overview", "errata", "exercises")
BLOCK_TITLES = {"overview": "Notebooks, checks and panels at a glance",
                "errata": "Errata to warn students about",
                "exercises": "Exercises and the sections they belong to"}
_BEGIN = "<!-- BEGIN GENERATED {name} (workbook instructor; do not edit by hand) -->"
_END = "<!-- END GENERATED {name} -->"
_BLOCK_RE = r"<!-- BEGIN GENERATED {name}\b[^>]*-->\n.*?<!-- END GENERATED {name} -->"


@dataclass
class Erratum:
    where: str
    value: str
    book: str
    cause: str


@dataclass
class Section:
    path: Path
    title: str
    checks: int = 0
    assumed: int = 0
    errata: list[Erratum] = field(default_factory=list)
    caveats: list[Erratum] = field(default_factory=list)          # caveats (cause = how it misleads)
    vendor: list[Erratum] = field(default_factory=list)           # vendor notes (cause = source; note)
    rebuilt: list[Erratum] = field(default_factory=list)          # reconstructions (cause = what was rebuilt)
    assumptions: list[Record] = field(default_factory=list)             # assume(...) records
    panels: list[tuple[str, list[str]]] = field(default_factory=list)  # (title, slider labels)
    cited: list[str] = field(default_factory=list)                      # exercise ids cited

    @property
    def rel(self) -> str:
        return self.path.relative_to(repo_root()).as_posix()


def finding(record: Record) -> Erratum:
    """An erratum, caveat, vendor note or reconstruction record as the guide lists it."""
    return Erratum(record.where, f"{record.name} = {record.shown}", record.printed, record.detail())


_CITED = re.compile(r"\*\*((?:\d+|[A-Z]+\d*)(?:\.\d+)+|\d+[a-z]\.\d+)\*\*")


def _first_heading(nb) -> str:
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            for line in cell.source.splitlines():
                if line.startswith("# "):
                    return line[2:].strip()
    return ""


def read_section(path: Path) -> Section:
    nb = nbformat.read(path, as_version=4)
    sec = Section(path, _first_heading(nb) or path.stem)
    found = by_kind(read_ledger(nb))
    sec.checks, sec.assumed, sec.assumptions = len(found["confirmed"]), len(found["assumed"]), found["assumed"]
    sec.errata, sec.caveats, sec.vendor, sec.rebuilt = ([finding(r) for r in found[k]] for k in
                                                        ("erratum", "caveat", "vendor", "reconstruction"))
    sec.panels = [(p["title"] or "(untitled panel)", [label for _, label in p["knobs"]]) for _, p in saved_panels(nb)]
    for cell in nb.cells:
        if cell.cell_type == "markdown" and re.search(r"Exercises? for this", cell.source):
            for ex_id in _CITED.findall(cell.source):
                if ex_id not in sec.cited:
                    sec.cited.append(ex_id)
    return sec


def _order(path: Path):
    return [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", path.name)]


def sections(chapter: str) -> list[Section]:
    folder = repo_root() / "chapters" / chapter
    paths = sorted((p for p in folder.glob("*.ipynb")), key=_order)
    return [read_section(p) for p in paths]


def chapter_title(chapter: str) -> str:
    intro = repo_root() / "chapters" / chapter / "00_intro.ipynb"
    if intro.exists():
        title = _first_heading(nbformat.read(intro, as_version=4))
        if title:
            return title
    return chapter


# ----------------------------------------------------------------------------- blocks

def _md_cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def overview_block(secs: list[Section]) -> str:
    if not secs:
        return "_No executed notebooks in this chapter yet._"
    lines = ["| notebook | book checks ✓ | errata | caveats | vendor notes | reconstructions | assumptions | "
             "panels (sliders) |", "|---|---|---|---|---|---|---|---|"]
    for s in secs:
        panels = "<br>".join(f"**{_md_cell(t)}**" + (f" ({_md_cell(', '.join(l))})" if l else "")
                             for t, l in s.panels) or "—"
        lines.append(f"| `{s.rel}`<br>{_md_cell(s.title)} | {s.checks} | {len(s.errata)} | {len(s.caveats)} | "
                     f"{len(s.vendor)} | {len(s.rebuilt)} | {s.assumed} | {panels} |")
    total = [sum(s.checks for s in secs)] + [sum(len(getattr(s, k)) for s in secs)
                                             for k in ("errata", "caveats", "vendor", "rebuilt")]
    total += [sum(s.assumed for s in secs), sum(len(s.panels) for s in secs)]
    lines.append("| **total** | " + " | ".join(f"**{t}**" for t in total[:-1]) + f" | **{total[-1]} panels** |")
    return "\n".join(lines)


def errata_block(secs: list[Section]) -> str:
    rows = [(s, e) for s in secs for e in s.errata]
    lines = _errata_lines(rows) if rows else ["_The executed notebooks of this chapter record no erratum._"]
    for attr, title, intro, verb in (
            ("caveats", "Caveats", "the number follows from the book's inputs, but misleads; say how", "How it misleads"),
            ("vendor", "Vendor notes", "the book's hardware figure differs from the vendor's published one", "Source"),
            ("rebuilt", "Reconstructions", "rebuilt or back-solved, so they agree by construction: never "
             "present them as confirmations", "Rebuilt")):
        found = [(s, e) for s in secs for e in getattr(s, attr)]
        if found:
            lines += ["", f"**{title}** ({len(found)}; {intro}):", ""]
            for s, e in found:
                what = "vendor" if attr == "vendor" else "recomputed"
                lines.append(f"- {e.where} (`{s.path.name}`): the book prints **{e.book}**; {what} **{e.value}**. "
                             f"{verb}: {e.cause}")
    assumed = [(s, a) for s in secs for a in s.assumptions]
    if assumed:
        lines += ["", "**Inputs the text leaves out** (the notebooks state them with `assume(...)`; say so "
                  "when you present the number):", ""]
        lines += [f"- {a.where}: **{a.name} = {a.value}** ({a.reason}) (`{s.path.name}`)" for s, a in assumed]
    return "\n".join(lines).replace("\n\n\n", "\n\n").strip()


def _errata_lines(rows) -> list[str]:
    lines = [f"{len(rows)} erratum/errata: place(s) where the book's printed number does not follow from its "
             "own inputs beyond its printed precision and its hedging. "
             "Each line is the notebook's `[erratum]` record: where, what we recompute, what the book "
             "prints, and why. Tell students before they meet the number.", ""]
    current = None
    for s, e in rows:
        if s is not current:
            lines += ["", f"**{_md_cell(s.title)}** (`{s.rel}`)", ""]
            current = s
        if e.book:
            lines.append(f"- {e.where}: the book prints **{e.book}**; recomputed **{e.value}**. Cause: {e.cause}")
        else:
            lines.append(f"- {e.where}")
    return lines




def _exercise_files(chapter: str) -> tuple[dict[str, str], dict[str, str]]:
    """(exercise id -> student notebook, exercise id -> title), by each notebook's
    ``## Exercise <id>: title`` headings and ``check("<id>", ...)`` calls."""
    found: dict[str, str] = {}
    titles: dict[str, str] = {}
    folder = repo_root() / "exercises" / chapter
    for md in sorted(folder.glob("*.md")) if folder.exists() else []:
        text = md.read_text(encoding="utf-8")
        rel = md.relative_to(repo_root()).with_suffix(".ipynb").as_posix()
        heads = ids_in_headings(text)
        for ex_id, title in heads:
            if title:
                titles.setdefault(ex_id, title)
        ids = [ex_id for ex_id, _ in heads]
        ids += [i for c in jupytext.reads(text, fmt="md:myst").cells if c.cell_type == "code"
                for i in ids_in_code(c.source, calls=("check",))]
        for ex_id in ids:
            found.setdefault(ex_id, rel)
    return found, titles


def _named_in(notebook: str | None, secs: list[Section]) -> list[Section]:
    """Sections whose notebook the exercise notebook names (when the chapter text cites none)."""
    if not notebook:
        return []
    text = (repo_root() / notebook).with_suffix(".md").read_text(encoding="utf-8")
    return [s for s in secs if f"{s.path.stem}.ipynb" in text and not s.path.stem.startswith("00_")]


def _id_key(ex_id: str):
    return [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", ex_id)]


def exercises_block(chapter: str, secs: list[Section]) -> str:
    from workbook.classroom.answer_key import all_exercises  # the key, from the solution notebooks' answer-key cells

    bank = {k: e for k, e in all_exercises().items() if e.chapter == chapter}
    cited: dict[str, list[Section]] = {}
    for s in secs:
        for ex_id in s.cited:
            cited.setdefault(ex_id, []).append(s)
    files, titles = _exercise_files(chapter)
    ids = sorted(set(bank) | set(cited) | set(files), key=_id_key)
    if not ids:
        return "_No exercises registered or cited for this chapter yet._"
    lines = ["| exercise | title | graded parts | section notebook(s) | student notebook | seeded variants |",
             "|---|---|---|---|---|---|"]
    for ex_id in ids:
        ex = bank.get(ex_id)
        title = _md_cell(ex.title if ex else titles.get(ex_id, "(written question)"))
        parts = str(len(ex.answers)) if ex and ex.answers else "written"
        citing = cited.get(ex_id) or _named_in(files.get(ex_id), secs)
        where = "<br>".join(f"`{s.path.stem}`" for s in citing) or "—"
        nb = f"`{files[ex_id]}`" if ex_id in files else "—"
        variants = "yes" if ex and ex.ranges and ex.answers else "—"
        lines.append(f"| **{ex_id}** | {title} | {parts} | {where} | {nb} | {variants} |")
    folder = repo_root() / "exercises" / chapter
    listed = set(files.values())
    others = [md for md in sorted(folder.glob("*.md")) if folder.exists()
              and md.relative_to(repo_root()).with_suffix(".ipynb").as_posix() not in listed]
    for md in others:
        n = len(re.findall(r"^##\s+(?:Q\d|Question|Exercise)", md.read_text(encoding="utf-8"), flags=re.M))
        rel = md.relative_to(repo_root()).with_suffix(".ipynb").as_posix()
        lines += ["", f"Written questions (not numbered in the book): `{rel}` ({n} question(s))."]
    lines += ["", "Seeded variants for homework and exams: `make variants ROSTER=roster.csv SEED=2027` "
              "writes one notebook per student and an answer key to `_build/variants/`; `make grade "
              "SUBMISSIONS=folder ROSTER=roster.csv SEED=2027` grades each student against their own variant. "
              "Each written answer's rubric sits under its model answer in the solution notebook."]
    return "\n".join(lines)


def blocks_for(chapter: str) -> dict[str, str]:
    secs = sections(chapter)
    return {"overview": overview_block(secs), "errata": errata_block(secs),
            "exercises": exercises_block(chapter, secs)}


# ----------------------------------------------------------------------------- guides

def _wrap(name: str, body: str) -> str:
    return f"{_BEGIN.format(name=name)}\n{body.strip()}\n{_END.format(name=name)}"


def skeleton(chapter: str) -> str:
    parts = [f"# Instructor guide: {chapter_title(chapter)}\n",
             "## Learning objectives\n\n_To be written._\n",
             "## Suggested lecture flow\n\n_To be written._\n",
             "## Misconceptions to target\n\n_To be written._\n"]
    for name in BLOCKS:
        parts.append(f"## {BLOCK_TITLES[name]}\n\n{_wrap(name, '')}\n")
    return "\n".join(parts)


def render(text: str, blocks: dict[str, str]) -> str:
    """``text`` with each generated block replaced (or appended under its heading)."""
    for name, body in blocks.items():
        pattern = re.compile(_BLOCK_RE.format(name=re.escape(name)), flags=re.S)
        new = _wrap(name, body)
        if pattern.search(text):
            text = pattern.sub(lambda _m: new, text, count=1)
        else:
            text = text.rstrip("\n") + f"\n\n## {BLOCK_TITLES[name]}\n\n{new}\n"
    return text if text.endswith("\n") else text + "\n"


def guide_path(chapter: str) -> Path:
    return guides_dir() / f"{chapter}.md"


def refresh(chapter: str, check: bool = False) -> bool:
    """Refresh one guide; returns whether it changed (or, with ``check``, would change)."""
    path = guide_path(chapter)
    old = path.read_text(encoding="utf-8") if path.exists() else None
    new = render(old if old is not None else skeleton(chapter), blocks_for(chapter))
    if new == old:
        return False
    if not check:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(new, encoding="utf-8")
    return True


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("chapters", nargs="*", help=f"chapter folders (default: {' '.join(CHAPTERS)})")
    ap.add_argument("--check", action="store_true", help="exit 1 if a guide's generated blocks are stale")
    a = ap.parse_args(argv)
    stale = []
    for chapter in a.chapters or CHAPTERS:
        if refresh(chapter, check=a.check):
            stale.append(chapter)
            print(("stale: " if a.check else "updated: ") + guide_path(chapter).relative_to(repo_root()).as_posix())
    if a.check and stale:
        print("run: workbook instructor", file=sys.stderr)
        return 1
    if not stale:
        print("instructor guides are up to date")
    return 0


if __name__ == "__main__":
    sys.exit(main())
