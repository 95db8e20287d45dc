"""The failure timeline shows Eq. 28.23's terms with the calculators' values."""
import math

import pytest

from fleetcalc import Q_
from fleetcalc.ui.diagrams.draw import png
from fleetcalc.ui.diagrams.reliability import failure_timeline, timeline_segments
from fleetcalc.core.validate import InputError

C, M, R = Q_(60, "s"), Q_(24, "hour"), Q_(10, "min")


def _texts(fig):
    return " | ".join(t.get_text() for t in fig.axes[0].texts)


def test_tau_star_and_terms_match_eq_28_25():
    # Eq. 28.25: sqrt(2 * 60 * 86400) = 3220 s = 53.7 min; each term about 1.86 % (line 363).
    text = _texts(failure_timeline(C, M, R))
    assert "τ* = 53.7 min (Eq. 28.24)" in text
    assert "save C/τ* = 1.86 %" in text and "lost τ*/2M = 1.86 %" in text
    # R_f/M = 600 s / 86400 s = 0.694 %
    assert "recover R_f/M = 0.69 %" in text


def test_lost_work_is_the_time_since_the_last_save():
    tl = timeline_segments(C, M, R, intervals=3, fail_fraction=0.6)
    tau = math.sqrt(2 * 60 * 86400)
    assert tl["tau"] == pytest.approx(tau)
    assert tl["last_save"] == pytest.approx(2 * (tau + 60))
    assert tl["t_fail"] - tl["last_save"] == pytest.approx(0.6 * tau)
    assert "lost on every node: 32.2 min" in _texts(failure_timeline(C, M, R))   # 0.6 * 53.67 min


def test_every_node_loses_the_same_work():
    fig = failure_timeline(C, M, R, nodes=4, failed_node=2)
    lost = [p for p in fig.axes[0].patches if p.get_facecolor()[:3] != (1, 1, 1)]
    assert len(lost) >= 4 * 6      # 4 node rows x (2 compute + 2 save ... + lost + recover + resume)
    assert _texts(fig).count("✕") == 1


@pytest.mark.parametrize("kw,name", [({"fail_fraction": 1.0}, "fail_fraction"), ({"intervals": 0}, "intervals")])
def test_bad_input(kw, name):
    with pytest.raises(InputError, match=name):
        timeline_segments(C, M, R, **kw)


def test_fast_and_legible():
    failure_timeline(C, M, R)
    fig = failure_timeline(C, M, R)
    png(fig)
    assert min(t.get_fontsize() for t in fig.axes[0].texts) >= 8
