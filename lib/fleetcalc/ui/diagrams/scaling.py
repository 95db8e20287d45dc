"""Scaling-law pictures of Vol. 2 Ch. 1 (Figs 1.7, 1.8, 1.9) and the C³ taxonomy (Fig. 1.12).

Every curve is computed by the library's scaling calculators (``scaling_laws.power_law_loss``,
``scaling_laws.training_flops``, ``scaling_laws.resource_for_loss``, ``parallel_scaling.fleet_step_time``,
``parallel_scaling.compute_fraction``). The chapter prints no fitted constants for its loss figures, so
the two-variable loss is the published fit of Kaplan et al. (2020, Eq. 1.5),
``scaling_laws.kaplan_loss``.
"""
from __future__ import annotations

import numpy as np

from fleetcalc.physics import parallel_scaling, scaling_laws
from fleetcalc.core.units import Q_, fmt
from fleetcalc.core.validate import magnitude
from fleetcalc.ui.diagrams.draw import PALETTE, box, canvas, label
from fleetcalc.ui.diagrams.draw import finish_strip
from fleetcalc.physics import iron_law
from fleetcalc.physics import (capacity)
from fleetcalc.ui.diagrams.draw import percent as _pct

__all__ = ["loss_vs_compute", "loss_vs_data", "data_regimes",
           "c3_taxonomy", "FIG_1_8_SIZES", "ci_scale", "overhead_tokens"]

#: The model sizes of Fig. 1.8's caption ("393K 至 708M 参数", line 830) and Kaplan's Fig. 4 between.
FIG_1_8_SIZES = (393e3, 2e6, 25e6, 85e6, 302e6, 708e6)


def _count(x: float) -> str:
    """A parameter count the way papers label curves: 393K, 25M, 1B."""
    for div, suffix in ((1e12, "T"), (1e9, "B"), (1e6, "M"), (1e3, "K")):
        if x >= div:
            return fmt(x / div, sig=3) + suffix
    return fmt(x, sig=3)


def _loglog(ax, xlabel, ylabel):
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel(xlabel, fontsize=9)
    ax.set_ylabel(ylabel, fontsize=9)
    ax.tick_params(labelsize=8)
    ax.grid(True, which="major", alpha=0.3)
    from fleetcalc.ui.plots import plain_log_ticks

    plain_log_ticks(ax, "y")


def _loss_ticks(ax, lo: float, hi: float):
    """Labelled y-ticks on a log loss axis that spans less than a decade (a loss runs from about 2
    to 10 nats): ticks at the round values between lo and hi, so a reader can read a curve off."""
    import matplotlib.ticker as mt

    ax.set_ylim(lo, hi)
    fine = (1, 1.5, 2, 2.5, 3, 3.5, 4, 4.5, 5, 6, 7, 8, 10, 12)     # under a factor 3: every half nat
    coarse = (1, 1.5, 2, 3, 4, 5, 6, 8, 10, 12)                      # wider: evenly spaced on a log axis
    ticks = np.array([t for t in (fine if hi / lo <= 3 else coarse) if lo - 1e-9 <= t <= hi + 1e-9], float)
    ax.yaxis.set_major_locator(mt.FixedLocator(ticks))
    ax.yaxis.set_major_formatter(mt.FuncFormatter(lambda v, _: f"{v:g}"))
    ax.yaxis.set_minor_locator(mt.NullLocator())
    ax.grid(True, which="major", axis="y", alpha=0.3)
    return ticks


def _figure(size):
    from matplotlib.figure import Figure

    fig = Figure(figsize=size, dpi=100)
    return fig, fig.add_subplot(1, 1, 1)


def loss_vs_compute(sizes=(1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9), *, mark_budget=None):
    """Fig. 1.7 (ours, from the fit): test loss against training compute C = 6PD for models of
    ``sizes`` parameters, each trained on more and more tokens, with the compute-optimal frontier
    (the lowest loss any size reaches at each budget). Returns the figure; ``fig.frontier`` holds
    (C, L, P) of the frontier and ``fig.best_at_budget`` the best size at ``mark_budget`` (FLOP)."""
    sizes = np.asarray([magnitude("sizes", s, "", gt=0) for s in sizes], dtype=float)
    fig, ax = _figure((6.4, 3.6))
    C_grid = np.logspace(np.log10(6 * sizes.min() * 1e3), np.log10(6 * sizes.max() * 1e13), 160)
    L_all = np.empty((len(sizes), len(C_grid)))
    cmap = __import__("matplotlib").colormaps["viridis"]
    for i, P in enumerate(sizes):
        D = C_grid / scaling_laws.training_flops(P, 1.0).magnitude          # tokens this budget buys
        L_all[i] = np.where(D >= 1e3, scaling_laws.kaplan_loss(P, np.maximum(D, 1e3)).magnitude, np.nan)
        ax.plot(C_grid, L_all[i], color=cmap(i / max(len(sizes) - 1, 1)), lw=1.2,
                label=f"P = {_count(P)}")
    best = np.nanargmin(np.where(np.isnan(L_all), np.inf, L_all), axis=0)
    L_front = L_all[best, np.arange(len(C_grid))]
    ax.plot(C_grid, L_front, color=PALETTE["fault"], lw=3, alpha=0.45, label="compute-optimal frontier")
    fig.frontier = (C_grid, L_front, sizes[best])
    if mark_budget is not None:
        c = magnitude("mark_budget", mark_budget, "FLOP", gt=0)
        j = int(np.argmin(np.abs(np.log(C_grid / c))))
        ax.axvline(c, color=PALETTE["idle"], ls="--", lw=1)
        fig.best_at_budget = sizes[best[j]]
        ax.annotate(f"best size here: {_count(sizes[best[j]])}",
                    (c, L_front[j]), xytext=(8, 18), textcoords="offset points", fontsize=8)
    _loglog(ax, "training compute C = 6PD (FLOP)", "test loss (nats/token)")
    finite = L_all[np.isfinite(L_all)]
    fig.yticks = _loss_ticks(ax, np.floor(finite.min() * 2) / 2, min(np.ceil(finite.max()), 12.0))
    ax.legend(fontsize=7, ncol=2, loc="upper right")
    ax.set_title("Fig. 1.7: bigger models win only once the budget can feed them", fontsize=10)
    fig.tight_layout()
    return fig


def loss_vs_data(sizes=FIG_1_8_SIZES):
    """Fig. 1.8 (ours, from the fit): early-stopped test loss against data set size D for the
    caption's model sizes. ``fig.floors`` holds each size's loss with unlimited data."""
    sizes = [magnitude("sizes", s, "", gt=0) for s in sizes]
    fig, ax = _figure((6.4, 3.4))
    D = np.logspace(7, 11, 200)
    cmap = __import__("matplotlib").colormaps["viridis"]
    floors = []
    for i, P in enumerate(sizes):
        color = cmap(i / max(len(sizes) - 1, 1))
        ax.plot(D, scaling_laws.kaplan_loss(P, D).magnitude, color=color, lw=1.4, label=_count(P))
        floor = scaling_laws.power_law_loss(P, scaling_laws.KAPLAN["N_c"] ** scaling_laws.KAPLAN["alpha_N"], scaling_laws.KAPLAN["alpha_N"], 0.0).magnitude
        floors.append(floor)
        ax.axhline(floor, color=color, lw=0.6, ls=":")
    fig.floors = np.array(floors)
    _loglog(ax, "data set size D (tokens)", "test loss (nats/token)")
    curves = np.concatenate([line.get_ydata() for line in ax.lines if len(line.get_ydata()) > 2])
    fig.yticks = _loss_ticks(ax, np.floor(min(curves.min(), min(floors)) * 2) / 2, np.ceil(curves.max() * 2) / 2)
    ax.legend(fontsize=7, title="model size", title_fontsize=8, loc="upper right")
    ax.set_title("Fig. 1.8: each size flattens onto its own floor (dotted)", fontsize=10)
    fig.tight_layout()
    return fig


def data_regimes(A=20.0, alpha=0.35, floor=0.05, best_guess=0.9, near_floor=0.1):
    """Fig. 1.9 (ours): generalisation error against data set size, in three regimes.

    The power-law part is ``scaling_laws.power_law_loss(D, A, alpha, floor)``; below the data set at
    which that law would exceed ``best_guess`` (the error of guessing) the model is in the
    small-data regime; past the size at which the reducible gap falls to ``near_floor`` x floor it
    is in the irreducible-error regime. Both boundaries come from ``scaling_laws.resource_for_loss``.
    The constants are ours (illustrative); ``fig.boundaries`` holds the two data set sizes.
    """
    for name, v in (("A", A), ("alpha", alpha), ("floor", floor), ("best_guess", best_guess),
                    ("near_floor", near_floor)):
        magnitude(name, v, "", gt=0)
    if best_guess <= floor * (1 + near_floor):
        raise ValueError(f"best_guess={best_guess!r} must exceed floor x (1 + near_floor) = "
                         f"{floor * (1 + near_floor)!r}, or the power-law regime is empty")
    d_small = scaling_laws.resource_for_loss(best_guess, A, alpha, floor).magnitude
    d_floor = scaling_laws.resource_for_loss(floor * (1 + near_floor), A, alpha, floor).magnitude
    fig, ax = _figure((6.4, 3.2))
    D = np.logspace(np.log10(d_small) - 1.5, np.log10(d_floor) + 1.5, 300)
    law = scaling_laws.power_law_loss(D, A, alpha, floor).magnitude
    err = np.minimum(law, best_guess)
    rng = np.random.default_rng(0)                     # seeded: the small-data scatter is a sketch
    noisy = D < d_small
    jitter = np.where(noisy, 1 + 0.12 * rng.standard_normal(D.size), 1.0)
    ax.plot(D, err * jitter, color=PALETTE["compute"], lw=1.6)
    ax.axhline(floor, color=PALETTE["idle"], ls="--", lw=1)
    for lo, hi, kind, text in ((D[0], d_small, "fault", "small data:\nhigh, noisy error"),
                               (d_small, d_floor, "memory", "power law:\nmore data buys the most"),
                               (d_floor, D[-1], "idle", "irreducible error:\nthe noise floor")):
        ax.axvspan(lo, hi, color=PALETTE[kind], alpha=0.12)
        ax.text(np.sqrt(lo * hi), best_guess * 1.25, text, ha="center", va="bottom", fontsize=8)
    fig.boundaries = (d_small, d_floor)
    _loglog(ax, "data set size (examples)", "generalisation error")
    ax.set_ylim(floor * 0.6, best_guess * 3)
    ax.set_title("Fig. 1.9: three regimes of data scaling", fontsize=10)
    fig.tight_layout()
    return fig


def c3_taxonomy(T_local, T_comm, T_sync, T_overlap=Q_(0, "s"), *, N=1):
    """Fig. 1.12 (ours): the C³ taxonomy as three columns (Computation, Communication,
    Coordination), each with its term of the fleet law (Eq. 1.3), the goodput factor that
    measures it and the lever that shrinks it, above a bar of one step's wall-clock split computed
    by ``parallel_scaling.fleet_step_time`` and ``parallel_scaling.compute_fraction``.

    ``T_local`` is the per-device compute time T_compute/N; ``T_comm``, ``T_sync``, ``T_overlap``
    are the other terms. ``fig.f_compute`` holds the compute fraction the bar shows.
    """
    n = magnitude("N", N, "", ge=1)
    t_local = Q_(magnitude("T_local", T_local, "s", gt=0), "s")
    T_compute = t_local * n
    step = parallel_scaling.fleet_step_time(T_compute, n, T_comm, T_sync, T_overlap)
    f = parallel_scaling.compute_fraction(T_compute, n, T_comm, T_sync, T_overlap)
    t_comm = Q_(magnitude("T_comm", T_comm, "s", ge=0), "s")
    t_sync = Q_(magnitude("T_sync", T_sync, "s", ge=0), "s")
    t_ov = Q_(magnitude("T_overlap", T_overlap, "s", ge=0), "s")
    fig, ax = canvas(12, 7.2, size=(7.6, 4.6), title="Fig. 1.12: the C³ taxonomy, where a step's time goes")
    cols = (("compute", "C₁ Computation", "T_compute / N", "program goodput\nη_program",
             "keep the math engines\nat peak"),
            ("network", "C₂ Communication", "T_comm(N) − T_overlap", "runtime goodput\nη_runtime",
             "faster fabric,\noverlap, compress"),
            ("host", "C₃ Coordination", "T_sync(N)", "scheduling goodput\nη_scheduling",
             "fewer barriers,\nasync, fault tolerance"))
    for i, (kind, name, term, goodput, lever) in enumerate(cols):
        x = 0.3 + i * 4.0
        box(ax, x, 5.6, 3.4, 1.2, name, kind=kind, alpha=0.35, fontsize=10)
        box(ax, x, 4.5, 3.4, 0.85, term, kind=kind, alpha=0.12, fontsize=9)
        box(ax, x, 3.3, 3.4, 0.95, goodput, kind=kind, alpha=0.12, fontsize=9)
        box(ax, x, 2.1, 3.4, 0.95, lever, kind=kind, alpha=0.12, fontsize=9)
    # the step bar, proportional to the fleet-law terms
    parts = ((t_local, "compute"), (np.maximum((t_comm - t_ov).to("s").magnitude, 0) * Q_(1, "s"), "network"),
             (t_sync, "host"))
    total = step.to("s").magnitude
    x0 = 0.3
    for t, kind in parts:
        w = 11.4 * t.to("s").magnitude / total
        if w > 0:
            box(ax, x0, 0.75, w, 0.7, "", kind=kind, alpha=0.6)
        x0 += w
    pct = float(np.asarray(f * 100))
    label(ax, 6.0, 1.75, f"one step, T_step = {fmt(step, 'auto', sig=3)}:  "
          f"f_compute = {fmt(pct, None, 1 if pct >= 1 else 2)} % (Eq. 1.4)", fontsize=9)
    # the bar's legend: which colour is which term of Eq. 1.3
    for i, (kind, text) in enumerate((("compute", "compute T_compute/N"), ("network", "exposed communication"),
                                      ("host", "synchronisation"))):
        box(ax, 0.5 + i * 3.9, 0.12, 0.35, 0.35, "", kind=kind, alpha=0.6)
        label(ax, 0.95 + i * 3.9, 0.3, text, fontsize=8, ha="left")
    fig.f_compute = float(f.magnitude) if hasattr(f, "magnitude") else float(f)
    return fig


def ci_scale(BW_net, R_peak, workloads: dict, *, eta_hw=1.0, bands=(0.01, 0.1),
             title: str = "Communication intensity on one axis"):
    """A log axis of communication intensity (byte/FLOP): the hardware boundary CI* =
    BW/(R_peak η_hw) (``iron_law.ci_boundary``), the book's qualitative bands (below ``bands[0]``
    "low", above ``bands[1]`` "high") shaded, and each workload of ``workloads`` (label ->
    CI in byte/FLOP) as a dot with its ratio to CI*, which is its network time over its compute
    time. ``fig.ci_star`` (byte/FLOP) and ``fig.ratios`` (label -> CI/CI*)."""
    ci_star = float(iron_law.ci_boundary(BW_net, R_peak, eta_hw).to("byte/FLOP").magnitude)
    vals = {k: float(Q_(v).to("byte/FLOP").magnitude if not isinstance(v, (int, float)) else v)
            for k, v in workloads.items()}
    lo = min([ci_star, *vals.values()]) / 10
    hi = max(bands[1], *vals.values()) * 10
    fig, ax = _figure((7.2, 2.4))
    ax.axvspan(lo, ci_star, color=PALETTE["compute"], alpha=0.10)
    ax.axvspan(ci_star, hi, color=PALETTE["network"], alpha=0.10)
    ax.axvspan(bands[0], bands[1], color=PALETTE["idle"], alpha=0.25)
    ax.axvline(ci_star, color=PALETTE["text"], lw=1.5)
    ax.text(ci_star, 1.02, f"CI* = {fmt(ci_star, None, sig=2)}", ha="center", va="bottom", fontsize=8)
    ax.text(np.sqrt(lo * ci_star), 0.88, "compute-bound\n(network time < compute)", ha="center", va="top", fontsize=7)
    ax.text(np.sqrt(ci_star * bands[0]), 0.88, "network-bound\n(on this hardware)", ha="center", va="top", fontsize=7)
    ax.text(np.sqrt(bands[0] * bands[1]), 0.88, "the book's\n'between' band", ha="center", va="top", fontsize=7)
    ratios = {}
    for i, (name, v) in enumerate(vals.items()):
        y = 0.25 + 0.4 * (i % 2) / max(1, min(len(vals) - 1, 1))
        ratios[name] = v / ci_star
        ax.plot([v], [y], "o", color=PALETTE["fault"], ms=6)
        ax.annotate(f"{name}\n{fmt(v / ci_star, None, sig=2)}× CI*", (v, y), xytext=(0, 8),
                    textcoords="offset points", ha="center", fontsize=7)
    ax.set_xscale("log")
    ax.set_xlim(lo, hi)
    ax.set_ylim(0, 1.15)
    ax.set_yticks([])
    finish_strip(fig, ax, "communication intensity CI (byte/FLOP)", title)
    fig.ci_star, fig.ratios = ci_star, ratios
    return fig


# --------------------------------------------------------------------------- §1.9 pitfall
def overhead_tokens(P, D, f_compute, *, points=200, title=""):
    """Loss (Kaplan et al. 2020, Eq. 1.5) against wall-clock time for a P-parameter model trained to D
    tokens, once with no overhead and once when only ``f_compute`` of each step computes. Time is
    in units of the overhead-free run, so the overhead run's tokens per unit time are f_compute of
    the other's. ``fig.values`` holds the final losses and where the overhead run ends."""
    f = magnitude("f_compute", f_compute, "", gt=0, le=1)
    D = magnitude("D", D if hasattr(D, "units") else Q_(D, "token"), "token", gt=0)
    fig, ax = _figure((7.0, 3.4))
    t_ideal = 1.0
    # tokens seen by time t: the overhead-free run reads D per unit time; the other f x D
    t_end = float(capacity.training_time(Q_(D, "token"), 1, Q_(f * D, "token/s")).to("s").magnitude)
    t = np.linspace(0.05, t_end, points)
    seen_ideal = np.minimum(t, t_ideal) * D
    seen_slow = np.minimum(t * f, 1.0) * D
    L_ideal = np.asarray(scaling_laws.kaplan_loss(P, seen_ideal).to("").magnitude)
    L_slow = np.asarray(scaling_laws.kaplan_loss(P, seen_slow).to("").magnitude)
    ax.plot(t, L_ideal, color=PALETTE["compute"], lw=2, label="no overhead")
    ax.plot(t, L_slow, color=PALETTE["network"], lw=2, ls="--",
            label=f"{_pct(1 - f)} of each step waiting")
    ax.axvline(t_end, color=PALETTE["network"], lw=0.8, ls=":")
    L_end = float(scaling_laws.kaplan_loss(P, D).to("").magnitude)
    L_at_1 = float(scaling_laws.kaplan_loss(P, f * D).to("").magnitude)
    ax.plot([t_ideal], [L_at_1], "o", color=PALETTE["network"], ms=6)
    ax.text(t_ideal * 1.03, L_at_1, f" at the same deadline: loss {fmt(L_at_1, None, 4)}\n"
            f" (vs {fmt(L_end, None, 4)})", fontsize=7.5, va="bottom")
    ax.text(t_end, L_end + 0.012, f"same loss, {fmt(t_end, None, sig=2)}× later ", fontsize=7.5, ha="right", va="bottom")
    ax.set_xlabel("wall-clock time (the overhead-free run = 1)", fontsize=9)
    ax.set_ylabel("loss (nats/token)", fontsize=9)
    ax.set_xlim(0, t_end * 1.05)
    ax.tick_params(labelsize=8)
    ax.grid(True, alpha=0.25)
    ax.legend(fontsize=8, loc="upper right")
    ax.set_title(title or "Overhead stretches the run; it does not scale the gain", fontsize=10)
    fig.tight_layout()
    fig.values = {"L_end": L_end, "L_at_deadline": L_at_1, "t_end": t_end}
    return fig
