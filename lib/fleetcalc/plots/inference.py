"""Decode plots for Vol. 2 Ch. 2 (accelerators): step time vs batch (compute and memory terms) and the
bandwidth floor on token latency vs model size for several devices."""
from __future__ import annotations

import numpy as np


def decode_vs_batch(axes, inputs, results):
    """Two axes. Left: per-step time vs batch B (memory term, compute term, the max) with the
    current B marked. Right: bandwidth floor vs model size (parameters) per device, 50 ms line.

    ``results``: ``B_grid``, ``t_mem_grid``, ``t_comp_grid`` (ms arrays), ``B``, ``t_step`` (ms),
    ``N_grid`` (parameters), ``floors`` {label: ms array}, ``N`` (parameters)."""
    left, right = axes
    left.clear(); right.clear()
    B = results["B_grid"]
    tm, tc = results["t_mem_grid"], results["t_comp_grid"]
    left.loglog(B, tm, color="#27ae60", label="memory term Q/BW")
    left.loglog(B, tc, color="#1f4e79", label="compute term F/R_peak")
    left.loglog(B, np.maximum(tm, tc), color="#c0392b", lw=2.2, alpha=0.6, label="step time (max)")
    left.plot([results["B"]], [results["t_step_ms"]], "o", color="#c0392b", ms=8)
    left.set_xlabel("batch B (sequences)"); left.set_ylabel("time per decode step (ms)")
    left.grid(True, which="both", alpha=0.25); left.legend(fontsize=7, loc="upper left")
    for label, floor in results["floors"].items():
        right.loglog(results["N_grid"], floor, label=label)
    right.axhline(50, color="#999", ls="--", lw=1, label="50 ms: 'slow' (line 1516)")
    right.axvline(results["N"], color="#c0392b", lw=1)
    right.set_xlabel("parameters N"); right.set_ylabel("batch-1 floor (ms/token)")
    right.grid(True, which="both", alpha=0.25); right.legend(fontsize=6, loc="upper left")
    return None
