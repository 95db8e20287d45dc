"""Collective communication time models of Ch. 28 §28.5 (Eq. 28.10-28.15).

Symbols follow §28.1: ``alpha`` is the start-up (launch) time of one message (s), ``beta_net``
the effective one-way byte rate of the path (byte/s), ``p`` the number of processes and ``m``
the bytes each process starts with. The classic "alpha-beta" literature writes the second term
as a time per byte; the book calls that ``beta_inv = 1 / beta_net`` (§28.1) so that the same
letter never carries two opposite units. These calculators take ``beta_net`` (a bandwidth).

All models ignore queueing and congestion (§28.5); they explain why small and large messages
may prefer different algorithms, not which algorithm is faster on a given network.
"""
from __future__ import annotations

import numpy as np

from fleetcalc.core.calculator import calculator, qty, whole
from fleetcalc.core.equation import eq
from fleetcalc.core.validate import InputError
from fleetcalc.physics import links

__all__ = [
    "ring_steps", "alpha_beta_time", "latency_bandwidth_threshold", "ring_round_bytes", "ring_allreduce_terms",
    "ring_allreduce_time", "tree_allreduce_time", "ring_tree_crossover", "step_time_with_overlap",
    "exposed_communication", "alltoall_cut_time", "port_bandwidth_sum",
]

_P = whole(ge=2, doc="processes")
_P2 = whole(ge=2, doc="processes, a power of two")
_M = qty("byte", ge=0, doc="bytes each process starts with")
_ALPHA = qty("s", ge=0, doc="start-up time of one message")
_BETA = qty("byte/s", gt=0, doc="one-way byte rate of the path")


def _power_of_two(p):
    """log2(p), or InputError when p is not a power of two."""
    lg = np.log2(p)
    odd = lg != np.round(lg)
    if np.any(odd):
        raise InputError("p must be a power of two (Eq. 28.13 assumes a binary tree); "
                         f"got {np.asarray(p)[odd].flat[0]:g}")
    return lg


@calculator(returns="", p=_P, equation=eq(r"n_{\mathrm{steps}}", "2*(p - 1)",
                                            ref="Ch. 28 §28.5, Eq. 28.11 (p - 1 reduce-scatter and p - 1 all-gather steps)"))
def ring_steps(p):
    """Steps of a ring all-reduce: 2(p - 1), p - 1 of reduce-scatter then p - 1 of all-gather (Eq. 28.11)."""
    return 2.0 * (p - 1)


@calculator(returns="s", m=qty("byte", ge=0, doc="message bytes"), alpha=_ALPHA, beta_net=_BETA,
            equation=eq(r"t_{\mathrm{msg}}", "alpha + m/beta_net", ref="Ch. 28 §28.5, Eq. 28.10"))
def alpha_beta_time(m, alpha, beta_net):
    """t_msg(m) ~= alpha + m / beta_net (one message of m bytes on one path), Ch. 28 Eq. 28.10."""
    return alpha + links.transfer_time.kernel(m, beta_net)


@calculator(returns="byte", alpha=_ALPHA, beta_net=_BETA,
            equation=eq(r"m^{*}", "alpha*beta_net", ref="Ch. 28 §28.5 (m ≪ αβ_net under Eq. 28.10); Vol. 2 notation, n* = α·β"))
def latency_bandwidth_threshold(alpha, beta_net):
    """m* = alpha * beta_net: below it a message is latency-dominated, above it bandwidth-dominated
    (Ch. 28 §28.5, the condition m << alpha beta_net under Eq. 28.10)."""
    return alpha * beta_net


@calculator(returns="byte", p=_P, m=_M,
            equation=eq(r"m_{\mathrm{round}}", "m/p", ref="Ch. 28 §28.5 (the m/p of Eq. 28.11)"))
def ring_round_bytes(p, m):
    """Bytes each process sends per ring round: m / p (Ch. 28 §28.5, Eq. 28.11)."""
    return m / p


@calculator(returns={"latency": "s", "bandwidth": "s", "reduction": "s"}, p=_P, m=_M, alpha=_ALPHA,
            beta_net=_BETA, gamma=qty("s/byte", ge=0, doc="reduction cost per byte; None = not counted"),
            equation={"latency": eq(r"t_{\mathrm{lat}}", "2*(p - 1)*alpha", ref="Ch. 28 §28.5, Eq. 28.12"),
                      "bandwidth": eq(r"t_{\mathrm{bw}}", "2*(p - 1)/p * (m/beta_net)", ref="Ch. 28 §28.5, Eq. 28.12")})
def ring_allreduce_terms(p, m, alpha, beta_net, gamma=None):
    """The terms of the ring all-reduce time, Ch. 28 Eq. 28.12:

    latency = 2 (p-1) alpha; bandwidth = 2 (p-1)/p * m / beta_net (bytes sent per process, not the
    network total); reduction = (p-1)/p * m * gamma with gamma in s/byte (§28.5), 0 s when
    ``gamma`` is not given. Returns a dict of Quantities in s.
    """
    chunk = ring_round_bytes.kernel(p, m)                  # m / p per round, Eq. 28.11
    rounds = ring_steps.kernel(p)                           # reduce-scatter + all-gather
    g = 0.0 if gamma is None else gamma
    same_shape = 0.0 * (p + m + alpha + beta_net + g)      # every term as wide as the widest input
    return {"latency": rounds * alpha + same_shape,
            "bandwidth": rounds * links.transfer_time.kernel(chunk, beta_net) + same_shape,
            "reduction": (p - 1) * chunk * g + same_shape}


@calculator(returns="s", p=_P, m=_M, alpha=_ALPHA, beta_net=_BETA,
            gamma=qty("s/byte", ge=0, doc="reduction cost per byte; None = not counted"),
            equation=eq(r"t_{\mathrm{ring}}", "2*(p - 1)*alpha + 2*(p - 1)/p * (m/beta_net)",
                        ref="Ch. 28 §28.5, Eq. 28.12"))
def ring_allreduce_time(p, m, alpha, beta_net, gamma=None):
    """t_ring ~= 2(p-1)(alpha + m/(p beta_net)) = 2(p-1) alpha + 2(p-1)/p m / beta_net,
    Ch. 28 Eq. 28.11/28.12 (plus (p-1) m gamma / p when a reduction cost gamma is given)."""
    terms = ring_allreduce_terms.kernel(p, m, alpha, beta_net, gamma)
    return terms["latency"] + terms["bandwidth"] + terms["reduction"]


@calculator(returns="s", p=_P2, m=_M, alpha=_ALPHA, beta_net=_BETA,
            equation=eq(r"t_{\mathrm{tree}}", "2*log2(p)*(alpha + m/beta_net)", ref="Ch. 28 §28.5, Eq. 28.13"))
def tree_allreduce_time(p, m, alpha, beta_net):
    """t_tree ~= 2 log2(p) (alpha + m / beta_net): unsegmented binary-tree reduce + broadcast,
    p a power of two, Ch. 28 Eq. 28.13."""
    return 2.0 * _power_of_two(p) * alpha_beta_time.kernel(m, alpha, beta_net)


@calculator(returns="byte", p=_P2, alpha=_ALPHA, beta_net=_BETA,
            equation=eq(r"m_{x}", "alpha*beta_net * ((p - 1) - log2(p)) / (log2(p) - (p - 1)/p)",
                        ref="Ch. 28 §28.5 (Eq. 28.12 = Eq. 28.13 solved for m)"))
def ring_tree_crossover(p, alpha, beta_net):
    """Message size m_x where Eq. 28.12 and Eq. 28.13 give the same time (Ch. 28 §28.5).

    2(p-1) a + 2(p-1)/p m/b = 2 L (a + m/b), L = log2 p  =>  m_x = a b ((p-1) - L) / (L - (p-1)/p).
    Below m_x the tree (fewer launches) is faster, above it the ring (less data on the critical
    path). For p = 2 both start-up terms are equal and m_x = 0: the ring is never slower.
    """
    lg = _power_of_two(p)
    return latency_bandwidth_threshold.kernel(alpha, beta_net) * ((p - 1) - lg) / (lg - (p - 1) / p)


@calculator(returns="s", t_n=qty("s", ge=0, doc="communication time"),
            t_o=qty("s", ge=0, doc="overlapped part, <= t_n"),
            equation=eq(r"t_{\mathrm{exposed}}", "t_n - t_o", ref="Ch. 28 §28.5 (after Eq. 28.15)"))
def exposed_communication(t_n, t_o):
    """Communication left on the critical path: t_n - t_o (Ch. 28 §28.5, after Eq. 28.15)."""
    if np.any(t_o > t_n * (1 + 1e-12)):  # not a unit factor: relative float tolerance
        raise InputError(f"t_o must be <= t_n = {np.min(t_n):.6g} s; got {np.max(t_o):.6g} s")
    return t_n - t_o


@calculator(returns="s", t_c=qty("s", ge=0, doc="compute time"), t_n=qty("s", ge=0, doc="communication time"),
            t_o=qty("s", ge=0, doc="overlapped time, <= min(t_c, t_n)"),
            equation=eq(r"t_{\mathrm{step}}", "t_c + t_n - t_o", ref="Ch. 28 §28.5, Eq. 28.15"))
def step_time_with_overlap(t_c, t_n, t_o):
    """t_step = t_c + t_n - t_o with 0 <= t_o <= min(t_c, t_n), Ch. 28 Eq. 28.15."""
    lim = np.minimum(t_c, t_n)
    if np.any(t_o > lim * (1 + 1e-12)):  # not a unit factor: relative float tolerance
        raise InputError(
            f"t_o must be <= min(t_c, t_n) = {np.min(lim):.6g} s (only time spent on both can overlap, "
            f"Eq. 28.15); got {np.max(t_o):.6g} s"
        )
    return t_c + exposed_communication.kernel(t_n, t_o)


@calculator(returns="s", hosts_a=whole(), hosts_b=whole(), bytes_per_pair=qty("byte", ge=0),
            beta_cut=qty("byte/s", gt=0, doc="cut bandwidth per direction"),
            equation=eq(r"t_{\mathrm{cut}}", "hosts_a*hosts_b*bytes_per_pair/beta_cut",
                        symbols={"hosts_a": "a", "hosts_b": "b", "bytes_per_pair": "q"},
                        ref="Ch. 28 §28.5 (bisection bandwidth; Exercise 28.7)"))
def alltoall_cut_time(hosts_a, hosts_b, bytes_per_pair, beta_cut):
    """Least time for an all-to-all between two groups joined by a cut of ``beta_cut`` per
    direction: each direction carries hosts_a x hosts_b x q bytes, so t >= a b q / beta_cut
    (Ch. 28 §28.5, bisection bandwidth; Exercise 28.7). Port bandwidth inside a group does not help."""
    return links.transfer_time.kernel(hosts_a * hosts_b * bytes_per_pair, beta_cut)


@calculator(returns="byte/s", hosts=whole(), port_bandwidth=qty("byte/s", gt=0),
            equation=eq(r"\beta_{\mathrm{ports}}", "hosts*port_bandwidth",
                        symbols={"hosts": "n", "port_bandwidth": r"\beta_{\mathrm{port}}"},
                        ref="Ch. 28 §28.1 and §28.5 (the port sum is not the cut bandwidth; Exercise 28.7)"))
def port_bandwidth_sum(hosts, port_bandwidth):
    """Sum of host port rates, hosts x port: the number that does NOT bound cross-cut traffic (§28.5)."""
    return hosts * port_bandwidth



@calculator(returns="byte", p=_P, t_bw=qty("s", ge=0, doc="bandwidth term of the ring time (start-ups left out)"),
            beta_net=_BETA,
            equation=eq("m", "t_bw*beta_net*p/(2*(p - 1))", symbols={"t_bw": r"t_{\mathrm{bw}}"},
                        ref="Ch. 28 §28.5 (Eq. 28.12's bandwidth term solved for m)"))
def ring_allreduce_bytes_for_time(p, t_bw, beta_net):
    """Bytes m per process whose ring all-reduce over p processes spends t_bw in its bandwidth term:
    Eq. 28.12's t_bw = 2(p-1)/p m / beta_net solved for m (inverts the ``bandwidth`` term of
    :func:`ring_allreduce_terms`; the 2(p-1) alpha start-ups are left out)."""
    return t_bw * beta_net * p / ring_steps.kernel(p)


__all__ += ["ring_allreduce_bytes_for_time"]


# --------------------------------------------------------------------------- Vol. 2 Ch. 1
@calculator(returns="", p=_P,
            equation=eq(r"k_{\mathrm{ring}}", "2*(p - 1)/p",
                        ref="Vol. 2 Ch. 1 §1.3 (each worker sends about twice the gradient); Ch. 28 Eq. 28.12"))
def ring_traffic_factor(p):
    """Bytes each worker sends in a ring all-reduce, as a multiple of the buffer: 2(p-1)/p
    (-> 2 for large p; 1.998 at p = 1,024). Eq. 28.12's bandwidth term is this times m / beta_net."""
    return ring_steps.kernel(p) / p


@calculator(returns="GB", p=_P, m=_M,
            equation=eq(r"m_{\mathrm{sent}}", "2*(p - 1)/p * m",
                        ref="Vol. 2 Ch. 1 §1.3; Ch. 28 Eq. 28.11 (2(p-1) rounds of m/p bytes)"))
def ring_bytes_per_worker(p, m):
    """Bytes each worker sends (and receives) in a ring all-reduce of m bytes: 2(p-1) rounds of
    m/p (Ch. 28 Eq. 28.11): 2(p-1)/p x m."""
    return ring_steps.kernel(p) * ring_round_bytes.kernel(p, m)


__all__ += ["ring_traffic_factor", "ring_bytes_per_worker"]
