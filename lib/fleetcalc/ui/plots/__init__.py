"""Plot functions for panels, one module per topic.

Each follows the panel protocol: ``plot(ax, inputs, results)`` draws once and returns
``update(inputs, results)``, which moves the existing artists (no new figure per slider move).
"""


_SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def decade_label(x: float, sig: int = 2) -> str:
    """A number for a tick or a caption: plain from 0.001 to 10,000 ("100", "0.1"), else as a
    power of ten with Unicode superscripts ("10⁶", "3×10²⁵"), which read on a phone where
    "1e+06" runs into its neighbours."""
    import math

    if x == 0 or not math.isfinite(x):
        return f"{x:g}"
    if 1e-3 <= abs(x) <= 1e4:
        return f"{x:g}"
    k = math.floor(math.log10(abs(x)))
    m = x / 10 ** k
    head = "" if math.isclose(abs(m), 1) else f"{m:.{sig}g}×"
    return f"{'-' if m < 0 and not head else ''}{head}10{str(k).translate(_SUPERSCRIPT)}"


def plain_log_ticks(ax, axis: str = "both"):
    """Log axes with plain tick labels ("100", "0.1", "10⁶"; :func:`decade_label`), at most
    about six of them, and no minor ticks.

    Mathtext labels ("10^2") and minor ticks dominate the redraw time of a log plot; this
    roughly halves it, which keeps a panel under 100 ms per slider move.
    """
    import matplotlib.ticker as mt

    axes = [ax.xaxis, ax.yaxis] if axis == "both" else [getattr(ax, f"{axis}axis")]
    for a in axes:
        a.set_major_locator(mt.LogLocator(base=10, numticks=6))
        a.set_major_formatter(mt.FuncFormatter(lambda v, _: decade_label(v)))
        a.set_minor_locator(mt.NullLocator())


def log_axes(ax, xlabel: str, ylabel: str, legend_loc: str = "upper left"):
    """The usual finish of a log-log panel plot: labels, a light grid, plain log ticks, a legend."""
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.grid(True, alpha=0.25)
    plain_log_ticks(ax)
    ax.legend(fontsize=8, loc=legend_loc)


# Axis limits that follow the data force a full redraw on every slider move (ticks and labels
# change); limits snapped outward to a coarse grid change only when the data crosses a grid line,
# so most moves redraw just the moving artists (blit). The limits are a function of the data
# alone (not of the order of the moves), so every state draws the same picture.

def snap_log(lo: float, hi: float, pad_decades: float = 0.0) -> tuple[float, float]:
    """(lo, hi) widened to whole decades (``pad_decades`` more on each side)."""
    import math

    lo, hi = max(float(lo), 1e-300), max(float(hi), 1e-300)
    if hi < lo:
        lo, hi = hi, lo
    a = math.floor(math.log10(lo) - pad_decades + 1e-9)
    b = math.ceil(math.log10(hi) + pad_decades - 1e-9)
    if b <= a:
        b = a + 1
    return 10.0 ** a, 10.0 ** b


def snap_up(hi: float, headroom: float = 1.05) -> float:
    """A 'nice' upper limit (1, 1.5, 2, 3, 5, 7 x a power of ten) at or above ``hi * headroom``."""
    import math

    x = max(float(hi) * headroom, 1e-300)
    e = math.floor(math.log10(x))
    for m in (1, 1.5, 2, 3, 5, 7, 10):
        if m * 10.0 ** e >= x * (1 - 1e-12):
            return m * 10.0 ** e
    return 10.0 ** (e + 1)


def snap_down(lo: float) -> float:
    """A 'nice' lower limit at or below ``lo`` (0 stays 0; negative values mirror snap_up)."""
    import math

    lo = float(lo)
    if lo == 0:
        return 0.0
    if lo < 0:
        return -snap_up(-lo, 1.0)
    e = math.floor(math.log10(lo))
    for m in (7, 5, 3, 2, 1.5, 1):
        if m * 10.0 ** e <= lo * (1 + 1e-12):
            return m * 10.0 ** e
    return 10.0 ** (e - 1)


def _snap(scale: str, lo: float, hi: float):
    import math

    lo, hi = float(lo), float(hi)
    if not (math.isfinite(lo) and math.isfinite(hi)):
        return None
    if scale == "log":
        if hi <= 0:
            return None
        return snap_log(lo if lo > 0 else hi / 1e3, hi)
    if hi <= lo:
        hi = lo + (abs(lo) or 1.0)
    return snap_down(lo), snap_up(hi, 1.0)


def fit_limits(ax, x=None, y=None):
    """Set the view to cover ``x = (lo, hi)`` and/or ``y = (lo, hi)``, widened to a coarse grid
    for the axis's scale (whole decades on a log axis, 1-1.5-2-3-5-7 steps on a linear one), so
    the limits, and with them the ticks, change only when the data crosses a grid line."""
    set_limits(ax, x=None if x is None else _snap(ax.get_xscale(), *x),
               y=None if y is None else _snap(ax.get_yscale(), *y))


def fit_data(ax, x: bool = True, y: bool = True):
    """:func:`fit_limits` on the extent of the axes' data (the snapped form of autoscale)."""
    ax.relim()
    (x0, y0), (x1, y1) = ax.dataLim.get_points()
    fit_limits(ax, x=(x0, x1) if x else None, y=(y0, y1) if y else None)


def set_limits(ax, x=None, y=None):
    """Set view limits only when they differ (an unchanged set_xlim still marks the axes stale)."""
    if x is not None and tuple(ax.get_xlim()) != tuple(x):
        ax.set_xlim(*x)
    if y is not None and tuple(ax.get_ylim()) != tuple(y):
        ax.set_ylim(*y)
