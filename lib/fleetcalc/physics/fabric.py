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

from fleetcalc.core.calculator import WHOLE, ceil_count, base_factor, calculator, fraction, num, one_value, qty, whole
from fleetcalc.core.equation import eq, no_equation
from fleetcalc.core.validate import InputError, magnitude, out
from fleetcalc.physics import links, node, reliability

__all__ = [
    "bisection_bandwidth", "oversubscription", "bisection_crossing_bytes",
    "comm_stretch", "throughput_loss", "stall_cost", "utilization", "barrier_waste",
    "idle_gpu_cost", "fat_tree_hosts", "fat_tree_pod_hosts", "fat_tree_switches",
    "fat_tree_links", "fat_tree_tiers_needed", "fat_tree_min_radix", "max_device_probability", "switch_traversals", "path_latency",
    "rail_groups", "dragonfly_hosts", "slowdown_from_fraction", "torus_nodes",
    "torus_diameter", "torus_bisection_links", "fat_tree_bisection_links", "torus_neighbors", "incast_overload",
    "buffer_fill_time", "transceivers", "pfc_storm_probability", "expected_storms", "storm_idle_gpu_time",
    "straggler_gpu_steps", "ecmp_max_load_cdf", "ecmp_collision_probability",
    "ecmp_expected_max_load", "ecmp_expected_slowdown",
]

_COMM_FRACTION = fraction(doc="share of the step spent communicating, not overlapped")
_F_S = {"comm_fraction": "f", "slowdown": "s"}


# --- bisection and oversubscription (§3.5) ---------------------------------------------------

@calculator(returns="byte/s", hosts=whole(ge=2), link_bw=qty("byte/s", gt=0, doc="one-way rate of one host link"),
            oversubscription=num(ge=1, doc="downlink / uplink capacity, 1 = non-blocking"),
            equation=eq(r"\mathrm{BW}_{\mathrm{bisect}}", "(hosts/2)*(link_bw/oversubscription)",
                        symbols={"hosts": "N", "link_bw": r"\beta_{\mathrm{link}}", "oversubscription": r"\mathrm{oversub}"},
                        ref="Vol. 2 §3.5 (lines 2748, 2800: 512 x 50 GB/s = 25.6 TB/s; 4:1 -> 6.4 TB/s)"))
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


@calculator(returns="byte", hosts=whole(ge=2), per_host=qty("byte", ge=0, doc="bytes each host of one half sends"),
            equation=eq(r"D_{\mathrm{bisect}}", "(hosts/2)*per_host", symbols={"hosts": "N", "per_host": r"D_{\mathrm{host}}"},
                        ref="Vol. 2 §3.5 (line 2801: 512 x 100 GB = 51,200 GB)"))
def bisection_crossing_bytes(hosts, per_host):
    """Bytes that must cross the bisection when each host of one half sends ``per_host`` to the
    other half: (hosts / 2) x per_host (Vol. 2 Ch. 3 §3.5, line 2801: 512 x 100 GB = 51,200 GB)."""
    return hosts / 2.0 * per_host


@calculator(returns="", hosts=whole(ge=2), oversubscription=num(ge=1, doc="downlink / uplink capacity, 1 = non-blocking"),
            equation=eq(r"L_{\mathrm{bisect}}", "hosts/(2*oversubscription)",
                        symbols={"hosts": "N", "oversubscription": r"\mathrm{oversub}"},
                        ref="Vol. 2 §3.5 (line 2748: a non-blocking tree carries half its hosts' links across the cut)"))
def fat_tree_bisection_links(hosts, oversubscription=1):
    """Host links' worth of capacity across the bisection of a fat-tree: N / (2 x oversubscription)
    (:func:`bisection_bandwidth` divided by one link's rate; Vol. 2 Ch. 3 §3.5, line 2748)."""
    return hosts / (2.0 * oversubscription)


# --- what a slower network costs (§3.1, §3.5, §3.6) ------------------------------------------

@calculator(returns="", comm_fraction=_COMM_FRACTION, slowdown=num(gt=0, doc="times slower communication"),
            equation=eq(r"T'/T", "(1 - comm_fraction) + comm_fraction*slowdown", symbols=_F_S,
                        ref="Vol. 2 §3.5 (line 2760)"))
def comm_stretch(comm_fraction, slowdown):
    """Step time relative to before when communication (a fraction f of the step, not
    overlapped) gets ``slowdown`` times slower: (1 - f) + f s (Vol. 2 Ch. 3 §3.5, line 2760)."""
    return (1.0 - comm_fraction) + comm_fraction * slowdown


@calculator(returns="", comm_fraction=_COMM_FRACTION, slowdown=num(gt=0, doc="times slower communication"),
            equation=eq(r"L_{\mathrm{tput}}", "1 - 1/((1 - comm_fraction) + comm_fraction*slowdown)", symbols=_F_S,
                        ref="Vol. 2 §3.5 (line 2760: f = 30 %, 2:1 -> 23.1 %)"))
def throughput_loss(comm_fraction, slowdown):
    """Cluster throughput lost: 1 - 1 / stretch (Vol. 2 Ch. 3 §3.5, line 2760: f = 30 %,
    2:1 oversubscription -> 23.1 %)."""
    return 1.0 - 1.0 / comm_stretch.kernel(comm_fraction, slowdown)


@calculator(returns="cu", budget=qty("cu", ge=0, doc="cost of the slowed run"), comm_fraction=_COMM_FRACTION,
            slowdown=num(ge=1, doc="times slower communication"),
            equation=eq(r"C_{\mathrm{stall}}", "budget*(1 - 1/((1 - comm_fraction) + comm_fraction*slowdown))",
                        symbols={**_F_S, "budget": "B"}, ref="Vol. 2 §3.5 (line 2805: $300M, f = 30 %, 4:1 -> $142.1M)"))
def stall_cost(budget, comm_fraction, slowdown):
    """Money spent on GPUs idling in the extra network stall, when ``budget`` pays for the slowed
    run: budget x f (s - 1) / ((1 - f) + f s) (Vol. 2 Ch. 3 §3.5, line 2805: $300M, f = 30 %,
    4:1 -> $142.1M)."""
    return budget * throughput_loss.kernel(comm_fraction, slowdown)  # f (s - 1) / stretch = 1 - 1 / stretch


@calculator(returns="", compute=qty("s", gt=0), comm=qty("s", ge=0, doc="not overlapped"),
            equation=eq("U", "1 - comm/(comm + compute)",
                        symbols={"compute": r"t_{\mathrm{compute}}", "comm": r"t_{\mathrm{comm}}"},
                        ref="Vol. 2 §3.1 (Fig. 3.3, line 2547: 99.5 % vs 87 %)"))
def utilization(compute, comm):
    """Busy fraction of a step without overlap: compute / (compute + comm) = 1 - the stall
    fraction of :func:`fleetcalc.physics.node.stall_fraction` (Vol. 2 Ch. 3 §3.1, Fig. 3.3, line 2547)."""
    return 1.0 - node.stall_fraction.kernel(comm, compute)


@calculator(returns="s", gpus=whole(), delay=qty("s", ge=0, doc="straggler's delay"),
            equation=eq(r"T_{\mathrm{lost}}", "gpus*delay", symbols={"gpus": "N", "delay": r"\Delta t"},
                        ref="Vol. 2 §3.2 (line 2573: 100 ms x 1,024 GPUs)"))
def barrier_waste(gpus, delay):
    """GPU-time lost when a barrier waits ``delay`` for one straggler: gpus x delay (the waiting
    GPUs idle for the whole delay), Vol. 2 Ch. 3 §3.2 (line 2573: 100 ms x 1,024 GPUs)."""
    return gpus * delay


@calculator(returns="cu", gpus=whole(ge=0), stall=qty("hour", ge=0), price=qty("cu/hour", ge=0, doc="per GPU-hour"),
            equation=eq(r"C_{\mathrm{idle}}", "gpus*stall*price",
                        symbols={"gpus": "N", "stall": r"t_{\mathrm{stall}}", "price": r"c_{\mathrm{GPU}}"},
                        ref="Vol. 2 §3.6 (line 2879: $3 per GPU-hour)"))
def idle_gpu_cost(gpus, stall, price):
    """Cost of GPUs idling while the network stalls: gpus x stall time x price per GPU-hour
    (Vol. 2 Ch. 3 §3.6, line 2879 prices a GPU-hour at $3)."""
    return gpus * stall * price


@calculator(returns="", gpus=whole(), slowdown=num(ge=0, doc="fraction of a step the straggler is late"),
            equation=eq(r"W_{\mathrm{steps}}", "(gpus - 1)*slowdown", symbols={"gpus": "N", "slowdown": r"\delta"},
                        ref="Vol. 2 §3.6 (line 2879: 1,023 x 10 % = 102.3 GPU-steps)"))
def straggler_gpu_steps(gpus, slowdown):
    """GPU-steps wasted per iteration when one of ``gpus`` runs ``slowdown`` (fraction) slower:
    the other gpus - 1 wait slowdown of a step each (Vol. 2 Ch. 3 §3.6, line 2879: 1,023 x 10 %)."""
    return (gpus - 1) * slowdown


# --- fat-tree sizing (§3.5) ------------------------------------------------------------------

_RADIX = whole(ge=2, doc="switch radix, even")
_TIERS = whole(le=8, doc="switch tiers (2-3 in practice; (k/2)^t overflows a float for hundreds)")
_T = {"tiers": "t"}


def _even(k):
    """The radix k, or InputError when it is odd (half the ports go down, half up)."""
    if np.any(np.asarray(k) % 2):
        raise InputError(f"k (switch radix) must be even: half the ports go down, half up; "
                         f"got {np.asarray(k)[np.asarray(k) % 2 == 1].flat[0]:g}")
    return k


@calculator(returns="", k=_RADIX, tiers=_TIERS,
            equation=eq(r"N_{\mathrm{hosts}}", "k**tiers/2**(tiers - 1)", symbols=_T,
                        ref="Vol. 2 §3.5 (lines 2782, 2792: k²/2 for two tiers, k³/4 for three)"))
def fat_tree_hosts(k, tiers=3):
    """Hosts of a non-blocking fat-tree: N = 2 (k/2)^t (k^2/2 for t = 2, k^3/4 for t = 3),
    Vol. 2 Ch. 3 §3.5 (line 2782: k = 64 -> 2,048 and 65,536)."""
    return 2.0 * (_even(k) / 2.0) ** tiers


@calculator(returns="", k=_RADIX,
            equation=eq(r"N_{\mathrm{pod}}", "k**2/4", ref="Vol. 2 §3.5 (line 2792: (k/2)² = 1,024 for k = 64)"))
def fat_tree_pod_hosts(k):
    """Hosts of one pod when the upper layer is kept as aggregation (k/2 leaves x k/2 hosts):
    (k/2)^2, Vol. 2 Ch. 3 §3.5 (line 2792: k = 64 -> 1,024)."""
    return (_even(k) / 2.0) ** 2


@calculator(returns="", k=_RADIX, tiers=_TIERS,
            equation=eq(r"N_{\mathrm{sw}}", "(2*tiers - 1)*k**(tiers - 1)/2**(tiers - 1)", symbols=_T,
                        ref="Vol. 2 §3.5 (line 2811: 5k²/4 = 5,120 for k = 64; Al-Fares et al. 2008)"))
def fat_tree_switches(k, tiers=3):
    """Switches of a full non-blocking fat-tree: (2t - 1)(k/2)^(t-1) (3k/2 for t = 2,
    5k^2/4 for t = 3), Vol. 2 Ch. 3 §3.5 (line 2811: k = 64 -> 5,120)."""
    return (2.0 * tiers - 1.0) * (_even(k) / 2.0) ** (tiers - 1)


@calculator(returns="", k=_RADIX, tiers=_TIERS,
            equation=eq(r"N_{\mathrm{links}}", "tiers*N_hosts", where=[("N_hosts", "k**tiers/2**(tiers - 1)")], symbols=_T,
                        ref="Vol. 2 §3.5-3.6 (line 2782 for N_hosts; line 2935: a link per GPU per tier)"))
def fat_tree_links(k, tiers=3):
    """Cables of a full fat-tree: one per host per tier, t x N (host links plus t - 1 layers of
    switch-to-switch links, each as wide as the host layer when non-blocking). Vol. 2 Ch. 3 §3.6
    counts 3 link tiers per GPU in a three-tier tree (line 2935)."""
    return tiers * fat_tree_hosts.kernel(k, tiers)


@calculator(returns="", hosts=whole(), k=whole(ge=4, doc="switch radix, even"),
            equation=eq("t", "max(ceil_count(log(max(hosts/2, 1))/log(k/2)), 1)", symbols={"hosts": "N"},
                        ref="Vol. 2 §3.5 (line 2782's N = 2(k/2)^t solved for t; line 2811)"))
def fat_tree_tiers_needed(hosts, k):
    """Fewest tiers t with 2 (k/2)^t >= hosts (Vol. 2 Ch. 3 §3.5, line 2811: beyond a two-tier
    pod you need a core layer). Needs k >= 4 (with k = 2 the tree never grows)."""
    t = ceil_count(np.log(np.maximum(hosts / 2.0, 1.0)) / np.log(_even(k) / 2.0))
    return np.maximum(t, 1.0)


@calculator(returns="", hosts=whole(ge=2), tiers=_TIERS,
            equation=eq("k", "2*ceil_count(hosts**(1/tiers)/2**(1/tiers))", symbols={"hosts": "N", **_T},
                        ref="Vol. 2 §3.5 (line 2782's N = 2(k/2)^t solved for k)"))
def fat_tree_min_radix(hosts, tiers=2):
    """Smallest even radix k with 2 (k/2)^t >= hosts: k = 2 ceil((hosts/2)^(1/t)) (inverts the
    sizing of Vol. 2 Ch. 3 §3.5, line 2782: 2,048 hosts in two tiers need k = 64)."""
    return 2.0 * ceil_count((hosts / 2.0) ** (1.0 / tiers))


@calculator(returns="", tiers_up=whole(doc="layers climbed"),
            equation=eq(r"n_{\mathrm{sw}}", "2*tiers_up - 1", symbols={"tiers_up": r"t_{\mathrm{up}}"},
                        ref="Vol. 2 §3.5 (lines 2811, 2821: leaf-spine-leaf = 3)"))
def switch_traversals(tiers_up):
    """Switches a packet crosses when it must climb ``tiers_up`` layers and come back down:
    2 tiers_up - 1 (1 = same leaf / rail switch, 3 = leaf-spine-leaf, 5 = through the core),
    Vol. 2 Ch. 3 §3.5 (lines 2811, 2821)."""
    return 2.0 * tiers_up - 1.0


@calculator(returns="s", traversals=whole(ge=0), per_switch=qty("s", ge=0),
            equation=eq(r"\alpha_{\mathrm{sw}}", "traversals*per_switch",
                        symbols={"traversals": r"n_{\mathrm{sw}}", "per_switch": r"t_{\mathrm{sw}}"},
                        ref="Vol. 2 §3.5 (line 2825: 3 x 0.6 us = 1.8 us)"))
def path_latency(traversals, per_switch):
    """Switching part of alpha: traversals x per-switch latency (Vol. 2 Ch. 3 §3.5, line 2825:
    3 x 0.6 us vs 1 x 0.6 us)."""
    return traversals * per_switch


_RAIL = {"gpus": "N", "gpus_per_node": r"n_{\mathrm{node}}"}
_RAIL_REF = "Vol. 2 §3.5 (line 2839: 1,024 GPUs, 8 per node -> 8 rails of 128)"


@calculator(returns=("", ""), gpus=whole(doc="a whole number of nodes"), gpus_per_node=whole(),
            equation=[eq(r"n_{\mathrm{rails}}", "gpus_per_node", key=0, symbols=_RAIL, ref=_RAIL_REF),
                      eq(r"n_{\mathrm{per\,rail}}", "gpus/gpus_per_node", key=1, symbols=_RAIL, ref=_RAIL_REF)])
def rail_groups(gpus, gpus_per_node):
    """A rail-optimized fabric: one rail per local GPU rank, each rail joining one GPU of every
    node. Returns (rails, GPUs per rail) = (gpus_per_node, gpus / gpus_per_node)
    (Vol. 2 Ch. 3 §3.5, line 2839: 1,024 GPUs, 8 per node -> 8 rails of 128)."""
    if np.any(np.asarray(gpus) % np.asarray(gpus_per_node)):
        raise InputError(f"gpus must be a whole number of nodes of {np.min(gpus_per_node):g}; got {np.max(gpus):g}")
    return gpus_per_node + 0.0 * gpus, gpus / gpus_per_node


# --- dragonfly and torus (§3.5) --------------------------------------------------------------

@calculator(returns="", p=whole(doc="host ports per router"), a=whole(doc="routers per group"),
            h=whole(doc="global ports per router"),
            equation=eq(r"N_{\mathrm{hosts}}", "a*p*(a*h + 1)", ref="Kim et al. 2008, cited in Vol. 2 §3.5 (line 2764)"))
def dragonfly_hosts(p, a, h):
    """Largest dragonfly of routers with p host ports, a routers per group and h global ports each:
    a p (a h + 1) hosts in a h + 1 groups (Kim et al. 2008, cited at line 2764; the chapter gives
    no sizing formula)."""
    return a * p * (a * h + 1.0)


@calculator(returns="", fraction=fraction(open_low=True, doc="share of the needed bandwidth available"),
            equation=eq("s", "1/fraction", symbols={"fraction": "f"},
                        ref="Vol. 2 §3.5 (line 2845: global links at 25-50 % -> 2-4x)"))
def slowdown_from_fraction(fraction):
    """Slowdown of traffic limited to a fraction of the bandwidth it needs: 1 / fraction
    (Vol. 2 Ch. 3 §3.5, line 2845: global links at 25-50 % -> 2-4x)."""
    return 1.0 / fraction


_DIMS = whole(ge=2, doc="side lengths, one per dimension, e.g. (16, 16, 16)")
_NEEDS_LIST = "needs a reduction over a list argument, %s (the expression takes scalars only)"


def _sides(dims):
    """The side lengths as a 1-D array, or InputError for a nested list."""
    d = np.atleast_1d(dims)
    if d.ndim != 1:
        raise InputError(f"dims must be a list of side lengths, e.g. (16, 16, 16); got {dims}")
    return d


@calculator(returns="", dims=_DIMS, equation=no_equation(_NEEDS_LIST % "a product of the side lengths"))
def torus_nodes(dims):
    """Nodes of a torus with side lengths dims: the product (e.g. 16 x 16 x 16 = 4,096)."""
    return float(np.prod(_sides(dims)))


@calculator(returns="", dims=_DIMS, equation=no_equation(_NEEDS_LIST % "a sum of floor(k_i / 2) over the sides"))
def torus_diameter(dims):
    """Hops between the farthest two nodes of a torus (wrap-around links): sum of floor(k_i / 2);
    grows as N^(1/3) in 3-D (Vol. 2 Ch. 3 §3.5, line 2847)."""
    return float(np.sum(np.floor(_sides(dims) / 2.0)))


@calculator(returns="", dims=_DIMS,
            equation=no_equation(_NEEDS_LIST % "2 N / k_max: a product and a maximum over the sides"))
def torus_bisection_links(dims):
    """Links cut when a torus is halved across its longest side: 2 N / k_max (the factor 2 is the
    wrap-around); N^(2/3) scaling in 3-D (Vol. 2 Ch. 3 §3.5, line 2849). Needs an even k_max."""
    d = _sides(dims)
    kmax = d.max()
    if kmax % 2:
        raise InputError(f"the longest side of dims must be even to halve the torus; got dims {tuple(int(x) for x in d)}")
    return 2.0 * torus_nodes.kernel(d) / kmax


@calculator(returns="", ndim=whole(doc="dimensions of the torus"),
            equation=eq(r"n_{\mathrm{nbr}}", "2*ndim", symbols={"ndim": "d"}, ref="Vol. 2 §3.5 (line 2847: 6 in 3-D)"))
def torus_neighbors(ndim):
    """Direct neighbours of a node in an ndim-dimensional torus: 2 ndim (6 in 3-D, line 2847)."""
    return 2.0 * ndim


# --- incast and PFC (§3.6) -------------------------------------------------------------------

_INCAST = {"senders": "n", "sender_rate": r"\beta_{\mathrm{send}}", "port_rate": r"\beta_{\mathrm{port}}",
           "buffer": r"B_{\mathrm{buf}}"}

@calculator(returns="", senders=whole(), sender_rate=qty("byte/s", gt=0), port_rate=qty("byte/s", gt=0),
            equation=eq(r"\mathrm{overload}", "senders*sender_rate/port_rate", symbols=_INCAST,
                        ref="Vol. 2 §3.6 (Fig. 3.11, line 2913: 256 x 50 GB/s over 50 GB/s = 256x)"))
def incast_overload(senders, sender_rate, port_rate):
    """Offered load over capacity at an incast port: senders x sender_rate / port_rate
    (Vol. 2 Ch. 3 §3.6, Fig. 3.11, line 2913: 256 x 50 GB/s over 50 GB/s = 256x)."""
    return senders * sender_rate / port_rate


@calculator(returns="s", buffer=qty("byte", gt=0), senders=whole(), sender_rate=qty("byte/s", gt=0),
            port_rate=qty("byte/s", gt=0, doc="< senders x sender_rate"),
            equation=eq(r"t_{\mathrm{fill}}", "buffer/(senders*sender_rate - port_rate)", symbols=_INCAST,
                        ref="Vol. 2 §3.6 (follows from Fig. 3.11, line 2913)"))
def buffer_fill_time(buffer, senders, sender_rate, port_rate):
    """Time for an incast to fill a switch buffer: buffer / (senders x sender_rate - port_rate)
    (follows from Fig. 3.11, line 2913; needs offered load above the port rate)."""
    excess = senders * sender_rate - port_rate
    if np.any(excess <= 0):
        raise InputError("senders x sender_rate must exceed port_rate, or the buffer never fills; "
                         f"got {np.min(senders * sender_rate):g} byte/s against {np.max(port_rate):g} byte/s")
    return links.transfer_time.kernel(buffer, excess)


@calculator(returns="", gpus=whole(), link_tiers=whole(doc="link tiers per GPU"),
            per_link=whole(doc="transceivers per link"),
            equation=eq(r"n_{\mathrm{xcvr}}", "gpus*link_tiers*per_link",
                        symbols={"gpus": "N", "link_tiers": r"t_{\mathrm{links}}", "per_link": r"n_{\mathrm{ends}}"},
                        ref="Vol. 2 §3.6 (line 2935: 4,096 x 3 = 12,288 links = 24,576 transceivers)"))
def transceivers(gpus, link_tiers=3, per_link=2):
    """Transceivers exposed in a fabric: gpus x link tiers x per-link ends
    (Vol. 2 Ch. 3 §3.6, line 2935: 4,096 x 3 = 12,288 links = 24,576 transceivers)."""
    return gpus * link_tiers * per_link


_P_DAILY = num(gt=0, lt=1, doc="probability per device per day")
#: one day in seconds: ``p_daily`` is a probability per day, the kernels' windows are in seconds
DAY = base_factor("day")


def _mtbf_of_n(p_daily, n_devices):
    """MTBF (s) of the first of n devices, each failing with probability p per day:
    1 day / (n x -ln(1 - p)), via :func:`fleetcalc.physics.reliability.mtbf_of_n`."""
    return reliability.mtbf_of_n.kernel(DAY / -np.log1p(-p_daily), n_devices)


@calculator(returns="", p_daily=_P_DAILY, n_devices=whole(), window=qty("day", ge=0),
            equation=eq(r"P_{\mathrm{storm}}", "1 - (1 - p_daily)**(n_devices*window/unit('day'))",
                        symbols={"p_daily": "p", "n_devices": "n", "window": "T"},
                        ref="Vol. 2 §3.6 (lines 2939-2943)"))
def pfc_storm_probability(p_daily, n_devices, window=DAY):
    """P(at least one of n devices fails in ``window``) = 1 - (1 - p)^(n x days), p per device per
    day, independent devices (Vol. 2 Ch. 3 §3.6, lines 2939-2943: p = 0.001 %, n = 24,576 -> 21.8 %).
    Computed with :func:`fleetcalc.physics.reliability.mtbf_of_n` and ``failure_probability``."""
    return reliability.failure_probability.kernel(window, _mtbf_of_n(p_daily, n_devices))


@calculator(returns="", P_target=num(gt=0, lt=1, doc="acceptable P(at least one failure)"), n_devices=whole(),
            window=qty("day", gt=0),
            equation=eq(r"p_{\max}", "-expm1(log(1 - P_target)/(n_devices*window/unit('day')))",
                        symbols={"P_target": r"P_{\mathrm{target}}", "n_devices": "n", "window": "T"},
                        ref="Vol. 2 §3.6 (lines 2939-2943, solved for p)"))
def max_device_probability(P_target, n_devices, window=DAY):
    """Largest per-device daily probability p that keeps P(at least one of n in ``window``) <=
    P_target: p = 1 - (1 - P_target)^(1 / (n x days)) (inverts :func:`pfc_storm_probability`)."""
    return -np.expm1(np.log1p(-P_target) / (n_devices * (window / DAY)))


@calculator(returns="", p_daily=_P_DAILY, n_devices=whole(), window=qty("day", ge=0),
            equation=eq(r"\mathrm{E}[N_{\mathrm{storm}}]", "-log(1 - p_daily)*n_devices*window/unit('day')",
                        symbols={"p_daily": "p", "n_devices": "n", "window": "T"},
                        ref="Vol. 2 §3.6 (the Poisson rate behind lines 2939-2943)"))
def expected_storms(p_daily, n_devices, window=DAY):
    """Expected storm-triggering failures in ``window``: window / MTBF_n = n x -ln(1 - p) per day
    (the Poisson rate behind :func:`pfc_storm_probability`)."""
    return window / _mtbf_of_n(p_daily, n_devices)



@calculator(returns="hour", gpus=whole(), p_daily=_P_DAILY, recovery=qty("s", ge=0, doc="idle time per storm"),
            link_tiers=whole(doc="link tiers per GPU"), per_link=whole(doc="transceivers per link"),
            window=qty("day", ge=0),
            equation=eq(r"T_{\mathrm{idle}}",
                        "gpus*(-log(1 - p_daily)*(gpus*link_tiers*per_link)*window/unit('day'))*recovery",
                        symbols={"gpus": "N", "p_daily": "p", "recovery": r"t_{\mathrm{rec}}",
                                 "link_tiers": r"t_{\mathrm{links}}", "per_link": r"n_{\mathrm{ends}}",
                                 "window": "T"},
                        ref="Vol. 2 §3.6 (lines 2929-2945: the storm rate grows with the transceivers)"))
def storm_idle_gpu_time(gpus, p_daily, recovery, link_tiers=3, per_link=2, window=DAY):
    """GPU-time idled by PFC storms in ``window``: N x E[storms] x t_rec, where the expected storms
    grow with the transceivers, n = N x link tiers x ends (:func:`transceivers`,
    :func:`expected_storms`); so the idle GPU-time grows as N squared, not N."""
    n = transceivers.kernel(gpus, link_tiers, per_link)
    return gpus * expected_storms.kernel(p_daily, n, window) * recovery

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
        if cdf[c] >= 1.0 - 1e-13:  # not a unit factor: float tolerance
            cdf[c:] = 1.0
            break
    return np.clip(cdf, 0.0, 1.0)


_NOT_VECTORISED = "the exact ECMP calculation is not vectorised"
_FLOWS = one_value(whole(le=_MAX_FLOWS, doc="equal elephant flows; at most 256 for the exact calculation"), _NOT_VECTORISED)
_PATHS = one_value(whole(le=64, doc="equal-cost paths; at most 64 for the exact calculation"), _NOT_VECTORISED)
_ECMP = "an exact recursion over the paths (sequential binomial conditioning), not a closed form"


@calculator(returns="", flows=_FLOWS, paths=_PATHS, equation=no_equation(_ECMP))
def ecmp_max_load_cdf(flows, paths):
    """P(busiest path carries <= c flows) for c = 0..flows, when ``flows`` equal elephant flows are
    hashed uniformly at random onto ``paths`` equal-cost paths (static ECMP, Vol. 2 Ch. 3 §3.6,
    line 2957; the text names the effect but gives no odds). Exact, not simulated."""
    return _max_load_cdf(int(flows), int(paths))


@calculator(returns="", flows=_FLOWS, paths=_PATHS, load=one_value(whole(ge=0, doc="flows on one path"), _NOT_VECTORISED),
            equation=no_equation("one entry of ecmp_max_load_cdf: " + _ECMP))
def ecmp_collision_probability(flows, paths, load):
    """P(some path carries >= ``load`` flows) under static hashing (line 2957's "one link with
    4 flows" for 8 flows on 4 paths)."""
    f, p, c = int(flows), int(paths), int(load)
    if c == 0:
        return 1.0
    if c > f:
        return 0.0
    return 1.0 - _max_load_cdf(f, p)[c - 1]


@calculator(returns="", flows=_FLOWS, paths=_PATHS,
            equation=no_equation("a sum over ecmp_max_load_cdf: " + _ECMP))
def ecmp_expected_max_load(flows, paths):
    """E[flows on the busiest path] = sum_c P(max > c)."""
    return float(np.sum(1.0 - ecmp_max_load_cdf.kernel(flows, paths)))


@calculator(returns="", flows=_FLOWS, paths=_PATHS,
            equation=no_equation("E[max load] from ecmp_max_load_cdf over the ideal ceil(flows / paths): " + _ECMP))
def ecmp_expected_slowdown(flows, paths):
    """E[max load] / ceil(flows / paths): how much longer the synchronous step's last flow takes
    than with perfect balance (line 2957: a 4-flow link vs the ideal 2 doubles the time)."""
    return ecmp_expected_max_load.kernel(flows, paths) / np.ceil(int(flows) / int(paths))


# --- the tail at scale (§3.2) ----------------------------------------------------------------

@calculator(returns="", p_slow=fraction(doc="chance that one worker is slow in a step"),
            workers=whole(doc="workers that meet at the barrier"),
            equation=eq(r"P_{\mathrm{wait}}", "1 - (1 - p_slow)**workers",
                        symbols={"p_slow": "p", "workers": "N"},
                        ref="Vol. 2 §3.2 (line 2573: every GPU waits for the slowest); Vol. 2 Eq. 1.1"))
def tail_wait_probability(p_slow, workers):
    """P(a step waits for at least one slow worker) = 1 - (1 - p)^N, independent workers: the
    complement of a series system that is fast only when all N are fast
    (:func:`fleetcalc.physics.reliability.system_reliability`, Vol. 2 Eq. 1.1). The tail at scale:
    p = 0.001 and N = 1,024 give 64 %."""
    return 1.0 - reliability.system_reliability.kernel(1.0 - p_slow, workers)


@calculator(returns="", P_wait=fraction(doc="chance that a step waits"),
            delay=qty("s", ge=0, doc="hold-up when it waits"), t_step=qty("s", gt=0, doc="step time when nobody is late"),
            equation=eq(r"f_{\mathrm{idle}}", "P_wait*delay/(t_step + P_wait*delay)",
                        symbols={"P_wait": r"P_{\mathrm{wait}}", "delay": "d", "t_step": r"t_{\mathrm{step}}"},
                        ref="Vol. 2 §3.2 (line 2573: a 100 ms hold-up idles every GPU)"))
def tail_idle_share(P_wait, delay, t_step):
    """Share of wall-clock time the GPUs idle at the barrier: a step lasts t_step, plus d with
    probability P_wait, so on average P d of every t_step + P d is waiting. Always below 1: idle
    time cannot exceed the wall time it is part of."""
    extra = P_wait * delay
    return extra / (t_step + extra)


__all__ += ["tail_wait_probability", "tail_idle_share"]
