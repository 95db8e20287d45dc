"""The workbook's performance benchmark (``make bench``); writes bench/results.md.

    workbook bench                             # import time, every panel, panel builder vs interact, notebooks
    workbook bench --moves 10 --only 28_3 --skip-notebooks          # quick look at a few panels
    workbook bench --tests --site              # also time the whole test suite and the site build (long)
    workbook bench --grading 100 --skip-import --skip-panels --skip-compare --skip-notebooks   # the grader only

What it measures (targets in brackets; see bench/README.md):

* ``import fleetcalc`` in a fresh interpreter, median of 5 (< 0.3 s), and the heaviest imports;
* every panel of every chapter and solution notebook (collected without a kernel by
  lib/workbook/site/panel_harness.py): each slider moved across its range (``--moves`` per slider, every
  option of a dropdown), as a student would; per update the panel appends an ``UpdateRecord``
  (compute, table and draw seconds; full draw or blit) to ``Panel.updates``. Median and p95 per
  panel: total (< 100 ms median, < 150 ms p95; median of the panels' medians < 30 ms) and
  compute (< 5 ms median).
  Panels that miss get a breakdown (compute / plot update / PNG encoding) and a profile;
* the same roofline panel written the plain way (``ipywidgets.interactive`` + pyplot, a new
  figure per move rendered as the inline backend does) against the panel builder, in one run;
* each notebook's execution time in a fresh kernel (< 10 s), on an in-memory copy: the repo's
  .ipynb files are never written;
* optionally the whole test suite (``--tests``) and the site build (``--site``);
* optionally (``--grading N``) the grader: N sample submissions of one set graded with isolation,
  each in its own sandbox (< 3 min for 100 on 2 cores), and the sandbox's own cost per submission
  (the same submission run with and without the sandbox, one at a time).

Timings on a shared machine are noisy: the load average at start and end is printed with the
results; compare runs made on the same machine. Sections of an existing results file that this
script does not write (``## Grading a class``, for example) are kept.
"""
from __future__ import annotations

import argparse
import contextlib
import cProfile
import io
import json
import math
import os
import platform
import pstats
import re
import shlex
import statistics
import subprocess
import sys
import time
from pathlib import Path

from workbook import repo_root
os.environ.setdefault("MPLBACKEND", "Agg")

from workbook.site import panel_harness

TARGETS = {"import_s": 0.3, "panel_median_ms": 100.0, "panel_p95_ms": 150.0, "median_of_medians_ms": 30.0,
           "compute_ms": 5.0, "notebook_s": 10.0,
           "first_cell_s": 0.3}

KEPT_MARK = ("<!-- sections below are kept from the earlier results file: written by hand or by other "
             "tools, or not measured by this run -->")


def kept_sections(old: str, written: list[str]) -> list[str]:
    """The "## " sections of an earlier results file that this run did not write again: those of
    other tools or written by hand (e.g. "Grading a class"), and measurements this run skipped
    (each keeps the line saying which command made it). Kept in their order, after this run's."""
    parts = re.split(r"(?m)^(?=## )", old)
    heads = {w.split("(")[0].strip() for w in written}
    return [part.rstrip() + "\n" for part in parts[1:]
            if part[3:].split("\n", 1)[0].split("(")[0].strip() not in heads]


def pct(xs, q):
    xs = sorted(xs)
    if not xs:
        return math.nan
    k = (len(xs) - 1) * q / 100
    lo, hi = math.floor(k), math.ceil(k)
    return xs[lo] + (xs[hi] - xs[lo]) * (k - lo)


def ms(x):
    """Seconds as milliseconds for the tables, three significant digits (the number alone)."""
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "n/a"
    from fleetcalc.core.units import Q_, fmt

    return fmt(Q_(x, "s"), "ms", sig=3, with_unit=False)


def loadavg() -> str:
    try:
        return " / ".join(f"{x:.1f}" for x in os.getloadavg())
    except OSError:
        return "n/a"


# ----------------------------------------------------------------------------- import time

def first_code_cell(md: Path) -> str:
    """The source of a MyST notebook's first code cell (its setup imports)."""
    import jupytext  # noqa: PLC0415
    return next(c.source for c in jupytext.read(md).cells if c.cell_type == "code")


def bench_import(python: str, repeats: int = 5) -> dict:
    import resource

    cpu = {}

    def wall(code):
        r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        subprocess.run([python, "-c", code], check=True, cwd=repo_root(), capture_output=True)
        dt = time.perf_counter() - t0
        r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu.setdefault(code, []).append(r1.ru_utime + r1.ru_stime - r0.ru_utime - r0.ru_stime)
        return dt

    base = statistics.median(wall("pass") for _ in range(repeats))
    fc = statistics.median(wall("import fleetcalc") for _ in range(repeats))
    nbk = statistics.median(wall("import fleetcalc.notebook") for _ in range(max(1, repeats // 2)))
    # `import fleetcalc` defers pint; the first unit (numpy, pint, the registry) is paid here
    first = statistics.median(wall("from fleetcalc import Q_; Q_(1, 'GB')") for _ in range(repeats))
    # the first cell of a chapter notebook as a kernel runs it: IPython is already loaded, then the
    # cell's imports and the first unit (§28.5's setup cell is the model: facade + plot + diagram)
    cell = first_code_cell(repo_root() / "chapters" / "ch28" / "28_5_collectives.md")
    pre = "import IPython, time, resource; t0 = time.perf_counter(); c0 = time.process_time()\n"
    post = "\nQ_(1, 'GB'); print(time.perf_counter() - t0, time.process_time() - c0)"
    cells = [subprocess.run([python, "-c", pre + cell + post], check=True, cwd=repo_root(), capture_output=True,
                            text=True, env={**os.environ, "MPLBACKEND": "Agg"}).stdout.split()[-2:]
             for _ in range(repeats)]
    cpu_base = statistics.median(cpu["pass"])
    r = subprocess.run([python, "-X", "importtime", "-c", "import fleetcalc"], cwd=repo_root(), capture_output=True, text=True)
    rows = []
    for line in r.stderr.splitlines():
        m = re.match(r"import time:\s+(\d+) \|\s+(\d+) \|(\s*)(\S+)", line)
        if m:
            rows.append((int(m.group(2)), int(m.group(1)), len(m.group(3)), m.group(4)))
    # what fleetcalc's import spends its time on: the biggest packages by cumulative time
    top = sorted([r for r in rows if r[3] != "fleetcalc" and "." not in r[3]] +
                 [r for r in rows if r[3].startswith("fleetcalc.")], reverse=True)[:8]
    return {"python_startup_s": base, "import_fleetcalc_s": fc - base, "import_fleetcalc_wall_s": fc,
            "import_fleetcalc_cpu_s": statistics.median(cpu["import fleetcalc"]) - cpu_base,
            "import_notebook_cpu_s": statistics.median(cpu["import fleetcalc.notebook"]) - cpu_base,
            "import_notebook_s": nbk - base, "first_unit_s": first - base,
            "first_unit_cpu_s": statistics.median(cpu["from fleetcalc import Q_; Q_(1, 'GB')"]) - cpu_base,
            "first_cell_s": statistics.median(float(w) for w, _ in cells),
            "first_cell_cpu_s": statistics.median(float(c) for _, c in cells), "heaviest": [(name, cum / 1e6) for cum, _, _, name in top]}


# ----------------------------------------------------------------------------- panels

def sweep_values(k, moves: int) -> list:
    """Values a student reaches moving one knob across its range (snapped to the slider's steps)."""
    import numpy as np

    if k.options is not None:
        opts = list(k.options.values()) if isinstance(k.options, dict) else list(k.options)
        seq = [o for o in opts if o != k.value] + [k.value]
        reps = max(1, math.ceil(moves / max(1, len(seq))))
        return (seq * reps)[:max(moves, len(seq))]
    if k.log:
        lo, hi = math.log10(k.min), math.log10(k.max)
        steps = np.linspace(lo, hi, moves)
        return [float(10 ** (lo + round((s - lo) / k.step) * k.step)) for s in steps]
    n = round((k.max - k.min) / k.step)
    idx = sorted({round(i) for i in np.linspace(0, n, moves)})
    vals = [k.min + i * k.step for i in idx]
    vals = [min(v, k.max) for v in vals]
    return [int(round(v)) for v in vals] if k.is_int else [float(v) for v in vals]


def drive_panel(p, moves: int) -> dict:
    """Move every slider of ``p`` across its range; return timings and problems.

    Per update the panel appends a ``fleetcalc.ui.widgets.UpdateRecord`` to ``p.updates`` (wall and
    CPU seconds for compute, result table and draw; full draw or blit). The CPU time around each
    slider move (this thread's ``time.thread_time``: the record's phases plus the widget's own
    bookkeeping) is what the targets are judged on: on a loaded machine the wall time grows with
    the load, the CPU time much less (both are reported).
    """
    p.updates.clear()
    refused, errors = [], []
    cpu_total = []
    for name, k in p.knob_specs.items():
        w = p.controls[name]
        start = w.value
        for v in sweep_values(k, moves):
            n_before = len(p.updates)
            t0 = time.thread_time()
            try:
                w.value = v
            except Exception as exc:  # noqa: BLE001 - a slider value the panel cannot handle
                errors.append(f"{name}={v!r}: {type(exc).__name__}: {str(exc)[:160]}")
                continue
            dt = time.thread_time() - t0
            if len(p.updates) > n_before:
                cpu_total.append(dt)
            elif w.value == v and p.message.value:
                refused.append(f"{name}={v!r}: {re.sub('<[^>]+>', '', p.message.value)[:160]}")
        try:
            w.value = start
        except Exception as exc:  # noqa: BLE001
            errors.append(f"{name} back to {start!r}: {type(exc).__name__}: {exc}")
    ups = list(p.updates)
    comp = [u.compute_s for u in ups]
    draw = [u.table_s + u.draw_s for u in ups]
    tot = [u.total_s for u in ups]
    return {"n": len(tot), "compute_med": pct(comp, 50), "compute_p95": pct(comp, 95),
            "draw_med": pct(draw, 50), "draw_p95": pct(draw, 95), "total_med": pct(tot, 50),
            "total_p95": pct(tot, 95), "cpu_med": pct(cpu_total, 50), "cpu_p95": pct(cpu_total, 95),
            "cpu_compute_med": pct([u.cpu_compute_s for u in ups], 50), "refused": refused, "errors": errors,
            "full_redraws": sum(u.render in ("full", "replot") for u in ups),
            "blits": sum(u.render == "blit" for u in ups),
            "cpu_table_med": pct([u.cpu_table_s for u in ups], 50),
            "cpu_draw_med": pct([u.cpu_draw_s for u in ups], 50)}


def breakdown(p, r: dict) -> dict:
    """Where one update's CPU time goes (medians over the sweep's update records) and what the
    figure holds."""
    fig = p.figure
    if fig is None:
        return {}
    axes = fig.axes
    return {"compute": r["cpu_compute_med"], "table": r["cpu_table_med"], "draw": r["cpu_draw_med"],
            "has_update_fn": p.updates_in_place, "n_artists": sum(len(ax.get_children()) for ax in axes),
            "log_axes": any(ax.get_xscale() == "log" or ax.get_yscale() == "log" for ax in axes)}


def profile_panel(p, moves: int = 3, top: int = 6) -> list[str]:
    """The functions that spend the most time themselves over a few slider moves (for the report)."""
    name, k = next(iter(p.knob_specs.items()))
    vals = sweep_values(k, moves + 1)
    w = p.controls[name]
    start = w.value
    prof = cProfile.Profile()
    prof.enable()
    for v in vals:
        with contextlib.suppress(Exception):
            w.value = v
    prof.disable()
    with contextlib.suppress(Exception):
        w.value = start
    st = pstats.Stats(prof, stream=io.StringIO())
    total = sum(tt for (_, _, _), (_, _, tt, _, _) in st.stats.items()) or 1.0
    cats: dict[str, float] = {}
    for (fn, line, func), (cc, nc, tt, ct, callers) in st.stats.items():
        where = f"{fn}:{func}"
        for cat, pat in CATEGORIES:
            if re.search(pat, where):
                break
        else:
            cat = "other"
        cats[cat] = cats.get(cat, 0.0) + tt
    rows = sorted(((tt, cat) for cat, tt in cats.items()), reverse=True)
    return [f"{cat} {100 * tt / total:.0f}%" for tt, cat in rows[:top]]


CATEGORIES = [  # (what, regex on "file:function") for the profile summary, first match wins
    ("text layout and glyphs", r"ft2font|text\.py|font_manager|mathtext|_mathtext|textpath|draw_text|get_text_width"),
    ("PNG encoding", r"ImagingEncoder|PIL|_png|zlib"),
    ("ticks and axis", r"axis\.py|ticker\.py|scale\.py"),
    ("lines, paths, transforms", r"lines\.py|path\.py|transforms\.py|draw_path|markers\.py|collections\.py|patches\.py"),
    ("legend", r"legend"),
    ("fleetcalc compute (pint, numpy)", r"fleetcalc|pint|numpy"),
]


def bench_panels(moves: int, only: str | None, dirs) -> tuple[list[dict], list[str]]:
    sources = panel_harness.notebook_sources(dirs)
    if only:
        sources = [s for s in sources if re.search(only, s.as_posix())]
    rows, failures = [], []
    for src in sources:
        res = panel_harness.collect(src, draw=True)
        failures += [str(f) for f in res.failures]
        for rec in res.panels:
            p = rec.panel
            first = p.updates[0].total_s if p.updates else math.nan
            r = drive_panel(p, moves)
            r.update(id=rec.id, path=rec.path, cell=rec.cell, title=rec.title, knobs=len(p.knob_specs),
                     first_total=first)
            r["miss"] = [why for why, bad in (
                (f"median {ms(r['cpu_med'])} ms > {TARGETS['panel_median_ms']:.0f}", r["cpu_med"] * 1000 > TARGETS["panel_median_ms"]),
                (f"p95 {ms(r['cpu_p95'])} ms > {TARGETS['panel_p95_ms']:.0f}", r["cpu_p95"] * 1000 > TARGETS["panel_p95_ms"]),
                (f"compute {ms(r['cpu_compute_med'])} ms > {TARGETS['compute_ms']:.0f}", r["cpu_compute_med"] * 1000 > TARGETS["compute_ms"]),
                ("slider values fail", bool(r["errors"])),
            ) if bad]
            if r["miss"]:
                r["breakdown"] = breakdown(p, r)
                r["profile"] = profile_panel(p)
            rows.append(r)
            print(f"  {rec.id}: CPU median {ms(r['cpu_med'])} ms, p95 {ms(r['cpu_p95'])} ms, compute "
                  f"{ms(r['cpu_compute_med'])} ms; wall median {ms(r['total_med'])} ms ({r['n']} updates)"
                  f"{'  MISS' if r['miss'] else ''}", flush=True)
            p.close()  # free the figure and the widgets: a book has many panels
    return rows, failures


# ----------------------------------------------------------------------------- builder vs interact

def bench_builder_vs_interact(moves: int) -> dict:
    """The §28.3 roofline panel written twice: fleetcalc's panel() and interactive() + pyplot."""
    import ipywidgets as W
    import matplotlib

    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt
    import numpy as np
    from IPython.core.pylabtools import print_figure

    from fleetcalc.ui import plots

    from fleetcalc.physics import roofline
    from fleetcalc.ui.plots.roofline import roofline_panel
    from fleetcalc.core.units import Q_
    from fleetcalc.ui.widgets import knob, panel

    def compute(B, d, s, R_peak, beta_mem):
        I = roofline.matmul_intensity(B, d, d, s)
        return {"I": I, "I_star": roofline.ridge_point(R_peak, beta_mem),
                "R": roofline.attainable_rate(I, R_peak, beta_mem),
                "t": roofline.time_lower_bound(roofline.matmul_flops(B, d, d), roofline.matmul_bytes(B, d, d, s),
                                               R_peak, beta_mem),
                "bound": roofline.bound_kind(I, R_peak, beta_mem), "R_peak": R_peak, "beta_mem": beta_mem}

    Bs = [int(b) for b in np.unique(np.round(np.linspace(1, 1024, moves)))]

    # 1. the panel builder
    p = panel(compute, knobs={"B": knob(1, 1, 1024, 1), "d": knob(4096, 512, 16384, 512),
                              "s": knob(2, options=[4, 2, 1], unit="byte"),
                              "R_peak": knob(100, 10, 2000, 10, unit="TFLOP/s"),
                              "beta_mem": knob(2, 0.5, 10, 0.1, unit="TB/s")},
              show={"I": ("FLOP/byte", 2), "R": ("TFLOP/s", 2), "t": ("us", 2), "bound": None},
              plot=roofline_panel, title="roofline (panel builder)")
    p.updates.clear()
    t_builder, c_builder = [], []
    for b in Bs:
        t0, c0 = time.perf_counter(), time.thread_time()
        p.controls["B"].value = b
        t_builder.append(time.perf_counter() - t0)
        c_builder.append(time.thread_time() - c0)

    # 3. the plain way: interactive() + pyplot, a new figure per move, rendered as the inline backend does
    I_axis = np.logspace(-1, 4, 200)

    def make_plain(plain_ticks: bool):
        def plain(B, d, s, R_peak, beta_mem):
            res = compute(B, d, Q_(s, "byte"), Q_(R_peak, "TFLOP/s"), Q_(beta_mem, "TB/s"))
            r_peak = res["R_peak"].m_as("TFLOP/s")
            beta = res["beta_mem"].m_as("TB/s")
            fig, ax = plt.subplots(figsize=(6.4, 3.4), dpi=90)
            ax.loglog(I_axis, np.minimum(r_peak, I_axis * beta), lw=2, label="roof")
            ax.axvline(r_peak / beta, ls="--", color="#999", label="ridge I*")
            i_op, r_op = res["I"].m_as("FLOP/byte"), res["R"].m_as("TFLOP/s")
            ax.plot([i_op], [r_op], "o", ms=9, label="operating point")
            ax.annotate(res["bound"], (i_op, r_op), textcoords="offset points", xytext=(8, -14))
            ax.set_xlabel("arithmetic intensity I (FLOP/byte)")
            ax.set_ylabel("attainable R (TFLOP/s)")
            ax.grid(True, alpha=0.25)
            if plain_ticks:
                plots.plain_log_ticks(ax)
            ax.legend(loc="lower right", fontsize=8)
            print(f"I = {i_op:.2f} FLOP/byte, R = {r_op:.2f} TFLOP/s, t = {res['t'].m_as('us'):.2f} us")
            print_figure(fig, "png", bbox_inches="tight")  # what the inline backend's show() does
            plt.close(fig)
        return plain

    out = {"panel builder": (t_builder, c_builder)}

    # 2. ipympl (if installed; it is not a dependency): one figure on ipympl's widget canvas, the
    # same roofline plot and update function, and per move what its kernel side does when the
    # browser asks for a redraw after draw_idle(): canvas.draw() is a full Agg draw, after which
    # ipympl's manager computes the changed pixels (get_diff_image) and sends them on the comm
    try:
        from ipympl.backend_nbagg import Canvas as IpymplCanvas, FigureManager as IpymplManager
    except ImportError:
        IpymplCanvas = None
    if IpymplCanvas is not None:
        from matplotlib.figure import Figure

        fig = Figure(figsize=(6.4, 3.4), dpi=90)
        canvas = IpymplCanvas(fig)
        IpymplManager(canvas, 0)  # what plt.figure() does under %matplotlib widget
        ax = fig.subplots()
        base = p.inputs()
        upd = roofline_panel(ax, base, compute(**base))
        fig.tight_layout()
        canvas.draw()
        times, cpus = [], []
        for b in Bs:
            t0, c0 = time.perf_counter(), time.thread_time()
            inputs = dict(base, B=b)
            upd(inputs, compute(**inputs))
            canvas.draw()
            times.append(time.perf_counter() - t0)
            cpus.append(time.thread_time() - c0)
        out["ipympl (draw_idle: full draw + diff image)"] = (times, cpus)
        canvas.close()
    for label, ticks in (("interact + pyplot", False), ("interact + pyplot + plain_log_ticks", True)):
        times, cpus = [], []
        with contextlib.redirect_stdout(io.StringIO()):
            w = W.interactive(make_plain(ticks), B=W.IntSlider(1, 1, 1024, 1), d=W.IntSlider(4096, 512, 16384, 512),
                              s=W.Dropdown(options=[4, 2, 1], value=2),
                              R_peak=W.FloatSlider(100, min=10, max=2000, step=10),
                              beta_mem=W.FloatSlider(2, min=0.5, max=10, step=0.1))
            for b in Bs:
                t0, c0 = time.perf_counter(), time.thread_time()
                w.children[0].value = b
                times.append(time.perf_counter() - t0)
                cpus.append(time.thread_time() - c0)
        out[label] = (times, cpus)
    return {k: {"median": pct(t, 50), "p95": pct(t, 95), "cpu_median": pct(c, 50), "cpu_p95": pct(c, 95),
                "n": len(t)} for k, (t, c) in out.items()}


# ----------------------------------------------------------------------------- notebooks, tests, site

def bench_notebooks(dirs, only: str | None) -> list[tuple[str, float, str]]:
    from workbook.notebooks import nb

    rows = []
    for src in panel_harness.notebook_sources(dirs):
        rel = src.relative_to(repo_root()).as_posix()
        if only and not re.search(only, rel):
            continue
        book = nb.read_md(src)  # in memory: nothing is written
        t0 = time.perf_counter()
        err = ""
        try:
            nb.execute_notebook(book, src.parent, timeout=600)
        except Exception as exc:  # noqa: BLE001
            err = f"{type(exc).__name__}: {str(exc).splitlines()[-1][:150] if str(exc) else ''}"
        dt = time.perf_counter() - t0
        rows.append((rel, dt, err))
        print(f"  {rel}: {dt:.1f} s{'  ' + err if err else ''}", flush=True)
    return rows


def bench_grading(n: int, set_name: str = "ch28/ex28_09_10", jobs: int = 2, repeats: int = 5) -> list[str]:
    """The grader over ``n`` sample submissions with isolation, and the sandbox's cost per submission."""
    import tempfile

    from workbook.classroom import grade
    from workbook.classroom import sandbox

    ok, why = sandbox.available()
    if not ok:
        return [f"No sandbox here, nothing measured: {why}", ""]
    with tempfile.TemporaryDirectory(prefix="bench-grade-") as tmp:
        subs = Path(tmp) / "subs"
        grade.sample_submissions(set_name, n, subs)
        load0 = loadavg()
        r0 = os.times()
        t0 = time.perf_counter()
        rows = grade.grade_folder(subs, set_name, jobs=jobs, log=lambda *a: None)
        wall = time.perf_counter() - t0
        r1 = os.times()
        cpu = (r1.user - r0.user) + (r1.system - r0.system) + (r1.children_user - r0.children_user) \
            + (r1.children_system - r0.children_system)
        statuses = sorted({r["status"] for r in rows})
        nb, _ = grade.read_submission(sorted(subs.glob("*.ipynb"))[1])
        cells = grade.code_cells(nb)
        names = [nm for ex in __import__("workbook.classroom.answer_key", fromlist=["x"]).load_set(
            repo_root() / "solutions" / f"{set_name}.md").values() for nm in ex.answers]
        one = {True: [], False: []}
        for _ in range(repeats):
            for trusted in (True, False):
                t = time.perf_counter()
                sandbox.run_cells(cells, names, sandbox.Limits(timeout=60), trusted=trusted)
                one[trusted].append(time.perf_counter() - t)
        t = time.perf_counter()
        for _ in range(repeats):
            sandbox.run_cells(["pass"], ["x"], sandbox.Limits(timeout=60))
        empty = (time.perf_counter() - t) / repeats
    plain, boxed = statistics.median(one[True]), statistics.median(one[False])
    target = 180.0
    return [f"{n} sample submissions of `{set_name}` (`workbook grade --samples`: every fourth unanswered, every "
            f"fourth with one wrong part), graded with `grade_folder(..., jobs={jobs})`, each in its own sandbox "
            f"({why}); load average at start {load0}.", "",
            "| what | measured | target |", "|---|---:|---|",
            f"| {n} submissions, wall | {wall:.0f} s ({wall / n:.2f} s per submission) | "
            f"< {target:.0f} s for 100 {'✓' if wall * 100 / n < target else '✗'} |",
            f"| CPU, grader and sandboxes (user + sys) | {cpu:.0f} s ({cpu / n:.2f} s per submission) | – |",
            f"| one submission alone, without / with the sandbox (median of {repeats}) | {plain:.2f} s / {boxed:.2f} s "
            f"(sandbox overhead {boxed - plain:+.2f} s) | – |",
            f"| an empty notebook in a sandbox (start, harness, stubs, exit) | {empty:.2f} s | – |", "",
            f"Statuses seen: {', '.join(statuses)}.", ""]


def bench_command(cmd: list[str]) -> tuple[float, int, str]:
    t0 = time.perf_counter()
    r = subprocess.run(cmd, cwd=repo_root(), capture_output=True, text=True)
    tail = (r.stdout + r.stderr).strip().splitlines()[-1:] or [""]
    return time.perf_counter() - t0, r.returncode, tail[0][:200]


# ----------------------------------------------------------------------------- report

def write_report(path: Path, argv, meta, imp, panels, failures, cmp_, notebooks, extra, sections=None) -> str:
    L = ["# Benchmark results", "",
         f"Made by `{' '.join(['workbook bench'] + [shlex.quote(a) for a in argv])}` "
         f"(`make bench` runs it with the defaults).", "",
         f"Machine: {meta['machine']}; load average (1/5/15 min) at start {meta['load_start']}, "
         f"at end {meta['load_end']}. Timings on a shared machine are noisy; compare runs on one machine.", ""]
    if imp:
        ok = imp["import_fleetcalc_cpu_s"] <= TARGETS["import_s"]
        L += ["## Import time", "", "| what | CPU | wall | target |", "|---|---:|---:|---|",
              f"| `import fleetcalc` (fresh interpreter, median of 5, startup subtracted) | "
              f"{imp['import_fleetcalc_cpu_s']:.3f} s | {imp['import_fleetcalc_s']:.3f} s | "
              f"< {TARGETS['import_s']} s {'✓' if ok else '✗'} |",
              f"| `from fleetcalc import Q_; Q_(1, 'GB')` (the first unit: numpy, pint, the registry) | "
              f"{imp['first_unit_cpu_s']:.3f} s | {imp['first_unit_s']:.3f} s | – |",
              f"| `import fleetcalc.notebook` (the facade; ipywidgets waits for the first panel) | {imp['import_notebook_cpu_s']:.3f} s | "
              f"{imp['import_notebook_s']:.3f} s | – |",
              f"| §28.5's first cell + the first unit, IPython already loaded (as in a kernel) | {imp['first_cell_cpu_s']:.3f} s | "
              f"{imp['first_cell_s']:.3f} s | < {TARGETS['first_cell_s']} s {'✓' if imp['first_cell_s'] <= TARGETS['first_cell_s'] else '✗'} |",
              f"| interpreter startup alone | – | {imp['python_startup_s']:.3f} s | – |", "",
              "Heaviest imports under `import fleetcalc` (cumulative, `python -X importtime`): "
              + ", ".join(f"`{n}` {t:.3f} s" for n, t in imp["heaviest"][:6]) + ".", ""]
    if panels:
        n_miss = sum(1 for r in panels if r["miss"])
        L += ["## Panels", "",
              f"Every slider of every panel moved across its range ({meta['moves']} positions per slider, every "
              "option of a dropdown). Total = compute + redraw (result table, plot update, PNG). "
              f"Targets: median < {TARGETS['panel_median_ms']:.0f} ms, p95 < {TARGETS['panel_p95_ms']:.0f} ms, "
              f"compute < {TARGETS['compute_ms']:.0f} ms, judged on CPU time (this process's thread time around "
              "each update), which a loaded shared machine inflates far less than wall time; the wall times "
              "(`Panel.updates`) are in the last columns. "
              f"{len(panels)} panels, {n_miss} miss a target.", "",
              "| panel | notebook (cell) | updates | CPU median ms | CPU p95 ms | compute CPU ms | full redraws / blits | wall median ms | wall p95 ms | wall compute / redraw ms | |",
              "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|"]
        for r in panels:
            L.append(f"| {r['title'] or '(untitled)'} | `{r['path']}` ({r['cell']}) | {r['n']} | {ms(r['cpu_med'])} | "
                     f"{ms(r['cpu_p95'])} | {ms(r['cpu_compute_med'])} | {r.get('full_redraws', 0)} / {r.get('blits', 0)} | "
                     f"{ms(r['total_med'])} | {ms(r['total_p95'])} | "
                     f"{ms(r['compute_med'])} / {ms(r['draw_med'])} | "
                     f"{'✗ ' + '; '.join(r['miss']) if r['miss'] else '✓'} |")
        allt = [r["cpu_med"] for r in panels if not math.isnan(r["cpu_med"])]
        if allt:
            mm = statistics.median(allt)
            L += ["", f"Across panels (CPU): median of medians {ms(mm)} ms (target < "
                  f"{TARGETS['median_of_medians_ms']:.0f} ms {'✓' if mm * 1000 < TARGETS['median_of_medians_ms'] else '✗'}), "
                  f"worst median {ms(max(allt))} ms, worst p95 "
                  f"{ms(max(r['cpu_p95'] for r in panels if not math.isnan(r['cpu_p95'])))} ms.", ""]
        misses = [r for r in panels if r["miss"]]
        if misses:
            L += ["### Why the slow panels are slow", ""]
            for r in misses:
                b = r.get("breakdown") or {}
                L.append(f"- **{r['title']}** (`{r['path']}` cell {r['cell']}): {'; '.join(r['miss'])}.")
                if b:
                    L.append(f"  Per update (CPU): compute {ms(b['compute'])} ms, table {ms(b['table'])} ms, plot update + "
                             f"render + PNG {ms(b['draw'])} ms; {r.get('full_redraws', 0)} full redraws and "
                             f"{r.get('blits', 0)} blitted updates over the sweep; {'has' if b['has_update_fn'] else '**no**'} "
                             f"update function; {b['n_artists']} artists; {'log axes' if b['log_axes'] else 'linear axes'}.")
                if r.get("profile"):
                    L.append("  Own time (cProfile): " + "; ".join(f"`{x}`" for x in r["profile"][:6]) + ".")
                for e in r["errors"][:3]:
                    L.append(f"  Slider value fails: {e}")
            L.append("")
        refused = [(r, x) for r in panels for x in r["refused"]]
        if refused:
            L += ["Slider positions the panel refuses (shows an input error instead of updating):", ""]
            L += [f"- `{r['id']}`: {x}" for r, x in refused[:20]] + [""]
    if failures:
        L += ["Cells that failed while collecting panels:", ""] + [f"- {f}" for f in failures] + [""]
    if cmp_:
        base = cmp_["panel builder"]["median"]
        L += ["## Panel builder vs ipywidgets.interact + pyplot", "",
              "The §28.3 roofline panel written twice and driven the same way (batch slider, "
              f"{cmp_['panel builder']['n']} positions): fleetcalc's `panel()` (one figure, artists updated, PNG into "
              "an Image widget) and the usual `interactive(f, ...)` where `f` draws a new pyplot figure every move, "
              "rendered as the inline backend does (`print_figure(fig, 'png', bbox_inches='tight')`).", "",
              "| way | CPU median ms | CPU p95 ms | CPU median / panel builder | wall median ms | wall p95 ms | wall median / panel builder |",
              "|---|---:|---:|---:|---:|---:|---:|"]
        cbase = cmp_["panel builder"]["cpu_median"]
        for k, v in cmp_.items():
            L.append(f"| {k} | {ms(v['cpu_median'])} | {ms(v['cpu_p95'])} | {v['cpu_median'] / cbase:.1f}x | "
                     f"{ms(v['median'])} | {ms(v['p95'])} | {v['median'] / base:.1f}x |")
        L.append("")
    if notebooks:
        slow = [r for r in notebooks if r[1] > TARGETS["notebook_s"] or r[2]]
        L += ["## Notebook execution (fresh kernel, in-memory copy)", "",
              f"Target < {TARGETS['notebook_s']:.0f} s each; {len(notebooks)} notebooks, total "
              f"{sum(r[1] for r in notebooks):.0f} s, {len(slow)} over target or failing. Kernel start-up is included.", "",
              "| notebook | seconds | |", "|---|---:|---|"]
        for rel, dt, err in notebooks:
            L.append(f"| `{rel}` | {dt:.1f} | {('✗ ' + err) if err else ('✗' if dt > TARGETS['notebook_s'] else '✓')} |")
        L.append("")
    for label, (dt, rc, tail) in extra.items():
        L += [f"## {label}", "", f"{dt:.0f} s (exit code {rc}): {tail}", ""]
    for label, lines in (sections or {}).items():
        L += [f"## {label}", ""] + lines
    if path.exists():
        kept = kept_sections(path.read_text(encoding="utf-8"), [x[3:] for x in L if x.startswith("## ")])
        if kept:
            L += [KEPT_MARK, ""]
            L += [re.sub(r"(?m)^<!-- sections below .*-->\n?", "", k) for k in kept]
    text = "\n".join(L)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return text


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--moves", type=int, default=20, help="positions per slider (default 20)")
    ap.add_argument("--only", help="regex on notebook paths (panels and notebooks)")
    ap.add_argument("--notebooks-only", help="regex on notebook paths, for the notebook timings only")
    ap.add_argument("--with-exercises", action="store_true",
                    help="also exercises/ (generated copies of the solutions' panels and notebooks)")
    ap.add_argument("--skip-import", action="store_true")
    ap.add_argument("--skip-panels", action="store_true")
    ap.add_argument("--skip-compare", action="store_true")
    ap.add_argument("--skip-notebooks", action="store_true")
    ap.add_argument("--tests", action="store_true", help="time the whole test suite (long)")
    ap.add_argument("--site", action="store_true", help="time the site build, workbook site build (long)")
    ap.add_argument("--jobs", type=int, default=2, help="pytest -n for --tests, submissions at once for --grading")
    ap.add_argument("--grading", type=int, default=0, metavar="N",
                    help="grade N sample submissions with isolation and time it (100: the README's figure)")
    ap.add_argument("--out", default=str(repo_root() / "bench" / "results.md"))
    argv = sys.argv[1:] if argv is None else argv
    a = ap.parse_args(argv)
    dirs = ("chapters", "solutions") + (("exercises",) if a.with_exercises else ())
    meta = {"moves": a.moves, "load_start": loadavg(),
            "machine": f"{platform.system()} {platform.machine()}, {os.cpu_count()} CPUs, Python {platform.python_version()}"}
    imp = panels = cmp_ = notebooks = None
    failures: list[str] = []
    extra = {}
    if not a.skip_import:
        print("import time ...", flush=True)
        imp = bench_import(sys.executable)
        print(f"  import fleetcalc: CPU {imp['import_fleetcalc_cpu_s']:.3f} s, wall {imp['import_fleetcalc_s']:.3f} s", flush=True)
    if not a.skip_panels:
        print("panels ...", flush=True)
        panels, failures = bench_panels(a.moves, a.only, dirs)
    if not a.skip_compare:
        print("panel builder vs interact ...", flush=True)
        cmp_ = bench_builder_vs_interact(a.moves)
        for k, v in cmp_.items():
            print(f"  {k}: CPU median {ms(v['cpu_median'])} ms, wall median {ms(v['median'])} ms", flush=True)
    if not a.skip_notebooks:
        print("notebooks ...", flush=True)
        notebooks = bench_notebooks(dirs, a.notebooks_only or a.only)
    if a.tests:
        print("test suite ...", flush=True)
        extra["Whole test suite"] = bench_command(
            [sys.executable, "-m", "pytest", "-q", "-n", str(a.jobs), "--dist", "loadfile", "--nbval",
             "--nbval-current-env", "tests", "chapters", "solutions", "exercises"])
    if a.site:
        print("site build ...", flush=True)
        extra["Site build (workbook site build)"] = bench_command(
            [sys.executable, "-m", "workbook.cli", "site", "build"])
    sections = {}
    if a.grading:
        print("grading ...", flush=True)
        sections["Grading a class (`make grade`)"] = bench_grading(a.grading, jobs=a.jobs)
        print("\n".join(sections["Grading a class (`make grade`)"]), flush=True)
    meta["load_end"] = loadavg()
    out = Path(a.out)
    write_report(out, argv, meta, imp, panels, failures, cmp_, notebooks, extra, sections)
    raw = repo_root() / "bench" / "out"
    raw.mkdir(parents=True, exist_ok=True)
    (raw / "results.json").write_text(json.dumps({"meta": meta, "import": imp, "panels": panels, "compare": cmp_,
                                                   "notebooks": notebooks, "extra": extra}, indent=1, default=str))
    print(f"wrote {out.relative_to(repo_root()) if out.is_relative_to(repo_root()) else out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
