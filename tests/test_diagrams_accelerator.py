"""Figs 2.2 and 2.3 (ours) show the catalog's numbers; expectations worked by hand, sources named."""

import pytest

from fleetcalc.ui.diagrams.draw import png
from fleetcalc import Q_
from fleetcalc.ui.diagrams.accelerator import accelerator_spectrum, reticle_fields_on_wafer, spectrum_points, wafer_vs_die
from fleetcalc.core.validate import InputError


def _texts(fig):
    return "\n".join(t.get_text() for ax in fig.axes for t in ax.texts) + "\n".join(t.get_text() for t in fig.texts)


def test_reticle_fields_by_hand():
    # a 26 x 33 mm field centred on the wafer has corners at (±13, ±16.5): 21.006 mm from the centre,
    # so it fits a 43 mm wafer (radius 21.5) and not a 42 mm one; its neighbours start 13 mm out.
    assert reticle_fields_on_wafer(Q_(43, "mm"), Q_(26, "mm"), Q_(33, "mm"))[0] == 1
    assert reticle_fields_on_wafer(Q_(42, "mm"), Q_(26, "mm"), Q_(33, "mm"))[0] == 0
    # upper bound: wafer area / field area = pi 150^2 / 858 = 82.4 whole fields at most
    n, _ = reticle_fields_on_wafer(Q_(300, "mm"), Q_(26, "mm"), Q_(33, "mm"))
    assert 55 <= n <= 82


def test_reticle_fields_bad_input():
    with pytest.raises(InputError, match="width"):
        reticle_fields_on_wafer(Q_(300, "mm"), Q_(0, "mm"), Q_(33, "mm"))
    with pytest.raises(InputError, match="cannot fit"):
        reticle_fields_on_wafer(Q_(30, "mm"), Q_(26, "mm"), Q_(33, "mm"))


def test_wafer_figure_labels():
    t = _texts(wafer_vs_die())
    assert "858 mm²" in t            # reticle limit, Vol. 2 Ch. 2 line 1318
    assert "900,000 cores" in t      # WSE-3, line 1288
    assert "21 PB/s" in t and "23 kW" in t and "44 GB" in t   # lines 1288-1290
    assert "300 mm wafer" in t       # Fig. 2.2 caption, line 1294


def test_spectrum_positions():
    pts = {name: eff.to("TFLOP/s/W").magnitude for _, name, _, eff, _ in spectrum_points()}
    assert pts["V100"] == pytest.approx(125 / 300)   # 125 TFLOP/s at 300 W (line 1334: 0.42)
    assert pts["TPU v1"] == pytest.approx(92 / 75)   # 92 TOPS at 75 W (line 1268)
    t = _texts(accelerator_spectrum())
    assert "0.42 TFLOP/s per W" in t and "1.23 TFLOP/s per W" in t
    assert "5-10 %" in t             # CPU die share for arithmetic, lines 1246, 1250


def test_both_figures_render_to_png():
    """Both figures render (their times are the benchmark's to measure, not a test's)."""
    for fig in (wafer_vs_die(), accelerator_spectrum()):
        assert png(fig)[:4] == b"\x89PNG"
