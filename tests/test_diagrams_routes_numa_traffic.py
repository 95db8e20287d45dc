"""Ch. 28 figures redrawn (lib/fleetcalc/ui/diagrams: node, pipeline, cluster): Fig. 28.3, Algorithm 28.1's
side-by-side timelines and Fig. 28.6.

Independent expectations: Vol. 2 line 2012 (four GPUs per CPU root complex; crossing the socket
link can cost half of a 64 GB/s PCIe Gen5 x16 path, leaving 32 GB/s); Ch. 28 Eq. 28.8-28.9 worked
by hand for the §28.4 sister stages (6 + 18 + 5 + 12 = 41 ms serial, max = 18 ms; with prepare
halved to 9 ms, max = 12 ms, the compute); Fig. 28.6's caption (four kinds of traffic, physically
separate or isolated on a shared network).
"""
import pytest

from fleetcalc.core.units import Q_
from fleetcalc.ui.diagrams.cluster import SHARED_CLASSES, traffic_classes
from fleetcalc.ui.diagrams.node import SISTER_ROUTES, numa_affinity, route_segments
from fleetcalc.ui.diagrams.pipeline import SISTER_STAGES, prefetch_comparison
from fleetcalc.ui.diagrams.node import _positions, layout


def _inside(p, box, eps=1e-9):
    x, y, w, h = box
    return x + eps < p[0] < x + w - eps and y + eps < p[1] < y + h - eps


def test_sister_route_crosses_the_socket_link_and_is_not_exercise_28_4():
    lay = layout()
    assert SISTER_ROUTES["pages on NUMA 0 -> GPU 5 (socket 1)"] == ("dram0", "gpu5")
    assert ("dram1", "gpu0") not in SISTER_ROUTES.values()          # Exercise 28.4's own path
    segs, far = route_segments(lay, _positions(lay), "dram0", "gpu5")
    assert far
    # DRAM 0 -> CPU 0 -> socket link -> CPU 1 -> PCIe switch 2 -> GPU 5: five components, four hops between boxes, one of them the horizontal socket link
    assert len(segs) == 4 and [round(p0[1], 3) == round(p1[1], 3) for p0, p1 in segs].count(True) == 1
    _, far_local = route_segments(lay, _positions(lay), "gpu0", "nic0")
    assert not far_local


@pytest.mark.parametrize("name", list(SISTER_ROUTES))
def test_no_route_point_lies_inside_a_box(name):
    """Every drawn piece starts and ends on a box edge, so no route runs over a label."""
    lay = layout()
    pos = _positions(lay)
    segs, _ = route_segments(lay, pos, *SISTER_ROUTES[name], offset=0.16)
    for p0, p1 in segs:
        for box in pos.values():
            assert not _inside(p0, box) and not _inside(p1, box)


def test_numa_labels_carry_catalog_and_calculator_values():
    joined = "\n".join(t.get_text() for ax in numa_affinity().axes for t in ax.texts)
    assert "as little as 32 GB/s of a 64 GB/s path" in joined        # 64 GB/s x (1 - 0.5), Vol. 2 line 2012
    assert "900 GB/s per GPU" in joined                               # NVLink 4, Vol. 2 line 1931
    assert "crosses the socket link" in joined and "stays local" in joined


def test_prefetch_comparison_intervals_by_hand():
    fig, (slow, fast) = prefetch_comparison()
    assert [s.to("ms").magnitude for s in SISTER_STAGES] == [6, 18, 5, 12]
    a, b = fig._ch28b_titles
    assert "one batch every 18 ms, set by prepare" in a               # max(6, 18, 5, 12)
    assert "one batch every 12 ms, set by compute" in b               # max(6, 9, 5, 12)
    # the simulated steady intervals agree with Eq. 28.9
    assert slow.intervals[-1] == pytest.approx(0.018, rel=1e-9)
    assert fast.intervals[-1] == pytest.approx(0.012, rel=1e-9)
    # the first batch walks the whole path (Eq. 28.8): 41 ms on the left
    assert slow.compute_done[0] == pytest.approx(0.041, rel=1e-9)


def test_traffic_classes_bundles_and_labels():
    assert set().union(*SHARED_CLASSES.values()) == {"management", "compute", "storage", "serving"}
    assert SHARED_CLASSES["t0"] == ("management", "compute", "storage")
    fig = traffic_classes(storage_path=Q_(40, "GiB/s"))
    joined = "\n".join(t.get_text() for ax in fig.axes for t in ax.texts)
    assert "storage path 40 GiB/s" in joined                           # Example 27.2's shared path
    assert "400 Gb/s per NIC" in joined                                # Vol. 2 Figure 1.3's NIC
    assert "correlated failures" in joined
