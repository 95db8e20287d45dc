"""Fig. 28.6 redrawn: a cluster's logical networks and data paths (Ch. 28 §28.7).

Four kinds of traffic -- management (control plane), compute (collectives), storage (data,
weights, checkpoints) and serving (requests and streamed answers) -- drawn twice: on physically
separate networks, and on one shared network where they are kept apart by isolation (traffic
classes, VLANs, quotas). The shared version marks what a single switch fault takes down at once.

Link bandwidths on the picture come from the catalog (:func:`fleetcalc.core.catalog.hw`) or are handed
in by the caller (a scenario's storage path), never typed here.
"""
from __future__ import annotations

from fleetcalc.core.catalog import hw
from fleetcalc.core.units import as_quantity, fmt
from fleetcalc.ui.diagrams.draw import PALETTE, arrow, box, canvas, label

__all__ = ["logical_networks", "TRAFFIC", "DEFAULT_LINKS"]

#: The four traffic classes, each with its colour and what it carries.
TRAFFIC = {
    "management": ("host", "admission, versions, health"),
    "compute": ("network", "collectives"),
    "storage": ("storage", "data, weights, checkpoints"),
    "serving": ("fault", "requests, streamed tokens"),
}

#: Catalog entries the picture labels (Vol. 2 Ch. 1 §1.3, Figure 1.3).
DEFAULT_LINKS = {"scale_up": "vol2_ch1.node.nvlink", "nic": "vol2_ch1.fabric.infiniband_400"}


def _nodes(ax, x0, scale_up):
    """Control plane, clients, two training nodes, a serving node and storage; returns anchors."""
    box(ax, x0 + 0.2, 5.7, 2.8, 0.9, "control plane\nscheduler · admission", kind="host", alpha=0.45, fontsize=8)
    box(ax, x0 + 6.7, 5.7, 2.7, 0.9, "clients", kind="fault", alpha=0.3, fontsize=8.5)
    su = fmt(scale_up, "auto", sig=3)
    box(ax, x0 + 0.2, 3.1, 2.3, 1.3, f"train node 0\n8 accelerators\nscale-up {su}", kind="compute",
        alpha=0.3, fontsize=8)
    box(ax, x0 + 2.9, 3.1, 2.3, 1.3, f"train node 1\n8 accelerators\nscale-up {su}", kind="compute",
        alpha=0.3, fontsize=8)
    box(ax, x0 + 6.7, 3.1, 2.7, 1.3, "serving replica\nweights + KV cache", kind="compute",
        alpha=0.18, fontsize=8)
    box(ax, x0 + 3.0, 0.35, 3.4, 0.85, "shared storage", kind="storage", alpha=0.35, fontsize=8.5)
    return {"cp": (x0 + 1.6, 5.7), "cl": (x0 + 8.05, 5.7), "t0": (x0 + 1.35, 3.1), "t1": (x0 + 4.05, 3.1),
            "sv": (x0 + 8.05, 3.1), "st": (x0 + 4.7, 1.2)}


def _line(ax, pts, kind, width=2.0, style="-"):
    xs, ys = zip(*pts)
    ax.plot(xs, ys, color=PALETTE[TRAFFIC[kind][0]], lw=width, linestyle=style, solid_capstyle="butt")


def _separate(ax, x0, scale_up, nic, storage_path):
    a = _nodes(ax, x0, scale_up)
    label(ax, x0 + 4.8, 7.05, "(a) physically separate networks", fontsize=9.5, weight="bold")
    # management: a bus at y = 5.2 reaching the control plane and every node's top
    _line(ax, [(x0 + 0.5, 5.2), (x0 + 9.1, 5.2)], "management", 1.4, "--")
    _line(ax, [(a["cp"][0], 5.2), (a["cp"][0], 5.7)], "management", 1.4, "--")
    for k in ("t0", "t1", "sv"):
        _line(ax, [(a[k][0] - 0.5, 5.2), (a[k][0] - 0.5, 4.4)], "management", 1.4, "--")
    # compute fabric between the training nodes, below them
    _line(ax, [(x0 + 1.0, 2.55), (x0 + 4.5, 2.55)], "compute", 3.2)
    for k in ("t0", "t1"):
        _line(ax, [(a[k][0] - 0.35, 2.55), (a[k][0] - 0.35, 3.1)], "compute", 3.2)
    label(ax, x0 + 2.75, 2.3, f"compute fabric, {fmt(nic, 'auto', sig=3)} per NIC", fontsize=8)
    # storage network to storage
    _line(ax, [(x0 + 1.7, 1.75), (x0 + 8.4, 1.75)], "storage", 2.2)
    for k in ("t0", "t1", "sv"):
        _line(ax, [(a[k][0] + 0.35, 1.75), (a[k][0] + 0.35, 3.1)], "storage", 2.2)
    _line(ax, [(a["st"][0], 1.2), (a["st"][0], 1.75)], "storage", 2.2)
    if storage_path is not None:
        label(ax, x0 + 7.9, 1.45, f"storage path {fmt(storage_path, 'auto', sig=3)}", fontsize=8)
    # serving traffic: clients <-> serving replica
    arrow(ax, (a["cl"][0] + 0.4, 5.7), (a["sv"][0] + 0.4, 4.4), kind=PALETTE["fault"], width=2.0, both=True)


def _shared(ax, x0, scale_up, nic):
    a = _nodes(ax, x0, scale_up)
    label(ax, x0 + 4.8, 7.05, "(b) one shared network, isolated classes", fontsize=9.5, weight="bold")
    sw = (x0 + 4.7, 4.95)
    box(ax, sw[0] - 1.0, sw[1] - 0.3, 2.0, 0.6, "", kind="idle", alpha=0.35)
    label(ax, sw[0], sw[1], "shared switch", fontsize=8)
    classes = {"cp": ["management"], "cl": ["serving"], "t0": ["management", "compute", "storage"],
               "t1": ["management", "compute", "storage"], "sv": ["management", "storage", "serving"],
               "st": ["storage"]}
    for k, kinds in classes.items():
        x, y = a[k]
        top = y + (0 if k in ("cp", "cl") else (1.3 if k != "st" else 0))
        end = (sw[0] + (x - sw[0]) * 0.25, sw[1] + (0.3 if y > sw[1] else -0.3))
        for i, kind in enumerate(kinds):
            dx = (i - (len(kinds) - 1) / 2) * 0.12
            _line(ax, [(x + dx, top), (end[0] + dx, end[1])], kind, 1.6)
    ax.text(sw[0] + 1.15, sw[1] + 0.05, "✕", color=PALETTE["fault"], fontsize=16, weight="bold",
            ha="left", va="center")
    ax.text(x0 + 8.0, 1.85, "one switch fault stalls\nscheduling, collectives,\ncheckpoints and serving\n"
            "together: correlated failures", fontsize=8, color=PALETTE["fault"], ha="center", va="center")
    label(ax, x0 + 1.7, 1.85, f"ports ({fmt(nic, 'auto', sig=3)} each)\nshared by quota\nand traffic class",
          fontsize=8)


def logical_networks(*, scale_up=None, nic=None, storage_path=None):
    """Fig. 28.6: the same cluster with separate networks (a) and one isolated shared network (b).

    ``scale_up`` and ``nic`` default to the catalog's Vol. 2 Figure 1.3 values (NVLink inside a
    node, a 400 Gb/s InfiniBand NIC); ``storage_path`` (optional) labels the storage network, e.g.
    Example 27.2's shared path.
    """
    scale_up = as_quantity(scale_up) if scale_up is not None else hw(DEFAULT_LINKS["scale_up"])
    nic = as_quantity(nic) if nic is not None else hw(DEFAULT_LINKS["nic"])
    storage_path = as_quantity(storage_path) if storage_path is not None else None
    fig, ax = canvas(20, 7.4, size=(12.0, 4.7),
                     title="Fig. 28.6 · one cluster, four kinds of traffic")
    _separate(ax, 0.0, scale_up, nic, storage_path)
    ax.plot([9.95, 9.95], [0.2, 7.3], color=PALETTE["idle"], lw=0.8)
    _shared(ax, 10.2, scale_up, nic)
    # legend row
    for i, (kind, (colour, what)) in enumerate(TRAFFIC.items()):
        x = 0.3 + i * 5.0
        ax.plot([x, x + 0.6], [-0.05, -0.05], color=PALETTE[colour], lw=3,
                linestyle="--" if kind == "management" else "-", clip_on=False)
        ax.text(x + 0.75, -0.05, f"{kind}: {what}", fontsize=8, va="center", color=PALETTE["text"],
                clip_on=False)
    ax.set_ylim(-0.35, 7.4)
    return fig
