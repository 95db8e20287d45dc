"""Inside one accelerator, Ch. 28 §28.2: resident blocks per SM (Eq. 28.1), occupancy, and the
padding that matrix units impose (2 m~ k~ n~ vs 2 m k n).

Names follow the book: ``R_SM`` registers per SM, ``r`` registers per thread, ``t`` threads per
block, ``H_SM`` shared memory per SM (byte), ``h`` shared memory per block (byte; 0 drops the
term), ``T_SM`` most resident threads, ``n_arch`` the hardware block limit. Allocation
granularity is ignored, so Eq. 28.1 is an upper bound (the book says so).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from fleetcalc.core.calculator import WHOLE, ceil_count, calculator, num, one_value, qty, whole
from fleetcalc.core.equation import eq, no_equation
from fleetcalc.core.validate import InputError, as_count
from fleetcalc.physics.roofline import matmul_flops

__all__ = [
    "resident_block_limits", "resident_blocks", "ResidentBlocks", "occupancy", "warps_per_block",
    "pad_to", "padded_matmul_flops", "tile_intensity", "largest_square_tile", "padding_efficiency",
]

LIMIT_NAMES = ("n_arch", "registers", "shared_memory", "threads")

# Eq. 28.1's inputs, declared once for the two calculators that take them.
_EQ_28_1 = dict(
    R_SM=whole(doc="registers per SM"), r=whole(doc="registers per thread"), t=whole(doc="threads per block"),
    H_SM=qty("byte", gt=0, doc="shared memory per SM"),
    h=qty("byte", ge=0, doc="shared memory per block; 0 drops the term"),
    T_SM=whole(doc="most resident threads per SM"), n_arch=whole(doc="hardware limit on resident blocks"))
_WARP_SIZE = whole(doc="threads per warp")
_DIMS = dict(m=whole(doc="rows"), k=whole(doc="inner dimension"), n=whole(doc="columns"),
             tile_m=whole(doc="tile rows"), tile_k=whole(doc="tile inner dimension"), tile_n=whole(doc="tile columns"))
# Eq. 28.1 (a two-argument min, nested). h = 0 drops the shared-memory term (the book's rule): it
# is then n_arch, which never binds below n_arch itself.
_N_BLOCK = eq(r"n_{\mathrm{block}}", "min(n_arch, min(floor(R_SM/(r*t)), min(n_H, floor(T_SM/t))))",
              where=[("n_H", "floor(H_SM/h + 1e-12) if h > 0 else n_arch")], ref="Ch. 28 §28.2, Eq. 28.1", rel="≤")
# the padded dimensions m~, k~, n~ of §28.2
_PADDED = [("m_pad", "ceil(m/tile_m)*tile_m"), ("k_pad", "ceil(k/tile_k)*tile_k"), ("n_pad", "ceil(n/tile_n)*tile_n")]
_PADDED_SYMBOLS = {"m_pad": r"\widetilde m", "k_pad": r"\widetilde k", "n_pad": r"\widetilde n"}
_MULTIPLE = {"multiple": r"\mathrm{tile}"}


@calculator(returns=None, **_EQ_28_1,
            equation=no_equation("a table of Eq. 28.1's terms by name, the shared-memory term absent when "
                                 "h = 0; resident_blocks shows Eq. 28.1 itself"))
def resident_block_limits(R_SM, r, t, H_SM, h, T_SM, n_arch):
    """Each term of Eq. 28.1 (Ch. 28): n_arch, floor(R_SM/(r t)), floor(H_SM/h), floor(T_SM/t).

    Returns a dict keyed by LIMIT_NAMES; ``shared_memory`` is absent when h = 0 (no such limit).
    """
    if np.any(t > T_SM):
        raise InputError(f"t must be <= T_SM = {T_SM} (a block larger than the SM's thread limit never fits); got {t}")
    limits = {
        "n_arch": np.asarray(n_arch) + 0 * np.asarray(t),
        "registers": np.floor(R_SM / (r * t)),
        "threads": np.floor(T_SM / t),
    }
    if np.all(h == 0):
        pass
    elif np.any(h == 0):
        raise InputError("h must be all zero or all positive within one call (h = 0 drops the term)")
    else:
        limits["shared_memory"] = np.floor(H_SM / h + 1e-12)
    ordered = {k: limits[k] for k in LIMIT_NAMES if k in limits}
    return {k: as_count(v) for k, v in ordered.items()}


@dataclass(frozen=True)
class ResidentBlocks:
    """Eq. 28.1's bound, every limit, and which limit(s) bind (ties list all)."""
    bound: int
    limits: dict
    binding: tuple

    def __int__(self):
        return self.bound

    def __float__(self):
        return float(self.bound)


@calculator(returns=None, **{k: one_value(p, "it names the binding limit of one kernel; use resident_block_limits "
                                              "for arrays") for k, p in _EQ_28_1.items()},
            equation=_N_BLOCK)
def resident_blocks(R_SM, r, t, H_SM, h, T_SM, n_arch) -> ResidentBlocks:
    """n_block <= min(n_arch, floor(R_SM/(r t)), floor(H_SM/h), floor(T_SM/t)), Ch. 28 Eq. 28.1,
    with the binding limit(s) named (scalar inputs)."""
    limits = resident_block_limits.kernel(R_SM, r, t, H_SM, h, T_SM, n_arch)
    bound = min(limits.values())
    return ResidentBlocks(bound=bound, limits=limits, binding=tuple(k for k, v in limits.items() if v == bound))


@calculator(returns=WHOLE, t=whole(doc="threads per block"), warp_size=_WARP_SIZE,
            equation=eq(r"n_{\mathrm{warp}}", "ceil(t/warp_size)", symbols={"warp_size": "w"},
                        ref="Ch. 28 §28.2 (a warp is usually 32 threads)"))
def warps_per_block(t, warp_size=32):
    """ceil(t / warp size) warps per block (a partial warp still occupies a warp slot)."""
    return np.ceil(t / warp_size)


@calculator(returns="", blocks=whole(ge=0, doc="resident blocks"), t=whole(doc="threads per block"),
            T_SM=whole(doc="most resident threads per SM"), warp_size=_WARP_SIZE,
            equation=eq(r"\mathrm{occupancy}", "blocks*ceil(t/warp_size)/(T_SM/warp_size)",
                        symbols={"blocks": r"n_{\mathrm{block}}", "warp_size": "w"},
                        ref="Ch. 28 §28.2 (occupancy: active over most resident warps)"))
def occupancy(blocks, t, T_SM, warp_size=32):
    """Occupancy = active resident warps / most resident warps = blocks ceil(t/32) / (T_SM/32)
    (Ch. 28 §28.2). High occupancy helps latency hiding; it does not guarantee speed."""
    active = blocks * warps_per_block.kernel(t, warp_size)
    most = T_SM / warp_size
    if np.any(active > most + 1e-9):  # not a unit factor: float tolerance on a count of warps
        raise InputError(f"blocks x warps per block ({np.max(active):g}) exceeds the SM's {np.min(most):g} warps")
    return active / most


@calculator(returns=WHOLE, x=whole(doc="dimension"), multiple=whole(doc="hardware tile"),
            equation=eq(r"\widetilde x", "ceil(x/multiple)*multiple", symbols=_MULTIPLE,
                        ref="Ch. 28 §28.2 (padding to the matrix unit's tile)"))
def pad_to(x, multiple):
    """Round a dimension up to the hardware tile: ceil(x / multiple) x multiple (§28.2)."""
    return np.ceil(x / multiple) * multiple


@calculator(returns="FLOP", **_DIMS,
            equation=eq(r"\widetilde F", "2*m_pad*k_pad*n_pad", where=_PADDED, symbols=_PADDED_SYMBOLS,
                        ref="Ch. 28 §28.2 (2 m~ k~ n~ executed after padding)"))
def padded_matmul_flops(m, k, n, tile_m, tile_k, tile_n):
    """Work the hardware executes after padding to its tile: 2 m~ k~ n~ FLOP (Ch. 28 §28.2).
    Only 2 m k n of it is useful; reporting the padded count as throughput must say so."""
    return matmul_flops.kernel(pad_to.kernel(m, tile_m), pad_to.kernel(k, tile_k), pad_to.kernel(n, tile_n))


@calculator(returns="", **_DIMS,
            equation=eq(r"\eta_{\mathrm{pad}}", "m*k*n/(m_pad*k_pad*n_pad)", where=_PADDED, symbols=_PADDED_SYMBOLS,
                        ref="Ch. 28 §28.2 (2mkn useful of 2 m~ k~ n~ executed)"))
def padding_efficiency(m, k, n, tile_m, tile_k, tile_n):
    """Useful share of executed FLOPs: m k n / (m~ k~ n~) (Ch. 28 §28.2)."""
    useful = matmul_flops.kernel(m, k, n)  # roofline's Eq. 28.4 with B, d, n = m, k, n
    return useful / padded_matmul_flops.kernel(m, k, n, tile_m, tile_k, tile_n)


@calculator(returns="FLOP/byte", T=num(ge=1, doc="output tile edge, elements"),
            s=qty("byte", gt=0, doc="bytes per element"),
            equation=eq("I", "T/s", ref="Vol. 2 Ch. 2, Fig. 2.6 (T x T output tiles)"))
def tile_intensity(T, s):
    """FLOPs per byte fetched for a matrix multiply computed in T x T output tiles: T / s.

    Each output tile streams a T x K strip of A and a K x T strip of B (2 T K elements of s bytes)
    and does 2 T^2 K FLOPs on them, so the intensity is T / s whatever K is (Vol. 2 §2.2, Fig. 2.6;
    T = 1 is no reuse: every multiply-add fetches its two operands)."""
    return T / s


@calculator(returns=None, capacity=qty("byte", gt=0, doc="on-chip memory for the three blocks"),
            s=qty("byte", gt=0, doc="bytes per element"), multiple=whole(doc="tile shape multiple"),
            equation=eq("T", "floor(floor(sqrt(capacity/(3*s)))/multiple)*multiple",
                        ref="Vol. 2 Ch. 2, Fig. 2.6 (three T x T tiles: 3 T^2 s <= capacity)"))
def largest_square_tile(capacity, s, multiple=16):
    """The largest T (a multiple of ``multiple``, the tensor-core shape) with three T x T blocks
    (a tile of A, of B and of the accumulating C) in ``capacity``: 3 T^2 s <= capacity
    (Vol. 2 §2.2, Fig. 2.6). Returns a whole number of elements."""
    m = int(multiple)
    t = int(math.sqrt(capacity / (3.0 * s)))
    t -= t % m
    if t < m:
        raise InputError(f"capacity must hold three {m} x {m} tiles of {s:g} B; got {capacity:g} B")
    return t
