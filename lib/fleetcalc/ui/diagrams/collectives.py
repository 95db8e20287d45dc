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
from fleetcalc.physics import collectives
from fleetcalc.ui.diagrams.draw import PALETTE, canvas
from fleetcalc.core.units import Q_
from fleetcalc.core.validate import magnitude
from fleetcalc.physics import fabric
from fleetcalc.ui.diagrams.draw import box, label
from fleetcalc.physics import dp_ratio
from fleetcalc.ui.diagrams.draw import figure_axes as _figure, plain_log as _plain_log

__all__ = ["RingState", "RingDrawing", "ring_allreduce_state", "ring_steps", "draw_ring_state", "draw_tree",
           "ring_phases", "ring_vs_tree_plot", "ring_traffic", "barrier", "dp_race"]


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
    """Steps of a ring all-reduce, as a whole number for the step slider
    (:func:`fleetcalc.physics.collectives.ring_steps`, Ch. 28 Eq. 28.11)."""
    return int(collectives.ring_steps.kernel(_p(p)))


def _p(p) -> int:
    if isinstance(p, bool) or not float(p).is_integer() or int(p) < 2:
        raise InputError(f"p must be a whole number of processes >= 2; got {p!r}")
    return int(p)


def ring_allreduce_state(p, step) -> RingState:
    """The chunk ownership of a ring all-reduce of ``p`` processes after ``step`` steps
    (0 <= step <= 2(p-1)); see the module docstring for the schedule."""
    p = _p(p)
    last = ring_steps(p)
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


class RingDrawing:
    """The artists of one ring diagram on ``ax`` (made once for ``p``); :meth:`show` moves them to
    a :class:`RingState` in place (cell colours, bold edges, numbers, arrows, title), so a panel
    stepping through the ring redraws only what changed. ``draw_ring_state`` is make-and-show."""

    def __init__(self, ax, p, *, fontsize=9, title=True):
        from matplotlib.collections import PolyCollection
        from matplotlib.colors import LinearSegmentedColormap
        from matplotlib.patches import FancyArrowPatch

        p = _p(p)
        self.ax, self.p, self.fontsize, self.titled = ax, p, fontsize, title
        self.cmap = LinearSegmentedColormap.from_list("ring", ["#ffffff", PALETTE["memory"]])
        # cell (r, c) spans x in [c, c+1], y in [r, r+1] (row 0 on top); its edge is the grid line
        self.cells = ax.add_collection(PolyCollection(
            [_square(r, c, 0.0) for r in range(p) for c in range(p)], edgecolor="#888888",
            linewidths=0.6, antialiased=True))
        self.edges = ax.add_collection(PolyCollection([], facecolor="none", edgecolor=PALETTE["text"],
                                                      linewidths=2.0))
        ax.set_xlim(-1.3, p + 0.1)
        ax.set_ylim(p + 0.2, -0.7)
        ax.set_aspect("equal")
        ax.axis("off")
        for r in range(p):
            ax.text(-0.1, r + 0.5, f"P{r}", ha="right", va="center", fontsize=fontsize)
        for c in range(p):
            ax.text(c + 0.5, -0.3, f"c{c}", ha="center", va="center", fontsize=fontsize - 0.5)
        # one number per receiving process (p <= 8 only: larger grids have no room for them)
        self.numbers = [ax.text(0.5, 0.5, "", ha="center", va="center", fontsize=fontsize,
                                fontweight="bold", color=PALETTE["network"], visible=False)
                        for _ in range(p if p <= 8 else 0)]
        # each step sends p chunks: p - 1 down a column (one collection of arrow shapes, drawn in
        # one go), one wrapping from P(p-1) to P0 on the left margin
        self.arrows = ax.add_collection(PolyCollection([], facecolor=PALETTE["network"], edgecolor="none",
                                                       zorder=3))
        self.wrap = ax.add_patch(FancyArrowPatch((-0.75, p - 0.5), (-0.75, 0.5), arrowstyle="-|>", lw=1.2,
                                                 color=PALETTE["network"], mutation_scale=10, zorder=3,
                                                 clip_on=False, visible=False, connectionstyle="arc3,rad=-0.25"))
        self.state = None

    def show(self, state: RingState):
        """Bring the artists to ``state`` (same ``p``); unchanged artists are left alone."""
        if state.p != self.p:
            raise InputError(f"state.p must be the drawing's p = {self.p}; got {state.p}")
        if self.state is not None and self.state.step == state.step:
            return
        p = self.p
        self.state = state
        self.cells.set_facecolor(self.cmap(state.count.ravel() / p))
        self.edges.set_verts([_square(r, c, 0.04) for r, c in np.argwhere(state.count == p)])
        down = [(src, dst, c) for src, dst, c in state.sends if dst != 0]
        for t, (_, dst, c) in zip(self.numbers, sorted(state.sends, key=lambda s: s[1])):
            t.set_position((c + 0.5, dst + 0.5))
            t.set_text(str(state.count[dst, c]))
        for t in self.numbers:
            t.set_visible(bool(state.sends))
        self.arrows.set_verts([_down_arrow(c + 0.5, src + 0.75, dst + 0.2) for src, dst, c in down])
        self.wrap.set_visible(len(down) < len(state.sends))
        if self.titled:
            text = self.step_label(state)
            if self.ax.get_title() != text:
                self.ax.set_title(text, fontsize=self.fontsize + 0.5, pad=2)

    @staticmethod
    def step_label(state: RingState) -> str:
        """"start", "reduce-scatter k/(p-1)" or "all-gather k/(p-1)"."""
        p = state.p
        return {"start": "start",
                "reduce-scatter": f"reduce-scatter {state.step}/{p - 1}",
                "all-gather": f"all-gather {state.step - (p - 1)}/{p - 1}"}[state.phase]


def _down_arrow(x, y0, y1, shaft=0.028, head=0.16, half=0.085):
    """An arrow from (x, y0) to (x, y1) as one polygon in data units (a cell is 1 x 1; about the
    size of a 1.4 pt '-|>' arrow on the panel)."""
    d = 1.0 if y1 > y0 else -1.0
    yh = y1 - d * head
    return [(x - shaft, y0), (x + shaft, y0), (x + shaft, yh), (x + half, yh), (x, y1), (x - half, yh),
            (x - shaft, yh)]


def _square(r, c, inset):
    return [(c + inset, r + inset), (c + 1 - inset, r + inset), (c + 1 - inset, r + 1 - inset),
            (c + inset, r + 1 - inset)]


def draw_ring_state(ax, state: RingState, *, fontsize=9, title=True) -> RingDrawing:
    """Draw one step on ``ax``: a p x p grid (rows = processes, columns = chunks), shade = share of
    the p contributions summed, a bold edge on fully reduced chunks, arrows for this step's sends.
    Returns the :class:`RingDrawing`, whose ``show`` moves it to another step in place."""
    drawing = RingDrawing(ax, state.p, fontsize=fontsize, title=title)
    drawing.show(state)
    return drawing


def draw_tree(ax, p, *, fontsize=9, m=None, alpha=None, beta_net=None):
    """An unsegmented binary tree over p = 2^k processes (Eq. 28.13): reduce up, then broadcast down,
    each of the 2 log2 p levels carrying the whole message m; times from the calculator if given.
    Returns the caption line with the sizes and times (a Text), which a panel updates with ``set_text``."""
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
    from matplotlib.transforms import offset_copy

    # two Texts: the shape (fixed for p) over the sizes and times (which a panel rewrites)
    x, y = (p - 1) / 2, -0.9
    if m is None:
        ax.text(x, y, _tree_shape(p), ha="center", va="center", fontsize=fontsize)
        return ax.text(x, y, "", ha="center", va="center", fontsize=fontsize)
    ax.text(x, y, _tree_shape(p), ha="center", va="bottom", fontsize=fontsize,
            transform=offset_copy(ax.transData, fig=ax.figure, y=1.5, units="points"))
    return ax.text(x, y, _tree_times(p, m, alpha, beta_net), ha="center", va="top", fontsize=fontsize,
                   transform=offset_copy(ax.transData, fig=ax.figure, y=-1.5, units="points"))


def _tree_shape(p) -> str:
    levels = int(math.log2(p))
    return f"binary tree, p = {p}: {2 * levels} levels (up, then down), each sends all of m"


def _tree_times(p, m, alpha, beta_net) -> str:
    return f"per level: {fmt(m, 'auto', sig=3)}; t_tree = {fmt(tree_allreduce_time(p, m, alpha, beta_net), 'auto', sig=3)}"


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
    Needs ``results`` with ``p``, ``step``, ``m``, ``alpha``, ``beta_net``. Draws once and returns
    the update: a step recolours cells and moves numbers and arrows in place; new m, α or β
    rewrite two captions; a new ``p`` draws the axes again."""
    from matplotlib.transforms import offset_copy

    ax1, ax2 = axes
    drawn: dict = {}

    def update(inputs, res):
        p, m, alpha, beta_net = res["p"], res["m"], res["alpha"], res["beta_net"]
        if drawn.get("p") != p:
            for ax in axes:
                ax.clear()
            drawn.clear()
            drawn.update(p=p, ring=RingDrawing(ax1, p, fontsize=9, title=False),
                         tree=draw_tree(ax2, p, m=m, alpha=alpha, beta_net=beta_net))
            # two lines above the ring: the step (changes on every move) over the times (change
            # with m, α, β); one Text each, so a step redraws only the short one
            ax1.set_title(" ", fontsize=9)
            above = offset_copy(ax1.transAxes, fig=ax1.figure, y=6 + 11, units="points")
            drawn["step"] = ax1.text(0.5, 1.0, "", transform=above, ha="center", va="baseline", fontsize=9)
        state = ring_allreduce_state(p, res["step"])
        drawn["ring"].show(state)
        drawn["step"].set_text(RingDrawing.step_label(state))
        key = (m, alpha, beta_net)
        if drawn.get("key") != key:
            drawn["key"] = key
            chunk = ring_round_bytes(p, m).to(m.units)   # keep the reader's prefixes (MiB)
            ax1.title.set_text(f"ring: {ring_steps(p)} steps of {fmt(chunk, 'auto', sig=3)}; "
                               f"t_ring = {fmt(ring_allreduce_time(p, m, alpha, beta_net), 'auto', sig=3)}")
            drawn["tree"].set_text(_tree_times(p, m, alpha, beta_net))

    update(inputs, results)
    return update


def ring_traffic(M, beta, alpha, N_values=(2, 4, 8, 64, 1024, 16_384),
                 title: str = "A ring all-reduce as the ring grows"):
    """Two panels against N (log x): left, the bytes each worker sends, 2(N-1)/N x M, which
    levels off at 2M; right, the two terms of the time, the latency term 2(N-1)α, which grows
    with N, and the bandwidth term, which does not (``collectives.ring_allreduce_terms``).
    ``fig.sent`` holds bytes per worker and ``fig.latency``, ``fig.bandwidth`` the terms in s."""
    N = np.array([int(magnitude("N_values", n, "", ge=2)) for n in N_values])
    Ncurve = np.unique(np.logspace(np.log10(N.min()), np.log10(N.max()), 120).astype(int))
    def terms(n):
        t = collectives.ring_allreduce_terms(n, M, alpha, beta)
        return t["latency"].to("s").magnitude, t["bandwidth"].to("s").magnitude
    lat_c, bw_c = terms(Ncurve)
    lat, bw = terms(N)
    b = Q_(beta).to("byte/s").magnitude
    m = Q_(M).to("byte").magnitude
    fig, (a1, a2) = _figure((7.6, 3.0), ncols=2)
    a1.plot(Ncurve, bw_c * b / 1e9, color=PALETTE["network"], lw=2)
    a1.plot(N, bw * b / 1e9, "o", color=PALETTE["network"], ms=4)
    a1.axhline(2 * m / 1e9, color=PALETTE["idle"], ls="--", lw=1)
    a1.text(N.min(), 2 * m / 1e9 * 1.02, "2M: the limit", fontsize=8, va="bottom")
    a1.set_ylim(0, 2.3 * m / 1e9)
    a1.set_ylabel("GB sent per worker", fontsize=9)
    a1.set_title("bytes per worker: 2(N−1)/N · M", fontsize=9)
    a2.plot(Ncurve, lat_c, color=PALETTE["idle"], lw=2, label="latency term 2(N−1)α")
    a2.plot(Ncurve, bw_c, color=PALETTE["network"], lw=2, label="bandwidth term 2(N−1)/N · M/β")
    a2.set_yscale("log")
    a2.set_ylabel("seconds", fontsize=9)
    a2.set_title("time: which term grows with N", fontsize=9)
    a2.legend(fontsize=7, loc="lower right")
    for ax in (a1, a2):
        ax.set_xscale("log")
        ax.set_xlabel("workers N", fontsize=9)
        ax.tick_params(labelsize=8)
        ax.grid(True, alpha=0.25)
    _plain_log(a1, "x")
    _plain_log(a2)
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    fig.sent, fig.latency, fig.bandwidth = bw * b, lat, bw
    return fig


def barrier(compute_ms=(92, 97, 95, 99, 94, 96, 93, 130), step_label: str = "one step"):
    """Workers' compute bars of different lengths, a barrier at the slowest, and the idle time of
    everyone else shaded. ``compute_ms``: each worker's compute time (the last one the straggler)."""
    times = [float(t) for t in compute_ms]
    if not 2 <= len(times) <= 12:
        raise ValueError(f"draw between 2 and 12 workers; got {len(times)}")
    n = len(times)
    t_max = max(times)
    idle = [Q_(t_max - t, "ms") for t in times]
    lost = sum(fabric.barrier_waste(1, d) for d in idle)
    fast = sorted(times)[-2]
    delay = Q_(t_max - fast, "ms")
    w = 12.0
    scale = (w - 3.0) / (t_max * 1.08)
    fig, ax = canvas(w, n + 2.6, size=(8.0, 0.42 * n + 1.6),
                     title=f"A barrier: {n} workers wait for the slowest ({step_label})")
    for i, t in enumerate(times):
        y = n - i + 0.6
        label(ax, 0.9, y + 0.3, f"GPU {i}", fontsize=8)
        kind = "fault" if t == t_max else "compute"
        box(ax, 1.8, y, t * scale, 0.6, f"{t:g} ms", kind=kind, alpha=0.45, fontsize=7)
        if t < t_max:
            box(ax, 1.8 + t * scale, y, (t_max - t) * scale, 0.6, "", kind="idle", alpha=0.35)
    xb = 1.8 + t_max * scale
    ax.plot([xb, xb], [0.9, n + 1.4], color=PALETTE["network"], lw=2.2)
    label(ax, xb, n + 1.75, "barrier: AllReduce starts", fontsize=8)
    label(ax, w / 2, 0.45,
          f"grey = idle: {fmt(lost, 'auto', sig=3)} of GPU-time lost; the straggler is {fmt(delay, 'ms', 0)} "
          f"behind the next slowest, and {n - 1} GPUs wait for it", fontsize=8)
    return fig


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
