"""Host data path Gantt chart (Ch. 28 §28.4, Eq. 28.8-28.9): serial vs overlapped batches."""
from __future__ import annotations

import numpy as np

from fleetcalc.core.units import Q_, fmt
from fleetcalc.physics import pipeline

COLORS = ["#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#b07aa1"]
N_BATCHES = 4


def _schedule(stages, n, overlapped):
    """Start times per (batch, stage) for an ideal pipeline (each stage one worker) or serially."""
    k = len(stages)
    start = np.zeros((n, k))
    done = np.zeros((n, k))
    t = 0.0
    for i in range(n):
        for j in range(k):
            if overlapped:
                ready = done[i, j - 1] if j else 0.0
                free = done[i - 1, j] if i else 0.0
                start[i, j] = max(ready, free)
            else:
                start[i, j] = t
            done[i, j] = start[i, j] + stages[j]
            t = done[i, j]
    return start, done


def gantt_panel(ax, inputs, results):
    """Gantt chart: rows 'serial' and 'pipelined'; needs ``results["stages_ms"]`` (list of floats,
    ms) and ``stage_names``. The bars are rebuilt only when the number of stages changes."""
    state = {"k": None, "rects": None, "legend": None}
    ax.set_yticks([0, 1], ["pipelined", "serial"])
    ax.set_xlabel("time (ms)")
    first = ax.axvline(0, color="#333", ls=":", lw=1)
    ax.grid(True, axis="x", alpha=0.25)

    def build(names):
        if state["rects"]:
            for rs in state["rects"].values():
                for b in rs:
                    b.remove()
        k = len(names)
        rects = {"serial": [], "pipelined": []}
        for row, key in ((1, "serial"), (0, "pipelined")):
            for i in range(N_BATCHES):
                for j in range(k):
                    (b,) = ax.barh(row + (j - (k - 1) / 2) * 0.18, 1, left=0, height=0.16, color=COLORS[j % 6],
                                   edgecolor="white", lw=0.5, label=names[j] if (i == 0 and row == 1) else None)
                    rects[key].append(b)
        state.update(k=k, rects=rects, names=list(names))
        ax.legend(handles=rects["serial"][:k], labels=list(names), fontsize=7, ncol=k, loc="upper right")

    def update(inputs, res):
        st = list(res["stages_ms"])
        if state["k"] != len(st) or state.get("names") != list(res["stage_names"]):
            build(res["stage_names"])
        k = state["k"]
        end = 0.0
        for key, rs in state["rects"].items():
            s0, d = _schedule(st, N_BATCHES, key == "pipelined")
            for idx, b in enumerate(rs):
                i, j = divmod(idx, k)
                b.set_x(s0[i, j])
                b.set_width(st[j])
            end = max(end, d.max())
        stages = Q_(np.asarray(st, float), "ms")
        t_first = pipeline.first_batch_time(stages).to("ms").magnitude      # Eq. 28.8
        t_pipe = pipeline.pipeline_interval(stages).to("ms").magnitude      # Eq. 28.9
        first.set_xdata([t_first, t_first])
        # keep the x range while the schedule's end stays within (40 %, 100 %) of it
        xl = state.get("xlim")
        if xl is None or end > xl[1] / 1.05 * 1.0001 or end < xl[1] * 0.4:
            state["xlim"] = (0, end * 1.05)
            ax.set_xlim(*state["xlim"])
        if state.get("ylim") is None:
            state["ylim"] = (-0.6, 1.9)
            ax.set_ylim(*state["ylim"])
        ax.set_title(f"{N_BATCHES} batches: first batch {fmt(Q_(t_first, 'ms'), 'ms', sig=3)} (full path), "
                     f"then one per {fmt(Q_(t_pipe, 'ms'), 'ms', sig=3)} (slowest stage)", fontsize=9)

    update(inputs, results)
    return update


def numa_panel(ax, inputs, results):
    """A two-socket diagram: memory, CPU and PCIe/GPU boxes per NUMA node, the data path drawn as
    arrows, socket-link crossings in red. Needs ``page_node``, ``thread_node``, ``gpu_node``, ``cross``."""
    from matplotlib.patches import FancyArrowPatch, Rectangle

    pos = {("mem", 0): (0.5, 2.2), ("cpu", 0): (0.5, 1.2), ("gpu", 0): (0.5, 0.2),
           ("mem", 1): (3.5, 2.2), ("cpu", 1): (3.5, 1.2), ("gpu", 1): (3.5, 0.2)}
    boxes = {}
    for (kind, n), (x, y) in pos.items():
        r = Rectangle((x, y), 1.6, 0.6, fc="#eef2f7", ec="#555")
        ax.add_patch(r)
        boxes[(kind, n)] = r
        ax.text(x + 0.8, y + 0.3, {"mem": "memory", "cpu": "CPU", "gpu": "PCIe / GPU"}[kind] + f" (N{n})",
                ha="center", va="center", fontsize=8)
    ax.plot([2.75, 2.75], [0, 3], color="#999", ls=":", lw=1)
    ax.text(2.75, 2.95, "socket link", ha="center", fontsize=7, color="#777")
    ax.set_xlim(0, 5.6)
    ax.set_ylim(-0.1, 3.1)
    ax.axis("off")
    arrows = []

    def center(kind, n):
        x, y = pos[(kind, n)]
        return (x + 0.8, y + 0.3)

    def update(inputs, res):
        for a in arrows:
            a.remove()
        arrows.clear()
        pg, th, gp = res["page_node"], res["thread_node"], res["gpu_node"]
        for b in boxes.values():
            b.set_fc("#eef2f7")
        boxes[("mem", pg)].set_fc("#fde2c4")
        boxes[("cpu", th)].set_fc("#d6ead2")
        boxes[("gpu", gp)].set_fc("#d6e2f2")
        for (k1, n1), (k2, n2) in ((("mem", pg), ("cpu", th)), (("mem", pg), ("gpu", gp))):
            a = FancyArrowPatch(center(k1, n1), center(k2, n2), arrowstyle="-|>", mutation_scale=12,
                                color="#c0392b" if n1 != n2 else "#1f4e79", lw=2,
                                connectionstyle="arc3,rad=0.15")
            ax.add_patch(a)
            arrows.append(a)
        ax.set_title(f"socket-link crossings per batch: {res['cross']}", fontsize=9)

    update(inputs, results)
    return update
