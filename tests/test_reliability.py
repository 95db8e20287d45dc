"""Tests for fleetcalc.physics.reliability (Ch. 28 §28.9, Eq. 28.23-28.25; Vol. 2 Ch. 2 node health)."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from fleetcalc.physics import reliability as R
from fleetcalc.physics.reliability import (
    failure_probability, failure_rate, fit_to_rate, job_failure_rate, system_reliability, min_waste_fraction, mtbf_of_n,
    waste_fraction, waste_terms, young_daly_interval,
)
from fleetcalc.core.catalog import hw
from fleetcalc.core.units import Q_
from fleetcalc.core.validate import InputError, UnitMismatch

C, M = Q_(60, "s"), Q_(24, "hour")


def test_young_daly_eq_28_25():
    # Ch. 28 Eq. 28.25: sqrt(2 x 60 x 86400) ~= 3220 s, ~53.7 min
    tau = young_daly_interval(C, M)
    assert round(tau.to("s").magnitude) == 3220
    assert round(tau.to("min").magnitude, 1) == 53.7
    terms = waste_terms(tau, C, M, Q_(0, "s"))
    # "保存损失与丢失计算两项分别约为1.86%"
    assert round(terms["save"].to("percent").magnitude, 2) == 1.86
    assert round(terms["lost"].to("percent").magnitude, 2) == 1.86
    assert terms["save"].magnitude == pytest.approx(terms["lost"].magnitude)


def test_waste_fraction_by_hand():
    # Eq. 28.23 at tau=3600, C=60, M=86400, R_f=600: 60/3600 + 3600/172800 + 600/86400
    w = waste_fraction(Q_(3600, "s"), C, M, Q_(600, "s")).magnitude
    assert w == pytest.approx(60 / 3600 + 3600 / 172800 + 600 / 86400)
    assert min_waste_fraction(C, M, Q_(600, "s")).magnitude == pytest.approx(
        waste_fraction(young_daly_interval(C, M), C, M, Q_(600, "s")).magnitude)


def test_mtbf_and_probability():
    # §28.9: p independent nodes with rate lambda -> job rate p lambda, MTBF 1/(p lambda)
    assert mtbf_of_n(Q_(1000, "hour"), 64).to("hour").magnitude == pytest.approx(15.625)
    lam = failure_rate(Q_(1000, "hour"))
    assert (1 / job_failure_rate(lam, 64)).to("hour").magnitude == pytest.approx(15.625)
    # exponential: P(fail within one MTBF) = 1 - e^-1
    assert failure_probability(Q_(5, "hour"), Q_(5, "hour")).magnitude == pytest.approx(1 - np.exp(-1))
    assert failure_probability(Q_(0, "s"), Q_(5, "hour")).magnitude == 0


def test_exercise_28_11_quarter_mtbf_halves_tau():
    # Exercise 28.11: M -> M/4 makes tau* = sqrt(2CM) half as long
    assert (young_daly_interval(C, M / 4) / young_daly_interval(C, M)).to("").magnitude == pytest.approx(0.5)


def test_validation():
    with pytest.raises(InputError, match="tau"):
        waste_fraction(Q_(0, "s"), C, M, Q_(0, "s"))
    with pytest.raises(UnitMismatch):
        young_daly_interval(60, M)
    with pytest.raises(InputError, match="n must be >= 1"):
        mtbf_of_n(M, 0)


@settings(max_examples=80, deadline=None)
@given(c=st.floats(1, 3600), m=st.floats(3600, 1e7), f=st.floats(0.05, 20))
def test_waste_minimised_at_tau_star(c, m, f):
    tau = young_daly_interval(Q_(c, "s"), Q_(m, "s")).magnitude
    w_star = waste_fraction(Q_(tau, "s"), Q_(c, "s"), Q_(m, "s"), Q_(0, "s")).magnitude
    w = waste_fraction(Q_(tau * f, "s"), Q_(c, "s"), Q_(m, "s"), Q_(0, "s")).magnitude
    assert w >= w_star * (1 - 1e-12)


@settings(max_examples=60, deadline=None)
@given(mtbf=st.floats(1, 1e9), n=st.integers(1, 100000))
def test_mtbf_falls_as_one_over_n(mtbf, n):
    assert mtbf_of_n(Q_(mtbf, "s"), n).magnitude * n == pytest.approx(mtbf)


@settings(max_examples=60, deadline=None)
@given(d=st.floats(0, 1e9), mtbf=st.floats(1e-3, 1e9))
def test_probability_in_unit_interval(d, mtbf):
    p = failure_probability(Q_(d, "s"), Q_(mtbf, "s")).magnitude
    assert 0 <= p <= 1


def test_system_reliability_vol2_eq_1_1():
    # Vol. 2 Ch. 1 Eq. 1.1 and §1.4.1: 0.999^1000 = 36.8 %, 0.999^10000 = 0.0045 %, 0.9999^10000 = 36.8 %
    assert round(system_reliability(0.999, 1000).to("percent").magnitude, 1) == 36.8
    assert round(system_reliability(0.999, 10000).to("percent").magnitude, 4) == 0.0045
    assert round(system_reliability(0.9999, 10000).to("percent").magnitude, 1) == 36.8
    # by hand: one part -> its own reliability; r = 1 -> 1
    assert system_reliability(0.9, 1).magnitude == pytest.approx(0.9)
    assert system_reliability(1, 500).magnitude == 1.0
    # vectorised over n; agrees with exp(-N lambda t) when r = exp(-lambda t)
    n = np.array([1, 10, 100])
    assert system_reliability(0.99, n).magnitude == pytest.approx(0.99 ** n)
    lam_t = 1e-3
    assert system_reliability(np.exp(-lam_t), 1000).magnitude == pytest.approx(np.exp(-1.0))


@pytest.mark.parametrize("r, n", [(0, 10), (-0.1, 10), (1.01, 10), (0.9, 0), (0.9, 2.5), (0.9, -1)])
def test_system_reliability_rejects(r, n):
    with pytest.raises(InputError):
        system_reliability(r, n)


def test_fit_to_rate():
    # FIT = failures per 1e9 device-hours: 1000 FIT -> 1e-6 /h, i.e. MTBF 1e6 h (hand calculation)
    lam = fit_to_rate(1000)
    assert lam.to("1/hour").magnitude == pytest.approx(1e-6)
    assert (1 / lam).to("hour").magnitude == pytest.approx(1e6)
    assert fit_to_rate(0).magnitude == 0.0
    assert fit_to_rate(np.array([1, 10])).to("1/hour").magnitude == pytest.approx([1e-9, 1e-8])
    with pytest.raises(InputError):
        fit_to_rate(-1)


def test_node_reliability():
    # Vol. 2 Ch. 2 line 2098: 128 nodes x 336 h / 1,000 h = 43.0; per day 3.1; GPUs 1024 x 336 / 50,000 = 6.9
    f = R.expected_failures(Q_(336, "hour"), hw("node_mtbf.node"), 128)
    assert f.magnitude == pytest.approx(43.008)
    assert round(f.magnitude / 14, 1) == 3.1
    assert round(R.expected_failures(Q_(336, "hour"), hw("node_mtbf.gpu"), 1024).magnitude, 1) == 6.9
    # 43 x 10 min / 336 h = 2.1 %; x 30 min = 6.4 %
    assert round(100 * R.restart_overhead(f, Q_(10, "min"), Q_(336, "hour")).magnitude, 1) == 2.1
    assert round(100 * R.restart_overhead(f, Q_(30, "min"), Q_(336, "hour")).magnitude, 1) == 6.4
    # hand: 8 GPUs of 50,000 h -> 6,250 h; rest of a 1,000 h node -> 1/(1/1000 - 8/50000) = 1190.48 h
    assert R.node_mtbf([8], [Q_(50000, "hour")]).to("hour").magnitude == pytest.approx(6250)
    assert R.rest_of_node_mtbf(Q_(1000, "hour"), Q_(50000, "hour"), 8).magnitude == pytest.approx(1190.476, rel=1e-6)
    both = R.node_mtbf([8, 1], [Q_(50000, "hour"), Q_(1190.476190476, "hour")])
    assert both.to("hour").magnitude == pytest.approx(1000)
    # hand: a node of 8 parts of 50,000 h fails at 8 / 50,000 per hour
    assert R.node_failure_rate([8], [Q_(50000, "hour")]).to("1/hour").magnitude == pytest.approx(8 / 50000)
    # P(any of 128 nodes fails in 336 h) = 1 - e^-43 ~ 1; one node: 1 - e^-0.336 = 28.5 % (hand)
    assert R.failure_probability_of_fleet(Q_(336, "hour"), Q_(1000, "hour"), 128).magnitude > 0.999999
    assert R.failure_probability_of_fleet(Q_(336, "hour"), Q_(1000, "hour"), 1).magnitude == pytest.approx(
        1 - np.exp(-0.336))
    with pytest.raises(InputError, match="node_mtbf_total"):
        R.rest_of_node_mtbf(Q_(7000, "hour"), Q_(50000, "hour"), 8)
    with pytest.raises(InputError, match="counts"):
        R.node_failure_rate([1, 2], [Q_(1, "hour")])
    with pytest.raises(InputError, match="counts"):
        R.node_mtbf([0], [Q_(1, "hour")])
