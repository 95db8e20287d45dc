"""Pod topologies (the books' Fig. 2.13): a three-tier fat-tree beside a 2-D torus with wrap-around
links, drawn small enough to read and labelled from the fabric calculators (hosts, switches,
links, oversubscription, bisection, diameter)."""
from __future__ import annotations

from fleetcalc.core.catalog import hw
from fleetcalc.physics.fabric import (bisection_bandwidth, fat_tree_hosts, fat_tree_links, fat_tree_switches, oversubscription,
                      torus_bisection_links, torus_diameter, torus_neighbors, torus_nodes)
from fleetcalc.core.units import fmt
from fleetcalc.core.validate import InputError
from fleetcalc.ui.diagrams.draw import PALETTE, label

__all__ = ["pod_topologies"]


def _fat_tree(ax, k, up_per_leaf):
    """Draw a k-ary three-tier fat-tree (k pods); leaves keep k/2 host ports and use
    ``up_per_leaf`` of their k/2 uplinks, so the leaf layer's oversubscription is (k/2)/up."""
    h = k // 2
    n_core, n_pods = h * h, k
    hosts_x = [i for i in range(n_pods * h * h)]
    W = float(len(hosts_x))
    ys = {"core": 3.0, "spine": 2.0, "leaf": 1.0, "host": 0.0}

    def xs(n):
        return [(i + 0.5) * W / n for i in range(n)]

    core, spine, leaf, host = xs(n_core), xs(n_pods * h), xs(n_pods * h), xs(n_pods * h * h)
    line = dict(color=PALETTE["network"], lw=0.7, alpha=0.7)
    for p in range(n_pods):
        for a in range(h):
            s = p * h + a
            for c in range(h):                      # spine a of each pod -> core group a
                ax.plot([spine[s], core[a * h + c]], [ys["spine"], ys["core"]], **line)
            for e in range(h):                      # leaf e -> spine a, only the first up_per_leaf spines
                if a < up_per_leaf:
                    ax.plot([spine[s], leaf[p * h + e]], [ys["spine"], ys["leaf"]], **line)
        for e in range(h):
            for j in range(h):
                ax.plot([leaf[p * h + e], host[(p * h + e) * h + j]], [ys["leaf"], ys["host"]], **line)
    for name, pts, kind, ms in (("core", core, "network", 9), ("spine", spine, "network", 9),
                                ("leaf", leaf, "network", 9), ("host", host, "compute", 6)):
        ax.plot(pts, [ys[name]] * len(pts), "s", color=PALETTE[kind], ms=ms)
        ax.text(-0.8, ys[name], name, ha="right", va="center", fontsize=9, color=PALETTE["text"])
    ax.set_xlim(-4, W + 0.5)
    ax.set_ylim(-1.6, 3.6)
    ax.axis("off")


def _torus(ax, nx, ny):
    pts = {(i, j): (i, j) for i in range(nx) for j in range(ny)}
    line = dict(color=PALETTE["network"], lw=1.2)
    for (i, j), (x, y) in pts.items():
        if i + 1 < nx:
            ax.plot([x, x + 1], [y, y], **line)
        if j + 1 < ny:
            ax.plot([x, x], [y, y + 1], **line)
    wrap = dict(color=PALETTE["network"], lw=1.2, ls=(0, (2, 2)))
    for j in range(ny):                            # wrap-around links: stubs leaving one edge, entering the other
        ax.plot([-0.45, 0], [j, j], **wrap)
        ax.plot([nx - 1, nx - 0.55], [j, j], **wrap)
    for i in range(nx):
        ax.plot([i, i], [-0.45, 0], **wrap)
        ax.plot([i, i], [ny - 1, ny - 0.55], **wrap)
    xs, ys = zip(*pts.values())
    ax.plot(xs, ys, "o", color=PALETTE["compute"], ms=9)
    cut = nx / 2 - 0.5
    ax.plot([cut, cut], [-0.8, ny - 0.2], color=PALETTE["fault"], lw=1.5, ls="--")
    ax.set_xlim(-1.2, nx + 0.2)
    ax.set_ylim(-2.2, ny + 0.4)
    ax.set_aspect("equal")
    ax.axis("off")


def pod_topologies(k=4, up_per_leaf=None, torus=(4, 4), link="infiniband_ndr.port_rate"):
    """Fig. 2.13 (ours): a k-ary three-tier fat-tree (left) and a 2-D torus (right).

    ``up_per_leaf`` (default k/2, non-blocking) thins the leaf uplinks to show oversubscription;
    ``link`` is the catalog entry for one link's rate, used for the fat-tree's bisection."""
    from matplotlib.figure import Figure

    if k not in (4, 6):
        raise InputError(f"k must be 4 or 6 to stay legible in a drawing (the calculators take any even k); got {k}")
    h = k // 2
    up = h if up_per_leaf is None else int(up_per_leaf)
    if not 1 <= up <= h:
        raise InputError(f"up_per_leaf must be between 1 and k/2 = {h}; got {up_per_leaf}")
    nx, ny = (int(d) for d in torus)
    if not (2 <= nx <= 8 and 2 <= ny <= 8) or nx % 2:
        raise InputError(f"torus must be 2-8 nodes a side with an even first side; got {torus}")
    osr = oversubscription(h, up)
    n_hosts = fat_tree_hosts(k, 3)
    bw = bisection_bandwidth(int(n_hosts.magnitude), hw(link), osr)
    fig = Figure(figsize=(10.0, 4.2), dpi=100)
    fig.suptitle("Fig. 2.13 (ours): two pod topologies, a 3-tier fat-tree and a 2-D torus", fontsize=11, y=0.98)
    ax1 = fig.add_axes((0.01, 0.02, 0.58, 0.86))
    _fat_tree(ax1, k, up)
    ax1.text(0.5, -1.2,
             f"k = {k}: {fmt(n_hosts, None, 0)} hosts, {fmt(fat_tree_switches(k, 3), None, 0)} switches, "
             f"{fmt(fat_tree_links(k, 3), None, 0)} cables (full tree)\n"
             f"leaf oversubscription {fmt(osr, None, 0 if float(osr.magnitude).is_integer() else 2)}:1 "
             f"({h} ports down, {up} up)\nbisection {fmt(bw, 'auto', sig=3)} at {fmt(hw(link), 'auto', sig=3)} per link",
             fontsize=8.5, ha="left", va="center", transform=ax1.transData)
    ax2 = fig.add_axes((0.62, 0.02, 0.37, 0.86))
    _torus(ax2, nx, ny)
    ax2.text((nx - 1) / 2, -1.5,
             f"{nx} x {ny} torus: {fmt(torus_nodes((nx, ny)), None, 0)} nodes, {fmt(torus_neighbors(2), None, 0)} links each\n"
             f"diameter {fmt(torus_diameter((nx, ny)), None, 0)} hops; the dashed cut crosses "
             f"{fmt(torus_bisection_links((nx, ny)), None, 0)} links\n(dotted stubs: wrap-around links to the opposite edge)",
             fontsize=8.5, ha="center", va="center")
    return fig
