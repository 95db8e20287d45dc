"""Rack and facility plots: rack power against the cooling limits, and the facility power split
into IT and overhead (PUE) (Vol. 2 Ch. 2 §§ Rack, Facility, Pod)."""
from __future__ import annotations

import numpy as np
from fleetcalc.ui.plots import fit_limits

RED = "#c0392b"
BLUE = "#1f4e79"
REGIME_COLORS = ("#9bbb59", "#f79646", RED)


def _top(ax, state, key, hi, pad):
    """Set the y range to (0, hi*pad) only when hi leaves (40 %, 100 %) of the kept top: fixed
    limits let the panel redraw only the moved artists (the labels above the bars stay inside)."""
    top = state.get(key)
    if top is None or hi > top / pad * 1.0001 or hi < top * 0.4:
        state[key] = hi * pad
        fit_limits(ax, y=(0, state[key]))


def rack_and_facility(axes, inputs, results):
    """Left: rack power with the room-air (~10 kW) and engineered-air (~30 kW) limits; the bar is
    coloured by the cooling regime it needs. Right: facility power as IT + overhead (PUE - 1).

    Needs ``results`` with ``rack_power`` (kW), ``cooling_code`` (0/1/2), ``it_power`` and
    ``facility_power`` (W Quantities), ``room_air_max`` and ``air_max`` (kW); the input ``pue``."""
    ax1, ax2 = axes
    (rbar,) = ax1.bar([0], [float(results["rack_power"].to("kW").magnitude)], width=0.5)
    room = ax1.axhline(0, color="#9bbb59", ls="--", lw=1.5, label="room air limit")
    air = ax1.axhline(0, color="#f79646", ls="--", lw=1.5, label="engineered air limit")
    rtext = ax1.text(0, 0, "", ha="center", va="bottom", fontsize=9)
    ax1.set_xticks([0], ["one rack"])
    ax1.set_xlim(-0.8, 0.8)
    ax1.set_ylabel("kW")
    ax1.legend(loc="upper left", fontsize=7)

    (itbar,) = ax2.bar([0], [0.0], color=BLUE, width=0.5, label="IT")
    (ovbar,) = ax2.bar([0], [0.0], color="#7f7f7f", width=0.5, label="cooling + conversion")
    ftext = ax2.text(0, 0, "", ha="center", va="bottom", fontsize=9)
    ax2.set_xticks([0], ["cluster"])
    ax2.set_xlim(-0.8, 0.8)
    ax2.set_ylabel("MW")
    ax2.legend(loc="upper left", fontsize=7)

    lims = {}

    def update(inputs, res):
        rp = float(res["rack_power"].to("kW").magnitude)
        code = int(np.asarray(res["cooling_code"].magnitude if hasattr(res["cooling_code"], "magnitude") else res["cooling_code"]))
        rbar.set_height(rp)
        rbar.set_color(REGIME_COLORS[code])
        r = float(res["room_air_max"].to("kW").magnitude)
        a = float(res["air_max"].to("kW").magnitude)
        room.set_ydata([r, r])
        air.set_ydata([a, a])
        rtext.set_position((0, rp))
        rtext.set_text(f"{rp:.1f} kW: {('room air', 'engineered air', 'liquid')[code]}")
        _top(ax1, lims, "ax1", max(rp, a), 1.3)
        it = float(res["it_power"].to("MW").magnitude)
        fac = float(res["facility_power"].to("MW").magnitude)
        itbar.set_height(it)
        ovbar.set_y(it)
        ovbar.set_height(fac - it)
        ftext.set_position((0, fac))
        ftext.set_text(f"{fac:.2f} MW (PUE {float(inputs['pue']):.2f})" if it > 0 else "")
        _top(ax2, lims, "ax2", max(fac, 1e-3), 1.3)

    update(inputs, results)
    return update


def time_chain(ax, inputs, results):
    """Bars of the training-time chain (ideal, then each multiplier), in hours.

    Needs ``results`` with ``chain`` (hour Quantity array) and ``chain_labels`` (names)."""
    labels = list(results["chain_labels"])
    x = np.arange(len(labels))
    bars = ax.bar(x, np.asarray(results["chain"].to("hour").magnitude), color=BLUE)
    texts = [ax.text(i, 0, "", ha="center", va="bottom", fontsize=8) for i in x]
    ax.set_xticks(x, labels, fontsize=7, rotation=20)
    ax.set_ylabel("hours")
    ax.grid(True, axis="y", alpha=0.25)
    lims = {}

    def update(inputs, res):
        h = np.asarray(res["chain"].to("hour").magnitude, dtype=float)
        for b, t, hi, xi in zip(bars, texts, h, x):
            b.set_height(hi)
            t.set_position((xi, hi))
            t.set_text(f"{hi:.1f}")
        _top(ax, lims, "ax", h.max(), 1.2)

    update(inputs, results)
    return update
