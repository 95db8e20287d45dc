"""Accelerator diagrams for Vol. 2 Ch. 2: a wafer-scale engine beside a reticle-limited die
(the books' Fig. 2.2) and the accelerator spectrum, programmability against efficiency (Fig. 2.3).

Every number comes from the catalog (``hw``) or a calculator; the only new arithmetic here is
:func:`reticle_fields_on_wafer`, which counts how many reticle-sized fields fit inside a wafer.
"""
from __future__ import annotations

import math

from fleetcalc.core.catalog import hw
from fleetcalc.physics.energy import flops_per_watt
from fleetcalc.core.units import fmt
from fleetcalc.core.validate import InputError
from fleetcalc.ui.diagrams.draw import PALETTE, canvas, label
import numpy as np
from fleetcalc.core.units import Q_
from fleetcalc.physics.accelerator import largest_square_tile, tile_intensity
from fleetcalc.physics.roofline import ridge_point
from fleetcalc.ui.diagrams.draw import box
from fleetcalc.ui.diagrams.draw import figure as _figure

__all__ = ["reticle_fields_on_wafer", "wafer_vs_die", "SPECTRUM", "spectrum_points", "accelerator_spectrum", "LIKE_FOR_LIKE", "NARROW", "spectrum_by_precision", "tile_derivation"]


def _mm(q) -> float:
    return float(q.to("mm").magnitude)


def reticle_fields_on_wafer(diameter, width, height):
    """Whole ``width`` x ``height`` fields that fit inside a round wafer of ``diameter`` on a grid
    centred on the wafer (a field counts only when all four corners lie inside the circle).
    Returns ``(count, [(x, y), ...])`` with each field's lower-left corner in mm from the centre."""
    d, w, h = _mm(diameter), _mm(width), _mm(height)
    for name, v in (("diameter", d), ("width", w), ("height", h)):
        if not (v > 0 and math.isfinite(v)):
            raise InputError(f"{name} must be a positive length; got {v} mm")
    if w > d or h > d:
        raise InputError(f"a {w} x {h} mm field cannot fit on a {d} mm wafer")
    r = d / 2.0
    nx, ny = int(d // w) + 2, int(d // h) + 2
    fields = []
    for i in range(-nx, nx):
        for j in range(-ny, ny):
            x, y = i * w - w / 2.0, j * h - h / 2.0
            corners = ((x, y), (x + w, y), (x, y + h), (x + w, y + h))
            if all(cx * cx + cy * cy <= r * r for cx, cy in corners):
                fields.append((x, y))
    return len(fields), fields


def wafer_vs_die():
    """Fig. 2.2 (ours): the whole 300 mm wafer a wafer-scale engine keeps, tiled with the
    reticle-sized fields a conventional die is cut from, and one H100 die drawn to the same scale."""
    from matplotlib.patches import Circle, Rectangle

    D = hw("wse3.wafer_diameter")
    W, H = hw("reticle.width"), hw("reticle.height")
    n, fields = reticle_fields_on_wafer(D, W, H)
    r, w, h = _mm(D) / 2, _mm(W), _mm(H)
    fig, ax = canvas(1, 1, size=(8.0, 4.3), title="Fig. 2.2 (ours): one wafer kept whole, or cut into reticle-sized dies")
    ax.set_xlim(-r - 10, r + 250)
    ax.set_ylim(-r - 12, r + 12)
    ax.set_aspect("equal")
    ax.add_patch(Circle((0, 0), r, facecolor=PALETTE["compute"], alpha=0.12, edgecolor=PALETTE["compute"], lw=1.5))
    for k, (x, y) in enumerate(fields):
        hot = k == len(fields) // 2
        ax.add_patch(Rectangle((x, y), w, h, fill=hot, facecolor=PALETTE["fault"] if hot else "none",
                               alpha=0.8 if hot else 1, edgecolor=PALETTE["compute"], lw=0.6))
    label(ax, 0, -r - 6, f"{fmt(D, 'mm', 0)} wafer: {n} whole reticle fields of {fmt(W, 'mm', 0)} x {fmt(H, 'mm', 0)}",
          fontsize=9)
    x0 = r + 30
    ax.add_patch(Rectangle((x0, 40), w, h, facecolor=PALETTE["fault"], alpha=0.8, edgecolor=PALETTE["compute"]))
    label(ax, x0 + w + 8, 40 + h / 2, f"one reticle field = {fmt(hw('reticle.area'), 'mm**2', 0, with_unit=False)} mm²\n"
          f"(H100 die: {fmt(hw('h100.die_area'), 'mm**2', 0, with_unit=False)} mm²)\nthe largest die one exposure prints",
          ha="left", fontsize=9)
    wse = (f"Wafer-scale engine (WSE-3)\n{fmt(hw('wse3.cores'), None, 0)} cores, "
           f"{fmt(hw('wse3.sram'), 'GB', 0)} on-wafer SRAM\n{fmt(hw('wse3.memory_bandwidth'), 'auto', sig=3)} "
           f"memory bandwidth\n{fmt(hw('wse3.power'), 'auto', sig=3)} into one piece of silicon\n"
           "no dicing: the links between 'dies'\nstay on the wafer, so software must\nroute around defects")
    label(ax, x0, -45, wse, ha="left", fontsize=9)
    return fig


#: The spectrum's columns, from most programmable to most specialised, and the catalog entries
#: that place each device on the efficiency axis (peak rate, power, the precision it is quoted in).
SPECTRUM = [
    ("CPU", "general-purpose cores", []),
    ("GPU", "SIMT cores + tensor cores", [("V100", "v100.peak_fp16", "v100.tdp", "FP16"),
                                          ("A100", "a100.peak_fp16", "a100.tdp", "FP16"),
                                          ("H100", "h100.peak_fp16", "h100.tdp", "FP16"),
                                          ("B200", "b200.peak_fp8", "b200.tdp", "FP8")]),
    ("ASIC / systolic", "one hard-wired dataflow", [("TPU v1", "tpu_v1.peak_int8", "tpu_v1.power", "INT8")]),
    ("Wafer-scale", "a whole wafer as one chip", []),
]


def spectrum_points():
    """``[(column, name, year, FLOP/s per W, precision)]`` for every device the catalog gives both
    a peak rate and a power for (:func:`fleetcalc.physics.energy.flops_per_watt`)."""
    pts = []
    for col, (_, _, devs) in enumerate(SPECTRUM):
        for name, peak, power, prec in devs:
            year = int(hw(peak.split(".")[0] + ".year").magnitude)
            pts.append((col, name, year, flops_per_watt(hw(peak), hw(power)), prec))
    return pts


def accelerator_spectrum():
    """Fig. 2.3 (ours): programmability falls to the right; peak throughput per watt (log axis)
    from the catalog where the text gives both numbers, with each point's year and precision."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(8.0, 4.0), dpi=100)
    ax = fig.add_axes((0.09, 0.22, 0.88, 0.66))
    pts = spectrum_points()
    for col, name, year, eff, prec in pts:
        v = eff.to("TFLOP/s/W").magnitude
        ax.plot([col], [v], "o", color=PALETTE["compute"], ms=7)
        ax.annotate(f"{name} ({year}, {prec})\n{fmt(eff, 'TFLOP/s/W', 2, with_unit=False)} TFLOP/s per W", (col, v),
                    xytext=(8, -4), textcoords="offset points", fontsize=8, va="center")
    ax.set_yscale("log")
    from matplotlib.ticker import FuncFormatter
    ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
    ax.set_xlim(-0.5, len(SPECTRUM) - 0.3)
    ax.set_ylim(0.2, 10)
    ax.set_xticks(range(len(SPECTRUM)))
    ax.set_xticklabels([f"{c}\n({d})" for c, d, _ in SPECTRUM], fontsize=9)
    ax.set_ylabel("peak throughput per watt\n(TFLOP/s per W, log)", fontsize=9)
    ax.tick_params(labelsize=8)
    lo, hi = hw("cpu_server.arithmetic_area_low"), hw("cpu_server.arithmetic_area_high")
    ax.text(0, 0.32, f"only {fmt(lo, 'percent', 0, with_unit=False)}-{fmt(hi, 'percent', 0, with_unit=False)} % of the die\ndoes arithmetic\n"
            "(no peak/power pair\nin the text)", ha="center", fontsize=8, color=PALETTE["text"])
    ax.text(3, 0.32, f"{fmt(hw('wse3.sram'), 'GB', 0)} SRAM on the wafer,\n"
            f"{fmt(hw('wse3.memory_bandwidth'), 'auto', sig=3)}, {fmt(hw('wse3.power'), 'auto', sig=3)}\n(no peak rate in the text)",
            ha="center", fontsize=8, color=PALETTE["text"])
    fig.text(0.09, 0.04, "more programmable: any model runs", fontsize=9, color=PALETTE["text"])
    fig.text(0.97, 0.04, "more specialised: more work per joule, fewer models fit", fontsize=9, ha="right",
             color=PALETTE["text"])
    fig.suptitle("Fig. 2.3 (ours): the accelerator spectrum, programmability against efficiency", fontsize=11, y=0.97)
    return fig


# ----------------------------------------------------------------------------- Fig. 2.3
#: Devices compared like for like: FP16 dense peak over TDP, in the order they shipped.
LIKE_FOR_LIKE = [("V100", "v100"), ("A100", "a100"), ("H100", "h100"), ("B200", "b200")]


#: Each device's narrow format, drawn apart (a different marker, never joined to the FP16 line).
NARROW = [("H100", "h100.peak_fp8", "h100.tdp", "FP8"), ("B200", "b200.peak_fp8", "b200.tdp", "FP8"),
          ("TPU v1", "tpu_v1.peak_int8", "tpu_v1.power", "INT8")]


_MARK = {"FP8": "^", "INT8": "s"}


def spectrum_by_precision():
    """Fig. 2.3 (ours, redrawn): peak throughput per watt, FP16 dense for the GPUs (one line, like
    for like), and the narrow formats (FP8, INT8) as separate markers on the right, each labelled."""
    fig = _figure((8.4, 4.0))
    fig.suptitle("Fig. 2.3 (ours): efficiency compared at one precision at a time", fontsize=11, y=0.97)
    ax = fig.add_axes((0.09, 0.14, 0.52, 0.68))
    ys, xs = [], []
    for name, dev in LIKE_FOR_LIKE:
        eff = flops_per_watt(hw(f"{dev}.peak_fp16"), hw(f"{dev}.tdp"))
        xs.append(int(hw(f"{dev}.year").magnitude))
        ys.append(eff.to("TFLOP/s/W").magnitude)
        ax.annotate(f"{name}\n{fmt(eff, 'TFLOP/s/W', 2, with_unit=False)}", (xs[-1], ys[-1]), xytext=(6, -14),
                    textcoords="offset points", fontsize=8)
    ax.plot(xs, ys, "o-", color=PALETTE["compute"], ms=7, lw=1.5, label="FP16 dense (like for like)")
    ax.set_yscale("log")
    ax.set_ylim(0.2, 10)
    ax.set_xlim(min(xs) - 1, max(xs) + 2)
    ax.set_xlabel("year", fontsize=9)
    ax.set_ylabel("peak throughput per watt\n(TFLOP/s per W, log)", fontsize=9)
    from matplotlib.ticker import FuncFormatter
    ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
    ax.tick_params(labelsize=8)
    ax.legend(fontsize=8, loc="upper left")
    ax.set_title("GPUs, FP16 dense: the only fair line", fontsize=9)
    ax2 = fig.add_axes((0.68, 0.14, 0.30, 0.68), sharey=ax)
    for i, (name, peak, power, prec) in enumerate(NARROW):
        eff = flops_per_watt(hw(peak), hw(power))
        v = eff.to("TFLOP/s/W").magnitude
        ax2.plot([i], [v], _MARK[prec], color=PALETTE["fault"] if prec == "FP8" else PALETTE["memory"], ms=8)
        ax2.annotate(f"{name}\n{prec}: {fmt(eff, 'TFLOP/s/W', 2, with_unit=False)}", (i, v), xytext=(0, 10),
                     textcoords="offset points", fontsize=8, ha="center")
    ax2.set_xlim(-0.6, len(NARROW) - 0.4)
    ax2.set_xticks([])
    ax2.tick_params(labelsize=8, labelleft=False)
    ax2.set_title("narrow formats, apart\n(a different number format each)", fontsize=9)
    return fig


# ----------------------------------------------------------------------------- Fig. 2.6
def tile_derivation(device="h100", s=Q_(2, "byte"), multiple=16):
    """Fig. 2.6 (ours, redrawn): where the tile sizes come from. Three T x T blocks (of A, of B and
    the accumulating C) must fit on chip, 3 T^2 s <= capacity, so T = sqrt(capacity / 3 s) rounded
    down to the tensor-core multiple; each tile then earns T / s FLOP per HBM byte (right)."""
    ridge = ridge_point(hw(f"{device}.peak_fp16"), hw(f"{device}.hbm_bandwidth"))
    levels = [("shared memory, one SM", hw(f"{device}.smem_per_sm")), ("L2, whole chip", hw(f"{device}.l2_capacity"))]
    fig = _figure((9.4, 3.9))
    fig.suptitle("Fig. 2.6 (ours): how big a tile fits, and what it earns", fontsize=11, y=0.98)
    ax = fig.add_axes((0.0, 0.0, 0.5, 0.9))
    ax.set_xlim(0, 10)
    ax.set_ylim(0, 8)
    ax.axis("off")
    label(ax, 5, 7.4, "on chip at once: a T x T tile of A, of B and of C", fontsize=9)
    for k, name in enumerate(("A", "B", "C")):
        box(ax, 1.2 + 2.8 * k, 5.3, 1.6, 1.6, f"{name}\nT x T", kind="memory" if name != "C" else "compute",
            alpha=0.3, fontsize=9)
    label(ax, 5, 4.7, f"3 T² s ≤ capacity  ->  T = ⌊√(capacity / 3s)⌋, a multiple of {multiple}", fontsize=9)
    y = 3.7
    for name, cap in levels:
        T = largest_square_tile(cap, s, multiple)
        raw = np.sqrt((cap / (3 * s)).to("").magnitude)
        label(ax, 5, y, f"{name}: {fmt(cap, 'auto', sig=3)}\n√({fmt(cap, 'auto', sig=3)} / (3 x {fmt(Q_(s), 'byte', 0)})) "
              f"= {raw:,.1f}  ->  T = {T:,}", fontsize=9)
        y -= 1.5
    label(ax, 5, 0.5, f"s = {fmt(Q_(s), 'byte', 0)} (FP16); T / s FLOP per byte, whatever K is", fontsize=8, style="italic")
    ax2 = fig.add_axes((0.58, 0.16, 0.40, 0.70))
    T_l2 = largest_square_tile(levels[1][1], s, multiple)
    Ts = np.logspace(0, np.log10(4 * T_l2), 60)
    ax2.loglog(Ts, tile_intensity(Ts, s).magnitude, color=PALETTE["compute"], lw=2, label="I = T / s")
    r = ridge.to("FLOP/byte").magnitude
    ax2.axhline(r, color=PALETTE["network"], ls="--", lw=1.2)
    ax2.text(1.2, r * 1.2, f"{device.upper()} FP16 ridge {fmt(ridge, 'FLOP/byte', 0)}", fontsize=8)
    for (name, cap), off in zip(levels, ((8, -22), (-120, 8))):
        T = largest_square_tile(cap, s, multiple)
        v = tile_intensity(T, s)
        ax2.plot([T], [v.magnitude], "o", color=PALETTE["memory"], ms=6)
        ax2.annotate(f"T = {T:,}: {fmt(v, 'FLOP/byte', 0)}", (T, v.magnitude), xytext=off,
                     textcoords="offset points", fontsize=8)
    ax2.set_xlabel("tile edge T (elements)", fontsize=9)
    ax2.set_ylabel("FLOP per HBM byte", fontsize=9)
    ax2.tick_params(labelsize=8)
    ax2.legend(fontsize=8, loc="upper left")
    return fig
