"""Figures for Vol. 2 Ch. 3 that the chapter's text describes but does not draw, and two redrawn.

Every number printed on a figure comes from a calculator or the catalog (``vol2_ch3_network.toml``):

* :func:`barrier`: §3.1, N workers finish their compute at different times and all wait at the
  barrier for the slowest (GPU-time lost from :func:`fleetcalc.physics.fabric.barrier_waste`).
* :func:`east_west`: §3.2, the traffic of a web data centre (north-south, clients in and out)
  against a training cluster (east-west, server to server), with the running example's gradient
  (:func:`fleetcalc.physics.memory.gradient_memory`).
* :func:`tail_at_scale`: §3.2, the chance that at least one of N workers is slow in a step,
  1 - (1 - p)^N (:func:`fleetcalc.physics.fabric.tail_wait_probability`), and
  :func:`tail_at_scale_plot`, the same curve as a panel plot.
* :func:`link_path`: §3.3, one hop of a link: SerDes, FEC, optics, fibre, and the switch, with the
  latencies the chapter gives (FEC per hop, switch traversal, the NDR start-up α).
* :func:`alpha_beta_crossover`: §3.4, T(n) = α + n/β against message size for NDR InfiniBand and
  the Ethernet baseline, each crossover n* = αβ marked
  (:func:`fleetcalc.physics.collectives.alpha_beta_time`,
  :func:`fleetcalc.physics.collectives.latency_bandwidth_threshold`).
* :func:`ecmp_flows`: §3.6, a few elephant flows against many mice hashed onto equal-cost paths,
  placed by a seeded random hash, with the expected busiest-path load
  (:func:`fleetcalc.physics.fabric.ecmp_expected_max_load`).
"""
from __future__ import annotations

import numpy as np

from fleetcalc.core.catalog import hw
from fleetcalc.core.units import Q_, fmt
from fleetcalc.physics import collectives, fabric
from fleetcalc.ui.diagrams.draw import PALETTE, arrow, box, canvas, label

__all__ = ["barrier", "east_west", "tail_at_scale", "tail_at_scale_plot", "link_path",
           "alpha_beta_crossover", "ecmp_flows", "storm_cost_plot"]

_RAIL_COLOURS = ["#4C72B0", "#DD8452", "#55A868", "#C44E52", "#8172B2", "#937860", "#DA8BC3", "#8C8C8C"]


def _count(q) -> int:
    return int(round(float(getattr(q, "magnitude", q))))


def _p_any_slow(p_slow, n):
    """P(a step waits for a slow worker), :func:`fleetcalc.physics.fabric.tail_wait_probability`."""
    return np.asarray(fabric.tail_wait_probability(p_slow, n).m_as(""), float)


# ----------------------------------------------------------------------------- §3.1: a barrier

def barrier(compute_ms=(92, 97, 95, 99, 94, 96, 93, 130), step_label: str = "one step"):
    """Workers' compute bars of different lengths, a barrier at the slowest, and the idle time of
    everyone else shaded. ``compute_ms``: each worker's compute time (the last one the straggler)."""
    times = [float(t) for t in compute_ms]
    if not 2 <= len(times) <= 12:
        raise ValueError(f"draw between 2 and 12 workers; got {len(times)}")
    n = len(times)
    t_max = max(times)
    idle = [Q_(t_max - t, "ms") for t in times]
    lost = sum(fabric.barrier_waste(1, d) for d in idle)
    fast = sorted(times)[-2]
    delay = Q_(t_max - fast, "ms")
    w = 12.0
    scale = (w - 3.0) / (t_max * 1.08)
    fig, ax = canvas(w, n + 2.6, size=(8.0, 0.42 * n + 1.6),
                     title=f"A barrier: {n} workers wait for the slowest ({step_label})")
    for i, t in enumerate(times):
        y = n - i + 0.6
        label(ax, 0.9, y + 0.3, f"GPU {i}", fontsize=8)
        kind = "fault" if t == t_max else "compute"
        box(ax, 1.8, y, t * scale, 0.6, f"{t:g} ms", kind=kind, alpha=0.45, fontsize=7)
        if t < t_max:
            box(ax, 1.8 + t * scale, y, (t_max - t) * scale, 0.6, "", kind="idle", alpha=0.35)
    xb = 1.8 + t_max * scale
    ax.plot([xb, xb], [0.9, n + 1.4], color=PALETTE["network"], lw=2.2)
    label(ax, xb, n + 1.75, "barrier: AllReduce starts", fontsize=8)
    label(ax, w / 2, 0.45,
          f"grey = idle: {fmt(lost, 'auto', sig=3)} of GPU-time lost; the straggler is {fmt(delay, 'ms', 0)} "
          f"behind the next slowest, and {n - 1} GPUs wait for it", fontsize=8)
    return fig


# ----------------------------------------------------------------------------- §3.2: traffic inverted

def east_west(gpus=None):
    """Two panels: a web data centre's traffic runs north-south (clients to servers and back); a
    training cluster's runs east-west (every server to every other, each step)."""
    n_gpus = _count(gpus if gpus is not None else hw("cluster_1k.gpus"))
    fig, ax = canvas(14.0, 7.0, size=(9.0, 4.4),
                     title="Where the bytes go: north-south (web) against east-west (training)")
    # web side
    box(ax, 0.5, 5.6, 6.0, 0.9, "clients on the internet", kind="host", alpha=0.3, fontsize=8)
    xs = [0.8 + i * 1.45 for i in range(4)]
    for x in xs:
        box(ax, x, 2.0, 1.1, 1.0, "server", kind="compute", alpha=0.3, fontsize=7)
        arrow(ax, (x + 0.55, 5.55), (x + 0.55, 3.05), kind="network", width=1.2, both=True)
    label(ax, 3.5, 1.3, "many small, independent requests;", fontsize=8)
    label(ax, 3.5, 0.8, "mean latency and fairness per flow", fontsize=8)
    label(ax, 3.5, 4.4, "north-south", fontsize=9, rotation=0, backgroundcolor="white")
    # training side
    cx, cy, r = 10.5, 3.6, 2.0
    angles = np.linspace(0, 2 * np.pi, 7)[:-1] + np.pi / 2
    pts = [(cx + r * np.cos(a), cy + r * np.sin(a)) for a in angles]
    for i, p in enumerate(pts):
        for q in pts[i + 1:]:
            ax.plot([p[0], q[0]], [p[1], q[1]], color=PALETTE["network"], lw=1.4, alpha=0.6)
    for p in pts:
        box(ax, p[0] - 0.5, p[1] - 0.3, 1.0, 0.6, "GPUs", kind="compute", alpha=0.45, fontsize=7)
    label(ax, cx, cy, "east-west", fontsize=9, backgroundcolor="white")
    label(ax, cx, 6.55, "no outside client on the critical path", fontsize=8)
    label(ax, cx, 0.8, f"every step: all {n_gpus:,} GPUs AllReduce the whole gradient",
          fontsize=8)
    ax.plot([7.0, 7.0], [0.4, 6.6], color=PALETTE["idle"], lw=1, ls="--")
    return fig


# ----------------------------------------------------------------------------- §3.2: tail at scale

def tail_at_scale(p_slow=(1e-2, 1e-3, 1e-4), n_max=100_000, mark=None):
    """P(at least one of N workers is slow in a step) against N, one curve per per-worker chance.
    ``mark``: a worker count to mark on every curve (default: the catalog's 1,024-GPU cluster)."""
    from matplotlib.figure import Figure

    n_mark = _count(mark if mark is not None else hw("cluster_1k.gpus"))
    n = np.unique(np.logspace(0, np.log10(n_max), 200).astype(int))
    fig = Figure(figsize=(7.0, 3.8), dpi=100)
    ax = fig.add_subplot(1, 1, 1)
    for i, p in enumerate(p_slow):
        y = _p_any_slow(p, n)
        ax.semilogx(n, y, lw=2, color=_RAIL_COLOURS[i], label=f"p = {fmt(p, None, sig=2)} per worker per step")
        ym = float(_p_any_slow(p, n_mark))
        ax.plot([n_mark], [ym], "o", color=_RAIL_COLOURS[i], ms=6)
        ax.annotate(f"{ym:.0%}", (n_mark, ym), textcoords="offset points", xytext=(6, -10), fontsize=8)
    ax.axvline(n_mark, color=PALETTE["idle"], lw=1, ls="--")
    ax.set_xlabel("workers N behind the barrier")
    ax.set_ylabel("P(step waits for a slow one)")
    ax.set_ylim(0, 1.05)
    ax.grid(True, alpha=0.25)
    ax.legend(fontsize=8, loc="upper left")
    ax.set_title(f"The tail at scale: 1 - (1 - p)^N (dots at N = {n_mark:,})", fontsize=10)
    fig.tight_layout()
    return fig


def tail_at_scale_plot(ax, inputs, results):
    """Panel plot: the chance of a slow worker against N at the panel's ``p`` with the panel's
    ``gpus`` marked. Needs ``p`` (fraction) and ``gpus`` (count) in the inputs, ``P_any`` in the
    results."""
    n = np.unique(np.logspace(0, 5.5, 200).astype(int))
    (ln,) = ax.semilogx(n, _p_any_slow(inputs["p"], n), color=PALETTE["compute"], lw=2)
    (pt,) = ax.plot([inputs["gpus"]], [float(results["P_any"])], "o", color=PALETTE["network"], ms=8)
    ax.set_xlabel("workers N")
    ax.set_ylabel("P(a step waits for a slow worker)")
    ax.set_ylim(0, 1.05)
    ax.grid(True, alpha=0.25)

    def update(inputs, res):
        ln.set_ydata(_p_any_slow(inputs["p"], n))
        pt.set_data([inputs["gpus"]], [float(getattr(res["P_any"], "magnitude", res["P_any"]))])

    return update


# ----------------------------------------------------------------------------- §3.3: a link's path

def link_path():
    """One hop, GPU to switch: the stages a bit passes and what the chapter says each costs."""
    fec_lo, fec_hi = hw("pam4.fec_latency_low"), hw("pam4.fec_latency_high")
    t_sw = hw("switch64.traversal_latency")
    alpha = hw("ib_ndr.alpha")
    fec = f"{fmt(fec_lo, 'ns', 0)}-{fmt(fec_hi, 'ns', 0)}"
    stages = [("NIC", "host", "RDMA engine"), ("SerDes", "compute", "PAM4, 4 levels"),
              ("FEC", "fault", f"RS({_count(hw('pam4.fec_n'))},{_count(hw('pam4.fec_k'))})\n{fec}"),
              ("optics", "memory", "electrical to light"), ("fibre / copper", "network", "metres"),
              ("optics", "memory", "light to electrical"), ("FEC", "fault", f"decode\n{fec}"),
              ("switch", "storage", f"{fmt(t_sw, 'us', 1)} per traversal")]
    w = 16.0
    fig, ax = canvas(w, 5.2, size=(10.0, 3.3), title="One hop of a link: where the start-up latency α comes from")
    bw = (w - 1.0) / len(stages)
    for i, (name, kind, note) in enumerate(stages):
        x = 0.5 + i * bw
        box(ax, x + 0.1, 2.6, bw - 0.3, 1.1, name, kind=kind, alpha=0.35, fontsize=8)
        label(ax, x + bw / 2 - 0.05, 1.95, note, fontsize=7)
        if i:
            arrow(ax, (x - 0.2, 3.15), (x + 0.1, 3.15), kind="text", width=1.0)
    hops = 3
    label(ax, w / 2, 4.45,
          f"FEC is paid on every link: {hops} hops add {fmt(hops * fec_lo, 'ns', 0)}-{fmt(hops * fec_hi, 'ns', 0)}; "
          f"{hops} switch traversals add {fmt(fabric.path_latency(hops, t_sw), 'auto', sig=2)}", fontsize=8)
    label(ax, w / 2, 0.75,
          f"the chapter's NDR start-up latency α = {fmt(alpha, 'auto', sig=2)} end to end "
          f"(the text gives no separate SerDes, optics or fibre delay)", fontsize=8)
    return fig


# ----------------------------------------------------------------------------- §3.4: α-β crossover

def alpha_beta_crossover(nets=None, n_range=(1e2, 1e10)):
    """T(n) against n on log-log axes for each network (default: NDR InfiniBand and the chapter's
    Ethernet baseline), the flat α floor and the n/β line dashed, each crossover n* = αβ marked."""
    from matplotlib.figure import Figure

    if nets is None:
        nets = {"InfiniBand NDR": (hw("ib_ndr.alpha"), hw("ib_ndr.port_bandwidth")),
                "Ethernet baseline": (hw("eth_baseline.alpha"), hw("eth_baseline.bandwidth"))}
    n = Q_(np.logspace(np.log10(n_range[0]), np.log10(n_range[1]), 300), "byte")
    fig = Figure(figsize=(7.2, 4.0), dpi=100)
    ax = fig.add_subplot(1, 1, 1)
    for i, (name, (a, b)) in enumerate(nets.items()):
        c = _RAIL_COLOURS[i]
        T = collectives.alpha_beta_time(n, a, b).to("s").magnitude
        ax.loglog(n.magnitude, T, color=c, lw=2.2, label=f"{name}: α = {fmt(a, 'auto', sig=2)}, β = {fmt(b, 'GB/s', sig=3)}")
        ax.loglog(n.magnitude, (n / b).to("s").magnitude, color=c, lw=1, ls=":")
        ax.axhline(a.to("s").magnitude, color=c, lw=1, ls="--")
        ns = collectives.latency_bandwidth_threshold(a, b)
        Ts = collectives.alpha_beta_time(ns, a, b)
        ax.plot([ns.to("byte").magnitude], [Ts.to("s").magnitude], "o", color=c, ms=7, zorder=5)
        ax.annotate(f"n* = αβ = {fmt(ns, 'kB', sig=3)}\n(T = 2α)", (ns.to("byte").magnitude, Ts.to("s").magnitude),
                    textcoords="offset points", xytext=(-95 if i else 10, 12 if i else -28), fontsize=8)
    ax.set_ylim(1e-7, 2)
    ax.set_xlabel("message size n (bytes)")
    ax.set_ylabel("T(n) (s)")
    ax.grid(True, which="major", alpha=0.25)
    ax.legend(fontsize=8, loc="upper left")
    ax.set_title("T(n) = α + n/β: flat (latency-bound) left of n*, rising (bandwidth-bound) right", fontsize=9)
    fig.tight_layout()
    return fig


# ----------------------------------------------------------------------------- §3.5: rails traced

# ----------------------------------------------------------------------------- §3.6: ECMP

def ecmp_flows(elephants: int = 8, mice: int = 400, paths: int = 4, seed: int = 3):
    """Two bar charts of the load per path after hashing: ``elephants`` equal large flows, and
    ``mice`` small flows carrying the same total, each flow placed by a seeded random hash."""
    from matplotlib.figure import Figure

    rng = np.random.default_rng(seed)
    fig = Figure(figsize=(8.0, 3.4), dpi=100)
    axes = fig.subplots(1, 2, sharey=True)
    for ax, flows, name in ((axes[0], elephants, "elephants"), (axes[1], mice, "mice")):
        where = rng.integers(0, paths, size=flows)
        load = np.bincount(where, minlength=paths) / (flows / paths)   # in units of the fair share
        ax.bar(range(paths), load, color=PALETTE["network"] if name == "elephants" else PALETTE["compute"],
               alpha=0.7)
        ax.axhline(1.0, color=PALETTE["text"], lw=1, ls="--")
        exp = fabric.ecmp_expected_max_load(flows, paths) if flows <= 64 else None
        extra = f"; expected busiest {fmt(float(exp) / (flows / paths), None, sig=3)}x fair" if exp is not None else ""
        ax.set_title(f"{flows} {name} on {paths} paths{extra}", fontsize=9)
        ax.set_xticks(range(paths), [f"path {i}" for i in range(paths)], fontsize=8)
        for i, v in enumerate(load):
            ax.text(i, v + 0.03, f"{v:.2f}", ha="center", fontsize=8)
    axes[0].set_ylabel("load / fair share (dashed = 1)")
    fig.suptitle("ECMP hashes whole flows: a few large flows collide, many small ones average out", fontsize=10)
    fig.tight_layout()
    return fig


# ----------------------------------------------------------------------------- §3.6: storm cost

def storm_cost_plot(ax, inputs, results):
    """Panel plot: expected idle spend per day from PFC storms against cluster size, the storm rate
    growing with the transceivers (:func:`fleetcalc.physics.fabric.storm_idle_gpu_time`), so the
    curve rises as N squared. Needs ``p_daily``, ``recovery``, ``price`` and ``gpus`` in the inputs
    and ``cost_day`` (cu) in the results."""
    from fleetcalc.ui.plots import fit_limits, plain_log_ticks

    n = np.unique(np.logspace(1, 5, 120).astype(int))

    def curve(inp):
        t = fabric.storm_idle_gpu_time(n, inp["p_daily"], inp["recovery"])
        return fabric.idle_gpu_cost(1, t, inp["price"]).to("cu").magnitude

    (ln,) = ax.loglog(n, curve(inputs), color=PALETTE["network"], lw=2, label="storm rate grows with N (∝ N²)")
    (pt,) = ax.plot([inputs["gpus"]], [results["cost_day"].to("cu").magnitude], "o", color=PALETTE["text"], ms=7)
    ax.set_xlabel("GPUs")
    ax.set_ylabel("expected idle spend per day (cu)")
    ax.grid(True, alpha=0.25)
    ax.legend(fontsize=8, loc="upper left")
    plain_log_ticks(ax)

    def update(inputs, res):
        y = curve(inputs)
        ln.set_ydata(y)
        pt.set_data([inputs["gpus"]], [max(res["cost_day"].to("cu").magnitude, 1e-12)])
        fit_limits(ax, y=(max(y.min(), 1e-9) / 2, y.max() * 2))

    update(inputs, results)
    return update
