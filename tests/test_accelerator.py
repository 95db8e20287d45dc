"""Tests for fleetcalc.physics.accelerator (Ch. 28 §28.2, Eq. 28.1)."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from fleetcalc.physics import accelerator as A
from fleetcalc.core.units import Q_
from fleetcalc.core.validate import InputError


def test_exercise_28_1():
    # Exercise 28.1: registers 4, shared memory 2, threads 8, arch 16 -> 2 (shared memory)
    r = A.resident_blocks(65536, 64, 256, Q_(64, "KiB"), Q_(24, "KiB"), 2048, 16)
    assert r.bound == 2 and r.binding == ("shared_memory",)
    assert r.limits == {"n_arch": 16, "registers": 4, "shared_memory": 2, "threads": 8}
    # 16 KiB per block: shared memory allows 4, tied with registers
    r = A.resident_blocks(65536, 64, 256, Q_(64, "KiB"), Q_(16, "KiB"), 2048, 16)
    assert r.bound == 4 and set(r.binding) == {"registers", "shared_memory"}


def test_h_zero_drops_term():
    r = A.resident_blocks(65536, 64, 256, Q_(64, "KiB"), Q_(0, "KiB"), 2048, 16)
    assert "shared_memory" not in r.limits and r.bound == 4


def test_occupancy_and_padding():
    # 2 blocks x 8 warps / 64 warps = 0.25
    assert A.occupancy(2, 256, 2048).magnitude == pytest.approx(0.25)
    assert A.warps_per_block(100) == 4
    assert A.pad_to(1000, 128) == 1024
    # 2 x 1000 x 4096 x 1000 useful vs 2 x 1024 x 4096 x 1024 done
    assert A.padded_matmul_flops(1000, 4096, 1000, 128, 64, 128).magnitude == 2 * 1024 * 4096 * 1024
    assert A.padding_efficiency(1000, 4096, 1000, 128, 64, 128).magnitude == pytest.approx(1e6 / 1024**2)
    with pytest.raises(InputError):
        A.occupancy(9, 256, 2048)
    with pytest.raises(InputError):
        A.resident_blocks(65536, 64, 4096, Q_(64, "KiB"), Q_(16, "KiB"), 2048, 16)


@settings(max_examples=80, deadline=None)
@given(r=st.integers(1, 255), t=st.sampled_from([32, 64, 128, 256, 512, 1024]),
       h=st.integers(0, 64 * 1024))
def test_bound_is_min_and_fits(r, t, h):
    res = A.resident_blocks(65536, r, t, Q_(64, "KiB"), Q_(h, "byte"), 2048, 16)
    assert res.bound == min(res.limits.values())
    n = res.bound
    assert n * r * t <= 65536 and n * t <= 2048 and n <= 16 and n * h <= 64 * 1024
    assert 0 <= A.occupancy(n, t, 2048).magnitude <= 1


# --- tiling (Vol. 2 §2.2, Fig. 2.6); expectations by hand

def test_tile_intensity_by_hand():
    # no reuse: one multiply-add (2 FLOP) per two FP16 operands (4 bytes) = 0.5 FLOP/byte
    assert A.tile_intensity(1, Q_(2, "byte")).magnitude == pytest.approx(0.5)
    # a 128 x 128 tile: 2 * 128^2 * K FLOP over 2 * 128 * K * 2 bytes = 64 FLOP/byte
    assert A.tile_intensity(128, Q_(2, "byte")).magnitude == pytest.approx(64)
    with pytest.raises(InputError, match="T"):
        A.tile_intensity(0, Q_(2, "byte"))


def test_largest_tile_by_hand():
    # 256 KiB = 262,144 B; 3 * 208^2 * 2 = 259,584 fits, 3 * 224^2 * 2 = 301,056 does not
    assert A.largest_square_tile(Q_(256, "KiB"), Q_(2, "byte")) == 208
    with pytest.raises(InputError, match="capacity"):
        A.largest_square_tile(Q_(0, "KiB"), Q_(2, "byte"))
