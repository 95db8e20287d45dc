"""Rooflines: ceilings and roofs on one log-log chart with named kernels placed on them (Ch. 28 §28.3, §28.10), and the several ceilings of one device (Vol. 2 §2.3)."""
from __future__ import annotations

from dataclasses import dataclass
import numpy as np
from fleetcalc.core.catalog import hw
from fleetcalc.core.units import Q_, fmt
from fleetcalc.physics import roofline
from fleetcalc.ui.diagrams.draw import PALETTE
from matplotlib.figure import Figure
from fleetcalc.ui.diagrams.draw import subplots as _subplots

__all__ = ["Kernel", "h100_kernels", "roofline_chart", "h100_roofline", "measured_roofline", "CEILINGS", "KERNELS", "roofline_ceilings"]


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
    """Four kernels in FP16/BF16 (s = 2 bytes): three matmuls with intensities from Eq. 28.4 (HBM bytes,
    ideal reuse) and an element-wise add with its own count.

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


#: (catalog key, label) of the flat ceilings drawn, highest first.
CEILINGS = [("peak_fp8", "FP8 dense"), ("peak_fp16", "FP16/BF16 dense"), ("peak_tf32", "TF32 dense"),
            ("peak_fp32", "FP32 (CUDA cores)")]


#: (label, batch B sharing each weight, bytes per weight): weight-dominated matmuls, I = 2B/s.
KERNELS = [("decode, batch 1, FP16", 1, 2.0), ("decode, batch 64, FP16", 64, 2.0),
           ("decode, batch 64, FP8", 64, 1.0), ("training, batch 2,048, FP16", 2048, 2.0)]


def roofline_ceilings(device="h100", ceilings=CEILINGS, kernels=KERNELS):
    """A roofline with one flat ceiling per precision and the named kernels placed on it.

    Each ceiling is the catalog's peak at that precision; the slope is the HBM bandwidth; each
    kernel's intensity is ``roofline.matmul_intensity_weight_dominated(B, s)`` and its height
    ``roofline.attainable_rate``, read against the ceiling of its own precision."""
    beta = hw(f"{device}.hbm_bandwidth")
    I = np.logspace(-0.3, 4, 300)
    fig, ax = _subplots(figsize=(8.6, 4.8))
    colours = [PALETTE["fault"], PALETTE["compute"], PALETTE["storage"], PALETTE["host"]]
    peaks = {}
    for (key, name), c in zip(ceilings, colours):
        R = hw(f"{device}.{key}")
        peaks[key] = R
        y = roofline.attainable_rate(Q_(I, "FLOP/byte"), R, beta).to("TFLOP/s").magnitude
        ridge = roofline.ridge_point(R, beta).to("FLOP/byte").magnitude
        ax.plot(I, y, color=c, lw=2, label=f"{name}: {fmt(R, 'TFLOP/s', 0)}, ridge {ridge:.0f} FLOP/byte")
        ax.axvline(ridge, color=c, lw=0.8, ls=":")
    for name, B, s in kernels:
        key = "peak_fp8" if s == 1.0 else "peak_fp16"
        Ik = roofline.matmul_intensity_weight_dominated(B, Q_(s, "byte")).to("FLOP/byte")
        yk = roofline.attainable_rate(Ik, peaks[key], beta).to("TFLOP/s").magnitude
        ax.plot([Ik.magnitude], [yk], "o", color="black", ms=6)
        ax.annotate(f"{name}\nI = {Ik.magnitude:,.0f}", (Ik.magnitude, yk), textcoords="offset points",
                    xytext=(6, -22 if B < 2048 else 6), fontsize=8)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("arithmetic intensity I (FLOP/byte)")
    ax.set_ylabel("attainable rate (TFLOP/s)")
    ax.set_title(f"{device.upper()}: one memory slope ({fmt(beta, 'TB/s', 2)}), one ceiling per precision")
    ax.legend(fontsize=8, loc="lower right")
    ax.grid(True, which="major", alpha=0.3)
    fig.tight_layout()
    return fig
