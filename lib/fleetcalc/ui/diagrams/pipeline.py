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

__all__ = ["timeline_bars", "prefetch_timeline", "LANES"]

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
