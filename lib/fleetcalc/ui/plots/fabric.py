"""Plots for switches, topologies and fabric behaviour (Vol. 2 Ch. 3 §3.1, §3.5-3.6)."""
from __future__ import annotations

import numpy as np

from fleetcalc.physics import fabric, links
from fleetcalc.physics.collectives import ring_allreduce_time, tree_allreduce_time
from fleetcalc.core.units import Q_
from fleetcalc.ui.plots import fit_limits, log_axes, plain_log_ticks

_K = np.arange(4, 130, 2)
_P = 2 ** np.arange(1, 15)          # 2 .. 16384 processes


def step_timeline_panel(ax, inputs, results):
    """Two Gantt bars (Fig. 3.3): the same compute followed by the all-reduce inside a node and
    across nodes, with utilisation. Needs ``t_compute``, ``t_intra``, ``t_inter``, ``u_intra``,
    ``u_inter`` (Quantities)."""
    (c1,) = ax.barh(1, 1, color="#4e79a7", height=0.5, label="compute")
    (a1,) = ax.barh(1, 1, color="#e15759", height=0.5, label="all-reduce (GPUs idle)")
    (c2,) = ax.barh(0, 1, color="#4e79a7", height=0.5)
    (a2,) = ax.barh(0, 1, color="#e15759", height=0.5)
    ax.set_yticks([0, 1], ["across nodes", "inside a node"])
    ax.set_xlabel("time (ms)")
    ax.legend(fontsize=8, loc="lower right")
    t1 = ax.text(0, 1.3, "", fontsize=8)
    t2 = ax.text(0, 0.3, "", fontsize=8)

    def update(inputs, res):
        c = res["t_compute"].to("ms").magnitude
        i = res["t_intra"].to("ms").magnitude
        e = res["t_inter"].to("ms").magnitude
        for bc, ba, t, txt, u in ((c1, a1, i, t1, res["u_intra"]), (c2, a2, e, t2, res["u_inter"])):
            bc.set_width(c)
            ba.set_x(c)
            ba.set_width(t)
            txt.set_text(f"utilisation {float(u.to('').magnitude):.1%}")
        fit_limits(ax, x=(0, (c + max(i, e)) * 1.05))
        ax.set_ylim(-0.5, 1.6)

    update(inputs, results)
    return update


def allreduce_vs_p_panel(ax, inputs, results):
    """Ring vs tree all-reduce time against the number of processes p at a fixed message size
    (Ch. 28 Eq. 28.12-28.13 applied to Vol. 2 Ch. 3's links). Needs ``m``, ``alpha``, ``beta_net``,
    ``p`` and ``t_ring``."""
    def curves(res):
        r = ring_allreduce_time(_P, res["m"], res["alpha"], res["beta_net"]).to("s").magnitude
        t = tree_allreduce_time(_P, res["m"], res["alpha"], res["beta_net"]).to("s").magnitude
        return r, t

    r, t = curves(results)
    (lr,) = ax.loglog(_P, r, color="#1f4e79", lw=2, label="ring")
    (lt,) = ax.loglog(_P, t, color="#e15759", lw=2, label="tree")
    (pt,) = ax.plot([2], [1], "o", color="#333", ms=7, zorder=5, label="your p")
    log_axes(ax, "processes p", "all-reduce time (s)")

    def update(inputs, res):
        r, t = curves(res)
        lr.set_ydata(r)
        lt.set_ydata(t)
        pt.set_data([res["p"]], [res["t_ring"].to("s").magnitude])
        fit_limits(ax, y=(min(r.min(), t.min()) / 2, max(r.max(), t.max()) * 2))

    update(inputs, results)
    return update


def fat_tree_panel(ax, inputs, results):
    """Hosts and switches of 2- and 3-tier fat-trees against switch radix k (log y), with the chosen
    k and a horizontal line at the cluster size (Vol. 2 Ch. 3 §3.5). Needs ``k`` and ``hosts_needed``."""
    h2 = fabric.fat_tree_hosts(_K, 2).magnitude
    h3 = fabric.fat_tree_hosts(_K, 3).magnitude
    s2 = fabric.fat_tree_switches(_K, 2).magnitude
    s3 = fabric.fat_tree_switches(_K, 3).magnitude
    ax.semilogy(_K, h2, color="#1f4e79", lw=2, label="hosts, 2 tiers (k²/2)")
    ax.semilogy(_K, h3, color="#1f4e79", lw=2, ls="--", label="hosts, 3 tiers (k³/4)")
    ax.semilogy(_K, s2, color="#f28e2b", lw=2, label="switches, 2 tiers (3k/2)")
    ax.semilogy(_K, s3, color="#f28e2b", lw=2, ls="--", label="switches, 3 tiers (5k²/4)")
    need = ax.axhline(1, color="#c0392b", ls=":", lw=1.5, label="hosts needed")
    vk = ax.axvline(64, color="#999", lw=1)
    ax.set_xlabel("switch radix k (ports)")
    ax.set_ylabel("count")
    ax.grid(True, alpha=0.25)
    ax.legend(fontsize=7, loc="upper left")

    def update(inputs, res):
        n = float(res["hosts_needed"])
        need.set_ydata([n, n])
        vk.set_xdata([res["k"], res["k"]])

    update(inputs, results)
    return update


def oversubscription_panel(ax, inputs, results):
    """Bisection bandwidth (left axis) and the time to push the bisection traffic (right axis)
    against the oversubscription ratio of a two-tier tree (Vol. 2 Ch. 3 §3.5). Needs the inputs
    ``hosts`` and ``link_bw``, and ``data`` (byte) and ``ratio`` in the results."""
    r = np.linspace(1, 8, 141)
    (lb,) = ax.plot(r, r, color="#1f4e79", lw=2, label="BW_bisect (TB/s)")
    ax.set_xlabel("oversubscription (downlink : uplink)")
    ax.set_ylabel("bisection bandwidth (TB/s)", color="#1f4e79")
    ax2 = ax.twinx()
    (lt,) = ax2.plot(r, r, color="#e15759", lw=2, label="transfer time (s)")
    ax2.set_ylabel("time to cross the bisection (s)", color="#e15759")
    vr = ax.axvline(1, color="#999", ls="--", lw=1)
    ax.grid(True, alpha=0.25)

    def update(inputs, res):
        bw_q = fabric.bisection_bandwidth(inputs["hosts"], inputs["link_bw"], r)
        bw = bw_q.to("TB/s").magnitude
        t = links.transfer_time.kernel(res["data"].to("byte").magnitude, bw_q.to("byte/s").magnitude)
        lb.set_ydata(bw)
        lt.set_ydata(t)
        fit_limits(ax, y=(0, bw.max() * 1.1))
        fit_limits(ax2, y=(0, t.max() * 1.1))
        x = float(res["ratio"])
        vr.set_xdata([x, x])

    update(inputs, results)
    return update


def stall_cost_panel(ax, inputs, results):
    """Money spent on idle GPUs while the network stalls, against the communication slowdown, for
    the chosen communication share and two neighbours (Vol. 2 Ch. 3 §3.5). Needs ``budget`` (cu),
    ``comm_fraction``, ``slowdown``, ``cost``."""
    s = np.linspace(1, 8, 141)
    shares = (0.1, 0.3, 0.5)
    lines = [ax.plot(s, s, lw=2 if f == 0.3 else 1, label=f"comm share {f:.0%}")[0] for f in shares]
    (mine,) = ax.plot(s, s, color="#c0392b", lw=2, ls="--", label="your share")
    (pt,) = ax.plot([1], [0], "o", color="#c0392b", ms=8, zorder=5)
    ax.set_xlabel("communication slowdown (e.g. oversubscription)")
    ax.set_ylabel("idle-GPU spend (M cu)")
    ax.grid(True, alpha=0.25)
    ax.legend(fontsize=7, loc="upper left")

    def update(inputs, res):
        b = res["budget"]
        for ln, f in zip(lines, shares):
            ln.set_ydata(fabric.stall_cost(b, f, s).magnitude / 1e6)
        y = fabric.stall_cost(b, float(res["comm_fraction"]), s).magnitude / 1e6
        mine.set_ydata(y)
        pt.set_data([float(res["slowdown"])], [res["cost"].to("cu").magnitude / 1e6])
        fit_limits(ax, y=(0, max(b.to("cu").magnitude / 1e6, 1e-9) * 1.02))

    update(inputs, results)
    return update


def storm_panel(ax, inputs, results):
    """P(at least one PFC storm per day) against the number of transceivers, for the chosen
    per-device daily probability and ten times above and below (Vol. 2 Ch. 3 §3.6). Needs
    ``p_daily``, ``n`` and ``P_day``."""
    n = np.logspace(2, 6, 120)
    lines = [ax.semilogx(n, n, lw=w, color=c, label=lab)[0] for w, c, lab in
             ((1, "#59a14f", "p / 10"), (2, "#1f4e79", "your p"), (1, "#e15759", "p × 10"))]
    (pt,) = ax.plot([1e3], [0], "o", color="#c0392b", ms=8, zorder=5)
    ax.set_xlabel("transceivers in the fabric")
    ax.set_ylabel("P(≥ 1 storm in a day)")
    ax.set_ylim(0, 1.02)
    ax.grid(True, alpha=0.25)
    plain_log_ticks(ax, "x")
    ax.legend(fontsize=8, loc="upper left")

    def update(inputs, res):
        p = float(res["p_daily"])
        nn = np.round(n).astype(int)
        for ln, f in zip(lines, (0.1, 1.0, 10.0)):
            ln.set_ydata(fabric.pfc_storm_probability(min(p * f, 0.5), nn).magnitude)
        pt.set_data([float(res["n"])], [float(res["P_day"].magnitude)])

    update(inputs, results)
    return update


def hops_panel(ax, inputs, results):
    """Bars of the switching latency (traversals x per-switch) plus FEC for a rail switch,
    leaf-spine-leaf and a path through the core (Vol. 2 Ch. 3 §3.3, §3.5). Needs ``per_switch``
    and ``fec`` (s)."""
    names = ["rail (1)", "leaf-spine-leaf (3)", "via core (5)"]
    trav = fabric.switch_traversals(np.array([1, 2, 3])).magnitude    # 1, 3, 5 (tiers up 1, 2, 3)
    b1 = ax.bar(names, trav, color="#4e79a7", label="switching")
    b2 = ax.bar(names, trav, color="#f28e2b", label="FEC")
    ax.set_ylabel("one-way latency (µs)")
    ax.legend(fontsize=8, loc="upper left")
    ax.grid(True, axis="y", alpha=0.25)

    def update(inputs, res):
        sw = fabric.path_latency(trav, res["per_switch"]).to("us").magnitude
        fe = links.fec_path_latency(res["fec"], trav).to("us").magnitude
        for i in range(3):
            b1[i].set_height(sw[i])
            b2[i].set_y(sw[i])
            b2[i].set_height(fe[i])
        fit_limits(ax, y=(0, float((sw + fe).max()) * 1.2 + 1e-9))

    update(inputs, results)
    return update


def ecmp_panel(ax, inputs, results):
    """Distribution of the busiest path's load when flows are hashed onto equal-cost paths, with
    perfect balance marked (Vol. 2 Ch. 3 §3.6). Needs ``pmf`` (array over loads 0..flows) and
    ``ideal``. Bars for up to 32 flows are made once (more only if the flows outgrow them); moves
    resize and hide them."""
    state = {"n": 0}

    def build(n):
        ax.clear()
        state["n"] = n
        state["bars"] = list(ax.bar(np.arange(n), np.zeros(n), color="#4e79a7", label="P(busiest path = load)"))
        state["ideal"] = ax.axvline(0.0, color="#59a14f", ls="--", lw=2, label="perfect balance")
        ax.set_xlabel("flows on the busiest path")
        ax.set_ylabel("probability")
        ax.legend(fontsize=8, loc="upper right")
        ax.grid(True, axis="y", alpha=0.25)

    def update(inputs, res):
        pmf = np.asarray(res["pmf"], dtype=float)
        if len(pmf) > state["n"]:
            build(max(len(pmf), 33))
        keep = np.zeros(state["n"], dtype=bool)
        keep[: len(pmf)] = pmf > 1e-6
        for bar, h, k in zip(state["bars"], np.resize(pmf, state["n"]), keep):
            bar.set_height(h if k else 0.0)
            bar.set_visible(bool(k))
        ideal = float(res["ideal"])
        state["ideal"].set_xdata([ideal, ideal])
        loads = np.nonzero(keep)[0]
        lo = min(float(loads.min()) if loads.size else 0.0, ideal)
        hi = max(float(loads.max()) if loads.size else 1.0, ideal)
        fit_limits(ax, x=(max(lo - 0.6, -0.6), hi + 0.6), y=(0, float(pmf.max()) * 1.05))

    update(inputs, results)
    return update


def torus_panel(ax, inputs, results):
    """Bisection links of a cubic 3-D torus (2 N^(2/3)) against a non-blocking fat-tree (N/2), and
    the torus diameter on a second axis (Vol. 2 Ch. 3 §3.5). Needs ``side``."""
    sides = np.arange(4, 50, 2)          # past the panel's knob (4..32), so a side moved to its end stays on the curves
    n = np.array([fabric.torus_nodes.kernel((k, k, k)) for k in sides])
    torus = np.array([fabric.torus_bisection_links.kernel((k, k, k)) for k in sides])
    ax.loglog(n, fabric.fat_tree_bisection_links.kernel(n), color="#1f4e79", lw=2, label="fat-tree: N/2 host links")
    ax.loglog(n, torus, color="#e15759", lw=2, label="3-D torus: 2 k² links")
    (pt,) = ax.plot([64], [32], "o", color="#c0392b", ms=8, zorder=5)
    log_axes(ax, "nodes N = k³", "links across the bisection")

    def update(inputs, res):
        k = int(res["side"])
        nodes = fabric.torus_nodes.kernel((k, k, k))
        cut = fabric.torus_bisection_links.kernel((k, k, k))
        pt.set_data([nodes], [cut])
        ax.set_title(f"k = {k}: torus keeps {cut / fabric.fat_tree_bisection_links.kernel(nodes):.1%} of the fat-tree's cut",
                     fontsize=9)

    update(inputs, results)
    return update


def incast_panel(ax, inputs, results):
    """Queue depth at an incast port over time against the buffer size (Vol. 2 Ch. 3 Fig. 3.11):
    it grows at the excess rate until the buffer is full at ``t_fill`` (``fabric.buffer_fill_time``)
    and stays full. Needs ``buffer`` (byte) and ``t_fill`` (s)."""
    (q,) = ax.plot([0, 1, 2], [0, 1, 1], color="#1f4e79", lw=2, label="queue")
    buf = ax.axhline(1, color="#c0392b", ls="--", lw=1.5, label="buffer")
    ax.set_xlabel("time (µs)")
    ax.set_ylabel("queued data (MB)")
    ax.grid(True, alpha=0.25)
    ax.legend(fontsize=8, loc="upper left")

    def update(inputs, res):
        tf = res["t_fill"].to("us").magnitude
        b = res["buffer"].to("MB").magnitude
        q.set_data([0, tf, 2 * tf], [0, b, b])      # full at t_fill, then held full (PFC) or dropping
        buf.set_ydata([b, b])
        fit_limits(ax, x=(0, 2 * tf))
        fit_limits(ax, y=(0, b * 1.3))
        ax.set_title(f"buffer full after {tf:.3g} µs; then PFC pauses or packets drop", fontsize=9)

    update(inputs, results)
    return update


def barrier_panel(ax, inputs, results):
    """Daily idle spend caused by a per-step straggler delay at a barrier, against cluster size
    (Vol. 2 Ch. 3 §3.2, line 2573). Needs ``gpus``, ``per_gpu_day`` (cu per GPU per day) and
    ``cost_day`` (cu)."""
    n = np.logspace(1, 5, 100)
    (ln,) = ax.loglog(n, n, color="#1f4e79", lw=2, label="idle spend per day")
    (pt,) = ax.plot([1024], [1], "o", color="#c0392b", ms=8, zorder=5)
    ax.set_xlabel("GPUs behind the barrier")
    ax.set_ylabel("idle spend per day (cu)")
    ax.grid(True, alpha=0.25)
    plain_log_ticks(ax)

    def update(inputs, res):
        per = max(res["per_gpu_day"].to("cu").magnitude, 1e-12)
        ln.set_ydata(n * per)
        pt.set_data([res["gpus"]], [max(res["cost_day"].to("cu").magnitude, 1e-12)])
        fit_limits(ax, y=(n[0] * per / 2, n[-1] * per * 2))

    update(inputs, results)
    return update
