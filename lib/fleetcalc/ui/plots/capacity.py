"""Capacity plots (Ch. 28 Example 27.3): devices and cost against the per-device token rate
under a deadline."""
from __future__ import annotations

import numpy as np
from fleetcalc.ui.plots import fit_limits


def _top(ax, state, key, hi, pad=1.1):
    """Set the y range to (0, hi*pad) only when hi leaves (40 %, 100 %) of the kept top: fixed
    limits let the panel redraw only the moved artists."""
    top = state.get(key)
    if top is None or hi > top / pad * 1.0001 or hi < top * 0.4:
        state[key] = hi * pad
        fit_limits(ax, y=(0, state[key]))


def devices_cost_panel(ax, inputs, results):
    """Step curve of node-rounded devices vs per-device rate, the continuous bound, and the
    device-hour cost on a twin axis. Needs ``rates`` (array, token/s), ``devices_curve``,
    ``lower_curve``, ``cost_curve`` (arrays), ``rate`` and ``devices`` (scalars)."""
    x = results["rates"] / 1000
    (ld,) = ax.step(x, results["devices_curve"], where="post", color="#1f4e79", lw=2, label="devices (whole nodes)")
    (lb,) = ax.plot(x, results["lower_curve"], color="#999", ls="--", lw=1, label="continuous bound")
    (pt,) = ax.plot([1], [1], "o", color="#c0392b", ms=7, zorder=5, label="your rate")
    ax.set_xlabel("effective rate per device (1000 token/s)")
    ax.set_ylabel("devices to meet the deadline")
    ax.grid(True, alpha=0.25)
    tw = ax.twinx()
    (lc,) = tw.plot(x, results["cost_curve"] / 1000, color="#f28e2b", lw=1.5, label="device-hour cost (k cu)")
    tw.set_ylabel("device-hour cost (1000 cu)")
    ax.legend(handles=[ld, lb, pt, lc], fontsize=7, loc="upper right")
    lims = {}

    def update(inputs, res):
        ld.set_ydata(res["devices_curve"])
        lb.set_ydata(res["lower_curve"])
        cost = res["cost_curve"] / 1000
        if not np.array_equal(lc.get_ydata(), cost):
            lc.set_ydata(cost)
            # the twin axis is not among the panel's axes, so a blitted frame would miss this
            # line: mark the legend (never blitted) stale to ask for a full draw
            ax.get_legend().stale = True
        pt.set_data([res["rate"] / 1000], [res["devices"]])
        _top(ax, lims, "ax", max(res["devices_curve"].max(), res["devices"]))
        _top(tw, lims, "tw", res["cost_curve"].max() / 1000)

    update(inputs, results)
    return update


def replicas_panel(ax, inputs, results):
    """Replicas needed against demand (step), with the chosen demand marked. Needs ``demands``,
    ``replicas_curve`` (arrays), ``demand`` and ``replicas`` (scalars)."""
    (ln,) = ax.step(results["demands"], results["replicas_curve"], where="post", color="#1f4e79", lw=2)
    (pt,) = ax.plot([1], [1], "o", color="#c0392b", ms=7, zorder=5)
    ax.set_xlabel("demand (request/s)")
    ax.set_ylabel("replicas")
    ax.grid(True, alpha=0.25)
    lims = {}

    def update(inputs, res):
        ln.set_ydata(res["replicas_curve"])
        pt.set_data([res["demand"]], [res["replicas"]])
        top = max(res["replicas_curve"].max(), res["replicas"]) * 1.1 + 1
        if lims.get("y") is None or top > lims["y"] or top < lims["y"] * 0.4:
            lims["y"] = top
            fit_limits(ax, y=(0, top))

    update(inputs, results)
    return update
