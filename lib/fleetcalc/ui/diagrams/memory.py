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

__all__ = ["Level", "hierarchy_levels", "memory_hierarchy"]


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
