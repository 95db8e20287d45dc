"""Fig. 28.6 (logical networks) labels its links with the catalog's values."""

from fleetcalc import Q_, hw
from fleetcalc.ui.diagrams.cluster import TRAFFIC, logical_networks
from fleetcalc.ui.diagrams.draw import png


def _texts(fig):
    return " | ".join(t.get_text() for t in fig.axes[0].texts)


def test_links_come_from_the_catalog():
    # Vol. 2 Ch. 1 Figure 1.3 (line 705): NVLink 900 GB/s inside a node, 400 Gb/s InfiniBand NIC.
    assert hw("vol2_ch1.node.nvlink").to("GB/s").magnitude == 900
    text = _texts(logical_networks())
    assert "scale-up 900 GB/s" in text
    assert "compute fabric, 400 Gb/s per NIC" in text


def test_storage_path_label_and_overrides():
    # Example 27.2's shared storage path, 40 GiB/s (Ch. 28 line 260), handed in by the caller.
    text = _texts(logical_networks(storage_path=Q_(40, "GiB/s"), nic=Q_(200, "Gbit/s")))
    assert "storage path 40 GiB/s" in text and "200 Gb/s per NIC" in text


def test_both_variants_and_every_traffic_class_shown():
    text = _texts(logical_networks())
    assert "(a) physically separate networks" in text and "(b) one shared network, isolated classes" in text
    for kind in TRAFFIC:
        assert f"{kind}:" in text
    assert "correlated failures" in text


def test_fast_and_legible():
    logical_networks()
    fig = logical_networks()
    png(fig)
    assert min(t.get_fontsize() for t in fig.axes[0].texts) >= 8
