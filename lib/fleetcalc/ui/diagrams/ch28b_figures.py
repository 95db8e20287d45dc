"""Three Ch. 28 figures redrawn so that each says one thing at a glance.

* :func:`numa_affinity` (Fig. 28.3, §28.4): the two-socket node of ``node.py``, but every route is
  drawn only *between* components (it enters a box at one edge and leaves at another), so no route
  runs over a label, and parallel routes keep their own lanes. The default routes are a sister
  case of Exercise 28.4 (pages on NUMA 0 feeding a GPU under socket 1), not the exercise itself.
* :func:`prefetch_comparison` (Algorithm 28.1, §28.4): the same bounded-prefetch timeline twice,
  side by side on one time axis: a loader slower than the compute, then the loader split over
  two workers. Every bar is an interval of :func:`fleetcalc.physics.prefetch.simulate_prefetch`'s
  event log.
* :func:`traffic_classes` (Fig. 28.6, §28.7): one cluster, four kinds of traffic, (a) on separate
  networks and (b) on one shared switch drawn as a wide bar that every node reaches with its own
  bundle of parallel lines, so nothing bunches at a point.

Routes come from :func:`fleetcalc.ui.diagrams.node.route`, stage intervals from the simulation,
link labels from the catalog or calculators; nothing here types a hardware number or a formula.
"""
from __future__ import annotations

import numpy as np

from fleetcalc.core.catalog import hw
from fleetcalc.core.units import Q_, as_quantity, fmt
from fleetcalc.physics.pipeline import effective_bandwidth_numa, pipeline_interval
from fleetcalc.physics.prefetch import queue_length_trace, simulate_prefetch
from fleetcalc.ui.diagrams.cluster import DEFAULT_LINKS, TRAFFIC
from fleetcalc.ui.diagrams.draw import PALETTE, arrow, box, canvas, label
from fleetcalc.ui.diagrams.node import _positions, layout, route
from fleetcalc.ui.diagrams.pipeline import _BUF, LANES, timeline_bars

__all__ = ["SISTER_ROUTES", "route_segments", "numa_affinity", "SISTER_STAGES", "prefetch_comparison",
           "traffic_classes", "SHARED_CLASSES"]

# ----------------------------------------------------------------------------------- Fig. 28.3

#: Default routes: a sister case of Exercise 28.4 (pages first touched on NUMA 0, GPU 5 under
#: socket 1), a GPU sending through a NIC under the other socket, and the short path Fig. 28.3 wants.
SISTER_ROUTES = {
    "pages on NUMA 0 -> GPU 5 (socket 1)": ("dram0", "gpu5"),
    "GPU 2 -> NIC 6 under the other socket": ("gpu2", "nic6"),
    "GPU 0 -> NIC 0 under its own switch": ("gpu0", "nic0"),
}


def _edge(p, side, dx=0.0):
    x, y, w, h = p
    return {"top": (x + w / 2 + dx, y + h), "bottom": (x + w / 2 + dx, y),
            "left": (x, y + h / 2 + dx), "right": (x + w, y + h / 2 + dx)}[side]


def route_segments(lay, pos, a, b, offset=0.0):
    """The straight pieces of the route ``a -> b`` that lie *between* boxes: for each hop, the point
    where it leaves one component and the point where it enters the next (box edges, shifted by
    ``offset`` along the edge so parallel routes keep apart). Returns (segments, crosses_socket)."""
    hops = route(lay, a, b)
    far = "socket link" in hops
    hops = [h for h in hops if h != "socket link"]
    segs = []
    for u, v in zip(hops, hops[1:]):
        pu, pv = pos[u], pos[v]
        if u.startswith("cpu") and v.startswith("cpu"):          # the socket link, drawn sideways
            left, right = (pu, pv) if pu[0] < pv[0] else (pv, pu)
            p0, p1 = _edge(left, "right", offset), _edge(right, "left", offset)
            segs.append((p0, p1) if pu is left else (p1, p0))
            continue
        up = pv[1] > pu[1]                                        # v sits above u
        segs.append((_edge(pu, "top" if up else "bottom", offset), _edge(pv, "bottom" if up else "top", offset)))
    return segs, far


def numa_affinity(routes=None, gpus=None):
    """Fig. 28.3 redrawn: two sockets, their DRAM, PCIe switches, NICs and GPUs and the NVLink
    fabric, with ``routes`` (name -> (from, to)); routes that cross the socket link are orange-red,
    the local one green. Labels: PCIe Gen5 x16 per direction, NVLink 4 per GPU, InfiniBand NDR per
    NIC (catalog) and the socket hop's worst case (``effective_bandwidth_numa``)."""
    lay = layout(gpus=gpus, nics=gpus)
    routes = SISTER_ROUTES if routes is None else routes
    pos = _positions(lay)
    fig, ax = canvas(12, 7.7, size=(9.6, 6.2),
                     title="Fig. 28.3 — which transfers cross the socket link? (DGX H100 counts from the catalog)")
    pcie = hw("pcie.gen5_x16")
    numa = effective_bandwidth_numa(pcie, hw("pcie.numa_penalty"))
    for name, p in pos.items():
        kind = name[:3] if name[:3] in ("dra", "cpu", "nic", "gpu") else "sw"
        colour = {"dra": "host", "cpu": "host", "sw": "storage", "nic": "network", "gpu": "compute"}[kind]
        txt = {"dra": f"DDR5 memory, NUMA node {name[-1]}", "cpu": f"CPU {name[-1]} (root complex)",
               "sw": f"PCIe switch {name[2:]}", "nic": f"NIC\n{name[3:]}", "gpu": f"GPU\n{name[3:]}"}[kind]
        box(ax, *p, txt, kind=colour, alpha=0.22, fontsize=8.5 if kind != "nic" else 8)
    for child, par in lay.parent.items():                         # the node's tree, thin grey
        if par is None:
            continue
        down = child.startswith("dram")
        a, b = _edge(pos[child], "bottom" if down else "top"), _edge(pos[par], "top" if down else "bottom")
        ax.plot([a[0], b[0]], [a[1], b[1]], color=PALETTE["idle"], lw=1.0, zorder=0)
    gy = 0.35
    box(ax, 0.3, gy, 11.4, 0.5, f"NVLink / NVSwitch fabric: {fmt(hw('nvlink4.gpu_bandwidth'), 'auto', sig=3)} per GPU "
        f"(both ways summed) — GPU-to-GPU traffic never touches PCIe", kind="compute", alpha=0.15, fontsize=8.5)
    for g in range(lay.gpus):
        x = pos[f"gpu{g}"][0] + pos[f"gpu{g}"][2] / 2
        ax.plot([x, x], [gy + 0.5, pos[f"gpu{g}"][1]], color=PALETTE["compute"], lw=1.0, alpha=0.6, zorder=0)
    c0, c1 = pos["cpu0"], pos["cpu1"]
    ax.plot([c0[0] + c0[2], c1[0]], [c0[1] + c0[3] / 2] * 2, color=PALETTE["idle"], lw=7, alpha=0.5,
            solid_capstyle="butt", zorder=0)
    label(ax, 6.0, c0[1] + c0[3] + 0.18, "socket link (UPI / Infinity Fabric)", fontsize=8.5)
    ax.text(6.0, c0[1] - 0.28, f"as little as {fmt(numa, 'auto', sig=3)} of a {fmt(pcie, 'auto', sig=3)} path",
            ha="center", va="center", fontsize=8, color=PALETTE["fault"])
    label(ax, 6.3, 7.22, f"PCIe Gen5 x16: {fmt(pcie, 'auto', sig=3)} per direction\n"
          f"each NIC (InfiniBand NDR) {fmt(hw('infiniband_ndr.per_gpu'), 'auto', sig=3)} one way", fontsize=8, ha="left")
    styles = ("-", "--", "-")
    n = len(routes)
    for i, (name, (a, b)) in enumerate(routes.items()):
        off = (i - (n - 1) / 2) * 0.16
        segs, far = route_segments(lay, pos, a, b, off)
        colour = PALETTE["fault"] if far else PALETTE["memory"]
        ls = styles[i % len(styles)]
        for p0, p1 in segs:
            ax.plot([p0[0], p1[0]], [p0[1], p1[1]], color=colour, lw=3.0, ls=ls, alpha=0.9, zorder=3,
                    solid_capstyle="round")
        ax.plot(*segs[0][0], "o", color=colour, ms=7, zorder=4)
        ax.plot(*segs[-1][1], "s", color=colour, ms=7, zorder=4)
        y = 7.45 - (i % 2) * 0.32
        x = 0.3 + (i // 2) * 6.0
        ax.plot([x, x + 0.45], [y, y], color=colour, lw=3, ls=ls)
        ax.text(x + 0.55, y, name + (" — crosses the socket link" if far else " — stays local"), fontsize=8,
                va="center", color=PALETTE["text"])
    return fig


# --------------------------------------------------------------------------- Algorithm 28.1

#: The §28.4 sister case (our own stage times, not the book's): read, prepare, copy, compute.
SISTER_STAGES = (Q_(6, "ms"), Q_(18, "ms"), Q_(5, "ms"), Q_(12, "ms"))


def _timeline(ax, axq, run, K, x_max, title):
    ms = 1e3
    bars = timeline_bars(run)
    for i, lane in enumerate(LANES):
        y = len(LANES) - 1 - i
        for batch, t0, t1, buf in bars[lane]:
            ax.broken_barh([(t0 * ms, (t1 - t0) * ms)], (y - 0.36, 0.72), facecolors=_BUF[buf] if buf >= 0 else PALETTE["host"],
                           alpha=0.85, edgecolor="white")
            ax.text((t0 + t1) / 2 * ms, y, str(batch), ha="center", va="center", fontsize=8.5, color="white",
                    fontweight="bold")
    # compute idle gaps, hatched: the comb of the utilisation graph
    comp = bars["compute"]
    for (_, _, e0, _), (_, s1, _, _) in zip(comp, comp[1:]):
        if s1 - e0 > 1e-9:
            ax.broken_barh([(e0 * ms, (s1 - e0) * ms)], (-0.36, 0.72), facecolors="none", edgecolor=PALETTE["fault"],
                           hatch="///", lw=0.0)
    ax.set_ylim(-0.6, len(LANES) - 0.4)
    ax.set_xlim(0, x_max)
    ax.grid(True, axis="x", alpha=0.25)
    ax.set_title(title, fontsize=9.5)
    t_q, n_q = queue_length_trace(run)
    axq.step(np.asarray(t_q) * ms, n_q, where="post", color=PALETTE["memory"], lw=1.6)
    axq.axhline(K, color=PALETTE["fault"], ls="--", lw=1)
    axq.text(x_max * 0.99, K, f"K = {K}", va="bottom", ha="right", fontsize=8, color=PALETTE["fault"])
    axq.set_ylim(-0.2, K + 0.9)
    axq.set_xlabel("time (ms)", fontsize=9)
    axq.tick_params(labelsize=8.5)
    ax.tick_params(axis="x", labelsize=8.5)


def prefetch_comparison(stages=SISTER_STAGES, split=2, K=2, n_batches=8):
    """Algorithm 28.1 twice on one time axis: ``stages`` (read, prepare, copy, compute) on the left,
    the same with the prepare stage split over ``split`` workers on the right. Returns
    (figure, (run_left, run_right)). Hatched gaps on the compute lane are the device idling."""
    from matplotlib.figure import Figure
    from matplotlib.patches import Patch

    t_r, t_p, t_h, t_g = (as_quantity(s) for s in stages)
    fast = (t_r, t_p / split, t_h, t_g)
    runs = (simulate_prefetch(n_batches, t_r, t_p, t_h, t_g, K), simulate_prefetch(n_batches, *fast, K))
    x_max = 1e3 * max(max(e.time for e in r.events) for r in runs) * 1.02
    fig = Figure(figsize=(11.0, 4.0), dpi=100)
    gs = fig.add_gridspec(2, 2, height_ratios=[3.2, 1], hspace=0.1, wspace=0.06)
    titles = []
    for col, (st, run) in enumerate(zip(((t_r, t_p, t_h, t_g), fast), runs)):
        ax = fig.add_subplot(gs[0, col])
        axq = fig.add_subplot(gs[1, col], sharex=ax)
        slow = ("read", "prepare", "copy", "compute")[int(np.argmax([s.to("ms").magnitude for s in st]))]
        title = (f"prepare {fmt(st[1], 'auto', sig=3)}: one batch every "
                 f"{fmt(pipeline_interval(list(st)), 'auto', sig=3)}, set by {slow}")
        titles.append(title)
        _timeline(ax, axq, run, K, x_max, ("(a) " if col == 0 else "(b) ") + title)
        ax.tick_params(labelbottom=False)
        if col == 0:
            ax.set_yticks(range(len(LANES)), list(reversed(LANES)), fontsize=8.5)
            axq.set_ylabel("host\nqueue", fontsize=8.5)
        else:
            ax.set_yticks(range(len(LANES)), [""] * len(LANES))
            axq.tick_params(labelleft=False)
    fig.legend(handles=[Patch(color=_BUF[0], label="device buffer 0"), Patch(color=_BUF[1], label="device buffer 1"),
                        Patch(color=PALETTE["host"], label="host work"),
                        Patch(facecolor="none", edgecolor=PALETTE["fault"], hatch="///", label="compute idle")],
               fontsize=8.5, loc="upper center", ncol=4, frameon=False, bbox_to_anchor=(0.55, 0.93))
    fig.suptitle(f"Algorithm 28.1, K = {K}: read {fmt(t_r, 'auto', sig=3)}, copy {fmt(t_h, 'auto', sig=3)}, "
                 f"compute {fmt(t_g, 'auto', sig=3)}; the prepare stage on one worker (a) and on {split} (b)",
                 fontsize=10)
    fig.subplots_adjust(left=0.14, right=0.99, top=0.78, bottom=0.12)
    fig._ch28b_titles = titles                    # for the tests: what each panel's title says
    return fig, runs


# ----------------------------------------------------------------------------------- Fig. 28.6

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
    su = fmt(scale_up, "auto", sig=3)
    text = {"cp": ("control plane\nscheduler · admission", "host", 0.45),
            "cl": ("clients", "fault", 0.3),
            "t0": (f"train node 0\n8 accelerators\nscale-up {su}", "compute", 0.3),
            "t1": (f"train node 1\n8 accelerators\nscale-up {su}", "compute", 0.3),
            "sv": ("serving replica\nweights + KV cache", "compute", 0.18),
            "st": ("shared storage", "storage", 0.35)}
    for k, (x, y, w, h) in _BOX.items():
        t, kind, alpha = text[k]
        box(ax, x0 + x, y, w, h, t, kind=kind, alpha=alpha, fontsize=8)


def _separate(ax, x0, scale_up, nic, storage_path):
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


def _shared(ax, x0, scale_up, nic):
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
    _separate(ax, 0.0, scale_up, nic, storage_path)
    ax.plot([9.95, 9.95], [0.2, 7.3], color=PALETTE["idle"], lw=0.8)
    _shared(ax, 10.2, scale_up, nic)
    for i, (kind, (colour, what)) in enumerate(TRAFFIC.items()):
        x = 0.3 + i * 5.0
        ax.plot([x, x + 0.6], [-0.1, -0.1], color=PALETTE[colour], lw=3,
                linestyle="--" if kind == "management" else "-", clip_on=False)
        ax.text(x + 0.75, -0.1, f"{kind}: {what}", fontsize=8, va="center", color=PALETTE["text"], clip_on=False)
    ax.set_ylim(-0.4, 7.4)
    return fig
