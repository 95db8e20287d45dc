"""Drawing primitives every diagram shares: a blank canvas, labelled boxes, arrows, a legend row.

Coordinates are in the canvas's own units (``canvas(w, h)`` spans 0..w by 0..h), so diagrams are
laid out like a sketch on squared paper. Colours come from :data:`PALETTE` so the whole book
uses one colour per kind of thing (compute, memory, network, storage, host, fault).
"""
from __future__ import annotations

import io

__all__ = ["PALETTE", "RAIL_COLOURS", "canvas", "box", "arrow", "label", "show", "png", "figure", "figure_axes", "subplots",
           "plain_log", "finish_log_axes", "finish_strip", "whole_count", "percent"]

#: One colour per kind of thing, the same in every diagram.
PALETTE = {
    "compute": "#4C72B0",
    "memory": "#55A868",
    "network": "#C44E52",
    "storage": "#8172B2",
    "host": "#CCB974",
    "fault": "#DD8452",
    "idle": "#BBBBBB",
    "text": "#222222",
}


def canvas(w: float, h: float, *, size=(7.0, 3.6), title: str = ""):
    """A figure with one axis spanning 0..w by 0..h, no ticks, equal-looking proportions."""
    from matplotlib.figure import Figure  # lazy: keeps `import fleetcalc` fast

    fig = Figure(figsize=size, dpi=100)
    ax = fig.add_axes((0.01, 0.01, 0.98, 0.90 if title else 0.98))
    ax.set_xlim(0, w)
    ax.set_ylim(0, h)
    ax.axis("off")
    if title:
        fig.suptitle(title, fontsize=11, y=0.98)
    return fig, ax


def box(ax, x: float, y: float, w: float, h: float, text: str = "", *, kind: str = "compute",
        alpha: float = 0.25, fontsize: float = 9, edge: str | None = None, **text_kw):
    """A rounded box with its lower-left corner at (x, y), filled in ``kind``'s colour, text centred."""
    from matplotlib.patches import FancyBboxPatch

    color = PALETTE.get(kind, kind)
    patch = FancyBboxPatch((x, y), w, h, boxstyle="round,pad=0.02,rounding_size=0.08",
                           facecolor=color, alpha=alpha, edgecolor=edge or color, linewidth=1.2)
    ax.add_patch(patch)
    if text:
        ax.text(x + w / 2, y + h / 2, text, ha="center", va="center", fontsize=fontsize,
                color=PALETTE["text"], **text_kw)
    return patch


def arrow(ax, start, end, text: str = "", *, kind: str = "network", width: float = 1.5,
          both: bool = False, fontsize: float = 8, offset=(0.0, 0.12), style: str = "-"):
    """An arrow from ``start`` to ``end`` (both ends with ``both``), labelled at its middle."""
    ax.annotate("", xy=end, xytext=start,
                arrowprops=dict(arrowstyle="<|-|>" if both else "-|>", color=PALETTE.get(kind, kind),
                                lw=width, linestyle=style, shrinkA=2, shrinkB=2))
    if text:
        mx, my = (start[0] + end[0]) / 2 + offset[0], (start[1] + end[1]) / 2 + offset[1]
        ax.text(mx, my, text, ha="center", va="bottom", fontsize=fontsize, color=PALETTE["text"])


def label(ax, x: float, y: float, text: str, *, fontsize: float = 9, **kw):
    """Plain text at (x, y)."""
    kw.setdefault("ha", "center")
    kw.setdefault("va", "center")
    ax.text(x, y, text, fontsize=fontsize, color=PALETTE["text"], **kw)


def png(fig) -> bytes:
    """The figure as PNG bytes."""
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=fig.dpi)
    return buf.getvalue()


def show(fig):
    """Display ``fig`` in a notebook as a PNG (what the static site keeps); returns nothing."""
    from IPython.display import Image, display

    display(Image(png(fig)))


#: One colour per rail (GPU i of every node sits on rail i), the same in every rail figure.
RAIL_COLOURS = ["#4C72B0", "#DD8452", "#55A868", "#C44E52", "#8172B2", "#937860", "#DA8BC3", "#8C8C8C"]


def figure(size):
    """A bare figure of ``size`` inches, not registered with pyplot (a notebook shows it once)."""
    from matplotlib.figure import Figure

    return Figure(figsize=size, dpi=100)


def figure_axes(size, ncols=1):
    """(figure, axis) or, for ``ncols`` > 1, (figure, [axes]) side by side."""
    fig = figure(size)
    axes = [fig.add_subplot(1, ncols, i + 1) for i in range(ncols)]
    return fig, (axes[0] if ncols == 1 else axes)


def subplots(figsize):
    """One figure with one axis, not registered with pyplot."""
    fig = figure(figsize)
    return fig, fig.subplots()


def plain_log(ax, axis="both"):
    """Log axes labelled as powers of ten (:func:`fleetcalc.ui.plots.plain_log_ticks`)."""
    from fleetcalc.ui.plots import plain_log_ticks

    plain_log_ticks(ax, axis)


def finish_log_axes(fig, ax, xlabel, ylabel, title, legend_loc):
    """Log-log axes for a curve figure: labels, plain tick labels, grid, legend, title."""
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel(xlabel, fontsize=9)
    ax.set_ylabel(ylabel, fontsize=9)
    ax.tick_params(labelsize=8)
    ax.grid(True, alpha=0.25)
    plain_log(ax)
    ax.legend(fontsize=7, loc=legend_loc)
    ax.set_title(title, fontsize=10)
    fig.tight_layout()


def whole_count(q) -> int:
    """A count given bare or as a Quantity, as an int."""
    return int(round(float(getattr(q, "magnitude", q))))


def percent(x: float) -> str:
    """A share as a percentage with the digits its size deserves: 100 %, 86 %, 4.1 %."""
    v = 100 * x
    return f"{v:.0f} %" if v >= 10 else f"{v:.1f} %"


def finish_strip(fig, ax, xlabel: str, title: str) -> None:
    """A strip chart's frame: its x label, small ticks, no box but the baseline, the title at the left."""
    ax.set_xlabel(xlabel, fontsize=9)
    ax.tick_params(labelsize=8)
    for side in ("top", "right", "left"):
        ax.spines[side].set_visible(False)
    ax.set_title(title, fontsize=10, loc="left")
    fig.tight_layout()
