"""Memory diagrams for Vol. 2 Ch. 2: tensor-core tiling and the reuse it buys (the books' Fig. 2.6)
and the HBM 3-D stack on its interposer (Fig. 2.7).

New calculators (the library had none for tiles): :func:`tile_intensity`, the FLOPs a tiled
matrix multiply does per byte it fetches, and :func:`largest_square_tile`, the biggest square tile
whose three operand blocks fit in a given on-chip capacity.
"""
from __future__ import annotations

import math

import numpy as np

from fleetcalc.core.catalog import hw
from fleetcalc.physics.roofline import ridge_point
from fleetcalc.core.units import Q_, fmt
from fleetcalc.core.validate import InputError
from fleetcalc.ui.diagrams.draw import PALETTE, arrow, box, canvas, label


__all__ = ["tile_intensity", "largest_square_tile", "tiling", "hbm_stack"]


def _bytes(name, s):
    v = float(Q_(s).to("byte").magnitude) if hasattr(s, "units") else float(s)
    if not (v > 0 and math.isfinite(v)):
        raise InputError(f"{name} must be a positive number of bytes per element; got {s}")
    return v


def tile_intensity(T, s):
    """FLOPs per byte fetched for a matrix multiply computed in T x T output tiles.

    Each output tile streams a T x K strip of A and a K x T strip of B (2 T K elements of s bytes)
    and does 2 T^2 K FLOPs on them, so the intensity is T / s FLOP/byte whatever K is. T = 1 is no
    reuse at all (every multiply-add fetches its two operands)."""
    t = np.asarray(T, dtype=float)
    if np.any(~np.isfinite(t)) or np.any(t < 1):
        raise InputError(f"tile size T must be >= 1 element; got {T}")
    return Q_(t / _bytes("s", s), "FLOP/byte")


def largest_square_tile(capacity, s, multiple=16):
    """The largest T (a multiple of ``multiple``, the tensor-core shape) with three T x T blocks
    (a tile of A, of B and of the accumulating C) fitting in ``capacity``: 3 T^2 s <= capacity."""
    c = float(Q_(capacity).to("byte").magnitude)
    if not (c > 0 and math.isfinite(c)):
        raise InputError(f"capacity must be a positive size; got {capacity}")
    m = int(multiple)
    if m < 1:
        raise InputError(f"multiple must be >= 1; got {multiple}")
    t = int(math.sqrt(c / (3.0 * _bytes("s", s))))
    t -= t % m
    if t < m:
        raise InputError(f"no {m} x {m} tile of {s} fits three times in {capacity}")
    return t


def tiling(s=Q_(2, "byte")):
    """Fig. 2.6 (ours): C = A B cut into tiles; one tile of C needs a strip of A and a strip of B
    on chip, and the FLOPs per HBM byte grow with the tile size until they pass the ridge."""
    from matplotlib.figure import Figure

    ridge = ridge_point(hw("h100.peak_fp16"), hw("h100.hbm_bandwidth"))
    smem, l2 = hw("h100.smem_per_sm"), hw("h100.l2_capacity")
    T_smem, T_l2 = largest_square_tile(smem, s), largest_square_tile(l2, s)
    fig = Figure(figsize=(9.0, 3.8), dpi=100)
    fig.suptitle("Fig. 2.6 (ours): tiling turns each byte from HBM into many multiply-adds", fontsize=11, y=0.98)
    ax = fig.add_axes((0.0, 0.02, 0.5, 0.86))
    ax.set_xlim(0, 10)
    ax.set_ylim(0, 7.5)
    ax.axis("off")
    n = 4  # tiles per side in the sketch

    def grid(x0, y0, size, name, hi_rows=(), hi_cols=(), hot=None, kind="memory"):
        c = size / n
        for i in range(n):
            for j in range(n):
                lit = i in hi_rows or j in hi_cols
                box(ax, x0 + j * c, y0 + (n - 1 - i) * c, c * 0.94, c * 0.94, kind=kind,
                    alpha=0.55 if (i, j) == hot else (0.3 if lit else 0.08))
        label(ax, x0 + size / 2, y0 - 0.35, name, fontsize=9)

    grid(0.3, 0.8, 2.6, "A (M x K)", hi_rows=(1,))
    grid(3.6, 3.8, 2.6, "B (K x N)", hi_cols=(2,))
    grid(3.6, 0.8, 2.6, "C = A B", hot=(1, 2), kind="compute")
    label(ax, 3.25, 2.1, "x", fontsize=12)
    label(ax, 8.2, 2.4, f"one C tile, T x T:\nloads a T x K strip of A\nand a K x T strip of B,\n"
          "does 2 T² K FLOPs on them:\nintensity = T / s", ha="center", fontsize=9)
    label(ax, 0.2, 5.6, f"H100 shared memory per SM:\n{fmt(smem, 'auto', sig=3)} -> T = {T_smem}\n"
          f"L2: {fmt(l2, 'auto', sig=3)} -> T = {T_l2}", fontsize=9, ha="left")

    ax2 = fig.add_axes((0.58, 0.16, 0.40, 0.70))
    T = np.logspace(0, math.log10(4 * T_l2), 60)
    ax2.loglog(T, tile_intensity(T, s).magnitude, color=PALETTE["compute"], lw=2, label=f"T / s  (s = {fmt(Q_(s), 'byte', 0)} B)")
    r = ridge.to("FLOP/byte").magnitude
    ax2.axhline(r, color=PALETTE["network"], ls="--", lw=1.2)
    ax2.text(1.2, r * 1.15, f"H100 FP16 ridge: {fmt(ridge, 'FLOP/byte', 0)}", fontsize=8)
    for t, name in ((1, "no reuse"), (T_smem, "SMEM tile"), (T_l2, "L2 tile")):
        v = tile_intensity(t, s).magnitude
        ax2.plot([t], [v], "o", color=PALETTE["memory"], ms=6)
        ax2.annotate(f"{name}\nT={t}: {fmt(tile_intensity(t, s), 'FLOP/byte', 1 if v < 10 else 0)}", (t, v),
                     xytext=(8, 4) if t == 1 else ((-95, 6) if t == T_l2 else (8, -20)), textcoords="offset points",
                     fontsize=8)
    ax2.set_xlabel("tile size T (elements per side)", fontsize=9)
    ax2.set_ylabel("FLOP per byte fetched", fontsize=9)
    ax2.tick_params(labelsize=8)
    ax2.legend(fontsize=8, loc="upper left")
    return fig


def hbm_stack(stacks_key="h100"):
    """Fig. 2.7 (ours): a side view of one HBM stack (DRAM dies on a logic die, joined by TSVs)
    beside the GPU die on a silicon interposer, against a DDR5 channel across the board."""
    dies = int(hw("hbm.dies_per_stack_low").magnitude)
    dies_hi = int(hw("hbm.dies_per_stack_high").magnitude)
    width = hw("hbm.stack_width")
    per_stack = hw(f"{stacks_key}.hbm_stack_bandwidth")
    n_stacks = int(hw(f"{stacks_key}.hbm_stacks").magnitude)
    total = hw(f"{stacks_key}.hbm_bandwidth")
    fig, ax = canvas(12, 7, size=(9.0, 4.6), title="Fig. 2.7 (ours): HBM stacks DRAM on the package; DDR5 sits across the board")
    # package substrate and interposer
    box(ax, 0.3, 0.5, 8.0, 0.5, "package substrate", kind="idle", alpha=0.3, fontsize=8)
    box(ax, 0.6, 1.05, 7.4, 0.45, "silicon interposer (micrometre wires)", kind="storage", alpha=0.3, fontsize=8)
    box(ax, 0.9, 1.6, 2.6, 2.0, "GPU die", kind="compute", alpha=0.35, fontsize=10)
    # the stack: logic die + DRAM dies
    x0, y, dh = 4.6, 1.6, 0.36
    box(ax, x0, y, 2.6, dh, "base logic die", kind="host", alpha=0.5, fontsize=7)
    for i in range(dies):
        box(ax, x0, y + (i + 1) * (dh + 0.04), 2.6, dh, f"DRAM die {i + 1}" if i in (0, dies - 1) else "",
            kind="memory", alpha=0.35, fontsize=7)
    top = y + (dies + 1) * (dh + 0.04)
    for xt in np.linspace(x0 + 0.3, x0 + 2.3, 6):
        ax.plot([xt, xt], [y, top - 0.04], color=PALETTE["text"], lw=1.0)
    label(ax, x0 + 1.3, top + 0.35, f"{dies}-{dies_hi} DRAM dies, joined by\nthrough-silicon vias (TSVs, the vertical lines)",
          fontsize=8)
    arrow(ax, (3.55, 2.3), (4.55, 2.3), f"{fmt(width, 'bit', 0, with_unit=False)}-bit bus", kind="memory", both=True, offset=(0, 0.08))
    label(ax, 4.05, 1.95, f"{fmt(per_stack, 'auto', sig=3)}\nper stack", fontsize=8)
    label(ax, 4.2, 0.2, f"H100: {n_stacks} stacks x {fmt(per_stack, 'auto', sig=3)} = {fmt(per_stack * n_stacks, 'auto', sig=3)} "
          f"(catalog total {fmt(total, 'auto', sig=3)}), {fmt(hw('hbm.energy_per_bit'), 'pJ/bit', 0)}", fontsize=9)
    # DDR5 on the board for contrast
    box(ax, 8.9, 4.7, 2.8, 0.9, "DDR5 DIMM", kind="memory", alpha=0.2, fontsize=9)
    box(ax, 8.9, 1.6, 2.8, 1.0, "CPU", kind="host", alpha=0.35, fontsize=9)
    arrow(ax, (10.3, 2.65), (10.3, 4.65), "", kind="memory", both=True)
    label(ax, 10.3, 3.65, f"{fmt(hw('ddr5.channel_width'), 'bit', 0, with_unit=False)}-bit channel\n"
          f"over cm of board\n{fmt(hw('ddr5.energy_per_bit'), 'pJ/bit', 0)}\n"
          f"server: {fmt(hw('ddr5.server_bandwidth'), 'auto', sig=3)}", fontsize=8,
          bbox=dict(facecolor="white", edgecolor="none", alpha=0.85))
    return fig
