"""Plot functions for panels, one module per topic.

Each follows the panel protocol: ``plot(ax, inputs, results)`` draws once and returns
``update(inputs, results)``, which moves the existing artists (no new figure per slider move).
"""


def plain_log_ticks(ax, axis: str = "both"):
    """Log axes with plain tick labels ("100", "0.1") and no minor ticks.

    Mathtext labels ("10^2") and minor ticks dominate the redraw time of a log plot; this
    roughly halves it, which keeps a panel under 100 ms per slider move.
    """
    import matplotlib.ticker as mt

    axes = [ax.xaxis, ax.yaxis] if axis == "both" else [getattr(ax, f"{axis}axis")]
    for a in axes:
        a.set_major_formatter(mt.FuncFormatter(lambda v, _: f"{v:g}"))
        a.set_minor_locator(mt.NullLocator())


def log_axes(ax, xlabel: str, ylabel: str, legend_loc: str = "upper left"):
    """The usual finish of a log-log panel plot: labels, a light grid, plain log ticks, a legend."""
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.grid(True, alpha=0.25)
    plain_log_ticks(ax)
    ax.legend(fontsize=8, loc=legend_loc)
