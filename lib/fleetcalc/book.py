"""Checking recomputed numbers against the numbers the books print.

Every derived number a source text prints is recomputed by a lib call and passed to
:func:`book_says` together with the printed text. It prints one line and raises
:class:`BookMismatch` when the two disagree at the book's printed precision (half a unit in
the last printed digit). Lines have a fixed shape so the site's number ledger can read them::

    [✓ book] Eq. 28.14 | t_ring = 0.01757 s | book: 0.01757 s
    [erratum] Table 2.3 | ratio = 4.50 | book: 9 | cause: ...
    [assumed] Ch. 1 §1.4 | t_step = 1 s | why: ...

Where the book is wrong, ``book_says(value, printed, erratum="cause", correct="...")``
passes only while the printed number is still wrong and (if ``correct`` is given) the
recomputed value equals ``correct`` at its printed precision: the erratum is pinned.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from .units import _NUMBER, Quantity, as_quantity, parse_printed

__all__ = ["book_says", "assume", "BookMismatch", "LEDGER", "Check"]


class BookMismatch(AssertionError):
    """A recomputed number that disagrees with the book (or an erratum that no longer is one)."""


@dataclass
class Check:
    status: str  # "confirmed" | "erratum" | "assumed"
    where: str
    name: str
    value: str
    printed: str
    cause: str = ""
    extra: dict = field(default_factory=dict)


#: Every check made in this Python process, in order (the site's ledger reads notebook outputs).
LEDGER: list[Check] = []


def _decimals(half_ulp: float) -> int:
    return max(0, -int(round(math.log10(2 * half_ulp))))


def _agrees(value: Quantity, printed: str, rel: float | None):
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
    return ok, v, target, half_ulp


def _shown(v: float, target: Quantity, half_ulp: float, printed: str) -> str:
    """The recomputed value, in the book's unit and notation, with one more digit than printed."""
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
        body = f"{v:.{_decimals(half_ulp) + 1}f}"
    return f"{body} {unit_text}".strip()


def _unit_text(printed: str) -> str:
    """The unit exactly as the book's printed string writes it."""
    m = _NUMBER.match(printed)
    return m.group("unit").strip() if m else ""


def book_says(value, printed: str, where: str, *, name: str = "value", erratum: str | None = None,
              correct: str | None = None, rel: float | None = None, why: str | None = None):
    """Check ``value`` against the book's ``printed`` number (e.g. ``"0.01757 s"``) at ``where``.

    ``rel`` loosens the comparison to a relative tolerance; it needs ``why`` (for example the
    book writes "about 20 GB" for an estimate). Returns None, so a cell ending in a check shows
    only the printed line (no echo of the value).
    """
    if np.ndim(getattr(value, "magnitude", value)) != 0:
        raise TypeError(f"book_says checks one number; {name} has shape {np.shape(getattr(value, 'magnitude', value))}")
    if rel is not None and not why:
        raise ValueError("book_says(rel=...) needs why=... to say why the printed precision is not enough")
    ok, v, target, half_ulp = _agrees(value, printed, rel)
    shown = _shown(v, target, half_ulp, printed)
    if erratum is None:
        if not ok:
            raise BookMismatch(
                f"{where}: {name} recomputes to {shown}, but the book prints {printed} "
                f"(allowed difference {half_ulp:g} at the printed precision)"
            )
        note = f" | {why}" if why else ""
        print(f"[✓ book] {where} | {name} = {shown} | book: {printed}{note}")
        LEDGER.append(Check("confirmed", where, name, shown, printed))
        return None
    if ok:
        raise BookMismatch(
            f"{where}: recorded as an erratum ({erratum}), but {name} = {shown} now agrees with "
            f"the printed {printed}; remove the erratum or fix the calculation"
        )
    if correct is not None:
        ok_c, _, _, _ = _agrees(value, correct, None)
        if not ok_c:
            raise BookMismatch(f"{where}: erratum pins the corrected value {correct}, but {name} = {shown}")
        shown = correct
    print(f"[erratum] {where} | {name} = {shown} | book: {printed} | cause: {erratum}")
    LEDGER.append(Check("erratum", where, name, shown, printed, cause=erratum))
    return None


def assume(text: str, where: str, why: str, *, name: str = "input"):
    """An input the text leaves out: state it, say why, and return it as a Quantity.

    ``assume("1 s", where="Ch. 1 §1.3", why="the text gives no per-step compute time")``
    """
    q = as_quantity(text)
    print(f"[assumed] {where} | {name} = {text} | why: {why}")
    LEDGER.append(Check("assumed", where, name, text, "", cause=why))
    return q
