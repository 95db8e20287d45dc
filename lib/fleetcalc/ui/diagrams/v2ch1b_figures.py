"""Vol. 2 notation and Chapter 1 pictures that explain rather than list (second set).

Every number drawn comes from a physics calculator, and the figure keeps the values its caption
points at as attributes (``fig.numbers``, ``fig.terms``, ...), which the tests check against the
book and hand arithmetic.

* :func:`fleet_stack_explained`: Fig. 1.13 redrawn: the four layers of the fleet stack, each with
  the one number it decides for a concrete job, and the upward arrows saying which figure below
  fixes which number above (what the stack *explains*, not only what it holds).
* :func:`ai_triad_explained`: Fig. 1.14 redrawn: data, algorithm and infrastructure for a compute
  budget, with every edge labelled by the law that ties its two vertices (the weight bytes say what
  they cost: the devices needed just to hold them).
* :func:`fleet_step_bars`: Eq. 1.3 as one bar per fleet size: compute/N shrinks, the ring
  all-reduce does not, and η_scaling is the blue share.
* :func:`loggp_timeline`: a burst of LogGP messages on three lanes (sender, wire, receiver), with
  o, (k-1)G, L and the injection period marked.
* :func:`overhead_tokens`: §1.9's scaling-law pitfall drawn honestly: loss against wall-clock time
  with and without coordination overhead; overhead stretches the run, it does not scale the gain.
"""
from __future__ import annotations

import numpy as np

from fleetcalc.core.catalog import hw
from fleetcalc.core.units import Q_, fmt
from fleetcalc.core.validate import count, magnitude
from fleetcalc.physics import (capacity, collectives, facility, inference, loggp, memory, parallel_scaling,
                               scaling_laws)
from fleetcalc.ui.diagrams.draw import PALETTE, arrow, box, canvas, label
from fleetcalc.ui.plots import decade_label as _sci   # one formatter for 10^k labels

__all__ = ["fleet_stack_explained", "stack_numbers", "ai_triad_explained", "triad_numbers",
           "fleet_step_bars", "loggp_timeline", "overhead_tokens"]




def _pct(x: float) -> str:
    """A share as a percentage with the digits its size deserves: 100 %, 86 %, 4.1 %."""
    v = 100 * x
    return f"{v:.0f} %" if v >= 10 else f"{v:.1f} %"


def _whole(name, x):
    """A count given bare or as a Quantity in ``device`` (the running job's ``N``)."""
    if hasattr(x, "units") and str(x.units) == "device":
        x = x.magnitude
    return int(count(name, x))


def _figure(size, ncols=1):
    from matplotlib.figure import Figure

    fig = Figure(figsize=size, dpi=100)
    axes = [fig.add_subplot(1, ncols, i + 1) for i in range(ncols)]
    return fig, (axes[0] if ncols == 1 else axes)


# --------------------------------------------------------------------------- Fig. 1.13
def stack_numbers(*, P, D, N, R_peak, beta_mem, hbm_capacity, gpu_power, nic_rate, alpha, eta_hw,
                  s_w=Q_(2, "byte"), s_g=Q_(2, "byte"), serve_t=8):
    """The one number each layer of the stack decides for a job of P parameters on D tokens and N
    devices: the fleet's peak (infrastructure), one data-parallel gradient all-reduce across the
    whole fleet (distribution), the bandwidth floor on one decoded token on ``serve_t`` devices
    (serving), and the run's energy at the devices' power (governance)."""
    n = _whole("N", N)
    C = scaling_laws.training_flops(P, D)
    peak = facility.sustained_rate(n, R_peak, 1.0)
    grad = memory.gradient_memory(P, s_g)
    t_ar = collectives.ring_allreduce_time(n, grad, alpha, nic_rate)
    weights = memory.weights_memory(P, s_w)
    t_tok = inference.token_latency_floor(weights, beta_mem, _whole("serve_t", serve_t))
    hold = inference.devices_to_hold(weights, hbm_capacity)
    T = facility.ideal_training_time(C, n, R_peak, eta_hw)
    E = capacity.energy(capacity.it_power(gpu_power, n), T)
    return {"C": C, "peak": peak, "gradient": grad, "allreduce": t_ar, "weights": weights,
            "token": t_tok, "hold": hold, "time": T, "energy": E, "N": n, "serve_t": _whole("serve_t", serve_t),
            "R_peak": R_peak, "beta_mem": beta_mem, "nic_rate": nic_rate, "gpu_power": gpu_power}


def fleet_stack_explained(**job):
    """Fig. 1.13 redrawn for one job (keyword inputs as :func:`stack_numbers`): each layer says what it
    holds and the number it decides; the arrows on the right say which figure below sets it."""
    t = stack_numbers(**job)
    fig, ax = canvas(12, 7.0, size=(8.4, 4.9), title="Fig. 1.13: what each layer of the fleet stack decides")
    rows = (
        ("Infrastructure", "compute · network · storage", "storage",
         f"{t['N']:,} × {fmt(t['R_peak'], 'auto', sig=3)} = {fmt(t['peak'], 'auto', sig=3)} peak\n"
         f"{fmt(t['beta_mem'], 'auto', sig=3)} HBM per GPU · {fmt(t['nic_rate'].to('Gbit/s'), 'Gbit/s', sig=3)} per NIC"),
        ("Distribution", "parallelism · communication · faults", "network",
         f"one all-reduce of the {fmt(t['gradient'], 'auto', sig=3)} gradient\n"
         f"over all {t['N']:,} GPUs: ≥ {fmt(t['allreduce'], 'auto', sig=3)} per step"),
        ("Serving", "inference · latency · edge", "compute",
         f"{fmt(t['weights'], 'auto', sig=3)} of weights read per token on {t['serve_t']} GPUs:\n"
         f"≥ {fmt(t['token'], 'auto', sig=3)} per token at batch 1"),
        ("Governance", "power · cost · sustainability", "fault",
         f"{fmt(t['time'].to('day').magnitude, None, sig=3)} days at {fmt(t['gpu_power'], 'auto', sig=3)} per GPU:\n"
         f"≈ {fmt(t['energy'].to('MWh'), 'MWh', sig=3)} of GPU energy alone"),
    )
    ys = [0.25 + i * 1.65 for i in range(4)]
    for (name, holds, kind, number), y in zip(rows, ys):
        box(ax, 0.2, y, 3.3, 1.3, "", kind=kind, alpha=0.35)
        label(ax, 0.4, y + 0.88, name, fontsize=10, ha="left", weight="bold")
        label(ax, 0.4, y + 0.42, holds, fontsize=7.5, ha="left")
        box(ax, 3.7, y, 5.6, 1.3, number, kind=kind, alpha=0.12, fontsize=8.5)
    why = ("the NIC rate\nsets the\nall-reduce", "HBM bandwidth\nsets each\ntoken", "training time\n× power sets\nthe energy")
    for i, text in enumerate(why):
        y0, y1 = ys[i] + 1.0, ys[i + 1] + 0.3
        arrow(ax, (9.6, y0), (9.6, y1), "", kind="text", width=1.2)
        label(ax, 9.8, (y0 + y1) / 2, text, fontsize=7.5, ha="left")
    label(ax, 6.5, 6.95, "what the layer decides for this job", fontsize=8, style="italic")
    label(ax, 1.85, 6.95, "layer: what it holds", fontsize=8, style="italic")
    fig.numbers = t
    return fig


# --------------------------------------------------------------------------- Fig. 1.14
def triad_numbers(C, *, accelerator="h100", n_devices=10_000, mfu=0.4, s_w=Q_(2, "byte")):
    """The triad's numbers for a budget ``C`` (FLOP): compute-optimal parameters and tokens (about
    20 tokens per parameter), the weight bytes at ``s_w`` per parameter and the devices needed just
    to hold them, and the wall-clock days on ``n_devices`` catalog accelerators at ``mfu``."""
    C = Q_(magnitude("C", C, "FLOP", gt=0), "FLOP")
    opt = scaling_laws.compute_optimal(C)
    n = _whole("n_devices", n_devices)
    peak = hw(f"{accelerator}.peak_fp16")
    weights = memory.weights_memory(opt["P"], s_w)
    return {"C": C, "P": opt["P"], "D": opt["D"], "weights": weights,
            "hold": inference.devices_to_hold(weights, hw(f"{accelerator}.hbm_capacity")),
            "capacity": hw(f"{accelerator}.hbm_capacity"),
            "days": facility.ideal_training_time(C, n, peak, mfu).to("day"),
            "peak": peak, "n_devices": n, "mfu": mfu, "ratio": scaling_laws.tokens_per_param(opt["P"], opt["D"])}


def ai_triad_explained(C=Q_(1e25, "FLOP"), **kw):
    """Fig. 1.14 redrawn: the three vertices carry what a budget of ``C`` FLOP asks of each, and each
    edge names the law that ties its ends (C = 6PD; D ≈ 20P; the weights must fit in device memory)."""
    t = triad_numbers(C, **kw)
    fig, ax = canvas(12, 7.6, size=(8.4, 5.2), title="Fig. 1.14: the AI triad, with the law on each edge")
    A, Dv, I = (4.0, 5.6, 4.0, 1.5), (0.1, 0.3, 3.9, 1.5), (8.0, 0.3, 3.9, 1.5)
    box(ax, *A, f"Algorithm (the model)\n{_sci(t['P'].magnitude)} parameters\n(compute-optimal for "
        f"{_sci(t['C'].magnitude)} FLOP)", kind="compute", alpha=0.3, fontsize=8.5)
    box(ax, *Dv, f"Data\n{_sci(t['D'].magnitude)} tokens", kind="storage", alpha=0.3, fontsize=8.5)
    box(ax, *I, f"Infrastructure\n{t['n_devices']:,} × {fmt(t['peak'], 'auto', sig=3)}\n"
        f"at {fmt(t['mfu'] * 100, None, sig=2)} % MFU", kind="network", alpha=0.3, fontsize=8.5)
    arrow(ax, (4.4, 5.5), (2.2, 1.9), "", kind="idle", width=1.3, both=True)
    arrow(ax, (7.6, 5.5), (9.8, 1.9), "", kind="idle", width=1.3, both=True)
    arrow(ax, (4.1, 1.05), (7.9, 1.05), "", kind="idle", width=1.3, both=True)
    label(ax, 2.0, 3.85, f"Chinchilla: D ≈ {fmt(t['ratio'], None, sig=2)} P\n(more data only pays\n"
          "with a bigger model)", fontsize=7.5)
    label(ax, 10.0, 3.85, f"the weights alone, P × {fmt((t['weights'] / t['P'].magnitude).to('byte').magnitude, None, sig=2)} bytes,\n"
          f"are {fmt(t['weights'], 'auto', sig=3)}: ≥ {t['hold']} GPUs of\n"
          f"{fmt(t['capacity'], 'auto', sig=3)} just to hold them", fontsize=7.5)
    label(ax, 6.0, 1.55, f"C = 6 P D FLOP on this fleet:\n{fmt(t['days'].magnitude, None, sig=3)} days of training",
          fontsize=7.5)
    label(ax, 6.0, 3.6, "change one vertex and\nthe other two must move", fontsize=8.5, style="italic")
    fig.numbers = t
    return fig


# --------------------------------------------------------------------------- Eq. 1.3
def fleet_step_bars(T_compute, M, alpha, beta_net, Ns=(1, 8, 64, 1024), *, title=""):
    """One bar per fleet size N, each the whole step (Eq. 1.3) at 100 %: the share computing (blue,
    f_compute, which equals η_scaling with no sync or overlap) and the share in the ring all-reduce of
    the M-byte gradient (red); the step time is written at the end. ``fig.terms[N]`` holds the
    compute, comm and step times (s), f_compute and η."""
    Ns = [_whole("N", n) for n in Ns]
    fig, ax = _figure((7.6, 0.55 * len(Ns) + 1.6))
    fig.terms = {}
    for i, n in enumerate(Ns):
        terms = parallel_scaling.ring_fleet_terms(n, T_compute, M, alpha, beta_net)
        eta = parallel_scaling.ring_scaling_efficiency(n, T_compute, M, alpha, beta_net)
        f = float(parallel_scaling.compute_fraction(T_compute, n, terms["comm"]).to("").magnitude)
        c, m, s_ = (terms[k].to("s").magnitude for k in ("compute", "comm", "step"))
        fig.terms[n] = {"compute": c, "comm": m, "step": s_, "f": f, "eta": float(eta.to("").magnitude)}
        ax.barh(i, f * 100, color=PALETTE["compute"], label="computing: T_compute / N" if i == 0 else None)
        ax.barh(i, 100 - f * 100, left=f * 100, color=PALETTE["network"], alpha=0.8,
                label="waiting on the all-reduce: T_comm(N)" if i == 0 else None)
        ax.text(101.5, i, f"step {fmt(terms['step'], 'auto', sig=3)}", va="center", fontsize=8)
        inside = f * 100 / 2 if f > 0.15 else f * 100 + 1.5
        ax.text(inside, i, f"η = {_pct(float(eta.to('').magnitude))}", va="center", fontsize=8,
                color="white" if f > 0.15 else PALETTE["text"], ha="center" if f > 0.15 else "left")
    ax.set_yticks(range(len(Ns)), [f"N = {n:,}" for n in Ns], fontsize=8)
    ax.invert_yaxis()
    ax.set_xlim(0, 122)
    ax.set_xticks([0, 25, 50, 75, 100])
    ax.set_xlabel("share of one step (%)", fontsize=9)
    ax.tick_params(labelsize=8)
    ax.legend(fontsize=8, loc="upper center", bbox_to_anchor=(0.45, -0.28), ncol=2)
    ax.set_title(title or "Eq. 1.3: the compute shrinks with N, the all-reduce does not", fontsize=10)
    fig.tight_layout()
    return fig


# --------------------------------------------------------------------------- LogGP
def loggp_timeline(n_msg, k, L_lat, o, g, G, *, title=""):
    """A burst of ``n_msg`` k-byte messages on three lanes: sender overhead o, the bytes' injection
    (k-1)G, the wire latency L_lat, the receiver's overhead o. Starts are one injection period
    apart (:func:`fleetcalc.physics.loggp.loggp_injection_period`); the last arrival is
    :func:`fleetcalc.physics.loggp.loggp_burst_time`. ``fig.times`` holds them in µs."""
    n = int(count("n_msg", n_msg))
    us = lambda q: q.to("us").magnitude
    period = us(loggp.loggp_injection_period(k, o, g, G))
    inject = us(loggp.loggp_message_time(k, Q_(0, "s"), Q_(0, "s"), G))   # (k-1)G alone
    t_o, t_L = us(Q_(o)), us(Q_(L_lat))
    burst = us(loggp.loggp_burst_time(n, k, L_lat, o, g, G))
    one = us(loggp.loggp_message_time(k, L_lat, o, G))
    fig, ax = _figure((7.8, 2.9))
    lanes = {"sender CPU": 2, "wire": 1, "receiver CPU": 0}
    for i in range(n):
        t0 = i * period                                   # layout: the i-th start
        ax.broken_barh([(t0, t_o)], (lanes["sender CPU"] - 0.3, 0.6), color=PALETTE["host"])
        ax.broken_barh([(t0 + t_o, inject)], (lanes["sender CPU"] - 0.3, 0.6), color=PALETTE["memory"], alpha=0.8)
        lift = 0.18 if i % 2 else -0.18                    # layout: alternate rows so messages in flight stay apart
        ax.broken_barh([(t0 + t_o + inject, t_L)], (lanes["wire"] + lift - 0.15, 0.3), color=PALETTE["network"], alpha=0.7)
        ax.broken_barh([(t0 + t_o + inject + t_L, t_o)], (lanes["receiver CPU"] - 0.3, 0.6), color=PALETTE["host"])
    ax.axvline(burst, color=PALETTE["text"], lw=1, ls="--")
    ax.text(burst, -0.45, f" last arrival {fmt(Q_(burst, 'us'), 'us', sig=3)}", fontsize=8, va="center")
    if n > 1:
        ax.annotate("", xy=(period, 2.55), xytext=(0, 2.55),
                    arrowprops=dict(arrowstyle="<|-|>", color=PALETTE["text"], lw=1))
        ax.text(period * 1.1, 2.55, f"period max(g, o+(k-1)G) = {fmt(Q_(period, 'us'), 'us', sig=3)}", fontsize=7.5,
                ha="left", va="center")
    from matplotlib.patches import Patch

    ax.legend(handles=[Patch(color=PALETTE["host"], label="o: processor overhead"),
                       Patch(color=PALETTE["memory"], alpha=0.8, label="(k-1)G: bytes injected"),
                       Patch(color=PALETTE["network"], alpha=0.7, label="L: on the wire")],
              fontsize=7.5, loc="upper right", ncol=3)
    ax.set_yticks(list(lanes.values()), list(lanes.keys()), fontsize=8)
    ax.set_ylim(-0.7, 3.6)
    ax.set_xlim(0, burst * 1.25)
    ax.set_xlabel("time (µs)", fontsize=9)
    ax.tick_params(labelsize=8)
    ax.set_title(title or f"LogGP: {n} messages of {fmt(Q_(k), 'auto', sig=3)}; one alone takes "
                 f"{fmt(Q_(one, 'us'), 'us', sig=3)}", fontsize=10)
    fig.tight_layout()
    fig.times = {"period": period, "inject": inject, "o": t_o, "L": t_L, "burst": burst, "one": one}
    return fig


# --------------------------------------------------------------------------- §1.9 pitfall
def overhead_tokens(P, D, f_compute, *, points=200, title=""):
    """Loss (Kaplan et al. 2020, Eq. 1.5) against wall-clock time for a P-parameter model trained to D
    tokens, once with no overhead and once when only ``f_compute`` of each step computes. Time is
    in units of the overhead-free run, so the overhead run's tokens per unit time are f_compute of
    the other's. ``fig.values`` holds the final losses and where the overhead run ends."""
    f = magnitude("f_compute", f_compute, "", gt=0, le=1)
    D = magnitude("D", D if hasattr(D, "units") else Q_(D, "token"), "token", gt=0)
    fig, ax = _figure((7.0, 3.4))
    t_ideal = 1.0
    # tokens seen by time t: the overhead-free run reads D per unit time; the other f x D
    t_end = float(capacity.training_time(Q_(D, "token"), 1, Q_(f * D, "token/s")).to("s").magnitude)
    t = np.linspace(0.05, t_end, points)
    seen_ideal = np.minimum(t, t_ideal) * D
    seen_slow = np.minimum(t * f, 1.0) * D
    L_ideal = np.asarray(scaling_laws.kaplan_loss(P, seen_ideal).to("").magnitude)
    L_slow = np.asarray(scaling_laws.kaplan_loss(P, seen_slow).to("").magnitude)
    ax.plot(t, L_ideal, color=PALETTE["compute"], lw=2, label="no overhead")
    ax.plot(t, L_slow, color=PALETTE["network"], lw=2, ls="--",
            label=f"{_pct(1 - f)} of each step waiting")
    ax.axvline(t_end, color=PALETTE["network"], lw=0.8, ls=":")
    L_end = float(scaling_laws.kaplan_loss(P, D).to("").magnitude)
    L_at_1 = float(scaling_laws.kaplan_loss(P, f * D).to("").magnitude)
    ax.plot([t_ideal], [L_at_1], "o", color=PALETTE["network"], ms=6)
    ax.text(t_ideal * 1.03, L_at_1, f" at the same deadline: loss {fmt(L_at_1, None, 4)}\n"
            f" (vs {fmt(L_end, None, 4)})", fontsize=7.5, va="bottom")
    ax.text(t_end, L_end + 0.012, f"same loss, {fmt(t_end, None, sig=2)}× later ", fontsize=7.5, ha="right", va="bottom")
    ax.set_xlabel("wall-clock time (the overhead-free run = 1)", fontsize=9)
    ax.set_ylabel("loss (nats/token)", fontsize=9)
    ax.set_xlim(0, t_end * 1.05)
    ax.tick_params(labelsize=8)
    ax.grid(True, alpha=0.25)
    ax.legend(fontsize=8, loc="upper right")
    ax.set_title(title or "Overhead stretches the run; it does not scale the gain", fontsize=10)
    fig.tight_layout()
    fig.values = {"L_end": L_end, "L_at_deadline": L_at_1, "t_end": t_end}
    return fig
