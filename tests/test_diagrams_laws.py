"""Vol. 2 notation and Ch. 1 pictures carry the values of the laws they draw.

Expected values are hand calculations from the book's equations and inputs, named beside each."""
import math

import numpy as np
import pytest

from fleetcalc.core.units import Q_
from fleetcalc.ui.diagrams import checkpoint as checkpoint_figures, collectives as collectives_figures, iron_law as iron_law_figures, links as links_figures, reliability as reliability_figures, scaling as scaling_figures
from fleetcalc.ui.diagrams.draw import png


def _texts(fig):
    return " | ".join(t.get_text() for ax in fig.axes for t in ax.texts)


def test_iron_law_bars_halve_only_the_data_term():
    # notation line 257 and line 290: FP16 -> INT8 halves D_vol. 7e9 params: 14 GB / 3.35 TB/s = 4.179 ms;
    # 14 GFLOP / 989 TFLOP/s = 0.01416 ms; L_lat = 10 us = 0.01 ms
    step = lambda b: (Q_(7e9 * b, "byte"), Q_(3.35, "TB/s"), Q_(14e9, "FLOP"), Q_(989, "TFLOP/s"), 1.0, Q_(10, "us"))
    fig = iron_law_figures.iron_law_bars({"FP16": step(2), "INT8": step(1)})
    assert fig.terms["FP16"]["data"] == pytest.approx(14e9 / 3.35e12 * 1e3, rel=1e-9)
    assert fig.terms["INT8"]["data"] == pytest.approx(7e9 / 3.35e12 * 1e3, rel=1e-9)
    assert fig.terms["FP16"]["compute"] == pytest.approx(fig.terms["INT8"]["compute"]) == pytest.approx(14e9 / 989e12 * 1e3)
    assert fig.terms["INT8"]["latency"] == pytest.approx(0.01)
    assert "T = 4.2 ms" in _texts(fig)


def test_alpha_beta_crossover_is_alpha_times_beta():
    # notation lines 460-474: alpha = 5 us, beta = 50 GB/s -> n* = 250 kB, and T(n*) = 2 alpha = 10 us
    fig = links_figures.alpha_beta_curve(Q_(5, "us"), Q_(50, "GB/s"))
    assert fig.n_star == pytest.approx(250e3, rel=1e-9)
    assert fig.T_at_n_star == pytest.approx(10e-6, rel=1e-9)
    assert "250 kB" in _texts(fig)


def test_reliability_collapse_crosses_1_over_e_near_1_over_1_minus_r():
    # Eq. 1.1: r^N = 1/e at N = -1/ln r; for r = 0.99999 that is 99,999.5 (about 1/(1-r) = 100,000)
    fig = reliability_figures.reliability_collapse((0.999, 0.99999))
    assert fig.crossings == pytest.approx([-1 / math.log(0.999), -1 / math.log(0.99999)], rel=1e-12)
    assert fig.crossings[1] == pytest.approx(1e5, rel=1e-4)


def test_failure_day_counts_the_book_scenario():
    # §1.1, lines 582-626: 50,000 h per GPU, 25,000 GPUs -> MTBF 2 h, 12 failures a day
    fig = reliability_figures.failure_day(Q_(50_000, "hour"), (1_000, 25_000))
    assert fig.mtbf_system == pytest.approx([50.0, 2.0])
    assert fig.per_window == pytest.approx([0.48, 12.0])
    assert "12 per 24 h" in _texts(fig)


def test_ring_traffic_levels_off_at_twice_the_gradient():
    # Ch. 28 Eq. 28.12, §1.3 line 748: 700 GB gradient; N = 2 sends 1x, N = 16,384 sends 2(16383)/16384 x
    fig = collectives_figures.ring_traffic(Q_(700, "GB"), Q_(400, "Gbit/s"), Q_(5, "us"), (2, 16_384))
    assert fig.sent == pytest.approx([700e9, 2 * 16383 / 16384 * 700e9], rel=1e-9)
    # latency term 2(N-1) alpha = 2 x 16,383 x 5 us = 0.16383 s; bandwidth 1,399.9 GB / 50 GB/s = 28.0 s
    assert fig.latency[1] == pytest.approx(0.16383, rel=1e-9)
    assert fig.bandwidth[1] == pytest.approx(2 * 16383 / 16384 * 700e9 / 50e9, rel=1e-9)


def test_checkpoint_interval_uses_the_job_mtbf():
    # Young-Daly (Ch. 28 Eq. 28.24): C = 60 s, M = 50,000 h / 25,000 = 2 h = 7,200 s -> sqrt(2 x 60 x 7200) = 929.5 s;
    # the per-GPU MTBF would give sqrt(2 x 60 x 1.8e8) = 146,969 s, sqrt(25,000) = 158 times longer
    fig = checkpoint_figures.checkpoint_interval(Q_(60, "s"), Q_(50_000, "hour"), 25_000)
    assert fig.tau_star == pytest.approx(math.sqrt(2 * 60 * 7200), rel=1e-9)
    assert fig.tau_naive / fig.tau_star == pytest.approx(math.sqrt(25_000), rel=1e-9)
    # waste at tau*: sqrt(2C/M) = sqrt(120/7200) = 12.9 %
    assert fig.w_star == pytest.approx(math.sqrt(120 / 7200), rel=1e-9)


def test_ci_scale_boundary_is_bandwidth_over_peak():
    # §1.7: 400 Gb/s = 50 GB/s over 989 TFLOP/s -> CI* = 5.06e-5 byte/FLOP
    fig = scaling_figures.ci_scale(Q_(400, "Gbit/s"), Q_(989, "TFLOP/s"), {"a": 5.0556e-4})
    assert fig.ci_star == pytest.approx(50e9 / 989e12, rel=1e-9)
    assert fig.ratios["a"] == pytest.approx(5.0556e-4 / (50e9 / 989e12), rel=1e-9)
    assert "CI* = 5.1e-05" in _texts(fig) or "CI* = 5.1e-5" in _texts(fig)


def test_every_figure_renders():
    figs = [reliability_figures.reliability_collapse(), reliability_figures.failure_day(Q_(50_000, "hour")),
            scaling_figures.ci_scale(Q_(400, "Gbit/s"), Q_(989, "TFLOP/s"), {"x": 1e-3})]
    for f in figs:
        assert png(f)[:4] == b"\x89PNG"
    with pytest.raises(ValueError):
        iron_law_figures.iron_law_bars({})
