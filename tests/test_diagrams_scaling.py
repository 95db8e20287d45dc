"""Scaling diagrams (Figs 1.7, 1.8, 1.9, 1.12) show what the fit and the fleet law give.

Expected values are hand calculations from the published formulas, not calls to the code drawn."""
import math

import numpy as np
import pytest

from fleetcalc.ui.diagrams import scaling as d
from fleetcalc.core.units import Q_


def test_fig_1_8_floors_are_the_infinite_data_limit():
    fig = d.loss_vs_data()
    # caption sizes 393K ... 708M (line 830); floor = (N_c / P)^alpha_N with Kaplan et al. 2020's
    # Eq. 1.5 fit (Table 2: N_c = 6.4e13, alpha_N = 0.076); e.g. 393K: 1.628e8^0.076 = 4.208
    expected = [(6.4e13 / p) ** 0.076 for p in (393e3, 2e6, 25e6, 85e6, 302e6, 708e6)]
    assert fig.floors == pytest.approx(expected, rel=1e-9)
    assert fig.floors[0] == pytest.approx(4.208, abs=1e-3) and fig.floors[-1] == pytest.approx(2.380, abs=1e-3)
    assert [t.get_text() for t in fig.axes[0].get_legend().get_texts()][0] == "393K"


def test_fig_1_7_and_1_8_loss_axes_carry_labelled_ticks():
    # a loss axis spans less than a decade, so decade ticks alone would leave one label (or none)
    f7 = d.loss_vs_compute()
    f8 = d.loss_vs_data()
    assert len(f7.yticks) >= 5 and len(f8.yticks) >= 5
    assert 2.5 in list(f8.yticks) and 3.0 in list(f8.yticks)     # Fig. 1.8 spans about 2.4 to 4.7 nats
    labels = [t.get_text() for t in f8.axes[0].get_yticklabels()]
    assert "3" in labels and "4" in labels


def test_fig_1_7_frontier_moves_to_bigger_models_as_budget_grows():
    fig = d.loss_vs_compute(mark_budget=Q_(1e22, "FLOP"))
    C, L, P = fig.frontier
    assert np.all(np.diff(L) <= 1e-12)                 # the frontier never rises
    assert np.all(np.diff(P) >= 0)                     # and never steps back to a smaller model
    assert P[0] == 1e3 and fig.best_at_budget == 1e9   # tiny budget: smallest; 1e22 FLOP: largest


def test_fig_1_9_boundaries_from_the_power_law_by_hand():
    fig = d.data_regimes(A=20.0, alpha=0.35, floor=0.05, best_guess=0.9, near_floor=0.1)
    small, floor_start = fig.boundaries
    # A D^-alpha + floor = best guess  ->  D = (20 / 0.85)^(1/0.35)
    assert small == pytest.approx((20 / 0.85) ** (1 / 0.35), rel=1e-9)
    # reducible gap = 10 % of the floor = 0.005  ->  D = (20 / 0.005)^(1/0.35)
    assert floor_start == pytest.approx((20 / 0.005) ** (1 / 0.35), rel=1e-9)
    with pytest.raises(ValueError, match="best_guess"):
        d.data_regimes(best_guess=0.05)


def test_fig_1_12_bar_matches_eq_1_4():
    fig = d.c3_taxonomy(Q_(1.2, "s"), Q_(28, "s"), Q_(2, "s"), N=1024)
    # Eq. 1.4 by hand: 1.2 / (1.2 + 28 + 2) = 3.846 %, printed to the tenth of a per cent
    assert fig.f_compute == pytest.approx(1.2 / 31.2, rel=1e-12)
    texts = " ".join(t.get_text() for t in fig.axes[0].texts)
    assert "3.8 %" in texts and "31.2 s" in texts and "3.846" not in texts
    # the step bar has a legend naming the three terms of Eq. 1.3
    for word in ("compute T_compute/N", "exposed communication", "synchronisation"):
        assert word in texts
    for word in ("Computation", "Communication", "Coordination"):
        assert word in texts


def test_diagrams_render_to_png():
    from fleetcalc.ui.diagrams.draw import png
    for make in (d.loss_vs_data, d.data_regimes, lambda: d.c3_taxonomy(Q_(1, "s"), Q_(1, "s"), Q_(0, "s"))):
        assert png(make())[:4] == b"\x89PNG"


def test_curves_are_labelled_by_model_size_as_papers_do():
    fig = d.loss_vs_data()
    labels = [t.get_text() for ax in fig.axes if ax.get_legend() for t in ax.get_legend().get_texts()]
    # Fig. 1.8's sizes (line 830: 393K to 708M parameters), written the way the paper labels them
    assert labels == ["393K", "2M", "25M", "85M", "302M", "708M"]
