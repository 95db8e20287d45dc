"""Fig. 28.3 redrawn: device affinity in a dual-socket (two NUMA node) server.

Ch. 28 Fig. 28.3 shows that the same count of devices can give different data paths. We draw a
DGX H100-like node from the catalog (Vol. 2 §2.6, line 2010-2012: two CPUs, each a PCIe root
complex; 8 GPUs, 8 InfiniBand HCAs, half behind each CPU; an NVLink/NVSwitch fabric between the
GPUs) and highlight the routes that cross the socket interconnect. The labels are catalog values
(``hw``) or calculator results (:func:`fleetcalc.physics.pipeline.effective_bandwidth_numa` for the socket hop).

The routing is physics (:func:`fleetcalc.physics.node.route`, :func:`~fleetcalc.physics.node.crosses_socket`):
a route is the list of components a transfer passes, and it crosses the socket link exactly when
its two ends sit under different CPUs. This module only draws it.
"""
from __future__ import annotations

from fleetcalc.core.catalog import hw
from fleetcalc.physics.node import Layout, crosses_socket, layout, route, socket_of
from fleetcalc.physics.pipeline import effective_bandwidth_numa
from fleetcalc.core.units import fmt
from fleetcalc.ui.diagrams.draw import PALETTE, arrow, box, canvas, label
from fleetcalc.physics import links, node
from fleetcalc.ui.diagrams.draw import subplots as _subplots

__all__ = ["Layout", "layout", "route", "crosses_socket", "socket_of", "numa_node", "EXAMPLE_ROUTES", "SISTER_ROUTES", "route_segments", "numa_affinity", "ladder_tiers", "bandwidth_ladder"]

#: The routes the figure highlights by default: Exercise 28.4's path (pages already on NUMA 1,
#: GPU on NUMA 0), a GPU sending through the far socket's NIC, and the short path Fig. 28.3 wants.
EXAMPLE_ROUTES = {
    "Ex. 28.4: pages on NUMA 1 -> GPU 0": ("dram1", "gpu0"),
    "GPU 1 -> NIC on the other socket": ("gpu1", "nic5"),
    "GPU 0 -> NIC under its own switch (short)": ("gpu0", "nic0"),
}


def _positions(lay: Layout):
    pos = {}
    half = 6.0
    for c in range(2):
        x0 = c * half
        pos[f"dram{c}"] = (x0 + 0.5, 6.2, 5.0, 0.7)
        pos[f"cpu{c}"] = (x0 + 1.5, 4.95, 3.0, 0.75)
        for k in range(2):
            s = 2 * c + k
            sx = x0 + 0.3 + k * 2.85
            pos[f"sw{s}"] = (sx, 3.55, 2.55, 0.6)
            slots = 2 * lay.per_switch
            w = 2.55 / slots - 0.08
            for j in range(lay.per_switch):
                g = s * lay.per_switch + j
                gx = sx + 2 * j * (w + 0.08)
                pos[f"gpu{g}"] = (gx, 1.75, w, 0.8)
                pos[f"nic{g}"] = (gx + w + 0.08, 1.75, w, 0.8)
    return pos


def _centre(p, where="mid"):
    x, y, w, h = p
    return (x + w / 2, {"top": y + h, "bottom": y, "mid": y + h / 2}[where])


def numa_node(routes=None, gpus=None):
    """Fig. 28.3: two sockets, their DRAM, PCIe switches, NICs and GPUs, the NVLink fabric, and
    ``routes`` (name -> (from, to)) drawn over it; routes that cross the socket link are red.

    Returns the figure. Numbers on it: PCIe Gen5 x16 per direction, NVLink 4 per GPU (both ways),
    InfiniBand NDR per NIC, and the socket hop's worst case from ``effective_bandwidth_numa``.
    """
    lay = layout(gpus=gpus, nics=gpus)
    routes = EXAMPLE_ROUTES if routes is None else routes
    pos = _positions(lay)
    fig, ax = canvas(12, 7.5, size=(9.6, 6.0),
                     title="Fig. 28.3 — device affinity in a two-socket node (DGX H100 counts from the catalog)")
    pcie = hw("pcie.gen5_x16")
    numa = effective_bandwidth_numa(pcie, hw("pcie.numa_penalty"))
    for name, p in pos.items():
        kind = {"dra": "host", "cpu": "host", "sw": "storage", "nic": "network", "gpu": "compute"}[
            name[:3] if name[:3] in ("dra", "cpu", "nic", "gpu") else "sw"]
        txt = {"dra": f"DDR5 memory, NUMA node {name[-1]}", "cpu": f"CPU {name[-1]} (root complex)",
               "sw": f"PCIe switch {name[2:]}", "nic": f"NIC\n{name[3:]}", "gpu": f"GPU\n{name[3:]}"}[
            name[:3] if name[:3] in ("dra", "cpu", "nic", "gpu") else "sw"]
        box(ax, *p, txt, kind=kind, alpha=0.22, fontsize=8.5 if kind != "network" else 8)
    # tree links (thin grey)
    for child, par in lay.parent.items():
        if par is None:
            continue
        a, b = _centre(pos[child], "top" if not child.startswith("dram") else "bottom"), \
            _centre(pos[par], "bottom" if not child.startswith("dram") else "top")
        ax.plot([a[0], b[0]], [a[1], b[1]], color=PALETTE["idle"], lw=1.3, zorder=0)
    # NVLink fabric under the GPUs
    gy = 0.35
    box(ax, 0.3, gy, 11.4, 0.5, f"NVLink / NVSwitch fabric: {fmt(hw('nvlink4.gpu_bandwidth'), 'auto', sig=3)} per GPU "
        f"(both ways summed) — GPU-to-GPU traffic never touches PCIe", kind="compute", alpha=0.15, fontsize=8.5)
    for g in range(lay.gpus):
        x = _centre(pos[f"gpu{g}"])[0]
        ax.plot([x, x], [gy + 0.5, pos[f"gpu{g}"][1]], color=PALETTE["compute"], lw=1.0, alpha=0.6, zorder=0)
    # socket interconnect
    c0, c1 = pos["cpu0"], pos["cpu1"]
    arrow(ax, (c0[0] + c0[2], c0[1] + c0[3] / 2), (c1[0], c1[1] + c1[3] / 2), "", kind="fault", both=True, width=2.5)
    label(ax, 6.0, 5.92, "socket link (UPI / Infinity Fabric)", fontsize=8.5)
    ax.text(6.0, 4.72, f"as little as {fmt(numa, 'auto', sig=3)}\nof a {fmt(pcie, 'auto', sig=3)} path",
            ha="center", va="center", fontsize=8, color=PALETTE["fault"])
    label(ax, 0.3, 4.45, f"PCIe Gen5 x16 links:\n{fmt(pcie, 'auto', sig=3)} per direction", fontsize=8, ha="left")
    label(ax, 11.7, 4.45, f"each NIC (InfiniBand NDR):\n{fmt(hw('infiniband_ndr.per_gpu'), 'auto', sig=3)} one way", fontsize=8, ha="right")
    # routes
    styles = []
    for i, (name, (a, b)) in enumerate(routes.items()):
        r = route(lay, a, b)
        far = "socket link" in r
        color = PALETTE["fault"] if far else PALETTE["memory"]
        dx = (i - 1) * 0.12
        pts = []
        for node in r:
            if node == "socket link":
                continue
            where = "top" if node[:3] in ("gpu", "nic") else "bottom" if node.startswith("dram") else "mid"
            x, y = _centre(pos[node], where)
            pts.append((x + dx, y + (dx if where == "mid" else 0.0)))
        ax.plot([p[0] for p in pts], [p[1] for p in pts], color=color, lw=3.2, alpha=0.75,
                ls="-" if i % 2 == 0 else "--", zorder=2)
        ax.plot(*pts[0], "o", color=color, ms=7, zorder=4)
        ax.plot(*pts[-1], "s", color=color, ms=7, zorder=4)
        styles.append((name, color, "-" if i % 2 == 0 else "--", far))
    for i, (name, color, ls, far) in enumerate(styles):
        y = 7.25 - (i % 2) * 0.32
        x = 0.3 + (i // 2) * 6.0
        ax.plot([x, x + 0.45], [y, y], color=color, lw=3, ls=ls)
        ax.text(x + 0.55, y, name + (" — crosses sockets" if far else ""), fontsize=8, va="center",
                color=PALETTE["text"])
    return fig


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
        ax.text(gbs * 1.15, i, f"{fmt(bw, 'GB/s', 0)}  ({joins})", va="center", fontsize=8.5)
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
