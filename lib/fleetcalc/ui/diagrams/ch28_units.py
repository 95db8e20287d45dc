"""§28.1's picture: what a printed link figure leaves for one transfer in one direction.

For each catalog link the chart shows the printed number read naively as GB/s, then the rate one
transfer in one direction can use: bits become bytes through the units library, a two-way sum is
halved by :func:`fleetcalc.physics.links.one_way`. Catalog entries carry their ``direction``;
nothing here types a hardware number.
"""
from __future__ import annotations

from fleetcalc.core.catalog import entry
from fleetcalc.core.units import Q_, fmt
from fleetcalc.physics import links
from fleetcalc.ui.diagrams.draw import PALETTE

__all__ = ["LINKS", "usable_one_way", "printed_vs_usable"]

#: The links drawn: a per-GPU NVLink figure printed as a two-way sum, an NDR port printed in bits,
#: a PCIe Gen5 x16 link printed per direction.
LINKS = ("nvlink4.gpu_bandwidth", "infiniband_ndr.port_rate", "pcie.gen5_x16")


def usable_one_way(path: str):
    """(printed number taken as GB/s, what one one-way transfer can use in GB/s) for a catalog entry."""
    e = entry(path)
    q = e.quantity
    naive = Q_(q.magnitude, "GB/s")                       # the number as a reader might take it
    rate = q.to("byte/s")
    if e.direction == "both-ways":
        rate = links.one_way(rate)
    return naive, rate.to("GB/s")


def printed_vs_usable(paths=LINKS):
    """Horizontal bars: the printed figure read as GB/s (grey) beside the one-way byte rate (colour)."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(8.4, 3.0), dpi=100)
    ax = fig.add_subplot(1, 1, 1)
    names = []
    for i, p in enumerate(paths):
        e = entry(p)
        naive, usable = usable_one_way(p)
        y = len(paths) - 1 - i
        ax.barh(y + 0.18, naive.magnitude, height=0.34, color=PALETTE["idle"])
        ax.barh(y - 0.18, usable.magnitude, height=0.34, color=PALETTE["network"])
        ax.text(naive.magnitude, y + 0.18, f"  printed: {fmt(e.quantity, 'auto', sig=3)} ({e.direction})",
                va="center", fontsize=8.5)
        ax.text(usable.magnitude, y - 0.18, f"  one transfer, one way: {fmt(usable, 'GB/s', sig=3)}",
                va="center", fontsize=8.5)
        names.append(e.label or p)
    ax.set_yticks(range(len(paths)))
    ax.set_yticklabels(list(reversed(names)), fontsize=8.5)
    ax.set_xlabel("GB/s")
    ax.set_xlim(0, 1600)
    ax.set_title("§28.1 — the number on the sheet and the rate one transfer gets", fontsize=11)
    fig.tight_layout()
    return fig
