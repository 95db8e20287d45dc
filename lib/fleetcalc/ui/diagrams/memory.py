"""Fig. 28.1 redrawn: an accelerator's storage and execution hierarchy, with the catalog's numbers.

Ch. 28 Fig. 28.1 shows the logical path from a thread's registers to HBM and the host without
numbers; Vol. 2 §2.2 (line 1422) gives the H100's figures for each level. The diagram puts the
two together: on the left who works at each level (thread, block, SM, device, host), on the right
each storage level with its capacity and bandwidth, read from the catalog (``hw(...)``) or derived
from it (the chip-wide shared memory is per-SM shared memory times the SM count). Where the
catalog holds a vendor figure that differs from the book's (the register file, 34.6 MB against the
book's 20-30 MB; the L1/shared bandwidth, derived from the Hopper whitepaper, against the book's
19 TB/s, which is the A100's), the vendor's is drawn and the book's is printed beside it.
Nothing here types a hardware number.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from fleetcalc.core.catalog import entry, hw
from fleetcalc.core.units import fmt
from fleetcalc.ui.diagrams.draw import PALETTE, arrow, box, canvas, label
from fleetcalc.core.units import Q_
from fleetcalc.physics import memory
from fleetcalc.physics.storage import per_share, token_read_bandwidth
from fleetcalc.ui.diagrams.draw import subplots as _subplots, figure as _figure

__all__ = ["Level", "hierarchy_levels", "memory_hierarchy", "BUDGET_LAYOUTS", "PARTS", "budget_layouts", "memory_budget_stack", "tier_rows", "memory_tiers"]


@dataclass(frozen=True)
class Level:
    """One storage level: its name, who uses it, capacity text, bandwidth (Quantity or None)."""
    name: str
    scope: str
    capacity: str
    bandwidth: object          # Quantity in byte/s, or None where the text gives no figure
    kind: str                  # PALETTE key
    source: str                # catalog paths the numbers come from
    book: str | None = None    # the book's figure where the drawn one is the vendor's


def hierarchy_levels(device: str = "h100") -> list[Level]:
    """The levels of Fig. 28.1 for ``device`` (registers first, host DRAM last), numbers from the catalog.

    Registers carry no bandwidth: Vol. 2 line 1422 says only "hundreds of TB/s", no single figure.
    The register total and the L1/shared bandwidth are the catalog's vendor values; ``book`` keeps
    the book's figure for the label beside them.
    The host level is one DGX H100 node's DDR5 (capacity per node, the server's aggregate DDR5
    bandwidth), reached over one PCIe Gen5 x16 link (see :func:`memory_hierarchy`).
    """
    if device != "h100":
        raise ValueError(f"device must be 'h100' (the only device with every level in the catalog); got {device!r}")
    smem_total = (hw("h100.smem_per_sm") * hw("h100.sms")).to("MiB")
    regs = entry("h100.register_file_high").vendor_quantity.to("MB")
    smem_bw = entry("h100.smem_bandwidth").vendor_quantity
    return [
        Level("registers", "one thread", f"{fmt(regs, 'auto', sig=3)} in all (vendor)",
              None, "compute", "h100.register_file_low, h100.register_file_high (vendor values)",
              book=f"book: {hw('h100.register_file_low').to('MB').magnitude:g}–{fmt(hw('h100.register_file_high'), 'MB', sig=2)}"),
        Level("shared memory / L1", "one block (on one SM)",
              f"{fmt(hw('h100.smem_per_sm'), 'auto', sig=3)} per SM = {fmt(smem_total, 'auto', sig=3)} in all",
              smem_bw, "compute", "h100.smem_per_sm x h100.sms, h100.smem_bandwidth (vendor value, derived)",
              book=f"book: {fmt(hw('h100.smem_bandwidth'), 'auto', sig=2)} (the A100's)"),
        Level("L2 cache", "the whole chip", fmt(hw("h100.l2_capacity"), "auto", sig=3), hw("h100.l2_bandwidth"), "memory",
              "h100.l2_capacity, h100.l2_bandwidth"),
        Level("HBM", "the device", fmt(hw("h100.hbm_capacity"), "auto", sig=3), hw("h100.hbm_bandwidth"), "memory",
              "h100.hbm_capacity, h100.hbm_bandwidth"),
        Level("host DDR5", "the node's CPUs", f"{fmt(hw('dgx_h100.host_dram'), 'auto', sig=3)} per node", hw("ddr5.server_bandwidth"),
              "host", "dgx_h100.host_dram, ddr5.server_bandwidth"),
    ]


def memory_hierarchy(device: str = "h100"):
    """Fig. 28.1: execution scopes (left) beside storage levels (right), widest = largest.

    Each level's box is as wide as log10 of its capacity allows, so the pyramid's shape is the
    catalog's; the arrow between HBM and the host carries the PCIe Gen5 x16 per-direction rate.
    """
    levels = hierarchy_levels(device)
    fig, ax = canvas(12, 7.2, size=(9.0, 5.4),
                     title="Fig. 28.1 — the H100's storage hierarchy (numbers from the catalog)")
    n = len(levels)
    row_h, gap, top = 0.9, 0.42, 6.6
    widths = np.linspace(2.6, 6.4, n)          # wider further down: more capacity, less bandwidth
    cx = 7.6                                    # centre of the storage column
    ys = []
    for i, lv in enumerate(levels):
        y = top - (i + 1) * row_h - i * gap - (0.35 if i == n - 1 else 0.0)
        ys.append(y)
        w = widths[i]
        box(ax, cx - w / 2, y, w, row_h, "", kind=lv.kind, alpha=0.28)
        label(ax, cx, y + row_h * 0.66, lv.name, fontsize=10, fontweight="bold")
        label(ax, cx, y + row_h * 0.28, lv.capacity, fontsize=8.5)
        if lv.bandwidth is None:
            bw = "no single figure (\u201chundreds of TB/s\u201d)" + (f"\ncapacity, {lv.book}" if lv.book else "")
        else:
            bw = fmt(lv.bandwidth, "auto", sig=3) + (f" (vendor, derived)\n{lv.book}" if lv.book else "")
        label(ax, cx + w / 2 + 0.15, y + row_h / 2, bw, fontsize=8.5, ha="left")
        # execution scope on the left, joined by a dotted line
        label(ax, 1.55, y + row_h / 2, lv.scope, fontsize=8.5, ha="center", style="italic")
        ax.plot([2.9, cx - w / 2 - 0.05], [y + row_h / 2] * 2, ls=":", color=PALETTE["idle"], lw=1)
    label(ax, 1.55, top + 0.3, "who uses it", fontsize=9, fontweight="bold")
    label(ax, cx, top + 0.3, "level: capacity", fontsize=9, fontweight="bold")
    label(ax, 10.9, top + 0.3, "bandwidth", fontsize=9, fontweight="bold")
    # the PCIe hop between HBM and host
    y_hbm, y_host = ys[3], ys[4]
    pcie = hw("pcie.gen5_x16")
    arrow(ax, (cx - 2.2, y_hbm), (cx - 2.2, y_host + row_h), "", kind="host", both=True, width=2)
    label(ax, cx - 2.35, (y_hbm + y_host + row_h) / 2, f"PCIe Gen5 x16: {fmt(pcie, 'auto', sig=3)} per direction",
          fontsize=8.5, ha="right")
    ax.annotate("", xy=(0.35, ys[-1] + row_h), xytext=(0.35, ys[0]),
                arrowprops=dict(arrowstyle="-|>", color=PALETTE["text"], lw=1.2))
    label(ax, 0.18, (ys[0] + ys[-1] + row_h) / 2, "larger, slower", fontsize=8, rotation=90)
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
    ax.text(-0.45, cap * 1.08, f"HBM per GPU: {cap:.0f} GB", ha="left", fontsize=9)   # over the first bar's gap, clear of the totals
    ax.set_xticks(x, [r[0] for r in rows], fontsize=8.5)
    ax.set_yscale("log")
    ax.set_ylim(10, 6000)
    ax.set_ylabel("per-GPU memory (GB, log scale)")
    ax.set_title(f"{P / 1e9:.0f}B training state per GPU, layout by layout, against the HBM line")
    ax.legend(fontsize=8, ncol=3, loc="upper right")
    fig.tight_layout()
    return fig


# ----------------------------------------------------------------------------- §2.7b memory tiers
def tier_rows(nodes=128, token_rate=Q_(500_000, "token/s"), bytes_per_token=Q_(2, "byte/token")):
    """``[(tier, bandwidth)]`` fastest first: one H100's HBM, the node's DDR5, PCIe Gen5 x16, one
    NVMe drive (GPUDirect Storage), one node's share of the shared file system (the text's
    aggregate over ``nodes``, and its per-node range under load), and the raw token stream."""
    return [("HBM, one H100", hw("h100.hbm_bandwidth")),
            ("host DDR5 (book's figure)", hw("ddr5.server_bandwidth")),
            ("PCIe Gen5 x16, one way", hw("pcie.gen5_x16")),
            ("one NVMe drive (GDS)", hw("node_storage.nvme_gds_low")),
            (f"shared FS / {nodes} nodes", per_share(hw("node_storage.lustre_aggregate"), nodes)),
            ("shared FS per node, loaded", hw("node_storage.shared_per_node_low")),
            ("raw token ids, whole cluster", token_read_bandwidth(token_rate, bytes_per_token))]


def memory_tiers(**kw):
    """§2.7b (ours): the tiers' bandwidths as horizontal bars on one log axis; the storage rungs
    and the token stream in their own colours."""
    rows = tier_rows(**kw)
    fig = _figure((8.0, 3.6))
    fig.suptitle("The node's tiers to scale: where a training batch comes from", fontsize=11, y=0.97)
    ax = fig.add_axes((0.30, 0.15, 0.66, 0.72))
    names = [n for n, _ in rows][::-1]
    vals = [b.to("GB/s").magnitude for _, b in rows][::-1]
    colours = [PALETTE["fault"] if "token" in n else (PALETTE["storage"] if ("FS" in n or "NVMe" in n) else PALETTE["memory"])
               for n in names]
    ax.barh(range(len(names)), vals, color=colours, alpha=0.75)
    ax.set_xscale("log")
    ax.set_yticks(range(len(names)))
    ax.set_yticklabels(names, fontsize=8)
    for i, (n, v) in enumerate(zip(names, vals)):
        ax.text(v * 1.15, i, fmt(Q_(v, "GB/s"), "auto", sig=3), va="center", fontsize=8)
    ax.set_xlim(min(vals) / 3, max(vals) * 20)
    ax.set_xlabel("bandwidth (GB/s, log)", fontsize=9)
    ax.tick_params(labelsize=8)
    return fig
