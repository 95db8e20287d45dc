"""Tests for fleetcalc.physics.prefetch: Algorithm 28.1's invariants and its pipeline facts (Ch. 28 §28.4)."""
import math

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from fleetcalc.physics.prefetch import N_BUFFERS, queue_length_trace, simulate_prefetch
from fleetcalc.core.units import Q_
from fleetcalc.core.validate import InputError


def ms(x):
    return Q_(x, "ms")


def check_invariants(run):
    ev = run.events
    times = {}
    for e in ev:
        times.setdefault((e.batch, e.kind), e.time)
    # no buffer consumed before its transfer completes
    for i in run.delivered:
        assert times[(i, "compute_start")] >= times[(i, "transfer_done")] - 1e-12
    # a buffer is not overwritten before the compute that used it completes
    for i in run.delivered:
        j = i + N_BUFFERS
        if (j, "dequeue") in times:
            assert times[(j, "dequeue")] >= times[(i, "compute_done")] - 1e-12
    # the host queue never holds more than K
    _, q = queue_length_trace(run)
    assert q.max() <= run.K and q.min() >= 0 and q[-1] == 0
    # delivery is a prefix of the input order: no batch skipped
    assert run.delivered == list(range(len(run.delivered)))
    if run.failed_batch is not None:
        assert run.failed_batch not in run.delivered
        assert all(i < run.failed_batch for i in run.delivered)
    # after a stop nothing new starts, and every unconsumed batch is reclaimed
    if run.stop_time is not None:
        starts = ("read_start", "prep_start", "enqueue", "dequeue", "compute_start")
        assert all(e.time < run.stop_time for e in ev if e.kind in starts)
        touched = {e.batch for e in ev if e.kind not in ("stop", "reclaim")}
        assert touched == set(run.delivered) | set(run.reclaimed)


def test_exercise_28_5_pipeline():
    # Exercise 28.5: 10, 20, 8, 16 ms -> first batch 54 ms, steady interval 20 ms (Eq. 28.8/28.9)
    run = simulate_prefetch(30, ms(10), ms(20), ms(8), ms(16), 4)
    assert run.compute_done[0] == pytest.approx(0.054)
    assert run.intervals[5:] == pytest.approx(0.020)
    check_invariants(run)


def test_jitter_absorbed_by_rb_J_buffer():
    # consumer r_b = 1/10 ms = 100 batch/s; a 100 ms stall needs ~ r_b J = 10 batches
    t_c, J = 10, 100
    need = math.ceil(J / t_c)
    big = simulate_prefetch(60, ms(5), ms(5), ms(2), ms(t_c), need, jitter=ms(J), stall_batches=[30])
    small = simulate_prefetch(60, ms(5), ms(5), ms(2), ms(t_c), 1, jitter=ms(J), stall_batches=[30])
    assert big.compute_idle[10:].max() == pytest.approx(0, abs=1e-12)
    assert small.compute_idle[10:].max() > 0.05
    check_invariants(big)
    check_invariants(small)


def test_slow_producer_drains_any_queue():
    # producer 12 ms per batch on average vs consumer 10 ms: the queue empties and the compute waits
    run = simulate_prefetch(400, ms(12), ms(1), ms(1), ms(10), 50)
    assert run.intervals[-50:] == pytest.approx(0.012)
    t, q = queue_length_trace(run)
    assert q[len(q) // 2:].max() <= 1
    check_invariants(run)


def test_failure_is_not_skipped():
    run = simulate_prefetch(20, ms(10), ms(20), ms(8), ms(16), 4, fail_batch=7)
    assert run.status == "failed" and run.failed_batch == 7
    assert 7 not in run.delivered and 8 not in run.delivered
    assert 7 in run.reclaimed
    check_invariants(run)


def test_cancellation_drains():
    run = simulate_prefetch(20, ms(10), ms(20), ms(8), ms(16), 4, cancel_at=ms(150))
    assert run.status == "cancelled" and run.reclaimed
    check_invariants(run)
    with pytest.raises(InputError):
        simulate_prefetch(5, ms(1), ms(1), ms(1), ms(1), 0)


def test_seeded_jitter_is_deterministic():
    a = simulate_prefetch(50, ms(8), ms(2), ms(2), ms(10), 3, jitter=ms(30), p_stall=0.1, seed=7)
    b = simulate_prefetch(50, ms(8), ms(2), ms(2), ms(10), 3, jitter=ms(30), p_stall=0.1, seed=7)
    assert np.array_equal(a.compute_done, b.compute_done)


@settings(max_examples=40, deadline=None)
@given(ts=st.lists(st.integers(1, 30), min_size=4, max_size=4), K=st.integers(1, 8),
       fail=st.one_of(st.none(), st.integers(0, 29)), cancel=st.one_of(st.none(), st.integers(1, 600)),
       p=st.floats(0, 0.5), seed=st.integers(0, 100))
def test_invariants_hold(ts, K, fail, cancel, p, seed):
    run = simulate_prefetch(30, ms(ts[0]), ms(ts[1]), ms(ts[2]), ms(ts[3]), K, jitter=ms(40), p_stall=p,
                            seed=seed, fail_batch=fail, cancel_at=None if cancel is None else ms(cancel))
    check_invariants(run)
    if p == 0 and fail is None and cancel is None:
        assert run.compute_done[0] == pytest.approx(sum(ts) / 1e3)          # first batch: full path
        assert run.intervals[-1] == pytest.approx(max(ts) / 1e3)             # steady: slowest stage
