"""§28.1's printed-vs-usable chart (lib/fleetcalc/ui/diagrams/links.py).

Expected values by hand from the texts: NVLink 4 is 900 GB/s both ways, 450 GB/s one way (Vol. 2
Ch. 2 line 1931); an NDR port is 400 Gb/s = 50 GB/s (Vol. 2 Ch. 2 line 2258, and Ch. 28 §28.1's
eight bits per byte); PCIe Gen5 x16 is about 64 GB/s per direction (Vol. 2 Ch. 2 line 2008).
"""
import pytest

from fleetcalc.ui.diagrams.links import LINKS, printed_vs_usable, usable_one_way
from fleetcalc.ui.diagrams.draw import png


@pytest.mark.parametrize("path, naive, usable", [("nvlink4.gpu_bandwidth", 900, 450),
                                                 ("infiniband_ndr.port_rate", 400, 50),
                                                 ("pcie.gen5_x16", 64, 64)])
def test_one_way_rates(path, naive, usable):
    a, b = usable_one_way(path)
    assert a.to("GB/s").magnitude == pytest.approx(naive)
    assert b.to("GB/s").magnitude == pytest.approx(usable)


def test_labels_carry_both_numbers():
    fig = printed_vs_usable()
    texts = [t.get_text() for ax in fig.axes for t in ax.texts]
    assert any("450 GB/s" in t for t in texts) and any("50 GB/s" in t and "one way" in t for t in texts)
    assert any("both-ways" in t for t in texts)
    png(fig)
    assert len(LINKS) == 3
