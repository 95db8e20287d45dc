"""Fig. 2.10 (ours): the delivery chain walks power back up correctly and the figure shows it."""
import pytest

from fleetcalc import Q_
from fleetcalc.ui.diagrams.power import delivery_chain, power_path
from fleetcalc.core.validate import InputError


def _texts(fig):
    return "\n".join(t.get_text() for ax in fig.axes for t in ax.texts)


def test_chain_by_hand():
    p = delivery_chain(Q_(700, "W"), [0.5, 0.8])
    assert [q.to("W").magnitude for q in p] == pytest.approx([1750, 875, 700])   # 700 / 0.8 / 0.5
    with pytest.raises(InputError, match="stage 1"):
        delivery_chain(Q_(700, "W"), [0.9, 1.2])
    with pytest.raises(InputError, match="p_chip"):
        delivery_chain(Q_(0, "W"), [0.9])


def test_figure_numbers():
    t = _texts(power_path())
    # H100 TDP 700 W (line 1732); IT power 700 / (0.95 * 0.90) = 818.7 W; liquid PUE 1 / 0.90 (line 2480)
    # gives 818.7 / 0.90 = 909.7 W from the grid
    assert "700 W" in t and "819 W" in t and "910 W" in t
    assert "33-40 kW" in t          # rack power, line 2232
    assert "assumed" in t


def test_pue_below_conversion_losses_is_refused():
    with pytest.raises(InputError, match="PUE"):
        power_path(compute_fraction="dc_facility.liquid_to_compute_high")   # PUE 1.053 < 1/(0.99*0.96*0.99)
