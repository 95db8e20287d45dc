"""Tests for fleetcalc.physics.pipeline (Ch. 28 §28.4, Eq. 28.8-28.9)."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from fleetcalc.physics import pipeline as P
from fleetcalc.core.units import Q_
from fleetcalc.core.validate import InputError

EX = Q_([10, 20, 8, 16], "ms")   # Exercise 28.5: read, prepare, copy, compute


def test_exercise_28_5():
    assert P.serial_time(EX).to("ms").magnitude == pytest.approx(54)
    assert P.pipeline_interval(EX).to("ms").magnitude == pytest.approx(20)
    assert P.first_batch_time(EX).to("ms").magnitude == pytest.approx(54)
    assert P.bottleneck_stage(EX) == 1
    merged = P.merge_stages(EX, [(0, 1)])
    assert merged.to("ms").magnitude.tolist() == pytest.approx([30, 8, 16])
    assert P.pipeline_interval(merged).to("ms").magnitude == pytest.approx(30)


def test_totals_and_buffer():
    # 100 batches: 54 + 99 x 20 = 2034 ms vs 5400 ms serial
    assert P.pipelined_total_time(EX, 100).to("ms").magnitude == pytest.approx(2034)
    assert P.serial_total_time(EX, 100).to("ms").magnitude == pytest.approx(5400)
    # r_b = 1/20 ms = 50 batch/s; a 0.2 s stall needs ~10 batches
    r = P.consumption_rate(Q_(20, "ms"))
    assert r.magnitude == pytest.approx(50)
    assert P.buffer_depth(r, Q_(0.2, "s")).magnitude == pytest.approx(10)


def test_list_input_and_validation():
    stages = [Q_(10, "ms"), Q_(0.02, "s"), Q_(8000, "us"), Q_(16, "ms")]
    assert P.serial_time(stages).to("ms").magnitude == pytest.approx(54)
    with pytest.raises(InputError):
        P.serial_time([])
    with pytest.raises(InputError):
        P.merge_stages(EX, [(0, 1), (1, 2)])
    with pytest.raises(InputError):
        P.serial_time([Q_(-1, "ms")])


@settings(max_examples=80, deadline=None)
@given(ts=st.lists(st.floats(0, 1000), min_size=1, max_size=8))
def test_interval_is_slowest_stage(ts):
    q = Q_(ts, "ms")
    assert P.pipeline_interval(q).to("ms").magnitude == pytest.approx(max(ts))
    assert P.serial_time(q).to("ms").magnitude == pytest.approx(sum(ts))
    assert P.pipeline_interval(q).magnitude <= P.serial_time(q).magnitude + 1e-12


def test_numa_path_exercise_28_4():
    # Exercise 28.4: pages on node 1, thread and GPU on node 0 -> two socket-link crossings
    hops, cross = P.numa_data_path(1, 0, 0)
    assert cross == 2 and len(hops) == 3
    assert P.numa_data_path(0, 0, 0)[1] == 0
    with pytest.raises(InputError):
        P.numa_data_path(2, 0, 0)


def test_node_data_feed_vol2_ch2():
    # Vol. 2 Ch. 2 line 2214: ceil(1.5/2 + 3 x 0.5/2) = ceil(1.5) = 2
    assert P.prefetch_depth(Q_(1.5, "s"), Q_(0.5, "s"), Q_(2.0, "s")).magnitude == 2
    # exact integer stays: (2 + 0)/1 = 2; at least one batch even with no load time
    assert P.prefetch_depth(Q_(2, "s"), Q_(0, "s"), Q_(1, "s")).magnitude == 2
    assert P.prefetch_depth(Q_(0, "s"), Q_(0, "s"), Q_(1, "s")).magnitude == 1
    with pytest.raises(InputError, match="T_compute"):
        P.prefetch_depth(Q_(1, "s"), Q_(0, "s"), Q_(0, "s"))
    # Vol. 2 Ch. 2 line 2012: up to 50 % -> 32 GB/s of 64
    assert P.effective_bandwidth_numa(Q_(64, "GB/s"), 0.5).to("GB/s").magnitude == pytest.approx(32)
    # line 2434: 20 s + 2 s / 2 = 21 s
    assert P.step_time_after_network_upgrade(Q_(20, "s"), Q_(2, "s"), 2).to("s").magnitude == pytest.approx(21)
