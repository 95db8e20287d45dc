"""Autoregressive decode on one accelerator: bytes per token, the bandwidth floor on token
latency, batch effects. Vol. 2 Ch. 2 "memory bandwidth and token latency" and the roofline
on real devices (seed 001, lines 1510-1561, 1613-1651; line numbers point into that seed).

One decode step (one new token for each of ``B`` sequences) reads every weight once and, per
sequence, its KV cache; it does 2 FLOP per parameter per sequence. With compute and memory
overlapped (the roofline's assumption, :func:`fleetcalc.physics.roofline.time_lower_bound`)::

    Q = W + B x ctx x kv_per_token          (bytes read per step; W = N s, memory.weights_memory)
    F = 2 N B                               (FLOP per step)
    t_step >= max(F / R_peak, Q / beta_mem)  on ``devices`` that split both evenly

Symbols: ``N`` parameters (a plain number), ``s`` bytes per weight (``Q_(2, "byte")`` for FP16,
``Q_(4, "bit")`` for INT4), ``B`` batch (sequences decoded together), ``ctx`` tokens already in
each sequence's KV cache. The text's batch-1 figures ignore the KV cache (it says "weights"); the
functions default to no KV traffic (``decode_step``: ``kv_per_token = None``; ``decode_step_bytes``: 0 byte,
so that its equation shows the KV term) to match and let a panel add it.
"""
from __future__ import annotations

import numpy as np

from fleetcalc.core.calculator import WHOLE, ceil_count, base_factor, calculator, fraction, kernel_result, num, qty, whole
from fleetcalc.core.equation import eq, no_equation
from fleetcalc.core.validate import out
from fleetcalc.physics import memory, roofline

__all__ = [
    "decode_flops", "kv_bytes_per_token", "decode_step_bytes", "token_latency_floor",
    "compute_time", "decode_step", "memory_boundness", "utilisation", "batch_for_utilisation",
    "devices_to_hold",
]

_S = qty("byte", gt=0, doc="bytes per weight (Q_(4, 'bit') for INT4)")
_B = whole(doc="sequences decoded together")
_CTX = num(ge=0, doc="tokens already in each sequence's KV cache")
_KV = qty("byte", ge=0, doc="KV-cache bytes per token of context; None = no KV traffic")
_DEVICES = whole(doc="devices that split the work evenly")
_R_PEAK = roofline.ridge_point.params["R_peak"]
_BETA_MEM = roofline.ridge_point.params["beta_mem"]
_MS = base_factor("ms")     # decode_step reports its times in ms
_DECODE = "Vol. 2 §2.3, memory bandwidth and token latency"
# the Vol. 2 spelling: P parameters, O operations, D_vol bytes moved, BW bandwidth, N devices
_VOL2 = {"N": "P", "F": "O", "W": r"D_{\mathrm{w}}", "Q": r"D_{\mathrm{vol}}", "beta_mem": r"\mathrm{BW}",
         "devices": "N", "kv_per_token": r"m_{\mathrm{KV}}", "ctx": r"n_{\mathrm{ctx}}"}


@calculator(returns="FLOP", N=num(gt=0, doc="model parameters"), B=_B,
            equation=eq("O", "2*N*B", ref=_DECODE, symbols=_VOL2))
def decode_flops(N, B=1):
    """F = 2 N B per decode step (line 1532: 2 x 70e9 = 1.4e11 FLOP per token at B = 1)."""
    return 2.0 * N * B


@calculator(returns="kB", layers=whole(doc="transformer layers"), kv_heads=whole(doc="key/value heads"),
            head_dim=whole(doc="dimension per head"), s=qty("byte", gt=0, doc="bytes per cached value"),
            equation=eq(r"m_{\mathrm{KV}}", "2*layers*kv_heads*head_dim*s",
                        ref="the standard transformer KV-cache count, in the Vol. 2 notation (N_L, H_KV, d_head; "
                            "M_KV is the KV-cache memory of serving); the book prints no formula",
                        symbols={"layers": "N_{L}", "kv_heads": r"H_{\mathrm{KV}}", "head_dim": r"d_{\mathrm{head}}"}))
def kv_bytes_per_token(layers, kv_heads, head_dim, s):
    """KV cache per token of context: 2 (K and V) x layers x kv_heads x head_dim x s (bytes).
    Not printed in this span; the standard transformer count, used by the panels' KV knob."""
    return 2.0 * layers * kv_heads * head_dim * s


@calculator(returns="GB", W=qty("byte", gt=0, doc="weight bytes"), B=_B, ctx=_CTX,
            kv_per_token=qty("byte", ge=0, doc="KV-cache bytes per token of context; 0 = no KV traffic"),
            equation=eq(r"D_{\mathrm{vol}}", "W + B*ctx*kv_per_token", ref=_DECODE + " (weights; KV cache per sequence)",
                        symbols=_VOL2))
def decode_step_bytes(W, B=1, ctx=0, kv_per_token=0.0):
    """Q = W + B x ctx x kv_per_token: bytes one decode step reads (weights once, KV per sequence)."""
    kv = 0.0 if kv_per_token is None else kv_per_token      # decode_step passes None for "no KV traffic"
    return W + B * ctx * kv


@calculator(returns="ms", Q=qty("byte", gt=0, doc="bytes read per step"), beta_mem=_BETA_MEM, devices=_DEVICES,
            equation=eq(r"T_{\mathrm{mem}}", "Q/(devices*beta_mem)", ref=_DECODE, symbols=_VOL2))
def token_latency_floor(Q, beta_mem, devices=1):
    """t >= Q / (devices x beta_mem): the bandwidth floor on one decode step (ms), lines 1516,
    1520, 1535 (141.2 GB / 3.35 TB/s = 42.1 ms). ``devices`` split the bytes evenly."""
    return memory.decode_time_floor.kernel(Q / devices, beta_mem)


@calculator(returns="ms", F=qty("FLOP", ge=0, doc="operations per step"), R_peak=_R_PEAK, devices=_DEVICES,
            equation=eq(r"T_{\mathrm{compute}}", "F/(devices*R_peak)", ref=_DECODE, symbols=_VOL2))
def compute_time(F, R_peak, devices=1):
    """t >= F / (devices x R_peak) (ms), line 1532 (1.4e11 FLOP / 989 TFLOP/s = 0.14 ms)."""
    return F / (devices * R_peak)


@calculator(returns="", t_compute=qty("s", ge=0, doc="compute time of a step"),
            t_memory=qty("s", gt=0, doc="memory time of a step"),
            equation=eq(r"f_{\mathrm{mem}}", "max(0, 1 - t_compute/t_memory)", ref=_DECODE + " (memory-boundness)",
                        symbols={"t_compute": r"T_{\mathrm{compute}}", "t_memory": r"T_{\mathrm{mem}}"}))
def memory_boundness(t_compute, t_memory):
    """Share of a step the arithmetic units wait for memory, with the two overlapped:
    max(0, 1 - t_compute / t_memory) (line 1551: 99.7 % for 70B on the H100).
    (The serial reading t_m / (t_c + t_m) differs by under 0.01 % when t_c << t_m.)"""
    return np.maximum(0.0, 1.0 - t_compute / t_memory)


@calculator(returns="", I=roofline.attainable_rate.params["I"], R_peak=_R_PEAK, beta_mem=_BETA_MEM,
            equation=eq(r"\eta_{\mathrm{hw}}", "min(R_peak, beta_mem*I)/R_peak",
                        ref="Vol. 2 §2.3, Eq. 2.1 (the roofline) over R_peak", symbols=_VOL2))
def utilisation(I, R_peak, beta_mem):
    """Attainable / peak = min(1, I x beta_mem / R_peak) (Eq. 2.1 divided by R_peak; line 1643:
    1 FLOP/byte on the H100 gives 0.34 %)."""
    return roofline.attainable_rate.kernel(I, R_peak, beta_mem) / R_peak


@calculator(returns=WHOLE, u=fraction(open_low=True, doc="target utilisation"), R_peak=_R_PEAK,
            beta_mem=_BETA_MEM, s=_S,
            equation=eq("B", "max(ceil_count(x), 1)",
                        where=[("I_star", "R_peak/beta_mem"), ("x", "u*I_star*s/2")],
                        symbols={"I_star": "I_*"}, ref="Ch. 28 §28.3, Eq. 28.3 and 28.5 (I = 2B/s)"))
def batch_for_utilisation(u, R_peak, beta_mem, s):
    """Least whole B with utilisation >= u when weights dominate the traffic (I = 2B/s, Eq. 28.5):
    B >= u x I_ridge x s / 2."""
    need = u * roofline.ridge_point.kernel(R_peak, beta_mem) * s / 2.0
    return np.maximum(ceil_count(need), 1.0)


@calculator(returns=WHOLE, size=qty("byte", ge=0, doc="bytes to hold"),
            capacity=qty("byte", gt=0, doc="memory per device"),
            equation=eq("N", "max(ceil_count(x), 1)", where=[("x", "size/capacity")],
                        symbols={"size": "M", "capacity": r"M_{\mathrm{dev}}"},
                        ref="Vol. 2 §2.3, HBM generations (350 GB on 80 GB H100s needs 5)"))
def devices_to_hold(size, capacity):
    """Least whole devices whose memory holds ``size``: ceil(size / capacity) (lines 1512, 1826:
    350 GB on 80 GB H100s needs 5)."""
    return np.maximum(memory.units_needed.kernel(size, capacity), 1.0)


@calculator(returns=None, N=num(gt=0, doc="model parameters"), s=_S, B=_B, R_peak=_R_PEAK, beta_mem=_BETA_MEM,
            ctx=_CTX, kv_per_token=_KV, devices=_DEVICES,
            equation=no_equation("a record of one decode step (bytes, FLOPs, times, the bound by name); "
                                 "each entry is another calculator here, with its own equation"))
def decode_step(N, s, B, R_peak, beta_mem, ctx=0, kv_per_token=None, devices=1) -> dict:
    """Everything about one decode step (see the module docstring): W, Q, F, I, t_compute,
    t_memory, t_step (the max), tokens/s for the batch, bound, memory-boundness and utilisation.

    The inputs are validated once and the kernels of :func:`fleetcalc.physics.memory.weights_memory`,
    :func:`decode_step_bytes`, :func:`decode_flops`, :func:`compute_time`,
    :func:`token_latency_floor` and the roofline's time bound are evaluated on the checked
    numbers, so a panel can sweep a whole batch grid in one call."""
    W = memory.weights_memory.kernel(N, s) + 0.0 * B                            # byte
    Q = decode_step_bytes.kernel(W, B, ctx, kv_per_token)                       # byte
    F = decode_flops.kernel(N, B)                                               # FLOP
    I = roofline.arithmetic_intensity.kernel(F, Q)                              # FLOP/byte
    t_c = compute_time.kernel(F, R_peak, devices)                               # s
    t_m = token_latency_floor.kernel(Q, beta_mem, devices)                      # s
    t = roofline.time_lower_bound.kernel(F, Q, devices * R_peak, devices * beta_mem)  # s
    return {
        "W": kernel_result(memory.weights_memory, W), "Q": kernel_result(decode_step_bytes, Q),
        "F": out(F, "FLOP"), "I": out(I, "FLOP/byte"),
        "t_compute": out(t_c / _MS, "ms"), "t_memory": out(t_m / _MS, "ms"), "t_step": out(t / _MS, "ms"),
        "tokens_per_s": out(B / t, "token/s"),
        "bound": "memory-bound" if np.all(t_m >= t_c) else ("compute-bound" if np.all(t_c > t_m) else "mixed"),
        "memory_boundness": out(memory_boundness.kernel(t_c, t_m), ""),
        "utilisation": out(utilisation.kernel(I, R_peak, beta_mem), ""),
    }
