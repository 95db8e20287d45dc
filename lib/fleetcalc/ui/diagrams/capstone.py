"""The capstone's pictures and its design ledger (chapters/capstone). The design chain itself,
:func:`~fleetcalc.physics.design.design`, is physics (``fleetcalc.physics.design``); this module
draws its result and writes its ledger from the calculators' own declarations.

Pictures: :func:`chain_diagram` (the seven stages with the figure each hands on),
:func:`layout_map` (which tensor x pipeline layouts fit in HBM), :func:`summary_panel` (the plot of
the summary panel: every downstream figure against our job's) and :func:`record_diagram` (our
figures beside the public record of comparable runs).
"""
from __future__ import annotations

import re
from pathlib import Path

import numpy as np
from matplotlib.figure import Figure
from matplotlib.patches import FancyArrowPatch, FancyBboxPatch

from fleetcalc.core.equation import NoEquation, equations_of
from fleetcalc.core.units import fmt
from fleetcalc.ui.diagrams.draw import whole_count as _count
from fleetcalc.physics.design import (DEVICES, STAGES, SUMMARY, Design, Step, design, device_figures,  # noqa: F401 (drawn here)
                                      layouts, summary_figures)

__all__ = ["DEVICES", "STAGES", "Step", "Design", "design", "device_figures", "layouts", "teaching_sections",
           "ledger", "chain_diagram", "layout_map", "summary_panel", "summary_figures", "record_diagram",
           "step_panel", "cost_panel", "deadline_panel", "SUMMARY"]


BLUE, ORANGE, RED, GREEN, GREY = "#1f4e79", "#f28e2b", "#c0392b", "#59a14f", "#888888"


# ----------------------------------------------------------------------------- which section teaches what

#: chapter folders in the book's reading order (book.yml)
READING_ORDER = ("v2_notation", "v2_ch1", "v2_ch2", "v2_ch3", "ch28")
_CALL = re.compile(r"\b([a-z_]+)\.([a-z_0-9]+)(\.work)?\(")


def _sources(chapters: Path):
    for ch in READING_ORDER:
        for md in sorted((chapters / ch).glob("*.md"), key=lambda p: p.name):
            if not md.name.startswith(("00_", "99_")):
                yield ch, md, md.read_text(encoding="utf-8")


def teaching_sections(chapters: Path | str) -> dict:
    """``"module.name" -> (relative page, title)``: the section that teaches each calculator, read
    from the chapters' MyST sources in reading order: the first that shows its worked step
    (``module.name.work(``), else the first that calls it. Empty where the sources are absent."""
    chapters = Path(chapters)
    worked, called = {}, {}
    for ch, md, text in _sources(chapters):
        title = next((l[2:].strip() for l in text.splitlines() if l.startswith("# ")), md.stem)
        for m in _CALL.finditer(text):
            name = f"{m.group(1)}.{m.group(2)}"
            (worked if m.group(3) else called).setdefault(name, (f"{ch}/{md.stem}", title))
    return {**called, **worked}


# ----------------------------------------------------------------------------- the design ledger

def _name(calc) -> str:
    return f"{calc.__module__.rsplit('.', 1)[-1]}.{calc.__name__}"


def _equation(step: Step):
    eqs = equations_of(step.calc)
    if not eqs:
        return None
    if step.pick is not None:
        eqs = [e for e in eqs if e.key == step.pick] or eqs
    return eqs[0]


def _value_text(v) -> str:
    if isinstance(v, str):
        return v
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_value_text(x) for x in v) + "]"
    if hasattr(v, "magnitude") and np.ndim(v.magnitude) > 0:
        v = v[-1]
    if hasattr(v, "units"):
        for unit, ok in (("FLOP", lambda q: True), ("MWh", lambda q: q.to("MWh").magnitude >= 1),
                         ("day", lambda q: q.to("hour").magnitude >= 48)):
            if v.is_compatible_with(unit) and ok(v):
                return fmt(v, unit, sig=3)
        return fmt(v, "auto", sig=3)
    if isinstance(v, (bool, np.bool_)):
        return str(bool(v))
    if isinstance(v, (int, np.integer)) or float(v).is_integer():
        return f"{int(v):,}"
    return f"{float(v):.3g}"


def _inputs(step: Step) -> str:
    bound = step.calc.__signature__.bind(*step.args, **step.kwargs)
    return ", ".join(f"{n} = {_value_text(v)}" for n, v in bound.arguments.items())


def ledger(d: Design, sections: dict | None = None, link_prefix: str = "../") -> "_Markdown":
    """The design ledger: every figure of ``d``, its value, its equation (from the calculator's
    declaration), its inputs, the book's source and the workbook section that teaches it
    (``sections`` from :func:`teaching_sections`). Markdown that renders in a notebook."""
    sections = sections or {}
    rows = ["| stage | figure | value | equation | inputs | book | taught in |", "|---|---|---|---|---|---|---|"]
    for s in d.steps.values():
        e = _equation(s)
        if e is None:
            why = s.calc.equation.reason if isinstance(s.calc.equation, NoEquation) else "no closed form"
            eq_text, ref = f"({why})", "-"
        else:
            eq_text, ref = f"${e.latex()}$".replace("|", r"\vert "), e.ref
        name = _name(s.calc)
        page = sections.get(name)
        taught = f"[{page[1]}]({link_prefix}{page[0]}.ipynb)" if page else "this notebook"
        rows.append(f"| {s.stage} | {s.label} | {_value_text(s.value)} | {eq_text} | {_inputs(s)} | {ref} | "
                    f"{taught} (`{name}`) |")
    return _Markdown("\n".join(rows))


class _Markdown(str):
    def _repr_markdown_(self):
        return str(self)


# ----------------------------------------------------------------------------- pictures

def _box(ax, x, y, w, h, text, color, size=8.5):
    ax.add_patch(FancyBboxPatch((x, y), w, h, boxstyle="round,pad=0.02,rounding_size=0.06", fc=color, ec="none",
                                alpha=0.9))
    ax.text(x + w / 2, y + h / 2, text, ha="center", va="center", fontsize=size, color="white", wrap=True)


def chain_diagram(d: Design | None = None) -> Figure:
    """The seven stages as a chain of boxes, each with the figure it hands to the next (read from
    the design ``d``, our job's by default)."""
    d = design() if d is None else d
    hand_on = [
        ("1 Compute\n$C = 6PD$", f"C = {fmt(d['C'], 'FLOP', sig=3)}"),
        ("2 Devices\nfor the deadline", f"N = {_count(d['N']):,} GPUs"),
        ("3 Memory\nand layout", f"{fmt(d['hbm'], 'GB', 1)} per GPU\nt={d.inputs['t']}, pp={d.inputs['pp']}, dp={d.inputs['dp']}"),
        ("4 Communication\nand fabric", f"all-reduce {fmt(d['t_allreduce'], 'ms', 0)}\nof a {fmt(d['t_compute'], 's', 2)} step"),
        ("5 Data and\nstorage", f"checkpoint {fmt((d['S_weights'] + d['S_opt']), 'GB', 0)}\nsaved in {fmt(d['C_save'], 's', 1)}"),
        ("6 Checkpoints\nand failures", f"save every {fmt(d['tau'], 'min', 1)}\n{fmt(d['failures'], None, 0)} failures"),
        ("7 Power\nand cost", f"{fmt(d['P_facility'], 'MW', 2)} facility\n{fmt(d['cost_devices'], 'Mcu', 2)} GPU-hours"),
    ]
    fig = Figure(figsize=(10.5, 2.5))
    ax = fig.add_axes([0, 0, 1, 1])
    ax.set_xlim(0, 7)
    ax.set_ylim(0.35, 2.2)
    ax.axis("off")
    colors = [BLUE, BLUE, "#4e79a7", "#4e79a7", GREEN, ORANGE, RED]
    for i, ((title, figure), c) in enumerate(zip(hand_on, colors)):
        _box(ax, i + 0.06, 1.15, 0.82, 0.8, title, c)
        ax.text(i + 0.47, 1.05, figure, ha="center", va="top", fontsize=7.8, color="#222")
        if i < 6:
            ax.add_patch(FancyArrowPatch((i + 0.9, 1.55), (i + 1.04, 1.55), arrowstyle="-|>", mutation_scale=12,
                                         color="#444"))
    ax.text(3.5, 2.12, f"Model P = {fmt(d.inputs['P'], 'param', sig=3)}, D = {fmt(d.inputs['D'], 'token', sig=3)}, "
                       f"deadline {fmt(d.inputs['deadline'], 'day', 0)}, device {d.inputs['device'].upper()}",
            ha="center", va="top", fontsize=9)
    ax.text(3.5, 0.4, "each box's figure is an input of the boxes to its right", ha="center", va="bottom",
            fontsize=7.5, color=GREY, style="italic")
    return fig


def layout_map(grid: dict | None = None, chosen=(None, None)) -> Figure:
    """HBM per GPU for each tensor x pipeline layout (from :func:`layouts`), green where it fits
    under the device's capacity, red where not, grey where t x pp does not divide N; the chosen
    layout outlined."""
    g = layouts() if grid is None else grid
    fig = Figure(figsize=(6.2, 3.3))
    ax = fig.add_axes([0.12, 0.16, 0.62, 0.72])
    hbm, cap = g["hbm"], g["capacity"]
    for i, t in enumerate(g["t"]):
        for j, pp in enumerate(g["pp"]):
            v = hbm[i, j]
            c = "#dddddd" if np.isnan(v) else (GREEN if v <= cap else RED)
            ax.add_patch(FancyBboxPatch((j + 0.05, i + 0.05), 0.9, 0.9, boxstyle="square,pad=0", fc=c, ec="white"))
            ax.text(j + 0.5, i + 0.5, "-" if np.isnan(v) else f"{v:.0f} GB", ha="center", va="center", fontsize=8,
                    color="white" if not np.isnan(v) else GREY)
    ct, cp = chosen
    if ct in g["t"] and cp in g["pp"]:
        i, j = list(g["t"]).index(ct), list(g["pp"]).index(cp)
        ax.add_patch(FancyBboxPatch((j + 0.02, i + 0.02), 0.96, 0.96, boxstyle="square,pad=0", fc="none", ec="black",
                                    lw=2.2))
    ax.set_xlim(0, len(g["pp"]))
    ax.set_ylim(0, len(g["t"]))
    ax.set_xticks(np.arange(len(g["pp"])) + 0.5, [str(p) for p in g["pp"]])
    ax.set_yticks(np.arange(len(g["t"])) + 0.5, [str(t) for t in g["t"]])
    ax.set_xlabel("pipeline stages pp")
    ax.set_ylabel("tensor-parallel degree t")
    ax.set_title(f"HBM per GPU against {cap:.0f} GB (ZeRO-1, selective recompute)", fontsize=9)
    fig.text(0.77, 0.7, "fits", color=GREEN, fontsize=9, weight="bold")
    fig.text(0.77, 0.6, "does not fit", color=RED, fontsize=9, weight="bold")
    fig.text(0.77, 0.5, "t·pp does not\ndivide N", color=GREY, fontsize=8)
    fig.text(0.77, 0.36, "outlined: our job", color="black", fontsize=8)
    return fig


def summary_panel(ax, inputs, results):
    """Horizontal bars: each downstream figure of the design over our job's (log scale, 1 = our
    job), red where HBM overflows or the deadline is missed. Needs ``ratios`` (array, SUMMARY
    order), ``fits`` and ``meets`` (bools) in the results."""
    labels = [lab for _, lab in SUMMARY]
    y = np.arange(len(labels))[::-1]
    bars = ax.barh(y, np.ones(len(labels)), left=0, color=BLUE, height=0.6)
    ax.axvline(1, color="#333", lw=1)
    ax.set_xscale("log")
    ax.set_xlim(1 / 30, 30)
    ax.set_yticks(y, labels, fontsize=8)
    ax.set_xlabel("this design / our job (log scale)")
    ax.set_xticks([1 / 30, 0.1, 1 / 3, 1, 3, 10, 30], ["1/30", "1/10", "1/3", "1", "3", "10", "30"])
    ax.minorticks_off()
    ax.grid(True, axis="x", alpha=0.25)
    texts = [ax.text(1.1, yy, "", va="center", fontsize=7) for yy in y]
    dots = [ax.plot([1], [yy], "o", ms=5, color=BLUE, zorder=4)[0] for yy in y]

    def update(inputs, res):
        r = np.clip(np.asarray(res["ratios"], dtype=float), 1 / 40, 40)
        for i, (b, v) in enumerate(zip(bars, r)):
            lo, hi = min(v, 1.0), max(v, 1.0)
            b.set_x(lo)
            b.set_width(hi - lo if hi > lo else 1e-9)
            key = SUMMARY[i][0]
            bad = (key == "hbm" and not res["fits"]) or (key == "T_wall" and not res["meets"])
            color = RED if bad else (BLUE if v >= 1 else ORANGE)
            b.set_color(color)
            dots[i].set_data([v], [y[i]])
            dots[i].set_color(color)
            why = " (does not fit)" if bad and key == "hbm" else (" (deadline missed)" if bad else "")
            x = float(res["ratios"][i])
            texts[i].set_text((f"×{x:,.0f}" if x >= 100 else f"×{x:.2g}") + why)
            texts[i].set_color(RED if bad else "#222")
            texts[i].set_x(hi * 1.12 if hi < 8 else 0.04)

    update(inputs, results)
    return update


def record_diagram(rows) -> Figure:
    """Our figures beside the public record, one small panel per quantity: ``rows`` is a list of
    ``(quantity, our value, [(run, value), ...], unit)``; a comparison, not a confirmation."""
    fig = Figure(figsize=(10, 2.8))
    n = len(rows)
    for i, (name, ours, others, unit) in enumerate(rows):
        ax = fig.add_subplot(1, n, i + 1)
        labels = ["our job"] + [r for r, _ in others]
        vals = [ours] + [v for _, v in others]
        ax.barh(np.arange(len(vals))[::-1], vals, color=[RED] + [GREY] * len(others), height=0.6)
        ax.set_yticks(np.arange(len(vals))[::-1], labels, fontsize=7)
        ax.set_title(f"{name}" + (f" ({unit})" if unit else ""), fontsize=8)
        ax.tick_params(axis="x", labelsize=7)
        if max(vals) / max(min(vals), 1e-12) > 10:
            ax.set_xscale("log")
            ax.set_xlim(min(vals) / 10, max(vals) * 2)
        ax.grid(True, axis="x", alpha=0.25)
    fig.suptitle("our design (red) beside published runs (grey): a comparison, not a confirmation", fontsize=9)
    fig.subplots_adjust(left=0.08, right=0.98, wspace=0.9, bottom=0.15, top=0.8)
    return fig


def step_panel(ax, inputs, results):
    """Stage 4's panel: one training step as two Gantt bars, compute then the exposed gradient
    all-reduce, on a non-blocking fabric and on the chosen oversubscription, with the share of
    the step spent computing. Needs ``t_compute``, ``t_full``, ``t_over`` (Quantities), ``u_full``,
    ``u_over`` (dimensionless) and ``ratio`` (the oversubscription)."""
    (c1,) = ax.barh(1, 1, color="#4e79a7", height=0.5, label="compute")
    (a1,) = ax.barh(1, 1, color="#e15759", height=0.5, label="gradient all-reduce (not overlapped)")
    (c2,) = ax.barh(0, 1, color="#4e79a7", height=0.5)
    (a2,) = ax.barh(0, 1, color="#e15759", height=0.5)
    ax.set_xlabel("time in one step (s)")
    ax.legend(fontsize=7, loc="lower center", bbox_to_anchor=(0.5, 1.0), ncol=2, frameon=False)
    ax.grid(True, axis="x", alpha=0.25)
    t1 = ax.text(0.02, 1.32, "", fontsize=8)
    t2 = ax.text(0.02, 0.32, "", fontsize=8)
    lim = {}

    def update(inputs, res):
        c = float(res["t_compute"].to("s").magnitude)
        f, o = (float(res[k].to("s").magnitude) for k in ("t_full", "t_over"))
        ax.set_yticks([0, 1], [f"oversubscribed {float(res['ratio']):.3g}:1", "non-blocking"])
        for bc, ba, t, txt, u in ((c1, a1, f, t1, res["u_full"]), (c2, a2, o, t2, res["u_over"])):
            bc.set_width(c)
            ba.set_x(c)
            ba.set_width(t)
            txt.set_text(f"computing {float(getattr(u, 'magnitude', u)):.1%} of the step")
        hi = (c + max(f, o)) * 1.05
        if lim.get("x") is None or hi > lim["x"] or hi < 0.5 * lim["x"]:
            lim["x"] = hi * 1.2
            ax.set_xlim(0, lim["x"])
        ax.set_ylim(-0.5, 1.7)

    update(inputs, results)
    return update


def cost_panel(ax, inputs, results):
    """Stage 7's panel: the run's cost as two bars (electricity, GPU-hours) in millions of cu,
    with the facility power and the energy written beside. Needs ``cost_energy``,
    ``cost_devices``, ``P_facility`` and ``E`` (Quantities)."""
    bars = ax.barh([1, 0], [1, 1], color=[ORANGE, BLUE], height=0.55)
    ax.set_yticks([0, 1], ["GPU-hours", "electricity"])
    ax.set_xlabel("cost of the run (million cu)")
    ax.grid(True, axis="x", alpha=0.25)
    note = ax.text(0.98, 0.5, "", transform=ax.transAxes, ha="right", va="center", fontsize=8)
    lim = {}

    def update(inputs, res):
        e, g = (float(res[k].to("Mcu").magnitude) for k in ("cost_energy", "cost_devices"))
        bars[0].set_width(e)
        bars[1].set_width(g)
        note.set_text(f"facility {fmt(res['P_facility'], 'MW', 2)}\nenergy {fmt(res['E'], 'MWh', 0)}\n"
                      f"electricity / GPU-hours = {e / g:.1%}")
        hi = max(e, g)
        if lim.get("x") is None or hi > lim["x"] or hi < 0.3 * lim["x"]:
            lim["x"] = hi * 1.6
            ax.set_xlim(0, lim["x"])
        ax.set_ylim(-0.6, 1.6)

    update(inputs, results)
    return update


def deadline_panel(ax, inputs, results):
    """Stage 2's panel: GPUs (whole nodes) against the deadline on log-log axes, the chosen
    deadline marked, with the GPU-hours written beside. Needs ``days_curve`` and
    ``devices_curve`` (arrays), ``days``, ``devices`` and ``gpu_hours`` (scalars; GPU-hours a Quantity)."""
    from fleetcalc.ui.plots import plain_log_ticks
    (ln,) = ax.step(results["days_curve"], results["devices_curve"], where="post", color=BLUE, lw=2,
                    label="GPUs for the deadline (whole nodes)")
    (pt,) = ax.plot([1], [1], "o", color=RED, ms=7, zorder=5, label="your deadline")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("deadline (days)")
    ax.set_ylabel("GPUs")
    ax.grid(True, which="both", alpha=0.25)
    ax.legend(fontsize=7, loc="upper right")
    plain_log_ticks(ax)
    note = ax.text(0.03, 0.05, "", transform=ax.transAxes, fontsize=8)
    lim = {}

    def update(inputs, res):
        ln.set_data(res["days_curve"], res["devices_curve"])
        pt.set_data([res["days"]], [res["devices"]])
        note.set_text(f"{int(res['devices']):,} GPUs x {res['days']:.3g} days = "
                      f"{fmt(res['gpu_hours'], 'hour', 0, with_unit=False)} GPU-hours (before failures)")
        lo, hi = float(np.min(res["devices_curve"])), float(np.max(res["devices_curve"]))
        key = (10 ** np.floor(np.log10(lo)), 10 ** np.ceil(np.log10(hi)))
        if lim.get("y") != key:
            lim["y"] = key
            ax.set_ylim(*key)
            ax.set_xlim(float(res["days_curve"][0]), float(res["days_curve"][-1]))

    update(inputs, results)
    return update
