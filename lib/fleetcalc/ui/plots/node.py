"""Node plots: the bandwidth staircase, tensor-parallel communication per step, and node
failure probability (Vol. 2 Ch. 2, node sections)."""
from __future__ import annotations

import numpy as np

from fleetcalc.core.units import Q_
from fleetcalc.physics import node
from fleetcalc.physics.fabric import utilization
from fleetcalc.ui.plots import fit_limits, plain_log_ticks

RED = "#c0392b"
BLUE = "#1f4e79"


def staircase(ax, inputs, results):
    """Log-scale bars: time to move D_vol across each tier (labels above bars show bandwidth).

    Needs ``results`` with ``tiers`` (list of names), ``bw`` (byte/s Quantity array) and ``t``
    (s Quantity array)."""
    names = list(results["tiers"])
    x = np.arange(len(names))

    def ms(res):
        return np.asarray(res["t"].to("ms").magnitude, dtype=float)

    bars = ax.bar(x, ms(results), color=[BLUE, "#4f81bd", "#9bbb59", "#f79646", "#7f7f7f"][: len(names)])
    labels = [ax.text(i, 1, "", ha="center", va="bottom", fontsize=8) for i in x]
    ax.set_yscale("log")
    plain_log_ticks(ax, "y")
    ax.set_xticks(x, names, fontsize=8)
    ax.set_ylabel("transfer time (ms), log scale")
    ax.grid(True, axis="y", which="both", alpha=0.25)

    def update(inputs, res):
        t = ms(res)
        bw = np.asarray(res["bw"].to("GB/s").magnitude, dtype=float)
        for bar, lab, ti, bi, xi in zip(bars, labels, t, bw, x):
            bar.set_height(ti)
            lab.set_position((xi, ti))
            lab.set_text(f"{ti:.3g} ms\n@{bi:.4g} GB/s")
        fit_limits(ax, y=(max(t.min() / 5, 1e-6), t.max() * 20))

    update(inputs, results)
    return update


def step_breakdown(ax, inputs, results):
    """Horizontal stacked bars per interconnect: compute time and exposed communication per step.

    Needs ``results`` with ``labels`` (names), ``t_compute`` (s Quantity) and ``t_comm`` (s
    Quantity array, one per label)."""
    labels = list(results["labels"])
    y = np.arange(len(labels))

    def vals(res):
        c = float(res["t_compute"].to("ms").magnitude)
        n = np.asarray(res["t_comm"].to("ms").magnitude, dtype=float)
        return c, n

    c, n = vals(results)
    comp = ax.barh(y, [c] * len(y), color=BLUE, label="compute")
    comm = ax.barh(y, n, left=[c] * len(y), color=RED, label="communication (not overlapped)")
    texts = [ax.text(0, yi, "", va="center", fontsize=8) for yi in y]
    ax.set_yticks(y, labels, fontsize=8)
    ax.set_xlabel("time per training step (ms)")
    ax.legend(loc="lower right", fontsize=7)
    ax.grid(True, axis="x", alpha=0.25)

    def update(inputs, res):
        c, n = vals(res)
        busy = utilization(res["t_compute"], Q_(n, "ms")).magnitude      # c / (c + comm)
        for bc, bn, t, ni, yi, u in zip(comp, comm, texts, n, y, busy):
            bc.set_width(c)
            bn.set_x(c)
            bn.set_width(ni)
            t.set_position((c + ni, yi))
            t.set_text(f" busy {100 * u:.1f}%")
        fit_limits(ax, x=(0, (c + n.max()) * 1.35))

    update(inputs, results)
    return update


def failure_curves(ax, inputs, results):
    """P(at least one failure within the window) against the number of parts, with the chosen
    point marked; a second curve shows the expected number of failures (right axis).

    Needs ``results`` with ``n_curve`` (array), ``p_curve`` (array, 0-1), ``f_curve`` (array),
    ``n`` (int) and ``p`` (0-1)."""
    def _mag(v):
        return np.asarray(v.magnitude if hasattr(v, "magnitude") else v, dtype=float)

    (line,) = ax.plot(results["n_curve"], 100 * _mag(results["p_curve"]), color=BLUE, lw=2,
                      label="P(≥1 failure in window)")
    (pt,) = ax.plot([results["n"]], [0], "o", color=RED, ms=8, zorder=5)
    ax2 = ax.twinx()
    (fline,) = ax2.plot(results["n_curve"], _mag(results["f_curve"]), color="#7f7f7f", ls="--", label="expected failures")
    ax.set_xscale("log")
    plain_log_ticks(ax, "x")
    ax.set_xlabel(results.get("xlabel", "number of nodes"))
    ax.set_ylabel("P(at least one failure) (%)")
    ax2.set_ylabel("expected failures in window")
    ax.set_ylim(0, 105)
    ax.grid(True, which="both", alpha=0.25)
    ax.legend(loc="upper left", fontsize=7)
    ax2.legend(loc="lower right", fontsize=7)

    def update(inputs, res):
        line.set_data(res["n_curve"], 100 * _mag(res["p_curve"]))
        f = _mag(res["f_curve"])
        if not (np.array_equal(fline.get_xdata(), res["n_curve"]) and np.array_equal(fline.get_ydata(), f)):
            fline.set_data(res["n_curve"], f)
            # the twin axis is not among the panel's axes, so a blitted frame would miss this
            # line: mark the legend (never blitted) stale to ask for a full draw
            ax.get_legend().stale = True
        pt.set_data([res["n"]], [100 * float(_mag(res["p"]))])
        fit_limits(ax2, y=(0, max(f.max() * 1.1, 1e-3)))

    update(inputs, results)
    return update


def topology_counts(ax, inputs, results):
    """Links needed against GPU count for a ring (N) and a full mesh (N(N-1)/2), with the chosen N
    marked; the NVSwitch crossbar needs one link bundle per GPU to the switch chips.

    Needs ``results`` with ``N`` (int), ``ring`` and ``mesh`` (link counts at N)."""
    n = np.arange(3, 65)
    ax.plot(n, n, color=BLUE, lw=2, label="ring: N links, up to N/2 hops")
    ax.plot(n, node.full_mesh_links.kernel(n), color=RED, lw=2, label="full mesh: N(N-1)/2 links, 1 hop")
    (p_ring,) = ax.plot([0], [0], "o", color=BLUE, ms=8)
    (p_mesh,) = ax.plot([0], [0], "o", color=RED, ms=8)
    txt = ax.text(0, 0, "", fontsize=8)
    ax.set_yscale("log")
    plain_log_ticks(ax, "y")
    ax.set_xlabel("GPUs N")
    ax.set_ylabel("point-to-point links")
    ax.grid(True, which="both", alpha=0.25)
    ax.legend(loc="upper left", fontsize=7)

    def _v(x):
        return float(x.magnitude if hasattr(x, "magnitude") else x)

    def update(inputs, res):
        N = _v(res["N"])
        p_ring.set_data([N], [_v(res["ring"])])
        p_mesh.set_data([N], [_v(res["mesh"])])
        txt.set_position((N + 1, _v(res["mesh"])))
        txt.set_text(f"N={N:.0f}: mesh {_v(res['mesh']):.0f}, ring {_v(res['ring']):.0f}")

    update(inputs, results)
    return update


def prefetch_plot(ax, inputs, results):
    """Required prefetch depth k against the spread of I/O time sigma (k = ceil((T_io + z sigma) /
    T_compute)), with the chosen point marked.

    Needs ``results`` with ``sigma_curve`` (s Quantity array), ``k_curve`` (array), ``sigma`` (s)
    and ``k`` (batches)."""
    def _m(v, unit=None):
        if hasattr(v, "magnitude"):
            v = v.to(unit) if unit else v
            return np.asarray(v.magnitude, dtype=float)
        return np.asarray(v, dtype=float)

    (line,) = ax.step(_m(results["sigma_curve"], "s"), _m(results["k_curve"]), where="post", color=BLUE, lw=2)
    (pt,) = ax.plot([0], [0], "o", color=RED, ms=8, zorder=5)
    ax.set_xlabel("σ of the I/O interval (s)")
    ax.set_ylabel("prefetch depth k (batches)")
    ax.grid(True, alpha=0.25)

    def update(inputs, res):
        x = _m(res["sigma_curve"], "s")
        k = _m(res["k_curve"])
        line.set_data(x, k)
        pt.set_data([float(_m(res["sigma"], "s"))], [float(_m(res["k"]))])
        fit_limits(ax, x=(0, x.max()))
        fit_limits(ax, y=(0, k.max() + 1))

    update(inputs, results)
    return update
