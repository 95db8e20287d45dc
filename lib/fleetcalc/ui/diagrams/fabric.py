"""Network-fabric diagrams for Vol. 2 Ch. 3: rails (Fig. 3.9), fat-tree and torus, incast and PFC.

Every number printed on a diagram comes from :mod:`fleetcalc.physics.fabric` or the catalog
(``vol2_ch3_network.toml``), so the pictures cannot disagree with the worked examples:

* :func:`rail_wiring`: Fig. 3.9's rail-optimized wiring (GPU *i* of every node to rail switch *i*),
  labelled with :func:`fleetcalc.physics.fabric.rail_groups` and the switch traversals of a same-rank hop.
* :func:`fat_tree`: two-tier leaf-spine trees built from radix-k switches, one per split of the
  leaf's ports (down to hosts, up to spines); each is labelled with its oversubscription ratio
  (:func:`fleetcalc.physics.fabric.oversubscription`) and bisection bandwidth.
* :func:`torus`: a 2-D torus with its wrap-around links and the links its bisection cuts
  (:func:`fleetcalc.physics.fabric.torus_diameter`, :func:`fleetcalc.physics.fabric.torus_bisection_links`).
* :func:`incast_pfc` / :func:`incast_pfc_frames`: an incast fills a switch buffer, PFC pauses
  spread upstream hop by hop, and a flow that never touches the hot port stops (Fig. 3.11).
"""
from __future__ import annotations

from fleetcalc.physics import fabric
from fleetcalc.core.catalog import hw
from fleetcalc.core.units import fmt
from fleetcalc.ui.diagrams.draw import PALETTE, arrow, box, canvas, label

__all__ = ["rail_layout", "rail_wiring", "fat_tree", "torus", "incast_pfc", "incast_pfc_frames", "incast_pfc_step_plot",
           "PFC_STEPS"]


def _count(q) -> int:
    return int(round(float(getattr(q, "magnitude", q))))


def _line(ax, p, q, *, color, lw=1.2, ls="-", alpha=1.0, z=1):
    ax.plot([p[0], q[0]], [p[1], q[1]], color=color, lw=lw, ls=ls, alpha=alpha, zorder=z)


def _cell(ax, x, y, w, h, text, *, kind="compute", alpha=0.3, fontsize=8):
    """A plain labelled rectangle added without re-computing the data limits (the canvas's limits
    are fixed), for diagrams with many small boxes."""
    from matplotlib.patches import Rectangle

    color = PALETTE.get(kind, kind)
    ax.add_artist(Rectangle((x, y), w, h, facecolor=color, alpha=alpha, edgecolor=color, linewidth=1.0))
    ax.text(x + w / 2, y + h / 2, text, ha="center", va="center", fontsize=fontsize, color=PALETTE["text"])


# ----------------------------------------------------------------------------- Fig. 3.9: rails

def rail_layout(nodes_shown: int, cluster_gpus=None, gpus_per_node=None):
    """(GPUs per node, cluster GPUs, rails, GPUs per rail, rails as a count) for a drawing of
    ``nodes_shown`` nodes, checked for legibility. Defaults: the catalog's 8-GPU H100 node and
    1,024-GPU reference cluster (lines 2815-2839)."""
    per_node = _count(gpus_per_node if gpus_per_node is not None else hw("h100_node.gpus"))
    total = _count(cluster_gpus if cluster_gpus is not None else hw("cluster_1k.gpus"))
    if not 1 <= nodes_shown <= 6:
        raise ValueError(f"nodes_shown must be between 1 and 6 (legibility); got {nodes_shown}")
    if not 2 <= per_node <= 8:
        raise ValueError(f"gpus_per_node must be between 2 and 8 to draw; got {per_node}")
    rails, per_rail = fabric.rail_groups(total, per_node)
    return per_node, total, rails, per_rail, _count(rails)


def rail_wiring(nodes_shown: int = 4, cluster_gpus=None, gpus_per_node=None):
    """Fig. 3.9: ``nodes_shown`` dense nodes, GPU *i* of each cabled to rail switch *i*.

    Defaults: the catalog's 8-GPU H100 node and 1,024-GPU reference cluster (lines 2815-2839).
    """
    per_node, total, rails, per_rail, n_rails = rail_layout(nodes_shown, cluster_gpus, gpus_per_node)
    same_rail = _count(fabric.switch_traversals(1))
    leaf_spine = _count(fabric.switch_traversals(2))
    t_sw = hw("switch64.traversal_latency")

    from fleetcalc.ui.diagrams.v2ch3b_figures import draw_rails   # one drawing of the rails, coloured by rail

    width = nodes_shown * per_node + (nodes_shown - 1) + 1.0
    fig, ax = canvas(width, 10.0, size=(8.6, 4.8),
                     title="Fig. 3.9: rail-optimized wiring (GPU i of every node to rail switch i)")
    draw_rails(ax, None, nodes_shown, cluster_gpus, gpus_per_node, notes=False)
    label(ax, width / 2, 1.35,
          f"{fmt(total, None, 0)} GPUs, {per_node} per node: {n_rails} rails of {fmt(per_rail, None, 0)} GPUs "
          f"(fabric.rail_groups)", fontsize=9)
    label(ax, width / 2, 0.45,
          f"same-rank hop: {same_rail} switch on a rail, {leaf_spine} via leaf-spine-leaf "
          f"({fmt(fabric.path_latency(same_rail, t_sw), 'auto', sig=3)} vs "
          f"{fmt(fabric.path_latency(leaf_spine, t_sw), 'auto', sig=3)})", fontsize=9)
    return fig


# ----------------------------------------------------------------------------- fat-tree

def _draw_leaf_spine(ax, k: int, down: int, link, x0: float, w: float):
    """One two-tier tree: k leaves (one per spine port), ``down`` hosts and k - down uplinks each."""
    up = k - down
    leaves, spines, hosts = k, up, k * down
    ratio = fabric.oversubscription(down * link, up * link)
    bisect = fabric.bisection_bandwidth(hosts, link, ratio)
    host_w = w / hosts
    leaf_w = w / leaves
    spine_w = w / max(spines, 1)
    leaf_c = [x0 + (i + 0.5) * leaf_w for i in range(leaves)]
    spine_c = [x0 + (i + 0.5) * spine_w for i in range(spines)]
    for i, cx in enumerate(spine_c):
        box(ax, cx - 0.4, 6.0, 0.8, 0.7, f"S{i}", kind="network", alpha=0.3, fontsize=8)
    for i, cx in enumerate(leaf_c):
        box(ax, cx - 0.4, 3.6, 0.8, 0.7, f"L{i}", kind="network", alpha=0.18, fontsize=8)
        for sx in spine_c:
            _line(ax, (cx, 4.3), (sx, 6.0), color=PALETTE["network"], lw=1.0, alpha=0.8)
    for h in range(hosts):
        hx = x0 + (h + 0.5) * host_w
        _cell(ax, hx - 0.2, 1.4, 0.4, 0.5, "", alpha=0.45)
        _line(ax, (hx, 1.9), (leaf_c[h // down], 3.6), color=PALETTE["compute"], lw=0.9)
    mid = x0 + w / 2
    _line(ax, (mid, 0.9), (mid, 7.0), color=PALETTE["fault"], lw=1.2, ls="--", z=0)
    label(ax, mid, 0.55, f"{down} down : {up} up per leaf -> oversubscription "
          f"{fmt(ratio, None, sig=3)}:1", fontsize=8.5)
    label(ax, mid, 0.1, f"{hosts} hosts at {fmt(link, 'auto', sig=3)}: BW_bisect "
          f"{fmt(bisect, 'auto', sig=3)} one way", fontsize=8.5)


def fat_tree(k: int = 4, downs=(2, 3), link=None):
    """Two-tier trees of radix-``k`` switches, one per leaf split in ``downs`` (ports to hosts;
    the rest go up). ``k / 2`` down is the non-blocking fat-tree of §3.5; more down oversubscribes.
    ``link`` defaults to the catalog's NDR rate (400 Gb/s, line 2748)."""
    link = hw("ib_ndr.line_rate") if link is None else link
    if not (isinstance(k, int) and 2 <= k <= 8 and k % 2 == 0):
        raise ValueError(f"k must be an even switch radix between 2 and 8 to draw; got {k}")
    downs = tuple(downs)
    if not downs or len(downs) > 3 or any(not (isinstance(d, int) and 1 <= d < k) for d in downs):
        raise ValueError(f"downs must be 1 to 3 port counts in [1, {k - 1}]; got {downs}")
    panel_w = 10.0
    fig, ax = canvas(panel_w * len(downs), 7.6, size=(4.4 * len(downs), 3.8),
                     title=f"Two-tier trees of radix-{k} switches: non-blocking vs oversubscribed "
                           f"(dashed: the bisection)")
    for i, d in enumerate(downs):
        _draw_leaf_spine(ax, k, d, link, i * panel_w + 0.6, panel_w - 1.2)
    k_book = _count(hw("switch64.radix"))
    label(ax, panel_w * len(downs) / 2, 7.35,
          f"at the book's k = {k_book}: {fmt(fabric.fat_tree_hosts(k_book, 2), None, 0)} hosts in two tiers, "
          f"{fmt(fabric.fat_tree_hosts(k_book, 3), None, 0)} in three", fontsize=8.5)
    return fig


# ----------------------------------------------------------------------------- torus

def torus(dims=(4, 4), big=(16, 16, 16)):
    """A 2-D torus of ``dims`` (wrap-around links as arcs), the links a half-way cut crosses
    highlighted, and the 3-D ``big`` torus of §3.5 (line 2847) in numbers."""
    if len(dims) != 2 or any(not (isinstance(d, int) and 2 <= d <= 8) for d in dims):
        raise ValueError(f"dims must be two side lengths between 2 and 8 to draw; got {dims}")
    kx, ky = dims
    if kx % 2:
        raise ValueError(f"the first side must be even so the cut halves the torus; got {kx}")
    from matplotlib.patches import Arc

    nodes = fabric.torus_nodes(dims)
    diam = fabric.torus_diameter(dims)
    cut = fabric.torus_bisection_links(dims)
    fig, ax = canvas(kx + 5.5, ky + 2.2, size=(6.6, 4.0),
                     title=f"A {kx} x {ky} torus: every row and column is a ring")
    ox, oy = 1.0, 1.2
    cutx = ox + kx / 2 - 0.5
    for i in range(kx):
        for j in range(ky):
            x, y = ox + i, oy + j
            if i + 1 < kx:
                crosses = x < cutx < x + 1
                _line(ax, (x, y), (x + 1, y), color=PALETTE["fault"] if crosses else PALETTE["network"],
                      lw=2.4 if crosses else 1.2)
            if j + 1 < ky:
                _line(ax, (x, y), (x, y + 1), color=PALETTE["network"], lw=1.2)
    for j in range(ky):       # horizontal wrap-around: an arc over each row (it crosses the cut)
        y = oy + j
        ax.add_patch(Arc((ox + (kx - 1) / 2, y), kx - 1, 0.4, theta1=0, theta2=180,
                         color=PALETTE["fault"], lw=2.0, ls="-"))
    for i in range(kx):       # vertical wrap-around
        x = ox + i
        ax.add_patch(Arc((x, oy + (ky - 1) / 2), 0.4, ky - 1, theta1=90, theta2=270,
                         color=PALETTE["network"], lw=1.0, alpha=0.7))
    for i in range(kx):
        for j in range(ky):
            ax.plot(ox + i, oy + j, "o", ms=9, color=PALETTE["compute"], zorder=3)
    _line(ax, (cutx, oy - 0.7), (cutx, oy + ky - 0.3), color=PALETTE["text"], lw=1.0, ls="--", z=0)
    label(ax, cutx, oy - 0.95, "bisection", fontsize=8)
    tx = ox + kx + 0.1
    lines = [f"{fmt(nodes, None, 0)} nodes, {fmt(fabric.torus_neighbors(2), None, 0)} neighbours each",
             f"diameter: {fmt(diam, None, 0)} hops",
             f"cut: {fmt(cut, None, 0)} links (orange)",
             "",
             f"{' x '.join(str(d) for d in big)} (§3.5):",
             f"{fmt(fabric.torus_nodes(big), None, 0)} nodes, {fmt(fabric.torus_neighbors(len(big)), None, 0)} neighbours",
             f"diameter {fmt(fabric.torus_diameter(big), None, 0)} hops",
             f"cut {fmt(fabric.torus_bisection_links(big), None, 0)} links",
             f"fat-tree: {fmt(fabric.torus_nodes(big) / 2, None, 0)}"]
    for n, text in enumerate(lines):
        label(ax, tx, oy + ky - 0.4 - n * 0.42, text, fontsize=8.5, ha="left")
    return fig


# ----------------------------------------------------------------------------- incast and PFC

#: What each frame of :func:`incast_pfc` shows.
PFC_STEPS = (
    "1. incast: many senders converge on one receiver port",
    "2. the leaf's queue passes its threshold: PAUSE to the spine",
    "3. the spine's buffer fills: PAUSE spreads to the sender leaf",
    "4. a flow that never touches the hot port is stopped too",
)

_POS = {"A": (2.6, 3.0), "S": (5.0, 4.4), "B": (7.4, 3.0), "C": (7.4, 0.9),
        "R": (9.4, 3.0), "Y": (9.4, 0.9), "X": (0.6, 0.6)}


def _incast_numbers():
    n, rate = hw("incast.senders"), hw("incast.sender_rate")
    port, buf = hw("incast.port_rate"), hw("incast.buffer")
    return {"senders": _count(n),
            "overload": fabric.incast_overload(_count(n), rate, port),
            "t_fill": fabric.buffer_fill_time(buf, _count(n), rate, port),
            "buffer": buf, "rtt": (hw("pfc.rtt_low"), hw("pfc.rtt_high")),
            "spread": (hw("pfc.spread_low"), hw("pfc.spread_high")), "freeze": hw("pfc.freeze")}


def _queue(ax, xy, fill):
    """A small buffer gauge beside a switch, ``fill`` in 0..1."""
    from matplotlib.patches import Rectangle

    x, y = xy[0] - 0.11, xy[1] + 0.42
    ax.add_patch(Rectangle((x, y), 0.22, 0.5, fill=False, edgecolor=PALETTE["text"], lw=0.8))
    if fill > 0:
        ax.add_patch(Rectangle((x, y), 0.22, 0.5 * fill, lw=0,
                               color=PALETTE["fault"] if fill > 0.7 else PALETTE["memory"]))


def _draw_incast(ax, step: int, nums):
    ax.set_xlim(0, 10.2)
    ax.set_ylim(0, 5.8)
    ax.axis("off")
    P = _POS
    for name in ("A", "S", "B", "C"):
        box(ax, P[name][0] - 0.45, P[name][1] - 0.35, 0.9, 0.7, {"A": "leaf A", "S": "spine", "B": "leaf B",
                                                               "C": "leaf C"}[name], kind="network", alpha=0.2,
            fontsize=8)
    box(ax, P["R"][0] - 0.45, P["R"][1] - 0.35, 0.9, 0.7, "receiver", kind="compute", alpha=0.35, fontsize=8)
    box(ax, P["Y"][0] - 0.45, P["Y"][1] - 0.35, 0.9, 0.7, "host y", kind="compute", alpha=0.2, fontsize=8)
    box(ax, P["X"][0] - 0.45, P["X"][1] - 0.3, 0.9, 0.6, "host x", kind="compute", alpha=0.2, fontsize=8)
    senders = [(0.6, 2.0 + 0.75 * i) for i in range(4)]
    for s in senders:
        box(ax, s[0] - 0.4, s[1] - 0.25, 0.8, 0.5, "", kind="compute", alpha=0.45)
        _line(ax, (s[0] + 0.4, s[1]), (P["A"][0] - 0.45, P["A"][1]), color=PALETTE["network"], lw=1.4)
    label(ax, 0.6, 5.25, f"{nums['senders']} senders", fontsize=8)
    pause = PALETTE["fault"]
    hops = [("A", "S"), ("S", "B"), ("B", "R")]
    paused = {1: {("S", "B")}, 2: {("S", "B"), ("A", "S")}, 3: {("S", "B"), ("A", "S")}}.get(step, set())
    for a, b in hops:
        is_p = (a, b) in paused
        (x1, y1), (x2, y2) = P[a], P[b]
        start, end = (x1 + 0.45, y1 + (0.2 if y2 > y1 else -0.2 if y2 < y1 else 0)), \
                     (x2 - 0.45, y2 + (-0.2 if y2 > y1 else 0.2 if y2 < y1 else 0))
        arrow(ax, start, end, "", kind="idle" if is_p else "network", width=1.8, style="--" if is_p else "-")
        if is_p:   # the PAUSE frame travels the other way, upstream
            arrow(ax, (end[0], end[1] - 0.3), (start[0], start[1] - 0.3), "PAUSE", kind="fault", width=2.2,
                  fontsize=8, offset=(0.0, -0.45))
    # the innocent flow x -> leaf A -> spine -> leaf C -> y
    victim = step >= 3
    col = pause if victim else PALETTE["memory"]
    _line(ax, (P["X"][0] + 0.45, P["X"][1]), (P["A"][0] - 0.2, P["A"][1] - 0.35), color=col, lw=1.6,
          ls="--" if victim else "-")
    _line(ax, (P["S"][0] + 0.2, P["S"][1] - 0.35), (P["C"][0], P["C"][1] + 0.35), color=col, lw=1.6,
          ls="--" if victim else "-")
    _line(ax, (P["C"][0] + 0.45, P["C"][1]), (P["Y"][0] - 0.45, P["Y"][1]), color=col, lw=1.6,
          ls="--" if victim else "-")
    ax.text(4.3, 1.9, "victim flow x -> y (stopped)" if victim else "flow x -> y (never uses leaf B's port)",
            fontsize=8, color=col, ha="center", va="center")
    fills = {0: {"B": 0.8}, 1: {"B": 0.95, "S": 0.5}, 2: {"B": 0.95, "S": 0.95, "A": 0.6},
             3: {"B": 0.95, "S": 0.95, "A": 0.95}}[step]
    for name in ("A", "S", "B"):
        _queue(ax, P[name], fills.get(name, 0.0))
    note = {0: f"offered load {fmt(nums['overload'], None, 0)}x the port: "
               f"{fmt(nums['buffer'], 'auto', sig=3)} fills in {fmt(nums['t_fill'], 'auto', sig=3)}",
            1: f"PAUSE must arrive within one round trip, "
               f"{fmt(nums['rtt'][0], 'auto', sig=2)}-{fmt(nums['rtt'][1], 'auto', sig=2)}",
            2: f"back-pressure spreads 3-5 hops in {fmt(nums['spread'][0], 'auto', sig=2)}-"
               f"{fmt(nums['spread'][1], 'auto', sig=2)}",
            3: f"leaf C's port to y is idle, yet x waits; a fabric can freeze in "
               f"{fmt(nums['freeze'], 'auto', sig=3)}"}[step]
    ax.set_title(PFC_STEPS[step], fontsize=9, loc="left")
    label(ax, 5.1, 0.15, note, fontsize=8)


def incast_pfc(step: int = 0):
    """One frame (``step`` 0-3) of an incast and the PFC pause spreading upstream (Fig. 3.11,
    lines 2891-2913); the numbers are the catalog's Fig. 3.11 case."""
    if step not in range(len(PFC_STEPS)):
        raise ValueError(f"step must be 0 to {len(PFC_STEPS) - 1}; got {step}")
    fig, ax = canvas(10.2, 5.8, size=(6.4, 3.7))
    _draw_incast(ax, step, _incast_numbers())
    return fig


def incast_pfc_frames(steps=(0, 1, 2, 3)):
    """The frames of :func:`incast_pfc` side by side (two per row), for a page without a slider."""
    from matplotlib.figure import Figure

    steps = tuple(steps)
    if not steps or any(s not in range(len(PFC_STEPS)) for s in steps):
        raise ValueError(f"steps must be drawn from 0 to {len(PFC_STEPS) - 1}; got {steps}")
    rows = (len(steps) + 1) // 2
    cols = 2 if len(steps) > 1 else 1
    fig = Figure(figsize=(5.6 * cols, 3.3 * rows), dpi=100)
    nums = _incast_numbers()
    for n, s in enumerate(steps):
        ax = fig.add_subplot(rows, cols, n + 1)
        _draw_incast(ax, s, nums)
    fig.suptitle("Incast and a PFC pause spreading upstream (Fig. 3.11's case)", fontsize=11)
    fig.subplots_adjust(left=0.01, right=0.99, bottom=0.01, top=0.9, wspace=0.05, hspace=0.2)
    return fig


def incast_pfc_step_plot(ax, inputs, results):
    """Panel plot (the panel protocol of :mod:`fleetcalc.ui.widgets`): draws the frame of
    :func:`incast_pfc` for ``inputs["step"]`` on the panel's axes, so a step slider walks through
    the spreading pause."""
    step = int(inputs["step"])
    if step not in range(len(PFC_STEPS)):
        raise ValueError(f"step must be 0 to {len(PFC_STEPS) - 1}; got {step}")
    _draw_incast(ax, step, _incast_numbers())
