"""Algorithm 28.2 plots (Ch. 28 §28.8): devices held per job under greedy vs gang admission."""
from __future__ import annotations

import numpy as np
from fleetcalc.ui.plots import fit_limits

COLORS = ["#4e79a7", "#f28e2b", "#59a14f", "#e15759"]


def gang_vs_greedy_panel(ax, inputs, results):
    """Stacked bars of devices held by each job at the deadlock point (greedy) and at the first
    admission (gang), with the cluster size. Needs ``jobs`` (names), ``greedy_held`` and
    ``gang_held`` (lists of ints), ``total`` and ``greedy_deadlocked``."""
    jobs = results["jobs"]
    bars = []
    for j, name in enumerate(jobs):
        b = ax.bar([0, 1], [0, 0], color=COLORS[j % 4], label=f"job {name}")
        bars.append(b)
    tot = ax.axhline(results["total"], color="#333", ls="--", lw=1, label="cluster")
    ax.set_xticks([0, 1], ["greedy per task", "gang (Alg. 28.2)"])
    ax.set_ylabel("devices held")
    ax.legend(fontsize=7, loc="upper right")

    def update(inputs, res):
        base = np.zeros(2)
        for j, b in enumerate(bars):
            h = np.array([res["greedy_held"][j], res["gang_held"][j]], dtype=float)
            for k in range(2):
                b[k].set_y(base[k])
                b[k].set_height(h[k])
            base += h
        tot.set_ydata([res["total"], res["total"]])
        fit_limits(ax, y=(0, res["total"] * 1.3))
        ax.set_title("greedy: " + ("DEADLOCK (everyone waits)" if res["greedy_deadlocked"] else "no deadlock")
                     + " | gang: whole groups only", fontsize=9)

    update(inputs, results)
    return update
