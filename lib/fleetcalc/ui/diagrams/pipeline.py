"""Algorithm 28.1 drawn: the bounded-prefetch, double-buffer timeline, from the library's simulation.

Every bar is an interval of the event log that :func:`fleetcalc.physics.prefetch.simulate_prefetch`
writes (read_start..read_done, prep_start..prep_done, dequeue..transfer_done,
compute_start..compute_done), so the picture is the simulation, not a sketch of it. One lane per
process of the algorithm (loader: read, prepare; the host queue; the copy engine; the compute),
and the colour of a copy or compute bar says which of the two device buffers it uses.
"""
from __future__ import annotations

import numpy as np

from fleetcalc.physics.prefetch import queue_length_trace, simulate_prefetch
from fleetcalc.core.units import Q_, fmt
from fleetcalc.ui.diagrams.draw import PALETTE
from fleetcalc.core.units import as_quantity
from fleetcalc.physics.pipeline import pipeline_interval

__all__ = ["timeline_bars", "prefetch_timeline", "LANES", "SISTER_STAGES", "prefetch_comparison"]

LANES = ("read", "prepare", "copy (host -> device)", "compute")
_PAIRS = {"read": ("read_start", "read_done"), "prepare": ("prep_start", "prep_done"),
          "copy (host -> device)": ("dequeue", "transfer_done"), "compute": ("compute_start", "compute_done")}
_BUF = ("#4C72B0", "#DD8452")   # buffer 0, buffer 1


def timeline_bars(run) -> dict:
    """lane -> list of (batch, start_s, end_s, buffer) read from the run's event log."""
    out = {lane: [] for lane in LANES}
    for lane, (a, b) in _PAIRS.items():
        starts = {e.batch: e for e in run.events if e.kind == a}
        for e in run.events:
            if e.kind == b and e.batch in starts:
                out[lane].append((e.batch, starts[e.batch].time, e.time, e.buffer if e.buffer >= 0 else starts[e.batch].buffer))
    for lane in out:
        out[lane].sort()
    return out


def prefetch_timeline(t_read=Q_(10, "ms"), t_prep=Q_(20, "ms"), t_copy=Q_(8, "ms"), t_compute=Q_(16, "ms"),
                      K=2, n_batches=6, title=None):
    """Algorithm 28.1's timeline for ``n_batches`` batches (default: Exercise 28.5's stage times,
    line 456, and a queue bound K = 2). Returns (figure, run)."""
    from matplotlib.figure import Figure

    run = simulate_prefetch(n_batches, t_read, t_prep, t_copy, t_compute, K)
    bars = timeline_bars(run)
    fig = Figure(figsize=(9.0, 3.9), dpi=100)
    ax, axq = fig.subplots(2, 1, sharex=True, gridspec_kw={"height_ratios": [3.2, 1]})
    ms = 1e3
    for i, lane in enumerate(LANES):
        y = len(LANES) - 1 - i
        for batch, t0, t1, buf in bars[lane]:
            color = _BUF[buf] if buf >= 0 else PALETTE["host"]
            ax.broken_barh([(t0 * ms, (t1 - t0) * ms)], (y - 0.36, 0.72), facecolors=color, alpha=0.8,
                           edgecolor="white")
            ax.text((t0 + t1) / 2 * ms, y, str(batch), ha="center", va="center", fontsize=9, color="white",
                    fontweight="bold")
    ax.set_yticks(range(len(LANES)), list(reversed(LANES)), fontsize=9)
    # the events that guard the buffers: transfer-complete -> compute may start
    for e in run.events:
        if e.kind == "transfer_done":
            ax.plot([e.time * ms] * 2, [1.36, 0.64], color=PALETTE["text"], lw=0.8, ls=":")
    ax.set_ylim(-0.6, len(LANES) - 0.4)
    ax.grid(True, axis="x", alpha=0.25)
    ax.tick_params(axis="x", labelsize=9)
    from matplotlib.patches import Patch
    ax.legend(handles=[Patch(color=_BUF[0], label="device buffer 0"), Patch(color=_BUF[1], label="device buffer 1"),
                       Patch(color=PALETTE["host"], label="host work")],
              fontsize=8.5, loc="upper left", ncol=3, frameon=False, bbox_to_anchor=(0.0, 1.2))
    t_q, n_q = queue_length_trace(run)
    axq.step(np.asarray(t_q) * ms, n_q, where="post", color=PALETTE["memory"], lw=1.6)
    axq.axhline(K, color=PALETTE["fault"], ls="--", lw=1)
    axq.text(0, K, f" K = {K}", va="bottom", fontsize=8.5, color=PALETTE["fault"])
    axq.set_ylim(-0.2, K + 0.9)
    axq.set_ylabel("host\nqueue", fontsize=9)
    axq.set_xlabel("time (ms)", fontsize=9)
    axq.tick_params(labelsize=9)
    fig.suptitle(title or (f"Algorithm 28.1 — read {fmt(t_read, 'auto', sig=3)}, prepare {fmt(t_prep, 'auto', sig=3)}, "
                           f"copy {fmt(t_copy, 'auto', sig=3)}, compute {fmt(t_compute, 'auto', sig=3)}"),
                 fontsize=10)
    fig.subplots_adjust(left=0.17, right=0.98, top=0.83, bottom=0.13, hspace=0.08)
    return fig, run


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
