"""Capacity plots (Ch. 28 Example 27.3): devices and cost against the per-device token rate
under a deadline."""
from __future__ import annotations

import numpy as np


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

    def update(inputs, res):
        ld.set_ydata(res["devices_curve"])
        lb.set_ydata(res["lower_curve"])
        lc.set_ydata(res["cost_curve"] / 1000)
        pt.set_data([res["rate"] / 1000], [res["devices"]])
        ax.set_ylim(0, max(res["devices_curve"].max(), res["devices"]) * 1.1)
        tw.set_ylim(0, res["cost_curve"].max() / 1000 * 1.1)

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

    def update(inputs, res):
        ln.set_ydata(res["replicas_curve"])
        pt.set_data([res["demand"]], [res["replicas"]])
        ax.set_ylim(0, max(res["replicas_curve"].max(), res["replicas"]) * 1.1 + 1)

    update(inputs, results)
    return update
