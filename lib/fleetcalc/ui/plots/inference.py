"""Decode plots for Vol. 2 Ch. 2 (accelerators): step time vs batch (compute and memory terms) and the
bandwidth floor on token latency vs model size for several devices."""
from __future__ import annotations

import numpy as np

from fleetcalc.ui.plots import plain_log_ticks


def _log_range(lim, lo, hi, pad=3.0):
    """Keep a log axis range while [lo, hi] sits well inside it; else a new padded range."""
    if lim is None or lo < lim[0] * 1.2 or hi > lim[1] / 1.2 or hi < lim[1] / (pad * 1e3) \
            or lo > lim[0] * pad * 1e3:
        return (lo / pad, hi * pad)
    return lim


def decode_vs_batch(axes, inputs, results):
    """Two axes. Left: per-step time vs batch B (memory term, compute term, the max) with the
    current B marked. Right: bandwidth floor vs model size (parameters) per device, 50 ms line.

    ``results``: ``B_grid``, ``t_mem_grid``, ``t_comp_grid``, ``t_step_grid`` (ms arrays, the terms and
    the step time from ``inference.decode_step``), ``B``, ``t_step_ms``,
    ``N_grid`` (parameters), ``floors`` {label: ms array}, ``N`` (parameters).
    Later moves move the curves and markers; y ranges change only when a curve leaves them."""
    left, right = axes
    B = results["B_grid"]
    (lm,) = left.loglog(B, B, color="#27ae60", label="memory term Q/BW")
    (lc,) = left.loglog(B, B, color="#1f4e79", label="compute term F/R_peak")
    (ls,) = left.loglog(B, B, color="#c0392b", lw=2.2, alpha=0.6, label="step time (max)")
    (pt,) = left.plot([results["B"]], [results["t_step_ms"]], "o", color="#c0392b", ms=8)
    plain_log_ticks(left)
    left.set_xlabel("batch B (sequences)"); left.set_ylabel("time per decode step (ms)")
    left.grid(True, which="both", alpha=0.25); left.legend(fontsize=7, loc="upper left")
    floors = {}
    for label, floor in results["floors"].items():
        (floors[label],) = right.loglog(results["N_grid"], floor, label=label)
    right.axhline(50, color="#999", ls="--", lw=1, label="50 ms: 'slow' (line 1516)")
    vline = right.axvline(results["N"], color="#c0392b", lw=1)
    plain_log_ticks(right)
    right.set_xlabel("parameters N"); right.set_ylabel("batch-1 floor (ms/token)")
    right.grid(True, which="both", alpha=0.25); right.legend(fontsize=6, loc="upper left")
    lims = {"left": None, "right": None}

    def update(inputs, res):
        tm, tc = np.asarray(res["t_mem_grid"], float), np.asarray(res["t_comp_grid"], float)
        b = res["B_grid"]
        lm.set_data(b, tm)
        lc.set_data(b, tc)
        ls.set_data(b, np.asarray(res["t_step_grid"], float))
        pt.set_data([res["B"]], [res["t_step_ms"]])
        both = np.concatenate([tm, tc, [float(res["t_step_ms"])]])
        lims["left"] = lim = _log_range(lims["left"], both[both > 0].min(), both.max())
        if left.get_ylim() != lim:
            left.set_ylim(*lim)
        allf = [50.0]
        for label, floor in res["floors"].items():
            if label in floors:
                floors[label].set_data(res["N_grid"], floor)
                allf.extend(np.asarray(floor, float))
        vline.set_xdata([res["N"], res["N"]])
        allf = np.asarray(allf)
        lims["right"] = lim = _log_range(lims["right"], allf[allf > 0].min(), allf.max())
        if right.get_ylim() != lim:
            right.set_ylim(*lim)

    update(inputs, results)
    return update
