"""Tests for fleetcalc.physics.parallel_scaling: the fleet law, Amdahl, scaling efficiency, the ring
tax, barrier vs independent throughput (Vol. 2 notation and Ch. 1, seed 001 lines 1-1216).

Expected values come from the book (line numbers given) or from a hand calculation shown inline.
"""
import numpy as np
import pytest

from fleetcalc import Q_

from fleetcalc.physics import parallel_scaling as s
from fleetcalc.physics.collectives import ring_allreduce_time
from fleetcalc.core.validate import InputError


def close(q, value, unit="", rel=1e-9):
    mag = q.to(unit).magnitude if unit else q.to("dimensionless").magnitude
    assert mag == pytest.approx(value, rel=rel)


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
    # the same through ring_scaling_efficiency
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


def test_storage_utilization_8_vs_64():
    # Part I principle (line 1201): storage that exactly feeds 8 GPUs feeds 64 at 8/64
    bw = Q_(8 * 2, "GB/s")
    close(s.storage_utilization(bw, 8, Q_(2, "GB/s")), 1.0)
    close(s.storage_utilization(bw, 64, Q_(2, "GB/s")), 0.125)


def test_barrier_vs_independent():
    # Ch. 1 line 724: one worker 10 % slower (time x 1.1) -> barrier throughput 1/1.1 = 0.909
    assert s.barrier_throughput(10_000, 0.1).magnitude == pytest.approx(1 / 1.1)
    # independent tasks lose only that worker's share: (9999 + 1/1.1) / 10000
    assert s.independent_throughput(10_000, 0.1).magnitude == pytest.approx((9999 + 1 / 1.1) / 10_000)
    assert s.barrier_throughput(8, 0.5, n_slow=0).magnitude == 1.0
    with pytest.raises(InputError, match="n_slow"):
        s.barrier_throughput(4, 0.1, n_slow=5)


def test_devices_3d_line_524():
    assert s.devices_3d(8, 4, 8) == 256                       # line 524: d x p x t
    assert isinstance(s.devices_3d(8, 4, 8), int)
    with pytest.raises(InputError, match="p"):
        s.devices_3d(8, 0, 8)
