"""The second set of Vol. 2 notation / Ch. 1 pictures carries the values of the laws it draws.

Expected values are the book's figures or hand calculations, named beside each."""
import pytest

from fleetcalc.core.units import Q_
from fleetcalc.ui.diagrams import fleet as fleet_figures, links as links_figures, scaling as scaling_figures
from fleetcalc.ui.diagrams.draw import png


def _texts(fig):
    return " | ".join(t.get_text() for ax in fig.axes for t in ax.texts)


JOB = dict(P=Q_(70e9, "param"), D=Q_(1.4e12, "token"), N=1024, R_peak=Q_(989, "TFLOP/s"),
           beta_mem=Q_(3.35, "TB/s"), hbm_capacity=Q_(80, "GB"), gpu_power=Q_(700, "W"),
           nic_rate=Q_(400, "Gbit/s"), alpha=Q_(0, "s"), eta_hw=0.4, serve_t=8)


def test_fleet_stack_numbers_by_hand():
    fig = fleet_figures.fleet_stack_explained(**JOB)
    t = fig.numbers
    # 1,024 x 989 TFLOP/s = 1.0127 EFLOP/s
    assert t["peak"].to("EFLOP/s").magnitude == pytest.approx(1.012736)
    # BF16 gradient 70e9 x 2 B = 140 GB; ring at 400 Gb/s = 50 GB/s: 2 x 1023/1024 x 140 / 50 = 5.5945 s
    assert t["allreduce"].to("s").magnitude == pytest.approx(2 * 1023 / 1024 * 140 / 50)
    # 140 GB over 8 x 3.35 TB/s = 5.224 ms per token
    assert t["token"].to("ms").magnitude == pytest.approx(140 / (8 * 3.35))
    # 6 x 70e9 x 1.4e12 = 5.88e23 FLOP; / (1,024 x 989e12 x 0.4) = 1.4515e6 s = 403.2 h
    assert t["time"].to("hour").magnitude == pytest.approx(5.88e23 / (1024 * 989e12 * 0.4) / 3600)
    # 1,024 x 0.7 kW x 403.2 h = 289,000 kWh
    assert t["energy"].to("kWh").magnitude == pytest.approx(1024 * 0.7 * 5.88e23 / (1024 * 989e12 * 0.4) / 3600)
    assert "1.01 EFLOP/s" in _texts(fig) and "sets each" in _texts(fig)
    assert png(fig)[:4] == b"\x89PNG"


def test_ai_triad_explains_the_weights():
    # Vol. 2 §1.2 (line 1051): 1e25 FLOP; P = sqrt(1e25 / 120) = 2.887e11; D = 20 P = 5.77e12 tokens;
    # BF16 weights 2 x 2.887e11 = 577 GB, which need ceil(577 / 80) = 8 H100s just to hold
    fig = fleet_figures.ai_triad_explained(Q_(1e25, "FLOP"))
    t = fig.numbers
    assert t["P"].magnitude == pytest.approx((1e25 / 120) ** 0.5)
    assert t["weights"].to("GB").magnitude == pytest.approx(2 * (1e25 / 120) ** 0.5 / 1e9)
    assert t["hold"] == 8
    # 1e25 / (10,000 x 989e12 x 0.4) s = 29.26 days
    assert t["days"].to("day").magnitude == pytest.approx(1e25 / (1e4 * 989e12 * 0.4) / 86400)
    text = _texts(fig)
    assert "577 GB" in text and "8 GPUs" in text and "29.3 days" in text


def test_fleet_step_bars_gpt3_example():
    # §1.8 (lines 1026-1040): FP16 gradient 350 GB, 200 Gb/s = 25 GB/s, T_compute/N = 1.2 s at N = 1,024:
    # T_comm = 2 x 1023/1024 x 350 / 25 = 27.97 s; eta = 1.2 / 29.17 = 4.1 % (the book's 4.1 %)
    fig = fleet_figures.fleet_step_bars(Q_(1.2 * 1024, "s"), Q_(350, "GB"), Q_(0, "s"), Q_(200, "Gbit/s"))
    t = fig.terms[1024]
    assert t["comm"] == pytest.approx(2 * 1023 / 1024 * 14)
    assert t["eta"] == pytest.approx(1.2 / (1.2 + 2 * 1023 / 1024 * 14))
    assert t["f"] == pytest.approx(t["eta"])
    assert round(t["eta"] * 100, 1) == 4.1
    assert fig.terms[1]["eta"] == pytest.approx(1.0) and fig.terms[1]["comm"] == 0
    assert "η = 4.1 %" in _texts(fig) and "η = 100 %" in _texts(fig)


def test_loggp_timeline_by_hand():
    # o = 1 us, L = 2 us, g = 1.5 us, 1/G = 5 GB/s, k = 4,096 B: (k-1)G = 4095 / 5e9 s = 0.819 us;
    # period = max(1.5, 1 + 0.819) = 1.819 us; one message = 1 + 0.819 + 2 + 1 = 4.819 us;
    # six messages: 5 x 1.819 + 4.819 = 13.914 us
    fig = links_figures.loggp_timeline(6, Q_(4096, "byte"), Q_(2, "us"), Q_(1, "us"), Q_(1.5, "us"), 1 / Q_(5, "GB/s"))
    t = fig.times
    assert t["inject"] == pytest.approx(0.819)
    assert t["period"] == pytest.approx(1.819)
    assert t["one"] == pytest.approx(4.819)
    assert t["burst"] == pytest.approx(13.914)
    # a gap longer than the injection sets the period: g = 3 us
    fig = links_figures.loggp_timeline(2, Q_(4096, "byte"), Q_(2, "us"), Q_(1, "us"), Q_(3, "us"), 1 / Q_(5, "GB/s"))
    assert fig.times["period"] == pytest.approx(3.0)


def test_overhead_tokens_stretches_the_run():
    # §1.9 (lines 1127-1133): 40 % overhead, f = 0.6: the same tokens take 1/0.6 = 1.667 times as long;
    # at the deadline the run has 0.6 D. Kaplan Eq. 1.5 (alpha_N 0.076, alpha_D 0.103, N_c 6.4e13,
    # D_c 1.8e13) at P = 1e11, D = 2e12: ((6.4e13/1e11)^(0.076/0.103) + 1.8e13/2e12)^0.103
    fig = scaling_figures.overhead_tokens(100e9, 2e12, 0.6)
    L = lambda D: ((6.4e13 / 1e11) ** (0.076 / 0.103) + 1.8e13 / D) ** 0.103
    assert fig.values["t_end"] == pytest.approx(1 / 0.6)
    assert fig.values["L_end"] == pytest.approx(L(2e12))
    assert fig.values["L_at_deadline"] == pytest.approx(L(0.6 * 2e12))
    assert "1.7× later" in _texts(fig)
