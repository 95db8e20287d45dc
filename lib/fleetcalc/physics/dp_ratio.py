"""Data-parallel communication over compute at a fixed number of tokens per GPU.

Vol. 2 Ch. 3 §3.4 (seed 001, lines 2711-2734) times one data-parallel step of a 1.5B model on
1,024 GPUs, then keeps the *compute* time (about 101 ms) while growing the model to 70B, so the
ring AllReduce of the 280 GB gradient looks about a hundred times longer than the compute. If
instead each GPU keeps its share of the batch, D tokens per step, both sides grow with the
parameter count P and the ratio hardly moves. The formulas, with the ring AllReduce of Ch. 28
Eq. 28.12 and the 6 P D training cost (:func:`fleetcalc.physics.scaling_laws.training_flops`)::

    T_compute = 6 P D / (mfu x R_peak)
    T_comm    = 2 (N - 1) / N x s P / beta  +  2 (N - 1) alpha
    T_comm / T_compute = [2 (N - 1) / N x s / beta] / [6 D / (mfu x R_peak)]      (bandwidth part)
                       + 2 (N - 1) alpha x mfu x R_peak / (6 P D)                   (start-up part)

The bandwidth part has no P in it; the start-up part shrinks as 1/P. ``s`` is bytes per
gradient value (4 for FP32), ``N`` the data-parallel GPUs, ``alpha`` and ``beta`` the α-β link
of Eq. 28.10 (β one-way, byte/s), ``R_peak`` the dense peak FLOP/s of one GPU and ``mfu`` the
share of it the step achieves. No overlap is assumed (the book's step 3, line 2726).
"""
from __future__ import annotations

from fleetcalc.core.calculator import calculator, fraction, num, qty, whole
from fleetcalc.core.equation import eq
from fleetcalc.physics import collectives, memory, scaling_laws

__all__ = ["dp_step_times", "dp_comm_compute_ratio", "dp_ratio_large_model_limit", "tokens_for_compute"]

_P = num(gt=0, doc="parameters (a plain count)")
_TOKENS = qty("token", gt=0, doc="tokens per GPU per step, D")
_N = whole(ge=2, doc="data-parallel GPUs")
_S_GRAD = qty("byte", gt=0, doc="bytes per gradient value")
_ALPHA = qty("s", ge=0, doc="start-up time of one message")
_BETA = qty("byte/s", gt=0, doc="one-way link rate")
_R_PEAK = qty("FLOP/s", gt=0, doc="dense peak of one GPU")
_MFU = fraction(open_low=True, doc="share of the peak the step achieves")

_REF = "Vol. 2 §3.4, the α–β model (when the ring AllReduce becomes the bottleneck)"
_RING = "Vol. 2 §3.4, the ring cost model (Ch. 28 §28.5, Eq. 28.12) over 6PD / (MFU R_peak), as P grows"
_SYMBOLS = {"tokens_per_gpu": "D", "s_grad": "s", "mfu": r"\mathrm{MFU}", "T_compute": r"T_{\mathrm{compute}}",
            "T_comm": r"T_{\mathrm{ring}}", "M": "M"}
# rho is the notation's communication-to-compute ratio (T_compute here is already one GPU's share);
# the step's two times, as the book writes them: M = s P gradient bytes on the ring (line 2723)
_TIMES = [("T_compute", "6*P*tokens_per_gpu/(mfu*R_peak)"), ("M", "s_grad*P"),
          ("T_comm", "2*(N - 1)/N * (M/beta) + 2*(N - 1)*alpha")]


def _compute_time(P, tokens, R_peak, mfu):
    """T_compute = 6 P D / (mfu x R_peak) in s, the FLOPs from :func:`scaling_laws.training_flops`."""
    return scaling_laws.training_flops.kernel(P, tokens) / (mfu * R_peak)


@calculator(returns="token", P=_P, T_compute=qty("s", gt=0, doc="compute time per step"), R_peak=_R_PEAK, mfu=_MFU,
            equation=eq("D", "T_compute*mfu*R_peak/(6*P)", ref=_REF, symbols=_SYMBOLS))
def tokens_for_compute(P, T_compute, R_peak, mfu):
    """Tokens per GPU per step that fill ``T_compute``: D = T_compute x mfu x R_peak / (6 P).
    At 1.5B, 101.1 ms, 989 TFLOP/s and 50 % this is the book's 5.00e13 FLOP / (6 x 1.5e9) = 5,556
    tokens (line 2717)."""
    return T_compute * mfu * R_peak / scaling_laws.training_flops.kernel(P, 1.0)


@calculator(returns={"compute": "s", "comm": "s", "ratio": ""}, P=_P, tokens_per_gpu=_TOKENS, N=_N,
            s_grad=_S_GRAD, alpha=_ALPHA, beta=_BETA, R_peak=_R_PEAK, mfu=_MFU,
            equation={"compute": eq(r"T_{\mathrm{compute}}", _TIMES[0][1], ref=_REF, symbols=_SYMBOLS),
                      "comm": eq(r"T_{\mathrm{ring}}", _TIMES[2][1], where=_TIMES[1:2], ref=_REF, symbols=_SYMBOLS),
                      "ratio": eq(r"\rho", "T_comm/T_compute", where=_TIMES,
                                  ref=_REF, symbols=_SYMBOLS)})
def dp_step_times(P, tokens_per_gpu, N, s_grad, alpha, beta, R_peak, mfu):
    """Compute and ring-AllReduce time of one data-parallel step: dict with ``compute`` (6 P D /
    (mfu R_peak)), ``comm`` (Eq. 28.12 on the s P gradient bytes) and ``ratio`` (comm / compute)."""
    t_compute = _compute_time(P, tokens_per_gpu, R_peak, mfu)
    grad = memory.gradient_memory.kernel(P, s_grad)                          # byte
    t_comm = collectives.ring_allreduce_time.kernel(N, grad, alpha, beta)
    return {"compute": t_compute, "comm": t_comm, "ratio": t_comm / t_compute}


@calculator(returns="", P=_P, tokens_per_gpu=_TOKENS, N=_N, s_grad=_S_GRAD, alpha=_ALPHA, beta=_BETA,
            R_peak=_R_PEAK, mfu=_MFU,
            equation=eq(r"\rho", "T_comm/T_compute", where=_TIMES,
                        ref=_REF, symbols=_SYMBOLS))
def dp_comm_compute_ratio(P, tokens_per_gpu, N, s_grad, alpha, beta, R_peak, mfu):
    """T_comm / T_compute of a data-parallel step at a fixed ``tokens_per_gpu`` (the module formula)."""
    return dp_step_times.kernel(P, tokens_per_gpu, N, s_grad, alpha, beta, R_peak, mfu)["ratio"]


@calculator(returns="", tokens_per_gpu=_TOKENS, N=_N, s_grad=_S_GRAD, beta=_BETA, R_peak=_R_PEAK, mfu=_MFU,
            equation=eq(r"\lim_{P \to \infty} \rho",
                        "(2*(N - 1)/N * (s_grad/beta)) / (6*tokens_per_gpu/(mfu*R_peak))", ref=_RING,
                        symbols=_SYMBOLS))
def dp_ratio_large_model_limit(tokens_per_gpu, N, s_grad, beta, R_peak, mfu):
    """The bandwidth part of the ratio, which the ratio approaches as P grows (α's share -> 0):
    [2 (N-1)/N x s / beta] / [6 D / (mfu x R_peak)]. It contains no parameter count."""
    per_param_comm = collectives.ring_allreduce_terms.kernel(N, s_grad, 0.0, beta)["bandwidth"]  # s per parameter
    per_param_compute = _compute_time(1.0, tokens_per_gpu, R_peak, mfu)                            # s per parameter
    return per_param_comm / per_param_compute
