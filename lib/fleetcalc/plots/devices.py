"""Device plots for Vol. 2 Ch. 2 (accelerators): a roofline with several workloads on a catalog device,
peak vs bandwidth growth across generations (Figure 2.8), precision vs throughput (Table 2.6)."""
from __future__ import annotations

import numpy as np

_I = np.logspace(-1, 4.3, 240)
_COLORS = ["#c0392b", "#27ae60", "#8e44ad", "#d35400", "#2c3e50"]


def roofline_workloads(ax, inputs, results):
    """Log-log roofline of one device with several workload points.

    ``results``: ``R_peak`` and ``beta_mem`` (Quantities), ``points``: list of
    ``(label, I in FLOP/byte, R in TFLOP/s)``.
    """
    ax.clear()
    r_peak = results["R_peak"].to("TFLOP/s").magnitude
    beta = results["beta_mem"].to("TB/s").magnitude
    ax.loglog(_I, np.minimum(r_peak, _I * beta), color="#1f4e79", lw=2, label="roof min(R_peak, I·BW)")
    ax.axvline(r_peak / beta, color="#999", ls="--", lw=1, label=f"ridge {r_peak / beta:.0f} FLOP/byte")
    for k, (label, i_op, r_op) in enumerate(results["points"]):
        ax.plot([i_op], [r_op], "o", color=_COLORS[k % len(_COLORS)], ms=8, label=label, zorder=5)
    ax.set_xlabel("arithmetic intensity I (FLOP/byte)")
    ax.set_ylabel("attainable (TFLOP/s)")
    ax.set_xlim(_I[0], _I[-1])
    ax.set_ylim(0.05, r_peak * 4)
    ax.grid(True, which="both", alpha=0.25)
    ax.legend(loc="lower right", fontsize=7)
    return None


def generation_gap(ax, inputs, results):
    """Figure 2.8 in numbers: peak and memory bandwidth relative to the first generation (log).

    ``results``: ``names`` (list), ``peak_rel`` and ``bw_rel`` (arrays of factors)."""
    ax.clear()
    x = np.arange(len(results["names"]))
    ax.semilogy(x, results["peak_rel"], "o-", color="#1f4e79", label="peak tensor FLOP/s (advertised precision)")
    ax.semilogy(x, results["bw_rel"], "s-", color="#27ae60", label="HBM bandwidth")
    ax.fill_between(x, results["bw_rel"], results["peak_rel"], color="#c0392b", alpha=0.12, label="the memory wall")
    ax.set_xticks(x, results["names"])
    ax.set_ylabel("factor over the first generation")
    ax.grid(True, which="both", alpha=0.25)
    ax.legend(loc="upper left", fontsize=7)
    return None


def precision_bars(ax, inputs, results):
    """Table 2.6 as bars: dense peak per format (log), the chosen format highlighted.

    ``results``: ``formats`` (labels), ``peaks`` (TFLOP/s array), ``selected`` (label)."""
    ax.clear()
    labels = results["formats"]
    peaks = np.asarray(results["peaks"], dtype=float)
    colors = ["#c0392b" if f == results["selected"] else "#1f4e79" for f in labels]
    ax.bar(np.arange(len(labels)), peaks, color=colors)
    ax.set_yscale("log")
    ax.set_xticks(np.arange(len(labels)), labels, rotation=30, fontsize=8)
    ax.set_ylabel("H100 dense peak (TFLOP/s)")
    ax.grid(True, axis="y", which="both", alpha=0.25)
    return None
