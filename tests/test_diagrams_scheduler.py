"""Algorithm 28.2's picture: greedy deadlock and gang timeline, drawn from the scheduler."""

import pytest

from fleetcalc.ui.diagrams.draw import png
from fleetcalc.ui.diagrams.scheduler import device_rows, gang_vs_greedy
from fleetcalc.core.validate import InputError

JOBS = {"A": (12, 5.0), "B": (12, 3.0)}


def _texts(fig):
    return [t.get_text() for t in fig.axes[0].texts]


def test_greedy_half_shows_the_deadlock():
    # By hand: 16 devices handed out round-robin to two jobs of 12 -> 8 each, none free, none complete.
    texts = _texts(gang_vs_greedy(16, JOBS))
    assert "job A: holds 8, needs 12: waits" in texts and "job B: holds 8, needs 12: waits" in texts
    assert "DEADLOCK: no device free, no job complete" in texts
    assert sum(t == "A" for t in texts) == 8 and sum(t == "B" for t in texts) == 8


def test_gang_half_runs_the_groups_one_after_the_other():
    # By hand: A (12 of 16) runs 0-5; B cannot fit beside it, runs 5-8; 4 devices idle meanwhile.
    texts = _texts(gang_vs_greedy(16, JOBS))
    assert "A: 12 devices\nt = 0–5" in texts and "B: 12 devices\nt = 5–8" in texts
    assert "4 idle: B waits\nfor 12 free devices" in texts
    assert any(t.startswith("all done at t = 8") for t in texts)


def test_small_jobs_run_side_by_side_without_deadlock():
    # 6 + 6 <= 16: greedy finishes both; gang admits both at t = 0 on disjoint rows.
    texts = _texts(gang_vs_greedy(16, {"A": (6, 5.0), "B": (6, 3.0)}))
    assert "no deadlock at these sizes" in texts
    rows = device_rows([("A", 0.0, 5.0, 6), ("B", 0.0, 3.0, 6)], 16)
    assert rows["A"][0] == 0 and rows["B"][0] == 6


def test_bad_input():
    with pytest.raises(InputError, match="total"):
        gang_vs_greedy(12, JOBS)
    with pytest.raises(InputError, match="jobs"):
        gang_vs_greedy(16, None)


def test_fast_and_legible():
    gang_vs_greedy(16, JOBS)
    fig = gang_vs_greedy(16, JOBS)
    png(fig)
    assert min(t.get_fontsize() for t in fig.axes[0].texts) >= 8
