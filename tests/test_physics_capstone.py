"""Calculators appended for the capstone (chapters/capstone): hand-calculated values."""
import math

import pytest

from fleetcalc import Q_
from fleetcalc.core.validate import InputError
from fleetcalc.physics import capacity, scaling_laws


def test_token_rate_per_device_by_hand():
    # 0.40 x 989e12 FLOP/s / (6 x 70e9) = 395.6e12 / 4.2e11 = 941.905 token/s (our job on an H100)
    r = capacity.token_rate_per_device(Q_(70e9, "param"), Q_(989, "TFLOP/s"), 0.4)
    assert r.to("token/s").magnitude == pytest.approx(941.9047619, rel=1e-9)
    # a device twice as fast, or a model half the size, doubles it
    assert capacity.token_rate_per_device(35e9, Q_(989, "TFLOP/s"), 0.4).magnitude == pytest.approx(2 * 941.9047619)
    with pytest.raises(InputError, match="mfu"):
        capacity.token_rate_per_device(70e9, Q_(989, "TFLOP/s"), 0.0)


def test_rate_meets_eq_28_27():
    # Eq. 28.27 with this rate: 1.4e12 tokens on 1,024 devices = 1.4e12 / (1024 x 941.905) s = 403.198 h,
    # which is C / (N R MFU) = 5.88e23 / (1024 x 989e12 x 0.4)
    r = capacity.token_rate_per_device(70e9, Q_(989, "TFLOP/s"), 0.4)
    T = capacity.training_time(Q_(1.4e12, "token"), 1024, r)
    assert T.to("hour").magnitude == pytest.approx(5.88e23 / (1024 * 989e12 * 0.4) / 3600, rel=1e-9)
    assert T.to("hour").magnitude == pytest.approx(403.198, rel=1e-5)


def test_hidden_size_for_params_by_hand():
    # sqrt(70e9 / (12 x 80)) = sqrt(72,916,666.7) = 8539.13; Llama 2 70B uses 8192 (GQA, wider MLP)
    assert float(scaling_laws.hidden_size_for_params(70e9, 80).magnitude) == pytest.approx(8539.1256, rel=1e-7)
    # GPT-3 175B, 96 layers: sqrt(175e9 / 1152) = 12,325 against its 12,288 (Brown et al. 2020)
    h = float(scaling_laws.hidden_size_for_params(175e9, 96).magnitude)
    assert h == pytest.approx(12325.16, rel=1e-6) and abs(h - 12288) / 12288 < 0.01
    assert 12 * 80 * float(scaling_laws.hidden_size_for_params(70e9, 80).magnitude) ** 2 == pytest.approx(70e9)
    assert math.isfinite(float(scaling_laws.hidden_size_for_params(1e6, 2).magnitude))
