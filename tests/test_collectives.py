"""Tests for fleetcalc.physics.collectives (Ch. 28 §28.5, Eq. 28.10-28.15)."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from fleetcalc.physics.collectives import (
    alpha_beta_time, exposed_communication, latency_bandwidth_threshold, ring_allreduce_terms,
    ring_allreduce_time, ring_round_bytes, ring_tree_crossover, step_time_with_overlap,
    tree_allreduce_time,
)
from fleetcalc.core.units import Q_
from fleetcalc.core.validate import InputError, UnitMismatch

A, B = Q_(5, "us"), Q_(25, "GiB/s")


def test_ring_example_eq_28_14():
    # Ch. 28 Eq. 28.14: p=8, m=256 MiB, alpha=5 us, 25 GiB/s -> 14 (0.000005 + 0.00125) = 0.01757 s
    t = ring_allreduce_time(8, Q_(256, "MiB"), A, B)
    assert t.to("s").magnitude == pytest.approx(0.01757, abs=5e-9)
    terms = ring_allreduce_terms(8, Q_(256, "MiB"), A, B)
    assert terms["latency"].to("us").magnitude == pytest.approx(70)          # "启动只占70微秒"
    assert ring_round_bytes(8, Q_(256, "MiB")).to("MiB").magnitude == 32     # "每轮数据为32 MiB"
    # one round: 32 MiB / 25 GiB/s = 0.00125 s (book line under Eq. 28.13)
    assert alpha_beta_time(Q_(32, "MiB"), Q_(0, "s"), B).to("s").magnitude == pytest.approx(0.00125)


def test_ring_small_message_8KiB():
    # Ch. 28 §28.5: m = 8 KiB -> 1 KiB per round, bandwidth term ~0.534 us (14 x 1024 / (25 x 2^30) s)
    terms = ring_allreduce_terms(8, Q_(8, "KiB"), A, B)
    assert terms["bandwidth"].to("us").magnitude == pytest.approx(14 * 1024 / (25 * 2**30) * 1e6)
    assert round(terms["bandwidth"].to("us").magnitude, 3) == 0.534


def test_gamma_term():
    # (p-1) m gamma / p, §28.5 text under Eq. 28.12; hand: 7/8 x 1000 byte x 1 ns/byte = 875 ns
    terms = ring_allreduce_terms(8, Q_(1000, "byte"), A, B, gamma=Q_(1, "ns/byte"))
    assert terms["reduction"].to("ns").magnitude == pytest.approx(875)
    t = ring_allreduce_time(8, Q_(1000, "byte"), A, B, gamma=Q_(1, "ns/byte"))
    assert t.to("s").magnitude == pytest.approx(sum(v.to("s").magnitude for v in terms.values()))


def test_tree_and_crossover():
    # Eq. 28.13 by hand: 2 log2 8 (5e-6 + 0.01) = 6 x 0.010005 = 0.06003 s
    assert tree_allreduce_time(8, Q_(256, "MiB"), A, B).to("s").magnitude == pytest.approx(0.06003)
    mx = ring_tree_crossover(8, A, B)
    ring = ring_allreduce_time(8, mx, A, B).magnitude
    tree = tree_allreduce_time(8, mx, A, B).magnitude
    assert ring == pytest.approx(tree, rel=1e-12)
    # below the crossover the tree wins, above it the ring
    assert tree_allreduce_time(8, mx / 2, A, B) < ring_allreduce_time(8, mx / 2, A, B)
    assert tree_allreduce_time(8, mx * 2, A, B) > ring_allreduce_time(8, mx * 2, A, B)
    assert ring_tree_crossover(2, A, B).magnitude == 0


def test_validation():
    with pytest.raises(InputError, match="power of two"):
        tree_allreduce_time(6, Q_(1, "MiB"), A, B)
    with pytest.raises(InputError, match="p must be >= 2"):
        ring_allreduce_time(1, Q_(1, "MiB"), A, B)
    with pytest.raises(UnitMismatch):
        ring_allreduce_time(8, 1024, A, B)
    with pytest.raises(UnitMismatch):
        alpha_beta_time(Q_(1, "MiB"), A, Q_(1, "s"))
    with pytest.raises(InputError, match="t_o"):
        step_time_with_overlap(Q_(10, "ms"), Q_(4, "ms"), Q_(5, "ms"))
    with pytest.raises(InputError):
        exposed_communication(Q_(4, "ms"), Q_(5, "ms"))


def test_overlap_and_threshold():
    # Eq. 28.15: 10 + 4 - 3 = 11 ms; full overlap gives max(t_c, t_n)
    assert step_time_with_overlap(Q_(10, "ms"), Q_(4, "ms"), Q_(3, "ms")).to("ms").magnitude == pytest.approx(11)
    assert step_time_with_overlap(Q_(10, "ms"), Q_(4, "ms"), Q_(4, "ms")).to("ms").magnitude == pytest.approx(10)
    assert exposed_communication(Q_(4, "ms"), Q_(3, "ms")).to("ms").magnitude == pytest.approx(1)
    # alpha x beta = 5e-6 s x 25 x 2^30 byte/s = 134217.728 byte
    assert latency_bandwidth_threshold(A, B).to("byte").magnitude == pytest.approx(5e-6 * 25 * 2**30)


def test_vectorised():
    m = Q_(np.array([1, 1024, 2**20]), "KiB")
    t = ring_allreduce_time(8, m, A, B)
    assert t.shape == (3,) and np.all(np.diff(t.magnitude) > 0)
    p = np.array([2, 4, 8, 16])
    assert tree_allreduce_time(p, Q_(1, "MiB"), A, B).shape == (4,)


@settings(max_examples=60, deadline=None)
@given(p=st.integers(2, 4096), m=st.floats(0, 1e12), a=st.floats(0, 1e-3), b=st.floats(1e6, 1e12))
def test_ring_time_grows_with_p(p, m, a, b):
    # Eq. 28.12: both terms are non-decreasing in p for a fixed m
    t1 = ring_allreduce_time(p, Q_(m, "byte"), Q_(a, "s"), Q_(b, "byte/s")).magnitude
    t2 = ring_allreduce_time(p + 1, Q_(m, "byte"), Q_(a, "s"), Q_(b, "byte/s")).magnitude
    assert t2 >= t1 * (1 - 1e-12)


@settings(max_examples=60, deadline=None)
@given(tc=st.floats(0, 10), tn=st.floats(0, 10), f=st.floats(0, 1))
def test_overlap_bounds(tc, tn, f):
    t = step_time_with_overlap(Q_(tc, "s"), Q_(tn, "s"), Q_(f * min(tc, tn), "s")).magnitude
    assert max(tc, tn) - 1e-9 <= t <= tc + tn + 1e-9


def test_cut_bound_exercise_28_7():
    # hand: 32 x 32 x 16 MiB / 50 GB/s = 0.34359738368 s; port sum 64 x 50 GB/s = 3200 GB/s
    from fleetcalc.physics.collectives import alltoall_cut_time, port_bandwidth_sum
    t = alltoall_cut_time(32, 32, Q_(16, "MiB"), Q_(50, "GB/s"))
    assert t.to("s").magnitude == pytest.approx(32 * 32 * 16 * 2**20 / 50e9)
    assert port_bandwidth_sum(64, Q_(50, "GB/s")).to("GB/s").magnitude == pytest.approx(3200)
