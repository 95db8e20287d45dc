"""The hardware catalog: every hardware number the workbook uses, with its unit and source.

Facts live in TOML files under ``fleetcalc/data/catalog/`` (one file per source chapter). An
entry is a table with ``value``, ``unit`` and ``source`` (book, section/table/line), plus:

* ``peak = "dense" | "sparse"`` for every FLOP/s figure (never mix the two);
* ``direction = "one-way" | "both-ways" | "memory"`` for every byte/s or bit/s figure
  (a link's per-direction rate vs the two directions summed; ``memory`` for DRAM/HBM);
* optional ``quote`` (the text's own wording where it is ambiguous), ``precision``, ``note``.

Notebooks never type a hardware number; they call ``hw("h100.hbm_bandwidth")``.
A malformed entry fails at load with a message naming the entry and the field.
"""
from __future__ import annotations

import functools
import tomllib
from dataclasses import dataclass
from pathlib import Path

import pint

from .units import Q_, ureg

__all__ = ["CatalogError", "Entry", "hw", "entry", "load_catalog", "entries", "children"]

DATA_DIR = Path(__file__).parent / "data" / "catalog"
DIRECTIONS = {"one-way", "both-ways", "memory"}
PEAKS = {"dense", "sparse"}
_ALLOWED = {"value", "unit", "source", "quote", "peak", "direction", "precision", "note", "label"}


class CatalogError(ValueError):
    """A catalog entry that is missing a field or has a bad one."""


@dataclass(frozen=True)
class Entry:
    path: str
    value: float
    unit: str
    source: str
    quote: str = ""
    peak: str = ""
    direction: str = ""
    precision: str = ""
    note: str = ""
    label: str = ""

    @property
    def quantity(self):
        return Q_(self.value, self.unit)


def _check_entry(path: str, table: dict, fname: str) -> Entry:
    where = f"catalog entry {path!r} ({fname})"
    for key in ("value", "unit", "source"):
        if key not in table:
            raise CatalogError(f"{where}: missing field {key!r}")
    unknown = set(table) - _ALLOWED
    if unknown:
        raise CatalogError(f"{where}: unknown field(s) {sorted(unknown)}; allowed {sorted(_ALLOWED)}")
    value = table["value"]
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise CatalogError(f"{where}: field 'value' must be a number; got {value!r}")
    if not value == value or value in (float("inf"), float("-inf")):
        raise CatalogError(f"{where}: field 'value' must be finite; got {value!r}")
    if not isinstance(table["source"], str) or not table["source"].strip():
        raise CatalogError(f"{where}: field 'source' must name the book location")
    try:
        q = Q_(float(value), table["unit"])
    except (pint.errors.UndefinedUnitError, pint.errors.DefinitionSyntaxError, AttributeError, TypeError, ValueError) as exc:
        raise CatalogError(f"{where}: field 'unit' {table['unit']!r} is not a unit ({exc})") from None
    dims = q.dimensionality
    if dims == ureg("FLOP/s").dimensionality:
        if table.get("peak") not in PEAKS:
            raise CatalogError(f"{where}: field 'peak' must be one of {sorted(PEAKS)} for a FLOP/s figure; got {table.get('peak')!r}")
    if dims in (ureg("byte/s").dimensionality,):
        if table.get("direction") not in DIRECTIONS:
            raise CatalogError(
                f"{where}: field 'direction' must be one of {sorted(DIRECTIONS)} for a bandwidth; got {table.get('direction')!r}"
            )
    elif "direction" in table and table["direction"] not in DIRECTIONS:
        raise CatalogError(f"{where}: field 'direction' must be one of {sorted(DIRECTIONS)}; got {table['direction']!r}")
    return Entry(path=path, value=float(value), **{k: str(v) for k, v in table.items() if k != "value"})


def _walk(prefix: str, table: dict, fname: str, out: dict):
    for key, val in table.items():
        path = f"{prefix}.{key}" if prefix else key
        if not isinstance(val, dict):
            continue
        if "value" in val or "unit" in val:
            out[path] = _check_entry(path, val, fname)
        else:
            _walk(path, val, fname, out)


def load_catalog(directory: Path | str = DATA_DIR) -> dict[str, Entry]:
    """Read and check every ``*.toml`` in ``directory``; a top-level name may appear in one file only."""
    out: dict[str, Entry] = {}
    owners: dict[str, str] = {}
    for f in sorted(Path(directory).glob("*.toml")):
        try:
            data = tomllib.loads(f.read_text(encoding="utf-8"))
        except tomllib.TOMLDecodeError as exc:
            raise CatalogError(f"{f.name}: not valid TOML ({exc})") from None
        for top in data:
            if top in owners:
                raise CatalogError(f"catalog name {top!r} is defined in both {owners[top]} and {f.name}")
            owners[top] = f.name
        _walk("", data, f.name, out)
    return out


@functools.lru_cache(maxsize=1)
def entries() -> dict[str, Entry]:
    return load_catalog()


def entry(path: str) -> Entry:
    """The catalog entry at ``path`` (e.g. ``"abstract_device.peak_flops"``)."""
    try:
        return entries()[path]
    except KeyError:
        near = [p for p in entries() if p.split(".")[0] == path.split(".")[0]]
        hint = f"; entries under {path.split('.')[0]!r}: {near}" if near else ""
        raise KeyError(f"no catalog entry {path!r}{hint}") from None


def hw(path: str, unit: str | None = None):
    """The catalog value at ``path`` as a Quantity (optionally converted to ``unit``)."""
    q = entry(path).quantity
    return q.to(unit) if unit else q


def children(prefix: str) -> dict[str, Entry]:
    """All entries under ``prefix`` (e.g. every figure of one device)."""
    return {p: e for p, e in entries().items() if p.startswith(prefix + ".")}
