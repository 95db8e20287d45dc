"""The inverse calculators Vol. 2 Chapter 1 needs (appended to reliability, facility and
collectives), checked against the book's figures and hand arithmetic."""
from __future__ import annotations

import pytest

from fleetcalc.core.units import Q_
from fleetcalc.physics import collectives, facility, reliability


def test_rate_to_fit_inverts_fit_to_rate():
    # by hand: 1 / 50,000 h = 2e-5 per hour = 2e-5 x 1e9 = 20,000 failures in 1e9 device-hours
    fit = reliability.rate_to_fit(1 / Q_(50_000, "hour"))
    assert float(fit.to("").magnitude) == pytest.approx(20_000)
    back = reliability.fit_to_rate(float(fit.to("").magnitude))
    assert back.to("1/hour").magnitude == pytest.approx(1 / 50_000)


def test_implied_mtbf_llama3():
    # Vol. 2 §1.1 (Dubey et al. 2024): 419 interruptions in 54 days on 16,384 GPUs.
    # by hand: 54 x 24 h = 1,296 h; 1,296 / 419 = 3.093 h between interruptions; x 16,384 = 50,677 h
    gap = reliability.implied_mtbf(Q_(54, "day"), 419)
    assert gap.to("hour").magnitude == pytest.approx(1296 / 419)
    per_gpu = reliability.implied_mtbf(Q_(54, "day"), 419, 16_384)
    assert per_gpu.to("hour").magnitude == pytest.approx(50_677, rel=1e-4)


def test_implied_mtbf_inverts_expected_failures():
    n_f = reliability.expected_failures(Q_(336, "hour"), Q_(1_000, "hour"), 128)   # book: 43
    assert float(n_f.to("").magnitude) == pytest.approx(43.008)
    m = reliability.implied_mtbf(Q_(336, "hour"), float(n_f.to("").magnitude), 128)
    assert m.to("hour").magnitude == pytest.approx(1_000)


def test_per_device_rate_and_required_mfu_gpt3():
    # Vol. 2 Table 1.1: GPT-3, 3.14e23 FLOP, 1,024 V100s, 29 days.
    # by hand: 29 d = 2,505,600 s; 3.14e23 / (1,024 x 2,505,600) = 1.2238e14 FLOP/s = 122.4 TFLOP/s
    rate = facility.per_device_rate(Q_(3.14e23, "FLOP"), 1024, Q_(29, "day"))
    assert rate.to("TFLOP/s").magnitude == pytest.approx(122.38, rel=1e-4)
    # against the V100's 125 TFLOP/s FP16 tensor peak: 122.38 / 125 = 0.979
    mfu = facility.required_mfu(Q_(3.14e23, "FLOP"), 1024, Q_(125, "TFLOP/s"), Q_(29, "day"))
    assert float(mfu.to("").magnitude) == pytest.approx(0.97906, rel=1e-4)


def test_required_mfu_inverts_ideal_training_time():
    # Vol. 2 Ch. 2 §Pod: 3.15e23 FLOP on 8,192 x 1,979 TFLOP/s at MFU 0.45 takes 12.0 h
    t = facility.ideal_training_time(Q_(3.15e23, "FLOP"), 8192, Q_(1979, "TFLOP/s"), 0.45)
    assert t.to("hour").magnitude == pytest.approx(12.0, rel=2e-3)
    mfu = facility.required_mfu(Q_(3.15e23, "FLOP"), 8192, Q_(1979, "TFLOP/s"), t)
    assert float(mfu.to("").magnitude) == pytest.approx(0.45)


def test_ring_traffic_factor_and_bytes():
    # by hand: 2(p-1)/p = 1 at p = 2, 1.5 at p = 4, 2046/1024 = 1.998046875 at p = 1,024
    assert float(collectives.ring_traffic_factor(2).to("").magnitude) == pytest.approx(1.0)
    assert float(collectives.ring_traffic_factor(1024).to("").magnitude) == pytest.approx(1.998046875)
    # 4 workers, 100 GB buffer: 6 rounds of 25 GB = 150 GB sent per worker
    assert collectives.ring_bytes_per_worker(4, Q_(100, "GB")).to("GB").magnitude == pytest.approx(150)


def test_ring_bytes_match_the_bandwidth_term():
    # Eq. 28.12's bandwidth term x beta_net is the bytes each worker sends
    m, beta = Q_(700, "GB"), Q_(50, "GB/s")
    terms = collectives.ring_allreduce_terms(1024, m, Q_(0, "s"), beta)
    sent = collectives.ring_bytes_per_worker(1024, m)
    assert (sent / beta).to("s").magnitude == pytest.approx(terms["bandwidth"].to("s").magnitude)
