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


def test_triad_counts_both_ways():
    # STREAM counts 3 x 8n bytes; numpy's two passes move 5 x 8n (by hand, see triad_traffic)
    tr = measure.triad_traffic(1000)
    assert tr["stream"].to("byte").magnitude == 24_000 and tr["moved"].to("byte").magnitude == 40_000
    assert tr["flops"].to("FLOP").magnitude == 2000
    with pytest.raises(ValueError):
        measure.triad_bandwidth(1000, 1, counting="bytes")


def test_memory_roofs_and_matvec_sane():
    roofs = measure.memory_roofs(cache_n=4096, dram_n=400_000, repeats=2)
    assert roofs["cache"].magnitude > 0 and roofs["dram"].magnitude > 0
    assert roofs["cache_set"].to("byte").magnitude == 3 * 8 * 4096
    rate, Q = measure.matvec_rate(256, repeats=2)
    assert rate.magnitude > 0 and Q.to("byte").magnitude == 4 * (256 * 256 + 2 * 256)   # Eq. 28.4, B = 1
