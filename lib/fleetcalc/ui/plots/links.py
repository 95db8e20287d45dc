"""Plots for wires, links and the alpha-beta model (Vol. 2 Ch. 3 §3.3-3.4)."""
from __future__ import annotations

import numpy as np

from fleetcalc.physics.collectives import alpha_beta_time, latency_bandwidth_threshold
from fleetcalc.physics.links import links_power
from fleetcalc.core.units import Q_
from fleetcalc.ui.plots import fit_limits, log_axes

_N = np.logspace(2, 10, 120)   # 100 B .. 10 GB


def alpha_beta_panel(ax, inputs, results):
    """log-log T(n) = alpha + n/beta for two networks with their crossovers n* = alpha beta and the
    chosen message size (Vol. 2 Ch. 3 Fig. 3.7). Needs ``results`` with ``alpha_ib``, ``beta_ib``,
    ``alpha_eth``, ``beta_eth``, ``n`` (Quantities)."""
    def curves(res):
        m = Q_(_N, "byte")
        t1 = alpha_beta_time(m, res["alpha_ib"], res["beta_ib"]).to("s").magnitude
        t2 = alpha_beta_time(m, res["alpha_eth"], res["beta_eth"]).to("s").magnitude
        x1 = latency_bandwidth_threshold(res["alpha_ib"], res["beta_ib"]).to("byte").magnitude
        x2 = latency_bandwidth_threshold(res["alpha_eth"], res["beta_eth"]).to("byte").magnitude
        return t1, t2, x1, x2

    t1, t2, x1, x2 = curves(results)
    (l1,) = ax.loglog(_N, t1, color="#1f4e79", lw=2, label="InfiniBand NDR")
    (l2,) = ax.loglog(_N, t2, color="#e15759", lw=2, label="Ethernet baseline")
    v1 = ax.axvline(x1, color="#1f4e79", ls="--", lw=1, label="n* = αβ (IB)")
    v2 = ax.axvline(x2, color="#e15759", ls=":", lw=1, label="n* = αβ (Eth)")
    (p1,) = ax.plot([1], [1], "o", color="#1f4e79", ms=7, zorder=5)
    (p2,) = ax.plot([1], [1], "o", color="#e15759", ms=7, zorder=5)
    log_axes(ax, "message size n (byte)", "T(n) (s)")

    def update(inputs, res):
        t1, t2, x1, x2 = curves(res)
        l1.set_ydata(t1)
        l2.set_ydata(t2)
        v1.set_xdata([x1, x1])
        v2.set_xdata([x2, x2])
        n = res["n"].to("byte").magnitude
        p1.set_data([n], [res["T_ib"].to("s").magnitude])
        p2.set_data([n], [res["T_eth"].to("s").magnitude])
        fit_limits(ax, y=(min(t1.min(), t2.min()) / 2, max(t1.max(), t2.max()) * 2))

    update(inputs, results)
    return update


def signalling_panel(ax, inputs, results):
    """Voltage levels of NRZ (left) and PAM-N (right) on the same swing, with the gap between
    adjacent levels (Vol. 2 Ch. 3 Fig. 3.4). Needs ``results`` with ``levels`` (int)."""
    ax.set_xlim(0, 2)
    ax.set_ylim(-0.1, 1.1)
    ax.set_xticks([0.5, 1.5], ["NRZ (2 levels)", "chosen scheme"])
    ax.set_ylabel("normalised voltage")
    for y in (0.0, 1.0):
        ax.hlines(y, 0.1, 0.9, color="#1f4e79", lw=2)
    ax.annotate("", (0.5, 1.0), (0.5, 0.0), arrowprops=dict(arrowstyle="<->", color="#555"))
    ax.text(0.55, 0.5, "gap 1", fontsize=8)
    lines = ax.hlines(np.linspace(0, 1, 4), 1.1, 1.9, color="#e15759", lw=2)
    arrow = ax.annotate("", (1.5, 1 / 3), (1.5, 0.0), arrowprops=dict(arrowstyle="<->", color="#555"))
    label = ax.text(1.55, 0.1, "", fontsize=8)

    def update(inputs, res):
        lv = int(res["levels"])
        ys = np.linspace(0, 1, lv)
        lines.set_segments([[(1.1, y), (1.9, y)] for y in ys])
        gap = 1.0 / (lv - 1)
        arrow.xy = (1.5, gap)
        label.set_text(f"gap 1/{lv - 1}")
        label.set_y(gap / 2)
        ax.set_title(f"{lv} levels: {np.log2(lv):g} bit/symbol, eye {gap:.2f} of NRZ", fontsize=9)

    update(inputs, results)
    return update


def link_budget_panel(ax, inputs, results):
    """Stacked bar of a link budget: cable loss, connector loss and the margin left; a second bar for
    the same cable at the chosen loss per metre scaling (Vol. 2 Ch. 3 §3.3). Needs ``results`` with
    ``budget``, ``cable_loss``, ``connector_loss``, ``margin`` (plain dB numbers)."""
    b_c = ax.bar([0], [1], color="#4e79a7", label="cable loss")
    b_k = ax.bar([0], [1], color="#f28e2b", label="connectors")
    b_m = ax.bar([0], [1], color="#59a14f", label="margin left")
    line = ax.axhline(0, color="#c0392b", ls="--", lw=1.5, label="budget")
    ax.set_xticks([0], ["link"])
    ax.set_xlim(-1, 1)
    ax.set_ylabel("dB")
    ax.legend(fontsize=8, loc="upper right")

    def update(inputs, res):
        c, k, m, b = (float(np.asarray(getattr(res[x], "magnitude", res[x]))) for x in
                      ("cable_loss", "connector_loss", "margin", "budget"))
        b_c[0].set_height(c)
        b_k[0].set_y(c)
        b_k[0].set_height(k)
        b_m[0].set_y(c + k)
        b_m[0].set_height(m)
        b_m[0].set_color("#59a14f" if m >= 0 else "#c0392b")
        line.set_ydata([b, b])
        fit_limits(ax, y=(min(0, c + k + m) - 1, max(b, c + k) * 1.3))
        ax.set_title("margin < 0: the link fails" if m < 0 else f"margin {m:.1f} dB", fontsize=9)

    update(inputs, results)
    return update


def link_power_panel(ax, inputs, results):
    """Interconnect power against link count, with the chosen point and the share of the cluster's
    power (Vol. 2 Ch. 3 §3.3). Needs ``results`` with ``P_links`` (W) and ``n_links`` and
    ``power_per_link`` (W)."""
    n = np.linspace(0, 20000, 101)
    (ln,) = ax.plot(n, n, color="#1f4e79", lw=2)
    (pt,) = ax.plot([0], [0], "o", color="#c0392b", ms=8)
    ax.set_xlabel("links")
    ax.set_ylabel("interconnect power (kW)")
    ax.grid(True, alpha=0.25)

    def update(inputs, res):
        p = links_power(n, res["power_per_link"]).to("kW").magnitude
        ln.set_ydata(p)
        pt.set_data([res["n_links"]], [res["P_links"].to("kW").magnitude])
        fit_limits(ax, y=(0, max(p[-1], 1) * 1.05))

    update(inputs, results)
    return update
