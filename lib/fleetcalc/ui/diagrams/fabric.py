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
import numpy as np
from fleetcalc.ui.diagrams.draw import RAIL_COLOURS as _RAIL_COLOURS

__all__ = ["fat_tree", "torus", "incast_pfc", "incast_pfc_frames", "incast_pfc_step_plot",
           "PFC_STEPS", "east_west", "tail_at_scale", "tail_at_scale_plot", "ecmp_flows", "storm_cost_plot", "torus_cut"]


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


def _p_any_slow(p_slow, n):
    """P(a step waits for a slow worker), :func:`fleetcalc.physics.fabric.tail_wait_probability`."""
    return np.asarray(fabric.tail_wait_probability(p_slow, n).m_as(""), float)


def east_west(gpus=None):
    """Two panels: a web data centre's traffic runs north-south (clients to servers and back); a
    training cluster's runs east-west (every server to every other, each step)."""
    n_gpus = _count(gpus if gpus is not None else hw("cluster_1k.gpus"))
    fig, ax = canvas(14.0, 7.0, size=(9.0, 4.4),
                     title="Where the bytes go: north-south (web) against east-west (training)")
    # web side
    box(ax, 0.5, 5.6, 6.0, 0.9, "clients on the internet", kind="host", alpha=0.3, fontsize=8)
    xs = [0.8 + i * 1.45 for i in range(4)]
    for x in xs:
        box(ax, x, 2.0, 1.1, 1.0, "server", kind="compute", alpha=0.3, fontsize=7)
        arrow(ax, (x + 0.55, 5.55), (x + 0.55, 3.05), kind="network", width=1.2, both=True)
    label(ax, 3.5, 1.3, "many small, independent requests;", fontsize=8)
    label(ax, 3.5, 0.8, "mean latency and fairness per flow", fontsize=8)
    label(ax, 3.5, 4.4, "north-south", fontsize=9, rotation=0, backgroundcolor="white")
    # training side
    cx, cy, r = 10.5, 3.6, 2.0
    angles = np.linspace(0, 2 * np.pi, 7)[:-1] + np.pi / 2
    pts = [(cx + r * np.cos(a), cy + r * np.sin(a)) for a in angles]
    for i, p in enumerate(pts):
        for q in pts[i + 1:]:
            ax.plot([p[0], q[0]], [p[1], q[1]], color=PALETTE["network"], lw=1.4, alpha=0.6)
    for p in pts:
        box(ax, p[0] - 0.5, p[1] - 0.3, 1.0, 0.6, "GPUs", kind="compute", alpha=0.45, fontsize=7)
    label(ax, cx, cy, "east-west", fontsize=9, backgroundcolor="white")
    label(ax, cx, 6.55, "no outside client on the critical path", fontsize=8)
    label(ax, cx, 0.8, f"every step: all {n_gpus:,} GPUs AllReduce the whole gradient",
          fontsize=8)
    ax.plot([7.0, 7.0], [0.4, 6.6], color=PALETTE["idle"], lw=1, ls="--")
    return fig


def tail_at_scale(p_slow=(1e-2, 1e-3, 1e-4), n_max=100_000, mark=None):
    """P(at least one of N workers is slow in a step) against N, one curve per per-worker chance.
    ``mark``: a worker count to mark on every curve (default: the catalog's 1,024-GPU cluster)."""
    from matplotlib.figure import Figure

    n_mark = _count(mark if mark is not None else hw("cluster_1k.gpus"))
    n = np.unique(np.logspace(0, np.log10(n_max), 200).astype(int))
    fig = Figure(figsize=(7.0, 3.8), dpi=100)
    ax = fig.add_subplot(1, 1, 1)
    for i, p in enumerate(p_slow):
        y = _p_any_slow(p, n)
        ax.semilogx(n, y, lw=2, color=_RAIL_COLOURS[i], label=f"p = {fmt(p, None, sig=2)} per worker per step")
        ym = float(_p_any_slow(p, n_mark))
        ax.plot([n_mark], [ym], "o", color=_RAIL_COLOURS[i], ms=6)
        ax.annotate(f"{ym:.0%}", (n_mark, ym), textcoords="offset points", xytext=(6, -10), fontsize=8)
    ax.axvline(n_mark, color=PALETTE["idle"], lw=1, ls="--")
    ax.set_xlabel("workers N behind the barrier")
    ax.set_ylabel("P(step waits for a slow one)")
    ax.set_ylim(0, 1.05)
    ax.grid(True, alpha=0.25)
    ax.legend(fontsize=8, loc="upper left")
    ax.set_title(f"The tail at scale: 1 - (1 - p)^N (dots at N = {n_mark:,})", fontsize=10)
    fig.tight_layout()
    return fig


def tail_at_scale_plot(ax, inputs, results):
    """Panel plot: the chance of a slow worker against N at the panel's ``p`` with the panel's
    ``gpus`` marked. Needs ``p`` (fraction) and ``gpus`` (count) in the inputs, ``P_any`` in the
    results."""
    n = np.unique(np.logspace(0, 5.5, 200).astype(int))
    (ln,) = ax.semilogx(n, _p_any_slow(inputs["p"], n), color=PALETTE["compute"], lw=2)
    (pt,) = ax.plot([inputs["gpus"]], [float(results["P_any"])], "o", color=PALETTE["network"], ms=8)
    ax.set_xlabel("workers N")
    ax.set_ylabel("P(a step waits for a slow worker)")
    ax.set_ylim(0, 1.05)
    ax.grid(True, alpha=0.25)

    def update(inputs, res):
        ln.set_ydata(_p_any_slow(inputs["p"], n))
        pt.set_data([inputs["gpus"]], [float(getattr(res["P_any"], "magnitude", res["P_any"]))])

    return update


def ecmp_flows(elephants: int = 8, mice: int = 400, paths: int = 4, seed: int = 3):
    """Two bar charts of the load per path after hashing: ``elephants`` equal large flows, and
    ``mice`` small flows carrying the same total, each flow placed by a seeded random hash."""
    from matplotlib.figure import Figure

    rng = np.random.default_rng(seed)
    fig = Figure(figsize=(8.0, 3.4), dpi=100)
    axes = fig.subplots(1, 2, sharey=True)
    for ax, flows, name in ((axes[0], elephants, "elephants"), (axes[1], mice, "mice")):
        where = rng.integers(0, paths, size=flows)
        load = np.bincount(where, minlength=paths) / (flows / paths)   # in units of the fair share
        ax.bar(range(paths), load, color=PALETTE["network"] if name == "elephants" else PALETTE["compute"],
               alpha=0.7)
        ax.axhline(1.0, color=PALETTE["text"], lw=1, ls="--")
        exp = fabric.ecmp_expected_max_load(flows, paths) if flows <= 64 else None
        extra = f"; expected busiest {fmt(float(exp) / (flows / paths), None, sig=3)}x fair" if exp is not None else ""
        ax.set_title(f"{flows} {name} on {paths} paths{extra}", fontsize=9)
        ax.set_xticks(range(paths), [f"path {i}" for i in range(paths)], fontsize=8)
        for i, v in enumerate(load):
            ax.text(i, v + 0.03, f"{v:.2f}", ha="center", fontsize=8)
    axes[0].set_ylabel("load / fair share (dashed = 1)")
    fig.suptitle("ECMP hashes whole flows: a few large flows collide, many small ones average out", fontsize=10)
    fig.tight_layout()
    return fig


def storm_cost_plot(ax, inputs, results):
    """Panel plot: expected idle spend per day from PFC storms against cluster size, the storm rate
    growing with the transceivers (:func:`fleetcalc.physics.fabric.storm_idle_gpu_time`), so the
    curve rises as N squared. Needs ``p_daily``, ``recovery``, ``price`` and ``gpus`` in the inputs
    and ``cost_day`` (cu) in the results."""
    from fleetcalc.ui.plots import fit_limits, plain_log_ticks

    n = np.unique(np.logspace(1, 5, 120).astype(int))

    def curve(inp):
        t = fabric.storm_idle_gpu_time(n, inp["p_daily"], inp["recovery"])
        return fabric.idle_gpu_cost(1, t, inp["price"]).to("cu").magnitude

    (ln,) = ax.loglog(n, curve(inputs), color=PALETTE["network"], lw=2, label="storm rate grows with N (∝ N²)")
    (pt,) = ax.plot([inputs["gpus"]], [results["cost_day"].to("cu").magnitude], "o", color=PALETTE["text"], ms=7)
    ax.set_xlabel("GPUs")
    ax.set_ylabel("expected idle spend per day (cu)")
    ax.grid(True, alpha=0.25)
    ax.legend(fontsize=8, loc="upper left")
    plain_log_ticks(ax)

    def update(inputs, res):
        y = curve(inputs)
        ln.set_ydata(y)
        pt.set_data([inputs["gpus"]], [max(res["cost_day"].to("cu").magnitude, 1e-12)])
        fit_limits(ax, y=(max(y.min(), 1e-9) / 2, y.max() * 2))

    update(inputs, results)
    return update


def torus_cut(dims=(4, 4), big=(16, 16, 16)):
    """A 2-D torus of ``dims`` drawn as Vol. 2 Fig. 2.13 draws it (wrap-around links as dotted stubs at
    the edges), a vertical cut through its middle, and the links that cut crosses in orange: each row's
    middle link and its wrap-around link. The 3-D ``big`` torus of §3.5 (line 2847) in numbers beside it."""
    from matplotlib.figure import Figure

    if len(dims) != 2 or any(not (isinstance(d, int) and 2 <= d <= 8) for d in dims):
        raise ValueError(f"dims must be two side lengths between 2 and 8 to draw; got {dims}")
    nx, ny = dims
    if nx % 2:
        raise ValueError(f"the first side must be even so the cut halves the torus; got {nx}")
    cut_links = _count(fabric.torus_bisection_links(dims))
    fig = Figure(figsize=(7.4, 3.9), dpi=100)
    ax = fig.add_axes((0.0, 0.0, 0.55, 0.9))
    cut = nx / 2 - 0.5
    plain, hot = dict(color=PALETTE["network"], lw=1.2), dict(color=PALETTE["fault"], lw=2.6)
    for i in range(nx):
        for j in range(ny):
            if i + 1 < nx:
                ax.plot([i, i + 1], [j, j], **(hot if i < cut < i + 1 else plain))
            if j + 1 < ny:
                ax.plot([i, i], [j, j + 1], **plain)
    for j in range(ny):      # a row's wrap-around joins its two ends, one in each half: it crosses the cut
        ax.plot([-0.45, 0], [j, j], ls=(0, (2, 2)), **hot)
        ax.plot([nx - 1, nx - 0.55], [j, j], ls=(0, (2, 2)), **hot)
    for i in range(nx):      # a column's wrap-around stays on its own side
        ax.plot([i, i], [-0.45, 0], ls=(0, (2, 2)), **plain)
        ax.plot([i, i], [ny - 1, ny - 0.55], ls=(0, (2, 2)), **plain)
    xs, ys = np.meshgrid(range(nx), range(ny))
    ax.plot(xs.ravel(), ys.ravel(), "o", color=PALETTE["compute"], ms=9, zorder=3)
    ax.plot([cut, cut], [-0.8, ny - 0.2], color=PALETTE["text"], lw=1.0, ls="--")
    ax.text(cut, -1.05, "the cut", ha="center", va="top", fontsize=8, color=PALETTE["text"])
    ax.set_xlim(-1.2, nx + 0.2)
    ax.set_ylim(-1.6, ny + 0.1)
    ax.set_aspect("equal")
    ax.axis("off")
    lines = [f"{fmt(fabric.torus_nodes(dims), None, 0)} nodes, {fmt(fabric.torus_neighbors(2), None, 0)} neighbours each",
             f"diameter: {fmt(fabric.torus_diameter(dims), None, 0)} hops",
             f"the cut crosses {cut_links} links (orange):",
             f"{ny} middle links + {ny} wrap-arounds",
             "(dotted stubs: a wrap-around link",
             " to the opposite edge, as in Fig. 2.13)",
             "",
             f"{' x '.join(str(d) for d in big)} (§3.5): {fmt(fabric.torus_nodes(big), None, 0)} nodes,",
             f"diameter {fmt(fabric.torus_diameter(big), None, 0)} hops, cut {fmt(fabric.torus_bisection_links(big), None, 0)} links",
             f"(a fat-tree's cut: {fmt(fabric.torus_nodes(big) / 2, None, 0)})"]
    for n, text in enumerate(lines):
        fig.text(0.57, 0.84 - n * 0.075, text, fontsize=8.5, color=PALETTE["text"])
    fig.suptitle(f"A {nx} x {ny} torus: every row and column a ring; the cut grows with a side, not with N",
                 fontsize=10)
    return fig
