"""Algorithm 28.2 drawn: gang admission against greedy per-task allocation (Ch. 28 §28.8).

Left, the device grid after :func:`fleetcalc.physics.scheduler.greedy_allocation` has handed out devices
one task at a time: each job holds part of the pool and waits for the rest (deadlock when nothing
is free). Right, the timeline that :func:`fleetcalc.physics.scheduler.simulate_gang` produces when each
job is admitted only as a whole group: no deadlock, at the price of devices left idle while a
group that does not fit waits. Both halves are drawn from the scheduler's own results.
"""
from __future__ import annotations

from fleetcalc.physics.scheduler import greedy_allocation, simulate_gang
from fleetcalc.core.validate import InputError, count
from fleetcalc.ui.diagrams.draw import PALETTE, box, canvas, label

__all__ = ["gang_vs_greedy", "device_rows", "JOB_COLOURS"]

JOB_COLOURS = ("compute", "storage", "memory", "host")


def device_rows(timeline, total):
    """Give each gang-admitted job a contiguous block of device rows (lowest free block first).

    ``timeline`` is :func:`simulate_gang`'s list of (name, start, end, devices). Returns
    {name: (first_row, start, end, devices)}. Layout only: the times and sizes are the scheduler's.
    """
    busy = []          # (end, lo, hi)
    rows = {}
    for name, start, end, dev in sorted(timeline, key=lambda r: (r[1], r[0])):
        busy = [b for b in busy if b[0] > start]
        lo = 0
        for _, blo, bhi in sorted(busy, key=lambda b: b[1]):
            if lo + dev <= blo:
                break
            lo = max(lo, bhi)
        if lo + dev > total:
            raise InputError(f"job {name!r} needs {dev} devices; only {total - lo} contiguous rows free")
        rows[name] = (lo, start, end, dev)
        busy.append((end, lo, lo + dev))
    return rows


def gang_vs_greedy(total=16, jobs=None, per_node=8):
    """Greedy per-task allocation (left) vs gang admission (right) for ``jobs`` = {name: (devices,
    duration)} on a pool of ``total`` devices in nodes of ``per_node``."""
    total = int(count("total", total))
    per_node = int(count("per_node", per_node))
    if total % per_node:
        raise InputError(f"total must be a multiple of per_node ({per_node}); got {total}")
    if jobs is None:
        raise InputError("jobs must map job names to (devices, duration)")
    if len(jobs) > len(JOB_COLOURS):
        raise InputError(f"at most {len(JOB_COLOURS)} jobs fit the picture; got {len(jobs)}")
    colour = {name: JOB_COLOURS[i] for i, name in enumerate(jobs)}
    greedy = greedy_allocation(total, {n: d for n, (d, _) in jobs.items()})
    timeline = simulate_gang(total, jobs, devices_per_node=per_node)
    makespan = max(e for _, _, e, _ in timeline)

    fig, ax = canvas(20, 9.0, size=(11.0, 4.9),
                     title="Algorithm 28.2 · admit a cooperating job only as a whole group")
    # (a) greedy grid: one row per node, cells handed out in round-robin arrival order
    label(ax, 4.6, 8.45, "(a) greedy: each task grabs a device as it arrives", fontsize=9.5, weight="bold")
    held = dict(greedy.holdings)
    order = greedy.held_in_order
    n_nodes = total // per_node
    cw = min(8.4 / per_node, 1.0)
    ch = min(5.6 / n_nodes, 1.0)
    for i in range(total):
        node, slot = divmod(i, per_node)
        x, y = 0.9 + slot * cw, 7.4 - (node + 1) * ch
        owner = order[i] if i < len(order) else None
        box(ax, x, y, cw * 0.88, ch * 0.8, owner or "", kind=colour[owner] if owner else "idle",
            alpha=0.55 if owner else 0.15, fontsize=8)
    for node in range(n_nodes):
        label(ax, 0.45, 7.4 - (node + 0.6) * ch, f"n{node}", fontsize=8)
    y_text = 7.2 - n_nodes * ch
    for k, (name, (dev, _)) in enumerate(jobs.items()):
        state = "runs" if name in greedy.started else f"holds {held[name]}, needs {dev}: waits"
        label(ax, 4.6, y_text - 0.5 - 0.5 * k, f"job {name}: {state}", fontsize=8.5)
    verdict = ("DEADLOCK: no device free, no job complete" if greedy.deadlocked
               else "no deadlock at these sizes")
    ax.text(4.6, y_text - 0.6 - 0.5 * len(jobs), verdict, ha="center", va="center", fontsize=9,
            weight="bold", color=PALETTE["fault"] if greedy.deadlocked else PALETTE["memory"])

    # (b) gang timeline: devices (rows) against time
    label(ax, 14.8, 8.45, "(b) gang admission: whole groups, FIFO", fontsize=9.5, weight="bold")
    x0, x1, y0, y1 = 10.6, 19.4, 1.6, 7.4
    sx = (x1 - x0) / makespan
    sy = (y1 - y0) / total
    ax.plot([x0, x1], [y0, y0], color=PALETTE["text"], lw=0.8)
    ax.plot([x0, x0], [y0, y1], color=PALETTE["text"], lw=0.8)
    for node in range(1, n_nodes):
        ax.plot([x0, x1], [y0 + node * per_node * sy] * 2, color=PALETTE["idle"], lw=0.6, ls=":")
    rows = device_rows(timeline, total)
    for name, (lo, start, end, dev) in rows.items():
        box(ax, x0 + start * sx, y0 + lo * sy, (end - start) * sx, dev * sy,
            f"{name}: {dev} devices\nt = {start:g}–{end:g}", kind=colour[name], alpha=0.5, fontsize=8)
    # devices left idle while a queued group waits
    first = min(s for _, s, _, _ in timeline)
    waiting = [r for r in timeline if r[1] > first]
    if waiting:
        busy_at0 = sum(d for _, s, _, d in timeline if s == first)
        idle = total - busy_at0
        t_next = min(r[1] for r in waiting)
        if idle > 0:
            box(ax, x0 + first * sx, y0 + busy_at0 * sy, (t_next - first) * sx, idle * sy,
                f"{idle} idle: {waiting[0][0]} waits\nfor {waiting[0][3]} free devices", kind="idle",
                alpha=0.25, fontsize=8)
    for t in sorted({0.0, makespan} | {s for _, s, _, _ in timeline}):
        label(ax, x0 + t * sx, y0 - 0.3, f"{t:g}", fontsize=8)
    label(ax, (x0 + x1) / 2, y0 - 0.75, "time", fontsize=8.5)
    ax.text(x0 - 0.35, (y0 + y1) / 2, f"{total} devices", rotation=90, ha="center", va="center",
            fontsize=8.5, color=PALETTE["text"])
    ax.text(14.8, 0.35, f"all done at t = {makespan:g}: no group ever computes partly admitted",
            ha="center", va="center", fontsize=9, color=PALETTE["memory"], weight="bold")
    return fig
