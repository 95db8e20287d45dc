"""The panel builder without a browser: set a slider, the result recomputes (fleetcalc.ui.widgets)."""
import ipywidgets as widgets
import pytest

from fleetcalc.physics import roofline as rl
from fleetcalc.ui.plots.roofline import roofline_panel
from fleetcalc.core.units import Q_
from fleetcalc.ui.widgets import Knob, collect_panels, knob, live_panels, panel


def classes(widget) -> list[str]:
    """The CSS classes the browser receives for ``widget`` (its synced state)."""
    return widget.get_state()["_dom_classes"]


def _example(B, s, R_peak, beta_mem):
    I = rl.matmul_intensity(B, 4096, 4096, s)
    return {"I": I, "R": rl.attainable_rate(I, R_peak, beta_mem), "R_peak": R_peak, "beta_mem": beta_mem,
            "bound": rl.bound_kind(I, R_peak, beta_mem)}


def _panel(plot=roofline_panel):
    return panel(_example,
                 knobs={"B": knob(1, 1, 512, 1), "s": knob(2, options=[1, 2, 4], unit="byte"),
                        "R_peak": knob(Q_(100, "TFLOP/s"), 10, 1000, 10, unit="TFLOP/s"),
                        "beta_mem": knob(2, 0.5, 8, 0.1, unit="TB/s")},
                 show={"I": ("FLOP/byte", 2), "R": ("TFLOP/s", 1), "bound": None}, plot=plot, title="t")


def test_panel_starts_at_book_inputs_and_recomputes():
    with collect_panels() as made:
        p = _panel()
    assert isinstance(p, widgets.VBox) and made == [p] and p in live_panels()
    # Eq. 28.6: I = 0.9995 -> "1.00"; bound ~2 TFLOP/s on the abstract device
    assert "<code>1.00 FLOP/byte</code>" in p.table.value and "<code>2.0 TFLOP/s</code>" in p.table.value
    p.controls["B"].value = 64  # as a student moves the slider
    # Eq. 28.7: 62.06 FLOP/byte -> compute-bound at 100 TFLOP/s
    assert "<code>62.06 FLOP/byte</code>" in p.table.value
    assert "<code>100.0 TFLOP/s</code>" in p.table.value and "compute-bound" in p.table.value
    assert p.results["I"].m_as("FLOP/byte") == pytest.approx(62.0606, abs=1e-4)
    assert p.image.value[:8] == b"\x89PNG\r\n\x1a\n"
    assert len(p.timings) == 2 and len(p.updates) == 2
    assert p.updates[0].render == "full" and all(u.compute_s >= 0 and u.draw_s > 0 for u in p.updates)


def test_units_reach_compute_as_quantities():
    p = _panel(plot=None)
    p.set(beta_mem=4.0, s=1)
    # ridge moves to 100/4 = 25; with s = 1 B = 64 the intensity doubles (hand: 2*64*4096^2/(4096^2+128*4096))
    assert p.results["beta_mem"] == Q_(4.0, "TB/s")
    p.set(B=64)
    assert p.results["I"].m_as("FLOP/byte") == pytest.approx(2 * 64 * 4096**2 / (4096**2 + 128 * 4096))


def test_slider_cannot_leave_its_range():
    p = _panel(plot=None)
    p.controls["B"].value = 10_000  # ipywidgets clamps to max
    assert p.controls["B"].value == 512 and p.results["I"].m_as("FLOP/byte") > 100


def test_invalid_combination_shows_message_not_traceback():
    def compute(x):
        return {"y": rl.ridge_point(Q_(x, "TFLOP/s"), Q_(1, "TB/s"))}

    p = panel(compute, knobs={"x": knob(1, 0, 10, 1)}, show={"y": ("FLOP/byte", 1)})
    p.controls["x"].value = 0
    assert "R_peak must be &gt; 0" in p.message.value
    assert "1.0 FLOP/byte" in p.table.value  # last valid result kept


def test_knob_validation_and_reachable_values():
    with pytest.raises(ValueError, match="must lie in"):
        knob(20, 1, 10, 1)
    with pytest.raises(ValueError, match="options"):
        knob(3, options=[1, 2])
    with pytest.raises(ValueError, match="needs unit"):
        knob(Q_(2, "TB/s"), 1, 3, 0.1)
    k = knob(1, 1, 512, 1)
    assert isinstance(k, Knob) and k.is_int and k.values()[0] == 1 and k.values()[-1] == 512
    assert knob(2, options={"a": 1, "b": 2}).values() == [1, 2]
    lk = knob(1, 0.01, 100, log=True)
    assert lk.values()[0] == pytest.approx(0.01) and lk.values()[-1] == pytest.approx(100)


def test_panel_rejects_knobs_compute_does_not_take():
    with pytest.raises(TypeError, match=r"no parameter\(s\) \['zz'\]"):
        panel(lambda x: {"x": x}, knobs={"x": knob(1, 0, 2, 1), "zz": knob(1, 0, 2, 1)})


def test_blitted_frames_match_a_full_draw():
    """After a few slider moves the panel redraws only the moving artists; the picture must be
    the same as a full draw (up to moving artists drawn above the legend)."""
    import io

    import numpy as np
    from PIL import Image

    p = _panel()
    for b in range(2, 12):
        p.controls["B"].value = b
    assert p.updates[-1].render == "blit", "the operating point should be blitted after a few moves"
    blit = np.asarray(Image.open(io.BytesIO(p.image.value)).convert("RGBA")).astype(int)
    full = np.asarray(Image.open(io.BytesIO(p.full_redraw_png())).convert("RGBA")).astype(int)
    assert blit.shape == full.shape
    assert (np.abs(blit - full).sum(-1) > 0).mean() < 1e-3


def test_panel_folds_knobs_beyond_five_and_keeps_its_prompt():
    from fleetcalc.ui.widgets import MAX_VISIBLE_KNOBS, knob, panel
    import ipywidgets as widgets
    p = panel(lambda a, b, c, d, e, f: {"s": a + f}, knobs={k: knob(1, 0, 10, 1) for k in "abcdef"},
              prompt="does s grow with a?")
    assert p.main == "a" and p.prompt == "does s grow with a?"
    folds = [w for w in p.children[1].children[0].children if isinstance(w, widgets.Accordion)]
    assert len(folds) == 1 and [c.description for c in folds[0].children[0].children] == ["f"]
    assert MAX_VISIBLE_KNOBS == 5
    p.set(f=3)
    assert p.results["s"] == 4


def test_panel_carries_its_layout_classes_and_css():
    """The class names the site's stylesheet and scrubbing script find, and the layout rules
    (shipped in the heading, so JupyterLab and slides get them too); the static-site note stays
    hidden by an inline style (only the static site's stylesheet reveals it)."""
    from fleetcalc.ui.widgets import PANEL_CSS

    p = panel(_example, knobs={"B": knob(1, 1, 512, 1), "s": knob(2, options=[1, 2, 4], unit="byte"),
                               "R_peak": knob(Q_(100, "TFLOP/s"), 10, 1000, 10, unit="TFLOP/s"),
                               "beta_mem": knob(2, 0.5, 8, 0.1, unit="TB/s")},
              show={"I": ("FLOP/byte", 2)}, plot=roofline_panel, title="t", main="R_peak")
    assert "fc-panel" in classes(p)
    assert "fc-readouts" in classes(p.table) and "fc-picture" in classes(p.image)
    assert "fc-message" in classes(p.message)
    assert "fc-main-knob" in classes(p.controls["R_peak"])
    assert "fc-main-knob" not in classes(p.controls["B"])
    head = p.children[0].value
    assert "<style>" in head and "@container (max-width: 560px)" in head and "@container" in PANEL_CSS
    note = head[head.index("fc-static-only"):]
    assert "display:none" in note.split(">", 1)[0] and "R_peak" in note
    # without main=, the first knob is the main one
    q = _panel(plot=None)
    assert "fc-main-knob" in classes(q.controls["B"])


def test_collect_panels_holds_the_only_strong_reference():
    """No module-level list keeps panels (and their figures) alive: a closed panel, once the
    caller drops it, is gone with its figure; collect_panels(draw=False) builds panels that
    never draw."""
    import gc
    import weakref

    with collect_panels() as outer:
        with collect_panels(draw=False) as inner:
            q = _panel()
        p = _panel()
    assert outer == [q, p] and inner == [q]
    assert not q.drawing and q.figure is None and q.updates[0].render == "none"
    assert p.drawing and p.figure is not None
    fig, ref = weakref.ref(p.figure), weakref.ref(p)
    p.close()
    assert p.figure is None
    del p, outer
    gc.collect()
    assert fig() is None and ref() is None
    assert q in live_panels()


def test_public_redraw_and_reset_figure():
    """redraw(full=...) renders the current state; reset_figure() drops the figure and the next
    update builds a new one showing the same picture as a full draw."""
    p = _panel()
    p.set(B=8)
    first = p.image.value
    p.reset_figure()
    assert p.figure is None
    p.redraw()
    assert p.figure is not None and p.image.value[:8] == b"\x89PNG\r\n\x1a\n"
    p.redraw(full=False)
    assert p.updates_in_place
    # the same state drawn by a fresh figure: same image size as before the reset
    from PIL import Image
    import io
    assert Image.open(io.BytesIO(p.image.value)).size == Image.open(io.BytesIO(first)).size


def test_snapped_limits_cover_the_data_and_stay_put_for_small_moves():
    """fleetcalc.ui.plots.fit_limits widens a range to whole decades (log) or a 1-1.5-2-3-5-7 grid
    (linear): the data stays in view, and a small move inside a grid cell leaves the limits (and
    so the ticks) alone, which lets the panel blit. Values by hand: 0.003..40 spans 1e-3..1e2."""
    from matplotlib.figure import Figure

    from fleetcalc.ui.plots import fit_limits, snap_log, snap_up

    assert snap_log(0.003, 40) == (1e-3, 1e2)
    assert snap_up(2.9, 1.15) == 5 and snap_up(1.0, 1.0) == 1
    ax = Figure().subplots()
    ax.set_yscale("log")
    fit_limits(ax, x=(0, 2.9), y=(0.003, 40))
    assert ax.get_xlim() == (0, 3) and ax.get_ylim() == pytest.approx((1e-3, 1e2))
    fit_limits(ax, x=(0, 2.7), y=(0.004, 55))
    assert ax.get_xlim() == (0, 3) and ax.get_ylim() == pytest.approx((1e-3, 1e2))


def test_a_log_slider_grid_passes_through_its_starting_value():
    """The browser snaps a log slider onto min + k step (in decades). From log10(0.5) in steps of
    0.01, 2 TB/s would become 10**0.299 = 1.99 TB/s on the first sync; the grid is shifted so the
    book's value lies on it, and stays inside the knob's range."""
    import math
    from fleetcalc.ui.widgets import _log_grid
    lo, hi = _log_grid(2.0, 0.5, 10.0, 0.01)
    k = (math.log10(2.0) - lo) / 0.01
    assert abs(k - round(k)) < 1e-9
    assert 0.5 <= 10 ** lo and 10 ** hi <= 10.0 + 1e-12 and 10 ** lo < 0.52 and 10 ** hi > 9.7
