"""Fig. 2.13 (ours): the fat-tree and the torus are drawn and labelled from the fabric calculators."""
import pytest

from fleetcalc.ui.diagrams.pod import pod_topologies
from fleetcalc.core.validate import InputError


def _texts(fig):
    return "\n".join(t.get_text() for ax in fig.axes for t in ax.texts)


def _cables(ax):
    return sum(1 for l in ax.lines if len(l.get_xdata()) == 2 and l.get_marker() in ("None", None, ""))


def test_fat_tree_counts_by_hand():
    fig = pod_topologies()
    # k = 4: k^3/4 = 16 hosts, 5 k^2/4 = 20 switches, 3 tiers x 16 = 48 cables
    t = _texts(fig)
    assert "16 hosts, 20 switches, 48 cables" in t
    assert _cables(fig.axes[0]) == 48
    # non-blocking; bisection 16/2 x 400 Gb/s = 8 x 50 GB/s = 400 GB/s
    assert "oversubscription 1:1" in t and "bisection 400 GB/s" in t


def test_oversubscribed_leaf():
    fig = pod_topologies(up_per_leaf=1)
    t = _texts(fig)
    assert "oversubscription 2:1" in t and "bisection 200 GB/s" in t     # 2 down, 1 up
    assert _cables(fig.axes[0]) == 48 - 8                              # 8 leaves lose one uplink each


def test_torus_labels():
    t = _texts(pod_topologies())
    # 4 x 4 torus: diameter 2 + 2 = 4 hops; halving cuts 2 x 4 = 8 links (wrap-around doubles it)
    assert "16 nodes" in t and "diameter 4 hops" in t and "crosses 8 links" in t


def test_bad_inputs():
    with pytest.raises(InputError, match="up_per_leaf"):
        pod_topologies(up_per_leaf=3)
    with pytest.raises(InputError, match="k must be"):
        pod_topologies(k=8)
