"""Fig. 28.4 redrawn: ring all-reduce's reduce-scatter and all-gather, step by step, beside a tree.

The chunk bookkeeping of the ring is a small calculator here (:func:`ring_allreduce_state`),
because :mod:`fleetcalc.physics.collectives` models only the ring's *time* (Eq. 28.11-28.12), not which
process holds which partial sum after step k. The schedule is the textbook one Eq. 28.11 counts:
``p`` processes, each message cut into ``p`` chunks, ``2(p-1)`` steps; in reduce-scatter step
``s`` (0-based) process ``r`` sends chunk ``(r - s) mod p`` to ``r + 1``, which adds it to its own
copy; after ``p - 1`` steps process ``r`` holds chunk ``(r + 1) mod p`` fully reduced. In
all-gather step ``s`` process ``r`` forwards chunk ``(r + 1 - s) mod p``, which the receiver
overwrites. Times and bytes on the figures come from :mod:`fleetcalc.physics.collectives`.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from fleetcalc.physics.collectives import ring_allreduce_time, ring_round_bytes, tree_allreduce_time
from fleetcalc.core.units import fmt
from fleetcalc.core.validate import InputError
from fleetcalc.ui.diagrams.draw import PALETTE, canvas

__all__ = ["RingState", "ring_allreduce_state", "ring_steps", "draw_ring_state", "draw_tree",
           "ring_phases", "ring_vs_tree_plot"]


@dataclass(frozen=True)
class RingState:
    """The ring after ``step`` steps: ``count[r, c]`` = how many processes' data process r's copy
    of chunk c already sums (1 = only its own, p = fully reduced); ``sends`` = the (sender,
    receiver, chunk) moves of step ``step`` (the one that led here; empty at step 0)."""
    p: int
    step: int
    count: np.ndarray
    sends: tuple
    phase: str           # "start" | "reduce-scatter" | "all-gather"


def ring_steps(p) -> int:
    """Steps of a ring all-reduce: 2(p - 1) (Ch. 28 Eq. 28.11)."""
    return 2 * (_p(p) - 1)


def _p(p) -> int:
    if isinstance(p, bool) or not float(p).is_integer() or int(p) < 2:
        raise InputError(f"p must be a whole number of processes >= 2; got {p!r}")
    return int(p)


def ring_allreduce_state(p, step) -> RingState:
    """The chunk ownership of a ring all-reduce of ``p`` processes after ``step`` steps
    (0 <= step <= 2(p-1)); see the module docstring for the schedule."""
    p = _p(p)
    last = 2 * (p - 1)
    if isinstance(step, bool) or not float(step).is_integer() or not 0 <= int(step) <= last:
        raise InputError(f"step must be a whole number in 0..2(p-1) = 0..{last} for p = {p}; got {step!r}")
    step = int(step)
    count = np.ones((p, p), dtype=int)
    sends: tuple = ()
    for s in range(step):
        if s < p - 1:                       # reduce-scatter: receiver adds the incoming partial sum
            moves = tuple((r, (r + 1) % p, (r - s) % p) for r in range(p))
            new = count.copy()
            for src, dst, c in moves:
                new[dst, c] = count[dst, c] + count[src, c]
        else:                               # all-gather: receiver overwrites with the full sum
            g = s - (p - 1)
            moves = tuple((r, (r + 1) % p, (r + 1 - g) % p) for r in range(p))
            new = count.copy()
            for src, dst, c in moves:
                new[dst, c] = count[src, c]
        count, sends = new, moves
    phase = "start" if step == 0 else ("reduce-scatter" if step <= p - 1 else "all-gather")
    return RingState(p, step, count, sends, phase)


def draw_ring_state(ax, state: RingState, *, fontsize=9, title=True):
    """Draw one step on ``ax``: a p x p grid (rows = processes, columns = chunks), shade = share of
    the p contributions summed, a bold edge on fully reduced chunks, arrows for this step's sends."""
    from matplotlib.colors import LinearSegmentedColormap
    from matplotlib.patches import Rectangle

    p = state.p
    cmap = LinearSegmentedColormap.from_list("ring", ["#ffffff", PALETTE["memory"]])
    ax.imshow(state.count / p, cmap=cmap, vmin=0, vmax=1, extent=(0, p, p, 0), interpolation="nearest")
    ax.hlines(range(p + 1), 0, p, color="#888888", lw=0.6)
    ax.vlines(range(p + 1), 0, p, color="#888888", lw=0.6)
    ax.set_xlim(-1.3, p + 0.1)
    ax.set_ylim(p + 0.2, -0.7)
    ax.set_aspect("equal")
    ax.axis("off")
    moved = {(dst, c) for _, dst, c in state.sends}
    for r in range(p):
        ax.text(-0.1, r + 0.5, f"P{r}", ha="right", va="center", fontsize=fontsize)
    for c in range(p):
        ax.text(c + 0.5, -0.3, f"c{c}", ha="center", va="center", fontsize=fontsize - 0.5)
    full = np.argwhere(state.count == p)
    if len(full):
        from matplotlib.collections import PatchCollection
        ax.add_collection(PatchCollection([Rectangle((c + 0.04, r + 0.04), 0.92, 0.92) for r, c in full],
                                          facecolor="none", edgecolor=PALETTE["text"], lw=2.0))
    if p <= 8:
        for r in range(p):
            for c in range(p):
                if (r, c) in moved:
                    ax.text(c + 0.5, r + 0.5, str(state.count[r, c]), ha="center", va="center",
                            fontsize=fontsize, fontweight="bold", color=PALETTE["network"])
    for src, dst, c in state.sends:         # sender row -> receiver row, in the chunk's column
        if dst == 0:                        # wrap-around: P(p-1) -> P0 on the left margin
            ax.annotate("", xy=(-0.75, 0.5), xytext=(-0.75, p - 0.5),
                        arrowprops=dict(arrowstyle="-|>", color=PALETTE["network"], lw=1.2,
                                        connectionstyle="arc3,rad=-0.25"))
        else:
            ax.annotate("", xy=(c + 0.5, dst + 0.2), xytext=(c + 0.5, src + 0.75),
                        arrowprops=dict(arrowstyle="-|>", color=PALETTE["network"], lw=1.4))
    if title:
        text = {"start": "start",
                "reduce-scatter": f"reduce-scatter {state.step}/{p - 1}",
                "all-gather": f"all-gather {state.step - (p - 1)}/{p - 1}"}[state.phase]
        ax.set_title(text, fontsize=fontsize + 0.5, pad=2)


def draw_tree(ax, p, *, fontsize=9, m=None, alpha=None, beta_net=None):
    """An unsegmented binary tree over p = 2^k processes (Eq. 28.13): reduce up, then broadcast down,
    each of the 2 log2 p levels carrying the whole message m; times from the calculator if given."""
    p = _p(p)
    if p & (p - 1):
        raise InputError(f"p must be a power of two for the binary tree (Eq. 28.13); got {p}")
    levels = int(math.log2(p))
    ax.set_xlim(-0.5, p - 0.5)
    ax.set_ylim(-1.4, levels + 0.8)
    ax.axis("off")
    # node positions: level 0 = leaves (all p), level L = root (P0)
    for lv in range(levels + 1):
        stride = 2 ** lv
        for r in range(0, p, stride):
            x = r + (stride - 1) / 2
            ax.plot(x, lv, "o", ms=13 if p <= 8 else 8, color=PALETTE["compute"], alpha=0.35)
            if p <= 16:
                ax.text(x, lv, f"P{r}", ha="center", va="center", fontsize=max(8, fontsize - 1))
            if lv < levels and r % (2 * stride) == 0:
                xp = r + (2 * stride - 1) / 2
                for child in (r, r + stride):
                    xc = child + (stride - 1) / 2
                    ax.annotate("", xy=(xp, lv + 1 - 0.18), xytext=(xc, lv + 0.18),
                                arrowprops=dict(arrowstyle="<|-|>", color=PALETTE["network"], lw=1.1))
    txt = f"binary tree, p = {p}: {2 * levels} levels (up, then down), each sends all of m"
    if m is not None:
        txt += f"\nper level: {fmt(m, 'auto', sig=3)}; t_tree = {fmt(tree_allreduce_time(p, m, alpha, beta_net), 'auto', sig=3)}"
    ax.text((p - 1) / 2, -0.9, txt, ha="center", va="center", fontsize=fontsize)


def ring_phases(p=4):
    """Fig. 28.4 for the text: every step of a ring all-reduce of ``p`` processes, reduce-scatter
    on the top row (after the start), all-gather on the bottom row."""
    p = _p(p)
    if p > 8:
        raise InputError(f"p must be at most 8 for the step-by-step figure (2(p-1) panels); got {p}")
    from matplotlib.figure import Figure

    fig = Figure(figsize=(2.0 * p, 4.6), dpi=100)
    axs = fig.subplots(2, p)
    for k in range(p):
        draw_ring_state(axs[0, k], ring_allreduce_state(p, k), fontsize=9)
    for k in range(1, p):
        draw_ring_state(axs[1, k], ring_allreduce_state(p, p - 1 + k), fontsize=9)
    key = axs[1, 0]
    key.axis("off")
    key.text(0.0, 0.5, "number = processes\nsummed into that\nchunk (red: it just\narrived); bold edge\n"
             "= fully reduced;\narrow = the send\nof this step", fontsize=9, va="center", ha="left",
             transform=key.transAxes)
    fig.suptitle(f"Fig. 28.4 — ring all-reduce, p = {p}: {p - 1} reduce-scatter steps (top), "
                 f"then {p - 1} all-gather steps (bottom)", fontsize=10)
    fig.subplots_adjust(left=0.01, right=0.99, top=0.88, bottom=0.01, wspace=0.08, hspace=0.18)
    return fig


def ring_vs_tree_plot(axes, inputs, results):
    """Panel plot: the ring at ``results['step']`` (left) beside the binary tree (right).
    Needs ``results`` with ``p``, ``step``, ``m``, ``alpha``, ``beta_net``."""
    ax1, ax2 = axes
    for ax in axes:
        ax.clear()
    p, k = results["p"], results["step"]
    st = ring_allreduce_state(p, k)
    draw_ring_state(ax1, st, fontsize=9)
    where = ax1.get_title()
    chunk = ring_round_bytes(p, results["m"]).to(results["m"].units)   # keep the reader's prefixes (MiB)
    ax1.set_title(f"{where}\nring: {ring_steps(p)} steps of {fmt(chunk, 'auto', sig=3)}; "
                  f"t_ring = {fmt(ring_allreduce_time(p, results['m'], results['alpha'], results['beta_net']), 'auto', sig=3)}",
                  fontsize=9)
    draw_tree(ax2, p, m=results["m"], alpha=results["alpha"], beta_net=results["beta_net"])
