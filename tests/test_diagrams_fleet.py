"""Fleet diagrams (Figs 1.13, 1.14): the stack's layers in order, the triad's numbers by hand."""
import pytest

from fleetcalc.core.catalog import hw
from fleetcalc.ui.diagrams import fleet as d
from fleetcalc.core.units import Q_, fmt


def test_fleet_stack_layers_bottom_to_top():
    fig = d.fleet_stack("Serving")
    texts = [t for t in fig.axes[0].texts]
    layer = {t.get_text(): t.get_position()[1] for t in texts}
    # Fig. 1.13 caption (line 1045): infrastructure -> distribution -> serving -> governance
    ys = [layer[n] for n in ("Infrastructure", "Distribution", "Serving", "Governance")]
    assert ys == sorted(ys)
    with pytest.raises(ValueError, match="highlight"):
        d.fleet_stack("Network")


def test_ai_triad_numbers_by_hand():
    fig = d.ai_triad(Q_(1e25, "FLOP"), n_devices=10_000, mfu=0.4)
    t = fig.numbers
    # C = 6 P D with D = 20 P  ->  P = sqrt(1e25 / 120) = 2.887e11, D = 5.774e12
    assert t["P"].magnitude == pytest.approx((1e25 / 120) ** 0.5, rel=1e-9)
    assert t["D"].magnitude == pytest.approx(20 * (1e25 / 120) ** 0.5, rel=1e-9)
    # H100 dense FP16 989 TFLOP/s (Vol. 2 Table 2.x, catalog): 1e25 / (1e4 x 0.4 x 989e12) s = 29.26 days
    assert t["days"].to("day").magnitude == pytest.approx(1e25 / (1e4 * 0.4 * 989e12) / 86400, rel=1e-9)
    texts = " ".join(x.get_text() for x in fig.axes[0].texts)
    assert fmt(hw("h100.peak_fp16"), "auto", sig=3) in texts
    assert "10²⁵ FLOP" in texts and "29 days" in texts and "2.9×10¹¹ parameters" in texts


def test_ai_triad_rejects_bad_input():
    with pytest.raises(ValueError, match="mfu"):
        d.ai_triad(mfu=1.5)
    with pytest.raises(ValueError, match="n_devices"):
        d.ai_triad(n_devices=0)


def test_cap_triangle_places_each_training_style():
    from fleetcalc.ui.diagrams.draw import png

    fig = d.cap_choices()
    texts = " ".join(t.get_text() for t in fig.axes[0].texts)
    # Ch. 1 lines 944-946: synchronous keeps consistency, asynchronous and federated keep availability
    assert "synchronous training\ngives up A" in texts
    assert "asynchronous training, federated learning:\ngive up C" in texts
    assert png(fig)[:4] == b"\x89PNG"


def test_cap_progress_plot_shows_r_to_the_n():
    from matplotlib.figure import Figure
    import numpy as np

    ax = Figure().add_subplot()
    N = np.array([1, 10, 100])
    # R = 0.99: R^N by hand = 0.99, 0.904382, 0.366032
    res = {"N": 10, "sync": 0.99 ** 10, "async_share": 0.99, "N_curve": N, "sync_curve": 0.99 ** N}
    update = d.cap_progress(ax, {}, res)
    y = ax.lines[0].get_ydata()
    assert y == pytest.approx([0.99, 0.904382, 0.366032], abs=1e-6)
    res2 = dict(res, async_share=0.5)
    update({}, res2)
    assert set(ax.lines[1].get_ydata()) == {0.5}
