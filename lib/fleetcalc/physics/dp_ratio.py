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

from fleetcalc.physics import collectives, memory, scaling_laws
from fleetcalc.core.units import Q_
from fleetcalc.core.validate import magnitude, out

__all__ = ["dp_step_times", "dp_comm_compute_ratio", "dp_ratio_large_model_limit", "tokens_for_compute"]


def _mfu(mfu):
    return magnitude("mfu", mfu, "", gt=0, le=1)


def tokens_for_compute(P, T_compute, R_peak, mfu):
    """Tokens per GPU per step that fill ``T_compute``: D = T_compute x mfu x R_peak / (6 P).
    At 1.5B, 101.1 ms, 989 TFLOP/s and 50 % this is the book's 5.00e13 FLOP / (6 x 1.5e9) = 5,556
    tokens (line 2717)."""
    p = memory._params("P", P)
    t = magnitude("T_compute", T_compute, "s", gt=0)
    r = magnitude("R_peak", R_peak, "FLOP/s", gt=0)
    return out(t * _mfu(mfu) * r / (6.0 * p), "token")


def dp_step_times(P, tokens_per_gpu, N, s_grad, alpha, beta, R_peak, mfu):
    """Compute and ring-AllReduce time of one data-parallel step: dict with ``compute`` (6 P D /
    (mfu R_peak)), ``comm`` (Eq. 28.12 on the s P gradient bytes) and ``ratio`` (comm / compute)."""
    # validate under this function's own parameter names before delegating
    memory._params("P", P)
    scaling_laws._amount("tokens_per_gpu", tokens_per_gpu, "token", gt=0)
    magnitude("N", N, "", ge=2, integer=True)
    magnitude("s_grad", s_grad, "byte", gt=0)
    magnitude("alpha", alpha, "s", ge=0)
    magnitude("beta", beta, "byte/s", gt=0)
    r = magnitude("R_peak", R_peak, "FLOP/s", gt=0)
    f = scaling_laws.training_flops(P, tokens_per_gpu)
    t_compute = out(f.to("FLOP").magnitude / (_mfu(mfu) * r), "s")
    grad = memory.gradient_memory(P, s_grad)
    t_comm = collectives.ring_allreduce_time(N, grad, alpha, beta)
    return {"compute": t_compute, "comm": t_comm, "ratio": (t_comm / t_compute).to("")}


def dp_comm_compute_ratio(P, tokens_per_gpu, N, s_grad, alpha, beta, R_peak, mfu):
    """T_comm / T_compute of a data-parallel step at a fixed ``tokens_per_gpu`` (the module formula)."""
    return dp_step_times(P, tokens_per_gpu, N, s_grad, alpha, beta, R_peak, mfu)["ratio"]


def dp_ratio_large_model_limit(tokens_per_gpu, N, s_grad, beta, R_peak, mfu):
    """The bandwidth part of the ratio, which the ratio approaches as P grows (α's share -> 0):
    [2 (N-1)/N x s / beta] / [6 D / (mfu x R_peak)]. It contains no parameter count."""
    d = scaling_laws._amount("tokens_per_gpu", tokens_per_gpu, "token", gt=0)
    n = magnitude("N", N, "", ge=2, integer=True)
    s = magnitude("s_grad", s_grad, "byte", gt=0)
    b = magnitude("beta", beta, "byte/s", gt=0)
    r = magnitude("R_peak", R_peak, "FLOP/s", gt=0)
    per_param_comm = 2.0 * (n - 1) / n * s / b          # s per parameter
    per_param_compute = 6.0 * d / (_mfu(mfu) * r)      # s per parameter
    return Q_(per_param_comm / per_param_compute, "")
