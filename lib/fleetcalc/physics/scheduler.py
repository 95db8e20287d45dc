"""Algorithm 28.2 (admission of cooperating jobs, gang scheduling), Ch. 28 §28.8, as a small
state machine, and the greedy per-task allocation it is meant to replace.

The gang scheduler follows the algorithm's steps:

1. filter nodes that are incompatible, unhealthy or not open to the job's tenant;
2. search the remaining nodes for a *complete* group meeting the job's device need (and the
   per-node memory need) -- fewest nodes first, a stand-in for the critical-path estimate;
3. check the tenant's quota (preemption is left out of this small model);
4. reserve the whole group, with a timeout; ``start`` confirms launch of every process; if any
   process fails to start, the whole reservation is released and the reason reported;
5. while running, ``complete``/``fail`` end the job; a failure ends the whole group, bumps the
   job's *generation* and requeues it, so a completion message from the old group is rejected.

Invariants (Ch. 28 §28.8): no partially admitted group computes; every reservation times out;
no stale completion from an old generation is accepted. :meth:`GangScheduler.check_invariants`
asserts the bookkeeping ones and tests drive the rest.

:func:`greedy_allocation` hands devices to individual tasks as they arrive: two jobs that each
need more than half the cluster can end up each holding half of it, waiting forever.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from fleetcalc.core.calculator import anything, calculator, one_value, whole
from fleetcalc.core.equation import no_equation
from fleetcalc.core.validate import InputError, count, magnitude

__all__ = ["Node", "Job", "GangScheduler", "greedy_allocation", "GreedyResult", "simulate_gang"]


@dataclass
class Node:
    name: str
    devices: int
    memory_gib: float = 1024.0      # not a unit factor: a node's host memory, 1024 GiB
    healthy: bool = True
    stack: str = "v1"               # the compatibility-matrix row this node runs
    tenants: frozenset = frozenset({"*"})


@dataclass
class Job:
    name: str
    devices: int
    duration: float = 1.0
    tenant: str = "default"
    stack: str = "v1"
    memory_gib_per_node: float = 0.0
    state: str = "queued"          # queued | reserved | running | done
    generation: int = 0
    placement: dict = field(default_factory=dict)   # node -> devices
    reserved_until: float | None = None
    log: list = field(default_factory=list)


class GangScheduler:
    """Whole-group admission with timed reservations and generations (Algorithm 28.2)."""

    def __init__(self, nodes, *, reservation_timeout=60.0, quota=None):   # not a unit factor: a 60 s timeout
        self.nodes = {n.name: n for n in nodes}
        self.free = {n.name: n.devices for n in nodes}
        self.timeout = float(reservation_timeout)
        if self.timeout <= 0:
            raise InputError(f"reservation_timeout must be > 0 s; got {reservation_timeout}")
        self.quota = dict(quota or {})        # tenant -> most devices held at once
        self.queue: list[Job] = []
        self.jobs: dict[str, Job] = {}
        self.events: list[tuple] = []

    # -- bookkeeping -----------------------------------------------------------------------
    def _held(self, tenant):
        return sum(sum(j.placement.values()) for j in self.jobs.values()
                   if j.tenant == tenant and j.state in ("reserved", "running"))

    def _note(self, now, job, what):
        self.events.append((now, job.name, job.generation, what))
        job.log.append((now, what))

    def submit(self, job: Job, now=0.0):
        count("devices", job.devices)
        if job.name in self.jobs:
            raise InputError(f"job {job.name!r} was already submitted")
        self.jobs[job.name] = job
        self.queue.append(job)
        self._note(now, job, "submitted")

    def eligible_nodes(self, job: Job):
        """Step 1: compatible, healthy nodes open to the job's tenant with enough host memory."""
        return [n for n in self.nodes.values()
                if n.healthy and n.stack == job.stack
                and ("*" in n.tenants or job.tenant in n.tenants)
                and n.memory_gib >= job.memory_gib_per_node and self.free[n.name] > 0]

    def find_group(self, job: Job):
        """Step 2: a complete placement (node -> devices) or None; fewest nodes first."""
        need = job.devices
        placement = {}
        for n in sorted(self.eligible_nodes(job), key=lambda n: (-self.free[n.name], n.name)):
            take = min(self.free[n.name], need)
            placement[n.name] = take
            need -= take
            if need == 0:
                return placement
        return None

    def try_admit(self, now=0.0):
        """Steps 1-4 for each queued job in order; returns the names of jobs reserved now."""
        self.expire(now)
        admitted = []
        for job in list(self.queue):
            if job.tenant in self.quota and self._held(job.tenant) + job.devices > self.quota[job.tenant]:
                self._note(now, job, "waiting: quota")
                continue
            group = self.find_group(job)
            if group is None:
                continue
            for node, k in group.items():
                self.free[node] -= k
            job.placement, job.state, job.reserved_until = group, "reserved", now + self.timeout
            self.queue.remove(job)
            self._note(now, job, f"reserved {sum(group.values())} devices on {len(group)} node(s)")
            admitted.append(job.name)
        self.check_invariants()
        return admitted

    def _release(self, job: Job):
        for node, k in job.placement.items():
            self.free[node] += k
        job.placement, job.reserved_until = {}, None

    def expire(self, now):
        """Release reservations whose launch was not confirmed in time (reservations time out)."""
        for job in self.jobs.values():
            if job.state == "reserved" and job.reserved_until is not None and now >= job.reserved_until:
                self._release(job)
                job.state = "queued"
                self.queue.insert(0, job)
                self._note(now, job, "reservation timed out: released")

    def start(self, name, now=0.0, failed_nodes=()):
        """Step 4: confirm that every process started and the group is communication-ready.

        If any process on ``failed_nodes`` failed to start, release the whole reservation,
        requeue the job and return False with the reason logged.
        """
        job = self.jobs[name]
        if job.state != "reserved":
            raise InputError(f"job {name!r} is {job.state}, not reserved")
        bad = [n for n in failed_nodes if n in job.placement]
        if bad:
            self._release(job)
            job.state = "queued"
            job.generation += 1
            self.queue.insert(0, job)
            self._note(now, job, f"start failed on {bad}: reservation released")
            return False
        job.state, job.reserved_until = "running", None
        self._note(now, job, "running")
        self.check_invariants()
        return True

    def complete(self, name, generation, now=0.0):
        """Step 5: accept a completion only from the job's current generation."""
        job = self.jobs[name]
        if generation != job.generation or job.state != "running":
            self._note(now, job, f"stale completion (generation {generation}) rejected")
            return False
        self._release(job)
        job.state = "done"
        self._note(now, job, "done")
        return True

    def fail(self, name, now=0.0):
        """A member failed: end the whole group, bump the generation, requeue (step 5)."""
        job = self.jobs[name]
        if job.state != "running":
            raise InputError(f"job {name!r} is {job.state}, not running")
        self._release(job)
        job.state = "queued"
        job.generation += 1
        self.queue.insert(0, job)
        self._note(now, job, "member failed: group ended, requeued")

    def check_invariants(self):
        total = {n: node.devices for n, node in self.nodes.items()}
        used = {n: 0 for n in total}
        for job in self.jobs.values():
            if job.state in ("reserved", "running"):
                if sum(job.placement.values()) != job.devices:
                    raise AssertionError(f"{job.name} holds {sum(job.placement.values())} of {job.devices} devices")
                for node, k in job.placement.items():
                    used[node] += k
            elif job.placement:
                raise AssertionError(f"{job.name} is {job.state} but holds devices")
        for n in total:
            if used[n] + self.free[n] != total[n] or self.free[n] < 0:
                raise AssertionError(f"device accounting broken on {n}: used {used[n]} free {self.free[n]}")


@dataclass
class GreedyResult:
    holdings: dict          # job -> devices held
    started: list           # jobs that got all their devices
    deadlocked: bool
    held_in_order: list     # the job holding each still-held device, in the order it was granted


_SIMULATED = "the simulation takes one value"


def _job_table(jobs, what):
    if not isinstance(jobs, dict) or not jobs:
        raise InputError(f"jobs needs a non-empty dict of job name -> {what}; got {jobs!r}")
    return jobs


@calculator(returns=None, total_devices=one_value(whole(), _SIMULATED), jobs=anything("dict of job name -> devices needed"),
            order=anything("job names in task-arrival order; None: round-robin across jobs"),
            equation=no_equation("a simulation: tasks grab devices one by one in arrival order"))
def greedy_allocation(total_devices, jobs, order=None) -> GreedyResult:
    """Per-task allocation: each task grabs one free device as it arrives and holds it until its
    job can start. ``jobs`` maps name -> devices needed; tasks arrive in ``order`` (default:
    round-robin across jobs). Deadlock: devices are exhausted, no job is complete, and nothing
    is running that could free a device (Ch. 28 §28.8, why gang scheduling exists)."""
    free = int(total_devices)
    need = {j: int(count(f"jobs[{j!r}]", k)) for j, k in _job_table(jobs, "devices").items()}
    if order is not None and (not isinstance(order, (list, tuple)) or any(j not in need for j in order)):
        raise InputError(f"order must list job names from jobs ({', '.join(map(repr, need))}); got {order!r}")
    if order is None:
        order, left = [], dict(need)
        while any(left.values()):
            for j in need:
                if left[j]:
                    order.append(j)
                    left[j] -= 1
    held = {j: 0 for j in need}
    started, granted = [], []
    for j in order:
        if j in started or held[j] >= need[j]:
            continue
        if free == 0:
            break
        held[j] += 1
        free -= 1
        granted.append(j)
        if held[j] == need[j]:
            started.append(j)
            # a started job runs to completion and returns its devices
            free += held[j]
            held[j] = 0
    waiting = [j for j in need if j not in started]
    deadlocked = bool(waiting) and free == 0   # every device held by a job that cannot start
    return GreedyResult(holdings=held, started=started, deadlocked=deadlocked,
                        held_in_order=[j for j in granted if j not in started])


@calculator(returns=None, total_devices=one_value(whole(), _SIMULATED), jobs=anything("dict of job name -> (devices, duration)"),
            devices_per_node=one_value(whole(), _SIMULATED),
            equation=no_equation("a simulation: jobs run FIFO through the gang scheduler's state machine"))
def simulate_gang(total_devices, jobs, devices_per_node=8):
    """Run jobs (name -> (devices, duration)) FIFO through a :class:`GangScheduler` on one pool.

    Returns a list of (name, start, end, devices). Each job waits until its whole group fits.
    """
    total = int(total_devices)
    k = int(devices_per_node)
    if total % k:
        raise InputError(f"total_devices must be a multiple of devices_per_node ({k}); got {total}")
    for name, spec in _job_table(jobs, "(devices, duration)").items():
        if not isinstance(spec, (list, tuple)) or len(spec) != 2:
            raise InputError(f"jobs[{name!r}] needs (devices, duration); got {spec!r}")
        count(f"jobs[{name!r}] devices", spec[0])
        magnitude(f"jobs[{name!r}] duration", spec[1], "", ge=0)
    sched = GangScheduler([Node(f"n{i}", k) for i in range(total // k)],
                          reservation_timeout=1e9)   # not a unit factor: longer than any simulated run
    for name, (dev, dur) in jobs.items():
        if dev > total:
            raise InputError(f"jobs[{name!r}] needs {dev} devices; total_devices is {total}")
        sched.submit(Job(name, dev, dur))
    now, running, timeline = 0.0, {}, []
    while sched.queue or running:
        for name in sched.try_admit(now):
            sched.start(name, now)
            running[name] = now + sched.jobs[name].duration
            timeline.append((name, now, running[name], sched.jobs[name].devices))
        if not running:
            break
        name = min(running, key=running.get)
        now = running.pop(name)
        sched.complete(name, sched.jobs[name].generation, now)
    return timeline


# --- what a preemption costs the preempted job (Ch. 28 §28.8, preemption paragraph) --------------

from fleetcalc.core.calculator import qty  # noqa: E402  (appended section)
from fleetcalc.core.equation import eq  # noqa: E402


@calculator(returns="", T_p=qty("s", gt=0, doc="mean time the job holds its devices between preemptions"),
            C=qty("s", ge=0, doc="save before giving the devices up (a warned preemption; then L = 0)"),
            R=qty("s", ge=0, doc="restore after getting them back"),
            L=qty("s", ge=0, doc="work lost since the last save (a preemption without warning; then C = 0)"),
            equation=eq(r"f_{\mathrm{useful}}", "1 - (C + R + L)/T_p",
                        symbols={"T_p": r"T_{\mathrm{p}}"},
                        ref="Ch. 28 §28.8, preemption (the text's save, restore and lost computation, counted per preemption)"))
def preemption_useful_fraction(T_p, C, R, L):
    """Share of the device time a preempted job holds that becomes new progress: each preemption
    costs a restore R and either a save C (warned: it saves when told to go, and loses nothing) or
    the work L since the last periodic save (no warning: no save at the moment of preemption), out
    of T_p held. C and L are alternatives, not both. The devices look busy the whole time; only this
    fraction of it trains (valid while C + R + L < T_p)."""
    return 1.0 - (C + R + L) / T_p


__all__ += ["preemption_useful_fraction"]
