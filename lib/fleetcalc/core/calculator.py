"""Declarative calculators: each formula states its parameters' units and bounds once.

A calculator is a plain-float kernel under the :func:`calculator` decorator::

    @calculator(returns="s", D_vol=qty("byte", ge=0), BW=qty("byte/s", gt=0))
    def transfer_time(D_vol, BW):
        '''Time to move D_vol over a link of bandwidth BW: T = D_vol / BW (Eq. 28.1).'''
        return D_vol / BW

The declaration is the single source of four things:

* the checks: each argument is converted to its declared unit and checked against its bounds
  (:func:`fleetcalc.core.validate.magnitude`); bad input raises ``InputError`` naming the
  parameter, the value and the allowed range;
* the documentation: a table of units and ranges is appended to the docstring, and the
  signature carries type hints;
* the tests: ``calc.params`` is what the fuzz and property tests draw their inputs from;
* the fast path: ``calc.kernel`` is the bare formula on floats (or numpy arrays) in the
  declared units, for calculators that call each other and for panels in a hot loop.

Parameters the caller leaves out get the kernel's default, which is written in the declared
unit as a plain number (or ``None`` for "not given").
"""
from __future__ import annotations

import functools
import inspect
from dataclasses import dataclass
from typing import Any, Callable

from fleetcalc.core.units import Quantity
from fleetcalc.core.validate import InputError, magnitude, out

__all__ = ["Param", "qty", "num", "amount", "whole", "fraction", "choice", "anything", "calculator",
           "is_calculator", "calculators_in"]


@dataclass(frozen=True)
class Param:
    """One declared parameter: its unit ("" for a pure number), bounds and meaning.

    ``kind`` is "quantity" (a pint Quantity in ``unit``), "number" (a plain real or array),
    "amount" (a huge count such as parameters or tokens: a plain number or a Quantity in
    ``unit``), "whole" (a whole number), "choice" (one of ``choices``) or "any" (passed through:
    an object such as a list of tiers or a callable, checked by the kernel itself).
    """
    kind: str
    unit: str = ""
    gt: float | None = None
    ge: float | None = None
    lt: float | None = None
    le: float | None = None
    choices: tuple = ()
    doc: str = ""

    def check(self, name: str, value):
        """The value in the declared unit, or InputError naming ``name``."""
        if self.kind == "any":
            return value
        if self.kind == "choice":
            if value not in self.choices:
                raise InputError(f"{name} must be one of {', '.join(map(repr, self.choices))}; got {value!r}")
            return value
        unit = self.unit if (self.kind == "quantity" or isinstance(value, Quantity)) else ""
        return magnitude(name, value, unit, gt=self.gt, ge=self.ge, lt=self.lt, le=self.le,
                         integer=self.kind == "whole")

    @property
    def range_text(self) -> str:
        """The allowed range in words, e.g. "> 0" or "0 to 1"."""
        if self.kind == "choice":
            return "one of " + ", ".join(map(repr, self.choices))
        if self.kind == "any":
            return self.doc or "see docstring"
        lo = f">= {_num(self.ge)}" if self.ge is not None else f"> {_num(self.gt)}" if self.gt is not None else ""
        hi = f"<= {_num(self.le)}" if self.le is not None else f"< {_num(self.lt)}" if self.lt is not None else ""
        text = ", ".join(t for t in (lo, hi) if t) or "any finite"
        return ("whole, " + text) if self.kind == "whole" else text

    @property
    def hint(self):
        """The type hint this parameter shows in the signature."""
        return {"quantity": Quantity, "number": float, "amount": float | Quantity, "whole": int,
                "choice": str}.get(self.kind, Any)


def _num(x) -> str:
    return f"{x:g}" if isinstance(x, float) else str(x)


def qty(unit: str, *, gt=None, ge=None, lt=None, le=None, doc: str = "") -> Param:
    """A physical quantity in ``unit`` (a pint Quantity; any compatible unit is converted)."""
    if not unit:
        raise ValueError("qty needs a unit; use num() for a pure number")
    return Param("quantity", unit, gt, ge, lt, le, doc=doc)


def num(*, gt=None, ge=None, lt=None, le=None, doc: str = "") -> Param:
    """A pure number (a ratio, an exponent, a count that may be fractional)."""
    return Param("number", "", gt, ge, lt, le, doc=doc)


def amount(unit: str, *, gt=0, doc: str = "") -> Param:
    """A huge count (parameters, tokens): a plain number (175e9) or a Quantity in ``unit``."""
    return Param("amount", unit, gt, None, None, None, doc=doc)


def whole(*, ge: int = 1, le=None, doc: str = "") -> Param:
    """A whole number of things (devices, layers, hops): integral, ``>= ge`` (1 by default)."""
    return Param("whole", "", None, ge, None, le, doc=doc)


def fraction(*, open_low: bool = False, open_high: bool = False, doc: str = "") -> Param:
    """A fraction between 0 and 1 (each end closed unless said otherwise)."""
    return Param("number", "", 0.0 if open_low else None, None if open_low else 0.0,
                 1.0 if open_high else None, None if open_high else 1.0, doc=doc)


def choice(*options, doc: str = "") -> Param:
    """One of a fixed set of options (a name such as "ring" or "tree")."""
    return Param("choice", choices=tuple(options), doc=doc)


def anything(doc: str) -> Param:
    """An argument the kernel checks itself (a list of tiers, a callable, a catalog entry)."""
    return Param("any", doc=doc)


def _wrap(result, returns):
    if returns is None:
        return result
    if isinstance(returns, str):
        return out(result, returns)
    if isinstance(returns, dict):
        missing = set(returns) ^ set(result)
        if missing:
            raise RuntimeError(f"kernel returned keys {sorted(result)}; declared {sorted(returns)}")
        return {k: _wrap(result[k], u) for k, u in returns.items()}
    if isinstance(returns, tuple):
        return tuple(_wrap(r, u) for r, u in zip(result, returns, strict=True))
    raise TypeError(f"returns must be a unit, a dict or a tuple of units, or None; got {returns!r}")


def _returns_text(returns) -> str:
    if returns is None:
        return "see above"
    if isinstance(returns, str):
        return returns or "pure number"
    if isinstance(returns, dict):
        return "; ".join(f"{k}: {u or 'pure number'}" for k, u in returns.items())
    return ", ".join(u or "pure number" for u in returns)


def _returns_hint(returns):
    if isinstance(returns, str):
        return Quantity
    if isinstance(returns, dict):
        return dict[str, Quantity]
    if isinstance(returns, tuple):
        return tuple[(Quantity,) * len(returns)]
    return Any


def _table(params: dict[str, Param], defaults: dict, returns) -> str:
    rows = []
    for name, p in params.items():
        unit = p.unit if p.kind == "quantity" else f"count or {p.unit}" if p.kind == "amount" else {"whole": "count", "choice": "name", "any": "object"}.get(p.kind, "pure number")
        default = defaults.get(name, inspect.Parameter.empty)
        dflt = "" if default is inspect.Parameter.empty else f"; default {default!r}" + (f" {p.unit}" if p.unit and default is not None else "")
        rows.append(f"    {name} : {unit}, {p.range_text}{dflt}" + (f". {p.doc}" if p.doc else ""))
    return "\n\nParameters (unit, allowed range)\n--------------------------------\n" + "\n".join(rows) + \
        f"\n\nReturns\n-------\n    {_returns_text(returns)}\n"


def calculator(*, returns: str | dict | tuple | None, **params: Param) -> Callable:
    """Declare a calculator: ``returns`` is the result's unit (a dict or tuple of units for
    several results; None when the kernel builds its own result), ``params`` one
    :class:`Param` per argument of the kernel."""
    for name, p in params.items():
        if not isinstance(p, Param):
            raise TypeError(f"parameter {name!r} must be declared with qty/num/whole/fraction/choice/anything")

    def decorate(kernel: Callable) -> Callable:
        sig = inspect.signature(kernel)
        names = list(sig.parameters)
        if set(names) != set(params):
            raise TypeError(f"{kernel.__name__}: declared {sorted(params)} but the kernel takes {names}")
        ordered = {n: params[n] for n in names}
        defaults = {n: q.default for n, q in sig.parameters.items() if q.default is not inspect.Parameter.empty}
        checks = [(n, ordered[n].check) for n in names]

        @functools.wraps(kernel)
        def calc(*args, **kwargs):
            if len(args) > len(names):
                raise TypeError(f"{kernel.__name__}() takes {len(names)} arguments; got {len(args)}")
            values = dict(zip(names, args))
            for k, v in kwargs.items():
                if k not in ordered:
                    raise TypeError(f"{kernel.__name__}() got an unexpected argument {k!r}; it takes {', '.join(names)}")
                if k in values:
                    raise TypeError(f"{kernel.__name__}() got {k!r} twice")
                values[k] = v
            call = {}
            for n, check in checks:
                if n in values:
                    v = values[n]
                    call[n] = None if (v is None and defaults.get(n, 0) is None) else check(n, v)
                elif n in defaults:
                    call[n] = defaults[n]
                else:
                    raise TypeError(f"{kernel.__name__}() is missing the argument {n!r}")
            return _wrap(kernel(**call), returns)

        calc.kernel = kernel
        calc.params = ordered
        calc.returns = returns
        calc.defaults = defaults
        calc.__doc__ = (inspect.cleandoc(kernel.__doc__ or "") + _table(ordered, defaults, returns))
        hints = {n: (ordered[n].hint | None) if defaults.get(n, 0) is None else ordered[n].hint for n in names}
        calc.__annotations__ = {**hints, "return": _returns_hint(returns)}
        calc.__signature__ = sig.replace(
            parameters=[q.replace(annotation=hints[q.name]) for q in sig.parameters.values()],
            return_annotation=_returns_hint(returns))
        return calc

    return decorate


def is_calculator(obj) -> bool:
    """True for a function made by :func:`calculator`."""
    return callable(obj) and hasattr(obj, "kernel") and hasattr(obj, "params")


def calculators_in(module) -> dict[str, Callable]:
    """The public declared calculators of a module, by name (from its ``__all__``)."""
    return {n: getattr(module, n) for n in getattr(module, "__all__", ()) if is_calculator(getattr(module, n))}

