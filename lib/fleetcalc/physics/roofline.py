"""The roofline model of Ch. 28 §28.3 (Eq. 28.2-28.7).

Symbols follow §28.1: F operations (FLOP), Q bytes moved across the named memory level,
I = F/Q (FLOP/byte), R_peak the peak rate matching the precision (FLOP/s), beta_mem the
effective memory bandwidth (byte/s). For Y = XW with X in R^{B x d}, W in R^{d x n} and s bytes
per element (Example 27.1).
"""
from __future__ import annotations

import numpy as np

from fleetcalc.core.validate import InputError, count, magnitude, out

__all__ = [
    "arithmetic_intensity", "time_lower_bound", "attainable_rate", "ridge_point", "bound_kind",
    "matmul_flops", "matmul_bytes", "matmul_intensity", "matmul_intensity_weight_dominated",
    "min_batch_for_intensity", "max_matmul_intensity",
]


def arithmetic_intensity(F, Q):
    """I = F / Q (FLOP/byte), Ch. 28 Eq. 28.2."""
    f = magnitude("F", F, "FLOP", ge=0)
    q = magnitude("Q", Q, "byte", gt=0)
    return out(f / q, "FLOP/byte")


def time_lower_bound(F, Q, R_peak, beta_mem):
    """t >= max(F / R_peak, Q / beta_mem), Ch. 28 Eq. 28.2 (compute and memory fully overlapped)."""
    f = magnitude("F", F, "FLOP", ge=0)
    q = magnitude("Q", Q, "byte", ge=0)
    r = magnitude("R_peak", R_peak, "FLOP/s", gt=0)
    b = magnitude("beta_mem", beta_mem, "byte/s", gt=0)
    return out(np.maximum(f / r, q / b), "s")


def attainable_rate(I, R_peak, beta_mem):
    """R <= min(R_peak, I * beta_mem), Ch. 28 Eq. 28.2."""
    i = magnitude("I", I, "FLOP/byte", ge=0)
    r = magnitude("R_peak", R_peak, "FLOP/s", gt=0)
    b = magnitude("beta_mem", beta_mem, "byte/s", gt=0)
    return out(np.minimum(r, i * b), "FLOP/s")


def ridge_point(R_peak, beta_mem):
    """I* = R_peak / beta_mem (FLOP/byte), Ch. 28 Eq. 28.3."""
    r = magnitude("R_peak", R_peak, "FLOP/s", gt=0)
    b = magnitude("beta_mem", beta_mem, "byte/s", gt=0)
    return out(r / b, "FLOP/byte")


def bound_kind(I, R_peak, beta_mem):
    """'memory-bound' when I < I*, 'compute-bound' when I > I*, 'balanced' at the ridge (Eq. 28.3).

    Works on arrays too (returns an array of labels).
    """
    i = magnitude("I", I, "FLOP/byte", ge=0)
    star = ridge_point(R_peak, beta_mem).magnitude
    labels = np.where(np.isclose(i, star, rtol=1e-12), "balanced",
                      np.where(np.asarray(i) < star, "memory-bound", "compute-bound"))
    return str(labels) if labels.ndim == 0 else labels


def matmul_flops(B, d, n):
    """F ~= 2 B d n for Y = XW (Ch. 28 Eq. 28.4)."""
    b, dd, nn = count("B", B), count("d", d), count("n", n)
    return out(2.0 * b * dd * nn, "FLOP")


def matmul_bytes(B, d, n, s):
    """Q_min = s (B d + d n + B n): X and W read once, Y written once (Ch. 28 Eq. 28.4)."""
    b, dd, nn = count("B", B), count("d", d), count("n", n)
    ss = magnitude("s", s, "byte", gt=0)
    return out(ss * (b * dd + dd * nn + b * nn), "byte")


def matmul_intensity(B, d, n, s):
    """I_ideal = 2 B d n / (s (B d + d n + B n)) (Ch. 28 Eq. 28.4; Eq. 28.6/28.7 at d = n = 4096, s = 2)."""
    b, dd, nn = count("B", B), count("d", d), count("n", n)
    ss = magnitude("s", s, "byte", gt=0)
    return out(2.0 * b * dd * nn / (ss * (b * dd + dd * nn + b * nn)), "FLOP/byte")


def matmul_intensity_weight_dominated(B, s):
    """I_ideal ~= 2B / s when d = n >> B (weights dominate the traffic), Ch. 28 Eq. 28.5."""
    b = count("B", B)
    ss = magnitude("s", s, "byte", gt=0)
    return out(2.0 * b / ss, "FLOP/byte")


def max_matmul_intensity(d, n, s):
    """The limit of Eq. 28.4 as B grows without bound: 2 d n / (s (d + n))."""
    dd, nn = count("d", d), count("n", n)
    ss = magnitude("s", s, "byte", gt=0)
    return out(2.0 * dd * nn / (ss * (dd + nn)), "FLOP/byte")


def min_batch_for_intensity(I_target, d, n, s):
    """Least whole B with I_ideal(B) >= I_target (Eq. 28.4 solved for B; Exercise 28.2).

    2Bdn >= I s (Bd + dn + Bn)  =>  B >= I s d n / (2 d n - I s (d + n)).
    Raises InputError when I_target is at or above the B -> infinity limit 2dn / (s(d+n)).
    """
    it = magnitude("I_target", I_target, "FLOP/byte", gt=0)
    dd, nn = count("d", d), count("n", n)
    ss = magnitude("s", s, "byte", gt=0)
    denom = 2.0 * dd * nn - it * ss * (dd + nn)
    if np.any(denom <= 0):
        limit = 2.0 * dd * nn / (ss * (dd + nn))
        raise InputError(
            f"I_target must be < {np.min(limit):.6g} FLOP/byte (the B -> infinity limit 2dn/(s(d+n))); "
            f"got {I_target}"
        )
    b = it * ss * dd * nn / denom
    # guard against float noise just above an integer
    b_int = np.ceil(b - 1e-9 * np.maximum(b, 1.0))
    return int(b_int) if np.ndim(b_int) == 0 else b_int.astype(int)
