"""The host data path as a pipeline, Ch. 28 §28.4 (Eq. 28.8-28.9), and the node's data feed of
Vol. 2 Ch. 2 §Data loading (prefetch depth, NUMA penalty, step time when one stage gets faster).

A batch passes read (t_r), CPU preparation (t_p), host-to-device copy (t_h) and compute (t_g).
Stages are given as a list of times (or one Quantity array, stages along axis 0). Eq. 28.9 holds
only when the stages use independent resources, buffers are deep enough and batches do not
depend on one another; stages that share a resource must first be merged (Exercise 28.5).
"""
from __future__ import annotations

import numpy as np
import pint

from fleetcalc.core.calculator import WHOLE, anything, calculator, ceil_count, num, one_value, qty, quantities, whole
from fleetcalc.core.equation import eq, no_equation
from fleetcalc.core.validate import InputError, magnitude

__all__ = [
    "serial_time", "pipeline_interval", "first_batch_time", "pipelined_total_time",
    "serial_total_time", "bottleneck_stage", "merge_stages", "buffer_depth", "consumption_rate", "numa_data_path",
    "prefetch_depth", "effective_bandwidth_numa", "step_time_after_network_upgrade",
]

_STAGES = "list of stage times (s quantities >= 0), or one Quantity array with stages along axis 0"


_STAGE_TIMES = quantities("s", ge=0, doc=_STAGES)


def _stages(stages):
    """The stage times as one array, stages along axis 0 (a kernel may be called with a plain list)."""
    return np.asarray(stages, dtype=float) if not isinstance(stages, list) else np.stack(np.broadcast_arrays(*stages))


@calculator(returns="s", stages=_STAGE_TIMES,
            equation=eq(r"t_{\mathrm{serial}}", "sum(stages)", symbols={"stages": "t_i", "n_batches": "n"}, ref="Ch. 28 §28.4, Eq. 28.8"))
def serial_time(stages):
    """t_serial = t_r + t_p + t_h + t_g: one batch through every stage in turn, Ch. 28 Eq. 28.8."""
    return np.sum(_stages(stages), axis=0)


@calculator(returns="s", stages=_STAGE_TIMES,
            equation=eq(r"t_{\mathrm{pipe}}", "max(stages)", symbols={"stages": "t_i", "n_batches": "n"}, ref="Ch. 28 §28.4, Eq. 28.9", rel="≥"))
def pipeline_interval(stages):
    """t_pipe >= max(t_r, t_p, t_h, t_g): the steady interval between batches, Ch. 28 Eq. 28.9."""
    return np.max(_stages(stages), axis=0)


@calculator(returns="s", stages=_STAGE_TIMES,
            equation=eq(r"t_{\mathrm{first}}", "sum(stages)", symbols={"stages": "t_i", "n_batches": "n"}, ref="Ch. 28 §28.4, after Eq. 28.9 (the first batch takes the whole path)"))
def first_batch_time(stages):
    """The first batch still takes the full path: t_serial (Ch. 28 §28.4, after Eq. 28.9)."""
    return serial_time.kernel(stages)


@calculator(returns="s", stages=_STAGE_TIMES, n_batches=whole(),
            equation=eq(r"T_n", "sum(stages) + (n_batches - 1)*max(stages)", symbols={"stages": "t_i", "n_batches": "n"}, ref="Ch. 28 §28.4, Eq. 28.8-28.9 (fill, then one batch per interval)"))
def pipelined_total_time(stages, n_batches):
    """n batches through an ideal pipeline: t_serial + (n - 1) t_pipe (fill, then one per interval)."""
    return serial_time.kernel(stages) + (n_batches - 1) * pipeline_interval.kernel(stages)


@calculator(returns="s", stages=_STAGE_TIMES, n_batches=whole(),
            equation=eq(r"T_n", "n_batches*sum(stages)", symbols={"stages": "t_i", "n_batches": "n"}, ref="Ch. 28 §28.4, Eq. 28.8 repeated"))
def serial_total_time(stages, n_batches):
    """n batches with no overlap: n t_serial (Eq. 28.8 repeated)."""
    return n_batches * serial_time.kernel(stages)


@calculator(returns=None, stages=_STAGE_TIMES,
            equation=no_equation("picks the index of the slowest stage (an arg max), not a quantity"))
def bottleneck_stage(stages) -> int:
    """Index of the slowest stage (the one Eq. 28.9 picks)."""
    s = _stages(stages)
    if s.ndim != 1:
        raise InputError("bottleneck_stage takes one time per stage (no arrays)")
    return int(np.argmax(s))


@calculator(returns="s", stages=_STAGE_TIMES,
            groups=anything("list of tuples of stage indices to merge, e.g. [(0, 1)]"),
            equation=no_equation("regroups a list of stages (sums within each group); no single formula"))
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
    return np.stack([np.sum(s[list(b)], axis=0) for b in blocks])


@calculator(returns="batch/s", interval=qty("s", gt=0, doc="the pipeline interval t_pipe"),
            equation=eq("r_b", "1/interval", ref="Ch. 28 §28.4, data loading and overlap",
                        symbols={"interval": r"t_{\mathrm{pipe}}"}))
def consumption_rate(interval):
    """r_b = 1 / t_pipe batches per second."""
    return 1.0 / interval


@calculator(returns="batch", r_b=qty("batch/s", ge=0, doc="consumption rate"),
            J=qty("s", ge=0, doc="supply stall to ride out"),
            equation=eq(r"n_{\mathrm{buf}}", "r_b*J", ref="Ch. 28 §28.4, data loading and overlap"))
def buffer_depth(r_b, J):
    """Buffer needed to ride out a supply stall of J seconds at consumption r_b: ~ r_b J batches
    (rounded up to whole batches by the caller when needed), Ch. 28 §28.4."""
    return r_b * J


@calculator(returns="batch", T_io=qty("s", ge=0, doc="mean time to load one batch"),
            sigma_io=qty("s", ge=0, doc="standard deviation of the load time"),
            T_compute=qty("s", gt=0, doc="compute time per batch"), z=num(ge=0, doc="safety factor in sigmas"),
            equation=eq("k", "max(ceil_count(x), 1)",
                        where=[("x", "T_io/T_compute + z*sigma_io/T_compute")],
                        symbols={"T_io": r"T_{\mathrm{I/O}}", "sigma_io": r"\sigma_{\mathrm{I/O}}"},
                        ref="Vol. 2 §2.4, data loading and I/O pipeline (z = 3 for 99.7 %)"))
def prefetch_depth(T_io, sigma_io, T_compute, z=3.0):
    """Least prefetch depth k >= ceil(T_io / T_compute + z sigma_io / T_compute), z = 3 for the
    book's 99.7 % (Vol. 2 Ch. 2 §Data loading, line 2214: ceil(0.75 + 0.75) = 2 batches): the
    :func:`buffer_depth` that rides out T_io + z sigma_io at one batch per T_compute, at least one."""
    k = buffer_depth.kernel(consumption_rate.kernel(T_compute), T_io + z * sigma_io)
    return np.maximum(ceil_count(k), 1.0)


_ONE_PATH = "numa_data_path lists the hops of one data path"


@calculator(returns=None, page_node=one_value(whole(ge=0, le=1, doc="NUMA node of the pages"), _ONE_PATH),
            thread_node=one_value(whole(ge=0, le=1, doc="NUMA node of the worker thread"), _ONE_PATH),
            gpu_node=one_value(whole(ge=0, le=1, doc="NUMA node of the GPU's PCIe root"), _ONE_PATH),
            equation=no_equation("lists the hops of a data path on a two-socket host (Exercise 28.4); no formula"))
def numa_data_path(page_node, thread_node, gpu_node):
    """Hops a batch takes from host pages to the GPU on a two-socket host (Ch. 28 §28.4,
    Exercise 28.4): the worker thread reads the pages (remote if on another node), then the copy
    goes from the pages' node to the GPU's PCIe root (crossing the socket link if they differ).

    Returns (hops, cross_socket) where hops is a list of (from, to) labels.
    """
    pg, th, gp = int(page_node), int(thread_node), int(gpu_node)
    hops = [(f"memory NUMA {pg}", f"CPU NUMA {th} (worker reads pages)")]
    if pg != gp:
        hops.append((f"memory NUMA {pg}", f"socket link to NUMA {gp}"))
    hops.append((f"NUMA {gp} PCIe root", f"GPU (NUMA {gp})"))
    cross = int(pg != th) + int(pg != gp)
    return hops, cross


@calculator(returns="GB/s", BW=qty("GB/s", ge=0, doc="bandwidth on the local socket"),
            penalty=num(ge=0, lt=1, doc="share lost crossing the socket interconnect"),
            equation=eq(r"\mathrm{BW}_{\mathrm{eff}}", "BW*(1 - penalty)",
                        ref="Vol. 2 §2.4, the PCIe hierarchy within a node (NUMA: up to 50 % lost)",
                        symbols={"penalty": r"p_{\mathrm{NUMA}}"}))
def effective_bandwidth_numa(BW, penalty):
    """Bandwidth seen across the socket interconnect: BW x (1 - penalty) (Vol. 2 Ch. 2, line 2012:
    up to 50 %)."""
    return BW * (1.0 - penalty)


@calculator(returns="s", t_compute=qty("s", ge=0), t_comm=qty("s", ge=0),
            speedup=num(gt=0, doc="how many times faster the network gets"),
            equation=eq(r"T_{\mathrm{step}}", "t_compute + t_comm/speedup",
                        ref="Vol. 2 Ch. 2, fallacies and pitfalls (upgrading the network before finding the bottleneck)",
                        symbols={"t_compute": r"T_{\mathrm{compute}}", "t_comm": r"T_{\mathrm{comm}}",
                                 "speedup": r"s_{\mathrm{net}}"}))
def step_time_after_network_upgrade(t_compute, t_comm, speedup):
    """Step time when only the network gets ``speedup`` times faster (no overlap):
    t_compute + t_comm / speedup (Vol. 2 Ch. 2, pitfall at line 2434: 20 s + 2 s / 2 = 21 s)."""
    return t_compute + t_comm / speedup


# --- one-value-per-stage forms of Eq. 28.8-28.9, so a worked step can show each stage's time ------

@calculator(returns="s", t_r=qty("s", ge=0, doc="read time per batch"), t_p=qty("s", ge=0, doc="CPU preparation time"),
            t_h=qty("s", ge=0, doc="host-to-device copy time"), t_g=qty("s", ge=0, doc="device compute time"),
            equation=eq(r"t_{\mathrm{serial}}", "t_r + t_p + t_h + t_g",
                        symbols={"t_r": "t_r", "t_p": "t_p", "t_h": "t_h", "t_g": "t_g"},
                        ref="Ch. 28 §28.4, Eq. 28.8"))
def serial_time_4(t_r, t_p, t_h, t_g):
    """Eq. 28.8 with the four stages named: one batch done strictly in turn, t_r + t_p + t_h + t_g."""
    return t_r + t_p + t_h + t_g


@calculator(returns="s", t_r=qty("s", ge=0, doc="read time per batch"), t_p=qty("s", ge=0, doc="CPU preparation time"),
            t_h=qty("s", ge=0, doc="host-to-device copy time"), t_g=qty("s", ge=0, doc="device compute time"),
            equation=eq(r"t_{\mathrm{pipe}}", "max(t_r, t_p, t_h, t_g)",
                        symbols={"t_r": "t_r", "t_p": "t_p", "t_h": "t_h", "t_g": "t_g"},
                        ref="Ch. 28 §28.4, Eq. 28.9 (independent stages, deep enough buffers)", rel="≥"))
def pipeline_interval_4(t_r, t_p, t_h, t_g):
    """Eq. 28.9 with the four stages named: the steady interval of an ideal pipeline is its slowest
    stage, valid only when the stages use independent resources."""
    return np.maximum(np.maximum(t_r, t_p), np.maximum(t_h, t_g))


__all__ += ["serial_time_4", "pipeline_interval_4"]
