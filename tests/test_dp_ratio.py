"""Data-parallel communication/compute ratio at fixed tokens per GPU (fleetcalc.physics.dp_ratio).

Hand calculation (Vol. 2 Ch. 3 §3.4, lines 2711-2732 inputs: N = 1,024, FP32 gradients, NDR
alpha = 1.5 us, beta = 50 GB/s, H100 989 TFLOP/s at 50 %, 5.00e13 FLOP per GPU per step at 1.5B):
    D = 5.00e13 / (6 x 1.5e9) = 5,555.6 tokens per GPU per step
    bandwidth part per parameter: 2 x 1023/1024 x 4 B / 50e9 B/s = 1.59844e-10 s
    compute per parameter:        6 x 5,555.6 / (0.5 x 989e12)   = 6.74082e-11 s
    ratio limit = 1.59844e-10 / 6.74082e-11 = 2.3713
    start-up part at 1.5B: 2 x 1023 x 1.5e-6 s = 3.069 ms over 101.11 ms = 0.0304 -> 2.4016
"""
import pytest

from fleetcalc.physics.dp_ratio import (dp_comm_compute_ratio, dp_ratio_large_model_limit, dp_step_times,
                                tokens_for_compute)
from fleetcalc.core.units import Q_
from fleetcalc.core.validate import InputError

ARGS = dict(N=1024, s_grad=Q_(4, "byte"), alpha=Q_(1.5, "us"), beta=Q_(50, "GB/s"),
            R_peak=Q_(989, "TFLOP/s"), mfu=0.5)
D = Q_(5.00e13 / (6 * 1.5e9), "token")


def test_hand_calculation_limit_and_1p5B():
    lim = dp_ratio_large_model_limit(D, 1024, Q_(4, "byte"), Q_(50, "GB/s"), Q_(989, "TFLOP/s"), 0.5)
    assert lim.magnitude == pytest.approx(2.3713, rel=1e-4)
    assert dp_comm_compute_ratio(1.5e9, D, **ARGS).magnitude == pytest.approx(2.4016, rel=1e-4)


def test_book_step_times_at_1p5B_and_70B():
    # §3.4 line 2719: T_compute = 101.1 ms; line 2724: T_ring = 242.8 ms; line 2732: 11,192.1 ms at 70B
    t = dp_step_times(1.5e9, D, **ARGS)
    assert t["compute"].to("ms").magnitude == pytest.approx(101.1, abs=0.05)
    assert t["comm"].to("ms").magnitude == pytest.approx(242.8, abs=0.05)
    t70 = dp_step_times(70e9, D, **ARGS)
    assert t70["comm"].to("ms").magnitude == pytest.approx(11192.1, abs=0.05)
    # same tokens per GPU: compute grows by 70/1.5 too, so the ratio stays near 2.37, not ~110
    assert t70["compute"].to("ms").magnitude == pytest.approx(101.11 * 70 / 1.5, rel=1e-3)
    assert t70["ratio"].magnitude == pytest.approx(2.3719, rel=1e-3)


def test_ratio_does_not_grow_with_model_size():
    r = [dp_comm_compute_ratio(P, D, **ARGS).magnitude for P in (1e9, 1e10, 1e11, 1e12)]
    assert all(a >= b for a, b in zip(r, r[1:]))          # only the alpha part shrinks, as 1/P
    assert r[0] / r[-1] < 1.03


def test_tokens_for_compute_matches_book_flops():
    # 5.00e13 FLOP at 50 % of 989 TFLOP/s is 101.112 ms; inverting gives back 5,555.6 tokens
    d = tokens_for_compute(1.5e9, Q_(101.112, "ms"), Q_(989, "TFLOP/s"), 0.5)
    assert d.to("token").magnitude == pytest.approx(5555.6, rel=1e-4)


def test_bad_inputs_name_the_parameter():
    with pytest.raises(InputError, match="mfu"):
        dp_comm_compute_ratio(1.5e9, D, **{**ARGS, "mfu": 1.5})
    with pytest.raises(InputError, match="tokens_per_gpu"):
        dp_ratio_large_model_limit(0, 1024, Q_(4, "byte"), Q_(50, "GB/s"), Q_(989, "TFLOP/s"), 0.5)
