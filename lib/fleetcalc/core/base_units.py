"""Base units: what a kernel computes in (SI, bytes not bits, and the workbook's FLOP, token, ...)
and how a kernel's base-unit result becomes the Quantity a checked call returns. Below both the
calculator declaration and the equation printer, which use it."""
from __future__ import annotations

import functools

from fleetcalc.core.units import Q_
from fleetcalc.core.validate import as_count, out


@functools.lru_cache(maxsize=None)
def _base(unit: str) -> tuple[float, str]:
    """(factor, unit): one ``unit`` is ``factor`` of the kernel's base unit for its dimension.

    Base units are SI's, with bytes (not bits) for information and the workbook's own FLOP,
    token, request, param, batch, device and currency unit: 1 GB -> (1e9, "byte"),
    1 hour -> (3600, "second"), 1 Gbit/s -> (1.25e8, "byte / second").
    """
    q = Q_(1.0, unit).to_base_units()
    factor = float(q.magnitude)
    parts = []
    for name, power in sorted(q.units._units.items()):
        if name == "bit":
            factor /= 8.0 ** power
            name = "byte"
        parts.append(name if power == 1 else f"{name} ** {power:g}")
    return factor, " * ".join(parts)


def base_factor(unit: str) -> float:
    """How many base units one ``unit`` is (1e9 for "GB", 3600 for "hour"; see :func:`base_unit`)."""
    return _base(unit)[0] if unit else 1.0


def base_unit(unit: str) -> str:
    """The base unit of ``unit``'s dimension that kernels compute in ("byte" for "GB")."""
    return _base(unit)[1] if unit else ""


#: ``returns=WHOLE``: the result is a whole number (devices, batches, objects), handed back as an
#: int or an int array; the kernel computes it as a float (with :func:`~fleetcalc.core.validate.ceil_count`).
WHOLE = "whole number"


def _wrap(result, returns):
    if returns is None:
        return result
    if returns == WHOLE:
        return as_count(result)
    if isinstance(returns, str):
        if returns:
            factor = base_factor(returns)
            if factor != 1.0:
                result = result / factor
        return out(result, returns)
    if isinstance(returns, dict):
        missing = set(returns) ^ set(result)
        if missing:
            raise RuntimeError(f"kernel returned keys {sorted(result)}; declared {sorted(returns)}")
        return {k: _wrap(result[k], u) for k, u in returns.items()}
    if isinstance(returns, tuple):
        return tuple(_wrap(r, u) for r, u in zip(result, returns, strict=True))
    raise TypeError(f"returns must be a unit, a dict or a tuple of units, or None; got {returns!r}")


def kernel_result(calc, value, key=None):
    """A kernel's base-unit result as the Quantity the checked call returns (``key`` for one
    entry of a dict or tuple result)."""
    returns = calc.returns if key is None else calc.returns[key]
    return _wrap(value, returns)
