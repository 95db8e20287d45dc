"""Fleet diagrams: the CAP triangle places each training style; the r^n plot."""
import pytest

from fleetcalc.core.catalog import hw
from fleetcalc.ui.diagrams import fleet as d
from fleetcalc.core.units import Q_, fmt


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
