"""fleetcalc.physics.inference: decode bandwidth floor and batch effects (Vol. 2 Ch. 2 lines 1510-1651)."""
import numpy as np
import pytest

from fleetcalc.physics import inference, memory, roofline
from fleetcalc.core.units import Q_
from fleetcalc.core.validate import InputError

H100_R, H100_BW = Q_(989, "TFLOP/s"), Q_(3.35, "TB/s")


def test_weight_bytes():
    assert memory.weights_memory(175e9, Q_(2, "byte")).magnitude == pytest.approx(350)
    assert memory.weights_memory(175e9, Q_(4, "bit")).magnitude == pytest.approx(87.5)   # line 1512


def test_floors_line_1516():
    # 141.2 GB / 2.04, 3.35, 8 TB/s = 69.2, 42.1, 17.65 ms
    q = Q_(141.2, "GB")
    assert inference.token_latency_floor(q, Q_(2.04, "TB/s")).magnitude == pytest.approx(69.216, abs=1e-3)
    assert inference.token_latency_floor(q, H100_BW).magnitude == pytest.approx(42.149, abs=1e-3)
    assert inference.token_latency_floor(q, Q_(8, "TB/s")).magnitude == pytest.approx(17.65)
    # line 1520: 2,000 GB at 8 TB/s = 250 ms; on 4 devices the floor is a quarter
    assert inference.token_latency_floor(Q_(2000, "GB"), Q_(8, "TB/s"), devices=4).magnitude == pytest.approx(62.5)


def test_decode_step_70b_line_1532():
    d = inference.decode_step(70e9, Q_(2, "byte"), 1, H100_R, H100_BW)
    assert d["t_compute"].magnitude == pytest.approx(0.14156, abs=1e-5)
    assert d["bound"] == "memory-bound"
    assert d["I"].magnitude == pytest.approx(1.0)
    assert d["memory_boundness"].magnitude == pytest.approx(1 - 0.14156 / 41.791, abs=1e-5)


def test_batch_raises_intensity_and_flips_bound():
    d = inference.decode_step(175e9, Q_(2, "byte"), 2048, H100_R, H100_BW)
    assert d["I"].magnitude == pytest.approx(2048)           # line 1647
    assert d["bound"] == "compute-bound"
    assert d["utilisation"].magnitude == pytest.approx(1.0)


def test_kv_cache_adds_bytes():
    kv = inference.kv_bytes_per_token(80, 8, 128, Q_(2, "byte"))   # hand: 2*80*8*128*2 = 327,680 B
    assert kv.to("byte").magnitude == pytest.approx(327680)
    q = inference.decode_step_bytes(Q_(140, "GB"), B=4, ctx=1000, kv_per_token=kv)
    assert q.to("GB").magnitude == pytest.approx(140 + 4 * 1000 * 327680 / 1e9)


def test_utilisation_and_batch_for_it():
    # line 1643: 1 FLOP/byte x 3.35 TB/s / 989 TFLOP/s = 0.339 %
    assert inference.utilisation(Q_(1, "FLOP/byte"), H100_R, H100_BW).magnitude == pytest.approx(0.003387, abs=1e-6)
    # hand: 50 % of the ridge 295.2 at 2 byte/weight needs B >= 147.6 -> 148
    assert inference.batch_for_utilisation(0.5, H100_R, H100_BW, Q_(2, "byte")) == 148


def test_devices_to_hold_lines_1424_1826():
    assert inference.devices_to_hold(Q_(350, "GB"), Q_(80, "GB")) == 5
    assert inference.devices_to_hold(Q_(175, "GB"), Q_(80, "GB")) == 3
    assert inference.devices_to_hold(Q_(87.5, "GB"), Q_(80, "GB")) == 2
    assert inference.devices_to_hold(Q_(10, "TB"), Q_(640, "GB")) == 16
    assert inference.devices_to_hold(Q_(160, "GB"), Q_(80, "GB")) == 2
    arr = inference.devices_to_hold(Q_(np.array([10, 90]), "GB"), Q_(80, "GB"))
    assert list(arr) == [1, 2]


def test_validation():
    with pytest.raises(InputError, match="beta_mem"):
        inference.token_latency_floor(Q_(1, "GB"), Q_(0, "TB/s"))
    with pytest.raises(InputError, match="B"):
        inference.decode_flops(7e9, 0)
    with pytest.raises(InputError):
        memory.weights_memory(-1, Q_(2, "byte"))


def test_decode_step_agrees_with_the_single_formulas():
    kv = Q_(320, "kB")
    d = inference.decode_step(70.6e9, Q_(2, "byte"), 8, H100_R, H100_BW, ctx=2048, kv_per_token=kv, devices=2)
    W = memory.weights_memory(70.6e9, Q_(2, "byte"))
    Q = inference.decode_step_bytes(W, 8, 2048, kv)
    assert d["W"].to("GB").magnitude == pytest.approx(W.to("GB").magnitude)
    assert d["Q"].to("GB").magnitude == pytest.approx(Q.to("GB").magnitude)
    assert d["t_memory"].to("ms").magnitude == pytest.approx(inference.token_latency_floor(Q, H100_BW, 2).magnitude)
    F = inference.decode_flops(70.6e9, 8)
    assert d["t_compute"].to("ms").magnitude == pytest.approx(inference.compute_time(F, H100_R, 2).magnitude)
    grid = inference.decode_step(70e9, Q_(2, "byte"), np.array([1, 64, 4096]), H100_R, H100_BW)
    assert grid["t_step"].magnitude.shape == (3,) and grid["bound"] == "mixed"


def test_decode_step_time_is_the_roofline_bound():
    # hand: 70e9 x 2 byte = 140 GB at B = 1 -> 140e9 / 3.35e12 = 41.791 ms > 2 x 70e9 / 989e12 = 0.14156 ms
    d = inference.decode_step(70e9, Q_(2, "byte"), 1, H100_R, H100_BW)
    assert d["t_step"].to("ms").magnitude == pytest.approx(140e9 / 3.35e12 * 1e3)
    F, Q = inference.decode_flops(70e9, 1), Q_(140, "GB")
    assert d["t_step"].to("ms").magnitude == pytest.approx(
        roofline.time_lower_bound(F, Q, H100_R, H100_BW).to("ms").magnitude)
    assert d["tokens_per_s"].magnitude == pytest.approx(3.35e12 / 140e9)
