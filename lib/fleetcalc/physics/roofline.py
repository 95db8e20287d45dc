"""The roofline model of Ch. 28 §28.3 (Eq. 28.2-28.7).

Symbols follow §28.1: F operations (FLOP), Q bytes moved across the named memory level,
I = F/Q (FLOP/byte), R_peak the peak rate matching the precision (FLOP/s), beta_mem the
effective memory bandwidth (byte/s). For Y = XW with X in R^{B x d}, W in R^{d x n} and s bytes
per element (Example 27.1).
"""
from __future__ import annotations

import numpy as np

from fleetcalc.core.calculator import WHOLE, ceil_count, calculator, qty, whole
from fleetcalc.core.equation import eq, no_equation
from fleetcalc.core.validate import InputError

__all__ = [
    "arithmetic_intensity", "time_lower_bound", "attainable_rate", "ridge_point", "bound_kind",
    "matmul_flops", "matmul_bytes", "matmul_intensity", "matmul_intensity_weight_dominated",
    "min_batch_for_intensity", "max_matmul_intensity",
]

# The parameters every roofline calculator shares, declared once.
_R_PEAK = qty("FLOP/s", gt=0, doc="peak rate at the precision used")
_BETA_MEM = qty("byte/s", gt=0, doc="effective memory bandwidth")
_I = qty("FLOP/byte", ge=0, doc="arithmetic intensity F / Q")
_S = qty("byte", gt=0, doc="bytes per element")
_B = whole(doc="rows of X (the batch)")
_D = whole(doc="inner dimension (columns of X, rows of W)")
_N = whole(doc="columns of W")


@calculator(returns="FLOP/byte", F=qty("FLOP", ge=0, doc="operations"),
            Q=qty("byte", gt=0, doc="bytes moved across the memory level"),
            equation=eq("I", "F/Q", ref="Ch. 28 §28.3, Eq. 28.2"))
def arithmetic_intensity(F, Q):
    """I = F / Q (FLOP/byte), Ch. 28 Eq. 28.2."""
    return F / Q


@calculator(returns="s", F=qty("FLOP", ge=0, doc="operations"),
            Q=qty("byte", ge=0, doc="bytes moved across the memory level"),
            R_peak=_R_PEAK, beta_mem=_BETA_MEM,
            equation=eq(r"t_{\min}", "max(F/R_peak, Q/beta_mem)", ref="Ch. 28 §28.3, Eq. 28.2"))
def time_lower_bound(F, Q, R_peak, beta_mem):
    """t >= max(F / R_peak, Q / beta_mem), Ch. 28 Eq. 28.2 (compute and memory fully overlapped)."""
    return np.maximum(F / R_peak, Q / beta_mem)


@calculator(returns="FLOP/s", I=_I, R_peak=_R_PEAK, beta_mem=_BETA_MEM,
            equation=eq(r"R_{\max}", "min(R_peak, I*beta_mem)", ref="Ch. 28 §28.3, Eq. 28.2; Vol. 2 §2.3.2, Eq. 2.1"))
def attainable_rate(I, R_peak, beta_mem):
    """R <= min(R_peak, I * beta_mem), Ch. 28 Eq. 28.2."""
    return np.minimum(R_peak, I * beta_mem)


@calculator(returns="FLOP/byte", R_peak=_R_PEAK, beta_mem=_BETA_MEM,
            equation=eq(r"I_*", "R_peak/beta_mem", ref="Ch. 28 §28.3, Eq. 28.3"))
def ridge_point(R_peak, beta_mem):
    """I* = R_peak / beta_mem (FLOP/byte), Ch. 28 Eq. 28.3."""
    return R_peak / beta_mem


@calculator(returns=None, I=_I, R_peak=_R_PEAK, beta_mem=_BETA_MEM,
            equation=no_equation("a classification into named regimes: I against the ridge point I_* "
                                 "of Eq. 28.3 (ridge_point shows the formula)"))
def bound_kind(I, R_peak, beta_mem):
    """'memory-bound' when I < I*, 'compute-bound' when I > I*, 'balanced' at the ridge (Eq. 28.3).

    Works on arrays too (returns an array of labels).
    """
    star = ridge_point.kernel(R_peak, beta_mem)
    labels = np.where(np.isclose(I, star, rtol=1e-12), "balanced",
                      np.where(np.asarray(I) < star, "memory-bound", "compute-bound"))
    return str(labels) if labels.ndim == 0 else labels


@calculator(returns="FLOP", B=_B, d=_D, n=_N, equation=eq("F", "2*B*d*n", ref="Ch. 28 §28.3, Eq. 28.4"))
def matmul_flops(B, d, n):
    """F ~= 2 B d n for Y = XW (Ch. 28 Eq. 28.4)."""
    return 2.0 * B * d * n


@calculator(returns="byte", B=_B, d=_D, n=_N, s=_S,
            equation=eq(r"Q_{\min}", "s*(B*d + d*n + B*n)", ref="Ch. 28 §28.3, Eq. 28.4"))
def matmul_bytes(B, d, n, s):
    """Q_min = s (B d + d n + B n): X and W read once, Y written once (Ch. 28 Eq. 28.4)."""
    return s * (B * d + d * n + B * n)


@calculator(returns="FLOP/byte", B=_B, d=_D, n=_N, s=_S,
            equation=eq(r"I_{\mathrm{ideal}}", "2*B*d*n/(s*(B*d + d*n + B*n))", ref="Ch. 28 §28.3, Eq. 28.4"))
def matmul_intensity(B, d, n, s):
    """I_ideal = 2 B d n / (s (B d + d n + B n)) (Ch. 28 Eq. 28.4; Eq. 28.6/28.7 at d = n = 4096, s = 2)."""
    return arithmetic_intensity.kernel(matmul_flops.kernel(B, d, n), matmul_bytes.kernel(B, d, n, s))


@calculator(returns="FLOP/byte", B=_B, s=_S,
            equation=eq(r"I_{\mathrm{ideal}}", "2*B/s", ref="Ch. 28 §28.3, Eq. 28.5"))
def matmul_intensity_weight_dominated(B, s):
    """I_ideal ~= 2B / s when d = n >> B (weights dominate the traffic), Ch. 28 Eq. 28.5."""
    return 2.0 * B / s


@calculator(returns="FLOP/byte", d=_D, n=_N, s=_S,
            equation=eq(r"I_{\mathrm{ideal}}", "2*d*n/(s*(d + n))", ref="Ch. 28 §28.3 (Eq. 28.4 as B grows without bound)"))
def max_matmul_intensity(d, n, s):
    """The limit of Eq. 28.4 as B grows without bound: 2 d n / (s (d + n))."""
    return 2.0 * d * n / (s * (d + n))


@calculator(returns=WHOLE, I_target=qty("FLOP/byte", gt=0, doc="intensity to reach"), d=_D, n=_N, s=_S,
            equation=eq(r"B_{\min}", "ceil_count(B_real)",
                        where=[("B_real", "I_target*s*d*n/(2*d*n - I_target*s*(d + n))")],
                        ref="Ch. 28 §28.3 (Eq. 28.4 solved for B; Exercise 28.2)"))
def min_batch_for_intensity(I_target, d, n, s):
    """Least whole B with I_ideal(B) >= I_target (Eq. 28.4 solved for B; Exercise 28.2).

    2Bdn >= I s (Bd + dn + Bn)  =>  B >= I s d n / (2 d n - I s (d + n)).
    Raises InputError when I_target is at or above the B -> infinity limit 2dn / (s(d+n)).
    """
    denom = 2.0 * d * n - I_target * s * (d + n)
    if np.any(denom <= 0):
        limit = max_matmul_intensity.kernel(d, n, s)
        raise InputError(
            f"I_target must be < {np.min(limit):.6g} FLOP/byte (the B -> infinity limit 2dn/(s(d+n))); "
            f"got {I_target}"
        )
    return ceil_count(I_target * s * d * n / denom)
