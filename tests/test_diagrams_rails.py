"""The second set of Vol. 2 Ch. 3 figures (fleetcalc.ui.diagrams (by topic)) print the
calculators' and the catalog's values. Expected values are the book's printed numbers or hand
calculations (named beside each), not read back from the code."""

import pytest
from matplotlib.collections import LineCollection

from fleetcalc.core.catalog import hw
from fleetcalc.core.units import Q_
from fleetcalc.physics import inference
from fleetcalc.ui.diagrams import fabric as F
from fleetcalc.ui.diagrams import collectives as collectives_figures, fabric as fabric_figures, rails as rails_figures
from fleetcalc.ui.diagrams.draw import png


def texts(fig):
    out = [t.get_text() for ax in fig.axes for t in ax.texts]
    out += [ax.get_title(loc=where) for ax in fig.axes for where in ("center", "left")]
    out.append(fig.get_suptitle())
    out += [t.get_text() for t in fig.texts]
    return "\n".join(out)


def cables(fig):
    """(number of cables, their line widths) over every LineCollection of the figure."""
    n, widths = 0, set()
    for ax in fig.axes:
        for c in ax.collections:
            if isinstance(c, LineCollection):
                n += len(c.get_segments())
                widths.update(float(w) for w in c.get_linewidths())
    return n, widths


def test_rails_all_at_once():
    fig = rails_figures.rails_by_step()
    t = texts(fig)
    # line 2839: 1,024 GPUs in 8-GPU nodes -> 8 rails of 128 GPUs; 4 nodes x 8 GPUs = 32 cables
    assert "8 rails of 128 GPUs" in t and "every rail drawn" in t
    assert cables(fig)[0] == 32
    assert "crosses 1 switch on its rail, 3 through leaf-spine-leaf" in t   # lines 2821-2827
    assert png(fig)[:4] == b"\x89PNG"


def test_rails_step_lays_one_rail_at_a_time():
    fig = rails_figures.rails_by_step(2)
    # rails 0, 1 faint and rail 2 bold, one cable per node each: 3 rails x 4 nodes = 12 cables
    n, widths = cables(fig)
    assert n == 12 and len(widths) == 2
    assert "rail 2 bold: GPU 2 of every node" in texts(fig)
    with pytest.raises(ValueError):
        rails_figures.rails_by_step(8)                   # rails are 0..7 for 8-GPU nodes


def test_rails_small_multiples_and_panel_plot():
    fig = rails_figures.rails_small_multiples((0, 7))
    assert len(fig.axes) == 2
    assert cables(fig)[0] == 4 + 32          # step 1: one rail (4 cables); step 8: all 8 rails
    from matplotlib.figure import Figure
    ax = Figure().add_subplot()
    rails_figures.rails_step_plot(ax, {"step": 0}, {})
    assert "rail 0 laid" in ax.get_title(loc="left")


def test_rail_wiring_uses_the_one_drawing():
    fig = rails_figures.rail_wiring()
    t = texts(fig)
    # line 2825: 1 switch at 0.6 us vs 3 switches = 1.8 us
    assert cables(fig)[0] == 32 and "600 ns vs 1.8 us" in t


def test_torus_legend_names_the_colour_it_draws():
    assert "links (orange)" in texts(F.torus((4, 4)))   # the cut links are PALETTE["fault"], orange


def test_dp_race_ratio_does_not_move_with_the_model():
    peak = hw("h100_node.peak_fp16")
    T = inference.compute_time(Q_(5.00e13, "FLOP"), 0.5 * peak)          # line 2717-2719: 101.1 ms
    fig = collectives_figures.dp_race(N=1024, s_grad=Q_(4, "byte"), alpha=hw("ib_ndr.alpha"), beta=hw("ib_ndr.port_bandwidth"),
                    R_peak=peak, mfu=0.5, T_hold=T)
    t = texts(fig)
    # hand: 242.8 ms ring (line 2724) / 101.1 ms = 2.4 at every size when tokens per GPU are fixed
    assert t.count("comm/compute 2.4") >= 4
    # hand: 70B with compute held at 101 ms: ring 11,192 ms (line 2732) / 101.1 ms = 111
    assert "comm/compute 111" in t
    assert "5,556 tokens" in t                 # 5.00e13 / (6 x 1.5e9), line 2717


def test_torus_cut_in_fig_2_13_convention():
    fig = fabric_figures.torus_cut((4, 4))
    t = texts(fig)
    # hand: a 4 x 4 torus cut down the middle: 4 middle links + 4 wrap-arounds = 8; diameter 2 + 2 = 4
    assert "the cut crosses 8 links (orange)" in t and "4 middle links + 4 wrap-arounds" in t
    assert "diameter: 4 hops" in t
    # §3.5 (line 2847): 16^3 = 4,096 nodes; cut 2 x 16 x 16 = 512; a fat-tree's N/2 = 2,048
    assert "4,096 nodes" in t and "cut 512 links" in t and "2,048" in t
    with pytest.raises(ValueError):
        fabric_figures.torus_cut((3, 4))
