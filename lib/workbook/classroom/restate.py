"""A question's text in a student's numbers: the book's quoted input values replaced by a
variant's ("shrink to 90 s" -> "shrink to 540 s"), and a value shown the way the book writes it."""
from __future__ import annotations

import re

from fleetcalc.core.units import Quantity


def _magnitude(v) -> float:
    return float(v.magnitude) if isinstance(v, Quantity) else float(v)


def _show(v) -> str:
    if isinstance(v, Quantity):
        unit = f"{v.units:~P}"
        return f"{_magnitude(v):g} {unit}".strip()
    return f"{v:g}" if isinstance(v, float) else str(v)


def _num(x: float) -> str:
    return f"{x:.10g}"


def restate(text: str, book: dict, mine: dict) -> str:
    """``text`` with each quoted book value of an input in ``mine`` replaced by the student's value
    ("shrink to 90 s" -> "shrink to 540 s"): a number followed by its unit, or, for a plain number
    of two digits or more, the number alone (with or without thousands separators)."""
    for name, new in mine.items():
        old = book.get(name)
        if old is None:
            continue
        m_old, m_new = _magnitude(old), _magnitude(new)
        spellings = {f"{m_old:g}", f"{m_old:,g}"} if m_old != int(m_old) or abs(m_old) < 1e15 else {f"{m_old:g}"}
        if m_old == int(m_old):
            spellings |= {f"{int(m_old)}", f"{int(m_old):,}"}
        if isinstance(old, Quantity):
            units = {f"{old.units:~P}", f"{old.units:~D}", f"{old.units:~P}".replace("µ", "μ"),
                     f"{old.units:~P}".replace(" ", "")}
            units |= {u.replace("bit", "b") for u in units}
            upat = "|".join(re.escape(u) for u in sorted(units, key=len, reverse=True))
            for sp in sorted(spellings, key=len, reverse=True):
                text = re.sub(rf"(?<![\w.,]){re.escape(sp)}(\s?|\u202f|\u00a0)({upat})(?![\w/])",
                              lambda mm: f"{_fmt_like(m_new, mm.group(0))}{mm.group(1)}{mm.group(2)}", text)
        elif abs(m_old) >= 1e9 and not isinstance(old, Quantity):   # parameter counts: "13B", "70 billion"
            g_old, g_new = f"{m_old / 1e9:g}", f"{m_new / 1e9:.3g}"
            text = re.sub(rf"(?<![\w.,]){re.escape(g_old)}(B\b|\s?billion\b)", lambda mm: g_new + mm.group(1), text)
            for sp in sorted(spellings, key=len, reverse=True):
                text = re.sub(rf"(?<![\w.,$]){re.escape(sp)}(?![\w]|[.,]\d)",
                              lambda mm: _fmt_like(m_new, mm.group(0)), text)
        elif len(str(int(abs(m_old)))) >= 2:
            for sp in sorted(spellings, key=len, reverse=True):
                text = re.sub(rf"(?<![\w.,$]){re.escape(sp)}(?![\w]|[.,]\d)",
                              lambda mm: _fmt_like(m_new, mm.group(0)), text)
    return text


def _fmt_like(x: float, original: str) -> str:
    """``x`` written the way the book wrote its value (thousands separators or not)."""
    if x == int(x) and abs(x) < 1e15:
        return f"{int(x):,}" if "," in original else f"{int(x)}"
    return f"{x:,g}" if "," in original else f"{x:g}"
