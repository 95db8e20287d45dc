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

import numpy as np

from fleetcalc.core.calculator import WHOLE, ceil_count, amount, calculator, choice, qty, whole
from fleetcalc.core.equation import eq, no_equation
from fleetcalc.physics import links

__all__ = [
    "PRECISION_BYTES", "OPTIMIZER_BYTES", "weights_memory", "gradient_memory", "optimizer_memory",
    "training_state", "activation_memory", "recompute_flops_overhead", "per_gpu_budget",
    "units_needed", "decode_time_floor", "headroom",
]

#: Bytes per value of common precisions (labels for dropdowns).
PRECISION_BYTES = {"FP32": 4.0, "FP16 / BF16": 2.0, "FP8 / INT8": 1.0, "INT4": 0.5}

#: Optimizer bytes per parameter, beyond the weights and gradients.
OPTIMIZER_BYTES = {
    "Adam: m, v in FP32 (book, Table 2.10)": 8.0,
    "Adam + FP32 master weights (ZeRO's K = 12)": 12.0,
    "SGD + momentum in FP32": 4.0,
    "plain SGD (no state)": 0.0,
}


#: The declaration of a parameter count, shared with :mod:`fleetcalc.physics.inference`.
PARAMETER_COUNT = amount("param", doc="model parameters")
_RECOMPUTE = ("none", "selective", "full")
_TABLE = "Vol. 2 §2.4, node memory partitioning, Table 2.10"
_BUDGET_REF = "Vol. 2 §2.4, node memory partitioning and the memory budget exercise"
# LaTeX of the memory symbols (the book writes memory footprints as M, e.g. M_KV)
_M = {"weights": r"M_{\mathrm{w}}", "gradients": r"M_{\mathrm{g}}", "optimizer": r"M_{\mathrm{opt}}",
      "total": r"M_{\mathrm{total}}"}
# How many ways each component of the model state is split: t x pp by tensor and pipeline
# parallelism, and by dp once the ZeRO stage z reaches it (1: optimizer, 2: gradients, 3: weights).
_SPLIT = [("k_w", "t*pp*(dp if zero >= 3 else 1)"), ("k_g", "t*pp*(dp if zero >= 2 else 1)"),
          ("k_opt", "t*pp*(dp if zero >= 1 else 1)")]
_IN_HBM = [("W", "P*s_w/k_w"), ("G", "0 if offload_gradients else P*s_g/k_g"),
           ("O", "0 if offload_optimizer else P*(s_opt + s_master)/k_opt")]
_BUDGET_SYMBOLS = {"pp": "p", "dp": "d", "zero": "z", "offload_optimizer": r"\mathrm{offload}_{\mathrm{opt}}",
                   "offload_gradients": r"\mathrm{offload}_{\mathrm{g}}", "activations": r"M_{\mathrm{act}}",
                   "buffers": r"M_{\mathrm{buf}}", "W": _M["weights"], "G": _M["gradients"], "O": _M["optimizer"],
                   "k_w": r"k_{\mathrm{w}}", "k_g": r"k_{\mathrm{g}}", "k_opt": r"k_{\mathrm{opt}}"}


@calculator(returns="GB", P=PARAMETER_COUNT, s_w=qty("byte", gt=0, doc="bytes per weight"),
            equation=eq(_M["weights"], "P*s_w", ref=_TABLE))
def weights_memory(P, s_w):
    """Weight bytes = P x s_w (Table 2.10: 175e9 x 2 B = 350 GB)."""
    return P * s_w


@calculator(returns="GB", P=PARAMETER_COUNT, s_g=qty("byte", gt=0, doc="bytes per gradient value"),
            equation=eq(_M["gradients"], "P*s_g", ref=_TABLE))
def gradient_memory(P, s_g):
    """Gradient bytes = P x s_g (Table 2.10: 175e9 x 2 B = 350 GB)."""
    return P * s_g


@calculator(returns="GB", P=PARAMETER_COUNT, s_opt=qty("byte", ge=0, doc="optimizer bytes per parameter"),
            s_master=qty("byte", ge=0, doc="FP32 master copy per parameter (4 B), not in Table 2.10"),
            equation=eq(_M["optimizer"], "P*(s_opt + s_master)", ref=_TABLE))
def optimizer_memory(P, s_opt, s_master=0.0):
    """Optimizer bytes = P x (s_opt + s_master) (line 1944: 175e9 x 2 x 4 B = 1,400 GB for Adam's
    m and v in FP32; an FP32 master copy adds P x 4 B = 700 GB that Table 2.10 leaves out)."""
    return P * (s_opt + s_master)


_STATE = dict(P=PARAMETER_COUNT, s_w=weights_memory.params["s_w"], s_g=gradient_memory.params["s_g"],
              s_opt=optimizer_memory.params["s_opt"], s_master=optimizer_memory.params["s_master"])


@calculator(returns={"weights": "GB", "gradients": "GB", "optimizer": "GB", "total": "GB"}, **_STATE,
            equation={"weights": eq(_M["weights"], "P*s_w", ref=_TABLE),
                      "gradients": eq(_M["gradients"], "P*s_g", ref=_TABLE),
                      "optimizer": eq(_M["optimizer"], "P*(s_opt + s_master)", ref=_TABLE),
                      "total": eq(_M["total"], "P*s_w + P*s_g + P*(s_opt + s_master)", ref=_TABLE)})
def training_state(P, s_w, s_g, s_opt, s_master=0.0):
    """Whole-model training state (Table 2.10 without activations): a dict with ``weights``,
    ``gradients``, ``optimizer`` and ``total`` (line 1944: 350 + 350 + 1,400 = 2,100 GB)."""
    w = weights_memory.kernel(P, s_w)
    g = gradient_memory.kernel(P, s_g)
    o = optimizer_memory.kernel(P, s_opt, s_master)
    return {"weights": w, "gradients": g, "optimizer": o, "total": w + g + o}


@calculator(returns="GB", s=whole(doc="sequence length (tokens)"), b=whole(doc="micro-batch size"),
            h=whole(doc="hidden size"), a=whole(doc="attention heads"), L=whole(doc="layers"),
            t=whole(doc="tensor-parallel degree"),
            sequence_parallel=choice(False, True, doc="sequence parallelism on"),
            recompute=choice(*_RECOMPUTE, doc="activation recomputation"),
            equation=no_equation("needs a comparison with a named choice (recompute = 'none', 'selective' or "
                                 "'full') in an expression; Korthikanti et al. 2022, Eq. 1-2, not the book's"))
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
    sbh = s * b * h
    attn = 5.0 * a * s / h
    if recompute == "full":
        per_layer = 2.0 * sbh / (t if sequence_parallel else 1.0)
    else:
        extra = attn if recompute == "none" else 0.0
        if sequence_parallel:
            per_layer = sbh * (34.0 + extra) / t
        else:
            per_layer = sbh * (10.0 + 24.0 / t + extra / t)
    return per_layer * L


@calculator(returns="", recompute=choice(*_RECOMPUTE, doc="activation recomputation"),
            equation=no_equation("a look-up by recomputation mode: full re-runs the forward pass, 2PD on 6PD"))
def recompute_flops_overhead(recompute="full"):
    """Extra FLOPs of activation recomputation relative to forward + backward: full recompute
    re-runs the forward pass, 2PD on top of 6PD = 1/3 (line 2128: "about 33 % more FLOPs");
    ``selective`` is taken as ~0 (a few % in Korthikanti et al. 2022), ``none`` as 0."""
    return {"none": 0.0, "selective": 0.0, "full": 2.0 / 6.0}[recompute]


_BUDGET = ("weights", "gradients", "optimizer", "activations", "buffers", "hbm", "host")


@calculator(returns={k: "GB" for k in _BUDGET}, **_STATE,
            t=whole(doc="tensor-parallel degree"), pp=whole(doc="pipeline stages"),
            dp=whole(doc="data-parallel replicas"), zero=whole(ge=0, le=3, doc="ZeRO stage"),
            offload_optimizer=choice(False, True, doc="optimizer state in host DRAM"),
            offload_gradients=choice(False, True, doc="gradients in host DRAM"),
            activations=qty("GB", ge=0, doc="per-GPU activation bytes"),
            buffers=qty("GB", ge=0, doc="per-GPU communication buffers and workspace"),
            equation={
                "weights": eq(_M["weights"], "P*s_w/k_w", where=_SPLIT[:1], ref=_BUDGET_REF,
                              symbols=_BUDGET_SYMBOLS),
                "gradients": eq(_M["gradients"], "0 if offload_gradients else P*s_g/k_g", where=_SPLIT[1:2],
                                ref=_BUDGET_REF, symbols=_BUDGET_SYMBOLS),
                "optimizer": eq(_M["optimizer"], "0 if offload_optimizer else P*(s_opt + s_master)/k_opt",
                                where=_SPLIT[2:], ref=_BUDGET_REF, symbols=_BUDGET_SYMBOLS),
                "hbm": eq(r"M_{\mathrm{HBM}}", "W + G + O + activations + buffers", where=_SPLIT + _IN_HBM,
                          ref=_BUDGET_REF, symbols=_BUDGET_SYMBOLS),
                "host": eq(r"M_{\mathrm{host}}", "(P*(s_opt + s_master)/k_opt if offload_optimizer else 0) + "
                           "(P*s_g/k_g if offload_gradients else 0)", where=_SPLIT[1:], ref=_BUDGET_REF,
                           symbols=_BUDGET_SYMBOLS),
            })
def per_gpu_budget(P, s_w, s_g, s_opt, s_master=0.0, t=1, pp=1, dp=1, zero=0,
                   offload_optimizer=False, offload_gradients=False, activations=0.0, buffers=0.0):
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
    model = t * pp
    w = weights_memory.kernel(P, s_w) / model
    g = gradient_memory.kernel(P, s_g) / model
    o = optimizer_memory.kernel(P, s_opt, s_master) / model
    o = np.where(zero >= 1, o / dp, o)
    g = np.where(zero >= 2, g / dp, g)
    w = np.where(zero >= 3, w / dp, w)
    host = np.zeros_like(np.asarray(w, dtype=float))
    if offload_optimizer:
        host = host + o
        o = o * 0.0
    if offload_gradients:
        host = host + g
        g = g * 0.0
    hbm = w + g + o + activations + buffers
    return {"weights": w, "gradients": g, "optimizer": o, "activations": activations + 0.0 * w,
            "buffers": buffers + 0.0 * w, "hbm": hbm, "host": host}


@calculator(returns="", total=qty("byte", ge=0, doc="bytes to hold"), per_unit=qty("byte", gt=0, doc="bytes one unit holds"),
            equation=eq("n", "ceil_count(x)", where=[("x", "total/per_unit")],
                        ref="Vol. 2 §2.4, the node (350 GB on 80 GB GPUs needs 5)",
                        symbols={"total": "M", "per_unit": r"M_{\mathrm{unit}}"},
                        note="the 1e-12 term keeps a whole quotient that float rounding nudged up from "
                             "counting one unit more"))
def units_needed(total, per_unit):
    """Least whole number of units that hold ``total``: ceil(total / per_unit)
    (line 1927: 350 GB on 80 GB GPUs needs 5; line 1940: 350 GB on 16-24 GB HBM stacks needs 15-22)."""
    return ceil_count(total / per_unit)


@calculator(returns="ms", model_bytes=qty("byte", gt=0, doc="weight bytes streamed per token"),
            beta_mem=qty("byte/s", gt=0, doc="memory bandwidth"),
            equation=eq(r"T_{\mathrm{mem}}", "model_bytes/beta_mem",
                        ref="Vol. 2 §2.3, memory bandwidth and token latency",
                        symbols={"model_bytes": r"D_{\mathrm{vol}}", "beta_mem": r"\mathrm{BW}"}))
def decode_time_floor(model_bytes, beta_mem):
    """Per-token latency floor of batch-1 decoding: every weight byte streams from memory once
    per token, t >= model bytes / beta_mem (line 2440: 141 GB / 2.04 TB/s; line 2472: 350 GB /
    3.35 TB/s > 100 ms). The roofline's memory term (Ch. 28 Eq. 28.2) with F/R negligible: the
    weights' transfer time through the memory bus (:func:`fleetcalc.physics.links.transfer_time`)."""
    return links.transfer_time.kernel(model_bytes, beta_mem)


@calculator(returns="GB", capacity=qty("GB", ge=0, doc="memory available"), used=qty("GB", ge=0, doc="memory needed"),
            equation=eq(r"M_{\mathrm{free}}", "capacity - used", ref=_BUDGET_REF,
                        symbols={"capacity": r"M_{\mathrm{HBM}}", "used": r"M_{\mathrm{used}}"}))
def headroom(capacity, used):
    """Capacity left: capacity - used (negative = does not fit), e.g. 80 GB HBM - 112.5 GB."""
    return capacity - used
