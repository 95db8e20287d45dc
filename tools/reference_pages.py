"""Generated reference pages of the site (never typed by hand).

* number ledger: every ``[✓ book]``, ``[erratum]`` and ``[assumed]`` line that the executed
  notebooks print (the line format is fixed in lib/fleetcalc/book.py), with the book location,
  the printed value, the recomputed value, the status, and the counts per chapter;
* errata: the book value, the recomputed value and the cause of each erratum;
* glossary: English <-> Chinese (site/glossary.toml), each term linked to the pages that use it;
* notation: the symbol table of lib/fleetcalc/notation.py.

tools/site.py calls :func:`generate` for each site; the pages land in _build/.stage/<site>/reference/.

    python tools/reference_pages.py glossary-lines --seeds /path/to/seeds
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
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GLOSSARY = ROOT / "site" / "glossary.toml"
GLOSSARY_LINES = ROOT / "tests" / "data" / "glossary_source_lines.txt"
STATUS = {"[✓ book]": "confirmed", "[erratum]": "erratum", "[assumed]": "assumed"}
STATUS_LABEL = {"confirmed": "✓ confirmed", "erratum": "erratum", "assumed": "assumed"}
LINE = re.compile(r"^(\[✓ book\]|\[erratum\]|\[assumed\]) (.*)$")


# ----------------------------------------------------------------------------- parsing

@dataclass
class Entry:
    status: str          # confirmed | erratum | assumed
    where: str           # the book location (Eq. 28.14, Table 2.3, ...)
    name: str
    value: str           # recomputed (confirmed, erratum) or assumed value
    printed: str         # the book's printed value ("" for an assumption)
    note: str            # erratum cause, assumption's why, or a remark
    line: str            # the whole output line


def parse_line(line: str) -> Entry | None:
    """One output line of book_says/assume -> Entry (None for any other line)."""
    m = LINE.match(line.strip())
    if not m:
        return None
    status = STATUS[m.group(1)]
    fields = m.group(2).split(" | ")
    where = fields[0].strip()
    name, _, value = (fields[1] if len(fields) > 1 else "").partition(" = ")
    printed = note = ""
    for f in fields[2:]:
        if f.startswith("book: ") and not printed:
            printed = f[len("book: "):]
        elif f.startswith("cause: "):
            note = f[len("cause: "):]
        elif f.startswith("why: "):
            note = f[len("why: "):]
        else:
            note = (note + " | " + f) if note else f
    return Entry(status, where, name.strip(), value.strip(), printed.strip(), note.strip(), line.strip())


@lru_cache(maxsize=None)
def _cells(path: Path, mtime: float) -> tuple:
    return tuple(json.loads(path.read_text(encoding="utf-8")).get("cells", []))


def cells(path: Path) -> tuple:
    """The cells of a notebook (cached per file version)."""
    return _cells(path, path.stat().st_mtime)


def _text(o: dict) -> str:
    t = o.get("text", "")
    if not t and "data" in o:
        t = o["data"].get("text/plain", "")
    return "".join(t) if isinstance(t, list) else t


def notebook_entries(path: Path) -> list[Entry]:
    """Ledger lines printed in the stored outputs of an executed notebook (in cell order)."""
    if path.suffix != ".ipynb" or not path.is_file():
        return []
    out = []
    for cell in cells(path):
        if cell.get("cell_type") != "code":
            continue
        for o in cell.get("outputs", []):
            if o.get("output_type") == "stream" and o.get("name") == "stdout":
                for line in _text(o).splitlines():
                    e = parse_line(line)
                    if e:
                        out.append(e)
    return out


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
    return [p for p in pages if p.kind in kinds and p.src is not None]


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
    """chapter folder -> [(page, [Entry, ...]), ...] in site order."""
    data: OrderedDict[str, list] = OrderedDict()
    for p in ledger_pages(pages):
        data.setdefault(chapter_of(p), []).append((p, notebook_entries(p.src)))
    return data


def counts(entries) -> Counter:
    c = Counter(e.status for e in entries)
    return Counter({k: c.get(k, 0) for k in ("confirmed", "erratum", "assumed")})


def ledger_page(pages, book: dict, site: str) -> str:
    titles = book.get("chapter_titles", {})
    data = ledger_data(pages, titles)
    total = Counter()
    summary = []
    for ch, items in data.items():
        c = counts([e for _, es in items for e in es])
        total += c
        summary.append([esc(titles.get(ch, ch)), str(len(items)), str(c["confirmed"]), str(c["erratum"]),
                        str(c["assumed"]), str(sum(c.values()))])
    summary.append(["**all chapters**", str(sum(len(v) for v in data.values())), str(total["confirmed"]),
                    str(total["erratum"]), str(total["assumed"]), str(sum(total.values()))])
    scope = ("chapter and solution notebooks" if site == "instructor" else "chapter and exercise notebooks")
    out = [
        "# Number ledger\n",
        "Every number the two source texts print, as this workbook recomputes it. The ledger is made "
        f"from the stored outputs of the executed {scope}, so it can never disagree with them: each row "
        "is one line printed by `book_says` (the recomputed value agrees with the book at its printed "
        "precision, or it is a pinned **erratum**) or by `assume` (an input the text leaves out). The recomputed value carries one "
        "more digit than the book prints. See also {doc}`errata </reference/errata>`.\n",
        "## Counts per chapter\n",
        list_table(summary, ["chapter", "notebooks", "confirmed", "errata", "assumed", "total"],
                   name="ledger-summary"),
    ]
    for ch, items in data.items():
        out.append(f"## {titles.get(ch, ch)}\n")
        rows = []
        for p, entries in items:
            for e in entries:
                rows.append([doc_link(p), esc(e.where), esc(e.name), esc(e.printed or "—"), esc(e.value),
                             STATUS_LABEL[e.status] + (": " + esc(e.note) if e.status != "confirmed" and e.note else "")])
        if rows:
            out.append(list_table(rows, ["notebook", "book location", "quantity", "book prints", "recomputed",
                                         "status"], widths=[18, 18, 14, 14, 14, 22]))
        else:
            out.append("No checked numbers in this chapter's notebooks yet.\n")
    return "\n".join(out)


def errata_page(pages, book: dict, site: str) -> str:
    titles = book.get("chapter_titles", {})
    rows = []
    for ch, items in ledger_data(pages, titles).items():
        for p, entries in items:
            for e in entries:
                if e.status == "erratum":
                    rows.append([esc(titles.get(ch, ch)), esc(e.where), doc_link(p), esc(e.name), esc(e.printed),
                                 esc(e.value), esc(e.note)])
    out = ["# Errata\n",
           "Where a source text prints a number that its own inputs do not give, the notebook keeps the "
           "book's number, recomputes the right one and states the likely cause (`book_says(..., "
           "erratum=...)`). The check is pinned: it fails the day the printed number and the "
           "recomputation agree, so this list cannot go stale. Generated from the notebooks' outputs.\n"]
    if rows:
        out.append(f"{len(rows)} errata found.\n")
        out.append(list_table(rows, ["chapter", "book location", "notebook", "quantity", "book value",
                                     "recomputed value", "cause"], name="errata-table"))
    else:
        out.append("No errata recorded in the notebooks yet.\n")
    return "\n".join(out)


def load_glossary(path: Path = GLOSSARY) -> dict:
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
        rows.append([esc(term["en"]), esc(zh), used, esc(src)])
    by_zh = sorted(((z, t["en"]) for t in gloss["term"] for z in t["zh"]), key=lambda x: x[0])
    out = ["# Glossary (English ↔ 中文)\n",
           "The terms a student is likely to search for, in English and as the source texts write them in "
           "Chinese, with the notebooks whose text uses them. Each Chinese term was taken from the line "
           "of the source text named in the last column (a test checks every one against that line). "
           "Use the search box (top left) with either spelling.\n",
           f"{len(rows)} terms.\n",
           "## English → 中文\n",
           list_table(rows, ["English", "中文", "used in", "source text"], name="glossary-table",
                      widths=[20, 14, 46, 20]),
           "## 中文 → English\n",
           list_table([[esc(z), esc(en)] for z, en in by_zh], ["中文", "English"], name="glossary-zh")]
    return "\n".join(out)


def notation_page(pages, book: dict, site: str) -> str:
    try:
        from fleetcalc import notation
    except Exception as exc:  # pragma: no cover - the module is another helper's; say so on the page
        return ("# Notation\n\nThe symbol table (lib/fleetcalc/notation.py) could not be imported: "
                f"`{type(exc).__name__}`.\n")

    def sym(latex: str) -> str:
        return f"${latex}$" if latex else ""

    out = ["# Notation\n",
           "The symbols of MLSysBook Vol. 2 (its notation conventions and Ch. 1), generated from the "
           "library's symbol table (`fleetcalc.notation`), with the unit each carries, the parameter name "
           "the calculators use, and the line of the source text that defines it. Chapter 28 uses a few "
           "of the same letters for other things; the clashes are listed at the end.\n"]
    for group, caption in notation.GROUPS.items():
        syms = notation.by_group().get(group, [])
        if not syms:
            continue
        out.append(f"## {esc(caption)}\n")
        rows = [[sym(s.latex), esc(s.meaning), esc(s.unit or "—"), esc(s.chinese or ""),
                 f"`{s.lib_name}`" if s.lib_name and "`" not in s.lib_name else esc(s.lib_name),
                 str(s.source_line), esc(s.note)] for s in syms]
        out.append(list_table(rows, ["symbol", "meaning", "unit", "中文", "fleetcalc", "line", "note"],
                              widths=[12, 26, 10, 10, 12, 6, 24]))
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
                 "yes" if c.stated else "**no**", esc(", ".join(map(str, c.source_lines))), esc(c.note)]
                for c in notation.CLASHES]
        out.append(list_table(rows, ["symbol", "meanings", "resolution", "the book says so", "lines", "note"],
                              name="notation-clashes"))
    src = getattr(notation, "SOURCE", "")
    out.append(f"\nLine numbers refer to the source text `{esc(src)}`.\n")
    return "\n".join(out)


PAGES = {"reference/ledger.md": ledger_page, "reference/errata.md": errata_page,
         "reference/glossary.md": glossary_page, "reference/notation.md": notation_page}


def generate(site: str, pages, book: dict) -> dict[str, str]:
    """rel path -> MyST text of every generated page, for one site's list of pages."""
    return {rel: fn(pages, book, site) for rel, fn in PAGES.items()}


# ----------------------------------------------------------------------------- glossary extract

def glossary_lines(seeds: Path, out: Path = GLOSSARY_LINES) -> int:
    """Write the extract of the seed lines the glossary's Chinese terms come from.

    One line per (source, term): ``000:172<TAB>term<TAB>excerpt``, the excerpt being the seed
    line cut to at most 60 characters either side of the term (a substring of the line).
    """
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
    out.write_text("# seed:line<TAB>term<TAB>excerpt of that line (generated by tools/reference_pages.py "
                   "glossary-lines; seeds: " + ", ".join(f"{k}={v}" for k, v in files.items()) + ")\n"
                   + "\n".join(rows) + "\n", encoding="utf-8")
    return len(rows)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    g = sub.add_parser("glossary-lines")
    g.add_argument("--seeds", type=Path, required=True)
    a = ap.parse_args(argv)
    if a.cmd == "glossary-lines":
        print(f"wrote {glossary_lines(a.seeds)} lines to {GLOSSARY_LINES.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
