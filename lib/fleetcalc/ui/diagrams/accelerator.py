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

__all__ = ["reticle_fields_on_wafer", "wafer_vs_die", "SPECTRUM", "spectrum_points", "accelerator_spectrum"]


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
