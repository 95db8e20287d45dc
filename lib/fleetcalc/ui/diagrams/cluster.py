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
from fleetcalc.ui.diagrams.draw import figure as _figure

__all__ = ["logical_networks", "TRAFFIC", "DEFAULT_LINKS", "SHARED_CLASSES", "traffic_classes", "CHAIN", "CHAIN_LABELS", "chain_hours", "time_chain_waterfall"]

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
    su = fmt(scale_up, "auto", sig=3) + " per GPU (both ways)"
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


def _traffic_legend(ax, y: float) -> None:
    """The legend row under both Fig. 28.6 drawings: one line style and colour per traffic class."""
    for i, (kind, (colour, what)) in enumerate(TRAFFIC.items()):
        x = 0.3 + i * 5.0
        ax.plot([x, x + 0.6], [y, y], color=PALETTE[colour], lw=3,
                linestyle="--" if kind == "management" else "-", clip_on=False)
        ax.text(x + 0.75, y, f"{kind}: {what}", fontsize=8, va="center", color=PALETTE["text"], clip_on=False)


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
    _traffic_legend(ax, -0.05)
    ax.set_ylim(-0.35, 7.4)
    return fig


#: Which traffic classes each component sends into the network (panel b's bundles).
SHARED_CLASSES = {"cp": ("management",), "cl": ("serving",), "t0": ("management", "compute", "storage"),
                  "t1": ("management", "compute", "storage"), "sv": ("management", "storage", "serving"),
                  "st": ("storage",)}


# component boxes, in panel coordinates (x, y, w, h); a panel is 9.6 wide and 7 high
_BOX = {"cp": (0.1, 5.8, 2.7, 0.85), "cl": (6.8, 5.8, 2.7, 0.85), "t0": (0.6, 3.3, 2.3, 1.3),
        "t1": (3.35, 3.3, 2.3, 1.3), "sv": (6.6, 3.3, 2.6, 1.3), "st": (3.0, 0.3, 3.6, 0.8)}


def _colour(kind):
    return PALETTE[TRAFFIC[kind][0]]


def _seg(ax, pts, kind, lw=2.2):
    xs, ys = zip(*pts)
    ax.plot(xs, ys, color=_colour(kind), lw=lw, ls="--" if kind == "management" else "-", solid_capstyle="butt")


def _components(ax, x0, scale_up):
    su = fmt(scale_up, "auto", sig=3) + " per GPU (both ways)"
    text = {"cp": ("control plane\nscheduler · admission", "host", 0.45),
            "cl": ("clients", "fault", 0.3),
            "t0": (f"train node 0\n8 accelerators\nscale-up {su}", "compute", 0.3),
            "t1": (f"train node 1\n8 accelerators\nscale-up {su}", "compute", 0.3),
            "sv": ("serving replica\nweights + KV cache", "compute", 0.18),
            "st": ("shared storage", "storage", 0.35)}
    for k, (x, y, w, h) in _BOX.items():
        t, kind, alpha = text[k]
        box(ax, x0 + x, y, w, h, t, kind=kind, alpha=alpha, fontsize=8)


def _separate_classes(ax, x0, scale_up, nic, storage_path):
    _components(ax, x0, scale_up)
    label(ax, x0 + 4.8, 7.05, "(a) four separate networks", fontsize=9.5, weight="bold")
    X = lambda k, f: x0 + _BOX[k][0] + f * _BOX[k][2]          # a point f of the way along a box
    top = lambda k: _BOX[k][1] + _BOX[k][3]
    # management: a bus above the nodes, from the control plane down to each node's top-left
    y_m = 5.2
    _seg(ax, [(X("cp", 0.15), _BOX["cp"][1]), (X("cp", 0.15), y_m), (X("sv", 0.2), y_m)], "management", 1.6)
    for k in ("t0", "t1", "sv"):
        _seg(ax, [(X(k, 0.2), y_m), (X(k, 0.2), top(k))], "management", 1.6)
    # serving: clients straight down to the replica, right of the management bus
    arrow(ax, (X("cl", 0.7), _BOX["cl"][1]), (X("cl", 0.7), top("sv")), kind=_colour("serving"), width=2.2, both=True)
    # compute: a short fabric between the facing sides of the two training nodes
    y_c = 2.75
    _seg(ax, [(X("t0", 0.82), _BOX["t0"][1]), (X("t0", 0.82), y_c), (X("t1", 0.18), y_c), (X("t1", 0.18), _BOX["t1"][1])],
         "compute", 3.0)
    label(ax, (X("t0", 0.82) + X("t1", 0.18)) / 2, 2.45, f"compute fabric\n{fmt(nic, 'auto', sig=3)} per NIC", fontsize=7.5)
    # storage: a bus lower down, from the outer sides of the nodes to the storage box
    y_s = 1.75
    xs = [X("t0", 0.18), X("t1", 0.82), X("sv", 0.5)]
    _seg(ax, [(xs[0], y_s), (xs[-1], y_s)], "storage", 2.2)
    for k, x in zip(("t0", "t1", "sv"), xs):
        _seg(ax, [(x, _BOX[k][1]), (x, y_s)], "storage", 2.2)
    _seg(ax, [(X("st", 0.5), y_s), (X("st", 0.5), top("st"))], "storage", 2.2)
    if storage_path is not None:
        label(ax, X("sv", 0.5), 1.4, f"storage path {fmt(storage_path, 'auto', sig=3)}", fontsize=7.5)
    ax.text(x0 + 1.5, 0.85, "a fault stays\nin its own class", fontsize=7.5, color=PALETTE["memory"], ha="center",
            va="center")


def _shared_classes(ax, x0, scale_up, nic):
    _components(ax, x0, scale_up)
    label(ax, x0 + 4.8, 7.05, "(b) one shared switch, isolated classes", fontsize=9.5, weight="bold")
    sw_y, sw_h = 2.0, 0.55
    box(ax, x0 + 0.1, sw_y, 9.4, sw_h, "", kind="idle", alpha=0.35)
    label(ax, x0 + 4.8, sw_y + sw_h / 2, "shared switch · traffic classes, VLANs, quotas", fontsize=8)
    gap = 0.22
    for k, kinds in SHARED_CLASSES.items():
        x, y, w, h = _BOX[k]
        if k == "cp":                      # down the left edge, outside the node row
            xs, y0, y1 = [x0 + 0.3], y, sw_y + sw_h
        elif k == "cl":                    # down the right edge
            xs, y0, y1 = [x0 + 9.3], y, sw_y + sw_h
        elif k == "st":                    # up from below
            xs, y0, y1 = [x0 + x + w / 2], y + h, sw_y
        else:                              # a bundle of parallel lines from the node's bottom
            xs = [x0 + x + w / 2 + (i - (len(kinds) - 1) / 2) * gap for i in range(len(kinds))]
            y0, y1 = y, sw_y + sw_h
        for xi, kind in zip(xs, kinds):
            _seg(ax, [(xi, y0), (xi, y1)], kind, 1.8)
    ax.text(x0 + 8.65, sw_y + sw_h / 2, "✕", color=PALETTE["fault"], fontsize=15, weight="bold", ha="center",
            va="center")
    ax.text(x0 + 8.2, 0.85, "one switch fault stalls\nscheduling, collectives,\ncheckpoints and serving\n"
            "together: correlated failures", fontsize=7.5, color=PALETTE["fault"], ha="center", va="center")
    label(ax, x0 + 1.5, 0.85, f"ports ({fmt(nic, 'auto', sig=3)} each)\nshared by quota\nand traffic class",
          fontsize=7.5)


def traffic_classes(*, scale_up=None, nic=None, storage_path=None):
    """Fig. 28.6 redrawn: the same cluster on four separate networks (a) and on one shared switch
    with isolated traffic classes (b). ``scale_up`` and ``nic`` default to the catalog's Vol. 2
    Figure 1.3 values; ``storage_path`` (optional) labels the storage network."""
    scale_up = as_quantity(scale_up) if scale_up is not None else hw(DEFAULT_LINKS["scale_up"])
    nic = as_quantity(nic) if nic is not None else hw(DEFAULT_LINKS["nic"])
    storage_path = as_quantity(storage_path) if storage_path is not None else None
    fig, ax = canvas(20, 7.4, size=(12.0, 4.9), title="Fig. 28.6 · one cluster, four kinds of traffic")
    _separate_classes(ax, 0.0, scale_up, nic, storage_path)
    ax.plot([9.95, 9.95], [0.2, 7.3], color=PALETTE["idle"], lw=0.8)
    _shared_classes(ax, 10.2, scale_up, nic)
    _traffic_legend(ax, -0.1)
    ax.set_ylim(-0.4, 7.4)
    return fig


# ----------------------------------------------------------------------------- §2.8b the time chain
#: The book's overhead chain for the 175B pod run (lines 2294-2310): scaling efficiency, then the
#: multipliers for pipeline bubbles, checkpoints, failures and maintenance.
CHAIN = (0.85, (0.05, 0.03, 0.10, 0.05))


CHAIN_LABELS = ("ideal", "÷ scaling 0.85", "× bubbles", "× checkpoints", "× failures", "× maintenance")


def chain_hours(P=175e9, D=300e9, gpus=10_000, peak="h100.peak_fp16", mfu=0.45, chain=CHAIN):
    """The calendar chain in hours: ideal time C / (N R_peak MFU) with C = 6 P D, then each factor
    (:func:`fleetcalc.physics.facility.ideal_training_time`, :func:`~fleetcalc.physics.facility.overhead_chain`)."""
    from fleetcalc.physics.facility import ideal_training_time, overhead_chain
    from fleetcalc.physics.scaling_laws import training_flops

    t0 = ideal_training_time(training_flops(P, D), gpus, hw(peak), mfu)
    return overhead_chain(t0, chain[0], list(chain[1]))


def time_chain_waterfall(P=175e9, D=300e9, gpus=10_000, peak="h100.peak_fp16", mfu=0.45, chain=CHAIN):
    """§2.8b (ours): the calendar chain as a waterfall, each step's added hours stacked on the
    previous total, so the biggest multiplier is the tallest step."""
    hours = [h.to("hour").magnitude for h in chain_hours(P, D, gpus, peak, mfu, chain)]
    fig = _figure((8.0, 3.4))
    fig.suptitle(f"From FLOPs to a calendar: {gpus:,} GPUs at {fmt(hw(peak), 'TFLOP/s', 0)}, MFU {mfu:.0%}",
                 fontsize=11, y=0.97)
    ax = fig.add_axes((0.09, 0.22, 0.88, 0.64))
    prev = 0.0
    for i, (h, name) in enumerate(zip(hours, CHAIN_LABELS)):
        base, height = (0.0, h) if i == 0 else (prev, h - prev)
        ax.bar([i], [height], bottom=[base], color=PALETTE["compute"] if i == 0 else PALETTE["fault"], alpha=0.8, width=0.6)
        ax.text(i, h + max(hours) * 0.02, f"{h:.1f} h" if i in (0, len(hours) - 1) else f"+{h - prev:.1f} h",
                ha="center", fontsize=8)
        prev = h
    ax.set_xticks(range(len(hours)))
    ax.set_xticklabels(CHAIN_LABELS, fontsize=8, rotation=15)
    ax.set_ylabel("hours", fontsize=9)
    ax.set_ylim(0, max(hours) * 1.15)
    ax.tick_params(labelsize=8)
    return fig
