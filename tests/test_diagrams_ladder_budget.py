"""Vol. 2 Ch. 2 figures: the values they draw are the book's (or follow from its figures by hand)."""
from __future__ import annotations

import matplotlib
matplotlib.use("Agg")
import pytest

from fleetcalc.core.units import Q_
from fleetcalc.ui.diagrams import memory as memory_figures, node as node_figures, roofline as roofline_figures


def test_ladder_rungs_are_the_books_one_way_figures():
    tiers = {name: bw.to("GB/s").magnitude for name, bw, _ in node_figures.ladder_tiers(5)}
    assert tiers["HBM3"] == pytest.approx(3350)                   # H100 3.35 TB/s (Table 2.2, line 1360)
    assert tiers["NVLink 4 (one way)"] == pytest.approx(450)      # 900 GB/s both ways / 2 (line 1931)
    assert tiers["InfiniBand NDR NIC"] == pytest.approx(50)       # 400 Gb/s per GPU = 50 GB/s (line 1931)
    assert tiers["storage (Fig. 2.12)"] == pytest.approx(7)       # Figure 2.12 (line 1970)
    # PCIe Gen5 x16: 32 GT/s x 16 lanes x 128/130 / 8 = 63.0 GB/s per direction (by hand)
    assert tiers["PCIe Gen5 x16"] == pytest.approx(32 * 16 * 128 / 130 / 8, rel=1e-3)


def test_budget_layouts_match_the_books_memory_walk():
    rows = {name: (parts, hbm) for name, parts, hbm in memory_figures.budget_layouts(activations=0 * Q_(1, "GB"),
                                                                         buffers=0 * Q_(1, "GB"))}
    assert rows["pure DP"][1] == pytest.approx(2100)                 # 12 bytes x 175B (line 2126)
    assert rows["ZeRO-3 over 8"][1] == pytest.approx(262.5)          # 2,100 / 8 (line 2126)
    assert rows["TP-8"][0]["weights"] == pytest.approx(43.75)        # 350 GB / 8 (line 2161)
    assert rows["TP-8"][0]["optimizer"] == pytest.approx(175)        # 1,400 GB / 8 (line 2165)
    # with the book's 20 GB of activations and 5 GB of buffers, Adam offloaded: 113 GB (line 2183)
    full = {name: hbm for name, _, hbm in memory_figures.budget_layouts()}
    assert full["TP-8, Adam\noffloaded"] == pytest.approx(112.5)


def test_figures_draw():
    for fig in (roofline_figures.roofline_ceilings(), node_figures.bandwidth_ladder(), memory_figures.memory_budget_stack()):
        assert fig.axes and fig.axes[0].get_title()
