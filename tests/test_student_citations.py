"""Student-facing text cites the books by their own numbering, never by a line of the source file.

A reader holding the printed book can follow "§28.9", "Eq. 28.12", "Table 2.3", "Fig. 3.7" or
"Exercise 28.6"; a line number of the source text file means nothing to them. Line numbers serve
the audit and stay there: the ``where=`` of ``book_says``/``assume``/``vendor_note`` calls, the
folded ``numbers-checked`` cells, the ledger, the instructor pages and the tests.

Student-facing text, as checked here, in the notebook sources of ``chapters/``, ``solutions/``
and ``exercises/``:

* every markdown cell not tagged ``numbers-checked``;
* in code cells not tagged ``numbers-checked``: every string literal (quiz questions, options and
  explanations, panel prompts, titles and ``where=`` headings, captions, printed text), except
  the arguments of the audit calls (``book_says``, ``assume``, ``vendor_note``), whose ``where=``
  is the ledger's location.

Code comments are not scanned.
"""
from __future__ import annotations

import ast
import re
from pathlib import Path

import jupytext
import pytest

ROOT = Path(__file__).resolve().parent.parent
FOLDERS = ("chapters", "solutions", "exercises")
AUDIT_CALLS = {"book_says", "assume", "vendor_note"}
FOLDED_TAG = "numbers-checked"

_N = r"\d[\d,]*"
#: a reference to a line of a source text file: "line 123", "lines 12–30", "Lines 12-30 and 40",
#: "l. 123", "ll. 12–30", "L123", "L. 123", "第123行", "第 123–130 行" (case matters for the
#: short forms: "L2" and "L40S" are a cache and a GPU, not lines)
LINE_REF = re.compile(
    rf"\b[Ll]ines?\s+{_N}"
    rf"|\b[Ll]{{1,2}}\.\s?{_N}"
    rf"|\bL\d{{2,}}\b"
    rf"|第\s*{_N}\s*(?:[-–—~～至到]\s*{_N}\s*)?行")

#: (path relative to the repository, the exact text of the reference, why it may stay)
ALLOWED: list[tuple[str, str, str]] = []


def line_refs(text: str) -> list[re.Match]:
    """The seed line references in a piece of student-facing text."""
    return list(LINE_REF.finditer(text))


def _strip_magics(source: str) -> str:
    return "\n".join("" if l.lstrip().startswith(("%", "!")) else l for l in source.splitlines())


def _call_name(node: ast.Call) -> str:
    f = node.func
    return f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else ""


def student_strings(source: str) -> list[tuple[int, str]]:
    """(line in the cell, text) of each string literal of a code cell shown to students: all of
    them except those inside an audit call (a panel's ``where=`` is shown in its heading, so it
    is student text)."""
    try:
        tree = ast.parse(_strip_magics(source))
    except SyntaxError:
        return [(i + 1, l) for i, l in enumerate(source.splitlines())]
    skip: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            if _call_name(node) in AUDIT_CALLS:
                skip.update(id(n) for n in ast.walk(node))
    return [(node.lineno, node.value) for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in skip]


def _cell_start_lines(raw: str, cells) -> list[int]:
    """The line of the .md source at which each cell's text begins (for messages; 0 if not found)."""
    starts, cursor = [], 0
    for cell in cells:
        head = cell.source.strip()[:200]
        at = raw.find(head, cursor) if head else -1
        if at < 0:
            starts.append(0)
            continue
        starts.append(raw.count("\n", 0, at) + 1)
        cursor = at + len(head)
    return starts


def scan_notebook(nb, path: Path | None = None) -> list[tuple[int, str, str]]:
    """(approximate .md line, the reference, its context) for every seed line reference in the
    student-facing text of a notebook."""
    raw = path.read_text(encoding="utf-8") if path is not None else ""
    starts = _cell_start_lines(raw, nb.cells)
    found = []
    for cell, start in zip(nb.cells, starts):
        if FOLDED_TAG in cell.metadata.get("tags", []):
            continue                                  # a folded check: the audit's place
        if cell.cell_type == "markdown":
            for m in line_refs(cell.source):
                lead = len(cell.source) - len(cell.source.lstrip())
                off = cell.source.count("\n", lead, m.start())
                found.append((start + off, m.group(0), _context(cell.source, m)))
        elif cell.cell_type == "code":
            for lineno, s in student_strings(cell.source):
                for m in line_refs(s):
                    found.append((start + lineno - 1, m.group(0), _context(s, m)))
    return found


def _context(text: str, m: re.Match) -> str:
    return text[max(0, m.start() - 50): m.end() + 30].replace("\n", " ")


def student_sources() -> list[Path]:
    return sorted(p for d in FOLDERS for p in (ROOT / d).rglob("*.md")
                  if not any(part.startswith(".") or part == "_build" for part in p.parts))


def scan_file(path: Path) -> list[tuple[int, str, str]]:
    rel = str(path.relative_to(ROOT))
    allowed = {(a, t) for a, t, _ in ALLOWED}
    return [f for f in scan_notebook(jupytext.read(path), path) if (rel, f[1]) not in allowed]


SOURCES = student_sources()


def test_there_are_student_sources():
    assert len(SOURCES) > 60


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(ROOT)))
def test_student_text_cites_the_book_not_its_source_lines(path):
    found = scan_file(path)
    assert not found, (
        f"{path.relative_to(ROOT)} cites lines of the source text where a reader needs the book's "
        "own numbering (§, Eq., Table, Fig., Example, Exercise):\n"
        + "\n".join(f"  line {n}: {ref!r} in ...{ctx}..." for n, ref, ctx in found))


def test_allow_list_entries_are_explained_and_used():
    for rel, text, why in ALLOWED:
        assert why.strip(), f"{rel}: an allowed reference needs its reason"
        assert any(t == text for _, t, _ in scan_notebook(jupytext.read(ROOT / rel))), (
            f"{rel}: the allowed reference {text!r} is no longer there; drop the entry")


def test_the_detector_flags_line_references_and_spares_book_numbering():
    md = """---
jupytext:
  text_representation:
    format_name: myst
kernelspec:
  display_name: Python 3 (ipykernel)
  language: python
  name: python3
---
+++

The ring's two phases are in the book's worked example (lines 385–393), see Eq. 28.12.

+++

Table 2.3 lists the TPU generations; §28.9 and Fig. 3.7 say the rest.

```{code-cell} ipython3
book_says(x, "25", where="§28.9, line 363", name="speed-up")
quiz(question("Which term dominates?", ("α", "see Eq. 28.12", True), ("β", "Table 2.3")))
```

```{code-cell} ipython3
panel(f, prompt="Predict first: what does the text at line 2641 claim?")
```

```{code-cell} ipython3
:tags: [numbers-checked, hide-input]

check(y, "2", note="lines 12-30 of the source")
```
"""
    nb = jupytext.reads(md, fmt="md:myst")
    refs = [r for _, r, _ in scan_notebook(nb)]
    assert refs == ["lines 385", "line 2641"], refs
    for bad in ("(lines 385–393)", "line 2641", "Lines 409–426, 616–619", "l. 123", "ll. 12–30",
                "L123", "第123行", "第 2641–2650 行", "source lines 160–166"):
        assert line_refs(bad), bad
    for good in ("Eq. 28.12", "Table 2.3", "§28.9", "Exercise 28.6", "Fig. 3.7", "an L2 cache",
                 "the L40S and the L4", "a 400 Gb/s line rate", "Example 27.1", "Algorithm 28.2",
                 "line rate of 50 GB/s", "the first line of the table", "第 28 章"):
        assert not line_refs(good), good


def test_a_source_as_a_reader_cites_it():
    """The worked step's "Where it comes from", an equation's reference and the running job's table
    print the book's numbering; the seed lines stay in the data for the audit (hand-made cases)."""
    from fleetcalc.core.cite import for_reader

    assert for_reader("Vol. 2 Ch. 2, lines 1334 and 1768 (peak per watt of TDP)") == "Vol. 2 Ch. 2 (peak per watt of TDP)"
    assert for_reader("Vol. 2 Ch. 3 §3.1 (line 2535); Fig. 3.3 caption (line 2547)") == "Vol. 2 Ch. 3 §3.1; Fig. 3.3 caption"
    assert for_reader("Ch. 28 §28.5, Eq. 28.12") == "Ch. 28 §28.5, Eq. 28.12"
    assert for_reader("Table 2.6 (line 1808)") == "Table 2.6"


def test_worked_steps_and_the_job_table_cite_without_lines():
    from fleetcalc.core.cite import LINE_REF
    from fleetcalc.core.job import our_job
    from fleetcalc.core.units import Q_
    from fleetcalc.physics import energy

    # energy.mac_energy's reference carries a seed line in the data ("Vol. 2 Ch. 2, line 1852 (...)")
    assert LINE_REF.search(energy.mac_energy.equation.ref)
    step = energy.mac_energy.work(175e9, Q_(1, "pJ"))
    for text in (our_job.table()._repr_markdown_(), step._repr_markdown_(), str(step)):
        found = LINE_REF.search(text)
        assert not found, found.group(0)
