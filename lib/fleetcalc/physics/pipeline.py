"""The host data path as a pipeline, Ch. 28 §28.4 (Eq. 28.8-28.9).

A batch passes read (t_r), CPU preparation (t_p), host-to-device copy (t_h) and compute (t_g).
Stages are given as a list of times (or one Quantity array, stages along axis 0). Eq. 28.9 holds
only when the stages use independent resources, buffers are deep enough and batches do not
depend on one another; stages that share a resource must first be merged (Exercise 28.5).
"""
from __future__ import annotations

import numpy as np
import pint

from fleetcalc.core.validate import InputError, count, magnitude, out

__all__ = [
    "serial_time", "pipeline_interval", "first_batch_time", "pipelined_total_time",
    "serial_total_time", "bottleneck_stage", "merge_stages", "buffer_depth", "consumption_rate", "numa_data_path",
]


def _stages(stages):
    if isinstance(stages, pint.Quantity):
        arr = np.atleast_1d(magnitude("stages", stages, "s", ge=0))
        return arr
    if not isinstance(stages, (list, tuple)) or not stages:
        raise InputError(f"stages needs a non-empty list of stage times (s); got {stages!r}")
    mags = [np.asarray(magnitude(f"stages[{i}]", s, "s", ge=0)) for i, s in enumerate(stages)]
    return np.stack(np.broadcast_arrays(*mags))


def serial_time(stages):
    """t_serial = t_r + t_p + t_h + t_g: one batch through every stage in turn, Ch. 28 Eq. 28.8."""
    return out(np.sum(_stages(stages), axis=0), "s")


def pipeline_interval(stages):
    """t_pipe >= max(t_r, t_p, t_h, t_g): the steady interval between batches, Ch. 28 Eq. 28.9."""
    return out(np.max(_stages(stages), axis=0), "s")


def first_batch_time(stages):
    """The first batch still takes the full path: t_serial (Ch. 28 §28.4, after Eq. 28.9)."""
    return serial_time(stages)


def pipelined_total_time(stages, n_batches):
    """n batches through an ideal pipeline: t_serial + (n - 1) t_pipe (fill, then one per interval)."""
    n = count("n_batches", n_batches)
    s = _stages(stages)
    return out(np.sum(s, axis=0) + (n - 1) * np.max(s, axis=0), "s")


def serial_total_time(stages, n_batches):
    """n batches with no overlap: n t_serial (Eq. 28.8 repeated)."""
    n = count("n_batches", n_batches)
    return out(n * np.sum(_stages(stages), axis=0), "s")


def bottleneck_stage(stages) -> int:
    """Index of the slowest stage (the one Eq. 28.9 picks)."""
    s = _stages(stages)
    if s.ndim != 1:
        raise InputError("bottleneck_stage takes one time per stage (no arrays)")
    return int(np.argmax(s))


def merge_stages(stages, groups):
    """Stages that share one non-overlappable resource act as one stage with the summed time
    (Exercise 28.5: read 10 ms + prepare 20 ms on one resource -> a 30 ms stage).

    ``groups`` lists index tuples to merge, e.g. [(0, 1)]; the result keeps stage order by first index.
    """
    s = _stages(stages)
    n = s.shape[0]
    bad = InputError(f"groups must be a list of tuples of stage indices 0..{n - 1}, e.g. [(0, 1)]; "
                     f"got {groups!r}")
    if not isinstance(groups, (list, tuple)):
        raise bad
    for g in groups:
        if not isinstance(g, (list, tuple)) or not all(
                isinstance(i, (int, np.integer)) and not isinstance(i, (bool, np.bool_)) for i in g):
            raise bad
    seen = set()
    for g in groups:
        for i in g:
            if not (0 <= int(i) < n) or i in seen:
                raise InputError(f"groups must use each stage index 0..{n - 1} at most once; got {groups!r}")
            seen.add(i)
    blocks = [tuple(g) for g in groups] + [(i,) for i in range(n) if i not in seen]
    blocks.sort(key=min)
    return out(np.stack([np.sum(s[list(b)], axis=0) for b in blocks]), "s")


def consumption_rate(interval):
    """r_b = 1 / t_pipe batches per second."""
    t = magnitude("interval", interval, "s", gt=0)
    return out(1.0 / t, "batch/s")


def buffer_depth(r_b, J):
    """Buffer needed to ride out a supply stall of J seconds at consumption r_b: ~ r_b J batches
    (rounded up to whole batches by the caller when needed), Ch. 28 §28.4."""
    r = magnitude("r_b", r_b, "batch/s", ge=0)
    j = magnitude("J", J, "s", ge=0)
    return out(r * j, "batch")


def numa_data_path(page_node, thread_node, gpu_node):
    """Hops a batch takes from host pages to the GPU on a two-socket host (Ch. 28 §28.4,
    Exercise 28.4): the worker thread reads the pages (remote if on another node), then the copy
    goes from the pages' node to the GPU's PCIe root (crossing the socket link if they differ).

    Returns (hops, cross_socket) where hops is a list of (from, to) labels.
    """
    nodes = {}
    for name, v in (("page_node", page_node), ("thread_node", thread_node), ("gpu_node", gpu_node)):
        k = count(name, v, ge=0)
        if np.ndim(k):
            raise InputError(f"numa_data_path takes one value per argument; got an array for {name}: {v!r}")
        if k not in (0, 1):
            raise InputError(f"{name} must be 0 or 1 (a two-socket host); got {v}")
        nodes[name] = int(k)
    pg, th, gp = nodes["page_node"], nodes["thread_node"], nodes["gpu_node"]
    hops = [(f"memory NUMA {pg}", f"CPU NUMA {th} (worker reads pages)")]
    if pg != gp:
        hops.append((f"memory NUMA {pg}", f"socket link to NUMA {gp}"))
    hops.append((f"NUMA {gp} PCIe root", f"GPU (NUMA {gp})"))
    cross = int(pg != th) + int(pg != gp)
    return hops, cross
