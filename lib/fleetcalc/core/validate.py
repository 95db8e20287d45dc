"""Input checks shared by every calculator.

Each calculator turns each argument into a plain magnitude in the unit its formula uses with
:func:`magnitude`. Bad input raises :class:`InputError` (a ``ValueError``) whose message names
the parameter, the value it got and the allowed range, e.g.::

    beta_mem must be > 0 byte/s; got -2 TB/s
    beta_mem needs a quantity in byte/s (e.g. Q_(2, "TB/s")); got the plain number 2
"""
from __future__ import annotations

import functools
import math
import numbers

import numpy as np
import pint

from fleetcalc.core.units import Q_, Quantity, ureg


@functools.lru_cache(maxsize=1024)
def _unit(text: str):
    """Parsed units, cached: pint re-parses a unit string on every use (~0.3 ms each)."""
    return ureg.Unit(text or "dimensionless")


_FACTORS: dict = {}


def _to(value, unit: str):
    """``value.m_as(unit)`` with the conversion factor cached per (units, target).

    A pint conversion costs ~0.1-0.3 ms; panels call calculators many times per slider move.
    All workbook units are multiplicative (no temperatures), so a factor is exact enough.
    """
    key = (value._units, unit)
    factor = _FACTORS.get(key)
    if factor is None:
        factor = Q_(1.0, value._units).m_as(_unit(unit))  # raises DimensionalityError if incompatible
        _FACTORS[key] = factor
    return value.magnitude * factor

__all__ = ["InputError", "UnitMismatch", "magnitude", "count", "out", "nonfinite_parts"]


class InputError(ValueError):
    """An argument outside the range its formula is defined on."""


class UnitMismatch(InputError, TypeError):
    """An argument with the wrong physical dimension, or without units where units are needed."""


def _show(value) -> str:
    if isinstance(value, Quantity):
        mag = value.magnitude
        unit = f" {value.units:~P}" if not value.dimensionless else ""
    else:
        mag, unit = value, ""
    if isinstance(mag, np.ndarray):
        text = np.array2string(mag, threshold=6, precision=6)
    else:
        text = repr(mag) if isinstance(mag, float) else str(mag)
    return f"{text}{unit}"


def magnitude(name: str, value, unit: str = "", *, gt=None, ge=None, lt=None, le=None,
              integer: bool = False):
    """Return ``value`` as a float (or float array) in ``unit``, after checking it.

    ``unit=""`` means a pure number: a plain int/float/array is accepted. Otherwise the value
    must be a pint Quantity convertible to ``unit``. Bounds ``gt``/``ge``/``lt``/``le`` are in
    ``unit``. Rejects nan, inf, empty arrays, booleans, strings and other types.
    """
    want = f" in {unit}" if unit else ""
    if isinstance(value, (bool, np.bool_)) or isinstance(value, (str, bytes)) or value is None:
        raise UnitMismatch(f"{name} needs a number{want}; got {value!r} ({type(value).__name__})")
    if isinstance(value, Quantity):
        try:
            mag = _to(value, unit)
        except pint.DimensionalityError:
            raise UnitMismatch(
                f"{name} needs a quantity{want or ' without units'}; got {_show(value)}"
            ) from None
    elif unit:
        raise UnitMismatch(
            f"{name} needs a quantity{want} (e.g. Q_(2, {unit!r})); got the plain number {_show(value)}"
        )
    elif isinstance(value, (numbers.Real, np.ndarray, list, tuple)):
        mag = value
    else:
        raise UnitMismatch(f"{name} needs a number; got {type(value).__name__}")
    if isinstance(mag, (int, float)) and not isinstance(mag, bool):
        return _scalar(name, float(mag), value, unit, want, gt, ge, lt, le, integer)
    try:
        arr = np.asarray(mag, dtype=float)
    except (TypeError, ValueError):
        raise UnitMismatch(f"{name} needs numbers{want}; got {_show(value)}") from None
    if arr.size == 0:
        raise InputError(f"{name} is empty; give at least one value{want}")
    if not np.all(np.isfinite(arr)):
        raise InputError(f"{name} must be finite{want}; got {_show(value)}")
    for op, bound, test in (
        (">", gt, lambda a, b: a > b),
        (">=", ge, lambda a, b: a >= b),
        ("<", lt, lambda a, b: a < b),
        ("<=", le, lambda a, b: a <= b),
    ):
        if bound is not None and not np.all(test(arr, bound)):
            raise InputError(f"{name} must be {op} {bound}{' ' + unit if unit else ''}; got {_show(value)}")
    if integer and not np.all(arr == np.round(arr)):
        raise InputError(f"{name} must be a whole number; got {_show(value)}")
    return arr if arr.ndim else float(arr)


def _scalar(name, x, value, unit, want, gt, ge, lt, le, integer):
    """The same checks as :func:`magnitude` for one number, without numpy overhead."""
    if not math.isfinite(x):
        raise InputError(f"{name} must be finite{want}; got {_show(value)}")
    for op, bound, ok in ((">", gt, lambda: x > gt), (">=", ge, lambda: x >= ge),
                          ("<", lt, lambda: x < lt), ("<=", le, lambda: x <= le)):
        if bound is not None and not ok():
            raise InputError(f"{name} must be {op} {bound}{' ' + unit if unit else ''}; got {_show(value)}")
    if integer and x != round(x):
        raise InputError(f"{name} must be a whole number; got {_show(value)}")
    return x


def count(name: str, value, *, ge: int = 1):
    """A whole number of things (processes, devices, batch rows): ``>= ge``, integral."""
    return magnitude(name, value, "", ge=ge, integer=True)


def out(mag, unit: str):
    """Wrap a result magnitude in ``unit``; refuse to return nan/inf (a silent wrong number)."""
    if isinstance(mag, (int, float)) and not isinstance(mag, bool):
        if not math.isfinite(mag):
            raise InputError(f"result is not finite ({mag}); check the inputs' ranges")
        return Q_(float(mag), _unit(unit))
    arr = np.asarray(mag, dtype=float)
    if not np.all(np.isfinite(arr)):
        raise InputError(f"result is not finite ({arr}); check the inputs' ranges")
    return Q_(arr if arr.ndim else float(arr), _unit(unit))


def nonfinite_parts(value, where: str = "result") -> list[str]:
    """Names of the parts of a result that are nan or inf (Quantities, arrays, dicts, sequences,
    dataclasses); an empty list means every number in it is finite. Non-numeric parts are ignored.
    The fuzz and slider-range tests use it to prove no calculator returns a silent nan."""
    if isinstance(value, Quantity):
        return nonfinite_parts(value.magnitude, where)
    if isinstance(value, dict):
        return [p for k, v in value.items() for p in nonfinite_parts(v, f"{where}[{k!r}]")]
    if isinstance(value, (list, tuple)):
        return [p for i, v in enumerate(value) for p in nonfinite_parts(v, f"{where}[{i}]")]
    if isinstance(value, (str, bytes, bool, type(None))):
        return []
    if hasattr(value, "__dataclass_fields__"):
        return [p for k in value.__dataclass_fields__ for p in nonfinite_parts(getattr(value, k), f"{where}.{k}")]
    try:
        arr = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        return []  # not numeric (an object a plot uses): nothing to check
    return [] if np.all(np.isfinite(arr)) else [where]


#: Relative tolerance of a whole-number ceiling: a quotient that float rounding nudged just above a
#: whole number (350 GB / 70 GB = 5.000000000000001) still counts 5, not 6. One value for the library.
CEIL_TOLERANCE = 1e-9


def ceil_count(x):
    """The least whole number >= x, forgiving float noise: ceil(x - 1e-9 max(|x|, 1)) (scalar or array).

    Written ``ceil_count(x)`` in a declared equation, printed as the ceiling of x."""
    x = np.asarray(x, dtype=float) if not np.isscalar(x) else float(x)
    return np.ceil(x - CEIL_TOLERANCE * np.maximum(np.abs(x), 1.0))


def as_count(x):
    """A whole-number result as an int (scalar) or an int array: the checked call's cast for a
    calculator declared ``returns=WHOLE``."""
    return int(x) if np.ndim(x) == 0 else np.asarray(x).astype(int)


def nonempty_list(name: str, value, fn: str) -> list:
    """A non-empty list/tuple/1-D array argument of ``fn``, as a list; anything else is refused by name
    (for lists a kernel checks item by item, e.g. part counts beside their MTBFs)."""
    ok = isinstance(value, (list, tuple)) or (isinstance(value, (np.ndarray, Quantity)) and np.ndim(value) == 1)
    if not ok or len(value) == 0:
        raise InputError(f"{fn} needs {name} as a non-empty list (one entry per item); got {value!r}")
    return list(value)
