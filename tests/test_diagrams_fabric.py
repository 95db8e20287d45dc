"""The fabric diagrams (fleetcalc.ui.diagrams.fabric) show the calculators' and the catalog's values.

Expected values are the book's printed numbers or hand calculations, not read back from the code.
"""

import pytest

from fleetcalc.ui.diagrams import fabric as F
from fleetcalc.ui.diagrams import rails as rails_figures
from fleetcalc.ui.diagrams.draw import png


def texts(fig):
    out = [t.get_text() for ax in fig.axes for t in ax.texts]
    out += [ax.get_title(loc="left") for ax in fig.axes]
    out.append(fig.get_suptitle())
    return "\n".join(out)


def test_rail_wiring_fig_3_9():
    fig = rails_figures.rail_wiring()
    t = texts(fig)
    # Vol. 2 §3.5 line 2839: 8 rails of 128 GPUs for 1,024 GPUs with 8 per node
    assert "8 rails of 128 GPUs" in t and "1,024 GPUs" in t
    # line 2825-2826: 1 switch x 0.6 us = 0.6 us on a rail, 3 switches = 1.8 us via leaf-spine-leaf
    assert "1 switch on a rail, 3 via leaf-spine-leaf (600 ns vs 1.8 us)" in t
    for r in range(8):
        assert f"rail {r}" in t
    # one cable per GPU drawn (4 nodes x 8 GPUs), ending at 8 distinct rail switches
    segs = [seg for ax in fig.axes for c in ax.collections for seg in c.get_segments()]
    assert len(segs) == 32
    tops = sorted({round(float(seg[1][0]), 6) for seg in segs})
    assert len(tops) == 8


def test_fat_tree_oversubscription_and_bisection():
    t = texts(F.fat_tree(4, (2, 3)))
    # radix 4, 2 down / 2 up: 1:1; 8 hosts x 50 GB/s / 2 = 200 GB/s one way (hand calculation)
    assert "oversubscription 1:1" in t and "8 hosts at 400 Gb/s: BW_bisect 200 GB/s" in t
    # 3 down / 1 up: 3:1; 12 hosts x 50 GB/s / 2 / 3 = 100 GB/s
    assert "oversubscription 3:1" in t and "12 hosts at 400 Gb/s: BW_bisect 100 GB/s" in t
    # §3.5 line 2782: k = 64 gives 2,048 hosts in two tiers, 65,536 in three
    assert "2,048 hosts in two tiers, 65,536 in three" in t


def test_torus_numbers():
    t = texts(F.torus((4, 4)))
    # 4 x 4 torus: diameter 2 + 2 = 4 hops; a half cut crosses 4 inner + 4 wrap links = 8
    assert "diameter: 4 hops" in t and "cut: 8 links" in t and "16 nodes, 4 neighbours" in t
    # 16^3 (line 2847): 4,096 nodes, 6 neighbours, diameter 8 + 8 + 8 = 24, cut 2 x 4096 / 16 = 512
    assert "4,096 nodes, 6 neighbours" in t and "diameter 24 hops" in t and "cut 512 links" in t
    assert "fat-tree: 2,048" in t


def test_incast_pfc_frames_fig_3_11():
    t0 = texts(F.incast_pfc(0))
    # Fig. 3.11 line 2913: 256 senders x 50 GB/s into one 400 Gb/s (50 GB/s) port = 256x;
    # 32 MB / (12,800 - 50) GB/s = 2.51 us (hand calculation)
    assert "256 senders" in t0 and "offered load 256x the port: 32 MB fills in 2.51 us" in t0
    assert "PAUSE" not in t0
    t3 = texts(F.incast_pfc(3))
    assert t3.count("PAUSE") >= 2 and "victim flow" in t3 and "200 ms" in t3      # line 2907: 200 ms
    frames = F.incast_pfc_frames()
    assert len(frames.axes) == 4
    assert "10 ms-50 ms" in texts(frames)                                         # line 2907: 10-50 ms


def test_step_plot_draws_the_chosen_frame():
    from matplotlib.figure import Figure

    ax = Figure().add_subplot()
    F.incast_pfc_step_plot(ax, {"step": 3}, {})
    assert ax.get_title(loc="left") == F.PFC_STEPS[3]
    assert any("victim flow" in t.get_text() for t in ax.texts)
    with pytest.raises(ValueError, match="step"):
        F.incast_pfc_step_plot(ax, {"step": 7}, {})


@pytest.mark.parametrize("bad", [dict(step=4), dict(step=-1)])
def test_incast_bad_step(bad):
    with pytest.raises(ValueError, match="step"):
        F.incast_pfc(**bad)


def test_bad_shapes_are_refused():
    with pytest.raises(ValueError, match="k must be"):
        F.fat_tree(5)
    with pytest.raises(ValueError, match="downs"):
        F.fat_tree(4, (4,))
    with pytest.raises(ValueError, match="dims"):
        F.torus((4, 4, 4))
    with pytest.raises(ValueError, match="nodes_shown"):
        rails_figures.rail_wiring(nodes_shown=9)


def test_legible():
    F.torus()  # warm-up (font cache)
    for make in (rails_figures.rail_wiring, F.fat_tree, F.torus, lambda: F.incast_pfc(2)):
        fig = make()
        sizes = [x.get_fontsize() for ax in fig.axes for x in ax.texts]
        assert min(sizes) >= 8
        assert png(fig)[:4] == b"\x89PNG"
