"""Host data path Gantt chart (Ch. 28 §28.4, Eq. 28.8-28.9): serial vs overlapped batches."""
from __future__ import annotations

import numpy as np

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
    ms), ``stage_names`` and ``t_pipe``/``t_serial`` Quantities."""
    names = results["stage_names"]
    k = len(names)
    rects = {"serial": [], "pipelined": []}
    for row, key in ((1, "serial"), (0, "pipelined")):
        for i in range(N_BATCHES):
            for j in range(k):
                (b,) = ax.barh(row + (j - (k - 1) / 2) * 0.18, 1, left=0, height=0.16, color=COLORS[j % 6],
                               edgecolor="white", lw=0.5, label=names[j] if (i == 0 and row == 1) else None)
                rects[key].append(b)
    ax.set_yticks([0, 1], ["pipelined", "serial"])
    ax.set_xlabel("time (ms)")
    ax.legend(fontsize=7, ncol=k, loc="upper right")
    first = ax.axvline(0, color="#333", ls=":", lw=1)
    ax.grid(True, axis="x", alpha=0.25)

    def update(inputs, res):
        st = list(res["stages_ms"])
        end = 0.0
        for key in rects:
            s, d = _schedule(st, N_BATCHES, key == "pipelined")
            for idx, b in enumerate(rects[key]):
                i, j = divmod(idx, k)
                b.set_x(s[i, j])
                b.set_width(st[j])
            end = max(end, d.max())
        first.set_xdata([sum(st), sum(st)])
        ax.set_xlim(0, end * 1.05)
        ax.set_ylim(-0.6, 1.9)
        ax.set_title(f"{N_BATCHES} batches: first batch {sum(st):.3g} ms (full path), "
                     f"then one per {max(st):.3g} ms (slowest stage)", fontsize=9)

    update(inputs, results)
    return update
