"""Calculators added for Vol. 2 Ch. 3 §3.1-3.2: the ring all-reduce solved for its message, and the
tail at scale. Values by hand or from the book (seed 001), as named on each test."""
import pytest

from fleetcalc.core.units import Q_
from fleetcalc.physics import collectives, fabric


def test_ring_bytes_for_time_inverts_eq_28_12():
    # by hand: p = 8, beta = 450 GB/s, t_bw = 0.5 ms -> m = t beta p / (2 (p-1))
    #        = 0.5e-3 x 450e9 x 8 / 14 = 128.57 MB
    m = collectives.ring_allreduce_bytes_for_time(8, Q_(0.5, "ms"), Q_(450, "GB/s"))
    assert m.to("MB").magnitude == pytest.approx(0.5e-3 * 450e9 * 8 / 14 / 1e6)
    # round trip through the bandwidth term of Eq. 28.12 at the book's NDR 50 GB/s (line 2535)
    m = collectives.ring_allreduce_bytes_for_time(64, Q_(30, "ms"), Q_(50, "GB/s"))
    back = collectives.ring_allreduce_terms(64, m, Q_(1.5, "us"), Q_(50, "GB/s"))["bandwidth"]
    assert back.to("ms").magnitude == pytest.approx(30)


def test_tail_wait_probability():
    # by hand: 1 - 0.999^1024 = 0.6410 (the §3.2 quiz's "about two in three")
    assert float(fabric.tail_wait_probability(1e-3, 1024)) == pytest.approx(1 - 0.999 ** 1024)
    assert float(fabric.tail_wait_probability(1e-3, 1024)) == pytest.approx(0.641, abs=5e-4)
    # Vol. 2 §1.4.1: 0.999^1000 = 36.8 % all fast, so 63.2 % wait
    assert float(fabric.tail_wait_probability(1e-3, 1000)) == pytest.approx(0.632, abs=5e-4)
    assert float(fabric.tail_wait_probability(0.0, 10_000)) == 0.0


def test_tail_idle_share_never_exceeds_the_wall():
    # by hand: P = 0.5, d = 100 ms, t_step = 1 s -> 0.05 / 1.05 = 4.76 %
    assert float(fabric.tail_idle_share(0.5, Q_(100, "ms"), Q_(1, "s"))) == pytest.approx(0.05 / 1.05)
    # a certain, enormous hold-up approaches but never passes the whole wall clock
    share = float(fabric.tail_idle_share(1.0, Q_(1e6, "s"), Q_(1, "s")))
    assert 0.999 < share < 1.0
