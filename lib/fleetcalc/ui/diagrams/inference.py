"""Inference: a decode step's bytes and FLOPs, and the floor the weights set on its time."""
from __future__ import annotations

import numpy as np
from fleetcalc.core.catalog import hw
from fleetcalc.core.units import Q_, fmt
from fleetcalc.ui.diagrams.draw import PALETTE
from fleetcalc.ui.diagrams.draw import figure as _figure

__all__ = ["DECODE_DEVICES", "decode_terms", "decode_floor_bars"]


# ----------------------------------------------------------------------------- §2.2a decode floor
#: Devices of the decode-floor picture, in the order they shipped.
DECODE_DEVICES = ("a100", "h100", "b200")   # not the H200: Exercise 2a.3 asks for its floor


def decode_terms(P=70.6e9, s=Q_(2, "byte"), devices=DECODE_DEVICES):
    """``[(device, memory term, compute term)]`` of one batch-1 decode step: the weight stream
    P s / beta_mem (:func:`fleetcalc.physics.inference.token_latency_floor`) and 2 P FLOP at the FP16
    dense peak (:func:`fleetcalc.physics.inference.compute_time`)."""
    from fleetcalc.physics.inference import compute_time, decode_flops, token_latency_floor
    from fleetcalc.physics.memory import weights_memory

    W = weights_memory(P, s)
    return [(d, token_latency_floor(W, hw(f"{d}.hbm_bandwidth")), compute_time(decode_flops(P), hw(f"{d}.peak_fp16")))
            for d in devices]


def decode_floor_bars(P=70.6e9, s=Q_(2, "byte"), slow=Q_(50, "ms"), devices=DECODE_DEVICES):
    """§2.2a (ours): one batch-1 decode step per device, the memory term and the compute term side by
    side on one linear axis in ms, against the text's ~50 ms at which users call decode slow."""
    rows = decode_terms(P, s, devices)
    fig = _figure((8.0, 3.4))
    fig.suptitle(f"One decode step at batch 1, {P / 1e9:g}B in FP16: the wait is the weight stream", fontsize=11, y=0.97)
    ax = fig.add_axes((0.12, 0.16, 0.84, 0.70))
    y = np.arange(len(rows))
    mem = [m.to("ms").magnitude for _, m, _ in rows]
    comp = [c.to("ms").magnitude for *_, c in rows]
    ax.barh(y + 0.18, mem, height=0.34, color=PALETTE["memory"], alpha=0.8, label="memory term  P s / β_mem")
    ax.barh(y - 0.18, comp, height=0.34, color=PALETTE["compute"], alpha=0.9, label="compute term  2P / R_peak")
    for yy, m, c in zip(y, mem, comp):
        ax.text(m + 0.8, yy + 0.18, fmt(Q_(m, "ms"), "ms", sig=4), va="center", fontsize=8)
        ax.text(c + 0.8, yy - 0.18, fmt(Q_(c, "ms"), "ms", sig=3), va="center", fontsize=8)
    ax.axvline(slow.to("ms").magnitude, color=PALETTE["network"], ls="--", lw=1.2)
    ax.text(slow.to("ms").magnitude + 0.8, len(rows) - 0.45, f"~{fmt(slow, 'ms', 0)}: users call it slow", fontsize=8,
            color=PALETTE["network"])
    ax.set_yticks(y)
    ax.set_yticklabels([d.upper() for d, *_ in rows], fontsize=9)
    ax.set_xlabel("time per token (ms)", fontsize=9)
    ax.set_xlim(0, max(mem) * 1.25)
    ax.tick_params(labelsize=8)
    ax.legend(fontsize=8, loc="center right")
    return fig
