"""Roofline calculators (Ch. 28 §28.3, Eq. 28.2-28.7) against the book and hand calculations."""
import math

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from fleetcalc.physics import roofline as rl
from fleetcalc.core.catalog import hw
from fleetcalc.core.units import Q_
from fleetcalc.core.validate import InputError, UnitMismatch

S2 = Q_(2, "byte")


def test_example_27_1_intensities_match_the_book():
    # Eq. 28.6 prints 0.9995, Eq. 28.7 prints 62.06 (d = n = 4096, s = 2)
    assert rl.matmul_intensity(1, 4096, 4096, S2).m_as("FLOP/byte") == pytest.approx(0.9995, abs=5e-5)
    assert rl.matmul_intensity(64, 4096, 4096, S2).m_as("FLOP/byte") == pytest.approx(62.06, abs=5e-3)
    # hand: 2*4096^2 / (2*(4096^2 + 2*4096)) = 4096/4098
    assert rl.matmul_intensity(1, 4096, 4096, S2).m_as("FLOP/byte") == pytest.approx(4096 / 4098, rel=1e-12)


def test_abstract_device_ridge_and_bounds():
    # §28.3: I* = 100e12 / 2e12 = 50 FLOP/byte; B=1 bound ~2 TFLOP/s; B=64 reaches the 100 TFLOP/s roof
    R, b = hw("abstract_device.peak_flops"), hw("abstract_device.hbm_bandwidth")
    assert rl.ridge_point(R, b).m_as("FLOP/byte") == 50
    assert rl.attainable_rate(rl.matmul_intensity(1, 4096, 4096, S2), R, b).m_as("TFLOP/s") == pytest.approx(2, abs=0.5e-3 * 2)
    assert rl.attainable_rate(rl.matmul_intensity(64, 4096, 4096, S2), R, b).m_as("TFLOP/s") == 100
    assert rl.bound_kind(Q_(10, "FLOP/byte"), R, b) == "memory-bound"
    assert rl.bound_kind(Q_(50, "FLOP/byte"), R, b) == "balanced"
    assert rl.bound_kind(Q_(80, "FLOP/byte"), R, b) == "compute-bound"


def test_exercise_28_2_least_batch():
    # reference solution: B >= 102400/1998 = 51.251 -> 52
    assert rl.min_batch_for_intensity(Q_(50, "FLOP/byte"), 4096, 4096, S2) == 52
    assert rl.matmul_intensity(52, 4096, 4096, S2).m_as("FLOP/byte") >= 50
    assert rl.matmul_intensity(51, 4096, 4096, S2).m_as("FLOP/byte") < 50


def test_exercise_28_3_time_bounds():
    # reference solution: compute 0.02 s, memory 0.05 s -> 0.05 s; halve F -> 0.05 s; halve Q -> 0.025 s
    F, Q, R, b = Q_(4e12, "FLOP"), Q_(1e11, "byte"), Q_(2e14, "FLOP/s"), Q_(2e12, "byte/s")
    assert rl.time_lower_bound(F, Q, R, b).m_as("s") == pytest.approx(0.05)
    assert rl.time_lower_bound(F / 2, Q, R, b).m_as("s") == pytest.approx(0.05)
    assert rl.time_lower_bound(F, Q / 2, R, b).m_as("s") == pytest.approx(0.025)


def test_weight_dominated_limit():
    # Eq. 28.5: 2B/s; at B = 64, s = 2 -> 64; exact/approx = 1/(1 + 1/32) by Eq. 28.7's closed form
    assert rl.matmul_intensity_weight_dominated(64, S2).m_as("FLOP/byte") == 64
    ratio = rl.matmul_intensity(64, 4096, 4096, S2) / rl.matmul_intensity_weight_dominated(64, S2)
    assert ratio.m_as("") == pytest.approx(1 / (1 + 1 / 32))


def test_unreachable_target_intensity_is_refused():
    # limit as B -> inf is 2dn/(s(d+n)) = 4096/2 = 2048 FLOP/byte for d = n = 4096, s = 2
    assert rl.max_matmul_intensity(4096, 4096, S2).m_as("FLOP/byte") == 2048
    with pytest.raises(InputError, match="I_target must be < 2048"):
        rl.min_batch_for_intensity(Q_(2048, "FLOP/byte"), 4096, 4096, S2)


@pytest.mark.parametrize("call, match", [
    (lambda: rl.ridge_point(Q_(100, "TFLOP/s"), Q_(-2, "TB/s")), r"beta_mem must be > 0 byte/s; got -2 TB/s"),
    (lambda: rl.ridge_point(Q_(0, "TFLOP/s"), Q_(2, "TB/s")), r"R_peak must be > 0 FLOP/s; got 0 TFLOP/s"),
    (lambda: rl.ridge_point(Q_(100, "TFLOP/s"), Q_(2, "s")), r"beta_mem needs a quantity in byte/s; got 2 s"),
    (lambda: rl.ridge_point(Q_(100, "TFLOP/s"), 2e12), r"beta_mem needs a quantity in byte/s .* plain number 2000000000000.0"),
    (lambda: rl.matmul_intensity(0, 4096, 4096, S2), r"B must be >= 1; got 0"),
    (lambda: rl.matmul_intensity(2.5, 4096, 4096, S2), r"B must be a whole number; got 2.5"),
    (lambda: rl.matmul_intensity(1, 4096, 4096, Q_(float("nan"), "byte")), r"s must be finite"),
    (lambda: rl.matmul_flops([], 2, 2), r"B is empty"),
    (lambda: rl.matmul_flops("8", 2, 2), r"B needs a number"),
])
def test_bad_input_names_parameter_value_and_range(call, match):
    with pytest.raises(InputError, match=match):
        call()


def test_unit_errors_are_type_errors_too():
    with pytest.raises(TypeError):
        rl.ridge_point(Q_(100, "TFLOP/s"), Q_(2, "s"))
    assert issubclass(UnitMismatch, ValueError)


def test_vectorised_over_batch():
    B = np.arange(1, 129)
    I = rl.matmul_intensity(B, 4096, 4096, S2).m_as("FLOP/byte")
    assert I.shape == (128,) and np.all(np.diff(I) > 0)


pos = st.floats(min_value=1e-3, max_value=1e6, allow_nan=False, allow_infinity=False)


@settings(max_examples=200, deadline=None)
@given(I=st.floats(min_value=0, max_value=1e6), R=pos, b=pos)
def test_roofline_never_exceeds_either_roof(I, R, b):
    r = rl.attainable_rate(Q_(I, "FLOP/byte"), Q_(R, "TFLOP/s"), Q_(b, "TB/s")).m_as("TFLOP/s")
    assert r <= R * (1 + 1e-12) and r <= I * b * (1 + 1e-12) + 1e-300
    assert math.isclose(r, min(R, I * b), rel_tol=1e-12)


@settings(max_examples=200, deadline=None)
@given(F=pos, Q=pos, R=pos, b=pos)
def test_time_bound_is_at_least_each_term(F, Q, R, b):
    t = rl.time_lower_bound(Q_(F, "GFLOP"), Q_(Q, "GB"), Q_(R, "TFLOP/s"), Q_(b, "TB/s")).m_as("s")
    assert t >= F / R / 1e3 * (1 - 1e-12) and t >= Q / b / 1e3 * (1 - 1e-12)


@settings(max_examples=100, deadline=None)
@given(d=st.integers(64, 16384), target=st.floats(1, 500))
def test_least_batch_is_least(d, target):
    limit = rl.max_matmul_intensity(d, d, S2).m_as("FLOP/byte")
    if target >= limit * 0.999:
        return
    B = rl.min_batch_for_intensity(Q_(target, "FLOP/byte"), d, d, S2)
    assert rl.matmul_intensity(B, d, d, S2).m_as("FLOP/byte") >= target * (1 - 1e-12)
    if B > 1:
        assert rl.matmul_intensity(B - 1, d, d, S2).m_as("FLOP/byte") < target
