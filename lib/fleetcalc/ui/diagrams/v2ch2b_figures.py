"""Vol. 2 Ch. 2 figures, second set: the four figures redrawn so that each shows one comparison
(Figs. 2.3, 2.6, 2.7 and 2.10) and the node's memory tiers against the data feed (§2.7b).

* :func:`spectrum_by_precision` (Fig. 2.3): peak per watt compared at one precision at a time
  (FP16 dense for every GPU that has it, then each device's narrow format apart), so no line joins
  an FP8 point to an FP16 one.
* :func:`tile_derivation` (Fig. 2.6): the tile sizes derived on the figure, 3 T^2 s <= capacity,
  from :func:`fleetcalc.physics.accelerator.largest_square_tile`.
* :func:`bus_widths` (Fig. 2.7): the HBM stack's bus and a DDR5 channel drawn to the same scale, one
  line per 64 data pins, and the book's "server: 200 GB/s" marked with the peak its own channel
  arithmetic gives and its likeliest source (8-channel DDR4-3200).
* :func:`power_stages` (Fig. 2.10): the delivery chain alone, with no caption text inside the figure.
* :func:`memory_tiers` (§2.7b): the tiers' bandwidths to scale with the raw token stream.

Every number comes from the catalog (``hw``) or a physics calculator; the one figure the catalog
lacks is DDR4-3200's pin rate (:data:`DDR4_3200_PIN_RATE`, JEDEC JESD79-4), used only to show where
the book's 200 GB/s most likely comes from.
"""
from __future__ import annotations

import numpy as np

from fleetcalc.core.catalog import hw
from fleetcalc.core.units import Q_, fmt
from fleetcalc.physics.accelerator import largest_square_tile, tile_intensity
from fleetcalc.physics.capacity import facility_power
from fleetcalc.physics.devices import interface_bandwidth
from fleetcalc.physics.energy import flops_per_watt
from fleetcalc.physics.facility import pue_from_compute_fraction
from fleetcalc.physics.roofline import ridge_point
from fleetcalc.physics.storage import per_share, token_read_bandwidth
from fleetcalc.ui.diagrams.draw import PALETTE, arrow, box, canvas, label
from fleetcalc.ui.diagrams.power import STAGES, delivery_chain

__all__ = ["LIKE_FOR_LIKE", "NARROW", "spectrum_by_precision", "tile_derivation", "DDR4_3200_PIN_RATE",
           "ddr_server_readings", "bus_widths", "power_stages", "tier_rows", "memory_tiers",
           "DECODE_DEVICES", "decode_terms", "decode_floor_bars", "CHAIN", "CHAIN_LABELS", "chain_hours",
           "time_chain_waterfall"]


def _figure(size):
    from matplotlib.figure import Figure

    return Figure(figsize=size, dpi=100)


# ----------------------------------------------------------------------------- Fig. 2.3
#: Devices compared like for like: FP16 dense peak over TDP, in the order they shipped.
LIKE_FOR_LIKE = [("V100", "v100"), ("A100", "a100"), ("H100", "h100"), ("B200", "b200")]
#: Each device's narrow format, drawn apart (a different marker, never joined to the FP16 line).
NARROW = [("H100", "h100.peak_fp8", "h100.tdp", "FP8"), ("B200", "b200.peak_fp8", "b200.tdp", "FP8"),
          ("TPU v1", "tpu_v1.peak_int8", "tpu_v1.power", "INT8")]
_MARK = {"FP8": "^", "INT8": "s"}


def spectrum_by_precision():
    """Fig. 2.3 (ours, redrawn): peak throughput per watt, FP16 dense for the GPUs (one line, like
    for like), and the narrow formats (FP8, INT8) as separate markers on the right, each labelled."""
    fig = _figure((8.4, 4.0))
    fig.suptitle("Fig. 2.3 (ours): efficiency compared at one precision at a time", fontsize=11, y=0.97)
    ax = fig.add_axes((0.09, 0.14, 0.52, 0.68))
    ys, xs = [], []
    for name, dev in LIKE_FOR_LIKE:
        eff = flops_per_watt(hw(f"{dev}.peak_fp16"), hw(f"{dev}.tdp"))
        xs.append(int(hw(f"{dev}.year").magnitude))
        ys.append(eff.to("TFLOP/s/W").magnitude)
        ax.annotate(f"{name}\n{fmt(eff, 'TFLOP/s/W', 2, with_unit=False)}", (xs[-1], ys[-1]), xytext=(6, -14),
                    textcoords="offset points", fontsize=8)
    ax.plot(xs, ys, "o-", color=PALETTE["compute"], ms=7, lw=1.5, label="FP16 dense (like for like)")
    ax.set_yscale("log")
    ax.set_ylim(0.2, 10)
    ax.set_xlim(min(xs) - 1, max(xs) + 2)
    ax.set_xlabel("year", fontsize=9)
    ax.set_ylabel("peak throughput per watt\n(TFLOP/s per W, log)", fontsize=9)
    from matplotlib.ticker import FuncFormatter
    ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
    ax.tick_params(labelsize=8)
    ax.legend(fontsize=8, loc="upper left")
    ax.set_title("GPUs, FP16 dense: the only fair line", fontsize=9)
    ax2 = fig.add_axes((0.68, 0.14, 0.30, 0.68), sharey=ax)
    for i, (name, peak, power, prec) in enumerate(NARROW):
        eff = flops_per_watt(hw(peak), hw(power))
        v = eff.to("TFLOP/s/W").magnitude
        ax2.plot([i], [v], _MARK[prec], color=PALETTE["fault"] if prec == "FP8" else PALETTE["memory"], ms=8)
        ax2.annotate(f"{name}\n{prec}: {fmt(eff, 'TFLOP/s/W', 2, with_unit=False)}", (i, v), xytext=(0, 10),
                     textcoords="offset points", fontsize=8, ha="center")
    ax2.set_xlim(-0.6, len(NARROW) - 0.4)
    ax2.set_xticks([])
    ax2.tick_params(labelsize=8, labelleft=False)
    ax2.set_title("narrow formats, apart\n(a different number format each)", fontsize=9)
    return fig


# ----------------------------------------------------------------------------- Fig. 2.6
def tile_derivation(device="h100", s=Q_(2, "byte"), multiple=16):
    """Fig. 2.6 (ours, redrawn): where the tile sizes come from. Three T x T blocks (of A, of B and
    the accumulating C) must fit on chip, 3 T^2 s <= capacity, so T = sqrt(capacity / 3 s) rounded
    down to the tensor-core multiple; each tile then earns T / s FLOP per HBM byte (right)."""
    ridge = ridge_point(hw(f"{device}.peak_fp16"), hw(f"{device}.hbm_bandwidth"))
    levels = [("shared memory, one SM", hw(f"{device}.smem_per_sm")), ("L2, whole chip", hw(f"{device}.l2_capacity"))]
    fig = _figure((9.4, 3.9))
    fig.suptitle("Fig. 2.6 (ours): how big a tile fits, and what it earns", fontsize=11, y=0.98)
    ax = fig.add_axes((0.0, 0.0, 0.5, 0.9))
    ax.set_xlim(0, 10)
    ax.set_ylim(0, 8)
    ax.axis("off")
    label(ax, 5, 7.4, "on chip at once: a T x T tile of A, of B and of C", fontsize=9)
    for k, name in enumerate(("A", "B", "C")):
        box(ax, 1.2 + 2.8 * k, 5.3, 1.6, 1.6, f"{name}\nT x T", kind="memory" if name != "C" else "compute",
            alpha=0.3, fontsize=9)
    label(ax, 5, 4.7, f"3 T² s ≤ capacity  ->  T = ⌊√(capacity / 3s)⌋, a multiple of {multiple}", fontsize=9)
    y = 3.7
    for name, cap in levels:
        T = largest_square_tile(cap, s, multiple)
        raw = np.sqrt((cap / (3 * s)).to("").magnitude)
        label(ax, 5, y, f"{name}: {fmt(cap, 'auto', sig=3)}\n√({fmt(cap, 'auto', sig=3)} / (3 x {fmt(Q_(s), 'byte', 0)})) "
              f"= {raw:,.1f}  ->  T = {T:,}", fontsize=9)
        y -= 1.5
    label(ax, 5, 0.5, f"s = {fmt(Q_(s), 'byte', 0)} (FP16); T / s FLOP per byte, whatever K is", fontsize=8, style="italic")
    ax2 = fig.add_axes((0.58, 0.16, 0.40, 0.70))
    T_l2 = largest_square_tile(levels[1][1], s, multiple)
    Ts = np.logspace(0, np.log10(4 * T_l2), 60)
    ax2.loglog(Ts, tile_intensity(Ts, s).magnitude, color=PALETTE["compute"], lw=2, label="I = T / s")
    r = ridge.to("FLOP/byte").magnitude
    ax2.axhline(r, color=PALETTE["network"], ls="--", lw=1.2)
    ax2.text(1.2, r * 1.2, f"{device.upper()} FP16 ridge {fmt(ridge, 'FLOP/byte', 0)}", fontsize=8)
    for (name, cap), off in zip(levels, ((8, -22), (-120, 8))):
        T = largest_square_tile(cap, s, multiple)
        v = tile_intensity(T, s)
        ax2.plot([T], [v.magnitude], "o", color=PALETTE["memory"], ms=6)
        ax2.annotate(f"T = {T:,}: {fmt(v, 'FLOP/byte', 0)}", (T, v.magnitude), xytext=off,
                     textcoords="offset points", fontsize=8)
    ax2.set_xlabel("tile edge T (elements)", fontsize=9)
    ax2.set_ylabel("FLOP per HBM byte", fontsize=9)
    ax2.tick_params(labelsize=8)
    ax2.legend(fontsize=8, loc="upper left")
    return fig


# ----------------------------------------------------------------------------- Fig. 2.7
#: DDR4-3200's data rate per pin (JEDEC JESD79-4: 3,200 MT/s, one bit per pin per transfer). Not in
#: the catalog; used only to show where the book's "server: 200 GB/s" most likely comes from.
DDR4_3200_PIN_RATE = Q_(3.2, "Gbit/s")


def ddr_server_readings():
    """The book's server DDR bandwidth against what its own channel arithmetic gives:
    ``{"book", "ddr5_low", "ddr5_high", "ddr4_3200"}``, each channels x 64 bit x pin rate."""
    w, n = hw("ddr5.channel_width"), int(hw("ddr5.channels").magnitude)
    return {"book": hw("ddr5.server_bandwidth"),
            "ddr5_low": interface_bandwidth(w, hw("ddr5.pin_rate_low"), n),
            "ddr5_high": interface_bandwidth(w, hw("ddr5.pin_rate_high"), n),
            "ddr4_3200": interface_bandwidth(w, DDR4_3200_PIN_RATE, n)}


def bus_widths(device="h100"):
    """Fig. 2.7 (ours, redrawn): one HBM stack's bus and one DDR5 channel drawn to the same scale,
    one line per 64 data pins (16 lines against 1), with the per-stack and server bandwidths; the
    book's 200 GB/s server figure is marked beside the peak its own inputs give."""
    width, ch = hw("hbm.stack_width"), hw("ddr5.channel_width")
    lanes = int((width / ch).to("").magnitude)
    per_stack = hw(f"{device}.hbm_stack_bandwidth")
    n_stacks = int(hw(f"{device}.hbm_stacks").magnitude)
    r = ddr_server_readings()
    fig, ax = canvas(12, 5.8, size=(9.4, 4.0), title="Fig. 2.7 (ours): HBM wins by width (one line = 64 data pins)")
    # HBM side
    box(ax, 0.3, 0.6, 6.2, 0.45, "silicon interposer: micrometre wires", kind="storage", alpha=0.3, fontsize=8)
    box(ax, 0.5, 1.2, 2.0, 3.6, "GPU die", kind="compute", alpha=0.35, fontsize=10)
    box(ax, 4.3, 1.2, 2.0, 3.6, "HBM stack\n(DRAM dies\non a logic die)", kind="memory", alpha=0.35, fontsize=9)
    for k, yy in enumerate(np.linspace(1.45, 4.55, lanes)):
        ax.plot([2.55, 4.25], [yy, yy], color=PALETTE["memory"], lw=1.6)
    label(ax, 3.4, 5.35, f"{fmt(width, 'bit', 0, with_unit=False)}-bit bus = {lanes} x 64 pins", fontsize=9)
    label(ax, 3.4, 5.0, f"{fmt(per_stack, 'auto', sig=3)} per stack, x {n_stacks} stacks", fontsize=8)
    label(ax, 3.4, 0.25, f"{device.upper()}: {n_stacks} x {fmt(per_stack, 'auto', sig=3)} = "
          f"{fmt(per_stack * n_stacks, 'auto', sig=3)}", fontsize=9)
    # DDR side
    box(ax, 7.3, 1.2, 1.6, 3.6, "CPU", kind="host", alpha=0.35, fontsize=10)
    box(ax, 10.4, 1.2, 1.4, 3.6, "DDR5\nDIMM", kind="memory", alpha=0.2, fontsize=9)
    yy = 1.45 + (4.55 - 1.45) / (lanes - 1) * (lanes // 2)
    ax.plot([8.95, 10.35], [yy, yy], color=PALETTE["memory"], lw=1.6)
    label(ax, 9.65, yy + 0.35, f"one {fmt(ch, 'bit', 0, with_unit=False)}-bit\nchannel", fontsize=8)
    label(ax, 9.65, 5.35, f"server: {int(hw('ddr5.channels').magnitude)} channels across the board", fontsize=9)
    label(ax, 9.65, 0.75, f"book: {fmt(r['book'], 'auto', sig=3)} (erratum)\n"
          f"its own DDR5 inputs: {fmt(r['ddr5_low'], 'GB/s', 0)}-{fmt(r['ddr5_high'], 'auto', sig=3)}\n"
          f"8-channel DDR4-3200: {fmt(r['ddr4_3200'], 'GB/s', 1)}", fontsize=8)
    return fig


# ----------------------------------------------------------------------------- Fig. 2.10
def power_stages(chip="h100", stages=STAGES, compute_fraction="dc_facility.liquid_to_compute_low"):
    """Fig. 2.10 (ours, redrawn): the grid-to-transistor chain alone, each stage with its assumed
    efficiency and the power leaving it; the facility/IT split as two brackets. The reading (what
    share arrives, the PUE) belongs in the caption, not in the figure."""
    tdp = hw(f"{chip}.tdp")
    p_in = delivery_chain(tdp, [e for _, _, e, _ in stages])
    n_fac = sum(1 for *_, c in stages if c == "facility")
    p_grid = facility_power(p_in[n_fac], pue_from_compute_fraction(hw(compute_fraction)))
    fig, ax = canvas(14, 4.2, size=(10.0, 3.0), title="Fig. 2.10 (ours): from the grid to the transistor")
    box(ax, 0.2, 1.4, 1.6, 1.2, "grid", kind="host", alpha=0.4, fontsize=10)
    label(ax, 1.0, 1.05, fmt(p_grid, "auto", sig=3), fontsize=9)
    label(ax, 1.0, 0.7, "with cooling (PUE)", fontsize=7)
    for i, (name, what, eta, counted) in enumerate(stages):
        x = 2.3 + 2.0 * i
        box(ax, x, 1.4, 1.7, 1.2, f"{name}\n{what}", kind="compute" if counted == "IT" else "storage", alpha=0.3, fontsize=8)
        arrow(ax, (x - 0.45, 2.0), (x - 0.02, 2.0), kind="network")
        label(ax, x + 0.85, 1.05, f"η {eta:.2f}*  ->  {fmt(p_in[i + 1], 'auto', sig=3)}", fontsize=8)
    xt = 2.3 + 2.0 * len(stages)
    box(ax, xt, 1.4, 1.5, 1.2, f"transistors\n{chip.upper()} TDP", kind="fault", alpha=0.35, fontsize=8)
    arrow(ax, (xt - 0.45, 2.0), (xt - 0.02, 2.0), kind="network")
    label(ax, xt + 0.75, 1.05, fmt(tdp, "auto", sig=3), fontsize=9)
    x_it = 2.3 + 2.0 * n_fac
    ax.plot([2.3, x_it - 0.3], [2.95, 2.95], color=PALETTE["storage"], lw=2)
    label(ax, (2.3 + x_it - 0.3) / 2, 3.25, "facility side (in PUE's overhead)", fontsize=8)
    ax.plot([x_it, xt - 0.3], [2.95, 2.95], color=PALETTE["compute"], lw=2)
    label(ax, (x_it + xt - 0.3) / 2, 3.25, f"IT side: {fmt(p_in[n_fac], 'auto', sig=3)} enters the server", fontsize=8)
    label(ax, 7.0, 0.35, "* assumed stage efficiency (the text prints none)", fontsize=8, style="italic")
    return fig


# ----------------------------------------------------------------------------- §2.7b memory tiers
def tier_rows(nodes=128, token_rate=Q_(500_000, "token/s"), bytes_per_token=Q_(2, "byte/token")):
    """``[(tier, bandwidth)]`` fastest first: one H100's HBM, the node's DDR5, PCIe Gen5 x16, one
    NVMe drive (GPUDirect Storage), one node's share of the shared file system (the text's
    aggregate over ``nodes``, and its per-node range under load), and the raw token stream."""
    return [("HBM, one H100", hw("h100.hbm_bandwidth")),
            ("host DDR5 (book's figure)", hw("ddr5.server_bandwidth")),
            ("PCIe Gen5 x16, one way", hw("pcie.gen5_x16")),
            ("one NVMe drive (GDS)", hw("node_storage.nvme_gds_low")),
            (f"shared FS / {nodes} nodes", per_share(hw("node_storage.lustre_aggregate"), nodes)),
            ("shared FS per node, loaded", hw("node_storage.shared_per_node_low")),
            ("raw token ids, whole cluster", token_read_bandwidth(token_rate, bytes_per_token))]


def memory_tiers(**kw):
    """§2.7b (ours): the tiers' bandwidths as horizontal bars on one log axis; the storage rungs
    and the token stream in their own colours."""
    rows = tier_rows(**kw)
    fig = _figure((8.0, 3.6))
    fig.suptitle("The node's tiers to scale: where a training batch comes from", fontsize=11, y=0.97)
    ax = fig.add_axes((0.30, 0.15, 0.66, 0.72))
    names = [n for n, _ in rows][::-1]
    vals = [b.to("GB/s").magnitude for _, b in rows][::-1]
    colours = [PALETTE["fault"] if "token" in n else (PALETTE["storage"] if ("FS" in n or "NVMe" in n) else PALETTE["memory"])
               for n in names]
    ax.barh(range(len(names)), vals, color=colours, alpha=0.75)
    ax.set_xscale("log")
    ax.set_yticks(range(len(names)))
    ax.set_yticklabels(names, fontsize=8)
    for i, (n, v) in enumerate(zip(names, vals)):
        ax.text(v * 1.15, i, fmt(Q_(v, "GB/s"), "auto", sig=3), va="center", fontsize=8)
    ax.set_xlim(min(vals) / 3, max(vals) * 20)
    ax.set_xlabel("bandwidth (GB/s, log)", fontsize=9)
    ax.tick_params(labelsize=8)
    return fig


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
        ax.text(m + 0.8, yy + 0.18, f"{m:.1f} ms", va="center", fontsize=8)
        ax.text(c + 0.8, yy - 0.18, f"{c:.2f} ms", va="center", fontsize=8)
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


# ----------------------------------------------------------------------------- §2.8b the time chain
#: The book's overhead chain for the 175B pod run (lines 2294-2310): scaling efficiency, then the
#: multipliers for pipeline bubbles, checkpoints, failures and maintenance.
CHAIN = (0.85, (0.05, 0.03, 0.10, 0.05))
CHAIN_LABELS = ("ideal", "÷ scaling 0.85", "× bubbles", "× checkpoints", "× failures", "× maintenance")


def chain_hours(P=175e9, D=300e9, gpus=10_000, peak="h100.peak_fp16", mfu=0.45, chain=CHAIN):
    """The calendar chain in hours: ideal time C / (N R_peak MFU) with C = 6 P D, then each factor
    (:func:`fleetcalc.physics.facility.ideal_training_time`, :func:`~fleetcalc.physics.facility.overhead_chain`)."""
    from fleetcalc.physics.facility import ideal_training_time, overhead_chain
    from fleetcalc.physics.scaling_laws import training_flops

    t0 = ideal_training_time(training_flops(P, D), gpus, hw(peak), mfu)
    return overhead_chain(t0, chain[0], list(chain[1]))


def time_chain_waterfall(P=175e9, D=300e9, gpus=10_000, peak="h100.peak_fp16", mfu=0.45, chain=CHAIN):
    """§2.8b (ours): the calendar chain as a waterfall, each step's added hours stacked on the
    previous total, so the biggest multiplier is the tallest step."""
    hours = [h.to("hour").magnitude for h in chain_hours(P, D, gpus, peak, mfu, chain)]
    fig = _figure((8.0, 3.4))
    fig.suptitle(f"From FLOPs to a calendar: {gpus:,} GPUs at {fmt(hw(peak), 'TFLOP/s', 0)}, MFU {mfu:.0%}",
                 fontsize=11, y=0.97)
    ax = fig.add_axes((0.09, 0.22, 0.88, 0.64))
    prev = 0.0
    for i, (h, name) in enumerate(zip(hours, CHAIN_LABELS)):
        base, height = (0.0, h) if i == 0 else (prev, h - prev)
        ax.bar([i], [height], bottom=[base], color=PALETTE["compute"] if i == 0 else PALETTE["fault"], alpha=0.8, width=0.6)
        ax.text(i, h + max(hours) * 0.02, f"{h:.1f} h" if i in (0, len(hours) - 1) else f"+{h - prev:.1f} h",
                ha="center", fontsize=8)
        prev = h
    ax.set_xticks(range(len(hours)))
    ax.set_xticklabels(CHAIN_LABELS, fontsize=8, rotation=15)
    ax.set_ylabel("hours", fontsize=9)
    ax.set_ylim(0, max(hours) * 1.15)
    ax.tick_params(labelsize=8)
    return fig
