"""Switches, topologies and fabric behaviour, Vol. 2 Ch. 3 §3.1-3.2 and §3.5-3.6.

Symbols: ``hosts`` endpoints (GPUs, one NIC port each), ``link_bw`` the one-way rate of one
host link, ``k`` the switch radix (ports per switch), ``tiers`` switch layers of a fat-tree,
``oversubscription`` the downlink-to-uplink capacity ratio of a layer (1 = non-blocking).
Bisection bandwidth BW_bisect (割带宽 / 对分带宽) is one-way: the capacity from one half of the
cluster to the other (line 2800 "每个方向").

Fat-tree sizing: a tree of ``t`` tiers of radix-k switches, each switch using k/2 ports down
and k/2 up (the top tier all k down), connects N = 2 (k/2)^t hosts with (2t - 1)(k/2)^(t-1)
switches (Al-Fares et al. 2008): t = 2 gives the book's k^2/2 and 3k/2, t = 3 gives k^3/4 and
5k^2/4 (lines 2782, 2792, 2811).

Failure odds reuse :mod:`fleetcalc.physics.reliability` (Ch. 28 §28.9): a per-device daily probability p
becomes a rate -ln(1 - p) per day, so P(at least one of n in a day) = 1 - (1 - p)^n exactly,
the book's PFC-storm formula (line 2939).
"""
from __future__ import annotations

import functools

import numpy as np

from fleetcalc.core.calculator import calculator, fraction, num, qty, whole
from fleetcalc.core.units import Q_
from fleetcalc.core.validate import InputError, magnitude, out
from fleetcalc.physics import links, node, reliability

__all__ = [
    "bisection_bandwidth", "oversubscription", "bisection_crossing_bytes",
    "comm_stretch", "throughput_loss", "stall_cost", "utilization", "barrier_waste",
    "idle_gpu_cost", "fat_tree_hosts", "fat_tree_pod_hosts", "fat_tree_switches",
    "fat_tree_links", "fat_tree_tiers_needed", "fat_tree_min_radix", "max_device_probability", "switch_traversals", "path_latency",
    "rail_groups", "dragonfly_hosts", "slowdown_from_fraction", "torus_nodes",
    "torus_diameter", "torus_bisection_links", "torus_neighbors", "incast_overload",
    "buffer_fill_time", "transceivers", "pfc_storm_probability", "expected_storms",
    "straggler_gpu_steps", "ecmp_max_load_cdf", "ecmp_collision_probability",
    "ecmp_expected_max_load", "ecmp_expected_slowdown",
]

_COMM_FRACTION = fraction(doc="share of the step spent communicating, not overlapped")


# --- bisection and oversubscription (§3.5) ---------------------------------------------------

@calculator(returns="byte/s", hosts=whole(ge=2), link_bw=qty("byte/s", gt=0, doc="one-way rate of one host link"),
            oversubscription=num(ge=1, doc="downlink / uplink capacity, 1 = non-blocking"))
def bisection_bandwidth(hosts, link_bw, oversubscription=1):
    """BW_bisect = (hosts / 2) x link_bw / oversubscription, one-way (Vol. 2 Ch. 3 §3.5,
    lines 2748, 2800: 512 x 50 GB/s = 25.6 TB/s; 4:1 -> 6.4 TB/s)."""
    return hosts / 2.0 * link_bw / oversubscription


def oversubscription(down, up):
    """Oversubscription = downlink capacity / uplink capacity of one switch layer (1 = non-blocking),
    Vol. 2 Ch. 3 §3.5 (line 2770: 32 ports down, 32 up -> 1:1). Give port counts of equal rate
    or capacities (Quantities in byte/s or bit/s)."""
    unit = "byte/s" if hasattr(down, "units") else ""
    d = magnitude("down", down, unit, gt=0)
    u = magnitude("up", up, unit, gt=0)
    return out(d / u, "")


@calculator(returns="byte", hosts=whole(ge=2), per_host=qty("byte", ge=0, doc="bytes each host of one half sends"))
def bisection_crossing_bytes(hosts, per_host):
    """Bytes that must cross the bisection when each host of one half sends ``per_host`` to the
    other half: (hosts / 2) x per_host (Vol. 2 Ch. 3 §3.5, line 2801: 512 x 100 GB = 51,200 GB)."""
    return hosts / 2.0 * per_host


# --- what a slower network costs (§3.1, §3.5, §3.6) ------------------------------------------

@calculator(returns="", comm_fraction=_COMM_FRACTION, slowdown=num(gt=0, doc="times slower communication"))
def comm_stretch(comm_fraction, slowdown):
    """Step time relative to before when communication (a fraction f of the step, not
    overlapped) gets ``slowdown`` times slower: (1 - f) + f s (Vol. 2 Ch. 3 §3.5, line 2760)."""
    return (1.0 - comm_fraction) + comm_fraction * slowdown


@calculator(returns="", comm_fraction=_COMM_FRACTION, slowdown=num(gt=0, doc="times slower communication"))
def throughput_loss(comm_fraction, slowdown):
    """Cluster throughput lost: 1 - 1 / stretch (Vol. 2 Ch. 3 §3.5, line 2760: f = 30 %,
    2:1 oversubscription -> 23.1 %)."""
    return 1.0 - 1.0 / comm_stretch.kernel(comm_fraction, slowdown)


@calculator(returns="cu", budget=qty("cu", ge=0, doc="cost of the slowed run"), comm_fraction=_COMM_FRACTION,
            slowdown=num(ge=1, doc="times slower communication"))
def stall_cost(budget, comm_fraction, slowdown):
    """Money spent on GPUs idling in the extra network stall, when ``budget`` pays for the slowed
    run: budget x f (s - 1) / ((1 - f) + f s) (Vol. 2 Ch. 3 §3.5, line 2805: $300M, f = 30 %,
    4:1 -> $142.1M)."""
    return budget * throughput_loss.kernel(comm_fraction, slowdown)  # f (s - 1) / stretch = 1 - 1 / stretch


@calculator(returns="", compute=qty("s", gt=0), comm=qty("s", ge=0, doc="not overlapped"))
def utilization(compute, comm):
    """Busy fraction of a step without overlap: compute / (compute + comm) = 1 - the stall
    fraction of :func:`fleetcalc.physics.node.stall_fraction` (Vol. 2 Ch. 3 §3.1, Fig. 3.3, line 2547)."""
    return 1.0 - node.stall_fraction(Q_(comm, "s"), Q_(compute, "s")).m_as("")


@calculator(returns="s", gpus=whole(), delay=qty("s", ge=0, doc="straggler's delay"))
def barrier_waste(gpus, delay):
    """GPU-time lost when a barrier waits ``delay`` for one straggler: gpus x delay (the waiting
    GPUs idle for the whole delay), Vol. 2 Ch. 3 §3.2 (line 2573: 100 ms x 1,024 GPUs)."""
    return gpus * delay


@calculator(returns="cu", gpus=whole(ge=0), stall=qty("hour", ge=0), price=qty("cu/hour", ge=0, doc="per GPU-hour"))
def idle_gpu_cost(gpus, stall, price):
    """Cost of GPUs idling while the network stalls: gpus x stall time x price per GPU-hour
    (Vol. 2 Ch. 3 §3.6, line 2879 prices a GPU-hour at $3)."""
    return gpus * stall * price


@calculator(returns="", gpus=whole(), slowdown=num(ge=0, doc="fraction of a step the straggler is late"))
def straggler_gpu_steps(gpus, slowdown):
    """GPU-steps wasted per iteration when one of ``gpus`` runs ``slowdown`` (fraction) slower:
    the other gpus - 1 wait slowdown of a step each (Vol. 2 Ch. 3 §3.6, line 2879: 1,023 x 10 %)."""
    return (gpus - 1) * slowdown


# --- fat-tree sizing (§3.5) ------------------------------------------------------------------

_RADIX = whole(ge=2, doc="switch radix, even")
_TIERS = whole(le=8, doc="switch tiers (2-3 in practice; (k/2)^t overflows a float for hundreds)")


def _even(k):
    """The radix k, or InputError when it is odd (half the ports go down, half up)."""
    if np.any(np.asarray(k) % 2):
        raise InputError(f"k (switch radix) must be even: half the ports go down, half up; "
                         f"got {np.asarray(k)[np.asarray(k) % 2 == 1].flat[0]:g}")
    return k


@calculator(returns="", k=_RADIX, tiers=_TIERS)
def fat_tree_hosts(k, tiers=3):
    """Hosts of a non-blocking fat-tree: N = 2 (k/2)^t (k^2/2 for t = 2, k^3/4 for t = 3),
    Vol. 2 Ch. 3 §3.5 (line 2782: k = 64 -> 2,048 and 65,536)."""
    return 2.0 * (_even(k) / 2.0) ** tiers


@calculator(returns="", k=_RADIX)
def fat_tree_pod_hosts(k):
    """Hosts of one pod when the upper layer is kept as aggregation (k/2 leaves x k/2 hosts):
    (k/2)^2, Vol. 2 Ch. 3 §3.5 (line 2792: k = 64 -> 1,024)."""
    return (_even(k) / 2.0) ** 2


@calculator(returns="", k=_RADIX, tiers=_TIERS)
def fat_tree_switches(k, tiers=3):
    """Switches of a full non-blocking fat-tree: (2t - 1)(k/2)^(t-1) (3k/2 for t = 2,
    5k^2/4 for t = 3), Vol. 2 Ch. 3 §3.5 (line 2811: k = 64 -> 5,120)."""
    return (2.0 * tiers - 1.0) * (_even(k) / 2.0) ** (tiers - 1)


@calculator(returns="", k=_RADIX, tiers=_TIERS)
def fat_tree_links(k, tiers=3):
    """Cables of a full fat-tree: one per host per tier, t x N (host links plus t - 1 layers of
    switch-to-switch links, each as wide as the host layer when non-blocking). Vol. 2 Ch. 3 §3.6
    counts 3 link tiers per GPU in a three-tier tree (line 2935)."""
    return tiers * fat_tree_hosts.kernel(k, tiers)


@calculator(returns="", hosts=whole(), k=whole(ge=4, doc="switch radix, even"))
def fat_tree_tiers_needed(hosts, k):
    """Fewest tiers t with 2 (k/2)^t >= hosts (Vol. 2 Ch. 3 §3.5, line 2811: beyond a two-tier
    pod you need a core layer). Needs k >= 4 (with k = 2 the tree never grows)."""
    t = np.ceil(np.log(np.maximum(hosts / 2.0, 1.0)) / np.log(_even(k) / 2.0) - 1e-12)
    return np.maximum(t, 1.0)


@calculator(returns="", hosts=whole(ge=2), tiers=_TIERS)
def fat_tree_min_radix(hosts, tiers=2):
    """Smallest even radix k with 2 (k/2)^t >= hosts: k = 2 ceil((hosts/2)^(1/t)) (inverts the
    sizing of Vol. 2 Ch. 3 §3.5, line 2782: 2,048 hosts in two tiers need k = 64)."""
    return 2.0 * np.ceil((hosts / 2.0) ** (1.0 / tiers) - 1e-9)


@calculator(returns="", tiers_up=whole(doc="layers climbed"))
def switch_traversals(tiers_up):
    """Switches a packet crosses when it must climb ``tiers_up`` layers and come back down:
    2 tiers_up - 1 (1 = same leaf / rail switch, 3 = leaf-spine-leaf, 5 = through the core),
    Vol. 2 Ch. 3 §3.5 (lines 2811, 2821)."""
    return 2.0 * tiers_up - 1.0


@calculator(returns="s", traversals=whole(ge=0), per_switch=qty("s", ge=0))
def path_latency(traversals, per_switch):
    """Switching part of alpha: traversals x per-switch latency (Vol. 2 Ch. 3 §3.5, line 2825:
    3 x 0.6 us vs 1 x 0.6 us)."""
    return traversals * per_switch


@calculator(returns=("", ""), gpus=whole(doc="a whole number of nodes"), gpus_per_node=whole())
def rail_groups(gpus, gpus_per_node):
    """A rail-optimized fabric: one rail per local GPU rank, each rail joining one GPU of every
    node. Returns (rails, GPUs per rail) = (gpus_per_node, gpus / gpus_per_node)
    (Vol. 2 Ch. 3 §3.5, line 2839: 1,024 GPUs, 8 per node -> 8 rails of 128)."""
    if np.any(np.asarray(gpus) % np.asarray(gpus_per_node)):
        raise InputError(f"gpus must be a whole number of nodes of {np.min(gpus_per_node):g}; got {np.max(gpus):g}")
    return gpus_per_node + 0.0 * gpus, gpus / gpus_per_node


# --- dragonfly and torus (§3.5) --------------------------------------------------------------

@calculator(returns="", p=whole(doc="host ports per router"), a=whole(doc="routers per group"),
            h=whole(doc="global ports per router"))
def dragonfly_hosts(p, a, h):
    """Largest dragonfly of routers with p host ports, a routers per group and h global ports each:
    a p (a h + 1) hosts in a h + 1 groups (Kim et al. 2008, cited at line 2764; the chapter gives
    no sizing formula)."""
    return a * p * (a * h + 1.0)


@calculator(returns="", fraction=fraction(open_low=True, doc="share of the needed bandwidth available"))
def slowdown_from_fraction(fraction):
    """Slowdown of traffic limited to a fraction of the bandwidth it needs: 1 / fraction
    (Vol. 2 Ch. 3 §3.5, line 2845: global links at 25-50 % -> 2-4x)."""
    return 1.0 / fraction


_DIMS = whole(ge=2, doc="side lengths, one per dimension, e.g. (16, 16, 16)")


def _sides(dims):
    """The side lengths as a 1-D array, or InputError for a nested list."""
    d = np.atleast_1d(dims)
    if d.ndim != 1:
        raise InputError(f"dims must be a list of side lengths, e.g. (16, 16, 16); got {dims}")
    return d


@calculator(returns="", dims=_DIMS)
def torus_nodes(dims):
    """Nodes of a torus with side lengths dims: the product (e.g. 16 x 16 x 16 = 4,096)."""
    return float(np.prod(_sides(dims)))


@calculator(returns="", dims=_DIMS)
def torus_diameter(dims):
    """Hops between the farthest two nodes of a torus (wrap-around links): sum of floor(k_i / 2);
    grows as N^(1/3) in 3-D (Vol. 2 Ch. 3 §3.5, line 2847)."""
    return float(np.sum(np.floor(_sides(dims) / 2.0)))


@calculator(returns="", dims=_DIMS)
def torus_bisection_links(dims):
    """Links cut when a torus is halved across its longest side: 2 N / k_max (the factor 2 is the
    wrap-around); N^(2/3) scaling in 3-D (Vol. 2 Ch. 3 §3.5, line 2849). Needs an even k_max."""
    d = _sides(dims)
    kmax = d.max()
    if kmax % 2:
        raise InputError(f"the longest side of dims must be even to halve the torus; got dims {tuple(int(x) for x in d)}")
    return 2.0 * torus_nodes.kernel(d) / kmax


@calculator(returns="", ndim=whole(doc="dimensions of the torus"))
def torus_neighbors(ndim):
    """Direct neighbours of a node in an ndim-dimensional torus: 2 ndim (6 in 3-D, line 2847)."""
    return 2.0 * ndim


# --- incast and PFC (§3.6) -------------------------------------------------------------------

@calculator(returns="", senders=whole(), sender_rate=qty("byte/s", gt=0), port_rate=qty("byte/s", gt=0))
def incast_overload(senders, sender_rate, port_rate):
    """Offered load over capacity at an incast port: senders x sender_rate / port_rate
    (Vol. 2 Ch. 3 §3.6, Fig. 3.11, line 2913: 256 x 50 GB/s over 50 GB/s = 256x)."""
    return senders * sender_rate / port_rate


@calculator(returns="s", buffer=qty("byte", gt=0), senders=whole(), sender_rate=qty("byte/s", gt=0),
            port_rate=qty("byte/s", gt=0, doc="< senders x sender_rate"))
def buffer_fill_time(buffer, senders, sender_rate, port_rate):
    """Time for an incast to fill a switch buffer: buffer / (senders x sender_rate - port_rate)
    (follows from Fig. 3.11, line 2913; needs offered load above the port rate)."""
    excess = senders * sender_rate - port_rate
    if np.any(excess <= 0):
        raise InputError("senders x sender_rate must exceed port_rate, or the buffer never fills; "
                         f"got {np.min(senders * sender_rate):g} byte/s against {np.max(port_rate):g} byte/s")
    return links.transfer_time.kernel(buffer, excess)


@calculator(returns="", gpus=whole(), link_tiers=whole(doc="link tiers per GPU"),
            per_link=whole(doc="transceivers per link"))
def transceivers(gpus, link_tiers=3, per_link=2):
    """Transceivers exposed in a fabric: gpus x link tiers x per-link ends
    (Vol. 2 Ch. 3 §3.6, line 2935: 4,096 x 3 = 12,288 links = 24,576 transceivers)."""
    return gpus * link_tiers * per_link


_P_DAILY = num(gt=0, lt=1, doc="probability per device per day")


def _mtbf_of_n_days(p_daily, n_devices):
    """MTBF (days) of the first of n devices, each failing with probability p per day:
    1 / (n x -ln(1 - p)), via :func:`fleetcalc.physics.reliability.mtbf_of_n`."""
    return reliability.mtbf_of_n(Q_(1.0 / -np.log1p(-p_daily), "day"), n_devices).m_as("day")


@calculator(returns="", p_daily=_P_DAILY, n_devices=whole(), window=qty("day", ge=0))
def pfc_storm_probability(p_daily, n_devices, window=1.0):
    """P(at least one of n devices fails in ``window``) = 1 - (1 - p)^(n x days), p per device per
    day, independent devices (Vol. 2 Ch. 3 §3.6, lines 2939-2943: p = 0.001 %, n = 24,576 -> 21.8 %).
    Computed with :func:`fleetcalc.physics.reliability.mtbf_of_n` and ``failure_probability``."""
    return reliability.failure_probability(Q_(window, "day"), Q_(_mtbf_of_n_days(p_daily, n_devices), "day")).m_as("")


@calculator(returns="", P_target=num(gt=0, lt=1, doc="acceptable P(at least one failure)"), n_devices=whole(),
            window=qty("day", gt=0))
def max_device_probability(P_target, n_devices, window=1.0):
    """Largest per-device daily probability p that keeps P(at least one of n in ``window``) <=
    P_target: p = 1 - (1 - P_target)^(1 / (n x days)) (inverts :func:`pfc_storm_probability`)."""
    return -np.expm1(np.log1p(-P_target) / (n_devices * window))


@calculator(returns="", p_daily=_P_DAILY, n_devices=whole(), window=qty("day", ge=0))
def expected_storms(p_daily, n_devices, window=1.0):
    """Expected storm-triggering failures in ``window``: window / MTBF_n = n x -ln(1 - p) per day
    (the Poisson rate behind :func:`pfc_storm_probability`)."""
    return window / _mtbf_of_n_days(p_daily, n_devices)


# --- ECMP hash collisions (§3.6) -------------------------------------------------------------

_MAX_FLOWS = 256


def _log_factorials(n):
    return np.concatenate([[0.0], np.cumsum(np.log(np.arange(1, n + 1)))])


def _max_load_cdf(flows: int, paths: int) -> np.ndarray:
    return _max_load_cdf_cached(flows, paths).copy()


@functools.lru_cache(maxsize=256)
def _max_load_cdf_cached(flows: int, paths: int) -> np.ndarray:
    """cdf[c] = P(max path load <= c), c = 0..flows, flows hashed uniformly and independently.

    Sequential conditioning: path i receives Binomial(remaining, 1 / (paths - i)) of the flows
    not yet placed; the last path takes the rest. Exact (no sampling).
    """
    lf = _log_factorials(flows)
    r = np.arange(flows + 1)
    rr, ss = np.meshgrid(r, r, indexing="ij")          # from `rr` unplaced to `ss` unplaced
    j = rr - ss                                        # flows given to this path
    valid = j >= 0
    jj = np.where(valid, j, 0)
    trans = []
    for i in range(paths - 1):
        q = 1.0 / (paths - i)
        logp = lf[rr] - lf[jj] - lf[np.where(valid, ss, 0)] + jj * np.log(q) + (rr - jj) * np.log1p(-q)
        trans.append(np.exp(np.where(valid, logp, -np.inf)))
    cdf = np.zeros(flows + 1)
    start = -(-flows // paths)                         # ceil: below it the cdf is 0
    for c in range(start, flows + 1):
        band = valid & (j <= c)
        state = np.zeros(flows + 1)
        state[flows] = 1.0
        for t in trans:
            state = state @ np.where(band, t, 0.0)
        cdf[c] = state[: c + 1].sum()
        if cdf[c] >= 1.0 - 1e-13:
            cdf[c:] = 1.0
            break
    return np.clip(cdf, 0.0, 1.0)


def _one(name, value):
    """A scalar argument as an int, or InputError (the exact calculation is not vectorised)."""
    if np.ndim(value) != 0:
        raise InputError(f"{name} must be one number (the exact ECMP calculation is not vectorised); got {value!r}")
    return int(value)


_FLOWS = whole(le=_MAX_FLOWS, doc="equal elephant flows; at most 256 for the exact calculation")
_PATHS = whole(le=64, doc="equal-cost paths; at most 64 for the exact calculation")


@calculator(returns="", flows=_FLOWS, paths=_PATHS)
def ecmp_max_load_cdf(flows, paths):
    """P(busiest path carries <= c flows) for c = 0..flows, when ``flows`` equal elephant flows are
    hashed uniformly at random onto ``paths`` equal-cost paths (static ECMP, Vol. 2 Ch. 3 §3.6,
    line 2957; the text names the effect but gives no odds). Exact, not simulated."""
    return _max_load_cdf(_one("flows", flows), _one("paths", paths))


@calculator(returns="", flows=_FLOWS, paths=_PATHS, load=whole(ge=0, doc="flows on one path"))
def ecmp_collision_probability(flows, paths, load):
    """P(some path carries >= ``load`` flows) under static hashing (line 2957's "one link with
    4 flows" for 8 flows on 4 paths)."""
    f, p, c = _one("flows", flows), _one("paths", paths), _one("load", load)
    if c == 0:
        return 1.0
    if c > f:
        return 0.0
    return 1.0 - _max_load_cdf(f, p)[c - 1]


@calculator(returns="", flows=_FLOWS, paths=_PATHS)
def ecmp_expected_max_load(flows, paths):
    """E[flows on the busiest path] = sum_c P(max > c)."""
    return float(np.sum(1.0 - ecmp_max_load_cdf.kernel(flows, paths)))


@calculator(returns="", flows=_FLOWS, paths=_PATHS)
def ecmp_expected_slowdown(flows, paths):
    """E[max load] / ceil(flows / paths): how much longer the synchronous step's last flow takes
    than with perfect balance (line 2957: a 4-flow link vs the ideal 2 doubles the time)."""
    return ecmp_expected_max_load.kernel(flows, paths) / np.ceil(_one("flows", flows) / _one("paths", paths))
