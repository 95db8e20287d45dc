"""Roofline plots (Ch. 28 §28.3, Vol. 2 Ch. 2 roofline)."""
from __future__ import annotations

import numpy as np

from fleetcalc.physics import roofline
from fleetcalc.core.units import Q_
from fleetcalc.ui.plots import fit_limits, plain_log_ticks

_I = np.logspace(-1, 4, 200)


def roof_curve(R_peak, beta_mem, intensities=_I, unit: str = "TFLOP/s"):
    """The roof over ``intensities`` (FLOP/byte) in ``unit`` and the ridge point (FLOP/byte), from
    Eq. 28.2-28.3 (the roofline calculators' float kernels: a slider move redraws 200 points)."""
    r, b = R_peak.m_as("FLOP/s"), beta_mem.m_as("byte/s")
    roof = roofline.attainable_rate.kernel(np.asarray(intensities, float), r, b) / Q_(1, unit).m_as("FLOP/s")
    ridge = float(roofline.ridge_point.kernel(r, b))
    return roof, ridge


def roofline_panel(ax, inputs, results):
    """Log-log roofline: memory roof I*beta, compute roof R_peak, ridge I*, operating point.

    Needs ``results`` with ``R_peak`` and ``beta_mem`` (Quantities), ``I`` (FLOP/byte) and ``R``
    (attainable FLOP/s).
    """
    def curves(res):
        roof, ridge = roof_curve(res["R_peak"], res["beta_mem"])
        return res["R_peak"].m_as("TFLOP/s"), ridge, roof

    r_peak, i_ridge, roof = curves(results)
    (roof_line,) = ax.loglog(_I, roof, color="#1f4e79", lw=2, label="roof min(R_peak, I·β_mem)")
    ridge = ax.axvline(i_ridge, color="#999", ls="--", lw=1, label="ridge I*")
    i_op = results["I"].to("FLOP/byte").magnitude
    r_op = results["R"].to("TFLOP/s").magnitude
    (point,) = ax.plot([i_op], [r_op], "o", color="#c0392b", ms=9, label="operating point", zorder=5)
    from matplotlib.transforms import offset_copy

    # a Text with an offset transform (not an Annotation): the panel can blit it
    text = ax.text(i_op, r_op, "", fontsize=9, transform=offset_copy(ax.transData, fig=ax.figure, x=8, y=-14, units="points"))
    ax.set_xlabel("arithmetic intensity I (FLOP/byte)")
    ax.set_ylabel("attainable R (TFLOP/s)")
    ax.set_xlim(_I[0], _I[-1])
    ax.grid(True, alpha=0.25)
    plain_log_ticks(ax)
    ax.legend(loc="lower right", fontsize=8)

    def update(inputs, res):
        r_peak, i_ridge, roof = curves(res)
        roof_line.set_ydata(roof)
        ridge.set_xdata([i_ridge, i_ridge])
        i_op = res["I"].to("FLOP/byte").magnitude
        r_op = res["R"].to("TFLOP/s").magnitude
        point.set_data([i_op], [r_op])
        text.set_position((i_op, r_op))
        text.set_text(res.get("bound", ""))
        fit_limits(ax, y=(max(roof.min(), 1e-3) / 2, r_peak * 3))

    update(inputs, results)
    return update



def intensity_vs_batch(ax, inputs, results):
    """I_ideal(B) of Eq. 28.4 against batch B, the weight-dominated line 2B/s (Eq. 28.5), the
    target intensity and the least batch that reaches it (Exercise 28.2).

    Needs ``results`` with ``B_curve`` (array), ``I_curve``, ``I_approx_curve`` (FLOP/byte
    arrays), ``I_target`` and ``B_min``.
    """
    (exact,) = ax.plot(results["B_curve"], results["I_curve"].m_as("FLOP/byte"), lw=2,
                       color="#1f4e79", label="I_ideal(B), Eq. 28.4")
    (approx,) = ax.plot(results["B_curve"], results["I_approx_curve"].m_as("FLOP/byte"), ls=":",
                        color="#555", label="2B/s, Eq. 28.5")
    target = ax.axhline(results["I_target"].m_as("FLOP/byte"), color="#c0392b", ls="--", lw=1,
                        label="target intensity")
    bmin = ax.axvline(results["B_min"], color="#c0392b", lw=1, label="least whole B")
    ax.set_xlabel("batch B")
    ax.set_ylabel("I (FLOP/byte)")
    ax.grid(True, alpha=0.25)
    ax.legend(fontsize=8, loc="upper left")

    def update(inputs, res):
        exact.set_data(res["B_curve"], res["I_curve"].m_as("FLOP/byte"))
        approx.set_data(res["B_curve"], res["I_approx_curve"].m_as("FLOP/byte"))
        target.set_ydata([res["I_target"].m_as("FLOP/byte")] * 2)
        bmin.set_xdata([res["B_min"]] * 2)
        fit_limits(ax, x=(0, res["B_curve"][-1]))
        fit_limits(ax, y=(0, 1.15 * max(res["I_curve"].m_as("FLOP/byte").max(), res["I_target"].m_as("FLOP/byte"))))

    update(inputs, results)
    return update


def time_bounds(ax, inputs, results):
    """Bars of the compute term F/R_peak and the memory term Q/beta_mem (Eq. 28.2); the taller
    one is the lower bound on t. Needs ``t_compute`` and ``t_memory`` (seconds)."""
    labels = ["compute F/R_peak", "memory Q/β_mem"]
    vals = [results["t_compute"].m_as("ms"), results["t_memory"].m_as("ms")]
    bars = ax.barh(labels, vals, color=["#7f8c8d", "#7f8c8d"])
    ax.set_xlabel("time (ms)")
    ax.grid(True, axis="x", alpha=0.25)

    def update(inputs, res):
        vals = [res["t_compute"].m_as("ms"), res["t_memory"].m_as("ms")]
        for bar, v, binding in zip(bars, vals, (vals[0] >= vals[1], vals[1] > vals[0])):
            bar.set_width(v)
            bar.set_color("#c0392b" if binding else "#95a5a6")
        fit_limits(ax, x=(0, 1.15 * max(vals)))
        ax.set_title(f"lower bound = {max(vals):.3g} ms ({'compute' if vals[0] >= vals[1] else 'memory'} term)",
                     fontsize=10)

    update(inputs, results)
    return update
