"""The number ledger as data: one :class:`Record` per checked number, and the one reader.

Each check (``book_says``, ``vendor_note``, ``assume`` in :mod:`fleetcalc.core.book`) builds a
:class:`Record` and :func:`emit` shows it. In an IPython kernel it is one display output with two
MIME types: ``text/plain`` is the record's line (the text a reader sees and nbval compares) and
``application/vnd.fleetcalc.ledger+json`` is the record itself (what the site's ledger and errata
pages, the instructor guides and the tests read back with :func:`read_ledger`). Outside IPython
the line is printed. The JSON holds only what the check computed (no time, no id), with a fixed
key order, so re-executing a notebook gives the same output and a changed number fails nbval in
both MIME types.

The line of each kind is shown in :mod:`fleetcalc.core.book`; :meth:`Record.line` builds it.
"""
from __future__ import annotations

import json
import sys
from collections import Counter
from dataclasses import asdict, dataclass, fields
from pathlib import Path

__all__ = ["Record", "MIME", "KINDS", "MARKERS", "CLASSES", "emit", "read_ledger", "by_kind", "counts"]

#: The MIME type of a ledger record in a notebook's outputs.
MIME = "application/vnd.fleetcalc.ledger+json"
#: Every kind of record, in the order the ledger's columns show them.
KINDS = ("confirmed", "erratum", "caveat", "vendor", "reconstruction", "assumed")
#: The line marker of each kind.
MARKERS = {"confirmed": "[✓ book]", "erratum": "[erratum]", "caveat": "[caveat]",
           "vendor": "[vendor note]", "reconstruction": "[reconstructed]", "assumed": "[assumed]"}
#: The four classes of finding, in the order the errata page shows them.
CLASSES = ("erratum", "caveat", "vendor", "reconstruction")
#: The label of each class's reason field in the line.
_REASON = {"erratum": "cause", "caveat": "caveat", "reconstruction": "rebuilt", "assumed": "why"}


@dataclass(frozen=True)
class Record:
    """One checked number.

    ``value`` is the recomputed value as the line shows it (one digit more than the book prints;
    an erratum's pinned corrected value; a vendor note's vendor figure; an assumption's input),
    ``computed`` the same number unrounded in ``unit`` (the unit the book prints), ``tolerance``
    the allowed difference in ``unit`` (half a unit in the last printed digit, or ``rel`` times
    the printed value), ``verdict`` "agrees" or "differs" (an assumption: "stated"). ``reason``
    is the class's text (erratum cause, caveat, what was rebuilt, why an input is assumed),
    ``why`` the reason for a loosened tolerance, ``source`` and ``note`` a vendor note's document
    and remark. ``cell`` is the index of the notebook cell that printed it (set by
    :func:`read_ledger`; never stored in the output).
    """
    kind: str
    where: str
    name: str
    value: str
    printed: str = ""
    computed: float | None = None
    unit: str = ""
    tolerance: float | None = None
    rel: float | None = None
    hedge: str = ""
    verdict: str = ""
    reason: str = ""
    why: str = ""
    correct: str = ""
    source: str = ""
    note: str = ""
    cell: int | None = None

    def __post_init__(self):
        if self.kind not in KINDS:
            raise ValueError(f"ledger record kind must be one of {', '.join(KINDS)}; got {self.kind!r}")

    @property
    def shown(self) -> str:
        """The recomputed value as the line shows it (a vendor figure is marked ``(vendor)``)."""
        return f"{self.value} (vendor)" if self.kind == "vendor" else self.value

    def detail(self) -> str:
        """The record's remark in one string: the class's reason (a hedged caveat with the book's
        hedge; a vendor note's source and note), then the reason for a loosened tolerance."""
        if self.kind == "vendor":
            return f"{self.source}; {self.note}" if self.note else self.source
        text = self.reason
        if self.kind == "caveat" and self.hedge:
            text += f" (the book hedges: {self.hedge})"
        if self.why and self.kind not in ("erratum", "assumed"):
            text = f"{text} | {self.why}" if text else self.why
        return text

    def line(self) -> str:
        """The text line of the record (what ``book_says`` printed before records were data)."""
        head = f"{MARKERS[self.kind]} {self.where} | {self.name} = {self.shown}"
        if self.kind == "assumed":
            return f"{head} | why: {self.reason}"
        if self.kind == "vendor":
            tail = f" | note: {self.note}" if self.note else ""
            return f"{head} | book: {self.printed} | source: {self.source}{tail}"
        reason = f" | {_REASON[self.kind]}: {self.detail()}" if self.kind != "confirmed" else (
            f" | {self.why}" if self.why else "")
        return f"{head} | book: {self.printed}{reason}"

    def to_json(self) -> dict:
        """The record as JSON data: every field but ``cell``, in declaration order."""
        data = asdict(self)
        data.pop("cell")
        return data

    @classmethod
    def from_json(cls, data: dict, cell: int | None = None) -> "Record":
        known = {f.name for f in fields(cls)} - {"cell"}
        return cls(**{k: v for k, v in data.items() if k in known}, cell=cell)


def _shell():
    """The running IPython shell, or None. IPython is never imported here: a kernel has loaded it."""
    ipython = sys.modules.get("IPython")
    get = getattr(ipython, "get_ipython", None)
    return get() if get is not None else None


def emit(record: Record) -> None:
    """Show a record: a MIME bundle (its line as ``text/plain`` and the record as JSON) in IPython,
    else the printed line."""
    shell = _shell()
    if shell is None or getattr(shell, "display_pub", None) is None:
        print(record.line())
        return
    shell.display_pub.publish(data={"text/plain": record.line(), MIME: record.to_json()}, metadata={})


def _cells(notebook) -> list:
    if isinstance(notebook, (str, Path)):
        notebook = json.loads(Path(notebook).read_text(encoding="utf-8"))
    return list(notebook.get("cells", [])) if isinstance(notebook, dict) else list(getattr(notebook, "cells", []))


def read_ledger(notebook) -> list[Record]:
    """Every record in the stored outputs of a notebook (a path, a JSON dict or an nbformat node),
    in output order, each with the index of its cell. Reads the JSON records, never the text."""
    out = []
    for i, cell in enumerate(_cells(notebook)):
        if cell.get("cell_type") != "code":
            continue
        for o in cell.get("outputs", []):
            data = o.get("data", {}).get(MIME) if o.get("output_type") in ("display_data", "execute_result") else None
            if data is not None:
                out.append(Record.from_json(json.loads(data) if isinstance(data, str) else data, cell=i))
    return out


def by_kind(records) -> dict[str, list[Record]]:
    """kind -> its records (in order), with every kind present."""
    out: dict[str, list[Record]] = {k: [] for k in KINDS}
    for r in records:
        out[r.kind].append(r)
    return out


def counts(records) -> Counter:
    """The number of records of each kind (every kind present, zero where none)."""
    c = Counter(r.kind for r in records)
    return Counter({k: c.get(k, 0) for k in KINDS})
