"""Algorithm 28.1's timeline (lib/fleetcalc/ui/diagrams/pipeline.py) is the simulation's event log.

Hand calculation for Exercise 28.5's stages (line 456: read 10, prepare 20, copy 8, compute
16 ms): batch 0 reaches the compute at 10 + 20 + 8 = 38 ms and finishes at 54 ms (= t_serial,
line 460); prepare is the slowest stage, so later batches finish every 20 ms (t_pipe).
"""
import pytest

from fleetcalc.ui.diagrams.pipeline import LANES, prefetch_timeline, timeline_bars
from fleetcalc.core.units import Q_


def test_bars_follow_the_hand_calculation():
    fig, run = prefetch_timeline()
    bars = timeline_bars(run)
    assert set(bars) == set(LANES)
    b, t0, t1, buf = bars["compute"][0]
    assert (b, buf) == (0, 0)
    assert t0 == pytest.approx(0.038) and t1 == pytest.approx(0.054)
    ends = [x[2] for x in bars["compute"]]
    assert [round(e2 - e1, 6) for e1, e2 in zip(ends, ends[1:])] == [0.020] * (len(ends) - 1)


def test_buffers_alternate_and_copy_precedes_compute():
    _, run = prefetch_timeline()
    bars = timeline_bars(run)
    assert [x[3] for x in bars["compute"]] == [i % 2 for i in range(len(bars["compute"]))]
    for (bc, c0, _, _), (bt, _, t1, _) in zip(bars["compute"], bars["copy (host -> device)"]):
        assert bc == bt and c0 >= t1


def test_fast_loader_fills_the_queue_to_K():
    _, run = prefetch_timeline(t_prep=Q_(10, "ms"), K=2, n_batches=8)
    from fleetcalc.physics.prefetch import queue_length_trace
    _, n = queue_length_trace(run)
    assert max(n) == 2


def test_one_bar_per_batch_and_lane_with_labels():
    fig, run = prefetch_timeline(n_batches=5)
    labels = [t.get_text() for t in fig.axes[0].texts]
    assert labels.count("0") == 4 and labels.count("4") == 4


def test_legible_fonts():
    fig, _ = prefetch_timeline()
    assert min(t.get_fontsize() for ax in fig.axes for t in ax.texts) >= 8
