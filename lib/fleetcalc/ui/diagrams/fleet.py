"""The organising pictures of Vol. 2 Ch. 1: the fleet stack (Fig. 1.13) and the AI triad (Fig. 1.14).

The stack is words only (the four layers and what each holds, Fig. 1.13's caption, line 1045); the
triad carries numbers, and those come from the calculators: the compute-optimal split of a budget
(``scaling_laws.compute_optimal``), the weight bytes of that model at a chosen precision and the
days the budget takes on a fleet of catalog accelerators (``hw(...)``).
"""
from __future__ import annotations

import numpy as np

from fleetcalc.physics import inference, memory, scaling_laws
from fleetcalc.core.catalog import hw
from fleetcalc.core.units import Q_, fmt
from fleetcalc.core.validate import count, magnitude
from fleetcalc.ui.diagrams.draw import PALETTE, arrow, box, canvas, label

__all__ = ["STACK", "fleet_stack", "ai_triad", "triad_numbers", "CAP_CHOICES", "cap_choices", "cap_progress"]

#: Fig. 1.13 (line 1045): the four layers, bottom to top, with what each holds, and the parts of
#: the book that build them (line 1047).
STACK = (
    ("Infrastructure", "compute · network · data", "physical substrate", "storage"),
    ("Distribution", "parallelism · communication · fault tolerance", "distribution logic", "network"),
    ("Serving", "inference · performance · edge · operations", "deployment at scale", "compute"),
    ("Governance", "security · robustness · sustainability · responsible engineering",
     "the responsible fleet", "fault"),
)


def fleet_stack(highlight: str | None = None):
    """Fig. 1.13: the fleet stack, four layers with constraints flowing upward. ``highlight`` (a
    layer name) draws that layer darker, to say where a notebook sits."""
    names = [s[0] for s in STACK]
    if highlight is not None and highlight not in names:
        raise ValueError(f"highlight={highlight!r} is not a layer; choose one of {names}")
    fig, ax = canvas(12, 6.2, size=(7.4, 4.0), title="Fig. 1.13: the fleet stack")
    for i, (name, holds, part, kind) in enumerate(STACK):
        y = 0.3 + i * 1.45
        box(ax, 0.3, y, 8.6, 1.15, "", kind=kind, alpha=0.5 if name == highlight else 0.2)
        label(ax, 0.6, y + 0.78, name, fontsize=11, ha="left", weight="bold")
        label(ax, 0.6, y + 0.35, holds, fontsize=9, ha="left")
        label(ax, 10.75, y + 0.58, f"Part {i + 1}:\n{part}", fontsize=8)
    arrow(ax, (9.15, 0.4), (9.15, 5.8), "", kind="text", width=1.2)
    label(ax, 9.45, 3.1, "decisions below constrain what is possible above", fontsize=8, rotation=90)
    return fig


def _sci(x: float) -> str:
    """10^k or m×10^k with Unicode superscripts (10²⁵ reads better on a slide than 1e+25)."""
    sup = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")
    k = int(np.floor(np.log10(x)))
    m = x / 10 ** k
    head = "" if np.isclose(m, 1) else f"{fmt(m, sig=2)}×"
    return f"{head}10{str(k).translate(sup)}"


def triad_numbers(C, *, accelerator="h100", n_devices=10_000, mfu=0.4, precision_bytes=2):
    """The numbers on the triad for a budget ``C`` (FLOP): the compute-optimal parameters and
    tokens (20 tokens per parameter), the weight bytes at ``precision_bytes`` per parameter, and
    the wall-clock days on ``n_devices`` catalog accelerators at model-FLOP utilisation ``mfu``."""
    opt = scaling_laws.compute_optimal(C)
    n = count("n_devices", n_devices)
    u = magnitude("mfu", mfu, "", gt=0, le=1)
    b = magnitude("precision_bytes", precision_bytes, "", gt=0)
    peak = hw(f"{accelerator}.peak_fp16")
    # wall clock: C over n devices each sustaining mfu x peak
    days = inference.compute_time(Q_(magnitude("C", C, "FLOP", gt=0), "FLOP"), u * peak, n).to("day")
    return {"P": opt["P"], "D": opt["D"], "weights": memory.weights_memory(opt["P"], Q_(b, "byte")).to("byte"),
            "days": days, "peak": peak, "n_devices": n, "mfu": u}


def ai_triad(C=Q_(1e25, "FLOP"), **kw):
    """Fig. 1.14: data, algorithm and infrastructure as a triangle; each vertex carries what a
    budget of ``C`` FLOP (the text's GPT-4-class scenario, 10^25 FLOPs, line 1051) asks of it.
    ``fig.numbers`` holds :func:`triad_numbers`."""
    t = triad_numbers(C, **kw)
    fig, ax = canvas(12, 7.4, size=(7.4, 4.5), title="Fig. 1.14: the AI triad at fleet scale")
    for a, b in (((4.6, 5.2), (2.6, 2.1)), ((7.4, 5.2), (9.4, 2.1)), ((4.7, 1.1), (7.3, 1.1))):
        arrow(ax, a, b, "", kind="idle", width=1.4, both=True)
    box(ax, 3.6, 5.3, 4.8, 1.6,
        f"Algorithm\n{_sci(magnitude('C', C, 'FLOP', gt=0))} FLOP of training\n"
        f"compute-optimal: {_sci(t['P'].magnitude)} parameters", kind="compute", alpha=0.3, fontsize=9)
    box(ax, 0.1, 0.2, 4.4, 1.8,
        f"Data\n{_sci(t['D'].magnitude)} tokens to train on\n(20 per parameter)", kind="storage",
        alpha=0.3, fontsize=9)
    box(ax, 7.5, 0.2, 4.4, 1.8,
        f"Infrastructure\n{t['n_devices']:,.0f} × {fmt(t['peak'], 'auto', sig=3)} at {t['mfu'] * 100:.0f} %\n"
        f"→ {t['days'].to('day').magnitude:,.0f} days of training", kind="network", alpha=0.3, fontsize=9)
    label(ax, 6.0, 3.0, "change one vertex and\nthe other two must move", fontsize=9, style="italic")
    label(ax, 6.0, 0.5, f"weights alone: {fmt(t['weights'].to('GB'), 'GB', sig=3)}", fontsize=8)
    fig.numbers = t
    return fig


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
