"""Reliability plots (Ch. 28 §28.9): the waste curve w(tau) with tau* (Eq. 28.23-28.24) and the
MTBF of n parts."""
from __future__ import annotations

import numpy as np

from fleetcalc.physics import reliability

from fleetcalc.ui.plots import fit_limits, plain_log_ticks


def waste_panel(ax, inputs, results):
    """w(tau) and its terms on a log tau axis (minutes), tau* marked. Needs ``C``, ``M``, ``R_f``,
    ``tau``, ``tau_star`` (Quantities)."""
    def curves(res):
        C, M, R = (res[k].to("s").magnitude for k in ("C", "M", "R_f"))
        ts = res["tau_star"].to("s").magnitude
        tau = np.logspace(np.log10(ts / 30), np.log10(ts * 30), 200)
        terms = reliability.waste_terms.kernel(tau, C, M, R)
        save, lost, rec = terms["save"], terms["lost"], terms["recover"]
        return tau / 60, 100 * save, 100 * lost, 100 * rec, 100 * (save + lost + rec)

    x, s, l, r, w = curves(results)
    (lw,) = ax.loglog(x, w, color="#1f4e79", lw=2.5, label="w(τ) (Eq. 28.23)")
    (lsv,) = ax.loglog(x, s, color="#f28e2b", ls="--", lw=1, label="save C/τ")
    (llo,) = ax.loglog(x, l, color="#e15759", ls="--", lw=1, label="lost τ/2M")
    (lre,) = ax.loglog(x, r, color="#59a14f", ls=":", lw=1, label="recover R_f/M")
    vs = ax.axvline(1, color="#333", ls="--", lw=1, label="τ* (Eq. 28.24)")
    (pt,) = ax.plot([1], [1], "o", color="#c0392b", ms=7, zorder=5, label="your τ")
    ax.set_xlabel("checkpoint interval τ (min)")
    ax.set_ylabel("lost time (% of useful time)")
    ax.grid(True, alpha=0.25)
    plain_log_ticks(ax)
    ax.legend(fontsize=7, loc="upper center", ncol=2)

    def update(inputs, res):
        x, s, l, r, w = curves(res)
        for line, y in ((lw, w), (lsv, s), (llo, l), (lre, r)):
            line.set_data(x, y)
        ts = res["tau_star"].to("min").magnitude
        vs.set_xdata([ts, ts])
        pt.set_data([res["tau"].to("min").magnitude], [100 * res["w"].to("").magnitude])
        fit_limits(ax, x=(x[0], x[-1]))
        fit_limits(ax, y=(max(min(w.min(), r.min() if r.min() > 0 else w.min()) / 3, 1e-4), w.max() * 2))

    update(inputs, results)
    return update


def mtbf_panel(ax, inputs, results):
    """Job MTBF (hours) against the number of parts n, log-log, with the chosen n marked.
    Needs ``N`` (array), ``mtbf_h`` (array, hours), ``n`` and ``mtbf_job`` (Quantity)."""
    (ln,) = ax.loglog(results["N"], results["mtbf_h"], color="#1f4e79", lw=2, label="MTBF_one / n")
    (pt,) = ax.plot([1], [1], "o", color="#c0392b", ms=7, zorder=5)
    ax.set_xlabel("independent parts n")
    ax.set_ylabel("job MTBF (hours)")
    ax.grid(True, alpha=0.25)
    plain_log_ticks(ax)
    ax.legend(fontsize=8)

    def update(inputs, res):
        ln.set_ydata(res["mtbf_h"])
        pt.set_data([res["n"]], [res["mtbf_job"].to("hour").magnitude])
        fit_limits(ax, y=(res["mtbf_h"].min() / 2, res["mtbf_h"].max() * 2))

    update(inputs, results)
    return update
