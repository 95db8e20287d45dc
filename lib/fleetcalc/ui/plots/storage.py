"""Storage plots (Ch. 28 §28.6): effective bandwidth vs request size (Eq. 28.16), the checkpoint
window against spare bandwidth (Eq. 28.19-28.21) and restore stages (Eq. 28.22)."""
from __future__ import annotations

import numpy as np

from fleetcalc.physics import storage
from fleetcalc.core.units import Q_
from fleetcalc.ui.plots import fit_limits, log_axes

_Q = np.logspace(np.log10(512), np.log10(256 * 2**20), 120)   # 512 B .. 256 MiB


def effective_bandwidth_panel(ax, inputs, results):
    """log-log roofs: a q (IOPS roof) and beta_io (link roof). Needs ``beta_io`` (Quantity),
    ``iops`` (Quantity, request/s), ``request_size`` and ``beta_eff`` (Quantities)."""
    mib_s = Q_(1, "MiB/s").m_as("byte/s")

    def curves(res):   # Eq. 28.16 on floats (byte/s, request/s, byte): the calculator's kernel
        iops = res["iops"]   # request/s, or a plain 1/s read as request/s (as the calculator reads it)
        a = iops.m_as("request/s") if iops.check("[request] / [time]") else iops.m_as("1/s")
        b = res["beta_io"].m_as("byte/s")
        aq = storage.effective_bandwidth.kernel(np.inf, a, _Q) / mib_s   # a link that never binds
        roof = storage.effective_bandwidth.kernel(b, a, _Q) / mib_s
        return b / mib_s, aq, roof

    b, aq, roof_y = curves(results)
    (roof,) = ax.loglog(_Q / 1024, roof_y, color="#1f4e79", lw=2.5, label="β_eff = min(β_io, a·q)")
    (iops,) = ax.loglog(_Q / 1024, aq, color="#e15759", ls="--", lw=1, label="request roof a·q")
    link = ax.axhline(b, color="#59a14f", ls="--", lw=1, label="link roof β_io")
    (pt,) = ax.plot([1], [1], "o", color="#333", ms=7, zorder=5)
    log_axes(ax, "request size q (KiB)", "bandwidth (MiB/s)")

    def update(inputs, res):
        b, aq, roof_y = curves(res)
        roof.set_ydata(roof_y)
        iops.set_ydata(aq)
        link.set_ydata([b, b])
        pt.set_data([res["request_size"].to("KiB").magnitude], [res["beta_eff"].to("MiB/s").magnitude])
        fit_limits(ax, y=(max(aq.min(), 1e-3) / 2, max(b, aq.max()) * 2))

    update(inputs, results)
    return update


def checkpoint_window_panel(ax, inputs, results):
    """Horizontal bars in GiB/s: shared capacity split into others' use and spare, against the
    window's need (Eq. 28.20) and the long-run average (Eq. 28.19). Needs ``capacity``, ``used``,
    ``beta_window``, ``beta_avg`` (Quantities) and ``t_min`` (s)."""
    (bu,) = ax.barh(1, 1, color="#bbbbbb", label="used by other jobs")
    (bs,) = ax.barh(1, 1, color="#59a14f", label="spare")
    (bw,) = ax.barh(0, 1, color="#e15759", label="needed in the window (Eq. 28.20)")
    (ba,) = ax.barh(-1, 1, color="#4e79a7", label="long-run average (Eq. 28.19)")
    ax.set_yticks([1, 0, -1], ["shared path", "window need", "average"])
    ax.set_xlabel("GiB/s")
    ax.legend(fontsize=7, loc="lower right")
    ax.grid(True, axis="x", alpha=0.25)

    def update(inputs, res):
        cap, used = res["capacity"].to("GiB/s").magnitude, res["used"].to("GiB/s").magnitude
        need, avg = res["beta_window"].to("GiB/s").magnitude, res["beta_avg"].to("GiB/s").magnitude
        bu.set_width(used)
        bs.set_x(used)
        bs.set_width(cap - used)
        bw.set_x(used)
        bw.set_width(need)
        ba.set_x(used)
        ba.set_width(avg)
        fit_limits(ax, x=(0, max(cap, used + need) * 1.08))
        ok = need <= cap - used
        ax.set_title(f"{'fits' if ok else 'does not fit'}: least write time "
                     f"{res['t_min'].to('s').magnitude:.4g} s", fontsize=9)

    update(inputs, results)
    return update


def restore_panel(ax, inputs, results):
    """Per-stage times S_c/beta_i with the bottleneck marked, and the serial sum (Eq. 28.22).
    Needs ``stage_names`` and ``stage_s`` (list of seconds), ``t_pipe`` and ``t_serial``."""
    names = results["stage_names"]
    bars = ax.bar(names, results["stage_s"], color="#9db4cf")
    lp = ax.axhline(0, color="#c0392b", ls="--", lw=1.5, label="pipelined bound (max)")
    ls = ax.axhline(0, color="#333", ls=":", lw=1.5, label="serial (sum)")
    ax.set_ylabel("seconds")
    ax.legend(fontsize=8, loc="upper left")
    ax.grid(True, axis="y", alpha=0.25)

    def update(inputs, res):
        st = res["stage_s"]
        for b, v in zip(bars, st):
            b.set_height(v)
            b.set_color("#c0392b" if v == max(st) else "#9db4cf")
        tp, ts = res["t_pipe"].to("s").magnitude, res["t_serial"].to("s").magnitude
        lp.set_ydata([tp, tp])
        ls.set_ydata([ts, ts])
        fit_limits(ax, y=(0, ts * 1.15))

    update(inputs, results)
    return update


def commit_panel(ax, inputs, results):
    """The newest step's 64 shards as a grid (written, missing, corrupt) and the step a restore
    picks (Exercise 28.10). Needs ``grid`` (2-D int array: 0 missing, 1 written, 2 corrupt),
    ``restored`` and ``committed`` (bool)."""
    from matplotlib.colors import ListedColormap

    cmap = ListedColormap(["#dddddd", "#59a14f", "#c0392b"])
    im = ax.imshow(results["grid"], cmap=cmap, vmin=0, vmax=2)
    ax.set_xticks([])
    ax.set_yticks([])

    def update(inputs, res):
        im.set_data(res["grid"])
        ax.set_title(f"newest step: {'committed' if res['committed'] else 'NOT committed'} | "
                     f"restore uses step {res['restored']}\n(grey: not written, green: ok, red: bad digest)", fontsize=8)

    update(inputs, results)
    return update
