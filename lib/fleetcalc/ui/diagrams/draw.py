"""Drawing primitives every diagram shares: a blank canvas, labelled boxes, arrows, a legend row.

Coordinates are in the canvas's own units (``canvas(w, h)`` spans 0..w by 0..h), so diagrams are
laid out like a sketch on squared paper. Colours come from :data:`PALETTE` so the whole book
uses one colour per kind of thing (compute, memory, network, storage, host, fault).
"""
from __future__ import annotations

import io

__all__ = ["PALETTE", "canvas", "box", "arrow", "label", "show", "png"]

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
