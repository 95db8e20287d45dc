"""Memory diagrams for Vol. 2 Ch. 2: tensor-core tiling and the reuse it buys (the books' Fig. 2.6)
and the HBM 3-D stack on its interposer (Fig. 2.7).

The tile arithmetic is :func:`fleetcalc.physics.accelerator.tile_intensity` and
:func:`fleetcalc.physics.accelerator.largest_square_tile`.
"""
from __future__ import annotations

import math

import numpy as np

from fleetcalc.core.catalog import hw
from fleetcalc.physics.accelerator import largest_square_tile, tile_intensity
from fleetcalc.physics.roofline import ridge_point
from fleetcalc.core.units import Q_, fmt
from fleetcalc.ui.diagrams.draw import PALETTE, arrow, box, canvas, label
from fleetcalc.physics.devices import interface_bandwidth


__all__ = ["tiling", "hbm_stack", "DDR4_3200_PIN_RATE", "ddr_server_readings", "bus_widths"]




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


# ----------------------------------------------------------------------------- Fig. 2.7
#: DDR4-3200's data rate per pin (JEDEC JESD79-4: 3,200 MT/s, one bit per pin per transfer). Not in
#: the catalog; used only to show where the book's "server: 200 GB/s" most likely comes from.
DDR4_3200_PIN_RATE = Q_(3.2, "Gbit/s")


def ddr_server_readings():
    """The book's server DDR bandwidth against what its own channel arithmetic gives:
    ``{"book", "ddr5_low", "ddr5_high", "ddr4_3200"}``, each channels x 64 bit x pin rate."""
    w, n = hw("ddr5.channel_width"), int(hw("ddr5.channels").magnitude)
    return {"book": hw("ddr5.server_bandwidth"),
            "ddr5_low": interface_bandwidth(w, hw("ddr5.pin_rate_low"), n),
            "ddr5_high": interface_bandwidth(w, hw("ddr5.pin_rate_high"), n),
            "ddr4_3200": interface_bandwidth(w, DDR4_3200_PIN_RATE, n)}


def bus_widths(device="h100"):
    """Fig. 2.7 (ours, redrawn): one HBM stack's bus and one DDR5 channel drawn to the same scale,
    one line per 64 data pins (16 lines against 1), with the per-stack and server bandwidths; the
    book's 200 GB/s server figure is marked beside the peak its own inputs give."""
    width, ch = hw("hbm.stack_width"), hw("ddr5.channel_width")
    lanes = int((width / ch).to("").magnitude)
    per_stack = hw(f"{device}.hbm_stack_bandwidth")
    n_stacks = int(hw(f"{device}.hbm_stacks").magnitude)
    r = ddr_server_readings()
    fig, ax = canvas(12, 5.8, size=(9.4, 4.0), title="Fig. 2.7 (ours): HBM wins by width (one line = 64 data pins)")
    # HBM side
    box(ax, 0.3, 0.6, 6.2, 0.45, "silicon interposer: micrometre wires", kind="storage", alpha=0.3, fontsize=8)
    box(ax, 0.5, 1.2, 2.0, 3.6, "GPU die", kind="compute", alpha=0.35, fontsize=10)
    box(ax, 4.3, 1.2, 2.0, 3.6, "HBM stack\n(DRAM dies\non a logic die)", kind="memory", alpha=0.35, fontsize=9)
    for k, yy in enumerate(np.linspace(1.45, 4.55, lanes)):
        ax.plot([2.55, 4.25], [yy, yy], color=PALETTE["memory"], lw=1.6)
    label(ax, 3.4, 5.35, f"{fmt(width, 'bit', 0, with_unit=False)}-bit bus = {lanes} x 64 pins", fontsize=9)
    label(ax, 3.4, 5.0, f"{fmt(per_stack, 'auto', sig=3)} per stack, x {n_stacks} stacks", fontsize=8)
    label(ax, 3.4, 0.25, f"{device.upper()}: {n_stacks} x {fmt(per_stack, 'auto', sig=3)} = "
          f"{fmt(per_stack * n_stacks, 'auto', sig=3)}", fontsize=9)
    # DDR side
    box(ax, 7.3, 1.2, 1.6, 3.6, "CPU", kind="host", alpha=0.35, fontsize=10)
    box(ax, 10.4, 1.2, 1.4, 3.6, "DDR5\nDIMM", kind="memory", alpha=0.2, fontsize=9)
    yy = 1.45 + (4.55 - 1.45) / (lanes - 1) * (lanes // 2)
    ax.plot([8.95, 10.35], [yy, yy], color=PALETTE["memory"], lw=1.6)
    label(ax, 9.65, yy + 0.35, f"one {fmt(ch, 'bit', 0, with_unit=False)}-bit\nchannel", fontsize=8)
    label(ax, 9.65, 5.35, f"server: {int(hw('ddr5.channels').magnitude)} channels across the board", fontsize=9)
    label(ax, 9.65, 0.75, f"book: {fmt(r['book'], 'auto', sig=3)} (erratum)\n"
          f"its own DDR5 inputs: {fmt(r['ddr5_low'], 'GB/s', 0)}-{fmt(r['ddr5_high'], 'auto', sig=3)}\n"
          f"8-channel DDR4-3200: {fmt(r['ddr4_3200'], 'GB/s', 1)}", fontsize=8)
    return fig
