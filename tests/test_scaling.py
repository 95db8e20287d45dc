"""Tests for fleetcalc.physics.scaling (Vol. 2 notation and Ch. 1, seed 001 lines 1-1216).

Expected values come from the book (line numbers given) or from a hand calculation shown inline.
"""
import math

import numpy as np
import pytest

from fleetcalc import Q_

from fleetcalc.physics import scaling as s
from fleetcalc.physics.collectives import ring_allreduce_time
from fleetcalc.core.validate import InputError


def close(q, value, unit="", rel=1e-9):
    mag = q.to(unit).magnitude if unit else q.to("dimensionless").magnitude
    assert mag == pytest.approx(value, rel=rel)


# --- iron law and energy corollary -----------------------------------------------------------

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


# --- fleet law and scaling efficiency --------------------------------------------------------

def test_fleet_law_and_compute_fraction():
    # hand: 100 s / 10 = 10 s; + 4 + 1 - 3 = 12 s; f = 10/12
    t = s.fleet_step_time(Q_(100, "s"), 10, Q_(4, "s"), Q_(1, "s"), Q_(3, "s"))
    close(t, 12.0, "s")
    close(s.compute_fraction(Q_(100, "s"), 10, Q_(4, "s"), Q_(1, "s"), Q_(3, "s")), 10 / 12)
    with pytest.raises(InputError, match="T_overlap"):
        s.fleet_step_time(Q_(100, "s"), 10, Q_(4, "s"), None, Q_(5, "s"))


def test_gpt3_fleet_example_efficiencies():
    # Ch. 1 lines 1030-1035: 175e9 FP16 gradient (350 GB) ring all-reduce, ~700 GB per endpoint.
    # With an assumed 1.2 s of local compute per step: 4.1 % on 200 Gb/s IB, 2.1 % on 100 Gb/s Ethernet.
    m = Q_(175e9 * 2, "byte")
    t_ib = ring_allreduce_time(1024, m, Q_(0, "s"), Q_(200, "Gbit/s"))
    t_eth = ring_allreduce_time(1024, m, Q_(0, "s"), Q_(100, "Gbit/s"))
    close(t_ib, 2 * 1023 / 1024 * 350 / 25, "s")
    f_ib = s.compute_fraction(Q_(1.2 * 1024, "s"), 1024, t_ib)
    f_eth = s.compute_fraction(Q_(1.2 * 1024, "s"), 1024, t_eth)
    assert round(f_ib.magnitude * 100, 1) == 4.1
    assert round(f_eth.magnitude * 100, 1) == 2.1
    # the same through the ring helper
    eta = s.ring_scaling_efficiency(1024, Q_(1.2 * 1024, "s"), m, Q_(0, "s"), Q_(200, "Gbit/s"))
    assert eta.magnitude == pytest.approx(f_ib.magnitude)
    # the compute time 4.1 % implies: t = f T / (1 - f)
    close(s.implied_compute_time(0.041, Q_(28, "s")), 0.041 * 28 / 0.959, "s")


def test_ring_scaling_efficiency_vector_and_single_device():
    n = np.array([1, 2, 8, 64, 512])
    eta = s.ring_scaling_efficiency(n, Q_(10, "s"), Q_(1, "GB"), Q_(5, "us"), Q_(50, "GB/s")).magnitude
    assert eta[0] == 1.0                       # one device does not communicate
    assert np.all(np.diff(eta) < 0)            # the tax grows with N
    terms = s.ring_fleet_terms(8, Q_(10, "s"), Q_(1, "GB"), Q_(5, "us"), Q_(50, "GB/s"), overlap=1.0)
    # full overlap hides min(comm, compute/N)
    assert terms["overlap"].magnitude == pytest.approx(min(terms["comm"].magnitude, 10 / 8))


def test_scaling_efficiency_and_amdahl():
    close(s.scaling_efficiency(Q_(100, "s"), 10, Q_(12.5, "s")), 0.8)
    close(s.speedup(Q_(100, "s"), Q_(12.5, "s")), 8.0)
    close(s.amdahl_limit(0.2), 5.0)                     # Ch. 1 line 1022: 20 % on the network -> 5x
    close(s.amdahl_speedup(4, 0.2), 1 / (0.2 + 0.8 / 4))
    close(s.comm_compute_ratio(Q_(28, "s"), Q_(1.2 * 1024, "s"), 1024), 28 / 1.2)
    with pytest.raises(InputError, match="serial_fraction"):
        s.amdahl_limit(0)


# --- communication intensity -------------------------------------------------------------------

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


# --- scaling laws --------------------------------------------------------------------------------

def test_training_flops_gpt3():
    # 6 x 175e9 x 300e9 = 3.15e23 (Ch. 2 line 2294 writes the product; Ch. 1 prints 3.14e23 from
    # the unrounded 174.6e9 parameters of Brown et al. 2020)
    close(s.training_flops(Q_(175e9, "param"), Q_(300e9, "token")), 3.15e23, "FLOP")
    close(s.training_flops(175e9, 300e9), 3.15e23, "FLOP")


def test_chinchilla_point():
    # Ch. 1 line 788: 63e9 parameters on 1.4e12 tokens; 6PD = 5.292e23 FLOP; 22.2 tokens/param
    close(s.training_flops(63e9, 1.4e12), 5.292e23, "FLOP")
    close(s.tokens_per_param(63e9, 1.4e12), 1.4e12 / 63e9)
    opt = s.compute_optimal(Q_(5.292e23, "FLOP"))
    # hand: P = sqrt(5.292e23 / 120) = 6.641e10
    close(opt["P"], math.sqrt(5.292e23 / 120), "param")
    close(opt["D"], 20 * math.sqrt(5.292e23 / 120), "token")
    # round trip: 6 P D = C
    close(s.training_flops(opt["P"], opt["D"]), 5.292e23, "FLOP")


def test_constrained_allocation_and_regimes():
    c = Q_(1e24, "FLOP")
    d_opt = s.compute_optimal(c)["D"].magnitude
    a = s.constrained_allocation(c, Q_(d_opt / 4, "token"))
    assert a["data_limited"] is True
    close(a["P"], 1e24 / (6 * d_opt / 4), "param")
    assert s.scaling_regime(c, d_opt / 4) == "data-limited"
    assert s.scaling_regime(c, d_opt * 1.5) == "balanced"
    assert s.scaling_regime(c, d_opt * 10) == "compute-limited"
    b = s.constrained_allocation(c, d_opt * 10)
    assert b["data_limited"] is False


def test_power_law_round_trip():
    loss = s.power_law_loss(1e9, 400.0, 0.34, 1.69)
    x = s.resource_for_loss(loss, 400.0, 0.34, 1.69)
    assert x.magnitude == pytest.approx(1e9, rel=1e-9)
    with pytest.raises(InputError, match="L_target"):
        s.resource_for_loss(1.5, 400.0, 0.34, 1.69)


# --- trends ---------------------------------------------------------------------------------------

def test_trends():
    close(s.orders_of_magnitude(Q_(1e18, "FLOP"), Q_(1e25, "FLOP")), 7.0)   # Ch. 1 line 578
    close(s.orders_of_magnitude(2, 16384), math.log10(8192))                # Figure 1.1, line 663
    close(s.doubling_time(1.4), math.log(2) / math.log(1.4), "year")         # Fig. 1.5: ~2.06 years
    close(s.annual_growth_factor(Q_(3.4, "month")), 2 ** (12 / 3.4), rel=1e-3)  # pint: month = year/12
    close(s.growth_factor_per_year(8192, Q_(12, "year")), 8192 ** (1 / 12))
    with pytest.raises(InputError):
        s.doubling_time(1.0)


# --- LogGP and storage ----------------------------------------------------------------------------

def test_loggp_matches_alpha_beta_for_long_messages():
    L, o, G = Q_(2, "us"), Q_(1, "us"), Q_(1 / 25e9, "s/byte")
    t = s.loggp_message_time(Q_(1e6, "byte"), L, o, G)
    close(t, 4e-6 + (1e6 - 1) / 25e9, "s")
    ab = s.loggp_alpha_beta(L, o, G)
    from fleetcalc.physics.collectives import alpha_beta_time
    close(alpha_beta_time(Q_(1e6, "byte"), ab["alpha"], ab["beta_net"]), t.to("s").magnitude, "s")
    # burst: gap dominates small messages
    tb = s.loggp_burst_time(10, Q_(1, "byte"), L, o, Q_(5, "us"), G)
    close(tb, 9 * 5e-6 + 4e-6, "s")


def test_storage_utilization_8_vs_64():
    # Part I principle (line 1201): storage that exactly feeds 8 GPUs feeds 64 at 8/64
    bw = Q_(8 * 2, "GB/s")
    close(s.storage_utilization(bw, 8, Q_(2, "GB/s")), 1.0)
    close(s.storage_utilization(bw, 64, Q_(2, "GB/s")), 0.125)


def test_notation_laws_small():
    # line 308: 0.9 - 0.5 x 0.1 = 0.85 ; clipped at zero
    assert s.degraded_accuracy(0.9, 0.5, 0.1).magnitude == pytest.approx(0.85)
    assert s.degraded_accuracy(0.9, 5, 1).magnitude == 0.0
    assert s.needs_retraining(0.2, 0.1) is True and s.needs_retraining(0.05, 0.1) is False
    assert s.devices_3d(8, 4, 8) == 256                       # line 524
    close(s.compressed_payload(Q_(350, "GB"), 4), 87.5, "GB")  # line 390
    with pytest.raises(InputError, match="r_comp"):
        s.compressed_payload(Q_(1, "GB"), 0.5)


def test_barrier_vs_independent():
    # Ch. 1 line 724: one worker 10 % slower (time x 1.1) -> barrier throughput 1/1.1 = 0.909
    assert s.barrier_throughput(10_000, 0.1).magnitude == pytest.approx(1 / 1.1)
    # independent tasks lose only that worker's share: (9999 + 1/1.1) / 10000
    assert s.independent_throughput(10_000, 0.1).magnitude == pytest.approx((9999 + 1 / 1.1) / 10_000)
    assert s.barrier_throughput(8, 0.5, n_slow=0).magnitude == 1.0
    with pytest.raises(InputError, match="n_slow"):
        s.barrier_throughput(4, 0.1, n_slow=5)
