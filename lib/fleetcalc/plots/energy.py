"""Energy plots for Vol. 2 Ch. 2 (accelerators): moving vs computing per decode step, and the TDP trend."""
from __future__ import annotations

import numpy as np


def movement_vs_compute(ax, inputs, results):
    """Bars (log): energy to move the step's bytes from HBM, from off-package DRAM, and to do
    its MACs. ``results``: ``E_hbm``, ``E_dram``, ``E_compute`` (Quantities in J)."""
    ax.clear()
    names = ["move from HBM", "move from DRAM", "arithmetic (MACs)"]
    vals = [results[k].to("J").magnitude for k in ("E_hbm", "E_dram", "E_compute")]
    ax.bar(names, vals, color=["#27ae60", "#d35400", "#1f4e79"])
    ax.set_yscale("log")
    ax.set_ylabel("energy per decode step (J)")
    for k, v in enumerate(vals):
        ax.annotate(f"{v:.3g} J", (k, v), ha="center", va="bottom", fontsize=8)
    ax.grid(True, axis="y", which="both", alpha=0.25)
    return None


def tdp_trend(ax, inputs, results):
    """TDP by year (Table 2.2) with a constant-growth projection. ``results``: ``years``,
    ``tdps`` (W), ``proj_years``, ``proj_tdps`` (W)."""
    ax.clear()
    ax.plot(results["years"], results["tdps"], "o-", color="#1f4e79", label="Table 2.2 TDP")
    ax.plot(results["proj_years"], results["proj_tdps"], "--", color="#c0392b", label="projection at the growth rate")
    ax.set_xlabel("year"); ax.set_ylabel("TDP per accelerator (W)")
    ax.grid(True, alpha=0.25); ax.legend(fontsize=8)
    return None
