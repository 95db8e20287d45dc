"""Tests for fleetcalc.physics.trends: orders of magnitude, growth per year, doubling time (Vol. 2
notation and Ch. 1, seed 001 lines 1-1216).

Expected values come from the book (line numbers given) or from a hand calculation shown inline.
"""
import math

import pytest

from fleetcalc import Q_

from fleetcalc.physics import trends as s
from fleetcalc.core.validate import InputError


def close(q, value, unit="", rel=1e-9):
    mag = q.to(unit).magnitude if unit else q.to("dimensionless").magnitude
    assert mag == pytest.approx(value, rel=rel)


def test_trends():
    close(s.orders_of_magnitude(Q_(1e18, "FLOP"), Q_(1e25, "FLOP")), 7.0)   # Ch. 1 line 578
    close(s.orders_of_magnitude(2, 16384), math.log10(8192))                # Figure 1.1, line 663
    close(s.doubling_time(1.4), math.log(2) / math.log(1.4), "year")         # Fig. 1.5: ~2.06 years
    close(s.annual_growth_factor(Q_(3.4, "month")), 2 ** (12 / 3.4), rel=1e-3)  # pint: month = year/12
    close(s.growth_factor_per_year(8192, Q_(12, "year")), 8192 ** (1 / 12))
    with pytest.raises(InputError):
        s.doubling_time(1.0)
