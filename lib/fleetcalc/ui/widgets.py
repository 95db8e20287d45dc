"""The panel builder: one call turns a calculator into sliders, a result table and a plot.

    panel(compute=lambda B, s: {...}, knobs={"B": knob(1, 1, 512, 1)}, show={...}, plot=...)

* ``knobs``: name -> :func:`knob`. A knob with a ``unit`` hands ``compute`` a pint Quantity in
  that unit; one without hands a plain number; ``options`` makes a dropdown.
* ``compute(**inputs)`` returns a dict of results (Quantities, numbers or short strings).
* ``show``: result name -> ``(unit, decimals)`` or ``(unit, decimals, label)``; results not listed
  are not shown. ``None`` shows every result with default formatting.
* ``plot(ax, inputs, results)`` draws once and may return ``update(inputs, results)``; later
  slider moves then only update artists (about 5x faster than redrawing). Without an update
  function the axes are cleared and ``plot`` is called again. ``axes=2`` passes a tuple of axes.

* ``prompt``: the prediction question the panel opens with ("Predict first: ...").
* ``main``: the knob the prompt is about (default: the first knob); the static site scrubs it.
* At most :data:`MAX_VISIBLE_KNOBS` knobs show at once; the rest (or those named in ``more``)
  sit behind a "more inputs" fold.
* A ``show`` unit of ``"auto"`` (or no spec at all) prints in the unit a reader expects
  (256 MiB, 17.6 ms), with ``decimals`` read as significant digits.

The figure is a plain ``matplotlib.figure.Figure`` rendered to PNG into an ``Image`` widget: no
pyplot state, no inline-backend flicker, and the saved widget state shows the plot on the static
site.

Tools and tests get the panels a block of code builds with :func:`collect_panels` (the caller
holds them; nothing else does), and :func:`live_panels` lists the panels still alive. Each update
appends an :class:`UpdateRecord` (compute, table and draw time; full draw or blit) to
``Panel.updates``; ``Panel.redraw()``, ``Panel.reset_figure()`` and ``Panel.close()`` are the
hooks a benchmark or a long-running kernel needs.
"""
from __future__ import annotations

import html
import inspect
import io
import math
import time
import contextvars
import weakref
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Callable, Iterator

import ipywidgets as widgets
import traitlets

from fleetcalc.core.units import Quantity, as_quantity, fmt
from fleetcalc.core.validate import InputError

__all__ = ["knob", "Knob", "panel", "Panel", "UpdateRecord", "collect_panels", "live_panels",
           "MAX_VISIBLE_KNOBS"]

MAX_VISIBLE_KNOBS = 5

# Every live panel, held weakly: a panel (and its figure) goes away when the notebook drops it.
_LIVE: "weakref.WeakSet[Panel]" = weakref.WeakSet()
# The lists of the open collect_panels() blocks of this context, innermost last, with their draw
# flag: a tuple per context (a block opened in one thread or task is not another's).
_COLLECTORS: "contextvars.ContextVar[tuple[tuple[list, bool], ...]]" = contextvars.ContextVar(
    "fleetcalc_panel_collectors", default=())


def live_panels() -> list["Panel"]:
    """The panels of this process that are still referenced somewhere (weakly tracked)."""
    return list(_LIVE)


@contextmanager
def collect_panels(draw: bool = True) -> Iterator[list["Panel"]]:
    """Collect the panels built inside the block, in order, into the list it yields.

        with collect_panels() as made:
            exec(cell_source, namespace)
        for p in made: ...

    Only the caller's list holds the panels. ``draw=False``: the panels built inside never draw
    their plot (``Panel.drawing`` is off): enough for checks that only call ``compute_at``.
    Blocks nest; every open block receives the panel.
    """
    made: list[Panel] = []
    token = _COLLECTORS.set(_COLLECTORS.get() + ((made, draw),))
    try:
        yield made
    finally:
        _COLLECTORS.reset(token)


@dataclass(frozen=True)
class UpdateRecord:
    """One update of a panel: wall (``*_s``) and this thread's CPU (``cpu_*_s``) seconds per phase.

    ``render`` says how the plot was brought up to date: ``"full"`` (whole figure drawn),
    ``"blit"`` (only the moving artists drawn on the cached background), ``"replot"`` (axes
    cleared and ``plot`` called again, then a full draw) or ``"none"`` (no plot, or drawing off).
    """
    compute_s: float
    table_s: float
    draw_s: float
    cpu_compute_s: float
    cpu_table_s: float
    cpu_draw_s: float
    render: str

    @property
    def total_s(self) -> float:
        return self.compute_s + self.table_s + self.draw_s

    @property
    def cpu_s(self) -> float:
        return self.cpu_compute_s + self.cpu_table_s + self.cpu_draw_s

# How a panel fits its width, in JupyterLab, in slides and on the static site alike (the site
# serves the same rules as _static/fc-panels.css). The panel is a size container: at most 560 px
# wide (a phone, a narrow column) the knob column and the readouts stack, each slider's label
# takes its own line above a full-width track, and the readout table may scroll but is never cut.
PANEL_CSS = """
.fc-panel { container-type: inline-size; max-width: 100%; }
.fc-panel .fc-readouts .widget-html-content, .fc-panel .fc-readouts { overflow-x: auto; max-width: 100%; }
.fc-panel .fc-readouts code { white-space: nowrap; }
.fc-panel img.fc-picture { max-width: 100%; height: auto; }
@container (max-width: 560px) {
  .fc-panel .fc-panel-top { flex-direction: column !important; flex-wrap: nowrap !important; }
  .fc-panel .fc-panel-top > * { width: auto !important; align-self: stretch !important; max-width: 100% !important; }
  .fc-panel .widget-slider, .fc-panel .widget-dropdown { flex-wrap: wrap !important; width: auto !important;
    align-self: stretch !important; max-width: 100% !important; height: auto !important; }
  .fc-panel .widget-slider > .widget-label, .fc-panel .widget-dropdown > .widget-label {
    flex: 1 1 100% !important; max-width: 100% !important; text-align: left !important; }
  .fc-panel .widget-slider > .slider-container { flex: 1 1 auto !important; min-width: 0 !important; }
  .fc-panel .widget-dropdown > select { flex: 1 1 auto !important; min-width: 0 !important; }
}
"""


@dataclass
class Knob:
    value: Any
    min: float | None = None
    max: float | None = None
    step: float | None = None
    unit: str | None = None
    label: str | None = None
    log: bool = False
    options: Any = None

    def values(self, n_inner: int = 3) -> list:
        """The two ends and a few reachable values inside (for range tests)."""
        if self.options is not None:
            opts = self.options
            return list(opts.values()) if isinstance(opts, dict) else list(opts)
        if self.log:
            lo, hi = math.log10(self.min), math.log10(self.max)
            return [10 ** (lo + (hi - lo) * k / (n_inner + 1)) for k in range(n_inner + 2)]
        steps = round((self.max - self.min) / self.step)
        picks = sorted({0, steps} | {steps * k // (n_inner + 1) for k in range(1, n_inner + 1)})
        vals = [self.min + k * self.step for k in picks]
        return [int(round(v)) if self.is_int else v for v in vals]

    @property
    def is_int(self) -> bool:
        return (self.unit is None and not self.log and self.options is None
                and all(isinstance(x, int) and not isinstance(x, bool)
                        for x in (self.value, self.min, self.max, self.step)))

    def to_input(self, raw):
        if self.unit is None or not isinstance(raw, (int, float)) or isinstance(raw, bool):
            return raw
        return Quantity(raw, self.unit)


def knob(value, min=None, max=None, step=None, *, unit: str | None = None, label: str | None = None,
         log: bool = False, options=None) -> Knob:
    """A slider (or dropdown with ``options``) starting at ``value``.

    ``value`` may be a Quantity (e.g. a catalog value): it is converted to ``unit``. Ranges and
    steps are in ``unit``. ``log=True`` makes a log-scale slider (``step`` in decades, default 0.01).
    """
    if isinstance(value, Quantity):
        if unit is None:
            raise ValueError("knob: a Quantity value needs unit= (the slider's unit)")
        value = float(value.to(unit).magnitude)
    if options is not None:
        keys = list(options.values()) if isinstance(options, dict) else list(options)
        if value not in keys:
            raise ValueError(f"knob: value {value!r} is not one of the options {keys}")
        return Knob(value, unit=unit, label=label, options=options)
    if min is None or max is None:
        raise ValueError("knob: give min and max (or options=)")
    if not (min <= value <= max):
        raise ValueError(f"knob: value {value} must lie in [{min}, {max}]")
    if log:
        if min <= 0:
            raise ValueError(f"knob: a log slider needs min > 0; got {min}")
        step = 0.01 if step is None else step
    elif step is None:
        step = (max - min) / 100
    if step <= 0:
        raise ValueError(f"knob: step must be > 0; got {step}")
    return Knob(value, min, max, step, unit=unit, label=label, log=log)


def _log_grid(value, lo, hi, step):
    """Exponent ends of a log slider whose grid (min + k step, in decades) passes through the
    starting value, inside [lo, hi]: the browser snaps a slider onto its grid, and a grid from
    log10(0.5) in steps of 0.01 would turn 2 TB/s into 1.99 TB/s on the first sync."""
    e = math.log10(value)
    below = math.floor((e - math.log10(lo)) / step + 1e-9)
    above = math.floor((math.log10(hi) - e) / step + 1e-9)
    return e - below * step, e + above * step


def _whole(x) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def whole_log_options(value: int, lo: int, hi: int, step: float = 0.01) -> list[int]:
    """The whole numbers a whole-number log knob offers: lo, hi and the starting value exactly, and
    between them 10^(k step) rounded to whole numbers (each once), so the readout is the whole
    number the panel computes with and the ends are the stated ends (a FloatLogSlider read 1.413
    for a batch of 1 and topped out at 1023 for 1024)."""
    import math as _m

    a, b = _m.log10(lo), _m.log10(hi)
    n = max(1, round((b - a) / step))
    vals = {int(round(10 ** (a + (b - a) * k / n))) for k in range(n + 1)}
    vals |= {lo, hi, value}
    return sorted(v for v in vals if lo <= v <= hi)


class WholeLogSlider(widgets.SelectionSlider):
    """A log-spaced slider over whole numbers (see :func:`whole_log_options`). A number set from
    code (a test, a benchmark sweep) snaps to the nearest option in log space."""

    @traitlets.validate("value")
    def _validate_value(self, proposal):
        v = proposal.value
        opts = self._options_values
        if isinstance(v, (int, float)) and not isinstance(v, bool) and v not in opts and v > 0:
            v = min(opts, key=lambda o: abs(math.log(o) - math.log(v)))
        return super()._validate_value(traitlets.Bunch(value=v, owner=self, trait=proposal.trait))


def _widget_for(name: str, k: Knob):
    desc = k.label or name
    if k.unit and k.options is None:
        desc = f"{desc} [{k.unit}]"
    style = {"description_width": "initial"}
    layout = widgets.Layout(width="420px", max_width="100%")
    if k.options is not None:
        return widgets.Dropdown(options=k.options, value=k.value, description=desc, style=style, layout=layout)
    if k.log and all(_whole(x) for x in (k.value, k.min, k.max)):
        return WholeLogSlider(options=whole_log_options(k.value, k.min, k.max, k.step), value=k.value,
                              description=desc, style=style, layout=layout)
    if k.log:
        lo, hi = _log_grid(k.value, k.min, k.max, k.step)
        return widgets.FloatLogSlider(value=k.value, base=10, min=lo, max=hi,
                                      step=k.step, description=desc, style=style, layout=layout,
                                      readout_format=".4g")
    if k.is_int:
        return widgets.IntSlider(value=k.value, min=k.min, max=k.max, step=k.step, description=desc,
                                 style=style, layout=layout)
    decimals = max(0, -math.floor(math.log10(k.step))) if k.step < 1 else 0
    return widgets.FloatSlider(value=k.value, min=k.min, max=k.max, step=k.step, description=desc,
                               style=style, layout=layout, readout_format=f".{min(decimals, 6)}f")


def _format_result(value, spec) -> str:
    if isinstance(value, str):
        return html.escape(value)
    if isinstance(value, bool):
        return "yes" if value else "no"
    if spec is None:
        spec = ("auto", 4)
    unit, decimals = spec[0], spec[1]
    if unit == "auto":
        q = as_quantity(value)
        if q.dimensionless and not isinstance(value, Quantity):
            return html.escape(fmt(q, sig=decimals, grouping=True))
        return html.escape(fmt(q, "auto", sig=decimals))
    try:
        return html.escape(fmt(value, unit or None, decimals))
    except ValueError:  # too small for these decimals: three significant digits instead
        return html.escape(fmt(value, unit or None, sig=3))


class Panel(widgets.VBox):
    """Sliders + result table + plot for one calculator. Build it with :func:`panel`.

    The panel as data: ``title``, ``where``, ``knob_names``, ``main``; its parts ``heading``,
    ``controls`` (name -> widget), ``table``, ``message``, ``image``, each with a class name
    (fc-heading, fc-readouts, fc-message, fc-picture, fc-main-knob on the main knob); and the same
    facts in the saved widget state (``fleetcalc``: title, where, knobs, main), which the static
    site reads instead of parsing the heading's HTML.
    """

    fleetcalc = traitlets.Dict().tag(sync=True)

    SLOW_UPDATE_S = 0.15  # beyond this, sliders update on release rather than while dragging

    def __init__(self, compute: Callable[..., dict], knobs: dict[str, Knob], show=None, plot=None,
                 title: str = "", where: str = "", axes: int = 1, figsize=(6.4, 3.4),
                 prompt: str = "", main: str | None = None, more=()):
        self.compute = compute
        self.title = title
        self.where = where
        self.prompt = prompt
        self.main = main if main is not None else next(iter(knobs), None)
        self.knob_specs = dict(knobs)
        self.show = show
        self.plot_fn = plot
        self.controls = {name: _widget_for(name, k) for name, k in knobs.items()}
        self.table = widgets.HTML()
        self.message = widgets.HTML()
        self.image = widgets.Image(format="png", layout=widgets.Layout(max_width="100%"))
        self.results: dict = {}
        self.updates: list[UpdateRecord] = []  # one record per update, oldest first
        # False: the plot is never drawn (set by collect_panels(draw=False); checks of compute only)
        self.drawing = all(d for _, d in _COLLECTORS.get())
        self._n_axes = axes
        self._figsize = figsize
        self._fig = None
        self._axes = None
        self._updater = None
        self._animated: list = []
        self._background = None
        self._last_render = "none"
        heading = f"<b>{html.escape(title)}</b>" + (f" <span style='color:#666'>({html.escape(where)})</span>" if where else "")
        if prompt:
            heading += (f"<div class='fc-prompt'><b>Predict first:</b> {html.escape(prompt)}</div>")
        # shown only on the static site (its stylesheet reveals .fc-static-only); a live kernel hides it
        note = ("<div class='fc-static-only' style='display:none;color:#666;font-size:85%'>On this page only "
                f"<b>{html.escape(self._label(self.main))}</b> moves (frames drawn when the site was built); "
                "the other inputs need a running kernel (launch button, make lab, Binder or JupyterLite).</div>")
        folded = list(more) or list(self.controls)[MAX_VISIBLE_KNOBS:]
        unknown = [n for n in folded if n not in self.controls]
        if unknown:
            raise KeyError(f"panel more= names {unknown}, which are not knobs")
        visible = [w for n, w in self.controls.items() if n not in folded]
        if len(visible) > MAX_VISIBLE_KNOBS:
            raise ValueError(f"panel shows {len(visible)} knobs; at most {MAX_VISIBLE_KNOBS} (put the rest in more=)")
        knob_box = [widgets.VBox(visible, layout=widgets.Layout(min_width="0"))]
        if folded:
            fold = widgets.Accordion(children=[widgets.VBox([self.controls[n] for n in folded])],
                                     titles=("more inputs",), selected_index=None)
            knob_box.append(fold)
        top = widgets.Box([widgets.VBox(knob_box, layout=widgets.Layout(min_width="0")),
                           widgets.VBox([self.table, self.message], layout=widgets.Layout(min_width="0"))],
                          layout=widgets.Layout(display="flex", flex_flow="row wrap", grid_gap="0 1.5em"))
        top.add_class("fc-panel-top")
        style = "<style>" + " ".join(PANEL_CSS.split()) + "</style>"
        self.heading = widgets.HTML(style + heading + note)
        self.heading.add_class("fc-heading")
        children = [self.heading, top]
        if plot is not None:
            children.append(self.image)
        super().__init__(children=children, fleetcalc={
            "title": title, "where": where, "main": self.main,
            "knobs": [[name, self._label(name)] for name in self.controls]})   # a list: a saved notebook sorts dict keys
        # class names the static site and its stylesheet find (fc-panels.css, static scrubbing)
        self.add_class("fc-panel")
        self.table.add_class("fc-readouts")
        self.message.add_class("fc-message")
        self.image.add_class("fc-picture")
        if self.main is not None:
            self.controls[self.main].add_class("fc-main-knob")
        for w in self.controls.values():
            w.observe(self._on_change, names="value")
        self.update()
        _LIVE.add(self)
        for made, _ in _COLLECTORS.get():
            made.append(self)

    @property
    def knob_names(self) -> list[str]:
        """The knobs' names, in the order the panel shows them."""
        return list(self.controls)

    def _label(self, name) -> str:
        if name is None:
            return ""
        k = self.knob_specs[name]
        return k.label or name

    # -- inputs -------------------------------------------------------------------------------
    def inputs(self, **overrides) -> dict:
        raw = {name: w.value for name, w in self.controls.items()}
        raw.update(overrides)
        return {name: self.knob_specs[name].to_input(v) for name, v in raw.items()}

    def compute_at(self, **overrides) -> dict:
        """Results for the current slider values with some overridden (no redraw)."""
        return self.compute(**self.inputs(**overrides))

    def set(self, **values):
        """Move sliders (as a student would) and return the new results."""
        for name, v in values.items():
            self.controls[name].value = v
        return self.results

    # -- updating -----------------------------------------------------------------------------
    def _on_change(self, change):
        self.update()

    @property
    def timings(self) -> list[tuple[float, float]]:
        """(compute s, table + draw s) per update, wall time (see :attr:`updates` for more)."""
        return [(u.compute_s, u.table_s + u.draw_s) for u in self.updates]

    def update(self):
        """Recompute from the sliders, refresh the table and the plot; append an UpdateRecord."""
        inputs = self.inputs()
        t0, c0 = time.perf_counter(), time.thread_time()
        try:
            results = self.compute(**inputs)
        except (ValueError, TypeError) as exc:  # InputError and any other refusal: say it, keep the last result
            self.message.value = f"<span style='color:#b00'>{html.escape(str(exc))}</span>"
            return
        t1, c1 = time.perf_counter(), time.thread_time()
        self.message.value = ""
        self.results = results
        self.table.value = self._table_html(results)
        t2, c2 = time.perf_counter(), time.thread_time()
        self._last_render = "none"
        if self.plot_fn is not None and self.drawing:
            self._draw(inputs, results)
        t3, c3 = time.perf_counter(), time.thread_time()
        self.updates.append(UpdateRecord(t1 - t0, t2 - t1, t3 - t2, c1 - c0, c2 - c1, c3 - c2,
                                         self._last_render))
        if t3 - t0 > self.SLOW_UPDATE_S:
            # a drag on a live kernel sends every intermediate value; when one update is this
            # slow the plot would trail the mouse, so recompute on release instead
            for w in self.controls.values():
                if hasattr(w, "continuous_update"):
                    w.continuous_update = False

    def _table_html(self, results: dict) -> str:
        names = list(results) if self.show is None else list(self.show)
        rows = []
        for name in names:
            if name not in results:
                raise KeyError(f"panel show= names {name!r}, which compute() did not return")
            spec = None if self.show is None else self.show[name]
            label = spec[2] if spec is not None and len(spec) > 2 else name
            rows.append(f"<tr><td style='padding-right:1em'>{html.escape(label)}</td>"
                        f"<td style='text-align:right'><code>{_format_result(results[name], spec)}</code></td></tr>")
        return "<table>" + "".join(rows) + "</table>"

    # -- drawing ------------------------------------------------------------------------------
    # A full matplotlib draw re-lays out every tick label, axis label and legend (~100+ ms on a
    # 2-core machine). Most slider moves only move a few artists, so the panel blits: the first
    # update that changes artists marks them ``animated`` (left out of the full draw), the static
    # rest is drawn once and cached as a background, and later moves restore the background and
    # draw just the changed artists (~10x faster). Moving another slider that changes other
    # artists costs one full draw, after which those are the animated ones. Anything else (new
    # artists, changed view limits, changed axis or legend) falls back to a full draw. The result
    # is the same picture, except that moving artists are drawn above the legend (tested: < 0.1 %
    # of pixels differ).
    # (Annotation is left out: drawn on its own it lands at a different offset than in a full draw)
    _BLITTABLE = ("Line2D", "Text", "Rectangle", "Polygon", "PathCollection",
                  "PolyCollection", "LineCollection", "Circle", "Wedge", "FancyArrowPatch",
                  "FillBetweenPolyCollection")

    def _axes_list(self):
        return list(self._axes) if isinstance(self._axes, tuple) else [self._axes]

    def _all_axes(self):
        """Every axes of the figure, twins (ax.twinx()) included."""
        return list(self._fig.axes)

    def _layout_state(self):
        return [(tuple(ax.viewLim.bounds), tuple(map(id, ax.get_children()))) for ax in self._all_axes()]

    def _draw(self, inputs, results):
        if self._fig is None:
            from matplotlib.backends.backend_agg import FigureCanvasAgg
            from matplotlib.figure import Figure  # lazy: keeps `import fleetcalc` fast

            # no layout engine: constrained layout re-solves on every draw (about 2x slower);
            # tight_layout runs once, after the first draw, and the layout is kept after that
            self._fig = Figure(figsize=self._figsize, dpi=90)
            self._canvas = FigureCanvasAgg(self._fig)
            stacked = getattr(self, "_stacked", False)
            axs = self._fig.subplots(self._n_axes, 1) if stacked else self._fig.subplots(1, self._n_axes)
            self._axes = axs if self._n_axes == 1 else tuple(axs)
            self._updater = self.plot_fn(self._axes, inputs, results)
            self._fig.tight_layout()
            self._animated = []
            self._render(full=True)
            return
        if self._updater is None:
            for ax in self._axes_list():
                ax.clear()
            self.plot_fn(self._axes, inputs, results)
            self._render(full=True)
            self._last_render = "replot"
            return
        before = self._layout_state()
        self._updater(inputs, results)
        # axis and spine objects turn stale on any set_xlim/set_ylim call; with unchanged view
        # limits their drawing is unchanged, so they do not force a full draw
        stale = [a for ax in self._all_axes() for a in ax.get_children()
                 if a.stale and type(a).__name__ not in ("XAxis", "YAxis", "Spine")]
        blittable = all(type(a).__name__ in self._BLITTABLE for a in stale)
        same_layout = self._layout_state() == before
        if same_layout and blittable and all(a in self._animated for a in stale):
            self._render(full=False)
            return
        if same_layout and blittable:
            # animate exactly what this move changed: the rest goes into the cached background,
            # so after a switch to another slider its artists are not redrawn on every blit
            for a in self._animated:
                if a not in stale:
                    a.set_animated(False)
            for a in stale:
                a.set_animated(True)
            self._animated = list(stale)
        self._render(full=True)

    def _render(self, full: bool):
        self._last_render = "full" if full else "blit"
        canvas = self._canvas
        if full:
            canvas.draw()  # animated artists are left out of this draw
            self._background = canvas.copy_from_bbox(self._fig.bbox)
        else:
            canvas.restore_region(self._background)
        for a in sorted(self._animated, key=lambda a: a.get_zorder()):
            if a.get_visible() and a.figure is not None:
                self._fig.draw_artist(a)
        # the picture is now up to date: what the next update marks stale is what it changed.
        # (Artists a draw skips stay stale otherwise: an empty title, the patch of an axes with
        # axis("off"), an Annotation, whose draw re-stales its own arrow; they would force a full
        # draw, or be blitted over the picture, on every later move.)
        for ax in self._all_axes():
            for a in ax.get_children():
                a.stale = False
        from PIL import Image as _PIL  # matplotlib depends on pillow

        w, h = canvas.get_width_height(physical=True)
        buf = io.BytesIO()
        _PIL.frombuffer("RGBA", (w, h), canvas.buffer_rgba(), "raw", "RGBA", 0, 1).save(
            buf, format="png", compress_level=1)
        self.image.value = buf.getvalue()

    # -- public hooks (tools, tests, long-running kernels) ------------------------------------
    def redraw(self, full: bool = True):
        """Render the current state again: ``full=True`` draws the whole figure (and refreshes the
        cached background), ``full=False`` blits the moving artists onto the cached background.
        Builds the figure first if there is none (after :meth:`reset_figure`)."""
        if self.plot_fn is None or not self.drawing:
            return
        if self._fig is None:
            self._draw(self.inputs(), self.results)
            return
        self._render(full=full or self._background is None)

    def resize_figure(self, figsize, stacked: bool = False):
        """Draw the plot at another size from now on (``stacked``: several axes one above the
        other instead of side by side); the static site's narrow frames for phones use it."""
        self._figsize = tuple(figsize)
        self._stacked = bool(stacked)
        self.reset_figure()
        self.redraw()

    def min_font_pt(self) -> float | None:
        """The smallest font size (points) of the visible text in the current figure."""
        if self._fig is None:
            return None
        from matplotlib.text import Text

        sizes = [t.get_fontsize() for t in self._fig.findobj(Text)
                 if t.get_visible() and t.get_text().strip() and t.figure is not None]
        return min(sizes) if sizes else None

    def reset_figure(self):
        """Drop the figure (and its memory); the next update or :meth:`redraw` builds a new one."""
        self._fig = self._axes = self._updater = None
        self._canvas = self._background = None
        self._animated = []

    def close(self):
        """Close the panel's widgets and drop its figure (what a notebook does when it is done)."""
        self.reset_figure()

        def descendants(w):
            for child in getattr(w, "children", ()):
                yield from descendants(child)
                yield child
            for part in (getattr(w, "layout", None), getattr(w, "style", None)):
                if isinstance(part, widgets.Widget):
                    yield part

        for w in list(descendants(self)):
            w.close()
        super().close()

    @property
    def updates_in_place(self) -> bool:
        """True when ``plot`` returned an update function (moves update artists, may blit)."""
        return self._updater is not None

    def full_redraw_png(self) -> bytes:
        """PNG of a full (non-blitted) draw of the current state, for tests."""
        if self._fig is None:
            self.redraw()
        saved = list(self._animated)
        for a in saved:
            a.set_animated(False)
        buf = io.BytesIO()
        self._fig.savefig(buf, format="png")
        for a in saved:
            a.set_animated(True)
        self._render(full=True)
        return buf.getvalue()

    @property
    def figure(self):
        return self._fig


def panel(compute: Callable[..., dict], knobs: dict[str, Knob], *, show=None, plot=None, title: str = "",
          where: str = "", axes: int = 1, figsize=(6.4, 3.4), prompt: str = "", main: str | None = None,
          more=()) -> Panel:
    """Build a :class:`Panel` (see the module docstring). Returns the widget; display it as the cell's value."""
    params = inspect.signature(compute).parameters
    accepts_any = any(p.kind is p.VAR_KEYWORD for p in params.values())
    missing = [n for n in knobs if n not in params and not accepts_any]
    if missing:
        raise TypeError(f"panel: compute() has no parameter(s) {missing} for these knobs")
    if main is not None and main not in knobs:
        raise KeyError(f"panel main={main!r} is not one of the knobs {list(knobs)}")
    return Panel(compute, knobs, show=show, plot=plot, title=title, where=where, axes=axes, figsize=figsize,
                 prompt=prompt, main=main, more=more)
