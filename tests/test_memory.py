"""Tests for fleetcalc.physics.memory (Vol. 2 Ch. 2 Table 2.10 and the memory budget exercise, seed 001
lines 1942-2196)."""
import numpy as np
import pytest

from fleetcalc.physics import memory as M
from fleetcalc.core.units import Q_
from fleetcalc.core.validate import InputError

B = Q_(1, "byte")
P175 = 175e9


def test_table_2_10():
    # Table 2.10 (lines 2108-2114): 350 + 350 + 700 + 700 = 2,100 GB; + 100-400 GB = 2.2-2.5 TB
    st = M.training_state(P175, 2 * B, 2 * B, 8 * B)
    assert st["weights"].to("GB").magnitude == pytest.approx(350)
    assert st["optimizer"].to("GB").magnitude == pytest.approx(1400)
    assert st["total"].to("GB").magnitude == pytest.approx(2100)
    # with an FP32 master copy (ZeRO paper, 16 B/param): 2,800 GB (hand)
    assert M.training_state(P175, 2 * B, 2 * B, 8 * B, 4 * B)["total"].to("GB").magnitude == pytest.approx(2800)
    assert M.training_state(Q_(P175, "param"), 2 * B, 2 * B, 8 * B)["total"].magnitude == pytest.approx(2100)


def test_sharding_lines_2126():
    # line 2126: dp only 2,100 GB; ZeRO-3 over 8: 262.5 GB; TP-8 weights 43.75; TP8 x DP128 ZeRO-1: 1.4 GB
    assert M.per_gpu_budget(P175, 2 * B, 2 * B, 8 * B, dp=128)["hbm"].magnitude == pytest.approx(2100)
    assert M.per_gpu_budget(P175, 2 * B, 2 * B, 8 * B, dp=8, zero=3)["hbm"].magnitude == pytest.approx(262.5)
    r = M.per_gpu_budget(P175, 2 * B, 2 * B, 8 * B, t=8, dp=128, zero=1)
    assert r["weights"].magnitude == pytest.approx(43.75)
    assert round(r["optimizer"].magnitude, 1) == 1.4
    assert round((r["weights"] + r["optimizer"]).magnitude, 1) == 45.1


def test_memory_budget_exercise():
    # lines 2156-2180: TP-8, optimizer 175 GB/GPU offloaded; 43.75 + 20 + 43.75 + 5 = 112.5 (~113) GB
    r = M.per_gpu_budget(P175, 2 * B, 2 * B, 8 * B, t=8, offload_optimizer=True,
                         activations=Q_(20, "GB"), buffers=Q_(5, "GB"))
    assert r["host"].magnitude == pytest.approx(175)
    assert r["hbm"].magnitude == pytest.approx(112.5)
    assert M.headroom(Q_(80, "GB"), r["hbm"]).magnitude == pytest.approx(-32.5)
    g = M.per_gpu_budget(P175, 2 * B, 2 * B, 8 * B, t=8, offload_optimizer=True, offload_gradients=True,
                         activations=Q_(20, "GB"), buffers=Q_(5, "GB"))
    assert g["hbm"].magnitude == pytest.approx(68.75)
    with pytest.raises(InputError, match="zero"):
        M.per_gpu_budget(P175, 2 * B, 2 * B, 8 * B, zero=4)


def test_activations_korthikanti():
    # Korthikanti et al. 2022 per-layer formulas, GPT-3 (s 2048, b 4, h 12288, a 96, L 96, t 8), by hand:
    sbh = 2048 * 4 * 12288
    none_sp = M.activation_memory(2048, 4, 12288, 96, 96, 8, True, "none").to("byte").magnitude
    assert none_sp == pytest.approx(sbh * (34 + 80) / 8 * 96)
    full = M.activation_memory(2048, 4, 12288, 96, 96, 8, False, "full").to("GB").magnitude
    assert full == pytest.approx(2 * sbh * 96 / 1e9)
    assert 100 <= none_sp / 1e9 <= 200 and 15 <= full <= 25   # the book's ranges (line 2166)
    tp_only = M.activation_memory(2048, 4, 12288, 96, 96, 8, False, "none").to("byte").magnitude
    assert tp_only == pytest.approx(sbh * (10 + 3 + 10) * 96)
    assert M.recompute_flops_overhead("full").magnitude == pytest.approx(1 / 3)
    with pytest.raises(InputError, match="recompute"):
        M.activation_memory(2048, 4, 12288, 96, 96, recompute="half")


def test_units_and_decode():
    # line 1927: 350/80 -> 5 GPUs; line 1940: 350/24 -> 15, 350/16 -> 22 stacks
    assert M.units_needed(Q_(350, "GB"), Q_(80, "GB")).magnitude == 5
    assert M.units_needed(Q_(350, "GB"), Q_(24, "GB")).magnitude == 15
    assert M.units_needed(Q_(350, "GB"), Q_(16, "GB")).magnitude == 22
    assert M.units_needed(Q_(320, "GB"), Q_(80, "GB")).magnitude == 4
    # line 2440: 141 GB / 2.04 TB/s = 69.1 ms (book prints 69.2); 71 GB / 3.35 TB/s = 21.2 ms
    assert round(M.decode_time_floor(Q_(141, "GB"), Q_(2.04, "TB/s")).magnitude, 1) == 69.1
    assert round(M.decode_time_floor(Q_(71, "GB"), Q_(3.35, "TB/s")).magnitude) == 21
    # line 2472: 350 GB / 3.35 TB/s = 104.5 ms > 100 ms
    assert M.decode_time_floor(Q_(350, "GB"), Q_(3.35, "TB/s")).magnitude == pytest.approx(104.48, abs=0.01)


def test_vectorised():
    r = M.per_gpu_budget(np.array([7e9, 70e9, 175e9]), 2 * B, 2 * B, 8 * B, t=8)
    assert r["hbm"].magnitude.tolist() == pytest.approx([10.5, 105, 262.5])
