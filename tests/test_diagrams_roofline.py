"""Rooflines of §28.3 and §28.10 (lib/fleetcalc/ui/diagrams/roofline.py).

Expected values: Ch. 28 Eq. 28.6-28.7 (I = 0.9995 and 62.06 FLOP/byte at d = n = 4096, s = 2);
the H100's 989 TFLOP/s FP16 and 3.35 TB/s HBM (Vol. 2 Ch. 2, Table 2.2 / line 1422) give a ridge
of 989/3.35 = 295 FLOP/byte, and its ~12 TB/s L2 one of 989/12 = 82.4; an element-wise add of two
FP16 vectors does 1 FLOP per 6 bytes (by hand).
"""
import pytest

from fleetcalc.core.units import Q_
from fleetcalc.ui.diagrams.roofline import Kernel, h100_kernels, h100_roofline, measured_roofline
from fleetcalc.ui.diagrams.draw import png


def _texts(fig):
    return [t.get_text() for ax in fig.axes for t in ax.texts]


def test_kernel_intensities():
    I = {k.name: k.I.to("FLOP/byte").magnitude for k in h100_kernels()}
    assert I["decode, batch 1 (Eq. 28.6)"] == pytest.approx(0.9995, abs=1e-4)
    assert I["batch 64 (Eq. 28.7)"] == pytest.approx(62.06, abs=0.01)
    assert I["element-wise add"] == pytest.approx(1 / 6)
    assert I["square matmul 8192³"] == pytest.approx(2 * 8192 / (2 * 3))


def test_ridges_drawn():
    texts = _texts(h100_roofline())
    assert "ridge 295 FLOP/byte" in texts and "ridge 82.4 FLOP/byte" in texts


def test_measured_points_sit_under_their_roofs():
    fig = measured_roofline(Q_(100, "GFLOP/s"), Q_(50, "GB/s"), Q_(10, "GB/s"),
                            [Kernel("triad", Q_(1 / 12, "FLOP/byte"), 1, Q_(0.5, "GFLOP/s"))])
    # the ridge of 100 GFLOP/s over 10 GB/s is 10 FLOP/byte, over 50 GB/s it is 2
    assert "ridge 10 FLOP/byte" in _texts(fig) and "ridge 2 FLOP/byte" in _texts(fig)
    png(fig)
