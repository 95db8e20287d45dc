"""Figs 2.6 and 2.7 (ours) show the calculators' and the catalog's values; expectations by hand."""
import pytest

from fleetcalc import Q_
from fleetcalc.ui.diagrams.hbm import hbm_stack, largest_square_tile, tile_intensity, tiling
from fleetcalc.core.validate import InputError


def _texts(fig):
    return "\n".join(t.get_text() for ax in fig.axes for t in ax.texts)


def test_tile_intensity_by_hand():
    # no reuse: one multiply-add (2 FLOP) per two FP16 operands (4 bytes) = 0.5 FLOP/byte
    assert tile_intensity(1, Q_(2, "byte")).magnitude == pytest.approx(0.5)
    # a 128 x 128 tile: 2 * 128^2 * K FLOP over 2 * 128 * K * 2 bytes = 64 FLOP/byte
    assert tile_intensity(128, Q_(2, "byte")).magnitude == pytest.approx(64)
    with pytest.raises(InputError, match="tile size"):
        tile_intensity(0, Q_(2, "byte"))


def test_largest_tile_by_hand():
    # 256 KiB = 262,144 B; 3 * 208^2 * 2 = 259,584 fits, 3 * 224^2 * 2 = 301,056 does not
    assert largest_square_tile(Q_(256, "KiB"), Q_(2, "byte")) == 208
    with pytest.raises(InputError, match="capacity"):
        largest_square_tile(Q_(0, "KiB"), Q_(2, "byte"))


def test_tiling_labels():
    t = _texts(tiling())
    assert "256 KiB -> T = 208" in t
    assert "295 FLOP/byte" in t      # H100 FP16 ridge, Vol. 2 Ch. 2 line 1434


def test_stack_labels():
    t = _texts(hbm_stack())
    assert "1,024-bit bus" in t      # line 1448
    assert "670 GB/s" in t           # per stack, line 1522
    assert "5 stacks x 670 GB/s = 3.35 TB/s" in t   # 5 x 670 GB/s, line 1522
    assert "64-bit channel" in t and "20 pJ/bit" in t and "2 pJ/bit" in t   # Table 2.4
