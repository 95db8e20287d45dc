"""Tests for fleetcalc.physics.links (Vol. 2 Ch. 3 §3.1, §3.3-3.4). Expected values name their source:
the seed text's line, or a hand calculation written out in the comment."""
import math

import numpy as np
import pytest

from fleetcalc.physics import links
from fleetcalc.core.catalog import hw
from fleetcalc.core.units import Q_
from fleetcalc.core.validate import InputError, UnitMismatch


def test_nvlink_one_way_and_cliff():
    # line 2535: 900 GB/s both ways = 450 GB/s one way; 450 / 50 = 9x
    assert links.one_way(hw("h100_node.nvlink_both_ways")).to("GB/s").magnitude == pytest.approx(450)
    assert links.bandwidth_ratio(Q_(450, "GB/s"), Q_(50, "GB/s")).magnitude == pytest.approx(9)
    # Fig. 3.2 annotation compares both-ways NVLink with one IB port: 900 / 50 = 18 (book prints ~19)
    assert links.bandwidth_ratio(Q_(900, "GB/s"), Q_(400, "Gb/s")).magnitude == pytest.approx(18)


def test_pam4_bits_and_rates():
    # line 2601: PAM4 = 4 levels = 2 bits/symbol; same symbol rate -> double the rate
    assert links.bits_per_symbol(4).magnitude == 2
    assert links.bits_per_symbol(2).magnitude == 1
    nrz = links.line_rate(Q_(53.125e9, "1/s"), 2)
    pam4 = links.line_rate(Q_(53.125e9, "1/s"), 4)
    assert (pam4 / nrz).to("").magnitude == pytest.approx(2)
    # hand: 8 lanes x 50 GBd x 2 bit = 800 Gb/s
    assert links.line_rate(Q_(50e9, "1/s"), 4, 8).to("Gb/s").magnitude == pytest.approx(800)
    assert links.symbol_rate_needed(Q_(800, "Gb/s"), 4, 8).to("1/s").magnitude == pytest.approx(50e9)
    # vectorised
    r = links.line_rate(Q_(np.array([25e9, 50e9]), "1/s"), 4, 4)
    assert r.to("Gb/s").magnitude.tolist() == pytest.approx([200, 400])


def test_eye_gap_and_penalty():
    # line 2609: the PAM4 gap is a third of NRZ's; 20 log10(3) = 9.542 dB
    assert links.eye_gap_ratio(4).magnitude == pytest.approx(1 / 3)
    assert links.eye_penalty_db(4).magnitude == pytest.approx(9.5424, abs=1e-4)
    assert links.eye_penalty_db(2).magnitude == 0


def test_fec():
    # RS(544,514): 544/514 - 1 = 0.05837
    assert links.fec_overhead(544, 514).magnitude == pytest.approx(0.058366, abs=1e-6)
    # line 2609: 3 hops x 100-200 ns = 300-600 ns; 6 hops = 600-1200 ns
    assert links.fec_path_latency(Q_(100, "ns"), 3).to("ns").magnitude == pytest.approx(300)
    assert links.fec_path_latency(Q_(200, "ns"), 6).to("ns").magnitude == pytest.approx(1200)
    with pytest.raises(InputError, match="k must be <= n"):
        links.fec_overhead(514, 544)


def test_link_budget():
    # line 2631: 30 dB budget - 18 dB (3 m DAC) - 2 dB connectors = 10 dB margin
    assert links.link_margin(30, 18, 2).magnitude == pytest.approx(10)
    # hand: 6 dB/m -> (30 - 2) / 6 = 4.667 m; 12 dB/m (twice the loss) -> 2.333 m
    assert links.max_reach(30, 6, 2).to("m").magnitude == pytest.approx(28 / 6)
    assert links.max_reach(30, 12, 2).to("m").magnitude == pytest.approx(28 / 12)
    with pytest.raises(InputError, match="exceeds the budget"):
        links.max_reach(10, 1, 8, 5)


def test_power_and_cost():
    # line 2625: 20,000 links x $500 = $10M; x 20 W = 400 kW
    assert links.links_cost(20000, Q_(500, "cu")).magnitude == pytest.approx(10e6)
    assert links.links_power(20000, Q_(20, "W")).to("kW").magnitude == pytest.approx(400)
    # line 2629: 3,000 x 25 W = 75 kW; 75 kW / (1024 x 700 W) = 10.46 %
    p = links.links_power(3000, Q_(25, "W"))
    assert p.to("kW").magnitude == pytest.approx(75)
    assert links.power_share(p, Q_(1024 * 700, "W")).magnitude == pytest.approx(0.10463, abs=1e-5)


def test_go_back_n_and_serialization():
    # line 2674: loss at 900 MB of 1 GB -> 100 MB resent; at 400 Gb/s that is 2 ms
    resend = links.go_back_n_resend(Q_(1, "GB"), Q_(900, "MB"))
    assert resend.to("MB").magnitude == pytest.approx(100)
    assert links.transfer_time(resend, Q_(400, "Gb/s")).to("ms").magnitude == pytest.approx(2)
    with pytest.raises(InputError, match="delivered"):
        links.go_back_n_resend(Q_(1, "GB"), Q_(2, "GB"))


def test_latency_speedup():
    # line 2641: 50-100 us -> 1-2 us; 50/2 = 25, 100/2 = 50, 100/1 = 100
    assert links.latency_speedup(Q_(50, "us"), Q_(2, "us")).magnitude == pytest.approx(25)
    assert links.latency_speedup(Q_(100, "us"), Q_(1, "us")).magnitude == pytest.approx(100)


def test_validation():
    with pytest.raises(UnitMismatch):
        links.one_way(900)
    with pytest.raises(InputError, match="levels"):
        links.bits_per_symbol(1)
    with pytest.raises(InputError, match="bandwidth"):
        links.transfer_time(Q_(1, "GB"), Q_(0, "GB/s"))
