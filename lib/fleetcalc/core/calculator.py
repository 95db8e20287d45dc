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
* the fast path: ``calc.kernel`` is the bare formula on floats (or numpy arrays) in **base
  units** (SI seconds, metres, kilograms and watts; bytes, not bits; FLOP, token, request, ...),
  for calculators that call each other and for panels in a hot loop. The declared units are the
  boundary: the checked call converts each argument from its declared unit to the base unit and
  the result from the base unit to the declared one, so a kernel never carries a unit factor;
* the worked step: ``equation=eq(...)`` declares the formula the kernel computes, in the book's
  symbols (:mod:`fleetcalc.core.equation`); ``calc.work(...)`` shows it with the inputs put in.

Parameters the caller leaves out get the kernel's default, which is written in the kernel's base
unit as a plain number (or ``None`` for "not given").
"""
from __future__ import annotations

import contextlib
import functools
import inspect
from dataclasses import dataclass, replace
from typing import Any, Callable

import numpy as np

from fleetcalc.core.base_units import WHOLE, _wrap, base_factor, base_unit, kernel_result  # noqa: F401  (re-exported)
from fleetcalc.core.units import Q_, Quantity
from fleetcalc.core.validate import CEIL_TOLERANCE, InputError, ceil_count, magnitude

__all__ = ["Param", "qty", "num", "amount", "whole", "fraction", "choice", "quantities", "anything", "one_value", "calculator",
           "is_calculator", "calculators_in", "record_calls", "WHOLE", "ceil_count", "CEIL_TOLERANCE", "base_factor", "base_unit", "kernel_inputs", "kernel_result"]


@dataclass(frozen=True)
class Param:
    """One declared parameter: its unit ("" for a pure number), bounds and meaning.

    ``kind`` is "quantity" (a pint Quantity in ``unit``), "number" (a plain real or array),
    "amount" (a huge count such as parameters or tokens: a plain number or a Quantity in
    ``unit``), "whole" (a whole number), "choice" (one of ``choices``) or "any" (passed through:
    an object such as a list of tiers or a callable, checked by the kernel itself).
    ``scalar`` (set by :func:`one_value`) says why the argument must be one value, not an array.
    """
    kind: str
    unit: str = ""
    gt: float | None = None
    ge: float | None = None
    lt: float | None = None
    le: float | None = None
    choices: tuple = ()
    doc: str = ""
    scalar: str = ""

    def check(self, name: str, value):
        """The value in the declared unit, or InputError naming ``name``."""
        checked = self._check(name, value)
        if self.scalar and np.ndim(checked) != 0:
            raise InputError(f"{name} must be one value ({self.scalar}); got an array of shape {np.shape(checked)}")
        return checked

    def _check(self, name: str, value):
        if self.kind == "any":
            return value
        if self.kind == "choice":
            if value not in self.choices:
                raise InputError(f"{name} must be one of {', '.join(map(repr, self.choices))}; got {value!r}")
            return value
        if self.kind == "quantities":
            return self._check_list(name, value)
        if self.kind == "whole" and isinstance(value, Quantity):
            value = _count_magnitude(name, value)   # 1,024 device counts as 1,024 devices
        unit = self.unit if (self.kind == "quantity" or isinstance(value, Quantity)) else ""
        mag = magnitude(name, value, unit, gt=self.gt, ge=self.ge, lt=self.lt, le=self.le,
                        integer=self.kind == "whole")
        factor = self.to_kernel if unit else 1.0
        return mag if factor == 1.0 else mag * factor

    def _check_list(self, name: str, value):
        """A list of quantities (or one Quantity array, items along axis 0) as one base-unit array,
        items along axis 0; each item is checked by name (``stages[2]``)."""
        if isinstance(value, Quantity):
            mags = np.atleast_1d(magnitude(name, value, self.unit, gt=self.gt, ge=self.ge, lt=self.lt, le=self.le))
        elif isinstance(value, (list, tuple)) and len(value) > 0:
            items = [np.asarray(magnitude(f"{name}[{i}]", v, self.unit, gt=self.gt, ge=self.ge, lt=self.lt, le=self.le))
                     for i, v in enumerate(value)]
            try:
                mags = np.stack(np.broadcast_arrays(*items))
            except ValueError:
                raise InputError(f"{name}: the items' shapes {[np.shape(m) for m in items]} do not broadcast together") from None
        else:
            raise InputError(f"{name} needs a non-empty list of quantities in {self.unit} (one per item); got {value!r}")
        return mags * self.to_kernel if self.to_kernel != 1.0 else mags

    @functools.cached_property
    def to_kernel(self) -> float:
        """Factor from the declared unit to the kernel's base unit (1.0 for a pure number)."""
        return base_factor(self.unit) if self.kind in ("quantity", "amount", "quantities") and self.unit else 1.0

    @property
    def kernel_unit(self) -> str:
        """The unit the kernel receives this parameter in: the base unit of its dimension."""
        return base_unit(self.unit) if self.kind in ("quantity", "amount", "quantities") and self.unit else ""

    @property
    def range_text(self) -> str:
        """The allowed range in words, e.g. "> 0" or "0 to 1"."""
        if self.kind == "choice":
            return "one of " + ", ".join(map(repr, self.choices))
        if self.kind == "any":
            return self.doc or "see docstring"
        if self.kind == "quantities":
            lo = f">= {_num(self.ge)}" if self.ge is not None else f"> {_num(self.gt)}" if self.gt is not None else ""
            return "a non-empty list, each " + (lo or "any finite")
        lo = f">= {_num(self.ge)}" if self.ge is not None else f"> {_num(self.gt)}" if self.gt is not None else ""
        hi = f"<= {_num(self.le)}" if self.le is not None else f"< {_num(self.lt)}" if self.lt is not None else ""
        text = ", ".join(t for t in (lo, hi) if t) or "any finite"
        return ("whole, " + text) if self.kind == "whole" else text

    @property
    def hint(self):
        """The type hint this parameter shows in the signature."""
        return {"quantity": Quantity, "number": float, "amount": float | Quantity, "whole": int,
                "choice": str, "quantities": list[Quantity]}.get(self.kind, Any)


#: Units of things counted one by one: a whole-number parameter accepts a count in one of them
#: (``our_job.N`` is 1,024 device), as well as a plain number.
COUNT_UNITS = ("device", "token", "param", "request", "batch")


def _count_magnitude(name: str, value):
    for u in COUNT_UNITS:
        if value.dimensionality == Q_(1, u).dimensionality:
            return value.to(u).magnitude
    return value


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


def quantities(unit: str, *, gt=None, ge=None, doc: str = "") -> Param:
    """A non-empty list of quantities in ``unit`` (stage times, tier bandwidths), or one Quantity
    array with the items along axis 0; the kernel receives one base-unit array, items along axis 0."""
    return Param("quantities", unit, gt, ge, None, None, doc=doc)


def one_value(param: Param, why: str) -> Param:
    """``param``, taking one value only (an array is refused with ``why``: e.g. "the exact
    recursion is not vectorised; use resident_block_limits for arrays")."""
    return replace(param, scalar=why)


def anything(doc: str) -> Param:
    """An argument the kernel checks itself (a list of tiers, a callable, a catalog entry)."""
    return Param("any", doc=doc)


def _returns_text(returns) -> str:
    if returns is None:
        return "see above"
    if isinstance(returns, str):
        return returns or "pure number"
    if isinstance(returns, dict):
        return "; ".join(f"{k}: {u or 'pure number'}" for k, u in returns.items())
    return ", ".join(u or "pure number" for u in returns)


def _returns_hint(returns):
    if returns == WHOLE:
        return int
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
        if isinstance(default, (int, float)) and not isinstance(default, bool) and p.unit and p.to_kernel != 1.0:
            default = float(f"{default / p.to_kernel:.12g}")    # kernels take base units; the table shows the declared one
        dflt = "" if default is inspect.Parameter.empty else f"; default {default!r}" + (f" {p.unit}" if p.unit and default is not None else "")
        rows.append(f"    {name} : {unit}, {p.range_text}{dflt}" + (f". {p.doc}" if p.doc else ""))
    return "\n\nParameters (unit, allowed range)\n--------------------------------\n" + "\n".join(rows) + \
        f"\n\nReturns\n-------\n    {_returns_text(returns)}\n"


def calculator(*, returns: str | dict | tuple | None, equation=None, **params: Param) -> Callable:
    """Declare a calculator: ``returns`` is the result's unit (a dict or tuple of units for
    several results; None when the kernel builds its own result), ``params`` one
    :class:`Param` per argument of the kernel, ``equation`` the formula it computes
    (:func:`fleetcalc.core.equation.eq`, or a dict of them by result key), from which a notebook
    shows the equation and the worked step."""
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

        def bind(args, kwargs) -> dict:
            try:
                bound = sig.bind(*args, **kwargs)
            except TypeError as e:
                raise TypeError(f"{kernel.__name__}(): {e}; it takes {', '.join(names)}") from None
            call = {}
            for n, v in bound.arguments.items():
                call[n] = None if (v is None and defaults.get(n, 0) is None) else ordered[n].check(n, v)
            for n in names:
                if n not in call:
                    call[n] = defaults[n]
            return call

        @functools.wraps(kernel)
        def calc(*args, **kwargs):
            result = _wrap(kernel(**bind(args, kwargs)), returns)
            if _RECORDING is not None:
                _RECORDING.append((calc, args, kwargs))
            return result

        calc.kernel = kernel
        calc.params = ordered
        calc.returns = returns
        calc.defaults = defaults
        calc.bind = lambda *args, **kwargs: bind(args, kwargs)
        calc.equation = equation
        if equation is not None:
            from fleetcalc.core.equation import attach
            attach(calc, equation)
        calc.__doc__ = (inspect.cleandoc(kernel.__doc__ or "") + _table(ordered, defaults, returns))
        hints = {n: (ordered[n].hint | None) if defaults.get(n, 0) is None else ordered[n].hint for n in names}
        calc.__annotations__ = {**hints, "return": _returns_hint(returns)}
        calc.__signature__ = sig.replace(
            parameters=[q.replace(annotation=hints[q.name]) for q in sig.parameters.values()],
            return_annotation=_returns_hint(returns))
        return calc

    return decorate


_RECORDING: list | None = None


@contextlib.contextmanager
def record_calls():
    """Within the block, every checked calculator call is listed as ``(calc, args, kwargs)``
    (calls of ``.kernel`` are not): a worked solution shows the steps an answer took."""
    global _RECORDING
    outer, _RECORDING = _RECORDING, []
    try:
        yield _RECORDING
    finally:
        calls, _RECORDING = _RECORDING, outer
        if outer is not None:
            outer.extend(calls)


def kernel_inputs(calc, *args, **kwargs) -> dict:
    """The arguments as ``calc.kernel`` receives them: checked, in base units, defaults filled in."""
    return calc.bind(*args, **kwargs)


def is_calculator(obj) -> bool:
    """True for a function made by :func:`calculator`."""
    return callable(obj) and hasattr(obj, "kernel") and hasattr(obj, "params")


def calculators_in(module) -> dict[str, Callable]:
    """The public declared calculators of a module, by name (from its ``__all__``)."""
    return {n: getattr(module, n) for n in getattr(module, "__all__", ()) if is_calculator(getattr(module, n))}

