"""The symbol table of MLSysBook Vol. 2 as data (front matter "notation conventions" and Ch. 1).

The table itself is ``data/notation.toml``; this module reads it into frozen dataclasses.

Source: seed ``001_500bbf168f63cec3.txt``; ``source_line`` is the line where the book defines or
first uses the symbol (the notation section runs from line 228 to line 620, with Ch. 1's
introduction interleaved at lines 566-584 by the translation). ``needle`` is the text as that
line writes it, so a test can prove every line number.

* :data:`SYMBOLS`: every symbol the notation conventions define, plus the symbols Ch. 1 and the
  Part I principles introduce in their equations (``group`` says which).
* :data:`CLASHES`: where one letter means two things. ``stated=True`` when the book resolves or
  flags the clash itself (B batch vs BW bandwidth, eta learning rate vs eta_hw, D dataset vs
  D_vol, ...); ``stated=False`` where it reuses a symbol without saying so.
* :data:`LIB_ONLY`: symbols the library uses that the book's span does not define.
* :data:`PRECISIONS`: bytes per element of each number format the book lists.

``lib_name`` is the parameter name fleetcalc uses for the quantity ("a|b" when two modules
use different names); empty when no calculator takes it.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

__all__ = ["Symbol", "Clash", "Precision", "SYMBOLS", "CLASHES", "LIB_ONLY", "PRECISIONS", "GROUPS",
           "lookup", "by_group", "clashes", "table_rows", "SOURCE"]

SOURCE = "001_500bbf168f63cec3.txt"

#: kinds allowed in ``Symbol.unit`` besides pint unit strings
KINDS = {"count", "dimensionless", "distribution", "scalar", "vector/matrix", "probability", "index",
         "function", "label"}


@dataclass(frozen=True)
class Symbol:
    symbol: str          # plain text, as we write it in code comments and prose
    latex: str           # for the generated notation page
    meaning: str         # in English, our words
    unit: str            # a pint unit string, "" for a pure number, or a kind from KINDS
    source_line: int     # line of the seed text that defines or first uses it
    lib_name: str = ""   # fleetcalc's parameter name(s), "a|b" for two; "" if none
    group: str = ""      # the notation table (or chapter equation) it belongs to
    chinese: str = ""    # the book's term
    needle: str = ""     # the symbol as written on source_line (defaults to ``symbol``)
    note: str = ""

    @property
    def written(self) -> str:
        return self.needle or self.symbol


@dataclass(frozen=True)
class Clash:
    symbol: str
    meanings: tuple[str, ...]
    resolution: str
    source_lines: tuple[int, ...]
    stated: bool         # True: the book flags or resolves it; False: reused without saying so
    note: str = ""
    library: bool = False  # the library's own clash (no book line writes the letter that way)


@dataclass(frozen=True)
class Precision:
    name: str
    bits: int            # bits per stored element
    source_line: int
    note: str = ""

    @property
    def bytes(self) -> float:
        return self.bits / 8


def _load() -> dict:
    """The symbol table from ``data/notation.toml`` (one table per symbol, clash and format)."""
    import tomllib

    with open(Path(__file__).parent / "data" / "notation.toml", "rb") as f:
        return tomllib.load(f)


_DATA = _load()
if _DATA["source"] != SOURCE:
    raise RuntimeError(f"data/notation.toml is for {_DATA['source']}, not {SOURCE}")

#: The notation tables of the book (key -> title with its lines).
GROUPS: dict[str, str] = dict(_DATA["groups"])
#: Every symbol the notation conventions define, plus Ch. 1's and Part I's equation symbols.
SYMBOLS: tuple[Symbol, ...] = tuple(Symbol(**s) for s in _DATA["symbol"])
#: Symbols the library uses that the book's span does not define.
LIB_ONLY: tuple[Symbol, ...] = tuple(Symbol(**s) for s in _DATA["lib_only"])
#: Where one letter means two things.
CLASHES: tuple[Clash, ...] = tuple(
    Clash(**{**c, "meanings": tuple(c["meanings"]), "source_lines": tuple(c["source_lines"])})
    for c in _DATA["clash"])
#: Bytes per element of each number format the book lists.
PRECISIONS: tuple[Precision, ...] = tuple(Precision(**x) for x in _DATA["precision"])


def lookup(symbol: str) -> list[Symbol]:
    """Every entry whose plain symbol is ``symbol`` or starts with ``symbol + ' ('`` (e.g. 'λ')."""
    return [s for s in SYMBOLS + LIB_ONLY if s.symbol == symbol or s.symbol.startswith(symbol + " (")]


def by_group() -> dict[str, list[Symbol]]:
    """Symbols grouped by the notation table they belong to, in the book's order."""
    out: dict[str, list[Symbol]] = {g: [] for g in GROUPS}
    for s in SYMBOLS:
        out[s.group].append(s)
    return out


def clashes(stated: bool | None = None) -> list[Clash]:
    """All clashes, or only those the book states (True) or leaves unsaid (False)."""
    return [c for c in CLASHES if stated is None or c.stated is stated]


def table_rows(group: str | None = None) -> list[dict]:
    """Rows for a generated notation page: symbol, latex, meaning, unit, line, lib name, Chinese."""
    rows = []
    for s in SYMBOLS:
        if group is None or s.group == group:
            rows.append({"symbol": s.symbol, "latex": s.latex, "meaning": s.meaning, "unit": s.unit,
                         "line": s.source_line, "lib": s.lib_name, "chinese": s.chinese, "note": s.note})
    return rows
