"""Vol. 2 Ch. 3 figures, second set: Fig. 3.9's rails one at a time, and the data-parallel race of §3.4.

Every number printed on a figure comes from a calculator or the catalog (``vol2_ch3_network.toml``):

* :func:`draw_rails` draws Fig. 3.9's rail-optimised wiring on given axes: every GPU filled in its
  rail's colour, and the cables of rails ``0 .. step`` drawn, the rail ``step`` bold and the ones
  before it faint, so a step slider lays the rails down one at a time; ``step=None`` draws all of
  them at once. :func:`rails_by_step` is that drawing as a figure, :func:`rails_step_plot` as a
  panel plot, and :func:`rails_small_multiples` lays the rails side by side for a page without a
  kernel. The rail count and GPUs per rail come from :func:`fleetcalc.physics.fabric.rail_groups`,
  the switches a same-rank hop crosses from :func:`fleetcalc.physics.fabric.switch_traversals`.
* :func:`dp_race`: §3.4's race between compute and the ring AllReduce for three model sizes, once
  at a fixed number of tokens per GPU (both bars grow with P, their ratio does not) and once with
  compute held at the 1.5B model's time, as the text does at 70B
  (:func:`fleetcalc.physics.dp_ratio.dp_step_times`, :func:`fleetcalc.physics.dp_ratio.tokens_for_compute`).
* :func:`torus_cut`: §3.5's 2-D torus in the convention of Vol. 2 Fig. 2.13 (:mod:`fleetcalc.ui.diagrams.pod`):
  wrap-around links as dotted stubs leaving one edge and entering the opposite one, with the links a
  half-way cut crosses drawn in the fault colour (orange) and counted by
  :func:`fleetcalc.physics.fabric.torus_bisection_links`.
"""
from __future__ import annotations

import numpy as np

from fleetcalc.core.units import fmt
from fleetcalc.physics import dp_ratio, fabric
from fleetcalc.ui.diagrams.draw import PALETTE, box, canvas, label
from fleetcalc.ui.diagrams.fabric import rail_layout

__all__ = ["RAIL_COLOURS", "draw_rails", "rails_by_step", "rails_step_plot", "rails_small_multiples", "dp_race",
           "torus_cut"]

#: One colour per rail (rail r uses ``RAIL_COLOURS[r % 8]``), told apart in print and by most
#: colour-blind readers (the seaborn "deep" palette).
RAIL_COLOURS = ("#4C72B0", "#DD8452", "#55A868", "#C44E52", "#8172B2", "#937860", "#DA8BC3", "#8C8C8C")


def _count(q) -> int:
    return int(round(float(getattr(q, "magnitude", q))))


# ----------------------------------------------------------------------------- Fig. 3.9 by rail

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


# ----------------------------------------------------------------------------- §3.4: the race

def dp_race(models=(1.5e9, 70e9, 175e9), tokens_per_gpu=None, *, N, s_grad, alpha, beta, R_peak, mfu, T_hold):
    """Compute and ring-AllReduce time per step for each model in ``models``, two ways.

    Left: every model at ``tokens_per_gpu`` (default: the tokens that fill ``T_hold`` at the first
    model, :func:`fleetcalc.physics.dp_ratio.tokens_for_compute`): both bars grow with P and the
    printed ratio hardly moves. Right: compute held at ``T_hold`` for every model, as the text does
    at 70B: only the AllReduce grows, and the ratio with it."""
    from matplotlib.figure import Figure

    models = np.asarray(models, float)
    if tokens_per_gpu is None:
        tokens_per_gpu = dp_ratio.tokens_for_compute(models[0], T_hold, R_peak, mfu)
    args = dict(N=N, s_grad=s_grad, alpha=alpha, beta=beta, R_peak=R_peak, mfu=mfu)
    fixed_d = dp_ratio.dp_step_times(models, tokens_per_gpu, **args)
    held = dp_ratio.dp_step_times(models, dp_ratio.tokens_for_compute(models, T_hold, R_peak, mfu), **args)
    fig = Figure(figsize=(8.8, 3.6), dpi=100)
    axes = fig.subplots(1, 2)
    names = [f"{fmt(p / 1e9, None, sig=3)}B" for p in models]
    y = np.arange(len(models))
    for ax, t, title in ((axes[0], fixed_d, f"tokens per GPU fixed ({fmt(getattr(tokens_per_gpu, 'magnitude', tokens_per_gpu), None, 0)} tokens)"),
                         (axes[1], held, f"compute held at {fmt(T_hold, 'auto', sig=3)}")):
        c = t["compute"].to("s").magnitude
        m = t["comm"].to("s").magnitude
        ax.barh(y + 0.18, c, height=0.34, color=PALETTE["compute"], alpha=0.8, label="compute")
        ax.barh(y - 0.18, m, height=0.34, color=PALETTE["network"], alpha=0.8, label="ring AllReduce")
        ax.set_xscale("log")
        ax.set_yticks(y, names)
        ax.invert_yaxis()
        ax.set_xlabel("time per step (s, log scale)")
        ax.set_title(title, fontsize=9)
        top = max(c.max(), m.max())
        ax.set_xlim(min(c.min(), m.min()) / 3, top * 30)
        for i, r in enumerate(np.atleast_1d(t["ratio"].magnitude)):
            ax.text(max(c[i], m[i]) * 1.3, y[i], f"comm/compute {fmt(r, None, 1 if r < 10 else 0)}", va="center", fontsize=8)
        ax.grid(True, axis="x", which="major", alpha=0.25)
    handles, names_ = axes[0].get_legend_handles_labels()
    fig.legend(handles, names_, fontsize=8, loc="lower center", ncol=2, frameon=False)
    fig.suptitle("Data parallelism's race: the ratio is set by tokens per GPU, not by the model", fontsize=10)
    fig.tight_layout(rect=(0, 0.07, 1, 1))
    return fig


# ----------------------------------------------------------------------------- §3.5: the torus cut

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
