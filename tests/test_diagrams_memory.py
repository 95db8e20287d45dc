"""Fig. 28.1 (lib/fleetcalc/ui/diagrams/memory.py) shows the catalog's H100 figures.

Expected values are the Vol. 2 text's own (line 1422: 50 MB L2 at ~12 TB/s, 80 GB HBM3 at
3.35 TB/s, ~256 KB shared memory per SM, ~33 MB in all; line 2008: ~64 GB/s per direction per
PCIe Gen5 x16 link), typed here independently of the catalog.
"""

import pytest

from fleetcalc.ui.diagrams.draw import png
from fleetcalc.ui.diagrams.memory import hierarchy_levels, memory_hierarchy


def _texts(fig):
    return [t.get_text() for ax in fig.axes for t in ax.texts]


def test_levels_in_order_with_book_numbers():
    lv = hierarchy_levels()
    assert [x.name for x in lv] == ["registers", "shared memory / L1", "L2 cache", "HBM", "host DDR5"]
    assert lv[0].bandwidth is None                                   # line 1422 gives no single figure
    assert lv[1].bandwidth.to("TB/s").magnitude == pytest.approx(132 * 128 * 66.9e12 / (2 * 16896) / 1e12, rel=1e-3)
    assert lv[2].bandwidth.to("TB/s").magnitude == pytest.approx(12)  # line 1422
    assert lv[3].bandwidth.to("TB/s").magnitude == pytest.approx(3.35)
    assert lv[2].capacity == "50 MB" and lv[3].capacity == "80 GB"
    # 132 SMs x 256 KiB = 33 MiB ("about 33 MB", line 1422)
    assert "33 MiB" in lv[1].capacity and "256 KiB per SM" in lv[1].capacity


def test_figure_labels_are_the_catalog_values():
    texts = _texts(memory_hierarchy())
    for want in ("12 TB/s", "3.35 TB/s", "200 GB/s", "80 GB", "50 MB"):
        assert want in texts, want
    # the vendor's L1/shared bandwidth, with the book's 19 TB/s (the A100's) beside it:
    # 128 B/clk/SM x 132 SMs x 1.98 GHz = 33.45 TB/s, drawn as 33.5 (Hopper whitepaper, CUDA guide's 32 banks x 4 B)
    assert any("33.5 TB/s (vendor, derived)" in t and "book: 19 TB/s" in t for t in texts), texts
    # registers: 132 SMs x 256 KiB = 34.6 MB (whitepaper), beside the book's 20-30 MB (line 1422)
    assert "34.6 MB in all (vendor)" in texts and any("book: 20–30 MB" in t for t in texts), texts
    assert any("64 GB/s per direction" in t for t in texts)            # line 2008


def test_bandwidth_falls_and_capacity_grows_down_the_hierarchy():
    bws = [x.bandwidth.to("TB/s").magnitude for x in hierarchy_levels() if x.bandwidth is not None]
    assert bws == sorted(bws, reverse=True)


def test_unknown_device_is_refused():
    with pytest.raises(ValueError, match="device must be 'h100'"):
        hierarchy_levels("tpu_v4")


def test_fast_and_legible():
    memory_hierarchy()
    fig = memory_hierarchy()
    png(fig)
    assert min(t.get_fontsize() for ax in fig.axes for t in ax.texts) >= 8
