"""Rooflines for Ch. 28 §28.3 and §28.10: several ceilings and roofs on one log-log chart, with
named kernels placed on them.

Every roof is drawn by :func:`fleetcalc.physics.roofline.attainable_rate` (Eq. 28.2) and every
ridge by :func:`~fleetcalc.physics.roofline.ridge_point` (Eq. 28.3); kernel intensities come from
the roofline calculators (Eq. 28.4) and device figures from the catalog. Nothing here types a
hardware number or a formula.

* :func:`h100_roofline` (§28.3): the H100's HBM and L2 roofs under its FP16 tensor-core and FP32
  vector ceilings, with four kernels: batch-1 decode and Example 27.1's batch 64 (d = n = 4096),
  a large square matmul and an element-wise add.
* :func:`measured_roofline` (§28.10): a machine's measured roofs (cache and DRAM triads, a large
  matmul) with the student's own measured points.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from fleetcalc.core.catalog import entry, hw
from fleetcalc.core.units import Q_, fmt
from fleetcalc.physics import roofline
from fleetcalc.ui.diagrams.draw import PALETTE

__all__ = ["Kernel", "h100_kernels", "roofline_chart", "h100_roofline", "measured_roofline"]

_ROOF_COLOURS = (PALETTE["memory"], PALETTE["storage"], PALETTE["host"])


@dataclass(frozen=True)
class Kernel:
    """A named point: its intensity (FLOP/byte), the roof it moves its bytes through (an index into
    the chart's roofs), and a measured rate (FLOP/s) or None to place it on its bound."""
    name: str
    I: object
    roof: int = 0
    measured: object = None


def h100_kernels():
    """Four kernels in FP16/BF16 (s = 2 bytes), intensities from Eq. 28.4 (HBM bytes, ideal reuse).

    Decode at batch 1 and Example 27.1's batch 64 use the book's d = n = 4096 (Eq. 28.6-28.7); the
    square matmul is 8192^3; the element-wise add y = a + b does n FLOP on 3 x 2n bytes (I = 1/6).
    """
    s = Q_(2, "byte")
    n_ew = 1 << 20
    add = roofline.arithmetic_intensity(Q_(n_ew, "FLOP"), 3 * s * n_ew)
    return [Kernel("element-wise add", add),
            Kernel("decode, batch 1 (Eq. 28.6)", roofline.matmul_intensity(1, 4096, 4096, s)),
            Kernel("batch 64 (Eq. 28.7)", roofline.matmul_intensity(64, 4096, 4096, s)),
            Kernel("square matmul 8192³", roofline.matmul_intensity(8192, 8192, 8192, s))]


def roofline_chart(ceilings, roofs, kernels, *, title="", I_range=(0.03, 3000), size=(8.4, 4.8)):
    """Log-log rate against intensity. ``ceilings``: [(label, FLOP/s)], highest first; ``roofs``:
    [(label, byte/s)], the first is the one most kernels use. Each roof is drawn up to the top
    ceiling, lower ceilings as dashed lines, each ridge (Eq. 28.3) marked; each kernel sits on its
    bound (open circle) or at its measured rate (filled) with its bound above it."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=size, dpi=100)
    ax = fig.add_subplot(1, 1, 1)
    I = Q_(np.geomspace(*I_range, 400), "FLOP/byte")
    top_label, top = ceilings[0]
    for k, (name, beta) in enumerate(roofs):
        col = _ROOF_COLOURS[k % len(_ROOF_COLOURS)]
        R = roofline.attainable_rate(I, top, beta).to("TFLOP/s").magnitude
        ax.plot(I.magnitude, R, color=col, lw=2.2 if k == 0 else 1.6, ls="-" if k == 0 else "--",
                label=f"{name}: {fmt(beta, 'auto', sig=3)}")
        star = roofline.ridge_point(top, beta)
        ax.axvline(star.to("FLOP/byte").magnitude, color=col, lw=0.8, ls=":")
        ax.annotate(f"ridge {fmt(star, 'FLOP/byte', sig=3)}", (star.magnitude, top.to("TFLOP/s").magnitude),
                    textcoords="offset points", xytext=(4, -14 - 12 * k), fontsize=8, color=col)
    ax.axhline(top.to("TFLOP/s").magnitude, color=PALETTE["compute"], lw=2.2,
               label=f"{top_label}: {fmt(top, 'auto', sig=3)}")
    for name, peak in ceilings[1:]:
        ax.axhline(peak.to("TFLOP/s").magnitude, color=PALETTE["compute"], lw=1.2, ls="--",
                   label=f"{name}: {fmt(peak, 'auto', sig=3)}")
    for j, kern in enumerate(kernels):
        beta = roofs[kern.roof][1]
        bound = roofline.attainable_rate(kern.I, top, beta).to("TFLOP/s").magnitude
        x = kern.I.to("FLOP/byte").magnitude
        if kern.measured is None:
            ax.plot([x], [bound], "o", mfc="white", mec=PALETTE["text"], ms=7, zorder=5)
            y = bound
        else:
            y = kern.measured.to("TFLOP/s").magnitude
            ax.plot([x], [y], "o", color=PALETTE["network"], ms=7, zorder=5)
            ax.plot([x, x], [y, bound], color=PALETTE["network"], lw=0.8, ls=":")
        ax.annotate(kern.name, (x, y), textcoords="offset points", xytext=(6, -12 if j % 2 else 6),
                    fontsize=8.5, color=PALETTE["text"])
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("arithmetic intensity I = F/Q (FLOP/byte)")
    ax.set_ylabel("rate (TFLOP/s)")
    ax.set_xlim(*I_range)
    ax.grid(True, which="major", alpha=0.3)
    ax.legend(loc="lower right", fontsize=8, framealpha=0.9)
    if title:
        ax.set_title(title, fontsize=11)
    fig.tight_layout()
    return fig


def h100_roofline():
    """§28.3's picture: the H100 (catalog) with HBM and L2 roofs, FP16-tensor and FP32-vector
    ceilings, and the kernels of :func:`h100_kernels` on their HBM bound."""
    return roofline_chart(
        [("FP16 tensor-core peak (dense)", hw("h100.peak_fp16")), ("FP32 vector peak", hw("h100.peak_fp32"))],
        [("HBM", hw("h100.hbm_bandwidth")), ("L2 (an estimate)", hw("h100.l2_bandwidth"))],
        h100_kernels(), I_range=(0.03, 2e4), title="§28.3 — the H100's roofline: two roofs, two ceilings, four kernels")


def measured_roofline(R_roof, beta_cache, beta_dram, points, *, title="This machine's roofline, measured"):
    """§28.10's picture: the measured compute roof and the cache and DRAM roofs, with measured
    ``points`` = [Kernel(name, I, roof, measured)] (roof 0 = cache, 1 = DRAM)."""
    return roofline_chart([("measured compute roof (large matmul)", R_roof)],
                          [("cache roof (small triad)", beta_cache), ("DRAM roof (large triad)", beta_dram)],
                          points, title=title, I_range=(0.01, 1000))
