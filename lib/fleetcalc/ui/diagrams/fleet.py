"""Vol. 2 Ch. 1's fleet pictures: the stack's layers as data (Fig. 1.13, ``STACK``; drawn by
:mod:`fleetcalc.ui.diagrams (by topic)`), the CAP triangle with each training style placed on it
and the plot of r^n, the chance that n replicas all answer.
"""
from __future__ import annotations

import numpy as np

from fleetcalc.ui.diagrams.draw import PALETTE, arrow, box, canvas, label
from fleetcalc.core.catalog import hw
from fleetcalc.core.units import Q_, fmt
from fleetcalc.core.validate import count, magnitude
from fleetcalc.physics import (capacity, collectives, facility, inference, memory, parallel_scaling,
                               scaling_laws)
from fleetcalc.ui.plots import decade_label as _sci   # one formatter for 10^k labels
from fleetcalc.ui.diagrams.draw import figure_axes as _figure, percent as _pct

__all__ = ["STACK", "CAP_CHOICES", "cap_choices", "cap_progress", "stack_numbers", "fleet_stack_explained", "triad_numbers", "ai_triad_explained", "fleet_step_bars"]

#: Fig. 1.13 (line 1045): the four layers, bottom to top, with what each holds, and the parts of
#: the book that build them (line 1047).
STACK = (
    ("Infrastructure", "compute · network · data", "physical substrate", "storage"),
    ("Distribution", "parallelism · communication · fault tolerance", "distribution logic", "network"),
    ("Serving", "inference · performance · edge · operations", "deployment at scale", "compute"),
    ("Governance", "security · robustness · sustainability",
     "the responsible fleet", "fault"),
)


#: Where each training style sits on the CAP triangle (Ch. 1 lines 942-946): (name, kept, given up).
CAP_CHOICES = (
    ("synchronous training", ("C", "P"), "A: the step halts while any worker is unreachable"),
    ("asynchronous training", ("A", "P"), "C: workers may compute on a stale model"),
    ("federated learning", ("A", "P"), "C, for now: devices diverge, then converge eventually"),
)


def cap_choices():
    """The CAP triangle (consistency, availability, partition tolerance) with the three training
    styles of Ch. 1 (lines 942-946) placed on the edge of the two properties each keeps."""
    fig, ax = canvas(12, 6.6, size=(7.4, 4.1), title="CAP: a partition forces a choice")
    corners = {"C": (6.0, 5.6), "A": (1.6, 0.9), "P": (10.4, 0.9)}
    names = {"C": "Consistency\n(every worker sees one model)", "A": "Availability\n(training keeps going)",
             "P": "Partition tolerance\n(the network can split)"}
    for a, b in (((5.0, 5.1), (2.2, 1.4)), ((7.0, 5.1), (9.8, 1.4)), ((3.2, 0.9), (8.8, 0.9))):
        arrow(ax, a, b, "", kind="idle", width=1.2, both=True)
    for k, (x, y) in corners.items():
        box(ax, x - 1.5, y - 0.45, 3.0, 0.9, names[k], kind={"C": "compute", "A": "memory", "P": "network"}[k],
            alpha=0.3, fontsize=8)
    (sync, _, sync_loses), (asyn, _, asyn_loses), (fed, _, _) = CAP_CHOICES
    label(ax, 9.6, 3.5, f"{sync}\ngives up {sync_loses.split(':')[0]}", fontsize=9, weight="bold")
    label(ax, 6.0, 1.65, f"{asyn}, {fed}:\ngive up {asyn_loses.split(':')[0]} (for a while)", fontsize=9,
          weight="bold")
    label(ax, 6.0, 3.3, "at fleet scale partitions\nand failures happen:\nP is not optional",
          fontsize=8, style="italic")
    return fig


def cap_progress(ax, inputs, results):
    """Panel plot: the share of time a synchronous job makes progress (R^N) against N, beside the
    share of workers an asynchronous job keeps using (R). results: N, N_curve, sync_curve,
    async_share, sync."""
    from fleetcalc.ui.plots import plain_log_ticks

    n = np.asarray(results["N_curve"], dtype=float)
    (ls,) = ax.semilogx(n, np.asarray(results["sync_curve"]), color=PALETTE["compute"], lw=2,
                        label="synchronous: P(step proceeds) = R^N")
    (la,) = ax.semilogx(n, np.full_like(n, float(results["async_share"])), color=PALETTE["memory"], lw=2,
                        ls="--", label="asynchronous: share of workers contributing = R")
    (pt,) = ax.plot([results["N"]], [float(results["sync"])], "o", color=PALETTE["network"], ms=8, zorder=5)
    plain_log_ticks(ax, "x")
    ax.set_xlabel("workers N")
    ax.set_ylabel("share of progress")
    ax.set_ylim(-0.02, 1.05)
    ax.grid(True, which="both", alpha=0.25)
    ax.legend(fontsize=8, loc="lower left")

    def update(inputs, res):
        nn = np.asarray(res["N_curve"], dtype=float)
        ls.set_data(nn, np.asarray(res["sync_curve"]))
        la.set_data(nn, np.full_like(nn, float(res["async_share"])))
        pt.set_data([res["N"]], [float(res["sync"])])

    update(inputs, results)
    return update


def _whole(name, x):
    """A count given bare or as a Quantity in ``device`` (the running job's ``N``)."""
    if hasattr(x, "units") and str(x.units) == "device":
        x = x.magnitude
    return int(count(name, x))


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
        ("Governance", "security · robustness · sustainability", "fault",
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
