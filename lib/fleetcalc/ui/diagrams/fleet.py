"""Vol. 2 Ch. 1's fleet pictures: the stack's layers as data (Fig. 1.13, ``STACK``; drawn by
:mod:`fleetcalc.ui.diagrams.v2ch1b_figures`), the CAP triangle with each training style placed on it
and the plot of r^n, the chance that n replicas all answer.
"""
from __future__ import annotations

import numpy as np

from fleetcalc.ui.diagrams.draw import PALETTE, arrow, box, canvas, label

__all__ = ["STACK", "CAP_CHOICES", "cap_choices", "cap_progress"]

#: Fig. 1.13 (line 1045): the four layers, bottom to top, with what each holds, and the parts of
#: the book that build them (line 1047).
STACK = (
    ("Infrastructure", "compute · network · data", "physical substrate", "storage"),
    ("Distribution", "parallelism · communication · fault tolerance", "distribution logic", "network"),
    ("Serving", "inference · performance · edge · operations", "deployment at scale", "compute"),
    ("Governance", "security · robustness · sustainability · responsible engineering",
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
