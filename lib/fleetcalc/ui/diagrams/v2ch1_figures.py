"""Pictures for the Vol. 2 notation laws and Chapter 1 that the book draws in words only.

Each figure takes its numbers from a physics calculator (the iron law, the α–β model, Eq. 1.1,
Young–Daly, the ring all-reduce, communication intensity), so it cannot disagree with the worked
step printed beside it. The computed values a caption points at are attributes of the figure
(``fig.terms``, ``fig.n_star``, ...), which the tests check against hand calculations.

* :func:`iron_law_bars`: a step's time as the iron law's three terms, one bar per case (notation
  laws §1; §1.9's pruning pitfall: data time against compute time).
* :func:`alpha_beta_curve`: T(n) = α + n/β on log axes with its two asymptotes and n* = αβ.
* :func:`reliability_collapse`: R_system = r^N against N for a few per-node reliabilities (Eq. 1.1).
* :func:`failure_day`: one day of a job drawn as a strip, with the expected interruptions marked.
* :func:`ring_traffic`: what a ring all-reduce costs each worker as N grows (bytes and latency).
* :func:`checkpoint_interval`: the waste of a checkpoint interval τ, with τ* from the job's MTBF
  and the τ a per-device MTBF would suggest.
* :func:`ci_scale`: communication intensities on one log axis, against the hardware boundary CI*.
"""
from __future__ import annotations

import numpy as np

from fleetcalc.core.units import Q_, fmt
from fleetcalc.core.validate import magnitude
from fleetcalc.physics import collectives, iron_law, reliability
from fleetcalc.ui.diagrams.draw import PALETTE

__all__ = ["iron_law_bars", "alpha_beta_curve", "reliability_collapse", "failure_day", "ring_traffic",
           "checkpoint_interval", "ci_scale"]

_TERM_KIND = {"data": "memory", "compute": "compute", "latency": "idle"}
_TERM_LABEL = {"data": "data  D_vol / BW", "compute": "compute  O / (R_peak η_hw)", "latency": "overhead  L_lat"}



def _finish_log_axes(fig, ax, xlabel, ylabel, title, legend_loc):
    """The log-log axes of this module's curves: labels, plain tick labels, grid, legend, title."""
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel(xlabel, fontsize=9)
    ax.set_ylabel(ylabel, fontsize=9)
    ax.tick_params(labelsize=8)
    ax.grid(True, alpha=0.25)
    _plain_log(ax)
    ax.legend(fontsize=7, loc=legend_loc)
    ax.set_title(title, fontsize=10)
    fig.tight_layout()

def _figure(size, ncols=1):
    from matplotlib.figure import Figure

    fig = Figure(figsize=size, dpi=100)
    axes = [fig.add_subplot(1, ncols, i + 1) for i in range(ncols)]
    return fig, (axes[0] if ncols == 1 else axes)


def _plain_log(ax, axis="both"):
    from fleetcalc.ui.plots import plain_log_ticks

    plain_log_ticks(ax, axis)


def iron_law_bars(cases: dict, *, unit: str = "ms", title: str = "The iron law: where a step's time goes"):
    """One horizontal bar per case, split into the iron law's data, compute and overhead terms.

    ``cases`` maps a label to the six arguments of ``iron_law.iron_law_terms`` (D_vol, BW, O,
    R_peak, eta_hw, L_lat), as a tuple or a dict. ``fig.terms`` holds, per case, the three terms
    in ``unit`` and ``fig.totals`` their sums. The bars share one time axis, so a change that
    touches one term shows as one segment shrinking and the others staying put."""
    if not cases:
        raise ValueError("cases must name at least one step")
    terms, totals = {}, {}
    for name, args in cases.items():
        t = iron_law.iron_law_terms(**args) if isinstance(args, dict) else iron_law.iron_law_terms(*args)
        terms[name] = {k: float(v.to(unit).magnitude) for k, v in t.items()}
        totals[name] = sum(terms[name].values())
    fig, ax = _figure((7.2, 0.9 + 0.55 * len(cases)))
    names = list(cases)
    for i, name in enumerate(reversed(names)):
        left = 0.0
        for key in ("data", "compute", "latency"):
            w = terms[name][key]
            ax.barh(i, w, left=left, color=PALETTE[_TERM_KIND[key]], alpha=0.75, height=0.6,
                    label=_TERM_LABEL[key] if i == 0 else None)
            left += w
        ax.text(left, i, f"  T = {fmt(totals[name], None, sig=3)} {unit}", va="center", fontsize=8)
    ax.set_yticks(range(len(names)), list(reversed(names)), fontsize=8)
    ax.set_xlim(0, max(totals.values()) * 1.35)
    ax.set_xlabel(f"time ({unit})", fontsize=9)
    ax.tick_params(labelsize=8)
    ax.legend(fontsize=7, loc="lower right", ncol=3, frameon=False, bbox_to_anchor=(1.0, 1.0))
    ax.set_title(title, fontsize=10, loc="left", pad=18)
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)
    fig.tight_layout()
    fig.terms, fig.totals = terms, totals
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
    ax.set_xlabel("hours into the window", fontsize=9)
    ax.tick_params(labelsize=8)
    for side in ("top", "right", "left"):
        ax.spines[side].set_visible(False)
    ax.set_title(title, fontsize=10, loc="left")
    fig.tight_layout()
    fig.per_window, fig.mtbf_system = np.array(per), np.array(mtbfs)
    return fig


def ring_traffic(M, beta, alpha, N_values=(2, 4, 8, 64, 1024, 16_384),
                 title: str = "A ring all-reduce as the ring grows"):
    """Two panels against N (log x): left, the bytes each worker sends, 2(N-1)/N x M, which
    levels off at 2M; right, the two terms of the time, the latency term 2(N-1)α, which grows
    with N, and the bandwidth term, which does not (``collectives.ring_allreduce_terms``).
    ``fig.sent`` holds bytes per worker and ``fig.latency``, ``fig.bandwidth`` the terms in s."""
    N = np.array([int(magnitude("N_values", n, "", ge=2)) for n in N_values])
    Ncurve = np.unique(np.logspace(np.log10(N.min()), np.log10(N.max()), 120).astype(int))
    def terms(n):
        t = collectives.ring_allreduce_terms(n, M, alpha, beta)
        return t["latency"].to("s").magnitude, t["bandwidth"].to("s").magnitude
    lat_c, bw_c = terms(Ncurve)
    lat, bw = terms(N)
    b = Q_(beta).to("byte/s").magnitude
    m = Q_(M).to("byte").magnitude
    fig, (a1, a2) = _figure((7.6, 3.0), ncols=2)
    a1.plot(Ncurve, bw_c * b / 1e9, color=PALETTE["network"], lw=2)
    a1.plot(N, bw * b / 1e9, "o", color=PALETTE["network"], ms=4)
    a1.axhline(2 * m / 1e9, color=PALETTE["idle"], ls="--", lw=1)
    a1.text(N.min(), 2 * m / 1e9 * 1.02, "2M: the limit", fontsize=8, va="bottom")
    a1.set_ylim(0, 2.3 * m / 1e9)
    a1.set_ylabel("GB sent per worker", fontsize=9)
    a1.set_title("bytes per worker: 2(N−1)/N · M", fontsize=9)
    a2.plot(Ncurve, lat_c, color=PALETTE["idle"], lw=2, label="latency term 2(N−1)α")
    a2.plot(Ncurve, bw_c, color=PALETTE["network"], lw=2, label="bandwidth term 2(N−1)/N · M/β")
    a2.set_yscale("log")
    a2.set_ylabel("seconds", fontsize=9)
    a2.set_title("time: which term grows with N", fontsize=9)
    a2.legend(fontsize=7, loc="lower right")
    for ax in (a1, a2):
        ax.set_xscale("log")
        ax.set_xlabel("workers N", fontsize=9)
        ax.tick_params(labelsize=8)
        ax.grid(True, alpha=0.25)
    _plain_log(a1, "x")
    _plain_log(a2)
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    fig.sent, fig.latency, fig.bandwidth = bw * b, lat, bw
    return fig


def checkpoint_interval(C, mtbf_one, N, R_f=Q_(0, "s"),
                        title: str = "Choosing the checkpoint interval from the right MTBF"):
    """The waste fraction w(τ) = C/τ + τ/(2M) + R_f/M (``reliability.waste_fraction``, Eq. 28.23)
    against the interval τ for the job's MTBF M = MTBF_one/N, with τ* = sqrt(2CM) (Young–Daly)
    and the interval sqrt(2 C MTBF_one) that the per-device MTBF would suggest, √N times longer.
    ``fig.tau_star``, ``fig.tau_naive`` (s), ``fig.w_star``, ``fig.w_naive`` (fractions)."""
    M = reliability.mtbf_of_n(mtbf_one, N)
    tau_star = reliability.young_daly_interval(C, M)
    tau_naive = reliability.young_daly_interval(C, Q_(mtbf_one))
    ts, tn = tau_star.to("s").magnitude, tau_naive.to("s").magnitude
    tau = Q_(np.logspace(np.log10(ts / 30), np.log10(max(tn, ts) * 3), 300), "s")
    w = reliability.waste_fraction(tau, C, M, R_f).to("").magnitude
    w_star = float(reliability.waste_fraction(tau_star, C, M, R_f).to("").magnitude)
    w_naive = float(reliability.waste_fraction(tau_naive, C, M, R_f).to("").magnitude)
    fig, ax = _figure((6.4, 3.2))
    ax.plot(tau.to("min").magnitude, np.minimum(w, 1.0) * 100, color=PALETTE["storage"], lw=2,
            label="waste w(τ) with the job's MTBF (capped at 100 %)")
    for t, ww, text, kind, dx in ((ts, w_star, "τ* from the job's MTBF", "memory", 6),
                                  (tn, w_naive, "τ from one GPU's MTBF", "fault", -6)):
        ax.axvline(t / 60, color=PALETTE[kind], lw=1.2, ls="--")
        waste = f"waste {fmt(ww * 100, None, sig=2)} %" if ww < 1 else "waste ≥ 100 %: no save\ninterval completes on average"
        ax.annotate(f"{text}\n{fmt(Q_(t, 's'), 'auto', sig=2)}: {waste}", (t / 60, min(ww, 1.0) * 100),
                    xytext=(dx, -34 if ww >= 1 else 8), textcoords="offset points", fontsize=8,
                    ha="left" if dx > 0 else "right")
    ax.set_ylim(w_star * 100 / 2, 150)
    _finish_log_axes(fig, ax, "checkpoint interval τ (minutes)", "share of time wasted (%)", title, "upper center")
    fig.tau_star, fig.tau_naive, fig.w_star, fig.w_naive = ts, tn, w_star, w_naive
    return fig


def ci_scale(BW_net, R_peak, workloads: dict, *, eta_hw=1.0, bands=(0.01, 0.1),
             title: str = "Communication intensity on one axis"):
    """A log axis of communication intensity (byte/FLOP): the hardware boundary CI* =
    BW/(R_peak η_hw) (``iron_law.ci_boundary``), the book's qualitative bands (below ``bands[0]``
    "low", above ``bands[1]`` "high") shaded, and each workload of ``workloads`` (label ->
    CI in byte/FLOP) as a dot with its ratio to CI*, which is its network time over its compute
    time. ``fig.ci_star`` (byte/FLOP) and ``fig.ratios`` (label -> CI/CI*)."""
    ci_star = float(iron_law.ci_boundary(BW_net, R_peak, eta_hw).to("byte/FLOP").magnitude)
    vals = {k: float(Q_(v).to("byte/FLOP").magnitude if not isinstance(v, (int, float)) else v)
            for k, v in workloads.items()}
    lo = min([ci_star, *vals.values()]) / 10
    hi = max(bands[1], *vals.values()) * 10
    fig, ax = _figure((7.2, 2.4))
    ax.axvspan(lo, ci_star, color=PALETTE["compute"], alpha=0.10)
    ax.axvspan(ci_star, hi, color=PALETTE["network"], alpha=0.10)
    ax.axvspan(bands[0], bands[1], color=PALETTE["idle"], alpha=0.25)
    ax.axvline(ci_star, color=PALETTE["text"], lw=1.5)
    ax.text(ci_star, 1.02, f"CI* = {fmt(ci_star, None, sig=2)}", ha="center", va="bottom", fontsize=8)
    ax.text(np.sqrt(lo * ci_star), 0.88, "compute-bound\n(network time < compute)", ha="center", va="top", fontsize=7)
    ax.text(np.sqrt(ci_star * bands[0]), 0.88, "network-bound\n(on this hardware)", ha="center", va="top", fontsize=7)
    ax.text(np.sqrt(bands[0] * bands[1]), 0.88, "the book's\n'between' band", ha="center", va="top", fontsize=7)
    ratios = {}
    for i, (name, v) in enumerate(vals.items()):
        y = 0.25 + 0.4 * (i % 2) / max(1, min(len(vals) - 1, 1))
        ratios[name] = v / ci_star
        ax.plot([v], [y], "o", color=PALETTE["fault"], ms=6)
        ax.annotate(f"{name}\n{fmt(v / ci_star, None, sig=2)}× CI*", (v, y), xytext=(0, 8),
                    textcoords="offset points", ha="center", fontsize=7)
    ax.set_xscale("log")
    ax.set_xlim(lo, hi)
    ax.set_ylim(0, 1.15)
    ax.set_yticks([])
    ax.set_xlabel("communication intensity CI (byte/FLOP)", fontsize=9)
    ax.tick_params(labelsize=8)
    for side in ("top", "right", "left"):
        ax.spines[side].set_visible(False)
    ax.set_title(title, fontsize=10, loc="left")
    fig.tight_layout()
    fig.ci_star, fig.ratios = ci_star, ratios
    return fig
