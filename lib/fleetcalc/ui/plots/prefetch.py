"""Algorithm 28.1 plots (Ch. 28 §28.4): host queue length and compute idle time over a run."""
from __future__ import annotations

import numpy as np


def _keep(lim, lo, hi, shrink=0.4, pad=1.1):
    """Axis limits (lo, hi*pad) kept while the data top stays within (shrink, 1/pad) of the kept
    top: fixed limits let the panel redraw only the moved artists."""
    if lim is None or lim[0] != lo or hi > lim[1] / pad * 1.0001 or hi < lim[1] * shrink:
        return (lo, hi * pad)
    return lim


def prefetch_panel(axes, inputs, results):
    """Two axes: queue length over time (with K) and per-batch compute wait. Needs ``queue_t``,
    ``queue_n`` (arrays, s and batches), ``K``, ``idle_ms`` (array) and ``status``."""
    ax1, ax2 = axes
    (lq,) = ax1.step(results["queue_t"], results["queue_n"], where="post", color="#1f4e79", lw=1.5, label="queue length")
    kl = ax1.axhline(results["K"], color="#c0392b", ls="--", lw=1, label="bound K")
    ax1.set_xlabel("time (s)")
    ax1.set_ylabel("batches in host queue")
    ax1.legend(fontsize=7, loc="upper right")
    ax1.grid(True, alpha=0.25)
    (li,) = ax2.plot(np.arange(len(results["idle_ms"])), results["idle_ms"], color="#e15759", lw=1)
    ax2.set_xlabel("batch")
    ax2.set_ylabel("compute waited (ms)")
    ax2.grid(True, alpha=0.25)
    lims = {}

    def fit(ax, key, lo, hi, pad):
        lim = _keep(lims.get(key), lo, hi, pad=pad)
        if lim != lims.get(key):
            lims[key] = lim
            getattr(ax, f"set_{key[-1]}lim")(*lim)

    def update(inputs, res):
        lq.set_data(res["queue_t"], res["queue_n"])
        kl.set_ydata([res["K"], res["K"]])
        fit(ax1, "1x", 0, max(res["queue_t"].max(), 1e-6), 1.05)
        if lims.get("1y") != (-0.3, res["K"] + 1):        # K is an integer knob: exact limits
            lims["1y"] = (-0.3, res["K"] + 1)
            ax1.set_ylim(*lims["1y"])
        idle = res["idle_ms"]
        li.set_data(np.arange(len(idle)), idle)
        if lims.get("2x") != (0, max(len(idle), 2)):
            lims["2x"] = (0, max(len(idle), 2))
            ax2.set_xlim(*lims["2x"])
        fit(ax2, "2y", 0, max(idle.max() if len(idle) else 0, 1e-3), 1.15)
        ax1.set_title(f"status: {res['status']}", fontsize=9)

    update(inputs, results)
    return update
