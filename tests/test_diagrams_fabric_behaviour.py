"""The Vol. 2 Ch. 3 figures (fleetcalc.ui.diagrams (by topic)) print the calculators' and the catalog's values.

Expected values are the book's printed numbers or hand calculations (named beside each), not read
back from the code.
"""

import pytest

from fleetcalc.ui.diagrams import collectives as collectives_figures, fabric as fabric_figures, links as links_figures
from fleetcalc.ui.diagrams.draw import png


def texts(fig):
    out = [t.get_text() for ax in fig.axes for t in ax.texts]
    out += [ax.get_title() for ax in fig.axes]
    out += [ln.get_label() for ax in fig.axes for ln in ax.get_lines()]
    out.append(fig.get_suptitle())
    return "\n".join(out)


def test_barrier_idle_time():
    t = texts(collectives_figures.barrier())
    # hand: 130 ms straggler; idle = 38+33+35+31+36+34+37 = 244 ms; next slowest 99 ms -> 31 ms behind
    assert "244 ms of GPU-time lost" in t and "31 ms behind" in t and "7 GPUs wait" in t
    with pytest.raises(ValueError):
        collectives_figures.barrier((1.0,))


def test_east_west_names_the_cluster():
    t = texts(fabric_figures.east_west())
    assert "north-south" in t and "east-west" in t and "1,024 GPUs" in t   # line 2515: 1,024 GPUs


def test_tail_at_scale_values():
    t = texts(fabric_figures.tail_at_scale())
    # hand: 1 - 0.999^1024 = 64.1 %; 1 - 0.9999^1024 = 9.7 %; 1 - 0.99^1024 = 99.997 %
    assert "64%" in t and "10%" in t and "100%" in t
    assert float(fabric_figures._p_any_slow(1e-3, 1024)) == pytest.approx(0.6410, abs=1e-4)


def test_link_path_fec_and_switch():
    t = texts(links_figures.link_path())
    # §3.3 line 2609: 100-200 ns FEC per hop, 300-600 ns for three; §3.5 line 2825: 3 x 0.6 us = 1.8 us
    assert "RS(544,514)" in t and "3 hops add 300 ns-600 ns" in t and "1.8 us" in t
    assert "1.5 us" in t                                          # §3.4 line 2684: NDR alpha


def test_alpha_beta_crossover_marks_n_star():
    t = texts(links_figures.alpha_beta_crossover())
    # §3.4 line 2684: 1.5 us x 50 GB/s = 75 kB; Fig. 3.7 text line 2705: 5 us x 12.5 GB/s = 62.5 kB
    assert "n* = αβ = 75 kB" in t and "n* = αβ = 62.5 kB" in t


def test_ecmp_expected_busiest_path():
    t = texts(fabric_figures.ecmp_flows())
    # hand (exact enumeration over 4^8 placements): E[max load] = 3.538 flows, / 2 fair = 1.77x
    assert "8 elephants on 4 paths; expected busiest 1.77x fair" in t and "400 mice" in t


@pytest.mark.parametrize("module,name", [("collectives", "barrier"), ("fabric", "east_west"), ("fabric", "tail_at_scale"),
                                         ("links", "link_path"), ("links", "alpha_beta_crossover"), ("fabric", "ecmp_flows")])
def test_renders(module, name):
    import importlib

    assert png(getattr(importlib.import_module(f"fleetcalc.ui.diagrams.{module}"), name)())[:4] == b"\x89PNG"


def test_storm_cost_grows_as_n_squared():
    from matplotlib.figure import Figure
    from fleetcalc.core.units import Q_
    from fleetcalc.physics import fabric

    ax = Figure().add_subplot()
    inputs = {"p_daily": 1e-5, "recovery": Q_(10, "minute"), "price": Q_(3, "cu/hour"), "gpus": 4096}
    t = fabric.storm_idle_gpu_time(4096, 1e-5, Q_(10, "minute"))
    fabric_figures.storm_cost_plot(ax, inputs, {"cost_day": fabric.idle_gpu_cost(1, t, Q_(3, "cu/hour"))})
    x, y = ax.get_lines()[0].get_data()
    # hand: 24,576 transceivers x -ln(1 - 1e-5) = 0.24576 storms/day x 10 min x 4,096 GPUs = 167.8 GPU-h
    assert float(t.to("hour").magnitude) == pytest.approx(167.77, rel=1e-3)
    # 10x the GPUs -> 100x the idle spend (both the GPUs waiting and the storm rate grow)
    i, j = 0, len(x) - 1
    assert x[i] == 10 and x[j] == 100_000
    assert y[j] / y[i] == pytest.approx((x[j] / x[i]) ** 2, rel=1e-6)
