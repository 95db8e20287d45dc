"""Inside one accelerator, Ch. 28 §28.2: resident blocks per SM (Eq. 28.1), occupancy, and the
padding that matrix units impose (2 m~ k~ n~ vs 2 m k n).

Names follow the book: ``R_SM`` registers per SM, ``r`` registers per thread, ``t`` threads per
block, ``H_SM`` shared memory per SM (byte), ``h`` shared memory per block (byte; 0 drops the
term), ``T_SM`` most resident threads, ``n_arch`` the hardware block limit. Allocation
granularity is ignored, so Eq. 28.1 is an upper bound (the book says so).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from fleetcalc.core.validate import InputError, count, magnitude, out
from fleetcalc.physics.roofline import matmul_flops

__all__ = [
    "resident_block_limits", "resident_blocks", "ResidentBlocks", "occupancy", "warps_per_block",
    "pad_to", "padded_matmul_flops", "padding_efficiency",
]

LIMIT_NAMES = ("n_arch", "registers", "shared_memory", "threads")


def resident_block_limits(R_SM, r, t, H_SM, h, T_SM, n_arch):
    """Each term of Eq. 28.1 (Ch. 28): n_arch, floor(R_SM/(r t)), floor(H_SM/h), floor(T_SM/t).

    Returns a dict keyed by LIMIT_NAMES; ``shared_memory`` is absent when h = 0 (no such limit).
    """
    RR = count("R_SM", R_SM)
    rr = count("r", r)
    tt = count("t", t)
    HH = magnitude("H_SM", H_SM, "byte", gt=0)
    hh = magnitude("h", h, "byte", ge=0)
    TT = count("T_SM", T_SM)
    na = count("n_arch", n_arch)
    if np.any(tt > TT):
        raise InputError(f"t must be <= T_SM = {TT} (a block larger than the SM's thread limit never fits); got {t}")
    limits = {
        "n_arch": np.asarray(na) + 0 * tt,
        "registers": np.floor(RR / (rr * tt)),
        "threads": np.floor(TT / tt),
    }
    if np.all(hh == 0):
        pass
    elif np.any(hh == 0):
        raise InputError("h must be all zero or all positive within one call (h = 0 drops the term)")
    else:
        limits["shared_memory"] = np.floor(HH / hh + 1e-12)
    ordered = {k: limits[k] for k in LIMIT_NAMES if k in limits}
    return {k: (int(v) if np.ndim(v) == 0 else v.astype(int)) for k, v in ordered.items()}


@dataclass(frozen=True)
class ResidentBlocks:
    """Eq. 28.1's bound, every limit, and which limit(s) bind (ties list all)."""
    bound: int
    limits: dict
    binding: tuple

    def __int__(self):
        return self.bound


def resident_blocks(R_SM, r, t, H_SM, h, T_SM, n_arch) -> ResidentBlocks:
    """n_block <= min(n_arch, floor(R_SM/(r t)), floor(H_SM/h), floor(T_SM/t)), Ch. 28 Eq. 28.1,
    with the binding limit(s) named (scalar inputs)."""
    limits = resident_block_limits(R_SM, r, t, H_SM, h, T_SM, n_arch)
    if any(np.ndim(v) for v in limits.values()):
        raise InputError("resident_blocks takes scalar inputs; use resident_block_limits for arrays")
    bound = min(limits.values())
    return ResidentBlocks(bound=bound, limits=limits, binding=tuple(k for k, v in limits.items() if v == bound))


def warps_per_block(t, warp_size=32):
    """ceil(t / warp size) warps per block (a partial warp still occupies a warp slot)."""
    tt = count("t", t)
    w = count("warp_size", warp_size)
    c = np.ceil(tt / w)
    return int(c) if np.ndim(c) == 0 else c.astype(int)


def occupancy(blocks, t, T_SM, warp_size=32):
    """Occupancy = active resident warps / most resident warps = blocks ceil(t/32) / (T_SM/32)
    (Ch. 28 §28.2). High occupancy helps latency hiding; it does not guarantee speed."""
    b = count("blocks", blocks, ge=0)
    TT = count("T_SM", T_SM)
    w = count("warp_size", warp_size)
    active = b * np.ceil(count("t", t) / w)
    most = TT / w
    if np.any(active > most + 1e-9):
        raise InputError(f"blocks x warps per block ({np.max(active):g}) exceeds the SM's {most:g} warps")
    return out(active / most, "")


def pad_to(x, multiple):
    """Round a dimension up to the hardware tile: ceil(x / multiple) x multiple (§28.2)."""
    return _pad(count("x", x), count("multiple", multiple))


def _pad(xx, k):
    """pad_to on already-checked magnitudes."""
    c = np.ceil(xx / k) * k
    return int(c) if np.ndim(c) == 0 else c.astype(int)


def _padded_dims(m, k, n, tile_m, tile_k, tile_n):
    """Check every dimension and tile under its own name, then pad (so errors name m, tile_m, ...)."""
    dims = [count(name, v) for name, v in (("m", m), ("k", k), ("n", n))]
    tiles = [count(name, v) for name, v in (("tile_m", tile_m), ("tile_k", tile_k), ("tile_n", tile_n))]
    return [_pad(d, t) for d, t in zip(dims, tiles)]


def padded_matmul_flops(m, k, n, tile_m, tile_k, tile_n):
    """Work the hardware executes after padding to its tile: 2 m~ k~ n~ FLOP (Ch. 28 §28.2).
    Only 2 m k n of it is useful; reporting the padded count as throughput must say so."""
    mp, kp, np_ = _padded_dims(m, k, n, tile_m, tile_k, tile_n)
    return out(2.0 * mp * kp * np_, "FLOP")


def padding_efficiency(m, k, n, tile_m, tile_k, tile_n):
    """Useful share of executed FLOPs: m k n / (m~ k~ n~) (Ch. 28 §28.2)."""
    done = padded_matmul_flops(m, k, n, tile_m, tile_k, tile_n).magnitude
    useful = matmul_flops(m, k, n).magnitude  # roofline's Eq. 28.4 with B, d, n = m, k, n
    return out(useful / done, "")
