"""Energy plots for Vol. 2 Ch. 2 (accelerators): moving vs computing per decode step, and the TDP trend."""
from __future__ import annotations

import numpy as np

from fleetcalc.ui.plots import plain_log_ticks


def movement_vs_compute(ax, inputs, results):
    """Bars (log): energy to move the step's bytes from HBM, from off-package DRAM, and to do
    its MACs. ``results``: ``E_hbm``, ``E_dram``, ``E_compute`` (Quantities in J). Later moves
    resize the bars and relabel them; the y range changes only when a bar leaves it."""
    names = ["move from HBM", "move from DRAM", "arithmetic (MACs)"]
    bars = list(ax.bar(names, [1.0, 1.0, 1.0], color=["#27ae60", "#d35400", "#1f4e79"]))
    ax.set_yscale("log")
    plain_log_ticks(ax, "y")
    ax.set_ylabel("energy per decode step (J)")
    labels = [ax.text(k, 1.0, "", ha="center", va="bottom", fontsize=8) for k in range(3)]
    ax.grid(True, axis="y", which="both", alpha=0.25)
    lim = [None]

    def update(inputs, res):
        vals = [res[k].to("J").magnitude for k in ("E_hbm", "E_dram", "E_compute")]
        for k, (bar, lab, v) in enumerate(zip(bars, labels, vals)):
            bar.set_height(v)
            lab.set_position((k, v))
            lab.set_text(f"{v:.3g} J")
        pos = [v for v in vals if v > 0] or [1.0]
        lo, hi = min(pos), max(pos)
        if lim[0] is None or lo < lim[0][0] * 2 or hi > lim[0][1] / 4 or hi < lim[0][1] / 1000:
            lim[0] = (lo / 10, hi * 10)
            ax.set_ylim(*lim[0])

    update(inputs, results)
    return update


def tdp_trend(ax, inputs, results):
    """TDP by year (Table 2.2) with a constant-growth projection. ``results``: ``years``,
    ``tdps`` (W), ``proj_years``, ``proj_tdps`` (W). Later moves move the two lines; the
    ranges change only when the projection leaves them."""
    (data,) = ax.plot(results["years"], results["tdps"], "o-", color="#1f4e79", label="Table 2.2 TDP")
    (proj,) = ax.plot(results["proj_years"], results["proj_tdps"], "--", color="#c0392b",
                      label="projection at the growth rate")
    ax.set_xlabel("year"); ax.set_ylabel("TDP per accelerator (W)")
    ax.grid(True, alpha=0.25); ax.legend(fontsize=8)
    lim = {}

    def update(inputs, res):
        data.set_data(res["years"], res["tdps"])
        proj.set_data(res["proj_years"], res["proj_tdps"])
        xs = np.concatenate([np.ravel(res["years"]), np.ravel(res["proj_years"])]).astype(float)
        ys = np.concatenate([np.ravel(res["tdps"]), np.ravel(res["proj_tdps"])]).astype(float)
        x = (xs.min() - 0.5, xs.max() + 0.5)
        if lim.get("x") != x:
            lim["x"] = x
            ax.set_xlim(*x)
        top, low = ys.max(), min(ys.min(), 0.0)
        y = lim.get("y")
        if y is None or low < y[0] or top > y[1] / 1.05 or top < y[1] * 0.5:
            lim["y"] = (low, top * 1.25)
            ax.set_ylim(*lim["y"])

    update(inputs, results)
    return update
