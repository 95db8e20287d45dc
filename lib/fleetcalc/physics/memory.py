"""Training memory budget: weights, gradients, optimizer state, activations, and where they
live (HBM, host DRAM), Vol. 2 Ch. 2 §§ Node memory partitioning, Memory budget exercise
(seed 001, lines 1942-2196), Table 2.10; and the weight-streaming latency floor of decoding
(fallacies, line 2440; summary, line 2472).

Symbols: ``P`` parameters (a plain number or a Quantity in ``param``); ``s_w``, ``s_g`` bytes
per weight / gradient value; ``s_opt`` optimizer bytes per parameter (Adam's m and v in FP32:
8 B, Table 2.10); ``s_master`` an FP32 master copy of the weights (4 B; standard in mixed
precision, Rajbhandari et al. 2020, but **not** counted in the book's Table 2.10); ``t`` the
tensor-parallel degree, ``pp`` pipeline stages, ``dp`` data-parallel replicas, ``zero`` the
ZeRO stage (0-3). Activations follow Korthikanti et al. 2022 ("Reducing activation
recomputation in large transformer models", Eq. 1-2 and §4), an input the book does not give.

Sizes are decimal: the book's "350 GB" is 175e9 x 2 byte = 350e9 byte.
"""
from __future__ import annotations

import functools

import numpy as np

from fleetcalc.core.units import Q_, Quantity, ureg
from fleetcalc.core.validate import InputError, count, magnitude, out

__all__ = [
    "PRECISION_BYTES", "OPTIMIZER_BYTES", "weights_memory", "gradient_memory", "optimizer_memory",
    "training_state", "activation_memory", "recompute_flops_overhead", "per_gpu_budget",
    "units_needed", "decode_time_floor", "headroom",
]


@functools.lru_cache(maxsize=None)
def _u(name):
    """A parsed unit, cached: pint re-parses prefixed unit strings ("GB", "kW") on every call."""
    return ureg.Unit(name)

#: Bytes per value of common precisions (labels for dropdowns).
PRECISION_BYTES = {"FP32": 4.0, "FP16 / BF16": 2.0, "FP8 / INT8": 1.0, "INT4": 0.5}

#: Optimizer bytes per parameter, beyond the weights and gradients.
OPTIMIZER_BYTES = {
    "Adam: m, v in FP32 (book, Table 2.10)": 8.0,
    "Adam + FP32 master weights (ZeRO's K = 12)": 12.0,
    "SGD + momentum in FP32": 4.0,
    "plain SGD (no state)": 0.0,
}


def _params(name, P):
    if isinstance(P, Quantity):
        return magnitude(name, P, "param", gt=0)
    return magnitude(name, P, "", gt=0)


def weights_memory(P, s_w):
    """Weight bytes = P x s_w (Table 2.10: 175e9 x 2 B = 350 GB)."""
    p = _params("P", P)
    s = magnitude("s_w", s_w, "byte", gt=0)
    return out(p * s, "byte").to(_u("GB"))


def gradient_memory(P, s_g):
    """Gradient bytes = P x s_g (Table 2.10: 175e9 x 2 B = 350 GB)."""
    p = _params("P", P)
    s = magnitude("s_g", s_g, "byte", gt=0)
    return out(p * s, "byte").to(_u("GB"))


def optimizer_memory(P, s_opt, s_master=Q_(0, "byte")):
    """Optimizer bytes = P x (s_opt + s_master) (line 1944: 175e9 x 2 x 4 B = 1,400 GB for Adam's
    m and v in FP32; an FP32 master copy adds P x 4 B = 700 GB that Table 2.10 leaves out)."""
    p = _params("P", P)
    s = magnitude("s_opt", s_opt, "byte", ge=0)
    m = magnitude("s_master", s_master, "byte", ge=0)
    return out(p * (s + m), "byte").to(_u("GB"))


def training_state(P, s_w, s_g, s_opt, s_master=Q_(0, "byte")):
    """Whole-model training state (Table 2.10 without activations): a dict with ``weights``,
    ``gradients``, ``optimizer`` and ``total`` (line 1944: 350 + 350 + 1,400 = 2,100 GB)."""
    w = weights_memory(P, s_w)
    g = gradient_memory(P, s_g)
    o = optimizer_memory(P, s_opt, s_master)
    return {"weights": w, "gradients": g, "optimizer": o, "total": (w + g + o).to(_u("GB"))}


_RECOMPUTE = ("none", "selective", "full")


def activation_memory(s, b, h, a, L, t=1, sequence_parallel=False, recompute="none"):
    """Activation bytes held for the backward pass, per GPU, 16-bit activations
    (Korthikanti et al. 2022, Eq. 1-2 and Table 2; an input the book leaves out, line 2166):

    * ``none``: per layer s b h (34 + 5 a s / h) / t with sequence parallelism, or
      s b h (10 + 24 / t + 5 a s / (h t)) without it;
    * ``selective`` (recompute attention's softmax/dropout): the same without the 5 a s / h term;
    * ``full`` (keep only each layer's input): 2 s b h per layer, / t with sequence parallelism.

    Times L layers (pipeline stages would divide L). GPT-3 175B (s = 2048, b = 4, h = 12288,
    a = 96, L = 96, t = 8): none + SP = 138 GB, full = 19.3 GB, inside the book's 100-200 GB and
    15-25 GB.
    """
    ss, bb, hh, aa, LL = count("s", s), count("b", b), count("h", h), count("a", a), count("L", L)
    tt = count("t", t)
    if recompute not in _RECOMPUTE:
        raise InputError(f"recompute must be one of {_RECOMPUTE}; got {recompute!r}")
    sbh = ss * bb * hh
    attn = 5.0 * aa * ss / hh
    if recompute == "full":
        per_layer = 2.0 * sbh / (tt if sequence_parallel else 1.0)
    else:
        extra = attn if recompute == "none" else 0.0
        if sequence_parallel:
            per_layer = sbh * (34.0 + extra) / tt
        else:
            per_layer = sbh * (10.0 + 24.0 / tt + extra / tt)
    return out(per_layer * LL, "byte").to(_u("GB"))


def recompute_flops_overhead(recompute="full"):
    """Extra FLOPs of activation recomputation relative to forward + backward: full recompute
    re-runs the forward pass, 2PD on top of 6PD = 1/3 (line 2128: "about 33 % more FLOPs");
    ``selective`` is taken as ~0 (a few % in Korthikanti et al. 2022), ``none`` as 0."""
    if recompute not in _RECOMPUTE:
        raise InputError(f"recompute must be one of {_RECOMPUTE}; got {recompute!r}")
    return out({"none": 0.0, "selective": 0.0, "full": 2.0 / 6.0}[recompute], "")


def per_gpu_budget(P, s_w, s_g, s_opt, s_master=Q_(0, "byte"), t=1, pp=1, dp=1, zero=0,
                   offload_optimizer=False, offload_gradients=False, activations=Q_(0, "GB"), buffers=Q_(0, "GB")):
    """Per-GPU memory by component and where it lives (lines 2124-2126, 2148-2180).

    The model state is split t x pp ways by tensor and pipeline parallelism; ZeRO stage >= 1
    divides the optimizer state by dp, >= 2 also the gradients, 3 also the weights. Offloaded
    components move to host DRAM. ``activations`` and ``buffers`` are per-GPU bytes given by the
    caller (see :func:`activation_memory`). Returns a dict of per-GPU Quantities (GB):
    ``weights, gradients, optimizer, activations, buffers`` (all in HBM unless offloaded),
    ``hbm`` (their HBM sum), ``host`` (bytes this GPU keeps in host DRAM).

    Book checks: dp-only 2,100 GB; ZeRO-3 over 8: 262.5 GB; t = 8: weights 43.75 GB;
    t = 8, dp = 128, ZeRO-1: optimizer 1.37 GB; t = 8, optimizer offloaded: 112.5 GB in HBM.
    """
    tt, pq, dd = count("t", t), count("pp", pp), count("dp", dp)
    z = count("zero", zero, ge=0)
    if np.any(z > 3):
        raise InputError(f"zero must be 0, 1, 2 or 3; got {zero}")
    act = magnitude("activations", activations, "byte", ge=0)
    buf = magnitude("buffers", buffers, "byte", ge=0)
    model = tt * pq
    w = weights_memory(P, s_w).to(_u("byte")).magnitude / model
    g = gradient_memory(P, s_g).to(_u("byte")).magnitude / model
    o = optimizer_memory(P, s_opt, s_master).to(_u("byte")).magnitude / model
    o = np.where(z >= 1, o / dd, o)
    g = np.where(z >= 2, g / dd, g)
    w = np.where(z >= 3, w / dd, w)
    host = np.zeros_like(np.asarray(w, dtype=float))
    if offload_optimizer:
        host = host + o
        o = o * 0.0
    if offload_gradients:
        host = host + g
        g = g * 0.0
    hbm = w + g + o + act + buf
    res = {"weights": w, "gradients": g, "optimizer": o, "activations": act + 0.0 * w,
           "buffers": buf + 0.0 * w, "hbm": hbm, "host": host}
    return {k: out(v, "byte").to(_u("GB")) for k, v in res.items()}


def units_needed(total, per_unit):
    """Least whole number of units that hold ``total``: ceil(total / per_unit)
    (line 1927: 350 GB on 80 GB GPUs needs 5; line 1940: 350 GB on 16-24 GB HBM stacks needs 15-22)."""
    tot = magnitude("total", total, "byte", ge=0)
    per = magnitude("per_unit", per_unit, "byte", gt=0)
    x = tot / per
    return out(np.ceil(x - 1e-12 * np.maximum(x, 1.0)), "")


def decode_time_floor(model_bytes, beta_mem):
    """Per-token latency floor of batch-1 decoding: every weight byte streams from memory once
    per token, t >= model bytes / beta_mem (line 2440: 141 GB / 2.04 TB/s; line 2472: 350 GB /
    3.35 TB/s > 100 ms). The roofline's memory term (Ch. 28 Eq. 28.2) with F/R negligible."""
    q = magnitude("model_bytes", model_bytes, "byte", gt=0)
    b = magnitude("beta_mem", beta_mem, "byte/s", gt=0)
    return out(q / b, "s").to(_u("ms"))


def headroom(capacity, used):
    """Capacity left: capacity - used (negative = does not fit), e.g. 80 GB HBM - 112.5 GB."""
    c = magnitude("capacity", capacity, "byte", ge=0)
    u = magnitude("used", used, "byte", ge=0)
    return out(c - u, "byte").to(_u("GB"))
