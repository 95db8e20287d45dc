"""Links and the alpha-beta model: what a printed link figure leaves for one transfer in one direction, the alpha-beta curve and its crossover, a message's path across the fabric, and the LogGP timeline."""
from __future__ import annotations

from fleetcalc.core.catalog import entry
from fleetcalc.core.units import Q_, fmt
from fleetcalc.physics import links
from fleetcalc.ui.diagrams.draw import PALETTE
import numpy as np
from fleetcalc.core.validate import magnitude
from fleetcalc.physics import collectives
from fleetcalc.core.catalog import hw
from fleetcalc.core.validate import count
from fleetcalc.physics import (loggp)
from fleetcalc.ui.diagrams.draw import arrow, box, canvas, label
from fleetcalc.physics import fabric
from fleetcalc.ui.diagrams.draw import finish_log_axes as _finish_log_axes
from fleetcalc.ui.diagrams.draw import figure_axes as _figure, whole_count as _count, RAIL_COLOURS as _RAIL_COLOURS

__all__ = ["LINKS", "usable_one_way", "printed_vs_usable", "alpha_beta_curve", "loggp_timeline", "link_path", "alpha_beta_crossover"]


#: The links drawn: a per-GPU NVLink figure printed as a two-way sum, an NDR port printed in bits,
#: a PCIe Gen5 x16 link printed per direction.
LINKS = ("nvlink4.gpu_bandwidth", "infiniband_ndr.port_rate", "pcie.gen5_x16")


def usable_one_way(path: str):
    """(printed number taken as GB/s, what one one-way transfer can use in GB/s) for a catalog entry."""
    e = entry(path)
    q = e.quantity
    naive = Q_(q.magnitude, "GB/s")                       # the number as a reader might take it
    rate = q.to("byte/s")
    if e.direction == "both-ways":
        rate = links.one_way(rate)
    return naive, rate.to("GB/s")


def printed_vs_usable(paths=LINKS):
    """Horizontal bars: the printed figure read as GB/s (grey) beside the one-way byte rate (colour)."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(8.4, 3.0), dpi=100)
    ax = fig.add_subplot(1, 1, 1)
    names = []
    for i, p in enumerate(paths):
        e = entry(p)
        naive, usable = usable_one_way(p)
        y = len(paths) - 1 - i
        ax.barh(y + 0.18, naive.magnitude, height=0.34, color=PALETTE["idle"])
        ax.barh(y - 0.18, usable.magnitude, height=0.34, color=PALETTE["network"])
        ax.text(naive.magnitude, y + 0.18, f"  printed: {fmt(e.quantity, 'auto', sig=3)} ({e.direction})",
                va="center", fontsize=8.5)
        ax.text(usable.magnitude, y - 0.18, f"  at most, one way (before overhead): {fmt(usable, 'GB/s', sig=3)}",
                va="center", fontsize=8.5)
        names.append(e.label or p)
    ax.set_yticks(range(len(paths)))
    ax.set_yticklabels(list(reversed(names)), fontsize=8.5)
    ax.set_xlabel("GB/s")
    ax.set_xlim(0, 1600)
    ax.set_title("§28.1 — the number on the sheet and the rate one transfer gets", fontsize=11)
    fig.tight_layout()
    return fig


def alpha_beta_curve(alpha, beta, *, n_range=(Q_(1, "byte"), Q_(1, "GB")), title: str = "The α–β model: two regimes and the crossover"):
    """T(n) = α + n/β against message size n (log-log), with the start-up floor α, the
    bandwidth line n/β and the crossover n* = αβ where they are equal (there T = 2α).
    ``fig.n_star`` holds n* in bytes and ``fig.T_at_n_star`` T(n*) in seconds."""
    lo = magnitude("n_range[0]", n_range[0], "byte", gt=0)
    hi = magnitude("n_range[1]", n_range[1], "byte", gt=0)
    n = np.logspace(np.log10(lo), np.log10(hi), 200)
    T = collectives.alpha_beta_time(Q_(n, "byte"), alpha, beta).to("s").magnitude
    a = Q_(alpha).to("s").magnitude
    bw_line = (Q_(n, "byte") / Q_(beta)).to("s").magnitude
    n_star = collectives.latency_bandwidth_threshold(alpha, beta).to("byte").magnitude
    fig, ax = _figure((6.4, 3.4))
    ax.plot(n, T * 1e6, color=PALETTE["network"], lw=2, label="T(n) = α + n/β")
    ax.plot(n, np.full_like(n, a * 1e6), color=PALETTE["idle"], ls="--", lw=1, label="α alone (latency-bound)")
    ax.plot(n, bw_line * 1e6, color=PALETTE["compute"], ls=":", lw=1.2, label="n/β alone (bandwidth-bound)")
    T_star = float(collectives.alpha_beta_time(Q_(n_star, "byte"), alpha, beta).to("s").magnitude)
    ax.axvline(n_star, color=PALETTE["fault"], lw=1)
    ax.annotate(f"n* = αβ = {fmt(Q_(n_star, 'byte'), 'auto', sig=3)}\n(T = 2α here)", (n_star, T_star * 1e6),
                xytext=(10, -30), textcoords="offset points", fontsize=8)
    ax.set_ylim(a * 1e6 / 3, T.max() * 1e6 * 2)
    _finish_log_axes(fig, ax, "message size n (bytes)", "time (µs)", title, "upper left")
    fig.n_star, fig.T_at_n_star = float(n_star), T_star
    return fig


# --------------------------------------------------------------------------- LogGP
def loggp_timeline(n_msg, k, L_lat, o, g, G, *, title=""):
    """A burst of ``n_msg`` k-byte messages on three lanes: sender overhead o, the bytes' injection
    (k-1)G, the wire latency L_lat, the receiver's overhead o. Starts are one injection period
    apart (:func:`fleetcalc.physics.loggp.loggp_injection_period`); the last arrival is
    :func:`fleetcalc.physics.loggp.loggp_burst_time`. ``fig.times`` holds them in µs."""
    n = int(count("n_msg", n_msg))
    us = lambda q: q.to("us").magnitude
    period = us(loggp.loggp_injection_period(k, o, g, G))
    inject = us(loggp.loggp_message_time(k, Q_(0, "s"), Q_(0, "s"), G))   # (k-1)G alone
    t_o, t_L = us(Q_(o)), us(Q_(L_lat))
    burst = us(loggp.loggp_burst_time(n, k, L_lat, o, g, G))
    one = us(loggp.loggp_message_time(k, L_lat, o, G))
    fig, ax = _figure((7.8, 2.9))
    lanes = {"sender CPU": 2, "wire": 1, "receiver CPU": 0}
    for i in range(n):
        t0 = i * period                                   # layout: the i-th start
        ax.broken_barh([(t0, t_o)], (lanes["sender CPU"] - 0.3, 0.6), color=PALETTE["host"])
        ax.broken_barh([(t0 + t_o, inject)], (lanes["sender CPU"] - 0.3, 0.6), color=PALETTE["memory"], alpha=0.8)
        lift = 0.18 if i % 2 else -0.18                    # layout: alternate rows so messages in flight stay apart
        ax.broken_barh([(t0 + t_o + inject, t_L)], (lanes["wire"] + lift - 0.15, 0.3), color=PALETTE["network"], alpha=0.7)
        ax.broken_barh([(t0 + t_o + inject + t_L, t_o)], (lanes["receiver CPU"] - 0.3, 0.6), color=PALETTE["host"])
    ax.axvline(burst, color=PALETTE["text"], lw=1, ls="--")
    ax.text(burst, -0.45, f" last arrival {fmt(Q_(burst, 'us'), 'us', sig=3)}", fontsize=8, va="center")
    if n > 1:
        ax.annotate("", xy=(period, 2.55), xytext=(0, 2.55),
                    arrowprops=dict(arrowstyle="<|-|>", color=PALETTE["text"], lw=1))
        ax.text(period * 1.1, 2.55, f"period max(g, o+(k-1)G) = {fmt(Q_(period, 'us'), 'us', sig=3)}", fontsize=7.5,
                ha="left", va="center")
    from matplotlib.patches import Patch

    ax.legend(handles=[Patch(color=PALETTE["host"], label="o: processor overhead"),
                       Patch(color=PALETTE["memory"], alpha=0.8, label="(k-1)G: bytes injected"),
                       Patch(color=PALETTE["network"], alpha=0.7, label="L: on the wire")],
              fontsize=7.5, loc="upper right", ncol=3)
    ax.set_yticks(list(lanes.values()), list(lanes.keys()), fontsize=8)
    ax.set_ylim(-0.7, 3.6)
    ax.set_xlim(0, burst * 1.25)
    ax.set_xlabel("time (µs)", fontsize=9)
    ax.tick_params(labelsize=8)
    ax.set_title(title or f"LogGP: {n} messages of {fmt(Q_(k), 'auto', sig=3)}; one alone takes "
                 f"{fmt(Q_(one, 'us'), 'us', sig=3)}", fontsize=10)
    fig.tight_layout()
    fig.times = {"period": period, "inject": inject, "o": t_o, "L": t_L, "burst": burst, "one": one}
    return fig


def link_path():
    """One hop, GPU to switch: the stages a bit passes and what the chapter says each costs."""
    fec_lo, fec_hi = hw("pam4.fec_latency_low"), hw("pam4.fec_latency_high")
    t_sw = hw("switch64.traversal_latency")
    alpha = hw("ib_ndr.alpha")
    fec = f"{fmt(fec_lo, 'ns', 0)}-{fmt(fec_hi, 'ns', 0)}"
    stages = [("NIC", "host", "RDMA engine"), ("SerDes", "compute", "PAM4, 4 levels"),
              ("FEC", "fault", f"RS({_count(hw('pam4.fec_n'))},{_count(hw('pam4.fec_k'))})\n{fec}"),
              ("optics", "memory", "electrical to light"), ("fibre / copper", "network", "metres"),
              ("optics", "memory", "light to electrical"), ("FEC", "fault", f"decode\n{fec}"),
              ("switch", "storage", f"{fmt(t_sw, 'us', 1)} per traversal")]
    w = 16.0
    fig, ax = canvas(w, 5.2, size=(10.0, 3.3), title="One hop of a link: where the start-up latency α comes from")
    bw = (w - 1.0) / len(stages)
    for i, (name, kind, note) in enumerate(stages):
        x = 0.5 + i * bw
        box(ax, x + 0.1, 2.6, bw - 0.3, 1.1, name, kind=kind, alpha=0.35, fontsize=8)
        label(ax, x + bw / 2 - 0.05, 1.95, note, fontsize=7)
        if i:
            arrow(ax, (x - 0.2, 3.15), (x + 0.1, 3.15), kind="text", width=1.0)
    hops = 3
    label(ax, w / 2, 4.45,
          f"FEC is paid on every link: {hops} hops add {fmt(hops * fec_lo, 'ns', 0)}-{fmt(hops * fec_hi, 'ns', 0)}; "
          f"{hops} switch traversals at §3.5's figure would add {fmt(fabric.path_latency(hops, t_sw), 'auto', sig=2)}", fontsize=8)
    over = fabric.path_latency(hops, t_sw) > alpha
    label(ax, w / 2, 0.75,
          f"the chapter's NDR start-up latency α = {fmt(alpha, 'auto', sig=2)} end to end"
          + (" - less than those traversals alone: the book's two figures cannot both hold (§3.5's is for ratios)"
             if over else " (the text gives no separate SerDes, optics or fibre delay)"), fontsize=8)
    return fig


def alpha_beta_crossover(nets=None, n_range=(1e2, 1e10)):
    """T(n) against n on log-log axes for each network (default: NDR InfiniBand and the chapter's
    Ethernet baseline), the flat α floor and the n/β line dashed, each crossover n* = αβ marked."""
    from matplotlib.figure import Figure

    if nets is None:
        nets = {"InfiniBand NDR": (hw("ib_ndr.alpha"), hw("ib_ndr.port_bandwidth")),
                "Ethernet baseline": (hw("eth_baseline.alpha"), hw("eth_baseline.bandwidth"))}
    n = Q_(np.logspace(np.log10(n_range[0]), np.log10(n_range[1]), 300), "byte")
    fig = Figure(figsize=(7.2, 4.0), dpi=100)
    ax = fig.add_subplot(1, 1, 1)
    for i, (name, (a, b)) in enumerate(nets.items()):
        c = _RAIL_COLOURS[i]
        T = collectives.alpha_beta_time(n, a, b).to("s").magnitude
        ax.loglog(n.magnitude, T, color=c, lw=2.2, label=f"{name}: α = {fmt(a, 'auto', sig=2)}, β = {fmt(b, 'GB/s', sig=3)}")
        ax.loglog(n.magnitude, (n / b).to("s").magnitude, color=c, lw=1, ls=":")
        ax.axhline(a.to("s").magnitude, color=c, lw=1, ls="--")
        ns = collectives.latency_bandwidth_threshold(a, b)
        Ts = collectives.alpha_beta_time(ns, a, b)
        ax.plot([ns.to("byte").magnitude], [Ts.to("s").magnitude], "o", color=c, ms=7, zorder=5)
        ax.annotate(f"n* = αβ = {fmt(ns, 'kB', sig=3)}\n(T = 2α)", (ns.to("byte").magnitude, Ts.to("s").magnitude),
                    textcoords="offset points", xytext=(-95 if i else 10, 12 if i else -28), fontsize=8)
    ax.set_ylim(1e-7, 2)
    ax.set_xlabel("message size n (bytes)")
    ax.set_ylabel("T(n) (s)")
    ax.grid(True, which="major", alpha=0.25)
    ax.legend(fontsize=8, loc="upper left")
    ax.set_title("T(n) = α + n/β: flat (latency-bound) left of n*, rising (bandwidth-bound) right", fontsize=9)
    fig.tight_layout()
    return fig
