"""The hardware catalog: every hardware number the workbook uses, with its unit and source.

Facts live in TOML files under ``fleetcalc/core/data/catalog/`` (one file per source chapter). An
entry is a table with ``value``, ``unit`` and ``source`` (book, section/table/line), plus:

* ``peak = "dense" | "sparse"`` for every FLOP/s figure (never mix the two);
* ``direction = "one-way" | "both-ways" | "memory"`` for every byte/s or bit/s figure
  (a link's per-direction rate vs the two directions summed; ``memory`` for DRAM/HBM);
* optional ``quote`` (the text's own wording where it is ambiguous), ``precision``, ``note``.

Real products and standards are tables with ``product = "NVIDIA H100 SXM5 80 GB"`` and a default
``vendor_source``. Every entry under such a table carries the vendor's published figure
(``vendor_value`` in the entry's unit, or ``vendor_unit``; ``vendor_source`` where it is not the
table's) or ``vendor_none`` (why no vendor figure exists). Where the book and the vendor differ
by more than :data:`VENDOR_TOLERANCE`, ``vendor_note`` says how (a *vendor note*). The workbook
computes with the book's values; the vendor's sit beside them (:func:`vendor_table`).

Notebooks never type a hardware number; they call ``hw("h100.hbm_bandwidth")``.
A malformed entry fails at load with a message naming the entry and the field.
"""
from __future__ import annotations

import functools
import tomllib
from dataclasses import dataclass
from pathlib import Path

import pint

from fleetcalc.core.units import Q_, ureg

__all__ = ["CatalogError", "Entry", "hw", "entry", "load_catalog", "entries", "children", "vendor_notes",
           "vendor_table", "VENDOR_TOLERANCE"]

DATA_DIR = Path(__file__).parent / "data" / "catalog"
DIRECTIONS = {"one-way", "both-ways", "memory"}
PEAKS = {"dense", "sparse"}
_VENDOR = {"vendor_value", "vendor_unit", "vendor_source", "vendor_none", "vendor_note"}
_ALLOWED = {"value", "unit", "source", "quote", "peak", "direction", "precision", "note", "label"} | _VENDOR
_TABLE_KEYS = {"label", "product", "vendor_source"}  # plain keys a grouping table may hold
#: Book and vendor agree when they differ by at most this fraction (the books round to 2-3 digits).
VENDOR_TOLERANCE = 0.01


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
    product: str = ""
    vendor_value: float | None = None
    vendor_unit: str = ""
    vendor_source: str = ""
    vendor_none: str = ""
    vendor_note: str = ""

    @property
    def quantity(self):
        return Q_(self.value, self.unit)

    @property
    def vendor_quantity(self):
        """The vendor's published figure as a Quantity (in its own unit), or None."""
        if self.vendor_value is None:
            return None
        return Q_(self.vendor_value, self.vendor_unit or self.unit)

    @property
    def vendor_status(self) -> str:
        """"matches", "differs", "none" (no vendor figure, reason given) or "" (not a product)."""
        vq = self.vendor_quantity
        if vq is None:
            return "none" if self.vendor_none else ""
        book = self.value
        vendor = float(vq.to(self.unit).magnitude)
        if book == vendor or abs(vendor - book) <= VENDOR_TOLERANCE * max(abs(book), abs(vendor)):
            return "matches"
        return "differs"


def _check_entry(path: str, table: dict, fname: str, product: dict | None = None) -> Entry:
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
    fields = {k: str(v) for k, v in table.items() if k not in ("value", "vendor_value")}
    if "vendor_value" in table:
        vv = table["vendor_value"]
        if isinstance(vv, bool) or not isinstance(vv, (int, float)) or vv != vv:
            raise CatalogError(f"{where}: field 'vendor_value' must be a finite number; got {vv!r}")
        try:
            Q_(float(vv), table.get("vendor_unit", table["unit"])).to(table["unit"])
        except Exception as exc:  # noqa: BLE001 - pint's several error types
            raise CatalogError(f"{where}: field 'vendor_unit' {table.get('vendor_unit')!r} does not convert to "
                               f"{table['unit']!r} ({exc})") from None
        fields["vendor_value"] = float(vv)
    if product:
        fields.setdefault("product", product["product"])
        if "vendor_value" in table:
            fields.setdefault("vendor_source", product.get("vendor_source", ""))
        if "vendor_value" not in table and not table.get("vendor_none"):
            raise CatalogError(f"{where}: an entry of the product {product['product']!r} needs 'vendor_value' "
                               "(the vendor's published figure) or 'vendor_none' (why none exists)")
        if "vendor_value" in table and not fields.get("vendor_source"):
            raise CatalogError(f"{where}: field 'vendor_value' needs a 'vendor_source'")
    e = Entry(path=path, value=float(value), **fields)
    if e.vendor_status == "differs" and not e.vendor_note:
        raise CatalogError(f"{where}: the book ({e.value} {e.unit}) and the vendor ({e.vendor_value} "
                           f"{e.vendor_unit or e.unit}) differ: say how in 'vendor_note'")
    return e


def _walk(prefix: str, table: dict, fname: str, out: dict, product: dict | None = None):
    if "product" in table:
        product = {"product": str(table["product"]), "vendor_source": str(table.get("vendor_source", ""))}
    for key, val in table.items():
        path = f"{prefix}.{key}" if prefix else key
        if not isinstance(val, dict):
            if prefix and key not in _TABLE_KEYS:
                raise CatalogError(f"catalog table {prefix!r} ({fname}): unknown key {key!r}; "
                                   f"a grouping table may hold {sorted(_TABLE_KEYS)}")
            continue
        if "value" in val or "unit" in val:
            out[path] = _check_entry(path, val, fname, product)
        else:
            _walk(path, val, fname, out, product)


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


def vendor_notes() -> dict[str, Entry]:
    """Vendor notes: entries whose book figure differs from the vendor's published one, or that have
    no vendor counterpart and a note saying what the book's figure really is."""
    return {p: e for p, e in entries().items()
            if e.vendor_status == "differs" or (e.vendor_status == "none" and e.vendor_note)}


class VendorTable:
    """Book vs vendor for a list of entries: shows as an HTML table in a notebook, as text elsewhere."""

    def __init__(self, rows: list[Entry]):
        self.rows = rows

    def _cells(self, e: Entry) -> list[str]:
        from fleetcalc.core.units import fmt

        book = fmt(e.quantity, "auto" if not e.quantity.dimensionless else None, sig=4)
        if e.vendor_quantity is not None:
            vendor = fmt(e.vendor_quantity, "auto" if not e.vendor_quantity.dimensionless else None, sig=4)
        else:
            vendor = "none published"
        status = {"matches": "same", "differs": "differs", "none": "no vendor figure"}.get(e.vendor_status, "")
        why = e.vendor_note or e.vendor_none
        return [e.label or e.path, book, vendor, status, why, e.vendor_source]

    def __str__(self):
        return "\n".join(" | ".join(self._cells(e)) for e in self.rows)

    __repr__ = __str__

    def _repr_html_(self):
        import html

        head = ["quantity", "book", "vendor", "", "why / note", "vendor source"]
        rows = ["<tr>" + "".join(f"<th>{h}</th>" for h in head) + "</tr>"]
        for e in self.rows:
            cells = self._cells(e)
            style = " style='background:#fff3e0'" if e.vendor_status == "differs" else ""
            rows.append(f"<tr{style}>" + "".join(f"<td>{html.escape(c)}</td>" for c in cells) + "</tr>")
        return "<table class='fc-vendor-table'>" + "".join(rows) + "</table>"


def vendor_table(*prefixes: str, only_products: bool = True) -> VendorTable:
    """Book vs vendor for every entry under ``prefixes`` (e.g. ``vendor_table("h100", "dgx_h100")``)."""
    rows = []
    for pre in prefixes:
        picked = [e for p, e in entries().items() if p == pre or p.startswith(pre + ".")]
        if not picked:
            raise KeyError(f"vendor_table: no catalog entries under {pre!r}")
        rows += [e for e in picked if e.product or not only_products]
    return VendorTable(rows)
