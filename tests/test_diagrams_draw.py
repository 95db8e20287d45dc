"""The diagram primitives draw what they are asked to (checked on the artists, not on pixels)."""
from fleetcalc.ui.diagrams.draw import arrow, box, canvas, png


def test_canvas_box_arrow_png():
    fig, ax = canvas(10, 4, title="t")
    assert ax.get_xlim() == (0, 10) and ax.get_ylim() == (0, 4)
    box(ax, 1, 1, 2, 1, "HBM", kind="memory")
    arrow(ax, (3, 1.5), (6, 1.5), "25 GB/s")
    texts = [t.get_text() for t in ax.texts]
    assert "HBM" in texts and "25 GB/s" in texts
    assert png(fig)[:8] == b"\x89PNG\r\n\x1a\n"
