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
from fleetcalc.physics.roofline import matmul_bytes, matmul_flops

__all__ = ["triad_bandwidth", "triad_traffic", "memory_roofs", "cache_size", "matmul_rate", "matmul_sweep",
           "matvec_rate", "gpu_available", "gpu_matmul_rate", "gpu_copy_bandwidth", "gpu_triad_bandwidth"]

#: torch's CUDA events report milliseconds; this is one of them in seconds.
_MS = base_factor("ms")


def _best(fn, repeats):
    best = float("inf")
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return max(best, 1e-9)  # not a unit factor: a floor on the time so a rate stays finite


def triad_traffic(n):
    """FLOP and bytes of one triad a = b + s c over n float64 values, two ways of counting bytes.

    ``stream``: STREAM's convention, 3 x 8 n (read b and c, write a). ``moved``: what numpy's two
    passes really move (a = 3c reads c and writes a; a += b reads a and b and writes a), 5 x 8 n.
    ``flops``: 2 n (one multiply, one add per element). Returns a dict of Quantities.
    """
    nn = int(count("n", n))
    return {"flops": Q_(2.0 * nn, "FLOP"), "stream": Q_(3 * 8.0 * nn, "byte"), "moved": Q_(5 * 8.0 * nn, "byte")}


def triad_bandwidth(n=4_000_000, repeats=5, inner=1, counting="stream"):
    """a = b + s c over float64 arrays, timed as the best of ``repeats`` runs of ``inner`` triads.

    ``counting="stream"`` counts 3 x 8 n bytes per triad (STREAM's convention, comparable with
    published STREAM numbers); ``"moved"`` counts the 5 x 8 n that numpy's two passes move (see
    :func:`triad_traffic`), 5/3 times larger. ``inner`` > 1 amortises the call overhead for arrays
    small enough to stay in cache. Returns (bandwidth in GB/s, seconds of the best triad).
    """
    if counting not in ("stream", "moved"):
        raise ValueError(f"counting must be 'stream' or 'moved'; got {counting!r}")
    nn = int(count("n", n))
    k = int(count("inner", inner))
    b = np.ones(nn)
    c = np.full(nn, 2.0)
    a = np.empty(nn)

    def triad():
        for _ in range(k):
            np.multiply(c, 3.0, out=a)
            np.add(a, b, out=a)

    triad()
    t = _best(triad, int(count("repeats", repeats))) / k
    q = triad_traffic(nn)[counting].to("byte").magnitude
    return Q_(q / t, "byte/s").to("GB/s"), Q_(t, "s")


def cache_size():
    """The largest CPU cache this machine reports (Linux sysfs), as a Quantity in bytes; None if unknown."""
    import glob
    import re

    best = 0
    for path in glob.glob("/sys/devices/system/cpu/cpu0/cache/index*/size"):
        try:
            text = open(path).read().strip()
        except OSError:
            continue
        m = re.fullmatch(r"(\d+)([KMG]?)", text)
        if m:
            size = Q_(int(m.group(1)), {"": "byte", "K": "KiB", "M": "MiB", "G": "GiB"}[m.group(2)]).to("byte")
            best = max(best, size.magnitude)
    return Q_(best, "byte") if best else None


def memory_roofs(cache_n=16_384, dram_n=8_000_000, repeats=5, counting="stream"):
    """Two sloped roofs measured separately with the triad: one whose arrays stay in cache
    (3 x 8 x cache_n bytes, 384 KiB by default) and one far larger than any cache (192 MB).

    Returns {"cache": GB/s, "dram": GB/s, "cache_set": bytes, "dram_set": bytes}. A kernel whose
    working set fits in cache is bounded by the first, a larger one by the second.
    """
    cache_bw, _ = triad_bandwidth(cache_n, repeats, inner=max(1, 4_000_000 // int(count("cache_n", cache_n))),
                                  counting=counting)
    dram_bw, _ = triad_bandwidth(dram_n, repeats, counting=counting)
    return {"cache": cache_bw, "dram": dram_bw,
            "cache_set": triad_traffic(cache_n)["stream"], "dram_set": triad_traffic(dram_n)["stream"]}


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


def matvec_rate(n=4096, repeats=5, dtype=np.float32):
    """y = A x for an n x n matrix: 2 n^2 FLOP over s (n^2 + 2n) bytes (Eq. 28.4 with B = 1), so
    I is about 2/s FLOP/byte (0.5 in float32): memory-bound on any machine whose ridge is above it.
    Returns (FLOP/s, the bytes Q of one product)."""
    nn = int(count("n", n))
    rng = np.random.default_rng(0)
    A = rng.standard_normal((nn, nn)).astype(dtype)
    x = rng.standard_normal(nn).astype(dtype)
    A @ x
    t = _best(lambda: A @ x, int(count("repeats", repeats)))
    s = np.dtype(dtype).itemsize
    return Q_(matmul_flops.kernel(1, nn, nn) / t, "FLOP/s").to("GFLOP/s"), Q_(matmul_bytes.kernel(1, nn, nn, s), "byte")


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


def gpu_triad_bandwidth(n=1 << 26, repeats=5):
    """a = b + 3 c on the GPU in float32 with torch (one fused kernel: 3 x 4 n bytes); None without a GPU."""
    if not gpu_available():
        return None
    import torch

    b = torch.ones(n, device="cuda")
    c = torch.full((n,), 2.0, device="cuda")
    a = torch.empty_like(b)
    torch.add(b, c, alpha=3.0, out=a)
    torch.cuda.synchronize()
    best = float("inf")
    for _ in range(repeats):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        torch.add(b, c, alpha=3.0, out=a)
        end.record()
        torch.cuda.synchronize()
        best = min(best, start.elapsed_time(end) * _MS)
    return Q_(3 * 4.0 * n / best, "byte/s").to("GB/s")
