"""Algorithm 28.1 (bounded prefetch with double buffering), Ch. 28 §28.4, as a small
deterministic discrete-event simulation.

Processes, as in the algorithm:

* **loader**: reads batch i (``t_read``, plus a seeded jitter stall), then verifies/transforms it
  (``t_prep``); read and prepare are two single workers that hand over without a buffer. The
  prepared batch goes into a host queue of at most ``K`` batches; when the queue is full the
  loader waits (no unbounded prefetch).
* **transfer**: waits for a batch in the queue *and* a free device buffer (two buffers, batch i
  uses buffer i mod 2), copies it (``t_copy``) and records a transfer-complete event.
* **compute**: waits for that event, computes (``t_compute``), then records a consume-complete
  event; only then may the buffer be overwritten.

Times are plain seconds (floats) inside the simulation (``simulate_prefetch.kernel``); the public
function takes Quantities.
Every step is logged as an :class:`Event`, so tests check the algorithm's invariants on the log:
no buffer consumed before its transfer completes, none reused before its compute completes, the
queue never longer than K, no failed batch silently skipped, cancellation drains cleanly.

Failure: ``fail_batch=i`` makes the loader's check of batch i fail. The error is propagated: the
run ends with status ``"failed"``, batches not yet consumed are reclaimed, and batch i and later
ones are never delivered (delivery is always a prefix of the input order). Cancellation at
``cancel_at`` works the same way with status ``"cancelled"``. A compute already running finishes
(a kernel is not torn down mid-flight); no new transfer or compute starts after the stop time.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from fleetcalc.core.calculator import anything, calculator, fraction, one_value, qty, whole
from fleetcalc.core.equation import no_equation
from fleetcalc.core.validate import InputError

__all__ = ["Event", "PrefetchRun", "simulate_prefetch", "queue_length_trace", "N_BUFFERS"]

N_BUFFERS = 2


@dataclass(frozen=True)
class Event:
    time: float
    kind: str        # read_start, read_done, prep_start, prep_done, enqueue, dequeue,
                     # transfer_done, compute_start, compute_done, reclaim, stop
    batch: int
    buffer: int = -1


@dataclass
class PrefetchRun:
    status: str                  # "done" | "failed" | "cancelled"
    delivered: list              # batch ids whose compute started, in order
    reclaimed: list              # batches loaded (or in flight) but never consumed
    events: list                 # Event log, sorted by time (stable)
    compute_start: np.ndarray    # per delivered batch
    compute_done: np.ndarray
    K: int
    stop_time: float | None = None
    failed_batch: int | None = None
    info: dict = field(default_factory=dict)

    @property
    def intervals(self) -> np.ndarray:
        """Gaps between consecutive compute completions (the pipeline interval, Eq. 28.9)."""
        return np.diff(self.compute_done)

    @property
    def compute_idle(self) -> np.ndarray:
        """Time the compute waited before each delivered batch (after the first)."""
        return self.compute_start[1:] - self.compute_done[:-1]

    @property
    def makespan(self) -> float:
        return float(self.compute_done[-1]) if len(self.compute_done) else 0.0


_SIM = "the simulation takes one value per argument (t_read alone may be one per batch)"


def _one(p):
    return one_value(p, _SIM)


@calculator(returns=None, n_batches=_one(whole()), t_read=qty("s", ge=0, doc="read time: one, or one per batch"),
            t_prep=_one(qty("s", ge=0, doc="verify/transform time")), t_copy=_one(qty("s", ge=0, doc="host-to-device copy")),
            t_compute=_one(qty("s", ge=0)), K=_one(whole(doc="host queue bound in batches")),
            jitter=_one(qty("s", ge=0, doc="extra stall of a jittery read; None: no stalls")),
            p_stall=_one(fraction(doc="probability that a read stalls")), seed=_one(whole(ge=0, doc="random seed")),
            stall_batches=anything("indices of the reads that always stall"),
            fail_batch=_one(whole(ge=0, doc="batch whose check fails; None: none")),
            cancel_at=_one(qty("s", ge=0, doc="time of a cancellation; None: none")),
            equation=no_equation("a discrete-event simulation of Algorithm 28.1 (bounded prefetch, double buffering)"))
def simulate_prefetch(n_batches, t_read, t_prep, t_copy, t_compute, K, *, jitter=None, p_stall=0.0,
                      seed=0, stall_batches=(), fail_batch=None, cancel_at=None) -> PrefetchRun:
    """Simulate Algorithm 28.1 (Ch. 28 §28.4) for ``n_batches`` batches.

    ``t_read`` may be one time or an array of per-batch times (a slow or jittery source). Jitter:
    each read gets an extra stall of ``jitter`` with probability ``p_stall`` (seeded), and the
    reads listed in ``stall_batches`` always do. ``K`` bounds the host queue (>= 1).
    Returns a :class:`PrefetchRun` (the event log and the per-batch compute times).
    """
    n = int(n_batches)
    tr = np.asarray(t_read, dtype=float)
    if tr.ndim and tr.shape != (n,):
        raise InputError(f"t_read must be one time or n_batches = {n} per-batch times; "
                         f"got {tr.size} values: {np.array2string(tr, threshold=6)} s")
    tr = np.broadcast_to(tr, (n,)).copy()
    tp = float(t_prep)
    th = float(t_copy)
    tg = float(t_compute)
    k = int(K)
    J = 0.0 if jitter is None else float(jitter)
    p = float(p_stall)
    rng = np.random.default_rng(int(seed))
    stalls = (rng.random(n) < p) * J
    if not isinstance(stall_batches, (list, tuple, range, np.ndarray)):
        raise InputError(f"stall_batches needs a list of batch indices; got {stall_batches!r}")
    for i in stall_batches:
        if not isinstance(i, (int, np.integer)) or isinstance(i, (bool, np.bool_)) or not 0 <= int(i) < n:
            raise InputError(f"stall_batches must index 0..{n - 1}; got {i!r}")
        stalls[int(i)] = J
    tr = tr + stalls
    if fail_batch is not None:
        fail_batch = float(fail_batch)
        if not 0 <= fail_batch < n:
            raise InputError(f"fail_batch must be in 0..{n - 1}; got {fail_batch:g}")
    stop = None if cancel_at is None else float(cancel_at)

    # Blocking tandem recurrence (each process is one worker; times of batch i depend on i-1,
    # on the queue slot freed by batch i-K, and on the buffer freed by batch i-2).
    # (Python floats in lists: numpy element access in this loop cost ~3x more, same arithmetic)
    rs, rd, ps, pd, enq, deq, td, gs, gd = ([0.0] * n for _ in range(9))
    tr_l = tr.tolist()
    for i in range(n):
        rs[i] = ps[i - 1] if i else 0.0                 # reader free once it handed i-1 to prep
        rd[i] = rs[i] + tr_l[i]
        ps[i] = max(rd[i], enq[i - 1] if i else 0.0)    # prep free once i-1 is in the queue
        pd[i] = ps[i] + tp
        enq[i] = max(pd[i], deq[i - k] if i >= k else 0.0)   # queue holds at most K
        buf_free = gd[i - N_BUFFERS] if i >= N_BUFFERS else 0.0
        deq[i] = max(enq[i], td[i - 1] if i else 0.0, buf_free)  # one copy engine, free buffer
        td[i] = deq[i] + th
        gs[i] = max(td[i], gd[i - 1] if i else 0.0)     # wait for the transfer-complete event
        gd[i] = gs[i] + tg

    status, failed = "done", None
    if fail_batch is not None:
        f = int(fail_batch)
        fail_t = pd[f]                                   # the check of batch f fails here
        if stop is None or fail_t < stop:
            stop, status, failed = fail_t, "failed", f
    if stop is not None and status == "done":
        if stop < gs[-1]:
            status = "cancelled"
        else:
            stop = None

    ev: list[Event] = []
    delivered, reclaimed = [], []
    for i in range(n):
        b = i % N_BUFFERS
        steps = [(rs[i], "read_start", -1), (rd[i], "read_done", -1), (ps[i], "prep_start", -1)]
        ok_prep = failed is None or i < failed
        if ok_prep:
            steps += [(pd[i], "prep_done", -1), (enq[i], "enqueue", -1), (deq[i], "dequeue", b),
                      (td[i], "transfer_done", b), (gs[i], "compute_start", b), (gd[i], "compute_done", b)]
        consumed = ok_prep and (stop is None or gs[i] < stop)
        logged = False
        for t, kind, buf in steps:
            # after a stop nothing new starts; work already started completes
            if stop is not None and t >= stop and kind in ("read_start", "prep_start", "enqueue", "dequeue", "compute_start"):
                break
            if stop is not None and t > stop and kind in ("read_done", "prep_done", "transfer_done") and not consumed:
                break
            ev.append(Event(float(t), kind, i, buf))
            logged = True
        if consumed:
            delivered.append(i)
        elif logged:
            reclaimed.append(i)
    if stop is not None:
        for i in reclaimed:
            ev.append(Event(float(stop), "reclaim", i))
        ev.append(Event(float(stop), "stop", failed if failed is not None else -1))
    ev.sort(key=lambda e: e.time)  # stable: per-batch causal order is kept at equal times
    idx = np.array(delivered, dtype=int)
    gs, gd, enq, deq = np.array(gs), np.array(gd), np.array(enq), np.array(deq)
    return PrefetchRun(status=status, delivered=delivered, reclaimed=reclaimed, events=ev,
                       compute_start=gs[idx], compute_done=gd[idx], K=k, stop_time=stop,
                       failed_batch=failed, info={"t_read": tr, "enqueue": enq, "dequeue": deq})


def queue_length_trace(run: PrefetchRun):
    """(times, lengths) of the host queue from the event log (enqueue +1, dequeue/reclaim -1).

    At equal times, batches already queued leave first, then new ones enter, then any batch that
    enters and leaves in the same instant passes straight through.
    """
    moves = sorted((e for e in run.events if e.kind in ("enqueue", "dequeue", "reclaim")), key=lambda e: e.time)
    t, q, cur, inq = [0.0], [0], 0, set()
    i = 0
    while i < len(moves):
        j = i
        while j < len(moves) and moves[j].time == moves[i].time:
            j += 1
        group = moves[i:j]
        for phase in ("old-out", "in", "new-out"):
            for e in group:
                if phase == "in" and e.kind == "enqueue":
                    cur += 1
                    inq.add(e.batch)
                elif phase != "in" and e.kind in ("dequeue", "reclaim") and e.batch in inq:
                    cur -= 1
                    inq.discard(e.batch)
            t.append(moves[i].time)
            q.append(cur)
        i = j
    return np.array(t), np.array(q)
