"""Generated reference pages of the site (never typed by hand).

* number ledger: every record of ``book_says``, ``vendor_note`` and ``assume`` in the executed
  notebooks' outputs (read by ``fleetcalc.core.ledger.read_ledger``), with the book location,
  the printed value, the recomputed value, the status, and the counts per chapter;
* errata: one section per class of finding (erratum, caveat, vendor note, reconstruction) with
  the book value, the recomputed value and the note; the vendor-note section also lists the
  catalog's vendor notes (``fleetcalc.core.catalog.vendor_notes()``);
* glossary: English <-> Chinese (site/glossary.toml), each term linked to the pages that use it;
* notation: the symbol table of lib/fleetcalc/core/notation.py;
* formula sheets, one per chapter: every declared equation its sections compute with.

workbook/site/build.py calls :func:`generate` for each site; the pages land in _build/.stage/<site>/reference/.

    workbook reference-pages glossary-lines --seeds /path/to/seeds
    workbook reference-pages cited-lines --seeds /path/to/seeds
        (the second) rewrites tests/data/cited_source_lines.txt, the source lines that book_says
        checks cite, for the citation test;
        rewrites tests/data/glossary_source_lines.txt, the extract of the seed lines the glossary's
        Chinese terms come from (the seeds are not in the repository; the extract is).
"""
from __future__ import annotations

import argparse
import json
import re
import sys
import tomllib
from functools import lru_cache
from collections import Counter, OrderedDict
from pathlib import Path

from fleetcalc.core import ledger
from fleetcalc.core.ledger import KINDS, Record, read_ledger
from workbook import repo_root
def glossary_path() -> Path:
    """The glossary's data."""
    return repo_root() / "site" / "glossary.toml"

def glossary_lines_path() -> Path:
    """The glossary's source lines, as the reference pages cite them."""
    return repo_root() / "tests" / "data" / "glossary_source_lines.txt"

STATUS_LABEL = {"confirmed": "✓ confirmed", "erratum": "erratum", "caveat": "caveat", "vendor": "vendor note",
                "reconstruction": "reconstruction", "assumed": "assumed"}
COLUMN = {"confirmed": "confirmed", "erratum": "errata", "caveat": "caveats", "vendor": "vendor notes",
          "reconstruction": "reconstructions", "assumed": "assumed"}
# the summary's column heads, with soft hyphens where a narrow column may break them (never mid-syllable)
SHORT_COLUMN = {"confirmed": "con\u00adfirmed", "erratum": "errata", "caveat": "cave\u00adats",
                "vendor": "ven\u00addor notes", "reconstruction": "recon\u00adstruc\u00adtions", "assumed": "as\u00adsumed"}
#: The errata page: one section per class, with an honest heading and what the class means.
SECTIONS = {
    "erratum": ("Errata: the printed number does not follow from the book's own inputs",
                "The book's stated inputs give another number, and the gap is larger than the printed "
                "precision and the book's own hedging (about, roughly, may, a range) allow. The check "
                "passes only while the printed number is still wrong, with the corrected value pinned."),
    "caveat": ("Caveats: the number follows, but its method or an unstated assumption misleads",
               "The arithmetic is the book's and it checks; the note says how the number can mislead "
               "(a precision mix, a hedged claim its inputs do not give). A caveat fails if the number "
               "stops following from its inputs (or, for a hedged claim, if the gap closes)."),
    "vendor": ("Vendor notes: the book's hardware figure differs from the vendor's published figure",
               "The workbook computes with the book's figure; the vendor's published figure and its "
               "source sit beside it. A note fails the day the two agree."),
    "reconstruction": ("Reconstructions: rebuilt from missing text or back-solved from a printed result",
                       "A value the text does not give, rebuilt from damaged or missing text or solved "
                       "back from the printed result it is then checked against. It agrees by "
                       "construction, so it is never counted as a confirmation."),
}


# ----------------------------------------------------------------------------- parsing

@lru_cache(maxsize=None)
def _cells(path: Path, mtime: float) -> tuple:
    return tuple(json.loads(path.read_text(encoding="utf-8")).get("cells", []))


def cells(path: Path) -> tuple:
    """The cells of a notebook (cached per file version)."""
    return _cells(path, path.stat().st_mtime)


def notebook_entries(path: Path) -> list[Record]:
    """The ledger records in the stored outputs of an executed notebook (in cell order)."""
    if path.suffix != ".ipynb" or not path.is_file():
        return []
    return read_ledger({"cells": cells(path)})


def notebook_title(path: Path) -> str:
    """The first markdown heading of a notebook page (its title on the site)."""
    if path.suffix == ".ipynb":
        texts = ["".join(c["source"]) if isinstance(c["source"], list) else c["source"]
                 for c in cells(path) if c.get("cell_type") == "markdown"]
    else:
        texts = [path.read_text(encoding="utf-8")]
    for t in texts:
        m = re.search(r"^#\s+(.+?)\s*$", t, re.M)
        if m:
            return m.group(1)
    return path.stem


def markdown_text(path: Path) -> str:
    """The prose of a page: markdown cells of a notebook, or the whole .md page."""
    if path.suffix == ".ipynb":
        return "\n".join("".join(c["source"]) if isinstance(c["source"], list) else c["source"]
                         for c in cells(path) if c.get("cell_type") == "markdown")
    return path.read_text(encoding="utf-8")


def ledger_pages(pages) -> list:
    """The pages whose checks the ledger lists: chapters, plus solutions (instructor site) or
    exercises (student site; the exercise notebooks are generated from the solutions, so the
    instructor ledger reads the solutions and not both)."""
    kinds = {"chapter"} | ({"solution"} if any(p.kind == "solution" for p in pages) else {"exercise"})
    # only pages inside a chapter folder (the topic map, chapters/topic_map, is no chapter)
    return [p for p in pages if p.kind in kinds and p.src is not None and len(Path(p.doc).parts) >= 3]


def chapter_of(page) -> str:
    return Path(page.doc).parent.name


# ----------------------------------------------------------------------------- markdown helpers

_ESC = re.compile(r"([\\`*_{}\[\]<>|$#~])")


def esc(text: str) -> str:
    """Escape text for a MyST table cell (no emphasis, math, roles or column breaks)."""
    return _ESC.sub(r"\\\1", str(text)).replace("\n", " ")


def doc_link(page, title: str | None = None) -> str:
    t = (title or notebook_title(page.src)).replace("`", "'").replace("<", "‹").replace(">", "›")
    return f"{{doc}}`{t} </{page.doc}>`"


def list_table(rows: list[list[str]], header: list[str], name: str | None = None, widths=None) -> str:
    lines = ["````{list-table}", f":header-rows: 1"]
    if name:
        lines.append(f":name: {name}")
    if widths:
        lines.append(":widths: " + " ".join(str(w) for w in widths))
    lines.append("")
    for row in [header] + rows:
        lines.append("* - " + (row[0] or " "))
        for c in row[1:]:
            lines.append("  - " + (c or " "))
    lines.append("````")
    return "\n".join(lines) + "\n"


# ----------------------------------------------------------------------------- pages

def ledger_data(pages, titles: dict) -> "OrderedDict[str, list[tuple]]":
    """chapter folder -> [(page, [Record, ...]), ...] in site order."""
    data: OrderedDict[str, list] = OrderedDict()
    for p in ledger_pages(pages):
        data.setdefault(chapter_of(p), []).append((p, notebook_entries(p.src)))
    return data


def cards(rows: list[list[str]], header: list[str], name: str | None = None, classes: str = "") -> str:
    """A table whose rows become labelled cards on a narrow screen (site/_static/reference.css):
    every cell is kept whole and wraps, none is cut at the page edge."""
    cls = ("reference-cards " + classes).strip()
    lines = ["````{list-table}", ":header-rows: 1", f":class: {cls}"]
    if name:
        lines.append(f":name: {name}")
    lines.append("")
    for i, row in enumerate([header] + rows):
        lines.append("* - " + (row[0] or " "))
        for c in row[1:]:
            lines.append("  - " + (c or " "))
    lines.append("````")
    return "\n".join(lines) + "\n"


def filter_box(kind: str, chapters: list[str] | None = None, kinds: list[str] | None = None,
               placeholder: str = "Filter") -> str:
    """A search box (and selects) that filters the rows of this page's tables (site/_static/workbook.js)."""
    opts = ""
    if chapters:
        opts += ("<label>chapter <select class='ref-filter-chapter'><option value=''>all chapters</option>"
                 + "".join(f"<option>{html_escape(c)}</option>" for c in chapters) + "</select></label> ")
    if kinds:
        opts += ("<label>kind <select class='ref-filter-kind'><option value=''>every kind</option>"
                 + "".join(f"<option>{html_escape(k)}</option>" for k in kinds) + "</select></label> ")
    return ("\n```{raw} html\n"
            f"<form class='ref-filter ref-filter-{kind}' role='search' onsubmit='return false'>"
            f"<label>search <input type='search' class='ref-filter-text' placeholder='{html_escape(placeholder)}' "
            f"aria-label='{html_escape(placeholder)}'></label> {opts}"
            "<output class='ref-filter-count' aria-live='polite'></output></form>\n```\n")


def html_escape(t: str) -> str:
    import html as _h
    return _h.escape(str(t), quote=True)


def slug(text: str) -> str:
    t = re.sub(r"[^a-z0-9]+", "-", re.sub(r"\(.*?\)", "", text.lower())).strip("-")
    return t or "term"


def ledger_page(pages, book: dict, site: str) -> str:
    titles = book.get("chapter_titles", {})
    data = ledger_data(pages, titles)
    total = Counter()
    summary = []
    for ch, items in data.items():
        c = ledger.counts([e for _, es in items for e in es])
        total += c
        summary.append([esc(titles.get(ch, ch)), str(len(items))] + [str(c[k]) for k in KINDS] + [str(sum(c.values()))])
    summary.append(["**all chapters**", str(sum(len(v) for v in data.values()))] + [str(total[k]) for k in KINDS]
                   + [str(sum(total.values()))])
    scope = ("chapter and solution notebooks" if site == "instructor" else "chapter and exercise notebooks")
    out = [
        "# Number ledger\n",
        "Every number the two source texts print, as this workbook recomputes it. The ledger is made "
        f"from the stored outputs of the executed {scope}, so it can never disagree with them: each row "
        "is one line printed by `book_says`, `vendor_note` or `assume`. A row is **confirmed** (the "
        "recomputed value agrees with the book at its printed precision), an **erratum** (the book's "
        "inputs give another number), a **caveat** (it follows, but misleads), a **vendor note** (the "
        "book's hardware figure differs from the vendor's), a **reconstruction** (rebuilt or back-solved, "
        "so never a confirmation) or **assumed** (an input the text leaves out). The recomputed value "
        "carries one more digit than the book prints. See also {doc}`errata </reference/errata>`.\n",
        "## Counts per chapter\n",
        cards(summary, ["chapter", "note\u00adbooks"] + [SHORT_COLUMN[k] for k in KINDS] + ["total"], name="ledger-summary",
              classes="ledger-summary"),
        "## Every checked number\n",
        "Pick a chapter or a kind, or type a quantity, a location (Eq. 28.12, Table 2.3) or a value; "
        "the sections below keep only the rows that match.\n",
        filter_box("ledger", [titles.get(ch, ch) for ch in data], [STATUS_LABEL[k].replace("✓ ", "") for k in KINDS],
                   "quantity, location or value"),
    ]
    for ch, items in data.items():
        out.append(f"### {titles.get(ch, ch)}\n")
        rows = []
        for p, entries in items:
            for e in entries:
                rows.append([doc_link(p), esc(e.where), esc(e.name), esc(e.printed or "—"), esc(e.shown),
                             STATUS_LABEL[e.kind] + (": " + esc(e.detail()) if e.kind != "confirmed" and e.detail() else "")])
        if rows:
            out.append(cards(rows, ["notebook", "book location", "quantity", "book prints", "re\u00adcom\u00adputed",
                                    "status"], classes="ledger-detail"))
        else:
            out.append("No checked numbers in this chapter's notebooks yet.\n")
    return "\n".join(out)


def findings(pages, book: dict) -> dict[str, list]:
    """class -> [(chapter title, page, Record), ...] in site order."""
    titles = book.get("chapter_titles", {})
    found: dict[str, list] = {k: [] for k in SECTIONS}
    for ch, items in ledger_data(pages, titles).items():
        for p, entries in items:
            for e in entries:
                if e.kind in found:
                    found[e.kind].append((titles.get(ch, ch), p, e))
    return found


def catalog_vendor_rows() -> list[list[str]]:
    """The catalog's vendor notes (``fleetcalc.core.catalog.vendor_notes()``): entries whose book figure
    differs from the vendor's published one, as rows of the errata page."""
    from fleetcalc.core.catalog import vendor_notes
    from fleetcalc.core.units import fmt

    def show(q) -> str:
        return fmt(q, None if q.dimensionless else "auto", sig=4)

    rows = []
    for path, e in vendor_notes().items():
        vendor = show(e.vendor_quantity) if e.vendor_quantity is not None else "none published"
        what = e.label or f"{e.product}: {path.split('.', 1)[1].replace('_', ' ')}"
        rows.append([esc(e.source), esc(what), esc(show(e.quantity)), esc(vendor),
                     esc(e.vendor_note) + (" Source: " + esc(e.vendor_source) if e.vendor_source else "")])
    return rows


def errata_page(pages, book: dict, site: str) -> str:
    found = findings(pages, book)
    n = {k: len(v) for k, v in found.items()}
    catalog_rows = catalog_vendor_rows()
    out = ["# Errata, caveats, vendor notes and reconstructions\n",
           "What the source texts get wrong, or what a check cannot confirm, in four classes. Each is "
           "recorded in the notebook where the number is taught, by a check that fails the day it stops "
           "being what it says, so these lists cannot go stale. Generated from the notebooks' outputs "
           "and, for the catalog's vendor notes, from the hardware catalog.\n",
           f"{n['erratum']} errata, {n['caveat']} caveats, {n['vendor']} vendor notes in the notebooks "
           f"(and {len(catalog_rows)} in the catalog) and {n['reconstruction']} reconstructions.\n"]
    headers = {
        "erratum": ["book location", "quantity", "book prints", "the book's inputs give", "cause", "notebook"],
        "caveat": ["book location", "quantity", "book prints", "re\u00adcom\u00adputed", "how it misleads", "notebook"],
        "vendor": ["book location", "quantity", "book's figure", "vendor's figure", "source and note", "notebook"],
        "reconstruction": ["book location", "quantity", "book prints", "rebuilt value gives", "what was rebuilt, from what",
                           "notebook"],
    }
    for k, (heading, meaning) in SECTIONS.items():
        out.append(f"## {heading}\n")
        out.append(meaning + "\n")
        rows = [[esc(e.where), esc(e.name), esc(e.printed), esc(e.value), esc(e.detail()),
                 doc_link(p) + f" ({esc(ch)})"] for ch, p, e in found[k]]
        if rows:
            out.append(cards(rows, headers[k], name=f"{k}-table", classes=f"findings findings-{k}"))
        else:
            out.append("None recorded in the notebooks.\n")
        if k == "vendor":
            out.append("### Vendor notes in the hardware catalog\n")
            out.append("Every hardware figure of a real product in the catalog carries the vendor's published "
                       "figure beside the book's (`fleetcalc.core.catalog.vendor_table`). These entries differ by more "
                       "than the catalog's tolerance; the notebooks compute with the book's figure.\n")
            if catalog_rows:
                out.append(cards(catalog_rows, ["book location", "quantity", "book's figure", "vendor's figure",
                                                "note and source"], name="vendor-catalog-table",
                                 classes="findings findings-vendor"))
            else:
                out.append("None in the catalog.\n")
    return "\n".join(out)


def load_glossary(path: Path | None = None) -> dict:
    path = path if path is not None else glossary_path()
    with open(path, "rb") as f:
        return tomllib.load(f)


def _search_terms(term: dict) -> list[re.Pattern]:
    en = term["en"]
    words = [re.sub(r"\s*\(.*?\)", "", en).strip()]
    words += re.findall(r"\(([^)]+)\)", en)
    words += term.get("search", [])
    pats = [re.compile(r"(?<![A-Za-z])" + re.escape(w) + r"(?![A-Za-z])", re.I) for w in words if w]
    pats += [re.compile(re.escape(z)) for z in term["zh"]]
    return pats


def glossary_usage(pages, gloss: dict) -> dict[str, list]:
    """English term -> the pages (chapters, exercises, solutions) whose prose uses it."""
    texts = [(p, markdown_text(p.src)) for p in pages if p.src is not None and p.kind in
             ("chapter", "exercise", "solution")]
    usage = {}
    for term in gloss["term"]:
        pats = _search_terms(term)
        usage[term["en"]] = [p for p, t in texts if any(pt.search(t) for pt in pats)]
    return usage


def glossary_page(pages, book: dict, site: str) -> str:
    gloss = load_glossary()
    usage = glossary_usage(pages, gloss)
    seeds = gloss.get("seeds", {})
    rows = []
    for term in sorted(gloss["term"], key=lambda t: t["en"].lower()):
        zh = " / ".join(term["zh"])
        src = ", ".join(f"{seeds.get(s.split(':')[0], {}).get('text', s.split(':')[0]).split(',')[0]} line {s.split(':')[1]}"
                        for s in term["source"])
        used = ", ".join(doc_link(p) for p in usage[term["en"]]) or "—"
        sid = "term-" + slug(term["en"])
        rows.append([f"<a class='term-anchor' id=\"{sid}\" href='#{sid}'>{html_escape(term['en'])}</a>",
                     esc(zh), used, esc(src)])
    by_zh = sorted(((z, t["en"]) for t in gloss["term"] for z in t["zh"]), key=lambda x: x[0])
    out = ["# Glossary (English ↔ 中文)\n",
           "The terms a student is likely to search for, in English and as the source texts write them in "
           "Chinese, with the notebooks whose text uses them. Each Chinese term was taken from the line "
           "of the source text named in the last column (a test checks every one against that line). "
           "Use the search box (top left) with either spelling.\n",
           f"{len(rows)} terms. Each term has its own address (click it to copy the link); the box "
           "below keeps only the terms that match what you type, in English or in Chinese.\n",
           filter_box("glossary", placeholder="a term, in English or 中文"),
           "## English → 中文\n",
           cards(rows, ["English", "中文", "used in", "source text"], name="glossary-table", classes="glossary"),
           "## 中文 → English\n",
           cards([[esc(z), f"<a href='#term-{slug(en)}'>{html_escape(en)}</a>"] for z, en in by_zh], ["中文", "English"],
                 name="glossary-zh", classes="glossary-zh")]
    return "\n".join(out)


def notation_page(pages, book: dict, site: str) -> str:
    try:
        from fleetcalc.core import notation
    except Exception as exc:  # pragma: no cover - a broken notation module: say so on the page
        return ("# Notation\n\nThe symbol table (lib/fleetcalc/core/notation.py) could not be imported: "
                f"`{type(exc).__name__}`.\n")

    def sym(latex: str) -> str:
        return f"${latex}$" if latex else ""

    out = ["# Notation\n",
           "The symbols of MLSysBook Vol. 2 (its notation conventions and Ch. 1), generated from the "
           "library's symbol table (`fleetcalc.core.notation`), with the unit each carries, the parameter name "
           "the calculators use, and the line of the source text that defines it. Chapter 28 uses a few "
           "of the same letters for other things; the clashes are listed at the end.\n",
           filter_box("notation", placeholder="a symbol's meaning, unit or name")]
    seen: set = set()
    for group, caption in notation.GROUPS.items():
        syms = notation.by_group().get(group, [])
        if not syms:
            continue
        out.append(f"## {esc(caption)}\n")
        rows = []
        for s in syms:
            sid = "sym-" + slug(s.lib_name or s.meaning)
            while sid in seen:
                sid += "-2"
            seen.add(sid)
            rows.append([f"<a class='term-anchor' id=\"{sid}\" href='#{sid}' aria-label='link to this symbol'>#</a> " + sym(s.latex),
                         esc(s.meaning), esc(s.unit or "—"), esc(s.chinese or ""),
                         f"`{s.lib_name}`" if s.lib_name and "`" not in s.lib_name else esc(s.lib_name),
                         str(s.source_line), esc(s.note)])
        out.append(cards(rows, ["symbol", "meaning", "unit", "中文", "fleetcalc", "line", "note"], classes="notation"))
    if getattr(notation, "LIB_ONLY", None):
        out.append("## Symbols the library adds\n")
        out.append(list_table([[sym(s.latex), esc(s.meaning), esc(s.unit or "—"),
                                f"`{s.lib_name}`" if s.lib_name else "", esc(s.note)] for s in notation.LIB_ONLY],
                              ["symbol", "meaning", "unit", "fleetcalc", "note"]))
    if getattr(notation, "PRECISIONS", None):
        out.append("## Number formats\n")
        out.append(list_table([[esc(p.name), str(p.bits), f"{p.bytes:g}", str(p.source_line), esc(p.note)]
                               for p in notation.PRECISIONS], ["format", "bits", "bytes", "line", "note"]))
    if getattr(notation, "CLASHES", None):
        out.append("## Clashes: one letter, several meanings\n")
        rows = [[esc(c.symbol), esc("; ".join(c.meanings)), esc(c.resolution),
                 "yes" if c.stated else ("the library's" if c.library else "**no**"), esc(", ".join(map(str, c.source_lines))), esc(c.note)]
                for c in notation.CLASHES]
        out.append(list_table(rows, ["symbol", "meanings", "resolution", "the book says so", "lines", "note"],
                              name="notation-clashes"))
    src = getattr(notation, "SOURCE", "")
    out.append(f"\nLine numbers refer to the source text `{esc(src)}`.\n")
    return "\n".join(out)


# ----------------------------------------------------------------------------- formula sheets

#: chapter folders that get a formula sheet, in the order of the site
FORMULA_CHAPTERS = ("v2_notation", "v2_ch1", "v2_ch2", "v2_ch3", "ch28", "capstone")


def _calculator_index() -> dict[str, object]:
    """"module.name" -> declared calculator, for every public calculator in fleetcalc.physics."""
    import importlib
    import pkgutil

    import fleetcalc.physics
    from fleetcalc.core.calculator import calculators_in

    out = {}
    for m in sorted(pkgutil.iter_modules(fleetcalc.physics.__path__), key=lambda m: m.name):
        if not m.name.startswith("_"):
            mod = importlib.import_module(f"fleetcalc.physics.{m.name}")
            out.update({f"{m.name}.{n}": c for n, c in calculators_in(mod).items()})
    return out


def calculators_taught(pages, chapter: str) -> "OrderedDict[str, object]":
    """"module.name" -> the first chapter page that calls it, in reading order (from the
    pages' MyST sources, where the calls are written ``module.name(...)``)."""
    index = _calculator_index()
    found: OrderedDict[str, object] = OrderedDict()
    for pg in pages:
        if pg.kind != "chapter" or pg.src is None or chapter_of(pg) != chapter:
            continue
        md = pg.src.with_suffix(".md")
        text = md.read_text(encoding="utf-8") if md.is_file() else markdown_text(pg.src)
        hits = sorted((m.start(), m.group(1)) for m in re.finditer(r"\b([a-z_]+\.[a-z_0-9]+)\s*(?:\(|\.work\()", text)
                      if m.group(1) in index)
        for _, name in hits:
            found.setdefault(name, pg)
    return found


def _input_text(calc, name: str, e) -> str:
    p = calc.params[name]
    unit = {"quantity": p.unit, "amount": p.unit, "whole": "count", "choice": "name"}.get(p.kind, "number")
    doc = f' <span class="fs-doc">{esc(p.doc)}</span>' if p.doc else ""
    return f"${e.sym(name)}$ {esc(unit)}{doc}"


def formula_page(pages, book: dict, site: str, chapter: str) -> str:
    """One chapter's formula sheet: every equation its sections compute with, in teaching order,
    from the calculators' own declarations (fleetcalc.core.equation)."""
    from fleetcalc.core.equation import equations_of

    title = book.get("chapter_titles", {}).get(chapter, chapter)
    out = [f"# Formula sheet: {esc(title)}\n",
           "```{div} formula-sheet-intro\n"
           "Every equation this chapter's sections compute with, in the order they are taught, generated "
           "from the calculators' own declarations: the equation shown here is the one the code runs (a test "
           "evaluates each against its calculator). Inputs are listed with the unit the calculator expects "
           "(any compatible unit converts). Print it: it is laid out for two sides of A4.\n```\n"]
    taught = calculators_taught(pages, chapter)
    index = _calculator_index()
    rows, section = [], None
    for name, pg in taught.items():
        calc = index[name]
        for e in equations_of(calc):
            if pg is not section:
                section = pg
                rows.append([f"**{doc_link(pg)}**", " ", " ", " "])
            inputs = "; ".join(_input_text(calc, n, e) for n in e.names)
            rows.append([f"${e.latex()}$", inputs, esc(e.ref), f"`{name}`"])
    if not rows:
        out.append("No section of this chapter computes with a declared equation yet.\n")
    else:
        out.append(cards(rows, ["equation", "inputs, unit", "source", "calculator"],
                         name=f"formulas-{chapter}", classes="formula-sheet"))
    return "\n".join(out)


PAGES = {"reference/ledger.md": ledger_page, "reference/errata.md": errata_page,
         "reference/glossary.md": glossary_page, "reference/notation.md": notation_page,
         **{f"reference/formulas-{ch}.md": (lambda pages, book, site, ch=ch: formula_page(pages, book, site, ch))
            for ch in FORMULA_CHAPTERS}}


def generate(site: str, pages, book: dict) -> dict[str, str]:
    """rel path -> MyST text of every generated page, for one site's list of pages."""
    return {rel: fn(pages, book, site) for rel, fn in PAGES.items()}


# ----------------------------------------------------------------------------- glossary extract

def glossary_lines(seeds: Path, out: Path | None = None) -> int:
    """Write the extract of the seed lines the glossary's Chinese terms come from.

    One line per (source, term): ``000:172<TAB>term<TAB>excerpt``, the excerpt being the seed
    line cut to at most 60 characters either side of the term (a substring of the line).
    """
    out = out if out is not None else glossary_lines_path()
    gloss = load_glossary()
    files = {k: v["file"] for k, v in gloss["seeds"].items()}
    texts = {k: (seeds / f).read_text(encoding="utf-8").splitlines() for k, f in files.items()}
    rows = []
    for term in gloss["term"]:
        for zh, src in zip(term["zh"], term["source"], strict=True):
            key, line = src.split(":")
            text = texts[key][int(line) - 1]
            i = text.find(zh)
            if i < 0:
                raise SystemExit(f"glossary: {zh!r} ({term['en']}) is not on line {src}")
            rows.append(f"{src}\t{zh}\t{text[max(0, i - 60): i + len(zh) + 60]}")
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text("# seed:line<TAB>term<TAB>excerpt of that line (generated by workbook reference-pages "
                   "glossary-lines; seeds: " + ", ".join(f"{k}={v}" for k, v in files.items()) + ")\n"
                   + "\n".join(rows) + "\n", encoding="utf-8")
    return len(rows)


# ----------------------------------------------------------------------------- citations

def cited_lines_path() -> Path:
    """The source lines the notebooks cite."""
    return repo_root() / "tests" / "data" / "cited_source_lines.txt"

SEED_FILES = {"000": "000_fff1170a72f11f87.txt", "001": "001_500bbf168f63cec3.txt"}
_CITE = re.compile(r"\blines?\s+(\d+)((?:\s*(?:[-–,]|and)\s*\d{2,}(?![\d,]))*)")
_SUP = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹⁻", "0123456789-")
_ZH_DIGIT = {"一": 1, "两": 2, "二": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9, "十": 10}


def seed_key(page_path: Path) -> str:
    """Which source text a notebook cites by line: Chapter 28 (000) or Vol. 2 (001)."""
    return "000" if "ch28" in Path(page_path).parts else "001"


def cited_line_numbers(where: str) -> list[int]:
    """``"lines 1438-1440"`` -> [1438, 1439, 1440]; ``"lines 1512, 1826"`` -> [1512, 1826]; [] if none."""
    m = _CITE.search(where)
    if not m:
        return []
    rest = m.group(2) or ""
    nums = [int(m.group(1))] + [int(x) for x in re.findall(r"\d+", rest)]
    if len(nums) == 2 and re.match(r"\s*[-–]", rest) and 0 < nums[1] - nums[0] <= 20:
        return list(range(nums[0], nums[1] + 1))
    return nums


def source_values(text: str) -> list[float]:
    """Every number a source line states, as a float: digits with thousands separators, ×10ⁿ,
    万/亿 multipliers, fractions a/b and X 分之一, both ends and the midpoint of a range, and the
    small Chinese numerals before 倍 / 个数量级 / 番 (翻倍 = 2, 翻了两番 = 4)."""
    t = text.replace("\u202f", "").replace("\u2009", "").replace("\xa0", " ").translate(_SUP)
    t = re.sub(r"(?<=\d),\s?(?=\d{3}(?!\d))", "", t)
    t = re.sub(r"(?<=\d),\s?(?=\d{3}(?!\d))", "", t)
    vals: list[float] = []
    num = r"(\d+(?:\.\d+)?)"
    for m in re.finditer(num + r"(?:\s*[×x]\s*10\^?(-?\d+))?\s*(万|亿)?", t):
        v = float(m.group(1)) * (10.0 ** int(m.group(2)) if m.group(2) else 1.0)
        v *= {"万": 1e4, "亿": 1e8}.get(m.group(3) or "", 1.0)
        vals.append(v)
    for m in re.finditer(num + r"\s*百万", t):
        vals.append(float(m.group(1)) * 1e6)
    for m in re.finditer(r"([一两二三四五六七八九十])个九", t):
        vals.append(100 * (1 - 10.0 ** -_ZH_DIGIT[m.group(1)]))
    for m in re.finditer(num + r"\s*/\s*" + num, t):
        if float(m.group(2)):
            vals.append(float(m.group(1)) / float(m.group(2)))
    mult = {"万": 1e4, "百万": 1e6, "亿": 1e8}
    for m in re.finditer(num + r"\s*[-–~～至到]\s*" + num + r"\s*(百万|万|亿)?", t):
        k = mult.get(m.group(3) or "", 1.0)
        vals += [float(m.group(1)) * k, float(m.group(2)) * k, (float(m.group(1)) + float(m.group(2))) / 2 * k]
    for m in re.finditer(r"([一两二三四五六七八九十])(?:个)?(?:数量级|倍|分之一|番|个九|块|台|张|个)", t):
        vals.append(float(_ZH_DIGIT[m.group(1)]))
    for m in re.finditer(r"([一两二三四五六七八九十])个?数量级", t):   # 一个数量级: also the factor, 10
        vals.append(10.0 ** _ZH_DIGIT[m.group(1)])
    for m in re.finditer(r"([一两二三四五六七八九十])分之一", t):
        vals.append(1 / _ZH_DIGIT[m.group(1)])
    if "翻倍" in t or "一倍" in t:
        vals.append(2.0)
    if "翻了两番" in t or "翻两番" in t:
        vals.append(4.0)
    return vals


def printed_number(printed: str) -> tuple[float, float]:
    """The number in a printed value (``"1.421e8 cu"``, ``"65 %"``) and half a unit in its last place."""
    m = re.match(r"\s*([-+]?[\d,]*\.?\d+)(?:\s*(?:e|×10\^?)\s*([-+]?\d+))?", printed.replace("\u202f", ""))
    if not m:
        raise ValueError(f"no number in {printed!r}")
    body = m.group(1).replace(",", "")
    exp = int(m.group(2) or 0)
    places = len(body.split(".")[1]) if "." in body else 0
    return float(body) * 10.0 ** exp, 0.5 * 10.0 ** (exp - places)


def line_holds(printed: str, text: str, scales=(1.0, 1e3, 1e-3, 1e2, 1e-2, 1e6, 1e9, 1e12)) -> bool:
    """Whether a source line states the printed number (at its printed precision; a unit prefix
    or a percent may shift it by a power of ten: 2.2 TB on a line of GB)."""
    v, half = printed_number(printed)
    for s in scales:
        for c in source_values(text):
            if abs(c * s - v) <= half * (1 + 1e-9) + 1e-12 * abs(v):
                return True
    return False


def cited_checks(pages_paths) -> list[tuple[Path, Record, str, list[int]]]:
    """(notebook, ledger entry, seed key, cited lines) for every printed value whose ``where``
    names a source line."""
    out = []
    for path in pages_paths:
        for e in notebook_entries(Path(path)):
            lines = cited_line_numbers(e.where)
            # a worded comparison ("> 1" for "far above") prints no number of its own to look up
            if e.printed and lines and e.printed[:1] not in "<>≤≥":
                out.append((Path(path), e, seed_key(path), lines))
    return out


def notebooks_with_checks() -> list[Path]:
    return sorted(list((repo_root() / "chapters").rglob("*.ipynb")) + list((repo_root() / "solutions").rglob("*.ipynb")))


def load_cited_lines(path: Path | None = None) -> dict[str, str]:
    """The committed extract: ``"001:1510"`` -> that source line's text."""
    path = path if path is not None else cited_lines_path()
    out = {}
    if path.exists():
        for row in path.read_text(encoding="utf-8").splitlines():
            if row and not row.startswith("#"):
                key, _, text = row.partition("\t")
                out[key] = text
    return out


def cited_lines(seeds: Path, out: Path | None = None) -> int:
    """Write the extract of every source line a check cites (so the citation test runs without
    the source texts)."""
    out = out if out is not None else cited_lines_path()
    texts = {k: (seeds / f).read_text(encoding="utf-8").splitlines() for k, f in SEED_FILES.items()}
    keys = sorted({(k, n) for _, _, k, ns in cited_checks(notebooks_with_checks()) for n in ns
                   if 0 < n <= len(texts[k])})
    rows = [f"{k}:{n}\t{texts[k][n - 1]}" for k, n in keys]
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text("# seed:line<TAB>the source line a book_says check cites (generated by workbook reference-pages "
                   "cited-lines; seeds: " + ", ".join(f"{k}={v}" for k, v in SEED_FILES.items()) + ")\n"
                   + "\n".join(rows) + "\n", encoding="utf-8")
    return len(rows)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    g = sub.add_parser("glossary-lines")
    g.add_argument("--seeds", type=Path, required=True)
    c = sub.add_parser("cited-lines")
    c.add_argument("--seeds", type=Path, required=True)
    a = ap.parse_args(argv)
    if a.cmd == "cited-lines":
        print(f"wrote {cited_lines(a.seeds)} lines to {cited_lines_path().relative_to(repo_root())}")
    if a.cmd == "glossary-lines":
        print(f"wrote {glossary_lines(a.seeds)} lines to {glossary_lines_path().relative_to(repo_root())}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
