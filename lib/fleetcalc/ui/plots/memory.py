"""Memory-budget plots (Vol. 2 Ch. 2 Table 2.10 and the memory budget exercise)."""
from __future__ import annotations

import numpy as np
from fleetcalc.ui.plots import fit_limits

COMPONENTS = ("weights", "gradients", "optimizer", "activations", "buffers")
COLORS = {"weights": "#1f4e79", "gradients": "#4f81bd", "optimizer": "#9bbb59",
          "activations": "#f79646", "buffers": "#8064a2"}
RED = "#c0392b"


def memory_stack(ax, inputs, results):
    """Stacked bar of per-GPU HBM use by component, with the HBM capacity as a line; the part of
    the bar above capacity is overlaid in red. A second bar shows what this GPU keeps in host DRAM
    against its share of the host's DRAM.

    Needs ``results`` with the :func:`fleetcalc.physics.memory.per_gpu_budget` keys (GB Quantities) plus
    ``hbm_capacity`` and ``host_share`` (GB Quantities).
    """
    def gb(res, k):
        return float(res[k].to("GB").magnitude)

    x = [0, 1]
    bars = {}
    bottom = 0.0
    for k in COMPONENTS:
        (bars[k],) = ax.bar([0], [gb(results, k)], bottom=[bottom], color=COLORS[k], width=0.6, label=k)
        bottom += gb(results, k)
    (host_bar,) = ax.bar([1], [gb(results, "host")], color="#7f7f7f", width=0.6, label="offloaded to host")
    (over,) = ax.bar([0], [0.0], bottom=[0.0], color=RED, alpha=0.55, width=0.6, hatch="//",
                     edgecolor=RED, label="over HBM")
    cap_line, = ax.plot([-0.4, 0.4], [0, 0], color=RED, lw=2)
    host_line, = ax.plot([0.6, 1.4], [0, 0], color="#333", lw=2, ls="--")
    cap_text = ax.text(0.42, 0, "", color=RED, fontsize=8, va="bottom")
    host_text = ax.text(1.42, 0, "", color="#333", fontsize=8, va="bottom")
    total_text = ax.text(0, 0, "", ha="center", va="bottom", fontsize=9, fontweight="bold")
    ax.set_xticks(x, ["HBM per GPU", "host DRAM per GPU"])
    ax.set_xlim(-0.6, 1.9)
    ax.set_ylabel("GB per GPU")
    ax.legend(loc="upper right", fontsize=7, ncol=2)
    ax.grid(True, axis="y", alpha=0.25)

    def update(inputs, res):
        b = 0.0
        for k in COMPONENTS:
            h = gb(res, k)
            bars[k].set_y(b)
            bars[k].set_height(h)
            b += h
        cap = gb(res, "hbm_capacity")
        host = gb(res, "host")
        share = gb(res, "host_share")
        host_bar.set_height(host)
        host_bar.set_color(RED if host > share else "#7f7f7f")
        over.set_y(min(cap, b))
        over.set_height(max(b - cap, 0.0))
        cap_line.set_ydata([cap, cap])
        host_line.set_ydata([share, share])
        cap_text.set_position((0.42, cap))
        cap_text.set_text(f"HBM {cap:.0f} GB")
        host_text.set_position((1.05, share))
        host_text.set_text(f"host share {share:.0f} GB")
        total_text.set_position((0, b))
        total_text.set_text(f"{b:.1f} GB" + (" > HBM" if b > cap else ""))
        total_text.set_color(RED if b > cap else "black")
        top = max(b, cap, host, share) * 1.25
        fit_limits(ax, y=(0, top if top > 0 else 1))

    update(inputs, results)
    return update


def state_bars(ax, inputs, results):
    """Whole-model training state by component (Table 2.10) against node HBM and host DRAM.

    Needs ``results`` with ``weights, gradients, optimizer, activations`` (GB) and ``node_hbm``,
    ``host_dram`` (GB)."""
    keys = ("weights", "gradients", "optimizer", "activations")

    def vals(res):
        return [float(res[k].to("GB").magnitude) for k in keys]

    v = vals(results)
    bottoms = np.concatenate([[0.0], np.cumsum(v)[:-1]])
    bars = [ax.bar([0], [h], bottom=[b0], color=COLORS[k], width=0.5, label=k)[0]
            for k, h, b0 in zip(keys, v, bottoms)]
    hbm_line = ax.axhline(0, color=RED, lw=2, label="node HBM")
    host_line = ax.axhline(0, color="#333", lw=1.5, ls="--", label="host DRAM")
    ax.set_xticks([0], ["training state"])
    ax.set_xlim(-0.8, 0.8)
    ax.set_ylabel("GB")
    ax.legend(loc="upper left", fontsize=7)

    def update(inputs, res):
        vv = vals(res)
        b0 = 0.0
        for bar, h in zip(bars, vv):
            bar.set_y(b0)
            bar.set_height(h)
            b0 += h
        hbm = float(res["node_hbm"].to("GB").magnitude)
        host = float(res["host_dram"].to("GB").magnitude)
        hbm_line.set_ydata([hbm, hbm])
        host_line.set_ydata([host, host])
        fit_limits(ax, y=(0, max(b0, hbm, host) * 1.15))

    update(inputs, results)
    return update
