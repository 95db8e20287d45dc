"""Measure your own machine (Ch. 28 §28.10): memory bandwidth with a STREAM-like triad and
matrix-multiply FLOP/s over sizes, with numpy; a GPU path with PyTorch when it is importable and
a CUDA device is present (imported lazily; skipped cleanly otherwise).

These are *operator benchmarks* in the book's three-level view (peak spec, operator benchmark,
end-to-end run): they bound what one shape and one precision achieve here, nothing more.
Timings vary run to run: report the best of several repeats and never print them in a cell
whose output is compared.
"""
from __future__ import annotations

import time

import numpy as np

from fleetcalc.core.calculator import base_factor
from fleetcalc.core.units import Q_
from fleetcalc.core.validate import count
from fleetcalc.physics.roofline import matmul_flops

__all__ = ["triad_bandwidth", "matmul_rate", "matmul_sweep", "gpu_available", "gpu_matmul_rate",
           "gpu_copy_bandwidth"]

#: torch's CUDA events report milliseconds; this is one of them in seconds.
_MS = base_factor("ms")


def _best(fn, repeats):
    best = float("inf")
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return max(best, 1e-9)  # not a unit factor: a floor on the time so a rate stays finite


def triad_bandwidth(n=4_000_000, repeats=5):
    """a = b + s c over float64 arrays; bytes counted as STREAM does: 3 x 8 n (two reads, one write).

    Returns (bandwidth in GB/s, seconds of the best run).
    """
    nn = int(count("n", n))
    b = np.ones(nn)
    c = np.full(nn, 2.0)
    a = np.empty(nn)

    def triad():
        np.multiply(c, 3.0, out=a)
        np.add(a, b, out=a)

    triad()
    t = _best(triad, int(count("repeats", repeats)))
    # numpy does the triad in two passes (a = 3c, then a += b): 5 x 8 n bytes actually move;
    # STREAM's convention (3 x 8 n) under-counts that, so report the convention and be conservative.
    return Q_(3 * 8 * nn / t, "byte/s").to("GB/s"), Q_(t, "s")


def matmul_rate(n=512, repeats=3, dtype=np.float32):
    """2 n^3 FLOP (Eq. 28.4 with B = d = n) / best time for an n x n matmul in numpy (BLAS).
    Returns FLOP/s as a Quantity."""
    nn = int(count("n", n))
    rng = np.random.default_rng(0)
    A = rng.standard_normal((nn, nn)).astype(dtype)
    B = rng.standard_normal((nn, nn)).astype(dtype)
    A @ B
    t = _best(lambda: A @ B, int(count("repeats", repeats)))
    return Q_(matmul_flops.kernel(nn, nn, nn) / t, "FLOP/s").to("GFLOP/s")


def matmul_sweep(sizes=(64, 128, 256, 512), repeats=3, dtype=np.float32):
    """matmul_rate over sizes: small matrices run far below the machine's peak (launch and
    memory costs dominate), the same lesson as the roofline and the alpha term."""
    return {int(n): matmul_rate(n, repeats, dtype) for n in sizes}


def gpu_available() -> bool:
    """True when torch imports and sees a CUDA device (torch is optional and imported lazily)."""
    try:
        import torch  # noqa: F401
    except Exception:
        return False
    try:
        return bool(torch.cuda.is_available())
    except Exception:
        return False


def gpu_matmul_rate(n=4096, repeats=5, dtype="bfloat16"):
    """2 n^3 / best time for an n x n matmul on the GPU with torch; None without a GPU."""
    if not gpu_available():
        return None
    import torch

    dt = getattr(torch, dtype)
    A = torch.randn(n, n, device="cuda", dtype=dt)
    B = torch.randn(n, n, device="cuda", dtype=dt)
    A @ B
    torch.cuda.synchronize()
    best = float("inf")
    for _ in range(repeats):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        A @ B
        end.record()
        torch.cuda.synchronize()
        best = min(best, start.elapsed_time(end) * _MS)
    return Q_(matmul_flops.kernel(n, n, n) / best, "FLOP/s").to("TFLOP/s")


def gpu_copy_bandwidth(n_bytes=1 << 30, repeats=5):
    """Device-to-device copy rate (read + write counted: 2 x bytes / time); None without a GPU."""
    if not gpu_available():
        return None
    import torch

    x = torch.empty(n_bytes, dtype=torch.uint8, device="cuda")
    y = torch.empty_like(x)
    y.copy_(x)
    torch.cuda.synchronize()
    best = float("inf")
    for _ in range(repeats):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        y.copy_(x)
        end.record()
        torch.cuda.synchronize()
        best = min(best, start.elapsed_time(end) * _MS)
    return Q_(2.0 * n_bytes / best, "byte/s").to("GB/s")
