"""Tests for fleetcalc.physics.measure (Ch. 28 §28.10): sanity of measured numbers, GPU path optional."""
import math

import pytest

from fleetcalc.physics import measure


def test_triad_sane():
    bw, t = measure.triad_bandwidth(n=200_000, repeats=2)
    v = bw.to("GB/s").magnitude
    assert math.isfinite(v) and 0 < v < 10_000      # below any memory system's ceiling
    assert t.to("s").magnitude > 0


def test_matmul_sane():
    r = measure.matmul_sweep((32, 64), repeats=2)
    for v in r.values():
        assert 0 < v.to("GFLOP/s").magnitude < 1e6


def test_gpu_path_answers_cleanly_with_or_without_a_gpu():
    # without torch + CUDA the GPU path says "no GPU" (None) instead of failing; with one it measures
    if not measure.gpu_available():
        assert measure.gpu_matmul_rate() is None and measure.gpu_copy_bandwidth() is None
        return
    assert measure.gpu_matmul_rate(n=1024).magnitude > 0
