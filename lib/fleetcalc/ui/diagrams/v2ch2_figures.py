"""Vol. 2 Ch. 2 figures the text describes but does not draw: the roofline with several ceilings,
the node's bandwidth ladder to scale, and the per-GPU training memory budget against the HBM line.

Every number comes from the catalog and the physics calculators
(:mod:`fleetcalc.physics.roofline`, :mod:`fleetcalc.physics.links`, :mod:`fleetcalc.physics.node`,
:mod:`fleetcalc.physics.memory`); nothing here re-types a formula.
"""
from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure

from fleetcalc.core.catalog import hw
from fleetcalc.core.units import Q_, fmt
from fleetcalc.physics import links, memory, node, roofline
from fleetcalc.ui.diagrams.draw import PALETTE

__all__ = ["CEILINGS", "KERNELS", "roofline_ceilings", "ladder_tiers", "bandwidth_ladder",
           "BUDGET_LAYOUTS", "budget_layouts", "memory_budget_stack"]

#: (catalog key, label) of the flat ceilings drawn, highest first.
CEILINGS = [("peak_fp8", "FP8 dense"), ("peak_fp16", "FP16/BF16 dense"), ("peak_tf32", "TF32 dense"),
            ("peak_fp32", "FP32 (CUDA cores)")]

#: (label, batch B sharing each weight, bytes per weight): weight-dominated matmuls, I = 2B/s.
KERNELS = [("decode, batch 1, FP16", 1, 2.0), ("decode, batch 64, FP16", 64, 2.0),
           ("decode, batch 64, FP8", 64, 1.0), ("training, batch 2,048, FP16", 2048, 2.0)]


def _subplots(figsize):
    """One figure with one axis, not registered with pyplot (so a notebook shows it once, through show())."""
    fig = Figure(figsize=figsize)
    return fig, fig.subplots()


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


def ladder_tiers(pcie_gen=5):
    """The node's bandwidth ladder, one way per GPU, fastest first: (name, bandwidth, what it joins).

    HBM (memory direction), NVLink 4 (900 GB/s both ways halved), PCIe x16 of ``pcie_gen`` (per
    direction), the InfiniBand NDR NIC per GPU and the storage figure of Figure 2.12."""
    rate = hw(f"pcie.gen{pcie_gen}_rate")
    return [("HBM3", hw("h100.hbm_bandwidth"), "the GPU and its own memory"),
            ("NVLink 4 (one way)", links.one_way(hw("nvlink4.gpu_bandwidth")), "GPUs in one node"),
            (f"PCIe Gen{pcie_gen} x16", node.pcie_generation_bandwidth(pcie_gen, rate), "GPU, CPU and NIC"),
            ("InfiniBand NDR NIC", hw("infiniband_ndr.per_gpu"), "nodes in a pod"),
            ("storage (Fig. 2.12)", hw("bw_hierarchy.storage_fig212"), "the node and its data")]


def bandwidth_ladder(pcie_gen=5):
    """The node's bandwidth ladder drawn to scale (log axis), each rung's drop from the one above
    printed beside it (``links.bandwidth_ratio``)."""
    tiers = ladder_tiers(pcie_gen)
    fig, ax = _subplots(figsize=(8.6, 3.9))
    kinds = ["memory", "compute", "host", "network", "storage"]
    for i, (name, bw, joins) in enumerate(tiers):
        gbs = bw.to("GB/s").magnitude
        ax.barh(i, gbs, color=PALETTE.get(kinds[i], PALETTE["network"]), alpha=0.75)
        ax.text(gbs * 1.15, i, f"{fmt(bw, 'GB/s', 0)} GB/s  ({joins})", va="center", fontsize=8.5)
        if i:
            drop = links.bandwidth_ratio(tiers[i - 1][1], bw).to("").magnitude
            ax.text(0.75, i - 0.5, f"÷ {drop:.1f}", va="center", fontsize=8, color="dimgray")
    ax.set_yticks(range(len(tiers)), [t[0] for t in tiers])
    ax.invert_yaxis()
    ax.set_xscale("log")
    ax.set_xlim(0.5, 3e5)
    ax.set_xlabel("bandwidth per GPU, one way (GB/s, log scale)")
    ax.set_title("The node's bandwidth ladder: each rung is a different wire")
    fig.tight_layout()
    return fig


#: (label, keyword arguments of memory.per_gpu_budget) for the 175B model, FP16 weights and
#: gradients, FP32 Adam moments (8 bytes a parameter), as in the book's memory-budget walk.
BUDGET_LAYOUTS = [
    ("pure DP", dict(dp=128)),
    ("ZeRO-3 over 8", dict(dp=8, zero=3)),
    ("TP-8", dict(t=8)),
    ("TP-8, Adam\noffloaded", dict(t=8, offload_optimizer=True)),
    ("TP-8, Adam and\ngrads offloaded", dict(t=8, offload_optimizer=True, offload_gradients=True)),
]

PARTS = ("weights", "gradients", "optimizer", "activations", "buffers")


def budget_layouts(P=175e9, layouts=BUDGET_LAYOUTS, activations=Q_(20, "GB"), buffers=Q_(5, "GB")):
    """Per-GPU budgets (GB) of each layout: a list of (label, {part: GB}, hbm GB)."""
    out = []
    for name, kw in layouts:
        r = memory.per_gpu_budget(P, Q_(2, "byte"), Q_(2, "byte"), Q_(8, "byte"),
                                  activations=activations, buffers=buffers, **kw)
        out.append((name, {k: float(r[k].to("GB").magnitude) for k in PARTS}, float(r["hbm"].to("GB").magnitude)))
    return out


def memory_budget_stack(P=175e9, hbm="dgx_h100.gpu_hbm", **kw):
    """Stacked per-GPU memory budget (weights, gradients, Adam, activations, buffers) for each
    layout, against the HBM line of one GPU; log axis, since pure DP is 25 times the line."""
    rows = budget_layouts(P, **kw)
    cap = hw(hbm).to("GB").magnitude
    colours = {"weights": PALETTE["compute"], "gradients": PALETTE["network"], "optimizer": PALETTE["fault"],
               "activations": PALETTE["storage"], "buffers": PALETTE["host"]}
    fig, ax = _subplots(figsize=(8.6, 4.6))
    x = np.arange(len(rows))
    bottom = np.zeros(len(rows))
    for part in PARTS:
        h = np.array([r[1][part] for r in rows])
        ax.bar(x, h, bottom=bottom, color=colours[part], label="Adam moments" if part == "optimizer" else part, alpha=0.8)
        bottom += h
    for xi, (_, _, tot) in zip(x, rows):
        ax.text(xi, tot * 1.05, f"{tot:,.0f} GB", ha="center", fontsize=8.5)
    ax.axhline(cap, color="black", lw=1.5, ls="--")
    ax.text(len(rows) - 0.5, cap * 0.86, f"HBM per GPU: {cap:.0f} GB", ha="right", fontsize=9)
    ax.set_xticks(x, [r[0] for r in rows], fontsize=8.5)
    ax.set_yscale("log")
    ax.set_ylim(10, 6000)
    ax.set_ylabel("per-GPU memory (GB, log scale)")
    ax.set_title(f"{P / 1e9:.0f}B training state per GPU, layout by layout, against the HBM line")
    ax.legend(fontsize=8, ncol=3, loc="upper right")
    fig.tight_layout()
    return fig
