"""Tests for fleetcalc.physics.iron_law: the iron law, its energy corollary and communication intensity
(Vol. 2 notation and Ch. 1, seed 001 lines 1-1216).

Expected values come from the book (line numbers given) or from a hand calculation shown inline.
"""
import numpy as np
import pytest

from fleetcalc import Q_

from fleetcalc.physics import iron_law as s
from fleetcalc.core.validate import InputError


def close(q, value, unit="", rel=1e-9):
    mag = q.to(unit).magnitude if unit else q.to("dimensionless").magnitude
    assert mag == pytest.approx(value, rel=rel)


def test_iron_law_adds_three_terms():
    # hand: 2 GB / 1 TB/s = 2 ms; 1e12 FLOP / (1e15 FLOP/s * 0.5) = 2 ms; + 1 ms = 5 ms
    t = s.iron_law_time(Q_(2, "GB"), Q_(1, "TB/s"), Q_(1e12, "FLOP"), Q_(1, "PFLOP/s"), 0.5, Q_(1, "ms"))
    close(t, 5e-3, "s")
    terms = s.iron_law_terms(Q_(2, "GB"), Q_(1, "TB/s"), Q_(1e12, "FLOP"), Q_(1, "PFLOP/s"), 0.5, Q_(1, "ms"))
    close(terms["data"], 2e-3, "s"); close(terms["compute"], 2e-3, "s"); close(terms["latency"], 1e-3, "s")


def test_iron_law_vectorised_and_validated():
    t = s.iron_law_time(Q_(np.array([1.0, 2.0]), "GB"), Q_(1, "GB/s"), Q_(0, "FLOP"), Q_(1, "TFLOP/s"), 1, Q_(0, "s"))
    assert np.allclose(t.to("s").magnitude, [1.0, 2.0])
    with pytest.raises(InputError, match="eta_hw"):
        s.iron_law_time(Q_(1, "GB"), Q_(1, "GB/s"), Q_(1, "FLOP"), Q_(1, "TFLOP/s"), 1.5, Q_(0, "s"))
    with pytest.raises(InputError, match="BW"):
        s.iron_law_time(Q_(1, "GB"), Q_(-1, "GB/s"), Q_(1, "FLOP"), Q_(1, "TFLOP/s"), 1, Q_(0, "s"))


def test_int8_quarters_d_vol():
    # notation line 290: FP32 -> INT8 cuts parameter traffic to a quarter (4 bytes -> 1 byte)
    t32 = s.iron_law_terms(Q_(4e9, "byte"), Q_(1, "TB/s"), Q_(0, "FLOP"), Q_(1, "TFLOP/s"), 1, Q_(0, "s"))
    t8 = s.iron_law_terms(Q_(1e9, "byte"), Q_(1, "TB/s"), Q_(0, "FLOP"), Q_(1, "TFLOP/s"), 1, Q_(0, "s"))
    assert (t8["data"] / t32["data"]).to("").magnitude == pytest.approx(0.25)


def test_gpt3_sync_energy_84_joules():
    # Ch. 1 line 1037: 700 GB at 15 pJ/bit is about 84 J; x 1e6 steps is about 84 MJ
    e = s.movement_energy(Q_(700, "GB"), Q_(15, "pJ/bit"))
    close(e, 84.0, "J")
    close(s.energy_total(Q_(700, "GB"), Q_(15, "pJ/bit"), Q_(0, "FLOP"), Q_(1, "pJ/FLOP")) * 1e6, 84e6, "J")


def test_energy_productivity():
    # hand: 1e18 FLOP / (6 + 3 + 1) MJ = 1e11 FLOP/J
    r = s.energy_productivity(Q_(1e18, "FLOP"), Q_(6, "MJ"), Q_(3, "MJ"), Q_(1, "MJ"))
    close(r, 1e11, "FLOP/J")
    with pytest.raises(InputError):
        s.energy_productivity(Q_(1, "FLOP"), Q_(0, "J"), Q_(0, "J"), Q_(0, "J"))


def test_ci_boundary_from_hardware():
    # hand: 400 Gb/s = 50 GB/s; 50e9 / 1e15 = 5e-5 byte/FLOP
    star = s.ci_boundary(Q_(400, "Gbit/s"), Q_(1000, "TFLOP/s"))
    close(star, 5e-5, "byte/FLOP")
    assert s.ci_regime(Q_(1e-5, "byte/FLOP"), Q_(400, "Gbit/s"), Q_(1000, "TFLOP/s")) == "compute-bound"
    # the book's 'low' band (< 0.01, line 928) is network-bound on this hardware
    assert s.ci_regime(Q_(0.005, "byte/FLOP"), Q_(400, "Gbit/s"), Q_(1000, "TFLOP/s")) == "network-bound"
    assert s.book_ci_band(Q_(0.005, "byte/FLOP")) == "low"
    assert s.book_ci_band(Q_(0.5, "byte/FLOP")) == "high"
    assert s.book_ci_band(Q_(0.05, "byte/FLOP")) == "between"
    close(s.comm_to_compute_time_ratio(Q_(5e-4, "byte/FLOP"), Q_(400, "Gbit/s"), Q_(1000, "TFLOP/s")), 10.0)
    close(s.communication_intensity(Q_(700, "GB"), Q_(7e13, "FLOP")), 0.01, "byte/FLOP")


def test_compressed_payload_line_390():
    close(s.compressed_payload(Q_(350, "GB"), 4), 87.5, "GB")  # line 390
    with pytest.raises(InputError, match="r_comp"):
        s.compressed_payload(Q_(1, "GB"), 0.5)
