"""Device plots for Vol. 2 Ch. 2 (accelerators): a roofline with several workloads on a catalog device,
peak vs bandwidth growth across generations (Figure 2.8), precision vs throughput (Table 2.6)."""
from __future__ import annotations

import numpy as np

from fleetcalc.ui.plots import fit_limits, plain_log_ticks
from fleetcalc.ui.plots.roofline import roof_curve

_I = np.logspace(-1, 4.3, 240)
_COLORS = ["#c0392b", "#27ae60", "#8e44ad", "#d35400", "#2c3e50"]


def _relabel(legend, i, text):
    """Set a legend entry's text; mark the legend stale (a full draw) only if it changed."""
    t = legend.get_texts()[i]
    if t.get_text() != text:
        t.set_text(text)
        legend.stale = True


def _log_range(lim, lo, hi, pad_lo=10.0, pad_hi=10.0):
    """Keep a log axis range while [lo, hi] sits well inside it; else a new padded range.
    Fixed limits let the panel redraw only the moved artists."""
    if lim is None or lo < lim[0] * 1.5 or hi > lim[1] / 1.5 or hi < lim[1] / (pad_hi * 100):
        return (lo / pad_lo, hi * pad_hi)
    return lim


def roofline_workloads(ax, inputs, results):
    """Log-log roofline of one device with several workload points.

    ``results``: ``R_peak`` and ``beta_mem`` (Quantities), ``points``: list of
    ``(label, I in FLOP/byte, R in TFLOP/s)``. Later moves move the roof, the ridge line and the
    points; the picture is rebuilt only if the number of points changes.
    """
    state = {}

    def build(res):
        ax.clear()
        (state["roof"],) = ax.loglog(_I, _I, color="#1f4e79", lw=2, label="roof min(R_peak, I·BW)")
        state["ridge"] = ax.axvline(1.0, color="#999", ls="--", lw=1, label="ridge")
        state["pts"] = []
        for k, (label, i_op, r_op) in enumerate(res["points"]):
            (pt,) = ax.plot([i_op], [r_op], "o", color=_COLORS[k % len(_COLORS)], ms=8, label=label, zorder=5)
            state["pts"].append(pt)
        state["labels"] = [p[0] for p in res["points"]]
        plain_log_ticks(ax)
        ax.set_xlabel("arithmetic intensity I (FLOP/byte)")
        ax.set_ylabel("attainable (TFLOP/s)")
        ax.set_xlim(_I[0], _I[-1])
        ax.grid(True, which="both", alpha=0.25)
        state["legend"] = ax.legend(loc="lower right", fontsize=7)
        state["top"] = None

    def update(inputs, res):
        labels = [p[0] for p in res["points"]]
        if len(labels) != len(state.get("labels") or ()):
            build(res)
        elif labels != state["labels"]:          # same points, new names: relabel the legend
            for i, label in enumerate(labels):
                _relabel(state["legend"], 2 + i, label)
            state["labels"] = labels
        r_peak = res["R_peak"].to("TFLOP/s").magnitude
        roof, ridge = roof_curve(res["R_peak"], res["beta_mem"], _I)
        state["roof"].set_ydata(roof)
        state["ridge"].set_xdata([ridge, ridge])
        _relabel(state["legend"], 1, f"ridge {ridge:.0f} FLOP/byte")
        for pt, (label, i_op, r_op) in zip(state["pts"], res["points"]):
            pt.set_data([i_op], [r_op])
        # the book's top: 4x the peak; moved only when the peak leaves (1/2, 2) of the kept value
        top = state["top"]
        if top is None or not (top / 8 < r_peak < top / 2):
            state["top"] = r_peak * 4
            fit_limits(ax, y=(0.05, state["top"]))

    update(inputs, results)
    return update


def generation_gap(ax, inputs, results):
    """Figure 2.8 in numbers: peak and memory bandwidth relative to the first generation (log).

    ``results``: ``names`` (list), ``peak_rel`` and ``bw_rel`` (arrays of factors)."""
    state = {}

    def build(res):
        ax.clear()
        x = np.arange(len(res["names"]))
        (state["peak"],) = ax.semilogy(x, res["peak_rel"], "o-", color="#1f4e79",
                                       label="peak tensor FLOP/s (advertised precision)")
        (state["bw"],) = ax.semilogy(x, res["bw_rel"], "s-", color="#27ae60", label="HBM bandwidth")
        state["fill"] = ax.fill_between(x, res["bw_rel"], res["peak_rel"], color="#c0392b", alpha=0.12,
                                        label="the memory wall")
        plain_log_ticks(ax, "y")
        ax.set_xticks(x, res["names"])
        ax.set_ylabel("factor over the first generation")
        ax.grid(True, which="both", alpha=0.25)
        ax.legend(loc="upper left", fontsize=7)
        state["names"] = list(res["names"])
        state["lim"] = None

    def update(inputs, res):
        if list(res["names"]) != state.get("names"):
            build(res)
        x = np.arange(len(res["names"]))
        peak = np.asarray(res["peak_rel"], dtype=float)
        bw = np.asarray(res["bw_rel"], dtype=float)
        state["peak"].set_data(x, peak)
        state["bw"].set_data(x, bw)
        verts = np.concatenate([np.c_[x, bw], np.c_[x[::-1], peak[::-1]]])
        state["fill"].set_verts([verts])
        both = np.concatenate([peak, bw])
        state["lim"] = lim = _log_range(state["lim"], both.min(), both.max(), 2.0, 3.0)
        if ax.get_ylim() != lim:
            ax.set_ylim(*lim)

    update(inputs, results)
    return update


def precision_bars(ax, inputs, results):
    """Table 2.6 as bars: dense peak per format (log), the chosen format highlighted.

    ``results``: ``formats`` (labels), ``peaks`` (TFLOP/s array), ``selected`` (label)."""
    state = {}

    def build(res):
        ax.clear()
        labels = list(res["formats"])
        state["bars"] = list(ax.bar(np.arange(len(labels)), [1.0] * len(labels), color="#1f4e79"))
        ax.set_yscale("log")
        plain_log_ticks(ax, "y")
        ax.set_xticks(np.arange(len(labels)), labels, rotation=30, fontsize=8)
        ax.set_ylabel("H100 dense peak (TFLOP/s)")
        ax.grid(True, axis="y", which="both", alpha=0.25)
        state["labels"] = labels
        state["lim"] = None

    def update(inputs, res):
        if list(res["formats"]) != state.get("labels"):
            build(res)
        peaks = np.asarray(res["peaks"], dtype=float)
        for bar, f, v in zip(state["bars"], state["labels"], peaks):
            bar.set_height(v)
            bar.set_facecolor("#c0392b" if f == res["selected"] else "#1f4e79")
        pos = peaks[peaks > 0] if np.any(peaks > 0) else np.array([1.0])
        state["lim"] = lim = _log_range(state["lim"], pos.min(), pos.max(), 2.0, 2.0)
        if ax.get_ylim() != lim:
            ax.set_ylim(*lim)

    update(inputs, results)
    return update
