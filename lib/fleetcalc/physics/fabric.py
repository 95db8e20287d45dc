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

from fleetcalc.physics import reliability
from fleetcalc.core.units import Q_
from fleetcalc.core.validate import InputError, count, magnitude, out

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


# --- bisection and oversubscription (§3.5) ---------------------------------------------------

def bisection_bandwidth(hosts, link_bw, oversubscription=1):
    """BW_bisect = (hosts / 2) x link_bw / oversubscription, one-way (Vol. 2 Ch. 3 §3.5,
    lines 2748, 2800: 512 x 50 GB/s = 25.6 TB/s; 4:1 -> 6.4 TB/s)."""
    n = count("hosts", hosts, ge=2)
    b = magnitude("link_bw", link_bw, "byte/s", gt=0)
    o = magnitude("oversubscription", oversubscription, "", ge=1)
    return out(n / 2.0 * b / o, "byte/s")


def oversubscription(down, up):
    """Oversubscription = downlink capacity / uplink capacity of one switch layer (1 = non-blocking),
    Vol. 2 Ch. 3 §3.5 (line 2770: 32 ports down, 32 up -> 1:1). Give port counts of equal rate
    or capacities (Quantities in byte/s or bit/s)."""
    unit = "byte/s" if hasattr(down, "units") else ""
    d = magnitude("down", down, unit, gt=0)
    u = magnitude("up", up, unit, gt=0)
    return out(d / u, "")


def bisection_crossing_bytes(hosts, per_host):
    """Bytes that must cross the bisection when each host of one half sends ``per_host`` to the
    other half: (hosts / 2) x per_host (Vol. 2 Ch. 3 §3.5, line 2801: 512 x 100 GB = 51,200 GB)."""
    n = count("hosts", hosts, ge=2)
    p = magnitude("per_host", per_host, "byte", ge=0)
    return out(n / 2.0 * p, "byte")


# --- what a slower network costs (§3.1, §3.5, §3.6) ------------------------------------------

def comm_stretch(comm_fraction, slowdown):
    """Step time relative to before when communication (a fraction f of the step, not
    overlapped) gets ``slowdown`` times slower: (1 - f) + f s (Vol. 2 Ch. 3 §3.5, line 2760)."""
    f = magnitude("comm_fraction", comm_fraction, "", ge=0, le=1)
    s = magnitude("slowdown", slowdown, "", gt=0)
    return out((1.0 - f) + f * s, "")


def throughput_loss(comm_fraction, slowdown):
    """Cluster throughput lost: 1 - 1 / stretch (Vol. 2 Ch. 3 §3.5, line 2760: f = 30 %,
    2:1 oversubscription -> 23.1 %)."""
    return out(1.0 - 1.0 / comm_stretch(comm_fraction, slowdown).magnitude, "")


def stall_cost(budget, comm_fraction, slowdown):
    """Money spent on GPUs idling in the extra network stall, when ``budget`` pays for the slowed
    run: budget x f (s - 1) / ((1 - f) + f s) (Vol. 2 Ch. 3 §3.5, line 2805: $300M, f = 30 %,
    4:1 -> $142.1M)."""
    c = magnitude("budget", budget, "cu", ge=0)
    f = magnitude("comm_fraction", comm_fraction, "", ge=0, le=1)
    s = magnitude("slowdown", slowdown, "", ge=1)
    return out(c * f * (s - 1.0) / ((1.0 - f) + f * s), "cu")


def utilization(compute, comm):
    """Busy fraction of a step without overlap: compute / (compute + comm) = 1 - the stall
    fraction of :func:`fleetcalc.physics.node.stall_fraction` (Vol. 2 Ch. 3 §3.1, Fig. 3.3, line 2547)."""
    from fleetcalc.physics.node import stall_fraction

    c = magnitude("compute", compute, "s", gt=0)
    n = magnitude("comm", comm, "s", ge=0)
    return out(1.0 - stall_fraction(Q_(n, "s"), Q_(c, "s")).magnitude, "")


def barrier_waste(gpus, delay):
    """GPU-time lost when a barrier waits ``delay`` for one straggler: gpus x delay (the waiting
    GPUs idle for the whole delay), Vol. 2 Ch. 3 §3.2 (line 2573: 100 ms x 1,024 GPUs)."""
    n = count("gpus", gpus)
    d = magnitude("delay", delay, "s", ge=0)
    return out(n * d, "s")


def idle_gpu_cost(gpus, stall, price):
    """Cost of GPUs idling while the network stalls: gpus x stall time x price per GPU-hour
    (Vol. 2 Ch. 3 §3.6, line 2879 prices a GPU-hour at $3)."""
    n = count("gpus", gpus, ge=0)
    t = magnitude("stall", stall, "hour", ge=0)
    p = magnitude("price", price, "cu/hour", ge=0)
    return out(n * t * p, "cu")


def straggler_gpu_steps(gpus, slowdown):
    """GPU-steps wasted per iteration when one of ``gpus`` runs ``slowdown`` (fraction) slower:
    the other gpus - 1 wait slowdown of a step each (Vol. 2 Ch. 3 §3.6, line 2879: 1,023 x 10 %)."""
    n = count("gpus", gpus)
    s = magnitude("slowdown", slowdown, "", ge=0)
    return out((n - 1) * s, "")


# --- fat-tree sizing (§3.5) ------------------------------------------------------------------

def _k(k):
    kk = count("k", k, ge=2)
    if np.any(np.asarray(kk) % 2):
        raise InputError(f"k (switch radix) must be even: half the ports go down, half up; got {k}")
    return kk


def _tiers(tiers):
    return count("tiers", tiers, ge=1)


def fat_tree_hosts(k, tiers=3):
    """Hosts of a non-blocking fat-tree: N = 2 (k/2)^t (k^2/2 for t = 2, k^3/4 for t = 3),
    Vol. 2 Ch. 3 §3.5 (line 2782: k = 64 -> 2,048 and 65,536)."""
    kk, t = _k(k), _tiers(tiers)
    return out(2.0 * (kk / 2.0) ** t, "")


def fat_tree_pod_hosts(k):
    """Hosts of one pod when the upper layer is kept as aggregation (k/2 leaves x k/2 hosts):
    (k/2)^2, Vol. 2 Ch. 3 §3.5 (line 2792: k = 64 -> 1,024)."""
    kk = _k(k)
    return out((kk / 2.0) ** 2, "")


def fat_tree_switches(k, tiers=3):
    """Switches of a full non-blocking fat-tree: (2t - 1)(k/2)^(t-1) (3k/2 for t = 2,
    5k^2/4 for t = 3), Vol. 2 Ch. 3 §3.5 (line 2811: k = 64 -> 5,120)."""
    kk, t = _k(k), _tiers(tiers)
    return out((2.0 * t - 1.0) * (kk / 2.0) ** (t - 1), "")


def fat_tree_links(k, tiers=3):
    """Cables of a full fat-tree: one per host per tier, t x N (host links plus t - 1 layers of
    switch-to-switch links, each as wide as the host layer when non-blocking). Vol. 2 Ch. 3 §3.6
    counts 3 link tiers per GPU in a three-tier tree (line 2935)."""
    kk, t = _k(k), _tiers(tiers)
    return out(t * 2.0 * (kk / 2.0) ** t, "")


def fat_tree_tiers_needed(hosts, k):
    """Fewest tiers t with 2 (k/2)^t >= hosts (Vol. 2 Ch. 3 §3.5, line 2811: beyond a two-tier
    pod you need a core layer). Needs k >= 4 (with k = 2 the tree never grows)."""
    n = count("hosts", hosts)
    kk = _k(k)
    if np.any(np.asarray(kk) < 4):
        raise InputError(f"k must be >= 4 for a tree that grows with its tiers; got {k}")
    t = np.ceil(np.log(np.maximum(n / 2.0, 1.0)) / np.log(kk / 2.0) - 1e-12)
    t = np.maximum(t, 1.0)
    return out(t, "")


def fat_tree_min_radix(hosts, tiers=2):
    """Smallest even radix k with 2 (k/2)^t >= hosts: k = 2 ceil((hosts/2)^(1/t)) (inverts the
    sizing of Vol. 2 Ch. 3 §3.5, line 2782: 2,048 hosts in two tiers need k = 64)."""
    n = count("hosts", hosts, ge=2)
    t = _tiers(tiers)
    half = np.ceil((n / 2.0) ** (1.0 / t) - 1e-9)
    return out(2.0 * half, "")


def switch_traversals(tiers_up):
    """Switches a packet crosses when it must climb ``tiers_up`` layers and come back down:
    2 tiers_up - 1 (1 = same leaf / rail switch, 3 = leaf-spine-leaf, 5 = through the core),
    Vol. 2 Ch. 3 §3.5 (lines 2811, 2821)."""
    t = count("tiers_up", tiers_up, ge=1)
    return out(2.0 * t - 1.0, "")


def path_latency(traversals, per_switch):
    """Switching part of alpha: traversals x per-switch latency (Vol. 2 Ch. 3 §3.5, line 2825:
    3 x 0.6 us vs 1 x 0.6 us)."""
    n = count("traversals", traversals, ge=0)
    t = magnitude("per_switch", per_switch, "s", ge=0)
    return out(n * t, "s")


def rail_groups(gpus, gpus_per_node):
    """A rail-optimized fabric: one rail per local GPU rank, each rail joining one GPU of every
    node. Returns (rails, GPUs per rail) = (gpus_per_node, gpus / gpus_per_node)
    (Vol. 2 Ch. 3 §3.5, line 2839: 1,024 GPUs, 8 per node -> 8 rails of 128)."""
    n = count("gpus", gpus)
    g = count("gpus_per_node", gpus_per_node)
    if np.any(np.asarray(n) % np.asarray(g)):
        raise InputError(f"gpus must be a whole number of nodes of {gpus_per_node}; got {gpus}")
    return out(g + 0.0 * n, ""), out(n / g, "")


# --- dragonfly and torus (§3.5) --------------------------------------------------------------

def dragonfly_hosts(p, a, h):
    """Largest dragonfly of routers with p host ports, a routers per group and h global ports each:
    a p (a h + 1) hosts in a h + 1 groups (Kim et al. 2008, cited at line 2764; the chapter gives
    no sizing formula)."""
    pp, aa, hh = count("p", p), count("a", a), count("h", h)
    return out(aa * pp * (aa * hh + 1.0), "")


def slowdown_from_fraction(fraction):
    """Slowdown of traffic limited to a fraction of the bandwidth it needs: 1 / fraction
    (Vol. 2 Ch. 3 §3.5, line 2845: global links at 25-50 % -> 2-4x)."""
    f = magnitude("fraction", fraction, "", gt=0, le=1)
    return out(1.0 / f, "")


def _dims(dims):
    d = np.atleast_1d(count("dims", dims, ge=2))
    if d.ndim != 1:
        raise InputError(f"dims must be a list of side lengths, e.g. (16, 16, 16); got {dims}")
    return d


def torus_nodes(dims):
    """Nodes of a torus with side lengths dims: the product (e.g. 16 x 16 x 16 = 4,096)."""
    return out(float(np.prod(_dims(dims))), "")


def torus_diameter(dims):
    """Hops between the farthest two nodes of a torus (wrap-around links): sum of floor(k_i / 2);
    grows as N^(1/3) in 3-D (Vol. 2 Ch. 3 §3.5, line 2847)."""
    return out(float(np.sum(np.floor(_dims(dims) / 2.0))), "")


def torus_bisection_links(dims):
    """Links cut when a torus is halved across its longest side: 2 N / k_max (the factor 2 is the
    wrap-around); N^(2/3) scaling in 3-D (Vol. 2 Ch. 3 §3.5, line 2849). Needs an even k_max."""
    d = _dims(dims)
    kmax = d.max()
    if kmax % 2:
        raise InputError(f"the longest side must be even to halve the torus; got dims {tuple(int(x) for x in d)}")
    return out(2.0 * np.prod(d) / kmax, "")


def torus_neighbors(ndim):
    """Direct neighbours of a node in an ndim-dimensional torus: 2 ndim (6 in 3-D, line 2847)."""
    n = count("ndim", ndim)
    return out(2.0 * n, "")


# --- incast and PFC (§3.6) -------------------------------------------------------------------

def incast_overload(senders, sender_rate, port_rate):
    """Offered load over capacity at an incast port: senders x sender_rate / port_rate
    (Vol. 2 Ch. 3 §3.6, Fig. 3.11, line 2913: 256 x 50 GB/s over 50 GB/s = 256x)."""
    n = count("senders", senders)
    s = magnitude("sender_rate", sender_rate, "byte/s", gt=0)
    p = magnitude("port_rate", port_rate, "byte/s", gt=0)
    return out(n * s / p, "")


def buffer_fill_time(buffer, senders, sender_rate, port_rate):
    """Time for an incast to fill a switch buffer: buffer / (senders x sender_rate - port_rate)
    (follows from Fig. 3.11, line 2913; needs offered load above the port rate)."""
    b = magnitude("buffer", buffer, "byte", gt=0)
    n = count("senders", senders)
    s = magnitude("sender_rate", sender_rate, "byte/s", gt=0)
    p = magnitude("port_rate", port_rate, "byte/s", gt=0)
    excess = n * s - p
    if np.any(excess <= 0):
        raise InputError("senders x sender_rate must exceed port_rate, or the buffer never fills")
    return out(b / excess, "s")


def transceivers(gpus, link_tiers=3, per_link=2):
    """Transceivers exposed in a fabric: gpus x link tiers x per-link ends
    (Vol. 2 Ch. 3 §3.6, line 2935: 4,096 x 3 = 12,288 links = 24,576 transceivers)."""
    n = count("gpus", gpus)
    t = count("link_tiers", link_tiers)
    e = count("per_link", per_link)
    return out(n * t * e, "")


def _daily_mtbf(p_daily):
    p = magnitude("p_daily", p_daily, "", gt=0, lt=1)
    return Q_(1.0 / -np.log1p(-p), "day")


def pfc_storm_probability(p_daily, n_devices, window=Q_(1, "day")):
    """P(at least one of n devices fails in ``window``) = 1 - (1 - p)^(n x days), p per device per
    day, independent devices (Vol. 2 Ch. 3 §3.6, lines 2939-2943: p = 0.001 %, n = 24,576 -> 21.8 %).
    Computed with :func:`fleetcalc.physics.reliability.mtbf_of_n` and ``failure_probability``."""
    n = count("n_devices", n_devices)
    mtbf_n = reliability.mtbf_of_n(_daily_mtbf(p_daily), n)
    return reliability.failure_probability(window, mtbf_n)


def max_device_probability(P_target, n_devices, window=Q_(1, "day")):
    """Largest per-device daily probability p that keeps P(at least one of n in ``window``) <=
    P_target: p = 1 - (1 - P_target)^(1 / (n x days)) (inverts :func:`pfc_storm_probability`)."""
    P = magnitude("P_target", P_target, "", gt=0, lt=1)
    n = count("n_devices", n_devices)
    d = magnitude("window", window, "day", gt=0)
    return out(-np.expm1(np.log1p(-P) / (n * d)), "")


def expected_storms(p_daily, n_devices, window=Q_(1, "day")):
    """Expected storm-triggering failures in ``window``: window / MTBF_n = n x -ln(1 - p) per day
    (the Poisson rate behind :func:`pfc_storm_probability`)."""
    n = count("n_devices", n_devices)
    w = magnitude("window", window, "day", ge=0)
    mtbf_n = reliability.mtbf_of_n(_daily_mtbf(p_daily), n).to("day").magnitude
    return out(w / mtbf_n, "")


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


def _scalar(name, value):
    if np.ndim(getattr(value, "magnitude", value)) != 0:
        raise InputError(f"{name} must be one number (the exact ECMP calculation is not vectorised); got {value!r}")
    return value


def _ecmp_args(flows, paths):
    f = int(count("flows", _scalar("flows", flows)))
    p = int(count("paths", _scalar("paths", paths)))
    if f > _MAX_FLOWS:
        raise InputError(f"flows must be <= {_MAX_FLOWS} for the exact calculation; got {flows}")
    if p > 64:
        raise InputError(f"paths must be <= 64 for the exact calculation; got {paths}")
    return f, p


def ecmp_max_load_cdf(flows, paths):
    """P(busiest path carries <= c flows) for c = 0..flows, when ``flows`` equal elephant flows are
    hashed uniformly at random onto ``paths`` equal-cost paths (static ECMP, Vol. 2 Ch. 3 §3.6,
    line 2957; the text names the effect but gives no odds). Exact, not simulated."""
    f, p = _ecmp_args(flows, paths)
    return out(_max_load_cdf(f, p), "")


def ecmp_collision_probability(flows, paths, load):
    """P(some path carries >= ``load`` flows) under static hashing (line 2957's "one link with
    4 flows" for 8 flows on 4 paths)."""
    f, p = _ecmp_args(flows, paths)
    c = int(count("load", _scalar("load", load), ge=0))
    if c == 0:
        return out(1.0, "")
    if c > f:
        return out(0.0, "")
    return out(1.0 - _max_load_cdf(f, p)[c - 1], "")


def ecmp_expected_max_load(flows, paths):
    """E[flows on the busiest path] = sum_c P(max > c)."""
    f, p = _ecmp_args(flows, paths)
    return out(float(np.sum(1.0 - _max_load_cdf(f, p))), "")


def ecmp_expected_slowdown(flows, paths):
    """E[max load] / ceil(flows / paths): how much longer the synchronous step's last flow takes
    than with perfect balance (line 2957: a 4-flow link vs the ideal 2 doubles the time)."""
    f, p = _ecmp_args(flows, paths)
    ideal = np.ceil(f / p)
    return out(float(np.sum(1.0 - _max_load_cdf(f, p))) / ideal, "")
