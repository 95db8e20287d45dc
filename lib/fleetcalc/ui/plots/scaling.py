"""Plots for the scaling panels (Vol. 2 notation and Ch. 1).

Each function follows the panel protocol: ``plot(ax, inputs, results)`` draws once and returns
``update(inputs, results)`` that moves the existing artists. Curves are read from ``results``
(arrays the compute function returns), so a plot never recomputes a formula itself.
"""
from __future__ import annotations

import numpy as np

from fleetcalc.ui.plots import fit_data, fit_limits, plain_log_ticks

_BLUE, _RED, _GREEN, _GREY, _ORANGE = "#1f4e79", "#c0392b", "#2e7d32", "#888888", "#e67e22"


def _m(q, unit=None):
    """Magnitude of a Quantity (in ``unit``) or a plain array."""
    if hasattr(q, "to"):
        return np.asarray(q.to(unit).magnitude if unit else q.to("dimensionless").magnitude, dtype=float)
    return np.asarray(q, dtype=float)


# --------------------------------------------------------------------------------------------


def efficiency_vs_n(ax, inputs, results):
    """Scaling efficiency eta(N) with the communication tax (1 - eta) shaded; the operating point.

    results: N_curve, eta_curve, N, eta; optional band = (lo, hi) drawn as a reference band.
    """
    n = _m(results["N_curve"])
    eta = _m(results["eta_curve"])
    (line,) = ax.semilogx(n, eta, color=_BLUE, lw=2, label="η_scaling(N)")
    plain_log_ticks(ax, "x")
    ax.axhline(1.0, color=_GREY, ls="--", lw=1, label="ideal (linear)")
    fill = [ax.fill_between(n, eta, 1.0, color=_RED, alpha=0.12, label="communication tax")]
    (pt,) = ax.plot([_m(results["N"])], [_m(results["eta"])], "o", color=_RED, ms=8, zorder=5,
                    label="operating point")
    if "band" in results:
        lo, hi = results["band"]
        ax.axhspan(lo, hi, color=_GREEN, alpha=0.12, label=f"book: {lo}–{hi} (line 1213)")
    ax.set_xlabel("devices N")
    ax.set_ylabel("scaling efficiency")
    ax.set_ylim(0, 1.05)
    ax.grid(True, which="both", alpha=0.25)
    ax.legend(fontsize=8, loc="lower left")

    def update(inputs, res):
        n = _m(res["N_curve"])
        eta = _m(res["eta_curve"])
        line.set_data(n, eta)
        # move the shaded tax in place (a new artist would force a full redraw)
        fill[0].set_verts([np.concatenate([np.c_[n, eta], np.c_[n[::-1], np.ones(len(n))]])])
        pt.set_data([_m(res["N"])], [_m(res["eta"])])
        if ax.get_xlim() != (n.min(), n.max()):
            fit_limits(ax, x=(n.min(), n.max()))

    update(inputs, results)
    return update


def step_breakdown(ax, inputs, results):
    """Stacked bar of one fleet-law step (Eq. 1.3): compute/N, exposed comm, sync (seconds).

    results: parts = {label: Quantity in s} (already net of overlap). Later moves resize the
    bars and relabel the legend; the picture is rebuilt only if the part labels change.
    """
    state = {}

    def build(res):
        ax.clear()
        labels = list(res["parts"])
        colors = [_BLUE, _RED, _ORANGE, _GREY]
        state["labels"] = labels
        state["bars"] = [ax.barh([0], [0.0], left=0.0, color=c, label=label)[0]
                         for label, c in zip(labels, colors)]
        ax.set_yticks([])
        ax.set_xlabel("time per step (s)")
        state["legend"] = ax.legend(fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.35), ncol=2)
        ax.set_title("one step, Eq. 1.3", fontsize=9)
        state["xmax"] = None

    def update(inputs, res):
        parts = res["parts"]
        if list(parts) != state.get("labels"):
            build(res)
        left = 0.0
        for (label, q), bar, txt in zip(parts.items(), state["bars"], state["legend"].get_texts()):
            w = float(_m(q, "s"))
            bar.set_x(left)
            bar.set_width(w)
            if txt.get_text() != f"{label}: {w:.3g} s":
                txt.set_text(f"{label}: {w:.3g} s")
                state["legend"].stale = True           # legend texts: a full draw
            left += w
        # keep the x range unless the stack outgrows it or shrinks below a third of it
        xmax = state["xmax"]
        if xmax is None or left > xmax / 1.05 or left < xmax / 3:
            state["xmax"] = max(left, 1e-12) * 1.3
            fit_limits(ax, x=(0, state["xmax"]))

    update(inputs, results)
    return update


def reliability_vs_size(axes, inputs, results):
    """Left: system MTBF vs N (log-log). Right: probability of at least one failure in one step and
    in one day vs N. results: N_curve, mtbf_curve (Quantity time), p_step_curve, p_day_curve, N,
    mtbf, p_step, p_day."""
    ax1, ax2 = axes
    n = _m(results["N_curve"])
    (l1,) = ax1.loglog(n, _m(results["mtbf_curve"], "hour"), color=_BLUE, lw=2)
    plain_log_ticks(ax1)
    (p1,) = ax1.plot([_m(results["N"])], [_m(results["mtbf"], "hour")], "o", color=_RED, ms=8)
    ax1.axhline(24, color=_GREY, ls=":", lw=1)
    ax1.text(n[0], 24 * 1.2, "one day", fontsize=8, color=_GREY)
    ax1.set_xlabel("devices N")
    ax1.set_ylabel("system MTBF (hours)")
    ax1.grid(True, which="both", alpha=0.25)
    (l2,) = ax2.semilogx(n, _m(results["p_step_curve"]), color=_ORANGE, lw=2, label="≥1 failure per step")
    plain_log_ticks(ax2, "x")
    (l3,) = ax2.semilogx(n, _m(results["p_day_curve"]), color=_RED, lw=2, label="≥1 failure per day")
    (p2,) = ax2.plot([_m(results["N"])], [_m(results["p_day"])], "o", color=_RED, ms=7)
    (p3,) = ax2.plot([_m(results["N"])], [_m(results["p_step"])], "o", color=_ORANGE, ms=7)
    ax2.set_ylim(-0.02, 1.02)
    ax2.set_xlabel("devices N")
    ax2.set_ylabel("probability")
    ax2.grid(True, which="both", alpha=0.25)
    ax2.legend(fontsize=8, loc="upper left")

    def update(inputs, res):
        n = _m(res["N_curve"])
        l1.set_data(n, _m(res["mtbf_curve"], "hour"))
        p1.set_data([_m(res["N"])], [_m(res["mtbf"], "hour")])
        l2.set_data(n, _m(res["p_step_curve"]))
        l3.set_data(n, _m(res["p_day_curve"]))
        p2.set_data([_m(res["N"])], [_m(res["p_day"])])
        p3.set_data([_m(res["N"])], [_m(res["p_step"])])
        fit_data(ax1)

    update(inputs, results)
    return update


def availability_vs_size(ax, inputs, results):
    """Figure 1.11: probability that all N parts are up, R^N, for per-part reliabilities.

    results: N_curve, curves = {label: array}, N, R_system."""
    n = _m(results["N_curve"])
    lines = {}
    for (label, y), c in zip(results["curves"].items(), [_BLUE, _GREEN, _ORANGE]):
        (lines[label],) = ax.semilogx(n, _m(y), color=c, lw=2, label=label)
    (pt,) = ax.plot([_m(results["N"])], [_m(results["R_system"])], "o", color=_RED, ms=8, zorder=5)
    plain_log_ticks(ax, "x")
    ax.axhline(np.exp(-1), color=_GREY, ls=":", lw=1)
    ax.text(n[0], np.exp(-1) + 0.03, "1/e = 36.8 %", fontsize=8, color=_GREY)
    ax.set_xlabel("cluster size N")
    ax.set_ylabel("P(all parts healthy)")
    ax.set_ylim(-0.02, 1.02)
    ax.grid(True, which="both", alpha=0.25)
    ax.legend(fontsize=8, loc="lower left")

    def update(inputs, res):
        for label, y in res["curves"].items():
            lines[label].set_data(_m(res["N_curve"]), _m(y))
        pt.set_data([_m(res["N"])], [_m(res["R_system"])])

    update(inputs, results)
    return update


def compute_optimal_curves(ax, inputs, results):
    """Compute-optimal parameters and tokens vs budget (log-log), with the chosen budget marked.

    results: C_curve (FLOP), P_curve (param), D_curve (token), C, P, D; optional marks =
    [(C, P, D, label)] for published runs."""
    c = _m(results["C_curve"], "FLOP")
    (lp,) = ax.loglog(c, _m(results["P_curve"], "param"), color=_BLUE, lw=2, label="P_opt (parameters)")
    (ld,) = ax.loglog(c, _m(results["D_curve"], "token"), color=_GREEN, lw=2, label="D_opt (tokens)")
    plain_log_ticks(ax)
    (pp,) = ax.plot([_m(results["C"], "FLOP")], [_m(results["P"], "param")], "o", color=_BLUE, ms=8)
    (pd,) = ax.plot([_m(results["C"], "FLOP")], [_m(results["D"], "token")], "o", color=_GREEN, ms=8)
    for cm, pm, dm, label in results.get("marks", []):
        ax.plot([cm], [pm], "x", color=_RED, ms=8)
        ax.plot([cm], [dm], "x", color=_RED, ms=8)
        ax.annotate(label, (cm, dm), textcoords="offset points", xytext=(4, 4), fontsize=8, color=_RED)
    vline = ax.axvline(_m(results["C"], "FLOP"), color=_GREY, ls=":", lw=1)
    ax.set_xlabel("training compute C (FLOP)")
    ax.set_ylabel("parameters / tokens")
    ax.grid(True, which="both", alpha=0.25)
    ax.legend(fontsize=8, loc="upper left")

    def update(inputs, res):
        c = _m(res["C_curve"], "FLOP")
        lp.set_data(c, _m(res["P_curve"], "param"))
        ld.set_data(c, _m(res["D_curve"], "token"))
        cc = _m(res["C"], "FLOP")
        pp.set_data([cc], [_m(res["P"], "param")])
        pd.set_data([cc], [_m(res["D"], "token")])
        vline.set_xdata([cc, cc])

    update(inputs, results)
    return update


def ci_boundary_plot(ax, inputs, results):
    """Compute fraction vs communication intensity (no overlap): f = 1 / (1 + CI/CI*).

    The hardware boundary CI* (where network time equals compute time) is a vertical line; the
    book's bands (CI < 0.01 'low', > 0.1 'high') are shaded for comparison.
    results: CI_curve, f_curve, CI_star, CI, f."""
    ci = _m(results["CI_curve"], "byte/FLOP")
    (line,) = ax.semilogx(ci, _m(results["f_curve"]), color=_BLUE, lw=2, label="compute fraction, no overlap")
    plain_log_ticks(ax, "x")
    star = ax.axvline(_m(results["CI_star"], "byte/FLOP"), color=_RED, ls="--", lw=1.5,
                      label="hardware boundary CI*")
    ax.axvspan(ci.min(), 0.01, color=_GREEN, alpha=0.08, label="book: 'low' CI < 0.01")
    ax.axvspan(0.1, ci.max(), color=_ORANGE, alpha=0.10, label="book: 'high' CI > 0.1")
    (pt,) = ax.plot([_m(results["CI"], "byte/FLOP")], [_m(results["f"])], "o", color=_RED, ms=8, zorder=5)
    ax.set_xlim(ci.min(), ci.max())
    ax.set_ylim(0, 1.02)
    ax.set_xlabel("communication intensity CI (byte/FLOP)")
    ax.set_ylabel("share of time computing")
    ax.grid(True, which="both", alpha=0.25)
    ax.legend(fontsize=7, loc="lower left")

    def update(inputs, res):
        line.set_data(_m(res["CI_curve"], "byte/FLOP"), _m(res["f_curve"]))
        s = _m(res["CI_star"], "byte/FLOP")
        star.set_xdata([s, s])
        pt.set_data([_m(res["CI"], "byte/FLOP")], [_m(res["f"])])

    update(inputs, results)
    return update


def power_law(ax, inputs, results):
    """Loss vs resource (log x): L(X) = A X^-alpha + C, the floor C dashed, the point marked.

    results: X_curve, L_curve, X, L, C_L."""
    x = _m(results["X_curve"])
    (line,) = ax.semilogx(x, _m(results["L_curve"]), color=_BLUE, lw=2, label="ℒ(X)")
    plain_log_ticks(ax, "x")
    floor = ax.axhline(_m(results["C_L"]), color=_GREY, ls="--", lw=1, label="floor C_ℒ")
    (pt,) = ax.plot([_m(results["X"])], [_m(results["L"])], "o", color=_RED, ms=8)
    ax.set_xlabel("resource X")
    ax.set_ylabel("loss")
    ax.grid(True, which="both", alpha=0.25)
    ax.legend(fontsize=8)

    def update(inputs, res):
        line.set_data(_m(res["X_curve"]), _m(res["L_curve"]))
        c = _m(res["C_L"])
        floor.set_ydata([c, c])
        pt.set_data([_m(res["X"])], [_m(res["L"])])
        fit_data(ax)

    update(inputs, results)
    return update


def growth(ax, inputs, results):
    """A quantity growing at a constant yearly factor (log y), with reference points.

    results: years_curve, value_curve, points = [(year, value, label)], ylabel."""
    (line,) = ax.semilogy(_m(results["years_curve"]), _m(results["value_curve"]), color=_BLUE, lw=2,
                          label="constant growth")
    plain_log_ticks(ax, "y")
    for y, v, label in results.get("points", []):
        ax.plot([y], [v], "o", color=_RED, ms=6)
        ax.annotate(label, (y, v), textcoords="offset points", xytext=(4, -10), fontsize=8)
    ax.set_xlabel("year")
    ax.set_ylabel(results.get("ylabel", "value"))
    ax.grid(True, which="both", alpha=0.25)
    ax.legend(fontsize=8, loc="upper left")

    def update(inputs, res):
        line.set_data(_m(res["years_curve"]), _m(res["value_curve"]))
        fit_data(ax)

    update(inputs, results)
    return update


def bars(ax, inputs, results):
    """Horizontal bars comparing a few named values (results['bars'] = {label: number}), with an
    optional unit label results['unit'] and log scale results['log']. Later moves resize the
    bars; the picture is rebuilt only if the labels, unit or scale change."""
    state = {}

    def build(res):
        ax.clear()
        items = list(res["bars"])
        state["key"] = (items, res.get("unit", ""), bool(res.get("log")))
        state["bars"] = list(ax.barh(range(len(items)), [1.0] * len(items),
                                     color=[_BLUE, _RED, _GREEN, _ORANGE, _GREY][: len(items)]))
        ax.set_yticks(range(len(items)))
        ax.set_yticklabels(items, fontsize=8)
        if res.get("log"):
            ax.set_xscale("log")
            plain_log_ticks(ax, "x")
        ax.set_xlabel(res.get("unit", ""))
        ax.grid(True, axis="x", alpha=0.25)
        state["lim"] = None

    def update(inputs, res):
        key = (list(res["bars"]), res.get("unit", ""), bool(res.get("log")))
        if key != state.get("key"):
            build(res)
        vals = [float(_m(v)) for v in res["bars"].values()]
        for bar, v in zip(state["bars"], vals):
            bar.set_width(v)
        hi = max(max(vals), 1e-12)
        lim = state["lim"]
        if res.get("log"):
            lo = max(min(v for v in vals if v > 0) if any(v > 0 for v in vals) else hi, 1e-300)
            if lim is None or hi > lim[1] / 1.05 or lo < lim[0] * 2 or hi < lim[1] / 100:
                state["lim"] = (lo / 10, hi * 3)
                ax.set_xlim(*state["lim"])
        elif lim is None or hi > lim[1] / 1.05 or hi < lim[1] / 3:
            state["lim"] = (0, hi * 1.3)
            ax.set_xlim(*state["lim"])

    update(inputs, results)
    return update
