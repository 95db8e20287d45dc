"""Where Eq. 28.23's three terms come from, drawn as a timeline (Ch. 28 §28.9).

A synchronous job on a few nodes saves every tau* (:func:`fleetcalc.physics.reliability.young_daly_interval`)
with a pause C. One node fails part-way through an interval: the *whole* group stops (the blast
radius of a synchronous job is every member), the work since the last save is lost on every node,
recovery takes R_f, and the group resumes from the last committed step. Every length on the
picture comes from the reliability calculators; the failure's position is a parameter.
"""
from __future__ import annotations

from fleetcalc.physics.reliability import waste_terms, young_daly_interval
from fleetcalc.core.units import as_quantity, fmt
from fleetcalc.core.validate import InputError, count
from fleetcalc.ui.diagrams.draw import PALETTE, box, canvas, label
from fleetcalc.ui.diagrams.draw import finish_strip
import numpy as np
from fleetcalc.core.units import Q_
from fleetcalc.core.validate import magnitude
from fleetcalc.physics import reliability
from fleetcalc.ui.diagrams.draw import figure_axes as _figure, plain_log as _plain_log

__all__ = ["failure_timeline", "timeline_segments", "reliability_collapse", "failure_day"]


def timeline_segments(C, M, R_f, *, intervals=3, fail_fraction=0.6):
    """The segments the picture draws, in seconds: a list of (kind, start, end) with kind in
    compute | save | lost | recover | resume, plus tau* and the failure time.

    The failure lands ``fail_fraction`` of the way through the last of ``intervals`` intervals.
    """
    n = int(count("intervals", intervals))
    if not 0 < float(fail_fraction) < 1:
        raise InputError(f"fail_fraction must be in (0, 1); got {fail_fraction}")
    tau = float(young_daly_interval(C, M).to("s").magnitude)
    c = float(as_quantity(C).to("s").magnitude)
    r = float(as_quantity(R_f).to("s").magnitude)
    if r < 0:
        raise InputError(f"R_f must be >= 0 s; got {R_f}")
    seg, t = [], 0.0
    for _ in range(n - 1):
        seg.append(("compute", t, t + tau))
        seg.append(("save", t + tau, t + tau + c))
        t += tau + c
    t_fail = t + float(fail_fraction) * tau
    seg.append(("lost", t, t_fail))
    seg.append(("recover", t_fail, t_fail + r))
    seg.append(("resume", t_fail + r, t_fail + r + 0.5 * tau))
    return {"segments": seg, "tau": tau, "t_fail": t_fail, "last_save": t}


def failure_timeline(C, M, R_f, *, nodes=4, failed_node=2, intervals=3, fail_fraction=0.6):
    """One failure in a synchronous job: saves every tau*, the whole group loses the work since
    the last save, recovers for R_f and resumes (Eq. 28.23's save, lost and recovery terms)."""
    nodes = int(count("nodes", nodes))
    if not 0 <= int(failed_node) < nodes:
        raise InputError(f"failed_node must be in 0..{nodes - 1}; got {failed_node}")
    tl = timeline_segments(C, M, R_f, intervals=intervals, fail_fraction=fail_fraction)
    end = tl["segments"][-1][2]
    fig, ax = canvas(20, 7.0, size=(11.0, 4.0),
                     title="Eq. 28.23 on a timeline: one node fails, the whole group pays")
    x0, x1 = 1.6, 19.6
    sx = (x1 - x0) / end
    hours = lambda s: x0 + s * sx  # noqa: E731
    kinds = {"compute": ("compute", 0.45), "save": ("storage", 0.9), "lost": ("fault", 0.55),
             "recover": ("idle", 0.6), "resume": ("compute", 0.25)}
    row_h, top = 0.75, 5.5
    for k in range(nodes):
        y = top - k * (row_h + 0.2)
        label(ax, 0.8, y + row_h / 2, f"node {k}", fontsize=8.5)
        for kind, a, b in tl["segments"]:
            colour, alpha = kinds[kind]
            box(ax, hours(a), y, max((b - a) * sx, 0.04), row_h, "", kind=colour, alpha=alpha)
        if k == int(failed_node):
            ax.text(hours(tl["t_fail"]), y + row_h / 2, "✕", color=PALETTE["fault"], fontsize=18,
                    ha="center", va="center", weight="bold")
    y_bottom = top - (nodes - 1) * (row_h + 0.2)
    # annotations under the rows
    ya = y_bottom - 0.55
    ax.annotate("", xy=(hours(tl["tau"]), ya), xytext=(hours(0), ya),
                arrowprops=dict(arrowstyle="<|-|>", color=PALETTE["text"], lw=1.0))
    label(ax, hours(tl["tau"] / 2), ya - 0.35, f"τ* = {fmt(young_daly_interval(C, M), 'auto', sig=3)} "
          "(Eq. 28.24)", fontsize=8.5)
    save_at = [a for kind, a, _ in tl["segments"] if kind == "save"]
    if save_at:
        label(ax, hours(save_at[0]), top + row_h + 0.3, f"save pause C = {fmt(as_quantity(C), 'auto', sig=3)}",
              fontsize=8.5)
    lost = tl["t_fail"] - tl["last_save"]
    ax.annotate("", xy=(hours(tl["t_fail"]), ya), xytext=(hours(tl["last_save"]), ya),
                arrowprops=dict(arrowstyle="<|-|>", color=PALETTE["fault"], lw=1.2))
    ax.text(hours((tl["last_save"] + tl["t_fail"]) / 2), ya - 0.35,
            f"lost on every node: {fmt(as_quantity(lost, 's'), 'auto', sig=3)}", fontsize=8.5,
            color=PALETTE["fault"], ha="center", va="center")
    if float(as_quantity(R_f).to("s").magnitude) > 0:
        label(ax, hours(tl["t_fail"] + float(as_quantity(R_f).to("s").magnitude) / 2), top + row_h + 0.3,
              f"recover R_f = {fmt(as_quantity(R_f), 'auto', sig=3)}", fontsize=8.5)
    terms = waste_terms(young_daly_interval(C, M), C, M, R_f)
    ax.text(10.6, ya - 1.05,
            f"per unit of useful time at τ*:  save C/τ* = {_pct(terms['save'])}   ·   "
            f"lost τ*/2M = {_pct(terms['lost'])} (a failure lands mid-interval on average)   ·   "
            f"recover R_f/M = {_pct(terms['recover'])}",
            ha="center", va="center", fontsize=8.5, color=PALETTE["text"])
    for i, (name, (colour, alpha)) in enumerate({"useful compute": kinds["compute"], "save pause C": kinds["save"],
                                                 "lost, redone": kinds["lost"], "recovery R_f": kinds["recover"],
                                                 "resumed from last save": kinds["resume"]}.items()):
        box(ax, 1.0 + i * 3.8, 0.15, 0.5, 0.35, "", kind=colour, alpha=alpha)
        label(ax, 1.6 + i * 3.8, 0.32, name, fontsize=8, ha="left")
    return fig


def _pct(q):
    return fmt(q, "%", 2)


def reliability_collapse(reliabilities=(0.999, 0.9999, 0.99999), *, N_max: int = 1_000_000,
                         title: str = "Eq. 1.1: a cluster is only as healthy as the product of its nodes"):
    """R_system = r^N against cluster size N (log x axis) for each per-node reliability r, with
    the size at which each curve falls to 1/e (about 1/(1 - r) nodes) marked. ``fig.crossings``
    holds those sizes, solved from Eq. 1.1: N = -1 / ln r."""
    rs = [magnitude("reliability", r, "", gt=0, lt=1) for r in reliabilities]
    N_max = int(magnitude("N_max", N_max, "", ge=10))
    N = np.unique(np.logspace(0, np.log10(N_max), 300).astype(int))
    fig, ax = _figure((6.4, 3.2))
    cmap = __import__("matplotlib").colormaps["viridis"]
    crossings = []
    for i, r in enumerate(rs):
        R = reliability.system_reliability(r, N).magnitude
        color = cmap(i / max(len(rs) - 1, 1))
        ax.plot(N, R, color=color, lw=1.8, label=f"per node r = {r:.{max(3, len(repr(r)) - 2)}g}")
        n_e = -1.0 / np.log(r)                                  # r^N = 1/e
        crossings.append(n_e)
        ax.plot([n_e], [np.exp(-1)], "o", color=color, ms=4)
    ax.axhline(np.exp(-1), color=PALETTE["idle"], ls="--", lw=1)
    ax.text(1.2, np.exp(-1) + 0.03, "1/e ≈ 37 %: one expected failure", fontsize=8)
    ax.set_xscale("log")
    ax.set_ylim(0, 1.05)
    ax.set_xlabel("cluster size N (nodes)", fontsize=9)
    ax.set_ylabel("R_system = r^N", fontsize=9)
    ax.tick_params(labelsize=8)
    ax.grid(True, alpha=0.25)
    _plain_log(ax, "x")
    ax.legend(fontsize=7, loc="lower left")
    ax.set_title(title, fontsize=10)
    fig.tight_layout()
    fig.crossings = np.array(crossings)
    return fig


def failure_day(mtbf_one, sizes=(1_000, 8_000, 25_000), *, window=Q_(24, "hour"),
                title: str = "One day of a training job: expected interruptions"):
    """For each cluster size, a strip one ``window`` long with a tick every system MTBF
    (``reliability.mtbf_of_n``): the interruptions a day brings on average, drawn evenly spaced
    (real ones arrive at random; the count is what the strip shows). ``fig.per_window`` holds the
    expected count per size and ``fig.mtbf_system`` the system MTBF in hours."""
    sizes = [int(magnitude("sizes", s, "", ge=1)) for s in sizes]
    w_h = Q_(window).to("hour").magnitude
    fig, ax = _figure((7.0, 0.8 + 0.6 * len(sizes)))
    per, mtbfs = [], []
    for i, n in enumerate(reversed(sizes)):
        m = reliability.mtbf_of_n(mtbf_one, n).to("hour").magnitude
        k = w_h / m
        per.insert(0, k)
        mtbfs.insert(0, m)
        ax.barh(i, w_h, color=PALETTE["compute"], alpha=0.15, height=0.55)
        ticks = np.arange(m, w_h, m)[:200]
        ax.vlines(ticks, i - 0.27, i + 0.27, color=PALETTE["fault"], lw=1.6)
        ax.text(w_h * 1.01, i, f"{fmt(k, None, sig=2)} per {fmt(Q_(window), 'auto', sig=2)}"
                f"  (MTBF {fmt(Q_(m, 'hour'), 'auto', sig=2)})", va="center", fontsize=8)
    ax.set_yticks(range(len(sizes)), [f"N = {n:,}" for n in reversed(sizes)], fontsize=8)
    ax.set_xlim(0, w_h * 1.45)
    ax.set_xticks(np.linspace(0, w_h, 5))
    finish_strip(fig, ax, "hours into the window", title)
    fig.per_window, fig.mtbf_system = np.array(per), np.array(mtbfs)
    return fig
