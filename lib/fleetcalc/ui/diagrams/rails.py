"""Rail-optimised fabrics: which GPU of each node sits on which rail switch, drawn whole, one rail at a time and as small multiples (Vol. 2 Fig. 3.9)."""
from __future__ import annotations

from fleetcalc.core.units import fmt
from fleetcalc.physics import fabric
from fleetcalc.ui.diagrams.draw import PALETTE, box, canvas, label
from fleetcalc.ui.diagrams.draw import whole_count as _count
from fleetcalc.core.catalog import hw
from fleetcalc.ui.diagrams.draw import RAIL_COLOURS

__all__ = ["rail_layout", "rail_wiring", "RAIL_COLOURS", "draw_rails", "rails_by_step", "rails_step_plot", "rails_small_multiples"]




def draw_rails(ax, step=None, nodes_shown: int = 4, cluster_gpus=None, gpus_per_node=None, *, notes: bool = True):
    """Fig. 3.9 on ``ax``: ``nodes_shown`` nodes, GPU *i* of every node cabled to rail switch *i*.

    Every GPU is filled in its rail's colour. ``step=None`` draws every rail's cables alike;
    ``step=r`` draws rails 0..r, rail r bold and the earlier ones faint, and leaves the later ones
    out, so stepping r from 0 lays the fabric down one rail at a time. Returns the rail count."""
    from matplotlib.collections import LineCollection
    from matplotlib.patches import Rectangle

    per_node, total, _, per_rail, n_rails = rail_layout(nodes_shown, cluster_gpus, gpus_per_node)
    if step is not None and not 0 <= int(step) < n_rails:
        raise ValueError(f"step must be a rail between 0 and {n_rails - 1}, or None for all; got {step}")
    gw, gap = 1.0, 1.0
    node_w = per_node * gw
    width = nodes_shown * node_w + (nodes_shown - 1) * gap + 1.0
    ax.set_xlim(0, width)
    ax.set_ylim(0, 10.0)
    ax.axis("off")
    sw_w = (width - 1.0) / n_rails
    rail_x = []
    for r in range(n_rails):
        x = 0.5 + r * sw_w
        shown = step is None or r <= int(step)
        ax.add_artist(Rectangle((x + 0.1, 8.6), sw_w - 0.2, 1.0, facecolor=RAIL_COLOURS[r % 8],
                                alpha=0.75 if shown else 0.12, edgecolor=RAIL_COLOURS[r % 8], linewidth=1.0))
        ax.text(x + sw_w / 2, 9.1, f"rail {r}", ha="center", va="center", fontsize=8, color=PALETTE["text"])
        rail_x.append(x + sw_w / 2)
    cables = {"faint": ([], []), "bold": ([], []), "all": ([], [])}
    for n in range(nodes_shown):
        x0 = 0.5 + n * (node_w + gap)
        box(ax, x0 - 0.1, 2.6, node_w + 0.2, 1.9, "", kind="host", alpha=0.18)
        ax.text(x0 + node_w / 2, 2.25, f"node {n}", ha="center", va="center", fontsize=8, color=PALETTE["text"])
        for g in range(per_node):
            gx = x0 + g * gw
            r = g % n_rails
            ax.add_artist(Rectangle((gx + 0.08, 2.9), gw - 0.16, 1.2, facecolor=RAIL_COLOURS[r % 8], alpha=0.8,
                                    edgecolor="white", linewidth=1.0))
            ax.text(gx + gw / 2, 3.5, str(g), ha="center", va="center", fontsize=8, color="white", weight="bold")
            seg = [(gx + gw / 2, 4.15), (rail_x[r], 8.55)]
            kind = "all" if step is None else ("bold" if r == int(step) else "faint" if r < int(step) else None)
            if kind:
                cables[kind][0].append(seg)
                cables[kind][1].append(RAIL_COLOURS[r % 8])
    for kind, lw, alpha, z in (("all", 1.3, 0.9, 1), ("faint", 0.8, 0.3, 1), ("bold", 2.6, 1.0, 2)):
        segs, cols = cables[kind]
        if segs:
            ax.add_collection(LineCollection(segs, colors=cols, linewidths=lw, alpha=alpha, zorder=z), autolim=False)
    if notes:
        which = ("every rail drawn" if step is None
                 else f"rail {int(step)} bold: GPU {int(step)} of every node, and nothing else")
        ax.text(width / 2, 1.35, f"{fmt(total, None, 0)} GPUs, {per_node} per node: {n_rails} rails of "
                f"{fmt(per_rail, None, 0)} GPUs; {which}", ha="center", va="center", fontsize=9, color=PALETTE["text"])
        ax.text(width / 2, 0.45, f"a same-rank hop crosses {_count(fabric.switch_traversals(1))} switch on its rail, "
                f"{_count(fabric.switch_traversals(2))} through leaf-spine-leaf", ha="center", va="center",
                fontsize=9, color=PALETTE["text"])
    return n_rails


def rails_by_step(step=None, nodes_shown: int = 4, cluster_gpus=None, gpus_per_node=None):
    """:func:`draw_rails` as a figure of its own, titled with the step."""
    title = ("Fig. 3.9: rail-optimized wiring, every GPU in its rail's colour" if step is None
             else f"Fig. 3.9, rail by rail: rails 0 to {int(step)} laid, rail {int(step)} bold")
    fig, ax = canvas(10.0, 10.0, size=(8.6, 4.8), title=title)
    draw_rails(ax, step, nodes_shown, cluster_gpus, gpus_per_node)
    return fig


def rails_step_plot(ax, inputs, results):
    """Panel plot (the panel protocol of :mod:`fleetcalc.ui.widgets`): :func:`draw_rails` at
    ``inputs["step"]`` (a rail number, or -1 for every rail at once)."""
    step = int(inputs["step"])
    ax.clear()
    draw_rails(ax, None if step < 0 else step)
    ax.set_title("every rail" if step < 0 else f"rail {step} laid (bold), rails before it faint", fontsize=9, loc="left")


def rails_small_multiples(rails=(0, 1, 2, 7), nodes_shown: int = 4):
    """Several steps of :func:`draw_rails` side by side (two per row), for a page without a slider."""
    from matplotlib.figure import Figure

    rails = tuple(int(r) for r in rails)
    if not rails or len(rails) > 8:
        raise ValueError(f"draw between 1 and 8 steps; got {rails}")
    cols = 2 if len(rails) > 1 else 1
    rows = (len(rails) + 1) // 2
    fig = Figure(figsize=(5.4 * cols, 3.0 * rows), dpi=100)
    for n, r in enumerate(rails):
        ax = fig.add_subplot(rows, cols, n + 1)
        draw_rails(ax, r, nodes_shown, notes=False)
        ax.set_title(f"step {r + 1}: rail {r}", fontsize=9, loc="left")
    fig.suptitle("Fig. 3.9 laid rail by rail: each rail joins the same GPU of every node", fontsize=11)
    fig.subplots_adjust(left=0.01, right=0.99, bottom=0.01, top=0.88, wspace=0.05, hspace=0.25)
    return fig


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
