"""The node: its bandwidth hierarchy, PCIe tree, local topology, reliability and data feed,
Vol. 2 Ch. 2 §§ Node ... Data loading (seed 001, lines 1919-2220).

Symbols follow the Vol. 2 notation: ``D_vol`` bytes moved, ``BW`` a bandwidth (byte/s),
``T`` times, ``M`` an MTBF. A bandwidth is **one direction** of a full-duplex link unless the
name says ``both_ways``; the book's NVLink "900 GB/s" is both directions summed (line 1931), so
the time to move one buffer one way uses 450 GB/s (line 2193). Where the book itself divides by
900 GB/s (the tensor-parallel AllReduce at line 2034), the notebook says so.

Formulas owned elsewhere are imported, not repeated: T = D/BW is
:func:`fleetcalc.physics.links.transfer_time`; one-way = both-ways / 2 is
:func:`fleetcalc.physics.links.one_way`; MTBF of n parts and P(failure) come from
:mod:`fleetcalc.physics.reliability`; the compute share of a step is
:func:`fleetcalc.physics.parallel_scaling.compute_fraction`.
"""
from __future__ import annotations

import functools

import numpy as np

from fleetcalc.physics import reliability
from fleetcalc.core.units import ureg
from fleetcalc.core.validate import InputError, count, magnitude, out

__all__ = [
    "tier_array", "staircase_times", "pcie_encoding", "pcie_link_bandwidth",
    "pcie_generation_bandwidth", "pcie_lanes_left", "aggregate_bandwidth", "per_link_bandwidth",
    "ring_links", "full_mesh_links", "ring_max_hops", "hidden_tensor_bytes", "per_step_comm_time",
    "stall_fraction", "node_failure_rate", "node_mtbf", "rest_of_node_mtbf", "expected_failures",
    "restart_overhead", "failure_probability_of_fleet", "prefetch_depth", "effective_bandwidth_numa",
    "step_time_after_network_upgrade",
]


@functools.lru_cache(maxsize=None)
def _u(name):
    """A parsed unit, cached: pint re-parses prefixed unit strings ("GB", "kW") on every call."""
    return ureg.Unit(name)

# Line encodings of the PCIe generations (PCI-SIG base specifications; the book quotes only
# Gen5's 32 GT/s and ~64 GB/s, lines 1988 and 2008). Gen3-5: 128b/130b; Gen6: FLIT, 242 of
# 256 bytes carry payload (FEC + CRC take the rest).
_ENCODING = {3: 128 / 130, 4: 128 / 130, 5: 128 / 130, 6: 242 / 256}


def _seq(name, value, fn):
    """A non-empty list/tuple/array argument, as a list; anything else is refused by name."""
    from fleetcalc.core.units import Quantity
    ok = isinstance(value, (list, tuple)) or (
        isinstance(value, (np.ndarray, Quantity)) and np.ndim(value) == 1)
    if not ok or len(value) == 0:
        raise InputError(f"{fn} needs {name} as a non-empty list (one entry per item); got {value!r}")
    return list(value)


def tier_array(bandwidths, unit="GB/s"):
    """A list of bandwidth Quantities as one Quantity array in ``unit`` (for plots and sweeps).
    A single Quantity (scalar or array) is taken as the tiers themselves."""
    from fleetcalc.core.units import Quantity
    u = _u(unit)
    if isinstance(bandwidths, Quantity):     # already one Quantity (array): check it as a whole
        return out(np.atleast_1d(magnitude("bandwidths", bandwidths, "byte/s", ge=0)), "byte/s").to(u)
    if not isinstance(bandwidths, (list, tuple, np.ndarray)):
        magnitude("bandwidths", bandwidths, "byte/s", ge=0)    # raises: names the unit wanted
    bandwidths = _seq("bandwidths", bandwidths, "tier_array")
    mags = [magnitude(f"bandwidths[{i}]", b, "byte/s", ge=0) for i, b in enumerate(bandwidths)]
    if any(np.ndim(m) for m in mags):
        raise InputError(f"bandwidths must be a list of scalar bandwidths; got {bandwidths!r}")
    return out(np.array(mags), "byte/s").to(u)


def staircase_times(D_vol, bandwidths):
    """Time to move D_vol through each tier of a bandwidth hierarchy: D_vol / BW_i (line 1975).

    ``bandwidths`` is a sequence of byte/s quantities (fast to slow); returns an array of s."""
    d = magnitude("D_vol", D_vol, "byte", ge=0)
    bandwidths = _seq("bandwidths", bandwidths, "staircase_times")
    bws = np.array([magnitude(f"bandwidths[{i}]", b, "byte/s", gt=0) for i, b in enumerate(bandwidths)])
    if bws.ndim != 1 or bws.size == 0:
        raise InputError(f"bandwidths must be a non-empty list of scalar bandwidths; got {bandwidths!r}")
    return out(d / bws, "s")


def pcie_encoding(gen):
    """Payload fraction of the PCIe line code: 128/130 for Gen3-5, 242/256 (FLIT) for Gen6
    (PCI-SIG base specs; external to the book)."""
    g = count("gen", gen, ge=3)
    if np.ndim(g):
        raise InputError(f"pcie_encoding takes one gen (a table lookup); got an array for gen: {gen!r}")
    g = int(g)
    if g not in _ENCODING:
        raise InputError(f"gen must be one of {sorted(_ENCODING)}; got {gen}")
    return _ENCODING[g]


def pcie_link_bandwidth(rate, lanes=16, encoding=1.0, protocol_overhead=0.0):
    """Per-direction bandwidth of a PCIe link: lanes x rate x encoding x (1 - overhead) / 8.

    ``rate`` is the per-lane signalling rate in bit/s (32 Gbit/s for Gen5, line 1988). With the
    defaults (no encoding, no overhead) Gen5 x16 gives the book's "~64 GB/s per direction"
    (line 2008); the book's "~20 percent" protocol overhead (line 1988) leaves ~51 GB/s.
    """
    r = magnitude("rate", rate, "bit/s", gt=0)
    n = count("lanes", lanes)
    e = magnitude("encoding", encoding, "", gt=0, le=1)
    o = magnitude("protocol_overhead", protocol_overhead, "", ge=0, lt=1)
    return out(n * r * e * (1.0 - o) / 8.0, "byte/s").to(_u("GB/s"))


def pcie_generation_bandwidth(gen, rate, lanes=16, protocol_overhead=0.0):
    """Per-direction PCIe bandwidth after the generation's line code: :func:`pcie_link_bandwidth`
    with ``encoding = pcie_encoding(gen)`` (Gen5 x16: 63.0 GB/s before protocol overhead)."""
    return pcie_link_bandwidth(rate, lanes, pcie_encoding(gen), protocol_overhead)


def pcie_lanes_left(lanes_available, devices, lanes_per_device=16):
    """Lanes left on the root complexes: available - devices x lanes per device (line 2010:
    2 x 128 lanes, 8 GPUs + 8 HCAs at x16 each use all 256). Negative means oversubscribed."""
    a = count("lanes_available", lanes_available)
    d = count("devices", devices, ge=0)
    w = count("lanes_per_device", lanes_per_device)
    return out(a - d * w, "")


def aggregate_bandwidth(links, per_link):
    """Sum over identical links: links x per-link bandwidth (line 2010: 16 x16 PCIe links;
    Figure 2.11: 18 NVLinks per GPU). Keep the direction of ``per_link``."""
    n = count("links", links)
    b = magnitude("per_link", per_link, "byte/s", gt=0)
    return out(n * b, "byte/s").to(_u("GB/s"))


def per_link_bandwidth(aggregate, links):
    """Per-link bandwidth implied by an aggregate: aggregate / links (900 GB/s / 18 = 50 GB/s)."""
    a = magnitude("aggregate", aggregate, "byte/s", gt=0)
    n = count("links", links)
    return out(a / n, "byte/s").to(_u("GB/s"))


def ring_links(N):
    """Links in a ring of N >= 3 devices: N (Figure 2.11 left; line 2020)."""
    n = count("N", N, ge=3)
    return out(n, "")


def full_mesh_links(N):
    """Links in a full mesh: N (N - 1) / 2 (line 2022: 28 for 8 GPUs); each device needs N - 1 ports."""
    n = count("N", N, ge=2)
    return out(n * (n - 1) / 2.0, "")


def ring_max_hops(N):
    """Hops to the opposite side of a bidirectional ring: floor(N / 2) (line 2022: 4 for 8 GPUs).
    A switched crossbar (NVSwitch) is one hop for every pair."""
    n = count("N", N, ge=2)
    return out(np.floor(n / 2.0), "")


def hidden_tensor_bytes(b, s, h, bytes_per_value):
    """Bytes of one activation tensor at a layer or stage boundary: b x s x h x bytes per value
    (lines 1998 and 2034: 4 x 2048 x 12288 x 2 B = 201 MB)."""
    bb, ss, hh = count("b", b), count("s", s), count("h", h)
    v = magnitude("bytes_per_value", bytes_per_value, "byte", gt=0)
    return out(bb * ss * hh * v, "byte").to(_u("MB"))


def per_step_comm_time(t_collective, layers, passes=2):
    """Communication per training step when every layer runs one collective in each pass:
    passes x layers x t (line 2036: 2 x 96 = 192 AllReduces per step)."""
    t = magnitude("t_collective", t_collective, "s", ge=0)
    L = count("layers", layers)
    p = count("passes", passes)
    return out(p * L * t, "s").to(_u("ms"))


def stall_fraction(t_comm, t_compute):
    """Share of wall time the accelerator waits when communication is not overlapped:
    t_comm / (t_comm + t_compute) (line 2046: 604 / (604 + 200) = 75.1 %). Utilisation is
    1 minus this, the same as :func:`fleetcalc.physics.parallel_scaling.compute_fraction` with N = 1."""
    n = magnitude("t_comm", t_comm, "s", ge=0)
    c = magnitude("t_compute", t_compute, "s", ge=0)
    if np.any(n + c <= 0):
        raise InputError(f"t_comm + t_compute must be > 0 s; got {t_comm} and {t_compute}")
    return out(n / (n + c), "")


# --------------------------------------------------------------------------- reliability
def node_failure_rate(counts, mtbfs):
    """Failure rate of a node that stops when any part fails: sum_i n_i / MTBF_i (series system,
    exponential failures; Vol. 2 Ch. 2 §Node health, lines 2081-2098). Returns 1/s.

    ``counts`` and ``mtbfs`` are equal-length sequences (component counts, per-part MTBFs)."""
    counts = _seq("counts", counts, "node_failure_rate")
    mtbfs = _seq("mtbfs", mtbfs, "node_failure_rate")
    if len(counts) != len(mtbfs):
        raise InputError(f"counts and mtbfs must be of equal length; got {len(counts)} counts {counts!r} "
                         f"and {len(mtbfs)} mtbfs {mtbfs!r}")
    total = 0.0
    for i, (n, m) in enumerate(zip(counts, mtbfs)):
        n_i = count(f"counts[{i}]", n, ge=0)
        magnitude(f"mtbfs[{i}]", m, "s", gt=0)
        if np.all(n_i == 0):
            continue
        lam = reliability.failure_rate(m)
        total = total + np.asarray(n_i) * lam.to(_u("1/s")).magnitude
    return out(total, "1/s")


def node_mtbf(counts, mtbfs):
    """MTBF of a node from its parts: 1 / sum_i (n_i / MTBF_i) (lines 2081-2098; a node with
    8 GPUs of 50,000 h alone has 6,250 h)."""
    lam = node_failure_rate(counts, mtbfs).to(_u("1/s")).magnitude
    if np.any(lam <= 0):
        raise InputError("at least one component must have a non-zero count")
    return out(1.0 / lam, "s").to(_u("hour"))


def rest_of_node_mtbf(node_mtbf_total, gpu_mtbf, gpus):
    """MTBF of everything in a node except its GPUs, implied by a whole-node MTBF:
    1 / (1/M_node - n/M_gpu) (line 2098: 1,000 h node, 8 x 50,000 h GPUs -> 1,190 h)."""
    mn = magnitude("node_mtbf_total", node_mtbf_total, "s", gt=0)
    magnitude("gpu_mtbf", gpu_mtbf, "s", gt=0)                  # own names before delegating
    count("gpus", gpus)
    lam_gpu = reliability.job_failure_rate(reliability.failure_rate(gpu_mtbf), gpus).to(_u("1/s")).magnitude
    rest = 1.0 / mn - lam_gpu
    if np.any(rest <= 0):
        raise InputError(
            f"node_mtbf_total must be shorter than the GPUs' own MTBF (gpu_mtbf / gpus); got {node_mtbf_total}"
        )
    return out(1.0 / rest, "s").to(_u("hour"))


def expected_failures(duration, mtbf_one, n=1):
    """Expected failures of n parts in a window: n x T / MTBF = T / mtbf_of_n(MTBF, n)
    (line 2098: 128 nodes x 336 h / 1,000 h = 43; 1,024 GPUs x 336 h / 50,000 h = 6.9)."""
    d = magnitude("duration", duration, "s", ge=0)
    m = reliability.mtbf_of_n(mtbf_one, n).to(_u("s")).magnitude
    return out(d / m, "")


def restart_overhead(failures, recovery, duration):
    """Share of the run lost to restarts: failures x recovery time / run time (line 2098:
    43 x 10-30 min / 336 h = 2.1-6.4 %). Work lost since the last checkpoint is not included."""
    f = magnitude("failures", failures, "", ge=0)
    r = magnitude("recovery", recovery, "s", ge=0)
    d = magnitude("duration", duration, "s", gt=0)
    return out(f * r / d, "")


def failure_probability_of_fleet(duration, mtbf_one, n):
    """P(at least one of n parts fails within the window) = 1 - exp(-n T / MTBF)
    (reliability.failure_probability with mtbf_of_n; line 2098's "considerable" probability)."""
    return reliability.failure_probability(duration, reliability.mtbf_of_n(mtbf_one, n))


# --------------------------------------------------------------------------- data feed
def prefetch_depth(T_io, sigma_io, T_compute, z=3.0):
    """Least prefetch depth k >= ceil(T_io / T_compute + z sigma_io / T_compute), z = 3 for the
    book's 99.7 % (Vol. 2 Ch. 2 §Data loading, line 2214: ceil(0.75 + 0.75) = 2 batches)."""
    ti = magnitude("T_io", T_io, "s", ge=0)
    si = magnitude("sigma_io", sigma_io, "s", ge=0)
    tc = magnitude("T_compute", T_compute, "s", gt=0)
    zz = magnitude("z", z, "", ge=0)
    k = (ti + zz * si) / tc
    k = np.ceil(k - 1e-12 * np.maximum(k, 1.0))
    return out(np.maximum(k, 1.0), "batch")


def effective_bandwidth_numa(BW, penalty):
    """Bandwidth seen across the socket interconnect: BW x (1 - penalty) (line 2012: up to 50 %)."""
    b = magnitude("BW", BW, "byte/s", ge=0)
    p = magnitude("penalty", penalty, "", ge=0, lt=1)
    return out(b * (1.0 - p), "byte/s").to(_u("GB/s"))


def step_time_after_network_upgrade(t_compute, t_comm, speedup):
    """Step time when only the network gets ``speedup`` times faster (no overlap):
    t_compute + t_comm / speedup (pitfall at line 2434: 20 s + 2 s / 2 = 21 s)."""
    c = magnitude("t_compute", t_compute, "s", ge=0)
    n = magnitude("t_comm", t_comm, "s", ge=0)
    k = magnitude("speedup", speedup, "", gt=0)
    return out(c + n / k, "s")
