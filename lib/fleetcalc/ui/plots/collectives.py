"""Alpha-beta plots (Ch. 28 §28.5): ring vs tree time against message size, ring terms vs p,
and step time against overlap (Eq. 28.10-28.15)."""
from __future__ import annotations

import numpy as np

from fleetcalc.physics.collectives import ring_allreduce_time, ring_tree_crossover, tree_allreduce_time
from fleetcalc.core.units import Q_
from fleetcalc.ui.plots import fit_limits, log_axes, plain_log_ticks

_M = np.logspace(0, 10, 120)   # 1 byte .. 10 GB


def ring_tree_panel(ax, inputs, results):
    """log-log t(m) for ring (Eq. 28.12) and tree (Eq. 28.13), crossover and operating point.
    Needs ``results`` with ``p`` (int, power of two), ``alpha``, ``beta_net``, ``m``, ``t_ring``."""
    def curves(res):
        p, a, b = res["p"], res["alpha"], res["beta_net"]
        m = Q_(_M, "byte")
        return (ring_allreduce_time(p, m, a, b).to("s").magnitude,
                tree_allreduce_time(p, m, a, b).to("s").magnitude,
                ring_tree_crossover(p, a, b).to("byte").magnitude)

    r, t, mx = curves(results)
    (lr,) = ax.loglog(_M, r, color="#1f4e79", lw=2, label="ring (Eq. 28.12)")
    (lt,) = ax.loglog(_M, t, color="#e15759", lw=2, label="tree (Eq. 28.13)")
    vx = ax.axvline(max(mx, 1), color="#999", ls="--", lw=1, label="crossover")
    (pt,) = ax.plot([1], [1], "o", color="#333", ms=7, label="your message", zorder=5)
    log_axes(ax, "message size m per process (byte)", "time (s)")

    def update(inputs, res):
        r, t, mx = curves(res)
        lr.set_ydata(r)
        lt.set_ydata(t)
        vx.set_xdata([max(mx, 1), max(mx, 1)])
        pt.set_data([res["m"].to("byte").magnitude], [res["t_ring"].to("s").magnitude])
        fit_limits(ax, y=(min(r.min(), t.min()) / 2, max(r.max(), t.max()) * 2))

    update(inputs, results)
    return update


def ring_terms_vs_p_panel(ax, inputs, results):
    """Stacked latency and bandwidth terms of Eq. 28.12 against p (fixed m). Needs ``results``
    with ``P`` (array of p), ``lat_us`` and ``bw_us`` (arrays, microseconds) and ``p``."""
    P = results["P"]
    b1 = ax.bar(np.arange(len(P)), results["lat_us"], color="#e15759", label="start-up 2(p-1)α")
    b2 = ax.bar(np.arange(len(P)), results["bw_us"], bottom=results["lat_us"], color="#4e79a7",
                label="transfer 2(p-1)/p · m/β")
    ax.set_xticks(np.arange(len(P)), [str(p) for p in P])
    ax.set_xlabel("processes p")
    ax.set_ylabel("time (µs)")
    ax.legend(fontsize=8, loc="upper left")
    ax.grid(True, axis="y", alpha=0.25)

    def update(inputs, res):
        for b, lat, bw in zip(range(len(P)), res["lat_us"], res["bw_us"]):
            b1[b].set_height(lat)
            b2[b].set_y(lat)
            b2[b].set_height(bw)
            hot = P[b] == res["p"]
            b1[b].set_alpha(1 if hot else 0.45)
            b2[b].set_alpha(1 if hot else 0.45)
        fit_limits(ax, y=(0, float(np.max(res["lat_us"] + res["bw_us"])) * 1.15))

    update(inputs, results)
    return update


def overlap_panel(ax, inputs, results):
    """Two bars: compute and communication with the overlapped part shaded; the step (Eq. 28.15).
    Needs ``t_c``, ``t_n``, ``t_o``, ``t_step`` (Quantities)."""
    (bc,) = ax.barh(1, 1, left=0, height=0.5, color="#4e79a7", label="compute t_c")
    (bn,) = ax.barh(0, 1, left=0, height=0.5, color="#f28e2b", label="communication t_n")
    (bo,) = ax.barh(0.5, 1, left=0, height=1.5, color="#999", alpha=0.25, label="overlap t_o")
    step = ax.axvline(0, color="#c0392b", lw=2, label="step ends")
    ax.set_yticks([0, 1], ["network", "compute"])
    ax.set_xlabel("time (ms)")
    ax.legend(fontsize=8, loc="lower right")

    def update(inputs, res):
        c, n, o = (res[k].to("ms").magnitude for k in ("t_c", "t_n", "t_o"))
        bc.set_width(c)
        bn.set_x(c - o)
        bn.set_width(n)
        bo.set_x(c - o)
        bo.set_width(o)
        s = res["t_step"].to("ms").magnitude
        step.set_xdata([s, s])
        fit_limits(ax, x=(0, max(c + n, 1e-9) * 1.05))
        ax.set_ylim(-0.6, 1.6)
        ax.set_title(f"t_step = {s:.3g} ms = t_c + t_n - t_o", fontsize=9)

    update(inputs, results)
    return update


def cut_panel(ax, inputs, results):
    """Bars (GB/s): the sum of host ports vs the cut between two racks; and the all-to-all time vs
    a neighbour exchange (Exercise 28.7). Needs ``port_sum``, ``cut``, ``t_a2a``, ``t_neigh``."""
    bars = ax.bar(["sum of ports", "cut"], [1, 1], color=["#9db4cf", "#c0392b"])
    ax.set_ylabel("GB/s (log)")
    ax.set_yscale("log")
    plain_log_ticks(ax, "y")
    ax2 = ax.inset_axes([0.58, 0.45, 0.4, 0.5])
    tb = ax2.bar(["all-to-all", "neighbour"], [1, 1], color=["#e15759", "#59a14f"])
    ax2.set_yscale("log")
    plain_log_ticks(ax2, "y")
    ax2.set_title("time (ms)", fontsize=8)
    ax2.tick_params(labelsize=7)

    def update(inputs, res):
        v = [res["port_sum"].to("GB/s").magnitude, res["cut"].to("GB/s").magnitude]
        for b, h in zip(bars, v):
            b.set_height(h)
        fit_limits(ax, y=(min(v) / 3, max(v) * 3))
        t = [res["t_a2a"].to("ms").magnitude, res["t_neigh"].to("ms").magnitude]
        for b, h in zip(tb, t):
            b.set_height(h)
        fit_limits(ax2, y=(min(t) / 3, max(t) * 3))

    update(inputs, results)
    return update
