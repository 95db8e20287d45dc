"""Checking recomputed numbers against the numbers the books print.

Every derived number a source text prints is recomputed by a lib call and passed to
:func:`book_says` together with the printed text. It records the check as a
:class:`~fleetcalc.core.ledger.Record`, shows it (one line of text, and in a notebook the record
as data beside it: :mod:`fleetcalc.core.ledger`, whose :func:`~fleetcalc.core.ledger.read_ledger`
the site's number ledger and the instructor guides read), and raises :class:`BookMismatch` when
the two disagree at the book's printed precision (half a unit in the last printed digit)::

    [✓ book] Eq. 28.14 | t_ring = 0.01757 s | book: 0.01757 s
    [erratum] Table 2.3 | ratio = 4.50 | book: 9 | cause: ...
    [caveat] line 2302 | t = 12.03 hour | book: 12.0 hour | caveat: ...
    [reconstructed] §1.8 | f = 4.10 % | book: 4.1 % | rebuilt: ...
    [vendor note] Table 2.2 | H100 TDP = 700 W (vendor) | book: 700 W | source: ... | note: ...
    [assumed] Ch. 1 §1.4 | t_step = 1 s | why: ...

What a book gets wrong, or what a check cannot confirm, comes in four classes, each pinned so
that it fails the day it stops being what it says:

* **erratum** ``book_says(value, printed, erratum="cause", correct="...")``: the printed number
  does not follow from the book's own stated inputs beyond its printed precision and its hedging
  (约, about, roughly, "may", ranges). Passes only while the printed number is still wrong and
  (if ``correct`` is given) the recomputed value equals ``correct`` at its printed precision.
* **caveat** ``book_says(value, printed, caveat="how it misleads")``: the number follows from the
  book's inputs (it must agree, like a confirmation), but its method or an unstated assumption
  misleads. Where the book hedges a claim its inputs do not give ("may", a stated band), pass
  ``hedge="the book's wording"``: the check then passes only while the two still differ, and the
  line shows both.
* **vendor note** ``vendor_note(book, vendor, source=..., where=..., name=...)``: the book's
  hardware figure differs from the vendor's published one. Both are shown with the vendor's
  source; it fails the day the two agree. The catalog can call it with ``quiet=True``.
* **reconstruction** ``book_says(value, printed, reconstruction="what was rebuilt from what")``:
  a value rebuilt from damaged or missing text, or back-solved from a printed result. It must
  agree (it was built to), but it prints no ✓ and never counts as a confirmation.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from fleetcalc.core.ledger import CLASSES, MARKERS, Record, emit
from fleetcalc.core.units import _NUMBER, Quantity, as_quantity, parse_printed

__all__ = ["book_says", "assume", "vendor_note", "BookMismatch", "LEDGER", "Record", "VendorNote",
           "MARKERS", "CLASSES"]


class BookMismatch(AssertionError):
    """A recomputed number that disagrees with the book (or an erratum that no longer is one)."""


#: Every check made in this Python process, in order (the site's ledger reads notebook outputs).
LEDGER: list[Record] = []


def _record(record: Record) -> None:
    LEDGER.append(record)
    emit(record)


def _stable(x: float | None) -> float | None:
    """A float cut to 10 significant digits: the stored record must not change with the last bits
    of a platform's arithmetic (nbval compares it)."""
    return None if x is None else float(f"{x:.10g}")


def _decimals(half_ulp: float) -> int:
    return max(0, -int(round(math.log10(2 * half_ulp))))


_CLAIM = {">": lambda v, t: v > t, "<": lambda v, t: v < t, "≥": lambda v, t: v >= t, "≤": lambda v, t: v <= t}


def _agrees(value: Quantity, printed: str, rel: float | None):
    op = printed.strip()[:1]
    if op in _CLAIM:   # a worded comparison ("far above", "more than") checked in its weakest reading
        target, half_ulp = parse_printed(printed.strip()[1:].strip())
        try:
            v = float(as_quantity(value).to(target.units).magnitude)
        except Exception as exc:
            raise BookMismatch(f"cannot compare {value!r} with the claim {printed!r}: {exc}") from None
        if not math.isfinite(v):
            raise BookMismatch(f"recomputed value is not finite ({v}) for the claim {printed!r}")
        return _CLAIM[op](v, target.magnitude), v, target, half_ulp, None
    target, half_ulp = parse_printed(printed)
    try:
        v = float(as_quantity(value).to(target.units).magnitude)
    except Exception as exc:  # pint.DimensionalityError and friends
        raise BookMismatch(f"cannot compare {value!r} with the printed {printed!r}: {exc}") from None
    if not math.isfinite(v):
        raise BookMismatch(f"recomputed value is not finite ({v}) for printed {printed!r}")
    tol = half_ulp * (1 + 1e-9) + 1e-12 * abs(target.magnitude)
    if rel is not None:
        tol = max(tol, rel * abs(target.magnitude))
    ok = abs(v - target.magnitude) <= tol
    allowed = half_ulp if rel is None else max(half_ulp, rel * abs(target.magnitude))   # as the record states it
    return ok, v, target, half_ulp, allowed


def _shown(v: float, target: Quantity, half_ulp: float, printed: str) -> str:
    """The recomputed value, in the book's unit and notation, with one more digit than printed."""
    if printed.strip()[:1] in _CLAIM:
        printed = printed.strip()[1:].strip()
        half_ulp = min(half_ulp, 0.005 * 10 ** math.floor(math.log10(abs(v)))) if v else half_ulp
    m = _NUMBER.match(printed)
    exp = int(m.group("exp") or 0) if m else 0
    unit_text = _unit_text(printed)
    if exp:
        mantissa = m.group("num")
        places = (len(mantissa.split(".")[1]) if "." in mantissa else 0) + 1
        body = f"{v / 10.0**exp:.{places}f}×10^{exp}"
    elif v != 0 and (abs(v) >= 1e9 or abs(v) < 1e-5):
        body = f"{v:.4e}"
    else:
        places = _decimals(half_ulp) + 1
        body = f"{v:.{places}f}"
        if v != 0 and float(body) == 0:            # the book's precision would show a nonzero value as 0
            e = math.floor(math.log10(abs(v)))
            body = f"{v / 10.0**e:.1f}×10^{e}"
    return f"{body} {unit_text}".strip()


def _unit_text(printed: str) -> str:
    """The unit exactly as the book's printed string writes it."""
    m = _NUMBER.match(printed)
    return m.group("unit").strip() if m else ""


def book_says(value, printed: str, where: str, *, name: str = "value", erratum: str | None = None,
              correct: str | None = None, rel: float | None = None, why: str | None = None,
              caveat: str | None = None, hedge: str | None = None, reconstruction: str | None = None):
    """Check ``value`` against the book's ``printed`` number (e.g. ``"0.01757 s"``) at ``where``.

    A worded comparison ("far above", "more than quadrupled") is checked as a claim: ``printed``
    starts with ``>``, ``<``, ``≥`` or ``≤`` (``"> 1"``: the weakest reading of "above"), and the
    check passes while the recomputed value satisfies it (an erratum: while it does not).

    ``rel`` loosens the comparison to a relative tolerance; it needs ``why`` (for example the
    book writes "about 20 GB" for an estimate). At most one of ``erratum``, ``caveat`` and
    ``reconstruction`` classifies the number (see the module docstring). Returns None, so a cell
    ending in a check shows only the printed line (no echo of the value).
    """
    if np.ndim(getattr(value, "magnitude", value)) != 0:
        raise TypeError(f"book_says checks one number; {name} has shape {np.shape(getattr(value, 'magnitude', value))}")
    if rel is not None and not why:
        raise ValueError("book_says(rel=...) needs why=... to say why the printed precision is not enough")
    classes = [k for k, v in (("erratum", erratum), ("caveat", caveat), ("reconstruction", reconstruction)) if v]
    if len(classes) > 1:
        raise ValueError(f"book_says: a number has one class, got {' and '.join(classes)} at {where}")
    for k, v in (("erratum", erratum), ("caveat", caveat), ("reconstruction", reconstruction), ("hedge", hedge)):
        if v is not None and not str(v).strip():
            raise ValueError(f"book_says({k}=...) must say something, got {v!r} at {where}")
    if hedge is not None and caveat is None:
        raise ValueError("book_says(hedge=...) belongs to a caveat: pass caveat='how the claim misleads'")
    if correct is not None and erratum is None:
        raise ValueError("book_says(correct=...) pins an erratum's corrected value; pass erratum='cause'")
    ok, v, target, half_ulp, tol = _agrees(value, printed, rel)
    shown = _shown(v, target, half_ulp, printed)
    facts = dict(where=str(where), name=str(name), printed=printed, computed=_stable(v),
                 unit=_unit_text(printed.strip().lstrip("".join(_CLAIM)).strip()), tolerance=_stable(tol),
                 rel=None if rel is None else float(rel), verdict="agrees" if ok else "differs", why=str(why or ""))
    if erratum is None and not (caveat and hedge):
        if not ok:
            kind = {"caveat": "a caveat (the number must follow)",
                    "reconstruction": "a reconstruction (the rebuilt value must give the printed one)"}.get(
                        classes[0] if classes else "", "")
            tol = ("the claim does not hold" if printed.strip()[:1] in _CLAIM
                   else f"allowed difference {half_ulp:g} at the printed precision")
            raise BookMismatch(
                f"{where}: {name} recomputes to {shown}, but the book prints {printed} "
                f"({tol})" + (f"; recorded as {kind}" if kind else "")
            )
        if caveat:
            _record(Record("caveat", value=shown, reason=caveat, **facts))
        elif reconstruction:
            _record(Record("reconstruction", value=shown, reason=reconstruction, **facts))
        else:
            _record(Record("confirmed", value=shown, **facts))
        return None
    if ok:
        label = f"an erratum ({erratum})" if erratum else f"a hedged caveat ({hedge})"
        raise BookMismatch(
            f"{where}: recorded as {label}, but {name} = {shown} now agrees with "
            f"the printed {printed}; remove the record or fix the calculation"
        )
    if caveat:
        _record(Record("caveat", value=shown, reason=caveat, hedge=hedge, **facts))
        return None
    if correct is not None:
        ok_c = _agrees(value, correct, None)[0]
        if not ok_c:
            raise BookMismatch(f"{where}: erratum pins the corrected value {correct}, but {name} = {shown}")
        shown = correct
    _record(Record("erratum", value=shown, reason=erratum, correct=correct or "", **facts))
    return None


@dataclass(frozen=True)
class VendorNote:
    """A book's hardware figure beside the vendor's published one (see :func:`vendor_note`)."""
    where: str
    name: str
    book: str
    vendor: str
    source: str
    note: str = ""

    def line(self) -> str:
        return Record("vendor", self.where, self.name, self.vendor, self.book, source=self.source,
                      note=self.note).line()


def _as_text(q) -> str:
    if isinstance(q, str):
        return q
    q = as_quantity(q)
    return f"{q.magnitude:.4g} {q.units:~P}".strip()


def vendor_note(book, vendor, *, source: str, where: str, name: str = "value", note: str = "",
                quiet: bool = False) -> VendorNote:
    """The book's hardware figure ``book`` differs from the vendor's published ``vendor`` figure.

    ``book`` and ``vendor`` are printed strings (``"1,200 GB/s"``) or Quantities; ``source`` names
    the vendor's document (datasheet, product page, with its date or version). The note is pinned:
    it raises :class:`BookMismatch` when the vendor figure agrees with the book's at the book's
    printed precision (then it is no note), or when the two have different dimensions.
    ``quiet=True`` records and returns it without printing (for the catalog); a notebook prints
    the line beside the catalog value. Returns the :class:`VendorNote`.
    """
    if not str(source).strip():
        raise ValueError(f"vendor_note needs source= (the vendor's document) at {where}")
    book_t, vendor_t = _as_text(book), _as_text(vendor)
    try:
        ok, v, _, _, tol = _agrees(parse_printed(vendor_t)[0], book_t, None)
    except ValueError as exc:
        raise BookMismatch(f"{where}: cannot read the book's figure {book_t!r}: {exc}") from None
    if ok:
        raise BookMismatch(f"{where}: vendor note on {name}, but the vendor's {vendor_t} agrees with the "
                           f"book's {book_t} at its printed precision; remove the note")
    vn = VendorNote(where, name, book_t, vendor_t, source, note)
    record = Record("vendor", str(where), str(name), vendor_t, book_t, computed=_stable(v), unit=_unit_text(book_t),
                    tolerance=_stable(tol), verdict="differs", source=str(source), note=str(note))
    LEDGER.append(record)
    if not quiet:
        emit(record)
    return vn


def assume(text: str, where: str, why: str, *, name: str = "input"):
    """An input the text leaves out: state it, say why, and return it as a Quantity.

    ``assume("1 s", where="Ch. 1 §1.3", why="the text gives no per-step compute time")``
    """
    q = as_quantity(text)
    _record(Record("assumed", str(where), str(name), str(text), computed=_stable(float(q.magnitude)), unit=f"{q.units:~P}",
                   verdict="stated", reason=str(why)))
    return q
