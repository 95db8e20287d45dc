"""Figs 2.6 and 2.7 (ours) show the calculators' and the catalog's values; expectations by hand."""
import pytest

from fleetcalc import Q_
from fleetcalc.ui.diagrams.hbm import hbm_stack, tiling


def _texts(fig):
    return "\n".join(t.get_text() for ax in fig.axes for t in ax.texts)


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
