"""Occupancy limits of Eq. 28.1 (Ch. 28 §28.2) as bars, the binding one marked."""
from __future__ import annotations

from fleetcalc.ui.plots import fit_limits

LABELS = {"n_arch": "block limit", "registers": "registers", "shared_memory": "shared mem", "threads": "threads"}


def limits_panel(ax, inputs, results):
    """Bars of each Eq. 28.1 term; needs ``results["limits"]`` (dict name -> int) and ``bound``."""
    names = list(LABELS)

    def heights(res):
        lim = res["limits"]
        return [lim.get(n, 0) for n in names]

    bars = ax.bar([LABELS[n] for n in names], heights(results), color="#9db4cf")
    line = ax.axhline(results["bound"], color="#c0392b", ls="--", lw=1.5, label="bound n_block")
    ax.set_ylabel("resident blocks allowed")
    ax.legend(loc="upper right", fontsize=8)
    ax.grid(True, axis="y", alpha=0.25)

    def update(inputs, res):
        h = heights(res)
        for b, v, n in zip(bars, h, names):
            b.set_height(v)
            on = n in res["limits"] and res["limits"][n] == res["bound"]
            b.set_color("#c0392b" if on else ("#dddddd" if n not in res["limits"] else "#9db4cf"))
        line.set_ydata([res["bound"], res["bound"]])
        fit_limits(ax, y=(0, max(h) * 1.15 + 1))
        ax.set_title(f"binding: {', '.join(res['binding'])} -> {res['bound']} blocks", fontsize=9)

    update(inputs, results)
    return update
