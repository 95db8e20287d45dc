"""Unit-aware feedback: name the unit confusion behind a wrong answer, and the dimensions of a wrong unit.

Used by the student's self-check (:mod:`fleetcalc.ui.exercises`) and by the grader
(``workbook grade``), so both say the same thing in the same words.

* :func:`confusions` lists the common confusions that apply to a part's unit, each as a factor
  between what the student gave and what is wanted: GB and GiB (and kB/KiB, MB/MiB, TB/TiB), bits and
  bytes (Gb and GB), a percentage and a fraction, per direction and both ways (a link's bandwidth).
  :func:`confusion_note` is the sentence a student reads: it names the confusion, never the number.
* :func:`dimension_name` names a unit's dimension ("a time", "a bandwidth (data per time)"), and
  :func:`wrong_dimension_note` says which dimension was given and which one is wanted.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

__all__ = ["Confusion", "confusions", "confusion_note", "dimension_name", "wrong_dimension_note"]


@dataclass(frozen=True)
class Confusion:
    """The student's number (in the part's unit) is ``factor`` times the answer under this confusion."""
    factor: float
    name: str        # short name, e.g. "GB vs GiB"
    note: str        # the sentence the student reads


def _dims(unit: str) -> dict:
    from fleetcalc.core.units import Q_

    return dict(Q_(1, unit or "dimensionless").dimensionality)


_BINARY = [("kB", "KiB", 2 ** 10 / 1e3), ("MB", "MiB", 2 ** 20 / 1e6), ("GB", "GiB", 2 ** 30 / 1e9),
           ("TB", "TiB", 2 ** 40 / 1e12)]


def confusions(unit: str) -> list[Confusion]:
    """The confusions worth testing for an answer in ``unit`` (both directions of each)."""
    try:
        dims = _dims(unit)
    except Exception:
        return []
    out: list[Confusion] = []
    data = dims.get("[information]", 0) != 0
    if data:
        for i, (dec, binary, f) in enumerate(_BINARY, 1):
            note = (f"it is off by exactly the ratio of {binary} to {dec} ({f:.4g}): 1 {dec} is 10^{3 * i} bytes, "
                    f"1 {binary} is 2^{10 * i} bytes. Check which one the question asks for, "
                    "and convert with units (`.to(...)`) rather than by hand.")
            out += [Confusion(f, f"{dec} vs {binary}", note), Confusion(1 / f, f"{dec} vs {binary}", note)]
        note = ("it is off by exactly a factor of 8: bits and bytes (Gb vs GB). Link rates are quoted in bits per "
                "second (Gb/s), memory and files in bytes (GB).")
        out += [Confusion(8.0, "bits vs bytes", note), Confusion(1 / 8, "bits vs bytes", note)]
    if data and dims.get("[time]", 0) == -1 and len(dims) == 2:
        note = ("it is off by exactly a factor of 2: per direction vs both ways. A link's bandwidth is often quoted "
                "for both directions together; a transfer in one direction gets half of it.")
        out += [Confusion(2.0, "per direction vs both ways", note), Confusion(0.5, "per direction vs both ways", note)]
    if not dims:
        out += [Confusion(100.0, "percent vs fraction",
                          "it is 100 times the answer: a percentage where a fraction is asked (write 0.25, not 25)."),
                Confusion(0.01, "percent vs fraction",
                          "it is 1/100 of the answer: a fraction where a percentage is asked.")]
    return out


def confusion_note(c: Confusion) -> str:
    return f"Close, but a unit mix-up ({c.name}): {c.note}"


_NAMES = [
    ({}, "a plain number"),
    ({"[time]": 1}, "a time"),
    ({"[time]": -1}, "a rate (per time)"),
    ({"[information]": 1}, "an amount of data"),
    ({"[information]": 1, "[time]": -1}, "a bandwidth (data per time)"),
    ({"[computation]": 1}, "an amount of compute (FLOP)"),
    ({"[computation]": 1, "[time]": -1}, "a compute rate (FLOP per time)"),
    ({"[computation]": 1, "[information]": -1}, "an arithmetic intensity (FLOP per byte)"),
    ({"[information]": 1, "[computation]": -1}, "a communication intensity (bytes per FLOP)"),
    ({"[mass]": 1, "[length]": 2, "[time]": -3}, "a power"),
    ({"[mass]": 1, "[length]": 2, "[time]": -2}, "an energy"),
    ({"[length]": 1}, "a length"),
    ({"[token]": 1}, "a number of tokens"),
    ({"[token]": 1, "[time]": -1}, "a token rate (tokens per time)"),
    ({"[request]": 1, "[time]": -1}, "a request rate (requests per time)"),
    ({"[information]": 1, "[token]": -1}, "data per token"),
    ({"[time]": 1, "[token]": -1}, "a time per token"),
]


def dimension_name(unit_or_dims) -> str:
    """A reader's name for a unit's dimension: ``"GiB/s"`` -> ``"a bandwidth (data per time)"``."""
    dims = unit_or_dims if isinstance(unit_or_dims, dict) else _dims(unit_or_dims)
    dims = {k: v for k, v in dict(dims).items() if v}
    for d, name in _NAMES:
        if d == dims:
            return name
    parts = " · ".join(f"{k.strip('[]')}^{v:g}" if v != 1 else k.strip("[]") for k, v in sorted(dims.items()))
    return f"a quantity of dimension {parts}"


def wrong_dimension_note(given, unit: str) -> str:
    """``given`` (a Quantity) has the wrong dimension for ``unit``: say which was given and which is wanted."""
    wanted = dimension_name(unit)
    got = dimension_name(dict(given.dimensionality))
    return (f"that is {got}, but the answer is {wanted}" + (f" (in {unit})" if unit else "")
            + ". Check which quantity the question asks for and its units.")


def matches(got: float, want: float, rel: float, abs_: float) -> bool:
    return math.fabs(got - want) <= max(abs_, rel * math.fabs(want)) * (1 + 1e-12)
