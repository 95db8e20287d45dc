"""The power delivery path from the grid to the transistor (the books' Fig. 2.10).

The text names the stages and the PUE (Eq. 2.2) but prints no per-stage efficiency, so the stage
efficiencies here are **assumed illustrative values** (:data:`STAGES`), passed in and shown as
such; the chip power (TDP), the rack power and the facility fractions come from the catalog, and
the facility draw from :func:`fleetcalc.physics.facility.pue_from_compute_fraction` and
:func:`fleetcalc.physics.capacity.facility_power`.

New calculator: :func:`delivery_chain`, the power entering each stage for a given power at the
transistor, walking back up the chain.
"""
from __future__ import annotations

import math

from fleetcalc.core.catalog import hw
from fleetcalc.physics.capacity import facility_power
from fleetcalc.physics.facility import pue_from_compute_fraction
from fleetcalc.core.units import Q_, fmt
from fleetcalc.core.validate import InputError
from fleetcalc.ui.diagrams.draw import PALETTE, arrow, box, canvas, label

__all__ = ["STAGES", "delivery_chain", "power_path", "power_stages"]

#: (stage, what it does, assumed efficiency). Illustrative values for a modern facility, not
#: from the text; ``counted`` says whether the loss falls inside IT power or inside PUE's overhead.
STAGES = [
    ("transformer", "high -> low\nvoltage AC", 0.99, "facility"),
    ("UPS", "battery-\nbacked AC", 0.96, "facility"),
    ("rack PDU", "split to\nthe servers", 0.99, "facility"),
    ("PSU", "AC -> 48 V\nDC", 0.95, "IT"),
    ("VRM", "48 V -> core\nvolts", 0.90, "IT"),
]


def delivery_chain(p_chip, efficiencies):
    """Power entering each stage when ``p_chip`` must arrive at the transistors, walking back up a
    chain of stage efficiencies (first = nearest the grid). Returns a list one longer than
    ``efficiencies``: the power at each stage's input, then ``p_chip`` itself."""
    p = Q_(p_chip).to("W")
    if not (p.magnitude > 0 and math.isfinite(p.magnitude)):
        raise InputError(f"p_chip must be a positive power; got {p_chip}")
    etas = [float(e) for e in efficiencies]
    for i, e in enumerate(etas):
        if not (0 < e <= 1):
            raise InputError(f"efficiency of stage {i} must lie in (0, 1]; got {e}")
    powers = [p]
    for e in reversed(etas):
        powers.append(powers[-1] / e)
    return powers[::-1]


def power_path(chip="h100", stages=STAGES, compute_fraction="dc_facility.liquid_to_compute_low"):
    """Fig. 2.10 (ours): one accelerator's TDP traced back to the grid, stage by stage, with the
    cooling overhead from PUE = 1 / (share of facility power reaching IT)."""
    tdp = hw(f"{chip}.tdp")
    etas = [e for _, _, e, _ in stages]
    p_in = delivery_chain(tdp, etas)
    n_fac = sum(1 for *_, c in stages if c == "facility")
    p_it = p_in[n_fac]                                   # power at the first IT stage's input
    pue = pue_from_compute_fraction(hw(compute_fraction))
    p_grid = facility_power(p_it, pue)
    cooling = p_grid - p_in[0]
    if cooling.magnitude < 0:
        raise InputError(f"PUE {float(pue.magnitude):.3f} is below what the assumed facility-side stages already lose "
                         f"({float((p_in[0] / p_it).magnitude):.3f}); raise their efficiencies or the PUE")
    fig, ax = canvas(14, 6, size=(10.0, 4.4), title="Fig. 2.10 (ours): from the grid to the transistor, each stage takes its cut")
    xs = [0.2 + 2.3 * i for i in range(len(stages) + 1)]
    box(ax, 0.2, 3.6, 1.6, 1.2, "grid", kind="host", alpha=0.4, fontsize=10)
    label(ax, 1.0, 3.3, fmt(p_grid, "auto", sig=3), fontsize=9)
    label(ax, 1.0, 2.95, f"cooling etc. {fmt(cooling, 'auto', sig=3)}", fontsize=8)
    for i, (name, what, eta, counted) in enumerate(stages):
        x = 2.3 + 2.0 * i
        box(ax, x, 3.6, 1.7, 1.2, f"{name}\n{what}", kind="compute" if counted == "IT" else "storage",
            alpha=0.3, fontsize=8)
        arrow(ax, (x - 0.45, 4.2), (x - 0.02, 4.2), kind="network")
        label(ax, x + 0.85, 3.3, f"η = {eta:.2f} (assumed)", fontsize=8)
        label(ax, x + 0.85, 2.95, f"out {fmt(p_in[i + 1], 'auto', sig=3)}", fontsize=8)
    xt = 2.3 + 2.0 * len(stages)
    box(ax, xt, 3.6, 1.5, 1.2, f"transistors\n{chip.upper()} TDP", kind="fault", alpha=0.35, fontsize=8)
    arrow(ax, (xt - 0.45, 4.2), (xt - 0.02, 4.2), kind="network")
    label(ax, xt + 0.75, 3.3, fmt(tdp, "auto", sig=3), fontsize=9)
    # brackets: facility side and IT side
    x_it = 2.3 + 2.0 * n_fac
    ax.plot([2.3, x_it - 0.3], [5.1, 5.1], color=PALETTE["storage"], lw=2)
    label(ax, (2.3 + x_it - 0.3) / 2, 5.4, "facility side: counted in PUE's overhead", fontsize=8)
    ax.plot([x_it, xt - 0.3], [5.1, 5.1], color=PALETTE["compute"], lw=2)
    label(ax, (x_it + xt - 0.3) / 2, 5.4, f"IT power: {fmt(p_it, 'auto', sig=3)} enters the server", fontsize=8)
    lo, hi = hw("dc_rack.rack_power_low"), hw("dc_rack.rack_power_high")
    label(ax, x_it + 1.9, 2.35, f"the hard part: one rack PDU feeds {fmt(lo.to('kW').magnitude, None, 0)}-{fmt(hi, 'kW', 0)}\nto the VRMs of one rack",
          fontsize=8, ha="center")
    share = p_in[-1] / p_in[0]
    label(ax, 7.0, 1.5, f"conversion chain alone: {fmt(share * 100, None, 1)} % of the power entering the transformer reaches the transistors.\n"
          f"Cooling on top: at PUE {fmt(pue, None, 2)} ({fmt(hw(compute_fraction) * 100, None, 0)} % of facility power reaching IT, "
          f"line 2480), Eq. 2.2 gives a grid draw of {fmt(p_grid, 'auto', sig=3)}\nper {fmt(tdp, 'auto', sig=3)} at the chip "
          f"(PUE counts the facility-side conversion too, so this is PUE x IT power).", fontsize=8.5)
    label(ax, 7.0, 0.4, "Stage efficiencies are illustrative, not from the text; move them in power_path(stages=...).",
          fontsize=8, style="italic")
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
