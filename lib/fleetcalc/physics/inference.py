"""Autoregressive decode on one accelerator: bytes per token, the bandwidth floor on token
latency, batch effects. Vol. 2 Ch. 2 "memory bandwidth and token latency" and the roofline
on real devices (seed 001, lines 1510-1561, 1613-1651; line numbers point into that seed).

One decode step (one new token for each of ``B`` sequences) reads every weight once and, per
sequence, its KV cache; it does 2 FLOP per parameter per sequence. With compute and memory
overlapped (the roofline's assumption, :func:`fleetcalc.physics.roofline.time_lower_bound`)::

    Q = W + B x ctx x kv_per_token          (bytes read per step)
    F = 2 N B                               (FLOP per step)
    t_step >= max(F / R_peak, Q / beta_mem)  on ``devices`` that split both evenly

Symbols: ``N`` parameters (a plain number), ``s`` bytes per weight (``Q_(2, "byte")`` for FP16,
``Q_(4, "bit")`` for INT4), ``B`` batch (sequences decoded together), ``ctx`` tokens already in
each sequence's KV cache. The text's batch-1 figures ignore the KV cache (it says "weights"); the
functions default to ``kv_per_token = None`` (no KV traffic) to match and let a panel add it.
"""
from __future__ import annotations

import numpy as np

from fleetcalc.physics import memory, roofline
from fleetcalc.core.validate import InputError, count, magnitude, out

__all__ = [
    "weight_bytes", "decode_flops", "kv_bytes_per_token", "decode_step_bytes", "token_latency_floor",
    "compute_time", "decode_step", "memory_boundness", "utilisation", "batch_for_utilisation",
    "devices_to_hold",
]


def weight_bytes(N, s):
    """W = N x s: bytes of weights (175e9 x 2 byte = 350 GB, line 1410; 70.6e9 x 2 = 141.2 GB)."""
    memory._params("N", N)                      # own names before delegating
    magnitude("s", s, "byte", gt=0)
    return memory.weights_memory(N, s)


def decode_flops(N, B=1):
    """F = 2 N B per decode step (line 1532: 2 x 70e9 = 1.4e11 FLOP per token at B = 1)."""
    n = magnitude("N", N, "", gt=0)
    b = count("B", B)
    return out(2.0 * n * b, "FLOP")


def kv_bytes_per_token(layers, kv_heads, head_dim, s):
    """KV cache per token of context: 2 (K and V) x layers x kv_heads x head_dim x s (bytes).
    Not printed in this span; the standard transformer count, used by the panels' KV knob."""
    l, h, d = count("layers", layers), count("kv_heads", kv_heads), count("head_dim", head_dim)
    b = magnitude("s", s, "byte", gt=0)
    return out(2.0 * l * h * d * b, "byte").to("kB")


def decode_step_bytes(W, B=1, ctx=0, kv_per_token=None):
    """Q = W + B x ctx x kv_per_token: bytes one decode step reads (weights once, KV per sequence)."""
    w = magnitude("W", W, "byte", gt=0)
    b = count("B", B)
    c = magnitude("ctx", ctx, "", ge=0)
    k = 0.0 if kv_per_token is None else magnitude("kv_per_token", kv_per_token, "byte", ge=0)
    return out(w + b * c * k, "byte").to("GB")


def token_latency_floor(Q, beta_mem, devices=1):
    """t >= Q / (devices x beta_mem): the bandwidth floor on one decode step (ms), lines 1516,
    1520, 1535 (141.2 GB / 3.35 TB/s = 42.1 ms). ``devices`` split the bytes evenly."""
    magnitude("Q", Q, "byte", gt=0)             # own names before delegating
    magnitude("beta_mem", beta_mem, "byte/s", gt=0)
    n = count("devices", devices)
    return memory.decode_time_floor(Q / n, beta_mem).to("ms")


def compute_time(F, R_peak, devices=1):
    """t >= F / (devices x R_peak) (ms), line 1532 (1.4e11 FLOP / 989 TFLOP/s = 0.14 ms)."""
    f = magnitude("F", F, "FLOP", ge=0)
    r = magnitude("R_peak", R_peak, "FLOP/s", gt=0)
    n = count("devices", devices)
    return out(f / (n * r) * 1e3, "ms")


def memory_boundness(t_compute, t_memory):
    """Share of a step the arithmetic units wait for memory, with the two overlapped:
    max(0, 1 - t_compute / t_memory) (line 1551: 99.7 % for 70B on the H100).
    (The serial reading t_m / (t_c + t_m) differs by under 0.01 % when t_c << t_m.)"""
    c = magnitude("t_compute", t_compute, "s", ge=0)
    m = magnitude("t_memory", t_memory, "s", gt=0)
    return out(np.maximum(0.0, 1.0 - c / m), "")


def utilisation(I, R_peak, beta_mem):
    """Attainable / peak = min(1, I x beta_mem / R_peak) (Eq. 2.1 divided by R_peak; line 1643:
    1 FLOP/byte on the H100 gives 0.34 %)."""
    r = roofline.attainable_rate(I, R_peak, beta_mem)
    return out(r.magnitude / magnitude("R_peak", R_peak, "FLOP/s", gt=0), "")


def batch_for_utilisation(u, R_peak, beta_mem, s):
    """Least whole B with utilisation >= u when weights dominate the traffic (I = 2B/s, Eq. 28.5):
    B >= u x I_ridge x s / 2."""
    uu = magnitude("u", u, "", gt=0, le=1)
    ridge = roofline.ridge_point(R_peak, beta_mem).magnitude
    b = magnitude("s", s, "byte", gt=0)
    need = uu * ridge * b / 2.0
    c = np.ceil(need - 1e-9 * np.maximum(need, 1.0))
    c = np.maximum(c, 1)
    return int(c) if np.ndim(c) == 0 else c.astype(int)


def devices_to_hold(size, capacity):
    """Least whole devices whose memory holds ``size``: ceil(size / capacity) (lines 1512, 1826:
    350 GB on 80 GB H100s needs 5)."""
    magnitude("size", size, "byte", ge=0)        # own names before delegating
    magnitude("capacity", capacity, "byte", gt=0)
    k = np.maximum(memory.units_needed(size, capacity).magnitude, 1)
    return int(k) if np.ndim(k) == 0 else np.asarray(k).astype(int)


def decode_step(N, s, B, R_peak, beta_mem, ctx=0, kv_per_token=None, devices=1) -> dict:
    """Everything about one decode step (see the module docstring): W, Q, F, I, t_compute,
    t_memory, t_step (the max), tokens/s for the batch, bound, memory-boundness and utilisation.

    The inputs are validated once and the formulas above (the same as :func:`weight_bytes`,
    :func:`decode_step_bytes`, :func:`decode_flops`, :func:`compute_time` and
    :func:`token_latency_floor`; tests assert they agree) are evaluated on the checked numbers,
    so a panel can sweep a whole batch grid in one call."""
    n = magnitude("N", N, "", gt=0)
    sb = magnitude("s", s, "byte", gt=0)
    b = count("B", B)
    r = magnitude("R_peak", R_peak, "FLOP/s", gt=0)
    bw = magnitude("beta_mem", beta_mem, "byte/s", gt=0)
    c = magnitude("ctx", ctx, "", ge=0)
    k = 0.0 if kv_per_token is None else magnitude("kv_per_token", kv_per_token, "byte", ge=0)
    d = count("devices", devices)
    W = n * sb + 0.0 * b
    Q = W + b * c * k
    F = 2.0 * n * b
    t_c = F / (d * r)
    t_m = Q / (d * bw)
    t = np.maximum(t_c, t_m)
    return {
        "W": out(W / 1e9, "GB"), "Q": out(Q / 1e9, "GB"), "F": out(F, "FLOP"), "I": out(F / Q, "FLOP/byte"),
        "t_compute": out(t_c * 1e3, "ms"), "t_memory": out(t_m * 1e3, "ms"), "t_step": out(t * 1e3, "ms"),
        "tokens_per_s": out(b / t, "token/s"),
        "bound": "memory-bound" if np.all(t_m >= t_c) else ("compute-bound" if np.all(t_c > t_m) else "mixed"),
        "memory_boundness": out(np.maximum(0.0, 1.0 - t_c / t_m), ""),
        "utilisation": out(t_c / t, ""),
    }
