"""Fig. 28.5 redrawn: the sharded checkpoint's data path and commit path (Ch. 28 §28.6).

The picture is not sketched by hand: it runs the library's commit protocol
(:mod:`fleetcalc.physics.checkpoint`) on an in-memory object store -- one step written completely, a
newer one whose writer died part-way -- and draws what the store then holds, and which step
:func:`~fleetcalc.physics.checkpoint.restore_latest` picks. Shards without a commit marker are drawn as
reclaimable, never restorable, because that is what the restore code does with them.
"""
from __future__ import annotations

from fleetcalc.physics.checkpoint import ObjectStore, restore_latest, write_checkpoint
from fleetcalc.core.validate import InputError, count
from fleetcalc.ui.diagrams.draw import PALETTE, arrow, box, canvas, label
import numpy as np
from fleetcalc.core.units import Q_, fmt
from fleetcalc.physics import reliability
from fleetcalc.ui.diagrams.draw import figure_axes as _figure, finish_log_axes as _finish_log_axes

__all__ = ["commit_path", "store_state", "checkpoint_interval"]


def store_state(n_shards=8, *, old_step=1000, new_step=2000, crash_after=5, corrupt=None, run="run0"):
    """Write ``old_step`` completely, then ``new_step`` with the given fault; return what the store
    holds per step and the restore result.

    Returns ``{"steps": {step: {"shards": k, "manifest": bool, "committed": bool}},
    "restored": step or None, "rejected": [(step, reason)], "n": n_shards}``.
    """
    n = int(count("n_shards", n_shards))
    if n > 16:
        raise InputError(f"n_shards must be <= 16 to stay legible in the picture; got {n}")
    if crash_after is not None and not 0 <= int(crash_after) <= n:
        raise InputError(f"crash_after must be in 0..{n} shards; got {crash_after}")
    if not int(old_step) < int(new_step):
        raise InputError(f"old_step ({old_step}) must come before new_step ({new_step})")
    store = ObjectStore()
    write_checkpoint(store, old_step, n, run=run)
    write_checkpoint(store, new_step, n, run=run, crash_after=crash_after, corrupt=corrupt)
    steps = {}
    for step in (old_step, new_step):
        base = f"{run}/step-{int(step):08d}"
        steps[int(step)] = {"shards": len(store.keys(f"{base}/staging/")),
                            "manifest": f"{base}/manifest.json" in store.objects,
                            "committed": f"{base}/COMMITTED" in store.objects}
    res = restore_latest(store, run=run)
    return {"steps": steps, "restored": res.step, "rejected": res.rejected, "n": n}


def commit_path(n_shards=8, *, old_step=1000, new_step=2000, crash_after=5, corrupt=None):
    """Fig. 28.5: ranks write shards to staging, a manifest lists their digests, one atomic marker
    commits the step; restore takes the newest committed step that verifies.

    ``crash_after=k`` kills the newer step's writer after k shards; ``corrupt=r`` flips a byte of
    rank r's shard after its digest was recorded (found only at restore).
    """
    st = store_state(n_shards, old_step=old_step, new_step=new_step, crash_after=crash_after,
                     corrupt=corrupt)
    n = st["n"]
    fig, ax = canvas(14, 7.0, size=(9.0, 4.5),
                     title="Fig. 28.5 · sharded checkpoint: data path, then one atomic commit")
    # the writers
    box(ax, 0.2, 1.0, 1.8, 5.4, "", kind="compute", alpha=0.12)
    label(ax, 1.1, 6.0, "ranks", fontsize=9, weight="bold")
    label(ax, 1.1, 5.5, f"0 … {n - 1}", fontsize=9)
    label(ax, 1.1, 3.6, "write\nshard r\n(data path)", fontsize=8)
    label(ax, 1.1, 1.6, "restore\nreads here", fontsize=8)
    # object store frame
    box(ax, 2.9, 0.3, 11.0, 6.5, "", kind="storage", alpha=0.06)
    label(ax, 8.4, 6.55, "object store: single-key puts are atomic, multi-key writes are not",
          fontsize=8.5, style="italic")
    rows = {old_step: 4.4, new_step: 1.6}
    cell = 3.6 / n
    for step, y in rows.items():
        info = st["steps"][int(step)]
        label(ax, 3.05, y + 1.35, f"step {step} / staging", fontsize=8.5, ha="left", weight="bold")
        for r in range(n):
            written = r < info["shards"]
            box(ax, 3.1 + r * cell, y + 0.25, cell * 0.85, 0.8, str(r),
                kind="storage" if written else "idle", alpha=0.55 if written else 0.15, fontsize=8)
        arrow(ax, (2.0, y + 0.65), (3.05, y + 0.65), kind="compute")
        # manifest
        mx = 7.2
        if info["manifest"]:
            box(ax, mx, y + 0.15, 2.2, 1.0, "manifest\nkeys · sizes · SHA-256\ndata cursor · RNG",
                kind="memory", alpha=0.35, fontsize=8)
        else:
            box(ax, mx, y + 0.15, 2.2, 1.0, "no manifest", kind="idle", alpha=0.12, fontsize=8)
        arrow(ax, (3.1 + n * cell, y + 0.65), (mx - 0.05, y + 0.65), kind="storage" if info["manifest"] else "idle",
              style="-" if info["manifest"] else ":")
        # commit marker
        cx = 10.0
        if info["committed"]:
            box(ax, cx, y + 0.15, 1.5, 1.0, "COMMITTED\n(one put)", kind="memory", alpha=0.7, fontsize=8)
        else:
            box(ax, cx, y + 0.15, 1.5, 1.0, "no marker", kind="idle", alpha=0.12, fontsize=8)
        arrow(ax, (mx + 2.2, y + 0.65), (cx - 0.05, y + 0.65), kind="memory" if info["committed"] else "idle",
              style="-" if info["committed"] else ":")
        # verdict
        if int(step) == st["restored"]:
            verdict, colour = "restorable", PALETTE["memory"]
        elif info["committed"]:
            verdict, colour = "rejected at restore\n(digest mismatch)", PALETTE["fault"]
        else:
            verdict, colour = "reclaimable,\nnot restorable", PALETTE["fault"]
        ax.text(12.75, y + 0.65, verdict, ha="center", va="center", fontsize=8.5, color=colour,
                weight="bold")
        if not info["committed"] and info["shards"] < n:
            ax.text(3.1 + n * cell / 2, y - 0.05, f"writer died after {info['shards']} of {n} shards",
                    fontsize=8, color=PALETTE["fault"], ha="center", va="top")
    if st["restored"] is not None:
        y = rows[st["restored"]]
        ax.annotate("", xy=(2.0, 1.85), xytext=(3.1, y + 0.25),
                    arrowprops=dict(arrowstyle="-|>", color=PALETTE["memory"], lw=2.0,
                                    connectionstyle="arc3,rad=0.25"))
        ax.text(2.45, 0.55, f"restore → step {st['restored']}", fontsize=8.5, color=PALETTE["memory"],
                weight="bold", ha="center", va="center")
    else:
        ax.text(2.45, 0.55, "restore → nothing verifiable", fontsize=8.5, color=PALETTE["fault"],
                weight="bold", ha="center", va="center")
    return fig


def checkpoint_interval(C, mtbf_one, N, R_f=Q_(0, "s"),
                        title: str = "Choosing the checkpoint interval from the right MTBF"):
    """The waste fraction w(τ) = C/τ + τ/(2M) + R_f/M (``reliability.waste_fraction``, Eq. 28.23)
    against the interval τ for the job's MTBF M = MTBF_one/N, with τ* = sqrt(2CM) (Young–Daly)
    and the interval sqrt(2 C MTBF_one) that the per-device MTBF would suggest, √N times longer.
    ``fig.tau_star``, ``fig.tau_naive`` (s), ``fig.w_star``, ``fig.w_naive`` (fractions)."""
    M = reliability.mtbf_of_n(mtbf_one, N)
    tau_star = reliability.young_daly_interval(C, M)
    tau_naive = reliability.young_daly_interval(C, Q_(mtbf_one))
    ts, tn = tau_star.to("s").magnitude, tau_naive.to("s").magnitude
    tau = Q_(np.logspace(np.log10(ts / 30), np.log10(max(tn, ts) * 3), 300), "s")
    w = reliability.waste_fraction(tau, C, M, R_f).to("").magnitude
    w_star = float(reliability.waste_fraction(tau_star, C, M, R_f).to("").magnitude)
    w_naive = float(reliability.waste_fraction(tau_naive, C, M, R_f).to("").magnitude)
    fig, ax = _figure((6.4, 3.2))
    ax.plot(tau.to("min").magnitude, np.minimum(w, 1.0) * 100, color=PALETTE["storage"], lw=2,
            label="waste w(τ) with the job's MTBF (capped at 100 %)")
    for t, ww, text, kind, dx in ((ts, w_star, "τ* from the job's MTBF", "memory", 6),
                                  (tn, w_naive, "τ from one GPU's MTBF", "fault", -6)):
        ax.axvline(t / 60, color=PALETTE[kind], lw=1.2, ls="--")
        waste = f"waste {fmt(ww * 100, None, sig=2)} %" if ww < 1 else "waste ≥ 100 %: no save\ninterval completes on average"
        ax.annotate(f"{text}\n{fmt(Q_(t, 's'), 'auto', sig=2)}: {waste}", (t / 60, min(ww, 1.0) * 100),
                    xytext=(dx, -34 if ww >= 1 else 8), textcoords="offset points", fontsize=8,
                    ha="left" if dx > 0 else "right")
    ax.set_ylim(w_star * 100 / 2, 150)
    _finish_log_axes(fig, ax, "checkpoint interval τ (minutes)", "share of time wasted (%)", title, "upper center")
    fig.tau_star, fig.tau_naive, fig.w_star, fig.w_naive = ts, tn, w_star, w_naive
    return fig
