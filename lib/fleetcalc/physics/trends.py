"""Growth trends: orders of magnitude, growth factor per year and doubling time.

Vol. 2 Ch. 1 lines 453, 578, 663, 672 and 776 (Figures 1.1 and 1.5; seed 001, line numbers point
into that seed text): compute, model size and device counts grow by constant yearly factors, so
a trend is read as a factor per year or, equivalently, a doubling time.
"""
from __future__ import annotations

import numpy as np

from fleetcalc.core.calculator import anything, base_factor, calculator, num, qty
from fleetcalc.core.equation import eq, no_equation
from fleetcalc.core.units import Quantity
from fleetcalc.core.validate import InputError, UnitMismatch, magnitude

__all__ = ["orders_of_magnitude", "annual_growth_factor", "doubling_time", "growth_factor_per_year"]

#: One year in the kernels' base unit (seconds; pint's year is 365.25 days): a growth "per year"
#: divides a time by it.
YEAR = base_factor("year")



def _yearly(base, years, name):
    """base^(1/years) for ``years`` in years, or InputError naming ``name`` when the yearly factor
    exceeds any float."""
    with np.errstate(over="ignore"):
        f = np.power(base, 1.0 / years)
    if not np.all(np.isfinite(f)):
        raise InputError(f"{name} = {years} year is too short: the yearly factor exceeds any float")
    return f


@calculator(returns="", start=anything("> 0: a plain number, or a Quantity of the same dimension as end"),
            end=anything("> 0: a plain number, or a Quantity of the same dimension as start"),
            equation=eq(r"\mathrm{orders}", "log10(end/start)", symbols={"start": "x_0", "end": "x_1"},
                        ref="Vol. 2 Ch. 1, line 578 (10^18 to 10^25 FLOP: seven orders of magnitude)"))
def orders_of_magnitude(start, end):
    """log10(end / start): how many factors of ten separate two amounts of the same kind
    (both plain numbers, or both Quantities of one dimension)."""
    if isinstance(start, Quantity) != isinstance(end, Quantity):
        raise UnitMismatch(f"start and end must both be Quantities of one dimension or both plain numbers; "
                           f"got start={start!r}, end={end!r}")
    unit = f"{end.units:D}" if isinstance(end, Quantity) else ""
    st = magnitude("start", start, unit, gt=0)
    en = magnitude("end", end, unit, gt=0)
    return np.log10(en / st)


@calculator(returns="", ratio=num(gt=0, doc="end / start"), years=qty("year", gt=0),
            equation=eq(r"g", "ratio**(unit('year')/years)", symbols={"ratio": r"\frac{x_1}{x_0}", "years": "t"},
                        ref="Vol. 2 Ch. 1 (compound growth per year, lines 578-590)"))
def growth_factor_per_year(ratio, years):
    """ratio^(1/years): the constant yearly factor that turns one amount into ``ratio`` times it."""
    return _yearly(ratio, years / YEAR, "years")


@calculator(returns="year", factor_per_year=num(gt=1),
            equation=eq(r"t_2", "log(2)/log(factor_per_year) * unit('year')", symbols={"factor_per_year": "g"},
                        ref="Vol. 2 Ch. 1 (doubling time of a yearly factor g, lines 578-590)"))
def doubling_time(factor_per_year):
    """t_2 = ln 2 / ln(factor per year) (years); the factor must exceed 1."""
    return YEAR * np.log(2.0) / np.log(factor_per_year)


@calculator(returns="", doubling=qty("year", gt=0, doc="doubling time"),
            equation=eq(r"g", "2**(unit('year')/doubling)", symbols={"doubling": "t_2"},
                        ref="Vol. 2 Ch. 1 (the yearly factor of a doubling time, lines 578-590)"))
def annual_growth_factor(doubling):
    """2^(1 year / t_2): the yearly factor of something that doubles every ``doubling``."""
    return _yearly(2.0, doubling / YEAR, "doubling")
