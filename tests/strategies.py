"""Test inputs drawn from the calculators' own declarations (``calc.params``).

Each :class:`fleetcalc.core.calculator.Param` says its unit, kind and bounds, so the fuzz and
property tests read valid ranges from it; nothing here parses an error message. ``EXAMPLES``
holds a value only for the parameters declared ``anything(...)`` (lists of stages, a catalog
key), which a declaration cannot describe.
"""
from __future__ import annotations

import math

import numpy as np
from hypothesis import strategies as st

from fleetcalc.core.calculator import Param
from fleetcalc.core.units import Q_

# Span of a valid draw on each side of a declared bound (log-uniform).
DECADES = 4.0


def _low_high(p: Param) -> tuple[float, float]:
    """A finite interval inside the declared bounds to draw from."""
    lo = p.ge if p.ge is not None else p.gt
    hi = p.le if p.le is not None else p.lt
    if lo is None and hi is None:
        return 1e-3, 1e3
    if lo is None:
        return hi - 10 ** DECADES if hi > 0 else hi * 10 ** DECADES, hi
    if hi is None:
        base = lo if lo > 0 else 1e-3 if lo == 0 else lo
        return lo, (abs(base) * 10 ** DECADES if base > 0 else 10 ** DECADES)
    return lo, hi


def typical(p: Param):
    """A comfortable valid value: the middle of a closed range, twice a positive lower bound."""
    if p.kind == "choice":
        return p.choices[0]
    lo, hi = _low_high(p)
    if p.kind == "whole":
        start = int(math.ceil(lo if p.ge is not None else lo + 1))
        v = max(start, 2) if (p.le is None or p.le >= 2) else start
        value: float = v if p.le is None else min(v, int(p.le))
    elif p.le is not None or p.lt is not None:
        value = (lo + hi) / 2
    else:
        value = 2.0 * lo if lo > 0 else 2.0
    return Q_(value, p.unit) if p.kind == "quantity" else value


def strategy(p: Param) -> st.SearchStrategy:
    """Valid values of one parameter: log-uniform over positive ranges (from 1e-4 of the unit when
    the bound is zero; zero itself too when it is allowed), uniform over ranges that cross zero."""
    if p.kind == "choice":
        return st.sampled_from(p.choices)
    lo, hi = _low_high(p)
    if p.kind == "whole":
        first = int(math.ceil(lo)) if p.ge is not None else int(math.floor(lo)) + 1
        return st.integers(first, int(min(hi, first + 4096)))
    open_lo, open_hi = p.ge is None and p.gt is not None, p.le is None and p.lt is not None
    if lo == 0:
        top = min(hi, 1e4) if (p.le is not None or p.lt is not None) else 1e4
        raw = st.floats(-4.0, math.log10(top)).map(lambda e: 10 ** e)
        if p.ge == 0:
            raw = st.one_of(st.just(0.0), raw)
    elif lo > 0 and hi / lo > 100:
        raw = st.floats(math.log10(lo), math.log10(hi)).map(lambda e: 10 ** e)
    else:
        raw = st.floats(lo, hi, exclude_min=open_lo, exclude_max=open_hi, allow_nan=False)
    raw = raw.filter(lambda x: _inside(p, x))
    return raw.map(lambda x: Q_(x, p.unit)) if p.kind == "quantity" else raw


def _inside(p: Param, x: float) -> bool:
    return ((p.gt is None or x > p.gt) and (p.ge is None or x >= p.ge)
            and (p.lt is None or x < p.lt) and (p.le is None or x <= p.le))


def outside(p: Param) -> list[tuple[str, object]]:
    """Values just past each declared bound (they must be refused)."""
    bad = []
    for bound, step in ((p.gt, 0.0), (p.ge, -1.0), (p.lt, 0.0), (p.le, 1.0)):
        if bound is None:
            continue
        if step == 0.0:
            x = bound
        else:
            x = bound + step * max(1.0, abs(bound))
        if p.kind == "whole" and x != int(x):
            continue
        bad.append((f"past bound ({x:g})", Q_(x, p.unit) if p.kind == "quantity" else x))
    return bad


def malformed(p: Param, default) -> list[tuple[str, object]]:
    """Inputs of the wrong shape for this kind of parameter (each must raise a clean error)."""
    if p.kind in ("any",):
        return []
    if p.kind == "choice":
        return [("unknown option", "no-such-option"), ("a number", 3.0)]
    bad: list[tuple[str, object]] = [("a string", "2"), ("True", True), ("a dict", {"x": 1})]
    if default is not None:
        bad.append(("None", None))
    if p.kind == "quantity":
        bad += [("nan", Q_(float("nan"), p.unit)), ("inf", Q_(float("inf"), p.unit)),
                ("a plain number", 2.0), ("a wrong unit", Q_(2.0, "kelvin")),
                ("an empty array", Q_(np.array([]), p.unit))]
    else:  # plain numbers and amounts
        bad += [("nan", float("nan")), ("inf", float("inf")), ("an empty array", np.array([])),
                ("a wrong unit", Q_(2.0, "kelvin"))]
        if p.kind == "whole":
            bad.append(("a fraction", 2.5))
    return bad


def array_of(value):
    """Two copies of a valid scalar as an array (the calculators are vectorised)."""
    if hasattr(value, "magnitude"):
        return Q_(np.array([value.magnitude, value.magnitude]), value.units)
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return np.array([value, value])
    return None
