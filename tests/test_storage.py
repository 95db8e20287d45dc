"""Tests for fleetcalc.physics.storage (Ch. 28 §28.6, Eq. 28.16-28.22, Example 27.2)."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from fleetcalc.physics import storage as S
from fleetcalc.core.units import Q_
from fleetcalc.core.validate import InputError, UnitMismatch

CKPT = Q_(2, "TiB")


def test_iops_limited_bandwidth():
    # §28.6: 2 GiB/s path, 10000 reads/s of 4 KiB -> ~39.06 MiB/s
    b = S.effective_bandwidth(Q_(2, "GiB/s"), Q_(10000, "request/s"), Q_(4, "KiB"))
    assert b.to("MiB/s").magnitude == pytest.approx(39.0625)
    assert S.bandwidth_limit(Q_(2, "GiB/s"), Q_(10000, "request/s"), Q_(4, "KiB")) == "requests"
    # Exercise 28.8: 1 GiB/s, 5000 IOPS: 4 KiB -> 19.53125 MiB/s; 1 MiB -> 1 GiB/s (link)
    assert S.effective_bandwidth(Q_(1, "GiB/s"), Q_(5000, "1/s"), Q_(4, "KiB")).to("MiB/s").magnitude == pytest.approx(19.53125)
    assert S.effective_bandwidth(Q_(1, "GiB/s"), Q_(5000, "request/s"), Q_(1, "MiB")).to("GiB/s").magnitude == pytest.approx(1)
    assert S.bandwidth_limit(Q_(1, "GiB/s"), Q_(5000, "request/s"), Q_(1, "MiB")) == "link"


def test_little():
    # Little's law: 10000 request/s x 2 ms = 20 requests in flight
    assert S.in_flight_requests(Q_(10000, "request/s"), Q_(2, "ms")).magnitude == pytest.approx(20)


def test_example_27_2_reads():
    # Eq. 28.17/28.18: 64 x 20000 = 1.28e6 token/s; x 4 byte = 5.12e6 byte/s ~ 4.883 MiB/s
    r = S.aggregate_token_rate(64, Q_(20000, "token/s"))
    assert r.magnitude == pytest.approx(1.28e6)
    b = S.token_read_bandwidth(r, Q_(4, "byte/token"))
    assert b.to("byte/s").magnitude == pytest.approx(5.12e6)
    assert round(b.to("MiB/s").magnitude, 3) == 4.883
    assert round(b.to("GiB/s").magnitude, 5) == 0.00477
    assert S.requests_for_tokens(r, Q_(4096, "token")).magnitude == pytest.approx(312.5)
    assert S.request_rate(b, Q_(16, "KiB")).magnitude == pytest.approx(312.5)
    assert round(S.shard_interval(Q_(64, "MiB"), b).to("s").magnitude, 2) == 13.11


def test_example_27_2_checkpoint():
    # Eq. 28.19-28.21 with 2 TiB every 30 min, 120 s window, 16 GiB/s spare
    avg = S.checkpoint_average_bandwidth(CKPT, Q_(30, "min"))
    win = S.checkpoint_window_bandwidth(CKPT, Q_(120, "s"))
    assert round(avg.to("GiB/s").magnitude, 3) == 1.138
    assert round(win.to("GiB/s").magnitude, 3) == 17.067
    assert (win / avg).to("").magnitude == pytest.approx(15)
    assert round(S.per_share(win, 8).to("GiB/s").magnitude, 3) == 2.133
    assert S.per_share(CKPT, 64).to("GiB").magnitude == 32
    assert S.spare_bandwidth(Q_(40, "GiB/s"), Q_(24, "GiB/s")).to("GiB/s").magnitude == 16
    assert S.checkpoint_window_time(CKPT, Q_(40, "GiB/s"), Q_(24, "GiB/s")).to("s").magnitude == pytest.approx(128)
    assert round(S.request_rate(win, Q_(64, "MiB")).magnitude, 2) == 273.07
    assert round(S.request_rate(win, Q_(1, "MiB")).magnitude, 2) == 17476.27
    assert S.object_count(CKPT, Q_(64, "MiB")) == 32768
    assert S.object_count(CKPT, Q_(1, "MiB")) == 2097152


def test_one_formula_for_size_over_time_and_size_over_bandwidth():
    # Eq. 28.19/28.20 are transfer_bandwidth: 2 TiB / 120 s = 17.067 GiB/s (hand: 2048 / 120)
    assert S.transfer_bandwidth(CKPT, Q_(120, "s")).to("GiB/s").magnitude == pytest.approx(2048 / 120)
    assert S.checkpoint_window_bandwidth(CKPT, Q_(120, "s")).magnitude == S.transfer_bandwidth(CKPT, Q_(120, "s")).magnitude
    # with nothing else on the path the window time is S_c / capacity: 2048 GiB / 40 GiB/s = 51.2 s (hand)
    assert S.checkpoint_window_time(CKPT, Q_(40, "GiB/s")).to("s").magnitude == pytest.approx(51.2)
    # restore bounds for two checkpoint sizes at once: 1 and 2 TiB over 32 and 16 GiB/s (hand: 64/128 s, 96/192 s)
    sizes = Q_([1, 2], "TiB")
    stages = [Q_(32, "GiB/s"), Q_(16, "GiB/s")]
    assert S.restore_time_lower_bound(sizes, stages).to("s").magnitude.tolist() == pytest.approx([64, 128])
    assert S.restore_time_serial(sizes, stages).to("s").magnitude.tolist() == pytest.approx([96, 192])


def test_restore_eq_28_22():
    stages = [Q_(32, "GiB/s"), Q_(16, "GiB/s"), Q_(24, "GiB/s")]
    assert S.restore_time_lower_bound(CKPT, stages).to("s").magnitude == pytest.approx(128)
    assert round(S.restore_time_serial(CKPT, stages).to("s").magnitude, 2) == 277.33
    assert S.restore_bottleneck(stages) == 1
    assert S.restore_time_lower_bound(CKPT, Q_([32, 16, 24], "GiB/s")).magnitude == pytest.approx(128)


def test_validation():
    with pytest.raises(InputError, match="used must be < capacity"):
        S.spare_bandwidth(Q_(16, "GiB/s"), Q_(16, "GiB/s"))
    with pytest.raises(UnitMismatch, match="request/s"):
        S.effective_bandwidth(Q_(1, "GiB/s"), Q_(1, "GiB"), Q_(4, "KiB"))
    with pytest.raises(InputError):
        S.restore_time_lower_bound(CKPT, [])
    with pytest.raises(UnitMismatch):
        S.per_share(2048, 8)


@settings(max_examples=60, deadline=None)
@given(b=st.floats(1e3, 1e12), a=st.floats(1, 1e7), q=st.floats(1, 1e9))
def test_effective_never_exceeds_either_roof(b, a, q):
    e = S.effective_bandwidth(Q_(b, "byte/s"), Q_(a, "request/s"), Q_(q, "byte")).magnitude
    assert e <= b * (1 + 1e-12) and e <= a * q * (1 + 1e-12)


@settings(max_examples=60, deadline=None)
@given(bs=st.lists(st.floats(1e6, 1e12), min_size=1, max_size=5))
def test_pipelined_restore_at_most_serial(bs):
    stages = [Q_(b, "byte/s") for b in bs]
    lo = S.restore_time_lower_bound(CKPT, stages).magnitude
    hi = S.restore_time_serial(CKPT, stages).magnitude
    assert lo <= hi * (1 + 1e-12) and hi <= len(bs) * lo * (1 + 1e-12)
